/*
 * The JSON report: its format version, wgprof's version, adapter, period, the timestamps' quantum, strategy,
 * iterations, every dispatch, the per-kernel summary, the scopes (aggregated and each instance,
 * with its path), the batches with their CPU spans and the period each was converted with, and
 * the clock fit. Invalid records carry null times and their reason; without a pool the report
 * says why there are no timings. `wgprof diff` reads it back (diff/diff_load.c): a change of
 * what a key means, or a key it reads that goes away, takes a new WGPROF__JSON_FORMAT_VERSION.
 */
#include <math.h>

#include "report_internal.h"

/* The layout of the report, for readers: 1 is the one docs/reports.md describes. */
#define WGPROF__JSON_FORMAT_VERSION 1

static void json_string(FILE *out, const char *s) { wgprof__escape_json_string(out, s, WGPROF__ESCAPE_JSON_PLAIN); }

/* Every double of the report goes through this or json_key_real: null where it is not finite. */
static void json_number(FILE *out, double v) { wgprof__put_real(out, "%.3f", v, "null"); }

static void json_bool(FILE *out, bool v) { fputs(v ? "true" : "false", out); }

/* `, "key": v` with v in %.*g (`fixed`: %.*f) at `digits`, or null where v is not finite: JSON
 * has no infinity (bytes or flops a spec gave near the largest double overflow in a sum). */
static void json_key_real(FILE *out, const char *key, double v, int digits, bool fixed)
{
    fprintf(out, ", \"%s\": ", key);
    if (!isfinite(v)) {
        fputs("null", out);
    } else {
        fprintf(out, fixed ? "%.*f" : "%.*g", digits, v);
    }
}

/* `, "key": value` for each pair; every value null when the figures do not exist. */
static void json_fields(FILE *out, const char *const *keys, const double *values, size_t count, bool exist)
{
    for (size_t i = 0; i < count; i++) {
        fprintf(out, ", \"%s\": ", keys[i]);
        if (exist) {
            json_number(out, values[i]);
        } else {
            fputs("null", out);
        }
    }
}

static void write_adapter(const wgprof_device_info *d, FILE *out)
{
    if (!d) {
        fputs("null", out);
        return;
    }
    fputs("{\"name\": ", out);
    json_string(out, d->adapter);
    fputs(", \"vendor\": ", out);
    json_string(out, d->vendor);
    fputs(", \"architecture\": ", out);
    json_string(out, d->architecture);
    fputs(", \"driver\": ", out);
    json_string(out, d->driver);
    fputs(", \"implementation\": ", out);
    json_string(out, d->implementation ? d->implementation : "");
    fputs(", \"backend\": ", out);
    json_string(out, d->backend);
    fputs(", \"type\": ", out);
    json_string(out, d->adapter_type);
    fprintf(out, ", \"vendor_id\": %u, \"device_id\": %u, \"timestamp_query\": ", d->vendor_id, d->device_id);
    json_bool(out, d->timestamp_query);
    fputs(", \"timestamp_inside_passes\": ", out);
    json_bool(out, d->timestamp_inside_passes);
    fputs(", \"timestamp_inside_encoders\": ", out);
    json_bool(out, d->timestamp_inside_encoders);
    fputs(", \"profiling_available\": ", out);
    json_bool(out, d->profiling_available);
    fputs("}", out);
}

static void dims(FILE *out, const char *key, const uint32_t v[3])
{
    fprintf(out, "\"%s\": [%u, %u, %u]", key, v[0], v[1], v[2]);
}

/* Sizes that may be unknown (a workgroup size of 0): null. */
static void known_dims(FILE *out, const char *key, const uint32_t v[3])
{
    if (v[0]) {
        dims(out, key, v);
    } else {
        fprintf(out, "\"%s\": null", key);
    }
}

static void write_dispatch(const wgprof_record *rec, FILE *out)
{
    fprintf(out, "    {\"iteration\": %u, \"index\": %u, \"dispatch_id\": %llu, \"kernel\": ", rec->batch, rec->index,
            (unsigned long long)rec->dispatch_id);
    json_string(out, rec->kernel);
    fprintf(out, ", \"kernel_id\": %u, \"scope\": %d", rec->kernel_id, rec->scope);
    if (rec->global_size[0]) {
        fprintf(out, ", \"global_size\": [%llu, %llu, %llu], ", (unsigned long long)rec->global_size[0],
                (unsigned long long)rec->global_size[1], (unsigned long long)rec->global_size[2]);
    } else {
        fputs(", \"global_size\": null, ", out);
    }
    known_dims(out, "local_size", rec->workgroup_size);
    fputs(", ", out);
    known_dims(out, "workgroups", rec->workgroups);
    fprintf(out, ", \"begin_ticks\": %llu, \"end_ticks\": %llu", (unsigned long long)rec->begin_ticks,
            (unsigned long long)rec->end_ticks);
    if (rec->valid) {
        fputs(", \"start_ns\": ", out);
        json_number(out, rec->start_ns);
        fputs(", \"end_ns\": ", out);
        json_number(out, rec->end_ns);
        fputs(", \"duration_ns\": ", out);
        json_number(out, rec->duration_ns);
        fputs(", \"exclusive_ns\": ", out);
        json_number(out, rec->exclusive_ns);
        fputs(", \"valid\": true, \"invalid_reason\": null", out);
    } else {
        fputs(", \"start_ns\": null, \"end_ns\": null, \"duration_ns\": null, \"exclusive_ns\": null"
              ", \"valid\": false, \"invalid_reason\": ",
              out);
        json_string(out, wgprof_invalid_reason_str(rec->invalid_reason));
    }
    fputs(", \"cpu_start_ns\": ", out);
    json_number(out, rec->cpu_start_ns);
    fputs(", \"cpu_end_ns\": ", out);
    json_number(out, rec->cpu_end_ns);
    if (rec->bytes > 0) {
        json_key_real(out, "bytes", rec->bytes, 17, false);
    }
    if (rec->flops > 0) {
        json_key_real(out, "flops", rec->flops, 17, false);
    }
    fputs("}", out);
}

/* "a/b/c": a scope's name under its parents' names, whole at any depth and length. The
 * summary lists scopes depth first, so `ancestors` (one entry per depth) holds the path of the
 * scope before this one; this one replaces the entry at its depth. */
static void write_scope_path(const wgprof_summary *s, size_t i, uint32_t *ancestors, FILE *out)
{
    uint32_t depth = s->scopes[i].depth;
    ancestors[depth] = (uint32_t)i;
    fputc('"', out);
    for (uint32_t d = 0; d <= depth; d++) {
        if (d) {
            fputc('/', out);
        }
        wgprof__escape_json_chars(out, s->scopes[ancestors[d]].name, WGPROF__ESCAPE_JSON_PLAIN);
    }
    fputc('"', out);
}

static void write_scope_stats(const wgprof_summary *s, size_t i, uint32_t *ancestors, FILE *out)
{
    const wgprof_scope_stats *sc = &s->scopes[i];
    fputs("    {\"name\": ", out);
    json_string(out, sc->name);
    fputs(", \"path\": ", out);
    write_scope_path(s, i, ancestors, out);
    fprintf(out, ", \"depth\": %u, \"parent\": %d, \"count\": %u, \"invalid\": %u, \"empty\": %u", sc->depth,
            sc->parent, sc->count, sc->invalid, sc->empty);
    const char *const keys[] = {"total_ns", "mean_ns", "min_ns", "max_ns", "dispatch_ns"};
    const double values[] = {sc->total_ns, sc->mean_ns, sc->min_ns, sc->max_ns, sc->dispatch_ns};
    json_fields(out, keys, values, sizeof values / sizeof values[0], sc->count > 0);
    fputs(", \"share\": ", out);
    wgprof__put_real(out, "%.6f", sc->share, "null");
    fputs("}", out);
}

/* "a/b/c": an instance's node under its parents' names, as write_scope_path() writes the same
 * node's path; `chain` has room for one entry per node. */
static void write_node_path(const wgprof__store *store, uint32_t node, uint32_t *chain, FILE *out)
{
    uint32_t nodes = wgprof__store_scope_node_count(store), depth = 0;
    for (uint32_t n = node; n < nodes && depth < nodes;) { /* a parent comes before its child */
        uint32_t name, parent, level;
        wgprof__store_scope_node(store, n, &name, &parent, &level);
        chain[depth++] = name;
        n = parent;
    }
    fputc('"', out);
    for (uint32_t d = depth; d-- > 0;) {
        wgprof__escape_json_chars(out, wgprof__store_name(store, chain[d]), WGPROF__ESCAPE_JSON_PLAIN);
        if (d) {
            fputc('/', out);
        }
    }
    fputc('"', out);
}

static void write_scope_instance(const wgprof__store *store, const wgprof_scope_record *sc, uint32_t *chain, FILE *out)
{
    fputs("    {\"name\": ", out);
    json_string(out, sc->name);
    fputs(", \"path\": ", out);
    write_node_path(store, sc->node, chain, out);
    fprintf(out, ", \"node\": %u, \"parent_node\": %d, \"depth\": %u, \"iteration\": %u, \"first_record\": %u, "
                 "\"end_record\": %u, \"valid\": %s",
            sc->node, sc->parent_node, sc->depth, sc->batch, sc->first_record, sc->end_record,
            sc->valid ? "true" : "false");
    const char *const keys[] = {"start_ns", "end_ns", "duration_ns", "dispatch_ns", "cpu_start_ns", "cpu_end_ns"};
    const double values[] = {sc->start_ns, sc->end_ns, sc->duration_ns, sc->dispatch_ns, sc->cpu_start_ns,
                             sc->cpu_end_ns};
    json_fields(out, keys, values, sizeof values / sizeof values[0], sc->valid);
    fputs("}", out);
}

/* A CPU time, or null where unknown (0). */
static void json_cpu_time(FILE *out, const char *key, uint64_t ns)
{
    fprintf(out, ", \"%s\": ", key);
    if (ns) {
        fprintf(out, "%llu", (unsigned long long)ns);
    } else {
        fputs("null", out);
    }
}

static void write_batches(const wgprof__report *r, FILE *out)
{
    uint32_t n = wgprof__store_batch_count(r->store);
    fputs(",\n  \"batches\": [", out);
    for (uint32_t i = 0; i < n; i++) {
        wgprof_batch_info b;
        if (wgprof__store_batch(r->store, i, &b) != WGPROF_OK) {
            continue;
        }
        fprintf(out, "%s    {\"iteration\": %u, \"first_record\": %u, \"records\": %u, \"collected\": %s, "
                     "\"waited\": %s, \"chained\": %s, \"period_ns\": ",
                i ? ",\n" : "\n", b.index, b.first_record, b.records, b.collected ? "true" : "false",
                b.waited ? "true" : "false", b.chained ? "true" : "false");
        if (b.collected) {
            wgprof__put_real(out, "%.9g", b.period_ns, "null");
        } else {
            fputs("null", out);
        }
        json_cpu_time(out, "cpu_encode_ns", b.cpu_encode_ns);
        json_cpu_time(out, "cpu_submit_ns", b.cpu_submit_ns);
        json_cpu_time(out, "cpu_submitted_ns", b.cpu_submitted_ns);
        json_cpu_time(out, "cpu_ready_ns", b.cpu_ready_ns);
        fputs("}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
    const wgprof_clock_info *c = r->clock;
    fprintf(out, ",\n  \"clock\": {\"calibrated\": %s, \"consistent\": %s, \"samples\": %u",
            c->calibrated ? "true" : "false", c->consistent ? "true" : "false", c->samples);
    if (c->calibrated) {
        fprintf(out, ", \"ref_ticks\": %llu", (unsigned long long)c->ref_ticks);
        json_key_real(out, "ref_gpu_ns", c->ref_gpu_ns, 3, true);
        json_key_real(out, "ref_cpu_ns", c->ref_cpu_ns, 3, true);
        json_key_real(out, "drift_ppm", c->drift_ppm, 6, true);
        json_key_real(out, "uncertainty_ns", c->uncertainty_ns, 3, true);
    }
    uint64_t dropped_dispatches = 0, dropped = wgprof__store_dropped(r->store, &dropped_dispatches);
    fprintf(out, "},\n  \"dropped_batches\": %llu,\n  \"dropped_dispatches\": %llu", (unsigned long long)dropped,
            (unsigned long long)dropped_dispatches);
}

/* A kernel's throughput keys, in bytes or in flops. The keys the report always had keep their
 * meaning: the rate over the whole run (total / total_ns) and its share of the peak; the typical
 * dispatch's rate, which the table and the page show first, is under the "_median" keys. */
typedef struct throughput_keys {
    const char *per_dispatch, *total, *total_share, *median, *median_share;
} throughput_keys;

static const throughput_keys BYTES_KEYS = {"bytes_per_dispatch", "gbps", "peak_bandwidth_share", "gbps_median",
                                           "peak_bandwidth_share_median"};
static const throughput_keys FLOPS_KEYS = {"flops_per_dispatch", "gflops", "peak_flops_share", "gflops_median",
                                           "peak_flops_share_median"};

/* Each key only where its figure is known. */
static void json_throughput(FILE *out, const throughput_keys *keys, double per_dispatch, double total, double median,
                            double peak)
{
    if (per_dispatch > 0) {
        json_key_real(out, keys->per_dispatch, per_dispatch, 17, false);
    }
    if (total > 0) {
        json_key_real(out, keys->total, total, 6, true);
        if (peak > 0) {
            json_key_real(out, keys->total_share, total / peak, 6, true);
        }
    }
    if (median > 0) {
        json_key_real(out, keys->median, median, 6, true);
        if (peak > 0) {
            json_key_real(out, keys->median_share, median / peak, 6, true);
        }
    }
}

static void write_kernel(const wgprof__report *r, const wgprof_kernel_stats *k, FILE *out)
{
    fputs("    {\"name\": ", out);
    json_string(out, k->name);
    fprintf(out, ", \"id\": %u, \"count\": %u, \"invalid\": %u", k->id, k->count, k->invalid);
    const char *source = r->store ? wgprof__store_source(r->store, k->id) : NULL;
    if (source) {
        fputs(", \"name_source\": ", out);
        json_string(out, source);
    }
    const char *const keys[] = {"total_ns", "exclusive_total_ns", "mean_ns", "min_ns", "max_ns",
                                "median_ns", "p95_ns", "stddev_ns"};
    const double values[] = {k->total_ns, k->exclusive_total_ns, k->mean_ns, k->min_ns, k->max_ns,
                             k->median_ns, k->p95_ns, k->stddev_ns};
    json_fields(out, keys, values, sizeof values / sizeof values[0], k->count > 0);
    if (k->count) {
        json_key_real(out, "share", k->share, 6, true);
    } else {
        fputs(", \"share\": null", out);
    }
    if (k->bytes > 0) {
        json_key_real(out, "bytes", k->bytes, 17, false);
    }
    if (k->flops > 0) {
        json_key_real(out, "flops", k->flops, 17, false);
    }
    json_throughput(out, &BYTES_KEYS, k->bytes_per_dispatch, k->gbps_total, k->gbps, r->desc->peak_gbps);
    json_throughput(out, &FLOPS_KEYS, k->flops_per_dispatch, k->gflops_total, k->gflops, r->desc->peak_gflops);
    fputs("}", out);
}

wgprof_status wgprof__write_json(const wgprof__report *r, FILE *out)
{
    /* A scope's depth is below the number of scopes (of nodes): one entry each is always enough. */
    size_t scopes = r->summary ? r->summary->scope_count : 0;
    uint32_t nodes = r->store ? wgprof__store_scope_node_count(r->store) : 0;
    uint32_t *ancestors = scopes ? wgprof__calloc(scopes, sizeof *ancestors) : NULL;
    uint32_t *chain = nodes ? wgprof__calloc(nodes, sizeof *chain) : NULL;
    if ((scopes && !ancestors) || (nodes && !chain)) {
        wgprof__free(ancestors);
        wgprof__free(chain);
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    const wgprof_report_desc *d = r->desc;
    fprintf(out, "{\n  \"format_version\": %d,\n  \"wgprof_version\": \"" WGPROF_VERSION_STRING "\",\n  \"partial\": %s",
            WGPROF__JSON_FORMAT_VERSION, r->partial ? "true" : "false");
    /* Near the top, where a reader (or `head`) meets it before any figure. */
    if (r->partial) {
        fputs(",\n  \"partial_reason\": ", out);
        json_string(out, r->partial);
    }
    fputs(",\n  \"adapter\": ", out);
    write_adapter(d->device, out);
    /* The period the collected batches were converted with when they all agree (the batches
     * give each one); the device's where none was collected; null where they differ, or where
     * the device's is not a finite number. */
    const wgprof_summary *s = r->summary;
    fputs(",\n  \"timestamp_period_ns\": ", out);
    if (s && s->period_min_ns > 0) {
        wgprof__put_real(out, "%.9g", s->period_min_ns == s->period_max_ns ? s->period_min_ns : NAN, "null");
    } else if (d->device) {
        wgprof__put_real(out, "%.9g", d->device->timestamp_period_ns, "null");
    } else {
        fputs("null", out);
    }
    /* Beside the period: the step every reading was a multiple of (0: none coarser than a tick,
     * or too few readings), and whether that is rounding (wgprof_summary). */
    if (s) {
        fputs(",\n  \"timestamp_quantum_ns\": ", out);
        wgprof__put_real(out, "%.9g", s->timestamp_quantum_ns, "null");
        fprintf(out, ",\n  \"timestamp_quantized\": %s", s->timestamp_quantized ? "true" : "false");
    } else {
        fputs(",\n  \"timestamp_quantum_ns\": null,\n  \"timestamp_quantized\": false", out);
    }
    fputs(",\n  \"strategy\": ", out);
    json_string(out, r->strategy);
    if (r->desc->shader_checks) {
        fputs(",\n  \"shader_checks\": ", out);
        json_string(out, r->desc->shader_checks);
    }
    fprintf(out, ",\n  \"iterations\": %u,\n  \"profiling\": ", r->iterations);
    json_bool(out, d->pool != NULL);
    if (!d->pool || !r->summary) {
        fputs(",\n  \"unavailable_reason\": ", out);
        json_string(out, d->unavailable_reason ? d->unavailable_reason : "profiling off");
        fputs(",\n  \"dispatches\": [],\n  \"kernels\": []\n}\n", out);
        wgprof__free(ancestors);
        wgprof__free(chain);
        return WGPROF_OK;
    }
    fprintf(out, ",\n  \"records\": %zu,\n  \"invalid\": %zu,\n  \"invalid_by_reason\": {", s->records, s->invalid);
    bool first = true;
    for (int reason = 1; reason < WGPROF_INVALID_REASON_COUNT; reason++) {
        if (s->invalid_by_reason[reason]) {
            fprintf(out, "%s\"%s\": %zu", first ? "" : ", ", wgprof_invalid_reason_str((wgprof_invalid_reason)reason),
                    s->invalid_by_reason[reason]);
            first = false;
        }
    }
    fputs("},\n  \"total_ns\": ", out);
    json_number(out, s->total_ns);
    fputs(",\n  \"exclusive_total_ns\": ", out);
    json_number(out, s->exclusive_total_ns);
    fputs(",\n  \"dispatches\": [", out);
    size_t n = wgprof__store_count(r->store);
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof__store_record(r->store, r->clock, i, &rec) == WGPROF_OK) {
            fputs(i ? ",\n" : "\n", out);
            write_dispatch(&rec, out);
        }
    }
    fputs(n ? "\n  ],\n  \"kernels\": [" : "],\n  \"kernels\": [", out);
    for (size_t i = 0; i < s->kernel_count; i++) {
        fputs(i ? ",\n" : "\n", out);
        write_kernel(r, &s->kernels[i], out);
    }
    fputs(s->kernel_count ? "\n  ]" : "]", out);
    fputs(",\n  \"scopes\": [", out);
    for (size_t i = 0; i < s->scope_count; i++) {
        fputs(i ? ",\n" : "\n", out);
        write_scope_stats(s, i, ancestors, out);
    }
    fputs(s->scope_count ? "\n  ]" : "]", out);
    size_t instances = wgprof__store_scope_count(r->store);
    fputs(",\n  \"scope_instances\": [", out);
    for (size_t i = 0; i < instances; i++) {
        wgprof_scope_record sc;
        if (wgprof__store_scope(r->store, r->clock, i, &sc) == WGPROF_OK) {
            fputs(i ? ",\n" : "\n", out);
            write_scope_instance(r->store, &sc, chain, out);
        }
    }
    fputs(instances ? "\n  ]" : "]", out);
    write_batches(r, out);
    fputs("\n}\n", out);
    wgprof__free(ancestors);
    wgprof__free(chain);
    return WGPROF_OK;
}
