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

/* A kept state made as new but for its device, its arrays' room and the clean blocks it holds. */
static void as_new(wgprof_layer_cb *cb)
{
    wgprof_layer_cb room = *cb;
    memset(cb, 0, sizeof *cb);
    cb->device = room.device;
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

void wgprof_layer_cbs_recycle(wgprof_layer_device *d, wgprof_layer_cb *list)
{
    enum { BATCH = 64 };
    while (list) {
        wgprof_layer_cb *made[BATCH];
        size_t n = 0;
        for (; list && n < BATCH; n++) {
            made[n] = list;
            list = list->next_orphan;
            wgprof_layer_cb_blocks_return(made[n]);
            as_new(made[n]);
        }
        size_t kept = 0;
        pthread_mutex_lock(&d->spares_lock);
        for (; kept < n && d->spare_count < WGPROF_LAYER_SPARES_KEPT; kept++) {
            d->spares[d->spare_count++] = made[kept];
        }
        pthread_mutex_unlock(&d->spares_lock);
        for (size_t i = kept; i < n; i++) {
            wgprof_layer_cb_destroy(made[i]);
        }
    }
}

void wgprof_layer_cb_spares_free(wgprof_layer_device *d)
{
    for (size_t i = 0; i < d->spare_count; i++) {
        wgprof_layer_cb_destroy(d->spares[i]);
    }
    d->spare_count = 0;
}

void wgprof_layer_cbs_made(wgprof_layer_cb *const *olds, size_t n, wgprof_layer_cb **news)
{
    wgprof_layer_device *d = olds[0]->device;
    pthread_mutex_lock(&d->spares_lock);
    for (size_t i = 0; i < n; i++) {
        news[i] = d->spare_count ? d->spares[--d->spare_count] : NULL;
    }
    pthread_mutex_unlock(&d->spares_lock);
    /* Their lines written below, last the reader's: asked for all at once, not one miss after
     * another. */
    for (size_t i = 0; i < n; i++) {
        if (news[i]) {
            __builtin_prefetch(news[i], 1);
            __builtin_prefetch(&news[i]->primary, 1);
            __builtin_prefetch(&news[i]->work_sites[0], 1);
            __builtin_prefetch(&news[i]->work_sites_known, 1);
        }
    }
    for (size_t i = 0; i < n; i++) {
        wgprof_layer_cb *cb = news[i] ? news[i] : (news[i] = wgprof__calloc(1, sizeof *cb));
        if (cb) {
            const wgprof_layer_cb *old = olds[i];
            cb->handle = old->handle;
            cb->device = old->device;
            cb->pool_slot = old->pool_slot;
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
