/*
 * Comma-separated values (RFC 4180): per-dispatch rows (report_rows.c, shared with TSV), or
 * per-kernel rows with efficiency: the columns gbps, gflops and peak_*_share are the rates over
 * the whole run (total / total_ns), as they always were; the typical dispatch's (over the median
 * duration, as the table shows first) follow them, under names ending in "_median". Every row
 * ends with the timestamps' quantum and whether the results are partial, as the per-dispatch
 * rows do.
 */
#include <math.h>

#include "report_internal.h"

wgprof_status wgprof__write_csv(const wgprof__report *r, FILE *out)
{
    wgprof__write_dispatch_rows(r, out, ',');
    return WGPROF_OK;
}

/* ",value", or "," alone where the figure is unknown (0) or not a finite number. */
static void field(FILE *out, double value, const char *format)
{
    fputc(',', out);
    if (value > 0 && isfinite(value)) {
        fprintf(out, format, value);
    }
}

static void share_field(FILE *out, double value, double peak)
{
    field(out, peak > 0 ? value / peak : 0, "%.6f");
}

wgprof_status wgprof__write_csv_summary(const wgprof__report *r, FILE *out)
{
    fputs("kernel,count,invalid,total_ns,mean_ns,median_ns,p95_ns,min_ns,max_ns,stddev_ns,share,exclusive_total_ns,"
          "bytes,flops,gbps,gflops,peak_bandwidth_share,peak_flops_share,bytes_per_dispatch,flops_per_dispatch,"
          "gbps_median,gflops_median,peak_bandwidth_share_median,peak_flops_share_median,timestamp_quantum_ns,partial,"
          "partial_reason\n",
          out);
    if (!r->summary) {
        return WGPROF_OK;
    }
    for (size_t i = 0; i < r->summary->kernel_count; i++) {
        const wgprof_kernel_stats *k = &r->summary->kernels[i];
        wgprof__escape_csv(out, k->name);
        fprintf(out, ",%u,%u,", k->count, k->invalid);
        /* Each figure, or an empty cell where there is no valid record or it is not finite. */
        const double figures[] = {k->total_ns, k->mean_ns, k->median_ns, k->p95_ns, k->min_ns,
                                  k->max_ns, k->stddev_ns, k->share, k->exclusive_total_ns};
        const char *const formats[] = {"%.3f", "%.3f", "%.3f", "%.3f", "%.3f", "%.3f", "%.3f", "%.6f", "%.3f"};
        for (size_t f = 0; f < sizeof figures / sizeof *figures; f++) {
            wgprof__put_real(out, formats[f], k->count ? figures[f] : NAN, "");
            fputc(',', out);
        }
        wgprof__put_real(out, "%.17g", k->bytes, "");
        fputc(',', out);
        wgprof__put_real(out, "%.17g", k->flops, "");
        const wgprof_report_desc *d = r->desc;
        field(out, k->gbps_total, "%.3f");
        field(out, k->gflops_total, "%.3f");
        share_field(out, k->gbps_total, d->peak_gbps);
        share_field(out, k->gflops_total, d->peak_gflops);
        field(out, k->bytes_per_dispatch, "%.17g");
        field(out, k->flops_per_dispatch, "%.17g");
        field(out, k->gbps, "%.3f");
        field(out, k->gflops, "%.3f");
        share_field(out, k->gbps, d->peak_gbps);
        share_field(out, k->gflops, d->peak_gflops);
        field(out, r->summary->timestamp_quantum_ns, "%.9g");
        wgprof__partial_cells(r, out, ',');
    }
    return WGPROF_OK;
}
