/*
 * The registry of the recorded program's objects: its devices (sessions), adapters, feature
 * arrays, shader modules, compute pipelines (proxies), command encoders, compute passes and
 * command buffers, each found by the program's handle. One map and one mutex per kind: the
 * mutex is held for the map's own consistency alone (a lookup, an insertion, a removal), never
 * across a call into the implementation or into libwgprof (record_lib.h's rule). What the
 * objects hold is their owners' business (record_device.c, record_encode.c).
 *
 * Each kind also keeps how many it holds, readable without its mutex: a lookup in an empty map
 * takes no lock. That is the common case of the hooks of every encoder, pass and pipeline of a
 * device left to wgprof's Vulkan layer, which are in no map. A handle the program uses was
 * returned to it after its insertion, so a thread that has it sees a count of at least one.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"
#include "record_lib.h"

typedef struct kind {
    pthread_mutex_t lock;
    wgprof_rec_map map;
    atomic_size_t held; /* map.count, stored under the lock after each change */
} kind;

#define KIND_INIT {PTHREAD_MUTEX_INITIALIZER, {0}, 0}

static kind g_sessions = KIND_INIT; /* WGPUDevice -> wgprof_rec_session */
static kind g_adapters = KIND_INIT; /* WGPUAdapter -> the WGPUInstance it came from */
static kind g_features = KIND_INIT; /* WGPUFeatureName arrays handed out -> themselves */
static kind g_modules = KIND_INIT;  /* WGPUShaderModule -> wgprof_rec_module */
static kind g_pipelines = KIND_INIT; /* the program's WGPUComputePipeline -> wgprof_rec_pipeline */
static kind g_encoders = KIND_INIT; /* WGPUCommandEncoder -> wgprof_rec_encoder */
static kind g_passes = KIND_INIT;   /* WGPUComputePassEncoder -> wgprof_rec_pass */
static kind g_buffers = KIND_INIT;  /* WGPUCommandBuffer holding a batch -> its lane */

/* Every session ever made, in creation order (they are never freed), under g_sessions' lock:
 * walked by the hooks the program's polling calls over and over, where a walk of the map's
 * slots showed. */
static wgprof_rec_session **g_session_list;
static uint32_t g_session_count, g_session_cap;

static bool empty(kind *k) { return atomic_load_explicit(&k->held, memory_order_relaxed) == 0; }

/* Under the lock, after the map changed. */
static void count(kind *k) { atomic_store_explicit(&k->held, k->map.count, memory_order_relaxed); }

static void *get(kind *k, const void *key)
{
    if (empty(k)) {
        return NULL;
    }
    pthread_mutex_lock(&k->lock);
    void *v = wgprof_rec_map_get(&k->map, key);
    pthread_mutex_unlock(&k->lock);
    return v;
}

static bool put(kind *k, const void *key, void *value)
{
    pthread_mutex_lock(&k->lock);
    bool ok = wgprof_rec_map_put(&k->map, key, value);
    count(k);
    pthread_mutex_unlock(&k->lock);
    return ok;
}

static void *take(kind *k, const void *key)
{
    if (empty(k)) {
        return NULL;
    }
    pthread_mutex_lock(&k->lock);
    void *v = wgprof_rec_map_take(&k->map, key);
    count(k);
    pthread_mutex_unlock(&k->lock);
    return v;
}

/* ---- sessions ---- */

bool wgprof_rec_session_put(WGPUDevice device, wgprof_rec_session *session)
{
    pthread_mutex_lock(&g_sessions.lock);
    bool ok = wgprof__reserve((void **)&g_session_list, &g_session_cap, g_session_count + 1, sizeof *g_session_list,
                              4) == WGPROF_OK &&
              wgprof_rec_map_put(&g_sessions.map, device, session);
    count(&g_sessions);
    if (ok) {
        g_session_list[g_session_count++] = session;
    }
    pthread_mutex_unlock(&g_sessions.lock);
    return ok;
}

wgprof_rec_session *wgprof_rec_session_get(WGPUDevice device) { return get(&g_sessions, device); }

wgprof_rec_session *wgprof_rec_session_at(size_t i)
{
    pthread_mutex_lock(&g_sessions.lock);
    wgprof_rec_session *s = i < g_session_count ? g_session_list[i] : NULL;
    pthread_mutex_unlock(&g_sessions.lock);
    return s;
}

/* ---- adapters and feature arrays ---- */

bool wgprof_rec_adapter_put(WGPUAdapter adapter, WGPUInstance instance) { return put(&g_adapters, adapter, instance); }
WGPUInstance wgprof_rec_adapter_get(WGPUAdapter adapter) { return get(&g_adapters, adapter); }
bool wgprof_rec_features_put(void *array) { return put(&g_features, array, array); }
void *wgprof_rec_features_take(const void *array) { return take(&g_features, array); }

/* ---- shader modules, encoders, passes, command buffers ---- */

bool wgprof_rec_module_put(WGPUShaderModule module, wgprof_rec_module *m) { return put(&g_modules, module, m); }
wgprof_rec_module *wgprof_rec_module_get(WGPUShaderModule module) { return get(&g_modules, module); }
wgprof_rec_module *wgprof_rec_module_take(WGPUShaderModule module) { return take(&g_modules, module); }

bool wgprof_rec_encoder_put(WGPUCommandEncoder enc, wgprof_rec_encoder *e) { return put(&g_encoders, enc, e); }
wgprof_rec_encoder *wgprof_rec_encoder_get(WGPUCommandEncoder enc) { return get(&g_encoders, enc); }
wgprof_rec_encoder *wgprof_rec_encoder_take(WGPUCommandEncoder enc) { return take(&g_encoders, enc); }

bool wgprof_rec_pass_put(WGPUComputePassEncoder pass, wgprof_rec_pass *p) { return put(&g_passes, pass, p); }
wgprof_rec_pass *wgprof_rec_pass_get(WGPUComputePassEncoder pass) { return get(&g_passes, pass); }
wgprof_rec_pass *wgprof_rec_pass_take(WGPUComputePassEncoder pass) { return take(&g_passes, pass); }

typedef struct each_pass {
    void (*fn)(wgprof_rec_pass *p, void *user);
    void *user;
} each_pass;

static void call_pass(void *value, void *user)
{
    each_pass *e = user;
    e->fn(value, e->user);
}

void wgprof_rec_pass_each(void (*fn)(wgprof_rec_pass *p, void *user), void *user)
{
    each_pass e = {fn, user};
    pthread_mutex_lock(&g_passes.lock);
    wgprof_rec_map_each(&g_passes.map, call_pass, &e);
    pthread_mutex_unlock(&g_passes.lock);
}

bool wgprof_rec_buffer_put(WGPUCommandBuffer buffer, wgprof_rec_lane *lane) { return put(&g_buffers, buffer, lane); }
wgprof_rec_lane *wgprof_rec_buffer_take(WGPUCommandBuffer buffer) { return take(&g_buffers, buffer); }

/* ---- pipeline proxies: their references counted under the lock ---- */

bool wgprof_rec_pipeline_put(wgprof_rec_pipeline *x) { return put(&g_pipelines, x, x); }

WGPUComputePipeline wgprof_rec_pipeline_real(WGPUComputePipeline handle, wgprof_rec_pipeline_info **info)
{
    if (empty(&g_pipelines)) { /* no proxies: every pipeline is the implementation's */
        if (info) {
            *info = NULL;
        }
        return handle;
    }
    pthread_mutex_lock(&g_pipelines.lock);
    const wgprof_rec_pipeline *x = wgprof_rec_map_get(&g_pipelines.map, handle);
    WGPUComputePipeline real = x ? x->real : handle;
    if (info) {
        *info = x ? x->info : NULL;
    }
    pthread_mutex_unlock(&g_pipelines.lock);
    return real;
}

bool wgprof_rec_pipeline_add_ref(WGPUComputePipeline handle)
{
    if (empty(&g_pipelines)) {
        return false;
    }
    pthread_mutex_lock(&g_pipelines.lock);
    wgprof_rec_pipeline *x = wgprof_rec_map_get(&g_pipelines.map, handle);
    if (x) {
        x->refs++;
    }
    pthread_mutex_unlock(&g_pipelines.lock);
    return x != NULL;
}

WGPUComputePipeline wgprof_rec_pipeline_release(WGPUComputePipeline handle)
{
    WGPUComputePipeline real = handle;
    if (empty(&g_pipelines)) {
        return real;
    }
    pthread_mutex_lock(&g_pipelines.lock);
    wgprof_rec_pipeline *x = wgprof_rec_map_get(&g_pipelines.map, handle);
    if (x && --x->refs > 0) {
        x = NULL;
        real = NULL;
    } else if (x) {
        real = x->real;
        wgprof_rec_map_take(&g_pipelines.map, handle);
        count(&g_pipelines);
    }
    pthread_mutex_unlock(&g_pipelines.lock);
    wgprof__free(x); /* its info stays: see record_encode.c */
    return real;
}
