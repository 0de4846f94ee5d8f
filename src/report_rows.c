/*
 * Per-dispatch rows, the CSV and TSV formats' common body: one header row, then a row per
 * record. Invalid records leave the time columns empty and name their reason (so does a time that
 * is not a finite number). The last column,
 * the same on every row, is the timestamps' quantum: every time in the file is a multiple of it
 * (empty where none coarser than a tick shows); then, as wgprof__partial_cells writes them, the
 * columns partial (0 or 1) and partial_reason.
 */
#include <math.h>

#include "report_internal.h"

void wgprof__partial_cells(const wgprof__report *r, FILE *out, char sep)
{
    fprintf(out, "%c%c%c", sep, r->partial ? '1' : '0', sep);
    if (r->partial) {
        (sep == ',' ? wgprof__escape_csv : wgprof__escape_tsv)(out, r->partial);
    }
    fputc('\n', out);
}

void wgprof__write_dispatch_rows(const wgprof__report *r, FILE *out, char sep)
{
    static const char *const columns[] = {"iteration", "index", "dispatch_id", "kernel", "wg_x", "wg_y", "wg_z",
                                          "local_x", "local_y", "local_z", "global_x", "global_y", "global_z",
                                          "start_ns", "end_ns", "duration_ns", "exclusive_ns", "valid",
                                          "invalid_reason", "timestamp_quantum_ns", "partial", "partial_reason"};
    for (size_t c = 0; c < sizeof columns / sizeof *columns; c++) {
        fprintf(out, "%s%c", columns[c], c + 1 < sizeof columns / sizeof *columns ? sep : '\n');
    }
    /* The same on every row: a row read alone still says that its times are rounded. */
    char quantum[32] = "";
    if (r->summary && r->summary->timestamp_quantum_ns > 0 && isfinite(r->summary->timestamp_quantum_ns)) {
        snprintf(quantum, sizeof quantum, "%.9g", r->summary->timestamp_quantum_ns);
    }
    size_t n = r->store ? wgprof__store_count(r->store) : 0;
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof__store_record(r->store, r->clock, i, &rec) != WGPROF_OK) {
            continue;
        }
        fprintf(out, "%u%c%u%c%llu%c", rec.batch, sep, rec.index, sep, (unsigned long long)rec.dispatch_id, sep);
        (sep == ',' ? wgprof__escape_csv : wgprof__escape_tsv)(out, rec.kernel);
        if (rec.workgroups[0]) {
            fprintf(out, "%c%u%c%u%c%u%c", sep, rec.workgroups[0], sep, rec.workgroups[1], sep, rec.workgroups[2], sep);
        } else {
            fprintf(out, "%c%c%c%c", sep, sep, sep, sep); /* unknown: empty */
        }
        /* Unknown sizes (0) leave their cells empty; the global size is known only where both are. */
        if (rec.workgroup_size[0]) {
            fprintf(out, "%u%c%u%c%u%c", rec.workgroup_size[0], sep, rec.workgroup_size[1], sep, rec.workgroup_size[2],
                    sep);
        } else {
            fprintf(out, "%c%c%c", sep, sep, sep);
        }
        if (rec.global_size[0]) {
            fprintf(out, "%llu%c%llu%c%llu%c", (unsigned long long)rec.global_size[0], sep,
                    (unsigned long long)rec.global_size[1], sep, (unsigned long long)rec.global_size[2], sep);
        } else {
            fprintf(out, "%c%c%c", sep, sep, sep);
        }
        if (rec.valid) {
            /* A time that is not a finite number (a period so large that it overflows) is left
             * empty, as an invalid record's are. */
            const double times[] = {rec.start_ns, rec.end_ns, rec.duration_ns, rec.exclusive_ns};
            for (size_t t = 0; t < sizeof times / sizeof *times; t++) {
                wgprof__put_real(out, "%.3f", times[t], "");
                fputc(sep, out);
            }
            fprintf(out, "1%c%c%s", sep, sep, quantum);
        } else {
            fprintf(out, "%c%c%c%c0%c%s%c%s", sep, sep, sep, sep, sep, wgprof_invalid_reason_str(rec.invalid_reason),
                    sep, quantum);
        }
        wgprof__partial_cells(r, out, sep);
    }
}
