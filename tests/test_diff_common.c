/*
 * wgprof diff's method on a busy machine (diff/diff_common.c, diff_tests.c), on synthetic reports
 * whose truth is known, no GPU and no timing of this machine:
 * - runs whose speed is drawn at random (runs 2-3x apart) and iterations slowed by bursts of
 *   load, common to every kernel of the moment, with one kernel ("work") 1.5x slower on the new
 *   side: the move of work against "steady" found in 19 of 20 draws or more, work itself slower
 *   and steady quiet (which of the two moved, read from their quickest times) in 17 or more, a
 *   rerun of the base quiet in 19 of 20 or more, and --fail-if-slower 10 failing where work
 *   slowed; where work was taken for the common group, the choice said too close to call and
 *   the gate failing read the other way;
 * - two kernels on a machine that moves runs a little, one run a side and five: the choice
 *   firm, a 1.5x speed-up of one kernel faster and not gated, a 1.5x slow-down gated on it;
 * - every kernel 1.3x slower on a quiet machine: no kernel changes against the others, the
 *   common line is slower, and the gate fails on it only with gate_common;
 * - the same with wgprof's reference kernel beside the two (`wgprof run --reference`): which
 *   kernel moved is no guess, work slower and steady quiet in every draw; one kernel 1.3x
 *   slower beside the reference: slower against it; two kernels 1.3x slower against an
 *   unchanged reference: their common change said not the machine's, and gated; the reference
 *   never gated nor in the geometric mean;
 * - two kernels, one 1.5x slower, the other's quickest dispatches reading 0 on the base side:
 *   which moved is read from that kernel's change as measured, in either order of the rows;
 * - a kernel whose base runs' medians are mostly 0 (a timer too coarse for it in most runs)
 *   beside three read well, one 1.3x slower: it sets neither the speeds nor the common change,
 *   whose figures, and the others', stay numbers;
 * - one kernel: the common change is not separated, the change is as measured;
 * - four runs a side that overlap: the bootstrap alone would say slower, the runs' rank test
 *   does not, and the verdict waits for both;
 * - the rank test against exact values, Holm's correction against a worked example.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "diff.h"

/* The test's own generator (not the one under test): xorshift64*, restarted by each test, so
 * that each draws the same values whatever runs before it. */
#define SEED 0x2545f4914f6cdd1dull
static uint64_t g_state = SEED;
static uint64_t next(void)
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * 0x2545f4914f6cdd1dull;
}
static double unit(void) { return ((double)(next() >> 11) + 0.5) * 0x1.0p-53; }
static double lognormal(double spread)
{
    return exp(spread * sqrt(-2 * log(unit())) * cos(6.283185307179586 * unit()));
}

enum { MAX_KERNELS = 5, ITERATIONS = 20, PER_ITERATION = 4, ROUNDS = 20 };

/* How a side's runs were made. */
typedef struct load {
    size_t runs;
    double run_spread; /* log-normal spread of a run's speed as a whole (another machine) */
    bool bursts;       /* iterations slowed by 0 to 3 CPU hogs that come and go: 1, 1.4, 1.8 or
                          2.2 times; each run has its own share of loaded time, drawn at random,
                          so that runs' medians lie 2-3x apart */
    const double *run_speed; /* each run's speed as a whole besides (1: as drawn); NULL: none */
} load;

static char g_empty[] = "";

/* A side of `k` kernels named `names`, kernel i about centers[i] * change[i] ns a dispatch. */
static diff_profile make_side(size_t k, const char *const *names, const double *centers, const double *change,
                              const load *l)
{
    diff_profile p;
    memset(&p, 0, sizeof p);
    p.file = g_empty;
    p.runs = l->runs;
    p.version = p.adapter = p.driver = p.backend = p.implementation = p.strategy = p.shader_checks = g_empty;
    p.period_ns = 1;
    p.iterations = (long long)l->runs * ITERATIONS;
    p.kernels = calloc(k, sizeof *p.kernels);
    p.kernel_count = k;
    size_t n = l->runs * ITERATIONS * PER_ITERATION;
    diff_raw *raw[MAX_KERNELS];
    for (size_t i = 0; i < k; i++) {
        raw[i] = malloc(n * sizeof *raw[i]);
        p.kernels[i].name = (char *)names[i];
    }
    size_t at = 0;
    for (size_t r = 0; r < l->runs; r++) {
        double run = lognormal(l->run_spread) * (l->run_speed ? l->run_speed[r] : 1), busy = unit();
        for (size_t it = 0; it < ITERATIONS; it++) {
            int hogs = 0;
            for (int h = 0; l->bursts && h < 3; h++) {
                hogs += unit() < busy;
            }
            double burst = 1.0 + 0.4 * hogs;
            for (size_t d = 0; d < PER_ITERATION; d++, at++) {
                for (size_t i = 0; i < k; i++) {
                    double ns = centers[i] * change[i] * run * burst * lognormal(0.03);
                    raw[i][at] = (diff_raw){(long long)it, ns, (uint32_t)r};
                }
            }
        }
    }
    for (size_t i = 0; i < k; i++) {
        CHECK(diff_samples_build(raw[i], n, &p.kernels[i].samples));
        free(raw[i]);
    }
    p.dispatches = n * k;
    return p;
}

static void free_side(diff_profile *p)
{
    for (size_t i = 0; i < p->kernel_count; i++) {
        diff_samples_free(&p->kernels[i].samples);
    }
    free(p->kernels);
}

static const diff_row *row_named(const diff_result *r, const char *name)
{
    for (size_t i = 0; i < r->row_count; i++) {
        if (strcmp(r->rows[i].name, name) == 0) {
            return &r->rows[i];
        }
    }
    return NULL;
}

static void test_bursty_load(void)
{
    g_state = SEED;
    const char *names[] = {"work", "steady"};
    const double centers[] = {20000, 12000}, same[] = {1, 1}, slower[] = {1.5, 1};
    const load busy = {5, 0.03, true, NULL};
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.10;
    diff_options both = o;
    both.gate_both_ways = true;
    int caught = 0, moved = 0, covered = 0, uncovered_found = 0, steady_quiet = 0, rerun_quiet = 0, gate_right = 0,
        measured_missed = 0, gated = 0, wrong_unsure = 0, wrong = 0, one_way = 0;
    for (int round = 0; round < ROUNDS; round++) {
        diff_profile base = make_side(2, names, centers, same, &busy);
        diff_profile slow = make_side(2, names, centers, slower, &busy);
        diff_profile again = make_side(2, names, centers, same, &busy);
        diff_result r, q;
        CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
        CHECK(diff_compare(&base, &again, &o, &q) == DIFF_OK);
        CHECK(r.separated && r.compared == 2 && r.by_iteration);
        const diff_row *work = row_named(&r, "work"), *steady = row_named(&r, "steady");
        caught += work->verdict == DIFF_SLOWER;
        /* work against steady, whichever the common group is: the move the runs cannot hide */
        double against = work->iv.ratio / steady->iv.ratio;
        moved += (work->verdict == DIFF_SLOWER || steady->verdict == DIFF_FASTER) && fabs(against - 1.5) < 0.05 &&
                 r.common_guessed;
        bool holds = work->iv.lo < 1.5 && work->iv.hi > 1.5;
        covered += holds;
        uncovered_found += !work->in_common && !holds;
        steady_quiet += steady->verdict == DIFF_NO_CHANGE && steady->in_common;
        measured_missed += !(work->raw.lo > 1.0); /* as measured, the runs' speeds hide it */
        rerun_quiet += row_named(&q, "work")->verdict == DIFF_NO_CHANGE &&
                       row_named(&q, "steady")->verdict == DIFF_NO_CHANGE && !q.failed;
        gate_right += r.failed == (work->verdict == DIFF_SLOWER) && work->fails && !steady->fails;
        /* Where work was taken for the common group, how firmly the quickest times chose it, and
         * the gate read the other way where too close to call. */
        wrong += work->in_common;
        CHECK(r.common_guessed && r.common_support >= 0 && r.common_support <= 1 &&
              r.common_unsure == (r.common_support < o.confidence));
        one_way += !work->fails_reversed && !steady->fails_reversed; /* the default reads one way */
        diff_result b;
        CHECK(diff_compare(&base, &slow, &both, &b) == DIFF_OK);
        const diff_row *b_steady = row_named(&b, "steady");
        wrong_unsure += work->in_common && b.common_unsure && b_steady->in_rival && b_steady->fails_reversed &&
                        !b_steady->fails;
        gated += b.failed;
        diff_result_free(&b);
        CHECK(r.tested == 3); /* two kernels and the common change: these reports hold no total */
        CHECK(isfinite(work->p_holm) && work->p_holm >= work->p);
        diff_result_free(&r);
        diff_result_free(&q);
        free_side(&base);
        free_side(&slow);
        free_side(&again);
    }
    /* With two kernels, the move of one against the other is found; which of them moved is read
     * from each kernel's quickest tenth of its times on each side, which these runs' load (each
     * run its own share of loaded time) misleads where a side's runs were all loaded: said in
     * the report (common_guessed), and counted here (18 of these 20; the sides' median speeds,
     * read before, gave 16). */
    CHECK_MSG(moved >= 19, "work against steady (1.5x) found in %d of %d rounds", moved, ROUNDS);
    CHECK_MSG(caught >= 17 && caught == steady_quiet, "work slower in %d, steady quiet in %d of %d rounds", caught,
              steady_quiet, ROUNDS);
    CHECK_MSG(rerun_quiet >= 19, "a rerun quiet in %d of %d rounds", rerun_quiet, ROUNDS);
    CHECK_MSG(gate_right >= caught - 1, "the gate right in %d of %d rounds", gate_right, ROUNDS);
    CHECK_MSG(wrong >= 1 && wrong_unsure == wrong && gated >= 19 && one_way == ROUNDS,
              "work taken for common in %d rounds, said too close to call and gated read the other way (both ways "
              "asked) in %d; that gate failed in %d of %d rounds; the default read one way in %d",
              wrong, wrong_unsure, gated, ROUNDS, one_way);
    /* The interval against the common change carries that change's own error (the kernels drawn
     * together): it holds the true 1.5 in every draw where work was not taken for the common
     * group (18 of these 20; taking the common change as known held it in 11 of the 16 then). */
    CHECK_MSG(covered >= 17 && uncovered_found == 0,
              "work's interval against the common change held 1.5 in %d of %d rounds, missed it in %d where work "
              "was not taken for common", covered, ROUNDS, uncovered_found);
    printf("two kernels on a bursty machine: work against steady found in %d of %d rounds, work itself slower "
           "in %d, its interval holding 1.5 in %d; work taken for common in %d, too close to call in %d; the gate read both ways "
           "failed in %d\n", moved, ROUNDS, caught, covered, wrong, wrong_unsure, gated);
    /* The load is what the method is for: as measured, the change is lost in most rounds. */
    CHECK_MSG(measured_missed >= 10, "as measured, missed in %d of %d rounds", measured_missed, ROUNDS);
}

/* The bursty load of test_bursty_load with wgprof's reference kernel in every iteration: the
 * machine's speed is read from it, so which kernel moved is no guess. */
static void test_reference_settles(void)
{
    g_state = SEED;
    const char *names[] = {"work", "steady", WGPROF_REFERENCE_KERNEL};
    const double centers[] = {20000, 12000, 8000}, same[] = {1, 1, 1}, slower[] = {1.5, 1, 1};
    const load busy = {5, 0.03, true, NULL};
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.10;
    int right = 0, rerun_quiet = 0;
    for (int round = 0; round < ROUNDS; round++) {
        diff_profile base = make_side(3, names, centers, same, &busy);
        diff_profile slow = make_side(3, names, centers, slower, &busy);
        diff_profile again = make_side(3, names, centers, same, &busy);
        diff_result r, q;
        CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
        CHECK(diff_compare(&base, &again, &o, &q) == DIFF_OK);
        const diff_row *work = row_named(&r, "work"), *steady = row_named(&r, "steady"),
                       *reference = row_named(&r, WGPROF_REFERENCE_KERNEL);
        right += work->verdict == DIFF_SLOWER && work->fails && steady->verdict == DIFF_NO_CHANGE && steady->in_common &&
                 reference->in_common && !r.common_guessed && r.failed;
        rerun_quiet += row_named(&q, "work")->verdict == DIFF_NO_CHANGE &&
                       row_named(&q, "steady")->verdict == DIFF_NO_CHANGE && !q.failed;
        CHECK(reference->reference && !work->reference && !reference->fails);
        /* the geometric mean is the spec's two kernels' */
        CHECK(fabs(r.geomean - sqrt(work->raw.ratio * steady->raw.ratio)) < 1e-9);
        diff_result_free(&r);
        diff_result_free(&q);
        free_side(&base);
        free_side(&slow);
        free_side(&again);
    }
    CHECK_MSG(right >= 19, "with the reference: work slower, steady quiet, no guess in %d of %d rounds", right, ROUNDS);
    CHECK_MSG(rerun_quiet >= 19, "with the reference: a rerun quiet in %d of %d rounds", rerun_quiet, ROUNDS);
    printf("two kernels and the reference on a bursty machine: right in %d of %d rounds, reruns quiet in %d\n", right,
           ROUNDS, rerun_quiet);
}

/* Every kernel of the spec 1.3x slower, the reference unchanged. One kernel and the reference:
 * a tie the reference settles, the kernel slower against it. Two kernels and the reference: the
 * two set the common change (the reference alone, one noisy kernel, does not outvote them), but
 * the reference outside it says the change is theirs, not the machine's: gated (without the
 * reference it is not: test_common_change). */
static void test_reference_against_all(void)
{
    g_state = SEED;
    const char *names[] = {"a", "b", WGPROF_REFERENCE_KERNEL};
    const double centers[] = {1000, 3000, 2000}, same[] = {1, 1, 1}, all[] = {1.3, 1.3, 1};
    const load quiet = {1, 0, false, NULL};
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.10;
    for (size_t k = 2; k <= 3; k++) { /* "b" and the reference, then all three */
        const char *const *n = k == 2 ? names + 1 : names;
        const double *c = k == 2 ? centers + 1 : centers, *s = k == 2 ? same + 1 : same, *a = k == 2 ? all + 1 : all;
        diff_profile base = make_side(k, n, c, s, &quiet);
        diff_profile slow = make_side(k, n, c, a, &quiet);
        diff_result r;
        CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
        const diff_row *reference = row_named(&r, WGPROF_REFERENCE_KERNEL);
        if (k == 2) {
            const diff_row *row = row_named(&r, "b");
            CHECK_MSG(r.separated && r.common_kernels == 1 && reference->in_common && !r.common_guessed &&
                          !r.common_not_machine && r.common.verdict == DIFF_NO_CHANGE,
                      "b and the reference: common to %zu, %s", r.common_kernels, diff_verdict_str(r.common.verdict));
            CHECK_MSG(row->verdict == DIFF_SLOWER && !row->in_common && row->fails && fabs(row->iv.ratio - 1.3) < 0.02,
                      "b: %s %.3f against the reference", diff_verdict_str(row->verdict), row->iv.ratio);
        } else {
            CHECK_MSG(r.common_kernels == 2 && !reference->in_common && r.common_not_machine &&
                          r.common.verdict == DIFF_SLOWER && r.common.fails && fabs(r.common.iv.ratio - 1.3) < 0.02,
                      "a, b and the reference: common to %zu, %s %.3f", r.common_kernels,
                      diff_verdict_str(r.common.verdict), r.common.iv.ratio);
            CHECK(reference->verdict == DIFF_FASTER && !reference->fails);
        }
        CHECK(r.failed);
        diff_result_free(&r);
        free_side(&slow);
        /* The spec's kernels faster instead: the reference reads slower against them, and that
         * is no regression of the spec's. */
        if (k == 3) {
            diff_profile fast = make_side(k, n, c, (const double[]){0.77, 0.77, 1}, &quiet);
            CHECK(diff_compare(&base, &fast, &o, &r) == DIFF_OK);
            reference = row_named(&r, WGPROF_REFERENCE_KERNEL);
            CHECK_MSG(reference->verdict == DIFF_SLOWER && !reference->fails && !r.failed &&
                          r.common.verdict == DIFF_FASTER,
                      "the spec's kernels faster: the reference %s, fails %d, the diff failed %d",
                      diff_verdict_str(reference->verdict), reference->fails, r.failed);
            diff_result_free(&r);
            free_side(&fast);
        }
        free_side(&base);
    }
}

/* Whole runs 1.5x apart on top of the bursts (runs on different machines), three kernels: the
 * kernels that did not change are the most, whatever the sides' speeds. */
static void test_whole_runs(void)
{
    g_state = SEED;
    const char *names[] = {"work", "steady", "other"};
    const double centers[] = {20000, 12000, 5000}, slower[] = {1.5, 1, 1};
    const load busy = {5, 0.4, true, NULL};
    diff_options o;
    diff_default_options(&o);
    int right = 0;
    for (int round = 0; round < ROUNDS; round++) {
        diff_profile base = make_side(3, names, centers, (const double[]){1, 1, 1}, &busy);
        diff_profile slow = make_side(3, names, centers, slower, &busy);
        diff_result r;
        CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
        right += row_named(&r, "work")->verdict == DIFF_SLOWER && row_named(&r, "steady")->verdict == DIFF_NO_CHANGE &&
                 row_named(&r, "other")->verdict == DIFF_NO_CHANGE && r.common_kernels == 2;
        diff_result_free(&r);
        free_side(&base);
        free_side(&slow);
    }
    CHECK_MSG(right >= 19, "three kernels on runs far apart: right in %d of %d rounds", right, ROUNDS);
}

static void test_common_change(void)
{
    g_state = SEED;
    const char *names[] = {"a", "b", "c"};
    const double centers[] = {1000, 3000, 9000}, same[] = {1, 1, 1}, all[] = {1.3, 1.3, 1.3};
    const load quiet = {1, 0, false, NULL};
    diff_profile base = make_side(3, names, centers, same, &quiet);
    diff_profile slow = make_side(3, names, centers, all, &quiet);
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.10;
    diff_result r;
    CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
    CHECK(r.separated && r.common_kernels == 3);
    for (size_t i = 0; i < 3; i++) {
        const diff_row *row = row_named(&r, names[i]);
        CHECK_MSG(row->verdict == DIFF_NO_CHANGE && row->in_common && row->raw.ratio > 1.25,
                  "%s: %s against the common change, %.3f as measured", names[i], diff_verdict_str(row->verdict),
                  row->raw.ratio);
    }
    CHECK_MSG(r.common.verdict == DIFF_SLOWER && fabs(r.common.iv.ratio - 1.3) < 0.02, "the common change: %s %.3f",
              diff_verdict_str(r.common.verdict), r.common.iv.ratio);
    CHECK(fabs(r.geomean - 1.3) < 0.02);
    CHECK(!r.failed && !r.common.fails);
    diff_result_free(&r);
    o.gate_common = true;
    CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
    CHECK(r.failed && r.common.fails);
    diff_result_free(&r);
    free_side(&base);
    free_side(&slow);
}

/* Two kernels on a machine whose load moves runs a little (one run a side and five), work 1.5x
 * faster: the quickest times choose steady as unchanged in nearly every resample, so the gate,
 * read one way only, does not fail on the speed-up; work 1.5x slower fails it on work alone. */
static void test_choice_firm(void)
{
    g_state = SEED;
    const char *names[] = {"work", "steady"};
    const double centers[] = {20000, 12000}, same[] = {1, 1}, faster[] = {1 / 1.5, 1}, slower[] = {1.5, 1};
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.10;
    int firm = 0, speedups = 0, slowdowns = 0, rounds = 0;
    for (size_t runs = 1; runs <= 5; runs += 4) {
        const load l = {runs, 0.02, false, NULL};
        for (int round = 0; round < 5; round++, rounds++) {
            diff_profile base = make_side(2, names, centers, same, &l);
            diff_profile fast = make_side(2, names, centers, faster, &l);
            diff_profile slow = make_side(2, names, centers, slower, &l);
            diff_result r, q;
            CHECK(diff_compare(&base, &fast, &o, &r) == DIFF_OK);
            CHECK(diff_compare(&base, &slow, &o, &q) == DIFF_OK);
            const diff_row *work = row_named(&r, "work"), *steady = row_named(&r, "steady");
            firm += r.common_guessed && !r.common_unsure && r.common_support >= o.confidence && q.common_guessed &&
                    !q.common_unsure;
            speedups += work->verdict == DIFF_FASTER && steady->in_common && !r.failed && !work->fails_reversed;
            slowdowns += row_named(&q, "work")->fails && !row_named(&q, "steady")->fails_reversed && q.failed;
            diff_result_free(&r);
            diff_result_free(&q);
            free_side(&base);
            free_side(&fast);
            free_side(&slow);
        }
    }
    CHECK_MSG(firm == rounds && speedups == rounds && slowdowns == rounds,
              "of %d rounds: the choice firm in %d, the speed-up faster and not gated in %d, the slow-down gated on "
              "work in %d",
              rounds, firm, speedups, slowdowns);
}

/* Five kernels: a1 and a2 unchanged, b1 and b2 15% faster, c twice as fast, one base run of five
 * quicker than the rest (0.87 of their time), the gate at 20% read both ways: which of the two
 * pairs changed may be too close to call, but c belongs to neither (a group of its own): it is
 * no rival, and since neither reading has a kernel slower by more than 20%, the gate passes. */
static void test_rival_only(void)
{
    g_state = SEED;
    const char *names[] = {"a1", "a2", "b1", "b2", "c"};
    const double centers[] = {10000, 12000, 14000, 16000, 18000}, same[] = {1, 1, 1, 1, 1};
    const double changed[] = {1, 1, 1 / 1.15, 1 / 1.15, 0.5}, quick_third[] = {1, 1, 0.87, 1, 1};
    const load base_load = {5, 0, false, quick_third}, new_load = {5, 0, false, NULL};
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.20;
    o.gate_both_ways = true;
    int unsure = 0, right = 0;
    for (int round = 0; round < ROUNDS; round++) {
        diff_profile base = make_side(5, names, centers, same, &base_load);
        diff_profile next = make_side(5, names, centers, changed, &new_load);
        diff_result r;
        CHECK(diff_compare(&base, &next, &o, &r) == DIFF_OK);
        const diff_row *c = row_named(&r, "c");
        unsure += r.common_unsure;
        right += r.common_guessed && !c->in_rival && !c->fails_reversed && !c->in_common && !r.failed &&
                 row_named(&r, "a1")->in_rival != row_named(&r, "b1")->in_rival;
        diff_result_free(&r);
        free_side(&base);
        free_side(&next);
    }
    CHECK_MSG(right == ROUNDS && unsure >= 1,
              "five kernels in three groups: c no rival and the gate passing in %d of %d rounds (too close to call "
              "in %d)",
              right, ROUNDS, unsure);
}

/* What reading both ways costs: on the bursty machine of test_bursty_load, work 1.5x faster
 * (a speed-up, not a regression): the default gate fails only where the guess named the other
 * kernel (steady slower against work); read both ways it fails also where which kernel moved was
 * too close to call, and nowhere else. */
static void test_speedup_busy(void)
{
    g_state = SEED;
    const char *names[] = {"work", "steady"};
    const double centers[] = {20000, 12000}, same[] = {1, 1}, faster[] = {1 / 1.5, 1};
    const load busy = {5, 0.03, true, NULL};
    diff_options o;
    diff_default_options(&o);
    o.fail_if_slower = 0.10;
    diff_options both = o;
    both.gate_both_ways = true;
    int failed = 0, failed_both = 0, unsure = 0, only_unsure = 0, only_wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        diff_profile base = make_side(2, names, centers, same, &busy);
        diff_profile fast = make_side(2, names, centers, faster, &busy);
        diff_result r, b;
        CHECK(diff_compare(&base, &fast, &o, &r) == DIFF_OK);
        CHECK(diff_compare(&base, &fast, &both, &b) == DIFF_OK);
        bool wrong = row_named(&r, "work")->in_common;
        failed += r.failed;
        failed_both += b.failed;
        unsure += b.common_unsure;
        only_wrong += !r.failed || wrong;
        only_unsure += !b.failed || b.common_unsure || wrong;
        diff_result_free(&r);
        diff_result_free(&b);
        free_side(&base);
        free_side(&fast);
    }
    CHECK_MSG(failed <= 2 && only_wrong == ROUNDS && only_unsure == ROUNDS && failed_both > failed,
              "work 1.5x faster on a bursty machine: the gate failed in %d of %d rounds, read both ways in %d (too "
              "close to call in %d)",
              failed, ROUNDS, failed_both, unsure);
    printf("work 1.5x faster on a bursty machine: too close to call in %d of %d rounds; the gate read both ways "
           "failed in %d, the default in %d\n",
           unsure, ROUNDS, failed_both, failed);
}

static void test_one_kernel(void)
{
    g_state = SEED;
    const char *names[] = {"only"};
    const double centers[] = {1000}, same[] = {1}, slower[] = {1.5};
    const load quiet = {1, 0, false, NULL};
    diff_profile base = make_side(1, names, centers, same, &quiet);
    diff_profile slow = make_side(1, names, centers, slower, &quiet);
    diff_options o;
    diff_default_options(&o);
    diff_result r;
    CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
    const diff_row *row = row_named(&r, "only");
    CHECK(!r.separated && r.compared == 1 && !r.base_speed && r.common.verdict == DIFF_TOO_FEW);
    CHECK(row->verdict == DIFF_SLOWER && row->iv.ratio == row->raw.ratio && !row->in_common);
    diff_result_free(&r);
    free_side(&base);
    free_side(&slow);
}

/* Two kernels, one 1.5x slower, the other's quickest quarter of dispatches reading 0 on the base
 * side (a timer too coarse for them): which of the two moved is read from that kernel's change as
 * measured, whichever comes first in the reports. */
static void test_quiet_unreadable(void)
{
    for (int order = 0; order < 2; order++) {
        g_state = SEED;
        const char *names[2] = {order ? "tiny" : "work", order ? "work" : "tiny"};
        const double centers[2] = {order ? 1000 : 20000, order ? 20000 : 1000};
        const double same[] = {1, 1}, slower[2] = {order ? 1 : 1.5, order ? 1.5 : 1};
        const load quiet = {1, 0, false, NULL};
        diff_profile base = make_side(2, names, centers, same, &quiet);
        diff_profile slow = make_side(2, names, centers, slower, &quiet);
        diff_samples *tiny = &base.kernels[order ? 0 : 1].samples;
        size_t n = tiny->count;
        diff_raw *raw = malloc(n * sizeof *raw);
        for (size_t b = 0, at = 0; b < tiny->blocks; b++) {
            for (size_t i = tiny->block_start[b]; i < tiny->block_start[b + 1]; i++, at++) {
                raw[at] = (diff_raw){(long long)b, i == tiny->block_start[b] ? 0 : tiny->by_block[i], 0};
            }
        }
        diff_samples_free(tiny);
        CHECK(diff_samples_build(raw, n, tiny));
        free(raw);
        diff_options o;
        diff_default_options(&o);
        diff_result r;
        CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
        const diff_row *work = row_named(&r, "work"), *tiny_row = row_named(&r, "tiny");
        CHECK_MSG(r.separated && tiny_row->in_common && !work->in_common && work->verdict == DIFF_SLOWER,
                  "tiny's quickest dispatches read 0, %s first: tiny %s, work %s %s", names[0],
                  tiny_row->in_common ? "common" : "not common", work->in_common ? "common" : "not common",
                  diff_verdict_str(work->verdict));
        diff_result_free(&r);
        free_side(&base);
        free_side(&slow);
    }
}

/* `s` (3 runs of ITERATIONS iterations of PER_ITERATION dispatches) made a kernel shorter than
 * one tick of a timer of 1000 ns at its first two runs, where it reads 0 in 3 of every 5
 * dispatches and 1000 otherwise, and one tick long at its third: its pooled median is 1000 ns, the
 * median of its runs' medians 0. */
static void tick_runs(diff_samples *s)
{
    size_t n = 3 * ITERATIONS * PER_ITERATION, at = 0;
    diff_raw *raw = malloc(n * sizeof *raw);
    for (size_t r = 0; r < 3; r++) {
        for (size_t it = 0; it < ITERATIONS; it++) {
            for (size_t d = 0; d < PER_ITERATION; d++, at++) {
                raw[at] = (diff_raw){(long long)it, r < 2 && at % 5 < 3 ? 0 : 1000, (uint32_t)r};
            }
        }
    }
    diff_samples_free(s);
    CHECK(diff_samples_build(raw, n, s));
    free(raw);
}

/* A kernel whose typical base time (the median of its base runs' medians) reads 0, beside three
 * that a timer reads well, one of them 1.3x slower: it has no typical time to take a speed from,
 * so it sets neither the runs' speeds nor the common change, which two of the others set; its
 * own change is read against theirs. Every figure of the others, the speeds and the common
 * change is a number. */
static void test_typical_zero(void)
{
    g_state = SEED;
    const char *names[] = {"u", "v", "work", "tick"};
    const double centers[] = {20000, 30000, 40000, 1000}, same[] = {1, 1, 1, 1}, slower[] = {1, 1, 1.3, 1};
    const load quiet = {3, 0.01, false, NULL};
    diff_profile base = make_side(4, names, centers, same, &quiet);
    diff_profile slow = make_side(4, names, centers, slower, &quiet);
    tick_runs(&base.kernels[3].samples);
    tick_runs(&slow.kernels[3].samples);
    diff_options o;
    diff_default_options(&o);
    diff_result r;
    CHECK(diff_compare(&base, &slow, &o, &r) == DIFF_OK);
    const diff_row *work = row_named(&r, "work"), *tick = row_named(&r, "tick");
    CHECK_MSG(r.separated && r.compared == 3 && r.common_kernels == 2 && !tick->in_common && !tick->zero_base &&
                  !work->in_common && row_named(&r, "u")->in_common && row_named(&r, "v")->in_common,
              "compared %zu, common %zu: tick %s, work %s", r.compared, r.common_kernels,
              tick->in_common ? "common" : "not common", work->in_common ? "common" : "not common");
    CHECK_MSG(isfinite(r.common.iv.ratio) && isfinite(r.common.iv.lo) && isfinite(r.common.iv.hi) &&
                  fabs(r.common.iv.ratio - 1) < 0.05,
              "the common change: %g [%g, %g]", r.common.iv.ratio, r.common.iv.lo, r.common.iv.hi);
    CHECK_MSG(work->verdict == DIFF_SLOWER && work->iv.lo < 1.3 && 1.3 < work->iv.hi, "work: %s, %.3f [%.3f, %.3f]",
              diff_verdict_str(work->verdict), work->iv.ratio, work->iv.lo, work->iv.hi);
    for (size_t i = 0; i < r.row_count; i++) {
        const diff_row *row = &r.rows[i];
        if (row->kind == DIFF_KERNEL && row != tick) {
            CHECK_MSG(isfinite(row->iv.ratio) && isfinite(row->iv.lo) && isfinite(row->iv.hi) && isfinite(row->p),
                      "%s: %g [%g, %g], p %g", row->name, row->iv.ratio, row->iv.lo, row->iv.hi, row->p);
        }
    }
    /* Its own resamples draw runs whose median reads 0 as often as not: its interval may run from
     * 0 to no bound (null in the JSON), and tells no change. */
    CHECK_MSG(tick->verdict == DIFF_NO_CHANGE && isfinite(tick->iv.ratio) && tick->p >= 0.05,
              "tick: %s, %.3f [%.3f, %.3f], p %g", diff_verdict_str(tick->verdict), tick->iv.ratio, tick->iv.lo,
              tick->iv.hi, tick->p);
    for (size_t run = 0; run < 3; run++) {
        CHECK_MSG(isfinite(r.base_speed[run]) && isfinite(r.new_speed[run]), "run %zu's speeds: %g, %g", run,
                  r.base_speed[run], r.new_speed[run]);
    }
    diff_result_free(&r);
    free_side(&base);
    free_side(&slow);
}

/* One kernel, `runs` runs of 20 iterations of 4 dispatches each, run r's about medians[r] us
 * (within 0.2%). */
static diff_profile runs_at(const double *medians, size_t runs)
{
    const char *names[] = {"k"};
    const double centers[] = {1000}, same[] = {1};
    const load quiet = {1, 0, false, NULL};
    diff_profile p = make_side(1, names, centers, same, &quiet);
    diff_samples_free(&p.kernels[0].samples);
    size_t n = runs * ITERATIONS * PER_ITERATION, at = 0;
    diff_raw *raw = malloc(n * sizeof *raw);
    for (size_t r = 0; r < runs; r++) {
        for (size_t it = 0; it < ITERATIONS; it++) {
            for (size_t d = 0; d < PER_ITERATION; d++) {
                raw[at++] = (diff_raw){(long long)it, 1000 * medians[r] * (1 + 0.004 * (unit() - 0.5)), (uint32_t)r};
            }
        }
    }
    CHECK(diff_samples_build(raw, n, &p.kernels[0].samples));
    free(raw);
    p.runs = runs;
    return p;
}

/* Four runs a side whose medians overlap (a base run above a new one): the bootstrap of so few
 * runs excludes no change, the runs' ranks do not (p = 4/70): no verdict. Runs that separate
 * wholly: slower. */
static void test_rank_rule(void)
{
    g_state = SEED;
    const double base[] = {1.00, 1.005, 1.01, 1.05}, overlap[] = {1.04, 1.06, 1.07, 1.08},
                 apart[] = {1.06, 1.07, 1.08, 1.09};
    diff_options o;
    diff_default_options(&o);
    diff_profile b = runs_at(base, 4), n = runs_at(overlap, 4), m = runs_at(apart, 4);
    diff_result r;
    CHECK(diff_compare(&b, &n, &o, &r) == DIFF_OK);
    const diff_row *k = &r.rows[0];
    CHECK_MSG(k->iv.lo > 1 && k->iv.ratio > 1.05 && k->p_holm < 0.05 && fabs(k->rank_p - 4.0 / 70) < 1e-9 &&
                  k->verdict == DIFF_NO_CHANGE,
              "overlapping runs: %.3f [%.3f, %.3f], p %.3f, rank %.4f: %s", k->iv.ratio, k->iv.lo, k->iv.hi,
              k->p_holm, k->rank_p, diff_verdict_str(k->verdict));
    diff_result_free(&r);
    CHECK(diff_compare(&b, &m, &o, &r) == DIFF_OK);
    CHECK_MSG(r.rows[0].verdict == DIFF_SLOWER && fabs(r.rows[0].rank_p - 2.0 / 70) < 1e-9, "runs apart: %s, rank %.4f",
              diff_verdict_str(r.rows[0].verdict), r.rows[0].rank_p);
    diff_result_free(&r);
    free_side(&b);
    free_side(&n);
    free_side(&m);
}

static void test_rank_and_holm(void)
{
    /* Exact: of the 20 ways to split 6 values 3 and 3, one puts a's all below b's (and one all
     * above): p = 2 / 20. */
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6}, c[] = {1.5, 4.5, 2.5};
    CHECK(fabs(diff_rank_test(a, 3, b, 3) - 0.1) < 1e-12);
    CHECK(fabs(diff_rank_test(b, 3, a, 3) - 0.1) < 1e-12);
    /* c's ranks 2, 4, 6: U = 6 of 9; the U of 3 and 3 takes 6 or more in 7 of the 20 ways. */
    CHECK(fabs(diff_rank_test(c, 3, a, 3) - 0.7) < 1e-12);
    CHECK(diff_rank_test(a, 3, a, 0) == 1.0);
    /* Ties take the normal approximation: equal sides, p of 1. */
    const double t[] = {2, 2, 2, 2};
    CHECK(diff_rank_test(t, 4, t, 4) == 1.0);
    /* Holm: sorted 0.01, 0.03, 0.04 times 3, 2, 1, kept non-decreasing: 0.03, 0.06, 0.06. */
    const double p[] = {0.01, 0.04, NAN, 0.03};
    double adjusted[4];
    diff_holm(p, 4, adjusted);
    CHECK(fabs(adjusted[0] - 0.03) < 1e-12 && fabs(adjusted[1] - 0.06) < 1e-12 && isnan(adjusted[2]) &&
          fabs(adjusted[3] - 0.06) < 1e-12);
}

int main(void)
{
    test_rank_and_holm();
    test_rank_rule();
    test_choice_firm();
    test_rival_only();
    test_speedup_busy();
    test_one_kernel();
    test_common_change();
    test_bursty_load();
    test_quiet_unreadable();
    test_typical_zero();
    test_reference_settles();
    test_reference_against_all();
    test_whole_runs();
    return check_summary();
}
