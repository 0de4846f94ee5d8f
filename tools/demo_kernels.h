/*
 * WGSL kernels of the demo's transformer decode step, one compute entry point ("main") each.
 *
 * Shapes reach the kernels two ways: the length of a bound array (arrayLength) where that is
 * the quantity, and pipeline-overridable constants for the rest. Every kernel declares the same
 * overrides (see DEMO_OVERRIDE_NAMES), so one list of constant values serves every pipeline.
 * The decode position and token live in a 16-byte uniform ("Step") so that one graph serves
 * any position.
 */
#ifndef WGPROF_DEMO_KERNELS_H
#define WGPROF_DEMO_KERNELS_H

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
