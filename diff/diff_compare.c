/*
 * Two profiles into the rows of a comparison (diff.h): kernels matched by name in the base's
 * order, then those only the new report has; the per-iteration total; the scopes likewise by
 * path. Each pair with enough samples gets its ratio, interval and verdict; each row its own
 * seed, drawn from the seed given and its name, so that a row's interval does not depend on the
 * other rows. Also the settings in which the two runs differ.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

void diff_default_options(diff_options *o)
{
    *o = (diff_options){.threshold = DIFF_DEFAULT_THRESHOLD,
                        .fail_if_slower = -1,
                        .seed = DIFF_DEFAULT_SEED,
                        .resamples = DIFF_DEFAULT_RESAMPLES,
                        .confidence = DIFF_CONFIDENCE};
}

/* A row's seed: the seed given, the row's kind and name, mixed (FNV-1a, then a splitmix64 step). */
static uint64_t row_seed(uint64_t seed, diff_kind kind, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)kind;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h ^ *p) * 0x100000001b3ull;
    }
    uint64_t z = seed ^ h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static diff_side side_of(const diff_series *s)
{
    diff_side d = {false, 0, 0, 0, NAN};
    if (s) {
        d = (diff_side){true, s->samples.count, s->skipped, s->samples.runs,
                        diff_median(s->samples.sorted, s->samples.count)};
    }
    return d;
}

static bool fill_row(diff_row *row, diff_kind kind, const char *name, const diff_series *base,
                     const diff_series *new_, const diff_options *o)
{
    row->kind = kind;
    row->name = name;
    row->base = side_of(base);
    row->new_ = side_of(new_);
    row->iv = (diff_interval){NAN, NAN, NAN};
    row->fails = false;
    if (!base || !new_) {
        row->verdict = base ? DIFF_REMOVED : DIFF_ADDED;
        return true;
    }
    if (base->samples.count < DIFF_MIN_SAMPLES || new_->samples.count < DIFF_MIN_SAMPLES) {
        row->verdict = DIFF_TOO_FEW;
        /* the point estimate, without an interval (none where a side has no sample) */
        diff_ratio_interval(&base->samples, &new_->samples, 0, o->confidence, 0, &row->iv);
        return true;
    }
    if (!diff_ratio_interval(&base->samples, &new_->samples, o->resamples, o->confidence,
                             row_seed(o->seed, kind, row->name), &row->iv)) {
        return false;
    }
    row->verdict = diff_verdict_of(&row->iv, o->threshold);
    row->fails = kind != DIFF_SCOPE && o->fail_if_slower >= 0 && row->iv.lo > 1.0 + o->fail_if_slower;
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
static bool add_rows(diff_result *r, diff_kind kind, const diff_series *base, size_t base_n, const diff_series *new_,
                     size_t new_n)
{
    const diff_series **order = name_order(new_, new_n);
    bool *matched = new_n ? calloc(new_n, sizeof *matched) : NULL;
    bool ok = !new_n || (order && matched);
    for (size_t i = 0; ok && i < base_n; i++) {
        size_t j = find_name(new_, order, new_n, base[i].name);
        if (j < new_n) {
            matched[j] = true;
        }
        ok = fill_row(&r->rows[r->row_count++], kind, base[i].name, &base[i], j < new_n ? &new_[j] : NULL,
                      &r->options);
    }
    for (size_t j = 0; ok && j < new_n; j++) {
        if (!matched[j]) {
            ok = fill_row(&r->rows[r->row_count++], kind, new_[j].name, NULL, &new_[j], &r->options);
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

diff_status diff_compare(const diff_profile *base, const diff_profile *new_, const diff_options *o, diff_result *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->new_ = new_;
    out->options = *o;
    size_t most = base->kernel_count + new_->kernel_count + 1 + base->scope_count + new_->scope_count;
    out->rows = malloc(most * sizeof *out->rows);
    if (!out->rows) {
        return DIFF_FAILED;
    }
    bool ok = add_rows(out, DIFF_KERNEL, base->kernels, base->kernel_count, new_->kernels, new_->kernel_count);
    if (ok) {
        ok = fill_row(&out->rows[out->row_count++], DIFF_TOTAL, "total", &base->total, &new_->total, o);
    }
    ok = ok && add_rows(out, DIFF_SCOPE, base->scopes, base->scope_count, new_->scopes, new_->scope_count);
    if (!ok) {
        diff_result_free(out);
        return DIFF_FAILED;
    }
    for (size_t i = 0; i < out->row_count; i++) {
        out->failed = out->failed || out->rows[i].fails;
    }
    out->difference_count = diff_settings_differ(base, new_, out->differences, DIFF_MAX_DIFFERENCES);
    return DIFF_OK;
}

void diff_result_free(diff_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}
