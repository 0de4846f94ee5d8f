/*
 * Per-kernel aggregation of a pool's records: count, invalid count, total, mean, min, max,
 * median, p95, standard deviation and share, all in floating point. Invalid records are counted
 * and excluded from every figure.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "querypool_internal.h"
#include "summary_internal.h"

/* Reorders v so that v[k] is the k-th smallest, all before it no larger and all after no
 * smaller (quickselect, median-of-three pivots): linear time on average, where a sort for a
 * median and a p95 would be n log n. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) {
                i++;
            }
            while (v[j] > pivot) {
                j--;
            }
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0) {
                    break;
                }
                j--;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            break;
        }
    }
    return v[k];
}

void wgprof__stats(double *values, size_t n, wgprof_kernel_stats *k)
{
    k->count = (uint32_t)n;
    if (n == 0) {
        return;
    }
    double sum = 0, lo = values[0], hi = values[0];
    for (size_t i = 0; i < n; i++) {
        sum += values[i];
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
    }
    double mean = sum / (double)n;
    double var = 0;
    for (size_t i = 0; i < n; i++) {
        var += (values[i] - mean) * (values[i] - mean);
    }
    k->total_ns = sum;
    k->mean_ns = mean;
    k->min_ns = lo;
    k->max_ns = hi;
    k->stddev_ns = sqrt(var / (double)n);
    size_t rank = (size_t)ceil(0.95 * (double)n); /* nearest rank, 1-based */
    k->p95_ns = select_kth(values, n, (rank ? rank : 1) - 1);
    double upper = select_kth(values, n, n / 2);
    if (n % 2) {
        k->median_ns = upper;
    } else {
        /* After the select, the largest of v[0 .. n/2) is the lower middle value. */
        double lower = values[0];
        for (size_t i = 1; i < n / 2; i++) {
            lower = values[i] > lower ? values[i] : lower;
        }
        k->median_ns = (lower + upper) / 2.0;
    }
}

wgprof_status wgprof_summary_create(const wgprof_pool *pool, wgprof_summary **out)
{
    if (!pool || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    wgprof_summary *sum = wgprof__calloc(1, sizeof *sum);
    size_t *start = wgprof__calloc((size_t)pool->name_count + 1, sizeof *start);
    size_t *fill = wgprof__calloc((size_t)pool->name_count + 1, sizeof *fill);
    uint32_t *invalid = wgprof__calloc((size_t)pool->name_count + 1, sizeof *invalid);
    double *excl = wgprof__calloc((size_t)pool->name_count + 1, sizeof *excl);
    double *bytes = wgprof__calloc((size_t)pool->name_count + 1, sizeof *bytes);
    double *flops = wgprof__calloc((size_t)pool->name_count + 1, sizeof *flops);
    double *durations = wgprof__calloc(pool->count + 1, sizeof *durations);
    wgprof_status status = WGPROF_ERR_OUT_OF_MEMORY;
    if (!sum || !start || !fill || !invalid || !excl || !bytes || !flops || !durations) {
        goto done;
    }
    /* Counting sort by kernel name: count, prefix-sum, place. */
    for (size_t i = 0; i < pool->count; i++) {
        const wgprof__slot *r = &pool->slots[i];
        uint32_t name = pool->sites[r->site].name;
        if (r->reason == WGPROF_VALID) {
            start[name + 1]++;
        } else {
            invalid[name]++;
            sum->invalid++;
            sum->invalid_by_reason[r->reason]++;
        }
    }
    size_t kernels = 0;
    for (uint32_t n = 0; n < pool->name_count; n++) {
        kernels += (start[n + 1] || invalid[n]) ? 1 : 0;
        start[n + 1] += start[n];
        fill[n] = start[n];
    }
    for (size_t i = 0; i < pool->count; i++) {
        const wgprof__slot *r = &pool->slots[i];
        if (r->reason != WGPROF_VALID) {
            continue;
        }
        const wgprof__site *site = &pool->sites[r->site];
        double p = pool->iters[r->iteration].period_ns;
        durations[fill[site->name]++] = (double)(r->end - r->begin) * p;
        excl[site->name] += (double)(r->end - r->clamped_begin) * p;
        bytes[site->name] += site->bytes;
        flops[site->name] += site->flops;
    }
    sum->kernels = wgprof__calloc(kernels + 1, sizeof *sum->kernels);
    if (!sum->kernels) {
        goto done;
    }
    for (uint32_t n = 0; n < pool->name_count; n++) {
        size_t count = start[n + 1] - start[n];
        if (!count && !invalid[n]) {
            continue;
        }
        wgprof_kernel_stats *k = &sum->kernels[sum->kernel_count++];
        k->name = pool->names[n];
        wgprof__stats(durations + start[n], count, k);
        k->invalid = invalid[n];
        k->exclusive_total_ns = excl[n];
        k->bytes = bytes[n];
        k->flops = flops[n];
        sum->total_ns += k->total_ns;
        sum->exclusive_total_ns += k->exclusive_total_ns;
    }
    for (size_t i = 0; i < sum->kernel_count; i++) {
        sum->kernels[i].share = sum->total_ns > 0 ? sum->kernels[i].total_ns / sum->total_ns : 0;
    }
    sum->records = pool->count;
    *out = sum;
    sum = NULL;
    status = WGPROF_OK;
done:
    wgprof_summary_destroy(sum);
    wgprof__free(start);
    wgprof__free(fill);
    wgprof__free(invalid);
    wgprof__free(excl);
    wgprof__free(bytes);
    wgprof__free(flops);
    wgprof__free(durations);
    return status;
}

void wgprof_summary_destroy(wgprof_summary *summary)
{
    if (summary) {
        wgprof__free(summary->kernels);
        wgprof__free(summary);
    }
}
