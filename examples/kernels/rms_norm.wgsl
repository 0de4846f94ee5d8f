// RMS norm over the rows of a matrix, as an LLM's layers use it:
//   dst[r, i] = src[r, i] / sqrt(mean_i(src[r, i]^2) + eps), times weight[i] when MUL_WEIGHT.
// One workgroup per row. Where the rows lie (offsets and strides, in elements) and how long they
// are come from a uniform block of parameters, so that one pipeline serves every tensor view;
// the workgroup size is an override, set by the spec's constants.

struct Params {
    offset_src: u32, // elements before the first row of src
    offset_dst: u32,
    stride_src: u32, // elements from one row of src to the next
    stride_dst: u32,
    ne00: u32,       // elements per row
    nrows: u32,
    eps: f32,
}

override WG_SIZE: u32 = 64u;
override MUL_WEIGHT: bool = false;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> partial: array<f32, WG_SIZE>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) local: u32) {
    let row = group.x;
    if (row >= params.nrows) {
        return; // the same for the whole workgroup, so the barriers below stay uniform
    }
    let src_row = params.offset_src + row * params.stride_src;
    var sum = 0.0;
    for (var i = local; i < params.ne00; i += WG_SIZE) {
        let x = src[src_row + i];
        sum += x * x;
    }
    partial[local] = sum;
    workgroupBarrier();
    // Halving steps that also fold an odd element in, so that WG_SIZE need not be a power of two.
    var n = WG_SIZE;
    while (n > 1u) {
        let half = (n + 1u) / 2u;
        if (local + half < n) {
            partial[local] += partial[local + half];
        }
        workgroupBarrier();
        n = half;
    }
    let scale = inverseSqrt(partial[0] / f32(params.ne00) + params.eps);
    let dst_row = params.offset_dst + row * params.stride_dst;
    for (var i = local; i < params.ne00; i += WG_SIZE) {
        var y = src[src_row + i] * scale;
        if (MUL_WEIGHT) {
            y *= weight[i];
        }
        dst[dst_row + i] = y;
    }
}
