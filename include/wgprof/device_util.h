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

/* The runtime checks a shader module is compiled with. The implementations differ: wgpu-native
 * adds bounds checks to every memory access and bounds every loop (an iteration counter in each
 * loop, so that an infinite loop cannot hang the GPU); Dawn adds bounds checks (robustness) and
 * offers no per-module choice. Dropping a check is for trusted WGSL only: without
 * bounds checks an out-of-range index reads or writes outside its buffer, without loop bounding
 * an endless loop hangs the device. Meant for measuring what the checks cost. */
typedef enum wgprof_shader_checks {
    WGPROF_SHADER_CHECKS_DEFAULT,          /* the implementation's own: wgpuDeviceCreateShaderModule */
    WGPROF_SHADER_CHECKS_NO_LOOP_BOUNDING, /* every check but loop bounding */
    WGPROF_SHADER_CHECKS_NONE,             /* no runtime checks at all */
} wgprof_shader_checks;

/* "default", "no-loop-bounding", "none"; NULL for a value outside the enum. */
WGPROF_API const char *wgprof_shader_checks_str(wgprof_shader_checks checks);
/* The inverse of wgprof_shader_checks_str; false (and *out untouched) for any other name. */
WGPROF_API bool wgprof_shader_checks_from_str(const char *name, wgprof_shader_checks *out);

/* Compiles `wgsl` (NUL-terminated) into a shader module labelled `label` (may be NULL) with the
 * runtime checks `checks`. On WGPROF_OK, *out is a module the caller owns and releases with
 * wgpuShaderModuleRelease. WGSL errors are reported as wgpuDeviceCreateShaderModule reports them
 * (through the device's error scopes: wrap the call in wgprof_device_push_error_scope/pop to
 * catch them), so *out may be an invalid module then. Returns WGPROF_ERR_UNSUPPORTED, and
 * creates nothing, when `checks` is not DEFAULT and the implementation in the process has no way
 * to drop checks (Dawn: only wgpu-native's wgpuDeviceCreateShaderModuleTrusted does); an
 * unknown `checks` value is WGPROF_ERR_INVALID_ARGUMENT.
 * Threading: as wgprof_device (any thread). */
WGPROF_API wgprof_status wgprof_shader_module_create(wgprof_device *device, const char *wgsl, const char *label,
                                                     wgprof_shader_checks checks, WGPUShaderModule *out);

#ifdef __cplusplus
}
#endif

#endif /* WGPROF_DEVICE_UTIL_H */
