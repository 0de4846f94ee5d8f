/* What every report writer reads: the caller's description plus the summary to print. */
#ifndef WGPROF_REPORT_INTERNAL_H
#define WGPROF_REPORT_INTERNAL_H

#include "wgprof/wgprof.h"

typedef struct wgprof__report {
    const wgprof_report_desc *desc;
    const wgprof_summary *summary; /* NULL when there is no pool */
    const char *strategy;
    uint32_t iterations;
} wgprof__report;

void wgprof__write_table(const wgprof__report *r, FILE *out);
void wgprof__write_tsv(const wgprof__report *r, FILE *out);
void wgprof__write_json(const wgprof__report *r, FILE *out);
void wgprof__write_csv(const wgprof__report *r, FILE *out);
void wgprof__write_csv_summary(const wgprof__report *r, FILE *out);
void wgprof__write_trace(const wgprof__report *r, FILE *out);
void wgprof__write_html(const wgprof__report *r, FILE *out);
/* Per-dispatch rows with `sep` between fields (',' quotes as RFC 4180 says). */
void wgprof__write_dispatch_rows(const wgprof__report *r, FILE *out, char sep);

/* Achieved GB/s and GFLOP/s of a kernel over its valid records; 0 where not known. */
double wgprof__gbps(const wgprof_kernel_stats *k);
double wgprof__gflops(const wgprof_kernel_stats *k);

/* Writes `s` as a JSON string literal, quotes included. */
void wgprof__json_string(FILE *out, const char *s);

/* "a, b, c" of the invalid counts by reason, e.g. "2 zero, 1 map-failed"; "" when none. */
void wgprof__invalid_breakdown(const wgprof_summary *s, char *buf, size_t cap);

#endif
