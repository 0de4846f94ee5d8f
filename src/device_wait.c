/*
 * Waiting for WebGPU callbacks: the waiter a callback and a waiting thread meet at, the loop
 * that drives the implementation until it fires (with a time-out and the device's loss), and
 * the buffer maps that the query pool starts, polls and waits for.
 */
#include <string.h>
#include <threads.h>
#include <time.h>

#include "device_internal.h"
#include "webgpu_ext.h"

void wgprof__copy_view(char *dst, size_t cap, WGPUStringView v)
{
    size_t n = 0;
    if (v.data) {
        n = v.length == WGPU_STRLEN ? strlen(v.data) : v.length;
    }
    if (n >= cap) {
        n = cap - 1;
    }
    if (n) {
        memcpy(dst, v.data, n);
    }
    dst[n] = '\0';
}

wgprof__waiter *wgprof__waiter_new(void)
{
    wgprof__waiter *w = wgprof__calloc(1, sizeof *w);
    if (w) {
        atomic_init(&w->done, false);
        atomic_init(&w->released, false);
    }
    return w;
}

void wgprof__waiter_signal(wgprof__waiter *w)
{
    atomic_store(&w->done, true);
    if (atomic_exchange(&w->released, true)) {
        wgprof__free(w);
    }
}

void wgprof__waiter_release(wgprof__waiter *w)
{
    if (w && atomic_exchange(&w->released, true)) {
        wgprof__free(w);
    }
}

/* How a wait spends its time: polling without blocking and yielding for the first SPIN_NS, so
 * that a short wait ends as soon as its callback fires, then sleeping between polls, from
 * SLEEP_MIN_NS doubling to SLEEP_MAX_NS, so that a long wait leaves the CPU (a software GPU's
 * threads) alone while noticing the end within SLEEP_MAX_NS: on the H200 a 1 ms cap made 7.4 ms
 * executes 0.28 ms later than a blocking wait's. A blocking poll would be simpler, but it waits
 * for the whole queue with no time-out: a kernel that never ends would hang the caller. */
enum { SPIN_NS = 2000000, SLEEP_MIN_NS = 10000, SLEEP_MAX_NS = 100000 };

/* Lets the implementation run due callbacks once: those of `futures` alone where it can
 * (wgprof__ext.polls_by_future), else wgpuDevicePoll where it exists (wgpu-native fires
 * callbacks from it) and wgpuInstanceProcessEvents, which every webgpu.h implementation has. */
static void drive(WGPUInstance instance, WGPUDevice device, const WGPUFuture *futures, size_t count)
{
    const wgprof__ext *ext = wgprof__ext_get();
    if (ext->polls_by_future && count) {
        enum { AT_ONCE = 16 };
        WGPUFutureWaitInfo infos[AT_ONCE];
        for (size_t done = 0; done < count;) {
            size_t n = count - done < AT_ONCE ? count - done : AT_ONCE;
            for (size_t i = 0; i < n; i++) {
                infos[i] = (WGPUFutureWaitInfo){.future = futures[done + i]};
            }
            wgprof__wgpu()->instanceWaitAny(instance, n, infos, 0);
            done += n;
        }
        return;
    }
    if (device && ext->device_poll) {
        ext->device_poll(device, 0, NULL);
    }
    wgprof__wgpu()->instanceProcessEvents(instance);
}

/* Drives the implementation until w->done, on the monotonic clock (drive: through w's future
 * where it has one and the implementation allows). */
wgprof_status wgprof__wait_flag(WGPUInstance instance, WGPUDevice device, double timeout_s,
                               wgprof__waiter *w, const atomic_bool *lost)
{
    uint64_t start = wgprof__now_ns();
    uint64_t deadline = start + (uint64_t)((timeout_s < 1e9 ? timeout_s : 1e9) * 1e9);
    uint64_t sleep_ns = SLEEP_MIN_NS;
    for (;;) {
        drive(instance, device, &w->future, w->future.id ? 1 : 0);
        if (atomic_load(&w->done)) {
            return WGPROF_OK;
        }
        if (lost && atomic_load(lost)) {
            return WGPROF_ERR_DEVICE_LOST;
        }
        uint64_t now = wgprof__now_ns();
        if (now >= deadline) {
            wgprof__log(WGPROF_LOG_ERROR, "a wait for the GPU ran past %.3g s and gave up", timeout_s);
            return WGPROF_ERR_TIMEOUT;
        }
        if (now - start < SPIN_NS) {
            thrd_yield();
            continue;
        }
        uint64_t nap = sleep_ns < deadline - now ? sleep_ns : deadline - now;
        struct timespec ts = {(time_t)(nap / 1000000000u), (long)(nap % 1000000000u)};
        thrd_sleep(&ts, NULL);
        sleep_ns = sleep_ns * 2 < SLEEP_MAX_NS ? sleep_ns * 2 : SLEEP_MAX_NS;
    }
}

wgprof_status wgprof__device_wait(wgprof_device *device, wgprof__waiter *w)
{
    return wgprof__wait_flag(device->instance, device->device, device->wait_timeout_s, w, &device->lost);
}

static void on_map(WGPUMapAsyncStatus status, WGPUStringView message, void *userdata1, void *userdata2)
{
    (void)userdata2;
    wgprof__waiter *w = userdata1;
    w->status = (int)status;
    wgprof__copy_view(w->message, sizeof w->message, message);
    wgprof__waiter_signal(w);
}

wgprof__waiter *wgprof__map_read_start(WGPUBuffer buffer, size_t offset, size_t size)
{
    wgprof__waiter *w = wgprof__waiter_new();
    if (w) {
        WGPUBufferMapCallbackInfo cb = {0};
        cb.mode = WGPUCallbackMode_AllowProcessEvents;
        cb.callback = on_map;
        cb.userdata1 = w;
        w->future = wgprof__wgpu()->bufferMapAsync(buffer, WGPUMapMode_Read, offset, size, cb);
    }
    return w;
}

wgprof_status wgprof__map_result(wgprof_device *d, const wgprof__waiter *w)
{
    if (w->status == (int)WGPUMapAsyncStatus_Success) {
        return WGPROF_OK;
    }
    wgprof__log(WGPROF_LOG_ERROR, "mapping a buffer failed (status %d): %s", w->status, w->message);
    return atomic_load(&d->lost) ? WGPROF_ERR_DEVICE_LOST : WGPROF_ERR_MAP_FAILED;
}

void wgprof__waiters_poll(wgprof_device *d, wgprof__waiter *const *waiters, size_t count)
{
    if (!wgprof__ext_get()->polls_by_future) {
        drive(d->instance, d->device, NULL, 0);
        return;
    }
    enum { AT_ONCE = 64 };
    WGPUFuture futures[AT_ONCE];
    size_t n = 0;
    bool without = false; /* a waiter with no future: only pumping the instance runs its callback */
    for (size_t i = 0; i < count; i++) {
        without |= waiters[i] && !atomic_load(&waiters[i]->done) && !waiters[i]->future.id;
        if (waiters[i] && !atomic_load(&waiters[i]->done) && waiters[i]->future.id) {
            futures[n++] = waiters[i]->future;
        }
        if (n == AT_ONCE || (n && i + 1 == count)) {
            drive(d->instance, d->device, futures, n);
            n = 0;
        }
    }
    if (without) {
        drive(d->instance, d->device, NULL, 0);
    }
}

wgprof_status wgprof__map_read(wgprof_device *d, WGPUBuffer buffer, size_t offset, size_t size)
{
    if (atomic_load(&d->lost)) {
        return WGPROF_ERR_DEVICE_LOST;
    }
    wgprof__waiter *w = wgprof__map_read_start(buffer, offset, size);
    if (!w) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    wgprof_status s = wgprof__device_wait(d, w);
    if (s == WGPROF_OK) {
        s = wgprof__map_result(d, w);
    }
    wgprof__waiter_release(w);
    return s;
}
