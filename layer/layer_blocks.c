/*
 * The layer's queries: blocks of WGPROF_LAYER_BLOCK queries of its timestamp pools, handed to
 * the command buffers it times as they record (and to its tails), back once read: reset from
 * the host where the device allows, else in the stream at their next use (and their copies in
 * the layer's buffer cleared, where the device reads from one: layer_readback.c).
 */
#include <stdatomic.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

bool wgprof_layer_block_take(wgprof_layer_device *d, wgprof_layer_block *out)
{
    pthread_mutex_lock(&d->lock);
    bool have = d->free_count > 0;
    if (have) {
        *out = d->free_blocks[--d->free_count];
    }
    pthread_mutex_unlock(&d->lock);
    if (have) {
        return true;
    }
    /* A new pool, outside the lock (it calls the driver); its blocks but the first go free. */
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = WGPROF_LAYER_POOL_QUERIES};
    wgprof_layer_query_pool made = {VK_NULL_HANDLE};
    if (d->CreateQueryPool(d->handle, &info, NULL, &made.pool) != VK_SUCCESS) {
        return false;
    }
    if (!wgprof_layer_readback_make(d, &made)) {
        d->DestroyQueryPool(d->handle, made.pool, NULL);
        if (!atomic_exchange(&d->readback_failed_said, true)) {
            wgprof_layer_say("device %s: no host-visible memory for the layer's copy of its timestamps: its "
                             "dispatches run untimed (WGPROF_LAYER_READBACK=query reads the query pools instead)",
                             d->info.adapter);
        }
        return false;
    }
    if (d->ResetQueryPool) {
        d->ResetQueryPool(d->handle, made.pool, 0, WGPROF_LAYER_POOL_QUERIES);
    }
    enum { BLOCKS = WGPROF_LAYER_POOL_QUERIES / WGPROF_LAYER_BLOCK };
    wgprof_layer_block first[BLOCKS];
    for (uint32_t b = 0; b < BLOCKS; b++) {
        first[b] = (wgprof_layer_block){made.pool, b * WGPROF_LAYER_BLOCK, made.buffer,
                                        made.mapped ? made.mapped + 2 * b * WGPROF_LAYER_BLOCK : NULL};
    }
    pthread_mutex_lock(&d->lock);
    wgprof_layer_query_pool *pools =
        wgprof_layer_grow(d->query_pools, d->query_pool_count, d->query_pool_count + 1, sizeof *pools);
    wgprof_layer_block *blocks =
        pools ? wgprof_layer_grow(d->free_blocks, d->free_count, (d->query_pool_count + 1) * BLOCKS, sizeof *blocks)
              : NULL;
    if (pools) {
        d->query_pools = pools;
    }
    if (blocks) {
        d->free_blocks = blocks;
        d->free_cap = (d->query_pool_count + 1) * BLOCKS; /* every block there is fits */
        d->query_pools[d->query_pool_count++] = made;
        memcpy(d->free_blocks + d->free_count, first + 1, (BLOCKS - 1) * sizeof *first);
        d->free_count += BLOCKS - 1;
    }
    pthread_mutex_unlock(&d->lock);
    if (!blocks) {
        wgprof_layer_readback_free(d, &made);
        d->DestroyQueryPool(d->handle, made.pool, NULL);
        return false;
    }
    *out = first[0];
    return true;
}

void wgprof_layer_blocks_return(wgprof_layer_device *d, wgprof_layer_block *blocks, size_t count, bool reset)
{
    if (reset && d->ResetQueryPool) {
        for (size_t i = 0; i < count; i++) {
            d->ResetQueryPool(d->handle, blocks[i].pool, blocks[i].first, WGPROF_LAYER_BLOCK);
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (blocks[i].copied) {
            wgprof_layer_copy_clear(blocks[i].copied, WGPROF_LAYER_BLOCK);
        }
    }
    pthread_mutex_lock(&d->lock);
    if (d->free_count + count <= d->free_cap) {
        memcpy(d->free_blocks + d->free_count, blocks, count * sizeof *blocks);
        d->free_count += count;
    }
    pthread_mutex_unlock(&d->lock);
}
