/*
 * Report entry point: fills in what the caller left out (the summary, the iteration count),
 * names the strategy the summary says the records were timed with and whether the results are
 * partial, and hands one prepared view
 * to the writer of the chosen format. Also the formats' names and file suffixes, for every
 * program that offers a choice of them.
 */
#include <string.h>

#include "recorder.h"
#include "report_internal.h"

static const struct {
    const char *name, *suffix;
} FORMATS[WGPROF_FORMAT_COUNT] = {
    [WGPROF_FORMAT_TABLE] = {"table", "txt"},
    [WGPROF_FORMAT_TSV] = {"tsv", "tsv"},
    [WGPROF_FORMAT_JSON] = {"json", "json"},
    [WGPROF_FORMAT_CSV] = {"csv", "csv"},
    [WGPROF_FORMAT_CSV_SUMMARY] = {"csv-summary", "summary.csv"},
    [WGPROF_FORMAT_TRACE] = {"trace", "trace.json"},
    [WGPROF_FORMAT_HTML] = {"html", "html"},
};

const char *wgprof_format_name(wgprof_format format)
{
    return (unsigned)format < WGPROF_FORMAT_COUNT ? FORMATS[format].name : NULL;
}

const char *wgprof_format_suffix(wgprof_format format)
{
    return (unsigned)format < WGPROF_FORMAT_COUNT ? FORMATS[format].suffix : NULL;
}

wgprof_status wgprof_format_from_name(const char *name, wgprof_format *out)
{
    for (unsigned f = 0; name && out && f < WGPROF_FORMAT_COUNT; f++) {
        if (strcmp(name, FORMATS[f].name) == 0) {
            *out = (wgprof_format)f;
            return WGPROF_OK;
        }
    }
    return WGPROF_ERR_INVALID_ARGUMENT;
}

wgprof_status wgprof_report_write(const wgprof_report_desc *desc, wgprof_format format, FILE *out)
{
    if (!desc || !out || (unsigned)format >= WGPROF_FORMAT_COUNT) {
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
    wgprof__report r = {desc, summary, wgprof__pool_store_const(desc->pool), wgprof_pool_clock(desc->pool), "",
                        desc->iterations ? desc->iterations : wgprof_pool_collected_batches(desc->pool), NULL};
    wgprof__strategy_text(desc->pool ? summary : NULL, r.strategy, sizeof r.strategy);
    /* Every writer marks a partial report with a reason: an empty one would read as none. */
    r.partial = !desc->partial_reason ? NULL
                : desc->partial_reason[0] ? desc->partial_reason
                                          : "the results are incomplete (no reason given)";
    wgprof_status written = WGPROF_OK;
    switch (format) {
    case WGPROF_FORMAT_TABLE: written = wgprof__write_table(&r, out); break;
    case WGPROF_FORMAT_TSV: written = wgprof__write_tsv(&r, out); break;
    case WGPROF_FORMAT_JSON: written = wgprof__write_json(&r, out); break;
    case WGPROF_FORMAT_CSV: written = wgprof__write_csv(&r, out); break;
    case WGPROF_FORMAT_CSV_SUMMARY: written = wgprof__write_csv_summary(&r, out); break;
    case WGPROF_FORMAT_TRACE: written = wgprof__write_trace(&r, out); break;
    case WGPROF_FORMAT_HTML: written = wgprof__write_html(&r, out); break;
    case WGPROF_FORMAT_COUNT: break;
    }
    wgprof_summary_destroy(own);
    if (written != WGPROF_OK) {
        return written;
    }
    if (fflush(out) != 0 || ferror(out)) {
        wgprof__log(WGPROF_LOG_ERROR, "writing the report failed");
        return WGPROF_ERR_IO;
    }
    return WGPROF_OK;
}
