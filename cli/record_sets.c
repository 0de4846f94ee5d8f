/*
 * One report file from several result sets (`wgprof record` of a program with several devices or
 * processes): each set's report, as its writer (the preload library's or the layer's) made it,
 * inside one file of the same format.
 *
 * - JSON: {"format_version", "wgprof_version", "result_sets": [{"process", "device",
 *   "report": REPORT}, ...]}, each REPORT a whole report as one set alone would have it
 *   (docs/reports.md). Copied, never parsed: what a set's writer wrote is what is read.
 * - Chrome trace: every set's events in one trace, each set's CPU and GPU processes numbered
 *   apart and named after the set; on the CPU clock (every set's timeline is the same machine's
 *   monotonic clock) they are placed on one axis, from the earliest set's origin.
 * - CSV: one header, with a first column `set` ("PID.N"), then each set's rows.
 * - HTML: a page that shows each set's own page, one after the other.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "record_sets.h"

/* Each set's file, opened by the caller's opener, through `each`; false where one is missing. */
static bool with_set(const record_sets *s, size_t i, bool (*each)(FILE *in, void *user), void *user)
{
    FILE *in = s->open(s->user, s->sets[i].file);
    if (!in) {
        return false;
    }
    bool ok = each(in, user);
    fclose(in);
    return ok;
}

/* ---- JSON ---- */

typedef struct json_job {
    FILE *out;
} json_job;

static bool copy_report(FILE *in, void *user)
{
    /* The report as written, less its last newline (it sits inside the envelope). */
    FILE *out = ((json_job *)user)->out;
    char buf[65536];
    size_t n;
    int held = -1; /* a trailing newline held back until more follows */
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        if (held >= 0 && fputc(held, out) == EOF) {
            return false;
        }
        held = buf[n - 1] == '\n' ? '\n' : -1;
        size_t keep = held >= 0 ? n - 1 : n;
        if (fwrite(buf, 1, keep, out) != keep) {
            return false;
        }
    }
    return !ferror(in);
}

static bool write_json(const record_sets *s, FILE *out)
{
    fprintf(out, "{\n  \"format_version\": 1,\n  \"wgprof_version\": \"%s\",\n  \"result_sets\": [\n",
            wgprof_version());
    json_job job = {out};
    for (size_t i = 0; i < s->count; i++) {
        fprintf(out, "    {\"process\": %lu, \"device\": %lu, \"report\":\n", s->sets[i].pid, s->sets[i].device);
        if (!with_set(s, i, copy_report, &job)) {
            return false;
        }
        fprintf(out, "\n    }%s\n", i + 1 < s->count ? "," : "");
    }
    fputs("  ]\n}\n", out);
    return !ferror(out);
}

/* ---- CSV ---- */

typedef struct csv_job {
    FILE *out;
    const char *id;
    bool header_written;
} csv_job;

/* Copies one set's CSV: its header once (for the first set), then each record with the set's id
 * in front. A record ends at a newline outside quotes (a quoted field may hold one). */
static bool copy_csv(FILE *in, void *user)
{
    csv_job *job = user;
    bool header = true, quoted = false, at_start = true;
    int c;
    while ((c = fgetc(in)) != EOF) {
        if (at_start) {
            at_start = false;
            if (header && !job->header_written) {
                fputs("set,", job->out);
            } else if (!header) {
                fprintf(job->out, "%s,", job->id);
            }
        }
        bool skip = header && job->header_written;
        if (c == '"') {
            quoted = !quoted;
        }
        if (!skip && fputc(c, job->out) == EOF) {
            return false;
        }
        if (c == '\n' && !quoted) {
            if (header) {
                job->header_written = true;
            }
            header = false;
            at_start = true;
        }
    }
    return !ferror(in);
}

static bool write_csv(const record_sets *s, FILE *out)
{
    csv_job job = {out, NULL, false};
    for (size_t i = 0; i < s->count; i++) {
        job.id = s->sets[i].id;
        if (!with_set(s, i, copy_csv, &job)) {
            return false;
        }
    }
    return !ferror(out);
}

/* ---- Chrome trace ---- */

typedef struct trace_job {
    json_t *trace; /* the set's, read */
} trace_job;

static bool read_trace(FILE *in, void *user)
{
    json_error_t error;
    ((trace_job *)user)->trace = json_loadf(in, 0, &error);
    return ((trace_job *)user)->trace != NULL;
}

/* The set's origin on the CPU clock in ns, or NAN where its timeline is not the CPU clock. */
static double cpu_origin(const json_t *trace)
{
    const json_t *other = json_object_get(trace, "otherData");
    const char *timeline = json_string_value(json_object_get(other, "timeline"));
    const json_t *origin = json_object_get(other, "timeline_origin_cpu_ns");
    return timeline && strcmp(timeline, "cpu clock") == 0 && json_is_number(origin) ? json_number_value(origin) : NAN;
}

static bool write_trace(const record_sets *s, FILE *out)
{
    json_t **traces = calloc(s->count, sizeof *traces);
    json_t *merged = json_object(), *events = json_array(), *sets = json_array();
    bool ok = traces && merged && events && sets;
    double origin = INFINITY;
    bool one_clock = true;
    for (size_t i = 0; ok && i < s->count; i++) {
        trace_job job = {NULL};
        ok = with_set(s, i, read_trace, &job) && json_is_array(json_object_get(job.trace, "traceEvents"));
        traces[i] = job.trace;
        double o = ok ? cpu_origin(job.trace) : NAN;
        one_clock = one_clock && isfinite(o);
        origin = isfinite(o) && o < origin ? o : origin;
    }
    for (size_t i = 0; ok && i < s->count; i++) {
        /* Set i's processes become 2i + 1 and 2i + 2 (each set has the CPU's, 1, and the GPU's, 2),
         * its times shifted onto the earliest origin where all share the CPU clock. */
        double shift_us = one_clock ? (cpu_origin(traces[i]) - origin) / 1e3 : 0;
        json_t *list = json_object_get(traces[i], "traceEvents");
        size_t k;
        json_t *e;
        json_array_foreach(list, k, e)
        {
            json_t *pid = json_object_get(e, "pid");
            if (json_is_integer(pid)) {
                json_object_set_new(e, "pid", json_integer((json_integer_value(pid) - 1) + 2 * (json_int_t)i + 1));
            }
            json_t *ts = json_object_get(e, "ts");
            if (json_is_number(ts) && shift_us != 0) {
                json_object_set_new(e, "ts", json_real(json_number_value(ts) + shift_us));
            }
            const char *name = json_string_value(json_object_get(e, "name"));
            json_t *args = json_object_get(e, "args");
            const char *process = json_string_value(json_object_get(args, "name"));
            if (name && strcmp(name, "process_name") == 0 && process) {
                char named[600];
                snprintf(named, sizeof named, "%s: %s", s->sets[i].id, process);
                json_object_set_new(args, "name", json_string(named));
            }
            ok = ok && json_array_append(events, e) == 0;
        }
        json_t *other = json_deep_copy(json_object_get(traces[i], "otherData"));
        json_t *set = json_object();
        ok = ok && other && set && json_object_set_new(set, "set", json_string(s->sets[i].id)) == 0 &&
             json_object_set_new(set, "otherData", other) == 0 && json_array_append_new(sets, set) == 0;
        if (!ok) {
            json_decref(set);
        }
    }
    if (ok) {
        json_t *other = json_object();
        ok = other && json_object_set_new(other, "wgprof_version", json_string(wgprof_version())) == 0 &&
             json_object_set_new(other, "timeline", json_string(one_clock ? "cpu clock" : "each set's own")) == 0 &&
             json_object_set(other, "result_sets", sets) == 0 &&
             json_object_set_new(merged, "displayTimeUnit", json_string("ns")) == 0 &&
             json_object_set(merged, "traceEvents", events) == 0 && json_object_set_new(merged, "otherData", other) == 0;
        if (ok && one_clock) {
            ok = json_object_set_new(other, "timeline_origin_cpu_ns", json_real(origin)) == 0;
        }
        ok = ok && json_dumpf(merged, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) == 0 && fputc('\n', out) != EOF;
    }
    for (size_t i = 0; traces && i < s->count; i++) {
        json_decref(traces[i]);
    }
    free(traces);
    json_decref(events);
    json_decref(sets);
    json_decref(merged);
    return ok && !ferror(out);
}

/* ---- HTML ---- */

typedef struct html_job {
    FILE *out;
} html_job;

/* The set's page as the value of an iframe's srcdoc attribute. */
static bool copy_page(FILE *in, void *user)
{
    FILE *out = ((html_job *)user)->out;
    int c;
    while ((c = fgetc(in)) != EOF) {
        const char *entity = c == '&' ? "&amp;" : c == '"' ? "&quot;" : NULL;
        if (entity ? fputs(entity, out) == EOF : fputc(c, out) == EOF) {
            return false;
        }
    }
    return !ferror(in);
}

static bool write_html(const record_sets *s, FILE *out)
{
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>wgprof: %zu result sets</title>\n<style>\n"
            "body { font-family: system-ui, sans-serif; margin: 1em; }\n"
            "iframe { width: 100%%; height: 90vh; border: 1px solid #ccc; }\n"
            "</style>\n</head>\n<body>\n<h1>wgprof record: %zu result sets</h1>\n<ul>\n",
            s->count, s->count);
    for (size_t i = 0; i < s->count; i++) {
        fprintf(out, "<li><a href=\"#set-%zu\">process %lu, device %lu</a></li>\n", i + 1, s->sets[i].pid,
                s->sets[i].device);
    }
    fputs("</ul>\n", out);
    html_job job = {out};
    for (size_t i = 0; i < s->count; i++) {
        fprintf(out, "<section id=\"set-%zu\">\n<h2>process %lu, device %lu</h2>\n<iframe title=\"set %s\" srcdoc=\"",
                i + 1, s->sets[i].pid, s->sets[i].device, s->sets[i].id);
        if (!with_set(s, i, copy_page, &job)) {
            return false;
        }
        fputs("\"></iframe>\n</section>\n", out);
    }
    fputs("</body>\n</html>\n", out);
    return !ferror(out);
}

bool record_sets_write(const record_sets *s, wgprof_format format, FILE *out)
{
    switch (format) {
    case WGPROF_FORMAT_JSON: return write_json(s, out);
    case WGPROF_FORMAT_CSV: return write_csv(s, out);
    case WGPROF_FORMAT_TRACE: return write_trace(s, out);
    case WGPROF_FORMAT_HTML: return write_html(s, out);
    default: errno = EINVAL; return false;
    }
}
