/*
 * The graph executor: an ordered list of labelled compute dispatches, encoded, submitted and
 * waited for by execute(), or left in flight by submit() for loops that run continuously.
 *
 * Unprofiled, execute() makes exactly the calls of a plain executor (no query set, no extra
 * pass, no extra buffer); tests/test_call_sequence.c holds it to that. Profiled, each dispatch
 * is bracketed by timestamps: with the pass strategy every dispatch gets its own compute pass
 * carrying timestampWrites (a one-pass graph is split); with the inside strategy WriteTimestamp
 * goes around each dispatch, keeping the pass layout; the chain strategy writes one timestamp
 * per dispatch, at the end of its pass, or after it inside a single pass.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device_internal.h"
#include "recorder.h"
#include "wgprof/device_util.h"

typedef struct node {
    WGPUComputePipeline pipeline;
    WGPUBindGroup *groups;
    uint32_t group_count;
    uint32_t workgroups[3];
    wgprof_dispatch_desc desc; /* desc.kernel is owned */
    uint32_t site;             /* interned in the pool of generation site_generation */
} node;

/* A scope boundary declared while the graph was built: before node `before`, open `name` (or,
 * with name NULL, close the innermost scope). */
typedef struct scope_event {
    uint32_t before;
    char *name;
} scope_event;

struct wgprof_graph {
    wgprof_device *device;
    wgprof_graph_desc settings; /* defaults filled, profiling and strategy as it runs */
    bool profiling;
    char note[200];
    wgprof_pool *pool;
    uint32_t sites_interned;   /* nodes [0, sites_interned) have a site in this generation */
    uint32_t validated;        /* the graph of this many nodes encoded without error */
    uint32_t site_generation;
    node *nodes;
    uint32_t count, cap;
    scope_event *events;
    uint32_t event_count, event_cap;
    uint32_t open_scopes;      /* while building */
    uint64_t executes;         /* executes and submits so far, profiled or not */
};

wgprof_status wgprof_graph_create(wgprof_device *device, const wgprof_graph_desc *desc, wgprof_graph **out)
{
    if (!device || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    wgprof_graph_desc settings;
    wgprof_status s = wgprof__graph_desc_defaults(desc, &settings);
    if (s != WGPROF_OK) {
        return s;
    }
    bool want = settings.profiling == WGPROF_PROFILING_ON;
    const wgprof_device_info *info = &device->info;
    if (want && info->profiling_available) {
        if (settings.strategy == WGPROF_STRATEGY_AUTO) {
            /* The cheapest: one timestamp per dispatch (bench_phases measures each way). */
            settings.strategy = WGPROF_STRATEGY_CHAIN;
        } else if (settings.strategy == WGPROF_STRATEGY_INSIDE && !info->timestamp_inside_passes) {
            wgprof__log(WGPROF_LOG_ERROR,
                        "the inside strategy needs in-pass timestamps, which %s lacks; "
                        "use the pass, chain or auto strategy",
                        info->adapter);
            return WGPROF_ERR_UNAVAILABLE;
        }
    }

    wgprof_graph *g = wgprof__calloc(1, sizeof *g);
    if (!g) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    g->device = device;
    if (!want) {
        snprintf(g->note, sizeof g->note, "profiling off (set WEBGPU_TIMESTAMP_QUERY=1 to turn it on)");
    } else if (!info->profiling_available) {
        /* The device already said so once; the graph only keeps the reason for reports. */
        snprintf(g->note, sizeof g->note, "%s", info->unavailable_reason);
    } else {
        s = wgprof_pool_create(device, &settings.pool, &g->pool);
        if (s != WGPROF_OK) {
            wgprof__free(g);
            return s;
        }
        g->profiling = true;
    }
    if (!g->profiling) {
        settings.profiling = WGPROF_PROFILING_OFF;
        settings.strategy = WGPROF_STRATEGY_DEFAULT;
    }
    g->settings = settings;
    *out = g;
    return WGPROF_OK;
}

wgprof_graph_desc wgprof_graph_settings(const wgprof_graph *g) { return g ? g->settings : (wgprof_graph_desc){0}; }

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
    for (uint32_t i = 0; i < g->event_count; i++) {
        wgprof__free(g->events[i].name);
    }
    wgprof__free(g->events);
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
    /* What the device's limits already rule out is refused here, with the node still unadded;
     * what only encoding can tell (a bind group that does not fit the pipeline) is caught
     * before the submit (wgprof__device_finish). */
    const wgprof_device_info *info = &g->device->info;
    if (info->max_bind_groups && nd->bind_group_count > info->max_bind_groups) {
        wgprof__log(WGPROF_LOG_ERROR, "node %u (%s): %u bind groups, the device allows %u", g->count,
                    nd->kernel ? nd->kernel : "unnamed", nd->bind_group_count, info->max_bind_groups);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    for (int k = 0; k < 3; k++) {
        if (info->max_workgroups_per_dimension && nd->workgroups[k] > info->max_workgroups_per_dimension) {
            wgprof__log(WGPROF_LOG_ERROR, "node %u (%s): %u workgroups in dimension %c, the device allows %u",
                        g->count, nd->kernel ? nd->kernel : "unnamed", nd->workgroups[k], "xyz"[k],
                        info->max_workgroups_per_dimension);
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
    }
    if (g->count == UINT32_MAX) {
        return WGPROF_ERR_CAPACITY;
    }
    wgprof_status s = wgprof__reserve((void **)&g->nodes, &g->cap, g->count + 1, sizeof *g->nodes, 16);
    if (s != WGPROF_OK) {
        return s;
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

static wgprof_status add_scope_event(wgprof_graph *g, const char *name)
{
    wgprof_status s = wgprof__reserve((void **)&g->events, &g->event_cap, g->event_count + 1, sizeof *g->events, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    char *copy = NULL;
    if (name && !(copy = wgprof__strdup(name))) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    g->events[g->event_count++] = (scope_event){g->count, copy};
    return WGPROF_OK;
}

wgprof_status wgprof_graph_scope_begin(wgprof_graph *g, const char *name)
{
    if (!g || !name) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = add_scope_event(g, name);
    g->open_scopes += s == WGPROF_OK;
    return s;
}

wgprof_status wgprof_graph_scope_end(wgprof_graph *g)
{
    if (!g) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!g->open_scopes) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_graph_scope_end without an open scope");
        return WGPROF_ERR_STATE;
    }
    wgprof_status s = add_scope_event(g, NULL);
    g->open_scopes -= s == WGPROF_OK;
    return s;
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

const char *wgprof_graph_profiling_note(const wgprof_graph *g) { return g ? g->note : ""; }
wgprof_pool *wgprof_graph_pool(wgprof_graph *g) { return g ? g->pool : NULL; }

/* ---- encoding ---- */

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

/* Finishes and submits `enc` (released either way) unless its encoding raised an error since
 * the device's count was `errors_before`, or the device is lost; the CPU times around the
 * submit call go to `submit_ns` and `submitted_ns` when not NULL. */
static wgprof_status submit(wgprof_graph *g, WGPUCommandEncoder enc, uint64_t errors_before, uint64_t *submit_ns,
                            uint64_t *submitted_ns)
{
    WGPUCommandBuffer cb;
    wgprof_status s = wgprof__device_finish(g->device, enc, errors_before, &cb);
    if (s != WGPROF_OK) {
        return s;
    }
    if (submit_ns) {
        *submit_ns = wgprof__now_ns();
    }
    wgpuQueueSubmit(g->device->queue, 1, &cb);
    if (submitted_ns) {
        *submitted_ns = wgprof__now_ns();
    }
    wgpuCommandBufferRelease(cb);
    return WGPROF_OK;
}

/* The plain executor's encode and submit: what an engine without wgprof does. */
/* The plain executor's encoding of every node into a new encoder, NULL when none was made. */
static WGPUCommandEncoder encode_plain(wgprof_graph *g)
{
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(g->device->device, NULL);
    if (!enc) {
        return NULL;
    }
    if (g->settings.layout == WGPROF_LAYOUT_SINGLE_PASS) {
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
    return enc;
}

static wgprof_status submit_plain(wgprof_graph *g)
{
    uint64_t errors = wgprof__device_errors(g->device);
    WGPUCommandEncoder enc = encode_plain(g);
    return enc ? submit(g, enc, errors, NULL, NULL) : WGPROF_ERR_WEBGPU;
}

/* Before its nodes are first encoded with timestamps, the graph is encoded without them and
 * finished, never submitted: a node the device rejects then fails here, before any of the
 * pool's query sets is written into an encoder that wgpu-native must drop (valgrind saw
 * lavapipe read such a query set after its release, at the device's teardown). Once per change
 * of the nodes; the unprofiled path never does it, so that its calls stay a plain executor's. */
static wgprof_status validate_once(wgprof_graph *g)
{
    if (g->validated == g->count) {
        return WGPROF_OK;
    }
    uint64_t errors = wgprof__device_errors(g->device);
    WGPUCommandEncoder enc = encode_plain(g);
    WGPUCommandBuffer cb = NULL;
    wgprof_status s = enc ? wgprof__device_finish(g->device, enc, errors, &cb) : WGPROF_ERR_WEBGPU;
    if (cb) {
        wgpuCommandBufferRelease(cb);
    }
    if (s == WGPROF_OK) {
        g->validated = g->count;
    }
    return s;
}

static wgprof_status intern_sites(wgprof_graph *g)
{
    wgprof__store *store = wgprof__pool_store(g->pool);
    if (g->site_generation != wgprof__store_generation(store)) {
        g->site_generation = wgprof__store_generation(store);
        g->sites_interned = 0;
    }
    for (; g->sites_interned < g->count; g->sites_interned++) {
        node *n = &g->nodes[g->sites_interned];
        wgprof_status s = wgprof__store_site(store, &n->desc, &n->site);
        if (s != WGPROF_OK) {
            return s;
        }
    }
    return WGPROF_OK;
}

/* Applies the scope events declared before node `before` (g->count: after the last one). */
static wgprof_status apply_scopes(wgprof_graph *g, uint32_t before, uint32_t *next_event)
{
    wgprof_status s = WGPROF_OK;
    for (; *next_event < g->event_count && g->events[*next_event].before == before && s == WGPROF_OK; (*next_event)++) {
        const char *name = g->events[*next_event].name;
        s = name ? wgprof_pool_scope_begin(g->pool, name) : wgprof_pool_scope_end(g->pool);
    }
    return s;
}

/* Encodes one node inside `pass` with the graph's in-pass strategy: inside or chain. */
static wgprof_status encode_timed(wgprof_graph *g, WGPUComputePassEncoder pass, const node *n, bool first)
{
    wgprof_status s = WGPROF_OK;
    if (g->settings.strategy == WGPROF_STRATEGY_INSIDE) {
        s = wgprof__pool_begin_site(g->pool, pass, n->site, n->desc.dispatch_id);
        if (s == WGPROF_OK) {
            encode_dispatch(pass, n);
            s = wgprof_pool_end(g->pool, pass);
        }
        return s;
    }
    if (first) {
        s = wgprof_pool_chain_begin(g->pool, pass);
    }
    if (s == WGPROF_OK) {
        encode_dispatch(pass, n);
        s = wgprof__pool_chain_next_site(g->pool, pass, n->site, n->desc.dispatch_id);
    }
    return s;
}

static wgprof_status encode_profiled(wgprof_graph *g, WGPUCommandEncoder enc)
{
    /* A pass per dispatch takes its timestamps on the pass (pass, and chain: bench_phases
     * measured a pass's end-of-pass write as the cheapest of all on the H200); one pass keeps
     * them inside, where the device can. */
    bool in_pass = g->device->info.timestamp_inside_passes;
    wgprof_strategy strategy = g->settings.strategy;
    bool split = strategy == WGPROF_STRATEGY_PASS || g->settings.layout != WGPROF_LAYOUT_SINGLE_PASS ||
                 (strategy == WGPROF_STRATEGY_CHAIN && !in_pass);
    bool pass_writes = split && strategy != WGPROF_STRATEGY_INSIDE;
    WGPUComputePassEncoder pass = split ? NULL : wgpuCommandEncoderBeginComputePass(enc, NULL);
    const wgprof__store *store = wgprof__pool_store(g->pool);
    uint32_t depth = wgprof__store_scope_depth(store), event = 0;
    wgprof_status s = WGPROF_OK;
    for (uint32_t i = 0; i < g->count && s == WGPROF_OK; i++) {
        const node *n = &g->nodes[i];
        s = apply_scopes(g, i, &event);
        if (s == WGPROF_OK && pass_writes) {
            WGPUPassTimestampWrites tw;
            WGPUComputePassDescriptor pd = {0};
            s = strategy == WGPROF_STRATEGY_PASS
                    ? wgprof__pool_pass_writes_site(g->pool, n->site, n->desc.dispatch_id, &tw)
                    : wgprof__pool_chain_pass_writes_site(g->pool, n->site, n->desc.dispatch_id, &tw);
            pd.timestampWrites = &tw; /* read by BeginComputePass only */
            if (s == WGPROF_OK) {
                pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
                encode_dispatch(pass, n);
                end_pass(pass);
            }
        } else if (s == WGPROF_OK && split) {
            pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
            s = encode_timed(g, pass, n, i == 0);
            end_pass(pass);
        } else if (s == WGPROF_OK) {
            s = encode_timed(g, pass, n, i == 0);
        }
    }
    if (s == WGPROF_OK) {
        s = apply_scopes(g, g->count, &event);
    }
    /* Scopes still open close with the graph; after a failure, the ones this execute opened. */
    while (wgprof__store_scope_depth(store) > depth) {
        wgprof_pool_scope_end(g->pool);
    }
    if (!split) {
        end_pass(pass);
    }
    return s;
}

/* Encodes, submits and starts the readback of one profiled execute. */
static wgprof_status submit_profiled(wgprof_graph *g)
{
    /* Everything that can fail for want of room happens before the first WebGPU call, so that
     * an overflow or an allocation failure records nothing. */
    wgprof_status s = wgprof_pool_reserve(g->pool, g->count);
    if (s == WGPROF_OK) {
        s = intern_sites(g);
    }
    if (s == WGPROF_OK) {
        s = validate_once(g);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    uint64_t encode_ns = wgprof__now_ns(), submit_ns = 0, submitted_ns = 0;
    uint64_t errors = wgprof__device_errors(g->device);
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(g->device->device, NULL);
    if (!enc) {
        return WGPROF_ERR_WEBGPU;
    }
    s = encode_profiled(g, enc);
    if (s == WGPROF_OK) {
        s = wgprof_pool_resolve(g->pool, enc);
    }
    if (s != WGPROF_OK) {
        wgprof__pool_discard_batch(g->pool);
        wgpuCommandEncoderRelease(enc);
        return s;
    }
    s = submit(g, enc, errors, &submit_ns, &submitted_ns);
    if (s != WGPROF_OK) {
        wgprof__pool_unresolve(g->pool); /* never submitted: nothing to read */
        return s;
    }
    wgprof__pool_stamp_submit(g->pool, encode_ns, submit_ns, submitted_ns);
    return wgprof_pool_read_async(g->pool);
}

static bool sampled(wgprof_graph *g)
{
    return g->executes++ % g->settings.sample_every == 0;
}

/* Fits the clocks at the first profiled execute, and again when the last fit is old. */
static wgprof_status calibrate_if_due(wgprof_graph *g, bool periodic)
{
    uint64_t last = wgprof__pool_last_calibration_ns(g->pool);
    if (g->settings.no_calibration || (last && (!periodic || wgprof__now_ns() - last < WGPROF__RECALIBRATE_NS))) {
        return WGPROF_OK;
    }
    return wgprof_pool_calibrate(g->pool, g->settings.calibration_samples);
}

/* Whether the graph can run, and whether this execute (or submit) is one to profile. */
static wgprof_status start_run(wgprof_graph *g, bool *profiled)
{
    if (!g) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (atomic_load(&g->device->lost)) {
        return WGPROF_ERR_DEVICE_LOST;
    }
    *profiled = g->profiling && sampled(g);
    return WGPROF_OK;
}

wgprof_status wgprof_graph_execute(wgprof_graph *g)
{
    bool profiled = false;
    wgprof_status started = start_run(g, &profiled);
    if (started != WGPROF_OK) {
        return started;
    }
    if (!profiled) {
        wgprof_status s = submit_plain(g);
        return s != WGPROF_OK ? s : wgprof_device_wait_idle(g->device);
    }
    /* Blocking anyway: earlier batches in flight are read first, and the queue is idle for a
     * calibration. */
    wgprof_status s = wgprof_pool_in_flight(g->pool) ? wgprof_pool_collect(g->pool) : WGPROF_OK;
    if (s == WGPROF_OK) {
        s = calibrate_if_due(g, true);
    }
    if (s == WGPROF_OK) {
        s = submit_profiled(g);
    }
    /* Mapping the readback waits for the submission, so no separate wait is needed. */
    wgprof_status c = wgprof_pool_in_flight(g->pool) ? wgprof_pool_collect(g->pool) : WGPROF_OK;
    return s != WGPROF_OK ? s : c;
}

wgprof_status wgprof_graph_submit(wgprof_graph *g)
{
    bool profiled = false;
    wgprof_status started = start_run(g, &profiled);
    if (started != WGPROF_OK || !profiled) {
        return started != WGPROF_OK ? started : submit_plain(g);
    }
    wgprof_status s = wgprof_pool_collect_ready(g->pool, NULL);
    if (s == WGPROF_OK) {
        s = calibrate_if_due(g, false);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    if (!wgprof__pool_frame_free(g->pool)) {
        /* Every frame is in flight: this execute runs unprofiled and counts as dropped. */
        wgprof__store_count_dropped(wgprof__pool_store(g->pool), g->count);
        return submit_plain(g);
    }
    return submit_profiled(g);
}

wgprof_status wgprof_graph_collect(wgprof_graph *g)
{
    if (!g) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = wgprof_pool_in_flight(g->pool) ? wgprof_pool_collect(g->pool) : WGPROF_OK;
    /* Unprofiled submits may follow the last batch read. */
    wgprof_status w = wgprof_device_wait_idle(g->device);
    return s != WGPROF_OK ? s : w;
}
