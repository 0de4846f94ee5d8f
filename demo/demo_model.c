/*
 * The demo's model: shapes, deterministic weights, the GPU buffers and graph, and the CPU
 * reference. See demo_model.h.
 *
 * Every tensor has a slot: the model-wide weights (global_slot), the weights and KV cache of
 * each layer (layer_slot), and the activations (act_slot), which exist on the GPU only and are
 * shared by all layers since the layers run one after the other. One count function per kind
 * gives the sizes, so the host budget, the device-limit check and the allocations agree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "wgprof/device_util.h"

static const uint64_t WEIGHT_SEED = 0x5eed5eed2024ull;
static const float RMS_EPS = 1e-5f;
static const double ROPE_BASE = 10000.0;
static const uint64_t STEP_UNIFORM_BYTES = 16; /* struct Step: pos, token and two u32 of padding */

typedef struct tensor {
    uint64_t count;  /* floats */
    bool gpu_only;   /* an activation: no host copy */
    float *host;     /* a slice of the model's arena, or NULL */
    WGPUBuffer gpu;
} tensor;

typedef enum global_slot { G_EMBEDDING, G_FINAL_NORM, G_LOGITS_W, G_ROPE, GLOBAL_SLOTS } global_slot;
static const char *const global_names[GLOBAL_SLOTS] = {"the embedding table", "the final norm weight",
                                                       "the logits weight", "the rope table"};

typedef enum layer_slot {
    L_ATTN_NORM, L_WQ, L_WK, L_WV, L_WO, L_MLP_NORM, L_W_GATE, L_W_UP, L_W_DOWN, L_K_CACHE, L_V_CACHE,
    LAYER_SLOTS
} layer_slot;
static const char *const layer_names[LAYER_SLOTS] = {
    "attn_norm weight", "w_q", "w_k", "w_v", "w_o", "mlp_norm weight", "w_gate", "w_up", "w_down",
    "the K cache", "the V cache"};

typedef enum act_slot {
    A_X, A_XN, A_Q, A_K, A_V, A_ATT, A_SCORES, A_GATE, A_UP, A_HIDDEN, A_LOGITS, ACT_SLOTS
} act_slot;
static const char *const act_names[ACT_SLOTS] = {"x", "xn", "q", "k", "v", "att", "the attention scores",
                                                 "gate", "up", "hidden", "the logits"};

typedef struct layer {
    tensor t[LAYER_SLOTS];
} layer;

typedef enum kernel_id {
    K_EMBEDDING, K_RMSNORM, K_MATVEC, K_MATVEC_RESIDUAL, K_ROPE, K_KV_CACHE_UPDATE, K_ATTN_SCORES,
    K_ATTN_SOFTMAX, K_ATTN_WEIGHTED_SUM, K_SDPA_KV_CACHE, K_SILU_MUL, KERNEL_COUNT
} kernel_id;

/* The label names the shader module and pipeline in the implementation's error messages; the
 * source is held by address, since the strings' values are not constant expressions in C. */
static const struct {
    const char *label;
    const char *const *wgsl;
    uint32_t workgroup_size; /* as the shader's @workgroup_size declares it */
} kernels[KERNEL_COUNT] = {
    [K_EMBEDDING] = {"embedding", &demo_wgsl_embedding, DEMO_WORKGROUP_SIZE},
    [K_RMSNORM] = {"rmsnorm", &demo_wgsl_rmsnorm, DEMO_NORM_WORKGROUP_SIZE},
    [K_MATVEC] = {"matvec", &demo_wgsl_matvec, DEMO_WORKGROUP_SIZE},
    [K_MATVEC_RESIDUAL] = {"matvec_residual", &demo_wgsl_matvec_residual, DEMO_WORKGROUP_SIZE},
    [K_ROPE] = {"rope", &demo_wgsl_rope, DEMO_WORKGROUP_SIZE},
    [K_KV_CACHE_UPDATE] = {"kv_cache_update", &demo_wgsl_kv_cache_update, DEMO_WORKGROUP_SIZE},
    [K_ATTN_SCORES] = {"attn_scores", &demo_wgsl_attn_scores, DEMO_WORKGROUP_SIZE},
    [K_ATTN_SOFTMAX] = {"attn_softmax", &demo_wgsl_attn_softmax, DEMO_WORKGROUP_SIZE},
    [K_ATTN_WEIGHTED_SUM] = {"attn_weighted_sum", &demo_wgsl_attn_weighted_sum, DEMO_WORKGROUP_SIZE},
    [K_SDPA_KV_CACHE] = {"sdpa_kv_cache", &demo_wgsl_sdpa_kv_cache, DEMO_WORKGROUP_SIZE},
    [K_SILU_MUL] = {"silu_mul", &demo_wgsl_silu_mul, DEMO_WORKGROUP_SIZE},
};

struct demo_model {
    demo_config cfg;
    float *arena; /* every host tensor, one zeroed allocation */
    tensor global[GLOBAL_SLOTS];
    layer *layers;
    tensor act[ACT_SLOTS];
    WGPUBuffer step;     /* the Step uniform */
    WGPUBuffer readback; /* MapRead copy of the logits */
    WGPUComputePipeline pipelines[KERNEL_COUNT]; /* created on first use */
};

/* ---- shapes ------------------------------------------------------------------------------ */

static uint32_t head_dim(const demo_config *c) { return c->dim / c->heads; }

static uint64_t global_count(const demo_config *c, global_slot g)
{
    switch (g) {
    case G_EMBEDDING:
    case G_LOGITS_W: return (uint64_t)c->vocab * c->dim;
    case G_FINAL_NORM: return c->dim;
    case G_ROPE: return (uint64_t)c->max_seq * head_dim(c); /* (cos, sin) per position and pair */
    case GLOBAL_SLOTS: break;
    }
    return 0;
}

static uint64_t layer_count(const demo_config *c, layer_slot s)
{
    switch (s) {
    case L_ATTN_NORM:
    case L_MLP_NORM: return c->dim;
    case L_WQ:
    case L_WK:
    case L_WV:
    case L_WO: return (uint64_t)c->dim * c->dim;
    case L_W_GATE:
    case L_W_UP:
    case L_W_DOWN: return (uint64_t)c->ffn * c->dim;
    case L_K_CACHE:
    case L_V_CACHE: return (uint64_t)c->max_seq * c->dim;
    case LAYER_SLOTS: break;
    }
    return 0;
}

static uint64_t act_count(const demo_config *c, act_slot a)
{
    switch (a) {
    case A_X:
    case A_XN:
    case A_Q:
    case A_K:
    case A_V:
    case A_ATT: return c->dim;
    case A_SCORES: return (uint64_t)c->heads * c->max_seq;
    case A_GATE:
    case A_UP:
    case A_HIDDEN: return c->ffn;
    case A_LOGITS: return c->vocab;
    case ACT_SLOTS: break;
    }
    return 0;
}

uint32_t demo_token(const demo_config *cfg) { return (uint32_t)(((uint64_t)cfg->pos * 7919u + 1u) % cfg->vocab); }

uint64_t demo_host_bytes(const demo_config *cfg)
{
    uint64_t floats = 0;
    for (int g = 0; g < GLOBAL_SLOTS; g++) {
        floats += global_count(cfg, (global_slot)g);
    }
    for (int s = 0; s < LAYER_SLOTS; s++) {
        floats += (uint64_t)cfg->layers * layer_count(cfg, (layer_slot)s);
    }
    return floats * sizeof(float);
}

static uint64_t groups_of(uint64_t threads, uint32_t size) { return (threads + size - 1) / size; }

static bool buffer_fits(const char *name, uint64_t count, uint64_t limit, char *why, size_t why_cap)
{
    uint64_t bytes = count * sizeof(float);
    if (bytes > limit) {
        snprintf(why, why_cap, "%s needs %llu bytes, more than the device's %llu-byte storage buffer limit",
                 name, (unsigned long long)bytes, (unsigned long long)limit);
        return false;
    }
    return true;
}

static bool buffers_fit(const demo_config *c, const WGPULimits *limits, char *why, size_t why_cap)
{
    uint64_t limit = limits->maxStorageBufferBindingSize < limits->maxBufferSize ? limits->maxStorageBufferBindingSize
                                                                                 : limits->maxBufferSize;
    for (int g = 0; g < GLOBAL_SLOTS; g++) {
        if (!buffer_fits(global_names[g], global_count(c, (global_slot)g), limit, why, why_cap)) {
            return false;
        }
    }
    for (int s = 0; s < LAYER_SLOTS; s++) {
        if (!buffer_fits(layer_names[s], layer_count(c, (layer_slot)s), limit, why, why_cap)) {
            return false;
        }
    }
    for (int a = 0; a < ACT_SLOTS; a++) {
        if (!buffer_fits(act_names[a], act_count(c, (act_slot)a), limit, why, why_cap)) {
            return false;
        }
    }
    return true;
}

static bool workgroups_fit(const demo_config *c, const WGPULimits *limits, char *why, size_t why_cap)
{
    const struct {
        const char *flag;
        uint32_t value;
        const char *dispatch;
        uint64_t groups;
    } grids[] = {
        {"--vocab", c->vocab, "the logits matmul", groups_of(c->vocab, DEMO_WORKGROUP_SIZE)},
        {"--ffn", c->ffn, "the MLP matmuls", groups_of(c->ffn, DEMO_WORKGROUP_SIZE)},
        {"--dim", c->dim, "the projections", groups_of(c->dim, DEMO_WORKGROUP_SIZE)},
        {"--max-seq", c->max_seq, "attn_scores", groups_of(c->max_seq, DEMO_WORKGROUP_SIZE)},
        {"--heads", c->heads, "the per-head attention kernels", c->heads},
    };
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++) {
        if (grids[i].groups > limits->maxComputeWorkgroupsPerDimension) {
            snprintf(why, why_cap, "%s %u: %s would need %llu workgroups, more than the device's %u per dimension",
                     grids[i].flag, grids[i].value, grids[i].dispatch, (unsigned long long)grids[i].groups,
                     limits->maxComputeWorkgroupsPerDimension);
            return false;
        }
    }
    return true;
}

bool demo_fits_device(const demo_config *cfg, const WGPULimits *limits, char *why, size_t why_cap)
{
    if (limits->maxComputeInvocationsPerWorkgroup < DEMO_NORM_WORKGROUP_SIZE ||
        limits->maxComputeWorkgroupSizeX < DEMO_NORM_WORKGROUP_SIZE) {
        snprintf(why, why_cap, "the device runs fewer than %d threads per workgroup, which rmsnorm needs",
                 DEMO_NORM_WORKGROUP_SIZE);
        return false;
    }
    uint64_t fused_shared = (DEMO_FUSED_MAX_SEQ + DEMO_WORKGROUP_SIZE) * sizeof(float);
    if (cfg->fused_sdpa && limits->maxComputeWorkgroupStorageSize < fused_shared) {
        snprintf(why, why_cap, "--fused-sdpa needs %llu bytes of workgroup memory, more than the device's %u",
                 (unsigned long long)fused_shared, limits->maxComputeWorkgroupStorageSize);
        return false;
    }
    return buffers_fit(cfg, limits, why, why_cap) && workgroups_fit(cfg, limits, why, why_cap);
}

/* ---- host weights ------------------------------------------------------------------------ */

/* splitmix64: tiny, seeded, and the same sequence on every platform. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1), from the top 24 bits so that every value is exact in float. */
static float uniform_pm1(uint64_t *state) { return (float)(next_random(state) >> 40) / 8388608.0f - 1.0f; }

static void fill_uniform(tensor *t, float scale, uint64_t *rng)
{
    for (uint64_t i = 0; i < t->count; i++) {
        t->host[i] = uniform_pm1(rng) * scale;
    }
}

/* Norm weights near 1, as trained models have them. */
static void fill_norm_weight(tensor *t, uint64_t *rng)
{
    for (uint64_t i = 0; i < t->count; i++) {
        t->host[i] = 1.0f + 0.1f * uniform_pm1(rng);
    }
}

/* Scaled by 1/sqrt(fan-in) so that activations stay of order 1 through the layers, which keeps
 * the CPU comparison meaningful. */
static void fill_matrix(tensor *t, uint32_t cols, uint64_t *rng) { fill_uniform(t, 1.0f / sqrtf((float)cols), rng); }

/* Positions before pos hold what earlier tokens would have left; the rest stays zero. */
static void fill_cache_prefix(tensor *t, const demo_config *c, uint64_t *rng)
{
    for (uint64_t i = 0; i < (uint64_t)c->pos * c->dim; i++) {
        t->host[i] = uniform_pm1(rng);
    }
}

static void fill_rope_table(tensor *t, const demo_config *c)
{
    uint32_t half = head_dim(c) / 2;
    for (uint32_t p = 0; p < c->max_seq; p++) {
        for (uint32_t i = 0; i < half; i++) {
            double angle = p * pow(ROPE_BASE, -2.0 * i / head_dim(c));
            t->host[2 * ((uint64_t)p * half + i)] = (float)cos(angle);
            t->host[2 * ((uint64_t)p * half + i) + 1] = (float)sin(angle);
        }
    }
}

static void fill_weights(demo_model *m)
{
    const demo_config *c = &m->cfg;
    uint64_t rng = WEIGHT_SEED;
    fill_uniform(&m->global[G_EMBEDDING], 1.0f, &rng);
    for (uint32_t l = 0; l < c->layers; l++) {
        tensor *t = m->layers[l].t;
        fill_norm_weight(&t[L_ATTN_NORM], &rng);
        fill_matrix(&t[L_WQ], c->dim, &rng);
        fill_matrix(&t[L_WK], c->dim, &rng);
        fill_matrix(&t[L_WV], c->dim, &rng);
        fill_matrix(&t[L_WO], c->dim, &rng);
        fill_norm_weight(&t[L_MLP_NORM], &rng);
        fill_matrix(&t[L_W_GATE], c->dim, &rng);
        fill_matrix(&t[L_W_UP], c->dim, &rng);
        fill_matrix(&t[L_W_DOWN], c->ffn, &rng);
        fill_cache_prefix(&t[L_K_CACHE], c, &rng);
        fill_cache_prefix(&t[L_V_CACHE], c, &rng);
    }
    fill_norm_weight(&m->global[G_FINAL_NORM], &rng);
    fill_matrix(&m->global[G_LOGITS_W], c->dim, &rng);
    fill_rope_table(&m->global[G_ROPE], c);
}

typedef void (*tensor_visitor)(tensor *t, void *ctx);

static void visit_tensors(demo_model *m, tensor_visitor visit, void *ctx)
{
    for (int g = 0; g < GLOBAL_SLOTS; g++) {
        visit(&m->global[g], ctx);
    }
    for (uint32_t l = 0; l < m->cfg.layers; l++) {
        for (int s = 0; s < LAYER_SLOTS; s++) {
            visit(&m->layers[l].t[s], ctx);
        }
    }
    for (int a = 0; a < ACT_SLOTS; a++) {
        visit(&m->act[a], ctx);
    }
}

static void set_shapes(demo_model *m)
{
    for (int g = 0; g < GLOBAL_SLOTS; g++) {
        m->global[g].count = global_count(&m->cfg, (global_slot)g);
    }
    for (uint32_t l = 0; l < m->cfg.layers; l++) {
        for (int s = 0; s < LAYER_SLOTS; s++) {
            m->layers[l].t[s].count = layer_count(&m->cfg, (layer_slot)s);
        }
    }
    for (int a = 0; a < ACT_SLOTS; a++) {
        m->act[a].count = act_count(&m->cfg, (act_slot)a);
        m->act[a].gpu_only = true;
    }
}

static void take_arena_slice(tensor *t, void *ctx)
{
    float **next = ctx;
    if (!t->gpu_only) {
        t->host = *next;
        *next += t->count;
    }
}

wgprof_status demo_model_create(const demo_config *cfg, demo_model **out)
{
    *out = NULL;
    demo_model *m = calloc(1, sizeof *m);
    if (!m) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    m->cfg = *cfg;
    m->layers = calloc(cfg->layers, sizeof *m->layers);
    uint64_t bytes = demo_host_bytes(cfg);
    /* The size check matters on 32-bit hosts only, where the host limit exceeds size_t. */
    m->arena = m->layers && bytes <= SIZE_MAX ? calloc((size_t)(bytes / sizeof(float)), sizeof(float)) : NULL;
    if (!m->arena) {
        demo_model_destroy(m);
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    set_shapes(m);
    float *next = m->arena;
    visit_tensors(m, take_arena_slice, &next);
    fill_weights(m);
    *out = m;
    return WGPROF_OK;
}

static void release_tensor(tensor *t, void *ctx)
{
    (void)ctx;
    if (t->gpu) {
        wgpuBufferRelease(t->gpu);
    }
}

void demo_model_destroy(demo_model *m)
{
    if (!m) {
        return;
    }
    if (m->layers) {
        visit_tensors(m, release_tensor, NULL);
    }
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (m->pipelines[k]) {
            wgpuComputePipelineRelease(m->pipelines[k]);
        }
    }
    if (m->step) {
        wgpuBufferRelease(m->step);
    }
    if (m->readback) {
        wgpuBufferRelease(m->readback);
    }
    free(m->arena);
    free(m->layers);
    free(m);
}

/* ---- GPU resources ----------------------------------------------------------------------- */

/* Appending the graph goes through many WebGPU calls; the first failure sticks and the rest are
 * skipped, so the build reads as a straight list of kernels. */
typedef struct builder {
    demo_model *m;
    wgprof_device *dev;
    WGPUDevice device;
    wgprof_graph *graph;
    wgprof_status status;
    uint32_t block; /* 0: embedding, 1..layers: a layer, layers + 1: the head */
    uint32_t op;    /* dispatches added in this block so far */
} builder;

static WGPUBuffer create_buffer(builder *b, uint64_t bytes, WGPUBufferUsage usage)
{
    WGPUBufferDescriptor desc = {.size = bytes, .usage = usage};
    WGPUBuffer buffer = wgpuDeviceCreateBuffer(b->device, &desc);
    if (!buffer && b->status == WGPROF_OK) {
        b->status = WGPROF_ERR_WEBGPU;
    }
    return buffer;
}

static void create_and_upload(tensor *t, void *ctx)
{
    builder *b = ctx;
    if (b->status != WGPROF_OK) {
        return;
    }
    /* Weights are uploaded; activations may be copied out (the logits for readback). */
    WGPUBufferUsage usage = WGPUBufferUsage_Storage | (t->gpu_only ? WGPUBufferUsage_CopySrc : WGPUBufferUsage_CopyDst);
    t->gpu = create_buffer(b, t->count * sizeof(float), usage);
    if (t->gpu && t->host) {
        wgpuQueueWriteBuffer(wgprof_device_queue(b->dev), t->gpu, 0, t->host, (size_t)(t->count * sizeof(float)));
    }
}

static WGPUComputePipeline create_pipeline(builder *b, kernel_id kernel)
{
    const demo_config *c = &b->m->cfg;
    WGPUShaderModule module = NULL;
    wgprof_status s = wgprof_shader_module_create(b->dev, *kernels[kernel].wgsl, kernels[kernel].label,
                                                  c->shader_checks, &module);
    if (s != WGPROF_OK) {
        b->status = s; /* WGPROF_ERR_UNSUPPORTED: checks the implementation cannot drop */
        return NULL;
    }
    static const char *const names[DEMO_OVERRIDE_COUNT] = DEMO_OVERRIDE_NAMES;
    const uint32_t rotary_pairs = head_dim(c) / 2; /* head_dim is even: checked with the flags */
    const double values[DEMO_OVERRIDE_COUNT] = {head_dim(c), rotary_pairs, c->max_seq,
                                                1.0f / sqrtf((float)head_dim(c)), RMS_EPS};
    WGPUConstantEntry constants[DEMO_OVERRIDE_COUNT];
    for (int i = 0; i < DEMO_OVERRIDE_COUNT; i++) {
        constants[i] = (WGPUConstantEntry){.key = {names[i], WGPU_STRLEN}, .value = values[i]};
    }
    WGPUComputePipelineDescriptor desc = {
        .label = {kernels[kernel].label, WGPU_STRLEN},
        .compute = {.module = module,
                    .entryPoint = {"main", WGPU_STRLEN},
                    .constantCount = DEMO_OVERRIDE_COUNT,
                    .constants = constants},
    };
    WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(b->device, &desc);
    wgpuShaderModuleRelease(module);
    return pipeline;
}

static WGPUComputePipeline pipeline_for(builder *b, kernel_id kernel)
{
    if (!b->m->pipelines[kernel]) {
        b->m->pipelines[kernel] = create_pipeline(b, kernel);
    }
    return b->m->pipelines[kernel];
}

enum { MAX_BINDINGS = 6 };

typedef struct dispatch {
    kernel_id kernel;
    const char *label;
    WGPUBuffer bindings[MAX_BINDINGS]; /* binding i of group 0; the list ends at the first NULL */
    uint32_t workgroups[2];
    double bytes;
    double flops;
} dispatch;

static WGPUBindGroup create_bind_group(builder *b, WGPUComputePipeline pipeline, const WGPUBuffer *bindings)
{
    WGPUBindGroupEntry entries[MAX_BINDINGS];
    uint32_t count = 0;
    for (; count < MAX_BINDINGS && bindings[count]; count++) {
        entries[count] = (WGPUBindGroupEntry){.binding = count, .buffer = bindings[count], .size = WGPU_WHOLE_SIZE};
    }
    WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
    WGPUBindGroupDescriptor desc = {.layout = layout, .entryCount = count, .entries = entries};
    WGPUBindGroup group = wgpuDeviceCreateBindGroup(b->device, &desc);
    wgpuBindGroupLayoutRelease(layout);
    return group;
}

static void add_dispatch(builder *b, const dispatch *d)
{
    if (b->status != WGPROF_OK) {
        return;
    }
    WGPUComputePipeline pipeline = pipeline_for(b, d->kernel);
    WGPUBindGroup group = pipeline ? create_bind_group(b, pipeline, d->bindings) : NULL;
    if (!group) {
        b->status = b->status != WGPROF_OK ? b->status : WGPROF_ERR_WEBGPU;
        return;
    }
    wgprof_node_desc node = {
        .pipeline = pipeline,
        .bind_group_count = 1,
        .bind_groups = &group,
        .workgroups = {d->workgroups[0], d->workgroups[1], 1}, /* 0 counts as 1 */
        .workgroup_size = {kernels[d->kernel].workgroup_size, 1, 1},
        .kernel = d->label,
        .dispatch_id = (uint64_t)b->block * 100 + ++b->op, /* the embedding is 1: 0 would mean "index" */
        .bytes = d->bytes,
        .flops = d->flops,
    };
    b->status = wgprof_graph_add(b->graph, &node, NULL);
    wgpuBindGroupRelease(group); /* the graph holds its own reference */
}

static void begin_block(builder *b, uint32_t block)
{
    b->block = block;
    b->op = 0;
}

/* Scopes group the dispatches of a layer and its blocks in the reports. */
static void scope_begin(builder *b, const char *name)
{
    if (b->status == WGPROF_OK) {
        b->status = wgprof_graph_scope_begin(b->graph, name);
    }
}

static void scope_end(builder *b)
{
    if (b->status == WGPROF_OK) {
        b->status = wgprof_graph_scope_end(b->graph);
    }
}

/* ---- the decode step as dispatches --------------------------------------------------------- */

/* Bytes count each buffer element the kernel touches once (x re-read from cache is not
 * counted again); flops count the arithmetic the kernel does. The attention figures are for
 * cfg->pos, the position the demo runs. */
static const double FLOAT_BYTES = sizeof(float);

static uint32_t groups(uint64_t threads) { return (uint32_t)groups_of(threads, DEMO_WORKGROUP_SIZE); }

static void add_embedding(builder *b)
{
    demo_model *m = b->m;
    double dim = m->cfg.dim;
    add_dispatch(b, &(dispatch){.kernel = K_EMBEDDING, .label = "embedding",
                                .bindings = {m->step, m->global[G_EMBEDDING].gpu, m->act[A_X].gpu},
                                .workgroups = {groups(m->cfg.dim)}, .bytes = 2 * dim * FLOAT_BYTES});
}

static void add_rmsnorm(builder *b, const char *label, const tensor *x, const tensor *weight, const tensor *out)
{
    double n = (double)x->count;
    add_dispatch(b, &(dispatch){.kernel = K_RMSNORM, .label = label, .bindings = {x->gpu, weight->gpu, out->gpu},
                                .workgroups = {1}, .bytes = 4 * n * FLOAT_BYTES, .flops = 4 * n});
}

static void add_matvec(builder *b, const char *label, const tensor *w, const tensor *x, const tensor *y,
                       bool residual)
{
    double rows = (double)y->count, cols = (double)x->count;
    add_dispatch(b, &(dispatch){.kernel = residual ? K_MATVEC_RESIDUAL : K_MATVEC, .label = label,
                                .bindings = {w->gpu, x->gpu, y->gpu}, .workgroups = {groups(y->count)},
                                .bytes = (rows * cols + cols + rows * (residual ? 2 : 1)) * FLOAT_BYTES,
                                .flops = 2 * rows * cols + (residual ? rows : 0)});
}

static void add_separate_attention(builder *b, const layer *l)
{
    demo_model *m = b->m;
    const demo_config *c = &m->cfg;
    double n = c->pos + 1.0, dim = c->dim, heads = c->heads;
    add_dispatch(b, &(dispatch){.kernel = K_ATTN_SCORES, .label = "attn_scores",
                                .bindings = {m->step, m->act[A_Q].gpu, l->t[L_K_CACHE].gpu, m->act[A_SCORES].gpu},
                                .workgroups = {groups(c->max_seq), c->heads},
                                .bytes = (dim + n * dim + heads * n) * FLOAT_BYTES, .flops = 2 * n * dim + heads * n});
    add_dispatch(b, &(dispatch){.kernel = K_ATTN_SOFTMAX, .label = "attn_softmax",
                                .bindings = {m->step, m->act[A_SCORES].gpu}, .workgroups = {c->heads},
                                .bytes = 5 * heads * n * FLOAT_BYTES, .flops = 4 * heads * n});
    add_dispatch(b, &(dispatch){.kernel = K_ATTN_WEIGHTED_SUM, .label = "attn_weighted_sum",
                                .bindings = {m->step, m->act[A_SCORES].gpu, l->t[L_V_CACHE].gpu, m->act[A_ATT].gpu},
                                .workgroups = {groups(c->dim)}, .bytes = (heads * n + n * dim + dim) * FLOAT_BYTES,
                                .flops = 2 * n * dim});
}

static void add_fused_attention(builder *b, const layer *l)
{
    demo_model *m = b->m;
    const demo_config *c = &m->cfg;
    double n = c->pos + 1.0, dim = c->dim, heads = c->heads;
    add_dispatch(b, &(dispatch){.kernel = K_SDPA_KV_CACHE, .label = "sdpa_kv_cache",
                                .bindings = {m->step, m->act[A_Q].gpu, l->t[L_K_CACHE].gpu, l->t[L_V_CACHE].gpu,
                                             m->act[A_ATT].gpu},
                                .workgroups = {c->heads}, .bytes = (2 * dim + 2 * n * dim) * FLOAT_BYTES,
                                .flops = 2 * n * dim + 4 * heads * n + 3 * n * dim});
}

static void add_layer(builder *b, const layer *l)
{
    demo_model *m = b->m;
    const demo_config *c = &m->cfg;
    const tensor *a = m->act;
    double dim = c->dim, ffn = c->ffn;
    scope_begin(b, "attention");
    add_rmsnorm(b, "rmsnorm_attn", &a[A_X], &l->t[L_ATTN_NORM], &a[A_XN]);
    add_matvec(b, "matmul_q", &l->t[L_WQ], &a[A_XN], &a[A_Q], false);
    add_matvec(b, "matmul_k", &l->t[L_WK], &a[A_XN], &a[A_K], false);
    add_matvec(b, "matmul_v", &l->t[L_WV], &a[A_XN], &a[A_V], false);
    add_dispatch(b, &(dispatch){.kernel = K_ROPE, .label = "rope",
                                .bindings = {m->step, m->global[G_ROPE].gpu, a[A_Q].gpu, a[A_K].gpu},
                                .workgroups = {groups(c->dim / 2)}, .bytes = 5 * dim * FLOAT_BYTES, .flops = 6 * dim});
    add_dispatch(b, &(dispatch){.kernel = K_KV_CACHE_UPDATE, .label = "kv_cache_update",
                                .bindings = {m->step, a[A_K].gpu, a[A_V].gpu, l->t[L_K_CACHE].gpu, l->t[L_V_CACHE].gpu},
                                .workgroups = {groups(c->dim)}, .bytes = 4 * dim * FLOAT_BYTES});
    if (c->fused_sdpa) {
        add_fused_attention(b, l);
    } else {
        add_separate_attention(b, l);
    }
    add_matvec(b, "matmul_o", &l->t[L_WO], &a[A_ATT], &a[A_X], true);
    scope_end(b);
    scope_begin(b, "mlp");
    add_rmsnorm(b, "rmsnorm_mlp", &a[A_X], &l->t[L_MLP_NORM], &a[A_XN]);
    add_matvec(b, "matmul_gate", &l->t[L_W_GATE], &a[A_XN], &a[A_GATE], false);
    add_matvec(b, "matmul_up", &l->t[L_W_UP], &a[A_XN], &a[A_UP], false);
    add_dispatch(b, &(dispatch){.kernel = K_SILU_MUL, .label = "silu_mul",
                                .bindings = {a[A_GATE].gpu, a[A_UP].gpu, a[A_HIDDEN].gpu},
                                .workgroups = {groups(c->ffn)}, .bytes = 3 * ffn * FLOAT_BYTES, .flops = 5 * ffn});
    add_matvec(b, "matmul_down", &l->t[L_W_DOWN], &a[A_HIDDEN], &a[A_X], true);
    scope_end(b);
}

static void add_decode_step(builder *b)
{
    demo_model *m = b->m;
    begin_block(b, 0);
    scope_begin(b, "embedding");
    add_embedding(b);
    scope_end(b);
    for (uint32_t l = 0; l < m->cfg.layers; l++) {
        char name[32];
        snprintf(name, sizeof name, "layer %u", l);
        begin_block(b, l + 1);
        scope_begin(b, name);
        add_layer(b, &m->layers[l]);
        scope_end(b);
    }
    begin_block(b, m->cfg.layers + 1);
    scope_begin(b, "head");
    add_rmsnorm(b, "rmsnorm_final", &m->act[A_X], &m->global[G_FINAL_NORM], &m->act[A_XN]);
    add_matvec(b, "logits", &m->global[G_LOGITS_W], &m->act[A_XN], &m->act[A_LOGITS], false);
    scope_end(b);
}

wgprof_status demo_model_build(demo_model *m, wgprof_device *dev, wgprof_graph *graph)
{
    builder b = {.m = m, .dev = dev, .device = wgprof_device_webgpu(dev), .graph = graph, .status = WGPROF_OK};
    /* Caught here rather than left to the device's log, so that a shader or limit problem stops
     * the demo before anything runs. */
    wgprof_device_push_error_scope(dev);
    visit_tensors(m, create_and_upload, &b);
    m->step = create_buffer(&b, STEP_UNIFORM_BYTES, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    m->readback = create_buffer(&b, m->cfg.vocab * sizeof(float), WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
    add_decode_step(&b);
    char message[2048];
    wgprof_status scope = wgprof_device_pop_error_scope(dev, message, sizeof message);
    if (scope != WGPROF_OK && message[0]) {
        fprintf(stderr, "wgprof demo: setting up the model raised a WebGPU error: %s\n", message);
    }
    return b.status != WGPROF_OK ? b.status : scope;
}

void demo_model_set_step(demo_model *m, wgprof_device *dev)
{
    const uint32_t step[4] = {m->cfg.pos, demo_token(&m->cfg), 0, 0};
    wgpuQueueWriteBuffer(wgprof_device_queue(dev), m->step, 0, step, sizeof step);
}

wgprof_status demo_model_read_logits(demo_model *m, wgprof_device *dev, float *out)
{
    size_t bytes = m->cfg.vocab * sizeof(float);
    WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    if (!encoder) {
        return WGPROF_ERR_WEBGPU;
    }
    wgpuCommandEncoderCopyBufferToBuffer(encoder, m->act[A_LOGITS].gpu, 0, m->readback, 0, bytes);
    WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, NULL);
    wgpuCommandEncoderRelease(encoder);
    if (!commands) {
        return WGPROF_ERR_WEBGPU;
    }
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &commands);
    wgpuCommandBufferRelease(commands);
    wgprof_status s = wgprof_device_map_read(dev, m->readback, 0, bytes);
    if (s != WGPROF_OK) {
        return s;
    }
    const float *mapped = wgpuBufferGetConstMappedRange(m->readback, 0, bytes);
    if (mapped) {
        memcpy(out, mapped, bytes);
    }
    wgpuBufferUnmap(m->readback);
    return mapped ? WGPROF_OK : WGPROF_ERR_MAP_FAILED;
}

/* ---- the CPU reference ------------------------------------------------------------------- */

/* Each function does what the kernel of the same name does, in the same order of operations. */

static void cpu_rmsnorm(const float *x, const float *weight, float *out, uint32_t n)
{
    float sum_sq = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        sum_sq += x[i] * x[i];
    }
    float inv_rms = 1.0f / sqrtf(sum_sq / (float)n + RMS_EPS);
    for (uint32_t i = 0; i < n; i++) {
        out[i] = x[i] * inv_rms * weight[i];
    }
}

static float cpu_row_dot(const float *w, const float *x, uint64_t row, uint32_t cols)
{
    const float *w_row = w + row * cols;
    float acc = 0.0f;
    for (uint32_t c = 0; c < cols; c++) {
        acc += w_row[c] * x[c];
    }
    return acc;
}

static void cpu_matvec(const float *w, const float *x, float *y, uint32_t rows, uint32_t cols)
{
    for (uint32_t r = 0; r < rows; r++) {
        y[r] = cpu_row_dot(w, x, r, cols);
    }
}

static void cpu_matvec_residual(const float *w, const float *x, float *y, uint32_t rows, uint32_t cols)
{
    for (uint32_t r = 0; r < rows; r++) {
        y[r] = y[r] + cpu_row_dot(w, x, r, cols);
    }
}

static void cpu_rotate_pairs(float *v, const float *cos_sin_row, uint32_t dim, uint32_t half)
{
    for (uint32_t p = 0; p < dim / 2; p++) {
        float c = cos_sin_row[2 * (p % half)], s = cos_sin_row[2 * (p % half) + 1];
        float v0 = v[2 * p], v1 = v[2 * p + 1];
        v[2 * p] = v0 * c - v1 * s;
        v[2 * p + 1] = v0 * s + v1 * c;
    }
}

static void cpu_attention_head(const demo_config *c, uint32_t h, const float *q, const float *k_cache,
                               const float *v_cache, float *probs, float *out)
{
    uint32_t hd = head_dim(c), head = h * hd, n = c->pos + 1;
    float scale = 1.0f / sqrtf((float)hd);
    float row_max = -3.40282347e38f;
    for (uint32_t t = 0; t < n; t++) {
        float acc = 0.0f;
        for (uint32_t d = 0; d < hd; d++) {
            acc += q[head + d] * k_cache[(uint64_t)t * c->dim + head + d];
        }
        probs[t] = acc * scale;
        row_max = fmaxf(row_max, probs[t]);
    }
    float sum = 0.0f;
    for (uint32_t t = 0; t < n; t++) {
        probs[t] = expf(probs[t] - row_max);
        sum += probs[t];
    }
    float inv_sum = 1.0f / sum;
    for (uint32_t d = 0; d < hd; d++) {
        float acc = 0.0f;
        for (uint32_t t = 0; t < n; t++) {
            acc += (probs[t] * inv_sum) * v_cache[(uint64_t)t * c->dim + head + d];
        }
        out[head + d] = acc;
    }
}

static void cpu_silu_mul(const float *gate, const float *up, float *out, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        out[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
    }
}

/* The KV cache row at pos is written here, as the GPU's kv_cache_update writes its own copy. */
static void cpu_layer(demo_model *m, layer *l, float *x, float *scratch)
{
    const demo_config *c = &m->cfg;
    uint32_t dim = c->dim, ffn = c->ffn;
    float *xn = scratch, *q = xn + dim, *k = q + dim, *v = k + dim, *att = v + dim;
    float *gate = att + dim, *up = gate + ffn, *hidden = up + ffn, *probs = hidden + ffn;
    float *k_cache = l->t[L_K_CACHE].host, *v_cache = l->t[L_V_CACHE].host;

    cpu_rmsnorm(x, l->t[L_ATTN_NORM].host, xn, dim);
    cpu_matvec(l->t[L_WQ].host, xn, q, dim, dim);
    cpu_matvec(l->t[L_WK].host, xn, k, dim, dim);
    cpu_matvec(l->t[L_WV].host, xn, v, dim, dim);
    const float *cos_sin_row = m->global[G_ROPE].host + (uint64_t)c->pos * head_dim(c);
    cpu_rotate_pairs(q, cos_sin_row, dim, head_dim(c) / 2);
    cpu_rotate_pairs(k, cos_sin_row, dim, head_dim(c) / 2);
    memcpy(k_cache + (uint64_t)c->pos * dim, k, dim * sizeof(float));
    memcpy(v_cache + (uint64_t)c->pos * dim, v, dim * sizeof(float));
    for (uint32_t h = 0; h < c->heads; h++) {
        cpu_attention_head(c, h, q, k_cache, v_cache, probs, att);
    }
    cpu_matvec_residual(l->t[L_WO].host, att, x, dim, dim);
    cpu_rmsnorm(x, l->t[L_MLP_NORM].host, xn, dim);
    cpu_matvec(l->t[L_W_GATE].host, xn, gate, ffn, dim);
    cpu_matvec(l->t[L_W_UP].host, xn, up, ffn, dim);
    cpu_silu_mul(gate, up, hidden, ffn);
    cpu_matvec_residual(l->t[L_W_DOWN].host, hidden, x, dim, ffn);
}

wgprof_status demo_reference_decode(demo_model *m, float *out)
{
    const demo_config *c = &m->cfg;
    /* x, then cpu_layer's xn, q, k, v, att, gate, up, hidden and probs. */
    float *x = malloc((6 * (size_t)c->dim + 3 * (size_t)c->ffn + c->max_seq) * sizeof(float));
    if (!x) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    float *scratch = x + c->dim;
    memcpy(x, m->global[G_EMBEDDING].host + (uint64_t)demo_token(c) * c->dim, c->dim * sizeof(float));
    for (uint32_t l = 0; l < c->layers; l++) {
        cpu_layer(m, &m->layers[l], x, scratch);
    }
    float *xn = scratch;
    cpu_rmsnorm(x, m->global[G_FINAL_NORM].host, xn, c->dim);
    cpu_matvec(m->global[G_LOGITS_W].host, xn, out, c->vocab, c->dim);
    free(x);
    return WGPROF_OK;
}
