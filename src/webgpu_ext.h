/*
 * What wgprof uses beyond standard webgpu.h, in one place: wgpu-native's own header where it is
 * at hand (the only place that looks for it), the extension entry points found at run time,
 * and the native feature names.
 */
#ifndef WGPROF_WEBGPU_EXT_H
#define WGPROF_WEBGPU_EXT_H

#include <webgpu/webgpu.h>

#if defined(__has_include)
#if __has_include(<webgpu/wgpu.h>)
#include <webgpu/wgpu.h>
#define WGPROF__HAVE_WGPU_H 1
#endif
#endif

typedef WGPUBool (*wgprof__device_poll_fn)(WGPUDevice, WGPUBool, const void *);
typedef float (*wgprof__queue_period_fn)(WGPUQueue);
typedef void (*wgprof__pass_write_timestamp_fn)(WGPUComputePassEncoder, WGPUQuerySet, uint32_t);

/* Entry points looked up at run time; NULL where the implementation lacks them. */
typedef struct wgprof__ext {
    wgprof__device_poll_fn device_poll;                   /* wgpu-native */
    wgprof__queue_period_fn queue_timestamp_period;       /* wgpu-native */
    wgprof__pass_write_timestamp_fn pass_write_timestamp; /* wgpu-native, Dawn */
} wgprof__ext;

const wgprof__ext *wgprof__ext_get(void);
extern const WGPUFeatureName wgprof__feature_inside_encoders;
extern const WGPUFeatureName wgprof__feature_inside_passes;

#endif
