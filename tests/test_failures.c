/* Bad readings end to end on the real driver: a pool read before its work was collected, calls
 * out of order, and a device lost between submit and collect. Each gives a clear status and
 * invalid records with their reason, and a fresh device works afterwards. */
#include <string.h>

#include "check.h"
#include "support.h"
#include "testing.h"

static void test_out_of_order(wgprof_device *dev)
{
    ts_busy b;
    CHECK(ts_busy_init(dev, &b, 4, 10));
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create(dev, NULL, &pool));
    CHECK(wgprof_pool_collect(pool) == WGPROF_ERR_STATE); /* nothing resolved */
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    wgprof_dispatch_desc d = {.kernel = "busy", .workgroups = {4, 1, 1}};
    WGPUPassTimestampWrites tw;
    CHECK_OK(wgprof_pool_pass_writes(pool, &d, &tw));
    WGPUComputePassDescriptor pd = {.timestampWrites = &tw};
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
    wgpuComputePassEncoderSetPipeline(pass, b.pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, b.group, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 4, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    /* Read before the work finished: the record says so and holds no number. */
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(pool, 0, &r));
    CHECK(!r.valid && r.invalid_reason == WGPROF_INVALID_PENDING && r.duration_ns == 0);
    CHECK(wgprof_pool_end(pool, pass) == WGPROF_ERR_STATE); /* no open in-pass record */
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    CHECK(wgprof_pool_resolve(pool, enc) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_pass_writes(pool, &d, &tw) == WGPROF_ERR_STATE); /* after resolve */
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgpuCommandEncoderRelease(enc);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK_OK(wgprof_pool_record(pool, 0, &r));
    CHECK(r.valid && r.duration_ns > 0);
    CHECK(wgprof_pool_count(pool) == 1);
    wgprof_pool_destroy(pool);
    ts_busy_free(&b);
}

static void test_lost_between_submit_and_collect(void)
{
    wgprof_device *dev = ts_device(true);
    ts_busy b;
    CHECK(ts_busy_init(dev, &b, 4, 10));
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON, .strategy = WGPROF_STRATEGY_PASS};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    wgprof_node_desc nd;
    ts_busy_node(&b, "busy", &nd);
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    CHECK_OK(wgprof_graph_execute(g)); /* one good iteration first */

    /* A batch submitted, then the device lost before its results are read. */
    wgprof_pool *pool = wgprof_graph_pool(g);
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    wgprof_dispatch_desc d = {.kernel = "busy", .workgroups = {4, 1, 1}};
    WGPUPassTimestampWrites tw;
    CHECK_OK(wgprof_pool_pass_writes(pool, &d, &tw));
    WGPUComputePassDescriptor pd = {.timestampWrites = &tw};
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgpuCommandEncoderRelease(enc);
    wgprof__device_lose(dev);
    CHECK(wgprof_device_is_lost(dev));
    CHECK(wgprof_pool_collect(pool) == WGPROF_ERR_DEVICE_LOST);
    CHECK(wgprof_pool_count(pool) == 2);
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(pool, 0, &r));
    CHECK(r.valid); /* what was read before the loss stays */
    CHECK_OK(wgprof_pool_record(pool, 1, &r));
    CHECK(!r.valid && r.invalid_reason == WGPROF_INVALID_DEVICE_LOST && r.duration_ns == 0);
    wgprof_summary *s = NULL;
    CHECK_OK(wgprof_summary_create(pool, &s));
    CHECK(s->invalid == 1 && s->invalid_by_reason[WGPROF_INVALID_DEVICE_LOST] == 1 && s->kernels[0].count == 1);
    wgprof_summary_destroy(s);
    CHECK(wgprof_graph_execute(g) == WGPROF_ERR_DEVICE_LOST);
    CHECK(wgprof_device_wait_idle(dev) == WGPROF_ERR_DEVICE_LOST);
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);

    /* Later work on a fresh device is unaffected. */
    dev = ts_device(true);
    CHECK(!wgprof_device_is_lost(dev));
    CHECK(ts_busy_init(dev, &b, 4, 10));
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    ts_busy_node(&b, "busy", &nd);
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    CHECK_OK(wgprof_graph_execute(g));
    CHECK(wgprof_pool_invalid_count(wgprof_graph_pool(g)) == 0);
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    test_out_of_order(dev);
    wgprof_device_destroy(dev);
    test_lost_between_submit_and_collect();
    return check_summary();
}
