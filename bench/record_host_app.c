/*
 * A WebGPU program of the shape `wgprof record` meets most, for measuring what record's hooks
 * cost the host per dispatch (bench/record_host.sh): one pipeline, DISPATCHES dispatches in
 * passes of 8, command encoders of 32, each submitted; a wait at the end. It knows nothing of
 * wgprof and is linked to wgpu-native by name, as applications are.
 *
 * Usage: record_host_app DISPATCHES
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webgpu/webgpu.h>
#include <webgpu/wgpu.h>

enum { PER_PASS = 8, PER_ENCODER = 32 };

static const char *const WGSL = "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
                                "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
                                "  v[g.x] = v[g.x] + 1u;\n"
                                "}\n";

static void on_adapter(WGPURequestAdapterStatus s, WGPUAdapter a, WGPUStringView m, void *u1, void *u2)
{
    (void)s, (void)m, (void)u2;
    *(WGPUAdapter *)u1 = a;
}

static void on_device(WGPURequestDeviceStatus s, WGPUDevice d, WGPUStringView m, void *u1, void *u2)
{
    (void)s, (void)m, (void)u2;
    *(WGPUDevice *)u1 = d;
}

static void on_done(WGPUQueueWorkDoneStatus s, WGPUStringView m, void *u1, void *u2)
{
    (void)s, (void)m, (void)u2;
    *(bool *)u1 = true;
}

int main(int argc, char **argv)
{
    long dispatches = argc == 2 ? strtol(argv[1], NULL, 10) : -1;
    if (dispatches < 1 || dispatches > 10000000) {
        fprintf(stderr, "usage: %s DISPATCHES (1 to 10000000)\n", argv[0]);
        return 2;
    }
    WGPUInstance instance = wgpuCreateInstance(NULL);
    WGPUAdapter adapter = NULL;
    wgpuInstanceRequestAdapter(instance, NULL,
                               (WGPURequestAdapterCallbackInfo){.mode = WGPUCallbackMode_AllowProcessEvents,
                                                                .callback = on_adapter, .userdata1 = &adapter});
    wgpuInstanceProcessEvents(instance);
    if (!adapter) {
        fprintf(stderr, "no adapter\n");
        return 77;
    }
    WGPUDevice device = NULL;
    wgpuAdapterRequestDevice(adapter, NULL,
                             (WGPURequestDeviceCallbackInfo){.mode = WGPUCallbackMode_AllowProcessEvents,
                                                             .callback = on_device, .userdata1 = &device});
    wgpuInstanceProcessEvents(instance);
    if (!device) {
        fprintf(stderr, "no device\n");
        return 77;
    }
    WGPUQueue queue = wgpuDeviceGetQueue(device);
    WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL},
                                .code = {WGSL, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {.nextInChain = &src.chain, .label = {"bump", WGPU_STRLEN}};
    WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &md);
    WGPUComputePipelineDescriptor pd = {.label = {"bump", WGPU_STRLEN},
                                        .compute = {.module = module, .entryPoint = {"main", WGPU_STRLEN}}};
    WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pd);
    WGPUBufferDescriptor bd = {.size = 64 * sizeof(uint32_t), .usage = WGPUBufferUsage_Storage};
    WGPUBuffer buffer = wgpuDeviceCreateBuffer(device, &bd);
    WGPUBindGroupEntry entry = {.binding = 0, .buffer = buffer, .size = bd.size};
    WGPUBindGroupDescriptor gd = {.layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0), .entryCount = 1,
                                  .entries = &entry};
    WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &gd);
    wgpuBindGroupLayoutRelease((WGPUBindGroupLayout)gd.layout);

    for (long done = 0; done < dispatches;) {
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, NULL);
        for (int e = 0; e < PER_ENCODER && done < dispatches; e += PER_PASS) {
            WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
            wgpuComputePassEncoderSetPipeline(pass, pipeline);
            wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
            for (int p = 0; p < PER_PASS && done < dispatches; p++, done++) {
                wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
            }
            wgpuComputePassEncoderEnd(pass);
            wgpuComputePassEncoderRelease(pass);
        }
        WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, NULL);
        wgpuQueueSubmit(queue, 1, &cmd);
        wgpuCommandBufferRelease(cmd);
        wgpuCommandEncoderRelease(enc);
    }
    bool finished = false;
    wgpuQueueOnSubmittedWorkDone(queue, (WGPUQueueWorkDoneCallbackInfo){.mode = WGPUCallbackMode_AllowProcessEvents,
                                                                         .callback = on_done, .userdata1 = &finished});
    while (!finished) {
        wgpuDevicePoll(device, true, NULL);
        wgpuInstanceProcessEvents(instance);
    }
    wgpuBindGroupRelease(group);
    wgpuBufferRelease(buffer);
    wgpuComputePipelineRelease(pipeline);
    wgpuShaderModuleRelease(module);
    wgpuQueueRelease(queue);
    wgpuDeviceRelease(device);
    wgpuAdapterRelease(adapter);
    wgpuInstanceRelease(instance);
    printf("dispatches %ld\n", dispatches);
    return 0;
}
