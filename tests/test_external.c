/* External pools (wgprof_pool_create_external, wgprof_pool_add_external), through the public
 * API alone and with no GPU: readings handed over as a Vulkan layer reads them come out of the
 * summary, the reports and a merge exactly; a counter narrower than 64 bits is masked and
 * continued across its wrap; ticks not available make records invalid with a reason; the scopes
 * a batch brings open and close among its records, as the pool's own scope calls would; every bad
 * argument is refused with a status and changes nothing; every other pool call answers with a
 * status; and each allocation failing in turn leaves the pool as it was. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support.h"
#include "wgprof/wgprof.h"

static wgprof_site site_of(wgprof_pool *pool, const char *kernel)
{
    wgprof_dispatch_desc d = {.kernel = kernel, .workgroups = {4, 1, 1}, .workgroup_size = {64, 1, 1}};
    wgprof_site site = {0};
    CHECK_OK(wgprof_pool_site(pool, &d, &site));
    return site;
}

static wgprof_record record_at(const wgprof_pool *pool, size_t index)
{
    wgprof_record r;
    memset(&r, 0, sizeof r);
    CHECK_OK(wgprof_pool_record(pool, index, &r));
    return r;
}

static char *report_text(const wgprof_pool *pool, wgprof_format format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wgprof_report_desc desc = {.pool = pool};
    CHECK_OK(wgprof_report_write(&desc, format, f));
    fclose(f);
    return buf;
}

static json_t *report_json(const wgprof_pool *pool)
{
    char *text = report_text(pool, WGPROF_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(text, 0, &err);
    CHECK_MSG(root != NULL, "the JSON report does not parse: %s (line %d)", err.text, err.line);
    free(text);
    return root;
}

static const wgprof_kernel_stats *kernel_named(const wgprof_summary *s, const char *name)
{
    for (size_t i = 0; i < s->kernel_count; i++) {
        if (strcmp(s->kernels[i].name, name) == 0) {
            return &s->kernels[i];
        }
    }
    CHECK_MSG(false, "no kernel %s in the summary", name);
    return NULL;
}

/* The JSON report's dispatch `i`: its duration (NAN when null) and reason ("" when valid). */
static double json_duration(json_t *root, size_t i, const char **reason)
{
    json_t *d = json_array_get(json_object_get(root, "dispatches"), i);
    json_t *why = json_object_get(d, "invalid_reason");
    *reason = json_is_string(why) ? json_string_value(why) : "";
    json_t *dur = json_object_get(d, "duration_ns");
    return json_is_number(dur) ? json_number_value(dur) : NAN;
}

/* A chain: count + 1 ticks, each record from one to the next, 2 ns a tick. */
static void test_chain(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    wgprof_site a = site_of(pool, "a"), b = site_of(pool, "b");
    wgprof_site sites[3] = {a, b, a};
    uint64_t ticks[4] = {1000, 1100, 1250, 1260};
    uint64_t ids[3] = {7, 8, 9};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 3, .sites = sites,
                                   .dispatch_ids = ids, .ticks = ticks, .period_ns = 2.0};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    CHECK(wgprof_pool_count(pool) == 3 && wgprof_pool_batch_count(pool) == 1 && wgprof_pool_collected_batches(pool) == 1);
    const double want[3] = {200, 300, 20};
    for (size_t i = 0; i < 3; i++) {
        wgprof_record r = record_at(pool, i);
        CHECK_MSG(r.valid && r.duration_ns == want[i], "chain record %zu: %g ns, want %g", i, r.duration_ns, want[i]);
        CHECK(r.begin_ticks == ticks[i] && r.end_ticks == ticks[i + 1] && r.dispatch_id == ids[i]);
        CHECK(r.period_ns == 2.0 && r.start_ns == (double)(ticks[i] - ticks[0]) * 2.0);
    }
    wgprof_batch_info info;
    CHECK_OK(wgprof_pool_batch(pool, 0, &info));
    CHECK(info.chained && info.collected && info.records == 3 && info.period_ns == 2.0);

    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(pool, &sum));
    if (sum) {
        CHECK(sum->strategy == WGPROF_STRATEGY_CHAIN && sum->records == 3 && sum->invalid == 0);
        CHECK(sum->total_ns == 520 && sum->batches == 1 && sum->period_min_ns == 2.0);
        const wgprof_kernel_stats *ka = kernel_named(sum, "a"), *kb = kernel_named(sum, "b");
        CHECK(ka && ka->count == 2 && ka->total_ns == 220 && ka->min_ns == 20 && ka->max_ns == 200);
        CHECK(kb && kb->count == 1 && kb->total_ns == 300);
        wgprof_summary_destroy(sum);
    }
    json_t *root = report_json(pool);
    if (root) {
        CHECK(strcmp(json_string_value(json_object_get(root, "strategy")), "chain") == 0);
        CHECK(json_array_size(json_object_get(root, "dispatches")) == 3);
        for (size_t i = 0; i < 3; i++) {
            const char *reason;
            double d = json_duration(root, i, &reason);
            CHECK_MSG(d == want[i] && !reason[0], "JSON chain dispatch %zu: %g ns (%s), want %g", i, d, reason, want[i]);
        }
        /* No CPU stamps, so no clock fit: the report says so and gives no CPU times. */
        json_t *clock = json_object_get(root, "clock");
        CHECK(json_is_false(json_object_get(clock, "calibrated")));
        CHECK(json_is_null(json_object_get(json_array_get(json_object_get(root, "dispatches"), 0), "cpu_start_ns")));
        json_decref(root);
    }
    char *table = report_text(pool, WGPROF_FORMAT_TABLE);
    CHECK_MSG(table && !strstr(table, "GPU clock on the CPU clock") && strstr(table, "chain"),
              "the table names a clock fit, or not the chain:\n%s", table ? table : "(none)");
    free(table);
    wgprof_pool_destroy(pool);
}

/* Pairs (pass and inside): two ticks a record; an overlap is clamped out of exclusive time. */
static void test_pairs(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    wgprof_site k = site_of(pool, "k");
    wgprof_site sites[3] = {k, k, k};
    /* The third begins 10 ticks before the second ends. */
    uint64_t ticks[6] = {5000, 5300, 5400, 5410, 5400, 5500};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_PASS, .count = 3, .sites = sites, .ticks = ticks,
                                   .period_ns = 0.5};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    const double want[3] = {150, 5, 50}, exclusive[3] = {150, 5, 45};
    for (size_t i = 0; i < 3; i++) {
        wgprof_record r = record_at(pool, i);
        CHECK_MSG(r.valid && r.duration_ns == want[i] && r.exclusive_ns == exclusive[i],
                  "pass record %zu: %g ns (%g exclusive), want %g (%g)", i, r.duration_ns, r.exclusive_ns, want[i],
                  exclusive[i]);
        CHECK_MSG(r.dispatch_id == i, "pass record %zu: id %llu, want the record index", i,
                  (unsigned long long)r.dispatch_id);
    }
    /* Without ids, numbering goes on from the pool's last; an inside batch of one record. */
    batch.strategy = WGPROF_STRATEGY_INSIDE;
    batch.count = 1;
    uint64_t more[2] = {6000, 6040};
    batch.ticks = more;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    wgprof_record r = record_at(pool, 3);
    CHECK(r.valid && r.duration_ns == 20 && r.dispatch_id == 3 && r.batch == 1);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(pool, &sum));
    if (sum) {
        CHECK(sum->total_ns == 225 && sum->exclusive_total_ns == 220);
        CHECK(sum->strategy == WGPROF_STRATEGY_DEFAULT &&
              sum->strategies == (1u << WGPROF_STRATEGY_PASS | 1u << WGPROF_STRATEGY_INSIDE));
        wgprof_summary_destroy(sum);
    }
    json_t *root = report_json(pool);
    if (root) {
        CHECK(strcmp(json_string_value(json_object_get(root, "strategy")), "pass+inside") == 0);
        for (size_t i = 0; i < 3; i++) {
            const char *reason;
            double d = json_duration(root, i, &reason);
            CHECK_MSG(d == want[i] && !reason[0], "JSON pass dispatch %zu: %g ns (%s), want %g", i, d, reason, want[i]);
        }
        json_decref(root);
    }
    wgprof_pool_destroy(pool);
}

/* A 36-bit counter (timestampValidBits 36): bits above it are noise, and it wraps. */
static void test_valid_bits(void)
{
    const uint64_t range = (uint64_t)1 << 36, half = range / 2;
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    wgprof_site k = site_of(pool, "k");
    wgprof_site sites[3] = {k, k, k};
    /* The counter wraps between the second and the third tick. */
    uint64_t chain[4] = {0xabcull << 36 | (range - 100), 0x123ull << 36 | (range - 40), 7ull << 36 | 20, 80};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 3, .sites = sites, .ticks = chain,
                                   .valid_bits = 36, .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    /* Pairs going on from there (1,000 masked ticks on), the second record's end past the next
     * wrap: each reading lies less than half the counter's range after the one before it. */
    uint64_t pairs[4] = {1000, 1050, half + 500, 5};
    batch.strategy = WGPROF_STRATEGY_PASS;
    batch.count = 2;
    batch.ticks = pairs;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    const double want[5] = {60, 60, 60, 50, (double)(half - 495)};
    double previous_end = -INFINITY;
    for (size_t i = 0; i < 5; i++) {
        wgprof_record r = record_at(pool, i);
        CHECK_MSG(r.valid && r.duration_ns == want[i] && r.end_ticks - r.begin_ticks == (uint64_t)want[i],
                  "36-bit record %zu: %s, %g ns, want %g", i, wgprof_invalid_reason_str(r.invalid_reason),
                  r.duration_ns, want[i]);
        CHECK_MSG(r.start_ns >= previous_end, "36-bit record %zu starts at %g ns, before the previous end %g", i,
                  r.start_ns, previous_end);
        previous_end = r.end_ns;
    }
    /* The second batch began 1,100 ticks after the first. */
    CHECK(record_at(pool, 3).start_ns == 1100);
    /* A batch a little older than the last reading (another queue's, read later) lies before it,
     * not a whole counter's range after. */
    uint64_t older[2] = {range - 20, range - 10};
    batch.strategy = WGPROF_STRATEGY_CHAIN;
    batch.count = 1;
    batch.ticks = older;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    wgprof_record last = record_at(pool, 4), back = record_at(pool, 5);
    CHECK_MSG(back.valid && back.duration_ns == 10 && back.end_ns == last.end_ns - 15,
              "the older batch: %s, %g ns, ends at %.0f, want 10 ns, ending at %.0f",
              wgprof_invalid_reason_str(back.invalid_reason), back.duration_ns, back.end_ns, last.end_ns - 15);
    /* A batch of another width is another counter. */
    batch.valid_bits = 48;
    CHECK(wgprof_pool_add_external(pool, &batch) == WGPROF_ERR_INVALID_ARGUMENT);
    batch.valid_bits = 0; /* the whole word: not 36 either */
    CHECK(wgprof_pool_add_external(pool, &batch) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_count(pool) == 6);
    wgprof_pool_destroy(pool);

    /* Readings older than the pool's first, across a wrap: the first came just after one, and a
     * later batch (another queue's) holds a record that ran over it. */
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    sites[0] = site_of(pool, "k");
    uint64_t first[2] = {10, 20}, over[2] = {range - 5, 3};
    batch.sites = sites;
    batch.valid_bits = 36;
    batch.ticks = first;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    batch.ticks = over;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    wgprof_record after = record_at(pool, 0), before = record_at(pool, 1);
    CHECK_MSG(before.valid && before.duration_ns == 8 && before.start_ns == 0 && after.start_ns == 15,
              "a record over the wrap before the first reading: %s, %g ns, starting %g ns before the first",
              wgprof_invalid_reason_str(before.invalid_reason), before.duration_ns, after.start_ns - before.start_ns);
    wgprof_pool_destroy(pool);
}

/* Ticks the recorder could not read (VK_QUERY_RESULT_WITH_AVAILABILITY_BIT gave 0). */
static void test_unavailable(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    wgprof_site k = site_of(pool, "k");
    wgprof_site sites[4] = {k, k, k, k};
    /* A chain whose third tick is missing: records 1 and 2 (its end, its begin) have no time. */
    uint64_t chain[5] = {100, 200, 12345, 400, 500};
    bool chain_ok[5] = {true, true, false, true, true};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 4, .sites = sites, .ticks = chain,
                                   .available = chain_ok, .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    /* Pairs: the first's end missing, the second's begin. */
    uint64_t pairs[6] = {600, 700, 800, 900, 1000, 1100};
    bool pairs_ok[6] = {true, false, false, true, true, true};
    batch.strategy = WGPROF_STRATEGY_PASS;
    batch.count = 3;
    batch.ticks = pairs;
    batch.available = pairs_ok;
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    const bool valid[7] = {true, false, false, true, false, false, true};
    for (size_t i = 0; i < 7; i++) {
        wgprof_record r = record_at(pool, i);
        CHECK_MSG(r.valid == valid[i] && (valid[i] ? r.duration_ns == 100
                                                   : r.invalid_reason == WGPROF_INVALID_NOT_WRITTEN),
                  "record %zu: %s, %g ns", i, wgprof_invalid_reason_str(r.invalid_reason), r.duration_ns);
    }
    CHECK(wgprof_pool_invalid_count(pool) == 4);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(pool, &sum));
    if (sum) {
        CHECK(sum->invalid == 4 && sum->invalid_by_reason[WGPROF_INVALID_NOT_WRITTEN] == 4 && sum->total_ns == 300);
        wgprof_summary_destroy(sum);
    }
    json_t *root = report_json(pool);
    if (root) {
        for (size_t i = 0; i < 7; i++) {
            const char *reason;
            double d = json_duration(root, i, &reason);
            CHECK_MSG(valid[i] ? d == 100 && !reason[0] : isnan(d) && strcmp(reason, "not-written") == 0,
                      "JSON dispatch %zu: %g ns, reason '%s'", i, d, reason);
        }
        json_decref(root);
    }
    wgprof_pool_destroy(pool);
}

/* CPU stamps bound the clock fit: the records then have CPU times between them. */
static void test_clock(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    CHECK(!wgprof_pool_clock(pool)->calibrated);
    wgprof_site k = site_of(pool, "k");
    wgprof_site sites[2] = {k, k};
    uint64_t ticks[3] = {10000, 10500, 11000};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 2, .sites = sites, .ticks = ticks,
                                   .period_ns = 1.0, .cpu_submit_ns = 1000000, .cpu_read_ns = 1002000};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    const wgprof_clock_info *clock = wgprof_pool_clock(pool);
    CHECK(clock->calibrated && clock->consistent);
    wgprof_record r0 = record_at(pool, 0), r1 = record_at(pool, 1);
    CHECK_MSG(r0.cpu_start_ns >= 1000000 && r1.cpu_end_ns <= 1002000 && r1.cpu_end_ns - r0.cpu_start_ns == 1000,
              "CPU times %.1f .. %.1f outside the stamps 1000000 .. 1002000", r0.cpu_start_ns, r1.cpu_end_ns);
    wgprof_batch_info info;
    CHECK_OK(wgprof_pool_batch(pool, 0, &info));
    CHECK(info.cpu_submit_ns == 1000000 && info.cpu_ready_ns == 1002000 && !info.waited);
    wgprof_pool_destroy(pool);
}

/* What every bad argument gets, and that it changes nothing. */
static void test_refusals(void)
{
    wgprof_pool *pool = NULL, *other = NULL;
    CHECK(wgprof_pool_create_external(NULL, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    wgprof_pool_desc fixed = {.max_dispatches = 4};
    CHECK_OK(wgprof_pool_create_external(&fixed, &pool));
    CHECK_OK(wgprof_pool_create_external(NULL, &other));
    if (!pool || !other) {
        wgprof_pool_destroy(pool);
        wgprof_pool_destroy(other);
        return;
    }
    wgprof_site k = site_of(pool, "k"), foreign = site_of(other, "k");
    wgprof_site sites[3] = {k, k, k};
    uint64_t ticks[6] = {100, 200, 300, 400, 500, 600};
    const wgprof_external_batch good = {.strategy = WGPROF_STRATEGY_PASS, .count = 2, .sites = sites, .ticks = ticks,
                                        .valid_bits = 40, .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(pool, &good));
    CHECK(wgprof_pool_add_external(NULL, &good) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_add_external(pool, NULL) == WGPROF_ERR_INVALID_ARGUMENT);

    struct {
        const char *what;
        wgprof_external_batch batch;
        wgprof_status want;
    } bad[] = {
        {"strategy default", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"strategy auto", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"strategy 99", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"count 0 with ticks", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"no sites", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"no ticks", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"another pool's site", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"a zeroed site", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"period 0", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"period -1", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"period NAN", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"period infinite", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"valid_bits 65", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"valid_bits 36 after 40", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"past the fixed capacity", good, WGPROF_ERR_CAPACITY},
        {"scopes in a batch of 0 records", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"scope_count without scopes", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"a scope past the records", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"scopes out of order", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"an end with none open", good, WGPROF_ERR_INVALID_ARGUMENT},
        {"an end past those begun", good, WGPROF_ERR_INVALID_ARGUMENT},
    };
    bad[0].batch.strategy = WGPROF_STRATEGY_DEFAULT;
    bad[1].batch.strategy = WGPROF_STRATEGY_AUTO;
    bad[2].batch.strategy = (wgprof_strategy)99;
    bad[3].batch.count = 0;
    bad[4].batch.sites = NULL;
    bad[5].batch.ticks = NULL;
    wgprof_site with_foreign[2] = {k, foreign}, with_zero[2] = {k, {0, 0}};
    bad[6].batch.sites = with_foreign;
    bad[7].batch.sites = with_zero;
    bad[8].batch.period_ns = 0;
    bad[9].batch.period_ns = -1;
    bad[10].batch.period_ns = NAN;
    bad[11].batch.period_ns = INFINITY;
    bad[12].batch.valid_bits = 65;
    bad[13].batch.valid_bits = 36;
    bad[14].batch.count = 3; /* 2 + 3 > 4 */
    const wgprof_external_scope one_begin[1] = {{0, "s"}}, past[1] = {{3, "s"}}, unordered[2] = {{1, "s"}, {0, NULL}},
                                end_alone[1] = {{0, NULL}}, end_twice[3] = {{0, "s"}, {1, NULL}, {2, NULL}};
    bad[15].batch.count = 0;
    bad[15].batch.ticks = NULL;
    bad[15].batch.scopes = one_begin;
    bad[15].batch.scope_count = 1;
    bad[16].batch.scope_count = 1;
    bad[17].batch.scopes = past;
    bad[17].batch.scope_count = 1;
    bad[18].batch.scopes = unordered;
    bad[18].batch.scope_count = 2;
    bad[19].batch.scopes = end_alone;
    bad[19].batch.scope_count = 1;
    bad[20].batch.scopes = end_twice;
    bad[20].batch.scope_count = 3;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wgprof_status s = wgprof_pool_add_external(pool, &bad[i].batch);
        CHECK_MSG(s == bad[i].want, "%s: %s, want %s", bad[i].what, wgprof_status_str(s), wgprof_status_str(bad[i].want));
        CHECK_MSG(wgprof_pool_count(pool) == 2 && wgprof_pool_batch_count(pool) == 1 && wgprof_pool_scope_count(pool) == 0,
                  "%s changed the pool", bad[i].what);
    }
    /* Count 0 without ticks has nothing to add. */
    wgprof_external_batch empty = {.strategy = WGPROF_STRATEGY_CHAIN, .valid_bits = 40, .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(pool, &empty));
    CHECK(wgprof_pool_count(pool) == 2 && wgprof_pool_batch_count(pool) == 1);

    /* A site from before a reset is stale. */
    wgprof_pool_reset(other);
    wgprof_external_batch stale = good;
    wgprof_site stale_sites[2] = {foreign, foreign};
    stale.sites = stale_sites;
    stale.valid_bits = 0;
    CHECK(wgprof_pool_add_external(other, &stale) == WGPROF_ERR_INVALID_ARGUMENT);
    stale_sites[0] = stale_sites[1] = site_of(other, "k");
    CHECK_OK(wgprof_pool_add_external(other, &stale));

    /* A merged pool holds results only, and takes no readings. */
    const wgprof_pool *pools[1] = {pool};
    wgprof_pool *merged = NULL;
    CHECK_OK(wgprof_pool_merge(pools, 1, &merged));
    CHECK(wgprof_pool_add_external(merged, &good) == WGPROF_ERR_STATE && wgprof_pool_count(merged) == 2);
    wgprof_pool_destroy(merged);
    wgprof_pool_destroy(other);
    wgprof_pool_destroy(pool);
}

/* Scopes among a batch's records: each record in the innermost scope open when it comes, nested
 * ones under their parents, an end that closes a scope opened before the batch, one left open
 * covering the next batch; the same names under the same parents are one node. */
static void test_scopes(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    wgprof_site k = site_of(pool, "k");
    wgprof_site sites[6] = {k, k, k, k, k, k};
    uint64_t ticks[7] = {100, 110, 120, 130, 140, 150, 160};
    CHECK_OK(wgprof_pool_scope_begin(pool, "outer"));
    /* Records 0..5: 0 in outer; 1, 2 in outer/a; 3 in outer/a/b; outer ends after 3 (a and b
     * first); 4 at the top; c, opened before 5, is left open. */
    const wgprof_external_scope marks[] = {{1, "a"}, {3, "b"}, {4, NULL}, {4, NULL}, {4, NULL}, {5, "c"}};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 6, .sites = sites, .ticks = ticks,
                                   .period_ns = 1.0, .scopes = marks, .scope_count = 6};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    const char *want[6] = {"outer", "a", "a", "b", NULL, "c"};
    for (size_t i = 0; i < 6; i++) {
        wgprof_record r = record_at(pool, i);
        wgprof_scope_record sc = {0};
        if (r.scope >= 0) {
            CHECK_OK(wgprof_pool_scope(pool, (size_t)r.scope, &sc));
        }
        const char *got = r.scope >= 0 ? sc.name : NULL;
        CHECK_MSG(want[i] ? got && strcmp(got, want[i]) == 0 : !got, "record %zu in scope %s, want %s", i,
                  got ? got : "(none)", want[i] ? want[i] : "(none)");
    }
    CHECK_MSG(wgprof_pool_scope_count(pool) == 4, "%zu scope instances, want 4", wgprof_pool_scope_count(pool));
    wgprof_scope_record sc;
    CHECK_OK(wgprof_pool_scope(pool, 1, &sc)); /* a: records 1..3, under outer */
    CHECK(strcmp(sc.name, "a") == 0 && sc.first_record == 1 && sc.end_record == 4 && sc.depth == 1 && !sc.open);
    CHECK_MSG(sc.valid && sc.duration_ns == 30 && sc.dispatch_ns == 30, "scope a: %g ns, %g in dispatches",
              sc.duration_ns, sc.dispatch_ns);
    CHECK_OK(wgprof_pool_scope(pool, 0, &sc));
    CHECK(strcmp(sc.name, "outer") == 0 && sc.first_record == 0 && sc.end_record == 4 && !sc.open);
    CHECK_OK(wgprof_pool_scope(pool, 3, &sc));
    CHECK(strcmp(sc.name, "c") == 0 && sc.first_record == 5 && sc.open && sc.depth == 0);

    /* The next batch's records are in c still; ending it there, and a again at the top. */
    const wgprof_external_scope next_marks[] = {{1, NULL}, {1, "a"}, {2, NULL}};
    wgprof_external_batch next = batch;
    next.count = 2;
    next.scopes = next_marks;
    next.scope_count = 3;
    CHECK_OK(wgprof_pool_add_external(pool, &next));
    CHECK(record_at(pool, 6).scope == 3 && wgprof_pool_scope_count(pool) == 5);
    CHECK_OK(wgprof_pool_scope(pool, 4, &sc));
    CHECK(strcmp(sc.name, "a") == 0 && sc.depth == 0 && sc.first_record == 7 && sc.end_record == 8 && !sc.open);
    CHECK(wgprof_pool_scope_end(pool) == WGPROF_ERR_STATE); /* nothing left open */

    json_t *root = report_json(pool);
    if (root) {
        json_t *instances = json_object_get(root, "scope_instances");
        CHECK_MSG(json_array_size(instances) == 5, "%zu scope instances in the JSON report",
                  json_array_size(instances));
        for (size_t i = 0; i < 4; i++) {
            const char *p = json_string_value(json_object_get(json_array_get(instances, i), "path"));
            const char *want_path[4] = {"outer", "outer/a", "outer/a/b", "c"};
            CHECK_MSG(p && strcmp(p, want_path[i]) == 0, "scope instance %zu's path %s, want %s", i, p ? p : "(none)",
                      want_path[i]);
        }
        json_decref(root);
    }
    wgprof_pool_destroy(pool);
}

/* Every pool call on an external pool answers with a status: those that work through WebGPU
 * refuse before touching their WebGPU arguments (here stand-ins that must never be used). */
static void test_other_calls(void)
{
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return;
    }
    char stand_in;
    WGPUCommandEncoder encoder = (WGPUCommandEncoder)(void *)&stand_in;
    WGPUComputePassEncoder pass = (WGPUComputePassEncoder)(void *)&stand_in;
    wgprof_dispatch_desc d = {.kernel = "k"};
    WGPUPassTimestampWrites writes;
    wgprof_site site = site_of(pool, "k");
    wgprof_chain_end end = 0;
    CHECK(wgprof_pool_collect(pool) == WGPROF_ERR_STATE); /* nothing added yet */
    CHECK(wgprof_pool_pass_writes(pool, &d, &writes) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_begin(pool, pass, &d) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_begin_site(pool, pass, site, 1) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_end(pool, pass) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_begin(pool, pass) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_next(pool, pass, &d) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_pass_writes(pool, &d, &writes) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_start_writes(pool, &writes) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_add(pool, site, 1, &end) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_end_in_pass(pool, pass, end) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_end_writes(pool, end, &writes) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_chain_carry(pool, pass, end) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_resolve(pool, encoder) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_calibrate(pool, 1) == WGPROF_ERR_STATE);
    CHECK(wgprof_pool_count(pool) == 0 && wgprof_pool_batch_count(pool) == 0);
    CHECK_OK(wgprof_pool_reserve(pool, 1000));

    /* Scopes work as on any pool: records added inside one belong to it. */
    CHECK_OK(wgprof_pool_scope_begin(pool, "layer"));
    wgprof_site sites[2] = {site, site};
    uint64_t ticks[3] = {10, 30, 70};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 2, .sites = sites, .ticks = ticks,
                                   .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    CHECK_OK(wgprof_pool_scope_end(pool));
    CHECK(wgprof_pool_scope_count(pool) == 1);
    wgprof_scope_record sc;
    CHECK_OK(wgprof_pool_scope(pool, 0, &sc));
    CHECK(sc.valid && sc.valid_records == 2 && sc.duration_ns == 60 && sc.dispatch_ns == 60);

    CHECK_OK(wgprof_pool_discard(pool));
    CHECK_OK(wgprof_pool_read_async(pool));
    uint32_t collected = 99;
    CHECK_OK(wgprof_pool_collect_ready(pool, &collected));
    CHECK(collected == 0);
    CHECK_OK(wgprof_pool_collect(pool));
    CHECK(wgprof_pool_in_flight(pool) == 0 && wgprof_pool_dropped(pool, NULL) == 0);
    CHECK(wgprof_pool_count(pool) == 2 && wgprof_pool_collected_batches(pool) == 1);
    /* Every format writes. */
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        char *text = report_text(pool, (wgprof_format)f);
        CHECK_MSG(text && text[0], "format %s wrote nothing", wgprof_format_name((wgprof_format)f));
        free(text);
    }
    /* Reset forgets the records and the sites; ids start over. */
    wgprof_pool_reset(pool);
    CHECK(wgprof_pool_count(pool) == 0);
    CHECK(wgprof_pool_add_external(pool, &batch) == WGPROF_ERR_INVALID_ARGUMENT);
    sites[0] = sites[1] = site_of(pool, "k");
    CHECK_OK(wgprof_pool_add_external(pool, &batch));
    CHECK(record_at(pool, 1).dispatch_id == 1);
    wgprof_pool_destroy(pool);
}

/* Two external pools of one counter merge as any pools do: batches in the order they began. */
static void test_merge(void)
{
    wgprof_pool *p = NULL, *q = NULL, *m = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &p));
    CHECK_OK(wgprof_pool_create_external(NULL, &q));
    if (!p || !q) {
        wgprof_pool_destroy(p);
        wgprof_pool_destroy(q);
        return;
    }
    wgprof_site pa[2] = {site_of(p, "a"), site_of(p, "a")}, qb[2] = {site_of(q, "b"), site_of(q, "b")};
    uint64_t later[3] = {5000, 5100, 5300}, earlier[4] = {1000, 1010, 1020, 1050};
    uint64_t ids[2] = {41, 42};
    wgprof_external_batch chain = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 2, .sites = pa, .ticks = later,
                                   .dispatch_ids = ids, .period_ns = 2.0};
    wgprof_external_batch pairs = {.strategy = WGPROF_STRATEGY_PASS, .count = 2, .sites = qb, .ticks = earlier,
                                   .period_ns = 2.0};
    CHECK_OK(wgprof_pool_add_external(p, &chain));
    CHECK_OK(wgprof_pool_add_external(q, &pairs));
    const wgprof_pool *pools[2] = {p, q};
    CHECK_OK(wgprof_pool_merge(pools, 2, &m));
    if (m) {
        CHECK(wgprof_pool_count(m) == 4 && wgprof_pool_batch_count(m) == 2);
        /* q's batch began first. */
        const char *kernel[4] = {"b", "b", "a", "a"};
        const double want[4] = {20, 60, 200, 400};
        const uint64_t id[4] = {0, 1, 41, 42};
        for (size_t i = 0; i < 4; i++) {
            wgprof_record r = record_at(m, i);
            CHECK_MSG(r.valid && strcmp(r.kernel, kernel[i]) == 0 && r.duration_ns == want[i] && r.dispatch_id == id[i],
                      "merged record %zu: %s %g ns id %llu, want %s %g ns id %llu", i, r.kernel, r.duration_ns,
                      (unsigned long long)r.dispatch_id, kernel[i], want[i], (unsigned long long)id[i]);
        }
        CHECK(record_at(m, 2).start_ns == (5000 - 1000) * 2.0);
        wgprof_summary *sum = NULL;
        CHECK_OK(wgprof_summary_create(m, &sum));
        if (sum) {
            CHECK(sum->total_ns == 680 && sum->kernel_count == 2);
            CHECK(sum->strategies == (1u << WGPROF_STRATEGY_PASS | 1u << WGPROF_STRATEGY_CHAIN));
            wgprof_summary_destroy(sum);
        }
        wgprof_batch_info info;
        CHECK_OK(wgprof_pool_batch(m, 1, &info));
        CHECK(info.chained);
        wgprof_pool_destroy(m);
    }
    wgprof_pool_destroy(p);
    wgprof_pool_destroy(q);
}

/* ---- out of memory ---- */

static ts_counting g_count;

/* What a pool holds, to tell that a failed call changed nothing. */
typedef struct pool_state {
    size_t count, invalid, scopes;
    uint32_t batches, collected;
} pool_state;

static pool_state state_of(const wgprof_pool *pool)
{
    return (pool_state){wgprof_pool_count(pool), wgprof_pool_invalid_count(pool), wgprof_pool_scope_count(pool),
                        wgprof_pool_batch_count(pool), wgprof_pool_collected_batches(pool)};
}

static bool same_state(pool_state a, pool_state b)
{
    return a.count == b.count && a.invalid == b.invalid && a.scopes == b.scopes && a.batches == b.batches &&
           a.collected == b.collected;
}

enum {
    BIG = 300,  /* past the store's first 256 records: the add grows them */
    BEFORE = 16 /* batches before it: the add grows the store's 16 */
};

/* A pool with BEFORE batches of one record, an empty scope and one open, then a batch of BIG
 * records without ids added with allocation n failing; returns that add's status. */
static wgprof_status add_with_failure(long n, wgprof_pool **out, pool_state *before)
{
    g_count.fail_at = 0;
    *out = NULL;
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    if (!pool) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    static wgprof_site sites[BIG];
    static uint64_t ticks[BIG + 1];
    sites[0] = site_of(pool, "k");
    for (size_t i = 0; i <= BIG; i++) {
        sites[i < BIG ? i : 0] = sites[0];
        ticks[i] = 1000 + 10 * i;
    }
    wgprof_external_batch one = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 1, .sites = sites, .ticks = ticks,
                                 .valid_bits = 36, .period_ns = 1.0};
    for (int i = 0; i < BEFORE; i++) {
        CHECK_OK(wgprof_pool_add_external(pool, &one));
    }
    CHECK_OK(wgprof_pool_scope_begin(pool, "empty"));
    CHECK_OK(wgprof_pool_scope_end(pool));
    CHECK_OK(wgprof_pool_scope_begin(pool, "open"));
    *before = state_of(pool);
    wgprof_external_batch big = one;
    big.count = BIG;
    /* Its scopes: one ending the open scope, new ones nested (their names new to the pool), one
     * left open. */
    static const wgprof_external_scope marks[] = {{1, NULL}, {2, "layer"}, {3, "block"}, {BIG - 1, NULL},
                                                  {BIG - 1, NULL}, {BIG, "tail"}};
    big.scopes = marks;
    big.scope_count = sizeof marks / sizeof marks[0];
    g_count.allocations = 0;
    g_count.fail_at = n;
    wgprof_status s = wgprof_pool_add_external(pool, &big);
    g_count.fail_at = 0;
    *out = pool;
    return s;
}

static void test_oom(void)
{
    wgprof_allocator counting = {ts_counting_alloc, ts_counting_free, &g_count};
    wgprof_set_allocator(&counting);

    /* Creation: each allocation failing gives a status, no pool, nothing left. */
    g_count.allocations = 0;
    wgprof_pool *pool = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &pool));
    long create = g_count.allocations;
    wgprof_pool_destroy(pool);
    CHECK_MSG(g_count.live == 0 && create >= 3, "creation made %ld allocations and left %ld blocks", create, g_count.live);
    for (long n = 1; n <= create; n++) {
        g_count.allocations = 0;
        g_count.fail_at = n;
        pool = (wgprof_pool *)&counting; /* must be cleared */
        wgprof_status s = wgprof_pool_create_external(NULL, &pool);
        g_count.fail_at = 0;
        CHECK_MSG(s == WGPROF_ERR_OUT_OF_MEMORY && pool == NULL && g_count.live == 0,
                  "creation, allocation %ld failing: %s, %ld blocks left", n, wgprof_status_str(s), g_count.live);
    }

    /* The add: count the allocations of one that succeeds, then fail each in turn. */
    pool_state before;
    CHECK_OK(add_with_failure(0, &pool, &before));
    long adds = g_count.allocations;
    wgprof_pool_destroy(pool);
    CHECK_MSG(adds >= 3 && g_count.live == 0, "the add made %ld allocations, %ld blocks left", adds, g_count.live);
    for (long n = 1; n <= adds; n++) {
        wgprof_status s = add_with_failure(n, &pool, &before);
        CHECK_MSG(s == WGPROF_ERR_OUT_OF_MEMORY, "allocation %ld of the add failing: %s", n, wgprof_status_str(s));
        CHECK_MSG(pool && same_state(state_of(pool), before), "allocation %ld of the add failing changed the pool", n);
        if (!pool) {
            continue;
        }
        wgprof_scope_record open;
        CHECK_OK(wgprof_pool_scope(pool, 1, &open));
        CHECK_MSG(open.open, "allocation %ld of the add failing closed the scope open before it", n);
        /* The same add again: whole, its ids going on from the pool's last as if nothing had failed. */
        static wgprof_site sites[BIG];
        static uint64_t ticks[BIG + 1];
        sites[0] = site_of(pool, "k");
        for (size_t i = 0; i <= BIG; i++) {
            sites[i < BIG ? i : 0] = sites[0];
            ticks[i] = 1000 + 10 * i;
        }
        wgprof_external_batch big = {.strategy = WGPROF_STRATEGY_CHAIN, .count = BIG, .sites = sites, .ticks = ticks,
                                     .valid_bits = 36, .period_ns = 1.0};
        CHECK_OK(wgprof_pool_add_external(pool, &big));
        CHECK_OK(wgprof_pool_scope_end(pool));
        wgprof_record last = record_at(pool, BEFORE + BIG - 1);
        CHECK_MSG(wgprof_pool_count(pool) == BEFORE + BIG && last.valid && last.duration_ns == 10 &&
                      last.dispatch_id == BEFORE + BIG - 1,
                  "after allocation %ld failed, the retried add: %zu records, the last %s, %g ns, id %llu", n,
                  wgprof_pool_count(pool), wgprof_invalid_reason_str(last.invalid_reason), last.duration_ns,
                  (unsigned long long)last.dispatch_id);
        CHECK_MSG(wgprof_pool_scope_count(pool) == 2, "after allocation %ld failed: %zu scopes, want 2", n,
                  wgprof_pool_scope_count(pool));
        wgprof_pool_destroy(pool);
        CHECK_MSG(g_count.live == 0, "allocation %ld of the add failing: %ld blocks left", n, g_count.live);
    }
    wgprof_set_allocator(NULL);
}

/* The name of kernel `name` in the JSON report's kernels: its name_source, "" where it has none. */
static const char *json_name_source(json_t *root, const char *name)
{
    json_t *kernels = json_object_get(root, "kernels");
    for (size_t i = 0; i < json_array_size(kernels); i++) {
        json_t *k = json_array_get(kernels, i);
        if (strcmp(json_string_value(json_object_get(k, "name")), name) == 0) {
            json_t *source = json_object_get(k, "name_source");
            return json_is_string(source) ? json_string_value(source) : "";
        }
    }
    CHECK_MSG(false, "no kernel %s in the JSON report", name);
    return "";
}

/* Where each kernel's name came from (wgprof_pool_kernel_source): said, said again (the last
 * holds), unsaid with NULL; in the JSON report per kernel and counted in the table's header; kept
 * by a merge, forgotten by a reset; bad arguments and failed allocations refused with a status,
 * nothing left behind. */
static void test_name_sources(void)
{
    wgprof_pool *p = NULL;
    CHECK_OK(wgprof_pool_create_external(NULL, &p));
    if (!p) {
        return;
    }
    wgprof_site sites[3] = {site_of(p, "a"), site_of(p, "b"), site_of(p, "c")};
    uint64_t ticks[4] = {100, 110, 130, 160};
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN, .count = 3, .sites = sites, .ticks = ticks,
                                   .period_ns = 1.0};
    CHECK_OK(wgprof_pool_add_external(p, &batch));
    CHECK_OK(wgprof_pool_kernel_source(p, "a", "pipeline label"));
    CHECK_OK(wgprof_pool_kernel_source(p, "b", "pipeline label"));
    CHECK_OK(wgprof_pool_kernel_source(p, "b", "shader code hash"));
    CHECK_OK(wgprof_pool_kernel_source(p, "c", "shader code hash"));
    CHECK_OK(wgprof_pool_kernel_source(p, "c", NULL));
    CHECK_OK(wgprof_pool_kernel_source(p, "never dispatched", "pipeline label"));
    CHECK(wgprof_pool_kernel_source(NULL, "a", "x") == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_pool_kernel_source(p, NULL, "x") == WGPROF_ERR_INVALID_ARGUMENT);
    json_t *root = report_json(p);
    CHECK_MSG(strcmp(json_name_source(root, "a"), "pipeline label") == 0 &&
                  strcmp(json_name_source(root, "b"), "shader code hash") == 0 && !json_name_source(root, "c")[0],
              "name sources: a %s, b %s, c %s", json_name_source(root, "a"), json_name_source(root, "b"),
              json_name_source(root, "c"));
    CHECK(json_array_size(json_object_get(root, "kernels")) == 3);
    json_decref(root);
    char *table = report_text(p, WGPROF_FORMAT_TABLE);
    const char *want = "kernel names from: pipeline label (1: a), shader code hash (1: b), not said (1)\n";
    CHECK_MSG(table && strstr(table, want), "the table's header does not say %s: %s", want, table ? table : "(none)");
    free(table);

    /* A merge keeps them. */
    wgprof_pool *m = NULL;
    const wgprof_pool *pools[1] = {p};
    CHECK_OK(wgprof_pool_merge(pools, 1, &m));
    if (m) {
        root = report_json(m);
        CHECK(strcmp(json_name_source(root, "a"), "pipeline label") == 0 &&
              strcmp(json_name_source(root, "b"), "shader code hash") == 0);
        json_decref(root);
        wgprof_pool_destroy(m);
    }
    /* A reset forgets them: the same kernel again has none until said. */
    wgprof_pool_reset(p);
    sites[0] = site_of(p, "a");
    batch.count = 1;
    CHECK_OK(wgprof_pool_add_external(p, &batch));
    root = report_json(p);
    CHECK_MSG(!json_name_source(root, "a")[0], "after a reset, a's name source: %s", json_name_source(root, "a"));
    json_decref(root);
    table = report_text(p, WGPROF_FORMAT_TABLE);
    CHECK_MSG(table && !strstr(table, "kernel names from"), "after a reset, the table says: %s", table ? table : "(none)");
    free(table);

    /* Each allocation failing in turn: a status, and nothing left once the pool is gone. */
    wgprof_allocator counting = {ts_counting_alloc, ts_counting_free, &g_count};
    wgprof_set_allocator(&counting);
    for (long n = 1; n < 16; n++) {
        wgprof_pool *q = NULL;
        CHECK_OK(wgprof_pool_create_external(NULL, &q));
        g_count.allocations = 0;
        g_count.fail_at = n;
        wgprof_status s = wgprof_pool_kernel_source(q, "a kernel", "a source");
        g_count.fail_at = 0;
        CHECK_MSG(s == WGPROF_OK || s == WGPROF_ERR_OUT_OF_MEMORY, "allocation %ld failing: %s", n, wgprof_status_str(s));
        CHECK_OK(wgprof_pool_kernel_source(q, "a kernel", "a source"));
        wgprof_pool_destroy(q);
        CHECK_MSG(g_count.live == 0, "allocation %ld of a name source failing: %ld blocks left", n, g_count.live);
        if (s == WGPROF_OK) {
            break;
        }
    }
    wgprof_set_allocator(NULL);
    wgprof_pool_destroy(p);
}

int main(void)
{
    test_chain();
    test_pairs();
    test_valid_bits();
    test_unavailable();
    test_clock();
    test_refusals();
    test_other_calls();
    test_scopes();
    test_merge();
    test_name_sources();
    test_oom();
    return check_summary();
}
