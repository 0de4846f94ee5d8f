/*
 * What every report writer reads (report.c prepares it): the caller's description, the summary,
 * and the results store with the clock fit that places its records on the CPU clock. Writers
 * read records, scopes and batches from the store only (wgprof__store_record and friends), and
 * share the helpers of report_util.c and escape.c; none calls another writer or report.c.
 */
#ifndef WGPROF_REPORT_INTERNAL_H
#define WGPROF_REPORT_INTERNAL_H

#include "escape.h"
#include "store.h"

typedef struct wgprof__report {
    const wgprof_report_desc *desc;
    const wgprof_summary *summary;  /* NULL when there is no pool */
    const wgprof__store *store;     /* NULL when there is no pool */
    const wgprof_clock_info *clock; /* NULL when there is no pool */
    const char *strategy;
    uint32_t iterations;
} wgprof__report;

/* Each writer returns WGPROF_OK, or WGPROF_ERR_OUT_OF_MEMORY where it needed memory and got none
 * (write errors are left to the stream's error flag, which report.c checks). */
wgprof_status wgprof__write_table(const wgprof__report *r, FILE *out);
wgprof_status wgprof__write_tsv(const wgprof__report *r, FILE *out);
wgprof_status wgprof__write_json(const wgprof__report *r, FILE *out);
wgprof_status wgprof__write_csv(const wgprof__report *r, FILE *out);
wgprof_status wgprof__write_csv_summary(const wgprof__report *r, FILE *out);
wgprof_status wgprof__write_trace(const wgprof__report *r, FILE *out);
wgprof_status wgprof__write_html(const wgprof__report *r, FILE *out);

/* ---- report_rows.c ---- */
/* Per-dispatch rows with `sep` between fields (',' quotes as RFC 4180 says): CSV and TSV. */
void wgprof__write_dispatch_rows(const wgprof__report *r, FILE *out, char sep);

/* ---- report_util.c ---- */
/* Achieved GB/s and GFLOP/s of a kernel over its valid records; 0 where not known. */
double wgprof__gbps(const wgprof_kernel_stats *k);
double wgprof__gflops(const wgprof_kernel_stats *k);
/* "a, b, c" of the invalid counts by reason, e.g. "2 zero, 1 map-failed"; "" when none. */
void wgprof__invalid_breakdown(const wgprof_summary *s, char *buf, size_t cap);
/* The period the collected batches were converted with, e.g. "1 ns/tick" or
 * "0.5-1 ns/tick (varied by batch)"; the device's "(assumed)" one when none was collected. */
void wgprof__period_text(const wgprof__report *r, char *buf, size_t cap);

#endif
