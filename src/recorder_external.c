/*
 * External pools: a recorder outside WebGPU (a Vulkan layer with query pools of its own, an
 * engine's own timestamps) reads its GPU's timestamps itself and hands them over a batch at a
 * time. Each batch becomes records through the store's own conversion, as a collected batch's
 * readings do, so that summaries, reports and merges see an ordinary pool. What such a counter
 * needs first is done here: masking to its valid bits and continuing across its wraps; and the
 * scopes that a batch brings (a command buffer's debug labels) are opened and closed among its
 * records.
 */
#include <math.h>

#include "recorder_internal.h"

wgprof_status wgprof_pool_create_external(const wgprof_pool_desc *desc, wgprof_pool **out)
{
    if (!out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__pool_new(NULL, desc, out);
}

/* The counter's reading `tick` continued past its wraps: masked to `bits`, then taken as the
 * value nearest *last modulo 2^bits. The first reading counts from one wrap up, so that a
 * later batch of readings a little older than it (another queue's, read later) does not fall
 * below 0, where the store would see its ticks go backwards. */
static uint64_t unwrap(uint64_t tick, uint32_t bits, uint64_t *last, bool *have_last)
{
    if (bits >= 64) {
        return tick;
    }
    uint64_t range = (uint64_t)1 << bits, mask = range - 1;
    if (!*have_last) {
        *have_last = true;
        *last = range + (tick & mask);
        return *last;
    }
    uint64_t step = (tick - *last) & mask;
    *last = step < range / 2 ? *last + step : *last - (range - step);
    return *last;
}

static bool strategy_known(wgprof_strategy s)
{
    return s == WGPROF_STRATEGY_PASS || s == WGPROF_STRATEGY_INSIDE || s == WGPROF_STRATEGY_CHAIN;
}

/* Everything about a batch that can be wrong, before anything is changed. */
static wgprof_status check_batch(const wgprof_pool *pool, const wgprof_external_batch *b)
{
    const char *call = "wgprof_pool_add_external";
    if (!strategy_known(b->strategy)) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: strategy %d is none of pass, inside and chain", call, (int)b->strategy);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!(b->period_ns > 0) || !isfinite(b->period_ns)) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: period_ns %g is not a positive number of ns per tick", call, b->period_ns);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t bits = b->valid_bits ? b->valid_bits : 64;
    if (bits > 64 || (pool->external_bits && bits != pool->external_bits)) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: valid_bits %u is not a counter width of this pool%s%u", call,
                    b->valid_bits, pool->external_bits ? ": its batches so far counted " : " (at most ",
                    pool->external_bits ? pool->external_bits : 64);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!b->count) {
        if (b->scope_count) {
            wgprof__log(WGPROF_LOG_ERROR, "%s: scopes given for a batch of 0 records", call);
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
        if (b->ticks) {
            wgprof__log(WGPROF_LOG_ERROR, "%s: ticks given for a batch of 0 records (a chain's start alone times "
                                          "nothing)", call);
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
        return WGPROF_OK;
    }
    if (!b->sites || !b->ticks) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: %zu records without %s", call, b->count, b->sites ? "ticks" : "sites");
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < b->count; i++) {
        if (!wgprof__pool_owns_site(pool, b->sites[i])) {
            wgprof__log(WGPROF_LOG_ERROR, "%s: record %zu's site %u is not this pool's: another pool's, or "
                                          "interned before its last reset", call, i, b->sites[i].id);
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
    }
    if (b->scope_count && !b->scopes) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: %zu scopes without their array", call, b->scope_count);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    size_t open = wgprof__store_scope_depth(pool->store);
    for (size_t i = 0; i < b->scope_count; i++) {
        const wgprof_external_scope *sc = &b->scopes[i];
        size_t prev = i ? b->scopes[i - 1].before : 0;
        if (sc->before > b->count || sc->before < prev) {
            wgprof__log(WGPROF_LOG_ERROR, "%s: scope %zu comes before record %zu: %s", call, i, sc->before,
                        sc->before > b->count ? "past the batch's records" : "before the scope ahead of it");
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
        if (!sc->name && !open) {
            wgprof__log(WGPROF_LOG_ERROR, "%s: scope %zu ends a scope, but none is open there", call, i);
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
        open = sc->name ? open + 1 : open - 1;
    }
    size_t recorded = wgprof__store_count(pool->store);
    uint32_t max = pool->settings.max_dispatches;
    if (max && b->count > max - recorded) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: %zu records do not fit: %zu already recorded, fixed capacity %u; "
                                      "nothing was added", call, b->count, recorded, max);
        return WGPROF_ERR_CAPACITY;
    }
    return WGPROF_OK;
}

/* Fills pairs[2i], pairs[2i + 1] with record i's begin and end, continued past the counter's
 * wraps: both 0 where either tick was not available, which the store reads as not written.
 * The counter's state moves in locals only: the caller keeps it once nothing can fail. */
static void readings(const wgprof_external_batch *b, uint32_t bits, uint64_t *last, bool *have_last, uint64_t *pairs)
{
    bool chain = b->strategy == WGPROF_STRATEGY_CHAIN;
    uint64_t begin = 0;
    bool begin_ok = false;
    if (chain) {
        begin_ok = !b->available || b->available[0];
        begin = begin_ok ? unwrap(b->ticks[0], bits, last, have_last) : 0;
    }
    for (size_t i = 0; i < b->count; i++) {
        if (!chain) {
            begin_ok = !b->available || b->available[2 * i];
            begin = begin_ok ? unwrap(b->ticks[2 * i], bits, last, have_last) : 0;
        }
        size_t e = chain ? i + 1 : 2 * i + 1;
        bool end_ok = !b->available || b->available[e];
        uint64_t end = end_ok ? unwrap(b->ticks[e], bits, last, have_last) : 0;
        pairs[2 * i] = begin_ok && end_ok ? begin : 0;
        pairs[2 * i + 1] = begin_ok && end_ok ? end : 0;
        begin = end; /* a chain's next record begins where this one ends */
        begin_ok = end_ok;
    }
}

/* The batch's scope begins and ends made certain to succeed among its records. */
static wgprof_status prepare_scopes(wgprof__store *store, const wgprof_external_batch *b)
{
    if (!b->scope_count) {
        return WGPROF_OK;
    }
    const char **ops = wgprof__alloc(b->scope_count * sizeof *ops);
    if (!ops) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < b->scope_count; i++) {
        ops[i] = b->scopes[i].name;
    }
    wgprof_status s = wgprof__store_scope_prepare(store, ops, b->scope_count);
    wgprof__free(ops);
    return s;
}

wgprof_status wgprof_pool_add_external(wgprof_pool *pool, const wgprof_external_batch *batch)
{
    if (!pool || !batch) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->external) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_add_external: the pool %s; only a pool from "
                                      "wgprof_pool_create_external takes readings",
                    pool->device ? "records through WebGPU" : "holds merged results");
        return WGPROF_ERR_STATE;
    }
    wgprof_status s = check_batch(pool, batch);
    if (s != WGPROF_OK || !batch->count) {
        return s;
    }
    /* Every allocation first: a batch that cannot be held leaves the pool as it was. */
    wgprof__store *store = pool->store;
    s = wgprof__store_reserve(store, batch->count);
    if (s == WGPROF_OK) {
        s = wgprof__store_reserve_batch(store);
    }
    if (s == WGPROF_OK) {
        s = prepare_scopes(store, batch);
    }
    uint64_t *pairs = s == WGPROF_OK ? wgprof__alloc(2 * batch->count * sizeof *pairs) : NULL;
    if (s == WGPROF_OK && !pairs) {
        s = WGPROF_ERR_OUT_OF_MEMORY;
    }
    if (s != WGPROF_OK) {
        return s;
    }
    uint32_t bits = batch->valid_bits ? batch->valid_bits : 64;
    uint64_t last = pool->external_last;
    bool have_last = pool->external_have_last;
    readings(batch, bits, &last, &have_last, pairs);

    size_t first = wgprof__store_count(store);
    uint64_t next_id = pool->external_next_id;
    size_t mark = 0;
    for (size_t i = 0; i <= batch->count; i++) {
        for (; mark < batch->scope_count && batch->scopes[mark].before == i; mark++) {
            /* Prepared above: neither can fail now. */
            if (batch->scopes[mark].name) {
                (void)wgprof__store_scope_begin(store, batch->scopes[mark].name);
            } else {
                (void)wgprof__store_scope_end(store);
            }
        }
        if (i == batch->count) {
            break;
        }
        uint64_t id = batch->dispatch_ids ? batch->dispatch_ids[i] : next_id;
        wgprof__store_add(store, batch->sites[i].id, id);
        next_id = (id ? id : first + i) + 1; /* an id of 0 became the record index */
    }
    bool chain = batch->strategy == WGPROF_STRATEGY_CHAIN;
    wgprof__batch b = {.first = (uint32_t)first, .count = (uint32_t)batch->count, .chained = chain,
                       .strategies = (uint8_t)(1u << batch->strategy), .cpu_submit_ns = batch->cpu_submit_ns};
    uint32_t index = 0;
    (void)wgprof__store_add_batch(store, &b, &index); /* room reserved above */
    wgprof__extent extent = {0};
    wgprof__batch *added = wgprof__store_batch_at(store, index);
    wgprof__store_take_readings(store, added, first, batch->count, pairs, 2, batch->period_ns, &extent);
    wgprof__store_batch_collected(store, index, batch->period_ns, batch->cpu_read_ns, false);
    if (extent.last_end) {
        wgprof__pool_clock_bounds(pool, added, &extent);
    }
    wgprof__free(pairs);

    pool->external_bits = bits;
    pool->external_last = last;
    pool->external_have_last = have_last;
    pool->external_next_id = next_id;
    pool->batch_first = wgprof__store_count(store); /* a discard has nothing to forget */
    return WGPROF_OK;
}
