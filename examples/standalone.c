/*
 * Using wgprof's query pool in an engine of your own, without wgprof's graph.
 *
 * The program below is a plain WebGPU compute loop: it makes its own device (asking for
 * TimestampQuery), then, each step, encodes two kernels in their own compute passes, submits and
 * waits. Four wgprof calls time it: wgprof_pool_pass_writes() hands out the timestampWrites of
 * each pass, wgprof_pool_resolve() goes into the step's encoder, wgprof_pool_collect() reads the
 * results after the submit, and wgprof_report_write() prints them.
 *
 * Build: cc standalone.c $(pkg-config --cflags --libs wgprof)
 */
#include <stdio.h>
#include <string.h>

#include <wgprof/wgprof.h>
#include <wgprof/device_util.h>

static const char scale_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
    "@compute @workgroup_size(64) fn scale(@builtin(global_invocation_id) id: vec3u) {\n"
    "    v[id.x] = v[id.x] * 2.0;\n"
    "}\n"
    "@compute @workgroup_size(64) fn shift(@builtin(global_invocation_id) id: vec3u) {\n"
    "    v[id.x] = v[id.x] - 1.0;\n"
    "}\n";

enum { N = 64 * 256, STEPS = 4 };

/* ---- the engine's own set-up: nothing of wgprof here ---- */

static void on_adapter(WGPURequestAdapterStatus s, WGPUAdapter a, WGPUStringView m, void *out, void *unused)
{
    (void)m;
    (void)unused;
    *(WGPUAdapter *)out = s == WGPURequestAdapterStatus_Success ? a : NULL;
}

static void on_device(WGPURequestDeviceStatus s, WGPUDevice d, WGPUStringView m, void *out, void *unused)
{
    (void)m;
    (void)unused;
    *(WGPUDevice *)out = s == WGPURequestDeviceStatus_Success ? d : NULL;
}

/* Without this callback wgpu-native aborts the process on the first validation error; an
 * engine reports the error, carries on, and fails at the end. */
static int webgpu_errors;

static void on_uncaptured_error(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message, void *unused1,
                                void *unused2)
{
    (void)device;
    (void)unused1;
    (void)unused2;
    webgpu_errors++;
    fprintf(stderr, "standalone: WebGPU error %d: %.*s\n", (int)type,
            message.data ? (int)(message.length == WGPU_STRLEN ? strlen(message.data) : message.length) : 0,
            message.data ? message.data : "");
}

static WGPUDevice make_device(WGPUInstance instance, WGPUAdapter *adapter_out)
{
    WGPUAdapter adapter = NULL;
    WGPURequestAdapterCallbackInfo acb = {0};
    acb.mode = WGPUCallbackMode_AllowProcessEvents;
    acb.callback = on_adapter;
    acb.userdata1 = &adapter;
    wgpuInstanceRequestAdapter(instance, NULL, acb);
    wgpuInstanceProcessEvents(instance);
    if (!adapter) {
        return NULL;
    }
    WGPUFeatureName features[] = {WGPUFeatureName_TimestampQuery};
    WGPUDeviceDescriptor dd = {0};
    dd.requiredFeatureCount = wgpuAdapterHasFeature(adapter, WGPUFeatureName_TimestampQuery) ? 1 : 0;
    dd.requiredFeatures = features;
    dd.uncapturedErrorCallbackInfo.callback = on_uncaptured_error;
    WGPUDevice device = NULL;
    WGPURequestDeviceCallbackInfo dcb = {0};
    dcb.mode = WGPUCallbackMode_AllowProcessEvents;
    dcb.callback = on_device;
    dcb.userdata1 = &device;
    wgpuAdapterRequestDevice(adapter, &dd, dcb);
    wgpuInstanceProcessEvents(instance);
    *adapter_out = adapter;
    return device;
}

static WGPUComputePipeline make_pipeline(WGPUDevice device, WGPUShaderModule module, WGPUPipelineLayout layout,
                                         const char *entry)
{
    WGPUComputePipelineDescriptor pd = {0};
    pd.layout = layout;
    pd.compute.module = module;
    pd.compute.entryPoint = (WGPUStringView){entry, WGPU_STRLEN};
    return wgpuDeviceCreateComputePipeline(device, &pd);
}

int main(void)
{
    WGPUInstance instance = wgpuCreateInstance(NULL);
    WGPUAdapter adapter = NULL;
    WGPUDevice device = instance ? make_device(instance, &adapter) : NULL;
    if (!device) {
        fprintf(stderr, "standalone: no WebGPU device\n");
        return 1;
    }
    WGPUQueue queue = wgpuDeviceGetQueue(device);
    WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = {scale_wgsl, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {.nextInChain = &src.chain};
    WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &md);
    /* One explicit layout serves both pipelines (auto layouts are each pipeline's own). */
    WGPUBindGroupLayoutEntry binding = {.binding = 0, .visibility = WGPUShaderStage_Compute,
                                        .buffer = {.type = WGPUBufferBindingType_Storage}};
    WGPUBindGroupLayoutDescriptor bgld = {.entryCount = 1, .entries = &binding};
    WGPUBindGroupLayout layout = wgpuDeviceCreateBindGroupLayout(device, &bgld);
    WGPUPipelineLayoutDescriptor pld = {.bindGroupLayoutCount = 1, .bindGroupLayouts = &layout};
    WGPUPipelineLayout pipeline_layout = wgpuDeviceCreatePipelineLayout(device, &pld);
    WGPUComputePipeline scale = make_pipeline(device, module, pipeline_layout, "scale");
    WGPUComputePipeline shift = make_pipeline(device, module, pipeline_layout, "shift");
    WGPUBufferDescriptor bd = {.size = N * sizeof(float),
                               .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc};
    WGPUBuffer data = wgpuDeviceCreateBuffer(device, &bd);
    static float init[N];
    for (int i = 0; i < N; i++) {
        init[i] = 3.0f;
    }
    wgpuQueueWriteBuffer(queue, data, 0, init, sizeof init);
    WGPUBindGroupEntry entry = {.binding = 0, .buffer = data, .size = N * sizeof(float)};
    WGPUBindGroupDescriptor bgd = {.layout = layout, .entryCount = 1, .entries = &entry};
    WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &bgd);

    /* ---- wgprof: a pool on the engine's device ---- */
    wgprof_device *prof_dev = NULL;
    wgprof_pool *pool = NULL;
    wgprof_status s = wgprof_device_wrap(instance, adapter, device, &prof_dev);
    if (s == WGPROF_OK) {
        s = wgprof_pool_create(prof_dev, NULL, &pool); /* WGPROF_ERR_UNAVAILABLE: run untimed */
    }
    if (s != WGPROF_OK) {
        fprintf(stderr, "standalone: running untimed: %s\n", wgprof_status_str(s));
    }

    struct { WGPUComputePipeline pipeline; const char *name; } kernels[] = {{scale, "scale"}, {shift, "shift"}};
    for (int step = 0; step < STEPS; step++) {
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, NULL);
        for (int k = 0; k < 2; k++) {
            WGPUPassTimestampWrites writes;
            WGPUComputePassDescriptor pass_desc = {0};
            wgprof_dispatch_desc what = {.kernel = kernels[k].name, .dispatch_id = (uint64_t)(step * 2 + k + 1),
                                         .workgroups = {N / 64, 1, 1}, .workgroup_size = {64, 1, 1},
                                         .bytes = 2.0 * N * sizeof(float)};
            if (pool && wgprof_pool_pass_writes(pool, &what, &writes) == WGPROF_OK) {
                pass_desc.timestampWrites = &writes;
            }
            WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pass_desc);
            wgpuComputePassEncoderSetPipeline(pass, kernels[k].pipeline);
            wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
            wgpuComputePassEncoderDispatchWorkgroups(pass, N / 64, 1, 1);
            wgpuComputePassEncoderEnd(pass);
            wgpuComputePassEncoderRelease(pass);
        }
        if (pool) {
            wgprof_pool_resolve(pool, enc);
        }
        WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
        wgpuQueueSubmit(queue, 1, &cb);
        wgpuCommandBufferRelease(cb);
        wgpuCommandEncoderRelease(enc);
        if (pool && (s = wgprof_pool_collect(pool)) != WGPROF_OK) { /* waits for this submit */
            fprintf(stderr, "standalone: collect: %s\n", wgprof_status_str(s));
        }
    }

    /* Check the engine's result: x -> 2x - 1, STEPS times, from 3. */
    float expected = 3.0f;
    for (int step = 0; step < STEPS; step++) {
        expected = expected * 2.0f - 1.0f;
    }
    WGPUBufferDescriptor rd = {.size = N * sizeof(float), .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst};
    WGPUBuffer readback = wgpuDeviceCreateBuffer(device, &rd);
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(enc, data, 0, readback, 0, N * sizeof(float));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuQueueSubmit(queue, 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgpuCommandEncoderRelease(enc);
    int wrong = -1;
    if (prof_dev && wgprof_device_map_read(prof_dev, readback, 0, N * sizeof(float)) == WGPROF_OK) {
        const float *out = wgpuBufferGetConstMappedRange(readback, 0, N * sizeof(float));
        wrong = 0;
        for (int i = 0; i < N; i++) {
            wrong += out[i] != expected;
        }
        wgpuBufferUnmap(readback);
    }
    printf("result: %s (%d of %d wrong)\n", wrong == 0 ? "ok" : "WRONG", wrong < 0 ? N : wrong, N);

    int status = wrong == 0 && webgpu_errors == 0 ? 0 : 1;
    if (pool) {
        wgprof_report_desc report = {.device = wgprof_device_describe(prof_dev), .pool = pool};
        wgprof_report_write(&report, WGPROF_FORMAT_TABLE, stdout);
        if (wgprof_pool_count(pool) != 2 * STEPS || wgprof_pool_invalid_count(pool) != 0) {
            status = 1;
        }
    }
    wgprof_pool_destroy(pool);
    wgprof_device_destroy(prof_dev);
    wgpuBufferRelease(readback);
    wgpuBindGroupRelease(group);
    wgpuPipelineLayoutRelease(pipeline_layout);
    wgpuBindGroupLayoutRelease(layout);
    wgpuBufferRelease(data);
    wgpuComputePipelineRelease(scale);
    wgpuComputePipelineRelease(shift);
    wgpuShaderModuleRelease(module);
    wgpuQueueRelease(queue);
    wgpuDeviceRelease(device);
    wgpuAdapterRelease(adapter);
    wgpuInstanceRelease(instance);
    return status;
}
