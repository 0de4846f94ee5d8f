// C = A * B for N x N row-major matrices, in 16 x 16 tiles: each workgroup loads one tile of A
// and one of B into workgroup memory, then every thread reuses them 16 times. N must be a
// multiple of 16.
override N: u32 = 256u;
const TILE: u32 = 16u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> tile_a: array<f32, 256>;
var<workgroup> tile_b: array<f32, 256>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(local_invocation_id) local: vec3u) {
    let row = id.y;
    let col = id.x;
    var sum = 0.0;
    for (var t = 0u; t < N / TILE; t++) {
        tile_a[local.y * TILE + local.x] = a[row * N + t * TILE + local.x];
        tile_b[local.y * TILE + local.x] = b[(t * TILE + local.y) * N + col];
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            sum += tile_a[local.y * TILE + k] * tile_b[k * TILE + local.x];
        }
        workgroupBarrier();
    }
    c[row * N + col] = sum;
}
