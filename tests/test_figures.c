/* Figures the library prints, checked against values worked out by hand, with no GPU: the clock
 * fit's map on samples of a known offset and drift (either way, with and without noise); no
 * report printing NaN or infinity for a figure that was never measured (a device's period that
 * is not a number, sums past the largest double); the Chrome trace's timestamps on the CPU clock
 * and on the GPU's; and each per-kernel statistic under its own column in every format. */
#include <ctype.h>
#include <jansson.h>
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

/* ---- reports ------------------------------------------------------------------------------ */

static char *report_of(const wgprof_report_desc *desc, wgprof_format format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f) {
        return NULL;
    }
    CHECK_OK(wgprof_report_write(desc, format, f));
    fclose(f);
    return buf;
}

static json_t *parse_strict(const char *text, size_t len, const char *what)
{
    json_error_t err;
    json_t *root = text ? json_loadb(text, len, 0, &err) : NULL;
    CHECK_MSG(root != NULL, "%s is not JSON: %s (line %d, column %d)", what, text ? err.text : "no text",
              text ? err.line : 0, text ? err.column : 0);
    return root;
}

/* Where `text` holds nan or inf (any case, a sign or not) as a word of its own: what printf
 * makes of a double that is not finite. NULL when nowhere. */
static const char *bare_nonfinite(const char *text, const char *end)
{
    for (const char *p = text; p && p + 3 <= end; p++) {
        bool word = (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) &&
                    (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                    (p + 3 == end || !(isalnum((unsigned char)p[3]) || p[3] == '_'));
        if (word) {
            return p;
        }
    }
    return NULL;
}

/* The HTML page's embedded data, and the page before it (its header and tables). */
static void check_html(const char *html, const char *what)
{
    static const char open[] = "<script type=\"application/json\" id=\"wgprof-data\">";
    const char *main = html ? strstr(html, "<main>") : NULL, *data = html ? strstr(html, open) : NULL;
    const char *data_end = data ? strstr(data, "</script>") : NULL;
    CHECK_MSG(main && data && data_end, "%s: no page or no data in the HTML report", what);
    if (!main || !data || !data_end) {
        return;
    }
    const char *bad = bare_nonfinite(main, data);
    CHECK_MSG(!bad, "%s: the HTML page prints a figure that is not a number: ...%.60s", what, bad ? bad - 20 : "");
    data += sizeof open - 1;
    json_decref(parse_strict(data, (size_t)(data_end - data), what));
}

/* Every format of `desc`: the JSON ones parse strictly (no bare nan or inf), the text ones
 * print neither. Returns the JSON report, parsed. */
static json_t *check_formats(const wgprof_report_desc *desc, const char *what)
{
    json_t *json = NULL;
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        char *text = report_of(desc, (wgprof_format)f);
        char name[160];
        snprintf(name, sizeof name, "%s: the %s report", what, wgprof_format_name((wgprof_format)f));
        if (!text) {
            continue;
        }
        size_t len = strlen(text);
        if (f == WGPROF_FORMAT_JSON) {
            json = parse_strict(text, len, name);
        } else if (f == WGPROF_FORMAT_TRACE) {
            json_decref(parse_strict(text, len, name));
        } else if (f == WGPROF_FORMAT_HTML) {
            check_html(text, name);
        } else {
            const char *bad = bare_nonfinite(text, text + len);
            CHECK_MSG(!bad, "%s prints a figure that is not a number: ...%.60s", name,
                      bad ? (bad - text > 30 ? bad - 30 : text) : "");
        }
        free(text);
    }
    return json;
}

static wgprof_device_info device_with_period(double period_ns)
{
    wgprof_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.adapter, sizeof d.adapter, "Test GPU");
    snprintf(d.vendor, sizeof d.vendor, "test");
    d.implementation = "test";
    d.backend = "vulkan";
    d.adapter_type = "cpu";
    d.timestamp_query = d.profiling_available = true;
    d.timestamp_period_ns = period_ns;
    d.period_from_implementation = true;
    return d;
}

static wgprof_site site_of(wgprof_pool *pool, const char *kernel, double bytes)
{
    wgprof_dispatch_desc d = {.kernel = kernel, .workgroups = {4, 1, 1}, .workgroup_size = {64, 1, 1}, .bytes = bytes};
    wgprof_site site = {0};
    CHECK_OK(wgprof_pool_site(pool, &d, &site));
    return site;
}

/* A device whose period is NaN or infinite (an implementation's answer, or a description made
 * by hand): no report prints it as a number, with no pool, with a pool that collected nothing
 * (where the device's period is the one the report gives), and in `wgprof info --json`. */
static void test_device_period_not_finite(void)
{
    const double periods[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof periods / sizeof *periods; i++) {
        wgprof_device_info d = device_with_period(periods[i]);
        char what[96];
        wgprof_pool *empty = NULL;
        CHECK_OK(wgprof_pool_create_external(NULL, &empty));
        for (int with_pool = 0; with_pool < 2; with_pool++) {
            snprintf(what, sizeof what, "period %g, %s", periods[i], with_pool ? "a pool of no batch" : "no pool");
            wgprof_report_desc desc = {.device = &d, .pool = with_pool ? empty : NULL,
                                       .unavailable_reason = "none wanted"};
            json_t *root = check_formats(&desc, what);
            CHECK_MSG(root && json_is_null(json_object_get(root, "timestamp_period_ns")),
                      "%s: the JSON's timestamp_period_ns is not null", what);
            json_decref(root);
        }
        wgprof_pool_destroy(empty);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK_OK(wgprof_device_info_write_json(&d, f));
        fclose(f);
        snprintf(what, sizeof what, "period %g: the device's JSON", periods[i]);
        json_t *info = parse_strict(buf, len, what);
        CHECK_MSG(info && json_is_null(json_object_get(info, "timestamp_period_ns")),
                  "%s: timestamp_period_ns is not null", what);
        json_decref(info);
        free(buf);
    }
}

/* Sums past the largest double: bytes a spec gave near it (their sum and every rate made of it
 * infinite), and readings converted with a period so large that the times themselves overflow
 * (accepted: it is finite and positive), with CPU stamps, scopes and a second kernel that stays
 * finite. No format prints those as numbers. */
static void test_figures_not_finite(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    wgprof_site huge = site_of(pool, "huge_bytes", 1e308), plain = site_of(pool, "plain", 0);
    wgprof_site sites[3] = {huge, huge, plain};
    uint64_t ticks[6] = {1000, 2000, 3000, 4000, 5000, 5500};
    wgprof_external_scope scopes[2] = {{0, "outer"}, {3, NULL}};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_PASS, .count = 3, .sites = sites, .ticks = ticks,
                                   .period_ns = 1.0, .cpu_submit_ns = 1000000, .cpu_read_ns = 1010000,
                                   .scopes = scopes, .scope_count = 2};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    wgprof_device_info d = device_with_period(NAN);
    wgprof_report_desc desc = {.device = &d, .pool = pool, .peak_gbps = 100};
    json_decref(check_formats(&desc, "bytes summing past the largest double"));

    batch.period_ns = 1e306; /* 1000 ticks: past the largest double */
    batch.cpu_submit_ns = 2000000;
    batch.cpu_read_ns = 2010000;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    json_t *root = check_formats(&desc, "times past the largest double");
    /* Two finite durations and two infinite ones have no spread to tell, and the scope's share
     * of an infinite total is none: null, not 0. */
    json_t *kernel = json_array_get(json_object_get(root, "kernels"), 0);
    json_t *scope = json_array_get(json_object_get(root, "scopes"), 0);
    CHECK_MSG(kernel && json_is_null(json_object_get(kernel, "stddev_ns")) &&
                  json_is_null(json_object_get(kernel, "total_ns")),
              "huge_bytes's stddev_ns or total_ns is not null");
    CHECK_MSG(scope && json_is_null(json_object_get(scope, "share")), "the scope's share is not null");
    json_decref(root);
    /* The trace leaves out the three dispatches it has no time for, and says so. */
    char *trace = report_of(&desc, WGPROF_FORMAT_TRACE);
    root = parse_strict(trace, trace ? strlen(trace) : 0, "the trace");
    json_t *other = json_object_get(root, "otherData");
    CHECK_MSG(json_integer_value(json_object_get(other, "unplaced_dispatches")) == 3 &&
                  json_integer_value(json_object_get(other, "invalid_dispatches")) == 0,
              "the trace's otherData: %lld unplaced, %lld invalid, want 3 and 0",
              (long long)json_integer_value(json_object_get(other, "unplaced_dispatches")),
              (long long)json_integer_value(json_object_get(other, "invalid_dispatches")));
    size_t dispatches = 0;
    json_t *events = json_object_get(root, "traceEvents");
    for (size_t i = 0; i < json_array_size(events); i++) {
        const char *cat = json_string_value(json_object_get(json_array_get(events, i), "cat"));
        dispatches += cat && strcmp(cat, "dispatch") == 0;
    }
    CHECK_MSG(dispatches == 3, "%zu dispatch events in the trace, want the first batch's 3", dispatches);
    json_decref(root);
    free(trace);
    wgprof_pool_destroy(pool);
}

/* ---- the trace's timestamps --------------------------------------------------------------- */

/* One expected event of the trace: its kind (ph and cat), which one (the iteration, and the
 * dispatch's index in the pool; -1 for the others), and where it lies, in us (no duration: -1). */
typedef struct trace_event {
    const char *ph, *cat;
    int iteration, index;
    double ts_us, dur_us;
    bool seen;
} trace_event;

static trace_event *expected_event(trace_event *want, size_t n, json_t *e)
{
    const char *ph = json_string_value(json_object_get(e, "ph")), *cat = json_string_value(json_object_get(e, "cat"));
    json_t *args = json_object_get(e, "args");
    /* A flow's ends carry their iteration as the id; the others in args. */
    bool flow = ph && (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0);
    json_int_t iteration = json_integer_value(flow ? json_object_get(e, "id") : json_object_get(args, "iteration"));
    json_t *index = json_object_get(args, "index");
    for (size_t i = 0; ph && cat && i < n; i++) {
        if (strcmp(want[i].ph, ph) == 0 && strcmp(want[i].cat, cat) == 0 && want[i].iteration == iteration &&
            (want[i].index < 0 || want[i].index == json_integer_value(index))) {
            return &want[i];
        }
    }
    return NULL;
}

/* Every event of `trace` of a kind in `want` is there once, at its place. */
static void check_trace_events(const char *trace, trace_event *want, size_t n, const char *what)
{
    json_t *root = parse_strict(trace, trace ? strlen(trace) : 0, what);
    json_t *events = json_object_get(root, "traceEvents");
    int unexpected = 0;
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph && strcmp(ph, "M") == 0) {
            continue;
        }
        trace_event *w = expected_event(want, n, e);
        if (!w || w->seen) {
            unexpected++;
            continue;
        }
        w->seen = true;
        double ts = json_number_value(json_object_get(e, "ts")), dur = json_number_value(json_object_get(e, "dur"));
        CHECK_MSG(fabs(ts - w->ts_us) < 1e-6 && (w->dur_us < 0 || fabs(dur - w->dur_us) < 1e-6),
                  "%s: %s %s of iteration %d (index %d) at ts %.3f us, dur %.3f us; want %.3f, %.3f", what, w->ph, w->cat,
                  w->iteration, w->index, ts, dur, w->ts_us, w->dur_us);
    }
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(want[i].seen, "%s: no %s %s event of iteration %d (index %d)", what, want[i].ph, want[i].cat,
                  want[i].iteration, want[i].index);
    }
    CHECK_MSG(unexpected == 0, "%s: %d events not expected, or twice", what, unexpected);
    json_decref(root);
}

/* Two batches of a pool fed from outside, as the Vulkan layer feeds one: the first a chain of two
 * dispatches of 500 ticks of 1 ns, from tick 10000; the second a pair of 300 and 400 ticks from
 * tick 20000, in a scope. With CPU stamps, each batch submitted before its first begin and read
 * after its last end, the clock fit's offset lies in [1000200, 1000800] ns: CPU time = GPU time
 * since the first tick + 1000500 ns, +-300. */
static wgprof_pool *two_batches(bool stamped)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return NULL;
    }
    wgprof_site k = site_of(pool, "k", 0);
    wgprof_site sites[2] = {k, k};
    uint64_t chain[3] = {10000, 10500, 11000}, pairs[4] = {20000, 20300, 20300, 20700};
    wgprof_external_batch first = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 2, .sites = sites, .ticks = chain,
                                   .period_ns = 1.0, .cpu_submit_ns = stamped ? 1000000 : 0,
                                   .cpu_read_ns = stamped ? 1002000 : 0};
    wgprof_external_scope scope[2] = {{0, "step"}, {2, NULL}};
    wgprof_external_batch second = {.strategy = WGPROF_STRATEGY_PASS, .count = 2, .sites = sites, .ticks = pairs,
                                    .period_ns = 1.0, .cpu_submit_ns = stamped ? 1010200 : 0,
                                    .cpu_read_ns = stamped ? 1011500 : 0, .scopes = scope, .scope_count = 2};
    CHECK_OK(wgprof_pool_add_external(pool, &first));
    CHECK_OK(wgprof_pool_add_external(pool, &second));
    return pool;
}

/* The trace's times in us, worked out by hand: on the CPU clock they count from the earliest
 * time the trace shows (the first batch's submit, at 1000000 ns, where its flow arrow starts);
 * without a fit, from the first GPU timestamp. The JSON report's CPU times, in ns, agree. */
static void test_trace_times(void)
{
    wgprof_pool *pool = two_batches(true);
    if (!pool) {
        return;
    }
    const wgprof_clock_info *clock = wgprof_pool_clock(pool);
    CHECK_MSG(clock->calibrated && clock->consistent && clock->ref_cpu_ns - clock->ref_gpu_ns == 1000500 &&
                  clock->uncertainty_ns == 300 && clock->drift_ppm == 0,
              "the fit: %.1f ns at %.1f, +-%.1f, %.3f ppm; want CPU = GPU + 1000500 +-300", clock->ref_cpu_ns,
              clock->ref_gpu_ns, clock->uncertainty_ns, clock->drift_ppm);
    wgprof_report_desc desc = {.pool = pool};
    trace_event cpu[] = {
        {"X", "dispatch", 0, 0, 0.5, 0.5, false},  {"X", "dispatch", 0, 1, 1.0, 0.5, false},
        {"X", "dispatch", 1, 2, 10.5, 0.3, false}, {"X", "dispatch", 1, 3, 10.8, 0.4, false},
        {"X", "iteration", 0, -1, 0.5, 1.0, false}, {"X", "iteration", 1, -1, 10.5, 0.7, false},
        {"X", "scope", 1, -1, 10.5, 0.7, false},    {"s", "submit", 0, -1, 0.0, -1, false},
        {"s", "submit", 1, -1, 10.2, -1, false},    {"f", "submit", 0, -1, 0.5, -1, false},
        {"f", "submit", 1, -1, 10.5, -1, false},
    };
    char *trace = report_of(&desc, WGPROF_FORMAT_TRACE);
    check_trace_events(trace, cpu, sizeof cpu / sizeof *cpu, "the trace on the CPU clock");
    json_t *root = parse_strict(trace, trace ? strlen(trace) : 0, "the trace on the CPU clock");
    json_t *other = json_object_get(root, "otherData");
    CHECK_MSG(strcmp(json_string_value(json_object_get(other, "timeline")), "cpu clock") == 0 &&
                  json_number_value(json_object_get(other, "timeline_origin_cpu_ns")) == 1000000 &&
                  json_number_value(json_object_get(other, "clock_uncertainty_ns")) == 300,
              "the trace's otherData: timeline origin %.3f ns, uncertainty %.3f ns; want 1000000, 300",
              json_number_value(json_object_get(other, "timeline_origin_cpu_ns")),
              json_number_value(json_object_get(other, "clock_uncertainty_ns")));
    json_decref(root);
    free(trace);

    char *json = report_of(&desc, WGPROF_FORMAT_JSON);
    root = parse_strict(json, json ? strlen(json) : 0, "the JSON report");
    const double cpu_start[4] = {1000500, 1001000, 1010500, 1010800}, cpu_end[4] = {1001000, 1001500, 1010800, 1011200};
    json_t *dispatches = json_object_get(root, "dispatches");
    CHECK(json_array_size(dispatches) == 4);
    for (size_t i = 0; i < json_array_size(dispatches) && i < 4; i++) {
        json_t *d = json_array_get(dispatches, i);
        double s = json_number_value(json_object_get(d, "cpu_start_ns")), e = json_number_value(json_object_get(d, "cpu_end_ns"));
        CHECK_MSG(s == cpu_start[i] && e == cpu_end[i], "JSON dispatch %zu on the CPU clock: %.3f .. %.3f ns, want %.0f .. %.0f",
                  i, s, e, cpu_start[i], cpu_end[i]);
    }
    json_t *step = json_array_get(json_object_get(root, "scope_instances"), 0);
    CHECK_MSG(json_number_value(json_object_get(step, "cpu_start_ns")) == 1010500 &&
                  json_number_value(json_object_get(step, "cpu_end_ns")) == 1011200,
              "the scope on the CPU clock: %.3f .. %.3f ns, want 1010500 .. 1011200",
              json_number_value(json_object_get(step, "cpu_start_ns")),
              json_number_value(json_object_get(step, "cpu_end_ns")));
    json_decref(root);
    free(json);
    wgprof_pool_destroy(pool);

    pool = two_batches(false);
    if (!pool) {
        return;
    }
    desc.pool = pool;
    trace_event gpu[] = {
        {"X", "dispatch", 0, 0, 0.0, 0.5, false},  {"X", "dispatch", 0, 1, 0.5, 0.5, false},
        {"X", "dispatch", 1, 2, 10.0, 0.3, false}, {"X", "dispatch", 1, 3, 10.3, 0.4, false},
        {"X", "iteration", 0, -1, 0.0, 1.0, false}, {"X", "iteration", 1, -1, 10.0, 0.7, false},
        {"X", "scope", 1, -1, 10.0, 0.7, false},
    };
    trace = report_of(&desc, WGPROF_FORMAT_TRACE);
    check_trace_events(trace, gpu, sizeof gpu / sizeof *gpu, "the trace on the GPU's epoch");
    free(trace);
    wgprof_pool_destroy(pool);
}

/* ---- the per-kernel statistics, column by column ------------------------------------------- */

enum { COUNT, TIME, SHARE };

/* A statistic under its name in each format (NULL where a format has none), and its value:
 * a count, a time in ns (us in the table and on the page) or a share (percent there). */
typedef struct stat_column {
    const char *csv, *table, *html;
    int kind;
    double value;
} stat_column;

/* Kernel "k": 20 dispatches of 10 i^2 ns (i = 1..20, out of order), so that every statistic
 * differs from every other: total 28700, mean 1435, median (1000 + 1210) / 2 = 1105, p95 the
 * 19th of 20 by nearest rank = 3610, min 10, max 4000, population standard deviation
 * sqrt(3613330 - 1435^2) = 1246.637477, share 28700 / (28700 + 1300). */
static const stat_column K_COLUMNS[] = {
    {"count", "count", "count", COUNT, 20},
    {"invalid", "invalid", "invalid", COUNT, 0},
    {"total_ns", "total_us", "total us", TIME, 28700},
    {"mean_ns", "mean_us", "mean us", TIME, 1435},
    {"median_ns", "median_us", "median us", TIME, 1105},
    {"p95_ns", "p95_us", "p95 us", TIME, 3610},
    {"min_ns", "min_us", "min us", TIME, 10},
    {"max_ns", "max_us", "max us", TIME, 4000},
    {"stddev_ns", "stddev_us", "stddev us", TIME, 1246.637477376643},
    {"share", "share", "share", SHARE, 28700.0 / 30000.0},
    {"exclusive_total_ns", NULL, NULL, TIME, 28700},
};
enum { K_DISPATCHES = 20 };

/* The pool: k's dispatches, 100 ticks of 1 ns apart, then one of "other", 1300 ns, begun 200 ns
 * before the last of k ended (so 1100 ns of it exclusive). The records' starts, durations and
 * exclusive durations, in ns, in `start`, `duration` and `exclusive`. */
static wgprof_pool *columns_pool(double *start, double *duration, double *exclusive)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return NULL;
    }
    wgprof_site sites[K_DISPATCHES + 1];
    uint64_t ticks[2 * (K_DISPATCHES + 1)], t = 5000;
    for (int r = 0; r <= K_DISPATCHES; r++) {
        int i = (r * 7) % K_DISPATCHES + 1; /* 1..20, each once */
        sites[r] = site_of(pool, r < K_DISPATCHES ? "k" : "other", 0);
        duration[r] = r < K_DISPATCHES ? 10.0 * i * i : 1300;
        exclusive[r] = r < K_DISPATCHES ? duration[r] : 1100;
        t -= r < K_DISPATCHES ? 0 : 300;
        start[r] = (double)(t - 5000);
        ticks[2 * r] = t;
        ticks[2 * r + 1] = t + (uint64_t)duration[r];
        t += (uint64_t)duration[r] + 100;
    }
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_PASS, .count = K_DISPATCHES + 1, .sites = sites,
                                   .ticks = ticks, .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    return pool;
}

/* The value a format shows for `c`, in its unit, and how far its decimals may round it. */
static double shown(const stat_column *c, bool text_format, double *tolerance)
{
    if (c->kind == COUNT) {
        *tolerance = 0;
        return c->value;
    }
    if (c->kind == SHARE) {
        *tolerance = text_format ? 0.05 + 1e-9 : 5e-7 + 1e-12; /* "%.1f%%", "%.6f" */
        return text_format ? 100.0 * c->value : c->value;
    }
    *tolerance = 5e-4 + 1e-9; /* "%.3f" */
    return text_format ? c->value / 1e3 : c->value;
}

/* Splits `line` (modified) at `sep` into at most `cap` fields, runs of spaces as one where
 * `sep` is ' '. */
static size_t split(char *line, char sep, char **fields, size_t cap)
{
    size_t n = 0;
    char *p = line;
    while (n < cap) {
        if (sep == ' ') {
            while (*p == ' ') {
                p++;
            }
            if (!*p) {
                break;
            }
        }
        fields[n++] = p;
        p += strcspn(p, sep == ' ' ? " " : (char[]){sep, 0});
        if (!*p) {
            break;
        }
        *p++ = '\0';
    }
    return n;
}

/* The line of `text` that starts with `prefix` and holds `also` (NULL: anything), copied. */
static char *line_of(const char *text, const char *prefix, const char *also)
{
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            char *line = strndup(p, len);
            if (line && (!also || strstr(line, also))) {
                return line;
            }
            free(line);
        }
        p += len + (p[len] == '\n');
    }
    return NULL;
}

/* Each statistic found under its own column of a header and a row split alike. */
static void check_row(const char *what, char **head, size_t heads, char **row, size_t cells, bool text_format,
                      int table)
{
    for (size_t c = 0; c < sizeof K_COLUMNS / sizeof *K_COLUMNS; c++) {
        const stat_column *col = &K_COLUMNS[c];
        const char *name = table == 0 ? col->csv : table == 1 ? col->table : col->html;
        if (!name) {
            continue;
        }
        size_t at = 0;
        while (at < heads && strcmp(head[at], name) != 0) {
            at++;
        }
        double tolerance, want = shown(col, text_format, &tolerance);
        double got = at < cells ? strtod(row[at], NULL) : NAN;
        CHECK_MSG(at < heads && at < cells && fabs(got - want) <= tolerance, "%s: column %s: '%s', want %.6f", what,
                  name, at < cells ? row[at] : "(none)", want);
    }
}

/* The text of each element `tag` (th or td) from `from` to `end`, in `out` (modified copies). */
static size_t cells_of(const char *from, const char *end, const char *tag, char **out, size_t cap)
{
    char open[8], close[8];
    snprintf(open, sizeof open, "<%s", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    size_t n = 0;
    for (const char *p = strstr(from, open); p && p < end && n < cap; p = strstr(p, open)) {
        const char *text = strchr(p, '>'), *stop = text ? strstr(text, close) : NULL;
        if (!stop) {
            break;
        }
        out[n++] = strndup(text + 1, (size_t)(stop - text - 1));
        p = stop;
    }
    return n;
}

/* Kernel k's statistics in the CSV summary, the table, the HTML page's table and the JSON, each
 * found under its own column's name; and each dispatch's start, end, duration and exclusive
 * duration in the CSV and TSV rows under theirs. */
static void test_kernel_columns(void)
{
    double start[K_DISPATCHES + 1], duration[K_DISPATCHES + 1], exclusive[K_DISPATCHES + 1];
    wgprof_pool *pool = columns_pool(start, duration, exclusive);
    if (!pool) {
        return;
    }
    wgprof_report_desc desc = {.pool = pool};
    enum { MAX_FIELDS = 40 };
    char *head[MAX_FIELDS], *row[MAX_FIELDS];

    char *csv = report_of(&desc, WGPROF_FORMAT_CSV_SUMMARY);
    char *header = csv ? line_of(csv, "kernel,", NULL) : NULL, *line = csv ? line_of(csv, "k,", NULL) : NULL;
    CHECK_MSG(header && line, "the CSV summary has no header or no row of k:\n%s", csv ? csv : "");
    if (header && line) {
        size_t heads = split(header, ',', head, MAX_FIELDS), cells = split(line, ',', row, MAX_FIELDS);
        check_row("the CSV summary", head, heads, row, cells, false, 0);
    }
    free(header);
    free(line);
    free(csv);

    char *table = report_of(&desc, WGPROF_FORMAT_TABLE);
    header = table ? line_of(table, "kernel ", "median_us") : NULL;
    line = table ? line_of(table, "k ", NULL) : NULL;
    CHECK_MSG(header && line, "the table has no summary header or no row of k:\n%s", table ? table : "");
    if (header && line) {
        size_t heads = split(header, ' ', head, MAX_FIELDS), cells = split(line, ' ', row, MAX_FIELDS);
        check_row("the table", head, heads, row, cells, true, 1);
    }
    free(header);
    free(line);
    free(table);

    char *html = report_of(&desc, WGPROF_FORMAT_HTML);
    const char *summary = html ? strstr(html, "<table id=\"summary-table\">") : NULL;
    const char *thead_end = summary ? strstr(summary, "</thead>") : NULL;
    const char *k_row = summary ? strstr(summary, "<tr data-k=\"0\">") : NULL;
    const char *k_end = k_row ? strstr(k_row, "</tr>") : NULL;
    CHECK_MSG(thead_end && k_end, "the HTML page has no summary table with a row of k");
    if (thead_end && k_end) {
        size_t heads = cells_of(summary, thead_end, "th", head, MAX_FIELDS);
        size_t cells = cells_of(k_row, k_end, "td", row, MAX_FIELDS);
        check_row("the HTML page's summary table", head, heads, row, cells, true, 2);
        for (size_t i = 0; i < heads; i++) {
            free(head[i]);
        }
        for (size_t i = 0; i < cells; i++) {
            free(row[i]);
        }
    }
    free(html);

    char *json = report_of(&desc, WGPROF_FORMAT_JSON);
    json_t *root = parse_strict(json, json ? strlen(json) : 0, "the JSON report");
    json_t *k = json_array_get(json_object_get(root, "kernels"), 0);
    CHECK(strcmp(json_string_value(json_object_get(k, "name")) ? json_string_value(json_object_get(k, "name")) : "",
                 "k") == 0);
    for (size_t c = 0; c < sizeof K_COLUMNS / sizeof *K_COLUMNS; c++) {
        double tolerance, want = shown(&K_COLUMNS[c], false, &tolerance);
        double got = json_number_value(json_object_get(k, K_COLUMNS[c].csv));
        CHECK_MSG(fabs(got - want) <= tolerance, "the JSON's kernels[0].%s: %.6f, want %.6f", K_COLUMNS[c].csv, got,
                  want);
    }
    json_decref(root);
    free(json);

    const wgprof_format rows[2] = {WGPROF_FORMAT_CSV, WGPROF_FORMAT_TSV};
    for (int f = 0; f < 2; f++) {
        char sep = rows[f] == WGPROF_FORMAT_CSV ? ',' : '\t';
        char *text = report_of(&desc, rows[f]);
        const char *p = text;
        size_t len = p ? strcspn(p, "\n") : 0;
        char *first = p ? strndup(p, len) : NULL;
        size_t heads = first ? split(first, sep, head, MAX_FIELDS) : 0;
        size_t col_start = heads, col_end = heads, col_duration = heads, col_exclusive = heads;
        for (size_t i = 0; i < heads; i++) {
            col_start = strcmp(head[i], "start_ns") == 0 ? i : col_start;
            col_end = strcmp(head[i], "end_ns") == 0 ? i : col_end;
            col_duration = strcmp(head[i], "duration_ns") == 0 ? i : col_duration;
            col_exclusive = strcmp(head[i], "exclusive_ns") == 0 ? i : col_exclusive;
        }
        int wrong = 0, lines = 0;
        for (p = p ? p + len + (p[len] == '\n') : NULL; p && *p; lines++) {
            len = strcspn(p, "\n");
            char *l = strndup(p, len);
            size_t cells = l ? split(l, sep, row, MAX_FIELDS) : 0;
            bool ok = lines <= K_DISPATCHES && col_start < cells && col_end < cells && col_duration < cells &&
                      col_exclusive < cells && strtod(row[col_start], NULL) == start[lines] &&
                      strtod(row[col_end], NULL) == start[lines] + duration[lines] &&
                      strtod(row[col_duration], NULL) == duration[lines] &&
                      strtod(row[col_exclusive], NULL) == exclusive[lines];
            if (!ok && wrong++ == 0) {
                fprintf(stderr, "%s row %d: %.*s\n", wgprof_format_name(rows[f]), lines, (int)len, p);
            }
            free(l);
            p += len + (p[len] == '\n');
        }
        CHECK_MSG(wrong == 0 && lines == K_DISPATCHES + 1,
                  "%s: %d of %d rows without their start, end, duration and exclusive duration",
                  wgprof_format_name(rows[f]), wrong, lines);
        free(first);
        free(text);
    }
    wgprof_pool_destroy(pool);
}

int main(void)
{
    test_clock_map();
    test_device_period_not_finite();
    test_figures_not_finite();
    test_trace_times();
    test_kernel_columns();
    return check_summary();
}
