/*
 * wgprof_pool_merge: one pool holding the collected results of several pools of one device, for
 * one report over them (the graphs of a program, wgprof record's encoders recorded side by
 * side). It is a results store alone, with the first pool's clock fit: its batches come in
 * the order their GPU work began, re-converted on the first pool's origin.
 */
#include <stdlib.h>

#include "recorder_internal.h"

typedef struct merge_item {
    uint64_t first_tick; /* UINT64_MAX: no valid record, kept in its pool's order at the end */
    uint32_t pool, batch;
} merge_item;

static int by_time(const void *a, const void *b)
{
    const merge_item *x = a, *y = b;
    if (x->first_tick != y->first_tick) {
        return x->first_tick < y->first_tick ? -1 : 1;
    }
    if (x->pool != y->pool) {
        return x->pool < y->pool ? -1 : 1;
    }
    return x->batch < y->batch ? -1 : x->batch > y->batch;
}

wgprof_status wgprof_pool_merge(const wgprof_pool *const *pools, size_t count, wgprof_pool **out)
{
    if (!out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (!pools || !count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    size_t items = 0;
    for (size_t p = 0; p < count; p++) {
        if (!pools[p] || pools[p]->device != pools[0]->device) {
            wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_merge: pool %zu is NULL or of another device", p);
            return WGPROF_ERR_INVALID_ARGUMENT;
        }
        items += wgprof__store_collected(pools[p]->store);
    }
    wgprof_pool *m = wgprof__calloc(1, sizeof *m);
    merge_item *order = wgprof__alloc((items ? items : 1) * sizeof *order);
    wgprof_status s = WGPROF_ERR_OUT_OF_MEMORY;
    if (m && order) {
        m->settings.readback_frames = 1;
        m->frames = wgprof__calloc(1, sizeof *m->frames);
        m->store = wgprof__store_create();
        m->clock = pools[0]->clock;
        if (m->frames && m->store) {
            s = WGPROF_OK;
        }
    }
    size_t n = 0;
    for (size_t p = 0; s == WGPROF_OK && p < count; p++) {
        const wgprof__store *src = pools[p]->store;
        wgprof__store_adopt_origin(m->store, src);
        wgprof__store_add_dropped(m->store, src);
        s = wgprof__store_copy_sources(m->store, src);
        for (uint32_t b = 0; b < wgprof__store_collected(src); b++) {
            order[n++] = (merge_item){wgprof__store_batch_first_tick(src, b), (uint32_t)p, b};
        }
    }
    if (s == WGPROF_OK) {
        qsort(order, n, sizeof *order, by_time);
    }
    for (size_t i = 0; s == WGPROF_OK && i < n; i++) {
        s = wgprof__store_copy_batch(m->store, pools[order[i].pool]->store, order[i].batch);
    }
    wgprof__free(order);
    if (s != WGPROF_OK) {
        wgprof_pool_destroy(m);
        return s;
    }
    /* Every record is a finished one, none being recorded: a discard has nothing to forget. */
    m->batch_first = wgprof__store_count(m->store);
    *out = m;
    return WGPROF_OK;
}
