/* libFuzzer target: the readback decoder. Arbitrary bytes become the timestamps a GPU resolved
 * (and which end writes were issued) for records of a few kernels; they are taken into a pool,
 * summarised and written as every report format. Nothing may crash, and no invalid reading may
 * come out as a number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { KERNELS = 3 };
    size_t count = size / 17; /* 16 bytes of ticks and 1 of flags per record */
    if (count == 0 || count > 4096) {
        return 0;
    }
    /* A pool without a device: wgprof_pool_destroy frees it. */
    wgprof_pool *pool = wgprof__pool_new_host();
    if (!pool) {
        abort();
    }
    uint32_t sites[KERNELS];
    for (int k = 0; k < KERNELS; k++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", k);
        wgprof_dispatch_desc d = {.kernel = name, .bytes = 1000.0 * k};
        if (wgprof__host_site(pool, &d, &sites[k]) != WGPROF_OK) {
            abort();
        }
    }
    size_t first = 0;
    uint32_t batch = 0;
    uint64_t *ticks = malloc(2 * count * sizeof *ticks);
    uint32_t *record_sites = malloc(count * sizeof *record_sites);
    double period = 0.25 + (double)(data[0] % 8); /* fractional periods too */
    if (!ticks || !record_sites) {
        abort();
    }
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = data + 17 * i;
        memcpy(&ticks[2 * i], p, 8);
        memcpy(&ticks[2 * i + 1], p + 8, 8);
        record_sites[i] = sites[p[16] % KERNELS];
    }
    /* The flag bit of the last record: its end was never written (resolved while open). */
    bool end_missing = (data[17 * count - 1] & 0x80) != 0;
    if (wgprof__host_batch(pool, count, record_sites, count, end_missing, &first, &batch) != WGPROF_OK) {
        abort();
    }
    wgprof__extent extent = {0};
    wgprof__host_readings(pool, batch, 0, count, ticks, period, &extent);
    wgprof__host_collected(pool, batch, period);
    for (size_t i = 0; i < count; i++) {
        wgprof_record r;
        if (wgprof_pool_record(pool, i, &r) != WGPROF_OK || (r.valid && !(r.duration_ns >= 0)) ||
            (r.valid && r.exclusive_ns > r.duration_ns) || (!r.valid && r.duration_ns != 0)) {
            abort();
        }
    }
    wgprof_summary *s = NULL;
    if (wgprof_summary_create(pool, &s) != WGPROF_OK) {
        abort();
    }
    FILE *sink = fopen("/dev/null", "w");
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        wgprof_report_desc desc = {.pool = pool, .summary = s, .peak_gbps = 1};
        wgprof_report_write(&desc, (wgprof_format)f, sink);
    }
    fclose(sink);
    wgprof_summary_destroy(s);
    wgprof_pool_destroy(pool);
    free(ticks);
    free(record_sites);
    return 0;
}
