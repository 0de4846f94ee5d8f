/*
 * Whether wgprof's numbers can be trusted, on the device at hand. Prints one JSON object:
 *   linearity     one kernel at 1x, 2x, 4x, 8x the work: medians against a line through them,
 *                 the fixed cost (the line's intercept) subtracted, as the deviation from
 *                 proportional of each multiple
 *   clock         one long kernel (>= 10 ms) timed by wgprof against the host's wall clock of
 *                 submit-to-done of the same executes, less that of an empty kernel's executes
 *                 run alternately with them
 *   strategies    the same graph with the pass, inside and chain strategies: per-kernel medians
 *   timeline      the CPU/GPU clock fit: its uncertainty, and where each execute's dispatches
 *                 land on the CPU clock against its submit and its readback
 *   resolution    the smallest non-zero difference between two durations seen, and the largest
 *                 tick count dividing every timestamp (a quantization would show there)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wgprof/wgprof.h>

#include "bench_util.h"
#include "busy_kernel.h"

enum { SAMPLES = 15, WORKGROUPS = 1024 };

static const char busy_wgsl[] = BUSY_KERNEL_WGSL("0.999", "0.5");

typedef struct busy {
    WGPUComputePipeline pipeline;
    WGPUBuffer data, params;
    WGPUBindGroup group;
} busy;

static wgprof_device *g_dev;

static void die(const char *what, wgprof_status s)
{
    fprintf(stderr, "bench_accuracy: %s: %s\n", what, wgprof_status_str(s));
    exit(1);
}

static busy busy_make(uint32_t loops)
{
    WGPUDevice device = wgprof_device_webgpu(g_dev);
    busy b;
    WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = {busy_wgsl, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {.nextInChain = &src.chain};
    WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &md);
    WGPUComputePipelineDescriptor pd = {.compute = {.module = module, .entryPoint = {"main", WGPU_STRLEN}}};
    b.pipeline = wgpuDeviceCreateComputePipeline(device, &pd);
    wgpuShaderModuleRelease(module);
    WGPUBufferDescriptor dd = {.size = WORKGROUPS * 64 * 4, .usage = WGPUBufferUsage_Storage};
    b.data = wgpuDeviceCreateBuffer(device, &dd);
    WGPUBufferDescriptor ud = {.size = 16, .usage = WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst};
    b.params = wgpuDeviceCreateBuffer(device, &ud);
    uint32_t params[4] = {loops, 0, 0, 0};
    wgpuQueueWriteBuffer(wgprof_device_queue(g_dev), b.params, 0, params, sizeof params);
    WGPUBindGroupEntry e[2] = {{.binding = 0, .buffer = b.data, .size = dd.size},
                               {.binding = 1, .buffer = b.params, .size = 16}};
    WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(b.pipeline, 0);
    WGPUBindGroupDescriptor bgd = {.layout = layout, .entryCount = 2, .entries = e};
    b.group = wgpuDeviceCreateBindGroup(device, &bgd);
    wgpuBindGroupLayoutRelease(layout);
    return b;
}

static void busy_free(busy *b)
{
    wgpuBindGroupRelease(b->group);
    wgpuBufferRelease(b->params);
    wgpuBufferRelease(b->data);
    wgpuComputePipelineRelease(b->pipeline);
}

static wgprof_graph *graph_with(wgprof_profiling profiling, wgprof_strategy strategy, busy *const *kernels,
                                const char *const *names, int count)
{
    wgprof_graph_desc gd = {.profiling = profiling, .strategy = strategy};
    wgprof_graph *g = NULL;
    wgprof_status s = wgprof_graph_create(g_dev, &gd, &g);
    for (int i = 0; i < count && s == WGPROF_OK; i++) {
        wgprof_node_desc nd = {.pipeline = kernels[i]->pipeline, .bind_group_count = 1,
                               .bind_groups = &kernels[i]->group, .workgroups = {WORKGROUPS, 1, 1},
                               .workgroup_size = {64, 1, 1}, .kernel = names[i]};
        s = wgprof_graph_add(g, &nd, NULL);
    }
    if (s != WGPROF_OK) {
        die("building a graph", s);
    }
    return g;
}

/* Executes `g` SAMPLES times after one warm-up and returns the median duration of node `node`. */
static double median_of_node(wgprof_graph *g, uint32_t node)
{
    wgprof_status s = wgprof_graph_execute(g);
    wgprof_pool_reset(wgprof_graph_pool(g));
    double d[SAMPLES];
    for (int i = 0; i < SAMPLES && s == WGPROF_OK; i++) {
        s = wgprof_graph_execute(g);
    }
    if (s != WGPROF_OK) {
        die("execute", s);
    }
    uint32_t per = wgprof_graph_node_count(g);
    for (int i = 0; i < SAMPLES; i++) {
        wgprof_record r;
        wgprof_pool_record(wgprof_graph_pool(g), (size_t)i * per + node, &r);
        if (!r.valid) {
            die("an invalid record", WGPROF_ERR_STATE);
        }
        d[i] = r.duration_ns;
    }
    return bench_median(d, SAMPLES);
}

static uint32_t g_loops; /* the 1x work */

static void linearity(void)
{
    double x[4] = {1, 2, 4, 8}, t[4];
    for (int k = 0; k < 4; k++) {
        busy b = busy_make((uint32_t)(g_loops * x[k]));
        busy *kernels[] = {&b};
        const char *names[] = {"busy"};
        wgprof_graph *g = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_AUTO, kernels, names, 1);
        t[k] = median_of_node(g, 0);
        wgprof_graph_destroy(g);
        busy_free(&b);
    }
    /* Least squares t = a + b x; the fixed cost is a. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < 4; k++) {
        sx += x[k];
        sy += t[k];
        sxx += x[k] * x[k];
        sxy += x[k] * t[k];
    }
    double slope = (4 * sxy - sx * sy) / (4 * sxx - sx * sx), fixed = (sy - slope * sx) / 4;
    double worst = 0;
    printf("  \"linearity\": {\"loops_1x\": %u, \"fixed_cost_ns\": %.1f, \"ns_per_1x\": %.1f, \"points\": [", g_loops,
           fixed, slope);
    for (int k = 0; k < 4; k++) {
        double deviation = ((t[k] - fixed) / (t[0] - fixed) - x[k]) / x[k];
        worst = fabs(deviation) > worst ? fabs(deviation) : worst;
        printf("%s{\"work\": %.0f, \"median_ns\": %.1f, \"deviation_from_proportional\": %.5f}", k ? ", " : "", x[k],
               t[k], deviation);
    }
    printf("], \"worst_deviation\": %.5f},\n", worst);
}

static void clock_check(void)
{
    /* A kernel of at least 10 ms, found by doubling the work. */
    uint32_t loops = g_loops;
    double ns = 0;
    for (;;) {
        busy b = busy_make(loops);
        busy *kernels[] = {&b};
        const char *names[] = {"long"};
        wgprof_graph *g = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_AUTO, kernels, names, 1);
        ns = median_of_node(g, 0);
        wgprof_graph_destroy(g);
        busy_free(&b);
        if (ns >= 10e6 || loops > (1u << 30)) {
            break;
        }
        loops *= 2;
    }
    /* The long kernel and an empty one, profiled, alternating: the host's wall clock of each
     * execute (submit to done) and wgprof's time of the same long executes come from one loop,
     * so that the GPU's clocks are the same for both. */
    busy b = busy_make(loops), empty = busy_make(0);
    busy *kb[] = {&b}, *ke[] = {&empty};
    const char *names[] = {"long"}, *enames[] = {"empty"};
    wgprof_graph *g = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_AUTO, kb, names, 1);
    wgprof_graph *e = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_AUTO, ke, enames, 1);
    wgprof_graph_execute(g);
    wgprof_graph_execute(e);
    wgprof_pool_reset(wgprof_graph_pool(g));
    double wall[SAMPLES], base[SAMPLES], timed[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        double t0 = bench_now_s();
        wgprof_status s = wgprof_graph_execute(g);
        double t1 = bench_now_s();
        if (s == WGPROF_OK) {
            s = wgprof_graph_execute(e);
        }
        double t2 = bench_now_s();
        wgprof_record r;
        if (s != WGPROF_OK || wgprof_pool_record(wgprof_graph_pool(g), (size_t)i, &r) != WGPROF_OK || !r.valid) {
            die("the clock check's executes", s != WGPROF_OK ? s : WGPROF_ERR_STATE);
        }
        wall[i] = (t1 - t0) * 1e9;
        base[i] = (t2 - t1) * 1e9;
        timed[i] = r.duration_ns;
    }
    ns = bench_median(timed, SAMPLES);
    double host = bench_median(wall, SAMPLES) - bench_median(base, SAMPLES);
    printf("  \"clock\": {\"loops\": %u, \"wgprof_median_ns\": %.0f, \"host_submit_to_done_ns\": %.0f, "
           "\"host_empty_submit_ns\": %.0f, \"host_minus_empty_ns\": %.0f, \"relative_difference\": %.5f},\n",
           loops, ns, bench_median(wall, SAMPLES), bench_median(base, SAMPLES), host, (ns - host) / host);
    wgprof_graph_destroy(g);
    wgprof_graph_destroy(e);
    busy_free(&b);
    busy_free(&empty);
}

static void strategies(void)
{
    if (!wgprof_device_describe(g_dev)->timestamp_inside_passes) {
        printf("  \"strategies\": null,\n");
        return;
    }
    busy a = busy_make(g_loops), b = busy_make(g_loops * 3), c = busy_make(g_loops / 4 + 1);
    busy *kernels[] = {&a, &b, &c};
    const char *names[] = {"work_1x", "work_3x", "work_quarter"};
    wgprof_graph *pass = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_PASS, kernels, names, 3);
    wgprof_graph *inside = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_INSIDE, kernels, names, 3);
    wgprof_graph *chain = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_CHAIN, kernels, names, 3);
    printf("  \"strategies\": [");
    for (uint32_t k = 0; k < 3; k++) {
        double p = median_of_node(pass, k), i = median_of_node(inside, k), ch = median_of_node(chain, k);
        printf("%s{\"kernel\": \"%s\", \"pass_median_ns\": %.1f, \"inside_median_ns\": %.1f, "
               "\"chain_median_ns\": %.1f, \"inside_vs_pass\": %.5f, \"chain_vs_pass\": %.5f}",
               k ? ", " : "", names[k], p, i, ch, (i - p) / p, (ch - p) / p);
    }
    printf("],\n");
    wgprof_graph_destroy(pass);
    wgprof_graph_destroy(inside);
    wgprof_graph_destroy(chain);
    busy_free(&a);
    busy_free(&b);
    busy_free(&c);
}

/* One timeline: after the clock fit, where each batch's first dispatch lands on the CPU clock
 * against the moment its submit was called (it cannot start before), and its last dispatch
 * against the moment the readback was seen complete (it cannot end after). */
static void timeline(void)
{
    enum { EXECUTES = 200 };
    busy b = busy_make(g_loops / 4 + 1);
    busy *kernels[] = {&b, &b, &b};
    const char *names[] = {"step_a", "step_b", "step_c"};
    wgprof_graph *g = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_AUTO, kernels, names, 3);
    for (int i = 0; i < EXECUTES; i++) {
        wgprof_status s = wgprof_graph_execute(g);
        if (s != WGPROF_OK) {
            die("execute", s);
        }
    }
    const wgprof_pool *pool = wgprof_graph_pool(g);
    const wgprof_clock_info *c = wgprof_pool_clock(pool);
    double lead[EXECUTES], tail[EXECUTES];
    int n = 0, before_submit = 0, after_ready = 0;
    for (uint32_t i = 0; i < wgprof_pool_batch_count(pool) && n < EXECUTES; i++) {
        wgprof_batch_info bi;
        wgprof_record first, last;
        if (wgprof_pool_batch(pool, i, &bi) != WGPROF_OK ||
            wgprof_pool_record(pool, bi.first_record, &first) != WGPROF_OK ||
            wgprof_pool_record(pool, bi.first_record + bi.records - 1, &last) != WGPROF_OK || !first.valid ||
            !last.valid) {
            continue;
        }
        lead[n] = first.cpu_start_ns - (double)bi.cpu_submit_ns;
        tail[n] = (double)bi.cpu_ready_ns - last.cpu_end_ns;
        before_submit += lead[n] < 0;
        after_ready += tail[n] < 0;
        n++;
    }
    double lead_min = n ? lead[0] : 0, tail_min = n ? tail[0] : 0;
    for (int i = 0; i < n; i++) {
        lead_min = fmin(lead_min, lead[i]);
        tail_min = fmin(tail_min, tail[i]);
    }
    printf("  \"timeline\": {\"executes\": %d, \"calibrated\": %s, \"consistent\": %s, \"uncertainty_ns\": %.1f, "
           "\"drift_ppm\": %.4f, \"bounds\": %u, \"submit_to_first_dispatch_ns\": {\"median\": %.1f, \"min\": %.1f}, "
           "\"last_dispatch_to_ready_ns\": {\"median\": %.1f, \"min\": %.1f}, "
           "\"first_dispatch_before_submit\": %d, \"last_dispatch_after_ready\": %d},\n",
           n, c->calibrated ? "true" : "false", c->consistent ? "true" : "false", c->uncertainty_ns, c->drift_ppm,
           c->samples, n ? bench_median(lead, n) : 0.0, lead_min, n ? bench_median(tail, n) : 0.0, tail_min,
           before_submit, after_ready);
    wgprof_graph_destroy(g);
    busy_free(&b);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void resolution(void)
{
    enum { RUNS = 200 };
    busy b = busy_make(64);
    busy *kernels[] = {&b};
    const char *names[] = {"small"};
    wgprof_graph *g = graph_with(WGPROF_PROFILING_ON, WGPROF_STRATEGY_AUTO, kernels, names, 1);
    for (int i = 0; i < RUNS; i++) {
        wgprof_graph_execute(g);
    }
    const wgprof_pool *pool = wgprof_graph_pool(g);
    double d[RUNS] = {0};
    uint64_t divisor = 0;
    size_t n = 0;
    for (size_t i = 0; i < wgprof_pool_count(pool) && n < RUNS; i++) {
        wgprof_record r;
        wgprof_pool_record(pool, i, &r);
        if (r.valid) {
            d[n++] = r.duration_ns;
            divisor = gcd(gcd(divisor, r.begin_ticks), r.end_ticks);
        }
    }
    qsort(d, n, sizeof *d, bench_compare_double);
    double smallest = 0;
    for (size_t i = 1; i < n; i++) {
        double diff = d[i] - d[i - 1];
        if (diff > 0 && (smallest == 0 || diff < smallest)) {
            smallest = diff;
        }
    }
    printf("  \"resolution\": {\"records\": %zu, \"smallest_nonzero_difference_ns\": %.3f, "
           "\"ticks_dividing_every_timestamp\": %llu, \"period_ns\": %.6f, \"median_ns\": %.1f}\n",
           n, smallest, (unsigned long long)divisor, wgprof_device_timestamp_period(g_dev), n ? d[n / 2] : 0.0);
    wgprof_graph_destroy(g);
    busy_free(&b);
}

int main(int argc, char **argv)
{
    g_loops = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 4096;
    if (g_loops < 4) {
        fprintf(stderr, "usage: bench_accuracy [LOOPS for the 1x work (>= 4, default 4096)]\n");
        return 2;
    }
    wgprof_status s = wgprof_device_create(NULL, &g_dev);
    if (s != WGPROF_OK) {
        die("creating the device", s);
    }
    printf("{\n  \"adapter\": \"%s\",\n", wgprof_device_describe(g_dev)->adapter);
    linearity();
    clock_check();
    strategies();
    timeline();
    resolution();
    printf("}\n");
    wgprof_device_destroy(g_dev);
    return 0;
}
