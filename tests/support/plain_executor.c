/* See plain_executor.h. */
#include <dlfcn.h>

#include "plain_executor.h"

/* wgpu-native fires callbacks from wgpuDevicePoll, an extension that other implementations
 * lack: looked up at run time, as wgprof does. Dawn (the one with wgpuDeviceTick) is waited
 * on through the future alone, wgpuInstanceWaitAny, which runs no other callback; elsewhere
 * the instance is pumped. */
static void wait_step(wgprof_device *dev, WGPUFuture future)
{
    static WGPUBool (*poll)(WGPUDevice, WGPUBool, const void *);
    static bool looked_up, dawn;
    if (!looked_up) {
        *(void **)&poll = dlsym(RTLD_DEFAULT, "wgpuDevicePoll");
        dawn = dlsym(RTLD_DEFAULT, "wgpuDeviceTick") != NULL;
        looked_up = true;
    }
    if (dawn) {
        WGPUFutureWaitInfo info = {.future = future};
        wgpuInstanceWaitAny(wgprof_device_instance(dev), 1, &info, 0);
        return;
    }
    if (poll) {
        poll(wgprof_device_webgpu(dev), 1, NULL);
    }
    wgpuInstanceProcessEvents(wgprof_device_instance(dev));
}

static void on_done(WGPUQueueWorkDoneStatus s, WGPUStringView m, void *done, void *unused)
{
    (void)s;
    (void)m;
    (void)unused;
    *(volatile bool *)done = true;
}

static void encode(WGPUComputePassEncoder pass, const wgprof_node_desc *n)
{
    wgpuComputePassEncoderSetPipeline(pass, n->pipeline);
    for (uint32_t k = 0; k < n->bind_group_count; k++) {
        wgpuComputePassEncoderSetBindGroup(pass, k, n->bind_groups[k], 0, NULL);
    }
    wgpuComputePassEncoderDispatchWorkgroups(pass, n->workgroups[0], n->workgroups[1], n->workgroups[2]);
}

void plain_submit(wgprof_device *dev, const wgprof_graph *graph, bool single_pass)
{
    uint32_t count = wgprof_graph_node_count(graph);
    wgprof_node_desc n;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    if (single_pass) {
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
        for (uint32_t i = 0; i < count && wgprof_graph_node(graph, i, &n) == WGPROF_OK; i++) {
            encode(pass, &n);
        }
        wgpuComputePassEncoderEnd(pass);
        wgpuComputePassEncoderRelease(pass);
    } else {
        for (uint32_t i = 0; i < count && wgprof_graph_node(graph, i, &n) == WGPROF_OK; i++) {
            WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
            encode(pass, &n);
            wgpuComputePassEncoderEnd(pass);
            wgpuComputePassEncoderRelease(pass);
        }
    }
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
}

void plain_execute(wgprof_device *dev, const wgprof_graph *graph, bool single_pass)
{
    plain_submit(dev, graph, single_pass);
    volatile bool done = false;
    WGPUQueueWorkDoneCallbackInfo info = {0};
    info.mode = WGPUCallbackMode_AllowProcessEvents;
    info.callback = on_done;
    info.userdata1 = (void *)&done;
    WGPUFuture future = wgpuQueueOnSubmittedWorkDone(wgprof_device_queue(dev), info);
    while (!done) {
        wait_step(dev, future);
    }
}

static void on_throttle_done(WGPUQueueWorkDoneStatus s, WGPUStringView m, void *t, void *unused)
{
    (void)s;
    (void)m;
    (void)unused;
    ((plain_throttle *)t)->done++;
}

void plain_throttle_after_submit(plain_throttle *t)
{
    WGPUQueueWorkDoneCallbackInfo info = {0};
    info.mode = WGPUCallbackMode_AllowProcessEvents;
    info.callback = on_throttle_done;
    info.userdata1 = t;
    WGPUFuture future = wgpuQueueOnSubmittedWorkDone(wgprof_device_queue(t->dev), info);
    t->submitted++;
    while (t->submitted - t->done > t->limit) {
        wait_step(t->dev, future);
    }
}
