/*
 * Declarations shared between wgprof's source files and its white-box tests. Nothing here is
 * part of the public API; names carry the wgprof__ prefix.
 */
#ifndef WGPROF_INTERNAL_H
#define WGPROF_INTERNAL_H

#include <stdatomic.h>

#include "wgprof/wgprof.h"

#if defined(__GNUC__)
#define WGPROF__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define WGPROF__PRINTF(fmt, args)
#endif

/* ---- core.c: allocation hook and logger ---- */
void *wgprof__alloc(size_t size);
void *wgprof__calloc(size_t count, size_t size);
/* Grows a block from old_size to new_size bytes (new bytes zeroed); NULL leaves `ptr` intact. */
void *wgprof__grow(void *ptr, size_t old_size, size_t new_size);
void wgprof__free(void *ptr);
char *wgprof__strdup(const char *s);
void wgprof__log(wgprof_log_level level, const char *fmt, ...) WGPROF__PRINTF(2, 3);
bool wgprof__env_flag(const char *name); /* set and not "0" or "" */
uint64_t wgprof__now_ns(void);           /* the CPU clock of timelines: CLOCK_MONOTONIC */

/* ---- webgpu_ext.c: extensions looked up at run time ---- */
typedef WGPUBool (*wgprof__device_poll_fn)(WGPUDevice, WGPUBool, const void *);
typedef float (*wgprof__queue_period_fn)(WGPUQueue);
typedef void (*wgprof__pass_write_timestamp_fn)(WGPUComputePassEncoder, WGPUQuerySet, uint32_t);

typedef struct wgprof__ext {
    wgprof__device_poll_fn device_poll;                   /* wgpu-native */
    wgprof__queue_period_fn queue_timestamp_period;       /* wgpu-native */
    wgprof__pass_write_timestamp_fn pass_write_timestamp; /* wgpu-native, Dawn */
} wgprof__ext;

const wgprof__ext *wgprof__ext_get(void);
extern const WGPUFeatureName wgprof__feature_inside_encoders;
extern const WGPUFeatureName wgprof__feature_inside_passes;

/* ---- device.c ---- */
struct wgprof_device {
    WGPUInstance instance;
    WGPUAdapter adapter;
    WGPUDevice device;
    WGPUQueue queue;
    wgprof_device_info info;
    double wait_timeout_s;
    bool wrapped; /* made by wgprof_device_wrap */
    atomic_bool lost;
    atomic_bool destroying;
};

/* The meeting point of a waiting thread and the WebGPU callback it waits for. It lives on the
 * heap because a wait can give up (time-out, lost device) before the callback fires: whichever
 * of the two lets go second frees it. */
typedef struct wgprof__waiter {
    atomic_bool done;
    atomic_bool released;
    int status;
    void *handle; /* adapter or device from a request callback */
    char message[2048];
} wgprof__waiter;

wgprof__waiter *wgprof__waiter_new(void);
/* From the callback, after filling status/handle/message. */
void wgprof__waiter_signal(wgprof__waiter *w);
/* From the waiting side, after reading the results; the waiter may be freed here. */
void wgprof__waiter_release(wgprof__waiter *w);

/* Blocks until the callback signalled `w`, driving the implementation's event processing.
 * Returns WGPROF_ERR_TIMEOUT or WGPROF_ERR_DEVICE_LOST when it gives up. */
wgprof_status wgprof__device_wait(wgprof_device *device, wgprof__waiter *w);

/* Maps buffer for reading and waits; the message of a failure goes to the log. */
wgprof_status wgprof__map_read(wgprof_device *device, WGPUBuffer buffer, size_t offset, size_t size);
/* Starts mapping `size` bytes of `buffer` for reading and returns at once; the waiter is
 * signalled when the map completes or fails. NULL when out of memory. */
wgprof__waiter *wgprof__map_read_start(wgprof_device *device, WGPUBuffer buffer, size_t size);
/* What a signalled map waiter says: WGPROF_OK, or why it failed (logged). */
wgprof_status wgprof__map_result(wgprof_device *device, const wgprof__waiter *w);
/* Lets the implementation run the callbacks that are due, without blocking. */
void wgprof__device_poll(wgprof_device *device);

/* ---- querypool.c: pure parts, testable on synthetic readings ---- */
typedef struct wgprof__reading {
    uint64_t begin;
    uint64_t end;
    bool end_issued; /* false: the end write was never encoded */
} wgprof__reading;

wgprof_invalid_reason wgprof__classify(const wgprof__reading *reading);

#endif
