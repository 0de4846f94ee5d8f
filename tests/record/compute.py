"""A wgpu-py compute script as people write them, for the tests of `wgprof record`: it knows
nothing of wgprof. Labelled and unlabelled pipelines, several dispatches per pass, several passes
per encoder, several submits; the results are read back and checked on the CPU.

It prints its result and, per kernel, what it submitted (see tests/record/record_app.c):
  manifest KERNEL COUNT
  workgroups KERNEL X Y Z COUNT
KERNEL is the name a profiler must give: `label:entry`, or `module:entry` for a pipeline
without a label. Exit status 0 where the results are right, 1 where not.
"""
import array
import collections
import sys

import wgpu

N = 1 << 16
WG = 64

SHADER = """
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
fn flat(id: vec3u, n: vec3u) -> u32 { return id.x + id.y * n.x * 64u; }
@compute @workgroup_size(64) fn fill(@builtin(global_invocation_id) id: vec3u,
                                     @builtin(num_workgroups) n: vec3u) {
    let i = flat(id, n); if (i < arrayLength(&v)) { v[i] = f32(i % 5u); }
}
@compute @workgroup_size(64) fn scale(@builtin(global_invocation_id) id: vec3u,
                                      @builtin(num_workgroups) n: vec3u) {
    let i = flat(id, n); if (i < arrayLength(&v)) { v[i] = v[i] * 3.0; }
}
@compute @workgroup_size(64) fn offset(@builtin(global_invocation_id) id: vec3u,
                                       @builtin(num_workgroups) n: vec3u) {
    let i = flat(id, n); if (i < arrayLength(&v)) { v[i] = v[i] - 2.0; }
}
"""

# What each entry point does to v[i], on the CPU.
OPS = {
    "fill": lambda i, x: float(i % 5),
    "scale": lambda i, x: x * 3.0,
    "offset": lambda i, x: x - 2.0,
}


class Program:
    def __init__(self):
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        self.device = adapter.request_device_sync()
        self.module = self.device.create_shader_module(label="pymod", code=SHADER)
        bgl = self.device.create_bind_group_layout(entries=[{
            "binding": 0, "visibility": wgpu.ShaderStage.COMPUTE,
            "buffer": {"type": wgpu.BufferBindingType.storage}}])
        self.layout = self.device.create_pipeline_layout(bind_group_layouts=[bgl])
        self.data = self.device.create_buffer(
            size=N * 4, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST)
        self.group = self.device.create_bind_group(layout=bgl, entries=[
            {"binding": 0, "resource": {"buffer": self.data, "offset": 0, "size": N * 4}}])
        self.expected = [0.0] * N
        self.counts = collections.Counter()
        self.shapes = collections.Counter()

    def kernel(self, label, entry):
        pipeline = self.device.create_compute_pipeline(
            label=label, layout=self.layout, compute={"module": self.module, "entry_point": entry})
        return pipeline, (label or "pymod") + ":" + entry, entry

    def submit(self, encoders):
        """encoders: (command encoder, [(kernel, workgroups)]) in submit order."""
        self.device.queue.submit([encoder.finish() for encoder, _ in encoders])
        for _, done in encoders:
            for (_, name, entry), wg in done:
                covered = min(N, wg[0] * WG * wg[1])
                op = OPS[entry]
                for i in range(covered):
                    self.expected[i] = op(i, self.expected[i])
                self.counts[name] += 1
                self.shapes[(name, wg)] += 1

    def encode(self, passes):
        """passes: (label, [(kernel, workgroups)]); returns the encoder and what it holds."""
        encoder = self.device.create_command_encoder()
        done = []
        for label, dispatches in passes:
            compute = encoder.begin_compute_pass(label=label) if label else encoder.begin_compute_pass()
            compute.set_bind_group(0, self.group)
            for k, wg in dispatches:
                compute.set_pipeline(k[0])
                compute.dispatch_workgroups(*wg)
                done.append((k, wg))
            compute.end()
        return encoder, done


def main():
    p = Program()
    fill = p.kernel("filler", "fill")
    scale = p.kernel("scaler", "scale")
    offset = p.kernel("", "offset")  # no label: named by its module
    all_x = (N // WG, 1, 1)
    grid = (N // WG // 4, 4, 1)
    half = (N // WG // 2, 1, 1)

    first = p.encode([("setup", [(fill, all_x)]),
                      ("steps", [(scale, all_x), (offset, grid), (scale, half)])])
    second = p.encode([(None, [(offset, all_x), (offset, all_x)])])
    p.submit([first, second])
    for step in range(4):
        p.submit([p.encode([("step", [(scale, grid), (offset, all_x)]), (None, [(fill, half)])])])

    out = array.array("f")
    out.frombytes(p.device.queue.read_buffer(p.data))
    wrong = sum(1 for got, want in zip(out, p.expected) if got != want)
    print(f"result: {'ok' if wrong == 0 else 'WRONG'} ({wrong} of {N} wrong), sum {sum(out):.1f}")
    for name, count in p.counts.items():
        print(f"manifest {name} {count}")
    for (name, wg), count in p.shapes.items():
        print(f"workgroups {name} {wg[0]} {wg[1]} {wg[2]} {count}")
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
