/*
 * Chrome trace event JSON, as Perfetto and chrome://tracing load it: one process for the GPU,
 * one track for the queue with a complete event per valid dispatch (sizes, dispatch id and
 * validity in args), and one track with a span per iteration. Invalid records have no time to
 * place them at; they are counted in otherData.
 */
#include "report_internal.h"

static void write_metadata(FILE *out, const char *what, int tid, const char *name)
{
    fprintf(out, "    {\"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"name\": \"%s\", \"args\": {\"name\": ", tid, what);
    wgprof__json_string(out, name);
    fputs("}},\n", out);
}

static void write_dispatch(FILE *out, const wgprof_record *rec)
{
    fputs("    {\"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"cat\": \"dispatch\", \"name\": ", out);
    wgprof__json_string(out, rec->kernel);
    fprintf(out,
            ", \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"iteration\": %u, \"index\": %u, \"dispatch_id\": %llu, "
            "\"workgroups\": [%u, %u, %u], \"local_size\": [%u, %u, %u], \"global_size\": [%llu, %llu, %llu], "
            "\"duration_ns\": %.3f, \"exclusive_ns\": %.3f, \"valid\": true}},\n",
            rec->start_ns / 1e3, rec->duration_ns / 1e3, rec->iteration, rec->index,
            (unsigned long long)rec->dispatch_id, rec->workgroups[0], rec->workgroups[1], rec->workgroups[2],
            rec->workgroup_size[0], rec->workgroup_size[1], rec->workgroup_size[2],
            (unsigned long long)rec->global_size[0], (unsigned long long)rec->global_size[1],
            (unsigned long long)rec->global_size[2], rec->duration_ns, rec->exclusive_ns);
}

static void write_iteration(FILE *out, uint32_t iteration, double start_ns, double end_ns, size_t dispatches)
{
    fprintf(out,
            "    {\"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"cat\": \"iteration\", \"name\": \"iteration %u\", "
            "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"iteration\": %u, \"valid_dispatches\": %zu}},\n",
            iteration, start_ns / 1e3, (end_ns - start_ns) / 1e3, iteration, dispatches);
}

void wgprof__write_trace(const wgprof__report *r, FILE *out)
{
    const wgprof_device_info *d = r->desc->device;
    char process[300];
    snprintf(process, sizeof process, "GPU: %s", d ? d->adapter : "unknown adapter");
    fputs("{\n  \"displayTimeUnit\": \"ns\",\n  \"traceEvents\": [\n", out);
    write_metadata(out, "process_name", 0, process);
    write_metadata(out, "thread_name", 1, "queue 0: dispatches");
    write_metadata(out, "thread_name", 2, "iterations");
    size_t n = wgprof_pool_count(r->desc->pool), invalid = 0, in_iteration = 0;
    bool open = false;
    uint32_t iteration = 0;
    double first = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof_pool_record(r->desc->pool, i, &rec) != WGPROF_OK || !rec.valid) {
            invalid++;
            continue;
        }
        if (open && rec.iteration != iteration) {
            write_iteration(out, iteration, first, last, in_iteration);
            open = false;
        }
        if (!open) {
            open = true;
            iteration = rec.iteration;
            first = rec.start_ns;
            last = rec.end_ns;
            in_iteration = 0;
        }
        first = rec.start_ns < first ? rec.start_ns : first;
        last = rec.end_ns > last ? rec.end_ns : last;
        in_iteration++;
        write_dispatch(out, &rec);
    }
    if (open) {
        write_iteration(out, iteration, first, last, in_iteration);
    }
    /* A last metadata event closes the array without a dangling comma. */
    fputs("    {\"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"name\": \"thread_sort_index\", \"args\": {\"sort_index\": 0}}\n",
          out);
    fprintf(out, "  ],\n  \"otherData\": {\"wgprof_version\": \"%s\", \"strategy\": ", WGPROF_VERSION_STRING);
    wgprof__json_string(out, r->strategy);
    fprintf(out, ", \"iterations\": %u, \"dispatches\": %zu, \"invalid_dispatches\": %zu", r->iterations, n, invalid);
    if (!r->desc->pool) {
        fputs(", \"unavailable_reason\": ", out);
        wgprof__json_string(out, r->desc->unavailable_reason ? r->desc->unavailable_reason : "profiling off");
    }
    fputs("}\n}\n", out);
}
