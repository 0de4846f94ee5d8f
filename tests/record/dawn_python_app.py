"""A program on PyPI's dawn-python (pydawn): ctypes bindings that load their own Dawn by path,
a build of Dawn's callback-info transition. It knows nothing of wgprof. It makes its adapter and
device with wgpuInstanceRequestAdapterF and wgpuAdapterRequestDeviceF, one pipeline with
wgpuDeviceCreateComputePipelineAsync2 (pydawn's own helper) and one with
wgpuDeviceCreateComputePipeline, both unlabelled, then dispatches each STEPS times and prints a
checksum of what the kernels computed.

Usage: dawn_python_app.py [STEPS]
"""
import ctypes
import hashlib
import struct
import sys

from pydawn import utils, webgpu

SOURCE = """
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 3u + 1u; }
}

@compute @workgroup_size(32)
fn fold(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] ^ (data[id.x] >> 7u); }
}
"""

N = 4096


def sync_pipeline(device, layout, module, entry):
    """wgpuDeviceCreateComputePipeline, which pydawn's helpers do not use."""
    desc = webgpu.WGPUComputePipelineDescriptor()
    desc.layout = layout
    desc.compute.module = module
    desc.compute.entryPoint = utils.to_wgpu_str(entry)
    return webgpu.wgpuDeviceCreateComputePipeline(device, desc)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    adapter = utils.request_adapter_sync(webgpu.WGPUPowerPreference_HighPerformance)
    device = utils.request_device_sync(adapter, [])
    usage = webgpu.WGPUBufferUsage_Storage | webgpu.WGPUBufferUsage_CopyDst | webgpu.WGPUBufferUsage_CopySrc
    buf = utils.create_buffer(device, N * 4, usage)
    utils.write_buffer(device, buf, 0, struct.pack(f"{N}I", *range(N)))
    module = utils.create_shader_module(device, SOURCE)
    storage = {"type": webgpu.WGPUBufferBindingType_Storage}
    bgl = utils.create_bind_group_layout(
        device, [{"binding": 0, "visibility": webgpu.WGPUShaderStage_Compute, "buffer": storage}])
    layout = utils.create_pipeline_layout(device, [bgl])
    scale = utils.create_compute_pipeline(device, layout, {"module": module, "entry_point": "scale"})
    fold = sync_pipeline(device, layout, module, "fold")
    group = utils.create_bind_group(
        device, bgl, [{"binding": 0, "resource": {"buffer": buf, "offset": 0, "size": N * 4}}])
    for _ in range(steps):
        encoder = utils.create_command_encoder(device)
        compute = utils.begin_compute_pass(encoder)
        utils.set_bind_group(compute, group)
        utils.set_pipeline(compute, scale)
        utils.dispatch_workgroups(compute, N // 64, 1, 1)
        utils.set_pipeline(compute, fold)
        utils.dispatch_workgroups(compute, N // 32, 1, 1)
        utils.end_compute_pass(compute)
        commands = utils.command_encoder_finish(encoder)
        utils.submit(device, [commands])
    # What was submitted, for tests/record/check_record.py ('*': the part of an unlabelled
    # pipeline's name the profiler chooses).
    print(f"manifest *:scale {steps}")
    print(f"workgroups *:scale {N // 64} 1 1 {steps}")
    print(f"manifest *:fold {steps}")
    print(f"workgroups *:fold {N // 32} 1 1 {steps}")
    data = bytes(utils.read_buffer(device, buf))
    print("checksum", hashlib.sha256(data).hexdigest(), struct.unpack_from("4I", data))
    features = utils.supported_features(adapter)
    print("adapter has timestamps:", "WGPUFeatureName_TimestampQuery" in features)
    device_features = webgpu.WGPUSupportedFeatures()
    webgpu.wgpuDeviceGetFeatures(device, device_features)
    names = [webgpu.WGPUFeatureName__enumvalues.get(device_features.features[i], "?")
             for i in range(device_features.featureCount)]
    print("device features:", sorted(names))
    print("device has timestamps:",
          bool(webgpu.wgpuDeviceHasFeature(device, webgpu.WGPUFeatureName_TimestampQuery)))
    webgpu.wgpuSupportedFeaturesFreeMembers(device_features)


if __name__ == "__main__":
    main()
