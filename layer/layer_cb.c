/*
 * A command buffer's state in the layer (layer_lib.h, wgprof_layer_cb): made new for a handle
 * whose old one the program let go of while it was still unread (orphaned: begun again, reset or
 * freed before the layer's reader read its last submit; the reader reads that one and frees it),
 * and given back, by layer_commands.c when the program frees the command buffer or its pool, or
 * by layer_queue.c once an orphaned one is read.
 */
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

void wgprof_layer_cb_destroy(wgprof_layer_cb *cb)
{
    if (cb->block_count) {
        /* Read and reset already, or written and never read: reset before another use. */
        wgprof_layer_blocks_return(cb->device, cb->blocks, cb->block_count, cb->ticks > 0 && !cb->blocks_reset);
    }
    wgprof__free(cb->blocks);
    wgprof__free(cb->sites);
    wgprof__free(cb->children);
    wgprof__free(cb->marks);
    wgprof__free(cb->label_text);
    wgprof__free(cb);
}

wgprof_layer_cb *wgprof_layer_cb_renewed(const wgprof_layer_cb *old)
{
    wgprof_layer_cb *cb = wgprof__calloc(1, sizeof *cb);
    if (cb) {
        cb->handle = old->handle;
        cb->device = old->device;
        cb->pool = old->pool;
        cb->family = old->family;
        cb->primary = old->primary;
        memcpy(cb->work_sites, old->work_sites, sizeof cb->work_sites);
        cb->work_sites_known = old->work_sites_known;
    }
    uint64_t key = (uint64_t)(uintptr_t)old->handle;
    wgprof_layer_lock();
    bool kept = cb && wgprof_layer_map_put(&wgprof_layer_cbs, key, cb);
    if (!kept) {
        wgprof_layer_map_take(&wgprof_layer_cbs, key);
    }
    wgprof_layer_unlock();
    if (!kept) {
        wgprof__free(cb);
        return NULL;
    }
    return cb;
}
