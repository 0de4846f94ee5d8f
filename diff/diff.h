/*
 * wgprof diff: two JSON reports compared, per kernel, per scope and per iteration.
 *
 * diff_load.c    reads a report (jansson) into a diff_profile: per-kernel and per-scope samples
 *                (the valid per-dispatch and per-instance durations), per-iteration totals and
 *                what the run was timed on; refuses what it cannot read, naming the file and
 *                the place (file:line:col for syntax, the JSON path for the rest)
 * diff_runs.c    several reports of one setting (runs of the same code) as one side: their
 *                samples pooled, each keeping its run
 * diff_stats.c   the statistics, pure: medians, a seeded bootstrap interval for the ratio of two
 *                medians, the verdict
 * diff_tests.c   the tests beside the interval, pure: a rank test (Mann-Whitney), Holm's
 *                correction for many rows, a side's spread and its runs' medians
 * diff_common.c  the machine's speed: a factor per run from all its kernels, each row's change
 *                against the change the kernels share, and that shared change on its own line
 * diff_compare.c two profiles into rows: matched by name, added, removed; the differences in
 *                the runs' settings
 * diff_report.c  the table, the Markdown table and the JSON of a comparison
 * diff_html.c    the HTML page (its script and stylesheet in diff/diff_html/)
 *
 * No I/O but the files named and the stream given; no device. Allocation with malloc: this is
 * the CLI's code, on the public API only.
 */
#ifndef WGPROF_DIFF_H
#define WGPROF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The report layout this wgprof reads (the "format_version" src/report_json.c writes). */
#define DIFF_FORMAT_VERSION 1
/* A report larger than this is refused before it is read (a JSON report of 1,000,000
 * dispatches is about 450 MB). */
#define DIFF_MAX_REPORT_BYTES (4ull << 30)
/* The defaults of `wgprof diff` and of --baseline. */
#define DIFF_DEFAULT_THRESHOLD 0.05
#define DIFF_DEFAULT_SEED 1u
#define DIFF_DEFAULT_RESAMPLES 2000u
#define DIFF_CONFIDENCE 0.95
/* Fewer samples than this on a side: no verdict ("too few samples"); the percentile bootstrap of
 * a median is too narrow on fewer (with 3 a side, 1 pair in 10 of equal runs would look changed). */
#define DIFF_MIN_SAMPLES 5
/* The most reports on one side of a comparison. */
#define DIFF_MAX_RUNS 64

typedef enum diff_status {
    DIFF_OK,
    DIFF_BAD_INPUT, /* unreadable or not a report this wgprof reads: exit 2 */
    DIFF_FAILED,    /* out of memory, a write that failed: exit 1 */
} diff_status;

/* Samples as the bootstrap reads them (diff_stats.c): sorted, and grouped in blocks of whole
 * iterations, each block sorted; the blocks of one run (one report) follow each other. */
typedef struct diff_samples {
    double *sorted;      /* every sample, ascending */
    size_t count;
    double *by_block;    /* the same samples, block after block */
    size_t *block_start; /* block b is by_block[block_start[b] .. block_start[b + 1]) */
    size_t blocks;
    uint16_t *block_of;  /* the block of sorted[i] */
    size_t *run_start;   /* run r holds blocks run_start[r] .. run_start[r + 1] - 1 */
    uint32_t *run_id;    /* run r's number on its side (diff_raw.run): a run without a sample has
                            no place here, so r and run_id[r] can differ */
    size_t runs;         /* the runs that hold a sample (1 for a single report) */
} diff_samples;

/* A sample, the iteration it was taken in and the run (the report, from 0) it came from. */
typedef struct diff_raw {
    long long iteration;
    double ns;
    uint32_t run;
} diff_raw;

/* The samples of one kernel, one scope (by path) or the per-iteration totals. */
typedef struct diff_series {
    char *name;
    diff_samples samples; /* ns, valid ones only */
    size_t skipped;       /* invalid records (null duration): not samples */
    diff_raw *raw;        /* while reading: the samples in report order */
    size_t raw_count, raw_cap;
} diff_series;

typedef struct diff_profile {
    char *file;    /* as named on the command line, for messages (the first of several runs) */
    char **files;  /* every run's, `runs` of them (NULL for a single report: `file`) */
    size_t runs;   /* the reports pooled here: 1, or more from diff_merge_runs */
    char *version; /* wgprof's, "" where absent */
    char *adapter, *driver, *backend, *implementation, *strategy, *shader_checks; /* "" where absent */
    char *partial; /* NULL: complete; else why the report's results are partial ("partial": true),
                      "FILE: why" for a side of several runs, the first partial one's */
    double period_ns;  /* NAN where the report gives none (its batches' periods differ) */
    double quantum_ns; /* 0 where none shows */
    bool quantized;
    long long iterations; /* as the report says (the runs' sum); -1 where absent */
    diff_series *kernels; /* in order of first appearance */
    size_t kernel_count;
    diff_series *scopes;  /* by path, in order of first appearance */
    size_t scope_count;
    diff_series total;     /* per-iteration sums of valid durations; iterations holding an invalid
                              dispatch are left out (total.skipped counts them) */
    size_t total_readings; /* the most dispatches one of those sums adds up (the runs' most) */
    size_t dispatches;     /* records in the report, valid or not */
    size_t invalid;        /* of which invalid */
    size_t scope_instances, invalid_scopes;
} diff_profile;

/* Reads the report at `path` ("-": standard input; a regular file otherwise, at most
 * DIFF_MAX_REPORT_BYTES). `name` stands for it in messages (NULL: `path`). On failure returns
 * the status with the message in `error`, and `out` holds nothing to free. dev/ino receive the
 * file's identity (0 for standard input) where not NULL. */
diff_status diff_load_file(const char *path, diff_profile *out, uint64_t *dev, uint64_t *ino, char *error,
                           size_t error_cap);
/* The same from `size` bytes at `data`, named `name` in messages. */
diff_status diff_load_buffer(const char *name, const char *data, size_t size, diff_profile *out, char *error,
                             size_t error_cap);
/* The same, of a report of several result sets (`wgprof record` of several devices or
 * processes: "result_sets", docs/reports.md): `set` 0 reads a report alone or the one set of
 * such a report, and refuses one of several, naming them; `set` K (from 1) reads its Kth set (a
 * report alone counts as one set). */
diff_status diff_load_file_set(const char *path, size_t set, diff_profile *out, uint64_t *dev, uint64_t *ino,
                               char *error, size_t error_cap);
diff_status diff_load_buffer_set(const char *name, const char *data, size_t size, size_t set, diff_profile *out,
                                 char *error, size_t error_cap);
void diff_profile_free(diff_profile *p);
/* A copy of `s` (malloc), NULL when out of memory. */
char *diff_copy_text(const char *s);

/* ---- several runs a side (diff_runs.c) ---- */

/* Pools the `n` profiles at `runs` (1 to DIFF_MAX_RUNS, each read by diff_load_*) as the runs of
 * one side: each series holds every run's samples, each sample its run. The runs must agree in
 * every setting a comparison states (diff_settings_differ); where one does not, DIFF_BAD_INPUT
 * with a message naming it. The profiles at `runs` are freed either way. */
diff_status diff_merge_runs(diff_profile *runs, size_t n, diff_profile *out, char *error, size_t error_cap);

/* ---- statistics (diff_stats.c) ---- */

/* Past this many iterations a side's blocks hold several consecutive ones, which bounds the
 * bootstrap's work; below DIFF_MIN_BLOCKS blocks the samples are resampled one by one. */
#define DIFF_MAX_BLOCKS 512
#define DIFF_MIN_BLOCKS 5

/* Builds `out` from `n` samples, their iterations and runs (`raw` is reordered and overwritten).
 * Each run's iterations become its blocks; with several runs, each has at most
 * DIFF_MAX_BLOCKS / runs of them. False when out of memory or with more than DIFF_MAX_RUNS runs;
 * `out` then holds nothing to free. */
bool diff_samples_build(diff_raw *raw, size_t n, diff_samples *out);
void diff_samples_free(diff_samples *s);

/* The median of `n` sorted values (the mean of the two middle ones for even n); NAN for none. */
double diff_median(const double *sorted, size_t n);

/* An estimate of new/base for the ratio of two medians. */
typedef struct diff_interval {
    double ratio;  /* median(new) / median(base); 1 where both are 0, +inf where only base is (a row
                      whose base median is 0 has none: diff_absolute) */
    double lo, hi; /* the percentile bootstrap interval at `confidence` */
} diff_interval;

/* The change of a row whose base median is 0 (a timer too coarse for the base's dispatches: a
 * ratio over 0 tells nothing), in nanoseconds. */
typedef struct diff_absolute {
    double change_ns;    /* median(new) - median(base) */
    double lo_ns, hi_ns; /* its percentile bootstrap interval; NAN without one */
} diff_absolute;

/* The ratio of the medians of `new_` over `base` (samples of at least 0) and its percentile
 * bootstrap interval: `resamples` times, each side is resampled independently and the ratio of
 * the resamples' medians taken; lo and hi are the (1 - confidence)/2 and (1 + confidence)/2
 * quantiles of those ratios. A side of DIFF_MIN_BLOCKS blocks or more is resampled a block at
 * a time (its blocks drawn with replacement, as many as it has: the dispatches of an iteration
 * are not independent of each other), a side of fewer a sample at a time, its median then drawn
 * from its exact distribution without drawing the resample. Either way a resample costs
 * O(blocks log count) at most, whatever the count. A side of several runs is resampled at two
 * levels: as many runs as it has, drawn with replacement, and within each run drawn, as many of
 * its blocks as it has, drawn with replacement, each resample's median moved from the side's
 * by sqrt(runs / (runs - 1)) times its distance (few runs drawn from spread less than fresh
 * ones); so the interval covers how far whole runs move, which no one run shows. The same seed gives the same interval. All NAN where a side is
 * empty; false when out of memory. */
bool diff_ratio_interval(const diff_samples *base, const diff_samples *new_, unsigned resamples, double confidence,
                         uint64_t seed, diff_interval *out);
/* The `resamples` ratios of that bootstrap, sorted, into `out` (a caller's array of `resamples`):
 * the same draws as diff_ratio_interval's for the same seed. Nothing where a side is empty. */
void diff_bootstrap_ratios(const diff_samples *base, const diff_samples *new_, unsigned resamples, uint64_t seed,
                           double *out);
/* The same ratios in the order drawn. A resample's draws depend on the seed and on the sides'
 * runs and blocks alone: rows whose sides have the same runs and blocks, drawn with one seed,
 * are drawn from the same runs and blocks in each resample (diff_common.c reads one row's change
 * against others' that way). */
void diff_bootstrap_draws(const diff_samples *base, const diff_samples *new_, unsigned resamples, uint64_t seed,
                          double *out);
/* `n` values sorted ascending. */
void diff_sort(double *v, size_t n);
/* The interval of `ratio` from `n` sorted bootstrap ratios, each divided by `scale` (1: as they
 * are), and the two-sided p-value of no change: the larger of a normal tail from the spread of
 * the logarithms of the ratios (not bounded below by 1 / n) and the share of the ratios on the
 * far side of no change, doubled (so that it agrees with the interval). */
void diff_interval_from(const double *sorted, size_t n, double ratio, double scale, double confidence,
                        diff_interval *out, double *p);
/* The p-quantile of `n` sorted values (linear between order statistics); NAN for none. */
double diff_quantile(const double *sorted, size_t n, double p);

/* The median of the samples of `s` with block b taken w[b] times (blocks <= DIFF_MAX_BLOCKS);
 * NAN where that is none. */
double diff_weighted_median(const diff_samples *s, const uint32_t *w);
/* Their p-quantile, as diff_quantile takes it (the median's for p = 0.5). */
double diff_weighted_quantile(const diff_samples *s, const uint32_t *w, double p);
/* The median of one resample of `s`, with the generator state `rng` (4 words, seeded by
 * diff_rng_seed). */
double diff_resample_median(const diff_samples *s, uint64_t rng[4]);
/* The p-quantile of one resample of `s`, drawn as the median's is: the same generator state
 * draws the same runs and blocks for either. */
double diff_resample_quantile(const diff_samples *s, double p, uint64_t rng[4]);
void diff_rng_seed(uint64_t rng[4], uint64_t seed);
/* Uniform on (0, 1) from that generator. */
double diff_uniform(uint64_t rng[4]);

/* The difference of the medians, new - base, and its percentile bootstrap interval, drawn as
 * diff_ratio_interval draws (the same seed, the same resamples), and the p-value of no change
 * that the timer can tell: the base read 0, so its time lay below `below_ns` (one tick of its
 * timer, one a dispatch for a sum of dispatches); a change up to that is none that can be told.
 * One-sided (a base of 0 cannot get faster): the larger of twice the normal tail of
 * (change - below) over the spread of the resampled differences (from their quartiles) and twice
 * the share of them at or below `below_ns`, at most 1; 1 where the change is not above it. All
 * NAN and p 1 where a side is empty; false when out of memory. */
bool diff_absolute_interval(const diff_samples *base, const diff_samples *new_, unsigned resamples, double confidence,
                            uint64_t seed, double below_ns, diff_absolute *out, double *p);

typedef enum diff_verdict {
    DIFF_NO_CHANGE,
    DIFF_FASTER,
    DIFF_SLOWER,
    DIFF_ADDED,   /* in the new report only */
    DIFF_REMOVED, /* in the base report only */
    DIFF_TOO_FEW, /* fewer than DIFF_MIN_SAMPLES valid samples on a side */
} diff_verdict;

/* slower: the interval lies above 1 and the ratio is above 1 + threshold; faster: the interval
 * lies below 1 and the ratio is below 1 / (1 + threshold) (the same change the other way);
 * else no change. diff_compare also asks that the row's p-value, corrected for the rows tested
 * (Holm), be below 1 - confidence, and so its rank test's where that can be (4 runs a side or
 * more, or one run a side). */
diff_verdict diff_verdict_of(const diff_interval *iv, double threshold);
/* The verdict of a row whose base median is 0, whose time lay below `below_ns` (0 where that is
 * not known): slower where the interval lies above below_ns and the change above below_ns *
 * (1 + threshold), so that the new side is longer than the base can have been by more than the
 * threshold; else no change (a base of 0 cannot be faster). diff_compare asks the corrected
 * p-value and the rank test as for any row. */
diff_verdict diff_absolute_verdict(const diff_absolute *a, double below_ns, double threshold);
const char *diff_verdict_str(diff_verdict v);

/* ---- tests beside the interval (diff_tests.c) ---- */

/* The two-sided p-value of the Mann-Whitney rank test of `a` against `b` (unsorted; NAN values
 * are not taken): exact where there are no ties and few values, else the normal approximation
 * with the correction for ties and for continuity. 1 where a side has no value. */
double diff_rank_test(const double *a, size_t na, const double *b, size_t nb);
/* The smallest p-value diff_rank_test can give for na and nb values: 2 / (na + nb choose na)
 * where it is exact, 0 past that. */
double diff_rank_floor(size_t na, size_t nb);
/* Holm's step-down correction of `n` p-values (NAN: not tested, left NAN) into `adjusted`. */
void diff_holm(const double *p, size_t n, double *adjusted);
/* The median of each run of `s` (its run r at medians[r], s->runs of them); false when out of
 * memory. */
bool diff_run_medians(const diff_samples *s, double *medians);
/* The median of each block of `s` (s->blocks of them). */
void diff_block_medians(const diff_samples *s, double *medians);
/* Whether the runs of `s` disagree: some two runs' own intervals of their medians (each run's
 * blocks resampled on their own) do not overlap, and their medians differ by more than
 * `threshold`. False for fewer than two runs or when out of memory. */
bool diff_runs_disagree(const diff_samples *s, double threshold, unsigned resamples, double confidence, uint64_t seed);

/* ---- the comparison (diff_compare.c) ---- */

typedef enum diff_kind { DIFF_KERNEL, DIFF_TOTAL, DIFF_SCOPE, DIFF_COMMON } diff_kind;

typedef struct diff_side {
    bool present;
    size_t count, skipped;
    size_t runs;       /* the runs that hold its samples (fewer than the side's where a run's were
                          all invalid) */
    double median_ns;  /* NAN without samples */
    double q1_ns, q3_ns; /* its spread: the quartiles of its samples, NAN without samples */
    double *run_medians; /* each run's median, `runs` of them (owned by the result), NULL for one run */
    bool runs_disagree;  /* diff_runs_disagree of its samples */
} diff_side;

typedef struct diff_row {
    diff_kind kind;
    const char *name; /* borrowed from a profile; "common" for the common row */
    diff_side base, new_;
    diff_interval raw; /* the ratio of the medians as measured, and its interval */
    diff_interval iv;  /* the change the verdict reads: against the change common to the kernels
                          where that is separated (diff_common.c), else `raw`; NAN where there is
                          no pair to compare, or where zero_base */
    bool zero_base;    /* both sides have samples and the base's median is 0: no ratio (raw and iv
                          NAN); the verdict and the gate read `absolute`, as measured */
    double base_below_ns; /* where zero_base: what the base's time lay below (diff_result's
                             base_tick_ns; the total's times the most dispatches an iteration
                             sums); NAN otherwise */
    diff_absolute absolute; /* the change in ns, where both sides have samples; its interval where
                               zero_base and tested */
    double p;          /* the two-sided p-value of no change (diff_interval_from), NAN: untested */
    double p_holm;     /* p corrected over the rows tested */
    double rank_p;     /* Mann-Whitney over the runs' medians (over the iterations' with one run
                          a side), against the common change as iv is; NAN: untested */
    double rank_floor; /* the smallest p-value that rank test can give for as many runs */
    bool in_common;    /* a kernel that sets the common change */
    bool in_rival;     /* common_guessed: a kernel of a group as large as the common one that
                          moved against it */
    bool reference;    /* wgprof's reference kernel (WGPROF_REFERENCE_KERNEL): the machine's speed,
                          out of the total and the geometric mean */
    diff_verdict verdict;
    bool fails;        /* its interval lies above 1 + fail_if_slower (where zero_base: its
                          absolute interval above base_below_ns * (1 + fail_if_slower)) */
    bool fails_reversed; /* with gate_both_ways, where which group changed is too close to call
                            (common_unsure): a kernel of the rival group (in_rival) faster than
                            the common change, its interval below 1 / (1 + fail_if_slower), so
                            that read the other way the common group is slower against it by
                            more than the gate allows */
} diff_row;

typedef struct diff_options {
    double threshold;      /* a fraction: 0.05 for 5% */
    double fail_if_slower; /* a fraction, or < 0 for none */
    bool gate_common;      /* --fail-if-slower also gates the common change */
    bool gate_both_ways;   /* where common_unsure, --fail-if-slower also reads it the other way
                              (fails_reversed) */
    uint64_t seed;
    unsigned resamples;
    double confidence;
} diff_options;

/* One setting in which the runs differ, both values as text. */
typedef struct diff_difference {
    const char *what;
    char base[160], new_[160];
} diff_difference;

enum { DIFF_MAX_DIFFERENCES = 10 };

/* The settings in which `a` and `b` differ (adapter, driver, backend, implementation, strategy,
 * timestamp period and quantization, shader checks, wgprof's version), at most `cap` of them,
 * into `out`; returns how many. */
size_t diff_settings_differ(const diff_profile *a, const diff_profile *b, diff_difference *out, size_t cap);

typedef struct diff_result {
    const diff_profile *base, *new_;
    diff_options options;
    diff_row *rows; /* kernels (the base's order, then those added), the total, then the scopes */
    size_t row_count;
    /* The change common to the kernels (diff_common.c): separated where two kernels or more are
     * compared; then every row's iv is against it, and `common` holds it as measured. */
    bool separated;
    size_t compared;        /* the kernels compared (present on both sides, enough samples, a
                               typical base median above 0: the median of its base runs' medians) */
    size_t common_kernels;  /* of which set the common change */
    bool common_guessed;    /* another group of as many kernels moved against them: which group
                               changed is a guess (two kernels, one changed) */
    double common_support;  /* where guessed: the share of the bootstrap's resamples in which the
                               same group's quickest times moved least; NAN otherwise */
    bool common_unsure;     /* guessed, with common_support below the confidence: either group
                               may be the one that changed (with gate_both_ways, --fail-if-slower
                               reads it both ways: fails_reversed) */
    bool common_not_machine; /* the reference kernel (WGPROF_REFERENCE_KERNEL) is outside the
                                common group: the common change is the spec's, gated */
    diff_row common;        /* kind DIFF_COMMON; verdict DIFF_TOO_FEW where not separated */
    double *base_speed, *new_speed; /* each run's speed factor (1: the base's typical run), one
                                       per run of each side, NULL where not separated */
    bool by_iteration;      /* the samples were divided by their iteration's speed (the kernels
                               share their iterations), not only their run's */
    double base_tick_ns;    /* one tick of the base's timer: its timestamp quantum where the report
                               names one, else its timestamp period; 0 where neither is known */
    double geomean;         /* the geometric mean over the kernels compared of their raw ratios */
    size_t tested;          /* the rows whose p-value Holm's correction counts */
    diff_difference differences[DIFF_MAX_DIFFERENCES];
    size_t difference_count;
    bool failed; /* some kernel or the total (or, with gate_common, the common change) fails
                    --fail-if-slower, or a kernel fails it read the other way (fails_reversed) */
} diff_result;

void diff_default_options(diff_options *o);
/* A row's seed: the seed given, mixed with the row's kind and name (diff_stats.c), so that a row's
 * interval does not depend on the other rows. */
uint64_t diff_row_seed(uint64_t seed, diff_kind kind, const char *name);

/* Row i's series on each side (NULL where absent). */
typedef struct diff_pair {
    const diff_series *base, *new_;
} diff_pair;
/* Every tested row's interval, p-value and rank test, and the common change (diff_common.c), for
 * rows whose sides and point ratio diff_compare has filled; false when out of memory. */
bool diff_common_apply(diff_result *r, const diff_pair *pairs);
/* Compares; the result borrows from both profiles, which must outlive it. DIFF_FAILED: out of
 * memory. */
diff_status diff_compare(const diff_profile *base, const diff_profile *new_, const diff_options *o, diff_result *out);
void diff_result_free(diff_result *r);

/* ---- writers (diff_report.c, diff_html.c); false when the stream fails ---- */

bool diff_write_table(const diff_result *r, FILE *out);
bool diff_write_markdown(const diff_result *r, FILE *out);
bool diff_write_json(const diff_result *r, FILE *out);
bool diff_write_html(const diff_result *r, FILE *out);

/* "+12.3%" for a ratio of 1.123 into `out`; "-" where not finite (a ratio over a zero). */
void diff_format_change(double ratio, char *out, size_t cap);

#endif
