/* The "busy" compute kernel's WGSL, shared by the GPU tests (tests/support.c) and bench_accuracy:
 * each of 64 * workgroups invocations runs x = x * MUL + ADD on its element of `data` (binding 0,
 * f32 storage) `params.loops` times (binding 1, a uniform), so that its work grows in proportion
 * to the loop count. MUL and ADD are WGSL float literals given as C string literals: the tests use
 * "0.5" and "1.0", whose results the CPU reproduces exactly (ts_busy_expected), and the benchmark
 * keeps the "0.999" and "0.5" its published figures were measured with. */
#ifndef WGPROF_BUSY_KERNEL_H
#define WGPROF_BUSY_KERNEL_H

#define BUSY_KERNEL_WGSL(MUL, ADD)                                                              \
    "struct Params { loops: u32 }\n"                                                            \
    "@group(0) @binding(0) var<storage, read_write> data: array<f32>;\n"                        \
    "@group(0) @binding(1) var<uniform> params: Params;\n"                                      \
    "@compute @workgroup_size(64)\n"                                                            \
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"                                     \
    "    var x = data[id.x];\n"                                                                 \
    "    for (var i = 0u; i < params.loops; i++) { x = x * " MUL " + " ADD "; }\n"              \
    "    data[id.x] = x;\n"                                                                     \
    "}\n"

#endif
