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
 * follow the clocks as they drift. Samples are in GPU ns, converted from ticks by the results
 * store (the one place that converts), so that nothing here depends on a period.
 */
#include <math.h>
#include <string.h>

#include "clock_fit.h"

enum { DRIFT_MIN_SPAN_NS = 1000000000, DRIFT_MIN_SAMPLES = 8 };
static const double MAX_DRIFT_PPM = 1000.0; /* beyond this, a fitted slope is noise, not drift */

void wgprof__clock_add(wgprof__clock_fit *c, uint64_t ticks, double gpu_ns, double lo_ns, double hi_ns)
{
    wgprof__clock_ring *ring = isfinite(lo_ns) && isfinite(hi_ns) ? &c->two_sided : &c->one_sided;
    ring->samples[ring->next] = (wgprof__clock_sample){ticks, gpu_ns, lo_ns, hi_ns};
    ring->next = (ring->next + 1) % WGPROF__CLOCK_WINDOW;
    ring->count += ring->count < WGPROF__CLOCK_WINDOW;
}

/* GPU ns of a sample since the reference. */
static double since_ref(const wgprof__clock_sample *s, double ref) { return s->gpu_ns - ref; }

/* Slope - 1 (the drift) of a least-squares line through the two-sided samples' midpoints, or 0
 * while they span too little time to tell drift from the width of their intervals. */
static double fit_drift(const wgprof__clock_ring *ring, double ref)
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
static void intersect(const wgprof__clock_ring *ring, double ref, double drift, double *lo, double *hi)
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

void wgprof__clock_refit(wgprof__clock_fit *c)
{
    wgprof_clock_info *info = &c->info;
    const wgprof__clock_sample *a = newest(&c->two_sided), *b = newest(&c->one_sided);
    if (!a && !b) {
        return;
    }
    /* The reference is a recent sample: offsets then stay small numbers. */
    const wgprof__clock_sample *reference = a ? a : b;
    double ref = reference->gpu_ns;
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
    info->ref_ticks = reference->ticks;
    info->ref_gpu_ns = ref;
    info->ref_cpu_ns = (lo + hi) / 2;
    info->drift_ppm = drift * 1e6;
    info->uncertainty_ns = fabs(hi - lo) / 2;
}

double wgprof__clock_cpu_ns(const wgprof_clock_info *c, double gpu_ns)
{
    if (!c->calibrated) {
        return NAN;
    }
    return c->ref_cpu_ns + (gpu_ns - c->ref_gpu_ns) * (1.0 + c->drift_ppm * 1e-6);
}
