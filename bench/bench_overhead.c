/*
 * What profiling costs, in wall time of execute(), on the device at hand. Prints one JSON object.
 *
 * Workloads: the demo's transformer decode step, and 10,000 tiny dispatches (the worst case:
 * almost no work per dispatch). Modes, all running the same nodes:
 *   plain     the plain executor (tests/plain_executor.c): what an engine without wgprof does
 *   off       wgprof's graph with profiling off
 *   pass      wgprof, pass strategy
 *   inside    wgprof, inside strategy (where the device has in-pass timestamps)
 *   cpu_sync  what users do without wgprof: submit and wait after every dispatch, timed on the CPU
 *   per_kernel_map  the TensorFlow.js way: per dispatch one pass with timestampWrites, resolve,
 *             submit and map
 * Each round runs every mode back to back, `executes` times (the two per-dispatch submit modes
 * once on the tiny dispatches); a mode's figure is the median over
 * rounds of its mean time per execute, with the spread (min, max) over rounds. Ratios are taken
 * within each round against plain, then their median is reported.
 * A last section runs 1,000 back-to-back executes of the decode step, profiled and not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "../tests/plain_executor.h"
#include "../tools/demo_model.h"

enum { MODES = 6, MAX_ROUNDS = 64 };
static const char *const mode_names[MODES] = {"plain", "off", "pass", "inside", "cpu_sync", "per_kernel_map"};

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
    wgprof_graph *graphs[4]; /* off, pass, inside (NULL where unavailable), and one more off */
    int executes;
    bool one_slow_execute;
    demo_model *model;
    WGPUComputePipeline tiny_pipeline;
    WGPUBindGroup tiny_group;
    WGPUBuffer tiny_buffer;
} workload;

static wgprof_graph *graph_of(wgprof_device *dev, wgprof_profiling profiling, wgprof_strategy strategy)
{
    wgprof_graph_desc gd = {.profiling = profiling, .strategy = strategy};
    wgprof_graph *g = NULL;
    wgprof_status s = wgprof_graph_create(dev, &gd, &g);
    if (s != WGPROF_OK) {
        die("creating a graph", s);
    }
    return g;
}

/* Copies the nodes of graphs[0] into the profiled graphs, so that every mode runs the same. */
static void fill_profiled(wgprof_device *dev, workload *w)
{
    w->graphs[1] = graph_of(dev, WGPROF_PROFILING_ON, WGPROF_STRATEGY_PASS);
    bool inside = wgprof_device_get_info(dev)->timestamp_inside_passes;
    w->graphs[2] = inside ? graph_of(dev, WGPROF_PROFILING_ON, WGPROF_STRATEGY_INSIDE) : NULL;
    wgprof_node_desc n;
    for (uint32_t i = 0; wgprof_graph_node(w->graphs[0], i, &n) == WGPROF_OK; i++) {
        for (int k = 1; k <= 2; k++) {
            if (w->graphs[k] && wgprof_graph_add(w->graphs[k], &n, NULL) != WGPROF_OK) {
                die("copying nodes", WGPROF_ERR_OUT_OF_MEMORY);
            }
        }
    }
}

static void decode_workload(wgprof_device *dev, workload *w)
{
    memset(w, 0, sizeof *w);
    w->name = "decode_step";
    w->executes = 20;
    demo_config cfg = {.layers = 2, .dim = 256, .heads = 4, .ffn = 512, .vocab = 1024, .max_seq = 64, .pos = 16};
    wgprof_status s = demo_model_create(&cfg, &w->model);
    w->graphs[0] = graph_of(dev, WGPROF_PROFILING_OFF, WGPROF_STRATEGY_AUTO);
    if (s == WGPROF_OK) {
        s = demo_model_build(w->model, dev, w->graphs[0]);
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
    w->graphs[0] = graph_of(dev, WGPROF_PROFILING_OFF, WGPROF_STRATEGY_AUTO);
    wgprof_node_desc n = {.pipeline = w->tiny_pipeline, .bind_group_count = 1, .bind_groups = &w->tiny_group,
                          .workgroups = {1, 1, 1}, .workgroup_size = {1, 1, 1}, .kernel = "tiny"};
    for (uint32_t i = 0; i < count; i++) {
        if (wgprof_graph_add(w->graphs[0], &n, NULL) != WGPROF_OK) {
            die("adding a node", WGPROF_ERR_OUT_OF_MEMORY);
        }
    }
    fill_profiled(dev, w);
}

static void workload_free(workload *w)
{
    for (int k = 0; k < 3; k++) {
        wgprof_graph_destroy(w->graphs[k]);
    }
    demo_model_destroy(w->model);
    if (w->tiny_group) wgpuBindGroupRelease(w->tiny_group);
    if (w->tiny_buffer) wgpuBufferRelease(w->tiny_buffer);
    if (w->tiny_pipeline) wgpuComputePipelineRelease(w->tiny_pipeline);
}

/* Mean wall seconds per execute of `mode`, over w->executes executes; NAN when not available. */
static double run_mode(wgprof_device *dev, workload *w, int mode, const per_kernel_map *m)
{
    wgprof_graph *g = mode == 2 ? w->graphs[1] : mode == 3 ? w->graphs[2] : w->graphs[0];
    if (!g) {
        return -1;
    }
    /* The per-dispatch submit modes take a submit and a wait for each dispatch: on the 10,000
     * tiny dispatches one execute a round is enough (and all a CPU driver has time for). */
    int executes = mode >= 4 && w->one_slow_execute ? 1 : w->executes;
    double t0 = bench_now_s();
    for (int i = 0; i < executes; i++) {
        switch (mode) {
        case 0: plain_execute(dev, g, false); break;
        case 4: cpu_sync_execute(dev, g); break;
        case 5: per_kernel_map_execute(dev, g, m); break;
        default: {
            wgprof_status s = wgprof_graph_execute(g);
            if (s != WGPROF_OK) {
                die("execute", s);
            }
        }
        }
    }
    if (mode == 2 || mode == 3) {
        wgprof_pool_reset(wgprof_graph_pool(g)); /* keep the pool from growing across rounds */
    }
    return (bench_now_s() - t0) / executes;
}

static void bench_workload(wgprof_device *dev, workload *w, int rounds, const per_kernel_map *m, bool last)
{
    double t[MODES][MAX_ROUNDS], ratio[MODES][MAX_ROUNDS];
    for (int mode = 0; mode < MODES; mode++) {
        if (!(mode >= 4 && w->one_slow_execute)) {
            run_mode(dev, w, mode, m); /* warm-up: shader compilation, first allocations */
        }
    }
    for (int r = 0; r < rounds; r++) {
        for (int mode = 0; mode < MODES; mode++) {
            t[mode][r] = run_mode(dev, w, mode, m);
        }
        for (int mode = 0; mode < MODES; mode++) {
            ratio[mode][r] = t[mode][r] / t[0][r];
        }
    }
    printf("    \"%s\": {\"dispatches\": %u, \"executes_per_round\": %d, \"rounds\": %d, \"modes\": {\n", w->name,
           wgprof_graph_node_count(w->graphs[0]), w->executes, rounds);
    bool first = true;
    for (int mode = 0; mode < MODES; mode++) {
        if (t[mode][0] < 0) {
            continue;
        }
        double lo = t[mode][0], hi = t[mode][0];
        for (int r = 0; r < rounds; r++) {
            lo = t[mode][r] < lo ? t[mode][r] : lo;
            hi = t[mode][r] > hi ? t[mode][r] : hi;
        }
        double med = bench_median(t[mode], rounds), rmed = bench_median(ratio[mode], rounds);
        double overhead_us = (med - bench_median(t[0], rounds)) * 1e6;
        printf("%s      \"%s\": {\"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"ratio_to_plain\": %.4f, "
               "\"overhead_us\": %.1f}",
               first ? "" : ",\n", mode_names[mode], med * 1e3, lo * 1e3, hi * 1e3, rmed, overhead_us);
        first = false;
    }
    printf("\n    }}%s\n", last ? "" : ",");
}

static void bench_continuous(workload *w, int rounds)
{
    enum { EXECUTES = 1000 };
    double tput[2][MAX_ROUNDS] = {{0}}, ratio[MAX_ROUNDS] = {0};
    wgprof_graph *profiled = w->graphs[2] ? w->graphs[2] : w->graphs[1];
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            wgprof_graph *g = k ? profiled : w->graphs[0];
            double t0 = bench_now_s();
            for (int i = 0; i < EXECUTES; i++) {
                wgprof_status s = wgprof_graph_execute(g);
                if (s != WGPROF_OK) {
                    die("execute", s);
                }
            }
            tput[k][r] = EXECUTES / (bench_now_s() - t0);
        }
        ratio[r] = tput[1][r] / tput[0][r];
        /* Every profiled execute was collected: 1,000 batches of valid records. */
        if (wgprof_pool_iterations(wgprof_graph_pool(profiled)) != EXECUTES ||
            wgprof_pool_invalid_count(wgprof_graph_pool(profiled)) != 0) {
            die("continuous run lost results", WGPROF_ERR_STATE);
        }
        wgprof_pool_reset(wgprof_graph_pool(profiled));
    }
    double lo = ratio[0], hi = ratio[0];
    for (int r = 0; r < rounds; r++) {
        lo = ratio[r] < lo ? ratio[r] : lo;
        hi = ratio[r] > hi ? ratio[r] : hi;
    }
    printf("  \"continuous\": {\"workload\": \"%s\", \"executes\": %d, \"rounds\": %d, \"strategy\": \"%s\", "
           "\"unprofiled_executes_per_s\": %.1f, \"profiled_executes_per_s\": %.1f, "
           "\"throughput_ratio\": %.4f, \"ratio_min\": %.4f, \"ratio_max\": %.4f}\n",
           w->name, EXECUTES, rounds, w->graphs[2] ? "inside" : "pass", bench_median(tput[0], rounds),
           bench_median(tput[1], rounds), bench_median(ratio, rounds), lo, hi);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_overhead [ROUNDS (1..%d, default 7)]\n", MAX_ROUNDS);
        return 2;
    }
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(NULL, &dev);
    if (s != WGPROF_OK) {
        die("creating the device", s);
    }
    if (!wgprof_device_get_info(dev)->profiling_available) {
        die("this device has no timestamp queries", WGPROF_ERR_UNAVAILABLE);
    }
    per_kernel_map m = per_kernel_map_create(dev);
    workload decode, tiny;
    decode_workload(dev, &decode);
    tiny_workload(dev, &tiny, 10000);
    printf("{\n  \"adapter\": \"%s\",\n  \"workloads\": {\n", wgprof_device_get_info(dev)->adapter);
    bench_workload(dev, &decode, rounds, &m, false);
    bench_workload(dev, &tiny, rounds, &m, true);
    printf("  },\n");
    bench_continuous(&decode, rounds);
    printf("}\n");
    workload_free(&decode);
    workload_free(&tiny);
    wgpuQuerySetRelease(m.set);
    wgpuBufferRelease(m.resolve);
    wgpuBufferRelease(m.readback);
    wgprof_device_destroy(dev);
    return 0;
}
