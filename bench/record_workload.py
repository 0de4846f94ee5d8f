"""A wgpu-py compute workload that knows nothing of wgprof, for measuring what `wgprof record`
costs a Python program (BENCHMARKS.md section 11): each step encodes the same chain of
elementwise and reduction kernels over a 4M-element buffer, one compute pass per kernel,
submits them in one command buffer and waits for them by reading 4 bytes back. It prints its own wall time over
the measured steps:

  steps: N in T ms, U us a step (wall clock)

usage: python3 record_workload.py [--warmup N] [--steps N] [--size N]
"""
import argparse
import sys
import time

import wgpu

SHADER = """
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
var<workgroup> tile: array<f32, 256>;

@compute @workgroup_size(256) fn init(@builtin(global_invocation_id) id: vec3u) {
    let i = id.x; if (i < arrayLength(&a)) { a[i] = f32(i % 7u) * 0.25; b[i] = 1.0; }
}
@compute @workgroup_size(256) fn axpy(@builtin(global_invocation_id) id: vec3u) {
    let i = id.x; if (i < arrayLength(&a)) { b[i] = 0.5 * a[i] + b[i]; }
}
@compute @workgroup_size(256) fn gelu(@builtin(global_invocation_id) id: vec3u) {
    let i = id.x;
    if (i < arrayLength(&a)) { let x = b[i]; a[i] = 0.5 * x * (1.0 + tanh(0.79788456 * (x + 0.044715 * x * x * x))); }
}
@compute @workgroup_size(256) fn scale(@builtin(global_invocation_id) id: vec3u) {
    let i = id.x; if (i < arrayLength(&a)) { b[i] = a[i] * 0.999; }
}
@compute @workgroup_size(256) fn reduce(@builtin(global_invocation_id) id: vec3u,
                                        @builtin(local_invocation_id) lid: vec3u,
                                        @builtin(workgroup_id) wid: vec3u) {
    let i = id.x;
    tile[lid.x] = select(0.0, b[i], i < arrayLength(&b));
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid.x < s) { tile[lid.x] = tile[lid.x] + tile[lid.x + s]; }
        workgroupBarrier();
    }
    if (lid.x == 0u) { partial[wid.x] = tile[0]; }
}
"""

STEP = ["axpy", "gelu", "scale", "reduce", "axpy", "gelu", "scale", "reduce"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--size", type=int, default=1 << 22)
    args = parser.parse_args()
    n = args.size
    groups = (n + 255) // 256

    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    device = adapter.request_device_sync()
    module = device.create_shader_module(label="workload", code=SHADER)
    storage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    a = device.create_buffer(size=n * 4, usage=storage)
    b = device.create_buffer(size=n * 4, usage=storage)
    partial = device.create_buffer(size=groups * 4, usage=storage)
    entries = [{"binding": i, "visibility": wgpu.ShaderStage.COMPUTE,
                "buffer": {"type": wgpu.BufferBindingType.storage}} for i in range(3)]
    bgl = device.create_bind_group_layout(entries=entries)
    layout = device.create_pipeline_layout(bind_group_layouts=[bgl])
    group = device.create_bind_group(layout=bgl, entries=[
        {"binding": i, "resource": {"buffer": buf, "offset": 0, "size": buf.size}}
        for i, buf in enumerate((a, b, partial))])
    pipelines = {name: device.create_compute_pipeline(
        label=name, layout=layout, compute={"module": module, "entry_point": name})
        for name in ["init"] + sorted(set(STEP))}

    def step(names):
        encoder = device.create_command_encoder()
        for name in names:
            compute = encoder.begin_compute_pass(label=name)
            compute.set_pipeline(pipelines[name])
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(groups)
            compute.end()
        device.queue.submit([encoder.finish()])
        # Waits for the step by reading 4 bytes back (wgpu 0.32's on_submitted_work_done
        # fails against wgpu-native 29's callback type).
        device.queue.read_buffer(partial, 0, 4)

    step(["init"])
    for _ in range(args.warmup):
        step(STEP)
    start = time.perf_counter()
    for _ in range(args.steps):
        step(STEP)
    took = time.perf_counter() - start
    print(f"steps: {args.steps} in {took * 1e3:.3f} ms, {took * 1e6 / args.steps:.1f} us a step (wall clock)")
    total = sum(memoryview(device.queue.read_buffer(partial)).cast("f"))
    print(f"result: sum of partials {total:.6g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
