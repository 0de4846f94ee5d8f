/*
 * Which WebGPU ABI the program's implementation has, told from its symbols before anything is
 * hooked, and what the hooks and the copy of libwgprof linked in here need in order to use each
 * ABI wgprof knows. Three answers:
 *
 *   - webgpu.h's: the ABI of the headers these hooks were generated from (wgpu-native 29, and
 *     Dawn without the functions below, whose core ABI is the same: checked on the Dawn that
 *     scripts/fetch-dawn.sh pins). Used as it is.
 *   - Dawn of the callback-info transition (builds of about late 2024 to mid 2025, such as the
 *     one PyPI's dawn-python 0.3.0 ships), told by its "...2" and "...F" functions. Its structs
 *     are webgpu.h's except where listed here, and the differences are bridged in both
 *     directions: the table libwgprof and the hooks call through gets, for each function whose
 *     signature or values differ, a function of webgpu.h's signature that calls Dawn's own
 *     (wgpuBufferMapAsync -> wgpuBufferMapAsync2 and the like, the limits struct, the feature
 *     numbers, the pass timestamp writes without a chain pointer); and the hooks translate what
 *     the program passes in that ABI (record_device.c, record_encode.c).
 *   - anything else: nothing is hooked, every call goes to the implementation (record_load.c
 *     says so, naming the library).
 *
 * The facts about the transition ABI (offsets, values, signatures) were read from dawn-python
 * 0.3.0's generated bindings and checked against its library; the static assertions below hold
 * the layouts this file depends on.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record_lib.h"
#include "internal.h"

/* ---- the transition ABI's own declarations (what differs from webgpu.h) ---- */

/* Its WGPULimits: no chain pointer, two more fields, another order past maxBufferSize. */
typedef struct dawn2025_limits {
    uint32_t maxTextureDimension1D, maxTextureDimension2D, maxTextureDimension3D, maxTextureArrayLayers;
    uint32_t maxBindGroups, maxBindGroupsPlusVertexBuffers, maxBindingsPerBindGroup;
    uint32_t maxDynamicUniformBuffersPerPipelineLayout, maxDynamicStorageBuffersPerPipelineLayout;
    uint32_t maxSampledTexturesPerShaderStage, maxSamplersPerShaderStage, maxStorageBuffersPerShaderStage;
    uint32_t maxStorageTexturesPerShaderStage, maxUniformBuffersPerShaderStage;
    uint64_t maxUniformBufferBindingSize, maxStorageBufferBindingSize;
    uint32_t minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment, maxVertexBuffers;
    uint64_t maxBufferSize;
    uint32_t maxVertexAttributes, maxVertexBufferArrayStride, maxInterStageShaderComponents;
    uint32_t maxInterStageShaderVariables, maxColorAttachments, maxColorAttachmentBytesPerSample;
    uint32_t maxComputeWorkgroupStorageSize, maxComputeInvocationsPerWorkgroup;
    uint32_t maxComputeWorkgroupSizeX, maxComputeWorkgroupSizeY, maxComputeWorkgroupSizeZ;
    uint32_t maxComputeWorkgroupsPerDimension;
    uint32_t maxStorageBuffersInVertexStage, maxStorageTexturesInVertexStage;
    uint32_t maxStorageBuffersInFragmentStage, maxStorageTexturesInFragmentStage;
} dawn2025_limits;
_Static_assert(offsetof(dawn2025_limits, maxUniformBufferBindingSize) == 56, "transition ABI: limits");
_Static_assert(offsetof(dawn2025_limits, maxBufferSize) == 88, "transition ABI: limits");
_Static_assert(offsetof(dawn2025_limits, maxComputeWorkgroupsPerDimension) == 140, "transition ABI: limits");
_Static_assert(sizeof(dawn2025_limits) == 160, "transition ABI: limits");

typedef struct dawn2025_supported_limits {
    WGPUChainedStruct *nextInChain;
    dawn2025_limits limits;
} dawn2025_supported_limits;

/* Its WGPUComputePassTimestampWrites: webgpu.h's without the chain pointer. */
typedef struct dawn2025_pass_writes {
    WGPUQuerySet querySet;
    uint32_t beginningOfPassWriteIndex, endOfPassWriteIndex;
} dawn2025_pass_writes;
_Static_assert(sizeof(dawn2025_pass_writes) == 16, "transition ABI: pass timestamp writes");
_Static_assert(offsetof(WGPUComputePassDescriptor, timestampWrites) == 24, "pass descriptor layout");

_Static_assert(sizeof(wgprof_rec_dawn2025_adapter_options) == 40, "transition ABI: adapter options");
_Static_assert(offsetof(wgprof_rec_dawn2025_adapter_options, featureLevel) == 16, "transition ABI: adapter options");

/* Its on-submitted-work-done callback has no message. */
typedef void (*dawn2025_work_done_cb)(WGPUQueueWorkDoneStatus status, void *userdata1, void *userdata2);
typedef struct dawn2025_work_done_info {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    dawn2025_work_done_cb callback;
    void *userdata1, *userdata2;
} dawn2025_work_done_info;

/* Its feature numbers for the features of webgpu.h it has (a value of 0 here: none). Dawn's
 * own features (0x0005xxxx) have the same numbers in both. */
static const struct {
    uint32_t dawn2025, webgpu_h;
} FEATURES[] = {
    {1, 0x02},  /* DepthClipControl */
    {2, 0x03},  /* Depth32FloatStencil8 */
    {3, 0x09},  /* TimestampQuery */
    {4, 0x04},  /* TextureCompressionBC */
    {5, 0x06},  /* TextureCompressionETC2 */
    {6, 0x07},  /* TextureCompressionASTC */
    {7, 0x0A},  /* IndirectFirstInstance */
    {8, 0x0B},  /* ShaderF16 */
    {9, 0x0C},  /* RG11B10UfloatRenderable */
    {10, 0x0D}, /* BGRA8UnormStorage */
    {11, 0x0E}, /* Float32Filterable */
    {12, 0x0F}, /* Float32Blendable */
    {13, 0x12}, /* Subgroups */
    {0x50036, 0x10}, /* ClipDistances: one of Dawn's own there */
    {0x50008, 0x11}, /* DualSourceBlending: likewise */
};
/* Where a standard value of one ABI has no counterpart in the other, it is carried in this range
 * (no ABI uses it) so that a round trip gives it back. */
static const uint32_t UNMATCHED = 0x7FFE0000u;
static const uint32_t STANDARD_END = 0x10000u; /* values below are the standard's, above an implementation's own */

/* ---- identification ---- */

static wgprof_rec_abi g_abi = WGPROF_REC_ABI_WEBGPU_H;

static const char *const TRANSITION_MARKS[] = {
    "wgpuInstanceRequestAdapter2", "wgpuInstanceRequestAdapterF",           "wgpuAdapterRequestDevice2",
    "wgpuAdapterRequestDeviceF",   "wgpuBufferMapAsync2",                   "wgpuQueueOnSubmittedWorkDone2",
    "wgpuDevicePopErrorScope2",    "wgpuDeviceCreateComputePipelineAsync2", "wgpuDeviceCreateComputePipelineAsyncF"};
/* What both ABIs wgprof knows have and older ones lack (string views, feature lists, futures). */
static const char *const STRINGVIEW_MARKS[] = {"wgpuSupportedFeaturesFreeMembers", "wgpuAdapterGetInfo",
                                               "wgpuInstanceWaitAny", "wgpuAdapterInfoFreeMembers"};

wgprof_rec_abi wgprof_rec_abi_identify(void *handle, wgprof_rec_lookup lookup, uint32_t expected_wgpu_major, char *why,
                                       size_t cap)
{
    why[0] = '\0';
    uint32_t (*get_version)(void) = NULL;
    *(void **)&get_version = lookup(handle, "wgpuGetVersion");
    if (get_version) {
        uint32_t v = get_version();
        if (v >> 24 == expected_wgpu_major) {
            return WGPROF_REC_ABI_WEBGPU_H;
        }
        snprintf(why, cap, "it is wgpu-native %u.%u.%u and wgprof was built for wgpu-native %u (struct layouts differ "
                 "between major versions)", v >> 24, (v >> 16) & 0xFF, (v >> 8) & 0xFF, expected_wgpu_major);
        return WGPROF_REC_ABI_UNKNOWN;
    }
    if (!lookup(handle, "wgpuDeviceTick")) {
        snprintf(why, cap, "it is neither wgpu-native (no wgpuGetVersion) nor Dawn (no wgpuDeviceTick)");
        return WGPROF_REC_ABI_UNKNOWN;
    }
    for (size_t i = 0; i < sizeof STRINGVIEW_MARKS / sizeof *STRINGVIEW_MARKS; i++) {
        if (!lookup(handle, STRINGVIEW_MARKS[i])) {
            snprintf(why, cap, "it is a Dawn older than the ABIs wgprof knows (it has no %s)", STRINGVIEW_MARKS[i]);
            return WGPROF_REC_ABI_UNKNOWN;
        }
    }
    size_t marks = 0, total = sizeof TRANSITION_MARKS / sizeof *TRANSITION_MARKS;
    const char *lacking = NULL;
    for (size_t i = 0; i < total; i++) {
        if (lookup(handle, TRANSITION_MARKS[i])) {
            marks++;
        } else {
            lacking = TRANSITION_MARKS[i];
        }
    }
    if (marks == 0) {
        return WGPROF_REC_ABI_WEBGPU_H;
    }
    if (marks == total) {
        return WGPROF_REC_ABI_DAWN_2025;
    }
    snprintf(why, cap, "it is a Dawn between the ABIs wgprof knows (it has %zu of the %zu callback-info "
             "transition functions; not %s)", marks, total, lacking);
    return WGPROF_REC_ABI_UNKNOWN;
}

wgprof_rec_abi wgprof_rec_abi_current(void) { return g_abi; }

const char *wgprof_rec_abi_name(wgprof_rec_abi abi)
{
    switch (abi) {
    case WGPROF_REC_ABI_WEBGPU_H:
        return "webgpu.h";
    case WGPROF_REC_ABI_DAWN_2025:
        return "Dawn's callback-info transition ABI (2024-2025)";
    case WGPROF_REC_ABI_UNKNOWN:
        break;
    }
    return "unknown";
}

/* ---- feature numbers ---- */

WGPUFeatureName wgprof_rec_abi_feature_in(WGPUFeatureName value)
{
    uint32_t v = (uint32_t)value;
    if (g_abi != WGPROF_REC_ABI_DAWN_2025 || v == 0) {
        return value;
    }
    for (size_t i = 0; i < sizeof FEATURES / sizeof *FEATURES; i++) {
        if (FEATURES[i].dawn2025 == v) {
            return (WGPUFeatureName)FEATURES[i].webgpu_h;
        }
    }
    return (WGPUFeatureName)(v < STANDARD_END ? UNMATCHED | v : v);
}

WGPUFeatureName wgprof_rec_abi_feature_out(WGPUFeatureName value)
{
    uint32_t v = (uint32_t)value;
    if (g_abi != WGPROF_REC_ABI_DAWN_2025 || v == 0) {
        return value;
    }
    if ((v & 0xFFFF0000u) == UNMATCHED) {
        return (WGPUFeatureName)(v & 0xFFFFu);
    }
    for (size_t i = 0; i < sizeof FEATURES / sizeof *FEATURES; i++) {
        if (FEATURES[i].webgpu_h == v) {
            return (WGPUFeatureName)FEATURES[i].dawn2025;
        }
    }
    return (WGPUFeatureName)(v < STANDARD_END ? UNMATCHED | v : v);
}

void wgprof_rec_abi_features_out(WGPUFeatureName *features, size_t count)
{
    for (size_t i = 0; features && i < count; i++) {
        features[i] = wgprof_rec_abi_feature_out(features[i]);
    }
}

/* ---- the program's pass descriptor ---- */

const WGPUComputePassDescriptor *wgprof_rec_abi_pass_in(const WGPUComputePassDescriptor *d,
                                                         WGPUComputePassDescriptor *copy,
                                                         WGPUPassTimestampWrites *writes)
{
    if (g_abi != WGPROF_REC_ABI_DAWN_2025 || !d || !d->timestampWrites) {
        return d;
    }
    const dawn2025_pass_writes *theirs = (const dawn2025_pass_writes *)(const void *)d->timestampWrites;
    *writes = (WGPUPassTimestampWrites){.querySet = theirs->querySet,
                                        .beginningOfPassWriteIndex = theirs->beginningOfPassWriteIndex,
                                        .endOfPassWriteIndex = theirs->endOfPassWriteIndex};
    *copy = *d;
    copy->timestampWrites = writes;
    return copy;
}

/* ---- webgpu.h's functions over the transition ABI's ---- */

static struct {
    WGPUStatus (*adapter_get_limits)(WGPUAdapter, dawn2025_supported_limits *);
    WGPUStatus (*device_get_limits)(WGPUDevice, dawn2025_supported_limits *);
    WGPUBool (*adapter_has_feature)(WGPUAdapter, WGPUFeatureName);
    WGPUBool (*device_has_feature)(WGPUDevice, WGPUFeatureName);
    void (*adapter_get_features)(WGPUAdapter, WGPUSupportedFeatures *);
    void (*device_get_features)(WGPUDevice, WGPUSupportedFeatures *);
    WGPUComputePassEncoder (*begin_compute_pass)(WGPUCommandEncoder, const WGPUComputePassDescriptor *);
    WGPUFuture (*work_done2)(WGPUQueue, dawn2025_work_done_info);
    wgprof_rec_legacy legacy;
} g_dawn2025;

static WGPUFuture adapter_request(WGPUInstance instance, WGPURequestAdapterOptions const *options,
                                  WGPURequestAdapterCallbackInfo callbackInfo)
{
    wgprof_rec_dawn2025_adapter_options theirs = {0};
    if (options) {
        theirs = (wgprof_rec_dawn2025_adapter_options){.nextInChain = options->nextInChain,
                                            .compatibleSurface = options->compatibleSurface,
                                            .featureLevel = (uint32_t)options->featureLevel,
                                            .powerPreference = (uint32_t)options->powerPreference,
                                            .backendType = (uint32_t)options->backendType,
                                            .forceFallbackAdapter = options->forceFallbackAdapter};
    }
    return g_dawn2025.legacy.request_adapter2(instance, options ? &theirs : NULL, callbackInfo);
}

static void limits_in(const dawn2025_limits *d, WGPULimits *l)
{
    WGPUChainedStruct *chain = l->nextInChain;
    *l = (WGPULimits){
        .nextInChain = chain,
        .maxTextureDimension1D = d->maxTextureDimension1D,
        .maxTextureDimension2D = d->maxTextureDimension2D,
        .maxTextureDimension3D = d->maxTextureDimension3D,
        .maxTextureArrayLayers = d->maxTextureArrayLayers,
        .maxBindGroups = d->maxBindGroups,
        .maxBindGroupsPlusVertexBuffers = d->maxBindGroupsPlusVertexBuffers,
        .maxBindingsPerBindGroup = d->maxBindingsPerBindGroup,
        .maxDynamicUniformBuffersPerPipelineLayout = d->maxDynamicUniformBuffersPerPipelineLayout,
        .maxDynamicStorageBuffersPerPipelineLayout = d->maxDynamicStorageBuffersPerPipelineLayout,
        .maxSampledTexturesPerShaderStage = d->maxSampledTexturesPerShaderStage,
        .maxSamplersPerShaderStage = d->maxSamplersPerShaderStage,
        .maxStorageBuffersPerShaderStage = d->maxStorageBuffersPerShaderStage,
        .maxStorageTexturesPerShaderStage = d->maxStorageTexturesPerShaderStage,
        .maxUniformBuffersPerShaderStage = d->maxUniformBuffersPerShaderStage,
        .maxUniformBufferBindingSize = d->maxUniformBufferBindingSize,
        .maxStorageBufferBindingSize = d->maxStorageBufferBindingSize,
        .minUniformBufferOffsetAlignment = d->minUniformBufferOffsetAlignment,
        .minStorageBufferOffsetAlignment = d->minStorageBufferOffsetAlignment,
        .maxVertexBuffers = d->maxVertexBuffers,
        .maxBufferSize = d->maxBufferSize,
        .maxVertexAttributes = d->maxVertexAttributes,
        .maxVertexBufferArrayStride = d->maxVertexBufferArrayStride,
        .maxInterStageShaderVariables = d->maxInterStageShaderVariables,
        .maxColorAttachments = d->maxColorAttachments,
        .maxColorAttachmentBytesPerSample = d->maxColorAttachmentBytesPerSample,
        .maxComputeWorkgroupStorageSize = d->maxComputeWorkgroupStorageSize,
        .maxComputeInvocationsPerWorkgroup = d->maxComputeInvocationsPerWorkgroup,
        .maxComputeWorkgroupSizeX = d->maxComputeWorkgroupSizeX,
        .maxComputeWorkgroupSizeY = d->maxComputeWorkgroupSizeY,
        .maxComputeWorkgroupSizeZ = d->maxComputeWorkgroupSizeZ,
        .maxComputeWorkgroupsPerDimension = d->maxComputeWorkgroupsPerDimension,
    };
}

static WGPUStatus adapter_limits(WGPUAdapter adapter, WGPULimits *limits)
{
    dawn2025_supported_limits theirs = {0};
    WGPUStatus st = g_dawn2025.adapter_get_limits(adapter, &theirs);
    if (st == WGPUStatus_Success && limits) {
        limits_in(&theirs.limits, limits);
    }
    return st;
}

static WGPUStatus device_limits(WGPUDevice device, WGPULimits *limits)
{
    dawn2025_supported_limits theirs = {0};
    WGPUStatus st = g_dawn2025.device_get_limits(device, &theirs);
    if (st == WGPUStatus_Success && limits) {
        limits_in(&theirs.limits, limits);
    }
    return st;
}

static WGPUBool adapter_has(WGPUAdapter adapter, WGPUFeatureName f)
{
    return g_dawn2025.adapter_has_feature(adapter, wgprof_rec_abi_feature_out(f));
}

static WGPUBool device_has(WGPUDevice device, WGPUFeatureName f)
{
    return g_dawn2025.device_has_feature(device, wgprof_rec_abi_feature_out(f));
}

/* The implementation's list, which it frees, as writable: its numbers are rewritten in place. */
static WGPUFeatureName *writable_list(const WGPUSupportedFeatures *features)
{
    WGPUFeatureName *list;
    memcpy(&list, &features->features, sizeof list);
    return list;
}

void wgprof_rec_abi_supported_out(WGPUSupportedFeatures *features)
{
    wgprof_rec_abi_features_out(writable_list(features), features->featureCount);
}

/* wgprof_rec_abi_supported_out writes them back before the program sees them. */
static void features_in(WGPUSupportedFeatures *features)
{
    WGPUFeatureName *list = writable_list(features);
    for (size_t i = 0; list && i < features->featureCount; i++) {
        list[i] = wgprof_rec_abi_feature_in(list[i]);
    }
}

static void adapter_features(WGPUAdapter adapter, WGPUSupportedFeatures *features)
{
    g_dawn2025.adapter_get_features(adapter, features);
    if (features) {
        features_in(features);
    }
}

static void device_features(WGPUDevice device, WGPUSupportedFeatures *features)
{
    g_dawn2025.device_get_features(device, features);
    if (features) {
        features_in(features);
    }
}

static WGPUComputePassEncoder begin_compute_pass(WGPUCommandEncoder enc, WGPUComputePassDescriptor const *d)
{
    if (!d || !d->timestampWrites) {
        return g_dawn2025.begin_compute_pass(enc, d);
    }
    dawn2025_pass_writes writes = {.querySet = d->timestampWrites->querySet,
                                   .beginningOfPassWriteIndex = d->timestampWrites->beginningOfPassWriteIndex,
                                   .endOfPassWriteIndex = d->timestampWrites->endOfPassWriteIndex};
    WGPUComputePassDescriptor copy = *d;
    copy.timestampWrites = (const WGPUPassTimestampWrites *)(const void *)&writes;
    WGPUComputePassEncoder pass = g_dawn2025.begin_compute_pass(enc, &copy);
    /* (The pass is the implementation's object, not the descriptor: said for static analysis.) */
    return pass ? pass : NULL;
}

typedef struct work_done {
    WGPUQueueWorkDoneCallback callback;
    void *userdata1, *userdata2;
} work_done;

static void on_work_done(WGPUQueueWorkDoneStatus status, void *userdata1, void *userdata2)
{
    (void)userdata2;
    work_done w = *(work_done *)userdata1;
    wgprof__free(userdata1);
    if (w.callback) {
        w.callback(status, (WGPUStringView){NULL, 0}, w.userdata1, w.userdata2);
    }
}

static WGPUFuture work_done_2(WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo info)
{
    work_done *w = wgprof__calloc(1, sizeof *w);
    if (!w) {
        /* The callback is still called, as the implementation would on a lost device. */
        if (info.callback) {
            info.callback(WGPUQueueWorkDoneStatus_Error, (WGPUStringView){NULL, 0}, info.userdata1, info.userdata2);
        }
        return (WGPUFuture){0};
    }
    *w = (work_done){info.callback, info.userdata1, info.userdata2};
    dawn2025_work_done_info theirs = {.nextInChain = info.nextInChain, .mode = info.mode, .callback = on_work_done,
                                      .userdata1 = w};
    return g_dawn2025.work_done2(queue, theirs);
}

/* Copies dlsym's answer into a function pointer (one representation, POSIX). */
#define FIND(dst, name)                                                                                               \
    do {                                                                                                              \
        void *fn_ = lookup(handle, name);                                                                             \
        memcpy(&(dst), &fn_, sizeof fn_);                                                                             \
    } while (0)

bool wgprof_rec_abi_adapt(wgprof_rec_abi abi, void *handle, wgprof_rec_lookup lookup, wgprof__webgpu_procs *procs)
{
    g_abi = abi;
    if (abi != WGPROF_REC_ABI_DAWN_2025) {
        return abi == WGPROF_REC_ABI_WEBGPU_H;
    }
    /* The names webgpu.h gives a different signature are Dawn's older forms here. */
    FIND(g_dawn2025.legacy.request_adapter2, "wgpuInstanceRequestAdapter2");
    FIND(g_dawn2025.legacy.request_device2, "wgpuAdapterRequestDevice2");
    FIND(g_dawn2025.legacy.compute_pipeline_async2, "wgpuDeviceCreateComputePipelineAsync2");
    FIND(procs->bufferMapAsync, "wgpuBufferMapAsync2");
    FIND(procs->devicePopErrorScope, "wgpuDevicePopErrorScope2");
    FIND(g_dawn2025.work_done2, "wgpuQueueOnSubmittedWorkDone2");
    FIND(g_dawn2025.adapter_get_limits, "wgpuAdapterGetLimits");
    FIND(g_dawn2025.device_get_limits, "wgpuDeviceGetLimits");
    FIND(g_dawn2025.adapter_has_feature, "wgpuAdapterHasFeature");
    FIND(g_dawn2025.device_has_feature, "wgpuDeviceHasFeature");
    FIND(g_dawn2025.adapter_get_features, "wgpuAdapterGetFeatures");
    FIND(g_dawn2025.device_get_features, "wgpuDeviceGetFeatures");
    FIND(g_dawn2025.begin_compute_pass, "wgpuCommandEncoderBeginComputePass");
    if (!g_dawn2025.legacy.request_adapter2 || !g_dawn2025.legacy.request_device2 || !g_dawn2025.legacy.compute_pipeline_async2 ||
        !procs->bufferMapAsync || !procs->devicePopErrorScope || !g_dawn2025.work_done2 ||
        !g_dawn2025.adapter_get_limits || !g_dawn2025.device_get_limits || !g_dawn2025.adapter_has_feature ||
        !g_dawn2025.device_has_feature || !g_dawn2025.adapter_get_features || !g_dawn2025.device_get_features ||
        !g_dawn2025.begin_compute_pass) {
        g_abi = WGPROF_REC_ABI_UNKNOWN;
        return false;
    }
    procs->instanceRequestAdapter = adapter_request;
    procs->adapterRequestDevice = g_dawn2025.legacy.request_device2;
    procs->deviceCreateComputePipelineAsync = g_dawn2025.legacy.compute_pipeline_async2;
    procs->queueOnSubmittedWorkDone = work_done_2;
    procs->adapterGetLimits = adapter_limits;
    procs->deviceGetLimits = device_limits;
    procs->adapterHasFeature = adapter_has;
    procs->deviceHasFeature = device_has;
    procs->adapterGetFeatures = adapter_features;
    procs->deviceGetFeatures = device_features;
    procs->commandEncoderBeginComputePass = begin_compute_pass;
    return true;
}

const wgprof_rec_legacy *wgprof_rec_abi_legacy(void) { return &g_dawn2025.legacy; }

/* ---- which of this library's functions answer a program's lookup ---- */

/* Under the transition ABI: the hooks whose signature is the same in both ABIs, or that read the
 * program's values in its ABI, and the hooks of its own forms. Every other name is the
 * implementation's own function (its older forms under webgpu.h's names among them). */
static const char *const DAWN2025_HOOKS[] = {
    "wgpuInstanceRequestAdapter2", "wgpuInstanceRequestAdapterF", "wgpuAdapterRequestDevice2", "wgpuAdapterRequestDeviceF", "wgpuDeviceCreateComputePipelineAsync2",
    "wgpuDeviceCreateComputePipelineAsyncF", "wgpuDeviceHasFeature", "wgpuDeviceGetFeatures",
    "wgpuSupportedFeaturesFreeMembers", "wgpuDeviceAddRef", "wgpuDeviceRelease", "wgpuDeviceDestroy",
    "wgpuInstanceProcessEvents", "wgpuDeviceCreateShaderModule", "wgpuShaderModuleRelease",
    "wgpuDeviceCreateComputePipeline", "wgpuComputePipelineAddRef", "wgpuComputePipelineRelease",
    "wgpuComputePipelineGetBindGroupLayout", "wgpuComputePipelineSetLabel", "wgpuDeviceCreateCommandEncoder",
    "wgpuCommandEncoderPushDebugGroup", "wgpuCommandEncoderPopDebugGroup", "wgpuCommandEncoderBeginComputePass",
    "wgpuComputePassEncoderSetPipeline", "wgpuComputePassEncoderPushDebugGroup",
    "wgpuComputePassEncoderPopDebugGroup", "wgpuComputePassEncoderDispatchWorkgroups",
    "wgpuComputePassEncoderDispatchWorkgroupsIndirect", "wgpuComputePassEncoderEnd", "wgpuComputePassEncoderRelease",
    "wgpuCommandEncoderFinish", "wgpuCommandEncoderRelease", "wgpuCommandBufferRelease", "wgpuQueueSubmit",
    "wgpuCommandEncoderBeginRenderPass", "wgpuCommandEncoderClearBuffer", "wgpuCommandEncoderCopyBufferToBuffer",
    "wgpuCommandEncoderCopyBufferToTexture", "wgpuCommandEncoderCopyTextureToBuffer",
    "wgpuCommandEncoderCopyTextureToTexture", "wgpuCommandEncoderResolveQuerySet", "wgpuCommandEncoderWriteTimestamp"};

/* Dawn's callback forms under webgpu.h's names, answered by hooks exported under names of ours. */
static const struct {
    const char *name, *ours;
} DAWN2025_RENAMED[] = {
    {"wgpuInstanceRequestAdapter", "wgprof_rec_dawn2025_wgpuInstanceRequestAdapter"},
    {"wgpuAdapterRequestDevice", "wgprof_rec_dawn2025_wgpuAdapterRequestDevice"},
    {"wgpuDeviceCreateComputePipelineAsync", "wgprof_rec_dawn2025_wgpuDeviceCreateComputePipelineAsync"},
};

wgprof_rec_answer wgprof_rec_abi_answer(const char *name, const char **ours)
{
    *ours = name;
    switch (g_abi) {
    case WGPROF_REC_ABI_WEBGPU_H:
        return WGPROF_REC_ANSWER_OURS_ELSE_THEIRS;
    case WGPROF_REC_ABI_DAWN_2025:
        for (size_t i = 0; i < sizeof DAWN2025_HOOKS / sizeof *DAWN2025_HOOKS; i++) {
            if (strcmp(name, DAWN2025_HOOKS[i]) == 0) {
                return WGPROF_REC_ANSWER_OURS;
            }
        }
        for (size_t i = 0; i < sizeof DAWN2025_RENAMED / sizeof *DAWN2025_RENAMED; i++) {
            if (strcmp(name, DAWN2025_RENAMED[i].name) == 0) {
                *ours = DAWN2025_RENAMED[i].ours;
                return WGPROF_REC_ANSWER_OURS;
            }
        }
        return WGPROF_REC_ANSWER_THEIRS;
    case WGPROF_REC_ABI_UNKNOWN:
        break;
    }
    return WGPROF_REC_ANSWER_THEIRS;
}
