/* Profiled execution on the real driver, for each strategy and pass layout: every record valid,
 * durations that grow with the work, results identical to an unprofiled run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support.h"

/* The large kernel does 16x the small one's work: timings on lavapipe, which runs on the CPU,
 * move by several times under other load, and the check that durations grow with the work must
 * hold through that, without comparing two runs. */
enum { LOOPS = 500, FACTOR = 16, WORKGROUPS = 64, EXECUTES = 5 };

static const char *layout_name(wgprof_layout l)
{
    return l == WGPROF_LAYOUT_SINGLE_PASS ? "single-pass" : "pass-per-dispatch";
}

static void check_results(wgprof_device *dev, const ts_busy *b, uint32_t loops, uint32_t runs, const char *what)
{
    float out[WORKGROUPS * 64];
    CHECK(ts_read(dev, b->data, sizeof out, out));
    int wrong = 0;
    for (uint32_t i = 0; i < WORKGROUPS * 64; i++) {
        wrong += out[i] != ts_busy_expected(i, loops, runs);
    }
    CHECK_MSG(wrong == 0, "%s: %d results wrong", what, wrong);
}

static void run(wgprof_device *dev, wgprof_strategy strategy, wgprof_layout layout)
{
    char what[64];
    snprintf(what, sizeof what, "%s/%s", wgprof_strategy_str(strategy), layout_name(layout));
    ts_busy small, large;
    CHECK(ts_busy_init(dev, &small, WORKGROUPS, LOOPS));
    CHECK(ts_busy_init(dev, &large, WORKGROUPS, FACTOR * LOOPS));

    wgprof_graph_desc gd = {.layout = layout, .profiling = WGPROF_PROFILING_ON, .strategy = strategy};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK_MSG(wgprof_graph_settings(g).profiling == WGPROF_PROFILING_ON, "%s: not profiling: %s", what, wgprof_graph_profiling_note(g));
    CHECK(wgprof_graph_settings(g).strategy == strategy);
    wgprof_node_desc nd;
    ts_busy_node(&small, "work_1x", &nd);
    nd.dispatch_id = 41;
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    ts_busy_node(&large, "work_16x", &nd);
    nd.dispatch_id = 42;
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    for (int i = 0; i < EXECUTES; i++) {
        CHECK_OK(wgprof_graph_execute(g));
    }
    const wgprof_pool *pool = wgprof_graph_pool(g);
    CHECK(wgprof_pool_count(pool) == 2 * EXECUTES);
    CHECK(wgprof_pool_collected_batches(pool) == EXECUTES);
    CHECK_MSG(wgprof_pool_invalid_count(pool) == 0, "%s: %zu invalid", what, wgprof_pool_invalid_count(pool));
    for (size_t i = 0; i < wgprof_pool_count(pool); i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, i, &r));
        CHECK(r.valid && r.duration_ns > 0 && r.end_ns > r.start_ns);
        CHECK(r.exclusive_ns >= 0 && r.exclusive_ns <= r.duration_ns);
        CHECK(r.batch == i / 2);
        CHECK(r.dispatch_id == (i % 2 ? 42u : 41u));
        CHECK(strcmp(r.kernel, i % 2 ? "work_16x" : "work_1x") == 0);
        CHECK(r.global_size[0] == WORKGROUPS * 64 && r.workgroup_size[0] == 64);
        CHECK(r.end_ticks > r.begin_ticks);
    }
    wgprof_summary *s = NULL;
    CHECK_OK(wgprof_summary_create(pool, &s));
    CHECK(s->kernel_count == 2);
    /* 16x the loop count; per-dispatch fixed costs pull the ratio below 16. The shortest of each
     * kernel's EXECUTES: other work on the machine only lengthens a dispatch. With 4x the work
     * and medians, two busy loops beside brought the ratio down to 1.4; with the shortest of 16x,
     * it stays far above 2. */
    double ratio = s->kernels[1].min_ns / s->kernels[0].min_ns;
    printf("%s: 16x the work %.2fx longer (shortest %.0f vs %.0f ns; medians %.0f vs %.0f ns)\n", what, ratio,
           s->kernels[1].min_ns, s->kernels[0].min_ns, s->kernels[1].median_ns, s->kernels[0].median_ns);
    CHECK_MSG(ratio > 2.0, "%s: 16x the work measured only %.2fx longer (shortest %.0f vs %.0f ns)", what, ratio,
              s->kernels[1].min_ns, s->kernels[0].min_ns);
    CHECK(fabs(s->kernels[0].share + s->kernels[1].share - 1.0) < 1e-9);
    wgprof_summary_destroy(s);
    check_results(dev, &small, LOOPS, EXECUTES, what);
    check_results(dev, &large, FACTOR * LOOPS, EXECUTES, what);
    wgprof_graph_destroy(g);
    ts_busy_free(&small);
    ts_busy_free(&large);
}

static void test_unprofiled_matches(wgprof_device *dev)
{
    /* The same work with profiling off leaves the same numbers in memory. */
    ts_busy b;
    CHECK(ts_busy_init(dev, &b, WORKGROUPS, LOOPS));
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_OFF};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK(wgprof_graph_settings(g).profiling != WGPROF_PROFILING_ON);
    wgprof_node_desc nd;
    ts_busy_node(&b, "work_1x", &nd);
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    for (int i = 0; i < EXECUTES; i++) {
        CHECK_OK(wgprof_graph_execute(g));
    }
    CHECK(wgprof_graph_pool(g) == NULL);
    check_results(dev, &b, LOOPS, EXECUTES, "unprofiled");
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
}

static void test_env_switch(wgprof_device *dev)
{
    wgprof_graph *g = NULL;
    setenv("WEBGPU_TIMESTAMP_QUERY", "0", 1);
    CHECK_OK(wgprof_graph_create(dev, NULL, &g));
    CHECK(wgprof_graph_settings(g).profiling != WGPROF_PROFILING_ON);
    wgprof_graph_destroy(g);
    setenv("WEBGPU_TIMESTAMP_QUERY", "1", 1);
    setenv("WGPROF_STRATEGY", "pass", 1);
    CHECK_OK(wgprof_graph_create(dev, NULL, &g));
    CHECK(wgprof_graph_settings(g).profiling == WGPROF_PROFILING_ON);
    CHECK(wgprof_graph_settings(g).strategy == WGPROF_STRATEGY_PASS);
    wgprof_graph_destroy(g);
    /* A strategy it cannot read fails open: a warning, once, and auto. */
    setenv("WGPROF_STRATEGY", "sideways", 1);
    for (int i = 0; i < 2; i++) {
        ts_clear_log();
        g = NULL;
        CHECK_OK(wgprof_graph_create(dev, NULL, &g));
        CHECK(wgprof_graph_settings(g).profiling == WGPROF_PROFILING_ON);
        CHECK(wgprof_graph_settings(g).strategy == WGPROF_STRATEGY_CHAIN);
        CHECK(i == 0 ? strstr(ts_last_log(), "WGPROF_STRATEGY=sideways") != NULL : ts_last_log()[0] == '\0');
        wgprof_graph_destroy(g);
    }
    /* ... profiling off too (a demo with WGPROF_STRATEGY=garbage used to exit 2). */
    setenv("WEBGPU_TIMESTAMP_QUERY", "0", 1);
    CHECK_OK(wgprof_graph_create(dev, NULL, &g));
    CHECK(wgprof_graph_settings(g).profiling == WGPROF_PROFILING_OFF);
    wgprof_graph_destroy(g);
    unsetenv("WGPROF_STRATEGY");
    /* The switch's words, any case; anything else is off, with a warning. */
    const struct {
        const char *value;
        bool on;
    } words[] = {{"true", true}, {"YES", true}, {"On", true}, {"1", true}, {"false", false}, {"no", false},
                 {"OFF", false}, {"", false}, {"maybe", false}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        setenv("WEBGPU_TIMESTAMP_QUERY", words[i].value, 1);
        ts_clear_log();
        CHECK_OK(wgprof_graph_create(dev, NULL, &g));
        bool on = wgprof_graph_settings(g).profiling == WGPROF_PROFILING_ON;
        CHECK_MSG(on == words[i].on, "WEBGPU_TIMESTAMP_QUERY=%s: profiling %s", words[i].value, on ? "on" : "off");
        if (strcmp(words[i].value, "maybe") == 0) {
            CHECK(strstr(ts_last_log(), "WEBGPU_TIMESTAMP_QUERY=maybe") != NULL);
        }
        wgprof_graph_destroy(g);
    }
    unsetenv("WEBGPU_TIMESTAMP_QUERY");
    CHECK_OK(wgprof_graph_create(dev, NULL, &g));
    CHECK(wgprof_graph_settings(g).profiling != WGPROF_PROFILING_ON); /* off by default */
    wgprof_graph_destroy(g);
}

/* With no argument: the pass strategy, profiling off, the switches, and core WebGPU. With
 * `in-pass`: the inside and chain strategies on a device with in-pass timestamps; skipped (77)
 * where the device has none, so that ctest shows it as skipped. */
int main(int argc, char **argv)
{
    bool in_pass_part = argc == 2 && strcmp(argv[1], "in-pass") == 0;
    if (argc > 2 || (argc == 2 && !in_pass_part)) {
        fprintf(stderr, "usage: %s [in-pass]\n", argv[0]);
        return 2;
    }
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    if (in_pass_part) {
        if (!wgprof_device_describe(dev)->timestamp_inside_passes) {
            printf("skipped: no in-pass timestamps on this device: inside and chain strategies not run\n");
            wgprof_device_destroy(dev);
            return 77;
        }
        run(dev, WGPROF_STRATEGY_INSIDE, WGPROF_LAYOUT_PASS_PER_DISPATCH);
        run(dev, WGPROF_STRATEGY_INSIDE, WGPROF_LAYOUT_SINGLE_PASS);
        run(dev, WGPROF_STRATEGY_CHAIN, WGPROF_LAYOUT_PASS_PER_DISPATCH);
        run(dev, WGPROF_STRATEGY_CHAIN, WGPROF_LAYOUT_SINGLE_PASS);
        wgprof_device_destroy(dev);
        return check_summary();
    }
    run(dev, WGPROF_STRATEGY_PASS, WGPROF_LAYOUT_PASS_PER_DISPATCH);
    run(dev, WGPROF_STRATEGY_PASS, WGPROF_LAYOUT_SINGLE_PASS);
    test_unprofiled_matches(dev);
    test_env_switch(dev);
    wgprof_device_destroy(dev);

    /* Core WebGPU (TimestampQuery alone, as a browser offers): chain and pass work in either
     * layout, a one-pass graph being split; inside needs what is missing. */
    wgprof_device_desc core = {.core_timestamps_only = true};
    CHECK_OK(wgprof_device_create(&core, &dev));
    const wgprof_device_info *info = wgprof_device_describe(dev);
    CHECK(info->profiling_available && !info->timestamp_inside_passes && !info->timestamp_inside_encoders);
    run(dev, WGPROF_STRATEGY_CHAIN, WGPROF_LAYOUT_PASS_PER_DISPATCH);
    run(dev, WGPROF_STRATEGY_CHAIN, WGPROF_LAYOUT_SINGLE_PASS);
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .strategy = WGPROF_STRATEGY_INSIDE};
    wgprof_graph *g = NULL;
    CHECK(wgprof_graph_create(dev, &gd, &g) == WGPROF_ERR_UNAVAILABLE && g == NULL);
    gd.strategy = WGPROF_STRATEGY_AUTO;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK(wgprof_graph_settings(g).strategy == WGPROF_STRATEGY_CHAIN);
    wgprof_graph_destroy(g);
    wgprof_device_destroy(dev);
    return check_summary();
}
