/*
 * wgprof diff's statistics and reader on synthetic input (diff/diff.h), no GPU:
 * - the resample median drawn from its exact distribution matches the one counted out (odd n)
 *   and a resample formed and sorted (even n), other quantiles a resample formed and sorted; the
 *   weighted median and quantiles of blocks match the blocks laid out and sorted;
 * - a known shift is found, both ways, with the shift inside its interval; identical samples
 *   give a ratio of 1 with a tight interval and no change; the same seed gives the same
 *   interval, another seed another one; on equal sides whose iterations drift, the interval
 *   excludes 1 about 5% of the time (and, resampled a dispatch at a time, far more often);
 * - several runs a side: each run's iterations become its own blocks, within its share of them;
 *   on equal sides whose runs shift as a whole, the interval drawn a run at a time excludes 1
 *   about as rarely as it should, where one run a side would cry wolf most of the time; each
 *   resample's median is moved from the side's by exactly sqrt(k / (k - 1)) for k runs;
 * - a million samples, in one iteration or in a thousand, are compared;
 * - Holm's correction on p-values between 0.05 / m and 0.05, by hand and deciding a verdict: a
 *   kernel slower alone, no change beside three scopes that did not change;
 * - the verdict's rule at its edges, and over a base median of 0 (a change in ns against what the
 *   base can have been), with that change's interval and p-value;
 * - the reader refuses what it cannot read, naming the file and the place; it counts the most
 *   dispatches an iteration's total sums, of one run and of runs pooled.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "common.h"
#include "diff.h"

/* The test's own generator (not the one under test): xorshift64*. */
static uint64_t g_state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * 0x2545f4914f6cdd1dull;
}
static double unit(void) { return ((double)(next() >> 11) + 0.5) * 0x1.0p-53; }
/* A duration around `center`: log-normal spread of about `spread` (a fraction). */
static double duration(double center, double spread)
{
    double n = sqrt(-2 * log(unit())) * cos(6.283185307179586 * unit());
    return center * exp(spread * n);
}

/* Samples of `n` durations around `center`, spread over `iterations`, each iteration shifted as
 * a whole by `drift` (a fraction) on top: what a loaded machine does to an iteration. */
static diff_samples make(size_t n, size_t iterations, double center, double spread, double drift)
{
    diff_raw *raw = malloc(n * sizeof *raw);
    double *shift = malloc(iterations * sizeof *shift);
    for (size_t i = 0; i < iterations; i++) {
        shift[i] = drift > 0 ? duration(1.0, drift) : 1.0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t it = i % iterations;
        raw[i] = (diff_raw){(long long)it, duration(center, spread) * shift[it], 0};
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, n, &s));
    free(raw);
    free(shift);
    return s;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* P(Binomial(n, p) >= k). */
static double binomial_at_least(size_t n, double p, size_t k)
{
    if (p >= 1) {
        return 1;
    }
    double sum = 0;
    for (size_t j = k; j <= n; j++) {
        sum += exp(lgamma((double)n + 1) - lgamma((double)j + 1) - lgamma((double)(n - j) + 1) +
                   (double)j * log(p) + (double)(n - j) * log1p(-p));
    }
    return sum;
}

/* Odd n, one iteration (drawn a sample at a time): the median of a resample is x_(j) with
 * P(median <= x_(j)) = P(Bin(n, j/n) >= (n+1)/2). */
static void test_resample_median_odd(void)
{
    enum { N = 7, DRAWS = 200000 };
    diff_raw raw[N];
    for (size_t i = 0; i < N; i++) {
        raw[i] = (diff_raw){0, (double)(10 * (i + 1)), 0};
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, N, &s));
    uint64_t rng[4];
    diff_rng_seed(rng, 7);
    size_t hits[N] = {0}, strays = 0;
    for (size_t d = 0; d < DRAWS; d++) {
        double m = diff_resample_median(&s, rng);
        size_t j = (size_t)(m / 10 + 0.5) - 1;
        bool sample = j < N && m == s.sorted[j];
        strays += !sample;
        hits[sample ? j : 0]++;
    }
    CHECK_MSG(strays == 0, "%zu medians that are no sample", strays);
    double cumulative = 0;
    for (size_t j = 0; j < N; j++) {
        cumulative += (double)hits[j] / DRAWS;
        double exact = binomial_at_least(N, (double)(j + 1) / N, (N + 1) / 2);
        double sigma = sqrt(exact * (1 - exact) / DRAWS) + 1e-9;
        CHECK_MSG(fabs(cumulative - exact) < 5 * sigma + 1e-6, "P(median <= x_%zu): drawn %.4f, exact %.4f", j + 1,
                  cumulative, exact);
    }
    diff_samples_free(&s);
}

/* Even n: the drawn medians against resamples formed and sorted, value by value. */
static void test_resample_median_even(void)
{
    enum { N = 6, DRAWS = 200000 };
    diff_raw raw[N];
    for (size_t i = 0; i < N; i++) {
        raw[i] = (diff_raw){0, (double)(1u << i), 0}; /* every mean of two is a value of its own */
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, N, &s));
    uint64_t rng[4];
    diff_rng_seed(rng, 11);
    /* The CDF at a few points, drawn both ways. */
    const double at[] = {2, 3, 5, 6, 10, 12, 20};
    size_t drawn[7] = {0}, formed[7] = {0};
    double resample[N];
    for (size_t d = 0; d < DRAWS; d++) {
        double m = diff_resample_median(&s, rng);
        for (size_t i = 0; i < N; i++) {
            resample[i] = s.sorted[next() % N];
        }
        qsort(resample, N, sizeof *resample, by_value);
        double f = 0.5 * (resample[N / 2 - 1] + resample[N / 2]);
        for (size_t a = 0; a < 7; a++) {
            drawn[a] += m <= at[a];
            formed[a] += f <= at[a];
        }
    }
    for (size_t a = 0; a < 7; a++) {
        double p = (double)formed[a] / DRAWS, q = (double)drawn[a] / DRAWS;
        double sigma = sqrt(2 * p * (1 - p) / DRAWS) + 1e-9;
        CHECK_MSG(fabs(p - q) < 5 * sigma + 1e-6, "P(median <= %g): drawn %.4f, formed %.4f", at[a], q, p);
    }
    diff_samples_free(&s);
}

/* Other quantiles drawn a sample at a time (the quickest tenth diff_common.c reads; with 8 samples
 * each falls between two order statistics at its own fraction, 0.7, 2.8 and 6.3): against
 * resamples formed and sorted. Then, drawn a block and a run at a time, the 0.5 quantile is the
 * median's draw, value for value, from the same generator. */
static void test_resample_quantile(void)
{
    uint64_t kept = g_state; /* the later tests draw what they drew before this one was written */
    enum { N = 8, DRAWS = 200000 };
    diff_raw raw[N];
    for (size_t i = 0; i < N; i++) {
        raw[i] = (diff_raw){0, (double)(1u << i), 0};
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, N, &s));
    const double quantiles[] = {0.1, 0.4, 0.9};
    const double at[] = {1, 1.3, 1.5, 2, 3, 5, 6, 10, 12, 20, 24, 32, 48, 64, 100, 128};
    enum { POINTS = sizeof at / sizeof at[0] };
    double resample[N];
    for (size_t k = 0; k < sizeof quantiles / sizeof quantiles[0]; k++) {
        uint64_t rng[4];
        diff_rng_seed(rng, 13 + k);
        size_t drawn[POINTS] = {0}, formed[POINTS] = {0};
        for (size_t d = 0; d < DRAWS; d++) {
            double m = diff_resample_quantile(&s, quantiles[k], rng);
            for (size_t i = 0; i < N; i++) {
                resample[i] = s.sorted[next() % N];
            }
            qsort(resample, N, sizeof *resample, by_value);
            double f = diff_quantile(resample, N, quantiles[k]);
            for (size_t a = 0; a < POINTS; a++) {
                drawn[a] += m <= at[a];
                formed[a] += f <= at[a];
            }
        }
        for (size_t a = 0; a < POINTS; a++) {
            double p = (double)formed[a] / DRAWS, q = (double)drawn[a] / DRAWS;
            double sigma = sqrt(2 * p * (1 - p) / DRAWS) + 1e-9;
            CHECK_MSG(fabs(p - q) < 5 * sigma + 1e-6, "P(q%.1f <= %g): drawn %.4f, formed %.4f", quantiles[k], at[a],
                      q, p);
        }
    }
    diff_samples_free(&s);
    for (size_t runs = 1; runs <= 4; runs += 3) {
        enum { ITERATIONS = 12, PER = 3 };
        diff_raw many[4 * ITERATIONS * PER];
        size_t n = 0;
        for (size_t r = 0; r < runs; r++) {
            for (size_t i = 0; i < ITERATIONS * PER; i++, n++) {
                many[n] = (diff_raw){(long long)(i / PER), 1000.0 + (double)(next() % 997), (uint32_t)r};
            }
        }
        CHECK(diff_samples_build(many, n, &s));
        uint64_t a[4], b[4];
        diff_rng_seed(a, 17);
        diff_rng_seed(b, 17);
        size_t same = 0;
        for (size_t d = 0; d < 1000; d++) {
            double m = diff_resample_median(&s, a), q = diff_resample_quantile(&s, 0.5, b);
            same += fabs(m - q) <= 1e-12 * m;
        }
        CHECK_MSG(same == 1000 && s.blocks >= DIFF_MIN_BLOCKS, "%zu run(s): the 0.5 quantile drawn as the median in "
                  "%zu of 1000", runs, same);
        diff_samples_free(&s);
    }
    g_state = kept;
}

/* The weighted median of blocks against the blocks written out and sorted: small sides (found
 * by walking the samples) and large ones in few blocks (by binary search). */
static void test_weighted_median(void)
{
    for (int round = 0; round < 240; round++) {
        bool large = round >= 200;
        size_t iterations = large ? 5 + next() % 4 : 5 + next() % 40;
        size_t n = iterations + next() % (large ? 20000 : 300);
        diff_raw *raw = malloc(n * sizeof *raw);
        for (size_t i = 0; i < n; i++) {
            raw[i] = (diff_raw){(long long)(next() % iterations), (double)(next() % (large ? 5000 : 50)), 0}; /* ties */
        }
        diff_samples s;
        CHECK(diff_samples_build(raw, n, &s));
        uint32_t w[DIFF_MAX_BLOCKS] = {0};
        size_t total = 0;
        for (size_t b = 0; b < s.blocks; b++) {
            w[b] = (uint32_t)(next() % 3);
            total += w[b] * (s.block_start[b + 1] - s.block_start[b]);
        }
        double *all = malloc((total ? total : 1) * sizeof *all);
        size_t k = 0;
        for (size_t b = 0; b < s.blocks; b++) {
            for (uint32_t r = 0; r < w[b]; r++) {
                for (size_t i = s.block_start[b]; i < s.block_start[b + 1]; i++) {
                    all[k++] = s.by_block[i];
                }
            }
        }
        qsort(all, total, sizeof *all, by_value);
        double expected = total ? (total % 2 ? all[total / 2] : 0.5 * (all[total / 2 - 1] + all[total / 2])) : NAN;
        double got = diff_weighted_median(&s, w);
        CHECK_MSG(got == expected || (isnan(got) && isnan(expected)), "round %d: %g, expected %g", round, got, expected);
        const double quantiles[] = {0, 0.1, 0.37, 0.9, 1};
        for (size_t q = 0; total && q < sizeof quantiles / sizeof quantiles[0]; q++) {
            double want = diff_quantile(all, total, quantiles[q]), have = diff_weighted_quantile(&s, w, quantiles[q]);
            CHECK_MSG(fabs(have - want) <= 1e-12 * fabs(want), "round %d, quantile %g: %g, expected %g", round,
                      quantiles[q], have, want);
        }
        free(all);
        free(raw);
        diff_samples_free(&s);
    }
}

/* Many iterations are joined into DIFF_MAX_BLOCKS blocks, consecutive ones together, each
 * block sorted, every sample in one. */
static void test_blocks(void)
{
    enum { N = 10000, ITERATIONS = 1300 };
    diff_samples s = make(N, ITERATIONS, 1000, 0.1, 0);
    CHECK(s.blocks == DIFF_MAX_BLOCKS && s.count == N);
    CHECK(s.block_start[0] == 0 && s.block_start[s.blocks] == N);
    for (size_t b = 0; b < s.blocks; b++) {
        CHECK(s.block_start[b + 1] > s.block_start[b]);
        for (size_t i = s.block_start[b] + 1; i < s.block_start[b + 1]; i++) {
            CHECK(s.by_block[i - 1] <= s.by_block[i]);
        }
    }
    for (size_t i = 1; i < N; i++) {
        CHECK(s.sorted[i - 1] <= s.sorted[i]);
    }
    diff_samples_free(&s);
}

static void test_shift_found(void)
{
    for (int way = 0; way < 2; way++) {
        double factor = way ? 0.7 : 1.3;
        diff_samples base = make(400, 20, 1000, 0.08, 0.03), next_ = make(400, 20, 1000 * factor, 0.08, 0.03);
        diff_interval iv;
        CHECK(diff_ratio_interval(&base, &next_, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 1, &iv));
        CHECK_MSG(iv.lo < factor && factor < iv.hi, "x%.1f: interval [%.3f, %.3f]", factor, iv.lo, iv.hi);
        CHECK_MSG(fabs(iv.ratio - factor) < 0.05 * factor, "x%.1f: ratio %.3f", factor, iv.ratio);
        CHECK(diff_verdict_of(&iv, DIFF_DEFAULT_THRESHOLD) == (way ? DIFF_FASTER : DIFF_SLOWER));
        diff_samples_free(&base);
        diff_samples_free(&next_);
    }
}

static void test_identical(void)
{
    diff_samples a = make(1000, 10, 500, 0.02, 0.005);
    diff_interval iv;
    CHECK(diff_ratio_interval(&a, &a, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 1, &iv));
    CHECK(iv.ratio == 1.0);
    CHECK_MSG(iv.lo <= 1 && iv.hi >= 1 && iv.lo > 0.97 && iv.hi < 1.03, "identical: [%.4f, %.4f]", iv.lo, iv.hi);
    CHECK(diff_verdict_of(&iv, DIFF_DEFAULT_THRESHOLD) == DIFF_NO_CHANGE);
    /* A constant sample: no spread at all. */
    diff_raw flat[20];
    for (size_t i = 0; i < 20; i++) {
        flat[i] = (diff_raw){(long long)(i % 10), 42.0, 0};
    }
    diff_samples f;
    CHECK(diff_samples_build(flat, 20, &f));
    CHECK(diff_ratio_interval(&f, &f, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 1, &iv));
    CHECK(iv.ratio == 1 && iv.lo == 1 && iv.hi == 1);
    CHECK(diff_verdict_of(&iv, 0) == DIFF_NO_CHANGE);
    diff_samples_free(&f);
    diff_samples_free(&a);
}

static void test_seed(void)
{
    diff_samples a = make(300, 10, 1000, 0.1, 0.02), b = make(300, 10, 1050, 0.1, 0.02);
    diff_interval x, y, z;
    CHECK(diff_ratio_interval(&a, &b, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 5, &x));
    CHECK(diff_ratio_interval(&a, &b, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 5, &y));
    CHECK(diff_ratio_interval(&a, &b, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 6, &z));
    CHECK(x.ratio == y.ratio && x.lo == y.lo && x.hi == y.hi);
    CHECK(x.ratio == z.ratio && (x.lo != z.lo || x.hi != z.hi));
    diff_samples_free(&a);
    diff_samples_free(&b);
}

/* Coverage: two sides drawn alike, 10 iterations of 4 dispatches whose iterations drift as a
 * whole (10%) more than the dispatches within one vary (5%). The interval should exclude 1 in
 * about 5% of such pairs. Resampled one dispatch at a time (the same samples, as if of one
 * iteration) it would, far more often: the reason blocks are whole iterations. */
static void test_coverage(void)
{
    enum { TRIALS = 1000 };
    int excluded[2] = {0, 0};
    for (int t = 0; t < TRIALS; t++) {
        diff_raw raw[2][40];
        for (int side = 0; side < 2; side++) {
            for (int it = 0; it < 10; it++) {
                double drift = duration(1.0, 0.10);
                for (int j = 0; j < 4; j++) {
                    raw[side][it * 4 + j] = (diff_raw){it, duration(1000, 0.05) * drift, 0};
                }
            }
        }
        for (int flat = 0; flat < 2; flat++) {
            diff_raw copy[2][40];
            memcpy(copy, raw, sizeof copy);
            for (int i = 0; flat && i < 40; i++) {
                copy[0][i].iteration = copy[1][i].iteration = 0;
            }
            diff_samples a, b;
            CHECK(diff_samples_build(copy[0], 40, &a) && diff_samples_build(copy[1], 40, &b));
            diff_interval iv;
            CHECK(diff_ratio_interval(&a, &b, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, (uint64_t)t, &iv));
            excluded[flat] += iv.lo > 1 || iv.hi < 1;
            diff_samples_free(&a);
            diff_samples_free(&b);
        }
    }
    printf("equal sides, interval excluding 1: %d of %d by iteration, %d of %d one dispatch at a time\n", excluded[0],
           TRIALS, excluded[1], TRIALS);
    /* 5% of 1000 is 50, with a standard deviation of 7: 25 to 80 is more than 3.5 of them. */
    CHECK_MSG(excluded[0] >= 25 && excluded[0] <= 80, "by iteration: %d of %d", excluded[0], TRIALS);
    CHECK_MSG(excluded[1] > 2 * excluded[0], "one at a time: %d, by iteration %d", excluded[1], excluded[0]);
}

/* Three runs of 1000, 5 and 1 iterations: each its share of the blocks (DIFF_MAX_BLOCKS / 3 at
 * most), every sample in a block of its own run, each block sorted. */
static void test_run_blocks(void)
{
    const size_t iterations[3] = {1000, 5, 1};
    size_t n = 0;
    for (int r = 0; r < 3; r++) {
        n += 2 * iterations[r];
    }
    diff_raw *raw = malloc(n * sizeof *raw);
    size_t at = 0;
    for (uint32_t r = 0; r < 3; r++) {
        for (size_t it = 0; it < iterations[r]; it++) {
            for (int j = 0; j < 2; j++, at++) {
                /* Values unique to the run: r + a fraction, so that a sample tells its run. */
                raw[at] = (diff_raw){(long long)it, (double)r + unit() * 0.5, r};
            }
        }
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, n, &s));
    size_t share = DIFF_MAX_BLOCKS / 3;
    CHECK_MSG(s.runs == 3 && s.blocks == share + 5 + 1, "runs %zu, blocks %zu", s.runs, s.blocks);
    CHECK(s.run_start[0] == 0 && s.run_start[1] == share && s.run_start[2] == share + 5 && s.run_start[3] == s.blocks);
    for (size_t i = 0; i < s.count; i++) {
        size_t r = (size_t)s.sorted[i], b = s.block_of[i];
        CHECK(b >= s.run_start[r] && b < s.run_start[r + 1]);
    }
    for (size_t b = 0; b < s.blocks; b++) {
        for (size_t i = s.block_start[b] + 1; i < s.block_start[b + 1]; i++) {
            CHECK(s.by_block[i - 1] <= s.by_block[i]);
        }
    }
    diff_samples_free(&s);
    free(raw);
    /* More runs than a side may have: refused. */
    diff_raw many[DIFF_MAX_RUNS + 1];
    for (uint32_t r = 0; r <= DIFF_MAX_RUNS; r++) {
        many[r] = (diff_raw){0, 1.0, r};
    }
    CHECK(!diff_samples_build(many, DIFF_MAX_RUNS + 1, &s));
}

/* Equal sides of RUNS runs each, every run shifted as a whole by 8% (what moves between two
 * processes on a shared machine), its 10 iterations by 3% and its dispatches by 5%. Drawn a run
 * at a time (and rescaled for the five runs drawn from), the interval should exclude 1 in about
 * 5% of such pairs; one run a side cannot see the shift and excludes 1 most of the time. */
static void test_runs_coverage(void)
{
    enum { TRIALS = 400, RUNS = 5, PER_RUN = 40 };
    int excluded[2] = {0, 0};
    for (int t = 0; t < TRIALS; t++) {
        diff_raw raw[2][RUNS * PER_RUN];
        for (int side = 0; side < 2; side++) {
            for (uint32_t r = 0; r < RUNS; r++) {
                double shift = duration(1.0, 0.08);
                for (int it = 0; it < 10; it++) {
                    double drift = duration(1.0, 0.03);
                    for (int j = 0; j < 4; j++) {
                        raw[side][r * PER_RUN + (uint32_t)(it * 4 + j)] =
                            (diff_raw){it, duration(1000, 0.05) * drift * shift, r};
                    }
                }
            }
        }
        for (int one = 0; one < 2; one++) { /* one: the first run of each side only */
            size_t n = one ? PER_RUN : RUNS * PER_RUN;
            diff_raw copy[2][RUNS * PER_RUN];
            memcpy(copy, raw, sizeof copy);
            diff_samples a, b;
            CHECK(diff_samples_build(copy[0], n, &a) && diff_samples_build(copy[1], n, &b));
            CHECK(a.runs == (one ? 1 : RUNS));
            diff_interval iv;
            CHECK(diff_ratio_interval(&a, &b, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, (uint64_t)t, &iv));
            excluded[one] += iv.lo > 1 || iv.hi < 1;
            diff_samples_free(&a);
            diff_samples_free(&b);
        }
    }
    printf("equal sides of runs that shift, interval excluding 1: %d of %d drawn by run (%d a side), %d of %d "
           "from one run a side\n",
           excluded[0], TRIALS, RUNS, excluded[1], TRIALS);
    CHECK_MSG(excluded[0] <= 40, "by run: %d of %d", excluded[0], TRIALS);
    CHECK_MSG(excluded[1] > 5 * excluded[0], "one run: %d, by run %d", excluded[1], excluded[0]);
}

/* The rescaling for the few runs drawn from, exactly: runs whose samples are all one value each
 * (1000, 1100, ... a run), so that drawing within a run changes nothing and each resample's plain
 * median is one of the runs' values v. Drawn a run at a time, each must come back as
 * median + sqrt(k / (k - 1)) * (v - median), and the farthest ones (every run drawn the same)
 * must be seen: without the rescaling every value would be a run's own, none of these for k of
 * 3 or 5. Seeded: the same draws every time. */
static void test_runs_rescaled(void)
{
    for (uint32_t k = 3; k <= 5; k += 2) {
        enum { ITERATIONS = 3, RESAMPLES = 4000 };
        diff_raw raw[5 * ITERATIONS];
        size_t n = 0;
        for (uint32_t r = 0; r < k; r++) {
            for (int it = 0; it < ITERATIONS; it++) {
                raw[n++] = (diff_raw){it, 1000 + 100.0 * r, r};
            }
        }
        diff_samples s;
        CHECK(diff_samples_build(raw, n, &s));
        CHECK(s.runs == k);
        double median = 1000 + 100.0 * (k - 1) / 2, factor = sqrt((double)k / (k - 1));
        CHECK_MSG(diff_median(s.sorted, s.count) == median, "%u runs: median %g", k, diff_median(s.sorted, s.count));
        uint64_t rng[4];
        diff_rng_seed(rng, 11);
        int off = 0, seen_lo = 0, seen_hi = 0;
        double first_off = 0;
        for (int i = 0; i < RESAMPLES; i++) {
            double m = diff_resample_median(&s, rng);
            bool known = false;
            for (uint32_t r = 0; r < k; r++) {
                known = known || fabs(m - (median + factor * (1000 + 100.0 * r - median))) < 1e-9;
            }
            if (!known && off++ == 0) {
                first_off = m;
            }
            seen_lo += fabs(m - (median - factor * (median - 1000))) < 1e-9;
            seen_hi += fabs(m - (median + factor * (median - 1000))) < 1e-9;
        }
        CHECK_MSG(off == 0, "%u runs: %d of %d resampled medians not a run's value rescaled by sqrt(%u/%u) = %.4f "
                  "from the median %g (the first: %g)", k, off, RESAMPLES, k, k - 1, factor, median, first_off);
        CHECK_MSG(seen_lo > 0 && seen_hi > 0, "%u runs: the extremes %g and %g seen %d and %d times", k,
                  median - factor * (median - 1000), median + factor * (median - 1000), seen_lo, seen_hi);
        /* Another quantile, the second smallest of the k * ITERATIONS values (1000, the first
         * run's), moved the same way from itself, and kept at 0 or more. */
        double p = 1.0 / (double)(n - 1), point = diff_quantile(s.sorted, s.count, p);
        CHECK(point == 1000);
        off = 0;
        for (int i = 0; i < RESAMPLES; i++) {
            double q = diff_resample_quantile(&s, p, rng);
            bool known = false;
            for (uint32_t r = 0; r < k; r++) {
                known = known || fabs(q - fmax(0, point + factor * (1000 + 100.0 * r - point))) < 1e-9;
            }
            off += !known;
        }
        CHECK_MSG(off == 0, "%u runs: %d of %d resampled quantiles not a run's value rescaled from the quantile %g", k,
                  off, RESAMPLES, point);
        diff_samples_free(&s);
    }
}

/* A million samples a side: in one iteration (a sample at a time) and in a thousand (blocks). */
static void test_large(void)
{
    for (int blocks = 0; blocks < 2; blocks++) {
        size_t iterations = blocks ? 1000 : 1;
        diff_samples a = make(1000000, iterations, 1000, 0.1, 0), b = make(1000000, iterations, 1100, 0.1, 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        diff_interval iv;
        CHECK(diff_ratio_interval(&a, &b, DIFF_DEFAULT_RESAMPLES, DIFF_CONFIDENCE, 1, &iv));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("1000000 samples a side in %zu iteration%s: interval [%.4f, %.4f] in %.3f s\n", iterations,
               iterations == 1 ? "" : "s", iv.lo, iv.hi, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        CHECK_MSG(iv.lo < 1.1 && 1.1 < iv.hi && iv.hi - iv.lo < 0.01, "[%.4f, %.4f]", iv.lo, iv.hi);
        diff_samples_free(&a);
        diff_samples_free(&b);
    }
}

static void test_verdict_rule(void)
{
    const double t = 0.05;
    struct {
        diff_interval iv;
        diff_verdict v;
    } cases[] = {
        {{1.06, 1.01, 1.10}, DIFF_SLOWER},    {{1.04, 1.01, 1.08}, DIFF_NO_CHANGE}, /* not past the threshold */
        {{1.20, 0.99, 1.40}, DIFF_NO_CHANGE}, /* the interval holds 1 */
        {{0.90, 0.85, 0.99}, DIFF_FASTER},    {{0.96, 0.90, 0.99}, DIFF_NO_CHANGE}, /* 0.96 > 1/1.05 */
        {{NAN, NAN, NAN}, DIFF_NO_CHANGE},    {{INFINITY, INFINITY, INFINITY}, DIFF_SLOWER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_MSG(diff_verdict_of(&cases[i].iv, t) == cases[i].v, "case %zu: %s", i,
                  diff_verdict_str(diff_verdict_of(&cases[i].iv, t)));
    }
    char text[32];
    diff_format_change(1.5, text, sizeof text);
    CHECK(strcmp(text, "+50.0%") == 0);
    diff_format_change(0.9999, text, sizeof text);
    CHECK(strcmp(text, "+0.0%") == 0);
    diff_format_change(NAN, text, sizeof text);
    CHECK(strcmp(text, "-") == 0);
}

/* `n` samples in 10 iterations, all `value` but the first `other_n`, which are `other`. */
static diff_samples ticks(size_t n, double value, size_t other_n, double other)
{
    diff_raw *raw = malloc(n * sizeof *raw);
    for (size_t i = 0; i < n; i++) {
        raw[i] = (diff_raw){(long long)(i % 10), i < other_n ? other : value, 0};
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, n, &s));
    free(raw);
    return s;
}

/* A base median of 0 (a timer too coarse for the base): the verdict against what the base can
 * have been (its bound) at its edges; the interval and the p-value of a base that reads 0 but
 * for a few ticks against a new side five ticks long, and one tick long. */
static void test_absolute_rule(void)
{
    const double t = 0.05, below = 1000;
    struct {
        diff_absolute a;
        double below;
        diff_verdict v;
    } cases[] = {
        {{5000, 2000, 8000}, below, DIFF_SLOWER},
        {{5000, 1000, 8000}, below, DIFF_NO_CHANGE}, /* the interval reaches the bound */
        {{1040, 1001, 1100}, below, DIFF_NO_CHANGE}, /* above the bound, by less than the threshold */
        {{1060, 1001, 1100}, below, DIFF_SLOWER},
        {{0, 0, 0}, below, DIFF_NO_CHANGE},
        {{NAN, NAN, NAN}, below, DIFF_NO_CHANGE},
        {{-500, -900, -100}, below, DIFF_NO_CHANGE}, /* never faster */
        {{2, 1, 3}, 0, DIFF_SLOWER},                 /* no bound known: any change reliably above 0 */
        {{0, 0, 0}, 0, DIFF_NO_CHANGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        diff_verdict v = diff_absolute_verdict(&cases[i].a, cases[i].below, t);
        CHECK_MSG(v == cases[i].v, "case %zu: %s, want %s", i, diff_verdict_str(v), diff_verdict_str(cases[i].v));
    }
    diff_samples base = ticks(40, 0, 3, 1000), five = ticks(40, 5000, 5, 4000), one = ticks(40, 1000, 0, 0);
    diff_absolute a;
    double p = NAN;
    CHECK(diff_absolute_interval(&base, &five, 2000, 0.95, 7, below, &a, &p));
    CHECK_MSG(a.change_ns == 5000 && a.lo_ns > below && a.lo_ns <= 5000 && 5000 <= a.hi_ns && p < 0.05 &&
                  diff_absolute_verdict(&a, below, t) == DIFF_SLOWER,
              "five ticks over a base of 0: %g ns [%g, %g], p %g", a.change_ns, a.lo_ns, a.hi_ns, p);
    CHECK(diff_absolute_interval(&base, &one, 2000, 0.95, 7, below, &a, &p));
    CHECK_MSG(a.change_ns == below && p == 1 && diff_absolute_verdict(&a, below, t) == DIFF_NO_CHANGE,
              "one tick over a base of 0: %g ns [%g, %g], p %g", a.change_ns, a.lo_ns, a.hi_ns, p);
    diff_samples none = {0};
    CHECK(diff_absolute_interval(&none, &five, 2000, 0.95, 7, below, &a, &p));
    CHECK(isnan(a.change_ns) && isnan(a.lo_ns) && isnan(a.hi_ns) && p == 1);
    diff_samples_free(&base);
    diff_samples_free(&five);
    diff_samples_free(&one);
}

static char g_empty[] = "";
static char g_kernel[] = "k";
static char g_scopes[3][4] = {"s0", "s1", "s2"};

/* Samples of the `n` values at v in 10 iterations, each times `factor`. */
static diff_samples scaled(const double *v, size_t n, double factor)
{
    diff_raw *raw = malloc(n * sizeof *raw);
    for (size_t i = 0; i < n; i++) {
        raw[i] = (diff_raw){(long long)(i % 10), v[i] * factor, 0};
    }
    diff_samples s;
    CHECK(diff_samples_build(raw, n, &s));
    free(raw);
    return s;
}

/* A report of one kernel, "k", its `n` samples k[] times `factor`, and `scopes` scopes (at most
 * 3), each of the `n` samples at scope[]. */
static diff_profile report_of(const double *k, double factor, size_t scopes, const double *scope, size_t n)
{
    diff_profile p;
    memset(&p, 0, sizeof p);
    p.file = p.version = p.adapter = p.driver = p.backend = p.implementation = p.strategy = p.shader_checks =
        g_empty;
    p.runs = 1;
    p.period_ns = 1;
    p.iterations = 10;
    p.kernels = calloc(1, sizeof *p.kernels);
    p.kernel_count = 1;
    p.kernels[0].name = g_kernel;
    p.kernels[0].samples = scaled(k, n, factor);
    p.scopes = calloc(3, sizeof *p.scopes);
    p.scope_count = scopes;
    for (size_t i = 0; i < scopes; i++) {
        p.scopes[i].name = g_scopes[i];
        p.scopes[i].samples = scaled(scope, n, 1);
    }
    return p;
}

static void free_report(diff_profile *p)
{
    diff_samples_free(&p->kernels[0].samples);
    for (size_t i = 0; i < p->scope_count; i++) {
        diff_samples_free(&p->scopes[i].samples);
    }
    free(p->kernels);
    free(p->scopes);
}

/* Holm's correction, by hand; then deciding a verdict: a kernel whose p-value lies between
 * 0.05 / 4 and 0.05 is slower compared alone (one row tested: its corrected p-value is its own)
 * and no change beside three scopes that did not change (four rows tested: 4p is 0.05 or more),
 * its own figures the same both times; decided on raw p-values, it would be slower both times.
 * Its change is found by stepping the new side's factor up until the kernel alone is slower with
 * such a p-value. */
static void test_holm_decides(void)
{
    /* By hand first: of 4 tested, 0.011 x 4 = 0.044 stays below 0.05; 0.02 x 3 and 0.04 x 2,
     * each below 0.05 alone, do not; the last keeps its own. Then a larger p-value whose product
     * falls below an earlier one's keeps the earlier (0.03 x 2 = 0.06 over 0.031 x 1). */
    const double p[] = {0.04, 0.011, NAN, 0.02, 0.9}, want[] = {0.08, 0.044, NAN, 0.06, 0.9};
    double adjusted[5];
    diff_holm(p, 5, adjusted);
    for (size_t i = 0; i < 5; i++) {
        CHECK_MSG(isnan(want[i]) ? isnan(adjusted[i]) : fabs(adjusted[i] - want[i]) < 1e-12,
                  "p-value %zu of 4 tested, %g: corrected %g, want %g", i, p[i], adjusted[i], want[i]);
    }
    const double close[] = {0.031, 0.03};
    diff_holm(close, 2, adjusted);
    CHECK_MSG(fabs(adjusted[0] - 0.06) < 1e-12 && fabs(adjusted[1] - 0.06) < 1e-12, "0.031 and 0.03: %g and %g",
              adjusted[0], adjusted[1]);
    enum { N = 40 };
    double base[N], next_[N], scope[N], drift[10];
    for (size_t it = 0; it < 10; it++) {
        drift[it] = duration(1.0, 0.04);
    }
    for (size_t i = 0; i < N; i++) {
        base[i] = duration(1000, 0.05) * drift[i % 10];
        next_[i] = duration(1000, 0.05) * duration(1.0, 0.04);
        scope[i] = duration(3000, 0.05);
    }
    diff_options o;
    diff_default_options(&o);
    const double alpha = 1 - o.confidence;
    bool found = false;
    for (double factor = 1.0; !found && factor < 1.5; factor += 0.0025) {
        diff_profile b = report_of(base, 1, 0, scope, N), n = report_of(next_, factor, 0, scope, N);
        diff_result alone;
        CHECK(diff_compare(&b, &n, &o, &alone) == DIFF_OK);
        const diff_row *k = &alone.rows[0];
        found = alone.tested == 1 && k->verdict == DIFF_SLOWER && k->p > alpha / 4 && k->p < alpha;
        if (found) {
            diff_profile bs = report_of(base, 1, 3, scope, N), ns = report_of(next_, factor, 3, scope, N);
            diff_result beside;
            CHECK(diff_compare(&bs, &ns, &o, &beside) == DIFF_OK);
            const diff_row *h = &beside.rows[0];
            CHECK_MSG(beside.tested == 4 && strcmp(h->name, "k") == 0 && h->p == k->p && h->iv.lo == k->iv.lo &&
                          h->iv.lo > 1 && h->iv.ratio > 1 + o.threshold && h->p_holm >= alpha &&
                          h->verdict == DIFF_NO_CHANGE,
                      "x%.4f: alone %s, p %.4f; beside 3 scopes (%zu rows tested) %s: %.3f [%.3f, %.3f], p %.4f, "
                      "corrected %.4f",
                      factor, diff_verdict_str(k->verdict), k->p, beside.tested, diff_verdict_str(h->verdict),
                      h->iv.ratio, h->iv.lo, h->iv.hi, h->p, h->p_holm);
            for (size_t i = 1; i < beside.row_count; i++) {
                CHECK_MSG(beside.rows[i].kind != DIFF_SCOPE || beside.rows[i].verdict == DIFF_NO_CHANGE,
                          "scope %s: %s", beside.rows[i].name, diff_verdict_str(beside.rows[i].verdict));
            }
            printf("Holm's correction: x%.4f, p %.4f: %s alone, %s beside 3 scopes (corrected %.4f)\n", factor, k->p,
                   diff_verdict_str(k->verdict), diff_verdict_str(h->verdict), h->p_holm);
            diff_result_free(&beside);
            free_report(&bs);
            free_report(&ns);
        }
        diff_result_free(&alone);
        free_report(&b);
        free_report(&n);
    }
    CHECK_MSG(found, "no factor up to 1.5 made the kernel alone slower with a p-value between %g and %g",
              alpha / 4, alpha);
}

/* The reader: each bad report refused with its file and place. */
static void test_reader(void)
{
    static const struct {
        const char *json, *message;
    } bad[] = {
        {"{\"format_version\": 1, \"dispatches\": [", "r.json:1:"},
        {"[1, 2]", "r.json: $: a wgprof report is a JSON object, not an array"},
        {"{\"dispatches\": []}", "r.json: $.format_version: missing"},
        {"{\"format_version\": 2, \"dispatches\": []}", "r.json: $.format_version: 2: this wgprof reads"},
        {"{\"format_version\": \"1\", \"dispatches\": []}", "r.json: $.format_version: expected an integer"},
        {"{\"format_version\": 1, \"format_version\": 1}", "r.json:1:"},
        {"{\"format_version\": 1}", "r.json: $.dispatches: missing"},
        {"{\"format_version\": 1, \"dispatches\": [{\"kernel\": \"k\", \"iteration\": 0, \"duration_ns\": -5}]}",
         "r.json: $.dispatches[0].duration_ns: -5: a duration is from 0 to 1e18 ns"},
        {"{\"format_version\": 1, \"dispatches\": [{\"kernel\": 3, \"iteration\": 0, \"duration_ns\": 5}]}",
         "r.json: $.dispatches[0].kernel: expected a string, not an integer"},
        {"{\"format_version\": 1, \"dispatches\": [{\"kernel\": \"k\", \"duration_ns\": 5}]}",
         "r.json: $.dispatches[0].iteration: missing"},
        {"{\"format_version\": 1, \"dispatches\": [{\"kernel\": \"k\", \"iteration\": 0, \"duration_ns\": 1e300}]}",
         "r.json: $.dispatches[0].duration_ns: 1e+300"},
        {"{\"format_version\": 1, \"profiling\": false, \"unavailable_reason\": \"off\", \"dispatches\": []}",
         "r.json: $.profiling: false: the report holds no timings (off)"},
        {"{\"format_version\": 1, \"dispatches\": [], \"scope_instances\": [{\"iteration\": 0, \"duration_ns\": 1}]}",
         "r.json: $.scope_instances[0].path: missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        diff_profile p;
        char error[512] = "";
        diff_status s = diff_load_buffer("r.json", bad[i].json, strlen(bad[i].json), &p, error, sizeof error);
        CHECK_MSG(s == DIFF_BAD_INPUT && strstr(error, bad[i].message) == error, "case %zu: %s", i, error);
    }
    /* A good one: invalid records skipped and counted, an iteration holding one left out of the
     * total, kernels in order of first appearance. */
    const char *good = "{\"format_version\": 1, \"strategy\": \"chain\", \"adapter\": {\"name\": \"A\"}, \"dispatches\": ["
                       "{\"kernel\": \"b\", \"iteration\": 0, \"duration_ns\": 10},"
                       "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 5},"
                       "{\"kernel\": \"b\", \"iteration\": 1, \"duration_ns\": null, \"valid\": false},"
                       "{\"kernel\": \"a\", \"iteration\": 1, \"duration_ns\": 7},"
                       "{\"kernel\": \"b\", \"iteration\": 2, \"duration_ns\": 12},"
                       "{\"kernel\": \"a\", \"iteration\": 2, \"duration_ns\": 6}],"
                       "\"scope_instances\": [{\"path\": \"s\", \"iteration\": 0, \"valid\": true, \"duration_ns\": 20}]}";
    diff_profile p;
    char error[512] = "";
    CHECK(diff_load_buffer("g.json", good, strlen(good), &p, error, sizeof error) == DIFF_OK);
    CHECK(p.kernel_count == 2 && strcmp(p.kernels[0].name, "b") == 0 && strcmp(p.kernels[1].name, "a") == 0);
    CHECK(p.kernels[0].samples.count == 2 && p.kernels[0].skipped == 1 && p.invalid == 1 && p.dispatches == 6);
    CHECK(p.total.samples.count == 2 && p.total.skipped == 1);
    CHECK(p.total.samples.sorted[0] == 15 && p.total.samples.sorted[1] == 18 && p.total_readings == 2);
    CHECK(p.scope_count == 1 && p.scopes[0].samples.count == 1);
    CHECK(strcmp(p.adapter, "A") == 0 && strcmp(p.strategy, "chain") == 0 && isnan(p.period_ns));
    diff_result r;
    diff_options o;
    diff_default_options(&o);
    CHECK(diff_compare(&p, &p, &o, &r) == DIFF_OK);
    CHECK(r.row_count == 4 && r.rows[2].kind == DIFF_TOTAL && r.difference_count == 0);
    /* Two samples a side, and one: too few for a verdict, the ratio still given. */
    CHECK(r.rows[0].verdict == DIFF_TOO_FEW && r.rows[0].iv.ratio == 1 && isnan(r.rows[0].iv.lo));
    CHECK(r.rows[3].verdict == DIFF_TOO_FEW && r.rows[3].base.count == 1);
    diff_result_free(&r);
    diff_profile_free(&p);
}

/* The most dispatches an iteration's total sums (the bound of a total whose base median is 0):
 * the reference kernel, not in the total, not counted, nor an iteration left out of the total;
 * the runs' most where pooled. */
static void test_total_readings(void)
{
    const char *const reports[2] = {
        "{\"format_version\": 1, \"dispatches\": ["
        "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 0},"
        "{\"kernel\": \"b\", \"iteration\": 0, \"duration_ns\": 0},"
        "{\"kernel\": \"" WGPROF_REFERENCE_KERNEL "\", \"iteration\": 0, \"duration_ns\": 9},"
        "{\"kernel\": \"a\", \"iteration\": 1, \"duration_ns\": 0},"
        "{\"kernel\": \"a\", \"iteration\": 2, \"duration_ns\": 0},"
        "{\"kernel\": \"b\", \"iteration\": 2, \"duration_ns\": 0},"
        "{\"kernel\": \"a\", \"iteration\": 2, \"duration_ns\": 0},"
        "{\"kernel\": \"b\", \"iteration\": 2, \"duration_ns\": null, \"valid\": false}]}",
        "{\"format_version\": 1, \"dispatches\": ["
        "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 0},"
        "{\"kernel\": \"b\", \"iteration\": 0, \"duration_ns\": 0},"
        "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 0},"
        "{\"kernel\": \"" WGPROF_REFERENCE_KERNEL "\", \"iteration\": 0, \"duration_ns\": 9}]}"};
    diff_profile runs[2], p;
    char error[512] = "";
    for (int i = 0; i < 2; i++) {
        CHECK(diff_load_buffer(i ? "r2.json" : "r1.json", reports[i], strlen(reports[i]), &runs[i], error,
                               sizeof error) == DIFF_OK);
    }
    CHECK_MSG(runs[0].total_readings == 2 && runs[0].total.samples.count == 2 && runs[1].total_readings == 3,
              "readings %zu and %zu, want 2 and 3", runs[0].total_readings, runs[1].total_readings);
    CHECK_MSG(diff_merge_runs(runs, 2, &p, error, sizeof error) == DIFF_OK, "%s", error);
    CHECK_MSG(p.total_readings == 3, "pooled: readings %zu, want 3", p.total_readings);
    diff_profile_free(&p);
}

/* Runs pooled: samples and counts summed, kernels in the first run's order; iterations summed,
 * held at the largest where the sum would not fit. Runs that differ in their kernels: refused,
 * the run that lacks one named. */
static void test_merge_runs(void)
{
    const char *const reports[2] = {
        "{\"format_version\": 1, \"iterations\": 9223372036854775807, \"dispatches\": ["
        "{\"kernel\": \"b\", \"iteration\": 0, \"duration_ns\": 10},"
        "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 5}]}",
        "{\"format_version\": 1, \"iterations\": 2, \"dispatches\": ["
        "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 3},"
        "{\"kernel\": \"b\", \"iteration\": 1, \"duration_ns\": 6}]}"};
    diff_profile runs[2], p;
    char error[512] = "";
    for (int i = 0; i < 2; i++) {
        CHECK(diff_load_buffer(i ? "r2.json" : "r1.json", reports[i], strlen(reports[i]), &runs[i], error,
                               sizeof error) == DIFF_OK);
    }
    CHECK_MSG(diff_merge_runs(runs, 2, &p, error, sizeof error) == DIFF_OK, "%s", error);
    CHECK_MSG(p.iterations == LLONG_MAX, "iterations %lld", p.iterations);
    CHECK(p.runs == 2 && p.dispatches == 4 && p.kernel_count == 2 && p.total.samples.count == 3);
    CHECK(strcmp(p.kernels[0].name, "b") == 0 && strcmp(p.kernels[1].name, "a") == 0 &&
          p.kernels[1].samples.count == 2 && p.kernels[1].samples.runs == 2);
    diff_profile_free(&p);
    const char *const other = "{\"format_version\": 1, \"dispatches\": ["
                              "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 3},"
                              "{\"kernel\": \"c\\u001b[2J\", \"iteration\": 0, \"duration_ns\": 4}]}";
    CHECK(diff_load_buffer("r1.json", reports[1], strlen(reports[1]), &runs[0], error, sizeof error) == DIFF_OK);
    CHECK(diff_load_buffer("r2.json", other, strlen(other), &runs[1], error, sizeof error) == DIFF_OK);
    CHECK(diff_merge_runs(runs, 2, &p, error, sizeof error) == DIFF_BAD_INPUT);
    CHECK_MSG(strcmp(error, "r2.json: no kernel 'b', which r1.json has: the reports on one side of a comparison "
                            "must be runs of the same code") == 0,
              "%s", error);
    /* The other way round: the name from the report, its escape character shown as '?'. */
    CHECK(diff_load_buffer("r1.json", other, strlen(other), &runs[0], error, sizeof error) == DIFF_OK);
    CHECK(diff_load_buffer("r2.json", reports[1], strlen(reports[1]), &runs[1], error, sizeof error) == DIFF_OK);
    CHECK(diff_merge_runs(runs, 2, &p, error, sizeof error) == DIFF_BAD_INPUT);
    CHECK_MSG(strncmp(error, "r2.json: no kernel 'c?[2J', which r1.json has", 45) == 0, "%s", error);
}

/* A report of several result sets (wgprof record of several devices or processes): without a
 * set chosen, refused with each set named; set K read as that set's report alone (and named so
 * in messages); a report alone is set 1 and has no set 2; a set of one is read without a choice. */
static void test_result_sets(void)
{
    const char *sets = "{\"format_version\": 1, \"result_sets\": ["
                       "{\"process\": 10, \"device\": 0, \"report\": {\"format_version\": 1, \"dispatches\": ["
                       "{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 5}]}},"
                       "{\"process\": 10, \"device\": 1, \"report\": {\"format_version\": 1, \"dispatches\": ["
                       "{\"kernel\": \"b\", \"iteration\": 0, \"duration_ns\": 7},"
                       "{\"kernel\": \"b\", \"iteration\": 1, \"duration_ns\": 8}]}}]}";
    diff_profile p;
    char error[512] = "";
    CHECK(diff_load_buffer("s.json", sets, strlen(sets), &p, error, sizeof error) == DIFF_BAD_INPUT);
    CHECK_MSG(strstr(error, "holds 2 result sets") && strstr(error, "1: process 10 device 0") &&
                  strstr(error, "2: process 10 device 1") && strstr(error, "--set"),
              "%s", error);
    CHECK(diff_load_buffer_set("s.json", sets, strlen(sets), 2, &p, error, sizeof error) == DIFF_OK);
    CHECK(p.kernel_count == 1 && strcmp(p.kernels[0].name, "b") == 0 && p.kernels[0].samples.count == 2);
    CHECK_MSG(strcmp(p.file, "s.json (result set 2)") == 0, "%s", p.file);
    diff_profile_free(&p);
    CHECK(diff_load_buffer_set("s.json", sets, strlen(sets), 1, &p, error, sizeof error) == DIFF_OK);
    CHECK(p.kernel_count == 1 && strcmp(p.kernels[0].name, "a") == 0);
    diff_profile_free(&p);
    CHECK(diff_load_buffer_set("s.json", sets, strlen(sets), 3, &p, error, sizeof error) == DIFF_BAD_INPUT);
    CHECK_MSG(strstr(error, "holds 2 result sets: there is no set 3"), "%s", error);
    const char *alone = "{\"format_version\": 1, \"dispatches\": [{\"kernel\": \"a\", \"iteration\": 0, \"duration_ns\": 5}]}";
    CHECK(diff_load_buffer_set("r.json", alone, strlen(alone), 1, &p, error, sizeof error) == DIFF_OK);
    diff_profile_free(&p);
    CHECK(diff_load_buffer_set("r.json", alone, strlen(alone), 2, &p, error, sizeof error) == DIFF_BAD_INPUT);
    CHECK_MSG(strstr(error, "holds one report, not result sets"), "%s", error);
    const char *one = "{\"format_version\": 1, \"result_sets\": [{\"process\": 3, \"device\": 0, \"report\": "
                      "{\"format_version\": 1, \"dispatches\": [{\"kernel\": \"c\", \"iteration\": 0, "
                      "\"duration_ns\": 5}]}}]}";
    CHECK(diff_load_buffer("o.json", one, strlen(one), &p, error, sizeof error) == DIFF_OK);
    CHECK(p.kernel_count == 1 && strcmp(p.kernels[0].name, "c") == 0);
    diff_profile_free(&p);
    const char *broken = "{\"format_version\": 1, \"result_sets\": [{\"process\": 3, \"report\": 4}]}";
    CHECK(diff_load_buffer("b.json", broken, strlen(broken), &p, error, sizeof error) == DIFF_BAD_INPUT);
    CHECK_MSG(strstr(error, "$.result_sets[0].report"), "%s", error);
}

int main(void)
{
    test_resample_median_odd();
    test_resample_median_even();
    test_weighted_median();
    test_resample_quantile();
    test_blocks();
    test_shift_found();
    test_identical();
    test_seed();
    test_coverage();
    test_run_blocks();
    test_runs_coverage();
    test_runs_rescaled();
    test_large();
    test_verdict_rule();
    test_absolute_rule();
    test_holm_decides();
    test_reader();
    test_total_readings();
    test_result_sets();
    test_merge_runs();
    return check_summary();
}
