"""Five small compute programs of the kinds wgpu-py's own examples are (a no-op copy, a matrix
multiply, workgroup ids, pass timestamps, 64-bit integers), written as people write them: no
label on any shader module or pipeline, every entry point `main`. For the tests of the names
`wgprof record` gives kernels nobody named; it knows nothing of wgprof.

Usage: examples.py NAME        one program: noop, matmul, workgroups, timestamps or int64
       examples.py all [reversed]
                               all five on one device, their pipelines created in this order or
                               the reverse; the i-th kernel in the order above is dispatched i+1
                               times, whatever the order of creation, so a report's counts tell
                               which kernel each name is.
Prints "result: ok" and exits 0 where every result is right; "skipped: WHY" and exits 77 where the
adapter lacks a feature a program needs.
"""
import array
import struct
import sys

import wgpu

NOOP = """
@group(0) @binding(0) var<storage, read> src: array<i32>;
@group(0) @binding(1) var<storage, read_write> dst: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x];
}
"""

MATMUL = """
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    // c = a * a for a 4x4 a, one element per invocation: x the column, y the row
    var acc = 0.0;
    for (var i = 0u; i < 4u; i++) {
        acc += a[id.y * 4u + i] * a[i * 4u + id.x];
    }
    c[id.y * 4u + id.x] = acc;
}
"""

WORKGROUPS = """
@group(0) @binding(0) var<storage, read> base: array<u32>;
@group(0) @binding(1) var<storage, read_write> ids: array<u32>;
@compute @workgroup_size(2, 2)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(num_workgroups) n: vec3<u32>) {
    let w = wg.y * n.x + wg.x;
    ids[w * 4u + li] = base[0] + w;
}
"""

TIMESTAMPS = """
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    y[id.x] = x[id.x] + x[id.x];
}
"""

INT64 = """
@group(0) @binding(0) var<storage, read> x: array<i64>;
@group(0) @binding(1) var<storage, read_write> y: array<i64>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    y[id.x] = x[id.x] * 3 - 1;
}
"""


def ints(values, code="i"):
    return array.array(code, values).tobytes()


# name: (shader, input bytes, output size, workgroups, unpack, expected(input values), features)
def programs():
    a = [float(i % 5) for i in range(16)]
    mat = [sum(a[r * 4 + i] * a[i * 4 + c] for i in range(4)) for r in range(4) for c in range(4)]
    big = [1 << 40, -(1 << 33), 7]
    return {
        "noop": (NOOP, ints(range(64)), 64 * 4, (64, 1, 1), "i", list(range(64)), []),
        "matmul": (MATMUL, array.array("f", a).tobytes(), 16 * 4, (4, 4, 1), "f", mat, []),
        "workgroups": (WORKGROUPS, ints([100], "I"), 24 * 4, (3, 2, 1), "I", [100 + w for w in range(6) for _ in range(4)], []),
        "timestamps": (TIMESTAMPS, ints(range(32)), 32 * 4, (2, 1, 1), "i", [2 * i for i in range(32)],
                       ["timestamp-query"]),
        "int64": (INT64, ints(big, "q"), 3 * 8, (3, 1, 1), "q", [v * 3 - 1 for v in big], ["shader-int64"]),
    }


ORDER = ["noop", "matmul", "workgroups", "timestamps", "int64"]


def main(argv):
    if not argv or (argv[0] not in ORDER and argv[0] != "all") or (len(argv) > 1 and argv[1:] != ["reversed"]):
        print(__doc__, file=sys.stderr)
        return 2
    names = ORDER if argv[0] == "all" else [argv[0]]
    every = programs()
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    wanted = sorted({f for n in names for f in every[n][6]})
    missing = [f for f in wanted if f not in adapter.features]
    if missing:
        print(f"skipped: the adapter lacks {', '.join(missing)}")
        return 77
    device = adapter.request_device_sync(required_features=wanted)

    made = {}
    for name in reversed(names) if argv[1:] == ["reversed"] else names:
        shader, data, size, wg, code, want, _ = every[name]
        pipeline = device.create_compute_pipeline(
            layout="auto", compute={"module": device.create_shader_module(code=shader), "entry_point": "main"})
        src = device.create_buffer_with_data(data=data, usage=wgpu.BufferUsage.STORAGE)
        dst = device.create_buffer(size=size, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
        group = device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": src}}, {"binding": 1, "resource": {"buffer": dst}}])
        made[name] = (pipeline, group, dst)

    wrong = []
    for i, name in enumerate(names):
        pipeline, group, dst = made[name]
        _, _, size, wg, code, want, features = every[name]
        encoder = device.create_command_encoder()
        writes = None
        if "timestamp-query" in features:
            queries = device.create_query_set(type=wgpu.QueryType.timestamp, count=2)
            writes = {"query_set": queries, "beginning_of_pass_write_index": 0, "end_of_pass_write_index": 1}
        compute = encoder.begin_compute_pass(timestamp_writes=writes)
        compute.set_pipeline(pipeline)
        compute.set_bind_group(0, group)
        for _ in range(i + 1 if argv[0] == "all" else 1):
            compute.dispatch_workgroups(*wg)
        compute.end()
        if writes:
            stamps = device.create_buffer(size=16, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
            encoder.resolve_query_set(writes["query_set"], 0, 2, stamps, 0)
        device.queue.submit([encoder.finish()])
        got = list(device.queue.read_buffer(dst).cast(code))
        if got != want:
            wrong.append(f"{name}: {got[:8]}... want {want[:8]}...")
        if writes:
            begin, end = struct.unpack("<QQ", device.queue.read_buffer(stamps))
            if end < begin:
                wrong.append(f"{name}: its pass ended at {end} before it began at {begin}")
    print("result: ok" if not wrong else "result: WRONG " + "; ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
