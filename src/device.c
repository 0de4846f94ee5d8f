/*
 * The device context: instance, adapter and device set-up, timestamp feature detection, and
 * device loss (waits live in device_wait.c, the public helpers in device_util.c).
 *
 * Timestamp features are requested only where the adapter has them, so that a device is always
 * created: profiling fails open and the work runs unprofiled.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device_internal.h"
#include "webgpu_ext.h"

static void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                       void *userdata1, void *userdata2)
{
    (void)userdata2;
    wgprof__waiter *w = userdata1;
    w->status = (int)status;
    w->handle = adapter;
    wgprof__copy_view(w->message, sizeof w->message, message);
    wgprof__waiter_signal(w);
}

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                      void *userdata1, void *userdata2)
{
    (void)userdata2;
    wgprof__waiter *w = userdata1;
    w->status = (int)status;
    w->handle = device;
    wgprof__copy_view(w->message, sizeof w->message, message);
    wgprof__waiter_signal(w);
}

static void on_lost(WGPUDevice const *device, WGPUDeviceLostReason reason, WGPUStringView message,
                    void *userdata1, void *userdata2)
{
    (void)device;
    (void)userdata2;
    wgprof_device *d = userdata1;
    atomic_store(&d->lost, true);
    /* Our own release of the device at destroy also reports a loss; that one is expected. */
    if (!atomic_load(&d->destroying)) {
        char text[256];
        wgprof__copy_view(text, sizeof text, message);
        wgprof__log(WGPROF_LOG_ERROR, "device lost (reason %d): %s", (int)reason, text);
    }
}

static void on_uncaptured_error(WGPUDevice const *device, WGPUErrorType type, WGPUStringView message,
                                void *userdata1, void *userdata2)
{
    (void)device;
    (void)userdata2;
    atomic_fetch_add(&((wgprof_device *)userdata1)->errors, 1);
    char text[768];
    wgprof__copy_view(text, sizeof text, message);
    wgprof__log(WGPROF_LOG_ERROR, "WebGPU error (type %d): %s", (int)type, text);
}

static const char *backend_name(WGPUBackendType t)
{
    switch (t) {
    case WGPUBackendType_Null: return "null";
    case WGPUBackendType_WebGPU: return "webgpu";
    case WGPUBackendType_D3D11: return "d3d11";
    case WGPUBackendType_D3D12: return "d3d12";
    case WGPUBackendType_Metal: return "metal";
    case WGPUBackendType_Vulkan: return "vulkan";
    case WGPUBackendType_OpenGL: return "opengl";
    case WGPUBackendType_OpenGLES: return "opengles";
    default: return "unknown";
    }
}

static const char *adapter_type_name(WGPUAdapterType t)
{
    switch (t) {
    case WGPUAdapterType_DiscreteGPU: return "discrete";
    case WGPUAdapterType_IntegratedGPU: return "integrated";
    case WGPUAdapterType_CPU: return "cpu";
    default: return "unknown";
    }
}

static WGPUInstance create_instance(void)
{
    WGPUInstanceDescriptor desc = {0};
    wgprof__chain chain;
    wgprof__ext_chain_instance(&desc, &chain);
    if (!wgprof__wgpu()->createInstance) {
        wgprof__log(WGPROF_LOG_ERROR, "no WebGPU implementation in the process: the program links or loads none");
        return NULL;
    }
    return wgprof__wgpu()->createInstance(&desc);
}

static void fill_adapter_info(wgprof_device *d)
{
    /* From the adapter only: wgpu-native 29 aborts in wgpuDeviceGetAdapterInfo. */
    WGPUAdapterInfo ai = {0};
    if (d->adapter && wgprof__wgpu()->adapterGetInfo(d->adapter, &ai) == WGPUStatus_Success) {
        wgprof__copy_view(d->info.adapter, sizeof d->info.adapter, ai.device);
        wgprof__copy_view(d->info.vendor, sizeof d->info.vendor, ai.vendor);
        wgprof__copy_view(d->info.architecture, sizeof d->info.architecture, ai.architecture);
        wgprof__copy_view(d->info.driver, sizeof d->info.driver, ai.description);
        d->info.backend = backend_name(ai.backendType);
        d->info.adapter_type = adapter_type_name(ai.adapterType);
        d->info.vendor_id = ai.vendorID;
        d->info.device_id = ai.deviceID;
        wgprof__wgpu()->adapterInfoFreeMembers(ai);
    } else {
        d->info.backend = "unknown";
        d->info.adapter_type = "unknown";
    }
}

/* The limits compute work runs into, raised to what the adapter offers (WebGPU's defaults are
 * far below most adapters': a 256 MiB buffer where lavapipe offers 2 GiB); the others keep
 * their defaults. */
/* Every limit "undefined" (the implementation's default): each field is a uint32_t or uint64_t
 * whose undefined value is all ones, as WGPU_LIMITS_INIT sets them. */
static void undefined_limits(WGPULimits *limits)
{
    memset(limits, 0xFF, sizeof *limits);
    limits->nextInChain = NULL;
}

static void compute_limits(WGPUAdapter adapter, WGPULimits *out)
{
    undefined_limits(out);
    WGPULimits a;
    undefined_limits(&a);
    if (wgprof__wgpu()->adapterGetLimits(adapter, &a) != WGPUStatus_Success) {
        return;
    }
    out->maxBufferSize = a.maxBufferSize;
    out->maxStorageBufferBindingSize = a.maxStorageBufferBindingSize;
    out->maxUniformBufferBindingSize = a.maxUniformBufferBindingSize;
    out->maxStorageBuffersPerShaderStage = a.maxStorageBuffersPerShaderStage;
    out->maxComputeWorkgroupStorageSize = a.maxComputeWorkgroupStorageSize;
    out->maxComputeInvocationsPerWorkgroup = a.maxComputeInvocationsPerWorkgroup;
    out->maxComputeWorkgroupSizeX = a.maxComputeWorkgroupSizeX;
    out->maxComputeWorkgroupSizeY = a.maxComputeWorkgroupSizeY;
    out->maxComputeWorkgroupSizeZ = a.maxComputeWorkgroupSizeZ;
    out->maxComputeWorkgroupsPerDimension = a.maxComputeWorkgroupsPerDimension;
}

static wgprof_status request_device(wgprof_device *d, const WGPUFeatureName *features, size_t count)
{
    wgprof__waiter *w = wgprof__waiter_new();
    if (!w) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    WGPULimits limits;
    compute_limits(d->adapter, &limits);
    WGPUDeviceDescriptor dd = {0};
    dd.label = (WGPUStringView){"wgprof", WGPU_STRLEN};
    dd.requiredLimits = &limits;
    WGPUFeatureName all[8];
    size_t n = 0;
    for (; n < count && n < sizeof all / sizeof all[0]; n++) {
        all[n] = features[n];
    }
    wgprof__chain chain;
    dd.requiredFeatureCount = wgprof__ext_chain_device(&dd, &chain, all, n, sizeof all / sizeof all[0]);
    dd.requiredFeatures = all;
    dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
    dd.deviceLostCallbackInfo.callback = on_lost;
    dd.deviceLostCallbackInfo.userdata1 = d;
    dd.uncapturedErrorCallbackInfo.callback = on_uncaptured_error;
    dd.uncapturedErrorCallbackInfo.userdata1 = d;
    WGPURequestDeviceCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = on_device;
    cb.userdata1 = w;
    w->future = wgprof__wgpu()->adapterRequestDevice(d->adapter, &dd, cb);
    wgprof_status s = wgprof__wait_flag(d->instance, NULL, d->wait_timeout_s, w, NULL);
    if (s == WGPROF_OK) {
        if (w->status != (int)WGPURequestDeviceStatus_Success || !w->handle) {
            wgprof__log(WGPROF_LOG_ERROR, "the adapter created no device: %s", w->message);
            s = WGPROF_ERR_NO_DEVICE;
        } else {
            d->device = w->handle;
        }
    }
    wgprof__waiter_release(w);
    return s;
}

static wgprof_status request_adapter(wgprof_device *d, const wgprof_device_desc *desc)
{
    wgprof__waiter *w = wgprof__waiter_new();
    if (!w) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    WGPURequestAdapterOptions opts = {0};
    opts.backendType = desc->backend;
    opts.powerPreference = desc->power;
    wgprof__chain chain;
    wgprof__ext_chain_adapter(&opts, &chain);
    WGPURequestAdapterCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = on_adapter;
    cb.userdata1 = w;
    w->future = wgprof__wgpu()->instanceRequestAdapter(d->instance, &opts, cb);
    wgprof_status s = wgprof__wait_flag(d->instance, NULL, d->wait_timeout_s, w, NULL);
    if (s == WGPROF_OK) {
        if (w->status != (int)WGPURequestAdapterStatus_Success || !w->handle) {
            wgprof__log(WGPROF_LOG_ERROR, "no WebGPU adapter: %s (%s)", w->message[0] ? w->message : "none offered",
                        wgprof__ext_get()->no_adapter_hint);
            s = WGPROF_ERR_NO_ADAPTER;
        } else {
            d->adapter = w->handle;
        }
    }
    wgprof__waiter_release(w);
    return s;
}

double wgprof_device_timestamp_period(const wgprof_device *device)
{
    const wgprof__ext *ext = wgprof__ext_get();
    if (!device || !ext->queue_timestamp_period) {
        return 1.0;
    }
    double p = (double)ext->queue_timestamp_period(device->queue);
    /* A period that is not a positive finite number cannot convert anything; 1.0 is what the
     * WebGPU specification promises (timestamps in ns) where no period is exposed. */
    return (isfinite(p) && p > 0.0) ? p : 1.0;
}

static void fill_device_state(wgprof_device *d, bool disabled);

wgprof_status wgprof_device_create(const wgprof_device_desc *desc, wgprof_device **out)
{
    if (!out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    wgprof_device_desc defaults = {0};
    if (!desc) {
        desc = &defaults;
    }
    if ((unsigned)desc->backend > WGPUBackendType_OpenGLES || (unsigned)desc->power > WGPUPowerPreference_HighPerformance ||
        !(desc->wait_timeout_s >= 0)) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_device_desc: backend %u, power %u or wait_timeout_s %g out of range",
                    (unsigned)desc->backend, (unsigned)desc->power, desc->wait_timeout_s);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_device *d = wgprof__calloc(1, sizeof *d);
    if (!d) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    d->wait_timeout_s = desc->wait_timeout_s > 0 ? desc->wait_timeout_s : WGPROF__DEFAULT_WAIT_TIMEOUT_S;
    wgprof_status s = WGPROF_OK;

    d->instance = create_instance();
    if (!d->instance) {
        wgprof__log(WGPROF_LOG_ERROR, "wgpuCreateInstance failed");
        s = WGPROF_ERR_NO_ADAPTER;
        goto fail;
    }

    s = request_adapter(d, desc);
    if (s != WGPROF_OK) {
        goto fail;
    }
    fill_adapter_info(d);

    const wgprof__ext *ext = wgprof__ext_get();
    bool disabled = desc->disable_timestamps || wgprof__env_read().disable_timestamps;
    bool has_ts = wgprof__wgpu()->adapterHasFeature(d->adapter, WGPUFeatureName_TimestampQuery) != 0;
    bool extensions = has_ts && !desc->core_timestamps_only;
    bool has_enc = extensions && ext->feature_inside_encoders &&
                   wgprof__wgpu()->adapterHasFeature(d->adapter, ext->feature_inside_encoders) != 0;
    bool has_pass = extensions && ext->pass_write_timestamp && ext->feature_inside_passes &&
                    wgprof__wgpu()->adapterHasFeature(d->adapter, ext->feature_inside_passes) != 0;
    d->info.timestamp_query = has_ts;

    WGPUFeatureName features[3];
    size_t nfeatures = 0;
    if (has_ts && !disabled) {
        features[nfeatures++] = WGPUFeatureName_TimestampQuery;
        if (has_enc) {
            features[nfeatures++] = ext->feature_inside_encoders;
        }
        if (has_pass) {
            features[nfeatures++] = ext->feature_inside_passes;
        }
    }
    s = request_device(d, features, nfeatures);
    if (s != WGPROF_OK) {
        goto fail;
    }
    /* Encoder timestamps without a feature: the toggle wgprof set on its own device. */
    d->encoder_timestamps_by_toggle = ext->encoder_timestamps_by_toggle && extensions;
    fill_device_state(d, disabled);
    *out = d;
    return WGPROF_OK;

fail:
    wgprof_device_destroy(d);
    return s;
}

/* What the created or wrapped device offers: features enabled, period, limits. */
static void fill_device_state(wgprof_device *d, bool disabled)
{
    const wgprof__ext *ext = wgprof__ext_get();
    /* Of a wrapped device, all that is known is what the device lacks. */
    bool adapter_has_ts = d->info.timestamp_query || d->wrapped;
    d->queue = wgprof__wgpu()->deviceGetQueue(d->device);
    d->info.profiling_available =
        !disabled && wgprof__wgpu()->deviceHasFeature(d->device, WGPUFeatureName_TimestampQuery);
    d->info.implementation = ext->name;
    d->info.timestamp_inside_encoders =
        d->info.profiling_available &&
        (d->encoder_timestamps_by_toggle ||
         (ext->feature_inside_encoders &&
          wgprof__wgpu()->deviceHasFeature(d->device, ext->feature_inside_encoders)));
    d->info.timestamp_inside_passes = d->info.profiling_available && ext->pass_write_timestamp &&
                                      ext->feature_inside_passes &&
                                      wgprof__wgpu()->deviceHasFeature(d->device, ext->feature_inside_passes);
    if (!d->info.profiling_available) {
        snprintf(d->info.unavailable_reason, sizeof d->info.unavailable_reason, "%s",
                 disabled ? "timestamp queries disabled by request (WGPROF_DISABLE_TIMESTAMPS)"
                 : adapter_has_ts ? "the device was created without the TimestampQuery feature"
                          : "the adapter has no TimestampQuery feature");
        wgprof__log(WGPROF_LOG_WARN, "profiling unavailable on %s: %s; work runs unprofiled",
                    d->info.adapter, d->info.unavailable_reason);
    }
    d->info.period_from_implementation = ext->queue_timestamp_period != NULL || ext->resolves_in_ns;
    d->info.timestamp_period_ns = wgprof_device_timestamp_period(d);

    WGPULimits limits;
    undefined_limits(&limits);
    if (wgprof__wgpu()->deviceGetLimits(d->device, &limits) == WGPUStatus_Success) {
        d->info.max_workgroups_per_dimension = limits.maxComputeWorkgroupsPerDimension;
        d->info.max_bind_groups = limits.maxBindGroups;
        d->info.max_buffer_size = limits.maxBufferSize;
        d->info.max_storage_buffer_binding_size = limits.maxStorageBufferBindingSize;
    }
}

wgprof_status wgprof_device_wrap(WGPUInstance instance, WGPUAdapter adapter, WGPUDevice device,
                                 wgprof_device **out)
{
    if (!instance || !device || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    wgprof_device *d = wgprof__calloc(1, sizeof *d);
    if (!d) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    d->wait_timeout_s = WGPROF__DEFAULT_WAIT_TIMEOUT_S;
    wgprof__wgpu()->instanceAddRef(instance);
    wgprof__wgpu()->deviceAddRef(device);
    if (adapter) {
        wgprof__wgpu()->adapterAddRef(adapter);
    }
    d->instance = instance;
    d->adapter = adapter;
    d->device = device;
    fill_adapter_info(d);
    d->wrapped = true;
    d->info.timestamp_query = wgprof__wgpu()->deviceHasFeature(device, WGPUFeatureName_TimestampQuery) != 0;
    fill_device_state(d, false);
    *out = d;
    return WGPROF_OK;
}

void wgprof_device_destroy(wgprof_device *d)
{
    if (!d) {
        return;
    }
    atomic_store(&d->destroying, true);
    if (d->queue) {
        wgprof__wgpu()->queueRelease(d->queue);
    }
    if (d->device) {
        wgprof__wgpu()->deviceRelease(d->device);
    }
    if (d->adapter) {
        wgprof__wgpu()->adapterRelease(d->adapter);
    }
    if (d->instance) {
        wgprof__wgpu()->instanceRelease(d->instance);
    }
    wgprof__free(d);
}

WGPUInstance wgprof_device_instance(const wgprof_device *d) { return d ? d->instance : NULL; }
WGPUDevice wgprof_device_webgpu(const wgprof_device *d) { return d ? d->device : NULL; }
WGPUQueue wgprof_device_queue(const wgprof_device *d) { return d ? d->queue : NULL; }
const wgprof_device_info *wgprof_device_describe(const wgprof_device *d) { return d ? &d->info : NULL; }
bool wgprof_device_is_lost(const wgprof_device *d) { return d && atomic_load(&d->lost); }

uint64_t wgprof__device_errors(const wgprof_device *d) { return atomic_load(&d->errors); }

wgprof_status wgprof__device_finish(const wgprof_device *d, WGPUCommandEncoder encoder, uint64_t errors_before,
                                    WGPUCommandBuffer *out)
{
    *out = wgprof__wgpu()->commandEncoderFinish(encoder, NULL);
    wgprof__wgpu()->commandEncoderRelease(encoder);
    wgprof_status s = WGPROF_OK;
    if (atomic_load(&d->lost)) {
        wgprof__log(WGPROF_LOG_ERROR, "the device is lost: nothing more is submitted");
        s = WGPROF_ERR_DEVICE_LOST;
    } else if (!*out || atomic_load(&d->errors) != errors_before) {
        wgprof__log(WGPROF_LOG_ERROR, "encoding raised a WebGPU error (logged above): the work was not submitted");
        s = WGPROF_ERR_WEBGPU;
    }
    if (s != WGPROF_OK && *out) {
        wgprof__wgpu()->commandBufferRelease(*out);
        *out = NULL;
    }
    return s;
}
