/*
 * The device context as the rest of the library sees it (device.c), and the waits for WebGPU
 * callbacks (device_wait.c).
 */
#ifndef WGPROF_DEVICE_INTERNAL_H
#define WGPROF_DEVICE_INTERNAL_H

#include <stdatomic.h>

#include "internal.h"

struct wgprof_device {
    WGPUInstance instance;
    WGPUAdapter adapter;
    WGPUDevice device;
    WGPUQueue queue;
    wgprof_device_info info;
    double wait_timeout_s;
    bool wrapped; /* made by wgprof_device_wrap */
    bool encoder_timestamps_by_toggle; /* Dawn: encoder timestamps enabled by its toggle, set by wgprof */
    atomic_bool lost;
    atomic_bool destroying;
    /* WebGPU errors the device reported to wgprof's uncaptured-error callback (wgpu-native and
     * Dawn call it from within the failing call): a command buffer whose encoding raised one is
     * never submitted, since implementations treat submitting it as fatal. */
    atomic_uint_fast64_t errors;
};

/* The device's error count now, to compare with after encoding. */
uint64_t wgprof__device_errors(const wgprof_device *device);
/* Finishes `encoder` (released either way) into *out, a command buffer that may be submitted:
 * not when the device is lost (WGPROF_ERR_DEVICE_LOST: its lost callback fires within the first
 * call after a loss, encoder creation included), nor when the encoding raised an error since
 * the count was `errors_before` (WGPROF_ERR_WEBGPU; its message went to the log). A wrapped
 * device's callbacks are its creator's: only what the implementation reports through failed
 * maps is seen there. */
wgprof_status wgprof__device_finish(const wgprof_device *device, WGPUCommandEncoder encoder, uint64_t errors_before,
                                    WGPUCommandBuffer *out);

/* The meeting point of a waiting thread and the WebGPU callback it waits for. It lives on the
 * heap because a wait can give up (time-out, lost device) before the callback fires: whichever
 * of the two lets go second frees it. */
typedef struct wgprof__waiter {
    atomic_bool done;
    atomic_bool released;
    int status;
    void *handle; /* adapter or device from a request callback */
    WGPUFuture future; /* what the request returned; id 0 where unknown */
    char message[2048];
} wgprof__waiter;

wgprof__waiter *wgprof__waiter_new(void);
/* From the callback, after filling status/handle/message. */
void wgprof__waiter_signal(wgprof__waiter *w);
/* From the waiting side, after reading the results; the waiter may be freed here. */
void wgprof__waiter_release(wgprof__waiter *w);

/* Copies a WebGPU string into `dst` (capacity `cap`, always terminated). */
void wgprof__copy_view(char *dst, size_t cap, WGPUStringView v);

/* Drives the implementation until `w` is signalled; `device` (may be NULL) is polled where the
 * implementation can, `lost` (may be NULL) ends the wait early. */
wgprof_status wgprof__wait_flag(WGPUInstance instance, WGPUDevice device, double timeout_s, wgprof__waiter *w,
                                const atomic_bool *lost);
/* Blocks until the callback signalled `w`, driving the implementation's event processing.
 * Returns WGPROF_ERR_TIMEOUT or WGPROF_ERR_DEVICE_LOST when it gives up. */
wgprof_status wgprof__device_wait(wgprof_device *device, wgprof__waiter *w);

/* Maps buffer for reading and waits; the message of a failure goes to the log. */
wgprof_status wgprof__map_read(wgprof_device *device, WGPUBuffer buffer, size_t offset, size_t size);
/* Starts mapping `size` bytes of `buffer` at `offset` for reading and returns at once; the
 * waiter is signalled when the map completes or fails. NULL when out of memory. */
wgprof__waiter *wgprof__map_read_start(WGPUBuffer buffer, size_t offset, size_t size);
/* What a signalled map waiter says: WGPROF_OK, or why it failed (logged). */
wgprof_status wgprof__map_result(wgprof_device *device, const wgprof__waiter *w);
/* Lets the implementation run the callbacks of the `count` waiters that are due, without
 * blocking: where the implementation can (Dawn), through their futures alone, so that no
 * callback of the program's runs inside wgprof's calls; elsewhere by polling the device. */
void wgprof__waiters_poll(wgprof_device *device, wgprof__waiter *const *waiters, size_t count);

#endif
