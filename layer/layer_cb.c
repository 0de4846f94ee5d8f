/*
 * A command buffer's state in the layer (layer_lib.h, wgprof_layer_cb): made new for a handle
 * whose old one the program let go of while it was still unread (orphaned: begun again, reset or
 * freed before the layer's reader read its last submit; the reader reads that one and frees it),
 * and given back, by layer_commands.c when the program frees the command buffer or its pool, or
 * by layer_queue.c once an orphaned one is read (kept then for the next renewal).
 */
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

/* The clean blocks a command buffer keeps for its next recordings (the others go back to the
 * device): what one of wgpu-native's, a pass each, needs, so that its next takes no lock. */
enum { BLOCKS_HELD = 2 };

/* The recording's blocks let go of, at most `most` clean ones kept. */
static void blocks_return_keeping(wgprof_layer_cb *cb, size_t most)
{
    size_t used = cb->block_count, held = cb->blocks_held;
    if (used && cb->ticks > 0 && !cb->blocks_reset) {
        /* Written and never read: reset before another use, and not kept. */
        wgprof_layer_blocks_return(cb->device, cb->blocks, used, true);
        memmove(cb->blocks, cb->blocks + used, held * sizeof *cb->blocks);
        used = 0;
    }
    size_t keep = used + held < most ? used + held : most;
    if (used + held > keep) {
        wgprof_layer_blocks_return(cb->device, cb->blocks + keep, used + held - keep, false);
    }
    cb->blocks_held = keep;
    cb->block_count = 0;
    cb->blocks_reset = false;
}

void wgprof_layer_cb_blocks_return(wgprof_layer_cb *cb) { blocks_return_keeping(cb, BLOCKS_HELD); }

void wgprof_layer_cb_destroy(wgprof_layer_cb *cb)
{
    blocks_return_keeping(cb, 0);
    wgprof__free(cb->blocks);
    wgprof__free(cb->sites);
    wgprof__free(cb->children);
    wgprof__free(cb->marks);
    wgprof__free(cb->label_text);
    wgprof__free(cb);
}

/* The states kept for renewals: those read and let go of (with their arrays' room), up to so
 * many a device, so that a program that resets its pools after each wait (wgpu-native) allocates
 * nothing a step. */
enum { SPARES_KEPT = 256 };

void wgprof_layer_cbs_recycle(wgprof_layer_device *d, wgprof_layer_cb *list)
{
    for (wgprof_layer_cb *cb = list; cb; cb = cb->next_orphan) {
        wgprof_layer_cb_blocks_return(cb);
    }
    pthread_mutex_lock(&d->lock);
    while (list && d->spare_count < SPARES_KEPT) {
        wgprof_layer_cb *next = list->next_orphan;
        list->next_orphan = d->spares;
        d->spares = list;
        d->spare_count++;
        list = next;
    }
    pthread_mutex_unlock(&d->lock);
    while (list) {
        wgprof_layer_cb *next = list->next_orphan;
        wgprof_layer_cb_destroy(list);
        list = next;
    }
}

void wgprof_layer_cb_spares_free(wgprof_layer_device *d)
{
    wgprof_layer_cb *cb = d->spares;
    d->spares = NULL;
    d->spare_count = 0;
    while (cb) {
        wgprof_layer_cb *next = cb->next_orphan;
        wgprof_layer_cb_destroy(cb);
        cb = next;
    }
}

/* A kept state made as new but for its arrays' room (and the clean blocks it holds). */
static void as_new(wgprof_layer_cb *cb)
{
    wgprof_layer_cb room = *cb;
    memset(cb, 0, sizeof *cb);
    cb->blocks = room.blocks;
    cb->block_cap = room.block_cap;
    cb->blocks_held = room.blocks_held;
    cb->sites = room.sites;
    cb->cap = room.cap;
    cb->children = room.children;
    cb->child_cap = room.child_cap;
    cb->marks = room.marks;
    cb->mark_cap = room.mark_cap;
    cb->label_text = room.label_text;
    cb->label_cap = room.label_cap;
}

void wgprof_layer_cbs_made(wgprof_layer_cb *const *olds, size_t n, wgprof_layer_cb **news)
{
    wgprof_layer_device *d = olds[0]->device;
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < n; i++) {
        news[i] = d->spares;
        if (news[i]) {
            d->spares = news[i]->next_orphan;
            d->spare_count--;
        }
    }
    pthread_mutex_unlock(&d->lock);
    for (size_t i = 0; i < n; i++) {
        wgprof_layer_cb *cb = news[i];
        if (cb) {
            as_new(cb);
        } else {
            cb = news[i] = wgprof__calloc(1, sizeof *cb);
        }
        if (cb) {
            const wgprof_layer_cb *old = olds[i];
            cb->handle = old->handle;
            cb->device = old->device;
            cb->pool = old->pool;
            cb->family = old->family;
            cb->primary = old->primary;
            memcpy(cb->work_sites, old->work_sites, sizeof cb->work_sites);
            cb->work_sites_known = old->work_sites_known;
        }
    }
}

void wgprof_layer_cbs_renewed(const VkCommandBuffer *handles, wgprof_layer_cb **news, const bool *orphaned, size_t n)
{
    bool lost[WGPROF_LAYER_RELEASE_BATCH] = {false};
    wgprof_layer_lock();
    for (size_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)(uintptr_t)handles[i];
        if (orphaned[i] && !(news[i] && wgprof_layer_map_put(&wgprof_layer_cbs, key, news[i]))) {
            wgprof_layer_map_take(&wgprof_layer_cbs, key); /* no state: the handle runs untimed */
            lost[i] = true;
        }
    }
    wgprof_layer_unlock();
    wgprof_layer_cb *unused = NULL; /* made for a handle whose old state stayed: kept, in one trip */
    wgprof_layer_device *d = NULL;
    for (size_t i = 0; i < n; i++) {
        if (news[i] && lost[i]) {
            wgprof_layer_cb_destroy(news[i]);
        } else if (news[i] && !orphaned[i]) {
            d = news[i]->device;
            news[i]->next_orphan = unused;
            unused = news[i];
        }
        if (lost[i] || !orphaned[i]) {
            news[i] = NULL;
        }
    }
    if (unused) {
        wgprof_layer_cbs_recycle(d, unused);
    }
}
