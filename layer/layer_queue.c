/*
 * The layer's queries and readback: blocks of WGPROF_LAYER_BLOCK queries handed to command
 * buffers as they record, reset from the host once read (or in the stream, where the device has
 * no host reset); the program's submits, after which a command buffer's timestamps are read as
 * soon as they are all there, without ever waiting: at the next submit, after the program's own
 * waits, when the command buffer is used again, and at the device's end.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

/* ---- query blocks ---- */

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
    VkQueryPool pool = VK_NULL_HANDLE;
    if (d->CreateQueryPool(d->handle, &info, NULL, &pool) != VK_SUCCESS) {
        return false;
    }
    if (d->ResetQueryPool) {
        d->ResetQueryPool(d->handle, pool, 0, WGPROF_LAYER_POOL_QUERIES);
    }
    enum { BLOCKS = WGPROF_LAYER_POOL_QUERIES / WGPROF_LAYER_BLOCK };
    pthread_mutex_lock(&d->lock);
    VkQueryPool *pools =
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
        d->query_pools[d->query_pool_count++] = pool;
        for (uint32_t b = 1; b < BLOCKS; b++) {
            d->free_blocks[d->free_count++] = (wgprof_layer_block){pool, b * WGPROF_LAYER_BLOCK};
        }
    }
    pthread_mutex_unlock(&d->lock);
    if (!blocks) {
        d->DestroyQueryPool(d->handle, pool, NULL);
        return false;
    }
    *out = (wgprof_layer_block){pool, 0};
    return true;
}

void wgprof_layer_blocks_return(wgprof_layer_device *d, wgprof_layer_block *blocks, size_t count, bool reset)
{
    if (reset && d->ResetQueryPool) {
        for (size_t i = 0; i < count; i++) {
            d->ResetQueryPool(d->handle, blocks[i].pool, blocks[i].first, WGPROF_LAYER_BLOCK);
        }
    }
    pthread_mutex_lock(&d->lock);
    if (d->free_count + count <= d->free_cap) {
        memcpy(d->free_blocks + d->free_count, blocks, count * sizeof *blocks);
        d->free_count += count;
    }
    pthread_mutex_unlock(&d->lock);
}

/* ---- readback ---- */

/* Puts `cb` in its device's in-flight list, under the device's lock; false: out of memory. */
static bool in_flight_push(wgprof_layer_device *d, wgprof_layer_cb *cb)
{
    if (d->in_flight_count == d->in_flight_cap) {
        size_t cap = d->in_flight_cap ? 2 * d->in_flight_cap : 64;
        wgprof_layer_cb **more = wgprof_layer_grow(d->in_flight, d->in_flight_count, cap, sizeof *more);
        if (!more) {
            return false;
        }
        d->in_flight = more;
        d->in_flight_cap = cap;
    }
    d->in_flight[d->in_flight_count++] = cb;
    return true;
}

/* The command buffer's timestamps in the order written, with their availability; false where
 * one is missing and `force` is not set. */
static bool read_ticks(wgprof_layer_cb *cb, bool force, uint64_t *ticks, bool *available)
{
    wgprof_layer_device *d = cb->device;
    uint64_t pairs[2 * WGPROF_LAYER_BLOCK];
    uint32_t left = cb->ticks, at = 0;
    for (size_t b = 0; b < cb->block_count && left; b++) {
        uint32_t n = left < WGPROF_LAYER_BLOCK ? left : WGPROF_LAYER_BLOCK;
        VkResult r = d->GetQueryPoolResults(d->handle, cb->blocks[b].pool, cb->blocks[b].first, n, sizeof pairs, pairs,
                                            2 * sizeof(uint64_t),
                                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        if (r != VK_SUCCESS && r != VK_NOT_READY) {
            memset(pairs, 0, sizeof pairs);
        }
        for (uint32_t i = 0; i < n; i++) {
            ticks[at] = pairs[2 * i];
            available[at] = pairs[2 * i + 1] != 0;
            if (!available[at] && !force) {
                return false;
            }
            at++;
        }
        left -= n;
    }
    return true;
}

/* Adds a recording's rows to the results: `whole`, its chain as read, where it has no gap; else
 * one chain a run of rows between gaps (WGPROF_LAYER_GAP), each with the scopes among its rows
 * (a scope at a gap goes with the rows before it, or with the first run where none come
 * before). False where the pool refused one: the runs before it are in. */
static bool add_rows(wgprof_pool *pool, const wgprof_external_batch *whole)
{
    size_t first = 0, scope = 0;
    bool any_gap = false;
    for (size_t i = 0; i < whole->count && !any_gap; i++) {
        any_gap = wgprof_layer_is_gap(whole->sites[i]);
    }
    if (!any_gap) {
        return wgprof_pool_add_external(pool, whole) == WGPROF_OK;
    }
    wgprof_external_scope *moved = whole->scope_count ? wgprof__calloc(whole->scope_count, sizeof *moved) : NULL;
    if (whole->scope_count && !moved) {
        return false;
    }
    bool ok = true;
    while (ok && first < whole->count) {
        size_t end = first;
        while (end < whole->count && !wgprof_layer_is_gap(whole->sites[end])) {
            end++;
        }
        size_t next = end; /* the next run's first row, past the gaps */
        while (next < whole->count && wgprof_layer_is_gap(whole->sites[next])) {
            next++;
        }
        if (end > first) {
            /* Its scopes: up to its last row's end, and those of the gaps after it (every one left
             * where no run comes after). */
            size_t taken = 0;
            while (scope < whole->scope_count && (next >= whole->count || whole->scopes[scope].before <= end ||
                                                  whole->scopes[scope].before < next)) {
                size_t before = whole->scopes[scope].before;
                moved[taken].before = before <= first ? 0 : before >= end ? end - first : before - first;
                moved[taken].name = whole->scopes[scope].name;
                taken++;
                scope++;
            }
            wgprof_external_batch run = *whole;
            run.count = end - first;
            run.sites = whole->sites + first;
            run.ticks = whole->ticks + first;
            run.available = whole->available ? whole->available + first : NULL;
            run.scopes = taken ? moved : NULL;
            run.scope_count = taken;
            ok = wgprof_pool_add_external(pool, &run) == WGPROF_OK;
        }
        first = next;
    }
    wgprof__free(moved);
    return ok;
}

/* Reads `cb`, which the caller took out of the in-flight list: its batch into the results, or
 * back into the list where its timestamps are not all there yet. */
static void read_taken(wgprof_layer_cb *cb, bool force)
{
    wgprof_layer_device *d = cb->device;
    if (cb->ticks != cb->count + 1) { /* the chain's last timestamp never came (its recording did not end) */
        pthread_mutex_lock(&d->lock);
        d->dropped += wgprof_layer_records(cb);
        cb->pending = false;
        cb->reading = false;
        pthread_cond_broadcast(&d->read_done);
        pthread_mutex_unlock(&d->lock);
        return;
    }
    uint64_t *ticks = wgprof__calloc(cb->ticks ? cb->ticks : 1, sizeof *ticks);
    bool *available = wgprof__calloc(cb->ticks ? cb->ticks : 1, sizeof *available);
    bool complete = ticks && available && read_ticks(cb, force, ticks, available);
    /* Its debug labels as scopes, those left open closed at its end (or none, where there is no
     * room for them: its rows count more than their scopes). */
    size_t scope_count = complete ? cb->mark_count + cb->label_depth : 0;
    wgprof_external_scope *scopes = scope_count ? wgprof__calloc(scope_count, sizeof *scopes) : NULL;
    scope_count = scopes ? scope_count : 0;
    for (size_t i = 0; i < scope_count; i++) {
        const wgprof_layer_mark *m = i < cb->mark_count ? &cb->marks[i] : NULL;
        scopes[i].before = m ? m->before : cb->count;
        scopes[i].name = m && m->name != UINT32_MAX ? cb->label_text + m->name : NULL;
    }
    uint64_t now = wgprof_cpu_now_ns();
    bool requeue = false;
    pthread_mutex_lock(&d->lock);
    if (!ticks || !available) {
        d->dropped += wgprof_layer_records(cb);
        cb->pending = false;
    } else if (!complete) {
        requeue = true; /* not there yet: back in the list once this reading is over */
    } else {
        wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN,
                                       .count = cb->count,
                                       .sites = cb->sites,
                                       .ticks = ticks,
                                       .available = available,
                                       .valid_bits = d->pool_bits,
                                       .period_ns = d->period_ns,
                                       .cpu_submit_ns = cb->submit_ns,
                                       .cpu_read_ns = now,
                                       .scopes = scopes,
                                       .scope_count = scope_count};
        if (!d->results || !add_rows(d->results, &batch)) {
            d->dropped += wgprof_layer_records(cb);
        } else {
            d->unsaved = true;
        }
        cb->pending = false;
    }
    pthread_mutex_unlock(&d->lock);
    if (complete && d->ResetQueryPool) {
        /* Ready for the command buffer's next execution (it may be submitted again as it is). */
        for (size_t b = 0; b < cb->block_count; b++) {
            d->ResetQueryPool(d->handle, cb->blocks[b].pool, cb->blocks[b].first, WGPROF_LAYER_BLOCK);
        }
    }
    wgprof__free(ticks);
    wgprof__free(available);
    wgprof__free(scopes);
    pthread_mutex_lock(&d->lock);
    if (requeue && !in_flight_push(d, cb)) {
        d->dropped += wgprof_layer_records(cb);
        cb->pending = false;
    }
    cb->reading = false; /* its blocks are reset (or it waits again): it may be used again */
    pthread_cond_broadcast(&d->read_done);
    pthread_mutex_unlock(&d->lock);
}

void wgprof_layer_wait_unread(wgprof_layer_cb *cb)
{
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->lock);
    while (cb->reading) {
        pthread_cond_wait(&d->read_done, &d->lock);
    }
    pthread_mutex_unlock(&d->lock);
}

/* Takes `cb` out of its device's in-flight list; false where it is not there (read already, or
 * being read by another thread). */
static bool take_in_flight(wgprof_layer_device *d, wgprof_layer_cb *cb)
{
    for (size_t i = 0; i < d->in_flight_count; i++) {
        if (d->in_flight[i] == cb) {
            d->in_flight[i] = d->in_flight[--d->in_flight_count];
            return true;
        }
    }
    return false;
}

void wgprof_layer_read_cb(wgprof_layer_cb *cb, bool force)
{
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->lock);
    while (cb->reading) {
        pthread_cond_wait(&d->read_done, &d->lock);
    }
    bool mine = cb->pending && take_in_flight(d, cb);
    if (mine) {
        cb->reading = true;
    }
    pthread_mutex_unlock(&d->lock);
    if (mine) {
        read_taken(cb, force);
    }
}

/* The results so far written as a partial set as soon as there are any, then again while more
 * come, as often as costs the program at most a hundredth of its time (and at most every 50 ms):
 * a program that crashes, is killed or never ends its device (a browser's GPU process, killed
 * with the browser) still leaves them. */
static void snapshot_if_due(wgprof_layer_device *d)
{
    enum { SNAPSHOT_MIN_NS = 50000000, SNAPSHOT_SHARE = 100 };
    uint64_t now = wgprof_cpu_now_ns();
    pthread_mutex_lock(&d->lock);
    uint64_t wait = SNAPSHOT_SHARE * d->snapshot_cost_ns;
    wait = wait > SNAPSHOT_MIN_NS ? wait : SNAPSHOT_MIN_NS;
    bool due = d->unsaved && !d->finished && !d->snapshot_busy && (!d->snapshot_ns || now - d->snapshot_ns >= wait);
    if (due) {
        d->snapshot_busy = true;
        d->snapshot_ns = now;
    }
    pthread_mutex_unlock(&d->lock);
    if (due) {
        wgprof_layer_output_write(d, "the program ended before wgprof could write its final results (a signal, a "
                                     "crash, abort() or _exit()): the dispatches read until then");
        pthread_mutex_lock(&d->lock);
        d->snapshot_busy = false;
        d->snapshot_cost_ns = wgprof_cpu_now_ns() - now;
        pthread_mutex_unlock(&d->lock);
    }
}

void wgprof_layer_poll(wgprof_layer_device *d, bool force)
{
    pthread_mutex_lock(&d->lock);
    size_t n = d->in_flight_count;
    wgprof_layer_cb **taken = n ? wgprof__calloc(n, sizeof *taken) : NULL;
    if (taken) {
        memcpy(taken, d->in_flight, n * sizeof *taken);
        d->in_flight_count = 0;
        for (size_t i = 0; i < n; i++) {
            taken[i]->reading = true;
        }
    }
    pthread_mutex_unlock(&d->lock);
    for (size_t i = 0; taken && i < n; i++) {
        read_taken(taken[i], force);
    }
    wgprof__free(taken);
    snapshot_if_due(d);
}

/* ---- submits ---- */

/* Puts `cb` (and the secondaries it executes) in flight; reads a previous execution first. */
static void submitted(wgprof_layer_cb *cb, uint64_t now)
{
    for (size_t i = 0; i < cb->child_count; i++) {
        submitted(cb->children[i], now);
    }
    if (!cb->count) {
        return;
    }
    wgprof_layer_device *d = cb->device;
    wgprof_layer_wait_unread(cb);
    if (cb->pending) {
        /* Submitted again: the previous execution has finished (Vulkan's rule for a command
         * buffer without simultaneous use, which is never timed). */
        wgprof_layer_read_cb(cb, true);
    }
    pthread_mutex_lock(&d->lock);
    if (in_flight_push(d, cb)) {
        cb->pending = true;
        cb->submit_ns = now;
    } else {
        d->dropped += wgprof_layer_records(cb);
    }
    pthread_mutex_unlock(&d->lock);
}

static void submitted_handle(VkCommandBuffer handle, uint64_t now)
{
    wgprof_layer_lock();
    wgprof_layer_cb *cb = wgprof_layer_map_get(&wgprof_layer_cbs, (uint64_t)(uintptr_t)handle);
    wgprof_layer_unlock();
    if (cb) {
        submitted(cb, now);
    }
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                        VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    wgprof_layer_poll(d, false);
    uint64_t now = wgprof_cpu_now_ns();
    for (uint32_t s = 0; s < count; s++) {
        for (uint32_t i = 0; i < submits[s].commandBufferCount; i++) {
            submitted_handle(submits[s].pCommandBuffers[i], now);
        }
    }
    return d->QueueSubmit(queue, count, submits, fence);
}

static void submitted2(uint32_t count, const VkSubmitInfo2 *submits)
{
    uint64_t now = wgprof_cpu_now_ns();
    for (uint32_t s = 0; s < count; s++) {
        for (uint32_t i = 0; i < submits[s].commandBufferInfoCount; i++) {
            submitted_handle(submits[s].pCommandBufferInfos[i].commandBuffer, now);
        }
    }
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                                                         VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    wgprof_layer_poll(d, false);
    submitted2(count, submits);
    return d->QueueSubmit2(queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2KHR(VkQueue queue, uint32_t count,
                                                            const VkSubmitInfo2 *submits, VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    wgprof_layer_poll(d, false);
    submitted2(count, submits);
    return d->QueueSubmit2KHR(queue, count, submits, fence);
}

/* ---- the program's waits: what it waited for is there to read ---- */

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueWaitIdle(VkQueue queue)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    VkResult r = d->QueueWaitIdle(queue);
    wgprof_layer_poll(d, false);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_DeviceWaitIdle(VkDevice device)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->DeviceWaitIdle(device);
    wgprof_layer_poll(d, false);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
                                                          VkBool32 all, uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->WaitForFences(device, count, fences, all, timeout);
    if (r == VK_SUCCESS) {
        wgprof_layer_poll(d, false);
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetFenceStatus(VkDevice device, VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->GetFenceStatus(device, fence);
    if (r == VK_SUCCESS) {
        wgprof_layer_poll(d, false);
    }
    return r;
}

/* A wait on timeline semaphores (wgpu-native waits so for its submissions): where it succeeded,
 * what the program waited for is done. Only where something is in flight. */
static VkResult semaphores_waited(wgprof_layer_device *d, VkResult r)
{
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&d->lock);
        bool any = d->in_flight_count > 0;
        pthread_mutex_unlock(&d->lock);
        if (any) {
            wgprof_layer_poll(d, false);
        }
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                           uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return semaphores_waited(d, d->WaitSemaphores(device, info, timeout));
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                              uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return semaphores_waited(d, d->WaitSemaphoresKHR(device, info, timeout));
}
