/*
 * What wgprof does differently per WebGPU implementation, in one place: which implementation
 * is in the process (wgpu-native, Dawn, or another), its name and version, the extension entry
 * points found at run time, its timestamp features, and what it needs chained on the instance,
 * adapter request and device descriptors; and the table of its functions that libwgprof calls
 * WebGPU through. wgpu-native's own header is used where it is at hand (here, and in the table
 * where configure found it); Dawn's few extension values are declared here.
 */
#ifndef WGPROF_WEBGPU_EXT_H
#define WGPROF_WEBGPU_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <webgpu/webgpu.h>

#include "webgpu_procs.h" /* generated from the WebGPU headers (cmake/webgpu_forward.cmake) */

#if defined(__has_include)
#if __has_include(<webgpu/wgpu.h>)
#include <webgpu/wgpu.h>
#define WGPROF__HAVE_WGPU_H 1
#endif
#endif

typedef WGPUBool (*wgprof__device_poll_fn)(WGPUDevice, WGPUBool, const void *);
typedef float (*wgprof__queue_period_fn)(WGPUQueue);
typedef void (*wgprof__pass_write_timestamp_fn)(WGPUComputePassEncoder, WGPUQuerySet, uint32_t);
/* wgpu-native's wgpuDeviceCreateShaderModuleTrusted; the last argument is its WGPUShaderRuntimeChecks. */
typedef WGPUShaderModule (*wgprof__create_trusted_module_fn)(WGPUDevice, const WGPUShaderModuleDescriptor *, uint64_t);

typedef enum wgprof__impl_kind { WGPROF__IMPL_OTHER, WGPROF__IMPL_WGPU_NATIVE, WGPROF__IMPL_DAWN } wgprof__impl_kind;

/* The implementation in the process, found once. */
typedef struct wgprof__ext {
    wgprof__impl_kind kind;
    char name[160];                                       /* e.g. "wgpu-native 29.0.0.0", "Dawn" */
    char path[512];                                       /* the library it was found in; "" unknown */
    wgprof__device_poll_fn device_poll;                   /* wgpu-native */
    wgprof__queue_period_fn queue_timestamp_period;       /* wgpu-native */
    wgprof__pass_write_timestamp_fn pass_write_timestamp; /* wgpu-native, Dawn */
    wgprof__create_trusted_module_fn create_trusted_module; /* wgpu-native: a module with chosen
                                                               runtime checks; NULL: no such way */
    WGPUFeatureName feature_inside_passes;                /* 0: none */
    WGPUFeatureName feature_inside_encoders;              /* 0: no feature (see below) */
    /* Encoder timestamps need no feature where the device has allow_unsafe_apis (Dawn): true on
     * the devices wgprof creates, unknown (so false) on wrapped ones. */
    bool encoder_timestamps_by_toggle;
    /* Timestamps come resolved in ns, with no period query (Dawn): 1.0 is known, not assumed. */
    bool resolves_in_ns;
    /* wgpuInstanceWaitAny with no time-out runs the callbacks of the futures it is given and no
     * others (Dawn): wgprof's waits go through it, so that a program's own callbacks
     * (AllowProcessEvents) run only in its own calls, as they do without wgprof. Elsewhere
     * wgprof polls the instance (wgpu-native runs every due callback in a submit anyway). */
    bool polls_by_future;
    /* What to try when no adapter comes up. */
    const char *no_adapter_hint;
} wgprof__ext;

const wgprof__ext *wgprof__ext_get(void);

/* The table every WebGPU call of libwgprof goes through: filled at the first use, by name, from
 * the library wgpuCreateInstance resolves to (or the installed one); NULL where the
 * implementation lacks a function (wgpu.h's extensions, on Dawn). */
const wgprof__webgpu_procs *wgprof__wgpu(void);
/* Sets *library to the handle of the library wgpuCreateInstance resolves to (RTLD_DEFAULT where
 * it cannot be had); false where the process has no wgpuCreateInstance. */
bool wgprof__webgpu_find_library(void **library);
/* For a library that stands between a program and its implementation (wgprof record's preload
 * library, which exports every wgpu* function itself), and for tests: the table libwgprof calls
 * through (copied) and the implementation's own dlopen handle, looked at for its extensions and
 * path instead of whatever wgpuCreateInstance resolves to, with `lookup` (NULL: dlsym; a preload
 * library that answers dlsym itself passes the system's). Call before anything of wgprof's runs. */
void wgprof__webgpu_install(const wgprof__webgpu_procs *procs, void *library, void *(*lookup)(void *, const char *));

/* wgprof's own Dawn toggle and up to 7 from WGPROF_DAWN_TOGGLES. */
enum { WGPROF__DAWN_TOGGLES_MAX = 8 };

/* Storage for what the implementation needs chained on a descriptor; lives as long as the
 * descriptor's use. */
typedef struct wgprof__chain {
    struct {
        WGPUChainedStruct chain;
        size_t enabledToggleCount;
        const char *const *enabledToggles;
        size_t disabledToggleCount;
        const char *const *disabledToggles;
    } dawn_toggles; /* Dawn's DawnTogglesDescriptor, laid out as its header has it */
    const char *dawn_enabled[WGPROF__DAWN_TOGGLES_MAX]; /* its enabled toggles */
    char dawn_toggle_text[512];                          /* WGPROF_DAWN_TOGGLES, split in place */
#ifdef WGPROF__HAVE_WGPU_H
    WGPUInstanceExtras wgpu_instance;
#endif
} wgprof__chain;

/* Chains onto the instance descriptor, the adapter request and the device descriptor what the
 * implementation needs for compute profiling; the device's also receives the implementation's
 * extra required features (appended to `features`, whose room is `cap`; returns the count). */
/* wgpu-native's WGPUShaderRuntimeChecks bits, from its header where it is at hand. */
#ifdef WGPROF__HAVE_WGPU_H
#define WGPROF__CHECK_BOUNDS ((uint64_t)WGPUShaderRuntimeChecks_BoundsChecks)
#define WGPROF__CHECK_LOOP_BOUNDING ((uint64_t)WGPUShaderRuntimeChecks_ForceLoopBounding)
#define WGPROF__CHECK_RAY_QUERY ((uint64_t)WGPUShaderRuntimeChecks_RayQueryInitializationTracking)
#define WGPROF__CHECK_TASK_DISPATCH ((uint64_t)WGPUShaderRuntimeChecks_TaskShaderDispatchTracking)
#define WGPROF__CHECK_MESH_INDICES ((uint64_t)WGPUShaderRuntimeChecks_MeshShaderPrimitiveIndicesClamp)
#else
#define WGPROF__CHECK_BOUNDS ((uint64_t)0x1)
#define WGPROF__CHECK_LOOP_BOUNDING ((uint64_t)0x2)
#define WGPROF__CHECK_RAY_QUERY ((uint64_t)0x4)
#define WGPROF__CHECK_TASK_DISPATCH ((uint64_t)0x8)
#define WGPROF__CHECK_MESH_INDICES ((uint64_t)0x10)
#endif

void wgprof__ext_chain_instance(WGPUInstanceDescriptor *desc, wgprof__chain *storage);
void wgprof__ext_chain_adapter(WGPURequestAdapterOptions *options, wgprof__chain *storage);
size_t wgprof__ext_chain_device(WGPUDeviceDescriptor *desc, wgprof__chain *storage, WGPUFeatureName *features,
                                size_t count, size_t cap);

#endif
