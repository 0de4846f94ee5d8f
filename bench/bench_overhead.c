/*
 * What profiling costs, in wall time, on the device at hand. Prints one JSON object.
 *
 * Workloads: the decode step of `wgprof demo` (33 dispatches, a pass each, as the demo runs
 * it), the same in one pass (as batching engines encode), a larger decode step whose kernels
 * run longer, and 10,000 tiny dispatches (the worst case: almost no work per dispatch).
 * Modes, all running the same nodes:
 *   plain     the plain executor (tests/support/plain_executor.c): what an engine without wgprof does
 *   off       wgprof's graph with profiling off
 *   pass, inside, chain   wgprof's strategies (inside and chain where the device has in-pass
 *             timestamps; pass splits a one-pass graph, so it is left out of that workload)
 *   cpu_sync  what users do without wgprof: submit and wait after every dispatch, timed on the CPU
 *   per_kernel_map  the TensorFlow.js way: per dispatch one pass with timestampWrites, resolve,
 *             submit and map
 * Each round runs every mode back to back, `executes` times (the two per-dispatch submit modes
 * once on the tiny dispatches); a mode's figure is the median over rounds of its mean time per
 * execute, with the spread (min, max) over rounds. Ratios are taken within each round against
 * plain, then their median is reported.
 *
 * A last section runs 1,000 back-to-back executes of the decode step as a serving loop does:
 * submit without waiting, at most two of its own submissions on the GPU (counted with work-done
 * callbacks), unprofiled and profiled, every profiled result collected; and the same with
 * blocking executes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "wgprof/device_util.h"
#include "plain_executor.h"
#include "demo.h"

enum { PLAIN, OFF, PASS, INSIDE, CHAIN, CPU_SYNC, PER_KERNEL_MAP, MODES, MAX_ROUNDS = 64 };
static const char *const mode_names[MODES] = {"plain", "off", "pass", "inside", "chain", "cpu_sync", "per_kernel_map"};
static const wgprof_strategy mode_strategy[MODES] = {[PASS] = WGPROF_STRATEGY_PASS,
                                                     [INSIDE] = WGPROF_STRATEGY_INSIDE,
                                                     [CHAIN] = WGPROF_STRATEGY_CHAIN};

static void die(const char *what, wgprof_status s)
{
    fprintf(stderr, "bench_overhead: %s: %s\n", what, wgprof_status_str(s));
    exit(1);
}

/* ---- the ways users time without wgprof ---- */

static void encode_one(WGPUCommandEncoder enc, const wgprof_node_desc *n, const WGPUPassTimestampWrites *tw)
{
    WGPUComputePassDescriptor pd = {0};
    pd.timestampWrites = tw;
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
    wgpuComputePassEncoderSetPipeline(pass, n->pipeline);
    for (uint32_t k = 0; k < n->bind_group_count; k++) {
        wgpuComputePassEncoderSetBindGroup(pass, k, n->bind_groups[k], 0, NULL);
    }
    wgpuComputePassEncoderDispatchWorkgroups(pass, n->workgroups[0], n->workgroups[1], n->workgroups[2]);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
}

static void submit(wgprof_device *dev, WGPUCommandEncoder enc)
{
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
}

/* Submit and wait per dispatch, each bracketed by CPU clock reads, as such users time. */
static double cpu_sync_execute(wgprof_device *dev, const wgprof_graph *g)
{
    double measured = 0;
    wgprof_node_desc n;
    for (uint32_t i = 0; i < wgprof_graph_node_count(g) && wgprof_graph_node(g, i, &n) == WGPROF_OK; i++) {
        double t0 = bench_now_s();
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
        encode_one(enc, &n, NULL);
        submit(dev, enc);
        wgprof_device_wait_idle(dev);
        measured += bench_now_s() - t0;
    }
    return measured; /* what they would report; the benchmark counts the wall time */
}

typedef struct per_kernel_map {
    WGPUQuerySet set;
    WGPUBuffer resolve, readback;
} per_kernel_map;

static per_kernel_map per_kernel_map_create(wgprof_device *dev)
{
    per_kernel_map m;
    WGPUQuerySetDescriptor qd = {0};
    qd.type = WGPUQueryType_Timestamp;
    qd.count = 2;
    m.set = wgpuDeviceCreateQuerySet(wgprof_device_webgpu(dev), &qd);
    WGPUBufferDescriptor bd = {0};
    bd.size = 16;
    bd.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    m.resolve = wgpuDeviceCreateBuffer(wgprof_device_webgpu(dev), &bd);
    bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    m.readback = wgpuDeviceCreateBuffer(wgprof_device_webgpu(dev), &bd);
    return m;
}

static void per_kernel_map_execute(wgprof_device *dev, const wgprof_graph *g, const per_kernel_map *m)
{
    wgprof_node_desc n;
    WGPUPassTimestampWrites tw = {0};
    tw.querySet = m->set;
    tw.beginningOfPassWriteIndex = 0;
    tw.endOfPassWriteIndex = 1;
    for (uint32_t i = 0; i < wgprof_graph_node_count(g) && wgprof_graph_node(g, i, &n) == WGPROF_OK; i++) {
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
        encode_one(enc, &n, &tw);
        wgpuCommandEncoderResolveQuerySet(enc, m->set, 0, 2, m->resolve, 0);
        wgpuCommandEncoderCopyBufferToBuffer(enc, m->resolve, 0, m->readback, 0, 16);
        submit(dev, enc);
        if (wgprof_device_map_read(dev, m->readback, 0, 16) == WGPROF_OK) {
            wgpuBufferUnmap(m->readback);
        }
    }
}

/* ---- workloads ---- */

typedef struct workload {
    const char *name;
    wgprof_layout layout;
    wgprof_graph *graphs[MODES]; /* off and the strategies; NULL where a mode does not apply */
    int executes;
    bool one_slow_execute;       /* the per-dispatch submit modes run once a round */
    demo_model *model;
    WGPUComputePipeline tiny_pipeline;
    WGPUBindGroup tiny_group;
    WGPUBuffer tiny_buffer;
} workload;

static wgprof_graph *graph_of(wgprof_device *dev, wgprof_layout layout, wgprof_profiling profiling,
                              wgprof_strategy strategy, uint32_t sample_every)
{
    wgprof_graph_desc gd = {.layout = layout, .profiling = profiling, .strategy = strategy,
                            .sample_every = sample_every};
    wgprof_graph *g = NULL;
    wgprof_status s = wgprof_graph_create(dev, &gd, &g);
    if (s != WGPROF_OK) {
        die("creating a graph", s);
    }
    return g;
}

/* A graph with the nodes of `from`, for one mode. */
static wgprof_graph *copy_graph(wgprof_device *dev, const wgprof_graph *from, wgprof_layout layout,
                                wgprof_profiling profiling, wgprof_strategy strategy, uint32_t sample_every)
{
    wgprof_graph *g = graph_of(dev, layout, profiling, strategy, sample_every);
    wgprof_node_desc n;
    for (uint32_t i = 0; wgprof_graph_node(from, i, &n) == WGPROF_OK; i++) {
        if (wgprof_graph_add(g, &n, NULL) != WGPROF_OK) {
            die("copying nodes", WGPROF_ERR_OUT_OF_MEMORY);
        }
    }
    return g;
}

/* The profiled graphs of every strategy the device and the layout allow. */
static void fill_profiled(wgprof_device *dev, workload *w)
{
    bool inside = wgprof_device_describe(dev)->timestamp_inside_passes;
    for (int mode = PASS; mode <= CHAIN; mode++) {
        bool splits = mode == PASS && w->layout == WGPROF_LAYOUT_SINGLE_PASS;
        if ((mode != PASS && !inside) || splits) {
            continue;
        }
        w->graphs[mode] = copy_graph(dev, w->graphs[OFF], w->layout, WGPROF_PROFILING_ON, mode_strategy[mode], 1);
    }
}

static void decode_workload(wgprof_device *dev, workload *w, const char *name, const demo_config *cfg,
                            wgprof_layout layout, int executes)
{
    memset(w, 0, sizeof *w);
    w->name = name;
    w->layout = layout;
    w->executes = executes;
    wgprof_status s = demo_model_create(cfg, &w->model);
    w->graphs[OFF] = graph_of(dev, layout, WGPROF_PROFILING_OFF, WGPROF_STRATEGY_AUTO, 1);
    if (s == WGPROF_OK) {
        s = demo_model_build(w->model, dev, w->graphs[OFF]);
    }
    if (s != WGPROF_OK) {
        die("building the decode step", s);
    }
    demo_model_set_step(w->model, dev);
    fill_profiled(dev, w);
}

static void tiny_workload(wgprof_device *dev, workload *w, uint32_t count)
{
    memset(w, 0, sizeof *w);
    w->name = "tiny_dispatches_10000";
    w->layout = WGPROF_LAYOUT_PASS_PER_DISPATCH;
    w->executes = 2;
    w->one_slow_execute = true;
    static const char wgsl[] = "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
                               "@compute @workgroup_size(1) fn main() { v[0] = v[0] + 1u; }\n";
    WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = {wgsl, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {.nextInChain = &src.chain};
    WGPUDevice device = wgprof_device_webgpu(dev);
    WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &md);
    WGPUComputePipelineDescriptor pd = {.compute = {.module = module, .entryPoint = {"main", WGPU_STRLEN}}};
    w->tiny_pipeline = wgpuDeviceCreateComputePipeline(device, &pd);
    wgpuShaderModuleRelease(module);
    WGPUBufferDescriptor bd = {.size = 256, .usage = WGPUBufferUsage_Storage};
    w->tiny_buffer = wgpuDeviceCreateBuffer(device, &bd);
    WGPUBindGroupEntry e = {.binding = 0, .buffer = w->tiny_buffer, .size = 256};
    WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(w->tiny_pipeline, 0);
    WGPUBindGroupDescriptor bgd = {.layout = layout, .entryCount = 1, .entries = &e};
    w->tiny_group = wgpuDeviceCreateBindGroup(device, &bgd);
    wgpuBindGroupLayoutRelease(layout);
    w->graphs[OFF] = graph_of(dev, w->layout, WGPROF_PROFILING_OFF, WGPROF_STRATEGY_AUTO, 1);
    wgprof_node_desc n = {.pipeline = w->tiny_pipeline, .bind_group_count = 1, .bind_groups = &w->tiny_group,
                          .workgroups = {1, 1, 1}, .workgroup_size = {1, 1, 1}, .kernel = "tiny"};
    for (uint32_t i = 0; i < count; i++) {
        if (wgprof_graph_add(w->graphs[OFF], &n, NULL) != WGPROF_OK) {
            die("adding a node", WGPROF_ERR_OUT_OF_MEMORY);
        }
    }
    fill_profiled(dev, w);
}

static void workload_free(workload *w)
{
    for (int k = 0; k < MODES; k++) {
        wgprof_graph_destroy(w->graphs[k]);
    }
    demo_model_destroy(w->model);
    if (w->tiny_group) wgpuBindGroupRelease(w->tiny_group);
    if (w->tiny_buffer) wgpuBufferRelease(w->tiny_buffer);
    if (w->tiny_pipeline) wgpuComputePipelineRelease(w->tiny_pipeline);
}

static bool available(const workload *w, int mode)
{
    if (mode == PLAIN || mode == CPU_SYNC || mode == PER_KERNEL_MAP) {
        /* The per-dispatch submit modes time a pass per dispatch: they apply to that layout. */
        return mode == PLAIN || w->layout != WGPROF_LAYOUT_SINGLE_PASS;
    }
    return w->graphs[mode] != NULL;
}

/* Mean wall seconds per execute of `mode`, over w->executes executes. */
static double run_mode(wgprof_device *dev, workload *w, int mode, const per_kernel_map *m)
{
    wgprof_graph *g = mode >= PASS && mode <= CHAIN ? w->graphs[mode] : w->graphs[OFF];
    int executes = mode >= CPU_SYNC && w->one_slow_execute ? 1 : w->executes;
    double t0 = bench_now_s();
    for (int i = 0; i < executes; i++) {
        switch (mode) {
        case PLAIN: plain_execute(dev, g, w->layout == WGPROF_LAYOUT_SINGLE_PASS); break;
        case CPU_SYNC: cpu_sync_execute(dev, g); break;
        case PER_KERNEL_MAP: per_kernel_map_execute(dev, g, m); break;
        default: {
            wgprof_status s = wgprof_graph_execute(g);
            if (s != WGPROF_OK) {
                die("execute", s);
            }
        }
        }
    }
    double seconds = (bench_now_s() - t0) / executes;
    if (mode >= PASS && mode <= CHAIN) {
        wgprof_pool_reset(wgprof_graph_pool(g)); /* keep the pool from growing across rounds */
    }
    return seconds;
}

static void print_spread(const char *key, double *v, int n, double scale, const char *unit)
{
    double lo = v[0], hi = v[0];
    for (int r = 0; r < n; r++) {
        lo = v[r] < lo ? v[r] : lo;
        hi = v[r] > hi ? v[r] : hi;
    }
    printf("\"%s\": {\"median_%s\": %.4f, \"min_%s\": %.4f, \"max_%s\": %.4f}", key, unit, bench_median(v, n) * scale,
           unit, lo * scale, unit, hi * scale);
}

static void bench_workload(wgprof_device *dev, workload *w, int rounds, const per_kernel_map *m)
{
    static double t[MODES][MAX_ROUNDS], ratio[MODES][MAX_ROUNDS];
    for (int mode = 0; mode < MODES; mode++) {
        if (available(w, mode) && !(mode >= CPU_SYNC && w->one_slow_execute)) {
            run_mode(dev, w, mode, m); /* warm-up: shader compilation, first allocations */
        }
    }
    for (int r = 0; r < rounds; r++) {
        for (int mode = 0; mode < MODES; mode++) {
            t[mode][r] = available(w, mode) ? run_mode(dev, w, mode, m) : 0;
        }
        for (int mode = 0; mode < MODES; mode++) {
            ratio[mode][r] = t[mode][r] / t[PLAIN][r];
        }
    }
    printf("    \"%s\": {\"dispatches\": %u, \"layout\": \"%s\", \"executes_per_round\": %d, \"rounds\": %d, "
           "\"modes\": {\n",
           w->name, wgprof_graph_node_count(w->graphs[OFF]),
           w->layout == WGPROF_LAYOUT_SINGLE_PASS ? "single_pass" : "pass_per_dispatch", w->executes, rounds);
    double plain_median = bench_median(t[PLAIN], rounds);
    bool first = true;
    for (int mode = 0; mode < MODES; mode++) {
        if (!available(w, mode)) {
            continue;
        }
        double med = bench_median(t[mode], rounds);
        printf("%s      \"%s\": {", first ? "" : ",\n", mode_names[mode]);
        print_spread("ms_per_execute", t[mode], rounds, 1e3, "ms");
        printf(", \"ratio_to_plain\": ");
        double rmed = bench_median(ratio[mode], rounds);
        printf("%.4f, \"overhead_us\": %.1f}", rmed, (med - plain_median) * 1e6);
        first = false;
    }
    printf("\n    }}");
}

/* ---- continuous runs ---- */

enum { CONT_PLAIN, CONT_CHAIN, CONT_PASS, CONT_INSIDE, CONT_CHAIN_SAMPLED, CONT_BLOCKING_PLAIN, CONT_BLOCKING_CHAIN,
       CONT_MODES, CONTINUOUS_EXECUTES = 1000, SAMPLE_EVERY = 10 };
static const char *const cont_names[CONT_MODES] = {"plain", "chain", "pass", "inside", "chain_1_in_10",
                                                   "blocking_plain", "blocking_chain"};

/* Per profiled mode, summed over rounds: executes collected, and dropped for a full ring. */
static uint64_t g_collected[CONT_MODES], g_dropped[CONT_MODES];

/* Executes per second of one continuous run of `mode`. */
static double continuous_run(wgprof_device *dev, wgprof_graph *g, int mode)
{
    plain_throttle t = {.dev = dev, .limit = 2};
    double t0 = bench_now_s();
    for (int i = 0; i < CONTINUOUS_EXECUTES; i++) {
        wgprof_status s = WGPROF_OK;
        if (mode == CONT_PLAIN) {
            plain_submit(dev, g, false);
        } else if (mode == CONT_BLOCKING_PLAIN) {
            plain_execute(dev, g, false);
        } else if (mode == CONT_BLOCKING_CHAIN) {
            s = wgprof_graph_execute(g);
        } else {
            s = wgprof_graph_submit(g);
        }
        if (s != WGPROF_OK) {
            die("continuous run", s);
        }
        if (mode < CONT_BLOCKING_PLAIN) {
            plain_throttle_after_submit(&t);
        }
    }
    wgprof_status s = mode == CONT_PLAIN || mode == CONT_BLOCKING_PLAIN ? wgprof_device_wait_idle(dev)
                                                                        : wgprof_graph_collect(g);
    double seconds = bench_now_s() - t0;
    if (s != WGPROF_OK) {
        die("flush", s);
    }
    if (mode != CONT_PLAIN && mode != CONT_BLOCKING_PLAIN) {
        wgprof_pool *pool = wgprof_graph_pool(g);
        if (wgprof_pool_invalid_count(pool) != 0) {
            die("a continuous run read invalid records", WGPROF_ERR_STATE);
        }
        g_collected[mode] += wgprof_pool_collected_batches(pool);
        g_dropped[mode] += wgprof_pool_dropped(pool, NULL);
        wgprof_pool_reset(pool);
    }
    return CONTINUOUS_EXECUTES / seconds;
}

static void bench_continuous(wgprof_device *dev, workload *w, int rounds)
{
    wgprof_graph *g[CONT_MODES] = {0};
    bool inside = wgprof_device_describe(dev)->timestamp_inside_passes;
    g[CONT_PLAIN] = g[CONT_BLOCKING_PLAIN] = w->graphs[OFF];
    g[CONT_PASS] = copy_graph(dev, w->graphs[OFF], w->layout, WGPROF_PROFILING_ON, WGPROF_STRATEGY_PASS, 1);
    if (inside) {
        g[CONT_CHAIN] = copy_graph(dev, w->graphs[OFF], w->layout, WGPROF_PROFILING_ON, WGPROF_STRATEGY_CHAIN, 1);
        g[CONT_INSIDE] = copy_graph(dev, w->graphs[OFF], w->layout, WGPROF_PROFILING_ON, WGPROF_STRATEGY_INSIDE, 1);
        g[CONT_CHAIN_SAMPLED] = copy_graph(dev, w->graphs[OFF], w->layout, WGPROF_PROFILING_ON,
                                           WGPROF_STRATEGY_CHAIN, SAMPLE_EVERY);
        g[CONT_BLOCKING_CHAIN] = g[CONT_CHAIN];
    }
    static double rate[CONT_MODES][MAX_ROUNDS], ratio[CONT_MODES][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        for (int mode = 0; mode < CONT_MODES; mode++) {
            rate[mode][r] = g[mode] ? continuous_run(dev, g[mode], mode) : 0;
        }
        for (int mode = 0; mode < CONT_MODES; mode++) {
            int base = mode >= CONT_BLOCKING_PLAIN ? CONT_BLOCKING_PLAIN : CONT_PLAIN;
            ratio[mode][r] = rate[mode][r] / rate[base][r];
        }
    }
    printf("  \"continuous\": {\"workload\": \"%s\", \"executes\": %d, \"rounds\": %d, \"in_flight\": 2, "
           "\"modes\": {\n",
           w->name, CONTINUOUS_EXECUTES, rounds);
    bool first = true;
    for (int mode = 0; mode < CONT_MODES; mode++) {
        if (!g[mode]) {
            continue;
        }
        printf("%s    \"%s\": {", first ? "" : ",\n", cont_names[mode]);
        print_spread("executes_per_s", rate[mode], rounds, 1.0, "rate");
        printf(", ");
        print_spread("throughput_ratio", ratio[mode], rounds, 1.0, "ratio");
        if (mode != CONT_PLAIN && mode != CONT_BLOCKING_PLAIN) {
            printf(", \"collected\": %llu, \"dropped\": %llu", (unsigned long long)g_collected[mode],
                   (unsigned long long)g_dropped[mode]);
        }
        printf("}");
        first = false;
    }
    printf("\n  }}\n");
    for (int mode = CONT_CHAIN; mode < CONT_BLOCKING_PLAIN; mode++) {
        wgprof_graph_destroy(g[mode]);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_overhead [ROUNDS (1..%d, default 7)] [--quick]\n", MAX_ROUNDS);
        return 2;
    }
    /* --quick: the decode steps only, for a CPU driver on which the 10,000 per-dispatch submits
     * and the larger model take minutes. */
    bool quick = argc > 2 && strcmp(argv[2], "--quick") == 0;
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(NULL, &dev);
    if (s != WGPROF_OK) {
        die("creating the device", s);
    }
    if (!wgprof_device_describe(dev)->profiling_available) {
        die("this device has no timestamp queries", WGPROF_ERR_UNAVAILABLE);
    }
    per_kernel_map m = per_kernel_map_create(dev);
    const demo_config small = {.layers = 2, .dim = 256, .heads = 4, .ffn = 512, .vocab = 1024, .max_seq = 64, .pos = 16};
    const demo_config large = {.layers = 4, .dim = 1024, .heads = 8, .ffn = 4096, .vocab = 8192, .max_seq = 256,
                               .pos = 128};
    workload decode, single, big, tiny;
    decode_workload(dev, &decode, "decode_step", &small, WGPROF_LAYOUT_PASS_PER_DISPATCH, 50);
    decode_workload(dev, &single, "decode_step_one_pass", &small, WGPROF_LAYOUT_SINGLE_PASS, 50);
    printf("{\n  \"adapter\": \"%s\",\n  \"workloads\": {\n", wgprof_device_describe(dev)->adapter);
    bench_workload(dev, &decode, rounds, &m);
    printf(",\n");
    bench_workload(dev, &single, rounds, &m);
    if (!quick) {
        decode_workload(dev, &big, "decode_step_large", &large, WGPROF_LAYOUT_PASS_PER_DISPATCH, 20);
        tiny_workload(dev, &tiny, 10000);
        printf(",\n");
        bench_workload(dev, &big, rounds, &m);
        printf(",\n");
        bench_workload(dev, &tiny, rounds, &m);
        workload_free(&big);
        workload_free(&tiny);
    }
    printf("\n  },\n");
    bench_continuous(dev, &decode, rounds);
    printf("}\n");
    workload_free(&decode);
    workload_free(&single);
    wgpuQuerySetRelease(m.set);
    wgpuBufferRelease(m.resolve);
    wgpuBufferRelease(m.readback);
    wgprof_device_destroy(dev);
    return 0;
}
