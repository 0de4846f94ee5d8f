// Sums `values` in two dispatches of the same kernel: each workgroup of 256 threads reduces
// 256 elements in workgroup memory (a tree of halving steps) and writes one partial sum.
// The first pass turns 262144 values into 1024 partial sums, the second 1024 into 4.
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;

var<workgroup> scratch: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3u) {
    scratch[local] = select(0.0, values[id.x], id.x < arrayLength(&values));
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride = stride / 2u) {
        if (local < stride) {
            scratch[local] += scratch[local + stride];
        }
        workgroupBarrier();
    }
    if (local == 0u) {
        partial[group.x] = scratch[0];
    }
}
