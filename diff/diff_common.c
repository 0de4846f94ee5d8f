/*
 * The machine's speed taken out of a comparison (diff.h): on a shared machine whole runs move
 * together, every kernel of a run by about the same factor, while a regression moves one kernel
 * against the others. So, where two kernels or more are compared:
 *
 * 1. Each run's speed factor: for each kernel compared, its run's median over its typical
 *    median on the base side (the median of the base runs' medians); the run's factor is the
 *    median of those ratios over the kernels (a median, so that one kernel that changed does not
 *    move it much; with two kernels, their mean). Where the kernels share their iterations (each
 *    runs in every iteration), each iteration gets its factor the same way, from the kernels'
 *    medians in that iteration: a machine's load comes in bursts shorter than a run, and the
 *    kernels of one iteration run within the same burst. A kernel whose typical base median is 0
 *    (most of its base runs read 0 at their median) has no speed to give: it sets none, and is in
 *    no group of 3. below.
 * 2. Each row's samples divided by their iteration's factor (their run's, for a row whose
 *    iterations are not the kernels'), and the ratio of the medians of those
 *    bootstrapped as any row's (whole runs, then iterations, diff_stats.c): a change against the
 *    kernels' typical change, with an interval that no longer holds how far whole runs moved.
 * 3. Which change is common. Changes against the typical one are known only up to a factor
 *    that every kernel shares; with few kernels (two: each is half the typical change) the
 *    typical change is not the common one. The common change is the one most kernels share
 *    (within the threshold of each other, as changes against the typical one); between two
 *    groups of as many kernels, the one holding wgprof's reference kernel where the runs
 *    have it (`wgprof run --reference`, WGPROF_REFERENCE_KERNEL: work no change to the spec
 *    touches), else the one whose kernels' quickest times moved least: each kernel's
 *    QUIET_QUANTILE quantile of its samples, new over base (a machine's load slows times down,
 *    never up, so its quickest times are the least loaded on either side, however loaded each
 *    side was on the whole). That last choice is still a guess where the groups are as large
 *    (two kernels, one of them changed): a side that never ran unloaded can mislead it, and the
 *    report says so (common_guessed); the change of one group against the other stays
 *    measured either way. How firmly the quickest times chose is read from the bootstrap: each
 *    kernel's quickest times resampled as its medians are (runs, then blocks), the share of
 *    resamples in which the chosen group's moved less than every rival's, a tie counting half
 *    (common_support). Below the confidence (a run or two set the quickest times, or both
 *    groups' moved about as much) either group may be the one that changed (common_unsure);
 *    the rivals' kernels are marked (in_rival), and with --gate-both-ways --fail-if-slower
 *    reads it both ways (diff_compare.c: fails_reversed).
 *    A reference outside the common group (more kernels moved together than stayed with it)
 *    says that the common change is the spec's, not the machine's (common_not_machine): it is
 *    then gated as the kernels are. The reference alone does not set the common change: it is
 *    one kernel, one dispatch an iteration, as noisy as any.
 * 4. Every row's change is then against that common change (its own bootstrap ratios over the
 *    common group's change), and the common change is a row of its own: the samples of the
 *    kernels that share it, each over its kernel's typical base median, compared as measured,
 *    with the interval of whole runs (wide where the machine's load moved whole runs).
 * 5. Kernels whose sides have the same runs and blocks (a spec's, the demo's: every kernel in
 *    every iteration) are resampled together, one draw of runs and blocks for all of them in
 *    each resample, so that each resample has its own common change (the median of the common
 *    group's ratios there) and a row's change against it carries the common change's own error
 *    too: with a small common group (one kernel and wgprof's reference) that error is not
 *    small.
 * With one kernel the machine's speed cannot be told from the kernel's change: every row's
 * change is as measured. A row whose base median is 0 has no ratio and no typical base time to
 * scale: it is tested in ns as measured (diff_absolute_interval) and sets no speed nor the
 * common change.
 *
 * Every row also gets the p-value of no change read from its bootstrap, and a Mann-Whitney
 * test over its runs' medians (over its iterations' with one run a side) on the same scale,
 * with the smallest p-value that test can give for as many values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* The quantile of a kernel's samples on each side whose ratio tells which of two equal groups of
 * kernels changed (3. above): their quickest tenth, where a busy machine was least loaded. */
#define QUIET_QUANTILE 0.1

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `n` NANs at `v`: a value not filled in is not taken. */
static void fill_nan(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        v[i] = NAN;
    }
}

/* The median of the values at v[0 .. n) that are not NAN (reordered); NAN for none. */
static double median_of(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(v[i])) {
            v[m++] = v[i];
        }
    }
    qsort(v, m, sizeof *v, compare_doubles);
    return diff_median(v, m);
}

/* A row's series on each side, and its bootstrap ratios. */
typedef struct row_work {
    const diff_series *base, *new_;
    bool tested;                    /* its ratio bootstrapped */
    bool absolute;                  /* a base median of 0: its change in ns bootstrapped instead */
    bool scaled;                    /* a kernel tested whose typical base median is above 0: it
                                       sets the speeds and may set the common change */
    diff_samples adj_base, adj_new; /* samples over their iteration's (or run's) speed */
    double adj_ratio;               /* the ratio of the adjusted medians */
    double *ratios;                 /* its bootstrap ratios, sorted (adjusted where separated) */
    double *draws;                  /* the same in the order drawn, where drawn with the other
                                       kernels' (5. above); NULL otherwise */
} row_work;

/* Each run's median of `s` into by_run[0 .. runs) (its run numbers on its side), NAN for a run
 * without a sample. */
static bool medians_by_run(const diff_samples *s, double *by_run, size_t runs)
{
    for (size_t r = 0; r < runs; r++) {
        by_run[r] = NAN;
    }
    double *m = malloc((s->runs ? s->runs : 1) * sizeof *m);
    if (!m || !diff_run_medians(s, m)) {
        free(m);
        return false;
    }
    for (size_t r = 0; r < s->runs; r++) {
        if (s->run_id[r] < runs) {
            by_run[s->run_id[r]] = m[r];
        }
    }
    free(m);
    return true;
}

/* One side's speeds: each run's, and each block's where every kernel compared has the blocks of
 * `shape` (the same runs, as many blocks in each: the same iterations). */
typedef struct side_speed {
    double *run;               /* by run number */
    double *block;             /* by block of `shape`, NULL where the kernels' blocks differ */
    const diff_samples *shape;
} side_speed;

/* Whether `s` has the runs and blocks of `shape`. */
static bool same_shape(const diff_samples *s, const diff_samples *shape)
{
    if (s->runs != shape->runs || s->blocks != shape->blocks) {
        return false;
    }
    for (size_t r = 0; r < s->runs; r++) {
        if (s->run_id[r] != shape->run_id[r] || s->run_start[r + 1] != shape->run_start[r + 1]) {
            return false;
        }
    }
    return true;
}

/* A factor, or 1 where it is none. */
static double usable(double f) { return f > 0 && isfinite(f) ? f : 1.0; }

/* `s` with every sample divided by its block's speed where it has the kernels' blocks, else by
 * its run's, into `out`. */
static bool divide_by_speed(const diff_samples *s, const side_speed *speed, diff_samples *out)
{
    memset(out, 0, sizeof *out);
    if (!s->count) {
        return true;
    }
    diff_raw *raw = malloc(s->count * sizeof *raw);
    if (!raw) {
        return false;
    }
    bool by_block = speed->block && same_shape(s, speed->shape);
    size_t at = 0;
    for (size_t r = 0; r < s->runs; r++) {
        for (size_t b = s->run_start[r]; b < s->run_start[r + 1]; b++) {
            double f = usable(by_block ? speed->block[b] : speed->run[s->run_id[r]]);
            for (size_t i = s->block_start[b]; i < s->block_start[b + 1]; i++) {
                raw[at++] = (diff_raw){(long long)b, s->by_block[i] / f, s->run_id[r]};
            }
        }
    }
    bool ok = diff_samples_build(raw, at, out);
    free(raw);
    return ok;
}

/* Each block's speed of one side where the kernels compared share their blocks: the median over
 * the kernels of their block's median to their typical base median. */
static bool block_speeds(const diff_result *r, const row_work *work, bool new_side, const double *typical,
                         side_speed *speed)
{
    const diff_samples *shape = NULL;
    for (size_t i = 0; i < r->row_count; i++) {
        if (work[i].scaled) {
            const diff_samples *s = &(new_side ? work[i].new_ : work[i].base)->samples;
            if (shape && !same_shape(s, shape)) {
                return true; /* the kernels' iterations differ: runs' speeds only */
            }
            shape = s;
        }
    }
    if (!shape || !shape->blocks) {
        return true; /* no kernel compared on this side */
    }
    size_t blocks = shape->blocks, n = r->compared, k = 0;
    double *medians = malloc(blocks * sizeof *medians), *ratios = calloc(blocks * n, sizeof *ratios);
    speed->block = malloc(blocks * sizeof *speed->block);
    if (!medians || !ratios || !speed->block) {
        free(medians);
        free(ratios);
        return false;
    }
    fill_nan(ratios, blocks * n);
    for (size_t i = 0; i < r->row_count && k < n; i++) {
        if (work[i].scaled) {
            diff_block_medians(&(new_side ? work[i].new_ : work[i].base)->samples, medians);
            for (size_t b = 0; b < blocks; b++) {
                ratios[b * n + k] = typical[i] > 0 ? medians[b] / typical[i] : NAN;
            }
            k++;
        }
    }
    for (size_t b = 0; b < blocks; b++) {
        speed->block[b] = median_of(&ratios[b * n], n);
    }
    speed->shape = shape;
    free(medians);
    free(ratios);
    return true;
}

/* Each run's speed factor of one side (1. above) from the kernels' run medians. */
static bool run_speeds(const diff_result *r, const row_work *work, bool new_side, const double *typical,
                       double *speed)
{
    size_t runs = (new_side ? r->new_ : r->base)->runs, n = r->compared, k = 0;
    double *by_run = malloc(runs * sizeof *by_run), *ratios = calloc((n ? n : 1) * runs, sizeof *ratios);
    if (!by_run || !ratios) {
        free(by_run);
        free(ratios);
        return false;
    }
    bool ok = true;
    fill_nan(ratios, (n ? n : 1) * runs);
    for (size_t i = 0; ok && i < r->row_count && k < n; i++) {
        if (!work[i].scaled) {
            continue;
        }
        ok = medians_by_run(&(new_side ? work[i].new_ : work[i].base)->samples, by_run, runs);
        for (size_t run = 0; ok && run < runs; run++) {
            ratios[run * n + k] = typical[i] > 0 ? by_run[run] / typical[i] : NAN;
        }
        k++;
    }
    for (size_t run = 0; ok && run < runs; run++) {
        speed[run] = median_of(&ratios[run * n], n);
    }
    free(by_run);
    free(ratios);
    return ok;
}

/* A kernel's quickest times `n` over its base's `b` (3. above); where the base's read 0
 * (timestamps too coarse for its quickest dispatches), its change as measured, `measured`. */
static double quiet_ratio(double b, double n, double measured) { return b > 0 ? n / b : measured; }

/* How far a group's quickest times moved: the absolute log of the median of their ratios at
 * v[0 .. n) (reordered), INFINITY where there is none to read. */
static double moved_distance(double *v, size_t n)
{
    double moved = median_of(v, n);
    return moved > 0 && isfinite(moved) ? fabs(log(moved)) : INFINITY;
}

/* The group around kernel j (3. above): how many of the `n` kernels' changes `x` lie within
 * `band` (a log ratio) of j's, and, where `values` is given, theirs copied into `out`. */
static size_t group_around(const double *x, size_t n, size_t j, double band, const double *values, double *out)
{
    size_t size = 0;
    for (size_t i = 0; i < n; i++) {
        if (fabs(log(x[i] / x[j])) <= band) {
            if (values) {
                out[size] = values[i];
            }
            size++;
        }
    }
    return size;
}

/* How far the quickest times of the group around kernel j moved (3. above): the absolute log of
 * the median of their ratios `quiet`, INFINITY where there is none to read; `scratch` holds n. */
static double quiet_distance(const double *x, size_t n, size_t j, double band, const double *quiet, double *scratch)
{
    return moved_distance(scratch, group_around(x, n, j, band, quiet, scratch));
}

/* Another group as large as the one around `best` (support kernels), apart from it. */
static bool rival(const double *x, size_t n, size_t j, size_t best, double band, size_t support)
{
    return group_around(x, n, j, band, NULL, NULL) == support && fabs(log(x[j] / x[best])) > band;
}

/* The members of the group around kernel j, `size` of them (group_around's count), into `out`. */
static void members_around(const double *x, size_t n, size_t j, double band, size_t size, size_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n && m < size; i++) {
        if (fabs(log(x[i] / x[j])) <= band) {
            out[m++] = i;
        }
    }
    while (m < size) {
        out[m++] = j; /* not reached: j is in its own group, and the count is group_around's */
    }
}

/* The groups as large as the one around `best` (3. above), `size` kernels each, their members
 * `size` at a time in *member: that one first, then each rival group once (kernels whose groups
 * hold the same kernels give one): more than one where the choice between them was a guess.
 * Their count; 0 when out of memory. */
static size_t list_groups(const double *x, size_t n, double band, size_t best, size_t size, size_t **member)
{
    size_t count = 1, room = 2;
    size_t *m = malloc(room * (size ? size : 1) * sizeof *m);
    if (!m) {
        return 0;
    }
    members_around(x, n, best, band, size, m);
    for (size_t j = 0; j < n; j++) {
        if (!rival(x, n, j, best, band, size)) {
            continue;
        }
        if (count == room) {
            size_t *more = realloc(m, 2 * room * size * sizeof *m);
            if (!more) {
                free(m);
                return 0;
            }
            m = more;
            room *= 2;
        }
        size_t *at = m + count * size;
        members_around(x, n, j, band, size, at);
        bool seen = false;
        for (size_t k = 1; k < count && !seen; k++) {
            seen = memcmp(m + k * size, at, size * sizeof *at) == 0;
        }
        count += !seen;
    }
    *member = m;
    return count;
}

/* How far group g's quickest times moved in one resample (`quiet`: each kernel's ratio). */
static double drawn_distance(const size_t *member, size_t size, const double *quiet, double *scratch)
{
    for (size_t m = 0; m < size; m++) {
        scratch[m] = quiet[member[m]];
    }
    return moved_distance(scratch, size);
}

/* How firmly the quickest times chose between groups as large (3. above): the share of the
 * bootstrap's resamples in which the group around `best` moved less than every rival (a tie
 * counts half) into *support. Each kernel's quickest times are resampled as its medians are
 * (runs, then blocks within them), every kernel from its own generator seeded alike, so that
 * kernels of the same runs and blocks draw the same ones in each resample. False when out of
 * memory. */
static bool choice_support(const diff_result *r, const row_work *work, const size_t *row_of, size_t n,
                           const size_t *member, size_t count, size_t best_support, double *support)
{
    unsigned resamples = r->options.resamples;
    uint64_t(*rng)[4] = malloc((n ? n : 1) * sizeof *rng);
    double *drawn = malloc((n ? n : 1) * sizeof *drawn), *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!rng || !drawn || !scratch) {
        free(rng);
        free(drawn);
        free(scratch);
        return false;
    }
    uint64_t seed = diff_row_seed(r->options.seed, DIFF_KERNEL, "") ^ 2;
    for (size_t k = 0; k < n; k++) {
        diff_rng_seed(rng[k], seed);
    }
    double held = 0;
    for (unsigned d = 0; d < resamples; d++) {
        for (size_t k = 0; k < n; k++) {
            const row_work *w = &work[row_of[k]];
            double b = diff_resample_quantile(&w->base->samples, QUIET_QUANTILE, rng[k]);
            double q = diff_resample_quantile(&w->new_->samples, QUIET_QUANTILE, rng[k]);
            drawn[k] = quiet_ratio(b, q, r->rows[row_of[k]].raw.ratio);
        }
        double chosen = drawn_distance(member, best_support, drawn, scratch), nearest = INFINITY;
        for (size_t g = 1; g < count; g++) {
            nearest = fmin(nearest, drawn_distance(member + g * best_support, best_support, drawn, scratch));
        }
        held += chosen < nearest ? 1.0 : chosen == nearest ? 0.5 : 0.0;
    }
    *support = resamples ? held / resamples : NAN;
    free(rng);
    free(drawn);
    free(scratch);
    return true;
}

/* The kernels that share the common change (3. above): in_common set on their rows, the common
 * change on the adjusted scale into *common (NAN where no kernel's change is a finite ratio above
 * 0: none to choose from). False when out of memory. */
static bool choose_common(diff_result *r, const row_work *work, double *common)
{
    size_t n = r->compared, k = 0;
    double *x = malloc(n * sizeof *x), *quiet = malloc(n * sizeof *quiet), *group = malloc(n * sizeof *group);
    size_t *row_of = malloc(n * sizeof *row_of);
    if (!x || !quiet || !group || !row_of) {
        free(x);
        free(quiet);
        free(group);
        free(row_of);
        return false;
    }
    for (size_t i = 0; i < r->row_count && k < n; i++) {
        double ratio = work[i].adj_ratio;
        if (work[i].scaled && ratio > 0 && isfinite(ratio)) {
            x[k] = ratio;
            const diff_samples *b = &work[i].base->samples, *q = &work[i].new_->samples;
            quiet[k] = quiet_ratio(diff_quantile(b->sorted, b->count, QUIET_QUANTILE),
                                   diff_quantile(q->sorted, q->count, QUIET_QUANTILE), r->rows[i].raw.ratio);
            row_of[k++] = i;
        }
    }
    n = k;
    double band = log1p(r->options.threshold), best_distance = INFINITY;
    size_t best = 0, best_support = 0, reference = n;
    for (size_t j = 0; j < n; j++) {
        reference = r->rows[row_of[j]].reference ? j : reference;
    }
    bool best_with_reference = false;
    for (size_t j = 0; j < n; j++) {
        size_t support = group_around(x, n, j, band, NULL, NULL);
        double distance = quiet_distance(x, n, j, band, quiet, group);
        bool with_reference = reference < n && fabs(log(x[reference] / x[j])) <= band;
        if (support > best_support ||
            (support == best_support && (with_reference > best_with_reference ||
                                         (with_reference == best_with_reference && distance < best_distance)))) {
            best = j;
            best_support = support;
            best_distance = distance;
            best_with_reference = with_reference;
        }
    }
    /* Another group as large, apart from the one chosen: which moved was chosen by the quickest
     * times, unless the reference kernel, which no change touches, chose it. */
    size_t *member = NULL, groups = best_with_reference || !n ? 1 : list_groups(x, n, band, best, best_support, &member);
    bool ok = groups > 0;
    r->common_guessed = groups > 1;
    /* How firmly: where the rival's quickest times moved about as little, or a run or two set
     * them, either group may be the one that changed. */
    ok = ok && (!r->common_guessed ||
                choice_support(r, work, row_of, n, member, groups, best_support, &r->common_support));
    r->common_unsure = ok && r->common_guessed && !(r->common_support >= r->options.confidence);
    /* More kernels moved together than stayed with the reference: a change to them, not the
     * machine's speed. */
    r->common_not_machine = reference < n && !best_with_reference;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (fabs(log(x[i] / x[best])) <= band) {
            r->rows[row_of[i]].in_common = true;
            group[m++] = x[i];
        }
    }
    r->common_kernels = m;
    /* The kernels of the groups as large that moved against these: the other reading's. */
    for (size_t g = 1; ok && g < groups; g++) {
        for (size_t i = 0; i < best_support; i++) {
            diff_row *row = &r->rows[row_of[member[g * best_support + i]]];
            row->in_rival = row->in_rival || !row->in_common;
        }
    }
    free(member);
    *common = median_of(group, m);
    free(x);
    free(quiet);
    free(group);
    free(row_of);
    return ok;
}

/* The common row's series on one side: the samples of the kernels that share the common change,
 * each over its kernel's typical base median, pooled with their runs and blocks. */
static bool common_samples(const diff_result *r, const row_work *work, const double *typical, bool new_side,
                           diff_samples *out)
{
    size_t count = 0, blocks_before = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        if (r->rows[i].in_common) {
            count += (new_side ? work[i].new_ : work[i].base)->samples.count;
        }
    }
    memset(out, 0, sizeof *out);
    diff_raw *raw = malloc((count ? count : 1) * sizeof *raw);
    if (!raw) {
        return false;
    }
    size_t at = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        if (!r->rows[i].in_common) {
            continue;
        }
        const diff_samples *s = &(new_side ? work[i].new_ : work[i].base)->samples;
        for (size_t run = 0; run < s->runs; run++) {
            for (size_t b = s->run_start[run]; b < s->run_start[run + 1]; b++) {
                for (size_t j = s->block_start[b]; j < s->block_start[b + 1]; j++) {
                    /* a block of each kernel's own: the kernels' iterations are not aligned */
                    raw[at++] = (diff_raw){(long long)(blocks_before + b), s->by_block[j] / typical[i], s->run_id[run]};
                }
            }
        }
        blocks_before += s->blocks;
    }
    bool ok = diff_samples_build(raw, at, out);
    free(raw);
    return ok;
}

/* The rank test of a row on the scale of its iv: the runs' medians (new over `scale`), or with
 * one run a side the iterations'. */
static double rank_p(const diff_samples *base, const diff_samples *new_, double scale, double *floor)
{
    bool by_block = base->runs < 2 && new_->runs < 2;
    size_t nb = by_block ? base->blocks : base->runs, nn = by_block ? new_->blocks : new_->runs;
    *floor = diff_rank_floor(nb, nn);
    double *b = malloc((nb ? nb : 1) * sizeof *b), *n = malloc((nn ? nn : 1) * sizeof *n);
    double p = NAN;
    if (b && n) {
        bool ok = true;
        if (by_block) {
            diff_block_medians(base, b);
            diff_block_medians(new_, n);
        } else {
            ok = diff_run_medians(base, b) && diff_run_medians(new_, n);
        }
        for (size_t i = 0; ok && i < nn; i++) {
            n[i] /= scale;
        }
        p = ok ? diff_rank_test(b, nb, n, nn) : NAN;
    }
    free(b);
    free(n);
    return p;
}

/* The common row (4. above) on its own line. */
static bool fill_common(diff_result *r, const row_work *work, const double *typical)
{
    diff_row *c = &r->common;
    const diff_options *o = &r->options;
    diff_samples base, new_;
    if (!common_samples(r, work, typical, false, &base)) {
        return false;
    }
    if (!common_samples(r, work, typical, true, &new_)) {
        diff_samples_free(&base);
        return false;
    }
    double *ratios = malloc((size_t)o->resamples * sizeof *ratios);
    bool ok = ratios != NULL;
    if (ok) {
        double ratio = diff_median(new_.sorted, new_.count) / diff_median(base.sorted, base.count);
        diff_bootstrap_ratios(&base, &new_, o->resamples, diff_row_seed(o->seed, DIFF_COMMON, "common"), ratios);
        diff_interval_from(ratios, o->resamples, ratio, 1.0, o->confidence, &c->iv, &c->p);
        c->raw = c->iv;
        c->rank_p = rank_p(&base, &new_, 1.0, &c->rank_floor);
        c->base.count = base.count;
        c->new_.count = new_.count;
        c->base.runs = base.runs;
        c->new_.runs = new_.runs;
    }
    free(ratios);
    diff_samples_free(&base);
    diff_samples_free(&new_);
    return ok;
}

/* Every tested row's bootstrap, adjusted by the runs' speeds where `speeds` is set. */
static bool bootstrap_rows(diff_result *r, row_work *work, const side_speed *base_speed, const side_speed *new_speed)
{
    const diff_options *o = &r->options;
    const diff_samples *shape_base = NULL, *shape_new = NULL; /* the first kernel's, for joint draws */
    for (size_t i = 0; i < r->row_count; i++) {
        row_work *w = &work[i];
        if (!w->tested) {
            continue;
        }
        w->ratios = malloc((size_t)o->resamples * sizeof *w->ratios);
        if (!w->ratios) {
            return false;
        }
        const diff_samples *b = &w->base->samples, *n = &w->new_->samples;
        if (base_speed) {
            if (!divide_by_speed(b, base_speed, &w->adj_base) || !divide_by_speed(n, new_speed, &w->adj_new)) {
                return false;
            }
            b = &w->adj_base;
            n = &w->adj_new;
        }
        double mb = diff_median(b->sorted, b->count), mn = diff_median(n->sorted, n->count);
        w->adj_ratio = mb > 0 ? mn / mb : (mn > 0 ? INFINITY : 1.0);
        if (base_speed && w->scaled && !shape_base) {
            shape_base = &w->base->samples;
            shape_new = &w->new_->samples;
        }
        bool joint = base_speed && shape_base && r->rows[i].kind == DIFF_KERNEL &&
                     same_shape(&w->base->samples, shape_base) &&
                     same_shape(&w->new_->samples, shape_new);
        if (joint) {
            w->draws = malloc((size_t)o->resamples * sizeof *w->draws);
            if (!w->draws) {
                return false;
            }
            diff_bootstrap_draws(b, n, o->resamples, diff_row_seed(o->seed, DIFF_KERNEL, "") ^ 1, w->draws);
            memcpy(w->ratios, w->draws, (size_t)o->resamples * sizeof *w->ratios);
            diff_sort(w->ratios, o->resamples);
        } else {
            diff_bootstrap_ratios(b, n, o->resamples,
                                  diff_row_seed(o->seed, r->rows[i].kind, r->rows[i].name) ^ (base_speed ? 1 : 0),
                                  w->ratios);
        }
    }
    return true;
}

/* Whether every kernel of the common group was drawn with the others (5. above). */
static bool common_drawn_jointly(const diff_result *r, const row_work *work)
{
    size_t members = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        if (r->rows[i].in_common) {
            if (!work[i].draws) {
                return false;
            }
            members++;
        }
    }
    return members > 0;
}

/* Each jointly drawn row's ratios against each resample's common change (5. above), sorted, in
 * place of its ratios over the one common change; rows drawn apart keep theirs. Where the
 * common group was drawn jointly; false when out of memory. */
static bool against_joint_common(const diff_result *r, row_work *work, unsigned resamples)
{
    size_t members = r->common_kernels;
    double *common = malloc((size_t)resamples * sizeof *common), *v = malloc((members ? members : 1) * sizeof *v);
    bool ok = common && v && members;
    for (unsigned d = 0; ok && d < resamples; d++) {
        size_t m = 0;
        for (size_t i = 0; i < r->row_count; i++) {
            if (r->rows[i].in_common) {
                v[m++] = work[i].draws[d];
            }
        }
        common[d] = median_of(v, m);
    }
    for (size_t i = 0; ok && i < r->row_count; i++) {
        if (work[i].draws) {
            for (unsigned d = 0; d < resamples; d++) {
                work[i].ratios[d] = common[d] > 0 ? work[i].draws[d] / common[d] : NAN;
            }
            diff_sort(work[i].ratios, resamples);
        }
    }
    free(common);
    free(v);
    return ok;
}

static void free_work(row_work *work, size_t n)
{
    for (size_t i = 0; work && i < n; i++) {
        diff_samples_free(&work[i].adj_base);
        diff_samples_free(&work[i].adj_new);
        free(work[i].ratios);
        free(work[i].draws);
    }
    free(work);
}

bool diff_common_apply(diff_result *r, const diff_pair *pairs)
{
    const diff_options *o = &r->options;
    row_work *work = calloc(r->row_count ? r->row_count : 1, sizeof *work);
    double *typical = calloc(r->row_count ? r->row_count : 1, sizeof *typical);
    bool ok = work && typical;
    r->compared = 0;
    for (size_t i = 0; ok && i < r->row_count; i++) {
        diff_row *row = &r->rows[i];
        work[i] = (row_work){.base = pairs[i].base, .new_ = pairs[i].new_};
        bool pair = row->verdict != DIFF_ADDED && row->verdict != DIFF_REMOVED && row->verdict != DIFF_TOO_FEW &&
                    o->resamples >= 2;
        /* A base median of 0 has no ratio: that row is tested in ns, as measured (it has no
         * typical base time to take a speed from or to scale), and sets no speed. */
        work[i].tested = pair && !row->zero_base;
        work[i].absolute = pair && row->zero_base;
    }
    /* The measured changes first: every row shows them. */
    ok = ok && bootstrap_rows(r, work, NULL, NULL);
    for (size_t i = 0; ok && i < r->row_count; i++) {
        diff_row *row = &r->rows[i];
        if (work[i].tested) {
            diff_interval_from(work[i].ratios, o->resamples, row->raw.ratio, 1.0, o->confidence, &row->raw, &row->p);
            row->iv = row->raw;
        } else if (work[i].absolute) {
            ok = diff_absolute_interval(&work[i].base->samples, &work[i].new_->samples, o->resamples, o->confidence,
                                        diff_row_seed(o->seed, row->kind, row->name), row->base_below_ns,
                                        &row->absolute, &row->p);
        }
        if (work[i].tested || work[i].absolute) {
            row->rank_p = rank_p(&work[i].base->samples, &work[i].new_->samples, 1.0, &row->rank_floor);
        }
    }
    /* Each kernel's typical base median (1. above). One whose typical median is 0 (most of its
     * base runs read 0 at their median: a timer too coarse for it there, though not for the
     * pooled median) has no speed to give and no scale for the common row: it sets neither,
     * and is read against the others' common change as a scope is. */
    double *by_run = ok ? malloc(r->base->runs * sizeof *by_run) : NULL;
    ok = ok && by_run;
    r->compared = 0;
    for (size_t i = 0; ok && i < r->row_count; i++) {
        if (r->rows[i].kind == DIFF_KERNEL && work[i].tested) {
            ok = medians_by_run(&work[i].base->samples, by_run, r->base->runs);
            typical[i] = median_of(by_run, r->base->runs);
            work[i].scaled = typical[i] > 0;
            r->compared += work[i].scaled;
        }
    }
    free(by_run);
    r->separated = ok && r->compared >= 2;
    if (ok && r->separated) {
        r->base_speed = malloc(r->base->runs * sizeof *r->base_speed);
        r->new_speed = malloc(r->new_->runs * sizeof *r->new_speed);
        ok = r->base_speed && r->new_speed;
        ok = ok && run_speeds(r, work, false, typical, r->base_speed) && run_speeds(r, work, true, typical, r->new_speed);
        side_speed base_speed = {r->base_speed, NULL, NULL}, new_speed = {r->new_speed, NULL, NULL};
        ok = ok && block_speeds(r, work, false, typical, &base_speed) && block_speeds(r, work, true, typical, &new_speed);
        r->by_iteration = base_speed.block && new_speed.block;
        for (size_t i = 0; ok && i < r->row_count; i++) {
            free(work[i].ratios);
            work[i].ratios = NULL;
        }
        ok = ok && bootstrap_rows(r, work, &base_speed, &new_speed);
        free(base_speed.block);
        free(new_speed.block);
        double common = NAN;
        ok = ok && choose_common(r, work, &common);
        r->separated = ok && isfinite(common) && common > 0;
        bool jointly = ok && r->separated && common_drawn_jointly(r, work);
        ok = ok && (!jointly || against_joint_common(r, work, o->resamples));
        for (size_t i = 0; ok && r->separated && i < r->row_count; i++) {
            if (work[i].tested) {
                diff_row *row = &r->rows[i];
                bool joint = jointly && work[i].draws;
                diff_interval_from(work[i].ratios, o->resamples, joint ? work[i].adj_ratio / common : work[i].adj_ratio,
                                   joint ? 1.0 : common, o->confidence, &row->iv, &row->p);
                row->rank_p = rank_p(&work[i].adj_base, &work[i].adj_new, common, &row->rank_floor);
            }
        }
        ok = ok && (!r->separated || fill_common(r, work, typical));
        if (!r->separated) {
            free(r->base_speed);
            free(r->new_speed);
            r->base_speed = r->new_speed = NULL;
        }
    }
    free_work(work, r->row_count);
    free(typical);
    return ok;
}
