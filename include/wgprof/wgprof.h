/*
 * wgprof: per-dispatch GPU timing for WebGPU compute work.
 *
 * Three parts, usable together or alone:
 *   - a device context (wgprof_device_*): adapter and device set-up that detects the timestamp
 *     features, requests exactly those that exist, and fails open where they are missing;
 *   - a query pool (wgprof_pool_*): writes a timestamp query around (or after) each timed
 *     dispatch, reads the timestamps back, and keeps one finished record per dispatch, its
 *     ticks converted to nanoseconds once, with the period the implementation reported for
 *     that batch;
 *   - a graph executor (wgprof_graph_*): an ordered list of labelled compute dispatches whose
 *     execute() times each dispatch when profiling is on, and makes exactly the WebGPU calls of
 *     a plain executor when it is off.
 * Summaries (wgprof_summary_*) and report writers (wgprof_report_write) read the pool's records.
 * The WebGPU helpers wgprof uses itself (waits, blocking maps, error scopes) are declared apart,
 * in wgprof/device_util.h.
 *
 * Words. A batch is the dispatches recorded between two resolves, read back together (one
 * profiled execute of a graph). An iteration is one run of the caller's own loop, as reports
 * count them.
 *
 * Continuous work. A pool keeps a ring of readback frames (3 by default): a batch of timed
 * dispatches is read back while later ones run, and collected when ready, so that a serving or
 * frame loop never stalls on a map (wgprof_pool_read_async, wgprof_pool_collect_ready,
 * wgprof_graph_submit). When every frame is in flight the newest batch is dropped and counted.
 *
 * One timeline. GPU timestamps are mapped onto the CPU clock of wgprof_cpu_now_ns() through a
 * fit that small synchronous submissions and every collected batch feed (wgprof_pool_clock), so
 * that CPU spans (encode, submit, wait) and GPU dispatches share one time axis.
 *
 * Defaults. A zeroed descriptor means "every default"; wgprof_pool_settings() and
 * wgprof_graph_settings() give back the values in force. The environment variables that change
 * defaults (WEBGPU_TIMESTAMP_QUERY, WGPROF_STRATEGY, WGPROF_DISABLE_TIMESTAMPS) are read when a
 * device or a graph is created; README.md lists them.
 *
 * Errors. Every fallible call returns a wgprof_status; wgprof_status_str() names it. Details go
 * to the log callback set with wgprof_set_logger() (silent by default). The library never
 * exits, aborts, or prints to stdout.
 *
 * Memory. Every allocation the library makes goes through the allocator set with
 * wgprof_set_allocator() (malloc/free by default). Objects returned through `out` pointers are
 * owned by the caller and freed with the matching *_destroy() function. Strings passed in are
 * copied; strings returned are borrowed from the object that returned them and live as long as
 * it does (or until the call documented to invalidate them).
 *
 * Threading. wgprof_set_allocator() and wgprof_set_logger() must be called before any other
 * wgprof call and not while one runs; the log callback may be called from any thread. A
 * wgprof_device may be shared by any number of threads. A graph, a pool and a summary belong to
 * one thread at a time: two threads may each execute their own graph on one device at once,
 * but must not use the same graph or pool concurrently. Each graph owns its pool, so graphs
 * never share timing state. A readback in flight completes in a callback that the
 * implementation may run on whichever thread polls the device; it touches only its own atomic
 * hand-off, and the pool reads it on its own thread. WebGPU objects passed in keep their own
 * implementation's rules.
 */
#ifndef WGPROF_WGPROF_H
#define WGPROF_WGPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <webgpu/webgpu.h>

#include "wgprof/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WGPROF_BUILDING) && defined(__GNUC__)
#define WGPROF_API __attribute__((visibility("default")))
#else
#define WGPROF_API
#endif

/* ---- status, logging, allocation ------------------------------------------------------- */

typedef enum wgprof_status {
    WGPROF_OK = 0,
    WGPROF_ERR_INVALID_ARGUMENT, /* a NULL where an object is needed, a zero size, a bad enum */
    WGPROF_ERR_OUT_OF_MEMORY,    /* the allocator returned NULL */
    WGPROF_ERR_NO_ADAPTER,       /* no WebGPU adapter matched the request */
    WGPROF_ERR_NO_DEVICE,        /* the adapter refused to create a device */
    WGPROF_ERR_UNAVAILABLE,      /* timestamp queries (or the asked-for strategy) are missing */
    WGPROF_ERR_CAPACITY,         /* a fixed-capacity pool cannot hold the request */
    WGPROF_ERR_MAP_FAILED,       /* mapping the readback buffer failed */
    WGPROF_ERR_DEVICE_LOST,      /* the device was lost or destroyed */
    WGPROF_ERR_WEBGPU,           /* the implementation reported an error (see the log) */
    WGPROF_ERR_TIMEOUT,          /* submitted work did not finish in time */
    WGPROF_ERR_STATE,            /* a call out of order, e.g. collect before resolve */
    WGPROF_ERR_IO,               /* writing a report failed */
    WGPROF_ERR_UNSUPPORTED       /* the WebGPU implementation has no way to do what was asked */
} wgprof_status;

/* Returns a static string naming `status`, e.g. "WGPROF_ERR_CAPACITY: ...". Never NULL. */
WGPROF_API const char *wgprof_status_str(wgprof_status status);

typedef enum wgprof_log_level {
    WGPROF_LOG_ERROR = 0,
    WGPROF_LOG_WARN = 1,
    WGPROF_LOG_INFO = 2,
    WGPROF_LOG_DEBUG = 3
} wgprof_log_level;

/* `message` is valid only during the call. */
typedef void (*wgprof_log_fn)(wgprof_log_level level, const char *message, void *user_data);

/* Sets the log callback (NULL: silent, the default). */
WGPROF_API void wgprof_set_logger(wgprof_log_fn fn, void *user_data);

typedef struct wgprof_allocator {
    void *(*alloc)(size_t size, void *user_data); /* may return NULL; wgprof then fails cleanly */
    void (*free)(void *ptr, void *user_data);     /* called with pointers from alloc only */
    void *user_data;
} wgprof_allocator;

/* Sets the allocator; NULL (or NULL members) restores malloc/free. */
WGPROF_API void wgprof_set_allocator(const wgprof_allocator *allocator);

/* "MAJOR.MINOR.PATCH" of the library actually loaded (WGPROF_VERSION_STRING is the header's). */
WGPROF_API const char *wgprof_version(void);

/* The CPU clock of wgprof's timelines (CLOCK_MONOTONIC), in ns: stamp your own events with it
 * to place them beside wgprof's. Thread-safe. */
WGPROF_API uint64_t wgprof_cpu_now_ns(void);

/* ---- device context --------------------------------------------------------------------- */

typedef struct wgprof_device wgprof_device;

typedef struct wgprof_device_desc {
    WGPUBackendType backend;          /* 0: the implementation's choice */
    WGPUPowerPreference power;        /* 0: undefined */
    bool disable_timestamps;          /* request no timestamp feature (also WGPROF_DISABLE_TIMESTAMPS=1) */
    bool core_timestamps_only;        /* request TimestampQuery alone, without the implementation's
                                         in-pass and in-encoder extensions: what core WebGPU (a
                                         browser) offers */
    double wait_timeout_s;            /* longest wait for submitted work or a callback; 0: 60 s.
                                         A wait that runs past it returns WGPROF_ERR_TIMEOUT */
} wgprof_device_desc;

typedef struct wgprof_device_info {
    char adapter[256];      /* e.g. "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)" */
    char vendor[128];
    char architecture[128];
    char driver[256];       /* the adapter's description: driver name and version */
    const char *implementation; /* the WebGPU implementation in the process, e.g. "wgpu-native
                                   29.0.0.0", "Dawn" (static string) */
    const char *backend;    /* "vulkan", "metal", ... (static string) */
    const char *adapter_type; /* "discrete", "integrated", "cpu", "unknown" (static string) */
    uint32_t vendor_id;
    uint32_t device_id;
    bool timestamp_query;         /* the adapter has TimestampQuery */
    bool timestamp_inside_passes; /* in-pass WriteTimestamp exists and was enabled */
    bool timestamp_inside_encoders;
    bool profiling_available;     /* the device was created with TimestampQuery */
    char unavailable_reason[160]; /* why profiling_available is false; "" otherwise */
    double timestamp_period_ns;   /* ns per tick, as read at creation */
    bool period_from_implementation; /* true: the implementation states it (wgpu-native's period
                                        query; Dawn resolves timestamps in ns); false: 1.0 assumed */
    /* Limits of the device as created: wgprof_device_create requests the adapter's own for
     * buffer sizes and compute workgroups, where WebGPU's defaults are lower. */
    uint32_t max_workgroups_per_dimension;
    uint32_t max_bind_groups;
    uint64_t max_buffer_size;
    uint64_t max_storage_buffer_binding_size;
} wgprof_device_info;

/* Creates an instance, an adapter and a device. `desc` may be NULL (all defaults).
 * On WGPROF_OK, *out is a device the caller frees with wgprof_device_destroy(). A missing
 * timestamp feature is not an error: the device is created, info->profiling_available is false
 * and a warning is logged once. */
WGPROF_API wgprof_status wgprof_device_create(const wgprof_device_desc *desc, wgprof_device **out);

/* Wraps a device the caller already has, for engines that make their own (the pool then works
 * on it). `adapter` (may be NULL) is read for the adapter's name and driver only. wgprof adds a
 * reference to each handle and drops it at destroy; the caller keeps its own. Timestamp support is read from the device's enabled features, so the
 * caller must have requested TimestampQuery (and, for the inside strategy, wgpu-native's
 * TimestampQueryInsidePasses) when creating it. Device loss is seen through failed maps,
 * since the lost callback belongs to whoever created the device. A device's toggles are its
 * creator's: on Dawn, timestamp_quantization is on unless the caller disabled it, and every
 * timestamp is rounded down to 65,536 ns; wgprof cannot change that, but finds it from the
 * readings and the reports say it (wgprof_summary.timestamp_quantum_ns). */
WGPROF_API wgprof_status wgprof_device_wrap(WGPUInstance instance, WGPUAdapter adapter, WGPUDevice device,
                                            wgprof_device **out);
WGPROF_API void wgprof_device_destroy(wgprof_device *device);

/* Borrowed WebGPU handles; valid until wgprof_device_destroy(). */
WGPROF_API WGPUInstance wgprof_device_instance(const wgprof_device *device);
WGPROF_API WGPUDevice wgprof_device_webgpu(const wgprof_device *device);
WGPROF_API WGPUQueue wgprof_device_queue(const wgprof_device *device);
/* What the device is and offers for timing; borrowed, valid until wgprof_device_destroy(). */
WGPROF_API const wgprof_device_info *wgprof_device_describe(const wgprof_device *device);
/* Writes `info` as one JSON object (the adapter, its timing features and the period) followed
 * by a newline: what `wgprof info --json` prints. */
WGPROF_API wgprof_status wgprof_device_info_write_json(const wgprof_device_info *info, FILE *out);

/* The period (ns per tick) the implementation reports now; 1.0 where it reports none. */
WGPROF_API double wgprof_device_timestamp_period(const wgprof_device *device);

/* True once the device was lost or destroyed. Thread-safe. */
WGPROF_API bool wgprof_device_is_lost(const wgprof_device *device);

/* ---- query pool ------------------------------------------------------------------------- */

typedef struct wgprof_pool wgprof_pool;

typedef struct wgprof_pool_desc {
    uint32_t initial_capacity; /* dispatches to prepare query sets for; 0: 256 */
    uint32_t max_dispatches;   /* 0: grow without limit; else a fixed capacity: more records
                                  than this returns WGPROF_ERR_CAPACITY and records nothing */
    uint32_t readback_frames;  /* batches that may be in flight at once; 0: 3 */
} wgprof_pool_desc;

/* The pool's descriptor with every default filled in. */
WGPROF_API wgprof_pool_desc wgprof_pool_settings(const wgprof_pool *pool);

/* What one timed dispatch is. Strings are copied. */
typedef struct wgprof_dispatch_desc {
    const char *kernel;          /* label; NULL: "unnamed" */
    uint64_t dispatch_id;        /* caller's id; 0: the record index */
    uint32_t workgroups[3];      /* workgroup counts; 0 components count as 1, but all three 0
                                    means unknown (an indirect dispatch): reports show none */
    uint32_t workgroup_size[3];  /* the shader's @workgroup_size; 0 components count as 1, but
                                    all three 0 means unknown: reports then show no local or
                                    global size ("?", null, an empty cell), never a guess */
    double bytes;                /* bytes moved, for GB/s; 0: unknown */
    double flops;                /* floating-point operations, for GFLOP/s; 0: unknown */
} wgprof_dispatch_desc;

typedef enum wgprof_invalid_reason {
    WGPROF_VALID = 0,
    WGPROF_INVALID_PENDING,       /* not collected yet */
    WGPROF_INVALID_NOT_WRITTEN,   /* the GPU wrote neither timestamp (both read 0), or the end
                                     write was never issued */
    WGPROF_INVALID_ZERO,          /* one timestamp read 0: resolved too soon or not written */
    WGPROF_INVALID_BACKWARDS,     /* end before begin (counter wrapped or went backwards) */
    WGPROF_INVALID_MAP_FAILED,    /* the readback map failed */
    WGPROF_INVALID_DEVICE_LOST,   /* the device was lost before the results were read */
    WGPROF_INVALID_REASON_COUNT
} wgprof_invalid_reason;

/* A short lower-case name ("not-written", ...); "valid" for WGPROF_VALID. */
WGPROF_API const char *wgprof_invalid_reason_str(wgprof_invalid_reason reason);

/* One timed dispatch, as read back. Times are in ns, converted from ticks once, when its batch
 * was collected; start_ns and end_ns count from the first valid begin timestamp the pool holds
 * (its epoch), so that they keep full precision. */
typedef struct wgprof_record {
    uint32_t index;              /* position in the pool, from 0 */
    uint32_t batch;              /* its batch, from 0 */
    uint64_t dispatch_id;
    const char *kernel;          /* borrowed from the pool; valid until reset or destroy */
    uint32_t kernel_id;          /* the pool's index of `kernel`: equal names, equal ids, from 0
                                    (wgprof_kernel_stats.id); valid until reset */
    int32_t scope;               /* the innermost scope instance it belongs to
                                    (wgprof_pool_scope()), -1 for none */
    uint32_t workgroups[3];
    uint32_t workgroup_size[3];
    uint64_t global_size[3];     /* threads: workgroups * workgroup_size; 0,0,0 with a
                                    workgroup_size of 0,0,0: unknown */
    uint64_t begin_ticks;        /* raw timestamps as resolved, 0 before collect */
    uint64_t end_ticks;
    double period_ns;            /* ns per tick its batch was converted with, 0 before collect */
    double start_ns;
    double end_ns;
    double duration_ns;          /* (end - begin) * period */
    double exclusive_ns;         /* duration with begin clamped to the largest earlier end of
                                    the same iteration: excludes overlap with earlier passes */
    double bytes;
    double flops;
    double cpu_start_ns;         /* start and end on the CPU clock (wgprof_cpu_now_ns) through the
                                    pool's current clock fit; NAN while there is none, or when
                                    invalid */
    double cpu_end_ns;
    bool valid;
    wgprof_invalid_reason invalid_reason;
} wgprof_record;

/* Creates a pool on `device`, which must outlive it. `desc` may be NULL. Fails with
 * WGPROF_ERR_UNAVAILABLE where the device has no timestamp queries. */
WGPROF_API wgprof_status wgprof_pool_create(wgprof_device *device, const wgprof_pool_desc *desc,
                                            wgprof_pool **out);
WGPROF_API void wgprof_pool_destroy(wgprof_pool *pool);

/* Checks, before recording anything, that `count` more dispatches fit; with a fixed capacity
 * returns WGPROF_ERR_CAPACITY (naming the request and the capacity in the log) when not, and
 * otherwise prepares the query sets they need. Callers that know how many dispatches they will
 * time call this first so that an overflow records nothing. */
WGPROF_API wgprof_status wgprof_pool_reserve(wgprof_pool *pool, uint32_t count);

/* Pass strategy. Adds a record for `dispatch` and fills `*writes` with the timestampWrites of
 * the compute pass the caller is about to begin; that pass must hold this dispatch only. The
 * filled struct must outlive wgpuCommandEncoderBeginComputePass. */
WGPROF_API wgprof_status wgprof_pool_pass_writes(wgprof_pool *pool,
                                                 const wgprof_dispatch_desc *dispatch,
                                                 WGPUPassTimestampWrites *writes);

/* Inside strategy (the device must have in-pass timestamps): writes the begin timestamp into
 * `pass` and adds a record; wgprof_pool_end() writes the end timestamp of the open record.
 * Call them right before and after the dispatch. A record whose end was never written (resolve
 * came first) reads not-written. */
WGPROF_API wgprof_status wgprof_pool_begin(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                           const wgprof_dispatch_desc *dispatch);
WGPROF_API wgprof_status wgprof_pool_end(wgprof_pool *pool, WGPUComputePassEncoder pass);

/* Chain strategy: one timestamp per dispatch instead of two. With in-pass timestamps (the
 * device must have them), wgprof_pool_chain_begin() writes the timestamp the first dispatch
 * begins at;
 * wgprof_pool_chain_next(), right after each dispatch, adds its record and writes its end,
 * which is also where the next dispatch begins. A batch holds either pairs (pass, inside) or
 * one chain, begun before its first dispatch; the chain's dispatches must follow one another on
 * the queue, in any passes of one encoder. A duration then includes what ran between the
 * previous dispatch and this one (a pass change, a barrier), and the durations add up to the
 * GPU time of the whole chain. */
WGPROF_API wgprof_status wgprof_pool_chain_begin(wgprof_pool *pool, WGPUComputePassEncoder pass);
WGPROF_API wgprof_status wgprof_pool_chain_next(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                                const wgprof_dispatch_desc *dispatch);
/* The chain with core WebGPU only, for a pass per dispatch: adds a record for `dispatch` and
 * fills `*writes` with the timestampWrites of the pass about to begin, which must hold this
 * dispatch only. Each pass writes its end, where the next dispatch begins; the first of a batch
 * (and the first of every 4,095) also writes its beginning. Needs no chain_begin. The filled
 * struct must outlive wgpuCommandEncoderBeginComputePass. */
WGPROF_API wgprof_status wgprof_pool_chain_pass_writes(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch,
                                                       WGPUPassTimestampWrites *writes);

/* ---- sites, and a chain whose timestamps the caller places ---------------------------- */

/* A dispatch description interned in a pool once, for a caller that times the same dispatches
 * again and again (an interceptor of an engine's calls): the calls that take a site record
 * without hashing or copying a description. Plain data, copied freely. A site is valid in the
 * pool that interned it until wgprof_pool_reset() or wgprof_pool_destroy(); the calls that take
 * one return WGPROF_ERR_INVALID_ARGUMENT, and record nothing, for a site of another pool, one
 * interned before a reset, or a zeroed one. */
typedef struct wgprof_site {
    uint32_t id;  /* the pool's index of the description, from 0 */
    uint32_t tag; /* the pool and reset it belongs to; never 0 in a site the pool gave */
} wgprof_site;

/* Interns `dispatch` (its kernel, sizes, bytes and flops; not its dispatch_id) in the pool:
 * equal descriptions give the same site. Costs a hash of the description; a new one also
 * copies its kernel name (allocations, which can fail: WGPROF_ERR_OUT_OF_MEMORY, *out
 * untouched). Records nothing. WGPROF_ERR_STATE on a pool that records nothing (a merge). */
WGPROF_API wgprof_status wgprof_pool_site(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch, wgprof_site *out);

/* Says where the kernel name `kernel` came from, for the reports: a short phrase such as
 * "pipeline label" or "SPIR-V entry point" (copied; NULL: no longer said). A recorder whose
 * names come from several places (a Vulkan layer: debug names, else the shader's code) says it
 * per kernel; the JSON report gives it as each kernel's "name_source" and the table's header
 * counts the kernels of each. The name is made known to the pool if it was not (records nothing).
 * Kept until reset; merges keep it. WGPROF_ERR_INVALID_ARGUMENT for a NULL pool or kernel,
 * WGPROF_ERR_STATE on a pool that records nothing, WGPROF_ERR_OUT_OF_MEMORY. */
WGPROF_API wgprof_status wgprof_pool_kernel_source(wgprof_pool *pool, const char *kernel, const char *source);

/* wgprof_pool_begin() for an interned site; `dispatch_id` as wgprof_dispatch_desc's.
 * wgprof_pool_end() writes its end. */
WGPROF_API wgprof_status wgprof_pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, wgprof_site site,
                                                uint64_t dispatch_id);

/* The end a record of a placed chain owes (below): what wgprof_pool_chain_add() gives back and
 * the calls that write an end take. Meaningful to the pool that gave it, for that end only. */
typedef uint32_t wgprof_chain_end;

/* A chain whose timestamps the caller places: the chain strategy (one timestamp ends a
 * dispatch and begins the next) for a caller that cannot know, at a pass's beginning, how many
 * dispatches the pass will hold, or that would write an end at the beginning of a later pass,
 * where a timestamp costs least (wgprof record does both). Needs in-pass timestamps
 * (WGPROF_ERR_UNAVAILABLE without). One chain per batch; the calls, in order:
 *   1. The start, once, before the batch's first record: wgprof_pool_chain_start_writes()
 *      fills *writes so that the pass about to begin writes it at its beginning (its end writes
 *      nothing); or wgprof_pool_chain_begin() writes it inside a pass already begun.
 *   2. wgprof_pool_chain_add(), before the work it times (a dispatch, or any span of the
 *      queue's work timed as one record), adds its record; *end receives the end it owes.
 *      The record begins at the chain's previous timestamp (the start, or the previous end),
 *      so its time includes whatever ran between the two: a pass boundary, a copy.
 *   3. Its end, after that work and before the next record's work, exactly once, either
 *      - inside a pass: wgprof_pool_chain_end_in_pass(), or
 *      - at the beginning of the next pass: wgprof_pool_chain_end_writes() fills *writes for
 *        the pass about to begin (its beginning writes the end, its end writes nothing), then,
 *        once that pass has begun and before anything else is encoded in it,
 *        wgprof_pool_chain_carry() with the pass. The end is owed until the carry.
 *   Then 2 again, or wgprof_pool_resolve() (an end still owed then reads not-written).
 * The chain's timestamps run in the order of these calls: its passes are encoded in that order,
 * in encoders submitted in that order, the resolve's last.
 *
 * One end is owed at a time: wgprof_pool_chain_add(), wgprof_pool_chain_next() and
 * wgprof_pool_chain_pass_writes() return WGPROF_ERR_STATE while one is, as the add does before
 * the chain's start and the start does once the batch holds records (or pairs). The carry: a
 * query set holds its start and 4,095 ends; the end that fills one must also be written as the
 * start of the next set's chain, a second write that a pass's beginning has no room for.
 * end_in_pass writes both; after end_writes, the carry writes the second in the pass (for the
 * other ends it writes nothing and only settles the end, so that it is always called).
 *
 * Ownership: the query set that *writes points at is the pool's, borrowed, valid until
 * wgprof_pool_destroy(); the filled struct must outlive wgpuCommandEncoderBeginComputePass.
 * Sites and ends are plain values, and these are pool calls under the pool's threading rule
 * (one thread at a time, above). Cost: a call by site hashes nothing and copies no string;
 * the add grows the pool's records and query sets as wgprof_pool_reserve() does (it may
 * allocate: WGPROF_ERR_OUT_OF_MEMORY, or WGPROF_ERR_CAPACITY with a fixed capacity); the start,
 * the end calls and the carry never allocate.
 *
 * Errors: NULL arguments, a site that is not the pool's, an `end` that is not the one owed:
 * WGPROF_ERR_INVALID_ARGUMENT. A call that returns an error writes nothing into the pass or
 * *writes or *end, records nothing, and leaves the owed end as it was. */
WGPROF_API wgprof_status wgprof_pool_chain_start_writes(wgprof_pool *pool, WGPUPassTimestampWrites *writes);
/* Step 2, for an interned site; `dispatch_id` as wgprof_dispatch_desc's. */
WGPROF_API wgprof_status wgprof_pool_chain_add(wgprof_pool *pool, wgprof_site site, uint64_t dispatch_id,
                                               wgprof_chain_end *end);
WGPROF_API wgprof_status wgprof_pool_chain_end_in_pass(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                                       wgprof_chain_end end);
WGPROF_API wgprof_status wgprof_pool_chain_end_writes(const wgprof_pool *pool, wgprof_chain_end end,
                                                      WGPUPassTimestampWrites *writes);
WGPROF_API wgprof_status wgprof_pool_chain_carry(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                                 wgprof_chain_end end);

/* Encodes the resolve of every query written since the last resolve, and the copy into a free
 * readback frame, into `encoder`; the dispatches recorded so far become a batch. Call once
 * after the last timed pass has ended, on the encoder that is submitted last (or alone).
 *
 * The cycle of a batch: record, resolve, submit, then wgprof_pool_read_async() or
 * wgprof_pool_collect(). Between resolve and one of those two, recording and another resolve
 * return WGPROF_ERR_STATE and change nothing: the resolved batch is kept and can still be
 * submitted and read. When
 * every frame is in flight, the batch is dropped instead: its records are discarded and
 * counted (wgprof_pool_dropped), nothing is encoded, and WGPROF_OK is returned: profiling
 * never stalls the caller. */
WGPROF_API wgprof_status wgprof_pool_resolve(wgprof_pool *pool, WGPUCommandEncoder encoder);

/* Forgets the batch being recorded, as if its dispatches had never been timed: its records and
 * the scope instances begun in it go (one still open stays open, and covers what is recorded
 * until its end); earlier batches, resolved or collected, stay. For work
 * that is encoded and then abandoned (an encoder or command buffer released unsubmitted), whose
 * timestamps the GPU never writes. WGPROF_ERR_STATE between resolve and read (nothing to
 * forget: the resolved batch is kept). */
WGPROF_API wgprof_status wgprof_pool_discard(wgprof_pool *pool);

/* After the caller submitted the resolving encoder: blocks until that batch and every earlier
 * one in flight are read back (a resolved batch whose read was not started is started), and
 * turns their timestamps into records: ticks to ns with the period the implementation reports
 * now, validity, overlap clamped. On a failed map or a lost device the records are kept,
 * marked invalid with the reason, and the status says what happened. A wait past the device's
 * wait_timeout_s returns WGPROF_ERR_TIMEOUT and leaves the batches in flight, their records
 * pending: a later collect takes them once the GPU is done. Nothing in flight: returns
 * at once (WGPROF_ERR_STATE when no batch was resolved since the pool was created or reset). */
WGPROF_API wgprof_status wgprof_pool_collect(wgprof_pool *pool);

/* After the caller submitted the resolving encoder: starts reading that batch back and returns
 * at once; the batch is in flight until wgprof_pool_collect_ready() or wgprof_pool_collect()
 * takes it, and the next batch may be recorded now. Called after each submit, it keeps up to
 * readback_frames batches in flight at once (wgprof_pool_in_flight); a batch resolved while all
 * of them are is dropped and counted, never waited for. Does nothing after a dropped batch. */
WGPROF_API wgprof_status wgprof_pool_read_async(wgprof_pool *pool);
/* Takes, oldest first and without blocking, every batch in flight whose readback is complete;
 * *collected (may be NULL) receives how many. Returns the first failure among them. */
WGPROF_API wgprof_status wgprof_pool_collect_ready(wgprof_pool *pool, uint32_t *collected);
/* Batches resolved and not yet read. */
WGPROF_API uint32_t wgprof_pool_in_flight(const wgprof_pool *pool);
/* Batches dropped because every readback frame was in flight; *dispatches (may be NULL)
 * receives how many timed dispatches they held. */
WGPROF_API uint64_t wgprof_pool_dropped(const wgprof_pool *pool, uint64_t *dispatches);

/* A new pool holding copies of the collected records of `pools`, all of one device: one report
 * over several pools (the graphs of a program, or encoders timed side by side). Its batches come
 * in the order their GPU work began, its times on the first pool's origin, with the first
 * pool's clock fit; scopes are copied where they lie within one batch; dropped batches are
 * summed. It records nothing itself (it has no device and no query sets): reserve, the recording
 * calls, resolve and calibrate return WGPROF_ERR_STATE on it, discard, collect and read_async have
 * nothing to do; summarise it, report it, destroy it with wgprof_pool_destroy(). Records keep
 * their dispatch ids, sizes, validity and raw ticks. Only collected batches are copied; the pools
 * are only read, and stay as they are. WGPROF_ERR_INVALID_ARGUMENT for no pools, a NULL one, or
 * pools of different devices. External pools (wgprof_pool_create_external) have no device and
 * merge with each other: pools whose ticks count on one counter. */
WGPROF_API wgprof_status wgprof_pool_merge(const wgprof_pool *const *pools, size_t count, wgprof_pool **out);

/* Drops all records, batches, scopes, names (borrowed kernel strings become invalid) and the
 * count of dropped batches; keeps the query sets, the readback frames and the clock fit. Batches
 * still in flight are abandoned: their frames come back once their readback completes. */
WGPROF_API void wgprof_pool_reset(wgprof_pool *pool);

/* Records: every timed dispatch since the last reset, pending, valid or invalid. */
WGPROF_API size_t wgprof_pool_count(const wgprof_pool *pool);
WGPROF_API size_t wgprof_pool_invalid_count(const wgprof_pool *pool);
/* Batches resolved: read back, in flight, or resolved and not yet started. */
WGPROF_API uint32_t wgprof_pool_batch_count(const wgprof_pool *pool);
/* Batches read back (collected): always the oldest ones, [0, this). */
WGPROF_API uint32_t wgprof_pool_collected_batches(const wgprof_pool *pool);
/* Capacity in dispatches: the fixed capacity, or the query sets prepared so far when growing. */
WGPROF_API size_t wgprof_pool_capacity(const wgprof_pool *pool);

/* Fills `*out` with record `index` (< wgprof_pool_count()). */
WGPROF_API wgprof_status wgprof_pool_record(const wgprof_pool *pool, size_t index,
                                            wgprof_record *out);

/* A batch and its CPU spans. Times are on the CPU clock (wgprof_cpu_now_ns); 0 where unknown. */
typedef struct wgprof_batch_info {
    uint32_t index;
    uint32_t first_record;
    uint32_t records;
    bool collected;
    bool waited;               /* the CPU blocked until it was read (collect, flush) */
    bool chained;
    double period_ns;          /* ns per tick it was converted with; 0 before collect */
    uint64_t cpu_encode_ns;    /* encoding began: the graph's stamp, else the first record */
    uint64_t cpu_submit_ns;    /* the submit was called: the graph's stamp, else the resolve
                                  (which precedes the submit) */
    uint64_t cpu_submitted_ns; /* the submit returned: the graph's stamp, else the read started */
    uint64_t cpu_ready_ns;     /* the readback was seen complete */
} wgprof_batch_info;

/* Fills `*out` with batch `index` (< wgprof_pool_batch_count()). */
WGPROF_API wgprof_status wgprof_pool_batch(const wgprof_pool *pool, uint32_t index, wgprof_batch_info *out);

/* The fit of the GPU clock to the CPU clock: cpu_ns = ref_cpu_ns + (gpu_ns - ref_gpu_ns) *
 * (1 + drift_ppm / 1e6), where gpu_ns is a GPU time in ns (on the pool's own origin, which
 * reset keeps). Each sample bounds when the GPU wrote a timestamp (after its submit was
 * called, before its completion was seen); the offset lies where all the bounds meet. */
typedef struct wgprof_clock_info {
    bool calibrated;       /* bounds on both sides exist: the fields below mean something */
    bool consistent;       /* the bounds meet; false: the clocks jumped, or drift more than fitted */
    uint32_t samples;      /* bounds in the fit */
    uint64_t ref_ticks;    /* the raw timestamp of the reference sample */
    double ref_gpu_ns;     /* the same, in ns on the pool's origin */
    double ref_cpu_ns;
    double drift_ppm;      /* fitted once calibration samples span a second; 0 before */
    double uncertainty_ns; /* the offset is known to within +- this: half the width of the
                              interval the bounds leave (when inconsistent: half the overlap
                              they lack) */
} wgprof_clock_info;

/* Fits the clocks with `samples` small synchronous submissions (0: 8), each writing one
 * timestamp; blocks for as long (some tens of us each on a discrete GPU). Collected batches
 * refine the fit on their own; calling this again re-estimates it. */
WGPROF_API wgprof_status wgprof_pool_calibrate(wgprof_pool *pool, uint32_t samples);
/* The current fit; borrowed from the pool. */
WGPROF_API const wgprof_clock_info *wgprof_pool_clock(const wgprof_pool *pool);

/* ---- scopes ------------------------------------------------------------------------------ */

/* Named groups of dispatches (a layer, an attention block), nestable: the records added between
 * a begin and its end belong to the scope. A scope's time is the GPU span from its first
 * dispatch's begin to its last dispatch's end. `name` is copied. */
WGPROF_API wgprof_status wgprof_pool_scope_begin(wgprof_pool *pool, const char *name);
/* Closes the innermost open scope; WGPROF_ERR_STATE when none is open. */
WGPROF_API wgprof_status wgprof_pool_scope_end(wgprof_pool *pool);

/* One instance of a scope, as read back. */
typedef struct wgprof_scope_record {
    const char *name;        /* borrowed from the pool */
    uint32_t node;           /* the same for every instance of the same name under the same parents */
    int32_t parent_node;     /* the node of the enclosing scope; -1 at the top */
    uint32_t depth;          /* 0 at the top */
    uint32_t first_record;   /* its records: [first_record, end_record) */
    uint32_t end_record;
    uint32_t batch;          /* of its first record */
    bool open;               /* not ended yet */
    bool valid;              /* it holds at least one valid record; the times below need one */
    uint32_t valid_records;
    uint32_t invalid_records;
    double start_ns;         /* on the pool's epoch, like the records' */
    double end_ns;
    double duration_ns;      /* end - start: the dispatches and the gaps between them */
    double dispatch_ns;      /* the sum of its valid dispatches' durations */
    double cpu_start_ns;     /* on the CPU clock; NAN without a clock fit */
    double cpu_end_ns;
} wgprof_scope_record;

WGPROF_API size_t wgprof_pool_scope_count(const wgprof_pool *pool);
/* Fills `*out` with scope instance `index` (< wgprof_pool_scope_count()), in begin order. */
WGPROF_API wgprof_status wgprof_pool_scope(const wgprof_pool *pool, size_t index, wgprof_scope_record *out);

/* ---- graph executor --------------------------------------------------------------------- */

typedef struct wgprof_graph wgprof_graph;

typedef enum wgprof_layout {
    WGPROF_LAYOUT_PASS_PER_DISPATCH = 0, /* the default: one pass per dispatch; pass ends act as
                                            barriers */
    WGPROF_LAYOUT_SINGLE_PASS            /* all dispatches in one pass, as batching engines do */
} wgprof_layout;

typedef enum wgprof_strategy {
    WGPROF_STRATEGY_DEFAULT = 0, /* WGPROF_STRATEGY from the environment, else auto */
    WGPROF_STRATEGY_AUTO,        /* the cheapest the device offers: chain */
    WGPROF_STRATEGY_PASS,        /* each dispatch its own pass with timestampWrites */
    WGPROF_STRATEGY_INSIDE,      /* WriteTimestamp before and after each dispatch, layout unchanged */
    WGPROF_STRATEGY_CHAIN        /* one timestamp per dispatch (and one before the first): half
                                    those of pass or inside. A pass per dispatch writes its end;
                                    in one pass, WriteTimestamp follows each dispatch (without
                                    in-pass timestamps the pass is split). A dispatch's time runs
                                    from the previous one's end */
} wgprof_strategy;

typedef enum wgprof_profiling {
    WGPROF_PROFILING_DEFAULT = 0, /* on when WEBGPU_TIMESTAMP_QUERY is set and not "0" (how an
                                     engine turns profiling on without a rebuild) */
    WGPROF_PROFILING_ON,
    WGPROF_PROFILING_OFF
} wgprof_profiling;

/* "auto", "pass", "inside", "chain" (static strings). */
WGPROF_API const char *wgprof_strategy_str(wgprof_strategy strategy);
/* The strategy one of those names (or "" for auto) stands for; false for any other text. */
WGPROF_API bool wgprof_strategy_from_str(const char *name, wgprof_strategy *out);

typedef struct wgprof_graph_desc {
    wgprof_layout layout;
    wgprof_profiling profiling;
    wgprof_strategy strategy;
    wgprof_pool_desc pool;      /* for the graph's own pool */
    uint32_t sample_every;      /* profile one execute (or submit) in this many; the others run
                                   unprofiled, with a plain executor's calls. 0 or 1: every one */
    uint32_t calibration_samples; /* synchronous submissions fitting the CPU/GPU clocks at the
                                   first profiled execute (and again every 10 s of blocking
                                   executes); 0: 8, as wgprof_pool_calibrate() */
    bool no_calibration;        /* none: the fit then rests on the executes' own bounds */
} wgprof_graph_desc;

typedef struct wgprof_node_desc {
    WGPUComputePipeline pipeline;    /* the graph adds a reference */
    uint32_t bind_group_count;       /* groups 0 .. count-1 */
    const WGPUBindGroup *bind_groups; /* each gets a reference; the array is copied */
    uint32_t workgroups[3];          /* 0 components count as 1 */
    uint32_t workgroup_size[3];      /* recorded for reports only; as wgprof_dispatch_desc's */
    const char *kernel;              /* label, copied; NULL: "unnamed" */
    uint64_t dispatch_id;            /* 0: the node index */
    double bytes;                    /* optional, for efficiency figures */
    double flops;
} wgprof_node_desc;

/* Creates an empty graph on `device` (which must outlive it). `desc` may be NULL. Profiling on
 * a device without timestamp queries is not an error: the graph runs unprofiled and says so. */
WGPROF_API wgprof_status wgprof_graph_create(wgprof_device *device, const wgprof_graph_desc *desc,
                                             wgprof_graph **out);
/* The graph's descriptor with every default filled in and the environment applied: profiling
 * ON or OFF as it runs (OFF also where the device cannot time), the strategy it uses (never
 * DEFAULT or AUTO while profiling; DEFAULT when not), layout, sample_every,
 * calibration_samples and its pool's settings. */
WGPROF_API wgprof_graph_desc wgprof_graph_settings(const wgprof_graph *graph);
WGPROF_API void wgprof_graph_destroy(wgprof_graph *graph);

/* Appends a dispatch; `*index` (may be NULL) receives its position. WGPROF_ERR_INVALID_ARGUMENT
 * (and a log line) for a node the device's limits rule out: more workgroups in a dimension or
 * more bind groups than it allows. A node that only encoding can find wrong (a bind group that
 * does not fit its pipeline) makes execute and submit return WGPROF_ERR_WEBGPU without
 * submitting anything. */
WGPROF_API wgprof_status wgprof_graph_add(wgprof_graph *graph, const wgprof_node_desc *node,
                                          uint32_t *index);
WGPROF_API uint32_t wgprof_graph_node_count(const wgprof_graph *graph);
/* Fills `*out` with node `index` as the graph holds it; its pointers (pipeline, bind groups,
 * kernel) are borrowed from the graph. For inspecting a graph, or replaying it elsewhere. */
WGPROF_API wgprof_status wgprof_graph_node(const wgprof_graph *graph, uint32_t index, wgprof_node_desc *out);

/* Opens a scope (see wgprof_pool_scope_begin) around the nodes added until the matching end; each
 * profiled execute records it in the graph's pool. Scopes still open when the graph runs close
 * at its end. */
WGPROF_API wgprof_status wgprof_graph_scope_begin(wgprof_graph *graph, const char *name);
WGPROF_API wgprof_status wgprof_graph_scope_end(wgprof_graph *graph);

/* Encodes every dispatch in order, submits, and waits for the GPU. When profiling, each
 * dispatch is bracketed by timestamps and the results are collected into the graph's pool
 * before returning; with a pass per dispatch, a graph of more than a few thousand passes is
 * submitted in parts of about 4,000, at most two in flight (one batch all the same, no duration
 * across two submits), so that the implementation reuses its command buffers instead of holding
 * every pass's at once. Nothing is submitted when the encoding raised a WebGPU error
 * (WGPROF_ERR_WEBGPU) or the device is lost (WGPROF_ERR_DEVICE_LOST, from then on for every
 * call); a wait past the device's wait_timeout_s returns WGPROF_ERR_TIMEOUT (the work may still
 * be running on the GPU). */
WGPROF_API wgprof_status wgprof_graph_execute(wgprof_graph *graph);

/* For loops that run continuously: encodes and submits like execute() and returns without
 * waiting. When profiling, results already read back are collected first, then the batch goes
 * in flight (or, when every readback frame is in flight, the execute runs unprofiled and is
 * counted as dropped). Unprofiled, it makes a plain executor's calls without its wait. */
WGPROF_API wgprof_status wgprof_graph_submit(wgprof_graph *graph);
/* Waits for everything submitted (profiled or not) and collects every batch in flight. */
WGPROF_API wgprof_status wgprof_graph_collect(wgprof_graph *graph);

/* Why profiling is off ("" when on): disabled, or the device lacks the feature. */
WGPROF_API const char *wgprof_graph_profiling_note(const wgprof_graph *graph);

/* The graph's pool, owned by the graph: made by wgprof_graph_create when the graph profiles,
 * NULL when it does not. */
WGPROF_API wgprof_pool *wgprof_graph_pool(wgprof_graph *graph);

/* ---- external recorders ----------------------------------------------------------------- */

/* A pool with no WebGPU device and no query set, for a recorder outside WebGPU (a Vulkan layer
 * with query pools of its own, an engine's own timestamps) that reads its GPU's timestamps
 * itself and hands them over here, a batch at a time. Everything else is every pool's: sites (wgprof_pool_site), scopes,
 * records, batches, summaries, reports, wgprof_pool_merge (with other external pools whose ticks
 * count on the same counter: one device), reset and destroy. The calls that write or read
 * timestamps through WebGPU (the recording calls, resolve, calibrate) return WGPROF_ERR_STATE
 * on it; discard, collect and read_async have nothing to do (every batch arrives collected).
 * The clock fit rests on the batches' CPU stamps alone (cpu_submit_ns, cpu_read_ns).
 * `desc` may be NULL: max_dispatches fixes the capacity as for any pool, initial_capacity is the
 * records prepared for; readback_frames means nothing here. wgprof_pool_capacity() of a growing
 * external pool is 0 (it has no query sets). Destroy it with wgprof_pool_destroy(). One thread
 * at a time, as any pool: a recorder that reads on a thread of its own hands over from there or
 * holds its own lock around the pool's calls. */
WGPROF_API wgprof_status wgprof_pool_create_external(const wgprof_pool_desc *desc, wgprof_pool **out);

/* A scope's begin or end among a batch's records (wgprof_external_batch.scopes): a debug label
 * of a command buffer, say, known only when its readings are. */
typedef struct wgprof_external_scope {
    size_t before;    /* the record it comes before: 0 to the batch's count (count: after its last) */
    const char *name; /* a scope of this name begins (copied); NULL: the innermost open scope ends */
} wgprof_external_scope;

/* One batch of readings, as the recorder read them (vkGetQueryPoolResults, say). Records come in
 * submission order, as a resolve's would. Nothing is kept of the arrays after the call. */
typedef struct wgprof_external_batch {
    wgprof_strategy strategy;     /* how they were timed: CHAIN, count + 1 ticks, record i from
                                     ticks[i] to ticks[i + 1] (each time runs from the previous
                                     record's end); PASS or INSIDE, two ticks a record, begin
                                     then end. The summary and the reports name it */
    size_t count;                 /* records; 0: nothing to add (and no ticks) */
    const wgprof_site *sites;     /* [count]: record i's site, from wgprof_pool_site on this pool */
    const uint64_t *dispatch_ids; /* [count]; NULL: each record's id is the pool's previous one + 1
                                     (its first record's id is 0, as an id of 0 is the record
                                     index; reset starts over) */
    const uint64_t *ticks;        /* as read; [count + 1] for CHAIN, [2 * count] else */
    const bool *available;        /* one a tick; NULL: all. A record with a tick not available
                                     is invalid, not-written, never a number */
    uint32_t valid_bits;          /* the counter's width (Vulkan's timestampValidBits), the same
                                     for every batch of the pool: ticks are masked to it and
                                     continued across its wraps, each one taken as the value
                                     nearest the tick before it (the previous batch's last for a
                                     batch's first), so one wrap between two readings and readings
                                     up to half the counter's range out of order are handled.
                                     0 or 64: the whole word, as read */
    double period_ns;             /* ns per tick (timestampPeriod): > 0 and finite */
    uint64_t cpu_submit_ns;       /* wgprof_cpu_now_ns() before the work was submitted; 0:
                                     unknown. A bound of the clock fit: the batch's first begin
                                     came after it */
    uint64_t cpu_read_ns;         /* wgprof_cpu_now_ns() once the readings were known complete
                                     (a fence or timeline value signalled); 0: unknown. The
                                     other bound: its last end came before it */
    const wgprof_external_scope *scopes; /* [scope_count], `before` never decreasing: scope begins
                                     and ends among the records, made as wgprof_pool_scope_begin
                                     and _end would be between adding the records one at a
                                     time (an end may close a scope opened before the batch; one
                                     left open stays open). NULL with 0: none, each record in the
                                     innermost scope open now */
    size_t scope_count;
} wgprof_external_batch;

/* Appends `batch` to the pool as one collected batch: its records converted as a collected
 * batch's are (ticks to ns once, with its period; validity; overlap clamped), each record in
 * the innermost scope open when it comes (its scopes' begins and ends applied among them). A record's begin_ticks and end_ticks are its ticks masked and
 * continued across wraps (with a width below 64, counted from one wrap above the first
 * reading, so that no earlier reading falls below 0): their difference is its duration in
 * ticks.
 * Errors, each naming what in the log, the pool then unchanged: WGPROF_ERR_STATE for a pool not
 * made by wgprof_pool_create_external; WGPROF_ERR_INVALID_ARGUMENT for a NULL pool or batch, a
 * strategy other than PASS, INSIDE and CHAIN, ticks with a count of 0, NULL sites or ticks
 * with records, a site that is not this pool's, a period that is not > 0 and finite, a
 * valid_bits above 64 or not the pool's earlier batches', scopes in a batch of 0 records or
 * NULL scopes with a scope_count, a scope whose `before` is past the count or before the previous one's, an end with
 * no scope open; WGPROF_ERR_CAPACITY past the fixed capacity or 2^32 - 1 records;
 * WGPROF_ERR_OUT_OF_MEMORY (a scope name may stay known to the pool, with no instance). */
WGPROF_API wgprof_status wgprof_pool_add_external(wgprof_pool *pool, const wgprof_external_batch *batch);

/* ---- summaries -------------------------------------------------------------------------- */

typedef struct wgprof_kernel_stats {
    const char *name;      /* borrowed from the pool */
    uint32_t id;           /* the records' kernel_id */
    uint32_t count;        /* valid records */
    uint32_t invalid;      /* invalid records, excluded from every figure below */
    double total_ns;
    double exclusive_total_ns;
    double mean_ns;
    double min_ns;
    double max_ns;
    double median_ns;
    double p95_ns;         /* nearest-rank 95th percentile */
    double stddev_ns;      /* population standard deviation */
    double share;          /* total_ns over all kernels' total_ns, 0..1 */
    double bytes;          /* sums over valid records; 0 where unknown */
    double flops;
    /* What one valid record moved (computed): the same for every one of them, else 0 (also when
     * unknown). */
    double bytes_per_dispatch;
    double flops_per_dispatch;
    /* Throughput in GB/s (bytes per ns) and GFLOP/s of a typical dispatch, 0 where unknown: a
     * dispatch's bytes (flops) over median_ns when every valid record has the same figure;
     * where they differ, the median of the records' own bytes (flops) over duration, leaving
     * out records without a figure or with a zero duration. One slow dispatch does not move it. */
    double gbps;
    double gflops;
    /* bytes (flops) over total_ns: the rate over the whole run, which slow dispatches pull down. */
    double gbps_total;
    double gflops_total;
} wgprof_kernel_stats;

/* A scope's instances aggregated, per name under the same parents. */
typedef struct wgprof_scope_stats {
    const char *name;      /* borrowed from the pool */
    uint32_t depth;
    int32_t parent;        /* index into wgprof_summary.scopes; -1 at the top */
    uint32_t count;        /* instances holding a valid record */
    uint32_t invalid;      /* instances whose records are all invalid, excluded from the figures */
    uint32_t empty;        /* instances around no timed dispatch (nothing to time: not an error),
                              excluded from the figures too */
    double total_ns;       /* sum of the instances' spans */
    double mean_ns;
    double min_ns;
    double max_ns;
    double dispatch_ns;    /* sum of its dispatches' durations */
    double share;          /* dispatch_ns over the summary's total_ns, 0..1 */
} wgprof_scope_stats;

typedef struct wgprof_summary {
    size_t kernel_count;             /* in order of first appearance, which is the order of ids */
    wgprof_kernel_stats *kernels;
    size_t scope_count;              /* depth first: each scope before its children */
    wgprof_scope_stats *scopes;
    size_t records;
    size_t invalid;
    size_t invalid_by_reason[WGPROF_INVALID_REASON_COUNT];
    double total_ns;                 /* sum of valid durations */
    double exclusive_total_ns;
    uint32_t batches;                /* collected */
    double period_min_ns;            /* the smallest and largest ns per tick the collected */
    double period_max_ns;            /* batches were converted with; 0 when none */
    wgprof_strategy strategy;        /* how the records were timed, as the pool recorded them:
                                        PASS, INSIDE or CHAIN; DEFAULT when no batch was resolved
                                        or the batches used more than one (see strategies) */
    uint32_t strategies;             /* bit (1u << s) for each strategy s among the batches */
    /* The timestamps' resolution, found from the readings themselves: every valid reading (its
     * begin and its end) was a multiple of this many ns, a step coarser than one tick of the
     * period. 0 when the readings use every tick (nothing coarser shows), or when fewer than
     * WGPROF_QUANTUM_MIN_READINGS valid readings are there to tell. Durations and every figure
     * made of them are multiples of it too, so they are exact only to within it. */
    double timestamp_quantum_ns;
    /* timestamp_quantum_ns >= WGPROF_QUANTIZED_NS: the timestamps were rounded in software (on
     * Dawn, the device toggle timestamp_quantization, on by default on devices wgprof did not
     * create), and the reports say "quantized to N ns" beside the figures. Below it, the
     * quantum is the counter's own resolution (tens of ns on some GPUs), and the reports name
     * it as such. */
    bool timestamp_quantized;
} wgprof_summary;

/* Valid readings needed before the summary names a timestamp quantum. k readings of a counter
 * with random low bits are all multiples of 2^b ticks by chance with probability 2^(-2bk) when
 * timed in pairs, 2^(-b(k+1)) in a chain (each end is the next begin): with 32 readings, a
 * quantum twice the true one shows with a chance of at most 2^-33 (about 1e-10). */
#define WGPROF_QUANTUM_MIN_READINGS 32
/* The quantum from which timestamps count as rounded, not as the counter's resolution: GPU
 * counters step in tens of ns (a 32 ns step, a period of 41.7 or 83.3 ns), while rounding done
 * in software is microseconds (Dawn's 65,536 ns; browsers round to 100 us), as long as a
 * short kernel's whole duration, so that its figures are mostly the rounding. 1 us lies
 * between the two by more than an order of magnitude on each side. */
#define WGPROF_QUANTIZED_NS 1000.0

/* Aggregates the pool's records per kernel name. The caller frees *out with
 * wgprof_summary_destroy(); it borrows names from the pool, which must outlive it. The first
 * summary in the process that finds the timestamps quantized (timestamp_quantized) logs a
 * warning naming the likely cause. */
WGPROF_API wgprof_status wgprof_summary_create(const wgprof_pool *pool, wgprof_summary **out);
WGPROF_API void wgprof_summary_destroy(wgprof_summary *summary);

/* ---- reports ---------------------------------------------------------------------------- */

typedef enum wgprof_format {
    WGPROF_FORMAT_TABLE = 0, /* per-dispatch rows then per-kernel summary, µs with 3 decimals */
    WGPROF_FORMAT_TSV,
    WGPROF_FORMAT_JSON,
    WGPROF_FORMAT_CSV,         /* per-dispatch rows */
    WGPROF_FORMAT_CSV_SUMMARY, /* per-kernel rows */
    WGPROF_FORMAT_TRACE,       /* Chrome trace event JSON (Perfetto, chrome://tracing) */
    WGPROF_FORMAT_HTML,        /* one self-contained page: timeline, per-kernel chart, tables of
                                  kernels, efficiency, scopes and every dispatch (paged) */
    WGPROF_FORMAT_COUNT        /* the number of formats, not a format */
} wgprof_format;

/* The format's name: "table", "tsv", "json", "csv", "csv-summary", "trace", "html" (the CLI's
 * option for a report file is "--" and the name); NULL for a value that is not a format. A
 * static string. */
WGPROF_API const char *wgprof_format_name(wgprof_format format);
/* The usual suffix of a file of the format, without the dot: "txt", "tsv", "json", "csv",
 * "summary.csv", "trace.json", "html"; NULL for a value that is not a format. A static string. */
WGPROF_API const char *wgprof_format_suffix(wgprof_format format);
/* The format named `name` (as wgprof_format_name gives it) in *out; WGPROF_ERR_INVALID_ARGUMENT
 * for a name that is none (NULL included), *out then untouched. */
WGPROF_API wgprof_status wgprof_format_from_name(const char *name, wgprof_format *out);

typedef struct wgprof_report_desc {
    const wgprof_device_info *device; /* may be NULL */
    const wgprof_pool *pool;          /* may be NULL: no timings (see unavailable_reason) */
    const wgprof_summary *summary;    /* may be NULL: computed from pool. The strategy the
                                         reports name is the summary's: what the pool recorded */
    uint32_t iterations;              /* the iterations the caller ran, for the header; 0: the
                                         pool's collected batches */
    const char *unavailable_reason;   /* why there are no timings, when pool is NULL */
    bool omit_dispatches;             /* table: summary only */
    double peak_gbps;                 /* > 0: efficiency shown as a share of this bandwidth */
    double peak_gflops;               /* > 0: likewise for arithmetic */
    const char *shader_checks;        /* NULL: not named; else the runtime checks the kernels were
                                         compiled with (wgprof_shader_checks_str), named at the
                                         end of the table's first line and as the JSON's
                                         "shader_checks" */
    const char *partial_reason;       /* NULL: the results are complete. Else they are not (the
                                         program ended before they were final, say) and this says
                                         why: every format marks the report partial with it
                                         (docs/reports.md): JSON "partial": true and
                                         "partial_reason" (complete: "partial": false), a line
                                         under the table's header, a banner on the HTML page,
                                         the columns partial and partial_reason of CSV and TSV,
                                         the trace's otherData and process name. "" counts as
                                         partial, for a reason not known */
} wgprof_report_desc;

/* Writes the report to `out`. Invalid records are shown with their reason, never a number. The
 * period printed is the one the collected batches were converted with (the JSON gives it per
 * batch). */
WGPROF_API wgprof_status wgprof_report_write(const wgprof_report_desc *report, wgprof_format format,
                                             FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* WGPROF_WGPROF_H */
