/*
 * wgprof record's preload library: loaded into an unmodified program (LD_PRELOAD), it stands
 * between the program and its WebGPU implementation. Every wgpu* function of webgpu.h (and
 * wgpu.h) is exported: most are forwarders generated at build time (record_forward.c, from
 * cmake/webgpu_forward.cmake), the rest are the hooks of record_device.c and record_encode.c,
 * which time each compute dispatch with libwgprof's pool (linked in, its symbols hidden).
 *
 * The files, from the bottom: record_browser.c answers Chromium's direct open of SwiftShader with
 * the Vulkan loader bundled beside it, for wgprof's layer; record_load.c finds the implementation
 * and the settings the CLI passed in the environment, and interposes dlopen for programs that
 * load their implementation themselves (wgpu-py); record_map.c is the handle map; record_registry.c the registry of the
 * program's objects (a map per kind: devices, adapters, shader modules, pipelines, encoders,
 * passes, command buffers); record_output.c writes a session's reports; record_device.c holds
 * the sessions (one per device the program creates) and their lanes; record_chain_plan.c
 * decides where a lane's chain of timestamps goes (plain data, a library of its own that
 * tests/test_record_chain.c tests), record_chain.c carries that out; record_commands.c and
 * record_encode.c are the encoding hooks; record_exec.c interposes the exec functions, so that an
 * image's results are written before the process replaces it.
 *
 * The implementation's functions are one table (libwgprof's wgprof__webgpu_procs, filled by
 * name from the implementation's handle, as a Vulkan layer keeps the next layer's functions):
 * the forwarders and hooks call the implementation through it, and it is installed in the copy
 * of libwgprof linked in here before that copy runs (record_load.c), so that libwgprof's own
 * WebGPU calls go straight to the implementation and never reach a hook.
 *
 * Threads. The rule: no lock of this library is held while it calls into the implementation
 * (wgprof_rec_real()->..., or a libwgprof call that reaches it): the implementation may run a
 * callback of the program's inside that call, and the callback may call any hook, or wait for
 * another thread of the program that does. So:
 *   - The registry (record_registry.c) maps the program's handles to what the hooks know of
 *     them, a mutex per kind of object held only for the lookup, insertion or removal.
 *   - A session (a device) has a mutex of its own for its state: who holds each of its lanes,
 *     its flags, its program's references, its snapshot. Nothing of one device waits for
 *     another. Its counts are atomic.
 *   - A lane is held by one user at a time: the command encoder that records into it (from
 *     its first timed work to its finish), then that encoder's command buffer (until it is
 *     submitted or released), or a thread working on it (a submit resolving its batch and
 *     starting the readback, a poll taking finished readbacks, the session's finish). Changing
 *     hands takes the session's mutex; the holder uses the lane's pool without a lock. A
 *     command encoder and its passes are used by one thread at a time (WebGPU's rule), so
 *     their own state needs no lock either.
 *   - The snapshot is copied under the session's mutex from lanes that nobody is using (free,
 *     or held by a command buffer waiting for its submit); where one is in use it waits for a
 *     later collect. The copy calls nothing of the implementation's.
 *   - What still waits on another thread: the first use of a device waits for its set-up (on
 *     the thread that began it, wgprof_device_wrap); the session's finish (the program's last
 *     release of the device, its destroy, exit) waits for the threads working on a lane to give
 *     it back and for an encoder's hook using its lane to return (wgprof_rec_lane_enter). A
 *     program that finishes a device while another of its threads waits for the finishing one
 *     inside a call of the device's would hang there, as it would on a device it destroys
 *     under its own use.
 *   - wgprof_rec_nested tells a hook that its thread is inside a call a hook made into the
 *     implementation (a callback of the program's runs there): the device's release is put off
 *     to the next safe point then, since writing results waits on the implementation. It is
 *     the thread's own count, not a lock.
 */
#ifndef WGPROF_RECORD_LIB_H
#define WGPROF_RECORD_LIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <threads.h>

#include <wgprof/wgprof.h>

#include "record_chain_plan.h"
#include "webgpu_procs.h"

#define WGPROF_REC_EXPORT __attribute__((visibility("default")))

/* ---- record_browser.c ---- */

/* Whether the program's dlopen of `file`, called from `caller` (an address in the calling
 * library), is Chromium's (or Chrome's) direct open of its SwiftShader Vulkan driver, to be
 * answered with the Vulkan loader bundled in the same folder (its path into `out`) so that
 * wgprof's layer sees the device; the driver file bundled there is then on VK_ADD_DRIVER_FILES.
 * Only where record's layer is in use (RECORD_ENV_LAYER) and the caller is no Vulkan loader.
 * Calls nothing of this library. */
bool wgprof_rec_swiftshader_loader(const char *file, const void *caller, char *out, size_t cap);

/* ---- record_load.c ---- */

/* How the CLI asked for the recording (environment variables WGPROF_RECORD_*). */
typedef struct wgprof_rec_settings {
    char dir[4096];        /* where the results go; "" records nothing */
    char dir_id[64];       /* its identity, "DEV:INO" (record.h) */
    bool inside;           /* pairs of in-pass timestamps instead of a chain */
    uint32_t sample_every; /* time one command encoder in N; 1: every one */
    char formats[64];      /* report formats to write at the end besides JSON and the table: "html,trace,csv" */
    char layer[4096];      /* wgprof's Vulkan layer's library, enabled beside this one (record.h); "" none */
} wgprof_rec_settings;

/* What the first call of the program's found (record_load.c): the implementation's functions,
 * and whether the hooks profile. Written once, before `ready` is set; read inline by every hook
 * and forwarder below, without a call. */
typedef struct wgprof_rec_loaded_state {
    atomic_bool ready;
    bool active;
    wgprof__webgpu_procs real;
} wgprof_rec_loaded_state;
extern wgprof_rec_loaded_state wgprof_rec_load_state;
/* The first call's search for the implementation (once, whatever the threads); the table after. */
const wgprof__webgpu_procs *wgprof_rec_load(void);

/* The implementation's functions, found on first use (every hook and forwarder calls this) and
 * installed in libwgprof then. */
static inline const wgprof__webgpu_procs *wgprof_rec_real(void)
{
    if (__builtin_expect(!atomic_load_explicit(&wgprof_rec_load_state.ready, memory_order_acquire), 0)) {
        return wgprof_rec_load();
    }
    return &wgprof_rec_load_state.real;
}
/* True when the implementation is one the hooks were built for: otherwise the program runs
 * unprofiled, every call forwarded (the reason was printed once). */
static inline bool wgprof_rec_active(void)
{
    wgprof_rec_real();
    return wgprof_rec_load_state.active;
}
/* The settings, read once, by themselves: the implementation is not loaded for them (the exec
 * hooks read them in every process that execs, a shell's child of vfork among them). */
const wgprof_rec_settings *wgprof_rec_settings_get(void);
void wgprof_rec_missing(const char *name);
/* A line on stderr, prefixed "wgprof record: ". */
void wgprof_rec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Around a hook's own call into the implementation during which the program's callbacks may
 * run (a submit, a poll of wgprof's, a set-up, a finish): inside, wgprof_rec_nested is true. */
void wgprof_rec_enter(void);
void wgprof_rec_leave(void);
bool wgprof_rec_nested(void);
/* This thread, as the holder of a lane it works on (a token, unique among live threads). */
const void *wgprof_rec_thread(void);

/* Whether a call of the program's has reached this library (and looked for the implementation):
 * without making it look. */
bool wgprof_rec_loaded(void);
/* The system's dlopen (this library answers the program's dlopen). */
void *wgprof_rec_system_dlopen(const char *file, int mode);
/* The implementation's dlopen handle (once found). */
void *wgprof_rec_implementation(void);
/* The system's dlsym (this library answers the program's own calls of dlsym: record_load.c). */
void *wgprof_rec_system_dlsym(void *handle, const char *name);
/* Whether wgprof's Vulkan layer was enabled beside this library and is loaded in the process now
 * (the Vulkan loader loaded it for an instance): looked up by its path, loading nothing. */
bool wgprof_rec_layer_loaded(void);

/* ---- record_exit.c: the program's _exit and _Exit (the Vulkan layer's end first) ---- */

/* Ends the process as the C library's _exit does, without the layer's end: this library's own
 * ends (no implementation found, the program refused), which never go through its hooks. */
_Noreturn void wgprof_rec_exit_plain(int status);

/* ---- record_abi.c: which ABI the implementation has, and bridging the ones wgprof knows ---- */

typedef enum wgprof_rec_abi {
    WGPROF_REC_ABI_UNKNOWN,  /* nothing hooked: every call the implementation's */
    WGPROF_REC_ABI_WEBGPU_H, /* the headers' own (wgpu-native 29, Dawn of late 2025 on) */
    WGPROF_REC_ABI_DAWN_2025 /* Dawn of the callback-info transition ("...2", "...F" functions) */
} wgprof_rec_abi;

typedef void *(*wgprof_rec_lookup)(void *handle, const char *name);

/* Identifies the ABI of the library behind `handle` from its symbols; where it is unknown, *why
 * says what was found (a clause: "it is ..."). */
wgprof_rec_abi wgprof_rec_abi_identify(void *handle, wgprof_rec_lookup lookup, uint32_t expected_wgpu_major, char *why,
                                       size_t cap);
/* Makes `procs` (loaded by name) hold, for every function the hooks and libwgprof call, one of
 * webgpu.h's signature and values; false where the ABI is unknown or lacks one of them. */
bool wgprof_rec_abi_adapt(wgprof_rec_abi abi, void *handle, wgprof_rec_lookup lookup, wgprof__webgpu_procs *procs);
wgprof_rec_abi wgprof_rec_abi_current(void);
const char *wgprof_rec_abi_name(wgprof_rec_abi abi);

/* Feature numbers: the program's (its implementation's ABI) to webgpu.h's, and back. */
WGPUFeatureName wgprof_rec_abi_feature_in(WGPUFeatureName value);
WGPUFeatureName wgprof_rec_abi_feature_out(WGPUFeatureName value);
void wgprof_rec_abi_features_out(WGPUFeatureName *features, size_t count);
/* The same, in place, on a list the implementation handed out (its numbers rewritten in the
 * implementation's memory, which it frees). */
void wgprof_rec_abi_supported_out(WGPUSupportedFeatures *features);
/* The program's compute pass descriptor in webgpu.h's layout: `d` itself, or `copy` (pointing
 * at `writes`) where the ABI lays the timestamp writes out otherwise. */
const WGPUComputePassDescriptor *wgprof_rec_abi_pass_in(const WGPUComputePassDescriptor *d,
                                                         WGPUComputePassDescriptor *copy,
                                                         WGPUPassTimestampWrites *writes);

/* The transition ABI's WGPURequestAdapterOptions: the surface second, a compatibility flag last. */
typedef struct wgprof_rec_dawn2025_adapter_options {
    WGPUChainedStruct *nextInChain; /* const in its header, as nothing writes through it */
    WGPUSurface compatibleSurface;
    uint32_t featureLevel, powerPreference, backendType;
    WGPUBool forceFallbackAdapter, compatibilityMode;
} wgprof_rec_dawn2025_adapter_options;

/* The transition ABI's forms the hooks of its own forms call (webgpu.h's signatures where the
 * types are not its own). */
typedef struct wgprof_rec_legacy {
    WGPUFuture (*request_adapter2)(WGPUInstance, wgprof_rec_dawn2025_adapter_options const *,
                                   WGPURequestAdapterCallbackInfo);
    WGPUFuture (*request_device2)(WGPUAdapter, WGPUDeviceDescriptor const *, WGPURequestDeviceCallbackInfo);
    WGPUFuture (*compute_pipeline_async2)(WGPUDevice, WGPUComputePipelineDescriptor const *,
                                          WGPUCreateComputePipelineAsyncCallbackInfo);
} wgprof_rec_legacy;
const wgprof_rec_legacy *wgprof_rec_abi_legacy(void);

/* Its callback forms with one userdata ("...F" and the plain callback, userdata pair). */
typedef void (*wgprof_rec_dawn2025_adapter_cb)(WGPURequestAdapterStatus status, WGPUAdapter adapter,
                                               WGPUStringView message, void *userdata);
typedef struct wgprof_rec_dawn2025_adapter_info {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    wgprof_rec_dawn2025_adapter_cb callback;
    void *userdata;
} wgprof_rec_dawn2025_adapter_info;
typedef void (*wgprof_rec_dawn2025_device_cb)(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                                              void *userdata);
typedef struct wgprof_rec_dawn2025_device_info {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    wgprof_rec_dawn2025_device_cb callback;
    void *userdata;
} wgprof_rec_dawn2025_device_info;
typedef void (*wgprof_rec_dawn2025_pipeline_cb)(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline,
                                                WGPUStringView message, void *userdata);
typedef struct wgprof_rec_dawn2025_pipeline_info {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    wgprof_rec_dawn2025_pipeline_cb callback;
    void *userdata;
} wgprof_rec_dawn2025_pipeline_info;

/* How a program's lookup of `name` in this library is answered: with this library's function
 * *ours (a hook), with the implementation's, or with ours where the implementation lacks it. */
typedef enum wgprof_rec_answer {
    WGPROF_REC_ANSWER_OURS,
    WGPROF_REC_ANSWER_THEIRS,
    WGPROF_REC_ANSWER_OURS_ELSE_THEIRS
} wgprof_rec_answer;
wgprof_rec_answer wgprof_rec_abi_answer(const char *name, const char **ours);

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

/* ---- record_registry.c: the program's objects, by handle ---- */

typedef struct wgprof_rec_session wgprof_rec_session;
typedef struct wgprof_rec_lane wgprof_rec_lane;
typedef struct wgprof_rec_encoder wgprof_rec_encoder;             /* record_encode.c */
typedef struct wgprof_rec_pass wgprof_rec_pass;                   /* record_encode.c */
typedef struct wgprof_rec_module wgprof_rec_module;               /* record_encode.c */
typedef struct wgprof_rec_pipeline_info wgprof_rec_pipeline_info; /* record_encode.c */

/* What the program holds for each compute pipeline it creates (see record_encode.c): the
 * implementation's pipeline, its description (which outlives the proxy) and the program's
 * references. */
typedef struct wgprof_rec_pipeline {
    WGPUComputePipeline real;
    wgprof_rec_pipeline_info *info;
    long refs;
} wgprof_rec_pipeline;

/* Each put is false when out of memory (nothing stored); each take removes and returns the
 * object (NULL when absent). What a get returns stays valid while its handle is the
 * program's: encoders and passes are used by one thread at a time, sessions are never freed. */
bool wgprof_rec_session_put(WGPUDevice device, wgprof_rec_session *session); /* also listed */
wgprof_rec_session *wgprof_rec_session_get(WGPUDevice device);
/* The sessions in creation order: the i-th, NULL past the last. */
wgprof_rec_session *wgprof_rec_session_at(size_t i);
bool wgprof_rec_adapter_put(WGPUAdapter adapter, WGPUInstance instance);
WGPUInstance wgprof_rec_adapter_get(WGPUAdapter adapter);
/* Feature arrays handed out to the program (wgpuDeviceGetFeatures). */
bool wgprof_rec_features_put(void *array);
void *wgprof_rec_features_take(const void *array);
bool wgprof_rec_module_put(WGPUShaderModule module, wgprof_rec_module *m);
wgprof_rec_module *wgprof_rec_module_get(WGPUShaderModule module);
wgprof_rec_module *wgprof_rec_module_take(WGPUShaderModule module);
bool wgprof_rec_encoder_put(WGPUCommandEncoder enc, wgprof_rec_encoder *e);
wgprof_rec_encoder *wgprof_rec_encoder_get(WGPUCommandEncoder enc);
wgprof_rec_encoder *wgprof_rec_encoder_take(WGPUCommandEncoder enc);
bool wgprof_rec_pass_put(WGPUComputePassEncoder pass, wgprof_rec_pass *p);
wgprof_rec_pass *wgprof_rec_pass_get(WGPUComputePassEncoder pass);
wgprof_rec_pass *wgprof_rec_pass_take(WGPUComputePassEncoder pass);
/* Calls fn for every pass, under the passes' lock: fn calls nothing of the implementation's. */
void wgprof_rec_pass_each(void (*fn)(wgprof_rec_pass *p, void *user), void *user);
/* The program's command buffers that carry a batch, and the lane it is in. */
bool wgprof_rec_buffer_put(WGPUCommandBuffer buffer, wgprof_rec_lane *lane);
wgprof_rec_lane *wgprof_rec_buffer_take(WGPUCommandBuffer buffer);
/* Pipeline proxies, by the program's handle (the proxy's own address). */
bool wgprof_rec_pipeline_put(wgprof_rec_pipeline *x);
/* The implementation's pipeline for the program's handle (the handle itself where it is no
 * proxy), and its description where `info`. */
WGPUComputePipeline wgprof_rec_pipeline_real(WGPUComputePipeline handle, wgprof_rec_pipeline_info **info);
/* A reference more for a proxy; false where the handle is none. */
bool wgprof_rec_pipeline_add_ref(WGPUComputePipeline handle);
/* A reference less: the pipeline the implementation must release (the handle itself where it
 * is no proxy, NULL while the program still holds the proxy); the last one frees the proxy. */
WGPUComputePipeline wgprof_rec_pipeline_release(WGPUComputePipeline handle);

/* ---- record_output.c ---- */

typedef struct output_job output_job;

/* A session's snapshot being written on a thread of wgprof's. */
typedef struct wgprof_rec_writer {
    thrd_t thread;
    output_job *job;
    atomic_bool done; /* the thread is about to end */
    bool running;     /* started and not joined */
    _Atomic uint64_t last_write_ns; /* how long the last snapshot took to write */
} wgprof_rec_writer;

/* The N of a new session's result sets (PID.N): the next number of this process's that no
 * earlier image of it (before an exec) took in the results folder. */
unsigned wgprof_rec_output_claim(void);
/* Writes the session's JSON report and table into the results folder as PID.N.json and
 * PID.N.txt (replacing the previous ones whole, by rename), from a copy of its results: here
 * when the last one was quick to write, else on a thread of wgprof's; nothing when the previous
 * snapshot is still being written. Under the session's lock, every lane with a pool unused
 * (free, or held by a command buffer). */
void wgprof_rec_output_snapshot(wgprof_rec_session *session);
/* Whether the session's snapshot is still being written (joining the thread if it is done). */
bool wgprof_rec_output_busy(wgprof_rec_session *session);
/* Waits for the session's snapshot in progress. */
void wgprof_rec_output_wait(wgprof_rec_session *session);
/* After the snapshot in progress: the JSON report and table, the other formats asked for, and
 * PID.N.done, written here. By the session's finish, which holds every lane. */
void wgprof_rec_output_write(wgprof_rec_session *session);

/* Writes `text` (a line: why this process timed nothing) into the results folder as PID.why. */
void wgprof_rec_output_note(const char *text);

/* ---- record_device.c ---- */

/* Who holds a lane (see the top of this file). */
typedef enum wgprof_rec_lane_user {
    WGPROF_REC_LANE_FREE,
    WGPROF_REC_LANE_ENCODER, /* holder: the command encoder recording into it */
    WGPROF_REC_LANE_BUFFER,  /* holder: that encoder's command buffer, not yet submitted */
    WGPROF_REC_LANE_WORKER,  /* holder: the thread working on it (wgprof_rec_thread) */
    WGPROF_REC_LANE_DONE,    /* its session finished: nobody uses it again */
} wgprof_rec_lane_user;

enum { WGPROF_REC_SITE_CACHE = 16 };

/* One pool of a session, held by one command encoder at a time: the batch it records is
 * resolved at the submit of that encoder's buffer. Encoders recorded side by side take a lane
 * each; the session's reports merge the lanes (wgprof_pool_merge). */
struct wgprof_rec_lane {
    wgprof_rec_session *session;
    wgprof_pool *pool;                /* NULL: being made, or could not be */
    wgprof_rec_lane_user user;        /* under the session's lock */
    const void *holder;               /* the same */
    atomic_bool busy;                 /* its encoder's thread is using it (wgprof_rec_lane_enter) */
    /* The rest is its holder's, used without a lock. */
    wgprof_rec_chain_state chain;     /* where its chain stands (record_chain_plan.c) */
    wgprof_chain_end owed_end;        /* the end the chain owes */
    atomic_uint counted;              /* its batches in flight, as last counted */
    uint64_t serial;                  /* its pool's, unique in the process (from 1) */
    /* Sites of its last dispatches by pipeline description and counts, so that the next one
     * like it records without forming and interning its name again. */
    struct {
        const wgprof_rec_pipeline_info *info; /* NULL: empty */
        uint32_t workgroups[3];
        wgprof_site site;
    } sites[WGPROF_REC_SITE_CACHE];
};

enum { WGPROF_REC_LANES = 8 };

/* ---- record_chain.c: where a lane's chain of timestamps goes (the decisions are
 * record_chain_plan.c's); every function here is called by the lane's holder ---- */

/* Before a pass begins on the lane's encoder (NULL lane: an untimed one): `theirs`, the program
 * gave the pass timestamp writes; *writes receives wgprof's where the plan says _WRITES. */
wgprof_rec_chain_plan wgprof_rec_chain_before_pass(wgprof_rec_lane *lane, bool theirs, WGPUPassTimestampWrites *writes);
/* Right after that pass began. */
void wgprof_rec_chain_after_pass(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, wgprof_rec_chain_plan plan);
/* Before a dispatch in `pass` of `site` (interned in the lane's pool, wgprof_pool_site): the owed end
 * written, the dispatch's record added. */
void wgprof_rec_chain_dispatch(wgprof_rec_lane *lane, WGPUComputePassEncoder pass, wgprof_site site);
/* Before work `kind` on the lane's encoder `enc` (NULL lane: untimed): the owed end written at
 * the beginning of an empty compute pass, the work's record begun. */
void wgprof_rec_chain_work(wgprof_rec_lane *lane, WGPUCommandEncoder enc, wgprof_rec_work kind);
/* Before the encoder's finish: the work since the last dispatch recorded, the owed end written
 * (an empty compute pass). */
void wgprof_rec_chain_finish(wgprof_rec_lane *lane, WGPUCommandEncoder enc);
/* The lane's batch is gone (submitted or abandoned): its next chain starts anew. */
void wgprof_rec_chain_forget(wgprof_rec_lane *lane);

/* ---- record_encode.c ---- */

/* The lane encoder `enc` holds; NULL where it is not timed. Its thread's, without a lock. */
wgprof_rec_lane *wgprof_rec_encoder_lane(WGPUCommandEncoder enc);

/* The kinds of code a shader module is made from. */
typedef enum wgprof_rec_code {
    WGPROF_REC_CODE_UNKNOWN,
    WGPROF_REC_CODE_WGSL,
    WGPROF_REC_CODE_SPIRV, /* `code` the words, `bytes` 4 per word */
    WGPROF_REC_CODE_GLSL,
} wgprof_rec_code;
/* Keeps what names the pipelines of the program's new `module`: its label, and a hash of its
 * `bytes` of code (copied where they are WGSL, also read for workgroup sizes). By every hook
 * that creates a shader module; nothing kept where out of memory. */
void wgprof_rec_module_keep(WGPUShaderModule module, WGPUStringView label, wgprof_rec_code kind, const void *code,
                            size_t bytes);
/* A compute pipeline's description (its kernel name and workgroup size), from what its creation
 * was given: by every hook that creates one; NULL where out of memory. The name is
 * "first:entry": first the pipeline's label; without one the module's label, else the kind of
 * its code and a hash of it ("wgsl-1a2b3c4d"), else "unnamed"; then the entry point (left out
 * where it cannot be told); after a name not from the pipeline's label, its override constants
 * ("(k=2,n=64)"). Never from the order of creation or an address: the same code names its
 * kernels the same in every run. */
wgprof_rec_pipeline_info *wgprof_rec_pipeline_describe(WGPUStringView label, WGPUShaderModule module,
                                                       WGPUStringView entry, WGPUConstantEntry const *constants,
                                                       size_t constant_count);

struct wgprof_rec_session {
    pthread_mutex_t lock;     /* guards what is marked "locked" */
    pthread_cond_t changed;   /* a lane given back, the set-up or the finish done */
    WGPUDevice device;        /* the program's */
    WGPUAdapter adapter;      /* and its instance: wgprof holds a reference to each until the */
    WGPUInstance instance;    /* device is wrapped (the program may release them first) */
    long pid;                 /* the process that created it: a forked child leaves it alone */
    wgprof_device *wdev;      /* wgprof's view of it, made on first use */
    wgprof_rec_lane lanes[WGPROF_REC_LANES];
    unsigned lane_count;      /* lanes in use or made (locked) */
    unsigned index;           /* the process's devices in creation order, from 0, an image
                                 started by exec going on after the one before (PID.N) */
    long app_refs;            /* the program's references to the device (locked) */
    WGPUFeatureName added[4]; /* features the program did not ask for, hidden from it */
    unsigned added_count;
    int setup;                /* 0: not yet, 1: under way on `setup_thread`, 2: done (locked) */
    const void *setup_thread;
    bool broken;              /* wgprof could not set up: the device runs unprofiled (locked) */
    atomic_bool finished;     /* results written (or being written) for good; the lanes are the finish's */
    const void *finisher;     /* the thread finishing it (locked) */
    bool final_written;       /* the finish is over (locked) */
    bool release_pending;     /* let go of inside a callback: released at the next safe point (locked) */
    bool released;            /* the program let go of the device: the pools and wgprof's view
                                 of it are gone (the session stays, for the state that points
                                 at it) (locked) */
    bool snapshot_due;        /* readbacks taken since the last snapshot (locked) */
    _Atomic uint64_t encoders;        /* command encoders created */
    _Atomic uint64_t dispatches;      /* dispatches encoded, timed or not */
    _Atomic uint64_t untimed_overlap; /* dispatches in an encoder recorded while every lane was held */
    _Atomic uint64_t untimed_sampled; /* dispatches in encoders --sample-every skipped */
    _Atomic uint64_t discarded;       /* dispatches in encoders never submitted */
    uint64_t last_snapshot_ns; /* locked, as the two below */
    uint64_t snapshot_cost_ns; /* how long the last snapshot's copy took: the next waits 100
                                  times that */
    wgprof_rec_writer writer;  /* the snapshot being written */
};

/* ---- record_scopes.c: the scopes of the encoders of devices left to the layer ---- */

/* `enc` (of a device left to the layer) has its pass labels, debug groups and dispatches kept,
 * for the layer to take while the implementation records them (record.h,
 * RECORD_SYMBOL_DISPATCH_SCOPES). The others do nothing for an encoder not kept. */
void wgprof_rec_scopes_track(WGPUCommandEncoder enc);
void wgprof_rec_scopes_push(WGPUCommandEncoder enc, WGPUStringView label);
void wgprof_rec_scopes_pop(WGPUCommandEncoder enc);
void wgprof_rec_scopes_pass_begin(WGPUCommandEncoder enc, WGPUComputePassEncoder pass, WGPUStringView label);
void wgprof_rec_scopes_pass_push(WGPUComputePassEncoder pass, WGPUStringView label);
void wgprof_rec_scopes_pass_pop(WGPUComputePassEncoder pass);
void wgprof_rec_scopes_dispatch(WGPUComputePassEncoder pass);
void wgprof_rec_scopes_pass_end(WGPUComputePassEncoder pass);
/* Around the implementation's finish of `enc`: its steps held for this thread, then kept with
 * its command buffer `cb` (NULL: dropped). */
void wgprof_rec_scopes_finishing(WGPUCommandEncoder enc);
void wgprof_rec_scopes_finished(WGPUCommandEncoder enc, WGPUCommandBuffer cb);
/* Around the implementation's submit of `commands`: their steps held for this thread (*held to
 * give back to _submitted); false where none is kept. */
bool wgprof_rec_scopes_submitting(size_t n, WGPUCommandBuffer const *commands, void **held);
void wgprof_rec_scopes_submitted(void *held);
void wgprof_rec_scopes_forget_encoder(WGPUCommandEncoder enc);
void wgprof_rec_scopes_forget_pass(WGPUComputePassEncoder pass);
void wgprof_rec_scopes_forget_buffer(WGPUCommandBuffer cb);

/* Writes every session's results for good, as at exit: the process is about to replace its
 * image (exec), after which nothing of this one runs. Sessions of another process (a forked
 * or vforked child's parent) are left alone. */
void wgprof_rec_finish_all(void);
/* The session of `device`, set up on first use (waiting for a set-up another thread began);
 * NULL when it is not profiled. */
wgprof_rec_session *wgprof_rec_session_of(WGPUDevice device);
/* A free lane of the session for encoder `enc` to hold (a new one where all are held and there
 * is room); NULL when there is none. */
wgprof_rec_lane *wgprof_rec_lane_take(wgprof_rec_session *session, WGPUCommandEncoder enc);
/* The encoder's thread begins using the lane it holds: NULL where the session finished (the
 * lane is the finish's then), else the lane, marked busy until wgprof_rec_lane_leave. */
wgprof_rec_lane *wgprof_rec_lane_enter(wgprof_rec_lane *lane);
void wgprof_rec_lane_leave(wgprof_rec_lane *lane);
/* The lane's batch is forgotten (its encoder or buffer went unsubmitted; counted in the
 * session's `discarded`). By its holder. */
void wgprof_rec_lane_discard(wgprof_rec_lane *lane);
/* Hands the lane from (`user`, `holder`) to (`to`, `to_holder`); false where it is not so held
 * (the session's finish took it). */
bool wgprof_rec_lane_pass_on(wgprof_rec_lane *lane, wgprof_rec_lane_user user, const void *holder,
                             wgprof_rec_lane_user to, const void *to_holder);
/* Counts the lane's batches in flight again (after its holder changed them). */
void wgprof_rec_lane_recount(wgprof_rec_lane *lane);
/* Takes every finished readback of every session, without blocking, after the program let the
 * implementation run its callbacks (`drive`: a submit, after which a lane whose ring is nearly
 * full is polled); writes a snapshot of the results at most once a second;
 * releases the sessions whose release waited for this (a safe point: no callback of the
 * implementation's running), unless nested. */
void wgprof_rec_collect_ready(bool drive);
/* After a submit, on a lane the submitting thread holds: its batch starts reading back, the
 * readbacks that are done are taken, and its maps are polled where its ring is nearly full
 * (a program that waits only on its own futures runs none of wgprof's callbacks). */
void wgprof_rec_lane_submitted(wgprof_rec_lane *lane);
/* Whether any lane has a batch in flight (without a lock: a hint for the poll hooks). */
bool wgprof_rec_any_in_flight(void);

#endif
