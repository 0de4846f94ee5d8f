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

/* A change in ns as signed microseconds followed by `unit` ("+1000.000us"), or "-" where not
 * finite: the change of a row whose base median is 0, which has no ratio. */
static void format_shift(double ns, const char *unit, char *out, size_t cap)
{
    if (isfinite(ns)) {
        snprintf(out, cap, "%+.3f%s", ns / 1000.0, unit);
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

/* Fewer runs than this on a side of a comparison of several runs: said under the method. */
enum { FEW_RUNS = 5 };

/* What the figures are. Plain text, shared by the table and the Markdown (which adds nothing
 * that needs escaping: no name from a report is in it). */
static void write_method(const diff_result *r, FILE *out, const char *line_start, const char *line_end)
{
    const diff_options *o = &r->options;
    fprintf(out,
            "%schange: the new median over the base's, of the per-dispatch GPU times (per-iteration totals for the "
            "total); %.0f%% interval from a bootstrap of %u resamples (seed %llu); slower or faster where the "
            "interval excludes no change, the medians differ by more than %g%% and the p-value, corrected by "
            "Holm's method over the %zu row%s tested, is below %g%s\n",
            line_start, o->confidence * 100, o->resamples, (unsigned long long)o->seed, o->threshold * 100, r->tested,
            r->tested == 1 ? "" : "s", 1 - o->confidence, line_end);
    if (r->separated) {
        fprintf(out,
                "%smachine: each %s speed is the median over the kernels of their %s median to their typical "
                "base median; each change is against the change most kernels share (the common line), with the "
                "speeds taken out; \"measured\" is the change as measured%s\n",
                line_start, r->by_iteration ? "iteration's" : "run's", r->by_iteration ? "iteration's" : "run's",
                line_end);
    } else if (r->compared == 1) {
        fprintf(out,
                "%smachine: with one kernel compared, the machine's speed cannot be told apart from the kernel's "
                "change: changes are as measured%s\n",
                line_start, line_end);
    }
    if (r->base->runs < 2 && r->new_->runs < 2) {
        fprintf(out, "%sruns: one report a side: the interval covers how the iterations of each run vary, not how "
                     "far a whole run moves (the machine's load or memory bandwidth, clocks, another process); "
                     "where runs move, give several a side: wgprof diff A1 .. A5 vs B1 .. B5%s\n",
                line_start, line_end);
        return;
    }
    fprintf(out, "%sruns: a side of several reports is resampled a run at a time, then iterations within each "
                 "run drawn, so that its interval covers how far whole runs move%s\n",
            line_start, line_end);
    size_t fewest = r->base->runs < r->new_->runs ? r->base->runs : r->new_->runs;
    if (fewest < FEW_RUNS) {
        fprintf(out, "%sruns: with %zu run%s on a side, the interval is narrower than %.0f%% where whole runs move "
                     "(docs/reports.md): %d or more a side%s\n",
                line_start, fewest, fewest == 1 ? "" : "s", o->confidence * 100, FEW_RUNS, line_end);
    }
}

/* "0.012", "<0.001" or "-". */
static void format_p(double p, char *out, size_t cap)
{
    if (isnan(p)) {
        snprintf(out, cap, "-");
    } else if (p < 0.001) {
        snprintf(out, cap, "<0.001");
    } else {
        snprintf(out, cap, "%.3f", p);
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

/* The quartiles' distance, in microseconds. */
static void format_spread(const diff_side *d, char *out, size_t cap) { format_us(d->q3_ns - d->q1_ns, out, cap); }

static void put_row(FILE *out, const diff_row *row, size_t width, bool separated)
{
    char bm[48], nm[48], bs[48], ns[48], measured[48], change[48], interval[112], p[16];
    format_us(row->base.median_ns, bm, sizeof bm);
    format_us(row->new_.median_ns, nm, sizeof nm);
    format_spread(&row->base, bs, sizeof bs);
    format_spread(&row->new_, ns, sizeof ns);
    diff_format_change(row->raw.ratio, measured, sizeof measured);
    diff_format_change(row->iv.ratio, change, sizeof change);
    format_interval(&row->iv, interval, sizeof interval);
    if (row->zero_base) { /* no ratio: the change in microseconds, as measured */
        format_shift(row->absolute.change_ns, "us", change, sizeof change);
        memcpy(measured, change, sizeof measured);
        snprintf(interval, sizeof interval, "-");
        if (isfinite(row->absolute.lo_ns) && isfinite(row->absolute.hi_ns)) {
            char lo[48], hi[48];
            format_shift(row->absolute.lo_ns, "us", lo, sizeof lo);
            format_shift(row->absolute.hi_ns, "us", hi, sizeof hi);
            snprintf(interval, sizeof interval, "[%s, %s]", lo, hi);
        }
    }
    format_p(row->p_holm, p, sizeof p);
    put_text(out, row->kind == DIFF_TOTAL ? "total (per iteration)" : row->name, width);
    char bn[24] = "-", nn[24] = "-";
    if (row->base.present) {
        snprintf(bn, sizeof bn, "%zu", row->base.count);
    }
    if (row->new_.present) {
        snprintf(nn, sizeof nn, "%zu", row->new_.count);
    }
    fprintf(out, " %8s %8s %14s %10s %14s %10s", bn, nn, bm, bs, nm, ns);
    if (separated) {
        fprintf(out, " %9s", measured);
    }
    fprintf(out, " %9s  %-22s %7s  %s%s%s\n", change, interval, p, diff_verdict_str(row->verdict),
            row->in_common ? " (common)" : "",
            row->fails            ? " (fails)"
            : row->fails_reversed ? " (fails read the other way)"
                                  : "");
}

static void put_heading(FILE *out, const char *first, size_t width, bool separated)
{
    put_text(out, first, width);
    fprintf(out, " %8s %8s %14s %10s %14s %10s", "base_n", "new_n", "base_median_us", "base_iqr", "new_median_us",
            "new_iqr");
    if (separated) {
        fprintf(out, " %9s", "measured");
    }
    fprintf(out, " %9s  %-22s %7s  %s\n", separated ? "vs_common" : "change", "interval", "p_holm", "verdict");
}

/* The common change's line (or why there is none), the runs' speeds, the geometric mean. Each
 * line begins with `start` and ends with `end` (Markdown: a list item). */
static void put_machine(const diff_result *r, FILE *out, void (*text)(FILE *, const char *), const char *start,
                        const char *end)
{
    if (r->separated) {
        const diff_row *c = &r->common;
        char change[48], interval[112], p[16], rank[16];
        diff_format_change(c->iv.ratio, change, sizeof change);
        format_interval(&c->iv, interval, sizeof interval);
        format_p(c->p_holm, p, sizeof p);
        format_p(c->rank_p, rank, sizeof rank);
        fprintf(out, "%scommon to %zu of %zu kernels (", start, r->common_kernels, r->compared);
        bool first = true, reference = false;
        for (size_t i = 0; i < r->row_count; i++) {
            if (r->rows[i].in_common) {
                fputs(first ? "" : ", ", out);
                text(out, r->rows[i].name);
                first = false;
                reference = reference || r->rows[i].reference;
            }
        }
        const char *what = reference ? "the machine's speed, as wgprof's reference kernel moved with them"
                           : r->common_not_machine
                               ? "a change that touches these kernels, not the machine: wgprof's reference kernel did "
                                 "not move with them (gated)"
                               : "the machine's speed, or a change that touches every kernel";
        fprintf(out, "): %s %s, p_holm %s, rank test %s: %s%s: %s%s%s\n", change, interval, p, rank,
                diff_verdict_str(c->verdict), c->fails ? " (fails)" : "", what,
                r->options.gate_common || r->common_not_machine ? "" : " (not gated: --gate-common gates it)", end);
        if (r->common_guessed) {
            fprintf(out, "%sas many kernels moved the other way against these: which of the two groups changed is "
                         "read from each kernel's quickest tenth of its times on each side, which a side that never "
                         "ran unloaded can mislead (runs made with "
                         "'wgprof run --reference' settle it); the change of one group against the other is "
                         "measured either way; the quickest times chose these in %s%.0f%% of the bootstrap's "
                         "resamples%s%s\n",
                    start, r->common_unsure ? "only " : "", r->common_support * 100,
                    !r->common_unsure                 ? ""
                    : r->options.fail_if_slower < 0 ? ": too close to call"
                    : r->options.gate_both_ways     ? ": too close to call, so --fail-if-slower reads it both ways"
                                                    : ": too close to call (--gate-both-ways gates either reading)",
                    end);
        }
        for (int side = 0; side < 2; side++) {
            const double *speed = side ? r->new_speed : r->base_speed;
            size_t runs = side ? r->new_->runs : r->base->runs;
            fprintf(out, "%sspeed of each %s run (1: the base's typical run; higher: slower):", start,
                    side ? "new" : "base");
            for (size_t i = 0; i < runs; i++) {
                if (isfinite(speed[i])) {
                    fprintf(out, " %.3f", speed[i]);
                } else {
                    fputs(" -", out);
                }
            }
            fprintf(out, "%s\n", end);
        }
    }
    if (isfinite(r->geomean)) {
        char g[48];
        diff_format_change(r->geomean, g, sizeof g);
        size_t n = 0;
        for (size_t i = 0; i < r->row_count; i++) {
            n += r->rows[i].kind == DIFF_KERNEL && !r->rows[i].reference && !r->rows[i].zero_base &&
                 !isnan(r->rows[i].p);
        }
        fprintf(out, "%sgeometric mean of the kernels' changes as measured (%zu kernel%s): %s%s\n", start, n,
                n == 1 ? "" : "s", g, end);
    }
}

/* What a base median of 0 tells and what it does not, where a row has one: the rows, what the
 * base's time lay below (its bound), and how the verdict and the gate read their change in ns. */
static void put_zero_base(const diff_result *r, FILE *out, void (*text)(FILE *, const char *), const char *start,
                          const char *end)
{
    bool any = false, total = false;
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (!row->zero_base) {
            continue;
        }
        fputs(any ? ", " : "", out);
        if (!any) {
            fprintf(out, "%sbase median 0 ns: no ratio can be told for ", start);
        }
        text(out, row->kind == DIFF_TOTAL ? "total (per iteration)" : row->name);
        total = total || row->kind == DIFF_TOTAL;
        any = true;
    }
    if (!any) {
        return;
    }
    const diff_options *o = &r->options;
    if (r->base_tick_ns > 0) {
        fprintf(out, ": the base's times read 0, below one tick of its timer, %.9g ns", r->base_tick_ns);
        if (total && r->base->total_readings > 1) {
            fprintf(out, " (the total, a sum of up to %zu dispatches: below %.9g ns)", r->base->total_readings,
                    r->base_tick_ns * (double)r->base->total_readings);
        }
    } else {
        fputs(": the base's times read 0, and its timer's tick is not known (its batches' periods differ): their "
              "bound is 0",
              out);
    }
    fprintf(out, "%s\n", end);
    fprintf(out,
            "%sbase median 0 ns: the change is the new median less the base's, in us, with its %.0f%% interval; "
            "slower where that interval lies above the base's bound and the change above the bound by more than %g%% "
            "(the new side then longer than the base can have been by more than that), never faster",
            start, o->confidence * 100, o->threshold * 100);
    if (o->fail_if_slower >= 0) {
        fprintf(out, "; --fail-if-slower %g%%: the interval above the bound by more than %g%%", o->fail_if_slower * 100,
                o->fail_if_slower * 100);
    }
    fprintf(out, "%s\n", end);
}

/* Per row of a side of several runs, its runs' medians; a warning where they disagree. */
static void put_runs(const diff_result *r, FILE *out, void (*text)(FILE *, const char *), const char *start,
                     const char *end)
{
    if (r->base->runs < 2 && r->new_->runs < 2) {
        return;
    }
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (row->kind == DIFF_SCOPE) {
            continue;
        }
        fputs(start, out);
        text(out, row->kind == DIFF_TOTAL ? "total (per iteration)" : row->name);
        fputs(": medians of the runs (us):", out);
        const diff_side *sides[2] = {&row->base, &row->new_};
        for (int s = 0; s < 2; s++) {
            fprintf(out, " %s", s ? "new" : "base");
            if (!sides[s]->run_medians) {
                char m[48];
                format_us(sides[s]->median_ns, m, sizeof m);
                fprintf(out, " %s", m);
            }
            for (size_t k = 0; sides[s]->run_medians && k < sides[s]->runs; k++) {
                char m[48];
                format_us(sides[s]->run_medians[k], m, sizeof m);
                fprintf(out, " %s", m);
            }
            fputs(s ? "" : ";", out);
        }
        fprintf(out, "%s\n", end);
    }
    for (int s = 0; s < 2; s++) {
        bool any = false;
        for (size_t i = 0; i < r->row_count; i++) {
            const diff_row *row = &r->rows[i];
            if (row->kind != DIFF_SCOPE && (s ? row->new_ : row->base).runs_disagree) {
                fprintf(out, "%s", any ? ", " : "");
                if (!any) {
                    fprintf(out, "%swarning: the %s side's runs disagree by more than each run's own interval allows "
                                 "(", start, s ? "new" : "base");
                }
                text(out, row->kind == DIFF_TOTAL ? "the total" : row->name);
                any = true;
            }
        }
        if (any) {
            fprintf(out, "): the machine's speed moved between runs%s%s\n",
                    r->separated ? " (taken out of the changes against the common one)" : "", end);
        }
    }
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

/* Whether a kernel fails the gate read the other way (diff.h: fails_reversed). */
static bool reversed_fails(const diff_result *r)
{
    for (size_t i = 0; i < r->row_count; i++) {
        if (r->rows[i].fails_reversed) {
            return true;
        }
    }
    return false;
}

/* The names of the rows that `pick` selects, between commas. */
static void put_names(const diff_result *r, FILE *out, bool (*pick)(const diff_row *))
{
    bool first = true;
    for (size_t i = 0; i < r->row_count; i++) {
        if (pick(&r->rows[i])) {
            fputs(first ? "" : ", ", out);
            put_text(out, r->rows[i].name, 0);
            first = false;
        }
    }
}

static bool is_common(const diff_row *row) { return row->in_common; }
static bool is_reversed(const diff_row *row) { return row->fails_reversed; }

/* The gate's line for what fails read the other way. */
static void put_reversed(const diff_result *r, FILE *out)
{
    fputs("read the other way (which of the two groups changed is too close to call): ", out);
    put_names(r, out, is_common);
    fputs(" slower against ", out);
    put_names(r, out, is_reversed);
    fprintf(out, " by more than that with %.0f%% confidence\n", r->options.confidence * 100);
}

bool diff_write_table(const diff_result *r, FILE *out)
{
    put_partial(out, "base", r->base, table_text, "", "");
    put_partial(out, "new", r->new_, table_text, "", "");
    put_side(out, "base:", r->base);
    put_side(out, "new: ", r->new_);
    put_differences(r, out);
    write_method(r, out, "", "");
    fputc('\n', out);
    size_t width = name_width(r);
    bool scopes = false;
    put_heading(out, "kernel", width, r->separated);
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (row->kind == DIFF_SCOPE && !scopes) {
            fputc('\n', out);
            put_heading(out, "scope", width, r->separated);
            scopes = true;
        }
        put_row(out, row, width, r->separated);
    }
    fputc('\n', out);
    put_zero_base(r, out, table_text, "", "");
    put_machine(r, out, table_text, "", "");
    put_runs(r, out, table_text, "", "");
    put_skipped(r, out);
    if (r->options.fail_if_slower >= 0) {
        fprintf(out, "fail-if-slower %g%%: ", r->options.fail_if_slower * 100);
        if (!r->failed) {
            fprintf(out, "no kernel%s and not the total is slower by more than that with %.0f%% confidence%s\n",
                    r->options.gate_common ? ", not the common change" : "", r->options.confidence * 100,
                    r->options.gate_both_ways && r->common_unsure ? ", read both ways" : "");
        } else {
            bool first = true;
            for (size_t i = 0; i < r->row_count; i++) {
                if (r->rows[i].fails) {
                    fputs(first ? "" : ", ", out);
                    put_text(out, r->rows[i].kind == DIFF_TOTAL ? "the total" : r->rows[i].name, 0);
                    first = false;
                }
            }
            if (r->common.fails) {
                fputs(first ? "the common change" : ", the common change", out);
            }
            if (!first || r->common.fails) {
                fprintf(out, " slower by more than that with %.0f%% confidence%s", r->options.confidence * 100,
                        reversed_fails(r) ? "; " : "\n");
            }
            if (reversed_fails(r)) {
                put_reversed(r, out);
            }
        }
    }
    return !ferror(out);
}

/* ---- Markdown ---- */

/* A name in a table cell, escaped so that it can neither format nor break the table (common.h). */
static void md_text(FILE *out, const char *s) { wgprof__escape_markdown(out, s); }

static void md_row(FILE *out, const diff_row *row, bool separated)
{
    char bm[48], nm[48], bs[48], ns[48], measured[48], change[48], lo[48], hi[48], p[16];
    format_us(row->base.median_ns, bm, sizeof bm);
    format_us(row->new_.median_ns, nm, sizeof nm);
    format_spread(&row->base, bs, sizeof bs);
    format_spread(&row->new_, ns, sizeof ns);
    diff_format_change(row->raw.ratio, measured, sizeof measured);
    diff_format_change(row->iv.ratio, change, sizeof change);
    if (row->zero_base) { /* no ratio: the change in microseconds, as measured */
        format_shift(row->absolute.change_ns, " us", change, sizeof change);
        memcpy(measured, change, sizeof measured);
    }
    format_p(row->p_holm, p, sizeof p);
    fputs("| ", out);
    if (row->kind == DIFF_TOTAL) {
        fputs("**total** (per iteration)", out);
    } else {
        md_text(out, row->name);
    }
    fprintf(out, " | %s | %s | %s | %s | ", bm, bs, nm, ns);
    if (separated) {
        fprintf(out, "%s | ", measured);
    }
    fprintf(out, "%s | ", change);
    if (row->zero_base && isfinite(row->absolute.lo_ns) && isfinite(row->absolute.hi_ns)) {
        format_shift(row->absolute.lo_ns, "", lo, sizeof lo);
        format_shift(row->absolute.hi_ns, " us", hi, sizeof hi);
        fprintf(out, "%s to %s", lo, hi);
    } else if (row->zero_base || isnan(row->iv.lo) || isnan(row->iv.hi)) {
        fputs("-", out);
    } else {
        diff_format_change(row->iv.lo, lo, sizeof lo);
        diff_format_change(row->iv.hi, hi, sizeof hi);
        fprintf(out, "%s to %s", lo, hi);
    }
    bool strong = row->verdict == DIFF_SLOWER || row->verdict == DIFF_FASTER;
    fprintf(out, " | %s | %s%s%s%s%s |\n", p, strong ? "**" : "", diff_verdict_str(row->verdict), strong ? "**" : "",
            row->in_common ? " (common)" : "",
            row->fails            ? " (fails the gate)"
            : row->fails_reversed ? " (fails the gate read the other way)"
                                  : "");
}

static void md_heading(FILE *out, const char *first, bool separated)
{
    fprintf(out, "| %s | base median (µs) | base IQR (µs) | new median (µs) | new IQR (µs) | %s%s | interval | "
                 "p (Holm) | verdict |\n| --- | ---: | ---: | ---: | ---: | ---: | %s:---: | ---: | --- |\n",
            first, separated ? "measured | " : "", separated ? "vs common" : "change", separated ? "---: | " : "");
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
    md_heading(out, "kernel", r->separated);
    bool scopes = false;
    for (size_t i = 0; i < r->row_count; i++) {
        if (r->rows[i].kind == DIFF_SCOPE && !scopes) {
            fputc('\n', out);
            md_heading(out, "scope", r->separated);
            scopes = true;
        }
        md_row(out, &r->rows[i], r->separated);
    }
    fputc('\n', out);
    put_zero_base(r, out, md_text, "- ", "");
    put_machine(r, out, md_text, "- ", "");
    put_runs(r, out, md_text, "- ", "");
    write_method(r, out, "- ", "");
    if (r->options.fail_if_slower >= 0) {
        fprintf(out, "- Gate (fail-if-slower %g%%): %s\n", r->options.fail_if_slower * 100,
                r->failed ? "**failed**" : "passed");
    }
    return !ferror(out);
}

/* ---- JSON ---- */

/* A number, or null where it is not finite (JSON has neither NaN nor infinity). */
static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* Sets `key` to `v`; false when out of memory (`v` NULL, or the set failed). */
static bool put(json_t *obj, const char *key, json_t *v) { return v && json_object_set_new(obj, key, v) == 0; }

/* An array of `n` numbers (null where not finite); JSON null for none. */
static json_t *numbers(const double *v, size_t n)
{
    if (!v) {
        return json_null();
    }
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        if (json_array_append_new(a, number(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *side_json(const diff_side *s)
{
    if (!s->present) {
        return json_null();
    }
    json_t *o = json_object();
    if (o && put(o, "count", json_integer((json_int_t)s->count)) &&
        put(o, "skipped", json_integer((json_int_t)s->skipped)) && put(o, "runs", json_integer((json_int_t)s->runs)) &&
        put(o, "median_ns", number(s->median_ns)) && put(o, "q1_ns", number(s->q1_ns)) &&
        put(o, "q3_ns", number(s->q3_ns)) && put(o, "run_medians_ns", numbers(s->run_medians, s->runs)) &&
        put(o, "runs_disagree", json_boolean(s->runs_disagree))) {
        return o;
    }
    json_decref(o);
    return NULL;
}

/* [lo, hi], or null without an interval. */
static json_t *interval_json(const diff_interval *iv)
{
    return isnan(iv->lo) || isnan(iv->hi) ? json_null() : json_pack("[oo]", number(iv->lo), number(iv->hi));
}

/* [lo, hi] in ns of a row whose base median is 0, or null without that interval. */
static json_t *absolute_interval_json(const diff_row *row)
{
    const diff_absolute *a = &row->absolute;
    return row->zero_base && isfinite(a->lo_ns) && isfinite(a->hi_ns)
               ? json_pack("[oo]", number(a->lo_ns), number(a->hi_ns))
               : json_null();
}

/* The change against the common one: {ratio, change_pct, interval}. */
static json_t *change_json(const diff_interval *iv)
{
    json_t *o = json_object();
    if (o && put(o, "ratio", number(iv->ratio)) && put(o, "change_pct", number((iv->ratio - 1) * 100)) &&
        put(o, "interval", interval_json(iv))) {
        return o;
    }
    json_decref(o);
    return NULL;
}

static json_t *row_json(const diff_row *row, bool separated)
{
    json_t *o = json_object();
    bool ok = o && put(o, "name", json_string(row->name)) &&
              put(o, "verdict", json_string(diff_verdict_str(row->verdict))) && put(o, "base", side_json(&row->base)) &&
              put(o, "new", side_json(&row->new_)) && put(o, "ratio", number(row->raw.ratio)) &&
              put(o, "change_pct", number((row->raw.ratio - 1) * 100)) && put(o, "interval", interval_json(&row->raw)) &&
              put(o, "zero_base", json_boolean(row->zero_base)) &&
              put(o, "change_ns", number(row->absolute.change_ns)) &&
              put(o, "change_ns_interval", absolute_interval_json(row)) &&
              put(o, "base_below_ns", number(row->base_below_ns)) &&
              put(o, "against_common", separated && row->kind != DIFF_COMMON && !row->zero_base && !isnan(row->p)
                                           ? change_json(&row->iv)
                                           : json_null()) &&
              put(o, "p", number(row->p)) && put(o, "p_holm", number(row->p_holm)) &&
              put(o, "rank_p", number(row->rank_p)) && put(o, "in_common", json_boolean(row->in_common)) &&
              put(o, "reference", json_boolean(row->reference)) && put(o, "in_rival", json_boolean(row->in_rival)) &&
              put(o, "fails", json_boolean(row->fails)) &&
              put(o, "fails_reversed", json_boolean(row->fails_reversed));
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

/* Each run's speed factor on each side, or null where not separated. */
static json_t *speed_json(const diff_result *r)
{
    if (!r->separated) {
        return json_null();
    }
    return json_pack("{soso}", "base", numbers(r->base_speed, r->base->runs), "new",
                     numbers(r->new_speed, r->new_->runs));
}

static json_t *result_json(const diff_result *r)
{
    json_t *o = json_object(), *kernels = json_array(), *scopes = json_array(), *differences = json_array();
    json_t *total = NULL;
    bool ok = o && kernels && scopes && differences;
    for (size_t i = 0; ok && i < r->row_count; i++) {
        json_t *row = row_json(&r->rows[i], r->separated);
        switch (r->rows[i].kind) {
        case DIFF_KERNEL: ok = row && json_array_append_new(kernels, row) == 0; break;
        case DIFF_SCOPE: ok = row && json_array_append_new(scopes, row) == 0; break;
        case DIFF_COMMON: /* written on its own, below */
            json_decref(row);
            break;
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
         put(o, "method", json_string(r->separated ? "percentile bootstrap of the ratio of medians, against the change "
                                                     "common to the kernels with each run's speed taken out"
                                                   : "percentile bootstrap of the ratio of medians")) &&
         put(o, "correction", json_string("holm")) && put(o, "rows_tested", json_integer((json_int_t)r->tested)) &&
         put(o, "kernels_compared", json_integer((json_int_t)r->compared)) &&
         put(o, "separated", json_boolean(r->separated)) &&
         put(o, "common_guessed", json_boolean(r->common_guessed)) &&
         put(o, "common_support", number(r->common_support)) &&
         put(o, "common_unsure", json_boolean(r->common_unsure)) &&
         put(o, "common_not_machine", json_boolean(r->common_not_machine)) &&
         put(o, "common", r->separated ? row_json(&r->common, true) : json_null()) &&
         put(o, "speed", speed_json(r)) && put(o, "geomean_ratio", number(r->geomean)) &&
         put(o, "base_tick_ns", r->base_tick_ns > 0 ? number(r->base_tick_ns) : json_null()) &&
         put(o, "gate_common", json_boolean(r->options.gate_common)) &&
         put(o, "gate_both_ways", json_boolean(r->options.gate_both_ways)) &&
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
