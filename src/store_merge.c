/*
 * Copying collected batches from one store into another (wgprof_pool_merge): the records with
 * their sites interned anew, their raw ticks converted again on the destination's origin (so
 * that records of several stores share one time axis), their reasons kept, and the scope
 * instances that lie within each batch.
 */
#include <string.h>

#include "store_internal.h"

void wgprof__store_adopt_origin(wgprof__store *dst, const wgprof__store *src)
{
    if (!dst->have_origin && src->have_origin) {
        dst->origin_ticks = src->origin_ticks;
        dst->have_origin = true;
    }
}

uint64_t wgprof__store_batch_first_tick(const wgprof__store *store, uint32_t index)
{
    const wgprof__batch *b = &store->batches[index];
    uint64_t first = UINT64_MAX;
    for (uint32_t r = b->first; r < b->first + b->count; r++) {
        if (store->results[r].reason == WGPROF_VALID && store->results[r].begin_ticks < first) {
            first = store->results[r].begin_ticks;
        }
    }
    return first;
}

wgprof_status wgprof__store_copy_sources(wgprof__store *dst, const wgprof__store *src)
{
    wgprof_status s = WGPROF_OK;
    for (uint32_t n = 0; s == WGPROF_OK && n < src->source_count; n++) {
        const char *source = wgprof__store_source(src, n);
        s = source ? wgprof__store_name_source(dst, src->names[n], source) : WGPROF_OK;
    }
    return s;
}

void wgprof__store_add_dropped(wgprof__store *dst, const wgprof__store *src)
{
    dst->dropped_batches += src->dropped_batches;
    dst->dropped_dispatches += src->dropped_dispatches;
}

/* The destination's scope node for `node` of the source: its path of names, interned. */
static wgprof_status copy_node(wgprof__store *dst, const wgprof__store *src, uint32_t node, uint32_t *out)
{
    const wgprof__scope_node *n = &src->scope_nodes[node];
    uint32_t parent = WGPROF__NONE, name;
    wgprof_status s = n->parent == WGPROF__NONE ? WGPROF_OK : copy_node(dst, src, n->parent, &parent);
    if (s == WGPROF_OK) {
        s = wgprof__intern_name(dst, src->names[n->name], &name);
    }
    return s == WGPROF_OK ? wgprof__intern_scope_node(dst, parent, name, out) : s;
}

/* The source's scope instances that begin in its batch [first, end) and end within it, as
 * instances of the destination's records from `at` on; each record's innermost scope follows. */
static wgprof_status copy_scopes(wgprof__store *dst, const wgprof__store *src, uint32_t first, uint32_t end, size_t at)
{
    /* Instances are stored in begin order, so their first records never decrease: the batch's
     * are found by bisection, not by a walk over every instance for every batch. */
    uint32_t lo = 0, hi = src->scope_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (src->scopes[mid].first < first) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (uint32_t i = lo; i < src->scope_count && src->scopes[i].first < end; i++) {
        const wgprof__scope *sc = &src->scopes[i];
        if (sc->end == WGPROF__NONE || sc->end > end) {
            continue;
        }
        uint32_t node;
        wgprof_status s = copy_node(dst, src, sc->node, &node);
        if (s == WGPROF_OK) {
            s = wgprof__reserve((void **)&dst->scopes, &dst->scope_cap, dst->scope_count + 1, sizeof *dst->scopes, 16);
        }
        if (s != WGPROF_OK) {
            return s;
        }
        uint32_t from = (uint32_t)(at + (sc->first - first)), to = (uint32_t)(at + (sc->end - first));
        dst->scopes[dst->scope_count] = (wgprof__scope){node, from, to};
        /* Instances come in begin order, outer before inner: the last to cover a record is its innermost. */
        for (uint32_t r = from; r < to; r++) {
            dst->dispatches[r].scope = dst->scope_count;
        }
        dst->scope_count++;
    }
    return WGPROF_OK;
}

wgprof_status wgprof__store_copy_batch(wgprof__store *dst, const wgprof__store *src, uint32_t index)
{
    const wgprof__batch *sb = &src->batches[index];
    size_t at = dst->count;
    uint64_t *ticks = wgprof__alloc((sb->count ? sb->count : 1) * 2 * sizeof *ticks);
    wgprof_status s = ticks ? wgprof__store_reserve(dst, sb->count) : WGPROF_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; s == WGPROF_OK && i < sb->count; i++) {
        const wgprof__result *r = &src->results[sb->first + i];
        const wgprof__site *site = &src->sites[r->site];
        wgprof_dispatch_desc d = {.kernel = src->names[site->name], .bytes = site->bytes, .flops = site->flops};
        memcpy(d.workgroups, site->workgroups, sizeof d.workgroups);
        memcpy(d.workgroup_size, site->workgroup_size, sizeof d.workgroup_size);
        uint32_t dsite;
        s = wgprof__store_site(dst, &d, &dsite);
        if (s == WGPROF_OK) {
            wgprof__store_add(dst, dsite, 0);
            /* The source's id as it is: one given as 0 there became its record index, which 0
             * was only for the source's first record; the add would take the index here. */
            dst->dispatches[at + i].id = src->dispatches[sb->first + i].id;
            bool valid = r->reason == WGPROF_VALID;
            ticks[2 * i] = valid ? r->begin_ticks : 0;
            ticks[2 * i + 1] = valid ? r->end_ticks : 0;
        }
    }
    wgprof__batch b = *sb;
    b.first = (uint32_t)at;
    b.collected = false;
    b.end_missing = false; /* every record comes with its own two readings */
    uint32_t nb = 0;
    if (s == WGPROF_OK) {
        s = wgprof__store_add_batch(dst, &b, &nb);
    }
    if (s == WGPROF_OK) {
        wgprof__extent extent = {0};
        wgprof__store_take_readings(dst, &dst->batches[nb], at, sb->count, ticks, 2, sb->period_ns, &extent);
        /* The readings of an invalid record were zeros, counted invalid once; its reason is the
         * source's (a failed map, a lost device), not the zeros', and so are its raw ticks, which
         * the reports show: converting them again could make a record whose end was never
         * issued valid. */
        for (uint32_t i = 0; i < sb->count; i++) {
            const wgprof__result *r = &src->results[sb->first + i];
            if (r->reason != WGPROF_VALID) {
                dst->results[at + i].reason = r->reason;
                dst->results[at + i].begin_ticks = r->begin_ticks;
                dst->results[at + i].end_ticks = r->end_ticks;
            }
        }
        wgprof__store_batch_collected(dst, nb, sb->period_ns, sb->cpu_ready_ns, sb->waited);
        s = copy_scopes(dst, src, sb->first, sb->first + sb->count, at);
    } else {
        wgprof__store_truncate(dst, at);
    }
    wgprof__free(ticks);
    return s;
}
