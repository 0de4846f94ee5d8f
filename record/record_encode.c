/*
 * The encoding hooks: compute pipelines get their kernel names; a command encoder's compute
 * dispatches are timed in the pool of its device's session (a chain of in-pass timestamps, or
 * pairs with --strategy inside), pass labels and debug groups become scopes, and the batch is
 * resolved in a command buffer of wgprof's appended to the submit that carries the encoder's
 * buffer, then read back without blocking. Each encoder holds a lane (a pool) of its device's
 * session from its first timed work to its submit; encoders recorded side by side hold one
 * each. Work encoded and never submitted is forgotten.
 *
 * The objects are the registry's (record_registry.c). An encoder's and its passes' state is
 * used by the one thread recording them (WebGPU's rule), without a lock; so is the lane the
 * encoder holds, between wgprof_rec_lane_enter and _leave (record_device.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "record_lib.h"
#include "webgpu_ext.h"
#include "common.h"

typedef struct wgprof_rec_pipeline_info {
    char *name;
    size_t first_len; /* the part of the name before the entry point: the label, or what stands for it */
    const char *source; /* where that part came from, for the reports (static) */
    uint32_t workgroup_size[3]; /* read from the WGSL; 0,0,0 when it cannot be told */
} pipeline_info;

typedef struct wgprof_rec_encoder {
    wgprof_rec_session *session;
    wgprof_rec_lane *lane; /* the lane it holds; NULL before its first timed work, or none free */
    bool sampled;     /* --sample-every chose it */
    bool finished;
    unsigned debug_depth; /* scopes of its own debug groups open */
} encoder_state;

typedef struct wgprof_rec_pass {
    WGPUCommandEncoder encoder;
    wgprof_rec_session *session;
    wgprof_rec_lane *lane; /* its encoder's: NULL where its dispatches are not timed */
    pipeline_info *pipeline; /* set last */
    bool sampled;     /* its encoder's */
    bool label_scope; /* a scope named by its label is open */
    unsigned debug_depth;
} pass_state;

typedef struct wgprof_rec_module {
    char *label;  /* "" when none */
    char *source; /* its WGSL; NULL for other sources */
    char code[16]; /* the kind of its code and a hash of it ("wgsl-1a2b3c4d"); "" when unknown */
    atomic_long made; /* creations that returned this handle (Dawn's cache hands one out again for
                         the same code) less their releases */
} module_info;

/* What the program holds for each compute pipeline it creates on a device this library times
 * (wgprof_rec_pipeline; a device left to the layer keeps the implementation's handles): Dawn
 * hands out one object for pipelines that differ only in their labels (its cache), so the
 * program's handle must be wgprof's own to tell them apart. The proxy holds one reference to
 * the implementation's pipeline and counts the program's; its info outlives it (a pass set to
 * it before its release still names its dispatches). Every hook that takes a compute pipeline
 * translates it, also for libwgprof's own calls (a graph made with the program's pipelines). */
typedef wgprof_rec_pipeline pipeline_proxy;

static bool hooks_on(void) { return wgprof_rec_active(); }

static size_t view_length(WGPUStringView v)
{
    return !v.data ? 0 : v.length == WGPU_STRLEN ? strlen(v.data) : v.length;
}

static char *copy_view(WGPUStringView v)
{
    size_t n = view_length(v);
    char *s = wgprof__alloc(n + 1);
    if (s) {
        if (n) {
            memcpy(s, v.data, n);
        }
        s[n] = '\0';
    }
    return s;
}

/* ---- names ---- */

static void free_module(module_info *m)
{
    if (m) {
        wgprof__free(m->label);
        wgprof__free(m->source);
        wgprof__free(m);
    }
}

static void free_pipeline(pipeline_info *p)
{
    if (p) {
        wgprof__free(p->name);
        wgprof__free(p);
    }
}

void wgprof_rec_module_keep(WGPUShaderModule module, WGPUStringView label, wgprof_rec_code kind, const void *code,
                            size_t bytes)
{
    static const char *const kinds[] = {"", "wgsl", "spirv", "glsl"};
    module_info *m = module ? wgprof_rec_module_get(module) : NULL;
    if (m) { /* the same code again, as its first creation described it (so does Dawn) */
        atomic_fetch_add(&m->made, 1);
        return;
    }
    m = module ? wgprof__calloc(1, sizeof *m) : NULL;
    if (!m) {
        return;
    }
    atomic_init(&m->made, 1);
    m->label = copy_view(label);
    if (kind == WGPROF_REC_CODE_WGSL) {
        m->source = copy_view((WGPUStringView){code, bytes});
    }
    if (kind != WGPROF_REC_CODE_UNKNOWN && (unsigned)kind < sizeof kinds / sizeof kinds[0] && (code || !bytes)) {
        code_hash_name(m->code, kinds[kind], code_hash_fnv1a(CODE_HASH_OFFSET, code, bytes));
    }
    if (!m->label || (kind == WGPROF_REC_CODE_WGSL && !m->source) || !wgprof_rec_module_put(module, m)) {
        free_module(m);
    }
}

/* The code a shader module descriptor's chain holds (WGSL, SPIR-V, wgpu-native's GLSL). */
static wgprof_rec_code code_of(WGPUShaderModuleDescriptor const *d, const void **code, size_t *bytes)
{
    /* wgpu.h's WGPUSType_ShaderSourceGLSL (in the range webgpu.h gives wgpu-native), whose
     * struct begins as below: wgpu.h is not always there to build against. */
    enum { STYPE_GLSL = 0x00030003 };
    typedef struct {
        WGPUChainedStruct chain;
        WGPUShaderStage stage;
        WGPUStringView code;
    } glsl_source;
    for (const WGPUChainedStruct *c = d->nextInChain; c; c = c->next) {
        if (c->sType == WGPUSType_ShaderSourceWGSL) {
            const WGPUShaderSourceWGSL *w = (const void *)c;
            *code = w->code.data;
            *bytes = view_length(w->code);
            return WGPROF_REC_CODE_WGSL;
        }
        if (c->sType == WGPUSType_ShaderSourceSPIRV) {
            const WGPUShaderSourceSPIRV *v = (const void *)c;
            *code = v->code;
            *bytes = v->code ? (size_t)v->codeSize * sizeof *v->code : 0;
            return WGPROF_REC_CODE_SPIRV;
        }
        if ((unsigned)c->sType == STYPE_GLSL) {
            const glsl_source *g = (const void *)c;
            *code = g->code.data;
            *bytes = view_length(g->code);
            return WGPROF_REC_CODE_GLSL;
        }
    }
    *code = NULL;
    *bytes = 0;
    return WGPROF_REC_CODE_UNKNOWN;
}

/* Kept for naming pipelines (the label, a hash of the code) and for their workgroup sizes (the
 * WGSL). */
WGPROF_REC_EXPORT WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device,
                                                                WGPUShaderModuleDescriptor const *descriptor)
{
    WGPUShaderModule module = wgprof_rec_real()->deviceCreateShaderModule(device, descriptor);
    if (!module || !descriptor || !hooks_on()) {
        return module;
    }
    const void *code;
    size_t bytes;
    wgprof_rec_code kind = code_of(descriptor, &code, &bytes);
    wgprof_rec_module_keep(module, descriptor->label, kind, code, bytes);
    return module;
}

WGPROF_REC_EXPORT void wgpuShaderModuleRelease(WGPUShaderModule module)
{
    module_info *m = hooks_on() ? wgprof_rec_module_get(module) : NULL;
    if (m && atomic_fetch_sub(&m->made, 1) <= 1) {
        free_module(wgprof_rec_module_take(module));
    }
    wgprof_rec_real()->shaderModuleRelease(module);
}

/* The entry point a pipeline names, or where it names none, the module's only @compute one. */
static bool entry_point(WGPUStringView named, const module_info *m, char *out, size_t cap)
{
    size_t n = view_length(named);
    if (n) {
        snprintf(out, cap, "%.*s", (int)(n < cap - 1 ? n : cap - 1), named.data);
        return true;
    }
    const char *at = m && m->source ? strstr(m->source, "@compute") : NULL;
    const char *fn = at ? strstr(at, "fn ") : NULL;
    if (!fn || strstr(at + 8, "@compute")) {
        return false;
    }
    fn += 3;
    while (*fn == ' ' || *fn == '\t' || *fn == '\n') {
        fn++;
    }
    size_t len = strcspn(fn, " \t\n(");
    snprintf(out, cap, "%.*s", (int)(len < cap - 1 ? len : cap - 1), fn);
    return len > 0;
}

enum { MAX_CONSTANTS = 64 };

/* The pipeline's workgroup size from its module's WGSL and constants; 0,0,0 when unknown. */
static void workgroup_size(WGPUConstantEntry const *given, size_t count, const module_info *m, const char *entry,
                           uint32_t out[3])
{
    memset(out, 0, 3 * sizeof *out);
    if (!m || !m->source || !entry[0] || count > MAX_CONSTANTS || (count && !given)) {
        return;
    }
    wgsl_constant constants[MAX_CONSTANTS];
    char names[MAX_CONSTANTS][128];
    for (size_t i = 0; i < count; i++) {
        size_t n = view_length(given[i].key);
        snprintf(names[i], sizeof names[i], "%.*s", (int)(n < 127 ? n : 127), n ? given[i].key.data : "");
        constants[i].name = names[i];
        constants[i].value = given[i].value;
    }
    char why[256];
    if (!wgsl_workgroup_size(m->source, entry, constants, count, out, why, sizeof why)) {
        memset(out, 0, 3 * sizeof *out);
    }
}

static int compare_keys(WGPUStringView a, WGPUStringView b)
{
    size_t n = view_length(a), k = view_length(b);
    int c = memcmp(n ? a.data : "", k ? b.data : "", n < k ? n : k);
    return c ? c : (n > k) - (n < k);
}

/* "(name=value,...)" of the pipeline's override constants, by name: it tells apart pipelines of
 * one module and entry point that differ in them, the same whatever order the program gave them
 * in. Where that would be long (or there are very many), "(#xxxxxxxx)", a hash of it. "" with
 * no constants. */
static void constants_text(WGPUConstantEntry const *constants, size_t count, char *out, size_t cap)
{
    enum { READABLE = 48 };
    out[0] = '\0';
    if (!count || !constants) {
        return;
    }
    size_t order[MAX_CONSTANTS];
    size_t sorted = count <= MAX_CONSTANTS ? count : 0; /* past that, in the program's order */
    for (size_t i = 0; i < sorted; i++) {
        size_t j = i;
        for (; j > 0 && compare_keys(constants[order[j - 1]].key, constants[i].key) > 0; j--) {
            order[j] = order[j - 1];
        }
        order[j] = i;
    }
    char text[1024];
    size_t len = 0;
    uint64_t h = CODE_HASH_OFFSET;
    for (size_t i = 0; i < count; i++) {
        const WGPUConstantEntry *c = &constants[sorted ? order[i] : i];
        size_t n = view_length(c->key);
        char value[32];
        snprintf(value, sizeof value, "%g", c->value);
        if (strtod(value, NULL) != c->value) { /* the shortest text that reads back as the value */
            snprintf(value, sizeof value, "%.17g", c->value);
        }
        h = code_hash_fnv1a(code_hash_fnv1a(h, n ? c->key.data : "", n), "=", 1);
        h = code_hash_fnv1a(code_hash_fnv1a(h, value, strlen(value)), ",", 1);
        if (len < sizeof text) {
            int w = snprintf(text + len, sizeof text - len, "%s%.*s=%s", i ? "," : "", (int)(n < 128 ? n : 128),
                             n ? c->key.data : "", value);
            len += w > 0 ? (size_t)w : sizeof text;
        }
    }
    if (len <= READABLE) {
        snprintf(out, cap, "(%.*s)", (int)len, text);
    } else {
        snprintf(out, cap, "(#%08x)", (unsigned)(h ^ (h >> 32)));
    }
}

wgprof_rec_pipeline_info *wgprof_rec_pipeline_describe(WGPUStringView label, WGPUShaderModule module,
                                                       WGPUStringView entry, WGPUConstantEntry const *constants,
                                                       size_t constant_count)
{
    pipeline_info *p = wgprof__calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    const module_info *m = module ? wgprof_rec_module_get(module) : NULL;
    char first[256], entry_name[256], values[64], name[600];
    size_t n = view_length(label);
    values[0] = '\0';
    if (n) { /* the program's own name for it, as it gave it */
        snprintf(first, sizeof first, "%.*s", (int)(n < 255 ? n : 255), label.data);
        p->source = "pipeline label";
    } else {
        snprintf(first, sizeof first, "%s", m && m->label[0] ? m->label : m && m->code[0] ? m->code : "unnamed");
        p->source = m && m->label[0] ? "shader module label" : m && m->code[0] ? "shader code hash" : "no label, code unknown";
        constants_text(constants, constant_count, values, sizeof values);
    }
    bool has_entry = entry_point(entry, m, entry_name, sizeof entry_name);
    snprintf(name, sizeof name, "%s%s%s%s", first, has_entry ? ":" : "", has_entry ? entry_name : "", values);
    if (has_entry) {
        workgroup_size(constants, constant_count, m, entry_name, p->workgroup_size);
    }
    p->first_len = strlen(first);
    p->name = wgprof__strdup(name);
    if (!p->name) {
        wgprof__free(p);
        return NULL;
    }
    return p;
}

static pipeline_info *describe(WGPUComputePipelineDescriptor const *d)
{
    return wgprof_rec_pipeline_describe(d->label, d->compute.module, d->compute.entryPoint, d->compute.constants,
                                        d->compute.constantCount);
}

/* The program's handle for `real`, described by `info` (which it takes); `real` itself where
 * there is no memory for a proxy. */
static WGPUComputePipeline proxy_for(WGPUComputePipeline real, pipeline_info *info)
{
    pipeline_proxy *x = info ? wgprof__calloc(1, sizeof *x) : NULL;
    if (x) {
        x->real = real;
        x->info = info;
        x->refs = 1;
    }
    if (!x || !wgprof_rec_pipeline_put(x)) {
        wgprof__free(x);
        free_pipeline(info);
        return real;
    }
    return (WGPUComputePipeline)(void *)x;
}

/* The implementation's pipeline for the program's handle (and its info, where it is a proxy). */
static WGPUComputePipeline real_pipeline(WGPUComputePipeline handle, pipeline_info **info)
{
    return wgprof_rec_pipeline_real(handle, info);
}

/* Beside wgprof's Vulkan layer, a device this library does not time is the layer's
 * (record_device.c): the name this library would give a pipeline's dispatches goes down to
 * Vulkan with it, for the layer to name them so. */
static bool named_for_layer(WGPUDevice device)
{
    return wgprof_rec_settings_get()->layer[0] && !wgprof_rec_session_get(device);
}

/* The pipeline the calling thread is making for a device left to the layer (record.h,
 * RECORD_SYMBOL_PIPELINE_NAME): its name, for the layer to ask while the implementation makes
 * the Vulkan pipeline on this thread. Nothing of the program's descriptor changes. */
static _Thread_local const pipeline_info *t_making;

WGPROF_REC_EXPORT const char *wgprof_record_pipeline_name(const char **source);
WGPROF_REC_EXPORT const char *wgprof_record_pipeline_name(const char **source)
{
    *source = t_making ? t_making->source : NULL;
    return t_making ? t_making->name : NULL;
}

/* Made with its name told to the layer, as the implementation makes it on this thread. */
static WGPUComputePipeline create_named(WGPUDevice device, WGPUComputePipelineDescriptor const *d,
                                        const pipeline_info *info)
{
    const pipeline_info *outer = t_making; /* a callback of the program's inside the call may make another */
    t_making = info;
    WGPUComputePipeline p = wgprof_rec_real()->deviceCreateComputePipeline(device, d);
    t_making = outer;
    return p;
}

WGPROF_REC_EXPORT WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice device,
                                                                      WGPUComputePipelineDescriptor const *descriptor)
{
    if (!descriptor || !hooks_on()) {
        return wgprof_rec_real()->deviceCreateComputePipeline(device, descriptor);
    }
    pipeline_info *info = describe(descriptor);
    bool layer = info && named_for_layer(device);
    WGPUComputePipeline p = layer ? create_named(device, descriptor, info)
                                  : wgprof_rec_real()->deviceCreateComputePipeline(device, descriptor);
    if (!p || layer) {
        /* The layer's pipeline is named by now: the program gets the implementation's handle, so
         * that the hooks of a program that times nothing here find no proxy map to look in. */
        free_pipeline(info);
        return p;
    }
    return proxy_for(p, info);
}

typedef struct pipeline_request {
    WGPUCreateComputePipelineAsyncCallbackInfo theirs;
    pipeline_info *info;
    bool layer;   /* for a device left to the layer: no proxy */
    bool counted; /* in g_pending until its callback */
    pthread_t asker;
    struct pipeline_request *next_pending;
} pipeline_request;

/* The program's asynchronous creations pending for devices left to the layer (record.h). */
static pthread_mutex_t g_pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pipeline_request *g_pending;

WGPROF_REC_EXPORT unsigned wgprof_record_pending_pipelines(char *sole, size_t cap, const char **source);
WGPROF_REC_EXPORT unsigned wgprof_record_pending_pipelines(char *sole, size_t cap, const char **source)
{
    unsigned n = 0;
    pthread_mutex_lock(&g_pending_lock);
    for (const pipeline_request *r = g_pending; r; r = r->next_pending) {
        n++;
    }
    const pipeline_request *only = n == 1 ? g_pending : NULL;
    bool named = only && only->info && !pthread_equal(only->asker, pthread_self());
    snprintf(sole, cap, "%s", named ? only->info->name : "");
    *source = named ? only->info->source : NULL;
    pthread_mutex_unlock(&g_pending_lock);
    return n;
}

static void pending_add(pipeline_request *req)
{
    req->counted = true;
    req->asker = pthread_self();
    pthread_mutex_lock(&g_pending_lock);
    req->next_pending = g_pending;
    g_pending = req;
    pthread_mutex_unlock(&g_pending_lock);
}

static void pending_remove(const pipeline_request *req)
{
    pthread_mutex_lock(&g_pending_lock);
    for (pipeline_request **at = &g_pending; *at; at = &(*at)->next_pending) {
        if (*at == req) {
            *at = req->next_pending;
            break;
        }
    }
    pthread_mutex_unlock(&g_pending_lock);
}

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
                        void *userdata1, void *userdata2)
{
    (void)userdata2;
    pipeline_request *req = userdata1;
    if (req->counted) {
        pending_remove(req);
    }
    if (status == WGPUCreatePipelineAsyncStatus_Success && pipeline && !req->layer) {
        pipeline = proxy_for(pipeline, req->info);
    } else {
        free_pipeline(req->info);
    }
    if (req->theirs.callback) {
        req->theirs.callback(status, pipeline, message, req->theirs.userdata1, req->theirs.userdata2);
    }
    wgprof__free(req);
}

typedef WGPUFuture (*pipeline_async_fn)(WGPUDevice, WGPUComputePipelineDescriptor const *,
                                        WGPUCreateComputePipelineAsyncCallbackInfo);

/* Described now, from the descriptor the program passes, which need not outlive this call; made
 * through `create` (webgpu.h's form or the same form of an older ABI, record_abi.c). */
static WGPUFuture create_pipeline_async(WGPUDevice device, WGPUComputePipelineDescriptor const *descriptor,
                                        WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo,
                                        pipeline_async_fn create)
{
    pipeline_request *req = descriptor && hooks_on() ? wgprof__calloc(1, sizeof *req) : NULL;
    if (!req) {
        return create(device, descriptor, callbackInfo);
    }
    req->info = describe(descriptor);
    req->theirs = callbackInfo;
    WGPUCreateComputePipelineAsyncCallbackInfo ours = callbackInfo;
    ours.callback = on_pipeline;
    ours.userdata1 = req;
    ours.userdata2 = NULL;
    /* Its name for the layer where the implementation makes the pipeline within the call, on
     * this thread (wgpu-native); while it is pending, a pipeline made on another thread may be
     * it (Dawn may make it later on a thread of its own). */
    if (!named_for_layer(device)) {
        return create(device, descriptor, ours);
    }
    req->layer = true;
    pending_add(req);
    const pipeline_info *outer = t_making;
    t_making = req->info;
    WGPUFuture future = create(device, descriptor, ours);
    t_making = outer;
    return future;
}

WGPROF_REC_EXPORT WGPUFuture wgpuDeviceCreateComputePipelineAsync(WGPUDevice device,
                                                                  WGPUComputePipelineDescriptor const *descriptor,
                                                                  WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo)
{
    return create_pipeline_async(device, descriptor, callbackInfo,
                                 wgprof_rec_real()->deviceCreateComputePipelineAsync);
}

/* ---- Dawn's forms of the callback-info transition (record_abi.c) ---- */

static pipeline_async_fn pipeline_async2(void)
{
    wgprof_rec_real();
    return wgprof_rec_abi_current() == WGPROF_REC_ABI_DAWN_2025 ? wgprof_rec_abi_legacy()->compute_pipeline_async2
                                                                 : NULL;
}

/* Its "2" form is webgpu.h's under another name. */
WGPROF_REC_EXPORT WGPUFuture wgpuDeviceCreateComputePipelineAsync2(
    WGPUDevice device, WGPUComputePipelineDescriptor const *descriptor,
    WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo)
{
    pipeline_async_fn create = pipeline_async2();
    if (!create) {
        wgprof_rec_missing("wgpuDeviceCreateComputePipelineAsync2");
        return (WGPUFuture){0};
    }
    return create_pipeline_async(device, descriptor, callbackInfo, create);
}

/* Its one-userdata forms go through the "2" form, the program's callback and userdata carried
 * in the two userdata. */
static void on_pipeline_one(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
                            void *userdata1, void *userdata2)
{
    wgprof_rec_dawn2025_pipeline_cb callback;
    memcpy(&callback, &userdata1, sizeof callback);
    if (callback) {
        callback(status, pipeline, message, userdata2);
    }
}

static WGPUFuture pipeline_async_one(WGPUDevice device, WGPUComputePipelineDescriptor const *descriptor,
                                     wgprof_rec_dawn2025_pipeline_info info, const char *name)
{
    pipeline_async_fn create = pipeline_async2();
    if (!create) {
        wgprof_rec_missing(name);
        return (WGPUFuture){0};
    }
    WGPUCreateComputePipelineAsyncCallbackInfo two = {.nextInChain = info.nextInChain, .mode = info.mode,
                                                      .callback = on_pipeline_one, .userdata2 = info.userdata};
    memcpy(&two.userdata1, &info.callback, sizeof info.callback);
    return create_pipeline_async(device, descriptor, two, create);
}

WGPROF_REC_EXPORT WGPUFuture wgpuDeviceCreateComputePipelineAsyncF(WGPUDevice device,
                                                                   WGPUComputePipelineDescriptor const *descriptor,
                                                                   wgprof_rec_dawn2025_pipeline_info callbackInfo)
{
    return pipeline_async_one(device, descriptor, callbackInfo, "wgpuDeviceCreateComputePipelineAsyncF");
}

/* Its wgpuDeviceCreateComputePipelineAsync(device, descriptor, callback, userdata), whose callback
 * runs from the instance's events as AllowProcessEvents does (record_abi.c answers a lookup of
 * that name with this function). */
WGPROF_REC_EXPORT void wgprof_rec_dawn2025_wgpuDeviceCreateComputePipelineAsync(
    WGPUDevice device, WGPUComputePipelineDescriptor const *descriptor, wgprof_rec_dawn2025_pipeline_cb callback,
    void *userdata)
{
    wgprof_rec_dawn2025_pipeline_info info = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = callback,
                                              .userdata = userdata};
    (void)pipeline_async_one(device, descriptor, info, "wgpuDeviceCreateComputePipelineAsync");
}

WGPROF_REC_EXPORT void wgpuComputePipelineAddRef(WGPUComputePipeline pipeline)
{
    if (!wgprof_rec_pipeline_add_ref(pipeline)) {
        wgprof_rec_real()->computePipelineAddRef(pipeline);
    }
}

WGPROF_REC_EXPORT void wgpuComputePipelineRelease(WGPUComputePipeline pipeline)
{
    WGPUComputePipeline real = wgprof_rec_pipeline_release(pipeline);
    if (real) {
        wgprof_rec_real()->computePipelineRelease(real);
    }
}

WGPROF_REC_EXPORT WGPUBindGroupLayout wgpuComputePipelineGetBindGroupLayout(WGPUComputePipeline pipeline,
                                                                            uint32_t groupIndex)
{
    return wgprof_rec_real()->computePipelineGetBindGroupLayout(real_pipeline(pipeline, NULL), groupIndex);
}

WGPROF_REC_EXPORT void wgpuComputePipelineSetLabel(WGPUComputePipeline pipeline, WGPUStringView label)
{
    wgprof_rec_real()->computePipelineSetLabel(real_pipeline(pipeline, NULL), label);
}

/* ---- encoders ---- */

WGPROF_REC_EXPORT WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(
    WGPUDevice device, WGPU_NULLABLE WGPUCommandEncoderDescriptor const *descriptor)
{
    WGPUCommandEncoder enc = wgprof_rec_real()->deviceCreateCommandEncoder(device, descriptor);
    if (!enc || !hooks_on()) {
        return enc;
    }
    wgprof_rec_session *s = wgprof_rec_session_of(device);
    if (!s && named_for_layer(device)) {
        wgprof_rec_scopes_track(enc); /* the layer's: its scopes told to the layer */
        return enc;
    }
    encoder_state *e = s ? wgprof__calloc(1, sizeof *e) : NULL;
    if (e) {
        e->session = s;
        e->sampled = atomic_fetch_add(&s->encoders, 1) % wgprof_rec_settings_get()->sample_every == 0;
        if (!wgprof_rec_encoder_put(enc, e)) {
            wgprof__free(e);
        }
    }
    return enc;
}

/* The lane encoder `e` holds, taking a free one at its first timed work; NULL where it is not
 * timed (not sampled, finished, or every lane held). Not yet entered. */
static wgprof_rec_lane *lane_of(WGPUCommandEncoder enc, encoder_state *e)
{
    if (!e->lane && e->sampled && !e->finished && !atomic_load(&e->session->finished)) {
        e->lane = wgprof_rec_lane_take(e->session, enc);
    }
    return e->lane;
}

/* Scopes on a lane whose device the program has let go of are not kept (no pool). The lane is
 * entered. */
static void scope_begin(wgprof_rec_lane *lane, WGPUStringView label)
{
    if (!lane || !lane->pool) {
        return;
    }
    char name[256];
    size_t n = view_length(label);
    snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), n ? label.data : "");
    wgprof_pool_scope_begin(lane->pool, name);
}

static void scope_end(wgprof_rec_lane *lane)
{
    if (!lane || !lane->pool) {
        return;
    }
    wgprof_pool_scope_end(lane->pool);
}

/* A debug group is a scope where its encoder is timed; *depth counts those open. */
static void debug_group_push(wgprof_rec_lane *lane, unsigned *depth, WGPUStringView label)
{
    lane = wgprof_rec_lane_enter(lane);
    if (lane) {
        scope_begin(lane, label);
        (*depth)++;
    }
    wgprof_rec_lane_leave(lane);
}

static void debug_group_pop(wgprof_rec_lane *lane, unsigned *depth)
{
    if (*depth) {
        lane = wgprof_rec_lane_enter(lane);
        scope_end(lane);
        wgprof_rec_lane_leave(lane);
        (*depth)--;
    }
}

WGPROF_REC_EXPORT void wgpuCommandEncoderPushDebugGroup(WGPUCommandEncoder enc, WGPUStringView groupLabel)
{
    wgprof_rec_real()->commandEncoderPushDebugGroup(enc, groupLabel);
    encoder_state *e = hooks_on() ? wgprof_rec_encoder_get(enc) : NULL;
    if (e) {
        debug_group_push(lane_of(enc, e), &e->debug_depth, groupLabel);
    } else if (hooks_on()) {
        wgprof_rec_scopes_push(enc, groupLabel);
    }
}

WGPROF_REC_EXPORT void wgpuCommandEncoderPopDebugGroup(WGPUCommandEncoder enc)
{
    wgprof_rec_real()->commandEncoderPopDebugGroup(enc);
    encoder_state *e = hooks_on() ? wgprof_rec_encoder_get(enc) : NULL;
    if (e) {
        debug_group_pop(e->lane, &e->debug_depth);
    } else if (hooks_on()) {
        wgprof_rec_scopes_pop(enc);
    }
}

/* ---- passes and dispatches ---- */

/* Begins the program's pass with the chain's timestamp where its lane (entered, or NULL) has
 * one for it (record_chain.c). */
static WGPUComputePassEncoder begin_pass(WGPUCommandEncoder enc, WGPUComputePassDescriptor const *descriptor,
                                         wgprof_rec_lane *lane)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    if (!lane || wgprof_rec_settings_get()->inside) {
        return real->commandEncoderBeginComputePass(enc, descriptor);
    }
    WGPUPassTimestampWrites writes;
    bool theirs = descriptor && descriptor->timestampWrites;
    wgprof_rec_chain_plan plan = wgprof_rec_chain_before_pass(lane, theirs, &writes);
    WGPUComputePassDescriptor ours = {0};
    if (descriptor) {
        ours = *descriptor;
    }
    if (plan == WGPROF_REC_CHAIN_WRITES || plan == WGPROF_REC_CHAIN_END_WRITES) {
        ours.timestampWrites = &writes;
        descriptor = &ours;
    }
    WGPUComputePassEncoder pass = real->commandEncoderBeginComputePass(enc, descriptor);
    if (pass) {
        wgprof_rec_chain_after_pass(lane, pass, plan);
    }
    return pass;
}

WGPROF_REC_EXPORT WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(
    WGPUCommandEncoder enc, WGPU_NULLABLE WGPUComputePassDescriptor const *descriptor)
{
    /* In webgpu.h's layout from here on: the table's function takes it so. */
    WGPUComputePassDescriptor copy;
    WGPUPassTimestampWrites writes;
    descriptor = wgprof_rec_abi_pass_in(descriptor, &copy, &writes);
    if (!hooks_on()) {
        return wgprof_rec_real()->commandEncoderBeginComputePass(enc, descriptor);
    }
    encoder_state *e = wgprof_rec_encoder_get(enc);
    wgprof_rec_lane *held = e ? lane_of(enc, e) : NULL;
    wgprof_rec_lane *lane = wgprof_rec_lane_enter(held);
    WGPUComputePassEncoder pass = begin_pass(enc, descriptor, lane);
    if (!e && pass) {
        wgprof_rec_scopes_pass_begin(enc, pass, descriptor ? descriptor->label : (WGPUStringView){NULL, 0});
    }
    pass_state *p = e && pass ? wgprof__calloc(1, sizeof *p) : NULL;
    if (p) {
        p->encoder = enc;
        p->session = e->session;
        p->lane = held;
        p->sampled = e->sampled;
        if (lane && descriptor && view_length(descriptor->label)) {
            scope_begin(lane, descriptor->label);
            p->label_scope = true;
        }
        if (!wgprof_rec_pass_put(pass, p)) {
            if (p->label_scope) {
                scope_end(lane);
            }
            wgprof__free(p);
        }
    }
    wgprof_rec_lane_leave(lane);
    return pass;
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline)
{
    pipeline_info *info = NULL;
    wgprof_rec_real()->computePassEncoderSetPipeline(pass, real_pipeline(pipeline, &info));
    pass_state *p = hooks_on() ? wgprof_rec_pass_get(pass) : NULL;
    if (p) {
        p->pipeline = info;
    }
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderPushDebugGroup(WGPUComputePassEncoder pass, WGPUStringView groupLabel)
{
    wgprof_rec_real()->computePassEncoderPushDebugGroup(pass, groupLabel);
    pass_state *p = hooks_on() ? wgprof_rec_pass_get(pass) : NULL;
    if (p) {
        debug_group_push(p->lane, &p->debug_depth, groupLabel);
    } else if (hooks_on()) {
        wgprof_rec_scopes_pass_push(pass, groupLabel);
    }
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderPopDebugGroup(WGPUComputePassEncoder pass)
{
    wgprof_rec_real()->computePassEncoderPopDebugGroup(pass);
    pass_state *p = hooks_on() ? wgprof_rec_pass_get(pass) : NULL;
    if (p) {
        debug_group_pop(p->lane, &p->debug_depth);
    } else if (hooks_on()) {
        wgprof_rec_scopes_pass_pop(pass);
    }
}

typedef void (*dispatch_fn)(WGPUComputePassEncoder pass, const void *args);

/* The site of a dispatch of `info`'s pipeline (NULL: unknown) with these counts, in the store
 * of the lane's pool: the lane's cached one where it matches. False when out of memory. */
static bool site_of(wgprof_rec_lane *lane, const pipeline_info *info, const uint32_t workgroups[3], bool indirect,
                    wgprof_site *site)
{
    size_t slot = ((uintptr_t)info >> 4) % WGPROF_REC_SITE_CACHE;
    if (info && !indirect && lane->sites[slot].info == info &&
        !memcmp(lane->sites[slot].workgroups, workgroups, sizeof lane->sites[slot].workgroups)) {
        *site = lane->sites[slot].site;
        return true;
    }
    char kernel[640];
    snprintf(kernel, sizeof kernel, "%s%s", info ? info->name : "unknown pipeline", indirect ? " (indirect)" : "");
    wgprof_dispatch_desc d = {.kernel = kernel};
    memcpy(d.workgroups, workgroups, sizeof d.workgroups);
    if (info) {
        memcpy(d.workgroup_size, info->workgroup_size, sizeof d.workgroup_size);
    }
    if (wgprof_pool_site(lane->pool, &d, site) != WGPROF_OK ||
        wgprof_pool_kernel_source(lane->pool, kernel, info ? info->source : NULL) != WGPROF_OK) {
        return false;
    }
    if (info && !indirect) {
        lane->sites[slot].info = info;
        memcpy(lane->sites[slot].workgroups, workgroups, sizeof lane->sites[slot].workgroups);
        lane->sites[slot].site = *site;
    }
    return true;
}

/* Times one dispatch in `pass` (dispatched by `run`), or counts it where it is not timed. */
static void timed_dispatch(WGPUComputePassEncoder pass, const uint32_t workgroups[3], bool indirect, dispatch_fn run,
                           const void *args)
{
    pass_state *p = hooks_on() ? wgprof_rec_pass_get(pass) : NULL;
    if (!p) {
        if (hooks_on()) {
            wgprof_rec_scopes_dispatch(pass); /* a pass of the layer's device: the layer times it */
        }
        run(pass, args);
        return;
    }
    atomic_fetch_add(&p->session->dispatches, 1);
    wgprof_rec_lane *lane = wgprof_rec_lane_enter(p->lane);
    wgprof_site site;
    if (!lane || !lane->pool) {
        atomic_fetch_add(p->sampled ? &p->session->untimed_overlap : &p->session->untimed_sampled, 1);
        run(pass, args);
    } else if (!site_of(lane, p->pipeline, workgroups, indirect, &site)) {
        run(pass, args); /* out of memory for its name: not timed */
    } else if (wgprof_rec_settings_get()->inside) {
        wgprof_pool_begin_site(lane->pool, pass, site, 0);
        run(pass, args);
        wgprof_pool_end(lane->pool, pass);
    } else {
        wgprof_rec_chain_dispatch(lane, pass, site);
        run(pass, args);
    }
    wgprof_rec_lane_leave(lane);
}

typedef struct direct_args {
    uint32_t x, y, z;
} direct_args;

static void run_direct(WGPUComputePassEncoder pass, const void *args)
{
    const direct_args *a = args;
    wgprof_rec_real()->computePassEncoderDispatchWorkgroups(pass, a->x, a->y, a->z);
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t workgroupCountX,
                                                                uint32_t workgroupCountY, uint32_t workgroupCountZ)
{
    direct_args a = {workgroupCountX, workgroupCountY, workgroupCountZ};
    uint32_t wg[3] = {workgroupCountX, workgroupCountY, workgroupCountZ};
    timed_dispatch(pass, wg, false, run_direct, &a);
}

typedef struct indirect_args {
    WGPUBuffer buffer;
    uint64_t offset;
} indirect_args;

static void run_indirect(WGPUComputePassEncoder pass, const void *args)
{
    const indirect_args *a = args;
    wgprof_rec_real()->computePassEncoderDispatchWorkgroupsIndirect(pass, a->buffer, a->offset);
}

/* Timed like any other; its workgroup counts live on the GPU: recorded as 0. */
WGPROF_REC_EXPORT void wgpuComputePassEncoderDispatchWorkgroupsIndirect(WGPUComputePassEncoder pass,
                                                                        WGPUBuffer indirectBuffer,
                                                                        uint64_t indirectOffset)
{
    indirect_args a = {indirectBuffer, indirectOffset};
    uint32_t wg[3] = {0, 0, 0};
    timed_dispatch(pass, wg, true, run_indirect, &a);
}

/* Closes the scopes the pass left open, on its lane (entered, or NULL: its session finished,
 * nothing of the lane's is touched then). */
static void end_pass_scopes(pass_state *p, wgprof_rec_lane *lane)
{
    for (; p->debug_depth; p->debug_depth--) {
        scope_end(lane);
    }
    if (p->label_scope) {
        scope_end(lane);
        p->label_scope = false;
    }
}

static void forget_pass(WGPUComputePassEncoder pass)
{
    pass_state *p = wgprof_rec_pass_take(pass);
    if (p) {
        wgprof_rec_lane *lane = wgprof_rec_lane_enter(p->lane);
        end_pass_scopes(p, lane);
        wgprof_rec_lane_leave(lane);
        wgprof__free(p);
    }
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass)
{
    if (hooks_on()) {
        forget_pass(pass);
        wgprof_rec_scopes_pass_end(pass);
    }
    wgprof_rec_real()->computePassEncoderEnd(pass);
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderRelease(WGPUComputePassEncoder pass)
{
    if (hooks_on()) {
        forget_pass(pass); /* released without End */
        wgprof_rec_scopes_forget_pass(pass);
    }
    wgprof_rec_real()->computePassEncoderRelease(pass);
}

/* ---- finishing, abandoning and submitting ---- */

wgprof_rec_lane *wgprof_rec_encoder_lane(WGPUCommandEncoder enc)
{
    encoder_state *e = wgprof_rec_encoder_get(enc);
    return e && e->lane && !atomic_load(&e->session->finished) ? e->lane : NULL;
}

WGPROF_REC_EXPORT WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder enc,
                                                            WGPU_NULLABLE WGPUCommandBufferDescriptor const *descriptor)
{
    encoder_state *e = hooks_on() ? wgprof_rec_encoder_get(enc) : NULL;
    wgprof_rec_lane *lane = e ? wgprof_rec_lane_enter(e->lane) : NULL;
    if (lane && !wgprof_rec_settings_get()->inside) {
        wgprof_rec_chain_finish(lane, enc);
    }
    if (!e && hooks_on()) {
        wgprof_rec_scopes_finishing(enc); /* wgpu-native records the Vulkan commands now */
    }
    WGPUCommandBuffer cb = wgprof_rec_real()->commandEncoderFinish(enc, descriptor);
    if (!e && hooks_on()) {
        wgprof_rec_scopes_finished(enc, cb);
    }
    if (e) {
        e->finished = true;
        for (; lane && e->debug_depth; e->debug_depth--) {
            scope_end(lane);
        }
        bool kept = lane && cb && wgprof_rec_buffer_put(cb, lane);
        if (lane && !kept) {
            wgprof_rec_lane_discard(lane);
        }
        wgprof_rec_lane_leave(lane);
        if (e->lane) {
            /* The buffer holds the lane now (unless the session's finish took it meanwhile). */
            if (!kept || !wgprof_rec_lane_pass_on(e->lane, WGPROF_REC_LANE_ENCODER, enc, WGPROF_REC_LANE_BUFFER, cb)) {
                wgprof_rec_lane_pass_on(e->lane, WGPROF_REC_LANE_ENCODER, enc, WGPROF_REC_LANE_FREE, NULL);
                if (kept) {
                    wgprof_rec_buffer_take(cb);
                }
            }
        }
        e->lane = NULL;
    }
    return cb;
}

/* The scopes a pass of encoder `user` left open are closed, and the pass is timed no more: the
 * encoder's lane is entered by the caller. */
typedef struct closing {
    WGPUCommandEncoder enc;
    wgprof_rec_lane *lane;
} closing;

static void close_pass_of(wgprof_rec_pass *p, void *user)
{
    closing *c = user;
    if (p->encoder == c->enc && p->lane) {
        end_pass_scopes(p, c->lane);
        p->lane = NULL;
    }
}

WGPROF_REC_EXPORT void wgpuCommandEncoderRelease(WGPUCommandEncoder enc)
{
    if (hooks_on()) {
        wgprof_rec_scopes_forget_encoder(enc); /* released before finish */
    }
    encoder_state *e = hooks_on() ? wgprof_rec_encoder_take(enc) : NULL;
    if (e) {
        wgprof_rec_lane *lane = wgprof_rec_lane_enter(e->lane);
        if (lane) {
            /* Released before finish: its open scopes close (so that later encoders on the
             * lane are not nested in them), then its batch is forgotten. */
            closing c = {enc, lane};
            wgprof_rec_pass_each(close_pass_of, &c);
            for (; e->debug_depth; e->debug_depth--) {
                scope_end(lane);
            }
            wgprof_rec_lane_discard(lane);
        }
        wgprof_rec_lane_leave(lane);
        if (e->lane) {
            wgprof_rec_lane_pass_on(e->lane, WGPROF_REC_LANE_ENCODER, enc, WGPROF_REC_LANE_FREE, NULL);
        }
        wgprof__free(e);
    }
    wgprof_rec_real()->commandEncoderRelease(enc);
}

/* The lane of a command buffer that carries a batch, now held by this thread (NULL where the
 * buffer carries none, or the session's finish took its lane). */
static wgprof_rec_lane *take_buffer_lane(WGPUCommandBuffer buffer)
{
    wgprof_rec_lane *lane = wgprof_rec_buffer_take(buffer);
    bool mine = lane && wgprof_rec_lane_pass_on(lane, WGPROF_REC_LANE_BUFFER, buffer, WGPROF_REC_LANE_WORKER,
                                                 wgprof_rec_thread());
    return mine ? lane : NULL;
}

static void give_back(wgprof_rec_lane *lane)
{
    wgprof_rec_chain_forget(lane);
    wgprof_rec_lane_pass_on(lane, WGPROF_REC_LANE_WORKER, wgprof_rec_thread(), WGPROF_REC_LANE_FREE, NULL);
}

WGPROF_REC_EXPORT void wgpuCommandBufferRelease(WGPUCommandBuffer buffer)
{
    wgprof_rec_lane *lane = hooks_on() ? take_buffer_lane(buffer) : NULL;
    if (lane) {
        wgprof_rec_lane_discard(lane); /* released unsubmitted */
        give_back(lane);
    }
    if (hooks_on()) {
        wgprof_rec_scopes_forget_buffer(buffer);
    }
    wgprof_rec_real()->commandBufferRelease(buffer);
}

enum { MAX_RESOLVES = 16 };

/* The lanes whose batches a submit carries, held by the submitting thread, and wgprof's
 * command buffer resolving each. */
typedef struct resolve_set {
    wgprof_rec_lane *lanes[MAX_RESOLVES];
    WGPUCommandBuffer buffers[MAX_RESOLVES];
    size_t count;
} resolve_set;

/* For each buffer of the submit that carries a batch: the batch's resolve and readback copy,
 * in a command buffer of wgprof's. */
static void prepare_resolves(size_t n, WGPUCommandBuffer const *commands, resolve_set *rs)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    for (size_t i = 0; i < n && rs->count < MAX_RESOLVES; i++) {
        wgprof_rec_lane *lane = take_buffer_lane(commands[i]);
        if (!lane) {
            continue;
        }
        WGPUCommandEncoder enc = real->deviceCreateCommandEncoder(lane->session->device, NULL);
        WGPUCommandBuffer cb = NULL;
        if (enc && wgprof_pool_resolve(lane->pool, enc) == WGPROF_OK) {
            cb = real->commandEncoderFinish(enc, NULL);
        }
        if (enc) {
            real->commandEncoderRelease(enc);
        }
        if (cb) {
            rs->lanes[rs->count] = lane;
            rs->buffers[rs->count++] = cb;
        } else {
            wgprof_rec_lane_discard(lane);
            give_back(lane);
        }
    }
}

/* After the submit: each batch starts reading back, and its lane is free for the next encoder. */
static void after_submit(resolve_set *rs)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    for (size_t i = 0; i < rs->count; i++) {
        wgprof_rec_lane *lane = rs->lanes[i];
        /* Held by this thread: a release of the device inside the submit (a callback) waits
         * for the next safe point, so the pool is still there. */
        wgprof_rec_lane_submitted(lane);
        real->commandBufferRelease(rs->buffers[i]);
        give_back(lane);
    }
}

/* Submits the program's buffers with wgprof's resolves after them; the submission index where
 * `for_index` (wgpu-native's wgpuQueueSubmitForIndex), else 0. */
static WGPUSubmissionIndex submit(WGPUQueue queue, size_t n, WGPUCommandBuffer const *commands, bool for_index)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    wgprof_rec_enter(); /* the program's callbacks may run inside the submit */
    resolve_set rs = {0};
    prepare_resolves(n, commands, &rs);
    WGPUCommandBuffer *all = rs.count ? wgprof__calloc(n + rs.count, sizeof *all) : NULL;
    WGPUCommandBuffer const *list = commands;
    size_t count = n;
    if (all) {
        memcpy(all, commands, n * sizeof *all);
        memcpy(all + n, rs.buffers, rs.count * sizeof *all);
        list = all;
        count = n + rs.count;
    }
    WGPUSubmissionIndex index = 0;
    void *held = NULL;
    bool scopes = wgprof_rec_scopes_submitting(n, commands, &held); /* Dawn records them now */
    if (for_index) {
        index = real->queueSubmitForIndex(queue, count, list);
    } else {
        real->queueSubmit(queue, count, list);
    }
    if (scopes) {
        wgprof_rec_scopes_submitted(held);
    }
    if (rs.count && !all) {
        /* Out of memory for one list: the resolves follow in a submit of their own. */
        real->queueSubmit(queue, rs.count, rs.buffers);
    }
    wgprof__free(all);
    after_submit(&rs);
    wgprof_rec_leave();
    wgprof_rec_collect_ready(true);
    return index;
}

WGPROF_REC_EXPORT void wgpuQueueSubmit(WGPUQueue queue, size_t commandCount, WGPUCommandBuffer const *commands)
{
    if (!hooks_on() || !commands) {
        wgprof_rec_real()->queueSubmit(queue, commandCount, commands);
        return;
    }
    submit(queue, commandCount, commands, false);
}

WGPROF_REC_EXPORT WGPUSubmissionIndex wgpuQueueSubmitForIndex(WGPUQueue queue, size_t commandCount,
                                                              WGPUCommandBuffer const *commands)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    if (!real->queueSubmitForIndex) {
        wgprof_rec_missing("wgpuQueueSubmitForIndex");
        return 0;
    }
    if (!hooks_on() || !commands) {
        return real->queueSubmitForIndex(queue, commandCount, commands);
    }
    return submit(queue, commandCount, commands, true);
}
