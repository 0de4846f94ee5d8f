/*
 * Calibration of the clock fit by small synchronous submissions: each writes one timestamp,
 * bracketed by the CPU clock around its submit and its map. The fit itself is clock_fit.c's;
 * collected batches add their own bounds in recorder_readback.c.
 */
#include <math.h>

#include "config.h"
#include "recorder_internal.h"
#include "webgpu_ext.h"


static wgprof_status calibration_resources(wgprof_pool *pool)
{
    wgprof__calibration *c = &pool->calibration;
    if (c->set) {
        return WGPROF_OK;
    }
    WGPUDevice dev = pool->device->device;
    WGPUQuerySetDescriptor qd = {0};
    qd.label = (WGPUStringView){"wgprof clock", WGPU_STRLEN};
    qd.type = WGPUQueryType_Timestamp;
    qd.count = 2;
    WGPUBufferDescriptor rd = {0};
    rd.size = 2 * sizeof(uint64_t);
    rd.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    WGPUBufferDescriptor md = {0};
    md.size = rd.size;
    md.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    c->set = wgprof__wgpu()->deviceCreateQuerySet(dev, &qd);
    c->resolve = wgprof__wgpu()->deviceCreateBuffer(dev, &rd);
    c->readback = wgprof__wgpu()->deviceCreateBuffer(dev, &md);
    if (!c->set || !c->resolve || !c->readback) {
        wgprof__calibration_release(c);
        wgprof__log(WGPROF_LOG_ERROR, "creating the clock calibration's query set failed");
        return WGPROF_ERR_WEBGPU;
    }
    return WGPROF_OK;
}

/* One sample: a submission that writes one timestamp, bracketed by the CPU clock. */
static wgprof_status sample_once(wgprof_pool *pool, bool *written)
{
    wgprof__calibration *c = &pool->calibration;
    uint64_t errors = wgprof__device_errors(pool->device);
    WGPUCommandEncoder enc = wgprof__wgpu()->deviceCreateCommandEncoder(pool->device->device, NULL);
    if (!enc) {
        return WGPROF_ERR_WEBGPU;
    }
    if (pool->device->info.timestamp_inside_encoders) {
        wgprof__wgpu()->commandEncoderWriteTimestamp(enc, c->set, 0);
    } else {
        /* Core WebGPU: an empty pass's beginning-of-pass write. */
        WGPUPassTimestampWrites tw = {0};
        tw.querySet = c->set;
        tw.beginningOfPassWriteIndex = 0;
        tw.endOfPassWriteIndex = 1;
        WGPUComputePassDescriptor pd = {0};
        pd.timestampWrites = &tw;
        WGPUComputePassEncoder pass = wgprof__wgpu()->commandEncoderBeginComputePass(enc, &pd);
        wgprof__wgpu()->computePassEncoderEnd(pass);
        wgprof__wgpu()->computePassEncoderRelease(pass);
    }
    wgprof__wgpu()->commandEncoderResolveQuerySet(enc, c->set, 0, 1, c->resolve, 0);
    wgprof__wgpu()->commandEncoderCopyBufferToBuffer(enc, c->resolve, 0, c->readback, 0, sizeof(uint64_t));
    WGPUCommandBuffer cb;
    wgprof_status ready = wgprof__device_finish(pool->device, enc, errors, &cb);
    if (ready != WGPROF_OK) {
        return ready;
    }
    uint64_t lo = wgprof__now_ns();
    wgprof__wgpu()->queueSubmit(pool->device->queue, 1, &cb);
    wgprof__wgpu()->commandBufferRelease(cb);
    wgprof_status s = wgprof__map_read(pool->device, c->readback, 0, sizeof(uint64_t));
    uint64_t hi = wgprof__now_ns();
    if (s != WGPROF_OK) {
        return s;
    }
    const uint64_t *ticks = wgprof__wgpu()->bufferGetConstMappedRange(c->readback, 0, sizeof(uint64_t));
    uint64_t t = ticks ? ticks[0] : 0;
    wgprof__wgpu()->bufferUnmap(c->readback);
    *written = t != 0; /* a slot left unwritten reads 0: no sample */
    if (*written) {
        double gpu_ns = wgprof__store_gpu_ns(pool->store, t, wgprof_device_timestamp_period(pool->device));
        wgprof__clock_add(&pool->clock, t, gpu_ns, (double)lo, (double)hi);
    }
    return WGPROF_OK;
}

wgprof_status wgprof_pool_calibrate(wgprof_pool *pool, uint32_t samples)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->device) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_calibrate: the pool has no device (%s)",
                    pool->external ? "external: its batches' CPU stamps bound the clock fit" : "merged results");
        return WGPROF_ERR_STATE;
    }
    wgprof_status s = calibration_resources(pool);
    uint32_t written = 0;
    for (uint32_t i = 0; i < (samples ? samples : WGPROF__DEFAULT_CALIBRATION_SAMPLES) && s == WGPROF_OK; i++) {
        bool ok = false;
        s = sample_once(pool, &ok);
        written += ok;
    }
    pool->calibration.last_ns = wgprof__now_ns();
    wgprof__clock_refit(&pool->clock);
    if (s == WGPROF_OK && !written) {
        wgprof__log(WGPROF_LOG_WARN, "clock calibration read no timestamp; the timeline uses the "
                                     "executes' own bounds only");
    }
    return s;
}

void wgprof__calibration_release(wgprof__calibration *c)
{
    if (c->set) wgprof__wgpu()->querySetRelease(c->set);
    if (c->resolve) wgprof__wgpu()->bufferRelease(c->resolve);
    if (c->readback) wgprof__wgpu()->bufferRelease(c->readback);
    c->set = NULL;
    c->resolve = c->readback = NULL;
}
