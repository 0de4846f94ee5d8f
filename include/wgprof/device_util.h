/*
 * WebGPU helpers on a wgprof_device, apart from the profiling API: the waits, blocking maps
 * and error scopes that wgprof uses itself and that tools built on it (the wgprof CLI, tests,
 * benchmarks) need too. Each honours the device's wait_timeout_s and its loss.
 *
 * Threading: as wgprof_device (any thread); error scopes push and pop on the same thread.
 */
#ifndef WGPROF_DEVICE_UTIL_H
#define WGPROF_DEVICE_UTIL_H

#include "wgprof/wgprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks until all work submitted to the queue so far has finished. */
WGPROF_API wgprof_status wgprof_device_wait_idle(wgprof_device *device);

/* Maps `size` bytes of `buffer` (MapRead usage) at `offset` for reading and blocks until the
 * map completes or fails. On WGPROF_OK the caller reads with wgpuBufferGetConstMappedRange and
 * unmaps with wgpuBufferUnmap. */
WGPROF_API wgprof_status wgprof_device_map_read(wgprof_device *device, WGPUBuffer buffer, size_t offset,
                                                size_t size);

/* Collects the WebGPU validation and out-of-memory errors of the calls made between push and
 * pop: pop returns WGPROF_OK when there were none, else WGPROF_ERR_WEBGPU (validation) or
 * WGPROF_ERR_OUT_OF_MEMORY with the implementation's message copied into `message` (may be
 * NULL). Scopes nest; push and pop on the same thread. */
WGPROF_API void wgprof_device_push_error_scope(wgprof_device *device);
WGPROF_API wgprof_status wgprof_device_pop_error_scope(wgprof_device *device, char *message, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* WGPROF_DEVICE_UTIL_H */
