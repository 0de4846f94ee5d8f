// C = A * B for N x N row-major matrices: one thread per element of C, reading a row of A and a
// column of B straight from memory. The column walk of B strides N floats per step.
override N: u32 = 256u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) id: vec3u) {
    let row = id.y;
    let col = id.x;
    if (row >= N || col >= N) { return; }
    var sum = 0.0;
    for (var k = 0u; k < N; k++) {
        sum += a[row * N + k] * b[k * N + col];
    }
    c[row * N + col] = sum;
}
