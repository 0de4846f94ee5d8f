/*
 * The WebGPU implementation in the process and how it differs (see webgpu_ext.h), and the table
 * of its functions that every WebGPU call of libwgprof goes through (wgprof__wgpu()). wgprof never
 * loads an implementation: it uses the one whose wgpu* symbols the process already has, found
 * through the dynamic linker (the library that wgpuCreateInstance resolves to), fills the table
 * from that library by name, and tells which implementation it is from the entry points only one
 * of them exports (wgpuGetVersion: wgpu-native; wgpuDeviceTick: Dawn), looked up in that library
 * only: where another implementation is also loaded (preloaded over it, say), its functions must
 * not be mixed in. A library that stands in front of the implementation (wgprof record's preload,
 * which exports every wgpu* name itself) installs the implementation's own table instead, so that
 * libwgprof's calls never come back to it; the tests install one that logs every call.
 *
 * Lookup uses the dynamic linker rather than wgpuGetProcAddress: wgpu-native 29 does not
 * implement wgpuGetProcAddress (it aborts the process), while every implementation exports its
 * entry points as ordinary symbols.
 *
 * Shader runtime checks: wgpu-native compiles every module with bounds checks and loop bounding
 * (each loop gets an iteration counter, so that an infinite loop cannot hang the GPU) unless it
 * is created through wgpuDeviceCreateShaderModuleTrusted, which takes the checks to keep. Dawn
 * offers no per-module choice, so there the lookup finds nothing.
 *
 * Dawn, on the devices wgprof creates: the toggle allow_unsafe_apis (also on the adapter request,
 * so that the adapter lists the in-pass timestamp feature; encoder timestamps need only the
 * toggle), timestamp_quantization off (on by default, it rounds every timestamp down to a
 * multiple of 65,536 ns), and the feature ImplicitDeviceSynchronization, without which Dawn's
 * device may not be used from several threads (wgprof's threading contract allows it). A device
 * the application made and wgprof wraps keeps its own toggles: the summary finds rounded
 * timestamps from the readings instead (wgprof_summary.timestamp_quantum_ns).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

#include "config.h"
#include "internal.h"
#include "webgpu_ext.h"

/* Dawn's values (its generated webgpu.h, 2026), declared here rather than taken from a header
 * that does not ship with its library. */
static const WGPUSType DAWN_STYPE_TOGGLES_DESCRIPTOR = (WGPUSType)0x0005000A;
static const WGPUFeatureName DAWN_FEATURE_INSIDE_PASSES = (WGPUFeatureName)0x00050003;
static const WGPUFeatureName DAWN_FEATURE_IMPLICIT_DEVICE_SYNCHRONIZATION = (WGPUFeatureName)0x00050004;
static const char *const DAWN_ENABLED_TOGGLE = "allow_unsafe_apis"; /* always */
static const char *const DAWN_DISABLED_TOGGLES[] = {"timestamp_quantization"};

/* wgpu-native's native feature values, from its header where it is at hand. */
#ifdef WGPROF__HAVE_WGPU_H
#define WGPU_NATIVE_INSIDE_ENCODERS ((WGPUFeatureName)WGPUNativeFeature_TimestampQueryInsideEncoders)
#define WGPU_NATIVE_INSIDE_PASSES ((WGPUFeatureName)WGPUNativeFeature_TimestampQueryInsidePasses)
#else
#define WGPU_NATIVE_INSIDE_ENCODERS ((WGPUFeatureName)0x00030024)
#define WGPU_NATIVE_INSIDE_PASSES ((WGPUFeatureName)0x00030025)
#endif

static wgprof__ext g_ext;
static wgprof__webgpu_procs g_procs;
static once_flag g_once = ONCE_FLAG_INIT;

static bool g_found;                     /* an implementation is in the process */
static void *g_library;                  /* its own handle (RTLD_DEFAULT where none can be had) */
static wgprof__webgpu_procs g_installed; /* wgprof__webgpu_install's */
static bool g_has_installed;
static void *g_installed_library;
static void *(*g_lookup)(void *, const char *) = dlsym;

void wgprof__webgpu_install(const wgprof__webgpu_procs *procs, void *library, void *(*lookup)(void *, const char *))
{
    g_installed = *procs;
    g_installed_library = library;
    g_has_installed = true;
    g_lookup = lookup ? lookup : dlsym;
}

bool wgprof__webgpu_find_library(void **library)
{
    Dl_info where = {0};
    void *create = dlsym(RTLD_DEFAULT, "wgpuCreateInstance");
    /* Already loaded: this takes a reference to it and loads nothing. */
    void *own = create && dladdr(create, &where) && where.dli_fname
                    ? dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD)
                    : NULL;
    *library = own ? own : RTLD_DEFAULT;
    return create != NULL;
}

/* An extension entry point: the table's entry where the headers declare the function (so that an
 * installed table sees its calls), else the library's own symbol. */
static void *lookup(const char *name)
{
    void *fn = NULL;
    if (!wgprof__webgpu_procs_get(&g_procs, name, &fn) && g_found) {
        fn = g_lookup(g_library, name);
    }
    return fn;
}

static void load(void)
{
    g_ext.no_adapter_hint = "on Linux without a GPU, install Mesa's lavapipe: apt-get install mesa-vulkan-drivers";
    if (g_has_installed) {
        /* Used as it is: dlopen may be a preload library's, answering with itself. */
        g_found = true;
        g_library = g_installed_library;
        g_procs = g_installed;
    } else if ((g_found = wgprof__webgpu_find_library(&g_library))) {
        wgprof__webgpu_procs_load(g_library, &g_procs);
    }
    Dl_info where = {0};
    void *create = g_found ? g_lookup(g_library, "wgpuCreateInstance") : NULL;
    if (create && dladdr(create, &where) && where.dli_fname) {
        snprintf(g_ext.path, sizeof g_ext.path, "%s", where.dli_fname);
    }
    /* Casting from void * to a function pointer is how dlsym is meant to be used (POSIX). */
    *(void **)&g_ext.device_poll = lookup("wgpuDevicePoll");
    *(void **)&g_ext.queue_timestamp_period = lookup("wgpuQueueGetTimestampPeriod");
    *(void **)&g_ext.pass_write_timestamp = lookup("wgpuComputePassEncoderWriteTimestamp");
    *(void **)&g_ext.create_trusted_module = lookup("wgpuDeviceCreateShaderModuleTrusted");
    uint32_t (*get_version)(void) = NULL;
    *(void **)&get_version = lookup("wgpuGetVersion");
    /* wgpu-native packs its version as one byte per part, major first; 0 is no version: a
     * library standing in front of another that exports every name (wgprof record's). */
    uint32_t v = get_version ? get_version() : 0;
    if (v) {
        g_ext.kind = WGPROF__IMPL_WGPU_NATIVE;
        snprintf(g_ext.name, sizeof g_ext.name, "wgpu-native %u.%u.%u.%u", v >> 24, (v >> 16) & 0xFF,
                 (v >> 8) & 0xFF, v & 0xFF);
        g_ext.feature_inside_passes = WGPU_NATIVE_INSIDE_PASSES;
        g_ext.feature_inside_encoders = WGPU_NATIVE_INSIDE_ENCODERS;
    } else if (lookup("wgpuDeviceTick")) {
        g_ext.kind = WGPROF__IMPL_DAWN;
        snprintf(g_ext.name, sizeof g_ext.name, "Dawn");
        g_ext.feature_inside_passes = DAWN_FEATURE_INSIDE_PASSES;
        g_ext.encoder_timestamps_by_toggle = true;
        g_ext.resolves_in_ns = true; /* its ResolveQuerySet converts ticks with the period */
        g_ext.polls_by_future = true;
        /* Since 2025-04 Dawn requires shaderUniform*ArrayDynamicIndexing, which lavapipe has
         * from Mesa 25 (Debian bookworm has 22.3.6; bookworm-backports 25.0.7). */
        g_ext.no_adapter_hint = "Dawn needs a Vulkan driver with shaderUniformBufferArrayDynamicIndexing: on a "
                                "machine without a GPU, Mesa's lavapipe 25 or newer (selected with VK_DRIVER_FILES "
                                "where the system's Mesa is older)";
    } else {
        g_ext.kind = WGPROF__IMPL_OTHER;
        snprintf(g_ext.name, sizeof g_ext.name, "%s", create ? "unknown WebGPU implementation" : "none");
    }
}

const wgprof__ext *wgprof__ext_get(void)
{
    call_once(&g_once, load);
    return &g_ext;
}

const wgprof__webgpu_procs *wgprof__wgpu(void)
{
    call_once(&g_once, load);
    return &g_procs;
}

/* wgprof's toggles, and those WGPROF_DAWN_TOGGLES adds (comma-separated; read per device, as
 * config.c reads every variable), for experiments such as measuring what Dawn's robustness costs
 * (disable_robustness): Dawn's checks are chosen per device, so they cannot go through
 * wgprof_shader_module_create. */
static void *dawn_toggles(wgprof__chain *storage)
{
    storage->dawn_enabled[0] = DAWN_ENABLED_TOGGLE;
    size_t count = 1;
    const char *extra = wgprof__env_read().dawn_toggles;
    if (extra && extra[0]) {
        snprintf(storage->dawn_toggle_text, sizeof storage->dawn_toggle_text, "%s", extra);
        for (char *save = NULL, *t = strtok_r(storage->dawn_toggle_text, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
            if (count == WGPROF__DAWN_TOGGLES_MAX) {
                wgprof__log(WGPROF_LOG_WARN, "WGPROF_DAWN_TOGGLES: at most %d toggles; '%s' and after are ignored",
                            WGPROF__DAWN_TOGGLES_MAX - 1, t);
                break;
            }
            storage->dawn_enabled[count++] = t;
        }
    }
    storage->dawn_toggles.chain.next = NULL;
    storage->dawn_toggles.chain.sType = DAWN_STYPE_TOGGLES_DESCRIPTOR;
    storage->dawn_toggles.enabledToggleCount = count;
    storage->dawn_toggles.enabledToggles = storage->dawn_enabled;
    storage->dawn_toggles.disabledToggleCount = sizeof DAWN_DISABLED_TOGGLES / sizeof DAWN_DISABLED_TOGGLES[0];
    storage->dawn_toggles.disabledToggles = DAWN_DISABLED_TOGGLES;
    return &storage->dawn_toggles.chain;
}

void wgprof__ext_chain_instance(WGPUInstanceDescriptor *desc, wgprof__chain *storage)
{
#ifdef WGPROF__HAVE_WGPU_H
    if (wgprof__ext_get()->kind == WGPROF__IMPL_WGPU_NATIVE) {
        /* The primary backends only: compute timestamps need Vulkan, Metal or D3D12, and
         * skipping OpenGL spares start-up time and the EGL probing it prints warnings from. */
        storage->wgpu_instance = (WGPUInstanceExtras){0};
        storage->wgpu_instance.chain.sType = (WGPUSType)WGPUSType_InstanceExtras;
        storage->wgpu_instance.backends = WGPUInstanceBackend_Primary;
        storage->wgpu_instance.flags = WGPUInstanceFlag_Default;
        desc->nextInChain = &storage->wgpu_instance.chain;
    }
#else
    (void)desc;
    (void)storage;
#endif
}

void wgprof__ext_chain_adapter(WGPURequestAdapterOptions *options, wgprof__chain *storage)
{
    if (wgprof__ext_get()->kind == WGPROF__IMPL_DAWN) {
        options->nextInChain = dawn_toggles(storage);
    }
}

size_t wgprof__ext_chain_device(WGPUDeviceDescriptor *desc, wgprof__chain *storage, WGPUFeatureName *features,
                                size_t count, size_t cap)
{
    if (wgprof__ext_get()->kind == WGPROF__IMPL_DAWN) {
        desc->nextInChain = dawn_toggles(storage);
        if (count < cap) {
            features[count++] = DAWN_FEATURE_IMPLICIT_DEVICE_SYNCHRONIZATION;
        }
    }
    return count;
}
