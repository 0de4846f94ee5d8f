/*
 * The statistics of wgprof diff (diff.h), pure: no I/O, no state but the caller's generator.
 *
 * The interval is a percentile bootstrap of the ratio of two medians, each side resampled on
 * its own, at its own size.
 *
 * Blocks. The dispatches of one iteration are not independent: a kernel repeated within an
 * iteration runs under the same conditions (the same other load on the machine, the same
 * caches), so its durations move together, and a bootstrap that resampled them one by one
 * would give too narrow an interval. A side of DIFF_MIN_BLOCKS iterations or more is resampled
 * a whole iteration at a time: as many iterations as it has, drawn with replacement, and the
 * median taken over every sample of those drawn. Past DIFF_MAX_BLOCKS iterations, consecutive
 * ones are joined into DIFF_MAX_BLOCKS blocks. The resample's median is found without forming
 * the resample: with w_b the times block b was drawn, the k-th smallest value of the resample is
 * the smallest sample v for which sum_b w_b * #{x in b : x <= v} >= k. Either a walk up the
 * sorted samples adding the weight of each one's block finds it (about count / 2 steps), or a
 * binary search over the sorted samples that counts in each block by binary search
 * (O(blocks log count) a resample), whichever costs less for the side's sizes.
 *
 * Runs. A side of several reports (the runs of one setting, diff_runs.c) is resampled at two
 * levels: as many runs as it has, drawn with replacement, and for each run drawn, as many of
 * its blocks as it has, drawn from it with replacement; the median is then taken as above. One
 * run cannot show a shift that every one of its samples shares (another process's load, where
 * the memory landed): the runs drawn can. k runs drawn from k spread, on average, (k - 1) / k as
 * much as runs drawn afresh would (the bootstrap's variance of a mean of k), which matters at
 * the 3 to 10 runs a side that people make: each resample's median is moved from the side's
 * median by sqrt(k / (k - 1)) times its distance (the rescaling of Rao and Wu, 1988), and kept
 * at 0 or more. Drawing again within the runs drawn adds their inner variation once more, which
 * leaves the interval a little wider still: on the side of no false alarm. A run's blocks are
 * its iterations, at most DIFF_MAX_BLOCKS / runs of them.
 *
 * One by one. A side of fewer iterations (one long iteration, a report of a single submit) is
 * resampled a sample at a time, and the median of the resample drawn from its exact
 * distribution in O(1): a resample is n draws x_(ceil(n U_i)) from the sorted sample x_(1..n),
 * U_i uniform on (0, 1]. The map u -> x_(ceil(n u)) never decreases, so the resample's k-th
 * smallest value is x_(ceil(n U_(k))), with U_(k) the k-th smallest of n uniforms, which is a
 * Beta(k, n + 1 - k) variate. For odd n the median is that for k = (n + 1) / 2. For even n it
 * is the mean of the k-th and (k + 1)-th, k = n / 2: given U_(k) = u, the other n - k uniforms
 * are uniform on (u, 1), and the smallest of them is u + (1 - u) M with M ~ Beta(1, n - k).
 * Beta variates come from two gamma variates (Marsaglia and Tsang's method), normals from Box
 * and Muller, uniforms from xoshiro256** seeded through splitmix64.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* ---- the generator ---- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void diff_rng_seed(uint64_t rng[4], uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        rng[i] = splitmix64(&seed);
    }
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform on (0, 1): never 0, never 1. */
static double uniform(uint64_t s[4]) { return ((double)(next_u64(s) >> 11) + 0.5) * 0x1.0p-53; }

double diff_uniform(uint64_t rng[4]) { return uniform(rng); }

static double normal(uint64_t s[4])
{
    double u = uniform(s), v = uniform(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang, 2000). */
static double gamma_variate(double shape, uint64_t s[4])
{
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = normal(s), v = 1.0 + c * x;
        if (v <= 0) {
            continue;
        }
        v = v * v * v;
        double u = uniform(s), x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) {
            return d * v;
        }
    }
}

/* Beta(a, b) for a, b >= 1. */
static double beta_variate(double a, double b, uint64_t s[4])
{
    double x = gamma_variate(a, s), y = gamma_variate(b, s);
    return x / (x + y);
}

/* The 0-based index ceil(n u) - 1, within [0, n). */
static size_t rank_of(double u, size_t n)
{
    double r = ceil((double)n * u) - 1.0;
    if (!(r > 0)) {
        return 0;
    }
    return r >= (double)(n - 1) ? n - 1 : (size_t)r;
}

/* The k-th smallest value of a resample, and with `frac` above 0 the (k+1)-th too, combined as
 * the p-quantile is: (1 - frac) of the one and frac of the other (for the median of an even
 * count, frac 0.5: their mean, exactly). */
static double between(double kth, double next, double frac) { return frac > 0 ? (1 - frac) * kth + frac * next : kth; }

/* The p-quantile of a resample drawn a sample at a time (see the top of the file): with
 * h = (n - 1) p, the k-th smallest, k = floor(h) + 1, and where h is not whole the next. */
static double sample_quantile(const double *sorted, size_t n, double p, uint64_t rng[4])
{
    if (n <= 1) {
        return n ? sorted[0] : NAN;
    }
    double h = (double)(n - 1) * p;
    size_t k = (size_t)h + 1;
    double frac = h - (double)(k - 1);
    double u = beta_variate((double)k, (double)(n + 1 - k), rng);
    if (!(frac > 0) || k >= n) {
        return sorted[rank_of(u, n)];
    }
    double m = -expm1(log(uniform(rng)) / (double)(n - k)); /* Beta(1, n - k) */
    double next = u + (1.0 - u) * m;
    return between(sorted[rank_of(u, n)], sorted[rank_of(next, n)], frac);
}

/* How many of the n sorted values at `v` are at most `x`. */
static size_t count_at_most(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* The k-th smallest (1-based) value of the resample that holds block b w[b] times. */
static double weighted_rank(const diff_samples *s, const uint32_t *w, uint64_t k)
{
    size_t lo = 0, hi = s->count - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double v = s->sorted[mid];
        uint64_t at_most = 0;
        for (size_t b = 0; b < s->blocks; b++) {
            if (w[b]) {
                size_t start = s->block_start[b];
                at_most += (uint64_t)w[b] * count_at_most(s->by_block + start, s->block_start[b + 1] - start, v);
            }
        }
        if (at_most >= k) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return s->sorted[lo];
}

/* The k-th and (k+1)-th smallest values of the resample, walking up the sorted samples. */
static void walked_ranks(const diff_samples *s, const uint32_t *w, uint64_t k, double *kth, double *next)
{
    uint64_t at = 0;
    size_t i = 0;
    for (; i < s->count; i++) {
        at += w[s->block_of[i]];
        if (at >= k) {
            break;
        }
    }
    *kth = s->sorted[i < s->count ? i : s->count - 1];
    for (; at < k + 1 && i + 1 < s->count;) {
        at += w[s->block_of[++i]];
    }
    *next = s->sorted[i];
}

/* Whether walking the samples costs less than the binary search (about count / 2 steps against
 * log2(count) steps of blocks binary searches of log2(count / blocks) each). */
static bool walk_cheaper(const diff_samples *s)
{
    double n = (double)s->count, per_block = n / (double)s->blocks;
    return n / 2 < log2(n + 1) * (double)s->blocks * log2(per_block + 1);
}

double diff_weighted_quantile(const diff_samples *s, const uint32_t *w, double p)
{
    uint64_t total = 0;
    for (size_t b = 0; b < s->blocks; b++) {
        total += (uint64_t)w[b] * (s->block_start[b + 1] - s->block_start[b]);
    }
    if (!total) {
        return NAN;
    }
    double h = (double)(total - 1) * p;
    uint64_t k = (uint64_t)h + 1;
    double frac = k < total ? h - (double)(k - 1) : 0;
    double kth, next;
    if (walk_cheaper(s)) {
        walked_ranks(s, w, k, &kth, &next);
    } else {
        kth = weighted_rank(s, w, k);
        next = frac > 0 ? weighted_rank(s, w, k + 1) : kth;
    }
    return between(kth, next, frac);
}

double diff_weighted_median(const diff_samples *s, const uint32_t *w) { return diff_weighted_quantile(s, w, 0.5); }

/* Block b's weight: how many times it was drawn, a whole block at a time (see the top of the
 * file), into w (zeroed by the caller). */
static void draw_blocks(const diff_samples *s, uint64_t rng[4], uint32_t *w)
{
    for (size_t i = 0; i < s->blocks; i++) {
        size_t b = (size_t)(uniform(rng) * (double)s->blocks);
        w[b < s->blocks ? b : s->blocks - 1]++;
    }
}

/* An index in [0, n), n > 0. */
static size_t pick(uint64_t rng[4], size_t n)
{
    size_t i = (size_t)(uniform(rng) * (double)n);
    return i < n ? i : n - 1;
}

/* The blocks' weights of a resample drawn a run, then a block within it, at a time. */
static void draw_runs(const diff_samples *s, uint64_t rng[4], uint32_t *w)
{
    for (size_t i = 0; i < s->runs; i++) {
        size_t r = pick(rng, s->runs), first = s->run_start[r], n = s->run_start[r + 1] - first;
        for (size_t j = 0; j < n; j++) {
            w[first + pick(rng, n)]++;
        }
    }
}

/* The p-quantile of one resample of `s`, drawn as diff_ratio_interval draws (see the top of the
 * file); `point` is the side's own p-quantile, from which a resample of several runs is moved
 * by sqrt(runs / (runs - 1)) times its distance. */
static double resample_quantile(const diff_samples *s, double p, double point, uint64_t rng[4])
{
    uint32_t w[DIFF_MAX_BLOCKS];
    if (s->runs > 1) {
        memset(w, 0, s->blocks * sizeof *w);
        draw_runs(s, rng, w);
        double k = (double)s->runs;
        double drawn = point + sqrt(k / (k - 1)) * (diff_weighted_quantile(s, w, p) - point);
        return drawn > 0 ? drawn : 0;
    }
    if (s->blocks >= DIFF_MIN_BLOCKS && s->blocks <= DIFF_MAX_BLOCKS && s->blocks < s->count) {
        memset(w, 0, s->blocks * sizeof *w);
        draw_blocks(s, rng, w);
        return diff_weighted_quantile(s, w, p);
    }
    return sample_quantile(s->sorted, s->count, p, rng);
}

double diff_resample_median(const diff_samples *s, uint64_t rng[4])
{
    return resample_quantile(s, 0.5, diff_median(s->sorted, s->count), rng);
}

double diff_resample_quantile(const diff_samples *s, double p, uint64_t rng[4])
{
    return resample_quantile(s, p, diff_quantile(s->sorted, s->count, p), rng);
}

uint64_t diff_row_seed(uint64_t seed, diff_kind kind, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)kind; /* FNV-1a, then a splitmix64 step */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h ^ *p) * 0x100000001b3ull;
    }
    uint64_t z = seed ^ h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- the samples ---- */

static int compare_raw(const void *a, const void *b)
{
    const diff_raw *x = a, *y = b;
    if (x->run != y->run) {
        return (x->run > y->run) - (x->run < y->run);
    }
    if (x->iteration != y->iteration) {
        return (x->iteration > y->iteration) - (x->iteration < y->iteration);
    }
    return (x->ns > y->ns) - (x->ns < y->ns);
}

static int compare_by_value(const void *a, const void *b)
{
    double x = ((const diff_raw *)a)->ns, y = ((const diff_raw *)b)->ns;
    return (x > y) - (x < y);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

_Static_assert(DIFF_MAX_BLOCKS <= 65536, "a block's number is kept in 16 bits");
_Static_assert(DIFF_MAX_RUNS <= DIFF_MAX_BLOCKS, "every run has a block at least");

/* The runs of raw[0 .. n) (sorted by run) and their iterations: counts[r] for run r. */
static size_t count_runs(const diff_raw *raw, size_t n, size_t counts[DIFF_MAX_RUNS + 1])
{
    size_t runs = 1;
    counts[0] = 1;
    for (size_t i = 1; i < n && runs <= DIFF_MAX_RUNS; i++) {
        if (raw[i].run != raw[i - 1].run) {
            counts[runs++] = 1;
        } else if (raw[i].iteration != raw[i - 1].iteration) {
            counts[runs - 1]++;
        }
    }
    return runs;
}

/* by_block, block_start and run_start from raw (sorted by run, iteration, value), each run's
 * iterations in order spread over its share of the blocks; raw[i].iteration becomes the block of
 * the sample. */
static void fill_blocks(diff_raw *raw, size_t n, const size_t *iterations, size_t per_run, diff_samples *out)
{
    size_t i = 0, block = 0;
    for (size_t r = 0; r < out->runs; r++) {
        size_t blocks = iterations[r] < per_run ? iterations[r] : per_run, first = block;
        out->run_start[r] = first;
        /* Iteration k of the run's (in order) goes to block first + k * blocks / iterations. */
        size_t k = 0;
        uint32_t run = raw[i].run;
        long long previous = raw[i].iteration;
        out->block_start[block] = i;
        for (; i < n && raw[i].run == run; i++) {
            if (raw[i].iteration != previous) {
                previous = raw[i].iteration;
                k++;
                size_t next = first + (size_t)((unsigned long long)k * blocks / iterations[r]);
                while (block < next) {
                    out->block_start[++block] = i;
                }
            }
            out->by_block[i] = raw[i].ns;
            raw[i].iteration = (long long)block; /* from here on: the sample's block */
        }
        while (block < first + blocks) {
            out->block_start[++block] = i;
        }
        /* Joined iterations: each was sorted on its own so far. */
        for (size_t b = first; iterations[r] > blocks && b < block; b++) {
            size_t start = out->block_start[b], len = out->block_start[b + 1] - start;
            if (len > 1) {
                qsort(out->by_block + start, len, sizeof *out->by_block, compare_doubles);
            }
        }
    }
    out->run_start[out->runs] = block;
}

bool diff_samples_build(diff_raw *raw, size_t n, diff_samples *out)
{
    memset(out, 0, sizeof *out);
    if (!n) {
        return true;
    }
    qsort(raw, n, sizeof *raw, compare_raw);
    size_t iterations[DIFF_MAX_RUNS + 1];
    size_t runs = count_runs(raw, n, iterations);
    if (runs > DIFF_MAX_RUNS) {
        return false;
    }
    size_t per_run = runs > 1 ? DIFF_MAX_BLOCKS / runs : DIFF_MAX_BLOCKS, blocks = 0;
    for (size_t r = 0; r < runs; r++) {
        blocks += iterations[r] < per_run ? iterations[r] : per_run;
    }
    out->sorted = malloc(n * sizeof *out->sorted);
    out->by_block = malloc(n * sizeof *out->by_block);
    out->block_start = malloc((blocks + 1) * sizeof *out->block_start);
    out->block_of = malloc(n * sizeof *out->block_of);
    out->run_start = malloc((runs + 1) * sizeof *out->run_start);
    out->run_id = malloc((runs ? runs : 1) * sizeof *out->run_id);
    if (!out->sorted || !out->by_block || !out->block_start || !out->block_of || !out->run_start || !out->run_id) {
        diff_samples_free(out);
        return false;
    }
    out->count = n;
    out->runs = runs;
    out->blocks = blocks;
    for (size_t i = 0, r = 0; i < n; i++) {
        if (i == 0 || raw[i].run != raw[i - 1].run) {
            out->run_id[r++] = raw[i].run;
        }
    }
    fill_blocks(raw, n, iterations, per_run, out);
    /* The samples in order with their blocks (DIFF_MAX_BLOCKS fits 16 bits). */
    qsort(raw, n, sizeof *raw, compare_by_value);
    for (size_t i = 0; i < n; i++) {
        out->sorted[i] = raw[i].ns;
        out->block_of[i] = (uint16_t)raw[i].iteration;
    }
    return true;
}

void diff_samples_free(diff_samples *s)
{
    free(s->sorted);
    free(s->by_block);
    free(s->block_start);
    free(s->block_of);
    free(s->run_start);
    free(s->run_id);
    memset(s, 0, sizeof *s);
}

/* ---- the interval ---- */

double diff_median(const double *sorted, size_t n)
{
    if (!n) {
        return NAN;
    }
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/* new / base for medians of at least 0. */
static double ratio_of(double new_median, double base_median)
{
    if (base_median > 0) {
        return new_median / base_median;
    }
    return new_median > 0 ? INFINITY : 1.0;
}

/* The p-quantile of sorted values by linear interpolation between order statistics (Hyndman
 * and Fan's type 7, R's default); an infinite neighbour is taken as it is. */
double diff_quantile(const double *v, size_t n, double p)
{
    if (!n) {
        return NAN;
    }
    double h = (double)(n - 1) * p;
    size_t i = (size_t)h;
    double frac = h - (double)i;
    if (i + 1 >= n || frac == 0 || v[i] == v[i + 1]) {
        return v[i < n ? i : n - 1];
    }
    if (!isfinite(v[i + 1])) {
        return v[i + 1];
    }
    return v[i] + frac * (v[i + 1] - v[i]);
}

void diff_bootstrap_draws(const diff_samples *base, const diff_samples *new_, unsigned resamples, uint64_t seed,
                          double *out)
{
    if (!base->count || !new_->count) {
        return;
    }
    uint64_t rng[4];
    diff_rng_seed(rng, seed);
    for (unsigned b = 0; b < resamples; b++) {
        double mb = diff_resample_median(base, rng);
        out[b] = ratio_of(diff_resample_median(new_, rng), mb);
    }
}

void diff_bootstrap_ratios(const diff_samples *base, const diff_samples *new_, unsigned resamples, uint64_t seed,
                           double *out)
{
    if (!base->count || !new_->count) {
        return;
    }
    diff_bootstrap_draws(base, new_, resamples, seed, out);
    diff_sort(out, resamples);
}

void diff_sort(double *v, size_t n) { qsort(v, n, sizeof *v, compare_doubles); }

/* The standard normal's upper tail. */
static double normal_tail(double z) { return 0.5 * erfc(z / sqrt(2.0)); }

void diff_interval_from(const double *sorted, size_t n, double ratio, double scale, double confidence,
                        diff_interval *out, double *p)
{
    out->ratio = ratio / scale;
    out->lo = diff_quantile(sorted, n, (1.0 - confidence) / 2) / scale;
    out->hi = diff_quantile(sorted, n, (1.0 + confidence) / 2) / scale;
    /* The spread of the log ratios, from their quartiles (1.349 of them make one standard
     * deviation of a normal): the bootstrap's tails are too few to read a small p-value from. */
    double q1 = diff_quantile(sorted, n, 0.25), q3 = diff_quantile(sorted, n, 0.75);
    double sd = q1 > 0 && isfinite(q3) ? (log(q3) - log(q1)) / 1.349 : NAN;
    double z = out->ratio > 0 && isfinite(out->ratio) ? log(out->ratio) : NAN;
    if (!isfinite(z) || !(sd >= 0)) {
        *p = 1.0; /* no ratio to test (a median of 0) */
        return;
    }
    /* The tail as counted: where the resamples cross no change more often than the normal tail
     * says (a skewed bootstrap, samples with many ties), that is the p-value, so that it never
     * contradicts the interval. */
    size_t below = 0, above = 0;
    for (size_t i = 0; i < n; i++) {
        below += sorted[i] / scale <= 1.0;
        above += sorted[i] / scale >= 1.0;
    }
    double counted = 2 * (double)(below < above ? below : above) / (double)n;
    double tail = sd > 0 ? 2 * normal_tail(fabs(z) / sd) : 0.0;
    *p = fmin(1.0, fmax(tail, counted));
}

bool diff_ratio_interval(const diff_samples *base, const diff_samples *new_, unsigned resamples, double confidence,
                         uint64_t seed, diff_interval *out)
{
    *out = (diff_interval){NAN, NAN, NAN};
    if (!base->count || !new_->count) {
        return true;
    }
    out->ratio = ratio_of(diff_median(new_->sorted, new_->count), diff_median(base->sorted, base->count));
    if (resamples < 2 || !(confidence > 0 && confidence < 1)) {
        return true;
    }
    double *ratios = malloc((size_t)resamples * sizeof *ratios);
    if (!ratios) {
        return false;
    }
    diff_bootstrap_ratios(base, new_, resamples, seed, ratios);
    out->lo = diff_quantile(ratios, resamples, (1.0 - confidence) / 2);
    out->hi = diff_quantile(ratios, resamples, (1.0 + confidence) / 2);
    free(ratios);
    return true;
}

/* A base median of 0 (diff.h: diff_absolute): the medians' difference, drawn as the ratio is. */
bool diff_absolute_interval(const diff_samples *base, const diff_samples *new_, unsigned resamples, double confidence,
                            uint64_t seed, double below_ns, diff_absolute *out, double *p)
{
    *out = (diff_absolute){NAN, NAN, NAN};
    *p = 1.0;
    if (!base->count || !new_->count) {
        return true;
    }
    out->change_ns = diff_median(new_->sorted, new_->count) - diff_median(base->sorted, base->count);
    if (resamples < 2 || !(confidence > 0 && confidence < 1)) {
        return true;
    }
    double *d = malloc((size_t)resamples * sizeof *d);
    if (!d) {
        return false;
    }
    uint64_t rng[4];
    diff_rng_seed(rng, seed);
    for (unsigned b = 0; b < resamples; b++) {
        double mb = diff_resample_median(base, rng);
        d[b] = diff_resample_median(new_, rng) - mb;
    }
    diff_sort(d, resamples);
    out->lo_ns = diff_quantile(d, resamples, (1.0 - confidence) / 2);
    out->hi_ns = diff_quantile(d, resamples, (1.0 + confidence) / 2);
    if (out->change_ns > below_ns) {
        /* One-sided, doubled so that p < 1 - confidence agrees with the interval's lower end
         * above below_ns, as the ratio's p-value agrees with its interval. */
        size_t at_most = 0;
        for (unsigned b = 0; b < resamples; b++) {
            at_most += d[b] <= below_ns;
        }
        double sd = (diff_quantile(d, resamples, 0.75) - diff_quantile(d, resamples, 0.25)) / 1.349;
        double tail = sd > 0 ? 2 * normal_tail((out->change_ns - below_ns) / sd) : 0.0;
        *p = fmin(1.0, fmax(tail, 2 * (double)at_most / (double)resamples));
    }
    free(d);
    return true;
}

diff_verdict diff_absolute_verdict(const diff_absolute *a, double below_ns, double threshold)
{
    if (a->lo_ns > below_ns && a->change_ns > below_ns * (1.0 + threshold)) {
        return DIFF_SLOWER;
    }
    return DIFF_NO_CHANGE; /* also where a figure is NAN */
}

diff_verdict diff_verdict_of(const diff_interval *iv, double threshold)
{
    if (iv->lo > 1.0 && iv->ratio > 1.0 + threshold) {
        return DIFF_SLOWER;
    }
    if (iv->hi < 1.0 && iv->ratio < 1.0 / (1.0 + threshold)) {
        return DIFF_FASTER;
    }
    return DIFF_NO_CHANGE; /* also where a figure is NAN: every comparison above is false */
}

const char *diff_verdict_str(diff_verdict v)
{
    switch (v) {
    case DIFF_NO_CHANGE: return "no change";
    case DIFF_FASTER: return "faster";
    case DIFF_SLOWER: return "slower";
    case DIFF_ADDED: return "added";
    case DIFF_REMOVED: return "removed";
    case DIFF_TOO_FEW: return "too few samples";
    }
    return "?";
}

void diff_format_change(double ratio, char *out, size_t cap)
{
    if (!isfinite(ratio)) {
        snprintf(out, cap, "-");
        return;
    }
    double pct = (ratio - 1.0) * 100.0;
    /* Never "-0.0%": a change that rounds to nothing reads as +0.0%. */
    if (fabs(pct) < 0.05) {
        pct = 0;
    }
    snprintf(out, cap, "%+.1f%%", pct);
}
