/* Statistics over one kernel's durations, shared with the tests. */
#ifndef WGPROF_SUMMARY_INTERNAL_H
#define WGPROF_SUMMARY_INTERNAL_H

#include "wgprof/wgprof.h"

/* Fills count, total, mean, min, max, median, p95 and stddev of `values`, reordering them. */
void wgprof__stats(double *values, size_t n, wgprof_kernel_stats *k);

#endif
