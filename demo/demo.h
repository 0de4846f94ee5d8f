/*
 * The demo's model: a llama-style decoder (rmsnorm, multi-head attention with rotary embedding
 * and a KV cache, SiLU-gated MLP) with deterministic random weights, its GPU mirror as a wgprof
 * graph of one dispatch per kernel, and a plain-C float32 reference of the same decode step.
 *
 * The KV cache positions before `pos` are seeded values (the same on both sides); the decode
 * step writes position `pos` itself. The token decoded is demo_token().
 */
#ifndef WGPROF_DEMO_MODEL_H
#define WGPROF_DEMO_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wgprof/device_util.h>
#include <wgprof/wgprof.h>

typedef struct demo_config {
    uint32_t layers;
    uint32_t dim;     /* model width; n_heads * head_dim */
    uint32_t heads;
    uint32_t ffn;     /* hidden width of the MLP */
    uint32_t vocab;
    uint32_t max_seq; /* KV cache positions */
    uint32_t pos;     /* the position decoded, < max_seq */
    bool fused_sdpa;  /* one sdpa_kv_cache kernel instead of scores, softmax, weighted sum */
    wgprof_shader_checks shader_checks; /* the kernels' runtime checks (0: the implementation's) */
} demo_config;

typedef struct demo_model demo_model;

/* The token id the step decodes at cfg->pos. */
uint32_t demo_token(const demo_config *cfg);

/* Host memory the model's weights and KV cache take, in bytes. */
uint64_t demo_host_bytes(const demo_config *cfg);

/* Whether every buffer and dispatch of the model fits the device's limits; when not, writes
 * the first one that does not into `why`. */
bool demo_fits_device(const demo_config *cfg, const WGPULimits *limits, char *why, size_t why_cap);

/* Allocates the host weights (deterministic for a config) and the KV cache prefix.
 * WGPROF_ERR_OUT_OF_MEMORY when the host cannot hold them. */
wgprof_status demo_model_create(const demo_config *cfg, demo_model **out);

/* Releases the GPU objects (after the graph that uses them is destroyed) and the host memory. */
void demo_model_destroy(demo_model *model);

/* Creates the GPU buffers, uploads the weights and cache, and appends the decode step to
 * `graph`, one node per kernel, in scopes: "embedding", "layer N" (holding "attention" and
 * "mlp") and "head". Validation errors of the WebGPU implementation (a shader that
 * does not compile, a limit exceeded) are reported on stderr and return WGPROF_ERR_WEBGPU. */
wgprof_status demo_model_build(demo_model *model, wgprof_device *dev, wgprof_graph *graph);

/* Writes the decode position and token into the step uniform, read by the next execute. */
void demo_model_set_step(demo_model *model, wgprof_device *dev);

/* Copies the GPU logits (cfg->vocab floats) into `out`. */
wgprof_status demo_model_read_logits(demo_model *model, wgprof_device *dev, float *out);

/* The CPU reference: the same decode step in plain C, logits into `out` (cfg->vocab floats).
 * WGPROF_ERR_OUT_OF_MEMORY when the scratch vectors cannot be allocated. */
wgprof_status demo_reference_decode(demo_model *model, float *out);

/* ---- demo_kernels.c ---- */

/*
 * WGSL kernels of the demo's transformer decode step, one compute entry point ("main") each.
 *
 * Shapes reach the kernels two ways: the length of a bound array (arrayLength) where that is
 * the quantity, and pipeline-overridable constants for the rest. Every kernel declares the same
 * overrides (see DEMO_OVERRIDE_NAMES), so one list of constant values serves every pipeline.
 * The decode position and token live in a 16-byte uniform ("Step") so that one graph serves
 * any position.
 */

/* Threads per workgroup of the one-thread-per-element kernels and of the one-workgroup-per-head
 * attention reductions. Both reductions below need powers of two. */
#define DEMO_WORKGROUP_SIZE 64
/* Threads of rmsnorm, a single workgroup reducing the whole vector. */
#define DEMO_NORM_WORKGROUP_SIZE 256
/* The most positions sdpa_kv_cache holds in workgroup memory (8 KiB of scores). */
#define DEMO_FUSED_MAX_SEQ 2048

/* The overrides every kernel declares, in the order demo_model passes their values. */
#define DEMO_OVERRIDE_NAMES {"head_dim", "half_head_dim", "max_seq", "score_scale", "rms_eps"}
#define DEMO_OVERRIDE_COUNT 5

extern const char *const demo_wgsl_embedding;         /* x = table[token] */
extern const char *const demo_wgsl_rmsnorm;           /* out = x / rms(x) * weight */
extern const char *const demo_wgsl_matvec;            /* y = W x, W row-major [rows][cols] */
extern const char *const demo_wgsl_matvec_residual;   /* y += W x */
extern const char *const demo_wgsl_rope;              /* rotates pairs of q and k in place */
extern const char *const demo_wgsl_kv_cache_update;   /* cache[pos] = k, v */
extern const char *const demo_wgsl_attn_scores;       /* scores[h][t] = q_h . k_t_h * scale */
extern const char *const demo_wgsl_attn_softmax;      /* softmax of scores[h][0..pos] */
extern const char *const demo_wgsl_attn_weighted_sum; /* out_h = sum_t p[h][t] v_t_h */
extern const char *const demo_wgsl_sdpa_kv_cache;     /* the three above in one kernel */
extern const char *const demo_wgsl_silu_mul;          /* out = silu(gate) * up */

#endif
