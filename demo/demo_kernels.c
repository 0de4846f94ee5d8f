/*
 * The demo's WGSL kernels. Each is one string built at compile time from a shared prelude (the
 * Step uniform's type, the overrides, the workgroup sizes), an optional workgroup reduction, and
 * the kernel's own body. The C side uses the same workgroup-size macros, so the sizes recorded
 * in the graph are the ones the shaders declare.
 *
 * Summation order matters for the CPU check: every dot product runs sequentially over its
 * index, as the CPU reference does; only the one-workgroup reductions (rmsnorm, softmax) sum in
 * a different order.
 */
#include "demo.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define PRELUDE                                                                               \
    "struct Step { pos: u32, token: u32, unused0: u32, unused1: u32 }\n"                      \
    "override head_dim: u32;\n"                                                               \
    "override half_head_dim: u32;\n"                                                          \
    "override max_seq: u32;\n"                                                                \
    "override score_scale: f32;\n"                                                            \
    "override rms_eps: f32;\n"                                                                \
    "const WG: u32 = " STR(DEMO_WORKGROUP_SIZE) "u;\n"                                        \
    "const NORM_WG: u32 = " STR(DEMO_NORM_WORKGROUP_SIZE) "u;\n"                              \
    "const FUSED_MAX_SEQ: u32 = " STR(DEMO_FUSED_MAX_SEQ) "u;\n"

/* A tree reduction over `partial` (one slot per thread) that every thread of the workgroup must
 * call together. It ends with a barrier so that the next reduction may reuse `partial`, and its
 * barriers also publish the caller's earlier workgroup-memory writes. */
#define REDUCTION(name, combine, size)                                                        \
    "fn " name "(lid: u32, value: f32) -> f32 {\n"                                            \
    "    partial[lid] = value;\n"                                                             \
    "    workgroupBarrier();\n"                                                               \
    "    for (var stride = " size " / 2u; stride > 0u; stride = stride / 2u) {\n"             \
    "        if (lid < stride) {\n"                                                           \
    "            partial[lid] = " combine "(partial[lid], partial[lid + stride]);\n"          \
    "        }\n"                                                                             \
    "        workgroupBarrier();\n"                                                           \
    "    }\n"                                                                                 \
    "    let result = partial[0];\n"                                                          \
    "    workgroupBarrier();\n"                                                               \
    "    return result;\n"                                                                    \
    "}\n"

#define REDUCTIONS(size)                                                                      \
    "var<workgroup> partial: array<f32, " size ">;\n"                                         \
    "fn add(a: f32, b: f32) -> f32 { return a + b; }\n"                                       \
    REDUCTION("workgroup_sum", "add", size)                                                   \
    REDUCTION("workgroup_max", "max", size)

/* The lowest finite f32: the identity of max over finite scores. In hexadecimal: the decimal
 * -3.40282347e38 lies a hair beyond the f32 range as a real number, and Tint (Dawn) refuses it. */
#define LOWEST_F32 "-0x1.fffffep+127f"

const char *const demo_wgsl_embedding =
    PRELUDE
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read> table: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> x: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    let dim = arrayLength(&x);\n"
    "    if (id.x < dim) {\n"
    "        x[id.x] = table[decode.token * dim + id.x];\n"
    "    }\n"
    "}\n";

const char *const demo_wgsl_rmsnorm =
    PRELUDE
    REDUCTIONS("NORM_WG")
    "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> weight: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> out: array<f32>;\n"
    "@compute @workgroup_size(NORM_WG) fn main(@builtin(local_invocation_index) lid: u32) {\n"
    "    let n = arrayLength(&x);\n"
    "    var sum_sq = 0.0;\n"
    "    for (var i = lid; i < n; i += NORM_WG) {\n"
    "        sum_sq += x[i] * x[i];\n"
    "    }\n"
    "    let inv_rms = 1.0 / sqrt(workgroup_sum(lid, sum_sq) / f32(n) + rms_eps);\n"
    "    for (var i = lid; i < n; i += NORM_WG) {\n"
    "        out[i] = x[i] * inv_rms * weight[i];\n"
    "    }\n"
    "}\n";

#define MATVEC_BINDINGS                                                                       \
    "@group(0) @binding(0) var<storage, read> w: array<f32>;\n"                               \
    "@group(0) @binding(1) var<storage, read> x: array<f32>;\n"                               \
    "@group(0) @binding(2) var<storage, read_write> y: array<f32>;\n"                         \
    "fn row_dot(row: u32) -> f32 {\n"                                                         \
    "    let cols = arrayLength(&x);\n"                                                       \
    "    let base = row * cols;\n"                                                            \
    "    var acc = 0.0;\n"                                                                    \
    "    for (var c = 0u; c < cols; c++) {\n"                                                 \
    "        acc += w[base + c] * x[c];\n"                                                    \
    "    }\n"                                                                                 \
    "    return acc;\n"                                                                       \
    "}\n"

const char *const demo_wgsl_matvec =
    PRELUDE
    MATVEC_BINDINGS
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    if (id.x < arrayLength(&y)) {\n"
    "        y[id.x] = row_dot(id.x);\n"
    "    }\n"
    "}\n";

/* The residual add fused into the projection: each thread owns one element of y. */
const char *const demo_wgsl_matvec_residual =
    PRELUDE
    MATVEC_BINDINGS
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    if (id.x < arrayLength(&y)) {\n"
    "        y[id.x] = y[id.x] + row_dot(id.x);\n"
    "    }\n"
    "}\n";

/* One thread per rotated pair; pair p of the whole vector is elements 2p, 2p+1, and pair
 * p % half_head_dim of its head. The (cos, sin) table is precomputed on the CPU per position, so
 * both sides rotate by bit-identical factors. */
const char *const demo_wgsl_rope =
    PRELUDE
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read> cos_sin: array<vec2f>;\n"
    "@group(0) @binding(2) var<storage, read_write> q: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read_write> k: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    let p = id.x;\n"
    "    if (2u * p >= arrayLength(&q)) {\n"
    "        return;\n"
    "    }\n"
    "    let cs = cos_sin[decode.pos * half_head_dim + p % half_head_dim];\n"
    "    let q0 = q[2u * p];\n"
    "    let q1 = q[2u * p + 1u];\n"
    "    q[2u * p] = q0 * cs.x - q1 * cs.y;\n"
    "    q[2u * p + 1u] = q0 * cs.y + q1 * cs.x;\n"
    "    let k0 = k[2u * p];\n"
    "    let k1 = k[2u * p + 1u];\n"
    "    k[2u * p] = k0 * cs.x - k1 * cs.y;\n"
    "    k[2u * p + 1u] = k0 * cs.y + k1 * cs.x;\n"
    "}\n";

const char *const demo_wgsl_kv_cache_update =
    PRELUDE
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read> k: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> v: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read_write> k_cache: array<f32>;\n"
    "@group(0) @binding(4) var<storage, read_write> v_cache: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    let dim = arrayLength(&k);\n"
    "    if (id.x < dim) {\n"
    "        k_cache[decode.pos * dim + id.x] = k[id.x];\n"
    "        v_cache[decode.pos * dim + id.x] = v[id.x];\n"
    "    }\n"
    "}\n";

/* Thread (t, h) scores position t of head h; positions after decode.pos are not written. */
const char *const demo_wgsl_attn_scores =
    PRELUDE
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read> q: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> k_cache: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read_write> scores: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    let t = id.x;\n"
    "    let head = id.y * head_dim;\n"
    "    if (t > decode.pos) {\n"
    "        return;\n"
    "    }\n"
    "    let key = t * arrayLength(&q) + head;\n"
    "    var acc = 0.0;\n"
    "    for (var d = 0u; d < head_dim; d++) {\n"
    "        acc += q[head + d] * k_cache[key + d];\n"
    "    }\n"
    "    scores[id.y * max_seq + t] = acc * score_scale;\n"
    "}\n";

/* One workgroup per head, in place: exp(s - max) then multiplied by 1 / sum. */
const char *const demo_wgsl_attn_softmax =
    PRELUDE
    REDUCTIONS("WG")
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read_write> scores: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(local_invocation_index) lid: u32,\n"
    "                                     @builtin(workgroup_id) wid: vec3u) {\n"
    "    let row = wid.x * max_seq;\n"
    "    let n = decode.pos + 1u;\n"
    "    var local_max = " LOWEST_F32 ";\n"
    "    for (var t = lid; t < n; t += WG) {\n"
    "        local_max = max(local_max, scores[row + t]);\n"
    "    }\n"
    "    let row_max = workgroup_max(lid, local_max);\n"
    "    var local_sum = 0.0;\n"
    "    for (var t = lid; t < n; t += WG) {\n"
    "        let e = exp(scores[row + t] - row_max);\n"
    "        scores[row + t] = e;\n"
    "        local_sum += e;\n"
    "    }\n"
    "    let inv_sum = 1.0 / workgroup_sum(lid, local_sum);\n"
    "    for (var t = lid; t < n; t += WG) {\n"
    "        scores[row + t] = scores[row + t] * inv_sum;\n"
    "    }\n"
    "}\n";

const char *const demo_wgsl_attn_weighted_sum =
    PRELUDE
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read> probs: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> v_cache: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read_write> out: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    let i = id.x;\n"
    "    let dim = arrayLength(&out);\n"
    "    if (i >= dim) {\n"
    "        return;\n"
    "    }\n"
    "    let row = (i / head_dim) * max_seq;\n"
    "    var acc = 0.0;\n"
    "    for (var t = 0u; t <= decode.pos; t++) {\n"
    "        acc += probs[row + t] * v_cache[t * dim + i];\n"
    "    }\n"
    "    out[i] = acc;\n"
    "}\n";

/* One workgroup per head: the scores stay in workgroup memory, and each step does the same
 * arithmetic in the same order as the three separate kernels. */
const char *const demo_wgsl_sdpa_kv_cache =
    PRELUDE
    REDUCTIONS("WG")
    "@group(0) @binding(0) var<uniform> decode: Step;\n"
    "@group(0) @binding(1) var<storage, read> q: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> k_cache: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read> v_cache: array<f32>;\n"
    "@group(0) @binding(4) var<storage, read_write> out: array<f32>;\n"
    "var<workgroup> probs: array<f32, FUSED_MAX_SEQ>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(local_invocation_index) lid: u32,\n"
    "                                     @builtin(workgroup_id) wid: vec3u) {\n"
    "    let dim = arrayLength(&q);\n"
    "    let head = wid.x * head_dim;\n"
    "    let n = decode.pos + 1u;\n"
    "    var local_max = " LOWEST_F32 ";\n"
    "    for (var t = lid; t < n; t += WG) {\n"
    "        var acc = 0.0;\n"
    "        for (var d = 0u; d < head_dim; d++) {\n"
    "            acc += q[head + d] * k_cache[t * dim + head + d];\n"
    "        }\n"
    "        probs[t] = acc * score_scale;\n"
    "        local_max = max(local_max, probs[t]);\n"
    "    }\n"
    "    let row_max = workgroup_max(lid, local_max);\n"
    "    var local_sum = 0.0;\n"
    "    for (var t = lid; t < n; t += WG) {\n"
    "        let e = exp(probs[t] - row_max);\n"
    "        probs[t] = e;\n"
    "        local_sum += e;\n"
    "    }\n"
    "    let inv_sum = 1.0 / workgroup_sum(lid, local_sum);\n"
    "    for (var d = lid; d < head_dim; d += WG) {\n"
    "        var acc = 0.0;\n"
    "        for (var t = 0u; t < n; t++) {\n"
    "            acc += (probs[t] * inv_sum) * v_cache[t * dim + head + d];\n"
    "        }\n"
    "        out[head + d] = acc;\n"
    "    }\n"
    "}\n";

const char *const demo_wgsl_silu_mul =
    PRELUDE
    "@group(0) @binding(0) var<storage, read> gate: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> up: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> out: array<f32>;\n"
    "@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    if (id.x < arrayLength(&out)) {\n"
    "        let g = gate[id.x];\n"
    "        out[id.x] = g / (1.0 + exp(-g)) * up[id.x];\n"
    "    }\n"
    "}\n";
