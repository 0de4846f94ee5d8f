/*
 * The query pool's layout, shared with the graph executor (which interns its nodes' dispatch
 * sites once) and the white-box tests.
 */
#ifndef WGPROF_QUERYPOOL_INTERNAL_H
#define WGPROF_QUERYPOOL_INTERNAL_H

#include "internal.h"

/* What a dispatch is, interned: records of the same node share one site. */
typedef struct wgprof__site {
    uint32_t name; /* index into names */
    uint32_t workgroups[3];
    uint32_t workgroup_size[3];
    double bytes;
    double flops;
} wgprof__site;

/* One timed dispatch; kept small since a pool may hold millions. */
typedef struct wgprof__slot {
    uint64_t begin;         /* ticks, after collect */
    uint64_t end;
    uint64_t clamped_begin; /* begin clamped to the largest earlier end of its batch */
    uint64_t dispatch_id;
    uint32_t site;
    uint32_t iteration;
    uint8_t reason;         /* wgprof_invalid_reason */
    uint8_t end_issued;
} wgprof__slot;

typedef struct wgprof__qset {
    WGPUQuerySet set;
    WGPUBuffer resolve;  /* QueryResolve | CopySrc */
    WGPUBuffer readback; /* MapRead | CopyDst */
} wgprof__qset;

typedef struct wgprof__iter {
    double period_ns; /* read at the collect of this iteration */
    uint32_t first;   /* its first record */
} wgprof__iter;

struct wgprof_pool {
    wgprof_device *device;
    uint32_t max_dispatches;

    wgprof__qset *sets;
    uint32_t set_count, set_cap;

    wgprof__slot *slots;
    size_t count, slot_cap;
    size_t batch_first; /* first record not yet collected */
    size_t invalid;
    bool resolved;
    bool open_record;   /* inside strategy: begin written, end not yet */

    uint32_t iterations;
    wgprof__iter *iters;
    uint32_t iter_cap;

    uint32_t generation; /* bumped by reset, which forgets interned sites */
    uint64_t epoch;     /* smallest valid begin tick */
    bool have_epoch;

    char **names;
    uint32_t name_count, name_cap;
    uint32_t *name_index, name_index_cap;
    wgprof__site *sites;
    uint32_t site_count, site_cap;
    uint32_t *site_index, site_index_cap;
};

wgprof_status wgprof__pool_site(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch, uint32_t *site);
wgprof_status wgprof__pool_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                            WGPUPassTimestampWrites *writes);
wgprof_status wgprof__pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                      uint64_t dispatch_id);
/* Drops the records of the batch not yet resolved (an execute that failed while encoding). */
void wgprof__pool_discard_batch(wgprof_pool *pool);
/* Takes the readings (begin, end pairs) of records [first, first + count) from a mapped
 * readback: validates them, counts the invalid, clamps overlap against *max_end (the batch's
 * largest end so far, 0 at its start) and moves the epoch. */
void wgprof__take_readings(wgprof_pool *pool, size_t first, size_t count, const uint64_t *ticks, uint64_t *max_end);

#endif
