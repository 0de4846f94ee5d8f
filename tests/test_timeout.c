/* Waits honour the device's wait_timeout_s: a kernel that runs for seconds on a device that
 * waits one second at most makes execute return WGPROF_ERR_TIMEOUT after about a second, with
 * profiling off and on, instead of blocking until the GPU is done; a later collect takes the
 * batch once it is. Each thread runs a dependent loop of 2^28 steps: about 3 s on an H200.
 * llvmpipe ends a shader's loops after 65,535 iterations, so there the 102,400 threads set the
 * time instead: seconds too, on two cores. */
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
static const uint32_t LOOPS = 1u << 28;

static double seconds_since(uint64_t t0) { return (double)(wgprof_cpu_now_ns() - t0) / 1e9; }

static void run(bool profiled)
{
    wgprof_device_desc dd = {.wait_timeout_s = 1.0};
    wgprof_device *dev = NULL;
    CHECK_OK(wgprof_device_create(&dd, &dev));
    WGPUComputePipeline p = ts_pipeline(dev, slow_wgsl, "main");
    const uint64_t bytes = 64 * 4 * WORKGROUPS;
    WGPUBuffer data = ts_buffer(dev, bytes, WGPUBufferUsage_Storage);
    WGPUBuffer params = ts_buffer(dev, 16, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    uint32_t loops = LOOPS;
    wgpuQueueWriteBuffer(wgprof_device_queue(dev), params, 0, &loops, sizeof loops);
    WGPUBindGroup group = ts_bind_group(dev, p, data, bytes, params, 16);
    wgprof_graph_desc gd = {.profiling = profiled ? WGPROF_PROFILING_ON : WGPROF_PROFILING_OFF, .no_calibration = true};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    wgprof_node_desc nd = {.pipeline = p, .bind_group_count = 1, .bind_groups = &group, .workgroups = {WORKGROUPS, 1, 1},
                           .kernel = "slow"};
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
