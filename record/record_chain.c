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
 */
#include <stdio.h>

#include "internal.h"
#include "record_lib.h"
#include "recorder.h"

static const char *const WORK_NAMES[] = {"copy", "clear", "render pass", "query resolve", "timestamp"};

/* The encoder work since the last dispatch's end becomes a record of its own, its end owed. */
static void close_work(wgprof_rec_lane *lane)
{
    if (!lane->work_kinds) {
        return;
    }
    char name[96];
    size_t n = 0;
    for (unsigned k = 0; k < sizeof WORK_NAMES / sizeof WORK_NAMES[0]; k++) {
        if (lane->work_kinds & (1u << k)) {
            int w = snprintf(name + n, sizeof name - n, "%s%s", n ? ", " : "(", WORK_NAMES[k]);
            n += w > 0 && (size_t)w < sizeof name - n ? (size_t)w : 0;
        }
    }
    snprintf(name + n, sizeof name - n, ")");
    lane->work_kinds = 0;
    wgprof_dispatch_desc d = {.kernel = name};
    uint32_t site;
    lane->end_owed = wgprof__store_site(wgprof__pool_store(lane->pool), &d, &site) == WGPROF_OK &&
                     wgprof__pool_chain_add_site(lane->pool, site, 0, &lane->owed_end) == WGPROF_OK;
}

wgprof_rec_chain_plan wgprof_rec_chain_before_pass(wgprof_rec_lane *lane, bool theirs, WGPUPassTimestampWrites *writes)
{
    if (!lane || !lane->pool) {
        return WGPROF_REC_CHAIN_NOTHING;
    }
    close_work(lane);
    if (theirs) {
        return !lane->chain_begun ? WGPROF_REC_CHAIN_START_INSIDE
               : lane->end_owed   ? WGPROF_REC_CHAIN_END_INSIDE
                                  : WGPROF_REC_CHAIN_NOTHING;
    }
    if (!lane->chain_begun) {
        lane->chain_begun = wgprof__pool_chain_begin_writes(lane->pool, writes) == WGPROF_OK;
        return lane->chain_begun ? WGPROF_REC_CHAIN_WRITES : WGPROF_REC_CHAIN_NOTHING;
    }
    if (lane->end_owed) {
        wgprof__pool_chain_end_writes(lane->pool, lane->owed_end, writes);
        return WGPROF_REC_CHAIN_END_WRITES;
    }
    return WGPROF_REC_CHAIN_NOTHING; /* the last end was written and no dispatch came since */
}

void wgprof_rec_chain_after_pass(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, wgprof_rec_chain_plan plan)
{
    switch (plan) {
    case WGPROF_REC_CHAIN_START_INSIDE:
        lane->chain_begun = wgprof_pool_chain_begin(lane->pool, pass) == WGPROF_OK;
        break;
    case WGPROF_REC_CHAIN_END_INSIDE:
        wgprof__pool_chain_end_in_pass(lane->pool, pass, lane->owed_end);
        lane->end_owed = false;
        break;
    case WGPROF_REC_CHAIN_END_WRITES:
        wgprof__pool_chain_carry(lane->pool, pass, lane->owed_end);
        lane->end_owed = false;
        break;
    case WGPROF_REC_CHAIN_NOTHING:
    case WGPROF_REC_CHAIN_WRITES:
        break;
    }
}

void wgprof_rec_chain_dispatch(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, uint32_t site)
{
    if (!lane->chain_begun) {
        lane->chain_begun = wgprof_pool_chain_begin(lane->pool, pass) == WGPROF_OK;
    } else if (lane->end_owed) {
        wgprof__pool_chain_end_in_pass(lane->pool, pass, lane->owed_end);
        lane->end_owed = false;
    }
    if (lane->chain_begun) {
        lane->end_owed = wgprof__pool_chain_add_site(lane->pool, site, 0, &lane->owed_end) == WGPROF_OK;
    }
}

/* Writes the owed end at the beginning of an empty compute pass of wgprof's. */
static void end_in_empty_pass(wgprof_rec_lane *lane, WGPUCommandEncoder enc)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    WGPUPassTimestampWrites writes;
    wgprof__pool_chain_end_writes(lane->pool, lane->owed_end, &writes);
    WGPUComputePassDescriptor desc = {0};
    desc.timestampWrites = &writes;
    WGPUComputePassEncoder pass = real->wgpuCommandEncoderBeginComputePass(enc, &desc);
    if (pass) {
        wgprof__pool_chain_carry(lane->pool, pass, lane->owed_end);
        real->wgpuComputePassEncoderEnd(pass);
        real->wgpuComputePassEncoderRelease(pass);
    }
    lane->end_owed = false;
}

void wgprof_rec_chain_work(wgprof_rec_lane *lane, WGPUCommandEncoder enc, wgprof_rec_work kind)
{
    if (!lane || !lane->pool || !lane->chain_begun) {
        return; /* work before the chain's first pass is nobody's */
    }
    if (lane->end_owed) {
        end_in_empty_pass(lane, enc);
    }
    lane->work_kinds |= (uint8_t)(1u << kind);
}

void wgprof_rec_chain_finish(wgprof_rec_lane *lane, WGPUCommandEncoder enc)
{
    if (!lane || !lane->pool) {
        return;
    }
    close_work(lane);
    if (lane->end_owed) {
        end_in_empty_pass(lane, enc);
    }
}

void wgprof_rec_chain_forget(wgprof_rec_lane *lane)
{
    lane->chain_begun = false;
    lane->end_owed = false;
    lane->work_kinds = 0;
}
