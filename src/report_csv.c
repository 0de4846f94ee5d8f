/*
 * Comma-separated values (RFC 4180): per-dispatch rows (report_rows.c, shared with TSV), or
 * per-kernel rows with efficiency.
 */
#include "report_internal.h"

wgprof_status wgprof__write_csv(const wgprof__report *r, FILE *out)
{
    wgprof__write_dispatch_rows(r, out, ',');
    return WGPROF_OK;
}

wgprof_status wgprof__write_csv_summary(const wgprof__report *r, FILE *out)
{
    fputs("kernel,count,invalid,total_ns,mean_ns,median_ns,p95_ns,min_ns,max_ns,stddev_ns,share,exclusive_total_ns,"
          "bytes,flops,gbps,gflops,peak_bandwidth_share,peak_flops_share\n",
          out);
    if (!r->summary) {
        return WGPROF_OK;
    }
    for (size_t i = 0; i < r->summary->kernel_count; i++) {
        const wgprof_kernel_stats *k = &r->summary->kernels[i];
        wgprof__csv_field(out, k->name);
        fprintf(out, ",%u,%u,", k->count, k->invalid);
        if (k->count) {
            fprintf(out, "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f,%.3f,", k->total_ns, k->mean_ns, k->median_ns,
                    k->p95_ns, k->min_ns, k->max_ns, k->stddev_ns, k->share, k->exclusive_total_ns);
        } else {
            fputs(",,,,,,,,,", out);
        }
        double gbps = wgprof__gbps(k), gflops = wgprof__gflops(k);
        fprintf(out, "%.17g,%.17g,", k->bytes, k->flops);
        if (gbps > 0) {
            fprintf(out, "%.3f", gbps);
        }
        fputc(',', out);
        if (gflops > 0) {
            fprintf(out, "%.3f", gflops);
        }
        fputc(',', out);
        if (gbps > 0 && r->desc->peak_gbps > 0) {
            fprintf(out, "%.6f", gbps / r->desc->peak_gbps);
        }
        fputc(',', out);
        if (gflops > 0 && r->desc->peak_gflops > 0) {
            fprintf(out, "%.6f", gflops / r->desc->peak_gflops);
        }
        fputc('\n', out);
    }
    return WGPROF_OK;
}
