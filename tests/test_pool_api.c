/* The pool's own recording calls, as an engine without the graph uses them, on the real device:
 * each strategy's calls time a busy kernel whose work grows with its loop count, the records
 * come back valid and in order, a chain's durations add up to its span, the clock calibration
 * places them on the CPU clock between submit and collect, and the settings read back with
 * their defaults. A batch can be discarded before its resolve; pools of the device merge. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "support.h"
#include "testing.h"

/* Alternating short and long: half of each, the shortest of each half compared (on a loaded
 * machine lavapipe's threads wait for the CPU by whole timeslices: a few of either may be
 * lengthened by milliseconds, rarely all). */
enum { DISPATCHES = 16 };

typedef enum way { WAY_PASS, WAY_INSIDE, WAY_CHAIN_IN_PASS, WAY_CHAIN_PASSES, WAY_COUNT } way;
static const char *const way_names[WAY_COUNT] = {"pass_writes", "begin/end", "chain_begin/next",
                                                 "chain_pass_writes"};

static double shortest(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++) {
        m = fmin(m, v[i]);
    }
    return m;
}

static void dispatch(WGPUComputePassEncoder pass, const ts_busy *b)
{
    wgpuComputePassEncoderSetPipeline(pass, b->pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, b->group, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, b->workgroups, 1, 1);
}

static WGPUComputePassEncoder begin_pass(WGPUCommandEncoder enc, const WGPUPassTimestampWrites *tw)
{
    WGPUComputePassDescriptor pd = {.timestampWrites = tw};
    return wgpuCommandEncoderBeginComputePass(enc, &pd);
}

static void end_pass(WGPUComputePassEncoder pass)
{
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
}

/* One batch of DISPATCHES dispatches, alternating a short and a long busy kernel, recorded one
 * way; submitted and collected. */
static void record_batch(wgprof_device *dev, wgprof_pool *pool, way w, const ts_busy *shorter, const ts_busy *longer)
{
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    bool one_pass = w == WAY_INSIDE || w == WAY_CHAIN_IN_PASS;
    WGPUComputePassEncoder pass = one_pass ? begin_pass(enc, NULL) : NULL;
    CHECK_OK(wgprof_pool_scope_begin(pool, way_names[w]));
    if (w == WAY_CHAIN_IN_PASS) {
        CHECK_OK(wgprof_pool_chain_begin(pool, pass));
    }
    for (int i = 0; i < DISPATCHES; i++) {
        const ts_busy *b = i % 2 ? longer : shorter;
        wgprof_dispatch_desc d = {.kernel = i % 2 ? "long" : "short", .dispatch_id = (uint64_t)i + 100,
                                  .workgroups = {b->workgroups, 1, 1}, .workgroup_size = {64, 1, 1}};
        WGPUPassTimestampWrites tw;
        switch (w) {
        case WAY_PASS:
        case WAY_CHAIN_PASSES:
            CHECK_OK(w == WAY_PASS ? wgprof_pool_pass_writes(pool, &d, &tw) : wgprof_pool_chain_pass_writes(pool, &d, &tw));
            pass = begin_pass(enc, &tw);
            dispatch(pass, b);
            end_pass(pass);
            break;
        case WAY_INSIDE:
            CHECK_OK(wgprof_pool_begin(pool, pass, &d));
            dispatch(pass, b);
            CHECK_OK(wgprof_pool_end(pool, pass));
            break;
        case WAY_CHAIN_IN_PASS:
            dispatch(pass, b);
            CHECK_OK(wgprof_pool_chain_next(pool, pass, &d));
            break;
        case WAY_COUNT: break;
        }
    }
    CHECK_OK(wgprof_pool_scope_end(pool));
    if (one_pass) {
        end_pass(pass);
    }
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    uint64_t submitted = wgprof_cpu_now_ns();
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    CHECK_OK(wgprof_pool_collect(pool));
    uint64_t collected = wgprof_cpu_now_ns();

    size_t first = wgprof_pool_count(pool) - DISPATCHES;
    double sum = 0, span_start = INFINITY, span_end = -INFINITY;
    for (int i = 0; i < DISPATCHES; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, first + (size_t)i, &r));
        CHECK_MSG(r.valid, "%s: record %d invalid: %s", way_names[w], i, wgprof_invalid_reason_str(r.invalid_reason));
        CHECK(r.dispatch_id == (uint64_t)i + 100 && strcmp(r.kernel, i % 2 ? "long" : "short") == 0);
        CHECK(r.global_size[0] == 64ull * (i % 2 ? longer : shorter)->workgroups && r.scope >= 0);
        CHECK(r.period_ns > 0 && r.end_ticks >= r.begin_ticks);
        /* On the CPU clock, the GPU ran it after the submit and before the collect returned. */
        CHECK_MSG(r.cpu_start_ns >= (double)submitted - 1e5 && r.cpu_end_ns <= (double)collected + 1e5,
                  "%s: record %d on the CPU clock at [%.0f, %.0f], submitted %llu, collected %llu", way_names[w], i,
                  r.cpu_start_ns, r.cpu_end_ns, (unsigned long long)submitted, (unsigned long long)collected);
        sum += r.duration_ns;
        span_start = fmin(span_start, r.start_ns);
        span_end = fmax(span_end, r.end_ns);
    }
    /* The shortest of each kind: a dispatch is lengthened, never shortened, by its pipeline's
     * compilation (the first) or by the machine's other work (any, on a busy machine). */
    double kind[2][DISPATCHES / 2];
    for (int i = 0; i < DISPATCHES; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, first + (size_t)i, &r));
        kind[i % 2][i / 2] = r.duration_ns;
    }
    double short_ns = shortest(kind[0], DISPATCHES / 2), long_ns = shortest(kind[1], DISPATCHES / 2);
    CHECK_MSG(long_ns > 4 * short_ns, "%s: long %.0f ns, short %.0f ns (shortest of %d each)", way_names[w], long_ns,
              short_ns, DISPATCHES / 2);
    if (w == WAY_CHAIN_IN_PASS || w == WAY_CHAIN_PASSES) {
        /* A chain's dispatches run from one timestamp to the next: together they are its span. */
        CHECK_MSG(fabs(sum - (span_end - span_start)) < 1e-6 * sum, "%s: %.0f ns summed, %.0f ns span", way_names[w],
                  sum, span_end - span_start);
    }
}

/* Encodes `n` dispatches of `b` named `kernel`, ids from `id`, into a new encoder, timed as a
 * chain (in one pass where the device has in-pass timestamps, else a pass each) or in pairs
 * (inside one pass, else the pass strategy); the encoder is neither resolved nor finished. */
static WGPUCommandEncoder encode(wgprof_device *dev, wgprof_pool *pool, bool chain, const ts_busy *b,
                                 const char *kernel, uint64_t id, int n)
{
    bool in_pass = wgprof_device_describe(dev)->timestamp_inside_passes;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    WGPUComputePassEncoder pass = in_pass ? begin_pass(enc, NULL) : NULL;
    if (in_pass && chain) {
        CHECK_OK(wgprof_pool_chain_begin(pool, pass));
    }
    for (int i = 0; i < n; i++) {
        wgprof_dispatch_desc d = {.kernel = kernel, .dispatch_id = id + (uint64_t)i, .workgroups = {b->workgroups, 1, 1},
                                  .workgroup_size = {64, 1, 1}};
        WGPUPassTimestampWrites tw;
        if (in_pass) {
            if (!chain) {
                CHECK_OK(wgprof_pool_begin(pool, pass, &d));
            }
            dispatch(pass, b);
            CHECK_OK(chain ? wgprof_pool_chain_next(pool, pass, &d) : wgprof_pool_end(pool, pass));
        } else {
            CHECK_OK(chain ? wgprof_pool_chain_pass_writes(pool, &d, &tw) : wgprof_pool_pass_writes(pool, &d, &tw));
            WGPUComputePassEncoder own = begin_pass(enc, &tw);
            dispatch(own, b);
            end_pass(own);
        }
    }
    if (pass) {
        end_pass(pass);
    }
    return enc;
}

static void submit(wgprof_device *dev, WGPUCommandEncoder enc)
{
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
}

static bool same_record(const wgprof_record *a, const wgprof_record *b)
{
    return a->index == b->index && a->batch == b->batch && a->dispatch_id == b->dispatch_id &&
           strcmp(a->kernel, b->kernel) == 0 && a->scope == b->scope && a->valid == b->valid &&
           a->begin_ticks == b->begin_ticks && a->end_ticks == b->end_ticks && a->start_ns == b->start_ns &&
           a->duration_ns == b->duration_ns;
}

/* wgprof_pool_discard: a batch encoded and abandoned leaves no trace (records, scopes, the
 * chain it began), earlier batches stay as they were, and a resolved batch cannot be
 * discarded: it is kept and still collects. */
static void test_discard(wgprof_device *dev, const ts_busy *b)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &pool));
    if (!pool) {
        return;
    }
    CHECK_OK(wgprof_pool_scope_begin(pool, "kept"));
    WGPUCommandEncoder enc = encode(dev, pool, false, b, "early", 1, 2);
    CHECK_OK(wgprof_pool_scope_end(pool));
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    wgprof_record early[2];
    for (size_t i = 0; i < 2; i++) {
        CHECK_OK(wgprof_pool_record(pool, i, &early[i]));
        CHECK(early[i].valid);
    }

    /* Nothing recorded: nothing to forget. */
    CHECK_OK(wgprof_pool_discard(pool));
    CHECK(wgprof_pool_count(pool) == 2 && wgprof_pool_batch_count(pool) == 1 && wgprof_pool_scope_count(pool) == 1);

    /* A chain, with a scope closed in it and one left open, encoded and abandoned. */
    CHECK_OK(wgprof_pool_scope_begin(pool, "gone"));
    enc = encode(dev, pool, true, b, "discarded", 10, 3);
    CHECK_OK(wgprof_pool_scope_end(pool));
    CHECK_OK(wgprof_pool_scope_begin(pool, "open"));
    CHECK(wgprof_pool_count(pool) == 5 && wgprof_pool_scope_count(pool) == 3);
    CHECK_OK(wgprof_pool_discard(pool));
    wgpuCommandEncoderRelease(enc);
    CHECK(wgprof_pool_count(pool) == 2 && wgprof_pool_batch_count(pool) == 1 && wgprof_pool_in_flight(pool) == 0);
    CHECK(wgprof_pool_scope_count(pool) == 2); /* "kept", and "open", still open */

    /* The next batch, in pairs (a chain's state would refuse them), inside the open scope. */
    enc = encode(dev, pool, false, b, "latter", 20, 2);
    CHECK_OK(wgprof_pool_scope_end(pool));
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(wgprof_pool_count(pool) == 4 && wgprof_pool_batch_count(pool) == 2 && wgprof_pool_collected_batches(pool) == 2);
    CHECK(wgprof_pool_invalid_count(pool) == 0);
    for (size_t i = 0; i < 2; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, i, &r));
        CHECK_MSG(same_record(&r, &early[i]), "collected record %zu changed by the discard", i);
    }
    for (size_t i = 2; i < 4; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, i, &r));
        CHECK_MSG(r.valid && strcmp(r.kernel, "latter") == 0 && r.dispatch_id == 20 + i - 2 && r.batch == 1 && r.scope == 1,
                  "record %zu: %s id %llu batch %u scope %d, %s", i, r.kernel, (unsigned long long)r.dispatch_id, r.batch,
                  r.scope, wgprof_invalid_reason_str(r.invalid_reason));
    }
    wgprof_scope_record sc;
    CHECK_OK(wgprof_pool_scope(pool, 0, &sc));
    CHECK(strcmp(sc.name, "kept") == 0 && sc.first_record == 0 && sc.end_record == 2 && sc.valid_records == 2);
    CHECK_OK(wgprof_pool_scope(pool, 1, &sc));
    CHECK_MSG(strcmp(sc.name, "open") == 0 && !sc.open && sc.first_record == 2 && sc.end_record == 4 &&
                  sc.valid_records == 2 && sc.batch == 1,
              "%s: [%u, %u) batch %u", sc.name, sc.first_record, sc.end_record, sc.batch);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(pool, &sum));
    if (sum) {
        CHECK(sum->kernel_count == 2 && sum->records == 4);
        for (size_t k = 0; k < sum->kernel_count; k++) {
            CHECK(strcmp(sum->kernels[k].name, "discarded") != 0 && sum->kernels[k].count == 2);
        }
        /* The name stays known (as a dropped batch's would); no instance of it does. */
        for (size_t k = 0; k < sum->scope_count; k++) {
            const wgprof_scope_stats *st = &sum->scopes[k];
            CHECK(strcmp(st->name, "gone") != 0 || (st->count == 0 && st->invalid == 0 && st->empty == 0));
        }
    }
    wgprof_summary_destroy(sum);

    /* Resolved: the batch is kept, and still collects. */
    enc = encode(dev, pool, false, b, "resolved", 30, 1);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    CHECK(wgprof_pool_discard(pool) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_count(pool) == 5 && wgprof_pool_batch_count(pool) == 3);
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(pool, 4, &r));
    CHECK(r.valid && strcmp(r.kernel, "resolved") == 0 && r.dispatch_id == 30 && r.batch == 2);
    CHECK(wgprof_pool_collected_batches(pool) == 3);
    wgprof_pool_destroy(pool);
}

/* A chain longer than a query set holds (4,095 ends a set, WGPROF__CHAIN_PER_SET) in one
 * encoder: its ends run on into the next sets, each next set starting just after the previous
 * set's last end. Every record valid, none of zero length, each starting at the one before's end
 * (or just after it, at a set's first), none overlapping: an end written into the wrong set
 * reads back as zero or as another record's. */
static void test_long_chain(wgprof_device *dev, const ts_busy *b, bool in_pass)
{
    enum { LONG_CHAIN = 2 * 4095 + 10 }; /* three sets */
    const char *what = in_pass ? "a long chain in one pass" : "a long chain of passes";
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &pool));
    if (!pool) {
        return;
    }
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    WGPUComputePassEncoder pass = in_pass ? begin_pass(enc, NULL) : NULL;
    if (in_pass) {
        CHECK_OK(wgprof_pool_chain_begin(pool, pass));
    }
    for (int i = 0; i < LONG_CHAIN; i++) {
        wgprof_dispatch_desc d = {.kernel = "link", .dispatch_id = (uint64_t)i, .workgroups = {b->workgroups, 1, 1},
                                  .workgroup_size = {64, 1, 1}};
        if (in_pass) {
            dispatch(pass, b);
            CHECK_OK(wgprof_pool_chain_next(pool, pass, &d));
        } else {
            WGPUPassTimestampWrites tw;
            CHECK_OK(wgprof_pool_chain_pass_writes(pool, &d, &tw));
            WGPUComputePassEncoder own = begin_pass(enc, &tw);
            dispatch(own, b);
            end_pass(own);
        }
    }
    if (pass) {
        end_pass(pass);
    }
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK_MSG(wgprof_pool_count(pool) == LONG_CHAIN && wgprof_pool_batch_count(pool) == 1, "%s: %zu records, %u batches",
              what, wgprof_pool_count(pool), wgprof_pool_batch_count(pool));
    size_t invalid = 0, empty = 0, out_of_order = 0, wrong = 0;
    double sum = 0, span_start = INFINITY, span_end = -INFINITY, previous_end = -INFINITY;
    for (size_t i = 0; i < wgprof_pool_count(pool); i++) {
        wgprof_record r;
        if (wgprof_pool_record(pool, i, &r) != WGPROF_OK || r.dispatch_id != i || strcmp(r.kernel, "link") != 0) {
            wrong++;
            continue;
        }
        if (!r.valid) {
            if (invalid++ == 0) {
                fprintf(stderr, "%s: record %zu, the first invalid: %s\n", what, i,
                        wgprof_invalid_reason_str(r.invalid_reason));
            }
            continue;
        }
        empty += !(r.duration_ns > 0 && r.end_ticks > r.begin_ticks);
        /* A chain's record starts where the one before ended; the first of a set (a set holds
         * 4,095 ends) at the next set's own start, written just after that end. */
        out_of_order += i > 0 && (i % 4095 ? r.start_ns != previous_end : r.start_ns < previous_end);
        previous_end = r.end_ns;
        sum += r.duration_ns;
        span_start = fmin(span_start, r.start_ns);
        span_end = fmax(span_end, r.end_ns);
    }
    CHECK_MSG(wrong == 0 && invalid == 0, "%s: %zu of %d records invalid, %zu not as recorded", what, invalid, LONG_CHAIN,
              wrong);
    CHECK_MSG(empty == 0, "%s: %zu of %d records of zero length", what, empty, LONG_CHAIN);
    CHECK_MSG(out_of_order == 0, "%s: %zu records do not start at the previous one's end", what, out_of_order);
    CHECK_MSG(sum > 0 && sum <= (span_end - span_start) * (1 + 1e-9), "%s: %.0f ns summed, %.0f ns span", what, sum,
              span_end - span_start);
    printf("%s: %d records, %.3f ms in all\n", what, LONG_CHAIN, sum / 1e6);
    wgprof_pool_destroy(pool);
}

/* Sites, refused where they are not the pool's: NULLs, a zeroed site, another pool's, one
 * from before a reset; the pool records nothing for any of them. */
static void test_site_refusals(wgprof_device *dev, wgprof_pool *pool, WGPUComputePassEncoder pass)
{
    wgprof_dispatch_desc d = {.kernel = "refused", .workgroups = {1, 1, 1}};
    wgprof_site site = {7, 7}, untouched = site;
    CHECK(wgprof_pool_site(NULL, &d, &site) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_site(pool, NULL, &site) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_site(pool, &d, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(site.id == untouched.id && site.tag == untouched.tag);

    wgprof_pool *other = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &other));
    wgprof_site foreign = {0}, zeroed = {0}, stale = {0}, fresh = {0};
    CHECK_OK(wgprof_pool_site(other, &d, &foreign));
    CHECK_OK(wgprof_pool_site(pool, &d, &stale));
    wgprof_pool_reset(pool);
    CHECK_OK(wgprof_pool_site(pool, &d, &fresh));
    /* The same index in each, told apart by the tag alone. */
    CHECK(foreign.id == 0 && stale.id == 0 && fresh.id == 0 && fresh.tag != foreign.tag && fresh.tag != stale.tag);
    const wgprof_site bad[] = {foreign, zeroed, stale, {fresh.id + 1, fresh.tag}};
    wgprof_chain_end end = 12345;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(wgprof_pool_begin_site(pool, pass, bad[i], 1) == WGPROF_ERR_INVALID_ARGUMENT, "begin_site, bad site %zu", i);
        CHECK_MSG(wgprof_pool_chain_add(pool, bad[i], 1, &end) == WGPROF_ERR_INVALID_ARGUMENT && end == 12345,
                  "chain_add, bad site %zu", i);
    }
    CHECK(wgprof_pool_begin_site(NULL, pass, fresh, 1) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_begin_site(pool, NULL, fresh, 1) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_add(NULL, fresh, 1, &end) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_add(pool, fresh, 1, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    /* A chain's record before the chain began. */
    CHECK(wgprof_pool_chain_add(pool, fresh, 1, &end) == WGPROF_ERR_STATE && end == 12345);
    CHECK(wgprof_pool_count(pool) == 0 && wgprof_pool_count(other) == 0);
    wgprof_pool_destroy(other);
}

static bool same_writes(const WGPUPassTimestampWrites *a, const WGPUPassTimestampWrites *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* While `owed` is owed: every call that would write another end, or add a record, refuses, and
 * nothing is recorded or filled in. */
static void test_owed_refusals(wgprof_pool *pool, WGPUComputePassEncoder pass, wgprof_site site, wgprof_chain_end owed)
{
    size_t count = wgprof_pool_count(pool);
    WGPUPassTimestampWrites w, before;
    memset(&w, 0xab, sizeof w);
    before = w;
    wgprof_chain_end end = 777;
    CHECK(wgprof_pool_chain_add(pool, site, 1, &end) == WGPROF_ERR_STATE && end == 777);
    wgprof_dispatch_desc d = {.kernel = "refused"};
    CHECK(wgprof_pool_chain_next(pool, pass, &d) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_pass_writes(pool, &d, &w) == WGPROF_ERR_STATE && same_writes(&w, &before));
    CHECK(wgprof_pool_chain_start_writes(pool, &w) == WGPROF_ERR_STATE && same_writes(&w, &before));
    CHECK(wgprof_pool_chain_end_writes(pool, owed + 1, &w) == WGPROF_ERR_INVALID_ARGUMENT && same_writes(&w, &before));
    CHECK(wgprof_pool_chain_end_writes(pool, owed - 1, &w) == WGPROF_ERR_INVALID_ARGUMENT && same_writes(&w, &before));
    CHECK(wgprof_pool_chain_end_writes(NULL, owed, &w) == WGPROF_ERR_INVALID_ARGUMENT && same_writes(&w, &before));
    CHECK(wgprof_pool_chain_end_writes(pool, owed, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_end_in_pass(pool, pass, owed + 1) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_end_in_pass(NULL, pass, owed) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_end_in_pass(pool, NULL, owed) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_carry(pool, pass, owed + 1) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_carry(NULL, pass, owed) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_carry(pool, NULL, owed) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_start_writes(NULL, &w) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_start_writes(pool, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_count(pool) == count);
}

/* The chain whose timestamps the caller places, as an interceptor uses it: sites interned once,
 * passes of a few dispatches, each dispatch's record added before it, its end written inside
 * the pass before the next dispatch, or at the beginning of the next pass (end_writes, then
 * the carry once the pass has begun), the last one in an empty pass of its own. Long enough
 * to fill two query sets: the end that fills the first comes at a pass's beginning (the carry
 * starts the next set), the one that fills the second inside a pass. Every record valid, in
 * order, each starting at the previous end, the long kernel's records long; and every
 * refusal. */
static void test_placed_chain(wgprof_device *dev, const ts_busy *shorter, const ts_busy *longer)
{
    enum { PLACED = 2 * 4095 + 10, LONG_EVERY = 500 };
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &pool));
    if (!pool) {
        return;
    }
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    WGPUComputePassEncoder pass = begin_pass(enc, NULL);
    test_site_refusals(dev, pool, pass);
    end_pass(pass);

    wgprof_site sites[2];
    wgprof_dispatch_desc sd = {.kernel = "placed short", .workgroups = {shorter->workgroups, 1, 1},
                               .workgroup_size = {64, 1, 1}};
    wgprof_dispatch_desc ld = {.kernel = "placed long", .workgroups = {longer->workgroups, 1, 1},
                               .workgroup_size = {64, 1, 1}};
    CHECK_OK(wgprof_pool_site(pool, &sd, &sites[0]));
    CHECK_OK(wgprof_pool_site(pool, &ld, &sites[1]));
    wgprof_site again;
    CHECK_OK(wgprof_pool_site(pool, &sd, &again));
    CHECK(again.id == sites[0].id && again.tag == sites[0].tag && sites[1].id != sites[0].id);

    WGPUPassTimestampWrites tw;
    CHECK_OK(wgprof_pool_chain_start_writes(pool, &tw));
    CHECK(tw.endOfPassWriteIndex == WGPU_QUERY_SET_INDEX_UNDEFINED);
    pass = begin_pass(enc, &tw);
    wgprof_chain_end owed = 0; /* from the second record on, the previous record's */
    size_t at_pass_beginning = 0, in_pass = 0;
    for (uint32_t i = 0; i < PLACED; i++) {
        /* A new pass every 7 dispatches, and at the first record of the second set, so that the
         * end filling the first set is written by a pass's beginning and the carry. */
        if (i > 0 && (i % 7 == 3 || i == 4095)) {
            end_pass(pass);
            CHECK_OK(wgprof_pool_chain_end_writes(pool, owed, &tw));
            CHECK(tw.endOfPassWriteIndex == WGPU_QUERY_SET_INDEX_UNDEFINED);
            pass = begin_pass(enc, &tw);
            CHECK_OK(wgprof_pool_chain_carry(pool, pass, owed));
            at_pass_beginning++;
        } else if (i > 0) {
            CHECK_OK(wgprof_pool_chain_end_in_pass(pool, pass, owed));
            in_pass++;
        }
        bool is_long = i % LONG_EVERY == LONG_EVERY / 2;
        const ts_busy *b = is_long ? longer : shorter;
        wgprof_chain_end end = 0;
        CHECK_OK(wgprof_pool_chain_add(pool, sites[is_long], i, &end));
        if (i == 1) {
            test_owed_refusals(pool, pass, sites[0], end);
        }
        owed = end;
        dispatch(pass, b);
    }
    end_pass(pass);
    /* The last end, at the beginning of an empty pass (as before a copy or the encoder's finish). */
    CHECK_OK(wgprof_pool_chain_end_writes(pool, owed, &tw));
    pass = begin_pass(enc, &tw);
    CHECK_OK(wgprof_pool_chain_carry(pool, pass, owed));
    /* Written: not owed any more, so not to be written again. */
    CHECK(wgprof_pool_chain_carry(pool, pass, owed) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_chain_end_in_pass(pool, pass, owed) == WGPROF_ERR_INVALID_ARGUMENT);
    end_pass(pass);
    CHECK(wgprof_pool_count(pool) == PLACED);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(at_pass_beginning > PLACED / 8 && in_pass > PLACED / 2);

    size_t invalid = 0, empty = 0, out_of_order = 0, wrong = 0, longs = 0;
    double previous_end = -INFINITY, long_min = INFINITY, short_sum = 0;
    for (size_t i = 0; i < wgprof_pool_count(pool); i++) {
        wgprof_record r;
        bool is_long = i % LONG_EVERY == LONG_EVERY / 2;
        if (wgprof_pool_record(pool, i, &r) != WGPROF_OK || r.dispatch_id != i ||
            strcmp(r.kernel, is_long ? "placed long" : "placed short") != 0 || r.batch != 0) {
            wrong++;
            continue;
        }
        if (!r.valid) {
            if (invalid++ == 0) {
                fprintf(stderr, "placed chain: record %zu, the first invalid: %s\n", i,
                        wgprof_invalid_reason_str(r.invalid_reason));
            }
            continue;
        }
        empty += !(r.duration_ns > 0 && r.end_ticks > r.begin_ticks);
        /* Each record starts at the previous end; the first of a set at the next set's own
         * start, which the carry wrote just after that end. */
        if (i > 0 && (i % 4095 ? r.start_ns != previous_end : r.start_ns < previous_end)) {
            if (out_of_order++ == 0) {
                fprintf(stderr, "placed chain: record %zu starts at %.0f ns, the previous ended at %.0f ns\n", i,
                        r.start_ns, previous_end);
            }
        }
        previous_end = r.end_ns;
        if (is_long) {
            longs++;
            long_min = fmin(long_min, r.duration_ns);
        } else {
            short_sum += r.duration_ns;
        }
    }
    CHECK_MSG(wrong == 0 && invalid == 0, "placed chain: %zu of %d records invalid, %zu not as recorded", invalid,
              PLACED, wrong);
    CHECK_MSG(empty == 0 && out_of_order == 0, "placed chain: %zu records of zero length, %zu out of order", empty,
              out_of_order);
    /* An end one dispatch off would give the long kernel's time to a short record and a short
     * one's to the long record: with 1000 times the work, the long ones stay above twice the
     * short ones' mean however busy the machine. */
    double short_mean = short_sum / (double)(PLACED - longs);
    CHECK_MSG(longs == (PLACED + LONG_EVERY / 2) / LONG_EVERY && long_min > 2 * short_mean,
              "placed chain: %zu long records, the shortest %.0f ns; short ones %.0f ns on average", longs, long_min,
              short_mean);
    printf("placed chain: %d records, %zu ends at a pass's beginning, %zu inside a pass\n", PLACED, at_pass_beginning,
           in_pass);

    /* Pairs by site in the next batch, and the chain's calls refused in it. */
    enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    pass = begin_pass(enc, NULL);
    for (uint32_t i = 0; i < 2; i++) {
        CHECK_OK(wgprof_pool_begin_site(pool, pass, sites[i], 1000 + i));
        dispatch(pass, i ? longer : shorter);
        CHECK_OK(wgprof_pool_end(pool, pass));
    }
    wgprof_chain_end end = 99;
    CHECK(wgprof_pool_chain_add(pool, sites[0], 1, &end) == WGPROF_ERR_STATE && end == 99);
    memset(&tw, 0xab, sizeof tw);
    WGPUPassTimestampWrites before = tw;
    CHECK(wgprof_pool_chain_start_writes(pool, &tw) == WGPROF_ERR_STATE && same_writes(&tw, &before));
    end_pass(pass);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(wgprof_pool_count(pool) == PLACED + 2);
    for (size_t i = PLACED; i < PLACED + 2; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, i, &r));
        CHECK_MSG(r.valid && r.dispatch_id == 1000 + i - PLACED && r.batch == 1 && r.duration_ns > 0 &&
                      strcmp(r.kernel, i == PLACED ? "placed short" : "placed long") == 0,
                  "pair by site %zu: %s id %llu, %s", i, r.kernel, (unsigned long long)r.dispatch_id,
                  wgprof_invalid_reason_str(r.invalid_reason));
    }

    /* An end still owed at resolve reads not-written; the one before it is whole. */
    enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    CHECK_OK(wgprof_pool_chain_start_writes(pool, &tw));
    pass = begin_pass(enc, &tw);
    CHECK_OK(wgprof_pool_chain_add(pool, sites[0], 1, &end));
    dispatch(pass, shorter);
    CHECK_OK(wgprof_pool_chain_end_in_pass(pool, pass, end));
    CHECK_OK(wgprof_pool_chain_add(pool, sites[0], 2, &end));
    dispatch(pass, shorter);
    end_pass(pass);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(pool));
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(pool, PLACED + 2, &r));
    CHECK_MSG(r.valid, "the record before the owed one: %s", wgprof_invalid_reason_str(r.invalid_reason));
    CHECK_OK(wgprof_pool_record(pool, PLACED + 3, &r));
    CHECK_MSG(!r.valid && r.invalid_reason == WGPROF_INVALID_NOT_WRITTEN, "the owed record: %s",
              wgprof_invalid_reason_str(r.invalid_reason));
    /* The owed end went with its batch: nothing is owed in the next. */
    CHECK(wgprof_pool_chain_end_writes(pool, end, &tw) == WGPROF_ERR_INVALID_ARGUMENT);
    wgprof_pool_destroy(pool);
}

/* wgprof_pool_merge on the real device: a pool whose first dispatch came with id 0 keeps it,
 * though its record lands after the first pool's; a pool of another device (a host pool has
 * none) is refused. */
static void test_merge(wgprof_device *dev, const ts_busy *b)
{
    wgprof_pool *first = NULL, *second = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &first));
    CHECK_OK(wgprof_pool_create(dev, NULL, &second));
    if (!first || !second) {
        wgprof_pool_destroy(first);
        wgprof_pool_destroy(second);
        return;
    }
    WGPUCommandEncoder enc = encode(dev, first, false, b, "first", 5, 2);
    CHECK_OK(wgprof_pool_resolve(first, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(first));
    enc = encode(dev, second, false, b, "second", 0, 2);
    CHECK_OK(wgprof_pool_resolve(second, enc));
    submit(dev, enc);
    CHECK_OK(wgprof_pool_collect(second));

    const wgprof_pool *pools[2] = {second, first}; /* the order given is not the order kept */
    wgprof_pool *m = NULL;
    CHECK_OK(wgprof_pool_merge(pools, 2, &m));
    CHECK(wgprof_pool_count(m) == 4 && wgprof_pool_batch_count(m) == 2);
    for (size_t i = 0; i < wgprof_pool_count(m); i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(m, i, &r));
        uint64_t id = i < 2 ? 5 + i : i - 2;
        CHECK_MSG(r.valid && strcmp(r.kernel, i < 2 ? "first" : "second") == 0 && r.dispatch_id == id,
                  "merged record %zu: %s id %llu", i, r.kernel, (unsigned long long)r.dispatch_id);
    }
    wgprof_pool_destroy(m);

    wgprof_pool *host = wgprof__pool_new_host();
    const wgprof_pool *mixed[2] = {first, host};
    m = first;
    CHECK(wgprof_pool_merge(mixed, 2, &m) == WGPROF_ERR_INVALID_ARGUMENT && m == NULL);
    wgprof_pool_destroy(host);
    wgprof_pool_destroy(first);
    wgprof_pool_destroy(second);
}

/* With no argument, what needs no timestamp inside a pass: the pass and chain-of-passes ways,
 * discard, merge, a long chain of passes, the settings. With `in-pass`, the ways that write
 * timestamps inside a pass (begin/end, chain_begin/next) and a long chain in one pass; skipped
 * (77) on a device without in-pass timestamps, so that ctest shows it as skipped. */
int main(int argc, char **argv)
{
    bool in_pass_part = argc == 2 && strcmp(argv[1], "in-pass") == 0;
    if (argc > 2 || (argc == 2 && !in_pass_part)) {
        fprintf(stderr, "usage: %s [in-pass]\n", argv[0]);
        return 2;
    }
    wgprof_device *dev = ts_device(true);
    const wgprof_device_info *info = wgprof_device_describe(dev);
    if (in_pass_part && !info->timestamp_inside_passes) {
        printf("skipped: no in-pass timestamps on %s\n", info->adapter);
        wgprof_device_destroy(dev);
        return 77;
    }
    ts_busy shorter, longer;
    CHECK(ts_busy_init(dev, &shorter, 4, 100));
    CHECK(ts_busy_init(dev, &longer, 4, 100000));

    wgprof_pool_desc want = {.max_dispatches = 1000};
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, &want, &pool));
    wgprof_pool_desc got = wgprof_pool_settings(pool);
    CHECK(got.max_dispatches == 1000 && got.initial_capacity == 256 && got.readback_frames == 3);
    CHECK(wgprof_pool_capacity(pool) == 1000);

    uint64_t before = wgprof_cpu_now_ns();
    CHECK_OK(wgprof_pool_calibrate(pool, 0));
    const wgprof_clock_info *clock = wgprof_pool_clock(pool);
    CHECK(clock->calibrated && clock->consistent && clock->samples == 8);
    CHECK(clock->ref_cpu_ns >= (double)before && clock->ref_cpu_ns <= (double)wgprof_cpu_now_ns());

    for (int w = 0; w < WAY_COUNT; w++) {
        bool in_pass = w == WAY_INSIDE || w == WAY_CHAIN_IN_PASS;
        if (in_pass != in_pass_part) {
            continue;
        }
        record_batch(dev, pool, (way)w, &shorter, &longer);
    }
    uint32_t batches = wgprof_pool_batch_count(pool);
    CHECK(batches == wgprof_pool_collected_batches(pool) && batches == wgprof_pool_scope_count(pool));
    CHECK(wgprof_pool_count(pool) == (size_t)batches * DISPATCHES && wgprof_pool_invalid_count(pool) == 0);
    for (uint32_t i = 0; i < batches; i++) {
        wgprof_batch_info bi;
        CHECK_OK(wgprof_pool_batch(pool, i, &bi));
        CHECK(bi.index == i && bi.collected && bi.waited && bi.period_ns > 0 && bi.records == DISPATCHES);
    }
    wgprof_summary *s = NULL;
    CHECK_OK(wgprof_summary_create(pool, &s));
    CHECK(s->kernel_count == 2 && s->kernels[0].count == DISPATCHES / 2 * batches && s->batches == batches);
    CHECK(s->period_min_ns > 0 && s->period_min_ns == s->period_max_ns);
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(pool, 0, &r));
    CHECK(s->kernels[0].id == r.kernel_id && strcmp(s->kernels[0].name, r.kernel) == 0);
    wgprof_summary_destroy(s);
    wgprof_pool_destroy(pool);

    test_long_chain(dev, &shorter, in_pass_part);
    if (in_pass_part) {
        test_placed_chain(dev, &shorter, &longer);
        ts_busy_free(&shorter);
        ts_busy_free(&longer);
        wgprof_device_destroy(dev);
        return check_summary();
    }
    test_discard(dev, &shorter);
    test_merge(dev, &shorter);

    /* The graph's settings read back with every default filled and the environment applied. */
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .strategy = WGPROF_STRATEGY_AUTO};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    wgprof_graph_desc set = wgprof_graph_settings(g);
    CHECK(set.profiling == WGPROF_PROFILING_ON && set.strategy == WGPROF_STRATEGY_CHAIN);
    CHECK(set.layout == WGPROF_LAYOUT_PASS_PER_DISPATCH && set.sample_every == 1 && set.calibration_samples == 8);
    CHECK(set.pool.readback_frames == 3 && set.pool.initial_capacity == 256);
    wgprof_graph_destroy(g);

    ts_busy_free(&shorter);
    ts_busy_free(&longer);
    wgprof_device_destroy(dev);
    return check_summary();
}
