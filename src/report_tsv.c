/*
 * Tab-separated values: a header row, then one row per dispatch. Invalid records leave the
 * time columns empty and name their reason.
 */
#include "report_internal.h"

void wgprof__write_tsv(const wgprof__report *r, FILE *out)
{
    fputs("iteration\tindex\tdispatch_id\tkernel\twg_x\twg_y\twg_z\tlocal_x\tlocal_y\tlocal_z\tglobal_x\tglobal_y\t"
          "global_z\tstart_ns\tend_ns\tduration_ns\texclusive_ns\tvalid\tinvalid_reason\n",
          out);
    size_t n = wgprof_pool_count(r->desc->pool);
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof_pool_record(r->desc->pool, i, &rec) != WGPROF_OK) {
            continue;
        }
        fprintf(out, "%u\t%u\t%llu\t%s\t%u\t%u\t%u\t%u\t%u\t%u\t%llu\t%llu\t%llu\t", rec.iteration, rec.index,
                (unsigned long long)rec.dispatch_id, rec.kernel, rec.workgroups[0], rec.workgroups[1],
                rec.workgroups[2], rec.workgroup_size[0], rec.workgroup_size[1], rec.workgroup_size[2],
                (unsigned long long)rec.global_size[0], (unsigned long long)rec.global_size[1],
                (unsigned long long)rec.global_size[2]);
        if (rec.valid) {
            fprintf(out, "%.3f\t%.3f\t%.3f\t%.3f\t1\t\n", rec.start_ns, rec.end_ns, rec.duration_ns, rec.exclusive_ns);
        } else {
            fprintf(out, "\t\t\t\t0\t%s\n", wgprof_invalid_reason_str(rec.invalid_reason));
        }
    }
}
