/*
 * The pool's public read side and its scopes: everything here is answered by the results store
 * (with the pool's clock fit for CPU times) or by the recorder's counters; nothing reads the
 * query layout.
 */
#include "recorder_internal.h"

size_t wgprof_pool_count(const wgprof_pool *pool) { return pool ? wgprof__store_count(pool->store) : 0; }
size_t wgprof_pool_invalid_count(const wgprof_pool *pool) { return pool ? wgprof__store_invalid(pool->store) : 0; }
uint32_t wgprof_pool_batch_count(const wgprof_pool *pool) { return pool ? wgprof__store_batch_count(pool->store) : 0; }
uint32_t wgprof_pool_collected_batches(const wgprof_pool *pool)
{
    return pool ? wgprof__store_collected(pool->store) : 0;
}
uint32_t wgprof_pool_in_flight(const wgprof_pool *pool) { return pool ? pool->in_flight : 0; }
wgprof_pool_desc wgprof_pool_settings(const wgprof_pool *pool) { return pool ? pool->settings : (wgprof_pool_desc){0}; }

uint64_t wgprof_pool_dropped(const wgprof_pool *pool, uint64_t *dispatches)
{
    if (!pool) {
        if (dispatches) {
            *dispatches = 0;
        }
        return 0;
    }
    return wgprof__store_dropped(pool->store, dispatches);
}

size_t wgprof_pool_capacity(const wgprof_pool *pool)
{
    if (!pool) {
        return 0;
    }
    uint32_t max = pool->settings.max_dispatches;
    return max ? max : (size_t)pool->set_count * WGPROF__PAIRS_PER_SET;
}

wgprof_status wgprof_pool_record(const wgprof_pool *pool, size_t index, wgprof_record *out)
{
    if (!pool || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__store_record(pool->store, &pool->clock.info, index, out);
}

wgprof_status wgprof_pool_batch(const wgprof_pool *pool, uint32_t index, wgprof_batch_info *out)
{
    if (!pool || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__store_batch(pool->store, index, out);
}

const wgprof_clock_info *wgprof_pool_clock(const wgprof_pool *pool) { return pool ? &pool->clock.info : NULL; }

wgprof_status wgprof_pool_scope_begin(wgprof_pool *pool, const char *name)
{
    if (!pool || !name) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__store_scope_begin(pool->store, name);
}

wgprof_status wgprof_pool_scope_end(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__store_scope_end(pool->store);
}

size_t wgprof_pool_scope_count(const wgprof_pool *pool) { return pool ? wgprof__store_scope_count(pool->store) : 0; }

wgprof_status wgprof_pool_scope(const wgprof_pool *pool, size_t index, wgprof_scope_record *out)
{
    if (!pool || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__store_scope(pool->store, &pool->clock.info, index, out);
}

const char *wgprof_invalid_reason_str(wgprof_invalid_reason reason)
{
    switch (reason) {
    case WGPROF_VALID: return "valid";
    case WGPROF_INVALID_PENDING: return "pending";
    case WGPROF_INVALID_NOT_WRITTEN: return "not-written";
    case WGPROF_INVALID_ZERO: return "zero";
    case WGPROF_INVALID_BACKWARDS: return "backwards";
    case WGPROF_INVALID_MAP_FAILED: return "map-failed";
    case WGPROF_INVALID_DEVICE_LOST: return "device-lost";
    case WGPROF_INVALID_REASON_COUNT: break;
    }
    return "unknown";
}
