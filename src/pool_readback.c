/*
 * Reading timestamps back: the ring of readback frames, the maps that run while batches are in
 * flight, and the conversion and validation of what they hold.
 *
 * A resolved batch owns one frame until it is read. Maps are started right after the submit
 * (a buffer waiting to be mapped may not be used by a submit) and completed by the
 * implementation's callbacks; batches are taken strictly oldest first, so that a record's
 * iteration and the epoch only move forward. Waiting is the caller's choice: collect and
 * flush block, collect_ready never does.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "querypool_internal.h"

wgprof_invalid_reason wgprof__classify(const wgprof__reading *r)
{
    if (!r->end_issued || (r->begin == 0 && r->end == 0)) {
        return WGPROF_INVALID_NOT_WRITTEN;
    }
    if (r->begin == 0 || r->end == 0) {
        return WGPROF_INVALID_ZERO;
    }
    if (r->end < r->begin) {
        return WGPROF_INVALID_BACKWARDS;
    }
    return WGPROF_VALID;
}

void wgprof__take_readings(wgprof_pool *pool, size_t first, size_t count, const uint64_t *ticks, size_t stride,
                           wgprof__extent *extent)
{
    /* One pass over the readback: validate each reading, then clamp its begin to the largest
     * end seen so far in the batch, in submission order, so that passes the driver overlapped
     * are not counted twice. */
    for (size_t r = 0; r < count; r++) {
        wgprof__slot *slot = &pool->slots[first + r];
        wgprof__reading reading = {ticks[stride * r], ticks[stride * r + 1], slot->end_issued};
        slot->begin = reading.begin;
        slot->end = reading.end;
        slot->reason = (uint8_t)wgprof__classify(&reading);
        if (slot->reason != WGPROF_VALID) {
            pool->invalid++;
            continue;
        }
        uint64_t b = reading.begin > extent->last_end ? reading.begin : extent->last_end;
        slot->clamped_begin = b < reading.end ? b : reading.end;
        extent->last_end = reading.end > extent->last_end ? reading.end : extent->last_end;
        if (!extent->first_begin || reading.begin < extent->first_begin) {
            extent->first_begin = reading.begin;
        }
        if (!pool->have_epoch || reading.begin < pool->epoch) {
            pool->epoch = reading.begin;
            pool->have_epoch = true;
        }
    }
}

/* ---- starting and finishing maps ---- */

static size_t bytes_in_set(const wgprof__batch *b, uint32_t i)
{
    return wgprof__queries_in_set(b->count, b->chained, i) * sizeof(uint64_t);
}

wgprof_status wgprof__pool_read_start(wgprof_pool *pool)
{
    wgprof__frame *frame = &pool->frames[wgprof__newest_frame(pool)];
    wgprof__batch *b = &pool->batches[frame->batch];
    wgprof_status s = WGPROF_OK;
    for (uint32_t i = 0; i < frame->sets_used; i++) {
        /* A map that cannot start leaves its slot NULL: that set's records read map-failed. */
        frame->maps[i] = wgprof__map_read_start(pool->device, frame->readbacks[i], bytes_in_set(b, i));
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
    return pool->resolved ? wgprof__pool_read_start(pool) : WGPROF_OK;
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
static wgprof_status take_set(wgprof_pool *pool, wgprof__frame *frame, uint32_t i, wgprof__extent *extent)
{
    wgprof__waiter *w = frame->maps[i];
    frame->maps[i] = NULL;
    wgprof_status s = w ? wgprof__map_result(pool->device, w) : WGPROF_ERR_OUT_OF_MEMORY;
    wgprof__waiter_release(w);
    if (frame->batch == WGPROF__NONE) { /* abandoned by a reset: only give the buffer back */
        if (s == WGPROF_OK) {
            wgpuBufferUnmap(frame->readbacks[i]);
        }
        return WGPROF_OK;
    }
    const wgprof__batch *b = &pool->batches[frame->batch];
    size_t first = b->first + (size_t)i * wgprof__records_per_set(b->chained);
    size_t count = wgprof__records_in_set(b->count, b->chained, i);
    if (s == WGPROF_OK) {
        size_t bytes = bytes_in_set(b, i);
        const uint64_t *ticks = wgpuBufferGetConstMappedRange(frame->readbacks[i], 0, bytes);
        if (ticks) {
            wgprof__take_readings(pool, first, count, ticks, b->chained ? 1 : 2, extent);
        } else {
            s = WGPROF_ERR_MAP_FAILED;
        }
        wgpuBufferUnmap(frame->readbacks[i]);
    }
    if (s != WGPROF_OK) {
        uint8_t reason = (uint8_t)(s == WGPROF_ERR_DEVICE_LOST ? WGPROF_INVALID_DEVICE_LOST : WGPROF_INVALID_MAP_FAILED);
        for (size_t r = first; r < first + count; r++) {
            pool->slots[r].reason = reason;
        }
        pool->invalid += count;
    }
    return s;
}

/* The oldest frame in flight is done with: it is free, and the next one is the oldest. */
static void release_oldest(wgprof_pool *pool)
{
    wgprof__frame *frame = &pool->frames[pool->oldest_frame];
    frame->state = WGPROF__FRAME_FREE;
    frame->sets_used = 0;
    pool->oldest_frame = (pool->oldest_frame + 1) % pool->ring;
    pool->in_flight--;
}

/* Takes the oldest frame in flight, which is ready; `waited`: the CPU blocked for it. */
static wgprof_status take_oldest(wgprof_pool *pool, bool waited)
{
    wgprof__frame *frame = &pool->frames[pool->oldest_frame];
    uint64_t ready = wgprof__now_ns();
    wgprof_status result = WGPROF_OK;
    wgprof__extent extent = {0, 0};
    for (uint32_t i = 0; i < frame->sets_used; i++) {
        wgprof_status s = take_set(pool, frame, i, &extent);
        result = result == WGPROF_OK ? s : result;
    }
    if (frame->batch != WGPROF__NONE) {
        wgprof__batch *b = &pool->batches[frame->batch];
        /* The period is read at every collect, since an implementation may change it. */
        b->period_ns = wgprof_device_timestamp_period(pool->device);
        b->cpu_ready_ns = ready;
        b->waited = waited;
        b->collected = true;
        pool->collected++;
        if (extent.last_end) {
            wgprof__clock_add_batch(pool, b, &extent);
        }
    }
    release_oldest(pool);
    return result;
}

wgprof_status wgprof_pool_collect_ready(wgprof_pool *pool, uint32_t *collected)
{
    if (collected) {
        *collected = 0;
    }
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (pool->in_flight) {
        wgprof__device_poll(pool->device);
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
            wgprof__batch *b = &pool->batches[frame->batch];
            for (size_t r = b->first; r < (size_t)b->first + b->count; r++) {
                pool->slots[r].reason = (uint8_t)reason;
            }
            pool->invalid += b->count;
            b->period_ns = wgprof_device_timestamp_period(pool->device);
            b->collected = true;
            pool->collected++;
        }
        release_oldest(pool);
    }
    pool->resolved = false;
}

wgprof_status wgprof_pool_flush(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status result = WGPROF_OK;
    if (pool->resolved) {
        result = wgprof__pool_read_start(pool);
    }
    while (pool->in_flight) {
        wgprof_status s = wait_oldest(pool);
        if (s != WGPROF_OK) {
            /* Lost device or timeout: what is in flight will not come back. */
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
    if (!pool->resolved && !pool->in_flight) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: collect called before resolve");
        return WGPROF_ERR_STATE;
    }
    return wgprof_pool_flush(pool);
}

void wgprof__free_frames(wgprof_pool *pool)
{
    for (uint32_t f = 0; pool->frames && f < pool->ring; f++) {
        wgprof__frame *frame = &pool->frames[f];
        for (uint32_t i = 0; i < frame->readback_count; i++) {
            if (frame->state == WGPROF__FRAME_MAPPING && i < frame->sets_used) {
                wgprof__waiter_release(frame->maps[i]);
            }
            wgpuBufferRelease(frame->readbacks[i]);
        }
        wgprof__free(frame->readbacks);
        wgprof__free(frame->maps);
    }
    wgprof__free(pool->frames);
}

/* ---- host-only pools ---- */

wgprof_pool *wgprof__pool_new_host(void)
{
    wgprof_pool *pool = wgprof__calloc(1, sizeof *pool);
    if (pool) {
        pool->ring = 1;
    }
    return pool;
}

wgprof_status wgprof__pool_host_batch(wgprof_pool *pool, size_t count, uint32_t site, double period_ns, size_t *first)
{
    size_t need = pool->count + count;
    if (need > UINT32_MAX) {
        return WGPROF_ERR_CAPACITY;
    }
    wgprof_status s = wgprof__reserve((void **)&pool->batches, &pool->batch_cap, pool->batch_count + 1,
                                      sizeof *pool->batches, 16);
    if (s == WGPROF_OK && need > pool->slot_cap) {
        wgprof__slot *n = wgprof__grow(pool->slots, pool->slot_cap * sizeof *n, need * sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        pool->slots = n;
        pool->slot_cap = need;
    }
    if (s != WGPROF_OK) {
        return s;
    }
    for (size_t i = pool->count; i < need; i++) {
        pool->slots[i] = (wgprof__slot){.site = site, .dispatch_id = i + 1, .batch = pool->batch_count,
                                        .reason = WGPROF_INVALID_PENDING, .end_issued = 1};
    }
    pool->batches[pool->batch_count++] =
        (wgprof__batch){.period_ns = period_ns, .first = (uint32_t)pool->count, .count = (uint32_t)count};
    *first = pool->count;
    pool->count = need;
    pool->batch_first = need;
    return WGPROF_OK;
}

void wgprof__pool_host_collected(wgprof_pool *pool)
{
    pool->batches[pool->collected++].collected = true;
}
