/*
 * Report entry point: fills in what the caller left out (the summary, the strategy, the
 * iteration count) and hands one prepared view to the writer of the chosen format.
 */
#include <string.h>

#include "internal.h"
#include "report_internal.h"

void wgprof__invalid_breakdown(const wgprof_summary *s, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int reason = 1; reason < WGPROF_INVALID_REASON_COUNT && used < cap; reason++) {
        if (s->invalid_by_reason[reason]) {
            int n = snprintf(buf + used, cap - used, "%s%zu %s", used ? ", " : "", s->invalid_by_reason[reason],
                             wgprof_invalid_reason_str((wgprof_invalid_reason)reason));
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

double wgprof__gbps(const wgprof_kernel_stats *k)
{
    return k->bytes > 0 && k->total_ns > 0 ? k->bytes / k->total_ns : 0; /* bytes per ns = GB/s */
}

double wgprof__gflops(const wgprof_kernel_stats *k)
{
    return k->flops > 0 && k->total_ns > 0 ? k->flops / k->total_ns : 0;
}

wgprof_status wgprof_report_write(const wgprof_report_desc *desc, wgprof_format format, FILE *out)
{
    if (!desc || !out || (unsigned)format > WGPROF_FORMAT_HTML) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_summary *own = NULL;
    const wgprof_summary *summary = desc->summary;
    if (!summary && desc->pool) {
        wgprof_status s = wgprof_summary_create(desc->pool, &own);
        if (s != WGPROF_OK) {
            return s;
        }
        summary = own;
    }
    wgprof__report r = {desc, summary, desc->strategy ? desc->strategy : "none",
                        desc->iterations ? desc->iterations : wgprof_pool_iterations(desc->pool)};
    switch (format) {
    case WGPROF_FORMAT_TABLE: wgprof__write_table(&r, out); break;
    case WGPROF_FORMAT_TSV: wgprof__write_tsv(&r, out); break;
    case WGPROF_FORMAT_JSON: wgprof__write_json(&r, out); break;
    case WGPROF_FORMAT_CSV: wgprof__write_csv(&r, out); break;
    case WGPROF_FORMAT_CSV_SUMMARY: wgprof__write_csv_summary(&r, out); break;
    case WGPROF_FORMAT_TRACE: wgprof__write_trace(&r, out); break;
    case WGPROF_FORMAT_HTML: wgprof__write_html(&r, out); break;
    }
    wgprof_summary_destroy(own);
    if (fflush(out) != 0 || ferror(out)) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: writing the report failed");
        return WGPROF_ERR_IO;
    }
    return WGPROF_OK;
}
