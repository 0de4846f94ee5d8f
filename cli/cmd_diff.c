/*
 * wgprof diff BASE.json NEW.json: two JSON reports compared (diff/diff.h), or several runs a
 * side (B1.json B2.json vs N1.json N2.json), pooled per side. Every report is
 * read and every output file checked before anything is written; the table goes to stdout, the
 * JSON, Markdown and HTML to their files (common/common.h: whole or not at all, never over
 * an input). Exit 1 when --fail-if-slower finds a kernel or the total slower (or, with --gate-common,
 * the change common to the kernels; with --gate-both-ways, the other group of two where which
 * changed is too close to call); exit 2 for a partial
 * report (its program ended before its results were final) unless --allow-partial.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diff.h"

typedef bool (*diff_writer)(const diff_result *r, FILE *out);

typedef struct diff_job {
    const diff_result *result;
    diff_writer write;
} diff_job;

static bool write_job(FILE *f, void *user, char *error, size_t cap)
{
    const diff_job *job = user;
    bool ok = job->write(job->result, f);
    if (!ok && !ferror(f)) {
        snprintf(error, cap, "out of memory");
    }
    return ok;
}

/* Loads `path` into `p`; prints why and returns the exit code where it cannot. */
static int load(const char *command, const char *path, size_t set, diff_profile *p, out_input *input)
{
    char error[4096];
    uint64_t dev = 0, ino = 0;
    diff_status s = diff_load_file_set(path, set, p, &dev, &ino, error, sizeof error);
    if (s != DIFF_OK) {
        cli_error("wgprof %s: %s", command, error);
        return s == DIFF_FAILED ? CLI_FAILED : CLI_USAGE;
    }
    if (input) {
        *input = (out_input){path, dev, ino};
    }
    return CLI_OK;
}

_Static_assert(CLI_DIFF_MAX_RUNS == DIFF_MAX_RUNS, "the parser and the pooling agree on the runs a side");

/* Which file a report came from, standard input included where it is a file (inputs[] leaves
 * it out: there is no output to protect from it). */
static out_input identity(const out_input *input)
{
    struct stat st;
    if ((input->dev || input->ino) || strcmp(input->name, "-") != 0 || fstat(STDIN_FILENO, &st) != 0 ||
        !S_ISREG(st.st_mode)) {
        return *input;
    }
    return (out_input){input->name, (uint64_t)st.st_dev, (uint64_t)st.st_ino};
}

static bool same_file(const out_input *a, const out_input *b)
{
    return (a->dev || a->ino) && a->dev == b->dev && a->ino == b->ino;
}

/* Loads the `n` reports of one side into `p` (pooled where several) and appends their
 * identities to inputs[*input_count ...] and ids[*input_count ...]; prints why and returns the
 * exit code where it cannot. The same file twice on one side would count one run as two:
 * refused. */
static int load_side(const char *const *paths, size_t n, size_t set, diff_profile *p, out_input *inputs,
                     out_input *ids, size_t *input_count)
{
    diff_profile runs[DIFF_MAX_RUNS];
    out_input *mine = inputs + *input_count, *my_ids = ids + *input_count;
    for (size_t i = 0; i < n; i++) {
        int code = load("diff", paths[i], set, &runs[i], &mine[i]);
        if (code == CLI_OK) {
            my_ids[i] = identity(&mine[i]);
        }
        for (size_t j = 0; code == CLI_OK && j < i; j++) {
            if (same_file(&my_ids[i], &my_ids[j])) {
                cli_error("wgprof diff: %s: the same report as %s, on the same side: each run counts once",
                          paths[i], paths[j]);
                diff_profile_free(&runs[i]);
                code = CLI_USAGE;
            }
        }
        if (code != CLI_OK) {
            for (size_t j = 0; j < i; j++) {
                diff_profile_free(&runs[j]);
            }
            return code;
        }
    }
    *input_count += n;
    char error[4096];
    diff_status s = diff_merge_runs(runs, n, p, error, sizeof error);
    if (s != DIFF_OK) {
        cli_error("wgprof diff: %s", error);
        return s == DIFF_FAILED ? CLI_FAILED : CLI_USAGE;
    }
    return CLI_OK;
}

static void options_from(const cli_diff_options *o, diff_options *d)
{
    diff_default_options(d);
    d->threshold = o->threshold_pct / 100;
    d->fail_if_slower = o->fail_if_slower_pct < 0 ? -1 : o->fail_if_slower_pct / 100;
    d->gate_common = o->gate_common;
    d->gate_both_ways = o->gate_both_ways;
    d->seed = o->seed;
    d->resamples = o->resamples;
}

/* Every output file, checked before anything is written. */
static int check_outputs(const cli_diff_options *o, const out_input *inputs, size_t n)
{
    const char *const flags[] = {"--json", "--markdown", "--html"};
    const char *const files[] = {o->json, o->markdown, o->html};
    for (size_t i = 0; i < 3; i++) {
        char why[4096];
        if (files[i] && !out_check(files[i], inputs, n, why, sizeof why)) {
            cli_error("wgprof diff: %s %s: %s", flags[i], files[i], why);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static int write_outputs(const cli_diff_options *o, const diff_result *r)
{
    int code = CLI_OK;
    if (!o->quiet && !diff_write_table(r, stdout)) {
        code = CLI_FAILED; /* main() names the write error on stdout */
    }
    const char *const flags[] = {"--json", "--markdown", "--html"};
    const char *const files[] = {o->json, o->markdown, o->html};
    const diff_writer writers[] = {diff_write_json, diff_write_markdown, diff_write_html};
    for (size_t i = 0; i < 3; i++) {
        char why[4096];
        diff_job job = {r, writers[i]};
        if (files[i] && !out_write(files[i], write_job, &job, why, sizeof why)) {
            cli_error("wgprof diff: %s: %s", flags[i], why);
            code = CLI_FAILED;
        }
    }
    return code;
}

/* The names of the kernels of the common group, between commas, into `out` (cut short with
 * "..." where they do not fit). */
static const char *common_names(const diff_result *r, char *out, size_t cap)
{
    size_t at = 0;
    out[0] = 0;
    for (size_t i = 0; i < r->row_count && at < cap; i++) {
        if (r->rows[i].in_common) {
            int n = snprintf(out + at, cap - at, "%s%s", at ? ", " : "", r->rows[i].name);
            at = n < 0 ? cap : at + (size_t)n;
        }
    }
    if (at >= cap && cap > 4) {
        memcpy(out + cap - 4, "...", 4);
    }
    return out;
}

/* The message for a failed gate, on stderr: which rows and by how much at least. */
static void report_gate(const diff_result *r)
{
    char names[256];
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (row->fails && row->zero_base) {
            /* No ratio over a base of 0: the change in microseconds, against what the base can
             * have been. */
            cli_error("wgprof diff: %s%s is slower by more than %g%%: from a base median of 0 ns (below %.9g ns, "
                      "what its timer can tell: no ratio can be told) by %+.3f us (%g%% confidence: at least %+.3f us, "
                      "more than %g times that bound)",
                      row->kind == DIFF_TOTAL ? "" : "kernel ", row->kind == DIFF_TOTAL ? "the total" : row->name,
                      r->options.fail_if_slower * 100, row->base_below_ns, row->absolute.change_ns / 1000,
                      r->options.confidence * 100, row->absolute.lo_ns / 1000, 1 + r->options.fail_if_slower);
        } else if (row->fails) {
            char lo[48], change[48];
            diff_format_change(row->iv.lo, lo, sizeof lo);
            diff_format_change(row->iv.ratio, change, sizeof change);
            cli_error("wgprof diff: %s%s is slower by more than %g%%: %s (%g%% confidence: at least %s)",
                      row->kind == DIFF_TOTAL ? "" : "kernel ", row->kind == DIFF_TOTAL ? "the total" : row->name,
                      r->options.fail_if_slower * 100, change, r->options.confidence * 100, lo);
        }
    }
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (row->fails_reversed) {
            char lo[48], change[48];
            diff_format_change(1.0 / row->iv.hi, lo, sizeof lo);
            diff_format_change(1.0 / row->iv.ratio, change, sizeof change);
            cli_error("wgprof diff: read the other way, the common group (%s) is slower than kernel %s by more than "
                      "%g%%: %s (%g%% confidence: at least %s); which of the two groups changed is too close to call "
                      "(the quickest times chose that group as unchanged in %.0f%% of the resamples)",
                      common_names(r, names, sizeof names), row->name, r->options.fail_if_slower * 100, change,
                      r->options.confidence * 100, lo, r->common_support * 100);
        }
    }
    if (r->common.fails) {
        char lo[48], change[48];
        diff_format_change(r->common.iv.lo, lo, sizeof lo);
        diff_format_change(r->common.iv.ratio, change, sizeof change);
        cli_error("wgprof diff: the change common to the kernels is slower by more than %g%% (--gate-common): %s "
                  "(%g%% confidence: at least %s)",
                  r->options.fail_if_slower * 100, change, r->options.confidence * 100, lo);
    }
}

int cmd_diff(int argc, char **argv)
{
    cli_diff_options o;
    char error[4096];
    switch (cli_parse_diff_args(argc, argv, &o, error, sizeof error)) {
    case CLI_PARSE_HELP:
        fputs(cli_diff_usage, stdout);
        fputs(cli_diff_usage_method, stdout);
        return CLI_OK;
    case CLI_PARSE_ERROR:
        cli_error("wgprof diff: %s\n(wgprof diff --help lists the options)", error);
        return CLI_USAGE;
    case CLI_PARSE_OK:
        break;
    }
    diff_profile base, next;
    out_input inputs[2 * DIFF_MAX_RUNS], ids[2 * DIFF_MAX_RUNS];
    size_t input_count = 0;
    int code = load_side(o.base, o.base_count, o.set, &base, inputs, ids, &input_count);
    if (code != CLI_OK) {
        return code;
    }
    code = load_side(o.new_, o.new_count, o.set, &next, inputs, ids, &input_count);
    /* A run on both sides pulls several runs a side toward "no change" (one report against
     * itself stays allowed: a check of the method). */
    for (size_t i = 0; code == CLI_OK && input_count > 2 && i < o.base_count; i++) {
        for (size_t j = o.base_count; code == CLI_OK && j < input_count; j++) {
            if (same_file(&ids[i], &ids[j])) {
                cli_error("wgprof diff: %s: on both sides (as %s): a run belongs to one side", o.new_[j - o.base_count],
                          o.base[i]);
                code = CLI_USAGE;
                diff_profile_free(&next);
            }
        }
    }
    /* A partial report's figures stop where its program did: a gate must not pass on them
     * silently, so it takes --allow-partial to compare one (and every output then says so). */
    const diff_profile *sides[] = {&base, &next};
    for (size_t i = 0; code == CLI_OK && !o.allow_partial && i < 2; i++) {
        if (sides[i]->partial) {
            cli_error("wgprof diff: the %s side is partial: %s%s%s\n(its figures cover only the dispatches made before "
                      "its program ended; --allow-partial compares it all the same, flagged in every output)",
                      i ? "new" : "base", sides[i]->runs > 1 ? "" : sides[i]->file, sides[i]->runs > 1 ? "" : ": ",
                      sides[i]->partial);
            code = CLI_USAGE;
            diff_profile_free(&next);
        }
    }
    if (code != CLI_OK) {
        diff_profile_free(&base);
        return code;
    }
    /* Standard input (dev 0) is no file to protect. */
    size_t n = 0;
    out_input files[2 * DIFF_MAX_RUNS];
    for (size_t i = 0; i < input_count; i++) {
        if (inputs[i].dev || inputs[i].ino) {
            files[n++] = inputs[i];
        }
    }
    code = check_outputs(&o, files, n);
    diff_options options;
    options_from(&o, &options);
    diff_result r;
    if (code == CLI_OK && diff_compare(&base, &next, &options, &r) != DIFF_OK) {
        code = cli_fail("comparing the reports", WGPROF_ERR_OUT_OF_MEMORY);
    } else if (code == CLI_OK) {
        code = write_outputs(&o, &r);
        if (r.failed) {
            report_gate(&r);
            code = CLI_FAILED;
        }
        diff_result_free(&r);
    }
    diff_profile_free(&base);
    diff_profile_free(&next);
    return code;
}

/* ---- --baseline on run, demo and record ---- */

int cli_baseline_load(const char *command, const char *path, diff_profile *baseline, out_input *input)
{
    return load(command, path, 0, baseline, input);
}

/* Compares `run` with the baseline and prints the table on `out`. */
static int print_comparison(const char *command, const diff_profile *baseline, const diff_profile *run, FILE *out)
{
    diff_options options;
    diff_default_options(&options);
    diff_result r;
    if (diff_compare(baseline, run, &options, &r) != DIFF_OK) {
        cli_error("wgprof %s: --baseline: out of memory", command);
        return CLI_FAILED;
    }
    fprintf(out, "\ncompared with the baseline (wgprof diff):\n");
    bool ok = diff_write_table(&r, out);
    diff_result_free(&r);
    return ok ? CLI_OK : CLI_FAILED;
}

int cli_baseline_compare_report(const char *command, const diff_profile *baseline, const wgprof_report_desc *report,
                                FILE *out)
{
    char *json = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&json, &size);
    if (!mem) {
        return cli_fail("--baseline: writing the run's report", WGPROF_ERR_OUT_OF_MEMORY);
    }
    wgprof_status s = wgprof_report_write(report, WGPROF_FORMAT_JSON, mem);
    if (fclose(mem) != 0 && s == WGPROF_OK) {
        s = WGPROF_ERR_OUT_OF_MEMORY;
    }
    if (s != WGPROF_OK) {
        free(json);
        return cli_fail("--baseline: writing the run's report", s);
    }
    char error[4096];
    diff_profile run;
    diff_status ds = diff_load_buffer("this run", json, size, &run, error, sizeof error);
    free(json);
    if (ds != DIFF_OK) {
        cli_error("wgprof %s: --baseline: no comparison: %s", command, error);
        return ds == DIFF_FAILED ? CLI_FAILED : CLI_OK;
    }
    int code = print_comparison(command, baseline, &run, out);
    diff_profile_free(&run);
    return code;
}

int cli_baseline_compare_file(const char *command, const diff_profile *baseline, const char *report, const char *name,
                              FILE *out)
{
    char error[4096];
    diff_profile run;
    diff_status ds = diff_load_file(report, &run, NULL, NULL, error, sizeof error);
    if (ds != DIFF_OK) {
        cli_error("wgprof %s: --baseline: no comparison for %s: %s", command, name, error);
        return ds == DIFF_FAILED ? CLI_FAILED : CLI_OK;
    }
    free(run.file);
    run.file = diff_copy_text(name);
    int code = CLI_FAILED;
    if (run.file) {
        code = print_comparison(command, baseline, &run, out);
    } else {
        cli_error("wgprof %s: --baseline: out of memory", command);
    }
    diff_profile_free(&run);
    return code;
}
