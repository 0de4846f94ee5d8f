/*
 * Comma-separated values (RFC 4180): per-dispatch rows, or per-kernel rows with efficiency.
 * Invalid records leave the time columns empty and name their reason.
 */
#include <string.h>

#include "report_internal.h"

static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') {
            fputc('"', out);
        }
        fputc(*s, out);
    }
    fputc('"', out);
}

void wgprof__write_csv(const wgprof__report *r, FILE *out)
{
    fputs("iteration,index,dispatch_id,kernel,wg_x,wg_y,wg_z,local_x,local_y,local_z,global_x,global_y,global_z,"
          "start_ns,end_ns,duration_ns,exclusive_ns,valid,invalid_reason\n",
          out);
    size_t n = wgprof_pool_count(r->desc->pool);
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof_pool_record(r->desc->pool, i, &rec) != WGPROF_OK) {
            continue;
        }
        fprintf(out, "%u,%u,%llu,", rec.iteration, rec.index, (unsigned long long)rec.dispatch_id);
        csv_field(out, rec.kernel);
        fprintf(out, ",%u,%u,%u,%u,%u,%u,%llu,%llu,%llu,", rec.workgroups[0], rec.workgroups[1], rec.workgroups[2],
                rec.workgroup_size[0], rec.workgroup_size[1], rec.workgroup_size[2],
                (unsigned long long)rec.global_size[0], (unsigned long long)rec.global_size[1],
                (unsigned long long)rec.global_size[2]);
        if (rec.valid) {
            fprintf(out, "%.3f,%.3f,%.3f,%.3f,1,\n", rec.start_ns, rec.end_ns, rec.duration_ns, rec.exclusive_ns);
        } else {
            fprintf(out, ",,,,0,%s\n", wgprof_invalid_reason_str(rec.invalid_reason));
        }
    }
}

void wgprof__write_csv_summary(const wgprof__report *r, FILE *out)
{
    fputs("kernel,count,invalid,total_ns,mean_ns,median_ns,p95_ns,min_ns,max_ns,stddev_ns,share,exclusive_total_ns,"
          "bytes,flops,gbps,gflops,peak_bandwidth_share,peak_flops_share\n",
          out);
    if (!r->summary) {
        return;
    }
    for (size_t i = 0; i < r->summary->kernel_count; i++) {
        const wgprof_kernel_stats *k = &r->summary->kernels[i];
        csv_field(out, k->name);
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
}
