/*
 * Chrome trace event JSON, as Perfetto and chrome://tracing load it.
 *
 * With a clock fit (wgprof_pool_clock), everything shares the CPU clock: a CPU process with
 * each batch's encode, submit and wait spans, and a GPU process with a complete event per
 * valid dispatch, one span per iteration and the scopes, nested by time; a flow arrow runs
 * from each submit to its first dispatch. Without a fit there is no CPU process and the GPU
 * times count from the pool's epoch. Invalid records have no time to place them at; they are
 * counted in otherData, beside the timestamps' quantum (and a warning where they are quantized).
 * Nor has a valid one whose times are not finite numbers (a period so large that they overflow):
 * an event with no number for its time does not load, so it is left out and counted too. Every
 * other figure that is not finite is null.
 */
#include <math.h>

#include "report_internal.h"

static void json_string(FILE *out, const char *s) { wgprof__escape_json_string(out, s, WGPROF__ESCAPE_JSON_PLAIN); }

enum { PID_CPU = 1, PID_GPU = 2, TID_QUEUE = 1, TID_ITERATIONS = 2, TID_SCOPES = 3 };

/* The time axis: CPU-clock ns when `cpu`, else ns on the pool's epoch; `origin` is subtracted
 * so that the trace starts near 0 and keeps its precision. */
typedef struct timeline {
    const wgprof__store *store;
    const wgprof_clock_info *clock;
    bool cpu;
    double origin;
} timeline;

static double us(const timeline *t, double ns) { return (ns - t->origin) / 1e3; }

/* Where a span from `start_ns` to `end_ns` lies on the axis, in us; false where it lies nowhere. */
static bool place(const timeline *t, double start_ns, double end_ns, double *ts_us, double *dur_us)
{
    *ts_us = us(t, start_ns);
    *dur_us = (end_ns - start_ns) / 1e3;
    return isfinite(*ts_us) && isfinite(*dur_us);
}

static void json_real(FILE *out, const char *format, double v) { wgprof__put_real(out, format, v, "null"); }

static void write_metadata(FILE *out, const char *what, int pid, int tid, const char *name)
{
    fprintf(out, "    {\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"%s\", \"args\": {\"name\": ", pid, tid, what);
    json_string(out, name);
    fputs("}},\n", out);
}

static void write_span(FILE *out, int pid, int tid, const char *cat, const char *name, double ts_us, double dur_us)
{
    fprintf(out, "    {\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"cat\": \"%s\", \"name\": ", pid, tid, cat);
    json_string(out, name);
    fprintf(out, ", \"ts\": %.3f, \"dur\": %.3f", ts_us, dur_us);
}

static void write_dispatch(FILE *out, const wgprof_record *rec, double ts_us, double dur_us)
{
    write_span(out, PID_GPU, TID_QUEUE, "dispatch", rec->kernel, ts_us, dur_us);
    fprintf(out, ", \"args\": {\"iteration\": %u, \"index\": %u, \"dispatch_id\": %llu, ", rec->batch, rec->index,
            (unsigned long long)rec->dispatch_id);
    if (rec->workgroups[0]) {
        fprintf(out, "\"workgroups\": [%u, %u, %u], ", rec->workgroups[0], rec->workgroups[1], rec->workgroups[2]);
    } else {
        fputs("\"workgroups\": null, ", out); /* unknown */
    }
    if (rec->workgroup_size[0]) {
        fprintf(out, "\"local_size\": [%u, %u, %u], ", rec->workgroup_size[0], rec->workgroup_size[1],
                rec->workgroup_size[2]);
    } else {
        fputs("\"local_size\": null, ", out); /* unknown */
    }
    if (rec->global_size[0]) {
        fprintf(out, "\"global_size\": [%llu, %llu, %llu], ", (unsigned long long)rec->global_size[0],
                (unsigned long long)rec->global_size[1], (unsigned long long)rec->global_size[2]);
    } else {
        fputs("\"global_size\": null, ", out);
    }
    fputs("\"duration_ns\": ", out);
    json_real(out, "%.3f", rec->duration_ns);
    fputs(", \"exclusive_ns\": ", out);
    json_real(out, "%.3f", rec->exclusive_ns);
    fputs(", \"valid\": true}},\n", out);
}

static void write_iteration(FILE *out, const timeline *t, uint32_t iteration, double start_ns, double end_ns,
                            size_t dispatches)
{
    char name[32];
    double ts, dur;
    if (!place(t, start_ns, end_ns, &ts, &dur)) {
        return;
    }
    snprintf(name, sizeof name, "iteration %u", iteration);
    write_span(out, PID_GPU, TID_ITERATIONS, "iteration", name, ts, dur);
    fprintf(out, ", \"args\": {\"iteration\": %u, \"valid_dispatches\": %zu}},\n", iteration, dispatches);
}

/* The dispatches and one span per iteration around them; on the CPU clock also the end of each
 * submit's flow arrow (write_cpu starts it) at the iteration's first dispatch. Returns how
 * many records were invalid; *unplaced: how many valid ones had no finite time. */
static size_t write_gpu(const timeline *t, FILE *out, size_t *unplaced)
{
    size_t n = wgprof__store_count(t->store), invalid = 0, in_iteration = 0;
    bool open = false;
    uint32_t iteration = 0;
    double first = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof__store_record(t->store, t->clock, i, &rec) != WGPROF_OK || !rec.valid) {
            invalid++;
            continue;
        }
        double start = t->cpu ? rec.cpu_start_ns : rec.start_ns, end = t->cpu ? rec.cpu_end_ns : rec.end_ns;
        double ts, dur;
        if (!place(t, start, end, &ts, &dur)) {
            (*unplaced)++;
            continue;
        }
        if (open && rec.batch != iteration) {
            write_iteration(out, t, iteration, first, last, in_iteration);
            open = false;
        }
        if (!open) {
            open = true;
            iteration = rec.batch;
            first = start;
            last = end;
            in_iteration = 0;
            if (t->cpu) {
                fprintf(out,
                        "    {\"ph\": \"f\", \"bp\": \"e\", \"id\": %u, \"pid\": %d, \"tid\": %d, \"cat\": \"submit\", "
                        "\"name\": \"submit\", \"ts\": %.3f},\n",
                        iteration, PID_GPU, TID_QUEUE, ts);
            }
        }
        first = fmin(first, start);
        last = fmax(last, end);
        in_iteration++;
        write_dispatch(out, &rec, ts, dur);
    }
    if (open) {
        write_iteration(out, t, iteration, first, last, in_iteration);
    }
    return invalid;
}

static void write_scopes(const timeline *t, FILE *out)
{
    size_t n = wgprof__store_scope_count(t->store);
    for (size_t i = 0; i < n; i++) {
        wgprof_scope_record sc;
        if (wgprof__store_scope(t->store, t->clock, i, &sc) != WGPROF_OK || !sc.valid) {
            continue;
        }
        double start = t->cpu ? sc.cpu_start_ns : sc.start_ns, end = t->cpu ? sc.cpu_end_ns : sc.end_ns;
        double ts, dur;
        if (!place(t, start, end, &ts, &dur)) {
            continue;
        }
        write_span(out, PID_GPU, TID_SCOPES, "scope", sc.name, ts, dur);
        fprintf(out, ", \"args\": {\"iteration\": %u, \"depth\": %u, \"dispatches\": %u, \"dispatch_ns\": ",
                sc.batch, sc.depth, sc.valid_records);
        json_real(out, "%.3f", sc.dispatch_ns);
        fputs("}},\n", out);
    }
}

/* Each batch's CPU spans: encode, submit, and the wait for its readback when the CPU blocked. */
static void write_cpu(const timeline *t, FILE *out)
{
    uint32_t n = wgprof__store_batch_count(t->store);
    for (uint32_t i = 0; i < n; i++) {
        wgprof_batch_info b;
        if (wgprof__store_batch(t->store, i, &b) != WGPROF_OK) {
            continue;
        }
        const struct {
            const char *name;
            uint64_t from, to;
            bool shown;
        } spans[] = {{"encode", b.cpu_encode_ns, b.cpu_submit_ns, b.cpu_encode_ns != 0},
                     {"submit", b.cpu_submit_ns, b.cpu_submitted_ns, b.cpu_submitted_ns != 0},
                     {"wait", b.cpu_submitted_ns, b.cpu_ready_ns, b.waited && b.cpu_ready_ns != 0}};
        for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
            if (spans[k].shown && spans[k].to >= spans[k].from) {
                write_span(out, PID_CPU, 1, "cpu", spans[k].name, us(t, (double)spans[k].from),
                           (double)(spans[k].to - spans[k].from) / 1e3);
                fprintf(out, ", \"args\": {\"iteration\": %u, \"dispatches\": %u}},\n", b.index, b.records);
            }
        }
        if (b.cpu_submit_ns) {
            fprintf(out,
                    "    {\"ph\": \"s\", \"id\": %u, \"pid\": %d, \"tid\": 1, \"cat\": \"submit\", \"name\": \"submit\", "
                    "\"ts\": %.3f},\n",
                    b.index, PID_CPU, us(t, (double)b.cpu_submit_ns));
        }
    }
}

/* The earliest time the trace shows, so that it starts at 0: no event before it, as viewers
 * drop events at negative times (Perfetto does). A batch's CPU spans and its flow arrow start at
 * its encode or its submit, the submit alone known in a pool fed from outside. */
static double origin_of(const timeline *t)
{
    double origin = INFINITY;
    if (!t->cpu) {
        return 0; /* the epoch is already the first valid begin */
    }
    for (uint32_t i = 0; i < wgprof__store_batch_count(t->store); i++) {
        wgprof_batch_info b;
        if (wgprof__store_batch(t->store, i, &b) != WGPROF_OK) {
            continue;
        }
        const uint64_t starts[] = {b.cpu_encode_ns, b.cpu_submit_ns};
        for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
            origin = starts[k] ? fmin(origin, (double)starts[k]) : origin;
        }
    }
    for (size_t i = 0; i < wgprof__store_count(t->store); i++) {
        wgprof_record rec;
        if (wgprof__store_record(t->store, t->clock, i, &rec) == WGPROF_OK && rec.valid) {
            origin = fmin(origin, rec.cpu_start_ns);
            break; /* records come in submission order: the first valid one starts earliest */
        }
    }
    return isfinite(origin) ? origin : 0;
}

wgprof_status wgprof__write_trace(const wgprof__report *r, FILE *out)
{
    const wgprof_device_info *d = r->desc->device;
    const wgprof_clock_info *clock = r->clock;
    timeline t = {r->store, clock, clock && clock->calibrated, 0};
    t.origin = r->store ? origin_of(&t) : 0;
    char process[300];
    /* The name a trace viewer shows on every screen: a partial trace says it there too. */
    snprintf(process, sizeof process, "GPU: %s%s", d ? d->adapter : "unknown adapter",
             r->partial ? " (PARTIAL RESULTS)" : "");
    fputs("{\n  \"displayTimeUnit\": \"ns\",\n  \"traceEvents\": [\n", out);
    write_metadata(out, "process_name", PID_GPU, 0, process);
    write_metadata(out, "thread_name", PID_GPU, TID_QUEUE, "queue 0: dispatches");
    write_metadata(out, "thread_name", PID_GPU, TID_ITERATIONS, "iterations");
    write_metadata(out, "thread_name", PID_GPU, TID_SCOPES, "scopes");
    size_t invalid = 0, unplaced = 0;
    if (r->store) {
        if (t.cpu) {
            write_metadata(out, "process_name", PID_CPU, 0, "CPU");
            write_metadata(out, "thread_name", PID_CPU, 1, "graph: encode, submit, wait");
            write_cpu(&t, out);
        }
        invalid = write_gpu(&t, out, &unplaced);
        write_scopes(&t, out);
    }
    /* A last metadata event closes the array without a dangling comma. */
    fprintf(out,
            "    {\"ph\": \"M\", \"pid\": %d, \"tid\": 1, \"name\": \"thread_sort_index\", \"args\": {\"sort_index\": 0}}\n",
            PID_GPU);
    fprintf(out, "  ],\n  \"otherData\": {\"wgprof_version\": \"%s\", \"partial\": %s", WGPROF_VERSION_STRING,
            r->partial ? "true" : "false");
    if (r->partial) {
        fputs(", \"partial_reason\": ", out);
        json_string(out, r->partial);
    }
    fputs(", \"strategy\": ", out);
    json_string(out, r->strategy);
    fprintf(out,
            ", \"iterations\": %u, \"dispatches\": %zu, \"invalid_dispatches\": %zu, \"unplaced_dispatches\": %zu, "
            "\"timeline\": \"%s\"",
            r->iterations, r->store ? wgprof__store_count(r->store) : 0, invalid, unplaced,
            t.cpu ? "cpu clock" : "gpu epoch");
    if (t.cpu) {
        fputs(", \"timeline_origin_cpu_ns\": ", out);
        json_real(out, "%.3f", t.origin);
        fputs(", \"clock_uncertainty_ns\": ", out);
        json_real(out, "%.3f", clock->uncertainty_ns);
        fputs(", \"clock_drift_ppm\": ", out);
        json_real(out, "%.6f", clock->drift_ppm);
    }
    if (r->summary) {
        char warning[256];
        wgprof__quantized_warning(r->summary, warning, sizeof warning);
        fputs(", \"timestamp_quantum_ns\": ", out);
        json_real(out, "%.9g", r->summary->timestamp_quantum_ns);
        fprintf(out, ", \"timestamp_quantized\": %s", r->summary->timestamp_quantized ? "true" : "false");
        if (warning[0]) {
            fputs(", \"warning\": ", out);
            json_string(out, warning);
        }
    }
    if (!r->store) {
        fputs(", \"unavailable_reason\": ", out);
        json_string(out, r->desc->unavailable_reason ? r->desc->unavailable_reason : "profiling off");
    }
    fputs("}\n}\n", out);
    return WGPROF_OK;
}
