/*
 * The results store (store.h): the pending results the recorder adds, the batches it resolves,
 * and the one conversion from timestamps to nanoseconds, done once per result when its batch is
 * collected. Everything downstream (summary, scopes, reports) reads finished results.
 */
#include <math.h>
#include <string.h>

#include "clock_fit.h"
#include "store_internal.h"

wgprof__store *wgprof__store_create(void) { return wgprof__calloc(1, sizeof(wgprof__store)); }

void wgprof__store_destroy(wgprof__store *store)
{
    if (!store) {
        return;
    }
    wgprof__free_interned(store);
    wgprof__free(store->results);
    wgprof__free(store->dispatches);
    wgprof__free(store->batches);
    wgprof__free(store->scopes);
    wgprof__free(store->scope_stack);
    wgprof__free(store);
}

void wgprof__store_reset(wgprof__store *store)
{
    wgprof__forget_interned(store);
    store->count = 0;
    store->invalid = 0;
    store->batch_count = 0;
    store->collected = 0;
    store->dropped_batches = 0;
    store->dropped_dispatches = 0;
    store->have_epoch = false;
    store->epoch_ns = 0;
    store->ticks_or = 0;
    store->ticks_or_period_ns = 0;
    store->scope_count = 0;
    store->scope_depth = 0;
    store->generation++;
}

uint32_t wgprof__store_generation(const wgprof__store *store) { return store->generation; }

/* ---- recording ---- */

wgprof_status wgprof__store_reserve(wgprof__store *store, size_t more)
{
    uint64_t need = (uint64_t)store->count + more;
    if (need > UINT32_MAX) {
        wgprof__log(WGPROF_LOG_ERROR, "a pool cannot index %llu records", (unsigned long long)need);
        return WGPROF_ERR_CAPACITY;
    }
    if (need <= store->cap) {
        return WGPROF_OK;
    }
    size_t ncap = store->cap ? store->cap : 256;
    while (ncap < need) {
        ncap *= 2;
    }
    wgprof__result *n = wgprof__grow(store->results, store->cap * sizeof *n, ncap * sizeof *n);
    if (!n) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    store->results = n;
    wgprof__dispatch *d = wgprof__grow(store->dispatches, store->cap * sizeof *d, ncap * sizeof *d);
    if (!d) {
        return WGPROF_ERR_OUT_OF_MEMORY; /* results grown, capacity not: the next try grows both */
    }
    store->dispatches = d;
    store->cap = ncap;
    return WGPROF_OK;
}

void wgprof__store_add(wgprof__store *store, uint32_t site, uint64_t dispatch_id)
{
    wgprof__result *r = &store->results[store->count];
    memset(r, 0, sizeof *r);
    r->site = site;
    r->reason = WGPROF_INVALID_PENDING;
    wgprof__dispatch *d = &store->dispatches[store->count];
    d->id = dispatch_id ? dispatch_id : store->count;
    d->batch = store->batch_count;
    d->scope = store->scope_depth ? store->scope_stack[store->scope_depth - 1] : WGPROF__NONE;
    store->count++;
}

size_t wgprof__store_count(const wgprof__store *store) { return store->count; }

void wgprof__store_truncate(wgprof__store *store, size_t count)
{
    store->count = count;
    wgprof__scopes_truncate(store, count);
}

/* ---- batches ---- */

wgprof_status wgprof__store_reserve_batch(wgprof__store *store)
{
    return wgprof__reserve((void **)&store->batches, &store->batch_cap, store->batch_count + 1, sizeof *store->batches,
                           16);
}

wgprof_status wgprof__store_add_batch(wgprof__store *store, const wgprof__batch *batch, uint32_t *index)
{
    wgprof_status s = wgprof__store_reserve_batch(store);
    if (s != WGPROF_OK) {
        return s;
    }
    if (index) {
        *index = store->batch_count;
    }
    store->batches[store->batch_count++] = *batch;
    return WGPROF_OK;
}

void wgprof__store_remove_last_batch(wgprof__store *store)
{
    wgprof__store_truncate(store, store->batches[--store->batch_count].first);
}

wgprof__batch *wgprof__store_batch_at(wgprof__store *store, uint32_t index) { return &store->batches[index]; }
uint32_t wgprof__store_batch_count(const wgprof__store *store) { return store->batch_count; }
uint32_t wgprof__store_collected(const wgprof__store *store) { return store->collected; }

uint32_t wgprof__store_strategies(const wgprof__store *store)
{
    uint32_t bits = 0;
    for (uint32_t i = 0; i < store->batch_count; i++) {
        bits |= store->batches[i].strategies;
    }
    return bits;
}

void wgprof__store_count_dropped(wgprof__store *store, size_t dispatches)
{
    store->dropped_batches++;
    store->dropped_dispatches += dispatches;
}

uint64_t wgprof__store_dropped(const wgprof__store *store, uint64_t *dispatches)
{
    if (dispatches) {
        *dispatches = store->dropped_dispatches;
    }
    return store->dropped_batches;
}

/* ---- collecting ---- */

double wgprof__store_gpu_ns(wgprof__store *store, uint64_t ticks, double period_ns)
{
    if (!store->have_origin) {
        store->origin_ticks = ticks;
        store->have_origin = true;
    }
    return (double)(int64_t)(ticks - store->origin_ticks) * period_ns;
}

double wgprof__store_quantum_ns(const wgprof__store *store)
{
    if (!store->ticks_or) {
        return 0;
    }
    /* The lowest set bit, in ticks: every reading ORed into it was a multiple of it. A step of
     * one tick is the counter's own resolution, nothing coarser: 0. Where batches had different
     * periods, the smallest one converts it, which understates rather than invents a step. */
    uint64_t step = store->ticks_or & (~store->ticks_or + 1);
    return step > 1 ? (double)step * store->ticks_or_period_ns : 0;
}

wgprof_invalid_reason wgprof__classify(uint64_t begin, uint64_t end, bool end_issued)
{
    if (!end_issued || (begin == 0 && end == 0)) {
        return WGPROF_INVALID_NOT_WRITTEN;
    }
    if (begin == 0 || end == 0) {
        return WGPROF_INVALID_ZERO;
    }
    if (end < begin) {
        return WGPROF_INVALID_BACKWARDS;
    }
    return WGPROF_VALID;
}

void wgprof__store_take_readings(wgprof__store *store, const wgprof__batch *batch, size_t first, size_t count,
                                 const uint64_t *ticks, size_t stride, double period_ns, wgprof__extent *extent)
{
    /* One pass over the readback: validate each reading, convert it, then clamp its begin to
     * the largest end seen so far in the batch, in submission order, so that passes the
     * driver overlapped are not counted twice. The running values live in locals: the results
     * written in the loop could otherwise alias them, and every iteration would reload them. */
    size_t unissued = batch->end_missing ? (size_t)batch->first + batch->count - 1 : SIZE_MAX;
    if (!store->have_origin && count) {
        wgprof__store_gpu_ns(store, ticks[0], period_ns); /* sets the origin */
    }
    const uint64_t origin = store->origin_ticks;
    uint64_t first_begin = extent->first_begin, last_end = extent->last_end;
    double epoch = store->have_epoch ? store->epoch_ns : INFINITY;
    uint64_t ticks_or = 0; /* one OR per valid reading: the cost of telling a quantized clock */
    size_t invalid = 0;
    wgprof__result *results = store->results + first;
    for (size_t i = 0; i < count; i++) {
        wgprof__result *r = &results[i];
        uint64_t begin = ticks[stride * i], end = ticks[stride * i + 1];
        r->begin_ticks = begin;
        r->end_ticks = end;
        r->reason = (uint8_t)wgprof__classify(begin, end, first + i != unissued);
        if (r->reason != WGPROF_VALID) {
            invalid++;
            continue;
        }
        /* As wgprof__store_gpu_ns. A valid end is never before its begin, but the two may lie
         * more than 2^63 ticks apart: the differences stay unsigned. */
        r->start_ns = (double)(int64_t)(begin - origin) * period_ns;
        r->duration_ns = (double)(end - begin) * period_ns;
        uint64_t clamped = begin > last_end ? begin : last_end;
        r->exclusive_ns = (double)(end - (clamped < end ? clamped : end)) * period_ns;
        last_end = end > last_end ? end : last_end;
        ticks_or |= begin | end;
        first_begin = !first_begin || begin < first_begin ? begin : first_begin;
        epoch = r->start_ns < epoch ? r->start_ns : epoch;
    }
    extent->first_begin = first_begin;
    extent->last_end = last_end;
    store->invalid += invalid;
    if (ticks_or) {
        double smallest = store->ticks_or_period_ns;
        store->ticks_or_period_ns = !store->ticks_or || period_ns < smallest ? period_ns : smallest;
        store->ticks_or |= ticks_or;
    }
    if (isfinite(epoch)) {
        store->epoch_ns = epoch;
        store->have_epoch = true;
    }
}

void wgprof__store_mark_invalid(wgprof__store *store, size_t first, size_t count, wgprof_invalid_reason reason)
{
    for (size_t r = first; r < first + count; r++) {
        store->results[r].reason = (uint8_t)reason;
    }
    store->invalid += count;
}

void wgprof__store_batch_collected(wgprof__store *store, uint32_t index, double period_ns, uint64_t ready_ns,
                                   bool waited)
{
    wgprof__batch *b = &store->batches[index];
    b->period_ns = period_ns;
    b->cpu_ready_ns = ready_ns;
    b->waited = waited;
    b->collected = true;
    store->collected++;
}

/* ---- reading ---- */

const wgprof__result *wgprof__store_results(const wgprof__store *store) { return store->results; }
size_t wgprof__store_invalid(const wgprof__store *store) { return store->invalid; }
double wgprof__store_epoch_ns(const wgprof__store *store) { return store->epoch_ns; }

wgprof_status wgprof__store_record(const wgprof__store *store, const wgprof_clock_info *clock, size_t index,
                                   wgprof_record *out)
{
    if (index >= store->count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const wgprof__result *r = &store->results[index];
    const wgprof__dispatch *d = &store->dispatches[index];
    const wgprof__site *site = &store->sites[r->site];
    memset(out, 0, sizeof *out);
    out->index = (uint32_t)index;
    out->batch = d->batch;
    out->dispatch_id = d->id;
    out->kernel = store->names[site->name];
    out->kernel_id = site->name;
    out->scope = d->scope == WGPROF__NONE ? -1 : (int32_t)d->scope;
    for (int k = 0; k < 3; k++) {
        out->workgroups[k] = site->workgroups[k];
        out->workgroup_size[k] = site->workgroup_size[k];
        out->global_size[k] = (uint64_t)site->workgroups[k] * site->workgroup_size[k];
    }
    out->bytes = site->bytes;
    out->flops = site->flops;
    out->invalid_reason = (wgprof_invalid_reason)r->reason;
    out->valid = r->reason == WGPROF_VALID;
    out->cpu_start_ns = out->cpu_end_ns = NAN;
    if (d->batch < store->batch_count && store->batches[d->batch].collected) {
        out->begin_ticks = r->begin_ticks;
        out->end_ticks = r->end_ticks;
        out->period_ns = store->batches[d->batch].period_ns;
    }
    if (out->valid) {
        out->start_ns = r->start_ns - store->epoch_ns;
        out->end_ns = out->start_ns + r->duration_ns;
        out->duration_ns = r->duration_ns;
        out->exclusive_ns = r->exclusive_ns;
        if (clock) {
            out->cpu_start_ns = wgprof__clock_cpu_ns(clock, r->start_ns);
            out->cpu_end_ns = wgprof__clock_cpu_ns(clock, r->start_ns + r->duration_ns);
        }
    }
    return WGPROF_OK;
}

wgprof_status wgprof__store_batch(const wgprof__store *store, uint32_t index, wgprof_batch_info *out)
{
    if (index >= store->batch_count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const wgprof__batch *b = &store->batches[index];
    memset(out, 0, sizeof *out);
    out->index = index;
    out->first_record = b->first;
    out->records = b->count;
    out->collected = b->collected;
    out->waited = b->waited;
    out->chained = b->chained;
    out->period_ns = b->period_ns;
    out->cpu_encode_ns = b->cpu_encode_ns;
    out->cpu_submit_ns = b->cpu_submit_ns;
    out->cpu_submitted_ns = b->cpu_submitted_ns;
    out->cpu_ready_ns = b->cpu_ready_ns;
    return WGPROF_OK;
}
