/*
 * wgprof record's preload library: loaded into an unmodified program (LD_PRELOAD), it stands
 * between the program and its WebGPU implementation. Every wgpu* function of webgpu.h (and
 * wgpu.h) is exported: most are forwarders generated at build time (record_forward.c, from
 * cmake/webgpu_forward.cmake), the rest are the hooks of record_device.c and record_encode.c,
 * which time each compute dispatch with libwgprof's pool (linked in, its symbols hidden).
 *
 * The files, from the bottom: record_load.c finds the implementation and the settings the CLI
 * passed in the environment, and interposes dlopen for programs that load their implementation
 * themselves (wgpu-py); record_map.c maps WebGPU handles to what the hooks know of them;
 * record_output.c writes a session's reports; record_device.c holds the sessions (one per
 * device the program creates); record_encode.c the encoding hooks.
 *
 * The implementation's functions are one table (libwgprof's wgprof__webgpu_procs, filled by
 * name from the implementation's handle, as a Vulkan layer keeps the next layer's functions):
 * the forwarders and hooks call the implementation through it, and it is installed in the copy
 * of libwgprof linked in here before that copy runs (record_load.c), so that libwgprof's own
 * WebGPU calls go straight to the implementation and never reach a hook.
 *
 * Threads: the hooks' state is guarded by one mutex (wgprof_rec_lock).
 */
#ifndef WGPROF_RECORD_LIB_H
#define WGPROF_RECORD_LIB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <threads.h>

#include <wgprof/wgprof.h>

#include "webgpu_procs.h"

#define WGPROF_REC_EXPORT __attribute__((visibility("default")))

/* ---- record_load.c ---- */

/* How the CLI asked for the recording (environment variables WGPROF_RECORD_*). */
typedef struct wgprof_rec_settings {
    char dir[4096];        /* where the results go; "" records nothing */
    bool inside;           /* pairs of in-pass timestamps instead of a chain */
    uint32_t sample_every; /* time one command encoder in N; 1: every one */
    char formats[64];      /* report formats to write at the end besides JSON and the table: "html,trace,csv" */
} wgprof_rec_settings;

/* The implementation's functions, found on first use (every hook and forwarder calls this) and
 * installed in libwgprof then. */
const wgprof__webgpu_procs *wgprof_rec_real(void);
/* True when the implementation is one the hooks were built for: otherwise the program runs
 * unprofiled, every call forwarded (the reason was printed once). */
bool wgprof_rec_active(void);
const wgprof_rec_settings *wgprof_rec_settings_get(void);
void wgprof_rec_missing(const char *name);
/* A line on stderr, prefixed "wgprof record: ". */
void wgprof_rec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void wgprof_rec_lock(void);
void wgprof_rec_unlock(void);
/* Under the lock, taken again: a hook called from inside another hook's call into the
 * implementation (a callback of the program's fired there). Nothing may block then. */
bool wgprof_rec_nested(void);

/* ---- record_map.c: handle -> value, open addressing, no removal of keys in use ---- */

typedef struct wgprof_rec_map {
    const void **keys;
    void **values;
    size_t cap, count;
} wgprof_rec_map;

void *wgprof_rec_map_get(const wgprof_rec_map *map, const void *key);
/* False when out of memory (the value is not stored). */
bool wgprof_rec_map_put(wgprof_rec_map *map, const void *key, void *value);
/* Removes `key` and returns its value (NULL when absent). */
void *wgprof_rec_map_take(wgprof_rec_map *map, const void *key);
/* Calls fn for every value. */
void wgprof_rec_map_each(const wgprof_rec_map *map, void (*fn)(void *value, void *user), void *user);

/* ---- record_output.c ---- */

typedef struct wgprof_rec_session wgprof_rec_session;
typedef struct output_job output_job;

/* A session's snapshot being written on a thread of wgprof's. */
typedef struct wgprof_rec_writer {
    thrd_t thread;
    output_job *job;
    atomic_bool done; /* the thread is about to end */
    bool running;     /* started and not joined */
    _Atomic uint64_t last_write_ns; /* how long the last snapshot took to write */
} wgprof_rec_writer;

/* Writes the session's JSON report and table into the results folder as PID.N.json and
 * PID.N.txt (replacing the previous ones whole, by rename), from a copy of its results: here
 * when the last one was quick to write, else on a thread of wgprof's; nothing when the previous
 * snapshot is still being written. Under the lock. */
void wgprof_rec_output_snapshot(wgprof_rec_session *session);
/* Whether the session's snapshot is still being written (joining the thread if it is done). */
bool wgprof_rec_output_busy(wgprof_rec_session *session);
/* Waits for the session's snapshot in progress. */
void wgprof_rec_output_wait(wgprof_rec_session *session);
/* After the snapshot in progress: the JSON report and table, the other formats asked for, and
 * PID.N.done, written here. Under the lock. */
void wgprof_rec_output_write(wgprof_rec_session *session);

/* ---- record_device.c ---- */

/* One pool of a session, held by one command encoder at a time: the batch it records is
 * resolved at the submit of that encoder's buffer. Encoders recorded side by side take a lane
 * each; the session's reports merge the lanes (wgprof_pool_merge). */
typedef struct wgprof_rec_lane {
    wgprof_rec_session *session;
    wgprof_pool *pool;
    WGPUCommandEncoder owner;        /* NULL: free */
    WGPUCommandBuffer owner_buffer;  /* once the owner is finished */
    bool chain_begun;                /* the batch's chain has started (record_chain.c) */
    bool end_owed;                   /* the last record's end is not written yet */
    uint32_t owed_end;               /* that end (its record's place in the batch) */
    uint8_t work_kinds;              /* encoder work since the last dispatch (1 << wgprof_rec_work) */
    uint64_t serial;                 /* its pool's, unique in the process (from 1) */
} wgprof_rec_lane;

enum { WGPROF_REC_LANES = 8 };

/* ---- record_chain.c: where a lane's chain of timestamps goes ---- */

/* What a compute pass about to begin on a lane's encoder gets of the chain. */
typedef enum wgprof_rec_chain_plan {
    WGPROF_REC_CHAIN_NOTHING,      /* no timestamp */
    WGPROF_REC_CHAIN_WRITES,       /* the chain's start, as the pass's beginning write */
    WGPROF_REC_CHAIN_END_WRITES,   /* the owed end, as the pass's beginning write */
    WGPROF_REC_CHAIN_START_INSIDE, /* the chain's start, inside the pass (it has writes of its own) */
    WGPROF_REC_CHAIN_END_INSIDE,   /* the owed end, inside the pass (the same) */
} wgprof_rec_chain_plan;

/* Before a pass begins on the lane's encoder (NULL lane: an untimed one): `theirs`, the program
 * gave the pass timestamp writes; *writes receives wgprof's where the plan says _WRITES. Under
 * the lock. */
wgprof_rec_chain_plan wgprof_rec_chain_before_pass(wgprof_rec_lane *lane, bool theirs, WGPUPassTimestampWrites *writes);
/* Right after that pass began. Under the lock. */
void wgprof_rec_chain_after_pass(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, wgprof_rec_chain_plan plan);
/* Before a dispatch in `pass` of `site` (interned in the lane's pool's store): the owed end
 * written, the dispatch's record added. Under the lock. */
void wgprof_rec_chain_dispatch(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, uint32_t site);
/* The encoder's own GPU work between compute passes, timed as one record until the next pass. */
typedef enum wgprof_rec_work {
    WGPROF_REC_WORK_COPY,
    WGPROF_REC_WORK_CLEAR,
    WGPROF_REC_WORK_RENDER_PASS,
    WGPROF_REC_WORK_RESOLVE,
    WGPROF_REC_WORK_TIMESTAMP,
} wgprof_rec_work;
/* Before work `kind` on the lane's encoder `enc` (NULL lane: untimed): the owed end written at
 * the beginning of an empty compute pass, the work's record begun. Under the lock. */
void wgprof_rec_chain_work(wgprof_rec_lane *lane, WGPUCommandEncoder enc, wgprof_rec_work kind);
/* Before the encoder's finish: the work since the last dispatch recorded, the owed end written
 * (an empty compute pass). Under the lock. */
void wgprof_rec_chain_finish(wgprof_rec_lane *lane, WGPUCommandEncoder enc);
/* The lane's batch is gone (submitted or abandoned): its next chain starts anew. */
void wgprof_rec_chain_forget(wgprof_rec_lane *lane);

/* ---- record_encode.c ---- */

/* The lane encoder `enc` holds; NULL where it is not timed. Under the lock. */
wgprof_rec_lane *wgprof_rec_encoder_lane(WGPUCommandEncoder enc);

struct wgprof_rec_session {
    WGPUDevice device;        /* the program's */
    WGPUAdapter adapter;      /* and its instance: wgprof holds a reference to each until the */
    WGPUInstance instance;    /* device is wrapped (the program may release them first) */
    long pid;                 /* the process that created it: a forked child leaves it alone */
    wgprof_device *wdev;      /* wgprof's view of it, made on first use */
    wgprof_rec_lane lanes[WGPROF_REC_LANES];
    unsigned lane_count;      /* lanes with a pool */
    unsigned index;           /* the process's devices in creation order, from 0 */
    long app_refs;            /* the program's references to the device */
    WGPUFeatureName added[4]; /* features the program did not ask for, hidden from it */
    unsigned added_count;
    bool broken;              /* wgprof could not set up: the device runs unprofiled */
    bool finished;            /* results written for good; the lanes are left alone */
    bool release_pending;     /* let go of inside a callback: released at the next safe point */
    bool released;            /* the program let go of the device: the pools and wgprof's view
                                 of it are gone (the session stays, for the state that points
                                 at it) */
    uint64_t encoders;        /* command encoders created */
    uint64_t dispatches;      /* dispatches encoded, timed or not */
    uint64_t untimed_overlap; /* dispatches in an encoder recorded while every lane was held */
    uint64_t untimed_sampled; /* dispatches in encoders --sample-every skipped */
    uint64_t discarded;       /* dispatches in encoders never submitted */
    uint64_t last_snapshot_ns;
    uint64_t snapshot_cost_ns; /* how long the last snapshot's copy took: the next waits 100
                                  times that */
    wgprof_rec_writer writer;  /* the snapshot being written */
};

/* The session of `device`, set up on first use; NULL when it is not profiled. Under the lock. */
wgprof_rec_session *wgprof_rec_session_of(WGPUDevice device);
/* A free lane of the session for encoder `enc` to hold (a new one where all are held and there
 * is room); NULL when there is none. Under the lock. */
wgprof_rec_lane *wgprof_rec_lane_take(wgprof_rec_session *session, WGPUCommandEncoder enc);
/* The lane's batch is forgotten (its encoder or buffer went unsubmitted; counted in the
 * session's `discarded`), and the lane is free. Under the lock. */
void wgprof_rec_lane_abandon(wgprof_rec_lane *lane);
/* Takes every finished readback of every session, without blocking, after the program let the
 * implementation run its callbacks (`drive`: a submit, after which a lane whose ring is nearly
 * full is polled; see collect_session); writes a snapshot of the results at most once a
 * second; releases the sessions whose release waited for this (a safe point: no callback of
 * the implementation's running). Under the lock. */
void wgprof_rec_collect_ready(bool drive);
/* Whether any lane has a batch in flight (without the lock: a hint for the poll hooks). */
bool wgprof_rec_any_in_flight(void);

#endif
