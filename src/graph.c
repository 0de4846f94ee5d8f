/*
 * The graph executor: an ordered list of labelled compute dispatches, encoded, submitted and
 * waited for by execute().
 *
 * Unprofiled, execute() makes exactly the calls of a plain executor (no query set, no extra
 * pass, no extra buffer); tests/test_call_sequence.c holds it to that. Profiled, each dispatch
 * is bracketed by timestamps: with the pass strategy every dispatch gets its own compute pass
 * carrying timestampWrites (a one-pass graph is split), with the inside strategy WriteTimestamp
 * goes around each dispatch and the pass layout is unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "querypool_internal.h"

typedef struct node {
    WGPUComputePipeline pipeline;
    WGPUBindGroup *groups;
    uint32_t group_count;
    uint32_t workgroups[3];
    wgprof_dispatch_desc desc; /* desc.kernel is owned */
    uint32_t site;             /* interned in the pool of generation site_generation */
} node;

struct wgprof_graph {
    wgprof_device *device;
    wgprof_layout layout;
    bool profiling;
    wgprof_strategy strategy;
    char note[200];
    wgprof_pool *pool;
    uint32_t sites_interned;   /* nodes [0, sites_interned) have a site in this generation */
    uint32_t site_generation;
    node *nodes;
    uint32_t count, cap;
};

const char *wgprof_strategy_str(wgprof_strategy s)
{
    switch (s) {
    case WGPROF_STRATEGY_PASS: return "pass";
    case WGPROF_STRATEGY_INSIDE: return "inside";
    case WGPROF_STRATEGY_AUTO:
    case WGPROF_STRATEGY_DEFAULT: return "auto";
    }
    return "unknown";
}

static wgprof_status strategy_from_env(wgprof_strategy *out)
{
    const char *v = getenv("WGPROF_STRATEGY");
    if (!v || !v[0] || strcmp(v, "auto") == 0) {
        *out = WGPROF_STRATEGY_AUTO;
    } else if (strcmp(v, "pass") == 0) {
        *out = WGPROF_STRATEGY_PASS;
    } else if (strcmp(v, "inside") == 0) {
        *out = WGPROF_STRATEGY_INSIDE;
    } else {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: WGPROF_STRATEGY=%s: expected auto, pass or inside", v);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return WGPROF_OK;
}

wgprof_status wgprof_graph_create(wgprof_device *device, const wgprof_graph_desc *desc, wgprof_graph **out)
{
    if (!device || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    wgprof_graph_desc defaults = {0};
    if (!desc) {
        desc = &defaults;
    }
    if ((unsigned)desc->layout > WGPROF_LAYOUT_SINGLE_PASS || (unsigned)desc->strategy > WGPROF_STRATEGY_INSIDE ||
        (unsigned)desc->profiling > WGPROF_PROFILING_OFF) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_strategy strategy = desc->strategy;
    if (strategy == WGPROF_STRATEGY_DEFAULT) {
        wgprof_status s = strategy_from_env(&strategy);
        if (s != WGPROF_OK) {
            return s;
        }
    }
    bool want = desc->profiling == WGPROF_PROFILING_ON ||
                (desc->profiling == WGPROF_PROFILING_DEFAULT && wgprof__env_flag("WEBGPU_TIMESTAMP_QUERY"));
    const wgprof_device_info *info = &device->info;
    if (want && info->profiling_available) {
        if (strategy == WGPROF_STRATEGY_AUTO) {
            strategy = info->timestamp_inside_passes ? WGPROF_STRATEGY_INSIDE : WGPROF_STRATEGY_PASS;
        } else if (strategy == WGPROF_STRATEGY_INSIDE && !info->timestamp_inside_passes) {
            wgprof__log(WGPROF_LOG_ERROR,
                        "wgprof: the inside strategy needs in-pass timestamps, which %s lacks; "
                        "use the pass or auto strategy",
                        info->adapter);
            return WGPROF_ERR_UNAVAILABLE;
        }
    }

    wgprof_graph *g = wgprof__calloc(1, sizeof *g);
    if (!g) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    g->device = device;
    g->layout = desc->layout == WGPROF_LAYOUT_DEFAULT ? WGPROF_LAYOUT_PASS_PER_DISPATCH : desc->layout;
    if (!want) {
        snprintf(g->note, sizeof g->note, "profiling off (set WEBGPU_TIMESTAMP_QUERY=1 to turn it on)");
    } else if (!info->profiling_available) {
        /* The device already said so once; the graph only keeps the reason for reports. */
        snprintf(g->note, sizeof g->note, "%s", info->unavailable_reason);
    } else {
        wgprof_status s = wgprof_pool_create(device, &desc->pool, &g->pool);
        if (s != WGPROF_OK) {
            wgprof__free(g);
            return s;
        }
        g->profiling = true;
        g->strategy = strategy;
    }
    *out = g;
    return WGPROF_OK;
}

void wgprof_graph_destroy(wgprof_graph *g)
{
    if (!g) {
        return;
    }
    for (uint32_t i = 0; i < g->count; i++) {
        node *n = &g->nodes[i];
        for (uint32_t k = 0; k < n->group_count; k++) {
            wgpuBindGroupRelease(n->groups[k]);
        }
        wgprof__free(n->groups);
        wgpuComputePipelineRelease(n->pipeline);
        wgprof__free((char *)n->desc.kernel);
    }
    wgprof__free(g->nodes);
    wgprof_pool_destroy(g->pool);
    wgprof__free(g);
}

wgprof_status wgprof_graph_add(wgprof_graph *g, const wgprof_node_desc *nd, uint32_t *index)
{
    if (!g || !nd || !nd->pipeline || (nd->bind_group_count && !nd->bind_groups)) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t k = 0; k < nd->bind_group_count; k++) {
        if (!nd->bind_groups[k]) {
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
    }
    if (g->count == UINT32_MAX) {
        return WGPROF_ERR_CAPACITY;
    }
    if (g->count == g->cap) {
        uint32_t ncap = g->cap ? g->cap * 2 : 16;
        node *nn = wgprof__grow(g->nodes, g->cap * sizeof *nn, (size_t)ncap * sizeof *nn);
        if (!nn) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        g->nodes = nn;
        g->cap = ncap;
    }
    node n = {0};
    n.desc.kernel = wgprof__strdup(nd->kernel ? nd->kernel : "unnamed");
    n.groups = nd->bind_group_count ? wgprof__calloc(nd->bind_group_count, sizeof *n.groups) : NULL;
    if (!n.desc.kernel || (nd->bind_group_count && !n.groups)) {
        wgprof__free((char *)n.desc.kernel);
        wgprof__free(n.groups);
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    n.pipeline = nd->pipeline;
    wgpuComputePipelineAddRef(n.pipeline);
    n.group_count = nd->bind_group_count;
    for (uint32_t k = 0; k < n.group_count; k++) {
        n.groups[k] = nd->bind_groups[k];
        wgpuBindGroupAddRef(n.groups[k]);
    }
    for (int k = 0; k < 3; k++) {
        n.workgroups[k] = nd->workgroups[k] ? nd->workgroups[k] : 1;
        n.desc.workgroups[k] = n.workgroups[k];
        n.desc.workgroup_size[k] = nd->workgroup_size[k];
    }
    n.desc.dispatch_id = nd->dispatch_id ? nd->dispatch_id : g->count;
    n.desc.bytes = nd->bytes;
    n.desc.flops = nd->flops;
    g->nodes[g->count] = n;
    if (index) {
        *index = g->count;
    }
    g->count++;
    return WGPROF_OK;
}

uint32_t wgprof_graph_node_count(const wgprof_graph *g) { return g ? g->count : 0; }

wgprof_status wgprof_graph_node(const wgprof_graph *g, uint32_t index, wgprof_node_desc *out)
{
    if (!g || !out || index >= g->count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const node *n = &g->nodes[index];
    memset(out, 0, sizeof *out);
    out->pipeline = n->pipeline;
    out->bind_group_count = n->group_count;
    out->bind_groups = n->groups;
    memcpy(out->workgroups, n->workgroups, sizeof out->workgroups);
    memcpy(out->workgroup_size, n->desc.workgroup_size, sizeof out->workgroup_size);
    out->kernel = n->desc.kernel;
    out->dispatch_id = n->desc.dispatch_id;
    out->bytes = n->desc.bytes;
    out->flops = n->desc.flops;
    return WGPROF_OK;
}
bool wgprof_graph_profiling(const wgprof_graph *g) { return g && g->profiling; }
wgprof_strategy wgprof_graph_strategy(const wgprof_graph *g) { return g ? g->strategy : WGPROF_STRATEGY_DEFAULT; }
const char *wgprof_graph_profiling_note(const wgprof_graph *g) { return g ? g->note : ""; }
wgprof_pool *wgprof_graph_pool(wgprof_graph *g) { return g ? g->pool : NULL; }

static void encode_dispatch(WGPUComputePassEncoder pass, const node *n)
{
    wgpuComputePassEncoderSetPipeline(pass, n->pipeline);
    for (uint32_t k = 0; k < n->group_count; k++) {
        wgpuComputePassEncoderSetBindGroup(pass, k, n->groups[k], 0, NULL);
    }
    wgpuComputePassEncoderDispatchWorkgroups(pass, n->workgroups[0], n->workgroups[1], n->workgroups[2]);
}

static void end_pass(WGPUComputePassEncoder pass)
{
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
}

static wgprof_status submit(wgprof_graph *g, WGPUCommandEncoder enc)
{
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    if (!cb) {
        return WGPROF_ERR_WEBGPU;
    }
    wgpuQueueSubmit(g->device->queue, 1, &cb);
    wgpuCommandBufferRelease(cb);
    return WGPROF_OK;
}

/* The plain executor: what an engine without wgprof does. */
static wgprof_status execute_plain(wgprof_graph *g)
{
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(g->device->device, NULL);
    if (!enc) {
        return WGPROF_ERR_WEBGPU;
    }
    if (g->layout == WGPROF_LAYOUT_SINGLE_PASS) {
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
        for (uint32_t i = 0; i < g->count; i++) {
            encode_dispatch(pass, &g->nodes[i]);
        }
        end_pass(pass);
    } else {
        for (uint32_t i = 0; i < g->count; i++) {
            WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
            encode_dispatch(pass, &g->nodes[i]);
            end_pass(pass);
        }
    }
    wgprof_status s = submit(g, enc);
    return s != WGPROF_OK ? s : wgprof_device_wait_idle(g->device);
}

static wgprof_status intern_sites(wgprof_graph *g)
{
    if (g->site_generation != g->pool->generation) {
        g->site_generation = g->pool->generation;
        g->sites_interned = 0;
    }
    for (; g->sites_interned < g->count; g->sites_interned++) {
        node *n = &g->nodes[g->sites_interned];
        wgprof_status s = wgprof__pool_site(g->pool, &n->desc, &n->site);
        if (s != WGPROF_OK) {
            return s;
        }
    }
    return WGPROF_OK;
}

static wgprof_status encode_pass_strategy(wgprof_graph *g, WGPUCommandEncoder enc)
{
    for (uint32_t i = 0; i < g->count; i++) {
        const node *n = &g->nodes[i];
        WGPUPassTimestampWrites tw;
        wgprof_status s = wgprof__pool_pass_writes_site(g->pool, n->site, n->desc.dispatch_id, &tw);
        if (s != WGPROF_OK) {
            return s;
        }
        WGPUComputePassDescriptor pd = {0};
        pd.timestampWrites = &tw; /* read by BeginComputePass only */
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
        encode_dispatch(pass, n);
        end_pass(pass);
    }
    return WGPROF_OK;
}

static wgprof_status encode_timed_inside(wgprof_graph *g, WGPUComputePassEncoder pass, const node *n)
{
    wgprof_status s = wgprof__pool_begin_site(g->pool, pass, n->site, n->desc.dispatch_id);
    if (s != WGPROF_OK) {
        return s;
    }
    encode_dispatch(pass, n);
    return wgprof_pool_end(g->pool, pass);
}

static wgprof_status encode_inside_strategy(wgprof_graph *g, WGPUCommandEncoder enc)
{
    wgprof_status s = WGPROF_OK;
    if (g->layout == WGPROF_LAYOUT_SINGLE_PASS) {
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
        for (uint32_t i = 0; i < g->count && s == WGPROF_OK; i++) {
            s = encode_timed_inside(g, pass, &g->nodes[i]);
        }
        end_pass(pass);
    } else {
        for (uint32_t i = 0; i < g->count && s == WGPROF_OK; i++) {
            WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
            s = encode_timed_inside(g, pass, &g->nodes[i]);
            end_pass(pass);
        }
    }
    return s;
}

static wgprof_status execute_profiled(wgprof_graph *g)
{
    /* Everything that can fail for want of room happens before the first WebGPU call, so that
     * an overflow or an allocation failure records nothing. */
    wgprof_status s = wgprof_pool_reserve(g->pool, g->count);
    if (s == WGPROF_OK) {
        s = intern_sites(g);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(g->device->device, NULL);
    if (!enc) {
        return WGPROF_ERR_WEBGPU;
    }
    s = g->strategy == WGPROF_STRATEGY_INSIDE ? encode_inside_strategy(g, enc) : encode_pass_strategy(g, enc);
    if (s == WGPROF_OK) {
        s = wgprof_pool_resolve(g->pool, enc);
    }
    if (s != WGPROF_OK) {
        wgprof__pool_discard_batch(g->pool);
        wgpuCommandEncoderRelease(enc);
        return s;
    }
    s = submit(g, enc);
    if (s != WGPROF_OK) {
        wgprof__pool_discard_batch(g->pool);
        return s;
    }
    /* Mapping the readback waits for the submission, so no separate wait is needed. */
    return wgprof_pool_collect(g->pool);
}

wgprof_status wgprof_graph_execute(wgprof_graph *g)
{
    if (!g) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (atomic_load(&g->device->lost)) {
        return WGPROF_ERR_DEVICE_LOST;
    }
    return g->profiling ? execute_profiled(g) : execute_plain(g);
}
