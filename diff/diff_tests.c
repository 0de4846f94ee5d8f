/*
 * The tests that stand beside a comparison's interval (diff.h), pure: the Mann-Whitney rank test
 * (over the medians of whole runs, which the machine's speed moves as a whole), Holm's correction
 * for the many rows of one comparison, and what a side's runs say on their own: each run's
 * median and whether the runs disagree by more than each one's own noise allows.
 *
 * The rank test's exact null distribution, for few values and no ties, is that of the
 * Mann-Whitney U: the coefficients of the Gaussian binomial [m + n choose m] in q, built as the
 * product over i = 1..m of (1 - q^(n + i)) / (1 - q^i), each partial product a polynomial.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* The exact test up to this many values on both sides together (a polynomial of at most
 * (EXACT_MAX / 2)^2 + 1 terms). */
enum { EXACT_MAX = 40 };

typedef struct ranked {
    double v;
    int side; /* 0: a, 1: b */
} ranked;

static int by_value(const void *x, const void *y)
{
    double a = ((const ranked *)x)->v, b = ((const ranked *)y)->v;
    return (a > b) - (a < b);
}

/* P(U <= u) and P(U >= u) for U of m and n values without ties, exactly. */
static bool exact_tails(size_t m, size_t n, double u, double *below, double *above)
{
    size_t top = m * n;
    double *c = calloc(top + 1, sizeof *c);
    if (!c) {
        return false;
    }
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        for (size_t k = top; k >= n + i; k--) { /* times (1 - q^(n + i)) */
            c[k] -= c[k - (n + i)];
        }
        for (size_t k = i; k <= top; k++) { /* over (1 - q^i) */
            c[k] += c[k - i];
        }
    }
    double all = 0, low = 0, high = 0;
    for (size_t k = 0; k <= top; k++) {
        all += c[k];
        low += (double)k <= u + 1e-9 ? c[k] : 0;
        high += (double)k >= u - 1e-9 ? c[k] : 0;
    }
    free(c);
    *below = low / all;
    *above = high / all;
    return true;
}

double diff_rank_test(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = 0;
    ranked *all = malloc((na + nb ? na + nb : 1) * sizeof *all);
    if (!all) {
        return NAN;
    }
    size_t m1 = 0, m2 = 0;
    for (size_t i = 0; i < na; i++) {
        if (!isnan(a[i])) {
            all[n++] = (ranked){a[i], 0};
            m1++;
        }
    }
    for (size_t i = 0; i < nb; i++) {
        if (!isnan(b[i])) {
            all[n++] = (ranked){b[i], 1};
            m2++;
        }
    }
    if (!m1 || !m2) {
        free(all);
        return 1.0;
    }
    qsort(all, n, sizeof *all, by_value);
    /* The rank sum of a's values, ties at their mid rank, and the ties' correction. */
    double rank_sum = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].v == all[i].v) {
            j++;
        }
        double t = (double)(j - i), mid = 0.5 * (double)(i + 1 + j);
        for (size_t k = i; k < j; k++) {
            rank_sum += all[k].side == 0 ? mid : 0;
        }
        ties += t * t * t - t;
        i = j;
    }
    free(all);
    double u = rank_sum - (double)m1 * (double)(m1 + 1) / 2, mean = (double)m1 * (double)m2 / 2;
    if (ties == 0 && n <= EXACT_MAX) {
        double below, above;
        if (exact_tails(m1, m2, u, &below, &above)) {
            double p = 2 * (below < above ? below : above);
            return p < 1 ? p : 1.0;
        }
    }
    double nn = (double)n;
    double var = (double)m1 * (double)m2 / 12 * ((nn + 1) - ties / (nn * (nn - 1)));
    if (!(var > 0)) {
        return 1.0; /* every value equal */
    }
    double z = (fabs(u - mean) - 0.5) / sqrt(var);
    if (z <= 0) {
        return 1.0;
    }
    double p = erfc(z / sqrt(2.0));
    return p < 1 ? p : 1.0;
}

double diff_rank_floor(size_t na, size_t nb)
{
    if (!na || !nb) {
        return 1.0;
    }
    if (na + nb > EXACT_MAX) {
        return 0.0; /* as small as the normal tail goes */
    }
    double ways = 1; /* (na + nb) choose na */
    for (size_t k = 1; k <= na; k++) {
        ways = ways * (double)(nb + k) / (double)k;
    }
    return fmin(1.0, 2 / ways);
}

typedef struct indexed {
    double p;
    size_t at;
} indexed;

static int by_p(const void *x, const void *y)
{
    double a = ((const indexed *)x)->p, b = ((const indexed *)y)->p;
    return (a > b) - (a < b);
}

void diff_holm(const double *p, size_t n, double *adjusted)
{
    indexed *order = malloc((n ? n : 1) * sizeof *order);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        adjusted[i] = NAN;
        if (order && !isnan(p[i])) {
            order[m++] = (indexed){p[i], i};
        }
    }
    if (!order) {
        /* Out of memory: Bonferroni, which Holm's never exceeds, needs no order. */
        size_t tested = 0;
        for (size_t i = 0; i < n; i++) {
            tested += !isnan(p[i]);
        }
        for (size_t i = 0; i < n; i++) {
            adjusted[i] = isnan(p[i]) ? NAN : fmin(1.0, p[i] * (double)tested);
        }
        return;
    }
    qsort(order, m, sizeof *order, by_p);
    double running = 0;
    for (size_t k = 0; k < m; k++) {
        double v = fmin(1.0, order[k].p * (double)(m - k));
        running = v > running ? v : running; /* never below an earlier, smaller p's */
        adjusted[order[k].at] = running;
    }
    free(order);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The samples of blocks [first, last) of `s` into `out`, sorted; how many. */
static size_t gather(const diff_samples *s, size_t first, size_t last, double *out)
{
    size_t from = s->block_start[first], to = s->block_start[last];
    memcpy(out, s->by_block + from, (to - from) * sizeof *out);
    qsort(out, to - from, sizeof *out, compare_doubles);
    return to - from;
}

bool diff_run_medians(const diff_samples *s, double *medians)
{
    double *v = malloc((s->count ? s->count : 1) * sizeof *v);
    if (!v) {
        return false;
    }
    for (size_t r = 0; r < s->runs; r++) {
        size_t n = gather(s, s->run_start[r], s->run_start[r + 1], v);
        medians[r] = diff_median(v, n);
    }
    free(v);
    return true;
}

void diff_block_medians(const diff_samples *s, double *medians)
{
    for (size_t b = 0; b < s->blocks; b++) {
        size_t start = s->block_start[b]; /* each block's samples are sorted */
        medians[b] = diff_median(s->by_block + start, s->block_start[b + 1] - start);
    }
}

/* Run r's own interval of its median: its blocks drawn with replacement, as many as it has. */
static void run_interval(const diff_samples *s, size_t r, unsigned resamples, double confidence, uint64_t rng[4],
                         double *draws, double *lo, double *hi)
{
    size_t first = s->run_start[r], n = s->run_start[r + 1] - first;
    uint32_t w[DIFF_MAX_BLOCKS];
    for (unsigned k = 0; k < resamples; k++) {
        memset(w, 0, sizeof w);
        for (size_t j = 0; j < n; j++) {
            size_t pick = first + (size_t)(diff_uniform(rng) * (double)n);
            w[pick < first + n ? pick : first + n - 1]++;
        }
        draws[k] = diff_weighted_median(s, w);
    }
    qsort(draws, resamples, sizeof *draws, compare_doubles);
    *lo = diff_quantile(draws, resamples, (1 - confidence) / 2);
    *hi = diff_quantile(draws, resamples, (1 + confidence) / 2);
}

bool diff_runs_disagree(const diff_samples *s, double threshold, unsigned resamples, double confidence, uint64_t seed)
{
    if (s->runs < 2 || resamples < 2) {
        return false;
    }
    double *medians = malloc(s->runs * sizeof *medians), *lo = malloc(s->runs * sizeof *lo),
           *hi = malloc(s->runs * sizeof *hi), *draws = malloc(resamples * sizeof *draws);
    bool disagree = false;
    if (medians && lo && hi && draws && diff_run_medians(s, medians)) {
        uint64_t rng[4];
        diff_rng_seed(rng, seed);
        for (size_t r = 0; r < s->runs; r++) {
            run_interval(s, r, resamples, confidence, rng, draws, &lo[r], &hi[r]);
        }
        for (size_t i = 0; i < s->runs && !disagree; i++) {
            for (size_t j = 0; j < s->runs && !disagree; j++) {
                disagree = lo[i] > hi[j] && medians[i] > medians[j] * (1 + threshold);
            }
        }
    }
    free(medians);
    free(lo);
    free(hi);
    free(draws);
    return disagree;
}
