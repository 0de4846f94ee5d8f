/* Out of memory: every allocation wgprof makes goes through its hook. A full profiled run
 * (device, graph, executes, summary, report) is repeated with the n-th allocation failing, for
 * every n up to the count of a clean run; each must end with a clean status, and every block
 * wgprof allocated must be freed again. Then wgprof_pool_merge alone, over the pools of a run
 * with scopes: each of its allocations failing must return WGPROF_ERR_OUT_OF_MEMORY, no pool,
 * and nothing left allocated. Then the calls an interceptor makes (sites interned, a placed
 * chain's records added): the failing call returns WGPROF_ERR_OUT_OF_MEMORY having recorded
 * and given back nothing, the same call then succeeds, and the batch collects whole. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support.h"

static ts_counting g_count;

/* One whole run; returns the first status that was not OK (or OK). */
static wgprof_status full_run(void)
{
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(NULL, &dev);
    if (s != WGPROF_OK) {
        return s;
    }
    ts_busy b;
    if (!ts_busy_init(dev, &b, 2, 4)) {
        wgprof_device_destroy(dev);
        return WGPROF_ERR_WEBGPU;
    }
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .strategy = WGPROF_STRATEGY_PASS};
    wgprof_graph *g = NULL;
    s = wgprof_graph_create(dev, &gd, &g);
    wgprof_node_desc nd;
    ts_busy_node(&b, "busy", &nd);
    for (int i = 0; i < 20 && s == WGPROF_OK; i++) {
        s = wgprof_graph_add(g, &nd, NULL);
    }
    for (int i = 0; i < 3 && s == WGPROF_OK; i++) {
        s = wgprof_graph_execute(g);
    }
    wgprof_summary *sum = NULL;
    if (s == WGPROF_OK) {
        s = wgprof_summary_create(wgprof_graph_pool(g), &sum);
    }
    if (s == WGPROF_OK) {
        FILE *f = fopen("/dev/null", "w");
        wgprof_report_desc desc = {.device = wgprof_device_describe(dev), .pool = wgprof_graph_pool(g)};
        s = wgprof_report_write(&desc, WGPROF_FORMAT_JSON, f);
        fclose(f);
    }
    wgprof_summary_destroy(sum);
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
    return s;
}

/* The merge of a graph's pool (scopes in its executes) with itself; *merged receives it. */
static wgprof_status merge_twice(const wgprof_pool *pool, wgprof_pool **merged)
{
    const wgprof_pool *pools[2] = {pool, pool};
    return wgprof_pool_merge(pools, 2, merged);
}

static void merge_oom(void)
{
    g_count.fail_at = 0;
    wgprof_device *dev = NULL;
    CHECK_OK(wgprof_device_create(NULL, &dev));
    ts_busy b;
    if (!dev || !ts_busy_init(dev, &b, 2, 4)) {
        CHECK_MSG(false, "no device for the merge's OOM test");
        wgprof_device_destroy(dev);
        return;
    }
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .strategy = WGPROF_STRATEGY_PASS};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    wgprof_node_desc nd;
    ts_busy_node(&b, "busy", &nd);
    CHECK_OK(wgprof_graph_scope_begin(g, "outer"));
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    CHECK_OK(wgprof_graph_scope_begin(g, "inner"));
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    CHECK_OK(wgprof_graph_scope_end(g));
    CHECK_OK(wgprof_graph_scope_end(g));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(wgprof_graph_execute(g));
    }
    const wgprof_pool *pool = wgprof_graph_pool(g);
    long live = g_count.live;
    g_count.allocations = 0;
    wgprof_pool *merged = NULL;
    CHECK_OK(merge_twice(pool, &merged));
    long total = g_count.allocations;
    CHECK(wgprof_pool_count(merged) == 2 * wgprof_pool_count(pool) && wgprof_pool_count(pool) == 6);
    CHECK(wgprof_pool_scope_count(merged) == 2 * wgprof_pool_scope_count(pool) && wgprof_pool_scope_count(pool) > 0);
    wgprof_pool_destroy(merged);
    CHECK_MSG(g_count.live == live && total > 5, "a merge made %ld allocations and left %ld blocks", total, g_count.live - live);
    for (long n = 1; n <= total; n++) {
        g_count.allocations = 0;
        g_count.fail_at = n;
        merged = (wgprof_pool *)pool;
        wgprof_status s = merge_twice(pool, &merged);
        CHECK_MSG(s == WGPROF_ERR_OUT_OF_MEMORY && merged == NULL, "allocation %ld of %ld of a merge failed: %s", n,
                  total, wgprof_status_str(s));
        CHECK_MSG(g_count.live == live, "allocation %ld of a merge failing: %ld blocks never freed", n, g_count.live - live);
        wgprof_pool_destroy(s == WGPROF_OK ? merged : NULL);
    }
    g_count.fail_at = 0;
    printf("%ld allocations in a merge of two pools; each failed once\n", total);
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
}

enum { OOM_KINDS = 3, OOM_RECORDS = 520 }; /* past the store's first two sizes (256, 512) */
static long g_chain_allocations; /* the sites' and the records', without the resolve's and collect's */

/* One placed chain of OOM_RECORDS records over OOM_KINDS sites on a fresh pool, each call that
 * fails retried with allocations on again; returns how many failed (each checked). */
static int placed_chain(wgprof_device *dev, const ts_busy *b)
{
    wgprof_pool_desc pd = {.initial_capacity = 1};
    wgprof_pool *pool = NULL;
    long fail_at = g_count.fail_at;
    g_count.fail_at = 0;
    CHECK_OK(wgprof_pool_create(dev, &pd, &pool));
    if (!pool) {
        return 0;
    }
    g_count.allocations = 0;
    g_count.fail_at = fail_at;
    int failed = 0;
    wgprof_site sites[OOM_KINDS];
    for (int k = 0; k < OOM_KINDS; k++) {
        char name[32];
        snprintf(name, sizeof name, "kind %d", k);
        wgprof_dispatch_desc d = {.kernel = name, .workgroups = {b->workgroups, 1, 1}};
        sites[k] = (wgprof_site){12345, 0};
        wgprof_status s = wgprof_pool_site(pool, &d, &sites[k]);
        if (s != WGPROF_OK) {
            CHECK_MSG(s == WGPROF_ERR_OUT_OF_MEMORY && sites[k].id == 12345, "site %d: %s", k, wgprof_status_str(s));
            failed++;
            g_count.fail_at = 0;
            CHECK_OK(wgprof_pool_site(pool, &d, &sites[k]));
        }
    }
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    WGPUPassTimestampWrites tw;
    CHECK_OK(wgprof_pool_chain_start_writes(pool, &tw));
    WGPUComputePassDescriptor desc = {.timestampWrites = &tw};
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &desc);
    wgpuComputePassEncoderSetPipeline(pass, b->pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, b->group, 0, NULL);
    for (uint32_t i = 0; i < OOM_RECORDS; i++) {
        wgprof_chain_end end = 99999;
        wgprof_status s = wgprof_pool_chain_add(pool, sites[i % OOM_KINDS], i, &end);
        if (s != WGPROF_OK) {
            CHECK_MSG(s == WGPROF_ERR_OUT_OF_MEMORY && end == 99999 && wgprof_pool_count(pool) == i,
                      "record %u: %s, %zu records", i, wgprof_status_str(s), wgprof_pool_count(pool));
            failed++;
            g_count.fail_at = 0;
            CHECK_OK(wgprof_pool_chain_add(pool, sites[i % OOM_KINDS], i, &end));
        }
        wgpuComputePassEncoderDispatchWorkgroups(pass, b->workgroups, 1, 1);
        CHECK_OK(wgprof_pool_chain_end_in_pass(pool, pass, end));
    }
    g_chain_allocations = g_count.allocations;
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    g_count.fail_at = 0;
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(wgprof_pool_count(pool) == OOM_RECORDS);
    size_t wrong = 0;
    for (size_t i = 0; i < wgprof_pool_count(pool); i++) {
        wgprof_record r;
        char name[32];
        snprintf(name, sizeof name, "kind %zu", i % OOM_KINDS);
        wrong += wgprof_pool_record(pool, i, &r) != WGPROF_OK || !r.valid || r.dispatch_id != i ||
                 strcmp(r.kernel, name) != 0;
    }
    CHECK_MSG(wrong == 0, "allocation %ld failing: %zu records of the placed chain wrong", fail_at, wrong);
    wgprof_pool_destroy(pool);
    return failed;
}

static void placed_chain_oom(void)
{
    g_count.fail_at = 0;
    wgprof_device *dev = NULL;
    CHECK_OK(wgprof_device_create(NULL, &dev));
    ts_busy b;
    if (!dev || !ts_busy_init(dev, &b, 1, 4)) {
        CHECK_MSG(false, "no device for the placed chain's OOM test");
        wgprof_device_destroy(dev);
        return;
    }
    if (!wgprof_device_describe(dev)->timestamp_inside_passes) {
        printf("no in-pass timestamps: the placed chain's OOM test is left out\n");
    } else {
        long live = g_count.live;
        CHECK(placed_chain(dev, &b) == 0);
        long total = g_chain_allocations;
        CHECK_MSG(g_count.live == live && total >= OOM_KINDS + 4, "the placed chain made %ld allocations and left %ld blocks",
                  total, g_count.live - live);
        for (long n = 1; n <= total; n++) {
            g_count.fail_at = n;
            CHECK_MSG(placed_chain(dev, &b) == 1, "allocation %ld of %ld of the placed chain failing", n, total);
            CHECK_MSG(g_count.live == live, "allocation %ld of the placed chain failing: %ld blocks never freed", n,
                      g_count.live - live);
        }
        g_count.fail_at = 0;
        printf("%ld allocations in a placed chain; each failed once\n", total);
    }
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
}

int main(void)
{
    ts_capture_log();
    wgprof_allocator hook = {ts_counting_alloc, ts_counting_free, &g_count};
    wgprof_set_allocator(&hook);
    g_count.fail_at = 0;
    CHECK_OK(full_run());
    long total = g_count.allocations;
    CHECK(g_count.live == 0);
    CHECK_MSG(total > 10, "only %ld allocations went through the hook", total);
    int failed_cleanly = 0;
    for (long n = 1; n <= total; n++) {
        g_count.allocations = 0;
        g_count.live = 0;
        g_count.fail_at = n;
        wgprof_status s = full_run();
        /* The failed allocation must surface as a status: a run that reports success after
         * losing an allocation would have dropped work silently. */
        CHECK_MSG(s != WGPROF_OK, "allocation %ld of %ld failed, and the run still said OK", n, total);
        failed_cleanly += s == WGPROF_ERR_OUT_OF_MEMORY;
        CHECK_MSG(g_count.live == 0, "allocation %ld failing: %ld blocks never freed", n, g_count.live);
    }
    printf("%ld allocations in a profiled run; each failed once, %d runs returned WGPROF_ERR_OUT_OF_MEMORY\n", total,
           failed_cleanly);
    merge_oom();
    placed_chain_oom();
    wgprof_set_allocator(NULL);
    return check_summary();
}
