/*
 * Comma-separated values (RFC 4180): per-dispatch rows, or per-kernel rows with efficiency.
 * The per-dispatch rows are also the TSV format's, with another separator. Invalid records
 * leave the time columns empty and name their reason.
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

/* TSV has no quoting: a tab or line break in a name becomes a space. */
static void tsv_field(FILE *out, const char *s)
{
    for (; *s; s++) {
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
    }
}

void wgprof__write_dispatch_rows(const wgprof__report *r, FILE *out, char sep)
{
    static const char *const columns[] = {"iteration", "index", "dispatch_id", "kernel", "wg_x", "wg_y", "wg_z",
                                          "local_x", "local_y", "local_z", "global_x", "global_y", "global_z",
                                          "start_ns", "end_ns", "duration_ns", "exclusive_ns", "valid",
                                          "invalid_reason"};
    for (size_t c = 0; c < sizeof columns / sizeof *columns; c++) {
        fprintf(out, "%s%c", columns[c], c + 1 < sizeof columns / sizeof *columns ? sep : '\n');
    }
    size_t n = wgprof_pool_count(r->desc->pool);
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof_pool_record(r->desc->pool, i, &rec) != WGPROF_OK) {
            continue;
        }
        fprintf(out, "%u%c%u%c%llu%c", rec.iteration, sep, rec.index, sep, (unsigned long long)rec.dispatch_id, sep);
        (sep == ',' ? csv_field : tsv_field)(out, rec.kernel);
        fprintf(out, "%c%u%c%u%c%u%c%u%c%u%c%u%c%llu%c%llu%c%llu%c", sep, rec.workgroups[0], sep, rec.workgroups[1],
                sep, rec.workgroups[2], sep, rec.workgroup_size[0], sep, rec.workgroup_size[1], sep,
                rec.workgroup_size[2], sep, (unsigned long long)rec.global_size[0], sep,
                (unsigned long long)rec.global_size[1], sep, (unsigned long long)rec.global_size[2], sep);
        if (rec.valid) {
            fprintf(out, "%.3f%c%.3f%c%.3f%c%.3f%c1%c\n", rec.start_ns, sep, rec.end_ns, sep, rec.duration_ns, sep,
                    rec.exclusive_ns, sep, sep);
        } else {
            fprintf(out, "%c%c%c%c0%c%s\n", sep, sep, sep, sep, sep, wgprof_invalid_reason_str(rec.invalid_reason));
        }
    }
}

void wgprof__write_csv(const wgprof__report *r, FILE *out)
{
    wgprof__write_dispatch_rows(r, out, ',');
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
