/*
 * Host-side cost of profiling: what wgprof does on the CPU for each record once the GPU has
 * written its timestamps: take the readings from the readback (validate, convert to ns, clamp
 * overlap, count: what collect does per record), aggregate per kernel (summary), and convert a
 * record for a report. One
 * million synthetic records over 16 kernels, timed over several rounds; prints JSON with the
 * median ns per record of each stage, and the memory a timed dispatch takes; then the time a
 * record takes to be written in each file report (JSON, CSV, Chrome trace) of all of them, the
 * clock fitted as a calibrated run's is, to /dev/null: the formatting alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "testing.h"

enum { RECORDS = 1000000, KERNELS = 16, MAX_ROUNDS = 64 };

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_host [ROUNDS (1..%d, default 7)]\n", MAX_ROUNDS);
        return 2;
    }
    /* A pool without a device: its host side, as collect leaves it. */
    wgprof_pool *pool = wgprof__pool_new_host();
    if (!pool) {
        return 1;
    }
    uint32_t sites[KERNELS];
    for (int k = 0; k < KERNELS; k++) {
        char name[32];
        snprintf(name, sizeof name, "kernel_%d", k);
        wgprof_dispatch_desc d = {.kernel = name, .workgroups = {64, 1, 1}, .workgroup_size = {64, 1, 1}};
        if (wgprof__host_site(pool, &d, &sites[k]) != WGPROF_OK) {
            return 1;
        }
    }
    size_t first = 0;
    uint32_t batch = 0;
    uint64_t *ticks = malloc(2 * RECORDS * sizeof *ticks); /* what the readback map holds */
    if (wgprof__host_batch(pool, RECORDS, sites, KERNELS, false, &first, &batch) != WGPROF_OK || !ticks) {
        return 1;
    }
    wgprof__host_collected(pool, batch, 1.0);
    /* A fitted clock, so that each record's CPU times are printed as a calibrated run prints them. */
    wgprof_clock_info clock = {.calibrated = true, .consistent = true, .samples = 8, .ref_ticks = 1000000000000ull,
                               .ref_cpu_ns = 61382023796723.5, .drift_ppm = 1.7, .uncertainty_ns = 250};
    wgprof__host_clock(pool, &clock);
    FILE *sink_file = fopen("/dev/null", "w");
    if (!sink_file) {
        return 1;
    }
    static const wgprof_format written[] = {WGPROF_FORMAT_JSON, WGPROF_FORMAT_CSV, WGPROF_FORMAT_TRACE};
    enum { WRITTEN = sizeof written / sizeof written[0] };
    uint64_t t = 1000000000000ull, seed = 12345;
    for (size_t i = 0; i < RECORDS; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ticks[2 * i] = t;
        t += 1000 + (seed >> 54);
        ticks[2 * i + 1] = t;
        t += 100;
    }
    double collect[MAX_ROUNDS] = {0}, summary[MAX_ROUNDS] = {0}, record[MAX_ROUNDS] = {0};
    double report[WRITTEN][MAX_ROUNDS] = {{0}};
    double sink = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = bench_now_s();
        wgprof__extent extent = {0};
        wgprof__host_readings(pool, batch, 0, RECORDS, ticks, 1.0, &extent); /* what collect does per record */
        double t2 = bench_now_s();
        wgprof_summary *s = NULL;
        if (wgprof_summary_create(pool, &s) != WGPROF_OK) {
            return 1;
        }
        sink += s->total_ns;
        wgprof_summary_destroy(s);
        double t3 = bench_now_s();
        for (size_t i = 0; i < RECORDS; i++) {
            wgprof_record rec;
            wgprof_pool_record(pool, i, &rec);
            sink += rec.duration_ns;
        }
        double t4 = bench_now_s();
        /* Each file report of every record, written to /dev/null: its formatting alone. */
        for (int f = 0; f < WRITTEN; f++) {
            wgprof_summary *whole = NULL;
            if (wgprof_summary_create(pool, &whole) != WGPROF_OK) {
                return 1;
            }
            wgprof_report_desc desc = {.pool = pool, .summary = whole};
            double t5 = bench_now_s();
            if (wgprof_report_write(&desc, written[f], sink_file) != WGPROF_OK) {
                return 1;
            }
            report[f][r] = (bench_now_s() - t5) * 1e9 / RECORDS;
            wgprof_summary_destroy(whole);
        }
        collect[r] = (t2 - t0) * 1e9 / RECORDS;
        summary[r] = (t3 - t2) * 1e9 / RECORDS;
        record[r] = (t4 - t3) * 1e9 / RECORDS;
    }
    double c = bench_median(collect, rounds), s = bench_median(summary, rounds), rec = bench_median(record, rounds);
    printf("{\n  \"records\": %d, \"kernels\": %d, \"rounds\": %d,\n", RECORDS, KERNELS, rounds);
    printf("  \"ns_per_record\": {\"collect_convert_validate\": %.2f, \"aggregate\": %.2f, "
           "\"collect_convert_validate_aggregate\": %.2f, \"record_for_report\": %.2f},\n",
           c, s, c + s, rec);
    printf("  \"report_ns_per_record\": {");
    for (int f = 0; f < WRITTEN; f++) {
        printf("%s\"%s\": %.2f", f ? ", " : "", wgprof_format_name(written[f]), bench_median(report[f], rounds));
    }
    printf("},\n");
    /* GPU: the resolve buffer's 2 ticks, and 2 more in each readback frame in use (one when
     * every execute is collected before the next; up to readback_frames in flight). */
    printf("  \"bytes_per_record\": {\"host\": %zu, \"gpu_resolve\": %zu, \"gpu_readback_per_frame\": %zu},\n",
           sizeof(wgprof__result) + sizeof(wgprof__dispatch), 2 * sizeof(uint64_t), 2 * sizeof(uint64_t));
    printf("  \"checksum\": %.0f\n}\n", sink);
    fclose(sink_file);
    free(ticks);
    wgprof_pool_destroy(pool);
    return 0;
}
