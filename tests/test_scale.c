/* No silent limits: 100,000 timed dispatches in one execute (past WebGPU's 4096 queries per
 * set), a chain across several sets, and a fixed-capacity pool that refuses an overflow and
 * records nothing. */
#include <string.h>

#include "check.h"
#include "support.h"

enum { MANY = 100000 };

static void test_many(wgprof_device *dev, wgprof_strategy strategy, wgprof_layout layout, uint32_t many)
{
    ts_busy b;
    CHECK(ts_busy_init(dev, &b, 1, 1));
    wgprof_graph_desc gd = {.layout = layout, .profiling = WGPROF_PROFILING_ON, .strategy = strategy};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    wgprof_node_desc nd;
    ts_busy_node(&b, "tiny", &nd);
    for (uint32_t i = 0; i < many; i++) {
        nd.dispatch_id = i + 1;
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    }
    CHECK_OK(wgprof_graph_execute(g));
    const wgprof_pool *pool = wgprof_graph_pool(g);
    CHECK(wgprof_pool_count(pool) == many);
    CHECK_MSG(wgprof_pool_invalid_count(pool) == 0, "%zu invalid", wgprof_pool_invalid_count(pool));
    CHECK(wgprof_pool_capacity(pool) >= many);
    bool chain = strategy == WGPROF_STRATEGY_CHAIN;
    size_t bad = 0, unchained = 0;
    double previous_end = -1;
    uint64_t previous_end_ticks = 0;
    size_t out_of_order = 0;
    for (size_t i = 0; i < many; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, i, &r));
        bad += !(r.valid && r.dispatch_id == i + 1);
        /* A chain's record begins at the previous one's end timestamp, the same query, except
         * at the first record of each query set of 4096 (where the chain starts again). */
        unchained += chain && i % 4095 != 0 && r.begin_ticks != previous_end_ticks;
        out_of_order += r.end_ns < previous_end;
        previous_end = r.end_ns;
        previous_end_ticks = r.end_ticks;
    }
    CHECK_MSG(bad == 0, "%zu records wrong", bad);
    CHECK_MSG(unchained == 0, "%zu chained records do not begin where the previous one ended", unchained);
    /* Dispatches that depend on each other's data finish in order. */
    CHECK_MSG(out_of_order == 0, "%zu records end before their predecessor", out_of_order);
    wgprof_summary *s = NULL;
    CHECK_OK(wgprof_summary_create(pool, &s));
    CHECK(s->kernel_count == 1 && s->kernels[0].count == many);
    wgprof_summary_destroy(s);
    float out[64];
    CHECK(ts_read(dev, b.data, sizeof out, out));
    CHECK(out[5] == ts_busy_expected(5, 1, many));
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
}

static void test_fixed_capacity(wgprof_device *dev)
{
    ts_busy b;
    CHECK(ts_busy_init(dev, &b, 1, 1));
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .strategy = WGPROF_STRATEGY_PASS};
    gd.pool.max_dispatches = 10;
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    wgprof_node_desc nd;
    ts_busy_node(&b, "tiny", &nd);
    for (int i = 0; i < 4; i++) {
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    }
    CHECK_OK(wgprof_graph_execute(g)); /* 4 of 10 */
    CHECK_OK(wgprof_graph_execute(g)); /* 8 of 10 */
    CHECK(wgprof_graph_execute(g) == WGPROF_ERR_CAPACITY);
    const wgprof_pool *pool = wgprof_graph_pool(g);
    CHECK(wgprof_pool_count(pool) == 8); /* nothing partial from the refused execute */
    CHECK(wgprof_pool_collected_batches(pool) == 2);
    CHECK(wgprof_pool_capacity(pool) == 10);
    CHECK_MSG(strstr(ts_last_log(), "4 more timed dispatches") && strstr(ts_last_log(), "capacity 10"), "log: %s",
              ts_last_log());

    /* The standalone API refuses the same way. */
    wgprof_pool_desc pd = {.max_dispatches = 1};
    wgprof_pool *p = NULL;
    CHECK_OK(wgprof_pool_create(dev, &pd, &p));
    CHECK(wgprof_pool_reserve(p, 2) == WGPROF_ERR_CAPACITY);
    CHECK(wgprof_pool_count(p) == 0);
    wgprof_dispatch_desc dd = {.kernel = "k"};
    WGPUPassTimestampWrites tw;
    CHECK_OK(wgprof_pool_pass_writes(p, &dd, &tw));
    CHECK(wgprof_pool_pass_writes(p, &dd, &tw) == WGPROF_ERR_CAPACITY);
    CHECK(wgprof_pool_count(p) == 1);
    wgprof_pool_reset(wgprof_graph_pool(g));
    CHECK(wgprof_pool_count(wgprof_graph_pool(g)) == 0);
    CHECK_OK(wgprof_graph_execute(g)); /* room again after reset */
    CHECK(wgprof_pool_count(wgprof_graph_pool(g)) == 4);
    wgprof_pool_destroy(p);
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    test_fixed_capacity(dev);
    test_many(dev, WGPROF_STRATEGY_PASS, WGPROF_LAYOUT_PASS_PER_DISPATCH, MANY);
    if (wgprof_device_describe(dev)->timestamp_inside_passes) {
        test_many(dev, WGPROF_STRATEGY_INSIDE, WGPROF_LAYOUT_SINGLE_PASS, MANY);
        test_many(dev, WGPROF_STRATEGY_CHAIN, WGPROF_LAYOUT_PASS_PER_DISPATCH, 3 * 4095 + 7);
    }
    wgprof_device_destroy(dev);
    return check_summary();
}
