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
 *
 * A graph may hold a million nodes: nodes share their label and bind-group list, each shape
 * (pipeline and bind groups) is validated once, and a profiled execute of a pass per dispatch
 * goes out in parts (PART_PASSES), so that the host memory per node stays small.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device_internal.h"
#include "recorder.h"
#include "webgpu_ext.h"
#include "wgprof/device_util.h"

typedef struct node {
    WGPUComputePipeline pipeline;
    wgprof_dispatch_desc desc; /* workgroups with 0 as 1; kernel: one of the graph's labels */
    uint32_t list;             /* its bind groups: the graph's lists[list] */
    uint32_t site;             /* interned in the pool of generation site_generation */
} node;

/* A list of bind groups that nodes share: each group referenced once for all of them. */
typedef struct group_list {
    WGPUBindGroup *groups;
    uint32_t count;
} group_list;

/* A pipeline with a list of bind groups: what encoding a node judges, but for the workgroup
 * counts, which wgprof_graph_add checks against the limits. */
typedef struct shape {
    WGPUComputePipeline pipeline;
    uint32_t list;
} shape;

/* What a share table indexes: the graph's labels, its bind group lists, or the shapes that
 * encoded without error. */
typedef enum share_kind { SHARE_LABEL, SHARE_LIST, SHARE_SHAPE } share_kind;

/* Indices by hash, open addressing: slots hold index + 1, 0 is empty. */
typedef struct share_table {
    uint32_t *slots;
    uint32_t cap; /* a power of two, at least twice the items */
} share_table;

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
    /* Nodes share labels and bind group lists with the nodes before them that have the same: a
     * graph of a million dispatches of a few kernels keeps a few of each, not a million. */
    char **labels;
    uint32_t label_count, label_cap;
    group_list *lists;
    uint32_t list_count, list_cap;
    shape *shapes;
    uint32_t shape_count, shape_cap;
    share_table label_index, list_index, shape_index;
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
        wgprof__wgpu()->computePipelineRelease(g->nodes[i].pipeline);
    }
    for (uint32_t i = 0; i < g->list_count; i++) {
        for (uint32_t k = 0; k < g->lists[i].count; k++) {
            wgprof__wgpu()->bindGroupRelease(g->lists[i].groups[k]);
        }
        wgprof__free(g->lists[i].groups);
    }
    for (uint32_t i = 0; i < g->label_count; i++) {
        wgprof__free(g->labels[i]);
    }
    wgprof__free(g->labels);
    wgprof__free(g->lists);
    wgprof__free(g->shapes);
    wgprof__free(g->label_index.slots);
    wgprof__free(g->list_index.slots);
    wgprof__free(g->shape_index.slots);
    for (uint32_t i = 0; i < g->event_count; i++) {
        wgprof__free(g->events[i].name);
    }
    wgprof__free(g->events);
    wgprof__free(g->nodes);
    wgprof_pool_destroy(g->pool);
    wgprof__free(g);
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h = (h ^ p[i]) * 0x100000001b3ull; /* FNV-1a */
    }
    return h;
}

static uint64_t share_hash(share_kind kind, const void *key)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (kind == SHARE_LABEL) {
        return hash_bytes(h, key, strlen(key));
    }
    if (kind == SHARE_LIST) {
        const group_list *l = key;
        h = hash_bytes(h, &l->count, sizeof l->count);
        return l->count ? hash_bytes(h, l->groups, l->count * sizeof *l->groups) : h;
    }
    const shape *s = key;
    h = hash_bytes(h, &s->pipeline, sizeof s->pipeline);
    return hash_bytes(h, &s->list, sizeof s->list);
}

static const void *share_item(const wgprof_graph *g, share_kind kind, uint32_t i)
{
    return kind == SHARE_LABEL ? (const void *)g->labels[i]
           : kind == SHARE_LIST ? (const void *)&g->lists[i]
                                : (const void *)&g->shapes[i];
}

static bool share_same(share_kind kind, const void *a, const void *b)
{
    if (kind == SHARE_LABEL) {
        return strcmp(a, b) == 0;
    }
    if (kind == SHARE_LIST) {
        const group_list *x = a, *y = b;
        return x->count == y->count && (!x->count || memcmp(x->groups, y->groups, x->count * sizeof *x->groups) == 0);
    }
    const shape *x = a, *y = b;
    return x->pipeline == y->pipeline && x->list == y->list;
}

/* The slot of the item equal to `key`, or the empty slot where it would go. */
static uint32_t *share_slot(const wgprof_graph *g, const share_table *t, share_kind kind, const void *key)
{
    uint32_t i = (uint32_t)share_hash(kind, key) & (t->cap - 1);
    while (t->slots[i] && !share_same(kind, share_item(g, kind, t->slots[i] - 1), key)) {
        i = (i + 1) & (t->cap - 1);
    }
    return &t->slots[i];
}

/* Room in `t` for `items` + 1 entries, rehashing the `items` it holds. */
static wgprof_status share_grow(wgprof_graph *g, share_table *t, share_kind kind, uint32_t items)
{
    if ((uint64_t)(items + 1) * 2 <= t->cap) {
        return WGPROF_OK;
    }
    if (t->cap >= (1u << 31)) {
        return WGPROF_ERR_CAPACITY;
    }
    uint32_t cap = t->cap ? t->cap * 2 : 16;
    uint32_t *slots = wgprof__calloc(cap, sizeof *slots);
    if (!slots) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    wgprof__free(t->slots);
    t->slots = slots;
    t->cap = cap;
    for (uint32_t i = 0; i < items; i++) {
        *share_slot(g, t, kind, share_item(g, kind, i)) = i + 1;
    }
    return WGPROF_OK;
}

/* The graph's copy of `text`, made when no node has it yet. */
static wgprof_status share_label(wgprof_graph *g, const char *text, const char **out)
{
    if (g->count && strcmp(g->nodes[g->count - 1].desc.kernel, text) == 0) {
        *out = g->nodes[g->count - 1].desc.kernel; /* the common case: a node repeated */
        return WGPROF_OK;
    }
    wgprof_status s = share_grow(g, &g->label_index, SHARE_LABEL, g->label_count);
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&g->labels, &g->label_cap, g->label_count + 1, sizeof *g->labels, 8);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    uint32_t *slot = share_slot(g, &g->label_index, SHARE_LABEL, text);
    if (!*slot) {
        char *copy = wgprof__strdup(text);
        if (!copy) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        g->labels[g->label_count++] = copy;
        *slot = g->label_count;
    }
    *out = g->labels[*slot - 1];
    return WGPROF_OK;
}

/* The index of the graph's list holding `groups`, made (and its groups referenced) when new. */
static wgprof_status share_list(wgprof_graph *g, const WGPUBindGroup *groups, uint32_t count, uint32_t *out)
{
    group_list key = {(WGPUBindGroup *)groups, count};
    if (g->count && share_same(SHARE_LIST, &g->lists[g->nodes[g->count - 1].list], &key)) {
        *out = g->nodes[g->count - 1].list;
        return WGPROF_OK;
    }
    wgprof_status s = share_grow(g, &g->list_index, SHARE_LIST, g->list_count);
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&g->lists, &g->list_cap, g->list_count + 1, sizeof *g->lists, 8);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    uint32_t *slot = share_slot(g, &g->list_index, SHARE_LIST, &key);
    if (!*slot) {
        group_list list = {count ? wgprof__calloc(count, sizeof *list.groups) : NULL, count};
        if (count && !list.groups) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t k = 0; k < count; k++) {
            list.groups[k] = groups[k];
            wgprof__wgpu()->bindGroupAddRef(groups[k]);
        }
        g->lists[g->list_count++] = list;
        *slot = g->list_count;
    }
    *out = *slot - 1;
    return WGPROF_OK;
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
    s = share_label(g, nd->kernel ? nd->kernel : "unnamed", &n.desc.kernel);
    if (s == WGPROF_OK) {
        s = share_list(g, nd->bind_groups, nd->bind_group_count, &n.list);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    n.pipeline = nd->pipeline;
    wgprof__wgpu()->computePipelineAddRef(n.pipeline);
    for (int k = 0; k < 3; k++) {
        n.desc.workgroups[k] = nd->workgroups[k] ? nd->workgroups[k] : 1;
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
    out->bind_group_count = g->lists[n->list].count;
    out->bind_groups = g->lists[n->list].groups;
    memcpy(out->workgroups, n->desc.workgroups, sizeof out->workgroups);
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

static void encode_dispatch(const wgprof_graph *g, WGPUComputePassEncoder pass, const node *n)
{
    const group_list *list = &g->lists[n->list];
    wgprof__wgpu()->computePassEncoderSetPipeline(pass, n->pipeline);
    for (uint32_t k = 0; k < list->count; k++) {
        wgprof__wgpu()->computePassEncoderSetBindGroup(pass, k, list->groups[k], 0, NULL);
    }
    wgprof__wgpu()->computePassEncoderDispatchWorkgroups(pass, n->desc.workgroups[0], n->desc.workgroups[1],
                                                             n->desc.workgroups[2]);
}

static void end_pass(WGPUComputePassEncoder pass)
{
    wgprof__wgpu()->computePassEncoderEnd(pass);
    wgprof__wgpu()->computePassEncoderRelease(pass);
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
    wgprof__wgpu()->queueSubmit(g->device->queue, 1, &cb);
    if (submitted_ns) {
        *submitted_ns = wgprof__now_ns();
    }
    wgprof__wgpu()->commandBufferRelease(cb);
    return WGPROF_OK;
}

/* The plain executor's encoding of `n` nodes into a new encoder, NULL when none was made: nodes
 * order[0] to order[n - 1], or with order NULL the first n (all of them: what an engine
 * without wgprof does). */
static WGPUCommandEncoder encode_plain(wgprof_graph *g, const uint32_t *order, uint32_t n)
{
    WGPUCommandEncoder enc = wgprof__wgpu()->deviceCreateCommandEncoder(g->device->device, NULL);
    if (!enc) {
        return NULL;
    }
    if (g->settings.layout == WGPROF_LAYOUT_SINGLE_PASS) {
        WGPUComputePassEncoder pass = wgprof__wgpu()->commandEncoderBeginComputePass(enc, NULL);
        for (uint32_t i = 0; i < n; i++) {
            encode_dispatch(g, pass, &g->nodes[order ? order[i] : i]);
        }
        end_pass(pass);
    } else {
        for (uint32_t i = 0; i < n; i++) {
            WGPUComputePassEncoder pass = wgprof__wgpu()->commandEncoderBeginComputePass(enc, NULL);
            encode_dispatch(g, pass, &g->nodes[order ? order[i] : i]);
            end_pass(pass);
        }
    }
    return enc;
}

static wgprof_status submit_plain(wgprof_graph *g)
{
    uint64_t errors = wgprof__device_errors(g->device);
    WGPUCommandEncoder enc = encode_plain(g, NULL, g->count);
    return enc ? submit(g, enc, errors, NULL, NULL) : WGPROF_ERR_WEBGPU;
}

/* A profiled execute of a pass per dispatch is encoded and submitted a part at a time, each of
 * at least PART_PASSES passes and ending before a pass that writes its own beginning timestamp,
 * so that no duration spans two submits; at most two parts are in flight. wgpu-native holds two
 * command buffers per pass until their submit has run, and lavapipe's take about 6 KB each: a
 * million passes at once would hold 12 GB. */
enum { PART_PASSES = 4000 };

/* Before its nodes are first encoded with timestamps, they are encoded without them and
 * finished, never submitted: a node the device rejects then fails here, before any of the
 * pool's query sets is written into an encoder that wgpu-native must drop (valgrind saw
 * lavapipe read such a query set after its release, at the device's teardown). Only one node of
 * each shape (pipeline and bind groups) is encoded, once: wgpu-native keeps the command buffers
 * of a command buffer released unsubmitted until the device goes (about 12 KB a pass on
 * lavapipe), so validating a million passes held 12 GB. The unprofiled path never validates,
 * so that its calls stay a plain executor's. */
static wgprof_status validate_once(wgprof_graph *g)
{
    if (g->validated == g->count) {
        return WGPROF_OK;
    }
    uint32_t cap = g->count - g->validated < PART_PASSES ? g->count - g->validated : PART_PASSES;
    uint32_t *order = wgprof__alloc(cap * sizeof *order);
    if (!order) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    uint32_t shapes_before = g->shape_count, n = 0;
    wgprof_status s = WGPROF_OK;
    for (uint32_t i = g->validated; i < g->count && s == WGPROF_OK; i++) {
        shape key = {g->nodes[i].pipeline, g->nodes[i].list};
        s = share_grow(g, &g->shape_index, SHARE_SHAPE, g->shape_count);
        if (s == WGPROF_OK) {
            s = wgprof__reserve((void **)&g->shapes, &g->shape_cap, g->shape_count + 1, sizeof *g->shapes, 8);
        }
        uint32_t *slot = s == WGPROF_OK ? share_slot(g, &g->shape_index, SHARE_SHAPE, &key) : NULL;
        if (slot && !*slot) {
            g->shapes[g->shape_count++] = key;
            *slot = g->shape_count;
            order[n++] = i;
        }
        if (s == WGPROF_OK && n && (n == cap || i + 1 == g->count)) {
            uint64_t errors = wgprof__device_errors(g->device);
            WGPUCommandEncoder enc = encode_plain(g, order, n);
            WGPUCommandBuffer cb = NULL;
            s = enc ? wgprof__device_finish(g->device, enc, errors, &cb) : WGPROF_ERR_WEBGPU;
            if (cb) {
                wgprof__wgpu()->commandBufferRelease(cb);
            }
            n = 0;
        }
    }
    wgprof__free(order);
    if (s != WGPROF_OK) {
        /* Shapes of this round count as unchecked again: the table is rebuilt without them. */
        g->shape_count = shapes_before;
        if (g->shape_index.slots) {
            memset(g->shape_index.slots, 0, g->shape_index.cap * sizeof *g->shape_index.slots);
        }
        for (uint32_t k = 0; k < g->shape_count; k++) {
            *share_slot(g, &g->shape_index, SHARE_SHAPE, &g->shapes[k]) = k + 1;
        }
        return s;
    }
    g->validated = g->count;
    return WGPROF_OK;
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
            encode_dispatch(g, pass, n);
            s = wgprof_pool_end(g->pool, pass);
        }
        return s;
    }
    if (first) {
        s = wgprof_pool_chain_begin(g->pool, pass);
    }
    if (s == WGPROF_OK) {
        encode_dispatch(g, pass, n);
        s = wgprof__pool_chain_next_site(g->pool, pass, n->site, n->desc.dispatch_id);
    }
    return s;
}

/* A profiled execute's encoder, and the parts of it already submitted. */
typedef struct encoding {
    WGPUCommandEncoder enc;
    uint64_t errors;      /* the device's error count when enc was made */
    uint32_t passes;      /* begun in enc */
    uint32_t parts;       /* submitted */
    uint64_t submit_ns;   /* the first part's submit; 0 before it */
    uint64_t submitting_ns; /* in wgpuQueueSubmit, which may run the work (lavapipe) */
    uint64_t waited_ns;   /* for parts to finish */
    wgprof__waiter *done; /* the part submitted last, done when its work is */
} encoding;

static void on_part_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *userdata1, void *userdata2)
{
    (void)message;
    (void)userdata2;
    wgprof__waiter *w = userdata1;
    w->status = (int)status;
    wgprof__waiter_signal(w);
}

/* Submits the part encoded so far and opens the next encoder, first waiting for the part
 * submitted before it: its command buffers are then reused for the next part. */
static wgprof_status submit_part(wgprof_graph *g, encoding *e)
{
    WGPUCommandEncoder enc = e->enc;
    uint64_t submit_ns = 0, submitted_ns = 0;
    e->enc = NULL;
    wgprof_status s = submit(g, enc, e->errors, &submit_ns, &submitted_ns);
    if (s == WGPROF_OK) {
        e->submit_ns = e->parts++ ? e->submit_ns : submit_ns;
        e->submitting_ns += submitted_ns - submit_ns;
    }
    if (s == WGPROF_OK && e->done) {
        uint64_t start = wgprof__now_ns();
        s = wgprof__device_wait(g->device, e->done);
        if (s == WGPROF_OK && e->done->status != (int)WGPUQueueWorkDoneStatus_Success) {
            s = atomic_load(&g->device->lost) ? WGPROF_ERR_DEVICE_LOST : WGPROF_ERR_WEBGPU;
        }
        e->waited_ns += wgprof__now_ns() - start;
    }
    wgprof__waiter_release(e->done);
    e->done = s == WGPROF_OK ? wgprof__waiter_new() : NULL;
    if (s != WGPROF_OK || !e->done) {
        return s != WGPROF_OK ? s : WGPROF_ERR_OUT_OF_MEMORY;
    }
    WGPUQueueWorkDoneCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = on_part_done;
    cb.userdata1 = e->done;
    e->done->future = wgprof__wgpu()->queueOnSubmittedWorkDone(g->device->queue, cb);
    e->errors = wgprof__device_errors(g->device);
    e->enc = wgprof__wgpu()->deviceCreateCommandEncoder(g->device->device, NULL);
    e->passes = 0;
    return e->enc ? WGPROF_OK : WGPROF_ERR_WEBGPU;
}

static wgprof_status encode_profiled(wgprof_graph *g, encoding *e)
{
    /* A pass per dispatch takes its timestamps on the pass (pass, and chain: bench_phases
     * measured a pass's end-of-pass write as the cheapest of all on the H200); one pass keeps
     * them inside, where the device can. */
    bool in_pass = g->device->info.timestamp_inside_passes;
    wgprof_strategy strategy = g->settings.strategy;
    bool split = strategy == WGPROF_STRATEGY_PASS || g->settings.layout != WGPROF_LAYOUT_SINGLE_PASS ||
                 (strategy == WGPROF_STRATEGY_CHAIN && !in_pass);
    bool pass_writes = split && strategy != WGPROF_STRATEGY_INSIDE;
    WGPUComputePassEncoder pass = split ? NULL : wgprof__wgpu()->commandEncoderBeginComputePass(e->enc, NULL);
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
            if (s == WGPROF_OK && e->passes >= PART_PASSES &&
                tw.beginningOfPassWriteIndex != WGPU_QUERY_SET_INDEX_UNDEFINED) {
                s = submit_part(g, e);
            }
            if (s == WGPROF_OK) {
                pass = wgprof__wgpu()->commandEncoderBeginComputePass(e->enc, &pd);
                encode_dispatch(g, pass, n);
                end_pass(pass);
                e->passes++;
            }
        } else if (s == WGPROF_OK && split) {
            /* Inside: each pass holds its own pair of timestamps. */
            s = e->passes >= PART_PASSES ? submit_part(g, e) : WGPROF_OK;
            if (s == WGPROF_OK) {
                pass = wgprof__wgpu()->commandEncoderBeginComputePass(e->enc, NULL);
                s = encode_timed(g, pass, n, i == 0);
                end_pass(pass);
                e->passes++;
            }
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
    encoding e = {0};
    e.errors = wgprof__device_errors(g->device);
    e.enc = wgprof__wgpu()->deviceCreateCommandEncoder(g->device->device, NULL);
    if (!e.enc) {
        return WGPROF_ERR_WEBGPU;
    }
    s = encode_profiled(g, &e);
    if (s == WGPROF_OK) {
        s = wgprof_pool_resolve(g->pool, e.enc);
    }
    if (s != WGPROF_OK) {
        /* Parts already submitted ran unresolved: nothing of this batch is recorded. */
        wgprof__pool_discard_batch(g->pool);
        if (e.enc) {
            wgprof__wgpu()->commandEncoderRelease(e.enc);
        }
        wgprof__waiter_release(e.done);
        return s;
    }
    s = submit(g, e.enc, e.errors, &submit_ns, &submitted_ns);
    wgprof__waiter_release(e.done);
    if (s != WGPROF_OK) {
        wgprof__pool_unresolve(g->pool); /* the resolve was never submitted: nothing to read */
        return s;
    }
    if (e.parts) {
        e.submitting_ns += submitted_ns - submit_ns;
        uint64_t encoding_ns = submitted_ns - encode_ns - e.waited_ns - e.submitting_ns;
        wgprof__log(WGPROF_LOG_DEBUG,
                    "%u dispatches in %u submits: %.3f ms encoding (%.3f us a dispatch), %.3f ms submitting, "
                    "%.3f ms waiting for earlier submits",
                    g->count, e.parts + 1, (double)encoding_ns / 1e6, (double)encoding_ns / 1e3 / g->count,
                    (double)e.submitting_ns / 1e6, (double)e.waited_ns / 1e6);
    }
    /* The first part's submit: the earliest any dispatch of the batch could start. */
    wgprof__pool_stamp_submit(g->pool, encode_ns, e.parts ? e.submit_ns : submit_ns, submitted_ns);
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
