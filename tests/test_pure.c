/* The pure parts on synthetic readings, no GPU involved: validity, tick conversion with a
 * fractional period, overlap clamping, aggregation, and what the reports print for them. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock_fit.h"
#include "common.h"
#include "recorder.h"
#include "report_internal.h"
#include "summary_internal.h"
#include "support.h"
#include "testing.h"
#include "wgprof/device_util.h"

static void test_classify(void)
{
    CHECK(wgprof__classify(100, 200, true) == WGPROF_VALID);
    CHECK(wgprof__classify(100, 100, true) == WGPROF_VALID);
    CHECK(wgprof__classify(0, 0, true) == WGPROF_INVALID_NOT_WRITTEN);
    CHECK(wgprof__classify(100, 200, false) == WGPROF_INVALID_NOT_WRITTEN);
    CHECK(wgprof__classify(0, 200, true) == WGPROF_INVALID_ZERO);
    CHECK(wgprof__classify(100, 0, true) == WGPROF_INVALID_ZERO);
    CHECK(wgprof__classify(300, 200, true) == WGPROF_INVALID_BACKWARDS);
    for (int r = 0; r < WGPROF_INVALID_REASON_COUNT; r++) {
        CHECK(strcmp(wgprof_invalid_reason_str((wgprof_invalid_reason)r), "unknown") != 0);
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_stats(void)
{
    double v[20];
    for (int i = 0; i < 20; i++) {
        v[i] = (i * 7) % 20 + 1; /* 1..20, shuffled: the statistics must not need sorted input */
    }
    wgprof_kernel_stats k = {0};
    wgprof__stats(v, 20, &k);
    CHECK(k.count == 20);
    CHECK(k.total_ns == 210);
    CHECK(k.mean_ns == 10.5);
    CHECK(k.median_ns == 10.5);
    CHECK(k.p95_ns == 19);
    CHECK(k.min_ns == 1 && k.max_ns == 20);
    CHECK(fabs(k.stddev_ns - sqrt(399.0 / 12.0)) < 1e-12);
    double two[2] = {1, 2};
    wgprof__stats(two, 2, &k);
    CHECK(k.mean_ns == 1.5); /* floating point, not integer division */
    CHECK(k.p95_ns == 2);
    /* Against a sort, on many sizes with repeated values. */
    for (size_t n = 1; n <= 200; n++) {
        double data[200], sorted[200];
        for (size_t i = 0; i < n; i++) {
            data[i] = sorted[i] = (double)((i * 37 + n) % 23);
        }
        qsort(sorted, n, sizeof *sorted, compare_double);
        wgprof__stats(data, n, &k);
        size_t rank = (size_t)ceil(0.95 * (double)n);
        double med = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        CHECK_MSG(k.median_ns == med && k.p95_ns == sorted[rank - 1] && k.min_ns == sorted[0] &&
                      k.max_ns == sorted[n - 1],
                  "n=%zu", n);
    }
    double one[1] = {7};
    wgprof__stats(one, 1, &k);
    CHECK(k.median_ns == 7 && k.p95_ns == 7 && k.stddev_ns == 0);
}

/* The selection buckets values by bit pattern before it selects: against a sort on values that
 * spread over many binades, cluster in one bucket, tie, include zero, or put the two middle
 * values in different buckets. */
static void test_stats_against_sort(void)
{
    enum { MAX_N = 6000 };
    static double data[MAX_N], sorted[MAX_N];
    uint64_t seed = 99;
    int failures = 0;
    for (int shape = 0; shape < 5; shape++) {
        for (size_t n = 1; n <= MAX_N; n = n < 40 ? n + 1 : n * 3 / 2 + 1) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                double u = (double)(seed >> 11) / 9007199254740992.0;
                double v = shape == 0   ? exp(40.0 * u)                     /* many binades */
                           : shape == 1 ? 1000.0 + floor(u * 8.0)           /* heavy ties */
                           : shape == 2 ? (i % 7 == 0 ? 0.0 : 1e4 + u)      /* zeros and a cluster */
                           : shape == 3 ? (i < n / 2 ? 1.0 + u : 1e9 + u)   /* middles far apart */
                                        : (i == 0 ? 1e12 : 5.0);            /* one outlier */
                data[i] = sorted[i] = v;
            }
            qsort(sorted, n, sizeof *sorted, compare_double);
            wgprof_kernel_stats k = {0};
            wgprof__stats(data, n, &k);
            size_t rank = (size_t)ceil(0.95 * (double)n);
            double med = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            if (k.median_ns != med || k.p95_ns != sorted[rank - 1] || k.min_ns != sorted[0] ||
                k.max_ns != sorted[n - 1]) {
                failures++;
                fprintf(stderr, "shape %d n=%zu: median %.17g (want %.17g) p95 %.17g (want %.17g)\n", shape, n,
                        k.median_ns, med, k.p95_ns, sorted[rank - 1]);
            }
        }
    }
    CHECK(failures == 0);
}

/* A pool with no device: only host-side state, filled as collect would fill it. */
typedef struct synthetic {
    wgprof_pool *pool;
    uint32_t site_a, site_b;
    uint64_t ticks[32];
} synthetic;

typedef struct reading {
    bool a;
    uint64_t begin, end;
    bool end_issued;
} reading;

static void synthetic_init(synthetic *s, double period)
{
    memset(s, 0, sizeof *s);
    s->pool = wgprof__pool_new_host();
    CHECK(s->pool != NULL);
    wgprof_dispatch_desc a = {.kernel = "matmul", .workgroups = {4, 2, 1}, .workgroup_size = {64, 1, 1}, .bytes = 1e6};
    wgprof_dispatch_desc b = {.kernel = "softmax", .workgroups = {1, 1, 1}, .workgroup_size = {256, 1, 1}};
    CHECK_OK(wgprof__host_site(s->pool, &a, &s->site_a));
    CHECK_OK(wgprof__host_site(s->pool, &b, &s->site_b));
    uint32_t again;
    CHECK_OK(wgprof__host_site(s->pool, &a, &again));
    CHECK(again == s->site_a);
    const uint64_t base = 1000000000000ull; /* large ticks, as real counters give */
    const reading readings[] = {
        {true, base + 100, base + 200, true},    /* 0: valid */
        {false, base + 150, base + 300, true},   /* 1: overlaps 0 by 50 ticks */
        {true, base + 250, base + 280, true},    /* 2: entirely inside 1 */
        {true, 0, base + 400, true},             /* 3: zero */
        {false, base + 900, base + 500, true},   /* 4: backwards */
        {true, 0, 0, true},                      /* 5: never written */
        {false, base + 1000, base + 1001, true}, /* 6: one tick */
    };
    size_t n = sizeof readings / sizeof readings[0], first = 0;
    uint32_t sites[sizeof readings / sizeof readings[0]], batch = 0;
    for (size_t i = 0; i < n; i++) {
        sites[i] = readings[i].a ? s->site_a : s->site_b;
        s->ticks[2 * i] = readings[i].begin;
        s->ticks[2 * i + 1] = readings[i].end;
    }
    CHECK_OK(wgprof__host_batch(s->pool, n, sites, n, false, &first, &batch));
    wgprof__extent extent = {0};
    wgprof__host_readings(s->pool, batch, 0, 3, s->ticks, period, &extent); /* as two sets of one batch */
    wgprof__host_readings(s->pool, batch, 3, n - 3, s->ticks + 6, period, &extent);
    wgprof__host_collected(s->pool, batch, period);
}

static void synthetic_free(synthetic *s)
{
    wgprof_pool_destroy(s->pool);
}

static void test_records(void)
{
    synthetic s;
    synthetic_init(&s, 0.52); /* a fractional period, as some GPUs have */
    const wgprof_pool *p = s.pool;
    CHECK(wgprof_pool_count(p) == 7);
    CHECK(wgprof_pool_invalid_count(p) == 3);
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(p, 0, &r));
    CHECK(r.valid && r.duration_ns == 100 * 0.52 && r.exclusive_ns == 100 * 0.52);
    CHECK(r.start_ns == 0); /* the epoch is the first valid begin */
    CHECK(strcmp(r.kernel, "matmul") == 0 && r.global_size[0] == 256 && r.global_size[1] == 2);
    CHECK(r.bytes == 1e6);
    CHECK_OK(wgprof_pool_record(p, 1, &r));
    CHECK(r.duration_ns == 150 * 0.52);
    CHECK(r.exclusive_ns == 100 * 0.52); /* begin clamped to the end of record 0 */
    CHECK(fabs(r.start_ns - 50 * 0.52) < 1e-9);
    CHECK_OK(wgprof_pool_record(p, 2, &r));
    CHECK(r.duration_ns == 30 * 0.52 && r.exclusive_ns == 0);
    CHECK_OK(wgprof_pool_record(p, 3, &r));
    CHECK(!r.valid && r.invalid_reason == WGPROF_INVALID_ZERO && r.duration_ns == 0);
    CHECK_OK(wgprof_pool_record(p, 4, &r));
    CHECK(!r.valid && r.invalid_reason == WGPROF_INVALID_BACKWARDS);
    CHECK_OK(wgprof_pool_record(p, 5, &r));
    CHECK(!r.valid && r.invalid_reason == WGPROF_INVALID_NOT_WRITTEN);
    CHECK_OK(wgprof_pool_record(p, 6, &r));
    CHECK(r.duration_ns == 0.52); /* one tick is 0.52 ns, not rounded to 1 or 0 */
    CHECK(wgprof_pool_record(p, 7, &r) == WGPROF_ERR_INVALID_ARGUMENT);

    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->kernel_count == 2 && sum->records == 7 && sum->invalid == 3);
    CHECK(sum->invalid_by_reason[WGPROF_INVALID_ZERO] == 1 && sum->invalid_by_reason[WGPROF_INVALID_BACKWARDS] == 1 &&
          sum->invalid_by_reason[WGPROF_INVALID_NOT_WRITTEN] == 1);
    const wgprof_kernel_stats *mm = &sum->kernels[0], *sm = &sum->kernels[1];
    CHECK(strcmp(mm->name, "matmul") == 0 && strcmp(sm->name, "softmax") == 0);
    CHECK(mm->count == 2 && mm->invalid == 2);
    CHECK(fabs(mm->total_ns - 130 * 0.52) < 1e-9); /* a sum over records, not the first one */
    CHECK(fabs(mm->mean_ns - 65 * 0.52) < 1e-9);
    CHECK(sm->count == 2 && sm->invalid == 1);
    CHECK(fabs(sm->total_ns - 151 * 0.52) < 1e-9);
    CHECK(fabs(mm->share + sm->share - 1) < 1e-12);
    CHECK(mm->bytes == 2e6);
    CHECK(fabs(sum->exclusive_total_ns - (100 + 100 + 0 + 1) * 0.52) < 1e-9);
    wgprof_summary_destroy(sum);
    synthetic_free(&s);
}

static char *report_text_partial(const wgprof_pool *p, wgprof_format format, const char *partial_reason)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wgprof_device_info info = {0};
    snprintf(info.adapter, sizeof info.adapter, "Test \"GPU\"");
    info.backend = "vulkan";
    info.adapter_type = "cpu";
    info.timestamp_period_ns = 0.52;
    info.period_from_implementation = true;
    wgprof_report_desc desc = {.device = &info, .pool = p, .peak_gbps = 100000, .partial_reason = partial_reason};
    CHECK_OK(wgprof_report_write(&desc, format, f));
    fclose(f);
    return buf;
}

static char *report_text(const wgprof_pool *p, wgprof_format format)
{
    return report_text_partial(p, format, NULL);
}

static void test_reports(void)
{
    synthetic s;
    synthetic_init(&s, 0.52);
    char *json = report_text(s.pool, WGPROF_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    CHECK_MSG(root != NULL, "JSON report does not parse: %s at %d:%d", err.text, err.line, err.column);
    if (root) {
        CHECK(json_integer_value(json_object_get(root, "format_version")) == 1);
        CHECK(strcmp(json_string_value(json_object_get(root, "wgprof_version")), WGPROF_VERSION_STRING) == 0);
        CHECK(strcmp(json_string_value(json_object_get(json_object_get(root, "adapter"), "name")), "Test \"GPU\"") == 0);
        CHECK(json_real_value(json_object_get(root, "timestamp_period_ns")) == 0.52);
        json_t *d = json_object_get(root, "dispatches");
        CHECK(json_array_size(d) == 7);
        json_t *first = json_array_get(d, 0), *zero = json_array_get(d, 3);
        CHECK(json_number_value(json_object_get(first, "duration_ns")) == 52.0);
        CHECK(json_is_true(json_object_get(first, "valid")));
        CHECK(json_array_size(json_object_get(first, "global_size")) == 3);
        CHECK(json_is_null(json_object_get(zero, "duration_ns")));
        CHECK(strcmp(json_string_value(json_object_get(zero, "invalid_reason")), "zero") == 0);
        json_t *k = json_object_get(root, "kernels");
        CHECK(json_array_size(k) == 2);
        CHECK(json_integer_value(json_object_get(json_array_get(k, 0), "invalid")) == 2);
        const char *fields[] = {"name", "count", "invalid", "total_ns", "mean_ns", "min_ns", "max_ns",
                                "median_ns", "p95_ns", "stddev_ns", "share"};
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
            CHECK_MSG(json_object_get(json_array_get(k, 0), fields[i]) != NULL, "kernels[0] lacks %s", fields[i]);
        }
        CHECK(json_integer_value(json_object_get(root, "invalid")) == 3);
        json_decref(root);
    }
    free(json);

    char *table = report_text(s.pool, WGPROF_FORMAT_TABLE);
    CHECK(strstr(table, "invalid:") && strstr(table, "backwards") && strstr(table, "not-written"));
    CHECK(strstr(table, "0.052") != NULL); /* record 0: 52 ns, as µs with 3 decimals */
    CHECK(strstr(table, "3 invalid records") != NULL);
    free(table);

    char *tsv = report_text(s.pool, WGPROF_FORMAT_TSV);
    int lines = 0;
    for (char *c = tsv; *c; c++) {
        lines += *c == '\n';
    }
    CHECK(lines == 8);
    CHECK(strstr(tsv, "\t\t\t\t0\tzero\t\t0\t\n") != NULL); /* no number for an invalid record; no quantum */
    free(tsv);

    char *csv = report_text(s.pool, WGPROF_FORMAT_CSV);
    CHECK(strncmp(csv, "iteration,index,dispatch_id,kernel,", 35) == 0);
    CHECK(strstr(csv, ",,,,0,backwards,,0,\n") != NULL);
    free(csv);
    char *csv_summary = report_text(s.pool, WGPROF_FORMAT_CSV_SUMMARY);
    /* matmul: 2 valid records of 1e6 bytes in 130 ticks of 0.52 ns: 29585.799 GB/s, 29.6% of the peak. */
    CHECK_MSG(strstr(csv_summary, "\nmatmul,2,2,67.600,") && strstr(csv_summary, ",29585.799,,0.295858,"), "%s",
              csv_summary);
    free(csv_summary);
    char *table_eff = report_text(s.pool, WGPROF_FORMAT_TABLE);
    CHECK(strstr(table_eff, "GB/s") && strstr(table_eff, "29585.799") && strstr(table_eff, "29.6%"));
    free(table_eff);

    char *trace = report_text(s.pool, WGPROF_FORMAT_TRACE);
    root = json_loads(trace, 0, &err);
    CHECK_MSG(root != NULL, "trace does not parse: %s at %d:%d", err.text, err.line, err.column);
    if (root) {
        json_t *events = json_object_get(root, "traceEvents");
        size_t complete = 0, iterations = 0;
        json_t *first = NULL;
        for (size_t i = 0; i < json_array_size(events); i++) {
            json_t *e = json_array_get(events, i);
            if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0) {
                continue;
            }
            const char *cat = json_string_value(json_object_get(e, "cat"));
            first = first || strcmp(cat, "dispatch") != 0 ? first : e;
            complete += strcmp(cat, "dispatch") == 0;
            iterations += strcmp(cat, "iteration") == 0;
            CHECK(json_number_value(json_object_get(e, "dur")) >= 0);
        }
        CHECK(complete == 4 && iterations == 1); /* valid records only; the three invalid are counted */
        CHECK(json_integer_value(json_object_get(json_object_get(root, "otherData"), "invalid_dispatches")) == 3);
        CHECK(first != NULL);
        CHECK(json_is_true(json_object_get(json_object_get(first, "args"), "valid")));
        CHECK(json_real_value(json_object_get(first, "dur")) == 0.052);
        json_decref(root);
    }
    free(trace);
    synthetic_free(&s);

    /* Without a pool: the report says why there are no timings. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wgprof_report_desc none = {.unavailable_reason = "the adapter has no TimestampQuery feature"};
    CHECK_OK(wgprof_report_write(&none, WGPROF_FORMAT_JSON, f));
    fclose(f);
    root = json_loads(buf, 0, &err);
    CHECK(root && json_is_false(json_object_get(root, "profiling")));
    CHECK(root && strstr(json_string_value(json_object_get(root, "unavailable_reason")), "TimestampQuery"));
    CHECK(root && json_array_size(json_object_get(root, "dispatches")) == 0);
    json_decref(root);
    free(buf);
}

/* The clock fit on synthetic bounds: a known offset and drift, intervals of random width
 * around the true CPU time of each timestamp. */
static double lcg_unit(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*seed >> 11) / 9007199254740992.0;
}

static void test_clock_fit(void)
{
    const double offset = 123456789.0; /* CPU ns at GPU tick 0 */
    const uint64_t start = 1800000000000000000ull; /* ticks as large as a GPU's wall-clock timer */
    uint64_t seed = 7;
    for (int drifting = 0; drifting < 2; drifting++) {
        const double drift = drifting ? 40e-6 : 0.0, period = drifting ? 1.0 : 0.5;
        wgprof__clock_fit *c = calloc(1, sizeof *c);
        /* 200 samples over 20 s; each bound 5..60 us away from the truth, one side at times. */
        for (int i = 0; i < 200; i++) {
            uint64_t ticks = start + (uint64_t)(i * 1e8 / period);
            double truth = offset + (double)(ticks - start) * period * (1 + drift);
            double lo = truth - 5e3 - 55e3 * lcg_unit(&seed), hi = truth + 5e3 + 55e3 * lcg_unit(&seed);
            int kind = i % 3; /* two-sided, lower only, upper only */
            double gpu_ns = (double)(ticks - start) * period; /* as the store converts, its origin at start */
            wgprof__clock_add(c, ticks, gpu_ns, kind == 2 ? -INFINITY : lo, kind == 1 ? INFINITY : hi);
        }
        wgprof__clock_refit(c);
        const wgprof_clock_info *info = &c->info;
        CHECK(info->calibrated && info->consistent);
        double truth_at_ref = offset + (double)(info->ref_ticks - start) * period * (1 + drift);
        CHECK_MSG(fabs(info->ref_cpu_ns - truth_at_ref) <= info->uncertainty_ns,
                  "drift %g: off by %.1f ns, uncertainty %.1f ns", drift, info->ref_cpu_ns - truth_at_ref,
                  info->uncertainty_ns);
        CHECK_MSG(info->uncertainty_ns <= 15e3, "uncertainty %.1f ns", info->uncertainty_ns);
        CHECK_MSG(fabs(info->drift_ppm - drift * 1e6) < 2.0, "drift %.3f ppm fitted, %.3f true", info->drift_ppm,
                  drift * 1e6);
        free(c);
    }
    /* Lower bounds alone say nothing about the offset. */
    wgprof__clock_fit *c = calloc(1, sizeof *c);
    wgprof__clock_add(c, 1000, 1000.0, 5000, INFINITY);
    wgprof__clock_refit(c);
    CHECK(!c->info.calibrated);
    /* Bounds that cannot all hold: said so, with how far apart they are. */
    wgprof__clock_add(c, 1000, 1000.0, -INFINITY, 4000);
    wgprof__clock_refit(c);
    CHECK(c->info.calibrated && !c->info.consistent && c->info.uncertainty_ns == 500);
    free(c);
}

/* Scopes on a host-only pool: nesting, spans that include the gaps between dispatches, the
 * summary's depth-first order, and a scope end without a begin. */
static void test_scopes(void)
{
    wgprof_pool *p = wgprof__pool_new_host();
    uint32_t site;
    wgprof_dispatch_desc d = {.kernel = "k"};
    CHECK_OK(wgprof__host_site(p, &d, &site));
    CHECK(wgprof_pool_scope_end(p) == WGPROF_ERR_STATE);
    size_t first = 0;
    uint64_t ticks[12];
    for (int it = 0; it < 2; it++) {
        CHECK_OK(wgprof_pool_scope_begin(p, "layer"));
        CHECK_OK(wgprof_pool_scope_begin(p, "attention"));
        uint32_t batch = 0, more_batch = 0;
        CHECK_OK(wgprof__host_batch(p, 2, &site, 1, false, &first, &batch));
        CHECK_OK(wgprof_pool_scope_end(p));
        CHECK_OK(wgprof_pool_scope_begin(p, "mlp"));
        size_t more = 0;
        CHECK_OK(wgprof__host_batch(p, 1, &site, 1, false, &more, &more_batch));
        CHECK_OK(wgprof_pool_scope_end(p));
        CHECK_OK(wgprof_pool_scope_end(p));
        /* Dispatches of 100 ticks with 10 idle ticks between them; iteration 1 twice as long. */
        uint64_t t = 1000000 + 10000 * (uint64_t)it;
        for (int r = 0; r < 3; r++) {
            ticks[2 * r] = t;
            ticks[2 * r + 1] = t + 100 * (uint64_t)(it + 1);
            t += 100 * (uint64_t)(it + 1) + 10;
        }
        wgprof__extent extent = {0};
        wgprof__host_readings(p, batch, first, 2, ticks, 1.0, &extent);
        wgprof__host_collected(p, batch, 1.0);
        extent = (wgprof__extent){0};
        wgprof__host_readings(p, more_batch, more, 1, ticks + 4, 1.0, &extent);
        wgprof__host_collected(p, more_batch, 1.0);
    }
    CHECK(wgprof_pool_scope_count(p) == 6);
    wgprof_scope_record sc;
    CHECK_OK(wgprof_pool_scope(p, 0, &sc));
    CHECK(strcmp(sc.name, "layer") == 0 && sc.depth == 0 && sc.parent_node == -1 && sc.valid_records == 3);
    CHECK(sc.duration_ns == 320 && sc.dispatch_ns == 300); /* the span counts the two gaps */
    CHECK_OK(wgprof_pool_scope(p, 2, &sc));
    CHECK(strcmp(sc.name, "mlp") == 0 && sc.depth == 1 && sc.first_record == 2 && sc.end_record == 3);
    CHECK_OK(wgprof_pool_scope(p, 3, &sc));
    CHECK(sc.node == 0 && sc.batch == 2); /* the same node as the first "layer" */
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->scope_count == 3);
    CHECK(strcmp(sum->scopes[0].name, "layer") == 0 && sum->scopes[0].parent == -1);
    CHECK(strcmp(sum->scopes[1].name, "attention") == 0 && sum->scopes[1].parent == 0);
    CHECK(strcmp(sum->scopes[2].name, "mlp") == 0 && sum->scopes[2].parent == 0);
    CHECK(sum->scopes[0].count == 2 && sum->scopes[0].total_ns == 320 + 620);
    CHECK(sum->scopes[0].min_ns == 320 && sum->scopes[0].max_ns == 620 && sum->scopes[0].mean_ns == 470);
    CHECK(fabs(sum->scopes[0].share - 1.0) < 1e-12 && fabs(sum->scopes[2].share - 300.0 / 900.0) < 1e-12);
    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, "\nlayer ") && strstr(table, "\n  attention ") && strstr(table, "\n  mlp "), "%s", table);
    free(table);
    wgprof_summary_destroy(sum);
    /* A scope left open is reported as open, up to the last record. */
    CHECK_OK(wgprof_pool_scope_begin(p, "open"));
    CHECK_OK(wgprof_pool_scope(p, 6, &sc));
    CHECK(sc.open && !sc.valid && sc.first_record == 6 && sc.end_record == 6);
    wgprof_pool_destroy(p);
}

/* A scope around no timed dispatch is empty, not invalid: nothing went wrong. One whose only
 * record never got its end timestamp is invalid. */
static void test_empty_scope(void)
{
    wgprof_pool *p = wgprof__pool_new_host();
    uint32_t site, batch = 0;
    size_t first = 0;
    wgprof_dispatch_desc d = {.kernel = "k"};
    CHECK_OK(wgprof__host_site(p, &d, &site));
    CHECK_OK(wgprof_pool_scope_begin(p, "idle"));
    CHECK_OK(wgprof_pool_scope_end(p));
    CHECK_OK(wgprof_pool_scope_begin(p, "cut"));
    CHECK_OK(wgprof__host_batch(p, 1, &site, 1, true, &first, &batch));
    CHECK_OK(wgprof_pool_scope_end(p));
    const uint64_t ticks[2] = {1000, 0};
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, 1, ticks, 1.0, &extent);
    wgprof__host_collected(p, batch, 1.0);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->scope_count == 2);
    CHECK(strcmp(sum->scopes[0].name, "idle") == 0 && sum->scopes[0].empty == 1 && sum->scopes[0].invalid == 0 &&
          sum->scopes[0].count == 0);
    CHECK(strcmp(sum->scopes[1].name, "cut") == 0 && sum->scopes[1].empty == 0 && sum->scopes[1].invalid == 1);
    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, "no dispatch") && strstr(table, "no valid record"), "%s", table);
    free(table);
    wgprof_summary_destroy(sum);
    wgprof_pool_destroy(p);
}

/* A host pool holding one batch of `n` valid records, record i of kernel names[i], inside the
 * scopes opened before it by the caller. */
static wgprof_pool *named_pool(const char *const *names, size_t n)
{
    wgprof_pool *p = wgprof__pool_new_host();
    uint32_t sites[8], batch = 0;
    uint64_t ticks[16];
    size_t first = 0;
    for (size_t i = 0; i < n; i++) {
        wgprof_dispatch_desc d = {.kernel = names[i]};
        CHECK_OK(wgprof__host_site(p, &d, &sites[i]));
        ticks[2 * i] = 1000 + 100 * i;
        ticks[2 * i + 1] = 1050 + 100 * i;
    }
    CHECK_OK(wgprof__host_batch(p, n, sites, n, false, &first, &batch));
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, n, ticks, 1.0, &extent);
    wgprof__host_collected(p, batch, 1.0);
    return p;
}

/* A workgroup size nobody could tell (all zeros: wgprof record without the WGSL, an expression)
 * stays unknown: no local or global size in any report, never a guess of 1; a partly given one
 * has its missing components count as 1. */
static void test_unknown_workgroup_size(void)
{
    wgprof_pool *p = wgprof__pool_new_host();
    uint32_t sites[3], batch = 0;
    size_t first = 0;
    wgprof_dispatch_desc known = {.kernel = "known", .workgroups = {4, 1, 1}, .workgroup_size = {64, 0, 0}};
    wgprof_dispatch_desc unknown = {.kernel = "unknown", .workgroups = {4, 1, 1}};
    wgprof_dispatch_desc indirect = {.kernel = "indirect", .workgroup_size = {64, 1, 1}}; /* counts on the GPU */
    CHECK_OK(wgprof__host_site(p, &known, &sites[0]));
    CHECK_OK(wgprof__host_site(p, &unknown, &sites[1]));
    CHECK_OK(wgprof__host_site(p, &indirect, &sites[2]));
    CHECK_OK(wgprof__host_batch(p, 3, sites, 3, false, &first, &batch));
    const uint64_t ticks[6] = {1000, 1500, 1600, 1900, 2000, 2100};
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, 3, ticks, 1.0, &extent);
    wgprof__host_collected(p, batch, 1.0);
    wgprof_record r;
    CHECK_OK(wgprof_pool_record(p, 0, &r));
    CHECK(r.workgroup_size[0] == 64 && r.workgroup_size[1] == 1 && r.workgroup_size[2] == 1 && r.global_size[0] == 256);
    CHECK_OK(wgprof_pool_record(p, 1, &r));
    CHECK(r.workgroup_size[0] == 0 && r.workgroup_size[1] == 0 && r.workgroup_size[2] == 0 && r.global_size[0] == 0);
    CHECK_OK(wgprof_pool_record(p, 2, &r));
    CHECK(r.workgroups[0] == 0 && r.workgroups[1] == 0 && r.workgroups[2] == 0 && r.workgroup_size[0] == 64 &&
          r.global_size[0] == 0);
    char *json = report_text(p, WGPROF_FORMAT_JSON);
    CHECK_MSG(strstr(json, "\"global_size\": null, \"local_size\": [64, 1, 1], \"workgroups\": null"), "%s", json);
    CHECK_MSG(strstr(json, "\"global_size\": [256, 1, 1], \"local_size\": [64, 1, 1]") &&
                  strstr(json, "\"global_size\": null, \"local_size\": null"),
              "%s", json);
    free(json);
    char *csv = report_text(p, WGPROF_FORMAT_CSV);
    CHECK_MSG(strstr(csv, ",known,4,1,1,64,1,1,256,1,1,") && strstr(csv, ",unknown,4,1,1,,,,,,,") &&
                  strstr(csv, ",indirect,,,,64,1,1,,,,"),
              "%s", csv);
    free(csv);
    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    const char *row = strstr(table, "unknown");
    CHECK_MSG(row && strstr(row, " ? ") && !strstr(table, "4,1,1            1,1,1"), "%s", table);
    free(table);
    char *trace = report_text(p, WGPROF_FORMAT_TRACE);
    CHECK_MSG(strstr(trace, "\"local_size\": null, \"global_size\": null"), "%s", trace);
    free(trace);
    wgprof_pool_destroy(p);
}

/* What one of common.h's escaping functions writes for `s` (`width` where it takes one). */
enum { ESC_JSON_STRING, ESC_SCRIPT_JSON, ESC_HTML, ESC_CSV, ESC_TSV, ESC_MARKDOWN, ESC_CELL, ESC_SHOWN };
static char *escaped(int rule, const char *s, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    switch (rule) {
    case ESC_JSON_STRING: wgprof__escape_json_string(f, s, WGPROF__ESCAPE_JSON_IN_SCRIPT); break;
    case ESC_SCRIPT_JSON: wgprof__escape_json_in_script(f, s, strlen(s)); break;
    case ESC_HTML: wgprof__escape_html(f, s); break;
    case ESC_CSV: wgprof__escape_csv(f, s); break;
    case ESC_TSV: wgprof__escape_tsv(f, s); break;
    case ESC_MARKDOWN: wgprof__escape_markdown(f, s); break;
    case ESC_CELL: wgprof__escape_terminal_cell(f, s, width); break;
    default: wgprof__escape_terminal_shown(f, s, (size_t)width); break;
    }
    fclose(f);
    return buf;
}

static void check_escaped(int rule, const char *s, int width, const char *expected)
{
    char *got = escaped(rule, s, width);
    CHECK_MSG(strcmp(got, expected) == 0, "rule %d: '%s' gave '%s', not '%s'", rule, s, got, expected);
    free(got);
}

/* Each escaping rule on the bytes it exists for (the writers' own tests see them through
 * whole reports; Markdown, the diff page's data and diff's table are seen here only). */
static void test_escape(void)
{
    check_escaped(ESC_JSON_STRING, "a\"\\\n\x01</s>&\xff", 0, "\"a\\\"\\\\\\n\\u0001\\u003c/s\\u003e\\u0026\\ufffd\"");
    check_escaped(ESC_SCRIPT_JSON, "{\"n\": \"</script><!--\"}", 0, "{\"n\": \"\\u003c/script>\\u003c!--\"}");
    check_escaped(ESC_HTML, "<a b='c'>&\"\xff", 0, "&lt;a b=&#39;c&#39;&gt;&amp;&quot;\xef\xbf\xbd");
    check_escaped(ESC_CSV, "=1,\"x\"", 0, "\"'=1,\"\"x\"\"\"");
    check_escaped(ESC_TSV, "@a\tb\nc", 0, "'@a\xef\xbf\xbd" "b\xef\xbf\xbd" "c");
    /* CSV and TSV are printed as often as opened: the table's rule for controls (a window title
     * set, a screen cleared, a C1 CSI) and for bytes that are not UTF-8. */
    check_escaped(ESC_CSV, "\x1b]0;t\x07\x1b[2J\xc2\x9b\xff,x", 0,
                  "\"\xef\xbf\xbd]0;t\xef\xbf\xbd\xef\xbf\xbd[2J\xef\xbf\xbd\xef\xbf\xbd,x\"");
    check_escaped(ESC_TSV, "a\x1b[2J\x7f\xc3", 0, "a\xef\xbf\xbd[2J\xef\xbf\xbd\xef\xbf\xbd");
    /* Markdown: what formats or ends a cell escaped; controls, C1 and a bidirectional override
     * (U+202E) as spaces. */
    check_escaped(ESC_MARKDOWN, "a|b*c_[d]`e<f>~&\\g\x1b\xc2\x85h\xe2\x80\xaei", 0,
                  "a\\|b\\*c\\_\\[d\\]\\`e\\<f\\>\\~\\&\\\\g  h i");
    check_escaped(ESC_CELL, "\x1b[2J\xff", 6, "\xef\xbf\xbd[2J\xef\xbf\xbd ");
    /* diff's table: controls and bidirectional isolates shown as escapes; width in bytes. */
    check_escaped(ESC_SHOWN, "a\x1b\xc2\x85\xe2\x81\xa6z", 0, "a\\x1b\\u0085\\u2066z");
    check_escaped(ESC_SHOWN, "ab", 4, "ab  ");
    char out[16];
    wgprof__escape_terminal_copy(out, sizeof out, "a\nb\x1b", false);
    CHECK_MSG(strcmp(out, "a\\nb\\x1b") == 0, "%s", out);
    wgprof__escape_terminal_copy(out, sizeof out, "a\nb\x1b", true);
    CHECK_MSG(strcmp(out, "a\nb\\x1b") == 0, "%s", out);
    wgprof__escape_terminal_copy(out, 8, "abcdefghij", false);
    CHECK_MSG(strcmp(out, "abcd...") == 0, "%s", out);
}

/* A partial report says so in every format, in the place its reader looks first; a complete one
 * says it is complete where the format has a field for it. The reason is the caller's text: it
 * is escaped as a name is. */
static void test_partial(void)
{
    const char *names[] = {"k"};
    wgprof_pool *p = named_pool(names, 1);
    const char *why = "ended, \"by\" SIGKILL\x1b[2J";
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        char *full = report_text(p, (wgprof_format)f), *part = report_text_partial(p, (wgprof_format)f, why);
        /* Text formats (HTML text keeps controls, as it does a name's: a browser shows none). */
        CHECK_MSG(f == WGPROF_FORMAT_HTML || strchr(part, '\x1b') == NULL, "format %d: the reason's escape went out raw", f);
        switch ((wgprof_format)f) {
        case WGPROF_FORMAT_TABLE:
            CHECK_MSG(strstr(part, "\nPARTIAL RESULTS: ended, \"by\" SIGKILL\xef\xbf\xbd[2J\n") && !strstr(full, "PARTIAL"),
                      "%s", part);
            break;
        case WGPROF_FORMAT_JSON:
        case WGPROF_FORMAT_TRACE: {
            json_t *a = json_loads(part, 0, NULL), *b = json_loads(full, 0, NULL);
            const json_t *pa = f == WGPROF_FORMAT_JSON ? a : json_object_get(a, "otherData");
            const json_t *pb = f == WGPROF_FORMAT_JSON ? b : json_object_get(b, "otherData");
            CHECK_MSG(json_is_true(json_object_get(pa, "partial")) &&
                          !strcmp(json_string_value(json_object_get(pa, "partial_reason")), why),
                      "format %d: %s", f, part);
            CHECK_MSG(json_is_false(json_object_get(pb, "partial")) && !json_object_get(pb, "partial_reason"),
                      "format %d: %s", f, full);
            if (f == WGPROF_FORMAT_TRACE) {
                CHECK(strstr(part, "(PARTIAL RESULTS)") && !strstr(full, "PARTIAL"));
            }
            json_decref(a);
            json_decref(b);
            break;
        }
        case WGPROF_FORMAT_CSV:
        case WGPROF_FORMAT_CSV_SUMMARY:
            CHECK_MSG(strstr(part, ",partial,partial_reason\n") && strstr(part, ",1,\"ended, \"\"by\"\" SIGKILL\xef\xbf\xbd[2J\"\n") &&
                          strstr(full, ",0,\n"),
                      "%s", part);
            break;
        case WGPROF_FORMAT_TSV:
            CHECK_MSG(strstr(part, "\tpartial\tpartial_reason\n") && strstr(part, "\t1\tended, \"by\" SIGKILL\xef\xbf\xbd[2J\n") &&
                          strstr(full, "\t0\t\n"),
                      "%s", part);
            break;
        case WGPROF_FORMAT_HTML:
            CHECK_MSG(strstr(part, "<title>PARTIAL wgprof report") &&
                          strstr(part, "<p class=\"note partial\" id=\"partial\"><strong>Partial results:</strong> ended, "
                                       "&quot;by&quot; SIGKILL") &&
                          strstr(part, "\"partial\": true, \"partial_reason\": ") && !strstr(full, "note partial") &&
                          strstr(full, "\"partial\": false"),
                      "%s", part);
            break;
        case WGPROF_FORMAT_COUNT: break;
        }
        free(full);
        free(part);
    }
    /* An empty reason is a partial report still. */
    char *json = report_text_partial(p, WGPROF_FORMAT_JSON, "");
    CHECK_MSG(strstr(json, "\"partial\": true,\n  \"partial_reason\": \"the results are incomplete"), "%s", json);
    free(json);
    wgprof_pool_destroy(p);
}

/* Names are the user's bytes: every report stays well-formed whatever they hold. */
static void test_hostile_names(void)
{
    const char *names[] = {"bad \xff\xfe utf-8 \xc3", "\x1b[2J\x1b[31mred", "=HYPERLINK(\"http://x\")",
                           "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "line\nbreak"};
    size_t n = sizeof names / sizeof names[0];
    wgprof_pool *p = named_pool(names, n);
    for (int f = WGPROF_FORMAT_JSON; f <= WGPROF_FORMAT_TRACE; f += WGPROF_FORMAT_TRACE - WGPROF_FORMAT_JSON) {
        char *text = report_text(p, (wgprof_format)f);
        json_error_t err;
        json_t *root = json_loads(text, 0, &err);
        CHECK_MSG(root != NULL, "format %d does not parse: %s", f, err.text);
        if (root && f == WGPROF_FORMAT_JSON) {
            json_t *k = json_object_get(root, "kernels");
            CHECK(strcmp(json_string_value(json_object_get(json_array_get(k, 0), "name")),
                         "bad \xef\xbf\xbd\xef\xbf\xbd utf-8 \xef\xbf\xbd") == 0);
            CHECK(strcmp(json_string_value(json_object_get(json_array_get(k, 1), "name")), names[1]) == 0);
        }
        json_decref(root);
        free(text);
    }
    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK(strchr(table, '\x1b') == NULL && strstr(table, "\xef\xbf\xbd[2J") != NULL);
    CHECK(strstr(table, "line\xef\xbf\xbd" "break") != NULL); /* the row is not split */
    free(table);
    char *csv = report_text(p, WGPROF_FORMAT_CSV_SUMMARY);
    CHECK_MSG(strstr(csv, "\n\"'=HYPERLINK(\"\"http://x\"\")\",") && strstr(csv, "\n'+cmd|' /C calc'!A0,") &&
                  strstr(csv, "\n'-2+3,") && strstr(csv, "\n'@SUM(A1),"),
              "%s", csv);
    free(csv);
    char *tsv = report_text(p, WGPROF_FORMAT_TSV);
    CHECK(strstr(tsv, "\t'=HYPERLINK(") && strstr(tsv, "\t'@SUM(A1)\t"));
    free(tsv);
    /* Per-dispatch CSV and TSV (what `wgprof record --csv` copies): as the table shows names. */
    for (int f = WGPROF_FORMAT_TSV; f <= WGPROF_FORMAT_CSV; f += WGPROF_FORMAT_CSV - WGPROF_FORMAT_TSV) {
        char *rows = report_text(p, (wgprof_format)f);
        CHECK_MSG(strchr(rows, '\x1b') == NULL && strstr(rows, "bad \xef\xbf\xbd\xef\xbf\xbd utf-8 \xef\xbf\xbd") &&
                      strstr(rows, "\xef\xbf\xbd[2J\xef\xbf\xbd[31mred") && strstr(rows, "line\xef\xbf\xbd" "break"),
                  "format %d: %s", f, rows);
        free(rows);
    }
    wgprof_pool_destroy(p);
}

/* Scope paths keep every level and every character: 100 levels, and a name of 400 three-byte
 * characters that a 1024-byte buffer used to cut in the middle of one. */
static void test_deep_scopes(void)
{
    char euro_name[1 + 400 * 3 + 1] = "a";
    for (int i = 0; i < 400; i++) {
        memcpy(euro_name + 1 + 3 * i, "\xe2\x82\xac", 3);
    }
    euro_name[sizeof euro_name - 1] = '\0';
    wgprof_pool *p = wgprof__pool_new_host();
    CHECK_OK(wgprof_pool_scope_begin(p, euro_name));
    for (int d = 1; d < 100; d++) {
        char name[16];
        snprintf(name, sizeof name, "L%d", d);
        CHECK_OK(wgprof_pool_scope_begin(p, name));
    }
    uint32_t site, batch = 0;
    size_t first = 0;
    wgprof_dispatch_desc desc = {.kernel = "k"};
    CHECK_OK(wgprof__host_site(p, &desc, &site));
    CHECK_OK(wgprof__host_batch(p, 1, &site, 1, false, &first, &batch));
    for (int d = 0; d < 100; d++) {
        CHECK_OK(wgprof_pool_scope_end(p));
    }
    uint64_t ticks[2] = {500, 900};
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, 1, ticks, 1.0, &extent);
    wgprof__host_collected(p, batch, 1.0);
    char *json = report_text(p, WGPROF_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    CHECK_MSG(root != NULL, "JSON does not parse: %s", err.text);
    json_t *scopes = json_object_get(root, "scopes");
    CHECK(json_array_size(scopes) == 100);
    const char *deepest = json_string_value(json_object_get(json_array_get(scopes, 99), "path"));
    CHECK(deepest && strncmp(deepest, euro_name, strlen(euro_name)) == 0 && strstr(deepest, "/L1/L2/") &&
          strcmp(deepest + strlen(deepest) - 4, "/L99") == 0);
    CHECK(json_real_value(json_object_get(json_array_get(scopes, 99), "total_ns")) == 400.0);
    /* Each instance names the same path as its scope's aggregate (what wgprof diff matches). */
    json_t *instances = json_object_get(root, "scope_instances");
    CHECK(json_array_size(instances) == 100);
    for (size_t i = 0; i < json_array_size(instances); i++) {
        const char *path = json_string_value(json_object_get(json_array_get(instances, i), "path"));
        bool found = false;
        for (size_t j = 0; path && j < json_array_size(scopes) && !found; j++) {
            found = strcmp(path, json_string_value(json_object_get(json_array_get(scopes, j), "path"))) == 0;
        }
        CHECK_MSG(found, "scope_instances[%zu].path %s is no scope's path", i, path ? path : "(missing)");
    }
    json_decref(root);
    free(json);
    wgprof_pool_destroy(p);
}

/* One batch of a host pool: record i of sites[i] lasting ticks[i] (period 1: ns), each record
 * beginning 10 ticks after the previous one ends. */
static void timed_batch(wgprof_pool *p, const uint32_t *sites, const uint64_t *ticks, size_t n)
{
    uint64_t readings[64], t = 1000;
    size_t first = 0;
    uint32_t batch = 0;
    CHECK(n <= 32);
    for (size_t i = 0; i < n; i++) {
        readings[2 * i] = t;
        readings[2 * i + 1] = t += ticks[i];
        t += 10;
    }
    CHECK_OK(wgprof__host_batch(p, n, sites, n, false, &first, &batch));
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, n, readings, 1.0, &extent);
    wgprof__host_collected(p, batch, 1.0);
}

static json_t *kernel_json(json_t *root, const char *name)
{
    json_t *kernels = json_object_get(root, "kernels");
    for (size_t i = 0; i < json_array_size(kernels); i++) {
        const char *k = json_string_value(json_object_get(json_array_get(kernels, i), "name"));
        if (k && strcmp(k, name) == 0) {
            return json_array_get(kernels, i);
        }
    }
    return NULL;
}

/* Figures whose sums overflow (a library user's, unchecked: the spec reader refuses them) are
 * written as null, never as `inf`, which is not JSON: the report always parses. */
static void test_figures_overflow(void)
{
    wgprof_pool *p = wgprof__pool_new_host();
    wgprof_dispatch_desc huge = {.kernel = "huge", .bytes = 1e308, .flops = 1e308};
    uint32_t h;
    CHECK_OK(wgprof__host_site(p, &huge, &h));
    const uint32_t sites[] = {h, h};
    const uint64_t ticks[] = {1000, 1000};
    timed_batch(p, sites, ticks, 2);
    char *json = report_text(p, WGPROF_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    CHECK_MSG(root != NULL, "JSON report with overflowing figures does not parse: %s", err.text);
    CHECK(json && !strstr(json, "inf") && !strstr(json, "nan"));
    json_t *k = root ? kernel_json(root, "huge") : NULL;
    CHECK(k && json_is_null(json_object_get(k, "bytes")) && json_is_null(json_object_get(k, "gbps")));
    json_decref(root);
    free(json);
    wgprof_pool_destroy(p);
}

/* Throughput: a copy with one slow dispatch among four quick ones is typically as fast as the
 * quick ones (bytes over the median duration), and the figure over the whole run stays beside
 * it (all bytes over the total time); a kernel whose dispatches move different amounts gets the
 * median of their own rates. Every report carries both. */
static void test_throughput(void)
{
    wgprof_pool *p = wgprof__pool_new_host();
    const double copy_bytes = 33554432, scale_bytes[2] = {1000, 3000};
    wgprof_dispatch_desc copy = {.kernel = "copy", .bytes = copy_bytes, .flops = 1e6};
    wgprof_dispatch_desc scale_a = {.kernel = "scale", .bytes = scale_bytes[0]};
    wgprof_dispatch_desc scale_b = {.kernel = "scale", .bytes = scale_bytes[1], .workgroups = {2, 1, 1}};
    uint32_t c, a, b;
    CHECK_OK(wgprof__host_site(p, &copy, &c));
    CHECK_OK(wgprof__host_site(p, &scale_a, &a));
    CHECK_OK(wgprof__host_site(p, &scale_b, &b));
    const uint32_t sites[] = {c, c, c, c, c, a, b, b, a};
    /* copy: 5800 ns four times and one outlier of 58000; scale: rates 1000/100 = 10,
     * 3000/200 = 15, 3000/1000 = 3 and 1000/50 = 20 bytes per ns. */
    const uint64_t ticks[] = {5800, 5790, 58000, 5810, 5800, 100, 200, 1000, 50};
    timed_batch(p, sites, ticks, sizeof ticks / sizeof ticks[0]);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->kernel_count == 2);
    const wgprof_kernel_stats *k = &sum->kernels[0], *s = &sum->kernels[1];
    CHECK(strcmp(k->name, "copy") == 0 && k->count == 5 && k->median_ns == 5800);
    CHECK(k->bytes_per_dispatch == copy_bytes && k->flops_per_dispatch == 1e6);
    CHECK_MSG(k->gbps == copy_bytes / 5800.0, "gbps %.17g, want %.17g", k->gbps, copy_bytes / 5800.0);
    CHECK(k->gflops == 1e6 / 5800.0);
    const double total_ns = 5800 + 5790 + 58000 + 5810 + 5800;
    CHECK(k->total_ns == total_ns);
    CHECK_MSG(k->gbps_total == 5 * copy_bytes / total_ns, "gbps_total %.17g, want %.17g", k->gbps_total,
              5 * copy_bytes / total_ns);
    CHECK(k->gflops_total == 5e6 / total_ns);
    CHECK(k->gbps > 2.5 * k->gbps_total); /* the outlier drags the total figure, not the median one */
    CHECK(strcmp(s->name, "scale") == 0 && s->bytes_per_dispatch == 0);
    CHECK_MSG(s->gbps == 12.5, "median of the rates 3, 10, 15, 20: %.17g", s->gbps); /* (10 + 15) / 2 */
    CHECK(s->gbps_total == 8000.0 / 1350.0);
    CHECK(s->gflops == 0 && s->gflops_total == 0 && s->flops_per_dispatch == 0);

    char *json = report_text(p, WGPROF_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    CHECK_MSG(root != NULL, "JSON report does not parse: %s", err.text);
    json_t *jc = kernel_json(root, "copy"), *js = kernel_json(root, "scale");
    CHECK(jc && js);
    if (jc && js) {
        /* gbps keeps its meaning, the rate over the whole run; gbps_median is the typical one. */
        CHECK(fabs(json_number_value(json_object_get(jc, "gbps_median")) - copy_bytes / 5800.0) < 1e-6);
        CHECK(fabs(json_number_value(json_object_get(jc, "gbps")) - 5 * copy_bytes / total_ns) < 1e-6);
        CHECK(fabs(json_number_value(json_object_get(jc, "peak_bandwidth_share_median")) -
                   copy_bytes / 5800.0 / 100000) < 1e-6);
        CHECK(fabs(json_number_value(json_object_get(jc, "peak_bandwidth_share")) -
                   5 * copy_bytes / total_ns / 100000) < 1e-6);
        CHECK(json_number_value(json_object_get(jc, "bytes_per_dispatch")) == copy_bytes);
        CHECK(fabs(json_number_value(json_object_get(jc, "gflops_median")) - 1e6 / 5800.0) < 1e-6);
        CHECK(json_object_get(js, "bytes_per_dispatch") == NULL); /* they differ */
        CHECK(json_number_value(json_object_get(js, "gbps_median")) == 12.5);
        CHECK(json_object_get(js, "gflops") == NULL && json_object_get(js, "gflops_median") == NULL);
    }
    json_decref(root);
    free(json);

    char *csv = report_text(p, WGPROF_FORMAT_CSV_SUMMARY);
    CHECK(strstr(csv, ",gbps,gflops,peak_bandwidth_share,peak_flops_share,bytes_per_dispatch,flops_per_dispatch,"
                      "gbps_median,gflops_median,peak_bandwidth_share_median,peak_flops_share_median,"
                      "timestamp_quantum_ns,partial,partial_reason\n") != NULL);
    /* copy: 2066.160 GB/s over the run, 5785.247 from the median (bytes per ns are GB/s). */
    char want[256];
    snprintf(want, sizeof want, ",%.3f,%.3f,%.6f,,33554432,1000000,%.3f,%.3f,%.6f,,,0,\n", 5 * copy_bytes / total_ns,
             5e6 / total_ns, 5 * copy_bytes / total_ns / 100000, copy_bytes / 5800.0, 1e6 / 5800.0,
             copy_bytes / 5800.0 / 100000);
    CHECK_MSG(strstr(csv, want) != NULL, "want %s in %s", want, csv);
    /* scale: 8000 bytes in 1350 ns over the run, 12.5 from the median of the rates; no bytes per
     * dispatch, no flops. */
    CHECK_MSG(strstr(csv, "\nscale,4,0,") && strstr(csv, ",8000,0,5.926,,0.000059,,,,12.500,,0.000125,,,0,\n"), "%s",
              csv);
    free(csv);

    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    char gbps[32], gbps_total[32];
    snprintf(gbps, sizeof gbps, " %.3f ", copy_bytes / 5800.0);
    snprintf(gbps_total, sizeof gbps_total, " %.3f ", 5 * copy_bytes / total_ns);
    CHECK_MSG(strstr(table, "GB/s_total") && strstr(table, gbps) && strstr(table, gbps_total) &&
                  strstr(table, "over the median duration"),
              "%s", table);
    free(table);

    char *html = report_text(p, WGPROF_FORMAT_HTML);
    CHECK(strstr(html, "id=\"efficiency-table\"") && strstr(html, "<th>GB/s</th><th>GB/s total</th>"));
    snprintf(want, sizeof want, ">%.3f</td><td title=\"every dispatch's figure over the total time\">%.3f</td>",
             copy_bytes / 5800.0, 5 * copy_bytes / total_ns);
    CHECK_MSG(strstr(html, want) != NULL, "want %s", want);
    CHECK(strstr(html, ">varies</td>") != NULL); /* scale's bytes per dispatch */
    free(html);
    wgprof_summary_destroy(sum);
    wgprof_pool_destroy(p);
}

/* The reports name the strategy the pool recorded, which the caller no longer gives. */
static void test_strategy(void)
{
    const char *names[] = {"k"};
    wgprof_pool *p = named_pool(names, 1);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->strategy == WGPROF_STRATEGY_PASS && sum->strategies == 1u << WGPROF_STRATEGY_PASS);
    wgprof_summary_destroy(sum);
    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, " | strategy pass | ") != NULL, "%s", table);
    free(table);
    /* A second batch timed as a chain: both are named. */
    uint32_t site;
    size_t first;
    uint32_t batch;
    wgprof_dispatch_desc d = {.kernel = "k"};
    CHECK_OK(wgprof__host_site(p, &d, &site));
    CHECK_OK(wgprof__host_batch(p, 1, &site, 1, false, &first, &batch));
    wgprof__host_timed_with(p, batch, WGPROF_STRATEGY_CHAIN);
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->strategy == WGPROF_STRATEGY_DEFAULT &&
          sum->strategies == (1u << WGPROF_STRATEGY_PASS | 1u << WGPROF_STRATEGY_CHAIN));
    wgprof_summary_destroy(sum);
    for (int f = WGPROF_FORMAT_JSON; f <= WGPROF_FORMAT_TRACE; f += WGPROF_FORMAT_TRACE - WGPROF_FORMAT_JSON) {
        char *text = report_text(p, (wgprof_format)f);
        json_t *root = json_loads(text, 0, NULL);
        json_t *holder = f == WGPROF_FORMAT_JSON ? root : json_object_get(root, "otherData");
        const char *strategy = json_string_value(json_object_get(holder, "strategy"));
        CHECK_MSG(strategy && strcmp(strategy, "pass+chain") == 0, "format %d: %s", f, strategy ? strategy : "none");
        json_decref(root);
        free(text);
    }
    char *html = report_text(p, WGPROF_FORMAT_HTML);
    CHECK(strstr(html, "<dt>strategy</dt><dd>pass+chain</dd>") != NULL);
    free(html);
    wgprof__host_timed_with(p, batch, WGPROF_STRATEGY_INSIDE);
    wgprof__host_timed_with(p, 0, WGPROF_STRATEGY_INSIDE);
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->strategy == WGPROF_STRATEGY_INSIDE);
    wgprof_summary_destroy(sum);
    wgprof_pool_destroy(p);
    /* Nothing recorded, or no pool: none. */
    p = wgprof__pool_new_host();
    table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK(strstr(table, " | strategy none | ") != NULL);
    free(table);
    wgprof_pool_destroy(p);
}

/* A pool of `n` readings of one kernel (period `period`), each begin and end `step` ticks apart
 * at the least and a multiple of `step` (1: any tick, random low bits), plus one invalid reading
 * whose odd end must not count; collected as one batch. */
static wgprof_pool *stepped_pool(size_t n, uint64_t step, double period, uint64_t *seed)
{
    wgprof_pool *p = wgprof__pool_new_host();
    uint32_t site;
    wgprof_dispatch_desc d = {.kernel = "k"};
    CHECK_OK(wgprof__host_site(p, &d, &site));
    size_t first;
    uint32_t batch;
    CHECK_OK(wgprof__host_batch(p, n + 1, &site, 1, false, &first, &batch));
    uint64_t *ticks = calloc(2 * (n + 1), sizeof *ticks);
    uint64_t t = 1ull << 40; /* large, as real counters give; a multiple of 65536 */
    for (size_t i = 0; i < n; i++) {
        uint64_t gap = step * (1 + (uint64_t)(lcg_unit(seed) * 40));
        uint64_t length = step * (1 + (uint64_t)(lcg_unit(seed) * 90));
        if (step == 1) {
            gap += (uint64_t)(lcg_unit(seed) * 1000);
            length += (uint64_t)(lcg_unit(seed) * 1000);
        }
        ticks[2 * i] = t += gap;
        ticks[2 * i + 1] = t += length;
    }
    ticks[2 * n] = 0; /* invalid (zero): its end is odd and left out */
    ticks[2 * n + 1] = t + 1;
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, n + 1, ticks, period, &extent);
    wgprof__host_collected(p, batch, period);
    free(ticks);
    return p;
}

/* The timestamps' quantum on synthetic readings: rounded to Dawn's 65,536 ns, stepping by a
 * counter's 32 ticks, and ordinary; what the summary and every report say of each. */
static void test_quantum(void)
{
    uint64_t seed = 7;
    ts_capture_log();
    ts_clear_log();
    /* As Dawn with timestamp_quantization on: period 1, every timestamp a multiple of 65536. */
    wgprof_pool *p = stepped_pool(64, 65536, 1.0, &seed);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK_MSG(sum->timestamp_quantum_ns == 65536 && sum->timestamp_quantized, "%g", sum->timestamp_quantum_ns);
    CHECK(sum->records == 65 && sum->invalid == 1);
    CHECK_MSG(strstr(ts_last_log(), "quantized to 65536 ns") && strstr(ts_last_log(), "timestamp_quantization"),
              "log: %s", ts_last_log());
    wgprof_summary_destroy(sum);
    ts_clear_log();
    CHECK_OK(wgprof_summary_create(p, &sum)); /* warned once per process */
    CHECK_MSG(ts_last_log()[0] == '\0', "logged again: %s", ts_last_log());
    wgprof_summary_destroy(sum);

    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, " | period 1 ns/tick | quantized to 65536 ns | ") != NULL, "%s", table);
    CHECK(strstr(table, "\nwarning: timestamps quantized to 65536 ns") != NULL);
    free(table);
    for (int f = WGPROF_FORMAT_JSON; f <= WGPROF_FORMAT_TRACE; f += WGPROF_FORMAT_TRACE - WGPROF_FORMAT_JSON) {
        char *text = report_text(p, (wgprof_format)f);
        json_t *root = json_loads(text, 0, NULL);
        json_t *holder = f == WGPROF_FORMAT_JSON ? root : json_object_get(root, "otherData");
        CHECK_MSG(json_number_value(json_object_get(holder, "timestamp_quantum_ns")) == 65536, "format %d", f);
        CHECK_MSG(json_is_true(json_object_get(holder, "timestamp_quantized")), "format %d", f);
        const char *warning = json_string_value(json_object_get(holder, "warning"));
        CHECK_MSG(f == WGPROF_FORMAT_JSON || (warning && strstr(warning, "quantized to 65536 ns")), "trace: %s",
                  warning ? warning : "no warning");
        json_decref(root);
        free(text);
    }
    char *html = report_text(p, WGPROF_FORMAT_HTML);
    CHECK(strstr(html, "<dt>timestamps</dt><dd>quantized to 65536 ns</dd>") != NULL);
    CHECK(strstr(html, "<p class=\"note\">Warning: timestamps quantized to 65536 ns") != NULL);
    free(html);
    char *csv = report_text(p, WGPROF_FORMAT_CSV);
    CHECK(strstr(csv, ",invalid_reason,timestamp_quantum_ns,partial,partial_reason\n") != NULL);
    CHECK_MSG(strstr(csv, ",1,,65536,0,\n") && strstr(csv, ",0,zero,65536,0,\n"), "%s", csv); /* every row */
    free(csv);
    char *tsv = report_text(p, WGPROF_FORMAT_TSV);
    CHECK(strstr(tsv, "\t1\t\t65536\t0\t\n") != NULL);
    free(tsv);
    csv = report_text(p, WGPROF_FORMAT_CSV_SUMMARY);
    CHECK(strstr(csv, ",timestamp_quantum_ns,partial,partial_reason\nk,64,1,") && strstr(csv, ",65536,0,\n"));
    free(csv);
    /* A reset forgets the readings, and their quantum with them. */
    wgprof_pool_reset(p);
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->records == 0 && sum->timestamp_quantum_ns == 0 && !sum->timestamp_quantized);
    wgprof_summary_destroy(sum);
    wgprof_pool_destroy(p);

    /* One reading short of enough: not named, however round the readings. */
    p = stepped_pool(WGPROF_QUANTUM_MIN_READINGS - 1, 65536, 1.0, &seed);
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK(sum->timestamp_quantum_ns == 0 && !sum->timestamp_quantized);
    wgprof_summary_destroy(sum);
    wgprof_pool_destroy(p);

    /* A counter that steps by 32 ticks of 0.52 ns: its resolution, named, not a warning. */
    p = stepped_pool(64, 32, 0.52, &seed);
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK_MSG(fabs(sum->timestamp_quantum_ns - 32 * 0.52) < 1e-9 && !sum->timestamp_quantized, "%g",
              sum->timestamp_quantum_ns);
    wgprof_summary_destroy(sum);
    table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, " | resolution 16.64 ns | ") && !strstr(table, "quantized"), "%s", table);
    free(table);
    wgprof_pool_destroy(p);

    /* Ordinary readings, random low bits: nothing coarser than a tick, nothing said. */
    p = stepped_pool(64, 1, 1.0, &seed);
    CHECK_OK(wgprof_summary_create(p, &sum));
    CHECK_MSG(sum->timestamp_quantum_ns == 0 && !sum->timestamp_quantized, "%g", sum->timestamp_quantum_ns);
    wgprof_summary_destroy(sum);
    table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(!strstr(table, "quantized") && !strstr(table, "resolution"), "%s", table);
    free(table);
    char *json = report_text(p, WGPROF_FORMAT_JSON);
    json_t *root = json_loads(json, 0, NULL);
    CHECK(json_number_value(json_object_get(root, "timestamp_quantum_ns")) == 0);
    CHECK(json_is_false(json_object_get(root, "timestamp_quantized")));
    json_decref(root);
    free(json);
    html = report_text(p, WGPROF_FORMAT_HTML);
    CHECK(strstr(html, "<dt>timestamps</dt><dd>every tick</dd>") && !strstr(html, "class=\"note\">Warning"));
    free(html);
    csv = report_text(p, WGPROF_FORMAT_CSV);
    CHECK(strstr(csv, ",0,zero,,0,\n") != NULL); /* the quantum's field empty */
    free(csv);
    wgprof_pool_destroy(p);
    CHECK_MSG(ts_last_log()[0] == '\0', "logged: %s", ts_last_log());
    wgprof_set_logger(NULL, NULL);
}

/* The names --shader-checks takes map one to one onto the enum; anything else is refused, and
 * creating a module checks its arguments before it touches a device. */
/* Every format has a name and a suffix, distinct; the names read back; nothing else is a format. */
static void test_format_names(void)
{
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        const char *name = wgprof_format_name((wgprof_format)f);
        const char *suffix = wgprof_format_suffix((wgprof_format)f);
        CHECK(name && *name && suffix && *suffix);
        if (!name || !suffix) {
            continue;
        }
        wgprof_format back = WGPROF_FORMAT_COUNT;
        CHECK(wgprof_format_from_name(name, &back) == WGPROF_OK && back == (wgprof_format)f);
        for (int g = 0; g < f; g++) {
            CHECK(strcmp(name, wgprof_format_name((wgprof_format)g)) != 0);
            CHECK(strcmp(suffix, wgprof_format_suffix((wgprof_format)g)) != 0);
        }
    }
    CHECK(strcmp(wgprof_format_suffix(WGPROF_FORMAT_TRACE), "trace.json") == 0);
    CHECK(strcmp(wgprof_format_name(WGPROF_FORMAT_CSV_SUMMARY), "csv-summary") == 0);
    CHECK(wgprof_format_name(WGPROF_FORMAT_COUNT) == NULL && wgprof_format_suffix((wgprof_format)-1) == NULL);
    wgprof_format untouched = WGPROF_FORMAT_HTML;
    CHECK(wgprof_format_from_name("JSON", &untouched) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_format_from_name("", &untouched) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_format_from_name(NULL, &untouched) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(untouched == WGPROF_FORMAT_HTML);
}

static void test_shader_checks_names(void)
{
    for (int c = WGPROF_SHADER_CHECKS_DEFAULT; c <= WGPROF_SHADER_CHECKS_NONE; c++) {
        const char *name = wgprof_shader_checks_str((wgprof_shader_checks)c);
        wgprof_shader_checks back = (wgprof_shader_checks)99;
        CHECK(name && wgprof_shader_checks_from_str(name, &back) && back == (wgprof_shader_checks)c);
    }
    CHECK(strcmp(wgprof_shader_checks_str(WGPROF_SHADER_CHECKS_NO_LOOP_BOUNDING), "no-loop-bounding") == 0);
    CHECK(wgprof_shader_checks_str((wgprof_shader_checks)(WGPROF_SHADER_CHECKS_NONE + 1)) == NULL);
    wgprof_shader_checks untouched = WGPROF_SHADER_CHECKS_NONE;
    CHECK(!wgprof_shader_checks_from_str("None", &untouched) && untouched == WGPROF_SHADER_CHECKS_NONE);
    CHECK(!wgprof_shader_checks_from_str("", &untouched) && !wgprof_shader_checks_from_str(NULL, &untouched));
    WGPUShaderModule module = (WGPUShaderModule)&untouched;
    CHECK(wgprof_shader_module_create(NULL, "", NULL, WGPROF_SHADER_CHECKS_DEFAULT, &module) ==
          WGPROF_ERR_INVALID_ARGUMENT);
}

/* ---- wgprof_pool_merge ---- */

/* One collected batch of a host pool: record i of sites[i] read (readings[2i], readings[2i+1]). */
static uint32_t read_batch(wgprof_pool *p, const uint32_t *sites, const uint64_t *readings, size_t n, double period)
{
    size_t first = 0;
    uint32_t batch = 0;
    CHECK_OK(wgprof__host_batch(p, n, sites, n, false, &first, &batch));
    wgprof__extent extent = {0};
    wgprof__host_readings(p, batch, first, n, readings, period, &extent);
    wgprof__host_collected(p, batch, period);
    return batch;
}

static uint32_t host_site(wgprof_pool *p, const wgprof_dispatch_desc *d)
{
    uint32_t site = 0;
    CHECK_OK(wgprof__host_site(p, d, &site));
    return site;
}

/* Where each merged record came from: its pool and its index there. */
typedef struct merged_from {
    int pool;
    size_t index;
} merged_from;

/* Every property a merge keeps, record by record; times on the merged epoch are the source's
 * moved by the ticks between the two epochs. */
static void check_copied_record(const wgprof_pool *merged, size_t index, const wgprof_pool *src, size_t src_index,
                                uint64_t merged_epoch_ticks, uint64_t src_epoch_ticks)
{
    wgprof_record m, r;
    CHECK_OK(wgprof_pool_record(merged, index, &m));
    CHECK_OK(wgprof_pool_record(src, src_index, &r));
    CHECK_MSG(strcmp(m.kernel, r.kernel) == 0, "record %zu: %s, not %s", index, m.kernel, r.kernel);
    CHECK_MSG(m.dispatch_id == r.dispatch_id && m.index == index, "record %zu: id %llu, not %llu", index,
              (unsigned long long)m.dispatch_id, (unsigned long long)r.dispatch_id);
    CHECK(memcmp(m.workgroups, r.workgroups, sizeof m.workgroups) == 0);
    CHECK(memcmp(m.workgroup_size, r.workgroup_size, sizeof m.workgroup_size) == 0);
    CHECK(memcmp(m.global_size, r.global_size, sizeof m.global_size) == 0);
    CHECK(m.bytes == r.bytes && m.flops == r.flops);
    CHECK_MSG(m.valid == r.valid && m.invalid_reason == r.invalid_reason, "record %zu: %s, not %s", index,
              wgprof_invalid_reason_str(m.invalid_reason), wgprof_invalid_reason_str(r.invalid_reason));
    CHECK_MSG(m.begin_ticks == r.begin_ticks && m.end_ticks == r.end_ticks,
              "record %zu: ticks %llu..%llu, not %llu..%llu", index, (unsigned long long)m.begin_ticks,
              (unsigned long long)m.end_ticks, (unsigned long long)r.begin_ticks, (unsigned long long)r.end_ticks);
    CHECK(m.period_ns == r.period_ns);
    CHECK(m.duration_ns == r.duration_ns && m.exclusive_ns == r.exclusive_ns);
    if (r.valid) {
        double moved = ((double)src_epoch_ticks - (double)merged_epoch_ticks) * r.period_ns;
        CHECK_MSG(fabs(m.start_ns - (r.start_ns + moved)) < 1e-9 && fabs(m.end_ns - (r.end_ns + moved)) < 1e-9,
                  "record %zu starts at %.3f ns, not %.3f", index, m.start_ns, r.start_ns + moved);
    }
}

/* Three pools of one device whose batches interleave on the GPU: the merge puts the batches in
 * the order their work began, each record as it was, on one time axis. */
static void test_merge_order(void)
{
    const double period = 0.5;
    wgprof_pool *a = wgprof__pool_new_host(), *b = wgprof__pool_new_host(), *c = wgprof__pool_new_host();
    wgprof_dispatch_desc da = {.kernel = "a", .workgroups = {4, 1, 1}, .workgroup_size = {64, 1, 1}, .bytes = 1e3};
    wgprof_dispatch_desc shared = {.kernel = "shared", .workgroups = {2, 2, 1}, .workgroup_size = {8, 8, 1}, .flops = 7};
    wgprof_dispatch_desc db = {.kernel = "b", .workgroups = {3, 1, 1}}; /* workgroup size unknown */
    wgprof_dispatch_desc dc = {.kernel = "c", .workgroups = {1, 5, 1}, .workgroup_size = {1, 32, 1}};
    uint32_t a_sites[2] = {host_site(a, &da), host_site(a, &shared)};
    uint32_t b_sites[2] = {host_site(b, &shared), host_site(b, &db)};
    uint32_t c_site = host_site(c, &dc);
    /* GPU order: a0 (10000), b0 (10500), c0 (11000), b1 (12000), a1 (13000); c1 holds no valid
     * record and comes last. a1's second record read one zero, c1's read none. */
    const uint64_t a0[] = {10000, 10100, 10150, 10300}, a1[] = {13000, 13050, 13100, 0};
    const uint64_t b0[] = {10500, 10600}, b1[] = {12000, 12400, 12400, 12410};
    const uint64_t c0[] = {11000, 11010}, c1[] = {0, 0};
    read_batch(a, a_sites, a0, 2, period);
    read_batch(a, a_sites, a1, 2, period);
    read_batch(b, &b_sites[1], b0, 1, period);
    read_batch(b, b_sites, b1, 2, period);
    read_batch(c, &c_site, c0, 1, period);
    read_batch(c, &c_site, c1, 1, period);
    /* A batch resolved and not collected yet is not the merge's: its records are pending. */
    size_t first = 0;
    uint32_t pending = 0;
    CHECK_OK(wgprof__host_batch(c, 1, &c_site, 1, false, &first, &pending));
    wgprof__store_count_dropped(wgprof__pool_store(b), 4);
    wgprof__store_count_dropped(wgprof__pool_store(c), 2);

    const wgprof_pool *pools[3] = {a, b, c};
    wgprof_pool *m = NULL;
    CHECK_OK(wgprof_pool_merge(pools, 3, &m));
    if (!m) {
        return;
    }
    const merged_from from[] = {{0, 0}, {0, 1}, {1, 0}, {2, 0}, {1, 1}, {1, 2}, {0, 2}, {0, 3}, {2, 1}};
    const uint64_t epoch_ticks[3] = {10000, 10500, 11000}; /* each pool's first valid begin */
    const size_t n = sizeof from / sizeof from[0];
    CHECK(wgprof_pool_count(m) == n && wgprof_pool_batch_count(m) == 6 && wgprof_pool_collected_batches(m) == 6);
    /* c's pending record is not counted invalid there, and is not merged. */
    CHECK(wgprof_pool_invalid_count(m) == wgprof_pool_invalid_count(a) + wgprof_pool_invalid_count(b) +
                                              wgprof_pool_invalid_count(c));
    CHECK(wgprof_pool_invalid_count(m) == 2);
    for (size_t i = 0; i < n && i < wgprof_pool_count(m); i++) {
        check_copied_record(m, i, pools[from[i].pool], from[i].index, epoch_ticks[0], epoch_ticks[from[i].pool]);
    }
    /* b's first record began 500 ticks after a's first, c's 1000. */
    wgprof_record r0, r2, r3;
    CHECK_OK(wgprof_pool_record(m, 0, &r0));
    CHECK_OK(wgprof_pool_record(m, 2, &r2));
    CHECK_OK(wgprof_pool_record(m, 3, &r3));
    CHECK(r0.start_ns == 0 && r2.start_ns == 500 * period && r3.start_ns == 1000 * period);
    /* Batches are renumbered in GPU order; records point at theirs. */
    const uint32_t batch_of[] = {0, 0, 1, 2, 3, 3, 4, 4, 5};
    for (size_t i = 0; i < n; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(m, i, &r));
        CHECK_MSG(r.batch == batch_of[i], "record %zu in batch %u, not %u", i, r.batch, batch_of[i]);
    }
    for (uint32_t i = 0; i < 6; i++) {
        wgprof_batch_info bi;
        CHECK_OK(wgprof_pool_batch(m, i, &bi));
        CHECK(bi.collected && bi.period_ns == period && bi.index == i);
    }
    uint64_t dispatches = 0;
    CHECK(wgprof_pool_dropped(m, &dispatches) == 2 && dispatches == 6);

    /* The summary counts what the three pools count, kernel by kernel. */
    wgprof_summary *sum = NULL, *part[3] = {NULL, NULL, NULL};
    CHECK_OK(wgprof_summary_create(m, &sum));
    for (int p = 0; p < 3; p++) {
        CHECK_OK(wgprof_summary_create(pools[p], &part[p]));
    }
    if (sum && part[0] && part[1] && part[2]) {
        CHECK(sum->kernel_count == 4 && sum->batches == 6);
        CHECK(sum->records == part[0]->records + part[1]->records + part[2]->records - 1);
        for (size_t k = 0; k < sum->kernel_count; k++) {
            uint32_t count = 0, invalid = 0;
            double total = 0;
            for (int p = 0; p < 3; p++) {
                for (size_t j = 0; j < part[p]->kernel_count; j++) {
                    if (strcmp(part[p]->kernels[j].name, sum->kernels[k].name) == 0) {
                        count += part[p]->kernels[j].count;
                        invalid += part[p]->kernels[j].invalid;
                        total += part[p]->kernels[j].total_ns;
                    }
                }
            }
            /* c's summary counts its pending record invalid; it is not merged. */
            if (strcmp(sum->kernels[k].name, "c") == 0) {
                invalid--;
            }
            CHECK_MSG(sum->kernels[k].count == count && sum->kernels[k].invalid == invalid &&
                          fabs(sum->kernels[k].total_ns - total) < 1e-9,
                      "%s: %u valid, %u invalid, %.1f ns; the pools: %u, %u, %.1f", sum->kernels[k].name,
                      sum->kernels[k].count, sum->kernels[k].invalid, sum->kernels[k].total_ns, count, invalid, total);
        }
    }
    wgprof_summary_destroy(sum);
    for (int p = 0; p < 3; p++) {
        wgprof_summary_destroy(part[p]);
    }

    /* Its reports: every record, in order. */
    char *json = report_text(m, WGPROF_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    CHECK_MSG(root != NULL, "JSON report of a merged pool does not parse: %s", err.text);
    json_t *d = json_object_get(root, "dispatches");
    CHECK(json_array_size(d) == n);
    for (size_t i = 0; i < json_array_size(d) && i < n; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(m, i, &r));
        const char *kernel = json_string_value(json_object_get(json_array_get(d, i), "kernel"));
        CHECK_MSG(kernel && strcmp(kernel, r.kernel) == 0, "dispatch %zu: %s", i, kernel ? kernel : "(none)");
    }
    json_decref(root);
    free(json);
    char *table = report_text(m, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, "\nshared ") && strstr(table, "\na ") && strstr(table, "\nb ") && strstr(table, "\nc "),
              "%s", table);
    free(table);

    /* The pools are only read: a, merged again, gives the same records. */
    wgprof_pool *again = NULL;
    CHECK_OK(wgprof_pool_merge(pools, 1, &again));
    CHECK(wgprof_pool_count(again) == wgprof_pool_count(a) && wgprof_pool_count(c) == 3);
    for (size_t i = 0; again && i < wgprof_pool_count(a); i++) {
        check_copied_record(again, i, a, i, 10000, 10000);
    }
    wgprof_pool_destroy(again);
    wgprof_pool_destroy(m);
    wgprof_pool_destroy(a);
    wgprof_pool_destroy(b);
    wgprof_pool_destroy(c);
}

/* Scopes that lie within a batch come through with their records, names and nesting; one that
 * spans two batches has no place in the merged order and stays out. */
static void test_merge_scopes(void)
{
    wgprof_pool *a = wgprof__pool_new_host(), *b = wgprof__pool_new_host();
    wgprof_dispatch_desc k = {.kernel = "k"}, q = {.kernel = "q"};
    uint32_t a_sites[2] = {host_site(a, &k), host_site(a, &q)}, b_site = host_site(b, &q);
    const uint64_t a0[] = {2000, 2100, 2200, 2300}, a1[] = {5000, 5100};
    const uint64_t b0[] = {1000, 1400, 1500, 1600, 1700, 1800};
    size_t first = 0;
    uint32_t batch = 0;
    wgprof__extent extent = {0};

    CHECK_OK(wgprof_pool_scope_begin(a, "frame"));
    CHECK_OK(wgprof_pool_scope_begin(a, "layer"));
    CHECK_OK(wgprof_pool_scope_begin(a, "attention"));
    CHECK_OK(wgprof__host_batch(a, 2, a_sites, 2, false, &first, &batch));
    CHECK_OK(wgprof_pool_scope_end(a));
    CHECK_OK(wgprof_pool_scope_end(a));
    wgprof__host_readings(a, batch, first, 2, a0, 1.0, &extent);
    wgprof__host_collected(a, batch, 1.0);
    CHECK_OK(wgprof__host_batch(a, 1, a_sites, 1, false, &first, &batch));
    CHECK_OK(wgprof_pool_scope_end(a)); /* frame: over both batches */
    extent = (wgprof__extent){0};
    wgprof__host_readings(a, batch, first, 1, a1, 1.0, &extent);
    wgprof__host_collected(a, batch, 1.0);

    CHECK_OK(wgprof_pool_scope_begin(b, "mlp"));
    CHECK_OK(wgprof__host_batch(b, 3, &b_site, 1, false, &first, &batch));
    CHECK_OK(wgprof_pool_scope_end(b));
    extent = (wgprof__extent){0};
    wgprof__host_readings(b, batch, first, 3, b0, 1.0, &extent);
    wgprof__host_collected(b, batch, 1.0);

    const wgprof_pool *pools[2] = {a, b};
    wgprof_pool *m = NULL;
    CHECK_OK(wgprof_pool_merge(pools, 2, &m));
    if (!m) {
        return;
    }
    /* b's batch began first: records 0-2 are b's, 3-4 a's first batch, 5 a's second. */
    CHECK(wgprof_pool_count(m) == 6 && wgprof_pool_scope_count(m) == 3);
    wgprof_scope_record mlp, layer, attention, src;
    CHECK_OK(wgprof_pool_scope(m, 0, &mlp));
    CHECK_OK(wgprof_pool_scope(m, 1, &layer));
    CHECK_OK(wgprof_pool_scope(m, 2, &attention));
    CHECK(strcmp(mlp.name, "mlp") == 0 && mlp.first_record == 0 && mlp.end_record == 3 && mlp.depth == 0 &&
          mlp.parent_node == -1 && mlp.batch == 0 && !mlp.open);
    CHECK_OK(wgprof_pool_scope(b, 0, &src));
    CHECK(mlp.valid_records == 3 && mlp.duration_ns == src.duration_ns && mlp.dispatch_ns == src.dispatch_ns);
    CHECK(strcmp(layer.name, "layer") == 0 && layer.first_record == 3 && layer.end_record == 5 && layer.batch == 1);
    CHECK(strcmp(attention.name, "attention") == 0 && attention.first_record == 3 && attention.end_record == 5);
    CHECK(attention.parent_node == (int32_t)layer.node && attention.depth == layer.depth + 1);
    CHECK_OK(wgprof_pool_scope(a, 2, &src));
    CHECK(strcmp(src.name, "attention") == 0 && attention.duration_ns == src.duration_ns &&
          attention.start_ns == src.start_ns + 1000); /* a's epoch lies 1000 ticks after b's */
    for (size_t i = 0; i < 6; i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(m, i, &r));
        /* Each record's innermost scope: mlp for b's, attention for a's first batch, none for
         * the record whose only scope (frame) spanned two batches. */
        int32_t want = i < 3 ? 0 : i < 5 ? 2 : -1;
        CHECK_MSG(r.scope == want, "record %zu in scope %d, not %d", i, r.scope, want);
    }
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(m, &sum));
    if (sum) {
        bool mlp_seen = false, attention_seen = false;
        for (size_t i = 0; i < sum->scope_count; i++) {
            const wgprof_scope_stats *st = &sum->scopes[i];
            mlp_seen |= strcmp(st->name, "mlp") == 0 && st->count == 1 && st->dispatch_ns == 600;
            attention_seen |= strcmp(st->name, "attention") == 0 && st->count == 1 && st->total_ns == 300;
        }
        CHECK(mlp_seen && attention_seen);
    }
    wgprof_summary_destroy(sum);
    char *table = report_text(m, WGPROF_FORMAT_TABLE);
    CHECK_MSG(strstr(table, "\nmlp ") && strstr(table, "attention "), "%s", table);
    free(table);
    wgprof_pool_destroy(m);
    wgprof_pool_destroy(a);
    wgprof_pool_destroy(b);
}

/* What a merge refuses, and what an empty one gives. */
static void test_merge_arguments(void)
{
    wgprof_pool *empty = wgprof__pool_new_host();
    const wgprof_pool *one[1] = {empty};
    const wgprof_pool *with_null[2] = {empty, NULL};
    wgprof_pool *m = (wgprof_pool *)empty;
    CHECK(wgprof_pool_merge(one, 0, &m) == WGPROF_ERR_INVALID_ARGUMENT && m == NULL);
    m = (wgprof_pool *)empty;
    CHECK(wgprof_pool_merge(NULL, 1, &m) == WGPROF_ERR_INVALID_ARGUMENT && m == NULL);
    m = (wgprof_pool *)empty;
    CHECK(wgprof_pool_merge(with_null, 2, &m) == WGPROF_ERR_INVALID_ARGUMENT && m == NULL);
    CHECK(wgprof_pool_merge(one, 1, NULL) == WGPROF_ERR_INVALID_ARGUMENT);

    CHECK_OK(wgprof_pool_merge(one, 1, &m));
    CHECK(m && m != empty && wgprof_pool_count(m) == 0 && wgprof_pool_batch_count(m) == 0 &&
          wgprof_pool_scope_count(m) == 0 && wgprof_pool_dropped(m, NULL) == 0);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(m, &sum));
    CHECK(sum && sum->kernel_count == 0 && sum->records == 0);
    wgprof_summary_destroy(sum);
    char *json = report_text(m, WGPROF_FORMAT_JSON);
    json_t *root = json_loads(json, 0, NULL);
    CHECK_MSG(root && json_array_size(json_object_get(root, "dispatches")) == 0, "%s", json);
    json_decref(root);
    free(json);
    wgprof_pool_destroy(m);
    wgprof_pool_destroy(empty);
}

/* A merged pool holds results only: every recording call refuses it with a status, touching no
 * GPU object (it has none) and leaving its records as they are. The pass and encoder handed in
 * are never used. */
static void test_merge_records_nothing(void)
{
    wgprof_pool *src = named_pool((const char *const[]){"x", "y"}, 2);
    const wgprof_pool *pools[1] = {src};
    wgprof_pool *m = NULL;
    CHECK_OK(wgprof_pool_merge(pools, 1, &m));
    if (!m) {
        wgprof_pool_destroy(src);
        return;
    }
    /* Handles that are never used: every call is refused before it would touch one. */
    static char never_used;
    WGPUComputePassEncoder pass = (WGPUComputePassEncoder)(void *)&never_used;
    WGPUCommandEncoder encoder = (WGPUCommandEncoder)(void *)&never_used;
    wgprof_dispatch_desc d = {.kernel = "late"};
    WGPUPassTimestampWrites tw;
    CHECK(wgprof_pool_reserve(m, 1) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_pass_writes(m, &d, &tw) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_pass_writes(m, &d, &tw) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_begin(m, pass, &d) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_end(m, pass) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_begin(m, pass) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_next(m, pass, &d) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_resolve(m, encoder) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_calibrate(m, 1) == WGPROF_ERR_STATE);
    /* Nothing is being recorded or in flight: these have nothing to do. */
    CHECK_OK(wgprof_pool_discard(m));
    CHECK_OK(wgprof_pool_read_async(m));
    CHECK_OK(wgprof_pool_collect(m));
    uint32_t taken = 1;
    CHECK_OK(wgprof_pool_collect_ready(m, &taken));
    CHECK(taken == 0 && wgprof_pool_in_flight(m) == 0);
    CHECK(wgprof_pool_count(m) == 2 && wgprof_pool_batch_count(m) == 1 && wgprof_pool_invalid_count(m) == 0);
    for (size_t i = 0; i < 2; i++) {
        check_copied_record(m, i, src, i, 1000, 1000);
    }
    wgprof_pool_destroy(m);
    wgprof_pool_destroy(src);
}

/* One value through wgprof__fixed3_text against printf's "%.3f"; counts a mismatch once. */
static bool fixed3_matches(double v)
{
    char want[400], got[WGPROF__FIXED3_CAP];
    snprintf(want, sizeof want, "%.3f", v);
    size_t len = wgprof__fixed3_text(got, v);
    if (len == 0) {
        return !isfinite(v) || fabs(v) >= 0x1p53;
    }
    return len == strlen(got) && strcmp(got, want) == 0;
}

/* The reports' fast "%.3f": the very text printf gives, for every kind of double, the ties that
 * round to even, signed zeros and values too small to show, and where it hands over to printf. */
static void test_fixed3(void)
{
    const double edges[] = {0.0,     -0.0,       0.0005,        0.0015,       0.0025,      -0.0005,
                            0.0625,  0.1875,     1e-300,        4.9e-324,     -4.9e-324,   0.9995,
                            0.99949, 999.9995,   1200749.0,     0.001,        0.1,         2.675,
                            1e15,    -1e15,      0x1p53 - 1.0,  -0x1p53 + 1.0, 0x1p53,     0x1p63,
                            1e300,   0x1p52 + 0.5, 61382023796723.5, 9007199254740.9995, 123.4565, -123.4565};
    int bad = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        bad += !fixed3_matches(edges[i]);
    }
    CHECK(bad == 0);
    char text[WGPROF__FIXED3_CAP];
    CHECK(wgprof__fixed3_text(text, NAN) == 0 && wgprof__fixed3_text(text, -INFINITY) == 0);
    CHECK(wgprof__fixed3_text(text, 0x1p53) == 0 && wgprof__fixed3_text(text, 0x1p53 - 1.0) > 0);
    uint64_t seed = 88172645463325252ull;
    int tried = 0;
    bad = 0;
    for (int i = 0; i < 200000; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        /* any bit pattern with an exponent from 2^-40 to 2^60 (both sides of 2^53) */
        uint64_t bits = (seed & ~(UINT64_C(0x7ff) << 52)) | ((uint64_t)(1023 - 40 + (int)(seed % 101)) << 52);
        double v;
        memcpy(&v, &bits, sizeof v);
        /* nanoseconds as the reports hold them: whole, halves, clock-fitted */
        double ns = (double)(seed >> 20) + (double)(seed % 8) / 8.0;
        double fitted = 6.1e13 + (double)(seed >> 24) * (1.0 + 1.7e-6);
        /* ties, which printf rounds to even: odd sixteenths (1/16 is 62.5 thousandths), the only
         * doubles halfway between two thousandths */
        double tie = (double)((seed >> 24) | 1) / 16.0;
        bad += !fixed3_matches(v) + !fixed3_matches(ns) + !fixed3_matches(-ns) + !fixed3_matches(fitted) +
               !fixed3_matches(tie) + !fixed3_matches(ldexp((double)(seed >> 11), -(int)(seed % 70)));
        tried += 6;
    }
    CHECK(tried == 1200000);
    CHECK(bad == 0);
}

int main(void)
{
    test_classify();
    test_stats();
    test_stats_against_sort();
    test_records();
    test_reports();
    test_clock_fit();
    test_scopes();
    test_empty_scope();
    test_escape();
    test_hostile_names();
    test_partial();
    test_deep_scopes();
    test_throughput();
    test_figures_overflow();
    test_strategy();
    test_quantum();
    test_unknown_workgroup_size();
    test_shader_checks_names();
    test_format_names();
    test_merge_order();
    test_merge_scopes();
    test_merge_arguments();
    test_merge_records_nothing();
    test_fixed3();
    return check_summary();
}
