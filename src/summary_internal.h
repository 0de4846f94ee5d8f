/* Statistics over one kernel's sorted durations, shared with the tests. */
#ifndef WGPROF_SUMMARY_INTERNAL_H
#define WGPROF_SUMMARY_INTERNAL_H

#include "wgprof/wgprof.h"

/* Fills count, total, mean, min, max, median, p95 and stddev of `sorted` (ascending). */
void wgprof__stats_from_sorted(const double *sorted, size_t n, wgprof_kernel_stats *k);

#endif
