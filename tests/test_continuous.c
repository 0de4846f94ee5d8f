/* Continuous profiling on the real driver: 1,000 back-to-back submits with every result
 * collected, the newest batch dropped (and counted) when the readback ring is full, the pool's
 * own asynchronous calls, sampled executes, graph scopes, and the CPU/GPU clock fit: CPU
 * submits precede their GPU dispatches on the one timeline. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "plain_executor.h"
#include "support.h"

enum { LOOP_EXECUTES = 1000, IN_FLIGHT = 2 };

static wgprof_graph *busy_graph(wgprof_device *dev, const ts_busy *b, const wgprof_graph_desc *gd, int nodes)
{
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, gd, &g));
    wgprof_node_desc nd;
    ts_busy_node(b, "busy", &nd);
    CHECK_OK(wgprof_graph_scope_begin(g, "step"));
    for (int i = 0; i < nodes; i++) {
        if (i == nodes / 2) {
            CHECK_OK(wgprof_graph_scope_begin(g, "second half"));
        }
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    }
    CHECK_OK(wgprof_graph_scope_end(g));
    /* "step" is left open: it closes with the graph. */
    return g;
}

/* Every batch's dispatches lie, on the CPU clock, after its submit was called and before its
 * readback was seen complete, within the fit's uncertainty. */
static void check_timeline(const wgprof_pool *pool, const char *what)
{
    const wgprof_clock_info *clock = wgprof_pool_clock(pool);
    CHECK_MSG(clock->calibrated && clock->consistent, "%s: clock fit calibrated %d consistent %d", what,
              clock->calibrated, clock->consistent);
    CHECK_MSG(clock->uncertainty_ns > 0 && clock->uncertainty_ns < 5e6, "%s: uncertainty %.0f ns", what,
              clock->uncertainty_ns);
    size_t early = 0, late = 0;
    for (uint32_t i = 0; i < wgprof_pool_batch_count(pool); i++) {
        wgprof_batch_info b;
        CHECK_OK(wgprof_pool_batch(pool, i, &b));
        CHECK(b.collected && b.cpu_encode_ns <= b.cpu_submit_ns && b.cpu_submit_ns <= b.cpu_submitted_ns);
        for (uint32_t r = b.first_record; r < b.first_record + b.records; r++) {
            wgprof_record rec;
            CHECK_OK(wgprof_pool_record(pool, r, &rec));
            early += rec.cpu_start_ns < (double)b.cpu_submit_ns - 2 * clock->uncertainty_ns;
            late += rec.cpu_end_ns > (double)b.cpu_ready_ns + 2 * clock->uncertainty_ns;
        }
    }
    CHECK_MSG(early == 0 && late == 0, "%s: %zu dispatches before their submit, %zu after their readback", what, early,
              late);
}

static void test_continuous_loop(wgprof_device *dev, const ts_busy *b)
{
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON};
    wgprof_graph *g = busy_graph(dev, b, &gd, 4);
    plain_throttle t = {.dev = dev, .limit = IN_FLIGHT}; /* the application's own, as a frame loop has */
    const wgprof_pool *pool = wgprof_graph_pool(g);
    for (int i = 0; i < LOOP_EXECUTES; i++) {
        CHECK_OK(wgprof_graph_submit(g));
        plain_throttle_after_submit(&t);
    }
    uint32_t before_flush = wgprof_pool_collected_batches(pool);
    CHECK_OK(wgprof_graph_collect(g));
    uint64_t dropped = wgprof_pool_dropped(pool, NULL);
    CHECK_MSG(wgprof_pool_collected_batches(pool) == LOOP_EXECUTES && dropped == 0, "%u collected, %llu dropped",
              wgprof_pool_collected_batches(pool), (unsigned long long)dropped);
    /* Results were taken while the loop ran, not all at the end. */
    CHECK_MSG(before_flush >= LOOP_EXECUTES - 4, "only %u of %d collected before the flush", before_flush,
              LOOP_EXECUTES);
    CHECK(wgprof_pool_count(pool) == 4 * LOOP_EXECUTES && wgprof_pool_invalid_count(pool) == 0);
    CHECK(wgprof_pool_in_flight(pool) == 0);
    /* Scopes: "step" and "second half" in every execute; "step" closed at the graph's end. */
    CHECK(wgprof_pool_scope_count(pool) == 2 * LOOP_EXECUTES);
    wgprof_scope_record sc;
    CHECK_OK(wgprof_pool_scope(pool, 0, &sc));
    CHECK(strcmp(sc.name, "step") == 0 && !sc.open && sc.first_record == 0 && sc.end_record == 4 && sc.valid);
    CHECK_OK(wgprof_pool_scope(pool, 1, &sc));
    CHECK(strcmp(sc.name, "second half") == 0 && sc.depth == 1 && sc.first_record == 2 && sc.end_record == 4);
    check_timeline(pool, "continuous loop");
    /* And on lavapipe, whose timestamps are read from CLOCK_MONOTONIC itself, the truth is
     * known: GPU tick t is CPU ns t, so the fitted offset must contain 0. */
    const wgprof_device_info *info = wgprof_device_describe(dev);
    if (strncmp(info->adapter, "llvmpipe", 8) == 0) {
        const wgprof_clock_info *c = wgprof_pool_clock(pool);
        double offset = c->ref_cpu_ns - (double)c->ref_ticks * info->timestamp_period_ns;
        CHECK_MSG(fabs(offset) <= c->uncertainty_ns, "fitted offset %.0f ns, uncertainty %.0f ns", offset,
                  c->uncertainty_ns);
    }
    wgprof_graph_destroy(g);
}

/* One batch of one timed dispatch through the pool's own calls: record, resolve, submit, start
 * the readback. */
static void pool_batch(wgprof_device *dev, wgprof_pool *pool, const ts_busy *b)
{
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    wgprof_dispatch_desc d = {.kernel = "busy", .workgroups = {b->workgroups, 1, 1}};
    WGPUPassTimestampWrites tw;
    CHECK_OK(wgprof_pool_pass_writes(pool, &d, &tw));
    WGPUComputePassDescriptor pd = {.timestampWrites = &tw};
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
    wgpuComputePassEncoderSetPipeline(pass, b->pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, b->group, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, b->workgroups, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    CHECK_OK(wgprof_pool_read_async(pool));
}

/* A full ring: frames come back only when collected, so with two frames and nothing collected
 * the third batch on is dropped, whatever the GPU's speed: the newest, never the oldest, and
 * never a wait. */
static void test_ring_full(wgprof_device *dev, const ts_busy *b)
{
    wgprof_pool_desc pd = {.readback_frames = 2};
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, &pd, &pool));
    for (int i = 0; i < 5; i++) {
        pool_batch(dev, pool, b);
        CHECK(wgprof_pool_in_flight(pool) <= 2);
    }
    uint64_t dispatches = 0;
    CHECK(wgprof_pool_dropped(pool, &dispatches) == 3 && dispatches == 3);
    CHECK(wgprof_pool_count(pool) == 2); /* the dropped batches' records are gone */
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(wgprof_pool_collected_batches(pool) == 2 && wgprof_pool_invalid_count(pool) == 0);
    wgprof_batch_info info;
    CHECK_OK(wgprof_pool_batch(pool, 1, &info));
    CHECK(info.first_record == 1 && info.records == 1 && info.collected);
    pool_batch(dev, pool, b); /* room again */
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(wgprof_pool_collected_batches(pool) == 3 && wgprof_pool_dropped(pool, NULL) == 3);
    wgprof_pool_destroy(pool);
}

/* The graph's submit on slow dispatches, unthrottled: whatever the ring could not take ran
 * unprofiled and was counted; every submit is accounted for, and every dispatch ran. */
static void test_graph_unthrottled(wgprof_device *dev, const ts_busy *slow)
{
    enum { SUBMITS = 24 };
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .pool = {.readback_frames = 2}};
    wgprof_graph *g = busy_graph(dev, slow, &gd, 2);
    for (int i = 0; i < SUBMITS; i++) {
        CHECK_OK(wgprof_graph_submit(g));
        CHECK(wgprof_pool_in_flight(wgprof_graph_pool(g)) <= 2);
    }
    CHECK_OK(wgprof_graph_collect(g));
    const wgprof_pool *pool = wgprof_graph_pool(g);
    uint64_t dispatches = 0, dropped = wgprof_pool_dropped(pool, &dispatches);
    CHECK_MSG(wgprof_pool_collected_batches(pool) + dropped == SUBMITS, "%u collected, %llu dropped",
              wgprof_pool_collected_batches(pool), (unsigned long long)dropped);
    CHECK(dispatches == 2 * dropped && wgprof_pool_invalid_count(pool) == 0);
    float out[64];
    CHECK(ts_read(dev, slow->data, sizeof out, out));
    CHECK(out[3] == ts_busy_expected(3, 3000, 2 * SUBMITS));
    printf("unthrottled submits: %u collected, %llu dropped\n", wgprof_pool_collected_batches(pool),
           (unsigned long long)dropped);
    wgprof_graph_destroy(g);
}

/* The pool's calls without a graph: read_async after each submit, collect_ready as results
 * come, a flush at the end. Where the CPU outruns the GPU's latency some batches find the ring
 * full and are dropped; every batch is accounted for either way. */
static void test_pool_async(wgprof_device *dev, const ts_busy *b)
{
    enum { BATCHES = 6 };
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &pool));
    CHECK_OK(wgprof_pool_read_async(pool)); /* nothing resolved: nothing to do */
    uint32_t collected = 0, total = 0;
    for (int i = 0; i < BATCHES; i++) {
        pool_batch(dev, pool, b);
        CHECK_OK(wgprof_pool_collect_ready(pool, &collected));
        total += collected;
    }
    CHECK_OK(wgprof_pool_collect(pool));
    uint64_t dropped = wgprof_pool_dropped(pool, NULL);
    CHECK_MSG(wgprof_pool_collected_batches(pool) + dropped == BATCHES && wgprof_pool_collected_batches(pool) >= 3,
              "%u collected, %llu dropped", wgprof_pool_collected_batches(pool), (unsigned long long)dropped);
    CHECK(wgprof_pool_batch_count(pool) == wgprof_pool_collected_batches(pool) && total <= wgprof_pool_collected_batches(pool));
    CHECK(wgprof_pool_in_flight(pool) == 0 && wgprof_pool_invalid_count(pool) == 0);
    CHECK_OK(wgprof_pool_collect(pool)); /* nothing left: fine */
    wgprof_pool_destroy(pool);
}

/* One execute in four profiled; the others make a plain executor's calls. */
static void test_sampling(wgprof_device *dev, const ts_busy *b)
{
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .sample_every = 4};
    wgprof_graph *g = busy_graph(dev, b, &gd, 3);
    for (int i = 0; i < 10; i++) {
        CHECK_OK(wgprof_graph_execute(g));
    }
    const wgprof_pool *pool = wgprof_graph_pool(g);
    CHECK_MSG(wgprof_pool_collected_batches(pool) == 3, "%u iterations", wgprof_pool_collected_batches(pool)); /* 0, 4, 8 */
    CHECK(wgprof_pool_count(pool) == 9 && wgprof_pool_invalid_count(pool) == 0);
    check_timeline(pool, "sampled executes");
    CHECK_OK(wgprof_graph_scope_end(g)); /* closes "step" */
    CHECK(wgprof_graph_scope_end(g) == WGPROF_ERR_STATE); /* nothing left open */
    wgprof_graph_destroy(g);
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    ts_busy quick, slow;
    CHECK(ts_busy_init(dev, &quick, 1, 1));
    CHECK(ts_busy_init(dev, &slow, 64, 3000));
    test_continuous_loop(dev, &quick);
    test_ring_full(dev, &quick);
    test_graph_unthrottled(dev, &slow);
    test_pool_async(dev, &quick);
    test_sampling(dev, &quick);
    ts_busy_free(&quick);
    ts_busy_free(&slow);
    wgprof_device_destroy(dev);
    return check_summary();
}
