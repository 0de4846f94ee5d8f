/*
 * One timeline for CPU and GPU: a fit of the GPU timestamp clock to the CPU clock
 * (CLOCK_MONOTONIC), which WebGPU offers no calibration for.
 *
 * Every sample bounds the CPU time at which the GPU wrote one timestamp: it cannot have been
 * written before the submit that carried it was called, nor after the CPU saw that submission
 * complete. Small synchronous submissions give such bounds on both sides (calibration); each
 * collected batch gives one more on each side for free (its first begin and its last end).
 * With the drift rate fitted, the offset lies in the intersection of all the intervals; its
 * midpoint is the estimate and half its width the uncertainty, a bound rather than a standard
 * error. The drift is the slope of a least-squares line through the two-sided samples'
 * midpoints, fitted once they span a second; a window of the latest samples lets the fit
 * follow the clocks as they drift.
 */
#include <math.h>
#include <string.h>

#include "querypool_internal.h"

enum { DRIFT_MIN_SPAN_NS = 1000000000, DRIFT_MIN_SAMPLES = 8 };
static const double MAX_DRIFT_PPM = 1000.0; /* beyond this, a fitted slope is noise, not drift */

void wgprof__clock_add(wgprof__clock *c, uint64_t ticks, double period_ns, double lo_ns, double hi_ns)
{
    wgprof__clock_ring *ring = isfinite(lo_ns) && isfinite(hi_ns) ? &c->two_sided : &c->one_sided;
    ring->samples[ring->next] = (wgprof__clock_sample){ticks, period_ns, lo_ns, hi_ns};
    ring->next = (ring->next + 1) % WGPROF__CLOCK_WINDOW;
    ring->count += ring->count < WGPROF__CLOCK_WINDOW;
}

/* GPU ns of a sample since the reference ticks. */
static double since_ref(const wgprof__clock_sample *s, uint64_t ref)
{
    return (double)(int64_t)(s->ticks - ref) * s->period_ns;
}

/* Slope - 1 (the drift) of a least-squares line through the two-sided samples' midpoints, or 0
 * while they span too little time to tell drift from the width of their intervals. */
static double fit_drift(const wgprof__clock_ring *ring, uint64_t ref)
{
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < ring->count; i++) {
        const wgprof__clock_sample *s = &ring->samples[i];
        double x = since_ref(s, ref), y = (s->lo_ns + s->hi_ns) / 2 - x;
        n++;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    if (n < DRIFT_MIN_SAMPLES || hi - lo < DRIFT_MIN_SPAN_NS) {
        return 0;
    }
    double den = n * sxx - sx * sx;
    double drift = den > 0 ? (n * sxy - sx * sy) / den : 0;
    return fabs(drift) * 1e6 <= MAX_DRIFT_PPM ? drift : 0;
}

/* Narrows [*lo, *hi], the offset at `ref`, by every sample of `ring`. */
static void intersect(const wgprof__clock_ring *ring, uint64_t ref, double drift, double *lo, double *hi)
{
    for (uint32_t i = 0; i < ring->count; i++) {
        const wgprof__clock_sample *s = &ring->samples[i];
        double gpu = since_ref(s, ref) * (1.0 + drift);
        *lo = fmax(*lo, s->lo_ns - gpu);
        *hi = fmin(*hi, s->hi_ns - gpu);
    }
}

static const wgprof__clock_sample *newest(const wgprof__clock_ring *ring)
{
    return ring->count ? &ring->samples[(ring->next + WGPROF__CLOCK_WINDOW - 1) % WGPROF__CLOCK_WINDOW] : NULL;
}

void wgprof__clock_fit(wgprof__clock *c)
{
    wgprof_clock_info *info = &c->info;
    const wgprof__clock_sample *a = newest(&c->two_sided), *b = newest(&c->one_sided);
    if (!a && !b) {
        return;
    }
    /* The reference is a recent sample: offsets then stay small numbers. */
    uint64_t ref = (a ? a : b)->ticks;
    double drift = fit_drift(&c->two_sided, ref);
    double lo = -INFINITY, hi = INFINITY;
    intersect(&c->two_sided, ref, drift, &lo, &hi);
    intersect(&c->one_sided, ref, drift, &lo, &hi);
    info->samples = c->two_sided.count + c->one_sided.count;
    info->calibrated = isfinite(lo) && isfinite(hi);
    if (!info->calibrated) {
        return;
    }
    info->consistent = lo <= hi;
    info->ref_ticks = ref;
    info->ref_cpu_ns = (lo + hi) / 2;
    info->drift_ppm = drift * 1e6;
    info->uncertainty_ns = fabs(hi - lo) / 2;
}

void wgprof__clock_add_batch(wgprof_pool *pool, const wgprof__batch *b, const wgprof__extent *extent)
{
    wgprof__clock *c = &pool->clock;
    if (b->cpu_submit_ns) {
        wgprof__clock_add(c, extent->first_begin, b->period_ns, (double)b->cpu_submit_ns, INFINITY);
    }
    if (b->cpu_ready_ns) {
        wgprof__clock_add(c, extent->last_end, b->period_ns, -INFINITY, (double)b->cpu_ready_ns);
    }
    wgprof__clock_fit(c);
}

/* ---- calibration by small synchronous submissions ---- */

static wgprof_status calibration_resources(wgprof_pool *pool)
{
    wgprof__clock *c = &pool->clock;
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
    c->set = wgpuDeviceCreateQuerySet(dev, &qd);
    c->resolve = wgpuDeviceCreateBuffer(dev, &rd);
    c->readback = wgpuDeviceCreateBuffer(dev, &md);
    if (!c->set || !c->resolve || !c->readback) {
        wgprof__clock_release(c);
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: creating the clock calibration's query set failed");
        return WGPROF_ERR_WEBGPU;
    }
    return WGPROF_OK;
}

/* One sample: a submission that writes one timestamp, bracketed by the CPU clock. */
static wgprof_status sample_once(wgprof_pool *pool, bool *written)
{
    wgprof__clock *c = &pool->clock;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(pool->device->device, NULL);
    if (!enc) {
        return WGPROF_ERR_WEBGPU;
    }
    if (pool->device->info.timestamp_inside_encoders) {
        wgpuCommandEncoderWriteTimestamp(enc, c->set, 0);
    } else {
        /* Core WebGPU: an empty pass's beginning-of-pass write. */
        WGPUPassTimestampWrites tw = {0};
        tw.querySet = c->set;
        tw.beginningOfPassWriteIndex = 0;
        tw.endOfPassWriteIndex = 1;
        WGPUComputePassDescriptor pd = {0};
        pd.timestampWrites = &tw;
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
        wgpuComputePassEncoderEnd(pass);
        wgpuComputePassEncoderRelease(pass);
    }
    wgpuCommandEncoderResolveQuerySet(enc, c->set, 0, 1, c->resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(enc, c->resolve, 0, c->readback, 0, sizeof(uint64_t));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    if (!cb) {
        return WGPROF_ERR_WEBGPU;
    }
    uint64_t lo = wgprof__now_ns();
    wgpuQueueSubmit(pool->device->queue, 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgprof_status s = wgprof__map_read(pool->device, c->readback, 0, sizeof(uint64_t));
    uint64_t hi = wgprof__now_ns();
    if (s != WGPROF_OK) {
        return s;
    }
    const uint64_t *ticks = wgpuBufferGetConstMappedRange(c->readback, 0, sizeof(uint64_t));
    uint64_t t = ticks ? ticks[0] : 0;
    wgpuBufferUnmap(c->readback);
    *written = t != 0; /* a slot left unwritten reads 0: no sample */
    if (*written) {
        wgprof__clock_add(c, t, wgprof_device_timestamp_period(pool->device), (double)lo, (double)hi);
    }
    return WGPROF_OK;
}

wgprof_status wgprof_pool_calibrate(wgprof_pool *pool, uint32_t samples)
{
    if (!pool || !pool->device) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = calibration_resources(pool);
    uint32_t written = 0;
    for (uint32_t i = 0; i < (samples ? samples : 16) && s == WGPROF_OK; i++) {
        bool ok = false;
        s = sample_once(pool, &ok);
        written += ok;
    }
    pool->clock.last_calibration_ns = wgprof__now_ns();
    wgprof__clock_fit(&pool->clock);
    if (s == WGPROF_OK && !written) {
        wgprof__log(WGPROF_LOG_WARN, "wgprof: clock calibration read no timestamp; the timeline uses the "
                                     "executes' own bounds only");
    }
    return s;
}

const wgprof_clock_info *wgprof_pool_clock(const wgprof_pool *pool)
{
    return pool ? &pool->clock.info : NULL;
}

void wgprof__clock_release(wgprof__clock *c)
{
    if (c->set) wgpuQuerySetRelease(c->set);
    if (c->resolve) wgpuBufferRelease(c->resolve);
    if (c->readback) wgpuBufferRelease(c->readback);
    c->set = NULL;
    c->resolve = c->readback = NULL;
}
