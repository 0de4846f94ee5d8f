/* Waits honour the device's wait_timeout_s: a kernel that runs for seconds on a device that
 * waits one second at most makes execute return WGPROF_ERR_TIMEOUT after about a second, with
 * profiling off and on, instead of blocking until the GPU is done; a later collect takes the
 * batch once it is. Each thread runs a dependent loop whose length is sized on the device at
 * hand: a short run is timed first and the loop scaled to about TARGET_S, since the same WGSL
 * takes milliseconds on an H200 and hours on lavapipe when sized for it (Mesa 25's llvmpipe
 * runs every iteration; Mesa 22's ends a shader's loops after 65,535 iterations, which still
 * leaves seconds of work on two cores). */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "support.h"

static const char slow_wgsl[] =
    "struct Params { loops: u32 }\n"
    "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
    "@group(0) @binding(1) var<uniform> params: Params;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    var x = data[id.x] + id.x;\n"
    "    for (var i = 0u; i < params.loops; i++) { x = x * 1664525u + 1013904223u; x = x ^ (x >> 13u); }\n"
    "    data[id.x] = x;\n"
    "}\n";

enum { WORKGROUPS = 1600 };
static const uint32_t CALIBRATION_LOOPS = 1u << 12;
static const double TARGET_S = 4.0;

static double seconds_since(uint64_t t0) { return (double)(wgprof_cpu_now_ns() - t0) / 1e9; }

static void set_loops(wgprof_device *dev, WGPUBuffer params, uint32_t loops)
{
    wgpuQueueWriteBuffer(wgprof_device_queue(dev), params, 0, &loops, sizeof loops);
}

/* The loop count that keeps the GPU busy for about TARGET_S: CALIBRATION_LOOPS timed with
 * profiling off, from execute until the device is idle (past the 1 s wait where it takes that
 * long), then scaled; at most 2^31 (about 6 s on an H200). */
static uint32_t sized_loops(wgprof_device *dev, const wgprof_node_desc *nd, WGPUBuffer params)
{
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_OFF, .no_calibration = true};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK_OK(wgprof_graph_add(g, nd, NULL));
    set_loops(dev, params, CALIBRATION_LOOPS);
    CHECK_OK(wgprof_device_wait_idle(dev));
    uint64_t t0 = wgprof_cpu_now_ns();
    wgprof_status s = wgprof_graph_execute(g);
    for (int i = 0; i < 60 && s == WGPROF_ERR_TIMEOUT; i++) {
        s = wgprof_device_wait_idle(dev);
    }
    CHECK_OK(s);
    double took = seconds_since(t0);
    wgprof_graph_destroy(g);
    double loops = CALIBRATION_LOOPS * TARGET_S / (took > 1e-6 ? took : 1e-6);
    printf("%u loops took %.3f s: %.0f loops for %.0f s\n", CALIBRATION_LOOPS, took, loops, TARGET_S);
    return loops < CALIBRATION_LOOPS ? CALIBRATION_LOOPS : loops > 2147483648.0 ? 1u << 31 : (uint32_t)loops;
}

static void run(bool profiled)
{
    wgprof_device_desc dd = {.wait_timeout_s = 1.0};
    wgprof_device *dev = NULL;
    CHECK_OK(wgprof_device_create(&dd, &dev));
    WGPUComputePipeline p = ts_pipeline(dev, slow_wgsl, "main");
    const uint64_t bytes = 64 * 4 * WORKGROUPS;
    WGPUBuffer data = ts_buffer(dev, bytes, WGPUBufferUsage_Storage);
    WGPUBuffer params = ts_buffer(dev, 16, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    WGPUBindGroup group = ts_bind_group(dev, p, data, bytes, params, 16);
    wgprof_node_desc nd = {.pipeline = p, .bind_group_count = 1, .bind_groups = &group, .workgroups = {WORKGROUPS, 1, 1},
                           .kernel = "slow"};
    set_loops(dev, params, sized_loops(dev, &nd, params));
    wgprof_graph_desc gd = {.profiling = profiled ? WGPROF_PROFILING_ON : WGPROF_PROFILING_OFF, .no_calibration = true};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    uint64_t t0 = wgprof_cpu_now_ns();
    wgprof_status s = wgprof_graph_execute(g);
    double took = seconds_since(t0);
    CHECK_MSG(s == WGPROF_ERR_TIMEOUT, "%s: execute returned %s after %.2f s", profiled ? "on" : "off",
              wgprof_status_str(s), took);
    CHECK_MSG(took >= 0.9 && took < 3.0, "%s: the 1 s wait gave up after %.2f s", profiled ? "on" : "off", took);
    if (profiled) {
        wgprof_pool *pool = wgprof_graph_pool(g);
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, 0, &r));
        CHECK(!r.valid && r.invalid_reason == WGPROF_INVALID_PENDING); /* not given up */
        /* Later, the same batch is collected whole. */
        for (int i = 0; i < 30 && wgprof_pool_in_flight(pool); i++) {
            s = wgprof_pool_collect(pool);
        }
        CHECK_OK(s);
        CHECK_OK(wgprof_pool_record(pool, 0, &r));
        CHECK_MSG(r.valid && r.duration_ns > 1e9, "after the wait: %s, %.0f ns",
                  wgprof_invalid_reason_str(r.invalid_reason), r.duration_ns);
    } else {
        for (int i = 0; i < 30 && (s = wgprof_device_wait_idle(dev)) == WGPROF_ERR_TIMEOUT; i++) {
        }
        CHECK_OK(s);
    }
    wgprof_graph_destroy(g);
    wgpuBindGroupRelease(group);
    wgpuBufferRelease(params);
    wgpuBufferRelease(data);
    wgpuComputePipelineRelease(p);
    wgprof_device_destroy(dev);
}

int main(void)
{
    ts_capture_log();
    run(false);
    run(true);
    return check_summary();
}
