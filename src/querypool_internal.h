/*
 * The query pool's layout, shared by the pool's source files (querypool.c: query sets,
 * recording and resolve; pool_intern.c: names and sites; pool_readback.c: the readback ring
 * and collect; pool_scope.c: scopes; clock.c: the CPU/GPU clock fit), the graph executor and
 * the white-box tests.
 */
#ifndef WGPROF_QUERYPOOL_INTERNAL_H
#define WGPROF_QUERYPOOL_INTERNAL_H

#include "internal.h"

/* WebGPU caps a query set at 4096 queries. Pairs take two per dispatch; a chain takes one per
 * dispatch plus the one it starts from. */
enum {
    WGPROF__QUERIES_PER_SET = 4096,
    WGPROF__PAIRS_PER_SET = WGPROF__QUERIES_PER_SET / 2,
    WGPROF__CHAIN_PER_SET = WGPROF__QUERIES_PER_SET - 1
};
#define WGPROF__NONE UINT32_MAX /* no index */

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
    uint32_t batch;         /* index into batches: the record's iteration */
    uint8_t reason;         /* wgprof_invalid_reason */
    uint8_t end_issued;
} wgprof__slot;

/* A batch: the records between two resolves, read back together. */
typedef struct wgprof__batch {
    double period_ns;   /* read when collected */
    uint32_t first;     /* its first record */
    uint32_t count;
    bool chained;       /* one query per record after a start query, else pairs */
    bool waited;        /* the CPU blocked until it was read */
    bool collected;
    /* CPU clock (wgprof__now_ns), 0 where unknown: encoding began, the submit was called,
     * the submit returned, the readback was seen complete. */
    uint64_t cpu_encode_ns, cpu_submit_ns, cpu_submitted_ns, cpu_ready_ns;
} wgprof__batch;

typedef struct wgprof__qset {
    WGPUQuerySet set;
    WGPUBuffer resolve; /* QueryResolve | CopySrc, shared by every frame: copies are queue-ordered */
} wgprof__qset;

/* One readback slot of the ring: a MapRead buffer per query set, mapped while its batch is in
 * flight. */
enum { WGPROF__FRAME_FREE, WGPROF__FRAME_RESOLVED, WGPROF__FRAME_MAPPING };
typedef struct wgprof__frame {
    WGPUBuffer *readbacks;   /* [set], created when a batch first needs them */
    wgprof__waiter **maps;   /* [set], while mapping */
    uint32_t readback_count; /* readbacks created (and maps' capacity) */
    uint32_t sets_used;      /* by its batch */
    uint32_t batch;          /* WGPROF__NONE: abandoned by a reset */
    uint8_t state;
} wgprof__frame;

/* A scope's place in the tree of scope names: interned, so that the instances of "layer 0"
 * inside "decode" in every iteration share one node. */
typedef struct wgprof__scope_node {
    uint32_t name;   /* index into names */
    uint32_t parent; /* WGPROF__NONE for a root */
    uint32_t depth;
} wgprof__scope_node;

/* One instance of a scope: the records [first, end). */
typedef struct wgprof__scope {
    uint32_t node;
    uint32_t first;
    uint32_t end; /* WGPROF__NONE while open */
} wgprof__scope;

/* Interval constraints on the CPU time of a GPU timestamp: lo <= cpu(ticks) <= hi. */
typedef struct wgprof__clock_sample {
    uint64_t ticks;
    double period_ns;
    double lo_ns; /* -INFINITY: no lower bound */
    double hi_ns; /* INFINITY: no upper bound */
} wgprof__clock_sample;

enum { WGPROF__CLOCK_WINDOW = 128 };

/* The latest samples of one kind. */
typedef struct wgprof__clock_ring {
    wgprof__clock_sample samples[WGPROF__CLOCK_WINDOW];
    uint32_t count, next;
} wgprof__clock_ring;

typedef struct wgprof__clock {
    /* Calibration samples (bounded on both sides) and the executes' one-sided bounds are kept
     * apart, so that a long run of executes does not push the calibration out. */
    wgprof__clock_ring two_sided, one_sided;
    wgprof_clock_info info;
    /* Resources of explicit calibration, created when first needed. */
    WGPUQuerySet set;
    WGPUBuffer resolve, readback;
    uint64_t last_calibration_ns;
} wgprof__clock;

struct wgprof_pool {
    wgprof_device *device;
    uint32_t max_dispatches;

    wgprof__qset *sets;
    uint32_t set_count, set_cap;

    wgprof__frame *frames;
    uint32_t ring;         /* frames */
    uint32_t next_frame;   /* the frame the next resolve takes */
    uint32_t oldest_frame; /* the oldest frame in flight */
    uint32_t in_flight;    /* frames resolved or mapping */

    wgprof__slot *slots;
    size_t count, slot_cap;
    size_t batch_first; /* first record of the batch being recorded */
    size_t invalid;
    bool resolved;      /* the newest batch is resolved and not yet read */
    bool open_record;   /* inside strategy: begin written, end not yet */
    bool chain_open;    /* chain strategy: the start timestamp is written */
    bool batch_chained; /* the batch being recorded is a chain */
    uint64_t batch_cpu_encode_ns;

    wgprof__batch *batches;
    uint32_t batch_count, batch_cap; /* batches resolved */
    uint32_t collected;              /* batches [0, collected) are read */
    uint64_t dropped_batches, dropped_dispatches;

    uint32_t generation; /* bumped by reset, which forgets interned sites */
    uint64_t epoch;      /* smallest valid begin tick */
    bool have_epoch;

    char **names;
    uint32_t name_count, name_cap;
    uint32_t *name_index, name_index_cap;
    wgprof__site *sites;
    uint32_t site_count, site_cap;
    uint32_t *site_index, site_index_cap;

    wgprof__scope_node *scope_nodes;
    uint32_t scope_node_count, scope_node_cap;
    uint32_t *scope_node_index, scope_node_index_cap;
    wgprof__scope *scopes;
    uint32_t scope_count, scope_cap;
    uint32_t *scope_stack; /* open instances, innermost last */
    uint32_t scope_depth, scope_stack_cap;

    wgprof__clock clock;
};

/* The frame the latest resolve took (a ring always has a frame). */
static inline uint32_t wgprof__newest_frame(const wgprof_pool *pool)
{
    return pool->ring ? (pool->next_frame + pool->ring - 1) % pool->ring : 0;
}

/* ---- pool_intern.c ---- */
wgprof_status wgprof__intern_name(wgprof_pool *pool, const char *name, uint32_t *out);
wgprof_status wgprof__pool_site(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch, uint32_t *site);
wgprof_status wgprof__intern_scope_node(wgprof_pool *pool, uint32_t parent, uint32_t name, uint32_t *out);
/* Forgets every interned name, site and scope node (reset). */
void wgprof__forget_interned(wgprof_pool *pool);
void wgprof__free_interned(wgprof_pool *pool);
/* Grows *array (element `size` bytes, capacity *cap) to hold `need` elements: doubling, from
 * `initial`. New elements are zeroed. */
wgprof_status wgprof__reserve(void **array, uint32_t *cap, uint32_t need, size_t size, uint32_t initial);

/* ---- querypool.c ---- */
wgprof_status wgprof__pool_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                            WGPUPassTimestampWrites *writes);
wgprof_status wgprof__pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                      uint64_t dispatch_id);
wgprof_status wgprof__pool_chain_next_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                           uint64_t dispatch_id);
wgprof_status wgprof__pool_chain_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                                  WGPUPassTimestampWrites *writes);
/* Drops the records (and scopes) of the batch not yet resolved: an execute that failed while
 * encoding, or one the full ring has no room for. */
void wgprof__pool_discard_batch(wgprof_pool *pool);
/* How a batch of `records` lays out over the query sets: records a set holds, records and
 * queries it uses in set `i` (0 past its last set). */
uint32_t wgprof__records_per_set(bool chained);
size_t wgprof__records_in_set(size_t records, bool chained, uint32_t i);
uint32_t wgprof__queries_in_set(size_t records, bool chained, uint32_t i);
/* Takes back a resolve whose encoder was never submitted: the frame is free, the batch gone. */
void wgprof__pool_unresolve(wgprof_pool *pool);
/* Whether a resolve now would find a free readback frame (after collecting what is ready). */
bool wgprof__pool_frame_free(const wgprof_pool *pool);
/* The graph's exact CPU times of the batch it resolved last. */
void wgprof__pool_stamp_submit(wgprof_pool *pool, uint64_t encode_ns, uint64_t submit_ns, uint64_t submitted_ns);

/* ---- pool_readback.c ---- */
/* Requests the maps of the resolved batch; it is then in flight. */
wgprof_status wgprof__pool_read_start(wgprof_pool *pool);
/* How far a batch's valid readings reach so far, in submission order; zero before the first
 * (a valid reading is never 0). */
typedef struct wgprof__extent {
    uint64_t first_begin;
    uint64_t last_end;
} wgprof__extent;

/* Takes the readings (begin, end pairs `stride` ticks apart: 2 for pairs, 1 for a chain) of
 * records [first, first + count) from a mapped readback: validates them, counts the invalid,
 * clamps each begin to the extent's last end so far, widens the extent and moves the epoch. */
void wgprof__take_readings(wgprof_pool *pool, size_t first, size_t count, const uint64_t *ticks, size_t stride,
                           wgprof__extent *extent);
void wgprof__free_frames(wgprof_pool *pool);

/* A pool with no device and no query set, its host side only, for the pure tests, the fuzzer
 * and bench_host; wgprof_pool_destroy frees it. */
wgprof_pool *wgprof__pool_new_host(void);
/* Appends `count` pending records of `site` (end writes issued, dispatch ids from 1) as one
 * resolved batch read with `period_ns`; *first receives its first record. */
wgprof_status wgprof__pool_host_batch(wgprof_pool *pool, size_t count, uint32_t site, double period_ns, size_t *first);
/* Marks the oldest unread batch read, as collect does after taking its readings. */
void wgprof__pool_host_collected(wgprof_pool *pool);

/* ---- pool_scope.c ---- */
/* Drops scope instances that begin at or after record `count`, and closes at `count` those
 * that end after it. */
void wgprof__scopes_truncate(wgprof_pool *pool, size_t count);

/* ---- clock.c ---- */
void wgprof__clock_add(wgprof__clock *clock, uint64_t ticks, double period_ns, double lo_ns, double hi_ns);
/* Refits info from the samples in the window. */
void wgprof__clock_fit(wgprof__clock *clock);
/* From a collected batch: its first begin lies after the submit, its last end before the
 * readback was seen complete. */
void wgprof__clock_add_batch(wgprof_pool *pool, const wgprof__batch *batch, const wgprof__extent *extent);
void wgprof__clock_release(wgprof__clock *clock);

#endif
