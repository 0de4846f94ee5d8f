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
    /* The refused calls changed nothing: once the batch was collected the next one records. */
    CHECK_OK(wgprof_pool_pass_writes(pool, &d, &tw));
    CHECK(wgprof_pool_count(pool) == 2);
    /* read_async, not only collect, ends a batch's cycle: recording goes on at once. */
    enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    CHECK_OK(wgprof_pool_resolve(pool, enc));
    cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgpuCommandEncoderRelease(enc);
    CHECK_OK(wgprof_pool_read_async(pool));
    CHECK_OK(wgprof_pool_pass_writes(pool, &d, &tw));
    CHECK(wgprof_pool_count(pool) == 3 && wgprof_pool_in_flight(pool) == 1);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK_OK(wgprof_pool_record(pool, 1, &r));
    CHECK(r.valid);
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

/* A node of `b`'s pipeline with `groups` bind groups (b's own, repeated) and `workgroups` in x. */
static wgprof_node_desc node_of(const ts_busy *b, const WGPUBindGroup *groups, uint32_t group_count, uint32_t workgroups)
{
    wgprof_node_desc nd;
    ts_busy_node(b, "busy", &nd);
    nd.bind_groups = groups;
    nd.bind_group_count = group_count;
    nd.workgroups[0] = workgroups;
    return nd;
}

/* Nodes the device cannot run, with profiling off and on: refused at add where the limits say
 * so, else refused before the submit (which wgpu-native treats as fatal), never an abort. */
static void test_invalid_nodes(void)
{
    wgprof_device *dev = ts_device(true);
    ts_busy b;
    CHECK(ts_busy_init(dev, &b, 4, 10));
    WGPUBindGroup many[1000];
    for (int i = 0; i < 1000; i++) {
        many[i] = b.group;
    }
    for (int on = 0; on < 2; on++) {
        wgprof_graph_desc gd = {.profiling = on ? WGPROF_PROFILING_ON : WGPROF_PROFILING_OFF};
        wgprof_graph *g = NULL;
        CHECK_OK(wgprof_graph_create(dev, &gd, &g));
        wgprof_node_desc nd = node_of(&b, many, 1, 100000);
        CHECK(wgprof_graph_add(g, &nd, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
        CHECK(strstr(ts_last_log(), "100000 workgroups") != NULL);
        nd = node_of(&b, many, 1000, 4);
        CHECK(wgprof_graph_add(g, &nd, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
        CHECK(strstr(ts_last_log(), "1000 bind groups") != NULL);
        CHECK(wgprof_graph_node_count(g) == 0);
        nd = node_of(&b, NULL, 0, 4); /* the pipeline needs group 0: only encoding tells */
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
        CHECK(wgprof_graph_execute(g) == WGPROF_ERR_WEBGPU);
        CHECK(wgprof_graph_submit(g) == WGPROF_ERR_WEBGPU);
        CHECK_OK(wgprof_graph_collect(g));
        CHECK(wgprof_pool_count(wgprof_graph_pool(g)) == 0); /* nothing recorded for it */
        wgprof_graph_destroy(g);
    }
    /* The device is fine afterwards. */
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, NULL, &g));
    wgprof_node_desc nd = node_of(&b, &b.group, 1, 4);
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    CHECK_OK(wgprof_graph_execute(g));
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
}

/* The real loss: wgpuDeviceDestroy on the device wgprof made. Its lost callback marks the device
 * lost; nothing more is submitted (wgpu-native aborts the process on a submit to a lost
 * device), profiled or not. */
static void test_real_device_loss(void)
{
    for (int on = 0; on < 2; on++) {
        wgprof_device *dev = ts_device(true);
        ts_busy b;
        CHECK(ts_busy_init(dev, &b, 4, 10));
        wgprof_graph_desc gd = {.profiling = on ? WGPROF_PROFILING_ON : WGPROF_PROFILING_OFF};
        wgprof_graph *g = NULL;
        CHECK_OK(wgprof_graph_create(dev, &gd, &g));
        wgprof_node_desc nd = node_of(&b, &b.group, 1, 4);
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
        CHECK_OK(wgprof_graph_execute(g));
        CHECK(!wgprof_device_is_lost(dev));
        wgpuDeviceDestroy(wgprof_device_webgpu(dev));
        CHECK(wgprof_graph_execute(g) == WGPROF_ERR_DEVICE_LOST);
        CHECK(wgprof_device_is_lost(dev));
        CHECK(wgprof_graph_submit(g) == WGPROF_ERR_DEVICE_LOST);
        if (on) {
            CHECK(wgprof_pool_calibrate(wgprof_graph_pool(g), 2) == WGPROF_ERR_DEVICE_LOST);
            size_t n = wgprof_pool_count(wgprof_graph_pool(g));
            for (size_t i = 0; i < n; i++) {
                wgprof_record r;
                CHECK_OK(wgprof_pool_record(wgprof_graph_pool(g), i, &r));
                CHECK(r.valid || r.invalid_reason == WGPROF_INVALID_DEVICE_LOST);
            }
        }
        wgprof_graph_destroy(g);
        ts_busy_free(&b);
        wgprof_device_destroy(dev);
    }
}

/* Enum arguments out of range are refused, not passed on (wgpu-native panics on a backend it
 * does not know). */
static void test_bad_enums(void)
{
    wgprof_device *dev = NULL;
    wgprof_device_desc bad_backend = {.backend = (WGPUBackendType)12345};
    CHECK(wgprof_device_create(&bad_backend, &dev) == WGPROF_ERR_INVALID_ARGUMENT && dev == NULL);
    wgprof_device_desc bad_power = {.power = (WGPUPowerPreference)7};
    CHECK(wgprof_device_create(&bad_power, &dev) == WGPROF_ERR_INVALID_ARGUMENT && dev == NULL);
    wgprof_device_desc bad_timeout = {.wait_timeout_s = -1};
    CHECK(wgprof_device_create(&bad_timeout, &dev) == WGPROF_ERR_INVALID_ARGUMENT && dev == NULL);
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    test_out_of_order(dev);
    wgprof_device_destroy(dev);
    test_lost_between_submit_and_collect();
    test_invalid_nodes();
    test_real_device_loss();
    test_bad_enums();
    return check_summary();
}
