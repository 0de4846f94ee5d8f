/*
 * WebGPU entry points outside standard webgpu.h, looked up at run time so that wgprof builds
 * and runs against any implementation (wgpu-native, Dawn) and simply goes without the ones
 * that are absent.
 *
 * Lookup uses the dynamic linker rather than wgpuGetProcAddress: wgpu-native 29 does not
 * implement wgpuGetProcAddress (it aborts the process), while every implementation exports its
 * entry points as ordinary symbols.
 */
#include <dlfcn.h>
#include <threads.h>

#include "webgpu_ext.h"

/* wgpu-native's native feature names. Where its header is at hand, take them from it. */
#ifdef WGPROF__HAVE_WGPU_H
const WGPUFeatureName wgprof__feature_inside_encoders =
    (WGPUFeatureName)WGPUNativeFeature_TimestampQueryInsideEncoders;
const WGPUFeatureName wgprof__feature_inside_passes =
    (WGPUFeatureName)WGPUNativeFeature_TimestampQueryInsidePasses;
#else
const WGPUFeatureName wgprof__feature_inside_encoders = (WGPUFeatureName)0x00030024;
const WGPUFeatureName wgprof__feature_inside_passes = (WGPUFeatureName)0x00030025;
#endif

static wgprof__ext g_ext;
static once_flag g_ext_once = ONCE_FLAG_INIT;

static void *lookup(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

static void load_ext(void)
{
    /* Casting from void * to a function pointer is how dlsym is meant to be used (POSIX). */
    *(void **)&g_ext.device_poll = lookup("wgpuDevicePoll");
    *(void **)&g_ext.queue_timestamp_period = lookup("wgpuQueueGetTimestampPeriod");
    *(void **)&g_ext.pass_write_timestamp = lookup("wgpuComputePassEncoderWriteTimestamp");
}

const wgprof__ext *wgprof__ext_get(void)
{
    call_once(&g_ext_once, load_ext);
    return &g_ext;
}
