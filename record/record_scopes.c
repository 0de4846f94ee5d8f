/*
 * The scopes of the encoders of a device left to wgprof's Vulkan layer (record.h,
 * RECORD_SYMBOL_DISPATCH_SCOPES): the program's pass labels and debug groups, and its dispatches,
 * in the order it encoded them, kept per encoder, then per command buffer once finished. While
 * the implementation records an encoder's Vulkan commands on the program's thread (wgpu-native
 * at wgpuCommandEncoderFinish, Dawn at wgpuQueueSubmit), those steps are held for that thread,
 * and the layer takes them dispatch by dispatch (wgprof_record_dispatch_scopes), so that its
 * rows get the scopes the webgpu.h way gives, with nothing asked of the implementation.
 *
 * One mutex guards the maps, held for a lookup or an update only. An encoder's steps are its
 * thread's (WebGPU's rule), and so is its open pass: the thread that made the encoder (or found
 * it last) begins, dispatches in and ends its passes without the lock; another thread finds an
 * open pass by its handle under the lock (the handle and whether the encoder has a pass open are
 * atomic for that). A command buffer's steps are read only while it is submitted.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "record.h"
#include "record_lib.h"

/* A step: a scope begun (its name's offset in its list's text), one ended, or a dispatch. */
enum { NO_NAME = UINT32_MAX };

typedef struct step {
    uint32_t name; /* NO_NAME: an end, or a dispatch */
    bool dispatch;
} step;

typedef struct steps steps;

/* A pass of a tracked encoder: its encoder's steps, and what it opened. */
typedef struct pass_steps {
    _Atomic(WGPUComputePassEncoder) handle;
    steps *of;
    unsigned depth; /* its debug groups open */
    bool label;     /* its label opened a scope */
    bool inside;    /* it is its encoder's `open`, not an allocation of its own */
} pass_steps;

struct steps {
    step *items;
    uint32_t count, cap;
    char *text; /* the names, each ended by a zero */
    uint32_t text_len, text_cap;
    unsigned encoder_depth; /* the encoder's debug groups open */
    bool broken;            /* a step could not be kept: none of its scopes are told */
    /* Its pass open, in no map: an encoder has one at a time (a second is the program's
     * mistake, which gets an allocation of its own, in g_extra_passes), so a pass costs no
     * allocation and no map's update. */
    pass_steps open;
    atomic_bool open_taken;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static wgprof_rec_map g_encoders, g_buffers, g_extra_passes;
static atomic_size_t g_tracked; /* encoders and buffers tracked: none, nothing to look up */
static atomic_size_t g_open;    /* passes open: none, nothing to look up */

/* A state this thread keeps by its handle, valid while no state has been freed since (g_freed,
 * bumped under the lock wherever one may be: an encoder's passes let go of, a pass of its own
 * ended). The encoder it made or found last, whose passes begin without the lock, and the pass
 * it began or found last, whose dispatches, debug groups and end find it without the lock. */
typedef struct kept {
    const void *handle;
    void *state;
    uint_fast64_t freed;
} kept;

static atomic_uint_fast64_t g_freed;
static _Thread_local kept t_encoder, t_pass;

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

/* ---- the passes open ---- */

static void *kept_state(const kept *k, const void *handle)
{
    return k->handle == handle && k->freed == atomic_load(&g_freed) ? k->state : NULL;
}

static void keep(kept *k, const void *handle, void *state)
{
    k->handle = handle;
    k->state = state;
    k->freed = atomic_load(&g_freed);
}

/* The pass this thread keeps, where it is `pass` and still open. */
static pass_steps *kept_pass(WGPUComputePassEncoder pass)
{
    pass_steps *p = kept_state(&t_pass, pass);
    return p && atomic_load(&p->handle) == pass ? p : NULL;
}

typedef struct finding {
    WGPUComputePassEncoder pass;
    pass_steps *found;
} finding;

static void find_open(void *value, void *user)
{
    steps *s = value;
    finding *f = user;
    if (!f->found && atomic_load(&s->open_taken) && atomic_load(&s->open.handle) == f->pass) {
        f->found = &s->open;
    }
}

/* An open pass's state that this thread does not keep (the lock held): an encoder's own open
 * pass, or one of its own; NULL where `pass` is not open. */
static pass_steps *open_pass_locked(WGPUComputePassEncoder pass)
{
    pass_steps *p = g_extra_passes.count ? wgprof_rec_map_get(&g_extra_passes, pass) : NULL;
    if (!p) {
        finding f = {pass, NULL};
        wgprof_rec_map_each(&g_encoders, find_open, &f);
        p = f.found;
    }
    return p;
}

/* An open pass's state, for its thread's steps: found without the lock where this thread
 * keeps it. */
static pass_steps *open_pass(WGPUComputePassEncoder pass)
{
    if (!pass || !atomic_load(&g_open)) {
        return NULL;
    }
    pass_steps *p = kept_pass(pass);
    if (!p) {
        pthread_mutex_lock(&g_lock);
        p = open_pass_locked(pass);
        if (p) {
            keep(&t_pass, pass, p);
        }
        pthread_mutex_unlock(&g_lock);
    }
    return p;
}

/* Pass `p` closed: its encoder's open pass free again (on its thread: no lock), or its own
 * state freed (the lock held). */
static void close_one(pass_steps *p)
{
    if (p->inside) {
        atomic_store(&p->of->open_taken, false);
        atomic_store(&p->handle, NULL);
    } else {
        wgprof_rec_map_take(&g_extra_passes, atomic_load(&p->handle));
        wgprof__free(p);
        atomic_fetch_add(&g_freed, 1);
    }
    atomic_fetch_sub(&g_open, 1);
}

/* What an ended pass leaves its encoder's steps to close. */
typedef struct pass_left {
    steps *of;
    unsigned depth;
    bool label;
} pass_left;

/* An open pass closed, what it left open in *out; false where `pass` is not open (ended
 * already, or its encoder let go of). */
static bool close_pass(WGPUComputePassEncoder pass, pass_left *out)
{
    if (!pass || !atomic_load(&g_open)) {
        return false; /* a release after the end, where no other pass is open: nothing to search */
    }
    pass_steps *p = kept_pass(pass);
    bool locked = !p || !p->inside; /* its own state is freed under the lock */
    if (locked) {
        pthread_mutex_lock(&g_lock);
        p = p ? p : open_pass_locked(pass);
    }
    if (p) {
        *out = (pass_left){p->of, p->depth, p->label};
        close_one(p);
    }
    if (locked) {
        pthread_mutex_unlock(&g_lock);
    }
    return p != NULL;
}

static void free_steps(steps *s)
{
    if (!s) {
        return;
    }
    wgprof__free(s->items);
    wgprof__free(s->text);
    wgprof__free(s);
    atomic_fetch_sub(&g_tracked, 1);
}

/* `name`'s n bytes kept in the list's text; its offset, or NO_NAME where out of memory (or of
 * offsets). */
static uint32_t keep_name(steps *s, const char *name, size_t n)
{
    uint64_t need = (uint64_t)s->text_len + n + 1;
    if (need >= NO_NAME ||
        wgprof__reserve((void **)&s->text, &s->text_cap, (uint32_t)need, 1, 512) != WGPROF_OK) {
        return NO_NAME;
    }
    uint32_t at = s->text_len;
    memcpy(s->text + at, name, n);
    s->text[at + n] = '\0';
    s->text_len = (uint32_t)need;
    return at;
}

/* A step added: a scope begun where `name` (of n bytes), else an end or a dispatch. */
static void add(steps *s, const char *name, size_t n, bool dispatch)
{
    if (s->broken) {
        return;
    }
    if (s->count == UINT32_MAX ||
        wgprof__reserve((void **)&s->items, &s->cap, s->count + 1, sizeof *s->items, 32) != WGPROF_OK) {
        s->broken = true;
        return;
    }
    step st = {NO_NAME, dispatch};
    if (name) {
        st.name = keep_name(s, name, n);
        if (st.name == NO_NAME) {
            s->broken = true;
            return;
        }
    }
    s->items[s->count++] = st;
}

static void end_one(steps *s) { add(s, NULL, 0, false); }

/* A scope named by the label, its first 255 bytes (up to a zero), begun. */
static void begin_named(steps *s, WGPUStringView label)
{
    size_t n = label.data ? (label.length == WGPU_STRLEN ? strlen(label.data) : label.length) : 0;
    n = n < 255 ? n : 255;
    const char *zero = n ? memchr(label.data, '\0', n) : NULL;
    add(s, n ? label.data : "", zero ? (size_t)(zero - label.data) : n, false);
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
    } else {
        keep(&t_encoder, enc, s);
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
        end_one(s);
        s->encoder_depth--;
    }
}

void wgprof_rec_scopes_pass_begin(WGPUCommandEncoder enc, WGPUComputePassEncoder pass, WGPUStringView label)
{
    if (!atomic_load(&g_tracked) || !pass) {
        return;
    }
    /* The encoder this thread keeps opens its pass without the lock; else the encoder's steps are
     * found and the pass opened under one hold of it. The steps are this thread's (the
     * encoder's), so the label is added after. */
    steps *s = kept_state(&t_encoder, enc);
    bool locked = !s || atomic_load(&s->open_taken);
    if (locked) {
        pthread_mutex_lock(&g_lock);
        s = wgprof_rec_map_get(&g_encoders, enc);
    }
    pass_steps *p = !s ? NULL : !atomic_load(&s->open_taken) ? &s->open : wgprof__calloc(1, sizeof *p);
    if (p) {
        p->of = s;
        p->depth = 0;
        p->label = false;
        p->inside = p == &s->open;
        atomic_store(&p->handle, pass); /* before the encoder says it has a pass open */
        if (p->inside) {
            atomic_store(&s->open_taken, true);
        } else if (!wgprof_rec_map_put(&g_extra_passes, pass, p)) {
            wgprof__free(p);
            p = NULL;
        }
    }
    if (p) {
        atomic_fetch_add(&g_open, 1);
        keep(&t_pass, pass, p);
    }
    if (locked) {
        if (s) {
            keep(&t_encoder, enc, s);
        }
        pthread_mutex_unlock(&g_lock);
    }
    size_t n = label.data ? (label.length == WGPU_STRLEN ? strlen(label.data) : label.length) : 0;
    if (p && n) {
        begin_named(s, label);
        p->label = true;
    }
}

void wgprof_rec_scopes_pass_push(WGPUComputePassEncoder pass, WGPUStringView label)
{
    pass_steps *p = open_pass(pass);
    if (p) {
        begin_named(p->of, label);
        p->depth++;
    }
}

void wgprof_rec_scopes_pass_pop(WGPUComputePassEncoder pass)
{
    pass_steps *p = open_pass(pass);
    if (p && p->depth) {
        end_one(p->of);
        p->depth--;
    }
}

void wgprof_rec_scopes_dispatch(WGPUComputePassEncoder pass)
{
    pass_steps *p = open_pass(pass);
    if (p) {
        add(p->of, NULL, 0, true);
    }
}

void wgprof_rec_scopes_pass_end(WGPUComputePassEncoder pass)
{
    pass_left p;
    if (!close_pass(pass, &p)) {
        return;
    }
    for (; p.depth; p.depth--) {
        end_one(p.of);
    }
    if (p.label) {
        end_one(p.of);
    }
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
 * program may do) add to it no more: closed (their end then finds nothing). */
typedef struct detaching {
    const steps *of;
    WGPUComputePassEncoder keys[8]; /* found in one walk, taken after it */
    size_t count;
    bool more;
} detaching;

static void detach_key(void *value, void *user)
{
    detaching *d = user;
    const pass_steps *p = value;
    if (p->of != d->of) {
        return;
    }
    if (d->count < sizeof d->keys / sizeof d->keys[0]) {
        d->keys[d->count++] = atomic_load(&p->handle);
    } else {
        d->more = true;
    }
}

static void detach_passes(steps *s)
{
    pthread_mutex_lock(&g_lock);
    detaching d = {.of = s, .more = true};
    while (d.more && g_extra_passes.count) {
        d.count = 0;
        d.more = false;
        wgprof_rec_map_each(&g_extra_passes, detach_key, &d);
        for (size_t i = 0; i < d.count; i++) {
            close_one(wgprof_rec_map_get(&g_extra_passes, d.keys[i]));
        }
    }
    if (atomic_load(&s->open_taken)) {
        close_one(&s->open);
    }
    atomic_fetch_add(&g_freed, 1); /* the steps are freed later: no thread keeps their pass */
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
        end_one(s);
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

void wgprof_rec_scopes_forget_pass(WGPUComputePassEncoder pass)
{
    pass_left gone;
    close_pass(pass, &gone); /* released without its end */
}

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
            out[n++] = st->name == NO_NAME ? NULL : s->text + st->name;
        }
        if (s->broken || t_at < s->count) {
            /* A list not kept whole: which dispatch is which is not known from here on. */
            t_list = t_count;
            return SIZE_MAX;
        }
    }
    return SIZE_MAX;
}
