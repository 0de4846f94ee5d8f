/*
 * The scopes of the encoders of a device left to wgprof's Vulkan layer (record.h,
 * RECORD_SYMBOL_DISPATCH_SCOPES): the program's pass labels and debug groups, and its dispatches,
 * in the order it encoded them, kept per encoder, then per command buffer once finished. While
 * the implementation records an encoder's Vulkan commands on the program's thread (wgpu-native
 * at wgpuCommandEncoderFinish, Dawn at wgpuQueueSubmit), those steps are held for that thread,
 * and the layer takes them dispatch by dispatch (wgprof_record_dispatch_scopes), so that its
 * rows get the scopes the webgpu.h way gives, with nothing asked of the implementation.
 *
 * One mutex guards the maps, held for a lookup or an update only; an encoder's steps are its
 * thread's (WebGPU's rule), and a command buffer's are read only while it is submitted.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "record.h"
#include "record_lib.h"

/* A step: a scope begun (its name), one ended (NULL name), or a dispatch. */
typedef struct step {
    char *name;
    bool dispatch;
} step;

typedef struct steps {
    step *items;
    size_t count, cap;
    unsigned encoder_depth; /* the encoder's debug groups open */
    bool broken;            /* a step could not be kept: none of its scopes are told */
} steps;

/* A pass of a tracked encoder: its encoder's steps, and what it opened. */
typedef struct pass_steps {
    steps *of;
    unsigned depth; /* its debug groups open */
    bool label;     /* its label opened a scope */
} pass_steps;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static wgprof_rec_map g_encoders, g_passes, g_buffers;
static atomic_size_t g_tracked; /* encoders and buffers tracked: none, nothing to look up */

/* What this thread holds for the layer while the implementation records: the steps of these
 * lists, in order, from (list, at). */
static _Thread_local steps *const *t_lists;
static _Thread_local size_t t_count, t_list, t_at;

static void *get(wgprof_rec_map *map, const void *key)
{
    if (!atomic_load(&g_tracked)) {
        return NULL;
    }
    pthread_mutex_lock(&g_lock);
    void *v = wgprof_rec_map_get(map, key);
    pthread_mutex_unlock(&g_lock);
    return v;
}

/* Not gated by g_tracked: a pass of an encoder let go of is still to free. */
static void *take(wgprof_rec_map *map, const void *key)
{
    pthread_mutex_lock(&g_lock);
    void *v = wgprof_rec_map_take(map, key);
    pthread_mutex_unlock(&g_lock);
    return v;
}

static bool put(wgprof_rec_map *map, const void *key, void *value)
{
    pthread_mutex_lock(&g_lock);
    bool ok = wgprof_rec_map_put(map, key, value);
    pthread_mutex_unlock(&g_lock);
    return ok;
}

static void free_steps(steps *s)
{
    if (!s) {
        return;
    }
    for (size_t i = 0; i < s->count; i++) {
        wgprof__free(s->items[i].name);
    }
    wgprof__free(s->items);
    wgprof__free(s);
    atomic_fetch_sub(&g_tracked, 1);
}

static void add(steps *s, const char *name, bool begin, bool dispatch)
{
    if (s->broken) {
        return;
    }
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        step *more = wgprof__calloc(cap, sizeof *more);
        if (!more) {
            s->broken = true;
            return;
        }
        if (s->count) {
            memcpy(more, s->items, s->count * sizeof *more);
        }
        wgprof__free(s->items);
        s->items = more;
        s->cap = cap;
    }
    step st = {NULL, dispatch};
    if (begin) {
        st.name = wgprof__strdup(name);
        if (!st.name) {
            s->broken = true;
            return;
        }
    }
    s->items[s->count++] = st;
}

static void begin_named(steps *s, WGPUStringView label)
{
    char name[256];
    size_t n = label.data ? (label.length == WGPU_STRLEN ? strlen(label.data) : label.length) : 0;
    snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), n ? label.data : "");
    add(s, name, true, false);
}

void wgprof_rec_scopes_track(WGPUCommandEncoder enc)
{
    steps *s = wgprof__calloc(1, sizeof *s);
    if (!s) {
        return;
    }
    atomic_fetch_add(&g_tracked, 1);
    if (!put(&g_encoders, enc, s)) {
        free_steps(s);
    }
}

void wgprof_rec_scopes_push(WGPUCommandEncoder enc, WGPUStringView label)
{
    steps *s = get(&g_encoders, enc);
    if (s) {
        begin_named(s, label);
        s->encoder_depth++;
    }
}

void wgprof_rec_scopes_pop(WGPUCommandEncoder enc)
{
    steps *s = get(&g_encoders, enc);
    if (s && s->encoder_depth) {
        add(s, NULL, false, false);
        s->encoder_depth--;
    }
}

void wgprof_rec_scopes_pass_begin(WGPUCommandEncoder enc, WGPUComputePassEncoder pass, WGPUStringView label)
{
    steps *s = get(&g_encoders, enc);
    pass_steps *p = s ? wgprof__calloc(1, sizeof *p) : NULL;
    if (!p) {
        return;
    }
    p->of = s;
    size_t n = label.data ? (label.length == WGPU_STRLEN ? strlen(label.data) : label.length) : 0;
    if (n) {
        begin_named(s, label);
        p->label = true;
    }
    if (!put(&g_passes, pass, p)) {
        if (p->label) {
            add(s, NULL, false, false);
        }
        wgprof__free(p);
    }
}

void wgprof_rec_scopes_pass_push(WGPUComputePassEncoder pass, WGPUStringView label)
{
    pass_steps *p = get(&g_passes, pass);
    if (p && p->of) {
        begin_named(p->of, label);
        p->depth++;
    }
}

void wgprof_rec_scopes_pass_pop(WGPUComputePassEncoder pass)
{
    pass_steps *p = get(&g_passes, pass);
    if (p && p->of && p->depth) {
        add(p->of, NULL, false, false);
        p->depth--;
    }
}

void wgprof_rec_scopes_dispatch(WGPUComputePassEncoder pass)
{
    pass_steps *p = get(&g_passes, pass);
    if (p && p->of) {
        add(p->of, NULL, false, true);
    }
}

void wgprof_rec_scopes_pass_end(WGPUComputePassEncoder pass)
{
    pass_steps *p = take(&g_passes, pass);
    if (!p) {
        return;
    }
    for (; p->of && p->depth; p->depth--) {
        add(p->of, NULL, false, false);
    }
    if (p->of && p->label) {
        add(p->of, NULL, false, false);
    }
    wgprof__free(p);
}

void wgprof_rec_scopes_finishing(WGPUCommandEncoder enc)
{
    static _Thread_local steps *one;
    one = get(&g_encoders, enc);
    t_lists = one ? &one : NULL;
    t_count = one ? 1 : 0;
    t_list = t_at = 0;
}

/* Passes still open on `s` (an encoder released or finished before their end, which the
 * program may do) add to it no more. */
static void detach_pass(void *value, void *user)
{
    pass_steps *p = value;
    if (p->of == user) {
        p->of = NULL;
    }
}

static void detach_passes(const steps *s)
{
    pthread_mutex_lock(&g_lock);
    wgprof_rec_map_each(&g_passes, detach_pass, (void *)s);
    pthread_mutex_unlock(&g_lock);
}

void wgprof_rec_scopes_finished(WGPUCommandEncoder enc, WGPUCommandBuffer cb)
{
    t_lists = NULL;
    t_count = 0;
    steps *s = take(&g_encoders, enc);
    if (!s) {
        return;
    }
    detach_passes(s);
    for (; s->encoder_depth; s->encoder_depth--) {
        add(s, NULL, false, false);
    }
    if (!cb || !put(&g_buffers, cb, s)) {
        free_steps(s);
    }
}

void wgprof_rec_scopes_forget_encoder(WGPUCommandEncoder enc)
{
    steps *s = take(&g_encoders, enc);
    if (s) {
        detach_passes(s);
        free_steps(s);
    }
}

void wgprof_rec_scopes_forget_pass(WGPUComputePassEncoder pass) { wgprof__free(take(&g_passes, pass)); }

void wgprof_rec_scopes_forget_buffer(WGPUCommandBuffer cb) { free_steps(take(&g_buffers, cb)); }

bool wgprof_rec_scopes_submitting(size_t n, WGPUCommandBuffer const *commands, void **held)
{
    *held = NULL;
    if (!atomic_load(&g_tracked) || !n) {
        return false;
    }
    steps **lists = wgprof__calloc(n, sizeof *lists);
    if (!lists) {
        return false;
    }
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        steps *s = get(&g_buffers, commands[i]);
        if (s) {
            lists[found++] = s;
        }
    }
    if (!found) {
        wgprof__free(lists);
        return false;
    }
    t_lists = lists;
    t_count = found;
    t_list = t_at = 0;
    *held = lists;
    return true;
}

void wgprof_rec_scopes_submitted(void *held)
{
    t_lists = NULL;
    t_count = 0;
    wgprof__free(held);
}

WGPROF_REC_EXPORT size_t wgprof_record_dispatch_scopes(const char **out, size_t cap);
WGPROF_REC_EXPORT size_t wgprof_record_dispatch_scopes(const char **out, size_t cap)
{
    size_t n = 0;
    for (; t_list < t_count; t_list++, t_at = 0) {
        const steps *s = t_lists[t_list];
        for (; !s->broken && t_at < s->count; t_at++) {
            const step *st = &s->items[t_at];
            if (st->dispatch && n <= cap) {
                t_at++;
                return n;
            }
            if (st->dispatch || n == cap) {
                break; /* more steps than the caller holds: told no further */
            }
            out[n++] = st->name;
        }
        if (s->broken || t_at < s->count) {
            /* A list not kept whole: which dispatch is which is not known from here on. */
            t_list = t_count;
            return SIZE_MAX;
        }
    }
    return SIZE_MAX;
}
