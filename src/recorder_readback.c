/*
 * Reading timestamps back: the ring of readback frames, the maps that run while batches are in
 * flight, and the conversion and validation of what they hold.
 *
 * A resolved batch owns one frame until it is read. Maps are started right after the submit
 * (a buffer waiting to be mapped may not be used by a submit) and completed by the
 * implementation's callbacks; batches are taken strictly oldest first, so that a record's
 * batch and the epoch only move forward. Taking a batch hands its readings to the results
 * store, which converts them, and its bounds to the clock fit. Waiting is the caller's choice:
 * collect blocks, collect_ready never does.
 */
#include <math.h>

#include "recorder_internal.h"
#include "webgpu_ext.h"

/* ---- starting and finishing maps ---- */

static size_t bytes_in_set(const wgprof__batch *b, uint32_t i)
{
    return wgprof__queries_in_set(b->count, b->chained, i) * sizeof(uint64_t);
}

/* Requests the maps of the resolved batch; it is then in flight. */
static wgprof_status read_start(wgprof_pool *pool)
{
    wgprof__frame *frame = &pool->frames[wgprof__newest_frame(pool)];
    wgprof__batch *b = wgprof__store_batch_at(pool->store, frame->batch);
    wgprof_status s = WGPROF_OK;
    for (uint32_t i = 0; i < frame->sets_used; i++) {
        /* A map that cannot start leaves its slot NULL: that set's records read map-failed. */
        frame->maps[i] = wgprof__map_read_start(frame->readbacks[i], 0, bytes_in_set(b, i));
        if (!frame->maps[i]) {
            s = WGPROF_ERR_OUT_OF_MEMORY;
        }
    }
    if (!b->cpu_submitted_ns) {
        b->cpu_submitted_ns = wgprof__now_ns();
    }
    frame->state = WGPROF__FRAME_MAPPING;
    pool->resolved = false;
    return s;
}

wgprof_status wgprof_pool_read_async(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    /* After a dropped batch there is nothing to read. */
    return pool->resolved ? read_start(pool) : WGPROF_OK;
}

static bool frame_ready(const wgprof__frame *frame)
{
    for (uint32_t i = 0; i < frame->sets_used; i++) {
        if (frame->maps[i] && !atomic_load(&frame->maps[i]->done)) {
            return false;
        }
    }
    return true;
}

/* Reads the mapped readback of set `i` into the records; returns why it could not. */
static wgprof_status take_set(wgprof_pool *pool, wgprof__frame *frame, uint32_t i, double period_ns,
                              wgprof__extent *extent)
{
    wgprof__waiter *w = frame->maps[i];
    frame->maps[i] = NULL;
    wgprof_status s = w ? wgprof__map_result(pool->device, w) : WGPROF_ERR_OUT_OF_MEMORY;
    wgprof__waiter_release(w);
    if (frame->batch == WGPROF__NONE) { /* abandoned by a reset: only give the buffer back */
        if (s == WGPROF_OK) {
            wgprof__wgpu()->bufferUnmap(frame->readbacks[i]);
        }
        return WGPROF_OK;
    }
    const wgprof__batch *b = wgprof__store_batch_at(pool->store, frame->batch);
    size_t first = b->first + (size_t)i * wgprof__records_per_set(b->chained);
    size_t count = wgprof__records_in_set(b->count, b->chained, i);
    if (s == WGPROF_OK) {
        size_t bytes = bytes_in_set(b, i);
        const uint64_t *ticks = wgprof__wgpu()->bufferGetConstMappedRange(frame->readbacks[i], 0, bytes);
        if (ticks) {
            wgprof__store_take_readings(pool->store, b, first, count, ticks, b->chained ? 1 : 2, period_ns, extent);
        } else {
            s = WGPROF_ERR_MAP_FAILED;
        }
        wgprof__wgpu()->bufferUnmap(frame->readbacks[i]);
    }
    if (s != WGPROF_OK) {
        wgprof__store_mark_invalid(pool->store, first, count,
                                   s == WGPROF_ERR_DEVICE_LOST ? WGPROF_INVALID_DEVICE_LOST : WGPROF_INVALID_MAP_FAILED);
    }
    return s;
}

void wgprof__pool_clock_bounds(wgprof_pool *pool, const wgprof__batch *b, const wgprof__extent *extent)
{
    if (b->cpu_submit_ns) {
        double gpu_ns = wgprof__store_gpu_ns(pool->store, extent->first_begin, b->period_ns);
        wgprof__clock_add(&pool->clock, extent->first_begin, gpu_ns, (double)b->cpu_submit_ns, INFINITY);
    }
    if (b->cpu_ready_ns) {
        double gpu_ns = wgprof__store_gpu_ns(pool->store, extent->last_end, b->period_ns);
        wgprof__clock_add(&pool->clock, extent->last_end, gpu_ns, -INFINITY, (double)b->cpu_ready_ns);
    }
    wgprof__clock_refit(&pool->clock);
}

/* Takes the oldest frame in flight, which is ready; `waited`: the CPU blocked for it. */
static wgprof_status take_oldest(wgprof_pool *pool, bool waited)
{
    wgprof__frame *frame = &pool->frames[pool->oldest_frame];
    uint64_t ready = wgprof__now_ns();
    /* The period is read at every collect, since an implementation may change it; the store
     * converts the batch with it and keeps it with the batch. */
    double period_ns = wgprof_device_timestamp_period(pool->device);
    wgprof_status result = WGPROF_OK;
    wgprof__extent extent = {0};
    for (uint32_t i = 0; i < frame->sets_used; i++) {
        wgprof_status s = take_set(pool, frame, i, period_ns, &extent);
        result = result == WGPROF_OK ? s : result;
    }
    if (frame->batch != WGPROF__NONE) {
        wgprof__store_batch_collected(pool->store, frame->batch, period_ns, ready, waited);
        if (extent.last_end) {
            wgprof__pool_clock_bounds(pool, wgprof__store_batch_at(pool->store, frame->batch), &extent);
        }
    }
    wgprof__release_oldest(pool);
    return result;
}

/* Lets the implementation run the callbacks of the maps in flight that are due. */
static void poll_in_flight(wgprof_pool *pool)
{
    uint32_t ring = pool->settings.readback_frames;
    for (uint32_t k = 0; k < pool->in_flight; k++) {
        const wgprof__frame *frame = &pool->frames[(pool->oldest_frame + k) % ring];
        if (frame->state == WGPROF__FRAME_MAPPING) {
            wgprof__waiters_poll(pool->device, frame->maps, frame->sets_used);
        }
    }
}

wgprof_status wgprof_pool_collect_ready(wgprof_pool *pool, uint32_t *collected)
{
    if (pool && pool->device && pool->in_flight) {
        poll_in_flight(pool);
    }
    return wgprof__pool_take_ready(pool, collected);
}

wgprof_status wgprof__pool_take_ready(wgprof_pool *pool, uint32_t *collected)
{
    if (collected) {
        *collected = 0;
    }
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status result = WGPROF_OK;
    while (pool->in_flight && pool->frames[pool->oldest_frame].state == WGPROF__FRAME_MAPPING &&
           frame_ready(&pool->frames[pool->oldest_frame])) {
        bool counts = pool->frames[pool->oldest_frame].batch != WGPROF__NONE;
        wgprof_status s = take_oldest(pool, false);
        result = result == WGPROF_OK ? s : result;
        if (collected && counts) {
            (*collected)++;
        }
    }
    return result;
}

/* Waits for every map of the oldest frame. */
static wgprof_status wait_oldest(wgprof_pool *pool)
{
    wgprof__frame *frame = &pool->frames[pool->oldest_frame];
    for (uint32_t i = 0; i < frame->sets_used; i++) {
        wgprof__waiter *w = frame->maps[i];
        if (w && !atomic_load(&w->done)) {
            wgprof_status s = wgprof__device_wait(pool->device, w);
            if (s != WGPROF_OK) {
                return s;
            }
        }
    }
    return WGPROF_OK;
}

/* Marks every record of the frames in flight with `reason` and frees the frames; used when the
 * device is lost or a wait timed out, so that nothing stays pending. */
static void give_up_in_flight(wgprof_pool *pool, wgprof_invalid_reason reason)
{
    while (pool->in_flight) {
        wgprof__frame *frame = &pool->frames[pool->oldest_frame];
        for (uint32_t i = 0; i < frame->sets_used; i++) {
            wgprof__waiter_release(frame->maps[i]); /* the callback, should it come, frees it */
            frame->maps[i] = NULL;
        }
        if (frame->batch != WGPROF__NONE) {
            const wgprof__batch *b = wgprof__store_batch_at(pool->store, frame->batch);
            wgprof__store_mark_invalid(pool->store, b->first, b->count, reason);
            wgprof__store_batch_collected(pool->store, frame->batch, wgprof_device_timestamp_period(pool->device), 0,
                                          false);
        }
        wgprof__release_oldest(pool);
    }
    pool->resolved = false;
}

/* Blocks until every batch in flight is read (a resolved one not yet started is started). */
static wgprof_status collect_all(wgprof_pool *pool)
{
    wgprof_status result = WGPROF_OK;
    if (pool->resolved) {
        result = read_start(pool);
    }
    while (pool->in_flight) {
        wgprof_status s = wgprof_device_is_lost(pool->device) ? WGPROF_ERR_DEVICE_LOST : wait_oldest(pool);
        if (s == WGPROF_ERR_TIMEOUT) {
            /* The GPU is still at it: the batches stay in flight, their records pending, and
             * their buffers mapping, which a later collect takes back. Giving them up would
             * hand a buffer still being mapped to the next batch's copy. */
            return s;
        }
        if (s != WGPROF_OK) {
            /* A lost device: what is in flight will not come back. */
            give_up_in_flight(pool, s == WGPROF_ERR_DEVICE_LOST ? WGPROF_INVALID_DEVICE_LOST : WGPROF_INVALID_MAP_FAILED);
            return s;
        }
        s = take_oldest(pool, true);
        result = result == WGPROF_OK ? s : result;
    }
    return result;
}

wgprof_status wgprof_pool_collect(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->resolved && !pool->in_flight && !wgprof__store_batch_count(pool->store)) {
        wgprof__log(WGPROF_LOG_ERROR, "collect called before any resolve");
        return WGPROF_ERR_STATE;
    }
    return collect_all(pool);
}
