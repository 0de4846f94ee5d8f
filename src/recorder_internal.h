/*
 * The pool's layout: the GPU-side recorder (query sets, the strategies' recording state, the
 * resolve, the ring of readback frames, the clock calibration's resources) around its results
 * store. Included by the recorder's own files only (recorder*.c); everything else uses
 * recorder.h and store.h.
 */
#ifndef WGPROF_RECORDER_INTERNAL_H
#define WGPROF_RECORDER_INTERNAL_H

#include "clock_fit.h"
#include "device_internal.h"
#include "recorder.h"

/* WebGPU caps a query set at 4096 queries. Pairs take two per dispatch; a chain takes one per
 * dispatch plus the one it starts from. */
enum {
    WGPROF__QUERIES_PER_SET = 4096,
    WGPROF__PAIRS_PER_SET = WGPROF__QUERIES_PER_SET / 2,
    WGPROF__CHAIN_PER_SET = WGPROF__QUERIES_PER_SET - 1
};

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

/* The explicit calibration's one-query set and buffers, created when first needed. */
typedef struct wgprof__calibration {
    WGPUQuerySet set;
    WGPUBuffer resolve, readback;
    uint64_t last_ns;
} wgprof__calibration;

struct wgprof_pool {
    wgprof_device *device; /* NULL for a pool of results only: merged, external, the tests' */
    bool external;         /* wgprof_pool_create_external: the caller hands its readings over */
    wgprof_pool_desc settings;
    wgprof__store *store;

    wgprof__qset *sets;
    uint32_t set_count, set_cap;

    wgprof__frame *frames; /* settings.readback_frames of them */
    uint32_t next_frame;   /* the frame the next resolve takes */
    uint32_t oldest_frame; /* the oldest frame in flight */
    uint32_t in_flight;    /* frames resolved or mapping */

    size_t batch_first;    /* first record of the batch being recorded */
    bool resolved;         /* the newest batch is resolved and not yet read */
    bool open_record;      /* inside strategy: begin written, end not yet */
    bool chain_open;       /* chain strategy: the start timestamp is written */
    bool batch_chained;    /* the batch being recorded is a chain */
    bool chain_end_owed;   /* a placed chain's record added, its end not yet written */
    uint32_t chain_owed;   /* that record's place in the batch: the end it owes */
    uint32_t site_tag;     /* in every wgprof_site interned since creation or the last reset;
                              0 for a pool that records nothing */
    uint8_t batch_strategies; /* its strategies so far: bit (1 << wgprof_strategy) */
    uint64_t batch_cpu_encode_ns;

    wgprof__clock_fit clock;
    wgprof__calibration calibration;

    /* An external pool's counter (recorder_external.c): kept across reset, as the store's
     * origin is, so that times after a reset still continue the same counter. */
    uint32_t external_bits;    /* its width, as the first batch gave it (64: the whole word) */
    bool external_have_last;
    uint64_t external_last;    /* the latest reading, continued across the counter's wraps */
    uint64_t external_next_id; /* for a batch without dispatch ids; 0: the record index */
};

/* ---- recorder_layout.c: how a batch of records lays out over the query sets ---- */
/* Records a set holds; records and queries a batch of `records` uses in set `i` (0 past its
 * last set); sets it uses. */
uint32_t wgprof__records_per_set(bool chained);
size_t wgprof__records_in_set(size_t records, bool chained, uint32_t i);
uint32_t wgprof__queries_in_set(size_t records, bool chained, uint32_t i);
uint32_t wgprof__sets_used(size_t records, bool chained);

/* ---- recorder_frames.c: the readback ring's buffers ---- */
/* The frame the latest resolve took (a ring always has a frame). */
uint32_t wgprof__newest_frame(const wgprof_pool *pool);
/* Readback buffers for sets [0, sets) of `frame`, created where missing. */
wgprof_status wgprof__frame_readbacks(wgprof_pool *pool, wgprof__frame *frame, uint32_t sets);
/* The oldest frame in flight is done with: it is free, and the next one is the oldest. */
void wgprof__release_oldest(wgprof_pool *pool);
void wgprof__free_frames(wgprof_pool *pool);

/* ---- recorder.c ---- */
/* A tag that no pool's sites carry yet (never 0). */
uint32_t wgprof__site_tag_new(void);
/* A pool of `device` (NULL: an external pool, fed by wgprof_pool_add_external), its store and
 * ring made, capacity reserved; *out NULL on failure. */
wgprof_status wgprof__pool_new(wgprof_device *device, const wgprof_pool_desc *desc, wgprof_pool **out);
/* Whether `site` is one that `pool` interned since its last reset. */
bool wgprof__pool_owns_site(const wgprof_pool *pool, wgprof_site site);

/* ---- recorder_readback.c ---- */
/* Adds the clock fit's bounds of collected batch `b`, whose valid readings reach `extent`: its
 * first begin lies after its submit, its last end before it was seen read. */
void wgprof__pool_clock_bounds(wgprof_pool *pool, const wgprof__batch *b, const wgprof__extent *extent);

/* ---- recorder_calibrate.c ---- */
void wgprof__calibration_release(wgprof__calibration *calibration);

#endif
