/* Out of memory: every allocation wgprof makes goes through its hook. A full profiled run
 * (device, graph, executes, summary, report) is repeated with the n-th allocation failing, for
 * every n up to the count of a clean run; each must end with a clean status, and every block
 * wgprof allocated must be freed again. */
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
    wgprof_set_allocator(NULL);
    return check_summary();
}
