/*
 * The devices the program creates, each a session: its request gets the timestamp features
 * (and on Dawn the toggles) that profiling needs, hidden again from the program's feature
 * queries; wgprof wraps the device on first use and times with one pool; the results are
 * written when the program lets go of the device (its last release, or destroy) and at exit,
 * and a snapshot of them at most once a second while it runs, so that a crash loses at most
 * the last second.
 */
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

static wgprof_rec_map g_sessions; /* WGPUDevice -> wgprof_rec_session */
/* Every session ever made, in creation order (they are never freed): walked by the hooks the
 * program's polling calls over and over, where a walk of the map's slots showed. */
static wgprof_rec_session **g_session_list;
static uint32_t g_session_count, g_session_cap;

static void each_session(void (*fn)(void *session, void *user), void *user)
{
    for (uint32_t i = 0; i < g_session_count; i++) {
        fn(g_session_list[i], user);
    }
}
static wgprof_rec_map g_features; /* WGPUFeatureName arrays handed out -> themselves */
static wgprof_rec_map g_adapters; /* WGPUAdapter -> the WGPUInstance it came from */
static unsigned g_devices;
static bool g_atexit;

static void finish_session(void *value, void *user);

static void at_exit(void)
{
    wgprof_rec_lock();
    each_session(finish_session, NULL);
    wgprof_rec_unlock();
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
        wgprof_rec_lock();
        wgprof_rec_map_put(&g_adapters, adapter, req->instance);
        wgprof_rec_unlock();
    }
    if (req->theirs.callback) {
        req->theirs.callback(status, adapter, message, req->theirs.userdata1, req->theirs.userdata2);
    }
    wgprof__free(req);
}

WGPROF_REC_EXPORT WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance,
                                                        WGPU_NULLABLE WGPURequestAdapterOptions const *options,
                                                        WGPURequestAdapterCallbackInfo callbackInfo)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    adapter_request *req = wgprof_rec_active() ? wgprof__calloc(1, sizeof *req) : NULL;
    if (!req) {
        return real->wgpuInstanceRequestAdapter(instance, options, callbackInfo);
    }
    WGPURequestAdapterOptions copy = options ? *options : (WGPURequestAdapterOptions){0};
    WGPURequestAdapterOptions probe = {0};
    wgprof__chain storage;
    wgprof__ext_chain_adapter(&probe, &storage);
    copy.nextInChain = chain_ours(probe.nextInChain, copy.nextInChain);
    req->theirs = callbackInfo;
    req->instance = instance;
    WGPURequestAdapterCallbackInfo ours = callbackInfo;
    ours.callback = on_adapter;
    ours.userdata1 = req;
    ours.userdata2 = NULL;
    return real->wgpuInstanceRequestAdapter(instance, &copy, ours);
}

/* ---- devices ---- */

enum { EXTRA_FEATURES = 4 };

typedef struct device_request {
    WGPURequestDeviceCallbackInfo theirs;
    WGPUAdapter adapter;
    WGPUFeatureName added[EXTRA_FEATURES];
    unsigned added_count;
} device_request;

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *userdata1,
                      void *userdata2)
{
    (void)userdata2;
    device_request *req = userdata1;
    if (status == WGPURequestDeviceStatus_Success && device) {
        wgprof_rec_session *s = wgprof__calloc(1, sizeof *s);
        wgprof_rec_lock();
        WGPUInstance instance = wgprof_rec_map_get(&g_adapters, req->adapter);
        bool listed = s && wgprof__reserve((void **)&g_session_list, &g_session_cap, g_session_count + 1,
                                           sizeof *g_session_list, 4) == WGPROF_OK;
        if (listed && instance && wgprof_rec_map_put(&g_sessions, device, s)) {
            g_session_list[g_session_count++] = s;
            const wgprof__webgpu_procs *real = wgprof_rec_real();
            s->device = device;
            s->adapter = req->adapter;
            s->instance = instance;
            real->wgpuAdapterAddRef(s->adapter);
            real->wgpuInstanceAddRef(s->instance);
            s->pid = (long)getpid();
            s->index = g_devices++;
            s->app_refs = 1;
            memcpy(s->added, req->added, sizeof s->added);
            s->added_count = req->added_count;
            if (!g_atexit) {
                g_atexit = atexit(at_exit) == 0;
            }
        } else {
            wgprof__free(s);
            wgprof_rec_say(instance ? "out of memory: a device runs unprofiled"
                                    : "a device of an adapter wgprof did not see requested runs unprofiled");
        }
        wgprof_rec_unlock();
    }
    if (req->theirs.callback) {
        req->theirs.callback(status, device, message, req->theirs.userdata1, req->theirs.userdata2);
    }
    wgprof__free(req);
}

static bool adapter_has(const wgprof__webgpu_procs *real, WGPUAdapter adapter, WGPUFeatureName f)
{
    return f && real->wgpuAdapterHasFeature(adapter, f);
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

WGPROF_REC_EXPORT WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter,
                                                      WGPU_NULLABLE WGPUDeviceDescriptor const *descriptor,
                                                      WGPURequestDeviceCallbackInfo callbackInfo)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    device_request *req = NULL;
    if (wgprof_rec_active()) {
        req = wgprof__calloc(1, sizeof *req);
    }
    if (!req) {
        return real->wgpuAdapterRequestDevice(adapter, descriptor, callbackInfo);
    }
    WGPUDeviceDescriptor copy = descriptor ? *descriptor : (WGPUDeviceDescriptor){0};
    size_t count = copy.requiredFeatureCount;
    WGPUFeatureName *features = wgprof__calloc(count + EXTRA_FEATURES, sizeof *features);
    if (!features) {
        wgprof__free(req);
        return real->wgpuAdapterRequestDevice(adapter, descriptor, callbackInfo);
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
        if (adapter_has(real, adapter, wanted[i]) && !listed(features, count, wanted[i])) {
            features[count++] = wanted[i];
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
    WGPUFuture future = real->wgpuAdapterRequestDevice(adapter, &copy, ours);
    wgprof__free(features);
    return future;
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
    WGPUBool has = wgprof_rec_real()->wgpuDeviceHasFeature(device, feature);
    if (has && wgprof_rec_active()) {
        wgprof_rec_lock();
        const wgprof_rec_session *s = wgprof_rec_map_get(&g_sessions, device);
        if (s && added(s, feature)) {
            has = 0;
        }
        wgprof_rec_unlock();
    }
    return has;
}

WGPROF_REC_EXPORT void wgpuDeviceGetFeatures(WGPUDevice device, WGPUSupportedFeatures *features)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    real->wgpuDeviceGetFeatures(device, features);
    if (!features || !wgprof_rec_active()) {
        return;
    }
    wgprof_rec_lock();
    const wgprof_rec_session *s = wgprof_rec_map_get(&g_sessions, device);
    /* The implementation's array goes back to it now; the program gets a copy without the
     * added features, which wgpuSupportedFeaturesFreeMembers below recognises. */
    WGPUFeatureName *kept = s ? wgprof__calloc(features->featureCount + 1, sizeof *kept) : NULL;
    if (kept && wgprof_rec_map_put(&g_features, kept, kept)) {
        size_t n = 0;
        for (size_t i = 0; i < features->featureCount; i++) {
            if (!added(s, features->features[i])) {
                kept[n++] = features->features[i];
            }
        }
        real->wgpuSupportedFeaturesFreeMembers(*features);
        features->featureCount = n;
        features->features = kept;
    } else {
        wgprof__free(kept);
    }
    wgprof_rec_unlock();
}

WGPROF_REC_EXPORT void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures supportedFeatures)
{
    wgprof_rec_lock();
    void *ours = wgprof_rec_map_take(&g_features, supportedFeatures.features);
    wgprof_rec_unlock();
    if (ours) {
        wgprof__free(ours);
    } else {
        wgprof_rec_real()->wgpuSupportedFeaturesFreeMembers(supportedFeatures);
    }
}

static void setup(wgprof_rec_session *s)
{
    wgprof_status st = wgprof_device_wrap(s->instance, s->adapter, s->device, &s->wdev);
    /* The wrap holds its own references now (or failed): ours go. */
    wgprof_rec_real()->wgpuAdapterRelease(s->adapter);
    wgprof_rec_real()->wgpuInstanceRelease(s->instance);
    s->adapter = NULL;
    s->instance = NULL;
    const wgprof_device_info *info = st == WGPROF_OK ? wgprof_device_describe(s->wdev) : NULL;
    if (!info) {
        wgprof_rec_say("device %u: wgprof cannot use it (%s): it runs unprofiled", s->index, wgprof_status_str(st));
    } else if (!info->profiling_available || !info->timestamp_inside_passes) {
        wgprof_rec_say("device %u: %s: it runs unprofiled", s->index,
                       !info->profiling_available ? info->unavailable_reason
                                                  : "no timestamps inside compute passes on this device");
    } else if (!wgprof_rec_lane_take(s, NULL)) {
        wgprof_rec_say("device %u: no query pool: it runs unprofiled", s->index);
    }
    s->broken = !s->lane_count;
}

wgprof_rec_lane *wgprof_rec_lane_take(wgprof_rec_session *s, WGPUCommandEncoder enc)
{
    for (unsigned i = 0; i < s->lane_count; i++) {
        if (!s->lanes[i].owner) {
            s->lanes[i].owner = enc;
            wgprof_rec_chain_forget(&s->lanes[i]);
            return &s->lanes[i];
        }
    }
    if (s->lane_count == WGPROF_REC_LANES) {
        return NULL;
    }
    wgprof_rec_lane *lane = &s->lanes[s->lane_count];
    wgprof_pool_desc pd = {.readback_frames = LANE_FRAMES};
    wgprof_status st = wgprof_pool_create(s->wdev, &pd, &lane->pool);
    if (st != WGPROF_OK) {
        wgprof__log(WGPROF_LOG_WARN, "wgprof record: device %u: no query pool for lane %u (%s)", s->index,
                    s->lane_count, wgprof_status_str(st));
        return NULL;
    }
    static uint64_t serials;
    lane->serial = ++serials;
    lane->session = s;
    lane->owner = enc;
    wgprof_rec_chain_forget(lane);
    s->lane_count++;
    return lane;
}

wgprof_rec_session *wgprof_rec_session_of(WGPUDevice device)
{
    wgprof_rec_session *s = wgprof_rec_map_get(&g_sessions, device);
    if (s && s->pid != (long)getpid()) {
        return NULL; /* a forked child: the device is the parent's */
    }
    if (s && !s->wdev && !s->broken && !s->finished) {
        setup(s);
    }
    return s && !s->broken && !s->finished ? s : NULL;
}

void wgprof_rec_lane_abandon(wgprof_rec_lane *lane)
{
    size_t before = wgprof_pool_count(lane->pool);
    if (wgprof_pool_discard(lane->pool) == WGPROF_OK) {
        lane->session->discarded += before - wgprof_pool_count(lane->pool);
    }
    lane->owner = NULL;
    lane->owner_buffer = NULL;
    wgprof_rec_chain_forget(lane);
}

/* Batches in flight on every lane of every session, counted again (under the lock) after each
 * change; read without the lock by the program's poll hooks, which have nothing to take at 0. */
static atomic_uint g_in_flight;

static void count_session(void *value, void *user)
{
    const wgprof_rec_session *s = value;
    unsigned *n = user;
    for (unsigned i = 0; !s->finished && s->pid == (long)getpid() && i < s->lane_count; i++) {
        *n += wgprof_pool_in_flight(s->lanes[i].pool);
    }
}

static void recount(void)
{
    unsigned n = 0;
    each_session(count_session, &n);
    atomic_store(&g_in_flight, n);
}

bool wgprof_rec_any_in_flight(void) { return atomic_load(&g_in_flight) != 0; }

/* Takes the lanes' finished readbacks. The program has just let the implementation run its
 * callbacks (a poll or a submit), wgprof's among them, so nothing is driven again, unless
 * `drive` and a lane's ring is nearly full (a program that waits only on its own futures runs
 * none of wgprof's callbacks): then that lane's maps are polled, through their futures alone
 * where the implementation can. */
static void collect_session(void *value, void *user)
{
    const bool *drive = user;
    wgprof_rec_session *s = value;
    if (s->finished || s->pid != (long)getpid()) {
        return;
    }
    uint32_t taken = 0;
    for (unsigned i = 0; i < s->lane_count; i++) {
        wgprof_pool *pool = s->lanes[i].pool;
        uint32_t lane_taken = 0, more = 0;
        if (wgprof_pool_in_flight(pool)) {
            wgprof__pool_take_ready(pool, &lane_taken);
        }
        if (*drive && wgprof_pool_in_flight(pool) + 1 >= LANE_FRAMES) {
            wgprof_pool_collect_ready(pool, &more);
        }
        taken += lane_taken + more;
    }
    /* A snapshot at most once a second, and never more than a hundredth of the time: each one
     * copies every record so far here (the writing is on a thread of its own). */
    uint64_t now = wgprof_cpu_now_ns(), wait = 100 * s->snapshot_cost_ns;
    if (taken && now - s->last_snapshot_ns >= (wait > SNAPSHOT_EVERY_NS ? wait : SNAPSHOT_EVERY_NS)) {
        wgprof_rec_output_snapshot(s);
        s->last_snapshot_ns = wgprof_cpu_now_ns();
        s->snapshot_cost_ns = s->last_snapshot_ns - now;
    }
}

static void release_session(wgprof_rec_session *s);

static void release_if_pending(void *value, void *user)
{
    (void)user;
    wgprof_rec_session *s = value;
    if (s->release_pending) {
        s->release_pending = false;
        release_session(s);
    }
}

void wgprof_rec_collect_ready(bool drive)
{
    each_session(collect_session, &drive);
    if (!wgprof_rec_nested()) {
        each_session(release_if_pending, NULL);
    }
    recount();
}

/* Takes what is still in flight (waiting at most the device's time-out), then writes every
 * report asked for. The session stays, finished: its device may still be in use (at exit). */
static void finish_session(void *value, void *user)
{
    (void)user;
    wgprof_rec_session *s = value;
    if (s->finished || !s->lane_count || s->pid != (long)getpid()) {
        return;
    }
    for (unsigned i = 0; i < s->lane_count; i++) {
        wgprof_rec_lane *lane = &s->lanes[i];
        if (lane->owner) {
            wgprof_rec_lane_abandon(lane); /* encoded, never submitted */
        }
        if (wgprof_pool_in_flight(lane->pool)) {
            wgprof_pool_collect(lane->pool);
        }
    }
    wgprof_rec_output_write(s);
    s->finished = true;
}

/* The program's last reference gone: results written, then wgprof's pools and its references to
 * the device dropped. The session itself stays (encoders, passes and buffers of the program may
 * still point at it and at its lanes), finished and released. */
static void release_session(wgprof_rec_session *s)
{
    finish_session(s, NULL);
    s->finished = true;
    if (s->released || s->pid != (long)getpid()) {
        return;
    }
    for (unsigned i = 0; i < s->lane_count; i++) {
        wgprof_pool_destroy(s->lanes[i].pool);
        s->lanes[i].pool = NULL;
    }
    wgprof_device_destroy(s->wdev);
    s->wdev = NULL;
    if (s->adapter) { /* never wrapped */
        wgprof_rec_real()->wgpuAdapterRelease(s->adapter);
        wgprof_rec_real()->wgpuInstanceRelease(s->instance);
        s->adapter = NULL;
        s->instance = NULL;
    }
    s->released = true;
}

WGPROF_REC_EXPORT void wgpuDeviceAddRef(WGPUDevice device)
{
    wgprof_rec_real()->wgpuDeviceAddRef(device);
    if (wgprof_rec_active()) {
        wgprof_rec_lock();
        wgprof_rec_session *s = wgprof_rec_map_get(&g_sessions, device);
        if (s) {
            s->app_refs++;
        }
        wgprof_rec_unlock();
    }
}

WGPROF_REC_EXPORT void wgpuDeviceRelease(WGPUDevice device)
{
    if (wgprof_rec_active()) {
        wgprof_rec_lock();
        wgprof_rec_session *s = wgprof_rec_map_get(&g_sessions, device);
        if (s && !s->released && --s->app_refs == 0) {
            /* Inside a callback (the implementation busy in a call of a hook's), writing the
             * results would wait on it: later, at the next safe point, or at exit. */
            if (wgprof_rec_nested()) {
                s->release_pending = true;
            } else {
                release_session(s);
            }
        }
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuDeviceRelease(device);
}

WGPROF_REC_EXPORT void wgpuDeviceDestroy(WGPUDevice device)
{
    if (wgprof_rec_active()) {
        wgprof_rec_lock();
        wgprof_rec_session *s = wgprof_rec_map_get(&g_sessions, device);
        if (s) {
            finish_session(s, NULL);
        }
        wgprof_rec_unlock();
    }
    wgprof_rec_real()->wgpuDeviceDestroy(device);
}

/* ---- the program driving the implementation: a moment to take finished readbacks ---- */

WGPROF_REC_EXPORT void wgpuInstanceProcessEvents(WGPUInstance instance)
{
    wgprof_rec_real()->wgpuInstanceProcessEvents(instance);
    if (wgprof_rec_active() && wgprof_rec_any_in_flight()) {
        wgprof_rec_lock();
        wgprof_rec_collect_ready(false);
        wgprof_rec_unlock();
    }
}

WGPROF_REC_EXPORT WGPUBool wgpuDevicePoll(WGPUDevice device, WGPUBool wait,
                                          WGPU_NULLABLE WGPUSubmissionIndex const *submissionIndex)
{
    const wgprof__webgpu_procs *real = wgprof_rec_real();
    if (!real->wgpuDevicePoll) {
        wgprof_rec_missing("wgpuDevicePoll");
        return 0;
    }
    WGPUBool r = real->wgpuDevicePoll(device, wait, submissionIndex);
    if (wgprof_rec_active() && wgprof_rec_any_in_flight()) {
        wgprof_rec_lock();
        wgprof_rec_collect_ready(false);
        wgprof_rec_unlock();
    }
    return r;
}
