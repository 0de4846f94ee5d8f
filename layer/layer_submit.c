/*
 * The program's submits: each only appends what it submits to the device's list in flight
 * (layer_queue.c reads it later). Within a batch, the primary command buffers whose chain was
 * left open (WGPROF_LAYER_CHAIN_ENV) are linked into one chain: each one's last row ends at the
 * next one's first timestamp, and the last one's at a tail of the layer's (layer_tail.c) added to
 * the batch right after it. A batch is the place for it: its command buffers run one after the
 * other with nothing to wait for between them, so the time from one's last timestamp to the
 * next's first is the last row's; between batches there may be semaphore waits. A command
 * buffer between two with rows that holds none, and no work of the program's left untimed (only
 * barriers, as wgpu-native records before each pass, or render work, which falls in the row it
 * lies in inside one command buffer too), does not end the chain: its time is the row's before.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

/* A secondary command buffer executed by `cb` (and so on down) in flight, alone: its chain is
 * always closed. */
static void children_submitted(wgprof_layer_cb *cb, uint64_t now, uint64_t seq, uint32_t slot);

/* A command buffer submitted again before its previous execution was read: that execution has
 * finished (Vulkan's rule for a command buffer without simultaneous use, which is never timed).
 * Everything ready is read with it, a pool at a time, so that the next command buffers
 * submitted again find theirs read already. */
static void previous_read(wgprof_layer_cb *cb)
{
    wgprof_layer_wait_unread(cb);
    if (cb->pending) {
        wgprof_layer_read_retired(cb->device);
        wgprof_layer_read_cb(cb, true);
    }
}

static void children_submitted(wgprof_layer_cb *cb, uint64_t now, uint64_t seq, uint32_t slot)
{
    for (size_t i = 0; i < cb->child_count; i++) {
        wgprof_layer_cb *child = cb->children[i];
        children_submitted(child, now, seq, slot);
        if (child->count) {
            previous_read(child);
            wgprof_layer_in_flight_put(child, now, seq, slot);
        }
    }
}

/* The command buffers of one batch, as either form of submit lists them. */
typedef struct batch {
    const char *items;
    size_t stride, offset;
    uint32_t count;
} batch;

static VkCommandBuffer batch_cb(const batch *b, uint32_t i)
{
    VkCommandBuffer h;
    memcpy(&h, b->items + i * b->stride + b->offset, sizeof h);
    return h;
}

/* The tails a submit adds: per batch, per command buffer, the one after it (or none). */
typedef struct added {
    wgprof_layer_tail ***after; /* [batch][command buffer]; NULL: none in that batch */
    size_t count;               /* tails in all */
    uint32_t batches;
} added;

/* A tail ends `last`'s open chain: after the `at`-th command buffer of batch `s`. Without one, its
 * last row has no end (its chain's other rows keep theirs). */
static void add_tail(wgprof_layer_device *d, wgprof_layer_cb *last, added *a, uint32_t s, const batch *b, uint32_t at)
{
    if (!a->after) {
        a->after = wgprof__calloc(a->batches, sizeof *a->after);
    }
    if (a->after && !a->after[s]) {
        a->after[s] = wgprof__calloc(b->count, sizeof **a->after);
    }
    wgprof_layer_tail *tail = a->after && a->after[s] ? wgprof_layer_tail_take(d, last->family) : NULL;
    last->tail = tail;
    if (tail) {
        a->after[s][at] = tail;
        a->count++;
    }
}

/* Whether a chain runs on across `cb`, a command buffer without rows: one the layer saw recorded,
 * a primary that executes no secondary and holds no dispatch or transfer work without a row. */
static bool passes_through(const wgprof_layer_cb *cb)
{
    return cb && cb->primary && !cb->holds_untimed && cb->child_count == 0 && !cb->broken;
}

/* Puts batch `s`'s command buffers in flight as submit `seq` of queue `slot`, an open one chained to the next where that one's
 * first timestamp comes before anything it does (a timed primary that executes no secondary),
 * else ended by a tail (`a`); command buffers between them that the chain passes through
 * (passes_through) leave it open. */
static void batch_submitted(wgprof_layer_device *d, const batch *b, uint32_t s, uint64_t now, added *a, uint64_t seq,
                            uint32_t slot)
{
    wgprof_layer_cb *head = NULL, *last = NULL; /* the chain being made */
    unsigned timed = 0;
    for (uint32_t i = 0; i < b->count; i++) {
        wgprof_layer_cb *cb = wgprof_layer_cb_of(batch_cb(b, i));
        bool rows = cb && cb->count > 0;
        if (cb) {
            children_submitted(cb, now, seq, slot);
        }
        if (rows) {
            previous_read(cb);
        } else if (last && last->open_end && passes_through(cb)) {
            continue;
        }
        timed += rows;
        bool joins = last && last->open_end && rows && cb->child_count == 0 && cb->ticks > 0;
        if (last && last->open_end && !joins) {
            add_tail(d, last, a, s, b, i - 1);
        }
        if (head && !joins) {
            wgprof_layer_in_flight_put(head, now, seq, slot);
            head = last = NULL;
        }
        if (joins) {
            last->chain_next = cb;
            cb->chain_head = head;
            last = cb;
        } else if (rows) {
            head = last = cb;
        }
        if (last && !last->open_end) { /* a closed chain ends with it */
            wgprof_layer_in_flight_put(head, now, seq, slot);
            head = last = NULL;
        }
    }
    if (last) {
        add_tail(d, last, a, s, b, b->count - 1);
        wgprof_layer_in_flight_put(head, now, seq, slot);
    }
    /* The next recordings' chains stay open where batches hold several timed command buffers
     * (only asked where the chain may run across a batch). */
    if (timed && !wgprof_layer_settings_get()->chain_per_cb) {
        atomic_store_explicit(&d->chain_open, timed >= 2, memory_order_relaxed);
    }
}

static void added_free(added *a)
{
    for (uint32_t s = 0; a->after && s < a->batches; s++) {
        wgprof__free(a->after[s]);
    }
    wgprof__free(a->after);
}

/* Batch `s`'s command buffers with its tails among them, into `out` (room for every one);
 * their count. */
static uint32_t with_tails(const added *a, uint32_t s, const batch *b, VkCommandBuffer *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->count; i++) {
        out[n++] = batch_cb(b, i);
        if (a->after[s][i]) {
            out[n++] = a->after[s][i]->handle;
        }
    }
    return n;
}

/* Batch `s` of a submit of either form: its command buffers, and the timeline values it signals
 * kept as submit `seq` of queue `slot`. */
typedef batch (*batch_of)(wgprof_layer_device *d, const void *submits, uint32_t s, uint32_t slot, uint64_t seq);

static batch batch_of_v1(wgprof_layer_device *d, const void *submits, uint32_t s, uint32_t slot, uint64_t seq)
{
    const VkSubmitInfo *v = (const VkSubmitInfo *)submits + s;
    wgprof_layer_submit_signals(d, slot, seq, v);
    return (batch){(const char *)v->pCommandBuffers, sizeof(VkCommandBuffer), 0, v->commandBufferCount};
}

static batch batch_of_v2(wgprof_layer_device *d, const void *submits, uint32_t s, uint32_t slot, uint64_t seq)
{
    const VkSubmitInfo2 *v = (const VkSubmitInfo2 *)submits + s;
    wgprof_layer_submit2_signals(d, slot, seq, v);
    return (batch){(const char *)v->pCommandBufferInfos, sizeof(VkCommandBufferSubmitInfo),
                   offsetof(VkCommandBufferSubmitInfo, commandBuffer), v->commandBufferInfoCount};
}

/* Puts a submit's `count` batches in flight (`of` reads them in the form they came in), its
 * fence kept; the tails to add in `a`; the command buffers it holds. */
static size_t submitted(wgprof_layer_device *d, VkQueue queue, VkFence fence, uint32_t count, const void *submits,
                        batch_of of, added *a)
{
    uint64_t now = wgprof_cpu_now_ns();
    uint32_t slot;
    uint64_t seq = wgprof_layer_submit_begin(d, queue, fence, &slot);
    size_t total = 0;
    for (uint32_t s = 0; s < count; s++) {
        batch b = of(d, submits, s, slot, seq);
        batch_submitted(d, &b, s, now, a, seq, slot);
        total += b.count;
    }
    return total;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                        VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    added a = {.batches = count};
    size_t total = submitted(d, queue, fence, count, submits, batch_of_v1, &a);
    if (!a.count) {
        added_free(&a);
        return d->QueueSubmit(queue, count, submits, fence);
    }
    VkSubmitInfo *copy = wgprof__alloc(count * sizeof *copy);
    VkCommandBuffer *cbs = wgprof__alloc((total + a.count) * sizeof *cbs);
    if (copy && cbs) {
        size_t at = 0;
        for (uint32_t s = 0; s < count; s++) {
            copy[s] = submits[s];
            if (a.after[s]) {
                batch b = {(const char *)submits[s].pCommandBuffers, sizeof(VkCommandBuffer), 0,
                           submits[s].commandBufferCount};
                copy[s].pCommandBuffers = cbs + at;
                copy[s].commandBufferCount = with_tails(&a, s, &b, cbs + at);
                at += copy[s].commandBufferCount;
            }
        }
    }
    /* Out of memory: submitted as the program asked, the tails' timestamps never come. */
    VkResult r = d->QueueSubmit(queue, count, copy && cbs ? copy : submits, fence);
    wgprof__free(copy);
    wgprof__free(cbs);
    added_free(&a);
    return r;
}

/* A submit of either VkSubmitInfo2 entry point (`next`), tails added as above. */
static VkResult submit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits, VkFence fence,
                        PFN_vkQueueSubmit2 next)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    added a = {.batches = count};
    size_t total = submitted(d, queue, fence, count, submits, batch_of_v2, &a);
    if (!a.count) {
        added_free(&a);
        return next(queue, count, submits, fence);
    }
    VkSubmitInfo2 *copy = wgprof__alloc(count * sizeof *copy);
    VkCommandBufferSubmitInfo *infos = wgprof__alloc((total + a.count) * sizeof *infos);
    if (copy && infos) {
        size_t at = 0;
        for (uint32_t s = 0; s < count; s++) {
            copy[s] = submits[s];
            if (!a.after[s]) {
                continue;
            }
            copy[s].pCommandBufferInfos = infos + at;
            for (uint32_t i = 0; i < submits[s].commandBufferInfoCount; i++) {
                infos[at++] = submits[s].pCommandBufferInfos[i];
                if (a.after[s][i]) {
                    /* On the devices of the one it ends. */
                    infos[at] = (VkCommandBufferSubmitInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                                            .commandBuffer = a.after[s][i]->handle,
                                                            .deviceMask = submits[s].pCommandBufferInfos[i].deviceMask};
                    at++;
                }
            }
            copy[s].commandBufferInfoCount = (uint32_t)(infos + at - copy[s].pCommandBufferInfos);
        }
    }
    VkResult r = next(queue, count, copy && infos ? copy : submits, fence);
    wgprof__free(copy);
    wgprof__free(infos);
    added_free(&a);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                                                         VkFence fence)
{
    return submit2(queue, count, submits, fence, wgprof_layer_device_of(queue)->QueueSubmit2);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2KHR(VkQueue queue, uint32_t count,
                                                            const VkSubmitInfo2 *submits, VkFence fence)
{
    return submit2(queue, count, submits, fence, wgprof_layer_device_of(queue)->QueueSubmit2KHR);
}
