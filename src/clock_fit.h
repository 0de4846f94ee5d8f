/*
 * The fit of the GPU clock to the CPU clock (clock_fit.c): samples that bound when the GPU
 * wrote a timestamp, and the offset and drift that satisfy them. Pure arithmetic on GPU
 * nanoseconds; the samples come from the recorder (calibration and collected batches).
 */
#ifndef WGPROF_CLOCK_FIT_H
#define WGPROF_CLOCK_FIT_H

#include "wgprof/wgprof.h"

/* Interval constraints on the CPU time of a GPU timestamp: lo <= cpu(gpu_ns) <= hi. */
typedef struct wgprof__clock_sample {
    uint64_t ticks; /* the raw timestamp, kept to name the reference */
    double gpu_ns;  /* the same, in ns on the store's origin */
    double lo_ns;   /* -INFINITY: no lower bound */
    double hi_ns;   /* INFINITY: no upper bound */
} wgprof__clock_sample;

enum { WGPROF__CLOCK_WINDOW = 128 };

/* The latest samples of one kind. */
typedef struct wgprof__clock_ring {
    wgprof__clock_sample samples[WGPROF__CLOCK_WINDOW];
    uint32_t count, next;
} wgprof__clock_ring;

typedef struct wgprof__clock_fit {
    /* Calibration samples (bounded on both sides) and the executes' one-sided bounds are kept
     * apart, so that a long run of executes does not push the calibration out. */
    wgprof__clock_ring two_sided, one_sided;
    wgprof_clock_info info;
} wgprof__clock_fit;

void wgprof__clock_add(wgprof__clock_fit *clock, uint64_t ticks, double gpu_ns, double lo_ns, double hi_ns);
/* Refits info from the samples in the window. */
void wgprof__clock_refit(wgprof__clock_fit *clock);
/* The CPU time of a GPU time through `info`; NAN while it is not calibrated. */
double wgprof__clock_cpu_ns(const wgprof_clock_info *info, double gpu_ns);

#endif
