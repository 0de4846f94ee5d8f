/* Shared test helpers; see support.h. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy_kernel.h"

static char g_last_log[1024];

static void capture(wgprof_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    snprintf(g_last_log, sizeof g_last_log, "%s", message);
    if (level <= WGPROF_LOG_WARN && getenv("WGPROF_TEST_VERBOSE")) {
        fprintf(stderr, "log: %s\n", message);
    }
}

void ts_capture_log(void) { wgprof_set_logger(capture, NULL); }
const char *ts_last_log(void) { return g_last_log; }
void ts_clear_log(void) { g_last_log[0] = '\0'; }

wgprof_device *ts_device(bool timestamps)
{
    wgprof_device_desc desc = {0};
    desc.disable_timestamps = !timestamps;
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(&desc, &dev);
    if (s != WGPROF_OK) {
        fprintf(stderr, "no WebGPU device: %s\n", wgprof_status_str(s));
        exit(1);
    }
    return dev;
}

WGPUComputePipeline ts_pipeline(wgprof_device *dev, const char *wgsl, const char *entry)
{
    WGPUShaderSourceWGSL src = {0};
    src.chain.sType = WGPUSType_ShaderSourceWGSL;
    src.code = (WGPUStringView){wgsl, WGPU_STRLEN};
    WGPUShaderModuleDescriptor md = {0};
    md.nextInChain = &src.chain;
    WGPUShaderModule module = wgpuDeviceCreateShaderModule(wgprof_device_webgpu(dev), &md);
    WGPUComputePipelineDescriptor pd = {0};
    pd.compute.module = module;
    pd.compute.entryPoint = (WGPUStringView){entry, WGPU_STRLEN};
    WGPUComputePipeline p = wgpuDeviceCreateComputePipeline(wgprof_device_webgpu(dev), &pd);
    wgpuShaderModuleRelease(module);
    return p;
}

WGPUBuffer ts_buffer(wgprof_device *dev, uint64_t size, WGPUBufferUsage usage)
{
    WGPUBufferDescriptor bd = {0};
    bd.size = size;
    bd.usage = usage;
    return wgpuDeviceCreateBuffer(wgprof_device_webgpu(dev), &bd);
}

WGPUBindGroup ts_bind_group(wgprof_device *dev, WGPUComputePipeline p, WGPUBuffer a, uint64_t asize, WGPUBuffer b,
                            uint64_t bsize)
{
    WGPUBindGroupEntry e[2] = {{0}, {0}};
    e[0].binding = 0;
    e[0].buffer = a;
    e[0].size = asize;
    e[1].binding = 1;
    e[1].buffer = b;
    e[1].size = bsize;
    WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(p, 0);
    WGPUBindGroupDescriptor bd = {0};
    bd.layout = layout;
    bd.entryCount = b ? 2 : 1;
    bd.entries = e;
    WGPUBindGroup g = wgpuDeviceCreateBindGroup(wgprof_device_webgpu(dev), &bd);
    wgpuBindGroupLayoutRelease(layout);
    return g;
}

bool ts_read(wgprof_device *dev, WGPUBuffer src, uint64_t size, void *out)
{
    WGPUBuffer staging = ts_buffer(dev, size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    wgpuCommandEncoderCopyBufferToBuffer(enc, src, 0, staging, 0, size);
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgpuCommandEncoderRelease(enc);
    bool ok = wgprof_device_map_read(dev, staging, 0, (size_t)size) == WGPROF_OK;
    if (ok) {
        memcpy(out, wgpuBufferGetConstMappedRange(staging, 0, (size_t)size), (size_t)size);
        wgpuBufferUnmap(staging);
    }
    wgpuBufferRelease(staging);
    return ok;
}

static const char busy_wgsl[] = BUSY_KERNEL_WGSL("0.5", "1.0");

bool ts_busy_init(wgprof_device *dev, ts_busy *b, uint32_t workgroups, uint32_t loops)
{
    memset(b, 0, sizeof *b);
    b->workgroups = workgroups;
    uint64_t size = (uint64_t)workgroups * 64 * sizeof(float);
    b->pipeline = ts_pipeline(dev, busy_wgsl, "main");
    b->data = ts_buffer(dev, size, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
    b->params = ts_buffer(dev, 16, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    if (!b->pipeline || !b->data || !b->params) {
        return false;
    }
    uint32_t params[4] = {loops, 0, 0, 0};
    wgpuQueueWriteBuffer(wgprof_device_queue(dev), b->params, 0, params, sizeof params);
    float *init = calloc((size_t)workgroups * 64, sizeof *init);
    if (!init) {
        return false;
    }
    for (uint32_t i = 0; i < workgroups * 64; i++) {
        init[i] = (float)(i % 7);
    }
    wgpuQueueWriteBuffer(wgprof_device_queue(dev), b->data, 0, init, (size_t)size);
    free(init);
    b->group = ts_bind_group(dev, b->pipeline, b->data, size, b->params, 16);
    return b->group != NULL;
}

void ts_busy_free(ts_busy *b)
{
    if (b->group) wgpuBindGroupRelease(b->group);
    if (b->params) wgpuBufferRelease(b->params);
    if (b->data) wgpuBufferRelease(b->data);
    if (b->pipeline) wgpuComputePipelineRelease(b->pipeline);
    memset(b, 0, sizeof *b);
}

float ts_busy_expected(uint32_t i, uint32_t loops, uint32_t runs)
{
    float x = (float)(i % 7);
    for (uint32_t r = 0; r < runs; r++) {
        for (uint32_t k = 0; k < loops; k++) {
            x = x * 0.5f + 1.0f;
        }
    }
    return x;
}

void ts_busy_node(const ts_busy *b, const char *kernel, wgprof_node_desc *out)
{
    memset(out, 0, sizeof *out);
    out->pipeline = b->pipeline;
    out->bind_group_count = 1;
    out->bind_groups = &b->group;
    out->workgroups[0] = b->workgroups;
    out->workgroup_size[0] = 64;
    out->kernel = kernel;
}

void *ts_counting_alloc(size_t size, void *user)
{
    ts_counting *c = user;
    if (++c->allocations == c->fail_at) {
        return NULL;
    }
    void *p = malloc(size);
    c->live += p != NULL;
    return p;
}

void ts_counting_free(void *p, void *user)
{
    ts_counting *c = user;
    c->live--;
    free(p);
}
