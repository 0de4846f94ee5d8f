/* Out of memory: every allocation wgprof makes goes through its hook. A full profiled run
 * (device, graph, executes, summary, report) is repeated with the n-th allocation failing, for
 * every n up to the count of a clean run; each must end with a clean status, and every block
 * wgprof allocated must be freed again. Then wgprof_pool_merge alone, over the pools of a run
 * with scopes: each of its allocations failing must return WGPROF_ERR_OUT_OF_MEMORY, no pool,
 * and nothing left allocated. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support.h"

static long g_allocations, g_live, g_fail_at;

static void *counting_alloc(size_t size, void *user)
{
    (void)user;
    if (++g_allocations == g_fail_at) {
        return NULL;
    }
    void *p = malloc(size);
    g_live += p != NULL;
    return p;
}

static void counting_free(void *p, void *user)
{
    (void)user;
    g_live--;
    free(p);
}

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
    g_fail_at = 0;
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
    long live = g_live;
    g_allocations = 0;
    wgprof_pool *merged = NULL;
    CHECK_OK(merge_twice(pool, &merged));
    long total = g_allocations;
    CHECK(wgprof_pool_count(merged) == 2 * wgprof_pool_count(pool) && wgprof_pool_count(pool) == 6);
    CHECK(wgprof_pool_scope_count(merged) == 2 * wgprof_pool_scope_count(pool) && wgprof_pool_scope_count(pool) > 0);
    wgprof_pool_destroy(merged);
    CHECK_MSG(g_live == live && total > 5, "a merge made %ld allocations and left %ld blocks", total, g_live - live);
    for (long n = 1; n <= total; n++) {
        g_allocations = 0;
        g_fail_at = n;
        merged = (wgprof_pool *)pool;
        wgprof_status s = merge_twice(pool, &merged);
        CHECK_MSG(s == WGPROF_ERR_OUT_OF_MEMORY && merged == NULL, "allocation %ld of %ld of a merge failed: %s", n,
                  total, wgprof_status_str(s));
        CHECK_MSG(g_live == live, "allocation %ld of a merge failing: %ld blocks never freed", n, g_live - live);
        wgprof_pool_destroy(s == WGPROF_OK ? merged : NULL);
    }
    g_fail_at = 0;
    printf("%ld allocations in a merge of two pools; each failed once\n", total);
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
}

int main(void)
{
    ts_capture_log();
    wgprof_allocator hook = {counting_alloc, counting_free, NULL};
    wgprof_set_allocator(&hook);
    g_fail_at = 0;
    CHECK_OK(full_run());
    long total = g_allocations;
    CHECK(g_live == 0);
    CHECK_MSG(total > 10, "only %ld allocations went through the hook", total);
    int failed_cleanly = 0;
    for (long n = 1; n <= total; n++) {
        g_allocations = 0;
        g_live = 0;
        g_fail_at = n;
        wgprof_status s = full_run();
        /* The failed allocation must surface as a status: a run that reports success after
         * losing an allocation would have dropped work silently. */
        CHECK_MSG(s != WGPROF_OK, "allocation %ld of %ld failed, and the run still said OK", n, total);
        failed_cleanly += s == WGPROF_ERR_OUT_OF_MEMORY;
        CHECK_MSG(g_live == 0, "allocation %ld failing: %ld blocks never freed", n, g_live);
    }
    printf("%ld allocations in a profiled run; each failed once, %d runs returned WGPROF_ERR_OUT_OF_MEMORY\n", total,
           failed_cleanly);
    merge_oom();
    wgprof_set_allocator(NULL);
    return check_summary();
}
