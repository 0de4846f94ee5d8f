/*
 * Several reports of one setting as one side of a comparison (diff.h): runs of the same code,
 * each its own process, pooled so that the bootstrap can draw whole runs (diff_stats.c).
 * Kernels and scopes are matched by name across the runs, in the first run's order; every run
 * must hold the same ones (a kernel in some runs only would be drawn from fewer runs than the
 * side claims, and runs of other code are no runs of this). Each sample keeps its run and its
 * block (an iteration, or iterations joined) within that run.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* A series of one run, under its name. */
typedef struct member {
    const diff_series *series;
    uint32_t run;
    size_t seq; /* its place in the runs' order: run after run, series after series */
} member;

static int by_name_then_seq(const void *a, const void *b)
{
    const member *x = a, *y = b;
    int c = strcmp(x->series->name, y->series->name);
    if (c) {
        return c;
    }
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A group of members of one name: members[first .. first + count). */
typedef struct group {
    size_t first, count, seq;
} group;

static int by_seq(const void *a, const void *b)
{
    size_t x = ((const group *)a)->seq, y = ((const group *)b)->seq;
    return (x > y) - (x < y);
}

/* `out` (zeroed by the caller) from the members' samples, each block kept as a block of its run. */
static bool pool_series(diff_series *out, const char *name, const member *members, size_t n)
{
    size_t count = 0;
    for (size_t m = 0; m < n; m++) {
        count += members[m].series->samples.count;
        out->skipped += members[m].series->skipped;
    }
    out->name = diff_copy_text(name);
    if (!out->name || !count) {
        return out->name != NULL; /* no samples: out->samples stays empty */
    }
    diff_raw *raw = malloc(count * sizeof *raw);
    if (!raw) {
        return false;
    }
    size_t at = 0;
    for (size_t m = 0; m < n; m++) {
        const diff_samples *s = &members[m].series->samples;
        for (size_t b = 0; b < s->blocks; b++) {
            for (size_t i = s->block_start[b]; i < s->block_start[b + 1]; i++) {
                raw[at++] = (diff_raw){(long long)b, s->by_block[i], members[m].run};
            }
        }
    }
    bool ok = diff_samples_build(raw, count, &out->samples);
    free(raw);
    return ok;
}

/* `name` for a message: at most 64 bytes, cut at a character's start, control characters as '?'
 * (a name from a report must not drive the terminal). */
static void message_name(const char *name, char out[72])
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && n < 64; p++) {
        out[n++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
    }
    while (n && name[n] && ((unsigned char)name[n] & 0xc0) == 0x80) { /* cut inside a character */
        n--;
    }
    out[n] = '\0';
}

/* Where a group (its members in run order) misses a run: a message naming the run that lacks
 * the name and a run that has it. */
static void name_missing(const diff_profile *runs, const member *members, size_t count, const char *what,
                         char *error, size_t error_cap)
{
    size_t missing = count; /* runs 0 .. count - 1 are there unless one is skipped */
    for (size_t j = 0; j < count; j++) {
        if (members[j].run != j) {
            missing = j;
            break;
        }
    }
    char name[72];
    message_name(members[0].series->name, name);
    snprintf(error, error_cap,
             "%s: no %s '%s', which %s has: the reports on one side of a comparison must be runs of the same code",
             runs[missing].file, what, name, runs[members[0].run].file);
}

/* The series of every run (`count_of` and `series_of` give a run's) pooled by name into
 * *out (*out_count of them), in the first run's order; DIFF_BAD_INPUT, with the message in
 * `error`, where a name is not in every run. */
static diff_status pool_all(const diff_profile *runs, size_t n, size_t (*count_of)(const diff_profile *),
                            diff_series *(*series_of)(const diff_profile *), const char *what, diff_series **out,
                            size_t *out_count, char *error, size_t error_cap)
{
    size_t total = 0;
    for (size_t r = 0; r < n; r++) {
        total += count_of(&runs[r]);
    }
    *out = NULL;
    *out_count = 0;
    if (!total) {
        return DIFF_OK;
    }
    member *members = malloc(total * sizeof *members);
    group *groups = malloc(total * sizeof *groups);
    diff_series *series = calloc(total, sizeof *series);
    bool ok = members && groups && series;
    size_t at = 0, group_count = 0;
    for (size_t r = 0; ok && r < n; r++) {
        const diff_series *items = series_of(&runs[r]);
        for (size_t i = 0; i < count_of(&runs[r]); i++, at++) {
            members[at] = (member){&items[i], (uint32_t)r, at};
        }
    }
    if (ok) {
        qsort(members, total, sizeof *members, by_name_then_seq);
        for (size_t i = 0; i < total; i++) {
            if (!i || strcmp(members[i].series->name, members[i - 1].series->name) != 0) {
                groups[group_count++] = (group){i, 0, members[i].seq};
            }
            groups[group_count - 1].count++;
        }
        qsort(groups, group_count, sizeof *groups, by_seq);
        *out_count = group_count; /* zeroed where not filled: freed as empty */
    }
    diff_status status = ok ? DIFF_OK : DIFF_FAILED;
    for (size_t g = 0; status == DIFF_OK && g < group_count; g++) {
        if (groups[g].count != n) {
            name_missing(runs, &members[groups[g].first], groups[g].count, what, error, error_cap);
            status = DIFF_BAD_INPUT;
        }
    }
    for (size_t g = 0; status == DIFF_OK && g < group_count; g++) {
        const member *first = &members[groups[g].first];
        if (!pool_series(&series[g], first->series->name, first, groups[g].count)) {
            status = DIFF_FAILED;
        }
    }
    free(members);
    free(groups);
    *out = series;
    return status;
}

static size_t kernel_count(const diff_profile *p) { return p->kernel_count; }
static diff_series *kernels(const diff_profile *p) { return p->kernels; }
static size_t scope_count(const diff_profile *p) { return p->scope_count; }
static diff_series *scopes(const diff_profile *p) { return p->scopes; }

/* Everything but the series: the first run's settings (taken from it), the runs' names and
 * their counts summed. */
static bool pooled_settings(diff_profile *runs, size_t n, diff_profile *out)
{
    diff_profile *first = &runs[0];
    out->version = first->version;
    out->adapter = first->adapter;
    out->driver = first->driver;
    out->backend = first->backend;
    out->implementation = first->implementation;
    out->strategy = first->strategy;
    out->shader_checks = first->shader_checks;
    first->version = first->adapter = first->driver = first->backend = first->implementation = first->strategy =
        first->shader_checks = NULL;
    out->period_ns = first->period_ns;
    out->quantum_ns = first->quantum_ns;
    out->quantized = first->quantized;
    out->runs = n;
    out->iterations = 0;
    for (size_t r = 0; r < n; r++) {
        const diff_profile *p = &runs[r];
        if (out->iterations < 0 || p->iterations < 0) {
            out->iterations = -1;
        } else if (p->iterations > LLONG_MAX - out->iterations) {
            out->iterations = LLONG_MAX; /* each report may say up to LLONG_MAX */
        } else {
            out->iterations += p->iterations;
        }
        out->dispatches += p->dispatches;
        out->total_readings = p->total_readings > out->total_readings ? p->total_readings : out->total_readings;
        out->invalid += p->invalid;
        out->scope_instances += p->scope_instances;
        out->invalid_scopes += p->invalid_scopes;
    }
    /* One partial run makes the side partial: the first one named, with its reason. */
    for (size_t r = 0; r < n && !out->partial; r++) {
        if (runs[r].partial) {
            size_t cap = strlen(runs[r].file) + strlen(runs[r].partial) + 3;
            out->partial = malloc(cap);
            if (!out->partial) {
                return false;
            }
            snprintf(out->partial, cap, "%s: %s", runs[r].file, runs[r].partial);
        }
    }
    out->file = diff_copy_text(first->file);
    out->files = calloc(n, sizeof *out->files);
    if (!out->file || !out->files) {
        return false;
    }
    for (size_t r = 0; r < n; r++) {
        out->files[r] = runs[r].file;
        runs[r].file = NULL;
    }
    return true;
}

static void free_runs(diff_profile *runs, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        diff_profile_free(&runs[r]);
    }
}

diff_status diff_merge_runs(diff_profile *runs, size_t n, diff_profile *out, char *error, size_t error_cap)
{
    memset(out, 0, sizeof *out);
    if (n == 1) {
        *out = runs[0];
        memset(&runs[0], 0, sizeof runs[0]);
        return DIFF_OK;
    }
    if (!n || n > DIFF_MAX_RUNS) {
        snprintf(error, error_cap, "%zu reports on one side: from 1 to %d", n, DIFF_MAX_RUNS);
        free_runs(runs, n);
        return DIFF_BAD_INPUT;
    }
    for (size_t r = 1; r < n; r++) {
        diff_difference d = {0};
        if (diff_settings_differ(&runs[0], &runs[r], &d, 1)) {
            snprintf(error, error_cap,
                     "%s: its %s is %s where %s's is %s: the reports on one side of a comparison must be runs of "
                     "one setting",
                     runs[r].file, d.what, d.new_, runs[0].file, d.base);
            free_runs(runs, n);
            return DIFF_BAD_INPUT;
        }
    }
    diff_status status = pool_all(runs, n, kernel_count, kernels, "kernel", &out->kernels, &out->kernel_count,
                                  error, error_cap);
    if (status == DIFF_OK) {
        status = pool_all(runs, n, scope_count, scopes, "scope", &out->scopes, &out->scope_count, error, error_cap);
    }
    if (status == DIFF_OK && !pooled_settings(runs, n, out)) {
        status = DIFF_FAILED;
    }
    if (status == DIFF_OK) {
        member totals[DIFF_MAX_RUNS];
        for (size_t r = 0; r < n; r++) {
            totals[r] = (member){&runs[r].total, (uint32_t)r, r};
        }
        status = pool_series(&out->total, "total", totals, n) ? DIFF_OK : DIFF_FAILED;
    }
    free_runs(runs, n);
    if (status != DIFF_OK) {
        diff_profile_free(out);
    }
    if (status == DIFF_FAILED) {
        snprintf(error, error_cap, "pooling %zu reports: out of memory", n);
    }
    return status;
}
