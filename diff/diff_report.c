/*
 * A comparison written out (diff.h): the table (for a terminal), the Markdown table (for a pull
 * request) and the JSON (for programs, written by jansson). Times in microseconds with three
 * decimals in the tables, nanoseconds in the JSON. Names come from the reports: the table
 * escapes their control characters, Markdown its own punctuation too.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <wgprof/wgprof.h>

#include "common.h"
#include "diff.h"

/* ---- shared phrases ---- */

static void format_us(double ns, char *out, size_t cap)
{
    if (isfinite(ns)) {
        snprintf(out, cap, "%.3f", ns / 1000.0);
    } else {
        snprintf(out, cap, "-");
    }
}

/* "[-1.2%, +3.4%]", or "-" without an interval. */
static void format_interval(const diff_interval *iv, char *out, size_t cap)
{
    if (isnan(iv->lo) || isnan(iv->hi)) {
        snprintf(out, cap, "-");
        return;
    }
    char lo[48], hi[48];
    diff_format_change(iv->lo, lo, sizeof lo);
    diff_format_change(iv->hi, hi, sizeof hi);
    snprintf(out, cap, "[%s, %s]", lo, hi);
}

/* What the figures are, in one sentence. */
/* Fewer runs than this on a side of a comparison of several runs: said under the method. */
enum { FEW_RUNS = 5 };

static void write_method(const diff_result *r, FILE *out)
{
    fprintf(out,
            "change: the new median over the base's, of the per-dispatch GPU times (per-iteration totals for the "
            "total); %.0f%% interval from a bootstrap of %u resamples (seed %llu); slower or faster where the "
            "interval excludes no change and the medians differ by more than %g%%\n",
            r->options.confidence * 100, r->options.resamples, (unsigned long long)r->options.seed,
            r->options.threshold * 100);
    if (r->base->runs < 2 && r->new_->runs < 2) {
        return;
    }
    fprintf(out, "runs: a side of several reports is resampled a run at a time, then iterations within each "
                 "run drawn, so that its interval covers how far whole runs move\n");
    size_t fewest = r->base->runs < r->new_->runs ? r->base->runs : r->new_->runs;
    if (fewest < FEW_RUNS) {
        fprintf(out, "runs: with %zu run%s on a side, the interval is narrower than %.0f%% where whole runs move "
                     "(docs/reports.md): %d or more a side\n",
                fewest, fewest == 1 ? "" : "s", r->options.confidence * 100, FEW_RUNS);
    }
}

/* ---- the table ---- */

/* Names as wgprof__escape_terminal_shown writes them (common.h): every control character as an
 * escape, so that a name from a report can neither move a terminal's cursor nor reorder the line. */
static void put_text(FILE *out, const char *s, size_t width) { wgprof__escape_terminal_shown(out, s, width); }

/* Of a side's runs, the names shown before "and N more". */
enum { SHOWN_RUNS = 3 };

/* The side's report, or its runs: "a.json, b.json, c.json and 2 more (5 runs)". */
static void put_files(FILE *out, const diff_profile *p, void (*text)(FILE *, const char *))
{
    if (!p->files || p->runs < 2) {
        text(out, p->file);
        return;
    }
    for (size_t i = 0; i < p->runs && i < SHOWN_RUNS; i++) {
        if (i) {
            fputs(", ", out);
        }
        text(out, p->files[i]);
    }
    if (p->runs > SHOWN_RUNS) {
        fprintf(out, " and %zu more", p->runs - SHOWN_RUNS);
    }
    fprintf(out, " (%zu runs)", p->runs);
}

static void table_text(FILE *out, const char *s) { put_text(out, s, 0); }

static void put_side(FILE *out, const char *label, const diff_profile *p)
{
    fprintf(out, "%s ", label);
    put_files(out, p, table_text);
    fputs(" | ", out);
    put_text(out, p->adapter[0] ? p->adapter : "(adapter not named)", 0);
    if (p->implementation[0]) {
        fputs(" | ", out);
        put_text(out, p->implementation, 0);
    }
    fputs(" | strategy ", out);
    put_text(out, p->strategy[0] ? p->strategy : "(not named)", 0);
    if (p->iterations >= 0) {
        fprintf(out, " | %lld iteration%s", p->iterations, p->iterations == 1 ? "" : "s");
    }
    fprintf(out, " | %zu dispatch%s\n", p->dispatches, p->dispatches == 1 ? "" : "es");
}

static void put_differences(const diff_result *r, FILE *out)
{
    for (size_t i = 0; i < r->difference_count; i++) {
        const diff_difference *d = &r->differences[i];
        fprintf(out, "%s %s: ", i ? "     " : "differ:", d->what);
        put_text(out, d->base, 0);
        fputs(" (base), ", out);
        put_text(out, d->new_, 0);
        fputs(" (new)\n", out);
    }
}

static size_t name_width(const diff_result *r)
{
    size_t w = 24;
    for (size_t i = 0; i < r->row_count; i++) {
        size_t n = strlen(r->rows[i].name);
        w = n > w ? n : w;
    }
    return w > 48 ? 48 : w;
}

static void put_row(FILE *out, const diff_row *row, size_t width)
{
    char bm[48], nm[48], change[48], interval[112];
    format_us(row->base.median_ns, bm, sizeof bm);
    format_us(row->new_.median_ns, nm, sizeof nm);
    diff_format_change(row->iv.ratio, change, sizeof change);
    format_interval(&row->iv, interval, sizeof interval);
    put_text(out, row->kind == DIFF_TOTAL ? "total (per iteration)" : row->name, width);
    char bn[24] = "-", nn[24] = "-";
    if (row->base.present) {
        snprintf(bn, sizeof bn, "%zu", row->base.count);
    }
    if (row->new_.present) {
        snprintf(nn, sizeof nn, "%zu", row->new_.count);
    }
    fprintf(out, " %8s %8s %15s %15s %9s  %-22s %s%s\n", bn, nn, bm, nm, change, interval,
            diff_verdict_str(row->verdict), row->fails ? " (fails)" : "");
}

static void put_heading(FILE *out, const char *first, size_t width)
{
    put_text(out, first, width);
    fprintf(out, " %8s %8s %15s %15s %9s  %-22s %s\n", "base_n", "new_n", "base_median_us", "new_median_us",
            "change", "interval", "verdict");
}

static void put_skipped(const diff_result *r, FILE *out)
{
    const diff_profile *side[2] = {r->base, r->new_};
    for (int s = 0; s < 2; s++) {
        const diff_profile *p = side[s];
        if (p->invalid || p->invalid_scopes || p->total.skipped) {
            fprintf(out, "skipped in %s (", s ? "new" : "base");
            if (p->runs > 1) {
                fprintf(out, "%zu runs", p->runs);
            } else {
                put_text(out, p->file, 0);
            }
            fprintf(out, "): %zu invalid dispatch%s, %zu invalid scope instance%s (no duration: not samples), "
                         "%zu iteration%s holding one left out of the total\n",
                    p->invalid, p->invalid == 1 ? "" : "es", p->invalid_scopes, p->invalid_scopes == 1 ? "" : "s",
                    p->total.skipped, p->total.skipped == 1 ? "" : "s");
        }
    }
}

/* The warning for each partial side, above everything else of the comparison: its figures are
 * of the dispatches made before the program ended, not of the whole run. */
static void put_partial(FILE *out, const char *label, const diff_profile *p,
                        void (*text)(FILE *, const char *), const char *before, const char *after)
{
    if (p->partial) {
        fprintf(out, "%sPARTIAL RESULTS on the %s side%s: ", before, label, after);
        text(out, p->partial);
        fputs(". Its figures cover only the dispatches made before its program ended: the comparison is not "
              "one of whole runs\n",
              out);
    }
}

bool diff_write_table(const diff_result *r, FILE *out)
{
    put_partial(out, "base", r->base, table_text, "", "");
    put_partial(out, "new", r->new_, table_text, "", "");
    put_side(out, "base:", r->base);
    put_side(out, "new: ", r->new_);
    put_differences(r, out);
    write_method(r, out);
    fputc('\n', out);
    size_t width = name_width(r);
    bool scopes = false;
    put_heading(out, "kernel", width);
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (row->kind == DIFF_SCOPE && !scopes) {
            fputc('\n', out);
            put_heading(out, "scope", width);
            scopes = true;
        }
        put_row(out, row, width);
    }
    put_skipped(r, out);
    if (r->options.fail_if_slower >= 0) {
        fprintf(out, "fail-if-slower %g%%: ", r->options.fail_if_slower * 100);
        if (!r->failed) {
            fprintf(out, "no kernel and not the total is slower by more than that with %.0f%% confidence\n",
                    r->options.confidence * 100);
        } else {
            bool first = true;
            for (size_t i = 0; i < r->row_count; i++) {
                if (r->rows[i].fails) {
                    fputs(first ? "" : ", ", out);
                    put_text(out, r->rows[i].kind == DIFF_TOTAL ? "the total" : r->rows[i].name, 0);
                    first = false;
                }
            }
            fprintf(out, " slower by more than that with %.0f%% confidence\n", r->options.confidence * 100);
        }
    }
    return !ferror(out);
}

/* ---- Markdown ---- */

/* A name in a table cell, escaped so that it can neither format nor break the table (common.h). */
static void md_text(FILE *out, const char *s) { wgprof__escape_markdown(out, s); }

static void md_row(FILE *out, const diff_row *row)
{
    char bm[48], nm[48], change[48], lo[48], hi[48];
    format_us(row->base.median_ns, bm, sizeof bm);
    format_us(row->new_.median_ns, nm, sizeof nm);
    diff_format_change(row->iv.ratio, change, sizeof change);
    fputs("| ", out);
    if (row->kind == DIFF_TOTAL) {
        fputs("**total** (per iteration)", out);
    } else {
        md_text(out, row->name);
    }
    fprintf(out, " | %s | %s | %s | ", bm, nm, change);
    if (isnan(row->iv.lo) || isnan(row->iv.hi)) {
        fputs("-", out);
    } else {
        diff_format_change(row->iv.lo, lo, sizeof lo);
        diff_format_change(row->iv.hi, hi, sizeof hi);
        fprintf(out, "%s to %s", lo, hi);
    }
    bool strong = row->verdict == DIFF_SLOWER || row->verdict == DIFF_FASTER;
    fprintf(out, " | %s%s%s%s |\n", strong ? "**" : "", diff_verdict_str(row->verdict), strong ? "**" : "",
            row->fails ? " (fails the gate)" : "");
}

static void md_heading(FILE *out, const char *first)
{
    fprintf(out, "| %s | base median (µs) | new median (µs) | change | interval | verdict |\n"
                 "| --- | ---: | ---: | ---: | :---: | --- |\n",
            first);
}

static void md_side(FILE *out, const char *label, const diff_profile *p)
{
    fprintf(out, "- %s: ", label);
    put_files(out, p, md_text);
    fputs(" · ", out);
    md_text(out, p->adapter[0] ? p->adapter : "(adapter not named)");
    if (p->implementation[0]) {
        fputs(" · ", out);
        md_text(out, p->implementation);
    }
    fputs(" · strategy ", out);
    md_text(out, p->strategy[0] ? p->strategy : "(not named)");
    fprintf(out, " · %zu dispatches\n", p->dispatches);
}

bool diff_write_markdown(const diff_result *r, FILE *out)
{
    size_t slower = 0, faster = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        slower += r->rows[i].verdict == DIFF_SLOWER;
        faster += r->rows[i].verdict == DIFF_FASTER;
    }
    fprintf(out, "### wgprof diff: %zu slower, %zu faster%s\n\n", slower, faster,
            r->base->partial || r->new_->partial ? " (PARTIAL RESULTS)" : "");
    put_partial(out, "base", r->base, md_text, "> **", "**");
    put_partial(out, "new", r->new_, md_text, "> **", "**");
    if (r->base->partial || r->new_->partial) {
        fputc('\n', out);
    }
    md_side(out, "base", r->base);
    md_side(out, "new", r->new_);
    if (r->difference_count) {
        fputs("\n> **The runs differ** in", out);
        for (size_t i = 0; i < r->difference_count; i++) {
            const diff_difference *d = &r->differences[i];
            fprintf(out, "%s %s: ", i ? ";" : "", d->what);
            md_text(out, d->base);
            fputs(" (base), ", out);
            md_text(out, d->new_);
            fputs(" (new)", out);
        }
        fputs("\n", out);
    }
    fputc('\n', out);
    md_heading(out, "kernel");
    bool scopes = false;
    for (size_t i = 0; i < r->row_count; i++) {
        if (r->rows[i].kind == DIFF_SCOPE && !scopes) {
            fputc('\n', out);
            md_heading(out, "scope");
            scopes = true;
        }
        md_row(out, &r->rows[i]);
    }
    fputc('\n', out);
    fprintf(out, "Change: the new median over the base's, of the per-dispatch GPU times (per-iteration totals for "
                 "the total); %.0f%% interval from a bootstrap of %u resamples (seed %llu); slower or faster where "
                 "the interval excludes no change and the medians differ by more than %g%%.",
            r->options.confidence * 100, r->options.resamples, (unsigned long long)r->options.seed,
            r->options.threshold * 100);
    if (r->options.fail_if_slower >= 0) {
        fprintf(out, " Gate (fail-if-slower %g%%): %s.", r->options.fail_if_slower * 100,
                r->failed ? "**failed**" : "passed");
    }
    fputc('\n', out);
    return !ferror(out);
}

/* ---- JSON ---- */

/* A number, or null where it is not finite (JSON has neither NaN nor infinity). */
static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* Sets `key` to `v`; false when out of memory (`v` NULL, or the set failed). */
static bool put(json_t *obj, const char *key, json_t *v) { return v && json_object_set_new(obj, key, v) == 0; }

static json_t *side_json(const diff_side *s)
{
    if (!s->present) {
        return json_null();
    }
    json_t *o = json_object();
    if (o && put(o, "count", json_integer((json_int_t)s->count)) && put(o, "skipped", json_integer((json_int_t)s->skipped)) &&
        put(o, "runs", json_integer((json_int_t)s->runs)) &&
        put(o, "median_ns", number(s->median_ns))) {
        return o;
    }
    json_decref(o);
    return NULL;
}

static json_t *row_json(const diff_row *row)
{
    json_t *o = json_object();
    json_t *interval = isnan(row->iv.lo) || isnan(row->iv.hi) ? json_null()
                                                                : json_pack("[oo]", number(row->iv.lo), number(row->iv.hi));
    bool ok = o && put(o, "name", json_string(row->name)) &&
              put(o, "verdict", json_string(diff_verdict_str(row->verdict))) && put(o, "base", side_json(&row->base)) &&
              put(o, "new", side_json(&row->new_)) && put(o, "ratio", number(row->iv.ratio)) &&
              put(o, "change_pct", number((row->iv.ratio - 1) * 100)) && put(o, "interval", interval) &&
              put(o, "fails", json_boolean(row->fails));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *profile_json(const diff_profile *p)
{
    json_t *o = json_object();
    json_t *files = json_array();
    for (size_t i = 0; files && i < p->runs; i++) {
        if (json_array_append_new(files, json_string(p->files ? p->files[i] : p->file)) != 0) {
            json_decref(files);
            files = NULL;
        }
    }
    if (!o) {
        json_decref(files);
        return NULL;
    }
    bool ok = put(o, "file", json_string(p->file)) && put(o, "files", files) &&
              put(o, "partial", json_boolean(p->partial != NULL)) &&
              put(o, "partial_reason", p->partial ? json_string(p->partial) : json_null()) &&
              put(o, "runs", json_integer((json_int_t)p->runs)) && put(o, "wgprof_version", json_string(p->version)) &&
              put(o, "adapter", json_string(p->adapter)) && put(o, "driver", json_string(p->driver)) &&
              put(o, "backend", json_string(p->backend)) && put(o, "implementation", json_string(p->implementation)) &&
              put(o, "strategy", json_string(p->strategy)) &&
              put(o, "shader_checks", p->shader_checks[0] ? json_string(p->shader_checks) : json_null()) &&
              put(o, "timestamp_period_ns", number(p->period_ns)) &&
              put(o, "timestamp_quantum_ns", number(p->quantum_ns)) &&
              put(o, "timestamp_quantized", json_boolean(p->quantized)) &&
              put(o, "iterations", p->iterations >= 0 ? json_integer(p->iterations) : json_null()) &&
              put(o, "dispatches", json_integer((json_int_t)p->dispatches)) &&
              put(o, "invalid_dispatches", json_integer((json_int_t)p->invalid)) &&
              put(o, "scope_instances", json_integer((json_int_t)p->scope_instances)) &&
              put(o, "invalid_scope_instances", json_integer((json_int_t)p->invalid_scopes)) &&
              put(o, "iterations_left_out", json_integer((json_int_t)p->total.skipped));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *result_json(const diff_result *r)
{
    json_t *o = json_object(), *kernels = json_array(), *scopes = json_array(), *differences = json_array();
    json_t *total = NULL;
    bool ok = o && kernels && scopes && differences;
    for (size_t i = 0; ok && i < r->row_count; i++) {
        json_t *row = row_json(&r->rows[i]);
        switch (r->rows[i].kind) {
        case DIFF_KERNEL: ok = row && json_array_append_new(kernels, row) == 0; break;
        case DIFF_SCOPE: ok = row && json_array_append_new(scopes, row) == 0; break;
        case DIFF_TOTAL:
            json_decref(total);
            total = row;
            ok = row != NULL;
            break;
        }
    }
    for (size_t i = 0; ok && i < r->difference_count; i++) {
        const diff_difference *d = &r->differences[i];
        json_t *item = json_pack("{ssssss}", "what", d->what, "base", d->base, "new", d->new_);
        ok = item && json_array_append_new(differences, item) == 0;
    }
    ok = ok && put(o, "format_version", json_integer(1)) && put(o, "wgprof_version", json_string(wgprof_version())) &&
         put(o, "partial", json_boolean(r->base->partial || r->new_->partial)) &&
         put(o, "base", profile_json(r->base)) && put(o, "new", profile_json(r->new_)) &&
         put(o, "differences", json_incref(differences)) &&
         put(o, "method", json_string("percentile bootstrap of the ratio of medians")) &&
         put(o, "confidence", json_real(r->options.confidence)) &&
         put(o, "resamples", json_integer(r->options.resamples)) &&
         put(o, "seed", json_integer((json_int_t)(r->options.seed & 0x7fffffffffffffffull))) &&
         put(o, "threshold_pct", json_real(r->options.threshold * 100)) &&
         put(o, "fail_if_slower_pct",
             r->options.fail_if_slower >= 0 ? json_real(r->options.fail_if_slower * 100) : json_null()) &&
         put(o, "failed", json_boolean(r->failed)) && put(o, "kernels", json_incref(kernels)) &&
         put(o, "total", total ? json_incref(total) : json_null()) && put(o, "scopes", json_incref(scopes));
    json_decref(kernels);
    json_decref(scopes);
    json_decref(differences);
    json_decref(total);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int dump_to_file(const char *buffer, size_t size, void *data)
{
    return fwrite(buffer, 1, size, data) == size ? 0 : -1;
}

bool diff_write_json(const diff_result *r, FILE *out)
{
    json_t *root = result_json(r);
    if (!root) {
        return false;
    }
    bool ok = json_dump_callback(root, dump_to_file, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF;
    json_decref(root);
    return ok && !ferror(out);
}
