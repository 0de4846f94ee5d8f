/*
 * The encoding hooks: compute pipelines get their kernel names; a command encoder's compute
 * dispatches are timed in the pool of its device's session (a chain of in-pass timestamps, or
 * pairs with --strategy inside), pass labels and debug groups become scopes, and the batch is
 * resolved in a command buffer of wgprof's appended to the submit that carries the encoder's
 * buffer, then read back without blocking. One encoder at a time holds a session's pool: the
 * dispatches of an encoder recorded while another holds it are counted, not timed. Work
 * encoded and never submitted is forgotten.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "record_lib.h"

typedef struct encoder_state {
    wgprof_rec_session *session;
    bool sampled;     /* --sample-every chose it */
    bool finished;
    unsigned debug_depth; /* scopes of its own debug groups open */
} encoder_state;

typedef struct pass_state {
    WGPUCommandEncoder encoder;
    wgprof_rec_session *session;
    WGPUComputePipeline pipeline;
    bool timed;       /* its encoder holds the pool */
    bool label_scope; /* a scope named by its label is open */
    unsigned debug_depth;
} pass_state;

static wgprof_rec_map g_pipelines; /* WGPUComputePipeline -> kernel name */
static wgprof_rec_map g_modules;   /* WGPUShaderModule -> its label */
static wgprof_rec_map g_encoders;  /* WGPUCommandEncoder -> encoder_state */
static wgprof_rec_map g_passes;    /* WGPUComputePassEncoder -> pass_state */
static wgprof_rec_map g_buffers;   /* WGPUCommandBuffer holding a batch -> its session */
static unsigned g_pipeline_count;

static bool hooks_on(void) { return wgprof_rec_active() && !wgprof_rec_inside(); }

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

WGPROF_REC_EXPORT WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device,
                                                                WGPUShaderModuleDescriptor const *descriptor)
{
    WGPUShaderModule module = wgprof_rec_real()->wgpuDeviceCreateShaderModule(device, descriptor);
    if (module && descriptor && view_length(descriptor->label) && hooks_on()) {
        wgprof_rec_lock();
        char *label = copy_view(descriptor->label);
        if (label && !wgprof_rec_map_put(&g_modules, module, label)) {
            wgprof__free(label);
        }
        wgprof_rec_unlock();
    }
    return module;
}

WGPROF_REC_EXPORT void wgpuShaderModuleRelease(WGPUShaderModule module)
{
    if (hooks_on()) {
        wgprof_rec_lock();
        wgprof__free(wgprof_rec_map_take(&g_modules, module));
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuShaderModuleRelease(module);
}

/* "label:entry": the pipeline's label, else its shader module's, else "pipeline<N>" in the
 * order pipelines were created; ":entry" left out where the program named no entry point. */
static char *kernel_name(WGPUComputePipelineDescriptor const *d)
{
    char label[256];
    const char *module_label = d->compute.module ? wgprof_rec_map_get(&g_modules, d->compute.module) : NULL;
    size_t n = view_length(d->label);
    if (n) {
        snprintf(label, sizeof label, "%.*s", (int)(n < 255 ? n : 255), d->label.data);
    } else if (module_label) {
        snprintf(label, sizeof label, "%s", module_label);
    } else {
        snprintf(label, sizeof label, "pipeline%u", g_pipeline_count);
    }
    g_pipeline_count++;
    size_t e = view_length(d->compute.entryPoint);
    char name[600];
    if (e) {
        snprintf(name, sizeof name, "%s:%.*s", label, (int)(e < 255 ? e : 255), d->compute.entryPoint.data);
    } else {
        snprintf(name, sizeof name, "%s", label);
    }
    return wgprof__strdup(name);
}

static void name_pipeline(WGPUComputePipeline pipeline, char *name)
{
    char *old = wgprof_rec_map_get(&g_pipelines, pipeline);
    if (name && wgprof_rec_map_put(&g_pipelines, pipeline, name)) {
        wgprof__free(old);
    } else {
        wgprof__free(name);
    }
}

WGPROF_REC_EXPORT WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice device,
                                                                      WGPUComputePipelineDescriptor const *descriptor)
{
    WGPUComputePipeline p = wgprof_rec_real()->wgpuDeviceCreateComputePipeline(device, descriptor);
    if (p && descriptor && hooks_on()) {
        wgprof_rec_lock();
        name_pipeline(p, kernel_name(descriptor));
        wgprof_rec_unlock();
    }
    return p;
}

typedef struct pipeline_request {
    WGPUCreateComputePipelineAsyncCallbackInfo theirs;
    char *name;
} pipeline_request;

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
                        void *userdata1, void *userdata2)
{
    (void)userdata2;
    pipeline_request *req = userdata1;
    wgprof_rec_lock();
    if (status == WGPUCreatePipelineAsyncStatus_Success && pipeline) {
        name_pipeline(pipeline, req->name);
    } else {
        wgprof__free(req->name);
    }
    wgprof_rec_unlock();
    if (req->theirs.callback) {
        req->theirs.callback(status, pipeline, message, req->theirs.userdata1, req->theirs.userdata2);
    }
    wgprof__free(req);
}

WGPROF_REC_EXPORT WGPUFuture wgpuDeviceCreateComputePipelineAsync(WGPUDevice device,
                                                                  WGPUComputePipelineDescriptor const *descriptor,
                                                                  WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo)
{
    const wgprof_rec_real_table *real = wgprof_rec_real();
    pipeline_request *req = descriptor && hooks_on() ? wgprof__calloc(1, sizeof *req) : NULL;
    if (!req) {
        return real->wgpuDeviceCreateComputePipelineAsync(device, descriptor, callbackInfo);
    }
    wgprof_rec_lock();
    req->name = kernel_name(descriptor);
    wgprof_rec_unlock();
    req->theirs = callbackInfo;
    WGPUCreateComputePipelineAsyncCallbackInfo ours = callbackInfo;
    ours.callback = on_pipeline;
    ours.userdata1 = req;
    ours.userdata2 = NULL;
    return real->wgpuDeviceCreateComputePipelineAsync(device, descriptor, ours);
}

WGPROF_REC_EXPORT void wgpuComputePipelineRelease(WGPUComputePipeline pipeline)
{
    /* Names stay: a record made before the release may still be named from it, and a new
     * pipeline at the same address is named anew at its creation. */
    wgprof_rec_real()->wgpuComputePipelineRelease(pipeline);
}

/* ---- encoders ---- */

WGPROF_REC_EXPORT WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(
    WGPUDevice device, WGPU_NULLABLE WGPUCommandEncoderDescriptor const *descriptor)
{
    WGPUCommandEncoder enc = wgprof_rec_real()->wgpuDeviceCreateCommandEncoder(device, descriptor);
    if (!enc || !hooks_on()) {
        return enc;
    }
    wgprof_rec_lock();
    wgprof_rec_session *s = wgprof_rec_session_of(device);
    encoder_state *e = s ? wgprof__calloc(1, sizeof *e) : NULL;
    if (e) {
        e->session = s;
        e->sampled = s->encoders++ % wgprof_rec_settings_get()->sample_every == 0;
        if (!wgprof_rec_map_put(&g_encoders, enc, e)) {
            wgprof__free(e);
        }
    }
    wgprof_rec_unlock();
    return enc;
}

/* Whether encoder `e` holds its session's pool, taking it where it is free. */
static bool holds_pool(WGPUCommandEncoder enc, encoder_state *e)
{
    wgprof_rec_session *s = e->session;
    if (!e->sampled || e->finished || s->finished) {
        return false;
    }
    if (!s->owner) {
        s->owner = enc;
        s->chain_begun = false;
    }
    return s->owner == enc;
}

static void scope_begin(wgprof_rec_session *s, WGPUStringView label)
{
    char name[256];
    size_t n = view_length(label);
    snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), n ? label.data : "");
    wgprof_rec_enter();
    wgprof_pool_scope_begin(s->pool, name);
    wgprof_rec_leave();
}

static void scope_end(wgprof_rec_session *s)
{
    wgprof_rec_enter();
    wgprof_pool_scope_end(s->pool);
    wgprof_rec_leave();
}

WGPROF_REC_EXPORT void wgpuCommandEncoderPushDebugGroup(WGPUCommandEncoder enc, WGPUStringView groupLabel)
{
    wgprof_rec_real()->wgpuCommandEncoderPushDebugGroup(enc, groupLabel);
    if (hooks_on()) {
        wgprof_rec_lock();
        encoder_state *e = wgprof_rec_map_get(&g_encoders, enc);
        if (e && holds_pool(enc, e)) {
            scope_begin(e->session, groupLabel);
            e->debug_depth++;
        }
        wgprof_rec_unlock();
    }
}

WGPROF_REC_EXPORT void wgpuCommandEncoderPopDebugGroup(WGPUCommandEncoder enc)
{
    wgprof_rec_real()->wgpuCommandEncoderPopDebugGroup(enc);
    if (hooks_on()) {
        wgprof_rec_lock();
        encoder_state *e = wgprof_rec_map_get(&g_encoders, enc);
        if (e && e->debug_depth) {
            scope_end(e->session);
            e->debug_depth--;
        }
        wgprof_rec_unlock();
    }
}

/* ---- passes and dispatches ---- */

WGPROF_REC_EXPORT WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(
    WGPUCommandEncoder enc, WGPU_NULLABLE WGPUComputePassDescriptor const *descriptor)
{
    WGPUComputePassEncoder pass = wgprof_rec_real()->wgpuCommandEncoderBeginComputePass(enc, descriptor);
    if (!pass || !hooks_on()) {
        return pass;
    }
    wgprof_rec_lock();
    encoder_state *e = wgprof_rec_map_get(&g_encoders, enc);
    pass_state *p = e ? wgprof__calloc(1, sizeof *p) : NULL;
    if (p) {
        p->encoder = enc;
        p->session = e->session;
        p->timed = holds_pool(enc, e);
        if (p->timed && descriptor && view_length(descriptor->label)) {
            scope_begin(p->session, descriptor->label);
            p->label_scope = true;
        }
        if (!wgprof_rec_map_put(&g_passes, pass, p)) {
            if (p->label_scope) {
                scope_end(p->session);
            }
            wgprof__free(p);
        }
    }
    wgprof_rec_unlock();
    return pass;
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline)
{
    wgprof_rec_real()->wgpuComputePassEncoderSetPipeline(pass, pipeline);
    if (hooks_on()) {
        wgprof_rec_lock();
        pass_state *p = wgprof_rec_map_get(&g_passes, pass);
        if (p) {
            p->pipeline = pipeline;
        }
        wgprof_rec_unlock();
    }
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderPushDebugGroup(WGPUComputePassEncoder pass, WGPUStringView groupLabel)
{
    wgprof_rec_real()->wgpuComputePassEncoderPushDebugGroup(pass, groupLabel);
    if (hooks_on()) {
        wgprof_rec_lock();
        pass_state *p = wgprof_rec_map_get(&g_passes, pass);
        if (p && p->timed) {
            scope_begin(p->session, groupLabel);
            p->debug_depth++;
        }
        wgprof_rec_unlock();
    }
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderPopDebugGroup(WGPUComputePassEncoder pass)
{
    wgprof_rec_real()->wgpuComputePassEncoderPopDebugGroup(pass);
    if (hooks_on()) {
        wgprof_rec_lock();
        pass_state *p = wgprof_rec_map_get(&g_passes, pass);
        if (p && p->debug_depth) {
            scope_end(p->session);
            p->debug_depth--;
        }
        wgprof_rec_unlock();
    }
}

typedef void (*dispatch_fn)(WGPUComputePassEncoder pass, const void *args);

/* Times one dispatch in `pass` (dispatched by `run`), or counts it where it is not timed. */
static void timed_dispatch(WGPUComputePassEncoder pass, const uint32_t workgroups[3], bool indirect, dispatch_fn run,
                           const void *args)
{
    if (!hooks_on()) {
        run(pass, args);
        return;
    }
    wgprof_rec_lock();
    pass_state *p = wgprof_rec_map_get(&g_passes, pass);
    if (!p || !p->timed) {
        if (p) {
            p->session->dispatches++;
            encoder_state *e = wgprof_rec_map_get(&g_encoders, p->encoder);
            if (e && !e->sampled) {
                p->session->untimed_sampled++;
            } else {
                p->session->untimed_overlap++;
            }
        }
        run(pass, args);
        wgprof_rec_unlock();
        return;
    }
    wgprof_rec_session *s = p->session;
    s->dispatches++;
    const char *pipeline_name = wgprof_rec_map_get(&g_pipelines, p->pipeline);
    char kernel[640];
    snprintf(kernel, sizeof kernel, "%s%s", pipeline_name ? pipeline_name : "unknown pipeline",
             indirect ? " (indirect)" : "");
    wgprof_dispatch_desc d = {.kernel = kernel};
    memcpy(d.workgroups, workgroups, sizeof d.workgroups);
    wgprof_rec_enter();
    if (wgprof_rec_settings_get()->inside) {
        wgprof_pool_begin(s->pool, pass, &d);
        run(pass, args);
        wgprof_pool_end(s->pool, pass);
    } else {
        if (!s->chain_begun) {
            s->chain_begun = wgprof_pool_chain_begin(s->pool, pass) == WGPROF_OK;
        }
        run(pass, args);
        if (s->chain_begun) {
            wgprof_pool_chain_next(s->pool, pass, &d);
        }
    }
    wgprof_rec_leave();
    wgprof_rec_unlock();
}

typedef struct direct_args {
    uint32_t x, y, z;
} direct_args;

static void run_direct(WGPUComputePassEncoder pass, const void *args)
{
    const direct_args *a = args;
    wgprof_rec_real()->wgpuComputePassEncoderDispatchWorkgroups(pass, a->x, a->y, a->z);
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
    wgprof_rec_real()->wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, a->buffer, a->offset);
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

static void end_pass_scopes(pass_state *p)
{
    for (; p->debug_depth; p->debug_depth--) {
        scope_end(p->session);
    }
    if (p->label_scope) {
        scope_end(p->session);
        p->label_scope = false;
    }
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass)
{
    if (hooks_on()) {
        wgprof_rec_lock();
        pass_state *p = wgprof_rec_map_take(&g_passes, pass);
        if (p) {
            end_pass_scopes(p);
            wgprof__free(p);
        }
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuComputePassEncoderEnd(pass);
}

WGPROF_REC_EXPORT void wgpuComputePassEncoderRelease(WGPUComputePassEncoder pass)
{
    if (hooks_on()) {
        wgprof_rec_lock();
        pass_state *p = wgprof_rec_map_take(&g_passes, pass); /* released without End */
        if (p) {
            end_pass_scopes(p);
            wgprof__free(p);
        }
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuComputePassEncoderRelease(pass);
}

/* ---- finishing, abandoning and submitting ---- */

/* The batch of the session's pool is forgotten: its encoder or buffer went unsubmitted. */
static void abandon(wgprof_rec_session *s)
{
    wgprof_rec_enter();
    size_t before = wgprof_pool_count(s->pool);
    if (wgprof_pool_discard(s->pool) == WGPROF_OK) {
        s->discarded += before - wgprof_pool_count(s->pool);
    }
    wgprof_rec_leave();
    s->owner = NULL;
    s->owner_buffer = NULL;
    s->chain_begun = false;
}

WGPROF_REC_EXPORT WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder enc,
                                                            WGPU_NULLABLE WGPUCommandBufferDescriptor const *descriptor)
{
    WGPUCommandBuffer cb = wgprof_rec_real()->wgpuCommandEncoderFinish(enc, descriptor);
    if (hooks_on()) {
        wgprof_rec_lock();
        encoder_state *e = wgprof_rec_map_get(&g_encoders, enc);
        if (e) {
            e->finished = true;
            wgprof_rec_session *s = e->session;
            if (s->owner == enc && !s->finished) {
                for (; e->debug_depth; e->debug_depth--) {
                    scope_end(s);
                }
                if (cb && wgprof_rec_map_put(&g_buffers, cb, s)) {
                    s->owner_buffer = cb;
                } else {
                    abandon(s);
                }
            }
        }
        wgprof_rec_unlock();
    }
    return cb;
}

WGPROF_REC_EXPORT void wgpuCommandEncoderRelease(WGPUCommandEncoder enc)
{
    if (hooks_on()) {
        wgprof_rec_lock();
        encoder_state *e = wgprof_rec_map_take(&g_encoders, enc);
        if (e) {
            if (e->session->owner == enc && !e->session->owner_buffer && !e->session->finished) {
                abandon(e->session); /* released before finish */
            }
            wgprof__free(e);
        }
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuCommandEncoderRelease(enc);
}

WGPROF_REC_EXPORT void wgpuCommandBufferRelease(WGPUCommandBuffer buffer)
{
    if (hooks_on()) {
        wgprof_rec_lock();
        wgprof_rec_session *s = wgprof_rec_map_take(&g_buffers, buffer);
        if (s && s->owner_buffer == buffer && !s->finished) {
            abandon(s); /* released unsubmitted */
        }
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuCommandBufferRelease(buffer);
}

enum { MAX_RESOLVES = 16 };

typedef struct resolve_set {
    wgprof_rec_session *sessions[MAX_RESOLVES];
    WGPUCommandBuffer buffers[MAX_RESOLVES];
    size_t count;
} resolve_set;

/* For each buffer of the submit that carries a batch: the batch's resolve and readback copy,
 * in a command buffer of wgprof's. */
static void prepare_resolves(size_t n, WGPUCommandBuffer const *commands, resolve_set *rs)
{
    const wgprof_rec_real_table *real = wgprof_rec_real();
    for (size_t i = 0; i < n && rs->count < MAX_RESOLVES; i++) {
        wgprof_rec_session *s = wgprof_rec_map_take(&g_buffers, commands[i]);
        if (!s || s->owner_buffer != commands[i] || s->finished) {
            continue;
        }
        wgprof_rec_enter();
        WGPUCommandEncoder enc = real->wgpuDeviceCreateCommandEncoder(s->device, NULL);
        WGPUCommandBuffer cb = NULL;
        if (enc && wgprof_pool_resolve(s->pool, enc) == WGPROF_OK) {
            cb = real->wgpuCommandEncoderFinish(enc, NULL);
        }
        if (enc) {
            real->wgpuCommandEncoderRelease(enc);
        }
        wgprof_rec_leave();
        if (cb) {
            rs->sessions[rs->count] = s;
            rs->buffers[rs->count++] = cb;
        } else {
            abandon(s);
        }
    }
}

/* After the submit: each batch starts reading back, and its pool is free for the next encoder. */
static void after_submit(resolve_set *rs)
{
    const wgprof_rec_real_table *real = wgprof_rec_real();
    wgprof_rec_enter();
    for (size_t i = 0; i < rs->count; i++) {
        wgprof_rec_session *s = rs->sessions[i];
        wgprof_pool_read_async(s->pool);
        real->wgpuCommandBufferRelease(rs->buffers[i]);
        s->owner = NULL;
        s->owner_buffer = NULL;
        s->chain_begun = false;
    }
    wgprof_rec_leave();
    wgprof_rec_collect_ready();
}

/* The program's buffers with wgprof's resolves after them, in `all` (room for n + MAX_RESOLVES)
 * or the program's own array where there are none; returns the count. */
static size_t with_resolves(size_t n, WGPUCommandBuffer const *commands, const resolve_set *rs,
                            WGPUCommandBuffer *all, WGPUCommandBuffer const **out)
{
    if (!rs->count) {
        *out = commands;
        return n;
    }
    memcpy(all, commands, n * sizeof *all);
    memcpy(all + n, rs->buffers, rs->count * sizeof *all);
    *out = all;
    return n + rs->count;
}

WGPROF_REC_EXPORT void wgpuQueueSubmit(WGPUQueue queue, size_t commandCount, WGPUCommandBuffer const *commands)
{
    const wgprof_rec_real_table *real = wgprof_rec_real();
    if (!hooks_on() || !commands) {
        real->wgpuQueueSubmit(queue, commandCount, commands);
        return;
    }
    wgprof_rec_lock();
    resolve_set rs = {0};
    prepare_resolves(commandCount, commands, &rs);
    WGPUCommandBuffer *all = rs.count ? wgprof__calloc(commandCount + rs.count, sizeof *all) : NULL;
    if (rs.count && !all) {
        for (size_t i = 0; i < rs.count; i++) {
            real->wgpuCommandBufferRelease(rs.buffers[i]);
        }
        rs.count = 0; /* out of memory: these batches stay resolved and are never read */
    }
    WGPUCommandBuffer const *list = NULL;
    size_t count = with_resolves(commandCount, commands, &rs, all, &list);
    real->wgpuQueueSubmit(queue, count, list);
    wgprof__free(all);
    after_submit(&rs);
    wgprof_rec_unlock();
}

WGPROF_REC_EXPORT WGPUSubmissionIndex wgpuQueueSubmitForIndex(WGPUQueue queue, size_t commandCount,
                                                              WGPUCommandBuffer const *commands)
{
    const wgprof_rec_real_table *real = wgprof_rec_real();
    if (!real->wgpuQueueSubmitForIndex) {
        wgprof_rec_missing("wgpuQueueSubmitForIndex");
        return 0;
    }
    if (!hooks_on() || !commands) {
        return real->wgpuQueueSubmitForIndex(queue, commandCount, commands);
    }
    wgprof_rec_lock();
    resolve_set rs = {0};
    prepare_resolves(commandCount, commands, &rs);
    WGPUCommandBuffer *all = rs.count ? wgprof__calloc(commandCount + rs.count, sizeof *all) : NULL;
    if (rs.count && !all) {
        for (size_t i = 0; i < rs.count; i++) {
            real->wgpuCommandBufferRelease(rs.buffers[i]);
        }
        rs.count = 0;
    }
    WGPUCommandBuffer const *list = NULL;
    size_t count = with_resolves(commandCount, commands, &rs, all, &list);
    WGPUSubmissionIndex index = real->wgpuQueueSubmitForIndex(queue, count, list);
    wgprof__free(all);
    after_submit(&rs);
    wgprof_rec_unlock();
    return index;
}
