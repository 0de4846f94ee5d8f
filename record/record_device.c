/*
 * The devices the program creates, each a session: its request gets the timestamp features
 * (and on Dawn the toggles) that profiling needs, hidden again from the program's feature
 * queries; wgprof wraps the device on first use and times with one pool; the results are
 * written when the program lets go of the device (its last release, or destroy) and at exit,
 * and a snapshot of them at most once a second while it runs, so that a crash loses at most
 * the last second.
 *
 * Beside wgprof's Vulkan layer (record.h, RECORD_ENV_LAYER), a device whose adapter is on Vulkan
 * is the layer's: its request goes to the implementation as the program made it (no features,
 * no session); the names of its pipelines and its scopes reach the layer in process
 * (record_encode.c, record_scopes.c).
 *
 * Each session has a mutex of its own (record_lib.h says what it guards and what may not be
 * done under it): who holds each lane changes under it; the holder works on the lane's pool
 * outside it.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "record_lib.h"
#include "recorder.h"
#include "webgpu_ext.h"

enum { SNAPSHOT_EVERY_NS = 1000000000 };
/* Readback frames per lane: more than the library's default, since the program submits at its
 * own pace and a full ring drops a batch rather than wait. */
enum { LANE_FRAMES = 8 };

static atomic_bool g_atexit;

static void finish_session(wgprof_rec_session *s);

void wgprof_rec_finish_all(void)
{
    for (size_t i = 0; wgprof_rec_session_at(i); i++) {
        finish_session(wgprof_rec_session_at(i));
    }
}

static void at_exit(void) { wgprof_rec_finish_all(); }

static bool chain_has(const WGPUChainedStruct *chain, WGPUSType type);

/* ---- beside the Vulkan layer ---- */

static atomic_uint g_left_to_layer;

/* The layer's way to tell a device left to it from another of the process's (record.h). */
WGPROF_REC_EXPORT unsigned wgprof_record_left_to_layer(void);
WGPROF_REC_EXPORT unsigned wgprof_record_left_to_layer(void) { return atomic_load(&g_left_to_layer); }

static bool beside_layer(void) { return wgprof_rec_settings_get()->layer[0] != '\0'; }


/* Whether the layer times the devices of `adapter`: it is enabled beside this library and loaded
 * (the Vulkan loader loads it with the instance, before any adapter), and the adapter is on
 * Vulkan. Elsewhere (OpenGL, no Vulkan loader, the layer left out) this library times. */
static bool layer_times(WGPUAdapter adapter)
{
    if (!beside_layer() || !wgprof_rec_layer_loaded()) {
        return false;
    }
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    WGPUAdapterInfo info = {0};
    if (real->adapterGetInfo(adapter, &info) != WGPUStatus_Success) {
        return false;
    }
    bool vulkan = info.backendType == WGPUBackendType_Vulkan;
    real->adapterInfoFreeMembers(info);
    return vulkan;
}


/* ---- instances and adapters ---- */


/* Whether a descriptor chain already holds a struct of `type`. */
static bool chain_has(const WGPUChainedStruct *chain, WGPUSType type)
{
    for (; chain; chain = chain->next) {
        if (chain->sType == type) {
            return true;
        }
    }
    return false;
}

/* What the implementation needs chained for profiling (Dawn's toggles), put in front of the
 * program's own chain unless that chain already has such a struct (the program's toggles win:
 * Dawn takes one toggles struct). */
static WGPUChainedStruct *chain_ours(WGPUChainedStruct *ours, WGPUChainedStruct *theirs)
{
    if (!ours || chain_has(theirs, ours->sType)) {
        return theirs;
    }
    ours->next = theirs;
    return ours;
}

typedef struct adapter_request {
    WGPURequestAdapterCallbackInfo theirs;
    WGPUInstance instance;
} adapter_request;

/* Each adapter's instance, for wrapping its devices (a program may have several instances:
 * on Dawn the readbacks of a device complete only through its own instance's events). */
static void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message, void *userdata1,
                       void *userdata2)
{
    (void)userdata2;
    adapter_request *req = userdata1;
    if (status == WGPURequestAdapterStatus_Success && adapter) {
        wgprof_rec_adapter_put(adapter, req->instance);
    }
    if (req->theirs.callback) {
        req->theirs.callback(status, adapter, message, req->theirs.userdata1, req->theirs.userdata2);
    }
    wgprof__free(req);
}

/* The program's adapter request, its options copied (with wgprof's chain in front) by the
 * caller, made through `request`; the adapter's instance noted when it comes. */
typedef WGPUFuture (*request_adapter_fn)(WGPUInstance, void const *options, WGPURequestAdapterCallbackInfo);

static WGPUFuture request_adapter(WGPUInstance instance, void const *options, adapter_request *req,
                                  WGPURequestAdapterCallbackInfo callbackInfo, request_adapter_fn request)
{
    req->theirs = callbackInfo;
    req->instance = instance;
    WGPURequestAdapterCallbackInfo ours = callbackInfo;
    ours.callback = on_adapter;
    ours.userdata1 = req;
    ours.userdata2 = NULL;
    return request(instance, options, ours);
}

static WGPUFuture request_webgpu_h(WGPUInstance instance, void const *options, WGPURequestAdapterCallbackInfo info)
{
    return wgprof_rec_real()->instanceRequestAdapter(instance, options, info);
}

WGPROF_REC_EXPORT WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance,
                                                        WGPU_NULLABLE WGPURequestAdapterOptions const *options,
                                                        WGPURequestAdapterCallbackInfo callbackInfo)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    adapter_request *req = wgprof_rec_active() ? wgprof__calloc(1, sizeof *req) : NULL;
    if (!req) {
        return real->instanceRequestAdapter(instance, options, callbackInfo);
    }
    WGPURequestAdapterOptions copy = options ? *options : (WGPURequestAdapterOptions){0};
    WGPURequestAdapterOptions probe = {0};
    wgprof__chain storage;
    wgprof__ext_chain_adapter(&probe, &storage);
    copy.nextInChain = chain_ours(probe.nextInChain, copy.nextInChain);
    return request_adapter(instance, &copy, req, callbackInfo, request_webgpu_h);
}

/* ---- Dawn's adapter requests of the callback-info transition (record_abi.c) ---- */

static WGPUFuture request_dawn2025(WGPUInstance instance, void const *options, WGPURequestAdapterCallbackInfo info)
{
    return wgprof_rec_abi_legacy()->request_adapter2(instance, options, info);
}

/* Its "2" form: webgpu.h's callback, its own options. */
WGPROF_REC_EXPORT WGPUFuture wgpuInstanceRequestAdapter2(WGPUInstance instance,
                                                         wgprof_rec_dawn2025_adapter_options const *options,
                                                         WGPURequestAdapterCallbackInfo callbackInfo)
{
    wgprof_rec_real();
    if (wgprof_rec_abi_current() != WGPROF_REC_ABI_DAWN_2025) {
        wgprof_rec_missing("wgpuInstanceRequestAdapter2");
        return (WGPUFuture){0};
    }
    adapter_request *req = wgprof_rec_active() ? wgprof__calloc(1, sizeof *req) : NULL;
    if (!req) {
        return request_dawn2025(instance, options, callbackInfo);
    }
    wgprof_rec_dawn2025_adapter_options copy = options ? *options : (wgprof_rec_dawn2025_adapter_options){0};
    WGPURequestAdapterOptions probe = {0};
    wgprof__chain storage;
    wgprof__ext_chain_adapter(&probe, &storage);
    copy.nextInChain = chain_ours(probe.nextInChain, copy.nextInChain);
    return request_adapter(instance, &copy, req, callbackInfo, request_dawn2025);
}

/* Its one-userdata forms, through the "2" form, the program's callback and userdata carried in
 * the two userdata. */
static void on_adapter_one(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                           void *userdata1, void *userdata2)
{
    wgprof_rec_dawn2025_adapter_cb callback;
    memcpy(&callback, &userdata1, sizeof callback);
    if (callback) {
        callback(status, adapter, message, userdata2);
    }
}

static WGPUFuture request_adapter_one(WGPUInstance instance, wgprof_rec_dawn2025_adapter_options const *options,
                                      wgprof_rec_dawn2025_adapter_info info)
{
    WGPURequestAdapterCallbackInfo two = {.nextInChain = info.nextInChain, .mode = info.mode,
                                          .callback = on_adapter_one, .userdata2 = info.userdata};
    memcpy(&two.userdata1, &info.callback, sizeof info.callback);
    return wgpuInstanceRequestAdapter2(instance, options, two);
}

WGPROF_REC_EXPORT WGPUFuture wgpuInstanceRequestAdapterF(WGPUInstance instance,
                                                         wgprof_rec_dawn2025_adapter_options const *options,
                                                         wgprof_rec_dawn2025_adapter_info callbackInfo)
{
    return request_adapter_one(instance, options, callbackInfo);
}

/* Its wgpuInstanceRequestAdapter(instance, options, callback, userdata) (record_abi.c answers a
 * lookup of that name with this function). */
WGPROF_REC_EXPORT void wgprof_rec_dawn2025_wgpuInstanceRequestAdapter(
    WGPUInstance instance, wgprof_rec_dawn2025_adapter_options const *options, wgprof_rec_dawn2025_adapter_cb callback,
    void *userdata)
{
    wgprof_rec_dawn2025_adapter_info info = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = callback,
                                             .userdata = userdata};
    (void)request_adapter_one(instance, options, info);
}

/* ---- devices ---- */

enum { EXTRA_FEATURES = 4 };

typedef struct device_request {
    WGPURequestDeviceCallbackInfo theirs;
    WGPUAdapter adapter;
    WGPUFeatureName added[EXTRA_FEATURES];
    unsigned added_count;
} device_request;

/* The adapter's instance: as its request saw it, else as Dawn tells (an adapter requested through
 * a form wgprof does not hook). Not a reference of wgprof's: the adapter holds its instance. */
static WGPUInstance instance_of(WGPUAdapter adapter)
{
    WGPUInstance instance = wgprof_rec_adapter_get(adapter);
    WGPUInstance (*get)(WGPUAdapter) = NULL;
    void *fn = instance ? NULL : wgprof_rec_system_dlsym(wgprof_rec_implementation(), "wgpuAdapterGetInstance");
    memcpy(&get, &fn, sizeof fn);
    if (get && (instance = get(adapter)) != NULL) {
        wgprof_rec_adapter_put(adapter, instance);
        wgprof_rec_real()->instanceRelease(instance); /* Dawn's getter returns a new reference */
    }
    return instance;
}

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *userdata1,
                      void *userdata2)
{
    (void)userdata2;
    device_request *req = userdata1;
    if (status == WGPURequestDeviceStatus_Success && device) {
        wgprof_rec_session *s = wgprof__calloc(1, sizeof *s);
        WGPUInstance instance = instance_of(req->adapter);
        if (s && instance) {
            pthread_mutex_init(&s->lock, NULL);
            pthread_cond_init(&s->changed, NULL);
            s->device = device;
            s->adapter = req->adapter;
            s->instance = instance;
            s->pid = (long)getpid();
            s->index = wgprof_rec_output_claim();
            s->app_refs = 1;
            memcpy(s->added, req->added, sizeof s->added);
            s->added_count = req->added_count;
        }
        if (s && instance && wgprof_rec_session_put(device, s)) {
            const wgprof__webgpu_procs *real = wgprof_rec_real();
            real->adapterAddRef(s->adapter);
            real->instanceAddRef(s->instance);
            if (!atomic_exchange(&g_atexit, true)) {
                atexit(at_exit);
            }
        } else {
            wgprof__free(s);
            wgprof_rec_say(instance ? "out of memory: a device runs unprofiled"
                                    : "a device of an adapter wgprof did not see requested runs unprofiled");
        }
    }
    if (req->theirs.callback) {
        req->theirs.callback(status, device, message, req->theirs.userdata1, req->theirs.userdata2);
    }
    wgprof__free(req);
}

static bool adapter_has(const wgprof__webgpu_procs *real, WGPUAdapter adapter, WGPUFeatureName f)
{
    return f && real->adapterHasFeature(adapter, f);
}

static bool listed(const WGPUFeatureName *features, size_t count, WGPUFeatureName f)
{
    for (size_t i = 0; i < count; i++) {
        if (features[i] == f) {
            return true;
        }
    }
    return false;
}

typedef WGPUFuture (*request_device_fn)(WGPUAdapter, WGPUDeviceDescriptor const *, WGPURequestDeviceCallbackInfo);

/* The program's device request, made through `request` (webgpu.h's form or the same form of an
 * older ABI, record_abi.c): the features wgprof needs added, the device wrapped when it comes. */
static WGPUFuture request_device(WGPUAdapter adapter, WGPUDeviceDescriptor const *descriptor,
                                 WGPURequestDeviceCallbackInfo callbackInfo, request_device_fn request)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    if (wgprof_rec_active() && layer_times(adapter)) {
        /* The layer's, requested as the program asks: the names of its pipelines reach the layer
         * in process (record_encode.c), with nothing asked of the implementation. */
        atomic_fetch_add(&g_left_to_layer, 1);
        return request(adapter, descriptor, callbackInfo);
    }
    device_request *req = NULL;
    if (wgprof_rec_active()) {
        req = wgprof__calloc(1, sizeof *req);
    }
    if (!req) {
        return request(adapter, descriptor, callbackInfo);
    }
    WGPUDeviceDescriptor copy = descriptor ? *descriptor : (WGPUDeviceDescriptor){0};
    size_t count = copy.requiredFeatureCount;
    WGPUFeatureName *features = wgprof__calloc(count + EXTRA_FEATURES, sizeof *features);
    if (!features) {
        wgprof__free(req);
        return request(adapter, descriptor, callbackInfo);
    }
    if (count) {
        memcpy(features, copy.requiredFeatures, count * sizeof *features);
    }
    /* Timestamps, timestamps inside passes, and what the implementation needs besides (Dawn:
     * implicit device synchronization), where the adapter has them and the program did not ask. */
    WGPUDeviceDescriptor probe = {0};
    wgprof__chain storage;
    WGPUFeatureName wanted[EXTRA_FEATURES] = {WGPUFeatureName_TimestampQuery, wgprof__ext_get()->feature_inside_passes};
    size_t wanted_count = wgprof__ext_chain_device(&probe, &storage, wanted, 2, EXTRA_FEATURES);
    for (size_t i = 0; i < wanted_count; i++) {
        /* The descriptor is in the implementation's ABI, its feature numbers with it. */
        WGPUFeatureName theirs = wgprof_rec_abi_feature_out(wanted[i]);
        if (adapter_has(real, adapter, wanted[i]) && !listed(features, count, theirs)) {
            features[count++] = theirs;
            req->added[req->added_count++] = wanted[i];
        }
    }
    copy.nextInChain = chain_ours(probe.nextInChain, copy.nextInChain);
    copy.requiredFeatureCount = count;
    copy.requiredFeatures = features;
    req->theirs = callbackInfo;
    req->adapter = adapter;
    WGPURequestDeviceCallbackInfo ours = callbackInfo;
    ours.callback = on_device;
    ours.userdata1 = req;
    ours.userdata2 = NULL;
    WGPUFuture future = request(adapter, &copy, ours);
    wgprof__free(features);
    return future;
}

WGPROF_REC_EXPORT WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter,
                                                      WGPU_NULLABLE WGPUDeviceDescriptor const *descriptor,
                                                      WGPURequestDeviceCallbackInfo callbackInfo)
{
    return request_device(adapter, descriptor, callbackInfo, wgprof_rec_real()->adapterRequestDevice);
}

/* ---- Dawn's forms of the callback-info transition (record_abi.c) ---- */

static request_device_fn request_device2(void)
{
    wgprof_rec_real();
    const wgprof_rec_legacy *legacy = wgprof_rec_abi_legacy();
    return wgprof_rec_abi_current() == WGPROF_REC_ABI_DAWN_2025 ? legacy->request_device2 : NULL;
}

/* Its "2" form is webgpu.h's under another name. */
WGPROF_REC_EXPORT WGPUFuture wgpuAdapterRequestDevice2(WGPUAdapter adapter, WGPUDeviceDescriptor const *descriptor,
                                                       WGPURequestDeviceCallbackInfo callbackInfo)
{
    request_device_fn request = request_device2();
    if (!request) {
        wgprof_rec_missing("wgpuAdapterRequestDevice2");
        return (WGPUFuture){0};
    }
    return request_device(adapter, descriptor, callbackInfo, request);
}

/* Its one-userdata forms go through the "2" form, the program's callback and userdata carried
 * in the two userdata. */
static void on_device_one(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *userdata1,
                          void *userdata2)
{
    wgprof_rec_dawn2025_device_cb callback;
    memcpy(&callback, &userdata1, sizeof callback);
    if (callback) {
        callback(status, device, message, userdata2);
    }
}

static WGPUFuture request_device_one(WGPUAdapter adapter, WGPUDeviceDescriptor const *descriptor,
                                     wgprof_rec_dawn2025_device_info info, const char *name)
{
    request_device_fn request = request_device2();
    if (!request) {
        wgprof_rec_missing(name);
        return (WGPUFuture){0};
    }
    WGPURequestDeviceCallbackInfo two = {.nextInChain = info.nextInChain, .mode = info.mode,
                                         .callback = on_device_one, .userdata2 = info.userdata};
    memcpy(&two.userdata1, &info.callback, sizeof info.callback);
    return request_device(adapter, descriptor, two, request);
}

WGPROF_REC_EXPORT WGPUFuture wgpuAdapterRequestDeviceF(WGPUAdapter adapter, WGPUDeviceDescriptor const *descriptor,
                                                       wgprof_rec_dawn2025_device_info callbackInfo)
{
    return request_device_one(adapter, descriptor, callbackInfo, "wgpuAdapterRequestDeviceF");
}

/* Its wgpuAdapterRequestDevice(adapter, descriptor, callback, userdata), whose callback runs
 * from the instance's events as AllowProcessEvents does (record_abi.c answers a lookup of that
 * name with this function). */
WGPROF_REC_EXPORT void wgprof_rec_dawn2025_wgpuAdapterRequestDevice(WGPUAdapter adapter,
                                                                     WGPUDeviceDescriptor const *descriptor,
                                                                     wgprof_rec_dawn2025_device_cb callback,
                                                                     void *userdata)
{
    wgprof_rec_dawn2025_device_info info = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = callback,
                                            .userdata = userdata};
    (void)request_device_one(adapter, descriptor, info, "wgpuAdapterRequestDevice");
}

static bool added(const wgprof_rec_session *s, WGPUFeatureName f)
{
    for (unsigned i = 0; i < s->added_count; i++) {
        if (s->added[i] == f) {
            return true;
        }
    }
    return false;
}

/* The program sees the features it asked for, not the ones wgprof added. */
WGPROF_REC_EXPORT WGPUBool wgpuDeviceHasFeature(WGPUDevice device, WGPUFeatureName feature)
{
    feature = wgprof_rec_abi_feature_in(feature);
    WGPUBool has = wgprof_rec_real()->deviceHasFeature(device, feature);
    if (has && wgprof_rec_active()) {
        const wgprof_rec_session *s = wgprof_rec_session_get(device);
        if (s && added(s, feature)) {
            has = 0;
        }
    }
    return has;
}

WGPROF_REC_EXPORT void wgpuDeviceGetFeatures(WGPUDevice device, WGPUSupportedFeatures *features)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    real->deviceGetFeatures(device, features);
    if (!features) {
        return;
    }
    if (!wgprof_rec_active()) {
        wgprof_rec_abi_supported_out(features);
        return;
    }
    const wgprof_rec_session *s = wgprof_rec_session_get(device);
    /* The implementation's array goes back to it now; the program gets a copy without the
     * added features, which wgpuSupportedFeaturesFreeMembers below recognises. */
    WGPUFeatureName *kept = s ? wgprof__calloc(features->featureCount + 1, sizeof *kept) : NULL;
    if (kept && wgprof_rec_features_put(kept)) {
        size_t n = 0;
        for (size_t i = 0; i < features->featureCount; i++) {
            if (!added(s, features->features[i])) {
                kept[n++] = features->features[i];
            }
        }
        real->supportedFeaturesFreeMembers(*features);
        wgprof_rec_abi_features_out(kept, n);
        features->featureCount = n;
        features->features = kept;
    } else {
        wgprof__free(kept);
        wgprof_rec_abi_supported_out(features);
    }
}

WGPROF_REC_EXPORT void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures supportedFeatures)
{
    void *ours = wgprof_rec_features_take(supportedFeatures.features);
    if (ours) {
        wgprof__free(ours);
    } else {
        wgprof_rec_real()->supportedFeaturesFreeMembers(supportedFeatures);
    }
}

/* Wraps the device and makes its first lane; outside the lock (it calls the implementation),
 * on the one thread whose set-up it is (session_of). */
static void setup(wgprof_rec_session *s)
{
    wgprof_rec_enter();
    wgprof_status st = wgprof_device_wrap(s->instance, s->adapter, s->device, &s->wdev);
    /* The wrap holds its own references now (or failed): ours go. */
    wgprof_rec_real()->adapterRelease(s->adapter);
    wgprof_rec_real()->instanceRelease(s->instance);
    s->adapter = NULL;
    s->instance = NULL;
    const wgprof_device_info *info = st == WGPROF_OK ? wgprof_device_describe(s->wdev) : NULL;
    bool ok = false;
    if (!info) {
        wgprof_rec_say("device %u: wgprof cannot use it (%s): it runs unprofiled", s->index, wgprof_status_str(st));
    } else if (!info->profiling_available || !info->timestamp_inside_passes) {
        wgprof_rec_say("device %u: %s: it runs unprofiled", s->index,
                       !info->profiling_available ? info->unavailable_reason
                                                  : "no timestamps inside compute passes on this device");
    } else if (!wgprof_rec_lane_take(s, NULL)) {
        wgprof_rec_say("device %u: no query pool: it runs unprofiled", s->index);
    } else {
        ok = true;
    }
    wgprof_rec_leave();
    pthread_mutex_lock(&s->lock);
    s->broken = !ok;
    s->setup = 2;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* ---- lanes ---- */

/* Readback batches in flight on every lane, as their holders last counted them: read without a
 * lock by the program's poll hooks, which have nothing to take at 0. */
static atomic_int g_in_flight;

bool wgprof_rec_any_in_flight(void) { return atomic_load(&g_in_flight) > 0; }

void wgprof_rec_lane_recount(wgprof_rec_lane *lane)
{
    unsigned now = lane->pool ? (unsigned)wgprof_pool_in_flight(lane->pool) : 0;
    unsigned before = atomic_exchange(&lane->counted, now);
    atomic_fetch_add(&g_in_flight, (int)now - (int)before);
}

bool wgprof_rec_lane_pass_on(wgprof_rec_lane *lane, wgprof_rec_lane_user user, const void *holder,
                             wgprof_rec_lane_user to, const void *to_holder)
{
    wgprof_rec_session *s = lane->session;
    pthread_mutex_lock(&s->lock);
    bool held = lane->user == user && lane->holder == holder;
    if (held) {
        lane->user = to;
        lane->holder = to_holder;
        if (to == WGPROF_REC_LANE_FREE) {
            pthread_cond_broadcast(&s->changed); /* a finish may wait for it */
        }
    }
    pthread_mutex_unlock(&s->lock);
    return held;
}

wgprof_rec_lane *wgprof_rec_lane_take(wgprof_rec_session *s, WGPUCommandEncoder enc)
{
    wgprof_rec_lane_user as = enc ? WGPROF_REC_LANE_ENCODER : WGPROF_REC_LANE_FREE;
    pthread_mutex_lock(&s->lock);
    if (atomic_load(&s->finished)) {
        pthread_mutex_unlock(&s->lock);
        return NULL;
    }
    /* The free lane with the fewest batches in flight, so that threads submitting side by side
     * spread their batches over the lanes' rings; where its ring is nearly full (its next batch
     * would be dropped) and there is room, a new lane instead. */
    wgprof_rec_lane *lane = NULL;
    for (unsigned i = 0; i < s->lane_count; i++) {
        if (s->lanes[i].user == WGPROF_REC_LANE_FREE && s->lanes[i].pool &&
            (!lane || atomic_load(&s->lanes[i].counted) < atomic_load(&lane->counted))) {
            lane = &s->lanes[i];
        }
    }
    if (lane && atomic_load(&lane->counted) + 1 >= LANE_FRAMES && enc && s->lane_count < WGPROF_REC_LANES) {
        lane = NULL;
    }
    if (lane) {
        lane->user = as;
        lane->holder = enc;
        pthread_mutex_unlock(&s->lock);
        wgprof_rec_chain_forget(lane); /* its holder's now */
        return lane;
    }
    /* A new pool: made outside the lock (it calls the implementation), in a lane held
     * meanwhile; a lane whose pool could not be made is tried again. */
    for (unsigned i = 0; i < s->lane_count && !lane; i++) {
        if (s->lanes[i].user == WGPROF_REC_LANE_FREE && !s->lanes[i].pool) {
            lane = &s->lanes[i];
        }
    }
    if (!lane && s->lane_count < WGPROF_REC_LANES) {
        lane = &s->lanes[s->lane_count++];
    }
    if (!lane) {
        pthread_mutex_unlock(&s->lock);
        return NULL;
    }
    lane->session = s;
    lane->user = WGPROF_REC_LANE_WORKER;
    lane->holder = wgprof_rec_thread();
    unsigned number = (unsigned)(lane - s->lanes);
    pthread_mutex_unlock(&s->lock);
    wgprof_pool_desc pd = {.readback_frames = LANE_FRAMES};
    wgprof_pool *pool = NULL;
    wgprof_status st = wgprof_pool_create(s->wdev, &pd, &pool);
    if (st != WGPROF_OK) {
        wgprof__log(WGPROF_LOG_WARN, "wgprof record: device %u: no query pool for lane %u (%s)", s->index, number,
                    wgprof_status_str(st));
    } else {
        static _Atomic uint64_t serials;
        lane->serial = atomic_fetch_add(&serials, 1) + 1;
        memset(lane->sites, 0, sizeof lane->sites);
        wgprof_rec_chain_forget(lane);
    }
    pthread_mutex_lock(&s->lock);
    lane->pool = pool;
    bool usable = pool && !atomic_load(&s->finished);
    lane->user = usable ? as : WGPROF_REC_LANE_FREE;
    lane->holder = usable ? enc : NULL;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return usable ? lane : NULL;
}

wgprof_rec_lane *wgprof_rec_lane_enter(wgprof_rec_lane *lane)
{
    if (!lane) {
        return NULL;
    }
    /* Busy first, then the finish looked at: a finish sets `finished` first, then waits for
     * `busy` to clear, so that one of the two sees the other. */
    atomic_store(&lane->busy, true);
    if (atomic_load(&lane->session->finished)) {
        atomic_store(&lane->busy, false);
        return NULL;
    }
    wgprof_rec_enter(); /* a callback of the program's inside these calls must not finish it */
    return lane;
}

void wgprof_rec_lane_leave(wgprof_rec_lane *lane)
{
    if (lane) {
        wgprof_rec_leave();
        atomic_store(&lane->busy, false);
    }
}

void wgprof_rec_lane_discard(wgprof_rec_lane *lane)
{
    size_t before = wgprof_pool_count(lane->pool);
    if (wgprof_pool_discard(lane->pool) == WGPROF_OK) {
        atomic_fetch_add(&lane->session->discarded, before - wgprof_pool_count(lane->pool));
    }
    wgprof_rec_chain_forget(lane);
}

/* ---- sessions ---- */

wgprof_rec_session *wgprof_rec_session_of(WGPUDevice device)
{
    wgprof_rec_session *s = wgprof_rec_session_get(device);
    if (!s || s->pid != (long)getpid()) {
        return NULL; /* none, or a forked child's: the device is the parent's */
    }
    const void *me = wgprof_rec_thread();
    pthread_mutex_lock(&s->lock);
    while (s->setup == 1 && s->setup_thread != me) {
        pthread_cond_wait(&s->changed, &s->lock);
    }
    bool mine = s->setup == 0 && !atomic_load(&s->finished);
    if (mine) {
        s->setup = 1;
        s->setup_thread = me;
    }
    pthread_mutex_unlock(&s->lock);
    if (mine) {
        setup(s);
    }
    pthread_mutex_lock(&s->lock);
    /* On the set-up's own thread (a callback inside it), the device is not ready yet. */
    bool ready = s->setup == 2 && !s->broken && !atomic_load(&s->finished);
    pthread_mutex_unlock(&s->lock);
    return ready ? s : NULL;
}

/* Writes a snapshot where one is due, a second has passed since the last, and no lane is in
 * use (record_output.c copies them). Under the session's lock. */
static void snapshot_if_due(wgprof_rec_session *s)
{
    uint64_t now = wgprof_cpu_now_ns(), wait = 100 * s->snapshot_cost_ns;
    if (!s->snapshot_due || atomic_load(&s->finished) ||
        now - s->last_snapshot_ns < (wait > SNAPSHOT_EVERY_NS ? wait : SNAPSHOT_EVERY_NS)) {
        return;
    }
    for (unsigned i = 0; i < s->lane_count; i++) {
        wgprof_rec_lane_user u = s->lanes[i].user;
        if (s->lanes[i].pool && u != WGPROF_REC_LANE_FREE && u != WGPROF_REC_LANE_BUFFER) {
            return; /* being recorded into or worked on: at a later collect */
        }
    }
    /* A snapshot at most once a second, and never more than a hundredth of the time: each one
     * copies every record so far here (the writing is on a thread of its own). */
    s->snapshot_due = false;
    wgprof_rec_output_snapshot(s);
    s->last_snapshot_ns = wgprof_cpu_now_ns();
    s->snapshot_cost_ns = s->last_snapshot_ns - now;
}

/* Takes the finished readbacks of the lane its thread holds; where `drive` and its ring is
 * nearly full, its maps are polled, through their futures alone where the implementation can.
 * Returns how many batches it took. */
static uint32_t collect_lane(wgprof_rec_lane *lane, bool drive)
{
    uint32_t taken = 0, more = 0;
    if (wgprof_pool_in_flight(lane->pool)) {
        wgprof__pool_take_ready(lane->pool, &taken);
    }
    if (drive && wgprof_pool_in_flight(lane->pool) + 1 >= LANE_FRAMES) {
        wgprof_pool_collect_ready(lane->pool, &more);
    }
    wgprof_rec_lane_recount(lane);
    return taken + more;
}

/* The session's free lanes with batches in flight, one at a time (so that an encoder wanting a
 * lane meanwhile finds the others free): each taken, collected outside the lock (polled where
 * `drive`, see collect_lane), given back. */
static void collect_session(wgprof_rec_session *s, bool drive)
{
    if (atomic_load(&s->finished) || s->pid != (long)getpid()) {
        return;
    }
    const void *me = wgprof_rec_thread();
    uint32_t taken = 0;
    for (unsigned i = 0; i < WGPROF_REC_LANES; i++) {
        wgprof_rec_lane *lane = &s->lanes[i];
        pthread_mutex_lock(&s->lock);
        bool mine = i < s->lane_count && lane->user == WGPROF_REC_LANE_FREE && lane->pool &&
                    atomic_load(&lane->counted) && !atomic_load(&s->finished);
        if (mine) {
            lane->user = WGPROF_REC_LANE_WORKER;
            lane->holder = me;
        }
        pthread_mutex_unlock(&s->lock);
        if (mine) {
            taken += collect_lane(lane, drive);
            wgprof_rec_lane_pass_on(lane, WGPROF_REC_LANE_WORKER, me, WGPROF_REC_LANE_FREE, NULL);
        }
    }
    pthread_mutex_lock(&s->lock);
    s->snapshot_due |= taken > 0;
    snapshot_if_due(s);
    pthread_mutex_unlock(&s->lock);
}

static void release_session(wgprof_rec_session *s);

void wgprof_rec_collect_ready(bool drive)
{
    wgprof_rec_enter(); /* a poll of wgprof's may run the program's callbacks */
    for (size_t i = 0; wgprof_rec_session_at(i); i++) {
        collect_session(wgprof_rec_session_at(i), drive);
    }
    wgprof_rec_leave();
    if (wgprof_rec_nested()) {
        return;
    }
    for (size_t i = 0; wgprof_rec_session_at(i); i++) {
        wgprof_rec_session *s = wgprof_rec_session_at(i);
        pthread_mutex_lock(&s->lock);
        bool pending = s->release_pending;
        s->release_pending = false;
        pthread_mutex_unlock(&s->lock);
        if (pending) {
            release_session(s);
        }
    }
}

void wgprof_rec_lane_submitted(wgprof_rec_lane *lane)
{
    wgprof_pool_read_async(lane->pool);
    uint32_t taken = collect_lane(lane, true);
    if (taken) {
        pthread_mutex_lock(&lane->session->lock);
        lane->session->snapshot_due = true;
        pthread_mutex_unlock(&lane->session->lock);
    }
}

/* Takes every lane of the session for its finish: free ones and those held by a command
 * buffer at once, one held by an encoder once the encoder's hook using it (if any) returned,
 * one a thread works on once it is given back (unless this thread is inside a hook's call,
 * where that thread may be this one: such a lane is left out). Under the session's lock. */
static void take_every_lane(wgprof_rec_session *s, const void *me)
{
    bool wait = !wgprof_rec_nested();
    for (unsigned i = 0; i < s->lane_count; i++) {
        wgprof_rec_lane *lane = &s->lanes[i];
        while (wait && lane->user == WGPROF_REC_LANE_WORKER && lane->holder != me) {
            pthread_cond_wait(&s->changed, &s->lock);
        }
        while (wait && lane->user == WGPROF_REC_LANE_ENCODER && atomic_load(&lane->busy)) {
            /* One encoding call of another thread's: no callback of the program's can make it
             * wait for this one (those run in submits and polls, not while encoding). */
            pthread_mutex_unlock(&s->lock);
            sched_yield();
            pthread_mutex_lock(&s->lock);
        }
        if (lane->user == WGPROF_REC_LANE_ENCODER && atomic_load(&lane->busy)) {
            continue; /* in use by a hook of this thread's, which a callback interrupted: left out */
        }
        if (lane->user != WGPROF_REC_LANE_WORKER) {
            if (lane->user == WGPROF_REC_LANE_ENCODER || lane->user == WGPROF_REC_LANE_BUFFER) {
                lane->user = WGPROF_REC_LANE_DONE; /* encoded, never submitted: discarded below */
                lane->holder = NULL;
            } else {
                lane->user = WGPROF_REC_LANE_WORKER;
                lane->holder = me;
            }
        }
    }
}

/* Takes what is still in flight (waiting at most the device's time-out), then writes every
 * report asked for. The session stays, finished: its device may still be in use (at exit).
 * A finish another thread is doing is waited for. */
static void finish_session(wgprof_rec_session *s)
{
    if (s->pid != (long)getpid()) {
        return;
    }
    const void *me = wgprof_rec_thread();
    pthread_mutex_lock(&s->lock);
    if (atomic_load(&s->finished)) {
        while (!s->final_written && s->finisher != me && !wgprof_rec_nested()) {
            pthread_cond_wait(&s->changed, &s->lock);
        }
        pthread_mutex_unlock(&s->lock);
        return;
    }
    atomic_store(&s->finished, true);
    s->finisher = me;
    take_every_lane(s, me);
    unsigned count = s->lane_count;
    pthread_mutex_unlock(&s->lock);
    wgprof_rec_enter();
    for (unsigned i = 0; i < count; i++) {
        wgprof_rec_lane *lane = &s->lanes[i];
        bool ours = lane->holder == me || lane->user == WGPROF_REC_LANE_DONE;
        if (!ours || !lane->pool) {
            continue;
        }
        if (lane->user == WGPROF_REC_LANE_DONE) {
            wgprof_rec_lane_discard(lane); /* encoded, never submitted */
        }
        if (wgprof_pool_in_flight(lane->pool)) {
            wgprof_pool_collect(lane->pool);
        }
        wgprof_rec_lane_recount(lane);
    }
    wgprof_rec_output_write(s);
    wgprof_rec_leave();
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < count; i++) {
        if (s->lanes[i].holder == me || s->lanes[i].user == WGPROF_REC_LANE_DONE) {
            s->lanes[i].user = WGPROF_REC_LANE_DONE;
            s->lanes[i].holder = NULL;
        }
    }
    s->final_written = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* The program's last reference gone: results written, then wgprof's pools and its references to
 * the device dropped. The session itself stays (encoders, passes and buffers of the program may
 * still point at it and at its lanes), finished and released. */
static void release_session(wgprof_rec_session *s)
{
    finish_session(s);
    if (s->pid != (long)getpid()) {
        return;
    }
    pthread_mutex_lock(&s->lock);
    bool first = !s->released;
    s->released = true;
    unsigned count = s->lane_count;
    pthread_mutex_unlock(&s->lock);
    if (!first) {
        return;
    }
    for (unsigned i = 0; i < count; i++) {
        if (s->lanes[i].user == WGPROF_REC_LANE_DONE) { /* not one a hook's call still works on */
            wgprof_pool_destroy(s->lanes[i].pool);
            s->lanes[i].pool = NULL;
            wgprof_rec_lane_recount(&s->lanes[i]);
        }
    }
    wgprof_device_destroy(s->wdev);
    s->wdev = NULL;
    if (s->adapter) { /* never wrapped */
        wgprof_rec_real()->adapterRelease(s->adapter);
        wgprof_rec_real()->instanceRelease(s->instance);
        s->adapter = NULL;
        s->instance = NULL;
    }
}

WGPROF_REC_EXPORT void wgpuDeviceAddRef(WGPUDevice device)
{
    wgprof_rec_real()->deviceAddRef(device);
    wgprof_rec_session *s = wgprof_rec_active() ? wgprof_rec_session_get(device) : NULL;
    if (s) {
        pthread_mutex_lock(&s->lock);
        s->app_refs++;
        pthread_mutex_unlock(&s->lock);
    }
}

WGPROF_REC_EXPORT void wgpuDeviceRelease(WGPUDevice device)
{
    wgprof_rec_session *s = wgprof_rec_active() ? wgprof_rec_session_get(device) : NULL;
    if (s) {
        pthread_mutex_lock(&s->lock);
        bool last = !s->released && --s->app_refs == 0;
        /* Inside a callback (the implementation busy in a call of a hook's), writing the
         * results would wait on it: later, at the next safe point, or at exit. */
        if (last && wgprof_rec_nested()) {
            s->release_pending = true;
            last = false;
        }
        pthread_mutex_unlock(&s->lock);
        if (last) {
            release_session(s);
        }
    }
    wgprof_rec_real()->deviceRelease(device);
}

WGPROF_REC_EXPORT void wgpuDeviceDestroy(WGPUDevice device)
{
    wgprof_rec_session *s = wgprof_rec_active() ? wgprof_rec_session_get(device) : NULL;
    if (s && wgprof_rec_nested()) {
        /* As a release inside a callback: at the next safe point. */
        pthread_mutex_lock(&s->lock);
        s->release_pending = true;
        pthread_mutex_unlock(&s->lock);
    } else if (s) {
        finish_session(s);
    }
    wgprof_rec_real()->deviceDestroy(device);
}

/* ---- the program driving the implementation: a moment to take finished readbacks ---- */

WGPROF_REC_EXPORT void wgpuInstanceProcessEvents(WGPUInstance instance)
{
    wgprof_rec_real()->instanceProcessEvents(instance);
    if (wgprof_rec_active() && wgprof_rec_any_in_flight()) {
        wgprof_rec_collect_ready(false);
    }
}

WGPROF_REC_EXPORT WGPUBool wgpuDevicePoll(WGPUDevice device, WGPUBool wait,
                                          WGPU_NULLABLE WGPUSubmissionIndex const *submissionIndex)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    if (!real->devicePoll) {
        wgprof_rec_missing("wgpuDevicePoll");
        return 0;
    }
    WGPUBool r = real->devicePoll(device, wait, submissionIndex);
    if (wgprof_rec_active() && wgprof_rec_any_in_flight()) {
        wgprof_rec_collect_ready(false);
    }
    return r;
}
