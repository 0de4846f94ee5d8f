/*
 * The results store: the host side of a pool, everything known about the timed dispatches
 * apart from where their timestamps live on the GPU. It holds
 *   - the dictionary: names (kernels and scopes) and sites (a kernel with its sizes and
 *     efficiency figures), each interned once and named by an index;
 *   - one result per timed dispatch: pending when recorded, finished when its batch is
 *     collected: GPU ns (the one place where ticks become nanoseconds), validity, overlap;
 *   - the batches, with the period each was converted with and their CPU stamps;
 *   - the scopes; the count of batches dropped.
 * The recorder fills it (store.c, store_intern.c, store_scope.c); summary and reports read it
 * through wgprof__store_record(), wgprof__store_scope() and wgprof__store_batch(), or, where
 * every nanosecond counts (the summary), the results array itself.
 */
#ifndef WGPROF_STORE_H
#define WGPROF_STORE_H

#include "internal.h"

typedef struct wgprof__store wgprof__store;

/* What a dispatch is, interned: the records of the same node share one site. */
typedef struct wgprof__site {
    uint32_t name; /* the kernel: an index into the names */
    uint32_t workgroups[3];
    uint32_t workgroup_size[3];
    double bytes;
    double flops;
} wgprof__site;

/* What one timed dispatch measured, filled when its batch is collected: what the summary reads,
 * one cache-friendly array. Times mean something only for a valid result. Durations come from
 * the difference of ticks, converted once, so that they are as exact as the counter. */
typedef struct wgprof__result {
    double start_ns;         /* GPU ns on the store's origin (the first timestamp it ever
                                converted; reset keeps it, so that the clock fit stays valid) */
    double duration_ns;      /* (end - begin) * period */
    double exclusive_ns;     /* from the begin clamped to the largest earlier end of its batch */
    uint64_t begin_ticks;    /* raw, as resolved; 0 before collect */
    uint64_t end_ticks;
    uint32_t site;
    uint8_t reason;          /* wgprof_invalid_reason */
} wgprof__result;

/* Which dispatch a result is, known when it was recorded: the array beside the results. */
typedef struct wgprof__dispatch {
    uint64_t id;             /* the caller's dispatch id */
    uint32_t batch;
    uint32_t scope;          /* innermost scope instance, WGPROF__NONE */
} wgprof__dispatch;

/* The dispatches between two resolves. */
typedef struct wgprof__batch {
    double period_ns;   /* what its ticks were converted with; 0 before collect */
    uint32_t first;     /* its first result */
    uint32_t count;
    bool chained;       /* one query per record after a start query, else pairs */
    uint8_t strategies; /* bit (1 << wgprof_strategy) of each strategy its records were timed with */
    bool end_missing;   /* its last record's end timestamp was never encoded */
    bool waited;        /* the CPU blocked until it was read */
    bool collected;
    /* CPU clock (wgprof__now_ns), 0 where unknown: encoding began, the submit was called,
     * the submit returned, the readback was seen complete. */
    uint64_t cpu_encode_ns, cpu_submit_ns, cpu_submitted_ns, cpu_ready_ns;
} wgprof__batch;

/* How far a batch's valid readings reach so far, in submission order; zero before the first
 * (a valid reading is never 0): the clock fit's bounds. */
typedef struct wgprof__extent {
    uint64_t first_begin;
    uint64_t last_end;
} wgprof__extent;

wgprof__store *wgprof__store_create(void);
void wgprof__store_destroy(wgprof__store *store);
/* Forgets every result, batch, scope, name and site and the dropped counts; keeps the time
 * origin. Bumps the generation. */
void wgprof__store_reset(wgprof__store *store);
/* Changes at every reset: site indexes from an older generation are stale. */
uint32_t wgprof__store_generation(const wgprof__store *store);

/* ---- dictionary (store_intern.c) ---- */
wgprof_status wgprof__store_site(wgprof__store *store, const wgprof_dispatch_desc *dispatch, uint32_t *site);
const wgprof__site *wgprof__store_site_at(const wgprof__store *store, uint32_t site);
/* Sites interned since the last reset: [0, this) are valid indexes. */
uint32_t wgprof__store_site_count(const wgprof__store *store);
/* All sites, indexed by site: for loops over every result. */
const wgprof__site *wgprof__store_sites(const wgprof__store *store);
uint32_t wgprof__store_name_count(const wgprof__store *store);
/* Says where the kernel name `name` came from (`source`, interned as a name; NULL: not said). */
wgprof_status wgprof__store_name_source(wgprof__store *store, const char *name, const char *source);
/* Where name `name` came from; NULL where that was not said. */
const char *wgprof__store_source(const wgprof__store *store, uint32_t name);
const char *wgprof__store_name(const wgprof__store *store, uint32_t name);

/* ---- recording ---- */
/* Room for `more` results; WGPROF_ERR_CAPACITY past what a record index can hold. */
wgprof_status wgprof__store_reserve(wgprof__store *store, size_t more);
/* Appends a pending result (room reserved) to the batch being recorded, in the innermost open
 * scope. */
void wgprof__store_add(wgprof__store *store, uint32_t site, uint64_t dispatch_id);
size_t wgprof__store_count(const wgprof__store *store);
/* Drops the results from `count` on, and the scope instances that begin there (those that end
 * after it close at it). */
void wgprof__store_truncate(wgprof__store *store, size_t count);

/* ---- batches ---- */
/* Room for one more batch: the add that follows cannot fail, for a caller that must change
 * nothing when it cannot finish. */
wgprof_status wgprof__store_reserve_batch(wgprof__store *store);
/* Appends a batch (its results already added); *index (may be NULL) receives its index. */
wgprof_status wgprof__store_add_batch(wgprof__store *store, const wgprof__batch *batch, uint32_t *index);
/* Takes back the newest batch, which was never submitted, and its results. */
void wgprof__store_remove_last_batch(wgprof__store *store);
wgprof__batch *wgprof__store_batch_at(wgprof__store *store, uint32_t index);
uint32_t wgprof__store_batch_count(const wgprof__store *store);
uint32_t wgprof__store_collected(const wgprof__store *store);
/* The strategies bits of every batch, together. */
uint32_t wgprof__store_strategies(const wgprof__store *store);
/* Counts a batch that was never timed because every readback frame was in flight. */
void wgprof__store_count_dropped(wgprof__store *store, size_t dispatches);

/* ---- merging (store_merge.c) ---- */
/* dst takes src's origin where it has none yet, so that the clock fit of src holds for dst. */
void wgprof__store_adopt_origin(wgprof__store *dst, const wgprof__store *src);
/* The smallest valid begin tick of batch `index`; UINT64_MAX where it has no valid record. */
uint64_t wgprof__store_batch_first_tick(const wgprof__store *store, uint32_t index);
/* Appends collected batch `index` of src to dst, collected: its records (sites interned anew,
 * raw ticks converted again on dst's origin, reasons kept) and the scope instances that lie
 * within it. */
wgprof_status wgprof__store_copy_batch(wgprof__store *dst, const wgprof__store *src, uint32_t index);
void wgprof__store_add_dropped(wgprof__store *dst, const wgprof__store *src);
/* dst says where each of src's kernel names came from, as src says it (the last source said wins). */
wgprof_status wgprof__store_copy_sources(wgprof__store *dst, const wgprof__store *src);
uint64_t wgprof__store_dropped(const wgprof__store *store, uint64_t *dispatches);

/* ---- collecting ---- */
/* GPU ns of `ticks` on the store's origin (set by the first call): the conversion every
 * timestamp goes through. */
double wgprof__store_gpu_ns(wgprof__store *store, uint64_t ticks, double period_ns);
/* Finishes results [first, first + count) of `batch` from readings (begin, end pairs `stride`
 * ticks apart: 2 for pairs, 1 for a chain): validates, converts with `period_ns`, clamps each
 * start to the extent's last end so far, widens the extent, moves the epoch and ORs the valid
 * ticks into the quantum (wgprof__store_quantum_ns). */
void wgprof__store_take_readings(wgprof__store *store, const wgprof__batch *batch, size_t first, size_t count,
                                 const uint64_t *ticks, size_t stride, double period_ns, wgprof__extent *extent);
/* Why a reading is invalid, or WGPROF_VALID; `end_issued` false: its end was never encoded. */
wgprof_invalid_reason wgprof__classify(uint64_t begin, uint64_t end, bool end_issued);
/* Marks results [first, first + count) invalid for `reason`. */
void wgprof__store_mark_invalid(wgprof__store *store, size_t first, size_t count, wgprof_invalid_reason reason);
/* The oldest batch not yet collected is now collected. */
void wgprof__store_batch_collected(wgprof__store *store, uint32_t index, double period_ns, uint64_t ready_ns,
                                   bool waited);

/* ---- reading ---- */
const wgprof__result *wgprof__store_results(const wgprof__store *store);
size_t wgprof__store_invalid(const wgprof__store *store);
/* The quantum: the step that every valid reading taken since the last reset (its begin and its
 * end) was a multiple of, in ns, where it is coarser than one tick: a clock the implementation
 * rounds (Dawn's timestamp_quantization) or a counter that steps by several ticks. 0 when no
 * valid reading was taken or the readings use every tick. How many readings make it more than
 * chance is for the reader to judge (the summary). */
double wgprof__store_quantum_ns(const wgprof__store *store);
/* The smallest valid start, GPU ns on the origin: records count from it. */
double wgprof__store_epoch_ns(const wgprof__store *store);
/* The public view of result `index`, its CPU times through `clock` (may be NULL). */
wgprof_status wgprof__store_record(const wgprof__store *store, const wgprof_clock_info *clock, size_t index,
                                   wgprof_record *out);
wgprof_status wgprof__store_batch(const wgprof__store *store, uint32_t index, wgprof_batch_info *out);

/* ---- scopes (store_scope.c) ---- */
wgprof_status wgprof__store_scope_begin(wgprof__store *store, const char *name);
wgprof_status wgprof__store_scope_end(wgprof__store *store);
/* Makes the begins and ends of `ops` (in order: a name begins a scope, NULL ends the innermost;
 * no end without a scope open) certain to succeed when made next, with nothing else between:
 * their names and scope nodes interned and room for their instances. For a caller that must
 * change nothing when it cannot finish; where this fails, only names and nodes may stay
 * interned (as after a truncate: nodes without an instance). */
wgprof_status wgprof__store_scope_prepare(wgprof__store *store, const char *const *ops, size_t count);
/* Scopes open now. */
uint32_t wgprof__store_scope_depth(const wgprof__store *store);
size_t wgprof__store_scope_count(const wgprof__store *store);
wgprof_status wgprof__store_scope(const wgprof__store *store, const wgprof_clock_info *clock, size_t index,
                                  wgprof_scope_record *out);
/* The tree of scope names: node `i` (< count) has `name`, `parent` (WGPROF__NONE at the top)
 * and `depth`; a parent comes before its children. */
uint32_t wgprof__store_scope_node_count(const wgprof__store *store);
void wgprof__store_scope_node(const wgprof__store *store, uint32_t node, uint32_t *name, uint32_t *parent,
                              uint32_t *depth);

#endif
