/*
 * The public WebGPU helpers of wgprof/device_util.h: waiting for the queue, a blocking map,
 * and error scopes, all through the device's waits (device_wait.c).
 */
#include <stdio.h>

#include "device_internal.h"
#include "webgpu_ext.h"
#include "wgprof/device_util.h"

static void on_work_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *userdata1,
                         void *userdata2)
{
    (void)userdata2;
    wgprof__waiter *w = userdata1;
    w->status = (int)status;
    wgprof__copy_view(w->message, sizeof w->message, message);
    wgprof__waiter_signal(w);
}

wgprof_status wgprof_device_wait_idle(wgprof_device *d)
{
    if (!d) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (atomic_load(&d->lost)) {
        return WGPROF_ERR_DEVICE_LOST;
    }
    wgprof__waiter *w = wgprof__waiter_new();
    if (!w) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    WGPUQueueWorkDoneCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = on_work_done;
    cb.userdata1 = w;
    w->future = wgprof__wgpu()->queueOnSubmittedWorkDone(d->queue, cb);
    wgprof_status s = wgprof__device_wait(d, w);
    if (s == WGPROF_OK && w->status != (int)WGPUQueueWorkDoneStatus_Success) {
        s = atomic_load(&d->lost) ? WGPROF_ERR_DEVICE_LOST : WGPROF_ERR_WEBGPU;
    }
    wgprof__waiter_release(w);
    return s;
}

wgprof_status wgprof_device_map_read(wgprof_device *d, WGPUBuffer buffer, size_t offset, size_t size)
{
    if (!d || !buffer) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return wgprof__map_read(d, buffer, offset, size);
}

void wgprof_device_push_error_scope(wgprof_device *d)
{
    if (d) {
        wgprof__wgpu()->devicePushErrorScope(d->device, WGPUErrorFilter_OutOfMemory);
        wgprof__wgpu()->devicePushErrorScope(d->device, WGPUErrorFilter_Validation);
    }
}

static void on_pop_error_scope(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                               void *userdata1, void *userdata2)
{
    (void)userdata2;
    wgprof__waiter *w = userdata1;
    w->status = status == WGPUPopErrorScopeStatus_Success ? (int)type : -1;
    wgprof__copy_view(w->message, sizeof w->message, message);
    wgprof__waiter_signal(w);
}

static wgprof_status pop_one_scope(wgprof_device *d, char *message, size_t capacity)
{
    wgprof__waiter *w = wgprof__waiter_new();
    if (!w) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    WGPUPopErrorScopeCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = on_pop_error_scope;
    cb.userdata1 = w;
    w->future = wgprof__wgpu()->devicePopErrorScope(d->device, cb);
    wgprof_status s = wgprof__wait_flag(d->instance, NULL, d->wait_timeout_s, w, &d->lost);
    if (s == WGPROF_OK && w->status != (int)WGPUErrorType_NoError) {
        if (message && capacity) {
            snprintf(message, capacity, "%s%s", w->status == (int)WGPUErrorType_OutOfMemory ? "out of memory: " : "",
                     w->message[0] ? w->message : "validation error");
        }
        s = atomic_load(&d->lost) ? WGPROF_ERR_DEVICE_LOST
            : w->status == (int)WGPUErrorType_OutOfMemory ? WGPROF_ERR_OUT_OF_MEMORY
                                                          : WGPROF_ERR_WEBGPU;
    }
    wgprof__waiter_release(w);
    return s;
}

wgprof_status wgprof_device_pop_error_scope(wgprof_device *d, char *message, size_t capacity)
{
    if (message && capacity) {
        message[0] = '\0';
    }
    if (!d) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    /* Both scopes are always popped, validation (pushed last) first; the first error wins. */
    wgprof_status validation = pop_one_scope(d, message, capacity);
    wgprof_status memory = pop_one_scope(d, validation == WGPROF_OK ? message : NULL, capacity);
    return validation != WGPROF_OK ? validation : memory;
}
