/*
 * Two profiles into the rows of a comparison (diff.h): kernels matched by name in the base's
 * order, then those only the new report has; the per-iteration total; the scopes likewise by
 * path. Each row gets its sides' figures (median, quartiles, the runs' medians and whether they
 * disagree); each pair with enough samples its ratio, interval and p-value (diff_common.c, which
 * also takes out the machine's speed), then Holm's correction over every row tested and the
 * verdicts. Also the geometric mean of the kernels' changes and the settings in which the two
 * runs differ.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "diff.h"

/* The resamples of each run's own interval, for whether a side's runs disagree. */
enum { RUN_RESAMPLES = 400 };

void diff_default_options(diff_options *o)
{
    *o = (diff_options){.threshold = DIFF_DEFAULT_THRESHOLD,
                        .fail_if_slower = -1,
                        .seed = DIFF_DEFAULT_SEED,
                        .resamples = DIFF_DEFAULT_RESAMPLES,
                        .confidence = DIFF_CONFIDENCE};
}

/* A side's figures; its runs' medians where it has several (into the result's ownership). */
static bool side_of(const diff_series *s, const diff_options *o, diff_side *d)
{
    *d = (diff_side){false, 0, 0, 0, NAN, NAN, NAN, NULL, false};
    if (!s) {
        return true;
    }
    const diff_samples *x = &s->samples;
    *d = (diff_side){true, x->count, s->skipped, x->runs, diff_median(x->sorted, x->count),
                     diff_quantile(x->sorted, x->count, 0.25), diff_quantile(x->sorted, x->count, 0.75), NULL, false};
    if (x->runs > 1) {
        d->run_medians = malloc(x->runs * sizeof *d->run_medians);
        if (!d->run_medians || !diff_run_medians(x, d->run_medians)) {
            return false;
        }
        unsigned resamples = o->resamples < RUN_RESAMPLES ? o->resamples : RUN_RESAMPLES;
        d->runs_disagree = diff_runs_disagree(x, o->threshold, resamples, o->confidence, o->seed);
    }
    return true;
}

/* A row's sides, its point ratio (or, over a base median of 0, its change in ns) and, where it
 * cannot be tested, its verdict; diff_common_apply then gives the tested rows their intervals. */
static bool fill_row(const diff_result *r, diff_row *row, diff_pair *pair, diff_kind kind, const char *name,
                     const diff_series *base, const diff_series *new_)
{
    const diff_options *o = &r->options;
    *row = (diff_row){.kind = kind, .name = name, .p = NAN, .p_holm = NAN, .rank_p = NAN, .rank_floor = NAN,
                      .base_below_ns = NAN, .absolute = {NAN, NAN, NAN}};
    row->reference = kind == DIFF_KERNEL && strcmp(name, WGPROF_REFERENCE_KERNEL) == 0;
    *pair = (diff_pair){base, new_};
    row->iv = row->raw = (diff_interval){NAN, NAN, NAN};
    if (!side_of(base, o, &row->base) || !side_of(new_, o, &row->new_)) {
        return false;
    }
    if (!base || !new_) {
        row->verdict = base ? DIFF_REMOVED : DIFF_ADDED;
        return true;
    }
    /* the point estimate, without an interval (none where a side has no sample) */
    diff_ratio_interval(&base->samples, &new_->samples, 0, o->confidence, 0, &row->raw);
    double p_unused;
    diff_absolute_interval(&base->samples, &new_->samples, 0, o->confidence, 0, 0, &row->absolute, &p_unused);
    /* A base median of 0: the base's dispatches took less than the timer can tell, and a ratio
     * over 0 tells nothing (it was +inf, which no p-value could test: such a row read no change
     * whatever the new side did). Its change is read in ns, against what the base can have been:
     * below one tick, or one a dispatch for the total, a sum of an iteration's dispatches. */
    row->zero_base = row->base.count && row->new_.count && row->base.median_ns == 0;
    if (row->zero_base) {
        row->raw.ratio = NAN;
        size_t readings = kind == DIFF_TOTAL && r->base->total_readings > 1 ? r->base->total_readings : 1;
        row->base_below_ns = r->base_tick_ns * (double)readings;
    }
    row->iv = row->raw;
    row->verdict = base->samples.count < DIFF_MIN_SAMPLES || new_->samples.count < DIFF_MIN_SAMPLES ? DIFF_TOO_FEW
                                                                                                    : DIFF_NO_CHANGE;
    return true;
}

/* ---- matching by name ---- */

static int compare_by_name(const void *a, const void *b)
{
    return strcmp((*(const diff_series *const *)a)->name, (*(const diff_series *const *)b)->name);
}

/* `items` in order of their names; NULL when out of memory (or for none). */
static const diff_series **name_order(const diff_series *items, size_t n)
{
    const diff_series **order = n ? malloc(n * sizeof *order) : NULL;
    if (!order) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        order[i] = &items[i];
    }
    qsort(order, n, sizeof *order, compare_by_name);
    return order;
}

/* The index in `items` of the one named `name`, found in `order` from name_order(); n for none. */
static size_t find_name(const diff_series *items, const diff_series *const *order, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(order[mid]->name, name);
        if (c == 0) {
            return (size_t)(order[mid] - items);
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return n;
}

/* Appends the rows of one kind: base's series in order (matched or removed), then new's that
 * were not matched. */
static bool add_rows(diff_result *r, diff_pair *pairs, diff_kind kind, const diff_series *base, size_t base_n,
                     const diff_series *new_, size_t new_n)
{
    const diff_series **order = name_order(new_, new_n);
    bool *matched = new_n ? calloc(new_n, sizeof *matched) : NULL;
    bool ok = !new_n || (order && matched);
    for (size_t i = 0; ok && i < base_n; i++) {
        size_t j = find_name(new_, order, new_n, base[i].name);
        if (j < new_n) {
            matched[j] = true;
        }
        size_t at = r->row_count++;
        ok = fill_row(r, &r->rows[at], &pairs[at], kind, base[i].name, &base[i], j < new_n ? &new_[j] : NULL);
    }
    for (size_t j = 0; ok && j < new_n; j++) {
        if (!matched[j]) {
            size_t at = r->row_count++;
            ok = fill_row(r, &r->rows[at], &pairs[at], kind, new_[j].name, NULL, &new_[j]);
        }
    }
    free(order);
    free(matched);
    return ok;
}

/* ---- the settings ---- */

/* `s` into `out`, cut where it does not fit at the start of a character: a cut inside one
 * would leave invalid UTF-8, which the JSON writer (and so the HTML page) refuses. */
static void copy_clipped(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n >= cap) {
        n = cap - 1;
        while (n && ((unsigned char)s[n] & 0xc0) == 0x80) { /* s[n] continues a character */
            n--;
        }
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The differences found so far, and room for `cap`. */
typedef struct differences {
    diff_difference *items;
    size_t count, cap;
} differences;

static void add_difference(differences *d, const char *what, const char *base, const char *new_)
{
    if (strcmp(base, new_) == 0 || d->count >= d->cap) {
        return;
    }
    diff_difference *item = &d->items[d->count++];
    item->what = what;
    copy_clipped(item->base, sizeof item->base, base[0] ? base : "(none)");
    copy_clipped(item->new_, sizeof item->new_, new_[0] ? new_ : "(none)");
}

static void format_period(const diff_profile *p, char *out, size_t cap)
{
    if (isnan(p->period_ns)) {
        snprintf(out, cap, "varies");
    } else {
        snprintf(out, cap, "%.9g ns", p->period_ns);
    }
}

static void format_quantum(const diff_profile *p, char *out, size_t cap)
{
    if (p->quantized) {
        snprintf(out, cap, "quantized to %.9g ns", p->quantum_ns);
    } else {
        snprintf(out, cap, "not quantized");
    }
}

size_t diff_settings_differ(const diff_profile *a, const diff_profile *b, diff_difference *out, size_t cap)
{
    differences d = {out, 0, cap};
    add_difference(&d, "adapter", a->adapter, b->adapter);
    add_difference(&d, "driver", a->driver, b->driver);
    add_difference(&d, "backend", a->backend, b->backend);
    add_difference(&d, "implementation", a->implementation, b->implementation);
    add_difference(&d, "strategy", a->strategy, b->strategy);
    char x[64], y[64];
    format_period(a, x, sizeof x);
    format_period(b, y, sizeof y);
    add_difference(&d, "timestamp period", x, y);
    format_quantum(a, x, sizeof x);
    format_quantum(b, y, sizeof y);
    add_difference(&d, "timestamps", x, y);
    add_difference(&d, "shader checks", a->shader_checks[0] ? a->shader_checks : "default",
                   b->shader_checks[0] ? b->shader_checks : "default");
    add_difference(&d, "wgprof version", a->version, b->version);
    return d.count;
}

/* Holm's correction over the tested rows (and the common change), then each row's verdict and
 * whether it fails the gate. */
static bool judge(diff_result *r)
{
    size_t n = r->row_count + 1;
    double *p = malloc(n * sizeof *p), *adjusted = malloc(n * sizeof *adjusted);
    if (!p || !adjusted) {
        free(p);
        free(adjusted);
        return false;
    }
    for (size_t i = 0; i < r->row_count; i++) {
        p[i] = r->rows[i].p;
    }
    p[r->row_count] = r->separated ? r->common.p : NAN;
    diff_holm(p, n, adjusted);
    r->tested = 0;
    for (size_t i = 0; i < n; i++) {
        r->tested += !isnan(p[i]);
    }
    const diff_options *o = &r->options;
    double alpha = 1 - o->confidence;
    for (size_t i = 0; i < n; i++) {
        diff_row *row = i < r->row_count ? &r->rows[i] : &r->common;
        if (isnan(p[i])) {
            continue;
        }
        row->p_holm = adjusted[i];
        /* The runs' ranks agree where their test can say so: a bootstrap of a few runs draws
         * from them alone, and its interval is narrower than runs that move apart allow. */
        bool ranks_agree = isnan(row->rank_p) || row->rank_floor >= alpha || row->rank_p < alpha;
        diff_verdict v = row->zero_base ? diff_absolute_verdict(&row->absolute, row->base_below_ns, o->threshold)
                                        : diff_verdict_of(&row->iv, o->threshold);
        row->verdict = row->p_holm < alpha && ranks_agree ? v : DIFF_NO_CHANGE;
        bool gated = (row->kind == DIFF_KERNEL && !row->reference) || row->kind == DIFF_TOTAL ||
                     (row->kind == DIFF_COMMON && (o->gate_common || r->common_not_machine));
        /* Over a base median of 0: the new side longer than the base can have been by more than
         * the gate allows. */
        bool beyond = row->zero_base ? row->absolute.lo_ns > row->base_below_ns * (1.0 + o->fail_if_slower)
                                     : row->iv.lo > 1.0 + o->fail_if_slower;
        row->fails = gated && o->fail_if_slower >= 0 && row->verdict == DIFF_SLOWER && beyond;
        /* Which group changed too close to call (asked to read it both ways): read the other way,
         * the common group's kernels are slower against a rival kernel faster than them, by as
         * much. */
        row->fails_reversed = o->gate_both_ways && r->common_unsure && row->kind == DIFF_KERNEL && row->in_rival &&
                              !row->reference && o->fail_if_slower >= 0 && row->verdict == DIFF_FASTER &&
                              row->iv.hi < 1.0 / (1.0 + o->fail_if_slower);
        r->failed = r->failed || row->fails || row->fails_reversed;
    }
    free(p);
    free(adjusted);
    return true;
}

/* The geometric mean of the kernels' measured ratios, over those compared. */
static double geomean_of(const diff_result *r)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        const diff_row *row = &r->rows[i];
        if (row->kind == DIFF_KERNEL && !row->reference && !isnan(row->p) && row->raw.ratio > 0 &&
            isfinite(row->raw.ratio)) {
            sum += log(row->raw.ratio);
            n++;
        }
    }
    return n ? exp(sum / (double)n) : NAN;
}

diff_status diff_compare(const diff_profile *base, const diff_profile *new_, const diff_options *o, diff_result *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->new_ = new_;
    out->options = *o;
    out->common = (diff_row){.kind = DIFF_COMMON, .name = "common", .verdict = DIFF_TOO_FEW, .p = NAN,
                             .p_holm = NAN, .rank_p = NAN, .rank_floor = NAN};
    out->common.iv = out->common.raw = (diff_interval){NAN, NAN, NAN};
    out->common.absolute = (diff_absolute){NAN, NAN, NAN};
    out->common.base_below_ns = NAN;
    /* One tick of the base's timer: a quantum where one shows (a step coarser than a tick), else
     * its period; 0 where its batches' periods differ. */
    out->base_tick_ns = base->quantum_ns > 0                                ? base->quantum_ns
                        : base->period_ns > 0 && isfinite(base->period_ns) ? base->period_ns
                                                                           : 0;
    out->common.base.median_ns = out->common.new_.median_ns = NAN;
    out->geomean = NAN;
    out->common_support = NAN;
    size_t most = base->kernel_count + new_->kernel_count + 1 + base->scope_count + new_->scope_count;
    out->rows = calloc(most, sizeof *out->rows);
    diff_pair *pairs = calloc(most, sizeof *pairs);
    bool ok = out->rows && pairs;
    ok = ok && add_rows(out, pairs, DIFF_KERNEL, base->kernels, base->kernel_count, new_->kernels, new_->kernel_count);
    if (ok) {
        size_t at = out->row_count++;
        ok = fill_row(out, &out->rows[at], &pairs[at], DIFF_TOTAL, "total", &base->total, &new_->total);
    }
    ok = ok && add_rows(out, pairs, DIFF_SCOPE, base->scopes, base->scope_count, new_->scopes, new_->scope_count);
    ok = ok && diff_common_apply(out, pairs) && judge(out);
    free(pairs);
    if (!ok) {
        diff_result_free(out);
        return DIFF_FAILED;
    }
    out->geomean = geomean_of(out);
    out->difference_count = diff_settings_differ(base, new_, out->differences, DIFF_MAX_DIFFERENCES);
    return DIFF_OK;
}

void diff_result_free(diff_result *r)
{
    for (size_t i = 0; r->rows && i < r->row_count; i++) {
        free(r->rows[i].base.run_medians);
        free(r->rows[i].new_.run_medians);
    }
    free(r->rows);
    free(r->base_speed);
    free(r->new_speed);
    memset(r, 0, sizeof *r);
}
