/*
 * What the program's own waits say is done. Each submit gets the device's next number; per queue
 * the layer keeps the last number retired, that is, known finished because a wait of the
 * program's returned: its fence waited for or found signalled (vkWaitForFences,
 * vkGetFenceStatus), a timeline semaphore's value it signals reached (vkWaitSemaphores,
 * vkGetSemaphoreCounterValue), its queue or the device idle. The reader reads only chains of
 * submits retired so (or, where the program waits in no way the layer sees, once many are in
 * flight), as the Khronos validation layers retire a queue's submissions: so no query is read and
 * reset before the program itself knows its work done.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

/* A fence's last submit: its queue's place and the submit's number (the map's value, kept
 * from one use of the fence to the next). */
typedef struct fence_submit {
    uint64_t seq;
    uint32_t slot;
} fence_submit;

/* The place of `queue` among the device's (device's lock held); WGPROF_LAYER_QUEUES where there
 * is no room (its submits then retire only with the device's idle or the reader's backlog). */
static uint32_t queue_slot_locked(wgprof_layer_device *d, VkQueue queue)
{
    for (uint32_t i = 0; i < d->queue_count; i++) {
        if (d->queues[i].queue == queue) {
            return i;
        }
    }
    if (d->queue_count == WGPROF_LAYER_QUEUES) {
        return WGPROF_LAYER_QUEUES;
    }
    d->queues[d->queue_count].queue = queue;
    d->queues[d->queue_count].retired = 0;
    return d->queue_count++;
}

/* Submit `seq` of queue `slot` and those before it on that queue are done (device's lock held);
 * false where that was known. */
static bool retire_locked(wgprof_layer_device *d, uint32_t slot, uint64_t seq)
{
    if (slot < d->queue_count && d->queues[slot].retired < seq) {
        d->queues[slot].retired = seq;
        return true;
    }
    return false;
}

/* The signals kept per semaphore: the latest, older ones dropped (a binary semaphore is never
 * waited for from the host, and its signals would only pile up). */
enum { SIGNALS_KEPT = 64 };

typedef struct semaphore_signals {
    _Atomic uint64_t lowest; /* the least value kept, UINT64_MAX where none: read without the lock */
    uint32_t count;
    struct {
        uint64_t value, seq;
        uint32_t slot;
    } at[SIGNALS_KEPT];
} semaphore_signals;

/* Sets `s`'s least value kept (device's lock held). */
static void lowest_locked(semaphore_signals *s)
{
    uint64_t lowest = UINT64_MAX;
    for (uint32_t i = 0; i < s->count; i++) {
        lowest = s->at[i].value < lowest ? s->at[i].value : lowest;
    }
    atomic_store_explicit(&s->lowest, lowest, memory_order_relaxed);
}

/* Keeps that submit `seq` of queue `slot` signals `semaphore` to `value` (device's lock held). */
static void signal_locked(wgprof_layer_device *d, VkSemaphore semaphore, uint64_t value, uint32_t slot, uint64_t seq)
{
    uint64_t key = (uint64_t)(uintptr_t)semaphore;
    semaphore_signals *s = wgprof_layer_map_get(&d->signals, key);
    if (!s) {
        s = wgprof__calloc(1, sizeof *s);
        if (!s || !wgprof_layer_map_put(&d->signals, key, s)) {
            wgprof__free(s);
            return;
        }
    }
    if (s->count == SIGNALS_KEPT) {
        memmove(s->at, s->at + 1, (SIGNALS_KEPT - 1) * sizeof s->at[0]);
        s->count--;
    }
    s->at[s->count].value = value;
    s->at[s->count].seq = seq;
    s->at[s->count].slot = slot;
    s->count++;
    lowest_locked(s);
}

/* `semaphore` reached `value`: the submits that signal it to no more are done (device's lock);
 * false where none was left. */
static bool reached_locked(wgprof_layer_device *d, VkSemaphore semaphore, uint64_t value)
{
    semaphore_signals *s = wgprof_layer_map_get(&d->signals, (uint64_t)(uintptr_t)semaphore);
    uint32_t kept = 0;
    bool any = false;
    for (uint32_t i = 0; s && i < s->count; i++) {
        if (s->at[i].value <= value) {
            any = retire_locked(d, s->at[i].slot, s->at[i].seq) || any;
        } else {
            s->at[kept++] = s->at[i];
        }
    }
    if (s && s->count != kept) {
        s->count = kept;
        lowest_locked(s);
    }
    return any;
}

uint64_t wgprof_layer_submit_begin(wgprof_layer_device *d, VkQueue queue, VkFence fence, uint32_t *slot)
{
    pthread_mutex_lock(&d->lock);
    uint64_t seq = ++d->submit_seq;
    *slot = queue_slot_locked(d, queue);
    if (fence && *slot < WGPROF_LAYER_QUEUES) {
        uint64_t key = (uint64_t)(uintptr_t)fence;
        fence_submit *f = wgprof_layer_map_get(&d->fences, key);
        if (!f) {
            f = wgprof__alloc(sizeof *f);
            if (f && !wgprof_layer_map_put(&d->fences, key, f)) {
                wgprof__free(f);
                f = NULL;
            }
        }
        if (f) { /* else that fence's wait retires nothing: the idles and the backlog still do */
            f->seq = seq;
            f->slot = *slot;
        }
    }
    pthread_mutex_unlock(&d->lock);
    return seq;
}

void wgprof_layer_submit_signals(wgprof_layer_device *d, uint32_t slot, uint64_t seq, const VkSubmitInfo *submit)
{
    const VkTimelineSemaphoreSubmitInfo *timeline = NULL;
    for (const VkBaseInStructure *s = submit->pNext; s; s = s->pNext) {
        timeline = s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO ? (const void *)s : timeline;
    }
    if (!timeline || !timeline->pSignalSemaphoreValues || slot >= WGPROF_LAYER_QUEUES) {
        return;
    }
    uint32_t n = submit->signalSemaphoreCount < timeline->signalSemaphoreValueCount ? submit->signalSemaphoreCount
                                                                                     : timeline->signalSemaphoreValueCount;
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 0; i < n; i++) {
        signal_locked(d, submit->pSignalSemaphores[i], timeline->pSignalSemaphoreValues[i], slot, seq);
    }
    pthread_mutex_unlock(&d->lock);
}

void wgprof_layer_submit2_signals(wgprof_layer_device *d, uint32_t slot, uint64_t seq, const VkSubmitInfo2 *submit)
{
    if (!submit->signalSemaphoreInfoCount || slot >= WGPROF_LAYER_QUEUES) {
        return;
    }
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 0; i < submit->signalSemaphoreInfoCount; i++) {
        signal_locked(d, submit->pSignalSemaphoreInfos[i].semaphore, submit->pSignalSemaphoreInfos[i].value, slot, seq);
    }
    pthread_mutex_unlock(&d->lock);
}

/* Fence `fence` found signalled (device's lock held). */
static void fence_done_locked(wgprof_layer_device *d, VkFence fence)
{
    const fence_submit *f = wgprof_layer_map_get(&d->fences, (uint64_t)(uintptr_t)fence);
    if (f) {
        retire_locked(d, f->slot, f->seq);
    }
}

static void free_value(uint64_t key, void *value, void *user)
{
    (void)key;
    (void)user;
    wgprof__free(value);
}

void wgprof_layer_retire_forget(wgprof_layer_device *d)
{
    wgprof_layer_map_each(&d->signals, free_value, NULL);
    wgprof_layer_map_each(&d->fences, free_value, NULL);
    wgprof_layer_map_free(&d->signals);
    wgprof_layer_map_free(&d->fences);
}

/* A fence or semaphore destroyed: what the layer kept of it goes with it, so that a program
 * that makes them as it goes leaves nothing behind (and a handle given out again starts
 * afresh). No wait of the program's can ask about it any more: its submits retire with the
 * next wait for a later one, an idle, or the reader's backlog. */
static void forget(wgprof_layer_device *d, wgprof_layer_map *map, uint64_t key)
{
    if (!key) {
        return;
    }
    pthread_mutex_lock(&d->lock);
    void *kept = wgprof_layer_map_take(map, key);
    pthread_mutex_unlock(&d->lock);
    wgprof__free(kept);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    forget(d, &d->fences, (uint64_t)(uintptr_t)fence);
    d->DestroyFence(device, fence, alloc);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroySemaphore(VkDevice device, VkSemaphore semaphore,
                                                         const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    forget(d, &d->signals, (uint64_t)(uintptr_t)semaphore);
    d->DestroySemaphore(device, semaphore, alloc);
}

/* ---- the program's waits ---- */

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueWaitIdle(VkQueue queue)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    wgprof_layer_idle(d);
    pthread_mutex_lock(&d->lock);
    uint64_t before = d->submit_seq;
    uint32_t slot = queue_slot_locked(d, queue);
    pthread_mutex_unlock(&d->lock);
    VkResult r = d->QueueWaitIdle(queue);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&d->lock);
        retire_locked(d, slot, before);
        pthread_mutex_unlock(&d->lock);
    }
    wgprof_layer_waited(d);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_DeviceWaitIdle(VkDevice device)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    wgprof_layer_idle(d);
    pthread_mutex_lock(&d->lock);
    uint64_t before = d->submit_seq;
    pthread_mutex_unlock(&d->lock);
    VkResult r = d->DeviceWaitIdle(device);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&d->lock);
        d->retired_all = before > d->retired_all ? before : d->retired_all;
        pthread_mutex_unlock(&d->lock);
    }
    wgprof_layer_waited(d);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
                                                          VkBool32 all, uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    if (timeout) {
        wgprof_layer_idle(d);
    }
    VkResult r = d->WaitForFences(device, count, fences, all, timeout);
    if (r != VK_SUCCESS) {
        return r;
    }
    /* Waited for any of several: those signalled are asked (outside the lock). */
    bool *done = !all && count > 1 ? wgprof__calloc(count, sizeof *done) : NULL;
    for (uint32_t i = 0; done && i < count; i++) {
        done[i] = d->GetFenceStatus(device, fences[i]) == VK_SUCCESS;
    }
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 0; i < count && (all || count == 1 || done); i++) {
        if (all || count == 1 || done[i]) {
            fence_done_locked(d, fences[i]);
        }
    }
    pthread_mutex_unlock(&d->lock);
    wgprof__free(done);
    wgprof_layer_waited(d);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetFenceStatus(VkDevice device, VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->GetFenceStatus(device, fence);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&d->lock);
        fence_done_locked(d, fence);
        pthread_mutex_unlock(&d->lock);
        wgprof_layer_waited(d);
    } else if (r == VK_NOT_READY) {
        wgprof_layer_idle(d);
    }
    return r;
}

/* A wait on timeline semaphores returned `r` (wgpu-native waits so for its submissions): where
 * it succeeded, each value waited for is reached (or, waited for any of several, those the
 * driver says are). */
static VkResult semaphores_waited(wgprof_layer_device *d, VkDevice device, const VkSemaphoreWaitInfo *info, VkResult r)
{
    if (r != VK_SUCCESS) {
        return r;
    }
    bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) && info->semaphoreCount > 1;
    uint64_t *now = any ? wgprof__calloc(info->semaphoreCount, sizeof *now) : NULL;
    PFN_vkGetSemaphoreCounterValue value_of =
        d->GetSemaphoreCounterValue ? d->GetSemaphoreCounterValue : d->GetSemaphoreCounterValueKHR;
    for (uint32_t i = 0; now && i < info->semaphoreCount; i++) {
        if (!value_of || value_of(device, info->pSemaphores[i], &now[i]) != VK_SUCCESS) {
            now[i] = 0;
        }
    }
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 0; i < info->semaphoreCount && (!any || now); i++) {
        reached_locked(d, info->pSemaphores[i], any ? now[i] : info->pValues[i]);
    }
    pthread_mutex_unlock(&d->lock);
    wgprof__free(now);
    wgprof_layer_waited(d);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                           uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    if (timeout) {
        wgprof_layer_idle(d);
    }
    return semaphores_waited(d, device, info, d->WaitSemaphores(device, info, timeout));
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                              uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    if (timeout) {
        wgprof_layer_idle(d);
    }
    return semaphores_waited(d, device, info, d->WaitSemaphoresKHR(device, info, timeout));
}

/* A timeline semaphore's value asked (how wgpu-native polls its submissions): reached; a read
 * owed where that retired a submit, and done where the program polls for work not done yet. */
static VkResult counter_read(wgprof_layer_device *d, VkSemaphore semaphore, const uint64_t *value, VkResult r)
{
    /* Asked again and again while a submit runs: a value below every signal kept retires
     * nothing, and says so without the lock (a signal kept meanwhile is of a later value). */
    const semaphore_signals *s = wgprof_layer_map_get(&d->signals, (uint64_t)(uintptr_t)semaphore);
    uint64_t lowest = s ? atomic_load_explicit(&s->lowest, memory_order_relaxed) : UINT64_MAX;
    if (r == VK_SUCCESS && *value >= lowest) {
        pthread_mutex_lock(&d->lock);
        bool retired = reached_locked(d, semaphore, *value);
        pthread_mutex_unlock(&d->lock);
        if (retired) {
            wgprof_layer_waited(d);
        }
    } else if (r == VK_SUCCESS && lowest != UINT64_MAX) {
        wgprof_layer_idle(d);
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore,
                                                                     uint64_t *value)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return counter_read(d, semaphore, value, d->GetSemaphoreCounterValue(device, semaphore, value));
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetSemaphoreCounterValueKHR(VkDevice device, VkSemaphore semaphore,
                                                                        uint64_t *value)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return counter_read(d, semaphore, value, d->GetSemaphoreCounterValueKHR(device, semaphore, value));
}
