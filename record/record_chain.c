/*
 * Where a lane's chain of timestamps goes (the chain strategy). A timestamp between two
 * dispatches ends the first and starts the second. Record cannot know at a pass's beginning how
 * many dispatches the pass will hold, so each dispatch's record is added before it with its end
 * owed, and the end is written at the first of:
 *   - the next dispatch in the same pass: a timestamp inside the pass, before it;
 *   - the beginning of the encoder's next compute pass: the pass's own beginning write, the
 *     cheapest timestamp there is on wgpu-native (BENCHMARKS.md section 10), so that a program
 *     with a pass per dispatch is timed as the graph profiler times it;
 *   - other GPU work of the encoder (a copy, a clear, a render pass, a query resolve or
 *     timestamp) or its finish: the beginning write of an empty compute pass of wgprof's.
 * That other work, from there to the next compute pass (or the finish), is timed as a record of
 * its own, named by what it held: "(copy)", "(copy, clear)", ... So a dispatch's time is its
 * own and its pass's boundary, never a copy's. The chain itself starts at the beginning of the
 * lane's first pass. Where the program gives a pass timestamp writes of its own, wgprof's go
 * inside that pass instead.
 *
 * Which of these applies is decided by record_chain_plan.c from the lane's chain state alone;
 * here the plans are carried out on the lane's pool, by the lane's holder, without a lock.
 */
#include <stdio.h>

#include "common.h"
#include "internal.h"
#include "record_lib.h"

static const char *const WORK_NAMES[WGPROF_REC_WORK_KINDS] = {"copy", "clear", "render pass", "query resolve",
                                                              "timestamp"};

/* The encoder work since the last dispatch's end becomes a record of its own, its end owed. */
static void close_work(wgprof_rec_lane *lane)
{
    char name[96];
    size_t n = 0;
    for (unsigned k = 0; k < WGPROF_REC_WORK_KINDS; k++) {
        if (lane->chain.work_kinds & (1u << k)) {
            int w = snprintf(name + n, sizeof name - n, "%s%s", n ? ", " : "(", WORK_NAMES[k]);
            n += w > 0 && (size_t)w < sizeof name - n ? (size_t)w : 0;
        }
    }
    snprintf(name + n, sizeof name - n, ")");
    wgprof_dispatch_desc d = {.kernel = name};
    wgprof_site site;
    bool ok = wgprof_pool_site(lane->pool, &d, &site) == WGPROF_OK &&
              wgprof_pool_kernel_source(lane->pool, name, WGPROF_WORK_NAME_SOURCE) == WGPROF_OK &&
              wgprof_pool_chain_add(lane->pool, site, 0, &lane->owed_end) == WGPROF_OK;
    wgprof_rec_chain_advance(&lane->chain, WGPROF_REC_CHAIN_CLOSE_WORK, ok, WGPROF_REC_WORK_COPY);
}

/* The plan for `event`, the encoder's work since the last dispatch closed first where it asks. */
static wgprof_rec_chain_plan plan_for(wgprof_rec_lane *lane, wgprof_rec_chain_event event)
{
    wgprof_rec_chain_plan plan = wgprof_rec_chain_decide(&lane->chain, event);
    while (plan == WGPROF_REC_CHAIN_CLOSE_WORK) {
        close_work(lane);
        plan = wgprof_rec_chain_decide(&lane->chain, event);
    }
    return plan;
}

wgprof_rec_chain_plan wgprof_rec_chain_before_pass(wgprof_rec_lane *lane, bool theirs, WGPUPassTimestampWrites *writes)
{
    if (!lane || !lane->pool) {
        return WGPROF_REC_CHAIN_NOTHING;
    }
    wgprof_rec_chain_plan plan = plan_for(lane, theirs ? WGPROF_REC_AT_PASS_THEIRS : WGPROF_REC_AT_PASS);
    if (plan == WGPROF_REC_CHAIN_WRITES) {
        bool ok = wgprof_pool_chain_start_writes(lane->pool, writes) == WGPROF_OK;
        wgprof_rec_chain_advance(&lane->chain, plan, ok, WGPROF_REC_WORK_COPY);
        return ok ? plan : WGPROF_REC_CHAIN_NOTHING;
    }
    if (plan == WGPROF_REC_CHAIN_END_WRITES && wgprof_pool_chain_end_writes(lane->pool, lane->owed_end, writes) != WGPROF_OK) {
        return WGPROF_REC_CHAIN_NOTHING; /* the end stays owed: the next dispatch writes it in its pass */
    }
    return plan;
}

void wgprof_rec_chain_after_pass(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, wgprof_rec_chain_plan plan)
{
    bool ok = true;
    switch (plan) {
    case WGPROF_REC_CHAIN_START_INSIDE:
        ok = wgprof_pool_chain_begin(lane->pool, pass) == WGPROF_OK;
        break;
    case WGPROF_REC_CHAIN_END_INSIDE:
        ok = wgprof_pool_chain_end_in_pass(lane->pool, pass, lane->owed_end) == WGPROF_OK;
        break;
    case WGPROF_REC_CHAIN_END_WRITES:
        ok = wgprof_pool_chain_carry(lane->pool, pass, lane->owed_end) == WGPROF_OK;
        break;
    default:
        return; /* NOTHING, or WRITES (told before the pass) */
    }
    wgprof_rec_chain_advance(&lane->chain, plan, ok, WGPROF_REC_WORK_COPY);
}

void wgprof_rec_chain_dispatch(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, wgprof_site site)
{
    wgprof_rec_chain_plan plan = wgprof_rec_chain_decide(&lane->chain, WGPROF_REC_AT_DISPATCH);
    if (plan == WGPROF_REC_CHAIN_DISPATCH_START) {
        bool ok = wgprof_pool_chain_begin(lane->pool, pass) == WGPROF_OK;
        wgprof_rec_chain_advance(&lane->chain, plan, ok, WGPROF_REC_WORK_COPY);
        if (!ok) {
            return;
        }
    } else if (plan == WGPROF_REC_CHAIN_DISPATCH_END) {
        bool ended = wgprof_pool_chain_end_in_pass(lane->pool, pass, lane->owed_end) == WGPROF_OK;
        wgprof_rec_chain_advance(&lane->chain, plan, ended, WGPROF_REC_WORK_COPY);
    }
    bool added = wgprof_pool_chain_add(lane->pool, site, 0, &lane->owed_end) == WGPROF_OK;
    wgprof_rec_chain_advance(&lane->chain, WGPROF_REC_CHAIN_DISPATCH_ADD, added, WGPROF_REC_WORK_COPY);
}

/* Writes the owed end at the beginning of an empty compute pass of wgprof's. */
static void end_in_empty_pass(wgprof_rec_lane *lane, WGPUCommandEncoder enc)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    WGPUPassTimestampWrites writes;
    if (wgprof_pool_chain_end_writes(lane->pool, lane->owed_end, &writes) != WGPROF_OK) {
        /* Not the end the pool owes: nothing to write; the pool marks an owed end not written
         * at resolve. */
        wgprof_rec_chain_advance(&lane->chain, WGPROF_REC_CHAIN_EMPTY_PASS, false, WGPROF_REC_WORK_COPY);
        return;
    }
    WGPUComputePassDescriptor desc = {0};
    desc.timestampWrites = &writes;
    WGPUComputePassEncoder pass = real->commandEncoderBeginComputePass(enc, &desc);
    if (pass) {
        wgprof_pool_chain_carry(lane->pool, pass, lane->owed_end);
        real->computePassEncoderEnd(pass);
        real->computePassEncoderRelease(pass);
    }
    wgprof_rec_chain_advance(&lane->chain, WGPROF_REC_CHAIN_EMPTY_PASS, true, WGPROF_REC_WORK_COPY);
}

void wgprof_rec_chain_work(wgprof_rec_lane *lane, WGPUCommandEncoder enc, wgprof_rec_work kind)
{
    if (!lane || !lane->pool) {
        return;
    }
    wgprof_rec_chain_plan plan = wgprof_rec_chain_decide(&lane->chain, WGPROF_REC_AT_WORK);
    if (plan == WGPROF_REC_CHAIN_NOTHING) {
        return;
    }
    if (plan == WGPROF_REC_CHAIN_EMPTY_PASS) {
        end_in_empty_pass(lane, enc);
    }
    wgprof_rec_chain_advance(&lane->chain, WGPROF_REC_CHAIN_NOTE_WORK, true, kind);
}

void wgprof_rec_chain_finish(wgprof_rec_lane *lane, WGPUCommandEncoder enc)
{
    if (!lane || !lane->pool) {
        return;
    }
    if (plan_for(lane, WGPROF_REC_AT_FINISH) == WGPROF_REC_CHAIN_EMPTY_PASS) {
        end_in_empty_pass(lane, enc);
    }
}

void wgprof_rec_chain_forget(wgprof_rec_lane *lane)
{
    lane->chain = (wgprof_rec_chain_state){0};
}
