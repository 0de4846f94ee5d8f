/* Figures the library prints, checked against values worked out by hand, with no GPU: the clock
 * fit's map on samples of a known offset and drift (either way, with and without noise). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock_fit.h"
#include "wgprof/wgprof.h"

/* ---- the clock fit ------------------------------------------------------------------------ */

static double lcg_unit(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*seed >> 11) / 9007199254740992.0;
}

enum { FIT_SAMPLES = WGPROF__CLOCK_WINDOW };

/* Rounding of doubles near 4e12 ns (a CPU clock a little over an hour after boot): far below a
 * nanosecond. */
static const double FIT_EPSILON_NS = 0.01;

/* A fit of FIT_SAMPLES two-sided samples 0.1 s apart from cpu = offset + gpu * (1 + drift): each
 * bound 20 us either side of the truth, or, `noisy`, 5 to 60 us on each side at random, so that
 * the intervals' midpoints scatter about the line and the drift is fitted only to within its
 * error. Checks that the fitted map (wgprof__clock_cpu_ns) places GPU times on the CPU clock
 * where the truth is, to within the fit's stated uncertainty and what the drift's error adds. */
static void check_fit(double drift_ppm, bool noisy, uint64_t *seed)
{
    const double offset = 4.2e12, drift = drift_ppm * 1e-6, step_ns = 1e8, first_ns = 3e9;
    double gpu[FIT_SAMPLES], lo[FIT_SAMPLES], hi[FIT_SAMPLES];
    wgprof__clock_fit *c = calloc(1, sizeof *c);
    CHECK(c != NULL);
    if (!c) {
        return;
    }
    for (int i = 0; i < FIT_SAMPLES; i++) {
        gpu[i] = first_ns + i * step_ns;
        double truth = offset + gpu[i] * (1 + drift);
        double below = noisy ? 5e3 + 55e3 * lcg_unit(seed) : 20e3, above = noisy ? 5e3 + 55e3 * lcg_unit(seed) : 20e3;
        lo[i] = truth - below;
        hi[i] = truth + above;
        wgprof__clock_add(c, 1000 + (uint64_t)i, gpu[i], lo[i], hi[i]);
    }
    wgprof__clock_refit(c);
    const wgprof_clock_info *info = &c->info;
    CHECK_MSG(info->calibrated && info->consistent && info->samples == FIT_SAMPLES,
              "drift %+g ppm%s: calibrated %d, consistent %d, %u samples", drift_ppm, noisy ? ", noisy" : "",
              info->calibrated, info->consistent, info->samples);
    CHECK_MSG(info->ref_gpu_ns == gpu[FIT_SAMPLES - 1] && info->ref_ticks == 1000 + FIT_SAMPLES - 1,
              "the reference is the newest sample: %.1f ns, %llu ticks", info->ref_gpu_ns,
              (unsigned long long)info->ref_ticks);
    /* Without noise the midpoints lie on the line and the drift comes out exact; with noise, to
     * within its error: here about 0.3 ppm (11 us of scatter over 128 samples spanning 12.7 s). */
    const double drift_error = noisy ? 1.5e-6 : 1e-9;
    CHECK_MSG(fabs(info->drift_ppm - drift_ppm) <= drift_error * 1e6, "drift %+g ppm%s: fitted %+.6f ppm", drift_ppm,
              noisy ? ", noisy" : "", info->drift_ppm);
    if (!noisy) {
        CHECK_MSG(fabs(info->uncertainty_ns - 20e3) < 1, "drift %+g ppm: uncertainty %.3f ns, want the bounds' 20 us",
                  drift_ppm, info->uncertainty_ns);
    }
    /* The bounds a consistent fit satisfies hold for its own map: each sample's GPU time lands
     * inside that sample's interval. */
    int outside = 0, first_outside = -1;
    for (int i = 0; i < FIT_SAMPLES; i++) {
        double cpu = wgprof__clock_cpu_ns(info, gpu[i]);
        if (!(cpu >= lo[i] - FIT_EPSILON_NS && cpu <= hi[i] + FIT_EPSILON_NS)) {
            first_outside = first_outside < 0 ? i : first_outside;
            outside++;
        }
    }
    CHECK_MSG(outside == 0, "drift %+g ppm%s: %d of %d samples placed outside their own bounds (the first: %d, %.1f ns "
              "from its interval's middle)", drift_ppm, noisy ? ", noisy" : "", outside, FIT_SAMPLES, first_outside,
              first_outside < 0 ? 0
                                : wgprof__clock_cpu_ns(info, gpu[first_outside]) -
                                      (lo[first_outside] + hi[first_outside]) / 2);
    /* Against the truth, at the samples, halfway between them and up to 10 s past the newest:
     * every bound holds the truth, so the truth's offset is within the fitted offset's
     * uncertainty plus what the drift's error moves it over the samples' span; away from the
     * reference that error grows again with the distance. */
    const double span_ns = gpu[FIT_SAMPLES - 1] - gpu[0];
    int off = 0;
    double worst = 0, worst_at = 0;
    for (int j = 0; j <= 2 * (FIT_SAMPLES - 1) + 200; j++) {
        double g = first_ns + j * step_ns / 2;
        double err = fabs(wgprof__clock_cpu_ns(info, g) - (offset + g * (1 + drift)));
        double allowed = info->uncertainty_ns + (span_ns + fabs(g - info->ref_gpu_ns)) * drift_error + FIT_EPSILON_NS;
        if (!(err <= allowed)) {
            off++;
            worst_at = err > worst ? g : worst_at;
            worst = err > worst ? err : worst;
        }
    }
    CHECK_MSG(off == 0, "drift %+g ppm%s: %d GPU times placed farther from the truth than the fit allows (the worst "
              "%.1f ns off at %.3f s, uncertainty %.1f ns)", drift_ppm, noisy ? ", noisy" : "", off, worst,
              worst_at / 1e9, info->uncertainty_ns);
    free(c);
}

/* The fit has no inverse (nothing maps CPU times back to the GPU's): the forward map only. */
static void test_clock_map(void)
{
    uint64_t seed = 11;
    const double drifts_ppm[] = {50, -50, 200, -200};
    for (size_t d = 0; d < sizeof drifts_ppm / sizeof *drifts_ppm; d++) {
        check_fit(drifts_ppm[d], false, &seed);
        check_fit(drifts_ppm[d], true, &seed);
    }
}

int main(void)
{
    test_clock_map();
    return check_summary();
}
