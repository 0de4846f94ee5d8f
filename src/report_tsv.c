/*
 * Tab-separated values: a header row, then one row per dispatch, the same columns as the CSV
 * (report_rows.c writes both).
 */
#include "report_internal.h"

wgprof_status wgprof__write_tsv(const wgprof__report *r, FILE *out)
{
    wgprof__write_dispatch_rows(r, out, '\t');
    return WGPROF_OK;
}
