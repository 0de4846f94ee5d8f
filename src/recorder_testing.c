/*
 * Test-only hook for the recorder: a pool that is its results store alone. Compiled into the
 * wgprof_testing library that tests, benchmarks and fuzzers link, never into libwgprof.
 */
#include "recorder_internal.h"
#include "testing.h"

wgprof_pool *wgprof__pool_new_host(void)
{
    wgprof_pool *pool = wgprof__calloc(1, sizeof *pool);
    if (pool) {
        pool->settings.readback_frames = 1;
        pool->frames = wgprof__calloc(1, sizeof *pool->frames);
        pool->store = wgprof__store_create();
        if (!pool->frames || !pool->store) {
            wgprof_pool_destroy(pool);
            pool = NULL;
        }
    }
    return pool;
}

wgprof_status wgprof__host_site(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch, uint32_t *site)
{
    return wgprof__store_site(pool->store, dispatch, site);
}

wgprof_status wgprof__host_batch(wgprof_pool *pool, size_t count, const uint32_t *sites, size_t site_count,
                                 bool end_missing, size_t *first, uint32_t *batch)
{
    wgprof__store *store = pool->store;
    wgprof_status s = wgprof__store_reserve(store, count);
    if (s != WGPROF_OK) {
        return s;
    }
    *first = wgprof__store_count(store);
    for (size_t i = 0; i < count; i++) {
        wgprof__store_add(store, sites[i % site_count], i + 1);
    }
    wgprof__batch b = {.first = (uint32_t)*first, .count = (uint32_t)count, .end_missing = end_missing,
                       .strategies = 1u << WGPROF_STRATEGY_PASS};
    s = wgprof__store_add_batch(store, &b, batch);
    if (s != WGPROF_OK) {
        wgprof__store_truncate(store, *first);
    }
    return s;
}

void wgprof__host_timed_with(wgprof_pool *pool, uint32_t batch, wgprof_strategy strategy)
{
    wgprof__store_batch_at(pool->store, batch)->strategies = (uint8_t)(1u << strategy);
}

void wgprof__host_readings(wgprof_pool *pool, uint32_t batch, size_t first, size_t count, const uint64_t *ticks,
                           double period_ns, wgprof__extent *extent)
{
    const wgprof__batch *b = wgprof__store_batch_at(pool->store, batch);
    wgprof__store_take_readings(pool->store, b, first, count, ticks, 2, period_ns, extent);
}

void wgprof__host_collected(wgprof_pool *pool, uint32_t batch, double period_ns)
{
    wgprof__store_batch_collected(pool->store, batch, period_ns, 0, false);
}

void wgprof__host_clock(wgprof_pool *pool, const wgprof_clock_info *clock) { pool->clock.info = *clock; }
