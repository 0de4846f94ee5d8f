/*
 * What every report writer reads (report.c prepares it): the caller's description, the summary,
 * and the results store with the clock fit that places its records on the CPU clock. Writers
 * read records, scopes and batches from the store only (wgprof__store_record and friends), and
 * share the helpers of report_util.c and the escaping of common.h (common/escape.c); none calls
 * another writer or report.c.
 */
#ifndef WGPROF_REPORT_INTERNAL_H
#define WGPROF_REPORT_INTERNAL_H

#include "common.h"
#include "store.h"

typedef struct wgprof__report {
    const wgprof_report_desc *desc;
    const wgprof_summary *summary;  /* NULL when there is no pool */
    const wgprof__store *store;     /* NULL when there is no pool */
    const wgprof_clock_info *clock; /* NULL when there is no pool */
    char strategy[48];              /* what the summary says the records were timed with */
    uint32_t iterations;
    const char *partial;            /* NULL: complete; else why the results are not (never "") */
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
/* The last two cells of every CSV and TSV row, each preceded by `sep`, and the row's end:
 * partial ("0" or "1") and partial_reason (empty when complete). On every row, as the quantum
 * is: a reader of rows sees it, where a comment line is no CSV and a first line of another
 * shape breaks every reader. */
void wgprof__partial_cells(const wgprof__report *r, FILE *out, char sep);

/* ---- report_util.c ---- */
/* `v` as printf's "%.3f" writes it (rounded to the nearest thousandth, ties to even, "-" on any
 * negative v, -0 included), computed exactly from its bits without printf, in `buf`: returns the
 * length, or 0 (buf then untouched) where v is not finite or |v| reaches 2^53, which the caller
 * prints with printf. Every time in the reports goes through it (wgprof__put_real). */
enum { WGPROF__FIXED3_CAP = 32 };
size_t wgprof__fixed3_text(char buf[WGPROF__FIXED3_CAP], double v);
/* `v` printed with `format` (one conversion of a double), or `missing` where v is NaN or
 * infinite: no writer prints those, which are no measurement (a device's period that is not a
 * number, a sum past the largest double) and which JSON does not have. Each format has its
 * word for a figure it lacks: JSON null, an empty CSV or TSV cell, "-" in the table and on the
 * HTML page. */
void wgprof__put_real(FILE *out, const char *format, double v, const char *missing);
/* The same into `buf` (of `cap` bytes), for a cell printed at its width; returns buf. */
const char *wgprof__real_text(char *buf, size_t cap, const char *format, double v, const char *missing);
/* The strategy the summary's batches were timed with, e.g. "chain", "pass+inside" where they
 * used several; "none" without a summary or a batch. */
void wgprof__strategy_text(const wgprof_summary *s, char *buf, size_t cap);
/* Whether any kernel has a throughput figure (bytes or flops known). */
bool wgprof__any_throughput(const wgprof_summary *s);
/* The sentence under the efficiency figures saying what they are. */
extern const char wgprof__throughput_note[];
/* "a, b, c" of the invalid counts by reason, e.g. "2 zero, 1 map-failed"; "" when none. */
void wgprof__invalid_breakdown(const wgprof_summary *s, char *buf, size_t cap);
/* What the summary found of the timestamps' resolution, to stand beside the figures:
 * "quantized to 65536 ns" (rounded: wgprof_summary.timestamp_quantized) or "resolution 32 ns"
 * (the counter's own step); "" when no step coarser than a tick shows, or too few readings
 * were there to tell. */
void wgprof__quantum_text(const wgprof_summary *s, char *buf, size_t cap);
/* The line that warns of quantized timestamps, without a newline; "" when they are not. */
void wgprof__quantized_warning(const wgprof_summary *s, char *buf, size_t cap);
/* The period the collected batches were converted with, e.g. "1 ns/tick" or
 * "0.5-1 ns/tick (varied by batch)"; the device's "(assumed)" one when none was collected;
 * "unknown" without a device, or where its period is not a finite number. */
void wgprof__period_text(const wgprof__report *r, char *buf, size_t cap);

#endif
