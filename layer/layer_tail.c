/*
 * The layer's own command buffers that end a chain across the program's (layer_lib.h,
 * wgprof_layer_tail): each holds one timestamp and is recorded once. They are made a set at a
 * time, a command pool of the queue family's and a block of queries a set, so that no pool of
 * the layer's is ever used by two threads at once and no lock is held while the driver records.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

enum { TAILS_A_SET = 32 };

/* A set of tails, for the device's end. */
typedef struct wgprof_layer_tails {
    VkCommandPool pool;
    struct wgprof_layer_tails *next;
    wgprof_layer_tail tails[TAILS_A_SET];
} wgprof_layer_tails;

/* Records tail `t`: its timestamp (reset first in the stream where there is no host reset), and
 * its copy where the device reads from the layer's buffer. */
static bool record_tail(wgprof_layer_device *d, wgprof_layer_tail *t)
{
    if (d->set_loader_data(d->handle, t->handle) != VK_SUCCESS) {
        return false;
    }
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (d->BeginCommandBuffer(t->handle, &begin) != VK_SUCCESS) {
        return false;
    }
    if (!d->ResetQueryPool) {
        d->CmdResetQueryPool(t->handle, t->pool, t->query, 1);
    }
    d->CmdWriteTimestamp(t->handle, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->pool, t->query);
    wgprof_layer_readback_record(d, t->handle, &(wgprof_layer_block){t->pool, t->query, t->buffer, t->copied}, 1, 1);
    return d->EndCommandBuffer(t->handle) == VK_SUCCESS;
}

/* A new set of tails for `family`, all free but the one returned; NULL where none could be made. */
static wgprof_layer_tail *make_set(wgprof_layer_device *d, uint32_t family)
{
    wgprof_layer_tails *set = wgprof__calloc(1, sizeof *set);
    wgprof_layer_block block;
    if (!set || !d->set_loader_data || !wgprof_layer_block_take(d, &block)) {
        wgprof__free(set);
        return NULL;
    }
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .queueFamilyIndex = family};
    VkCommandBuffer handles[TAILS_A_SET];
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = TAILS_A_SET};
    bool ok = d->CreateCommandPool(d->handle, &pool_info, NULL, &set->pool) == VK_SUCCESS;
    alloc.commandPool = set->pool;
    ok = ok && d->AllocateCommandBuffers(d->handle, &alloc, handles) == VK_SUCCESS;
    for (uint32_t i = 0; ok && i < TAILS_A_SET; i++) {
        set->tails[i] = (wgprof_layer_tail){.handle = handles[i],
                                            .pool = block.pool,
                                            .query = block.first + i,
                                            .buffer = block.buffer,
                                            .copied = block.copied ? block.copied + 2 * i : NULL,
                                            .family = family};
        ok = record_tail(d, &set->tails[i]);
    }
    if (!ok) {
        if (set->pool) {
            d->DestroyCommandPool(d->handle, set->pool, NULL);
        }
        wgprof_layer_blocks_return(d, &block, 1, true);
        wgprof__free(set);
        return NULL;
    }
    pthread_mutex_lock(&d->lock);
    set->next = d->tail_sets;
    d->tail_sets = set;
    for (uint32_t i = 1; i < TAILS_A_SET; i++) {
        set->tails[i].next_free = d->free_tails;
        d->free_tails = &set->tails[i];
    }
    pthread_mutex_unlock(&d->lock);
    return &set->tails[0];
}

wgprof_layer_tail *wgprof_layer_tail_take(wgprof_layer_device *d, uint32_t family)
{
    pthread_mutex_lock(&d->lock);
    wgprof_layer_tail **at = &d->free_tails;
    while (*at && (*at)->family != family) {
        at = &(*at)->next_free;
    }
    wgprof_layer_tail *t = *at;
    if (t) {
        *at = t->next_free;
        t->next_free = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    return t ? t : make_set(d, family);
}

void wgprof_layer_tails_return(wgprof_layer_device *d, wgprof_layer_tail *const *tails, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (d->ResetQueryPool) {
            d->ResetQueryPool(d->handle, tails[i]->pool, tails[i]->query, 1);
        }
        if (tails[i]->copied) {
            wgprof_layer_copy_clear(tails[i]->copied, 1);
        }
    }
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < count; i++) {
        tails[i]->next_free = d->free_tails;
        d->free_tails = tails[i];
    }
    pthread_mutex_unlock(&d->lock);
}

void wgprof_layer_tails_destroy(wgprof_layer_device *d)
{
    wgprof_layer_tails *set = d->tail_sets;
    d->tail_sets = NULL;
    d->free_tails = NULL;
    while (set) {
        wgprof_layer_tails *next = set->next;
        d->DestroyCommandPool(d->handle, set->pool, NULL); /* its command buffers with it */
        wgprof__free(set);
        set = next;
    }
}
