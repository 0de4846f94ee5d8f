/*
 * Reading a wgprof JSON report for wgprof diff (diff.h): jansson parses it (a syntax error names
 * file:line:col), then the keys a comparison needs are checked and taken, a wrong one named by
 * its JSON path ("$.dispatches[12].duration_ns"). Keys it does not read are left alone, so that
 * a report with more keys still reads; its format_version must be one this wgprof knows.
 *
 * Samples: a dispatch with a duration (and not marked invalid) is a sample of its kernel, a
 * scope instance likewise of its path; the others are counted as skipped. The total's samples
 * are the per-iteration sums of the dispatches' durations, of the iterations whose every
 * dispatch is valid (an iteration missing one would look faster than it was).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "common.h"

/* The longest duration taken as a time: 10^18 ns is 31 years. Sums of a report's durations then
 * stay far from overflow. */
#define MAX_DURATION_NS 1e18

typedef struct reader {
    const char *file;
    char *error;
    size_t error_cap;
    diff_status status; /* of the first failure */
    size_t size;        /* the report's, in bytes */
} reader;

static bool failf(reader *r, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool failf(reader *r, const char *where, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->error, r->error_cap, "%s: %s: %s", r->file, where, what);
    r->status = DIFF_BAD_INPUT;
    return false;
}

static bool out_of_memory(reader *r)
{
    snprintf(r->error, r->error_cap, "%s: out of memory reading the report (%zu bytes, %.1f MiB)", r->file, r->size,
             (double)r->size / (1024.0 * 1024.0));
    r->status = DIFF_FAILED;
    return false;
}

/* `where` is missing (v NULL) or of the wrong kind: `expected` names the right one. */
static bool fail_kind(reader *r, const char *where, const json_t *v, const char *expected)
{
    if (!v) {
        return failf(r, where, "missing");
    }
    return failf(r, where, "expected %s, not %s", expected, json_kind(v));
}

char *diff_copy_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

/* ---- names to series ---- */

/* Series by name: an open-addressing table of indices (FNV-1a), doubled at half full. */
typedef struct series_set {
    diff_series *items;
    size_t count, cap;
    size_t *slots; /* index + 1; 0: empty */
    size_t slot_count;
} series_set;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    }
    return h;
}

static bool rehash(series_set *set, size_t slot_count)
{
    size_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots) {
        return false;
    }
    for (size_t i = 0; i < set->count; i++) {
        size_t at = (size_t)hash_name(set->items[i].name) & (slot_count - 1);
        while (slots[at]) {
            at = (at + 1) & (slot_count - 1);
        }
        slots[at] = i + 1;
    }
    free(set->slots);
    set->slots = slots;
    set->slot_count = slot_count;
    return true;
}

/* The series named `name`, added where new; NULL when out of memory. */
static diff_series *series_named(series_set *set, const char *name)
{
    if (set->slot_count && set->slots) {
        size_t at = (size_t)hash_name(name) & (set->slot_count - 1);
        while (set->slots[at]) {
            diff_series *s = &set->items[set->slots[at] - 1];
            if (strcmp(s->name, name) == 0) {
                return s;
            }
            at = (at + 1) & (set->slot_count - 1);
        }
    }
    if ((set->count + 1) * 2 > set->slot_count && !rehash(set, set->slot_count ? set->slot_count * 2 : 16)) {
        return NULL;
    }
    if (set->count == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        diff_series *more = realloc(set->items, cap * sizeof *more);
        if (!more) {
            return NULL;
        }
        set->items = more;
        set->cap = cap;
    }
    diff_series *s = &set->items[set->count];
    memset(s, 0, sizeof *s);
    s->name = diff_copy_text(name);
    if (!s->name) {
        return NULL;
    }
    size_t at = (size_t)hash_name(name) & (set->slot_count - 1);
    while (set->slots[at]) {
        at = (at + 1) & (set->slot_count - 1);
    }
    set->slots[at] = ++set->count;
    return s;
}

static bool add_sample(diff_series *s, long long iteration, double ns)
{
    if (s->raw_count == s->raw_cap) {
        size_t cap = s->raw_cap ? s->raw_cap * 2 : 16;
        diff_raw *more = realloc(s->raw, cap * sizeof *more);
        if (!more) {
            return false;
        }
        s->raw = more;
        s->raw_cap = cap;
    }
    s->raw[s->raw_count++] = (diff_raw){iteration, ns, 0};
    return true;
}

static void free_series(diff_series *s)
{
    free(s->name);
    free(s->raw);
    diff_samples_free(&s->samples);
    memset(s, 0, sizeof *s);
}

/* The samples as read into the bootstrap's form; the raw ones are let go. */
static bool finish_series(diff_series *s)
{
    bool ok = diff_samples_build(s->raw, s->raw_count, &s->samples);
    free(s->raw);
    s->raw = NULL;
    s->raw_count = s->raw_cap = 0;
    return ok;
}

/* ---- the keys ---- */

/* An optional string at `key` of `obj` (where `at` names obj); "" where absent or null. */
static bool take_string(reader *r, const json_t *obj, const char *at, const char *key, char **out)
{
    const json_t *v = json_object_get(obj, key);
    if (v && !json_is_null(v) && !json_is_string(v)) {
        char where[128];
        snprintf(where, sizeof where, "%s.%s", at, key);
        return failf(r, where, "expected a string, not %s", json_kind(v));
    }
    *out = diff_copy_text(json_is_string(v) ? json_string_value(v) : "");
    return *out ? true : out_of_memory(r);
}

/* An optional number >= 0 at `key`; NAN where absent or null. */
static bool take_number(reader *r, const json_t *obj, const char *key, double *out)
{
    const json_t *v = json_object_get(obj, key);
    *out = NAN;
    if (!v || json_is_null(v)) {
        return true;
    }
    char where[64];
    snprintf(where, sizeof where, "$.%s", key);
    if (!json_is_number(v)) {
        return failf(r, where, "expected a number, not %s", json_kind(v));
    }
    double x = json_number_value(v);
    if (!(x >= 0) || !isfinite(x)) {
        return failf(r, where, "%g: expected a number of at least 0", x);
    }
    *out = x;
    return true;
}

static bool check_version(reader *r, const json_t *root)
{
    const json_t *v = json_object_get(root, "format_version");
    if (!v) {
        return failf(r, "$.format_version", "missing: not a wgprof JSON report, or one from a wgprof older than the "
                     "reports that name their format (write it again with this wgprof)");
    }
    if (!json_is_integer(v)) {
        return failf(r, "$.format_version", "expected an integer, not %s", json_kind(v));
    }
    if (json_integer_value(v) != DIFF_FORMAT_VERSION) {
        return failf(r, "$.format_version", "%lld: this wgprof reads format_version %d only",
                     (long long)json_integer_value(v), DIFF_FORMAT_VERSION);
    }
    return true;
}

static bool take_settings(reader *r, const json_t *root, diff_profile *p)
{
    const json_t *adapter = json_object_get(root, "adapter");
    if (adapter && !json_is_null(adapter) && !json_is_object(adapter)) {
        return failf(r, "$.adapter", "expected an object, not %s", json_kind(adapter));
    }
    if (!take_string(r, root, "$", "wgprof_version", &p->version) ||
        !take_string(r, adapter, "$.adapter", "name", &p->adapter) ||
        !take_string(r, adapter, "$.adapter", "driver", &p->driver) ||
        !take_string(r, adapter, "$.adapter", "backend", &p->backend) ||
        !take_string(r, adapter, "$.adapter", "implementation", &p->implementation) ||
        !take_string(r, root, "$", "strategy", &p->strategy) ||
        !take_string(r, root, "$", "shader_checks", &p->shader_checks) ||
        !take_number(r, root, "timestamp_period_ns", &p->period_ns) ||
        !take_number(r, root, "timestamp_quantum_ns", &p->quantum_ns)) {
        return false;
    }
    if (isnan(p->quantum_ns)) {
        p->quantum_ns = 0;
    }
    const json_t *quantized = json_object_get(root, "timestamp_quantized");
    if (quantized && !json_is_boolean(quantized)) {
        return failf(r, "$.timestamp_quantized", "expected true or false, not %s", json_kind(quantized));
    }
    p->quantized = json_is_true(quantized);
    const json_t *iterations = json_object_get(root, "iterations");
    p->iterations = -1;
    if (iterations) {
        if (!json_is_integer(iterations) || json_integer_value(iterations) < 0) {
            return failf(r, "$.iterations", "expected a whole number of at least 0, not %s", json_kind(iterations));
        }
        p->iterations = (long long)json_integer_value(iterations);
    }
    /* A partial report (the program ended before its results were final) is read, and said. */
    const json_t *partial = json_object_get(root, "partial"), *reason = json_object_get(root, "partial_reason");
    if (partial && !json_is_boolean(partial)) {
        return failf(r, "$.partial", "expected true or false, not %s", json_kind(partial));
    }
    if (reason && !json_is_null(reason) && !json_is_string(reason)) {
        return failf(r, "$.partial_reason", "expected a string, not %s", json_kind(reason));
    }
    if (json_is_true(partial)) {
        p->partial = diff_copy_text(json_is_string(reason) && json_string_value(reason)[0] ? json_string_value(reason)
                                                                                             : "no reason given");
        if (!p->partial) {
            return out_of_memory(r);
        }
    }
    const json_t *profiling = json_object_get(root, "profiling");
    if (profiling && !json_is_boolean(profiling)) {
        return failf(r, "$.profiling", "expected true or false, not %s", json_kind(profiling));
    }
    if (json_is_false(profiling)) {
        const json_t *why = json_object_get(root, "unavailable_reason");
        return failf(r, "$.profiling", "false: the report holds no timings (%s), nothing to compare",
                     json_is_string(why) ? json_string_value(why) : "no reason given");
    }
    return true;
}

/* A record's duration: *sample true with the value where it is one, false where the record is
 * invalid (a null duration, or "valid": false). `at` names the record. */
static bool take_duration(reader *r, const json_t *rec, const char *at, bool *sample, double *ns)
{
    const json_t *d = json_object_get(rec, "duration_ns"), *valid = json_object_get(rec, "valid");
    char where[96];
    if (valid && !json_is_boolean(valid)) {
        snprintf(where, sizeof where, "%s.valid", at);
        return failf(r, where, "expected true or false, not %s", json_kind(valid));
    }
    snprintf(where, sizeof where, "%s.duration_ns", at);
    if (!d) {
        return failf(r, where, "missing");
    }
    *sample = false;
    if (json_is_null(d)) {
        return true;
    }
    if (!json_is_number(d)) {
        return failf(r, where, "expected a number or null, not %s", json_kind(d));
    }
    double x = json_number_value(d);
    if (!(x >= 0) || !(x <= MAX_DURATION_NS)) {
        return failf(r, where, "%g: a duration is from 0 to 1e18 ns", x);
    }
    *sample = !json_is_false(valid);
    *ns = x;
    return true;
}

static const json_t *array_at(reader *r, const json_t *root, const char *key, bool required, bool *ok)
{
    const json_t *a = json_object_get(root, key);
    *ok = true;
    if (!a && !required) {
        return NULL;
    }
    char where[64];
    snprintf(where, sizeof where, "$.%s", key);
    if (!a) {
        *ok = failf(r, where, "missing");
    } else if (!json_is_array(a)) {
        *ok = failf(r, where, "expected an array, not %s", json_kind(a));
    }
    return *ok ? a : NULL;
}

/* One dispatch's part of its iteration's total. */
typedef struct iteration_part {
    long long iteration;
    double ns;
    bool valid;
    bool reading; /* a reading of the timer summed (not the reference kernel, left out) */
} iteration_part;

static int compare_parts(const void *a, const void *b)
{
    long long x = ((const iteration_part *)a)->iteration, y = ((const iteration_part *)b)->iteration;
    return (x > y) - (x < y);
}

/* The per-iteration totals from the parts (reordered), and the most readings one of them sums
 * into *readings. */
static bool take_totals(reader *r, iteration_part *parts, size_t n, diff_series *total, size_t *readings)
{
    if (!n) {
        return true;
    }
    qsort(parts, n, sizeof *parts, compare_parts);
    for (size_t i = 0; i < n;) {
        size_t end = i, summed = 0;
        double sum = 0;
        bool valid = true;
        for (; end < n && parts[end].iteration == parts[i].iteration; end++) {
            sum += parts[end].ns;
            valid = valid && parts[end].valid;
            summed += parts[end].reading;
        }
        if (!valid) {
            total->skipped++;
        } else if (!add_sample(total, parts[i].iteration, sum)) {
            return out_of_memory(r);
        } else if (summed > *readings) {
            *readings = summed;
        }
        i = end;
    }
    return true;
}

static bool take_dispatches(reader *r, const json_t *root, diff_profile *p)
{
    bool ok;
    const json_t *list = array_at(r, root, "dispatches", true, &ok);
    if (!ok) {
        return false;
    }
    size_t n = json_array_size(list);
    iteration_part *parts = n ? malloc(n * sizeof *parts) : NULL;
    if (n && !parts) {
        return out_of_memory(r);
    }
    series_set kernels = {0};
    ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        const json_t *d = json_array_get(list, i);
        char at[64];
        snprintf(at, sizeof at, "$.dispatches[%zu]", i);
        if (!json_is_object(d)) {
            ok = failf(r, at, "expected an object, not %s", json_kind(d));
            break;
        }
        const json_t *kernel = json_object_get(d, "kernel"), *iteration = json_object_get(d, "iteration");
        char where[96];
        if (!json_is_string(kernel)) {
            snprintf(where, sizeof where, "%s.kernel", at);
            ok = fail_kind(r, where, kernel, "a string");
            break;
        }
        if (!json_is_integer(iteration) || json_integer_value(iteration) < 0) {
            snprintf(where, sizeof where, "%s.iteration", at);
            ok = fail_kind(r, where, iteration, "a whole number of at least 0");
            break;
        }
        bool sample = false;
        double ns = 0;
        if (!take_duration(r, d, at, &sample, &ns)) {
            ok = false;
            break;
        }
        long long it = (long long)json_integer_value(iteration);
        diff_series *s = series_named(&kernels, json_string_value(kernel));
        if (!s || (sample && !add_sample(s, it, ns))) {
            ok = out_of_memory(r);
            break;
        }
        s->skipped += !sample;
        p->invalid += !sample;
        /* The reference kernel is wgprof's, not the work compared: not in the total. */
        bool reference = strcmp(json_string_value(kernel), WGPROF_REFERENCE_KERNEL) == 0;
        parts[i] = reference ? (iteration_part){it, 0, true, false}
                             : (iteration_part){it, sample ? ns : 0, sample, true};
    }
    p->dispatches = n;
    free(kernels.slots);
    p->kernels = kernels.items;
    p->kernel_count = kernels.count;
    ok = ok && take_totals(r, parts, n, &p->total, &p->total_readings);
    free(parts);
    return ok;
}

static bool take_scopes(reader *r, const json_t *root, diff_profile *p)
{
    bool ok;
    const json_t *list = array_at(r, root, "scope_instances", false, &ok);
    size_t n = json_array_size(list); /* 0 for NULL */
    series_set scopes = {0};
    for (size_t i = 0; ok && i < n; i++) {
        const json_t *sc = json_array_get(list, i);
        char at[64];
        snprintf(at, sizeof at, "$.scope_instances[%zu]", i);
        if (!json_is_object(sc)) {
            ok = failf(r, at, "expected an object, not %s", json_kind(sc));
            break;
        }
        const json_t *path = json_object_get(sc, "path");
        if (!json_is_string(path)) {
            char where[96];
            snprintf(where, sizeof where, "%s.path", at);
            ok = fail_kind(r, where, path, "a string");
            break;
        }
        const json_t *iteration = json_object_get(sc, "iteration");
        if (!json_is_integer(iteration) || json_integer_value(iteration) < 0) {
            char where[96];
            snprintf(where, sizeof where, "%s.iteration", at);
            ok = fail_kind(r, where, iteration, "a whole number of at least 0");
            break;
        }
        bool sample = false;
        double ns = 0;
        if (!take_duration(r, sc, at, &sample, &ns)) {
            ok = false;
            break;
        }
        diff_series *s = series_named(&scopes, json_string_value(path));
        if (!s || (sample && !add_sample(s, (long long)json_integer_value(iteration), ns))) {
            ok = out_of_memory(r);
            break;
        }
        s->skipped += !sample;
        p->invalid_scopes += !sample;
    }
    p->scope_instances = n;
    free(scopes.slots);
    p->scopes = scopes.items;
    p->scope_count = scopes.count;
    return ok;
}

/* The report of set `set` (0: the one there is) of a report of result sets, in *root; a report
 * alone is set 1. False with the message where there is no such set or several to choose from. */
static bool choose_set(reader *r, const json_t **root, size_t set)
{
    const json_t *sets = json_is_object(*root) ? json_object_get(*root, "result_sets") : NULL;
    if (!sets) {
        return set <= 1 || failf(r, "$", "holds one report, not result sets: there is no set %zu", set);
    }
    if (!json_is_array(sets) || !json_array_size(sets)) {
        return fail_kind(r, "$.result_sets", sets, "a list of result sets");
    }
    size_t n = json_array_size(sets);
    if (set == 0 && n > 1) {
        char list[512] = "";
        for (size_t i = 0; i < n && strlen(list) < sizeof list - 64; i++) {
            const json_t *s = json_array_get(sets, i);
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%zu: process %lld device %lld", i ? ", " : "", i + 1,
                     (long long)json_integer_value(json_object_get(s, "process")),
                     (long long)json_integer_value(json_object_get(s, "device")));
        }
        return failf(r, "$.result_sets",
                     "holds %zu result sets (a run of several devices or processes: %s): compare them one at a "
                     "time (wgprof diff --set K)",
                     n, list);
    }
    if (set > n) {
        return failf(r, "$.result_sets", "holds %zu result sets: there is no set %zu", n, set);
    }
    size_t at = set ? set - 1 : 0;
    const json_t *report = json_object_get(json_array_get(sets, at), "report");
    if (!json_is_object(report)) {
        char where[64];
        snprintf(where, sizeof where, "$.result_sets[%zu].report", at);
        return fail_kind(r, where, report, "a wgprof report");
    }
    *root = report;
    return true;
}

static diff_status from_json(json_t *root, const json_error_t *jerr, bool allocation_failed, const char *name,
                             size_t size, size_t set, diff_profile *out, char *error, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->period_ns = NAN;
    reader r = {name, error, cap, DIFF_OK, size};
    if (!root && (allocation_failed || json_error_code(jerr) == json_error_out_of_memory)) {
        /* The machine's limit, not the report's fault: jansson's tree of a report takes several
         * times its size. */
        out_of_memory(&r);
        return r.status;
    }
    if (!root) {
        r.status = DIFF_BAD_INPUT;
        if (jerr->line < 0) {
            snprintf(error, cap, "%s: not JSON: %s", name, jerr->text);
        } else {
            snprintf(error, cap, "%s:%d:%d: not JSON: %s", name, jerr->line, jerr->column, jerr->text);
        }
        return r.status;
    }
    out->file = diff_copy_text(name);
    out->runs = 1;
    bool ok = out->file ? true : out_of_memory(&r);
    if (ok && !json_is_object(root)) {
        ok = failf(&r, "$", "a wgprof report is a JSON object, not %s", json_kind(root));
    }
    const json_t *report = root;
    ok = ok && check_version(&r, root) && choose_set(&r, &report, set);
    char named[600];
    if (ok && report != root) { /* messages about the set's report say which set (its paths are its own) */
        snprintf(named, sizeof named, "%s (result set %zu)", name, set ? set : 1);
        r.file = named;
        char *copy = diff_copy_text(named);
        ok = copy ? true : out_of_memory(&r);
        if (copy) {
            free(out->file);
            out->file = copy;
        }
    }
    ok = ok && check_version(&r, report) && take_settings(&r, report, out) && take_dispatches(&r, report, out) &&
         take_scopes(&r, report, out);
    if (!ok) {
        diff_profile_free(out);
        return r.status;
    }
    for (size_t i = 0; ok && i < out->kernel_count; i++) {
        ok = finish_series(&out->kernels[i]);
    }
    for (size_t i = 0; ok && i < out->scope_count; i++) {
        ok = finish_series(&out->scopes[i]);
    }
    ok = ok && finish_series(&out->total);
    if (!ok) {
        diff_profile_free(out);
        out_of_memory(&r);
        return DIFF_FAILED;
    }
    return DIFF_OK;
}

/* Jansson reports some failed allocations as syntax ("invalid token near '"copy"'", when a
 * string's copy failed) and gives up after others (a member it could not add) with no message:
 * only its allocator sees them all. */
static json_malloc_t jansson_malloc;
static bool allocation_failed;

static void *watched_malloc(size_t size)
{
    void *p = jansson_malloc(size);
    allocation_failed |= p == NULL;
    return p;
}

diff_status diff_load_buffer(const char *name, const char *data, size_t size, diff_profile *out, char *error,
                             size_t error_cap)
{
    return diff_load_buffer_set(name, data, size, 0, out, error, error_cap);
}

diff_status diff_load_buffer_set(const char *name, const char *data, size_t size, size_t set, diff_profile *out,
                                 char *error, size_t error_cap)
{
    json_free_t jansson_free;
    json_get_alloc_funcs(&jansson_malloc, &jansson_free);
    json_set_alloc_funcs(watched_malloc, jansson_free);
    allocation_failed = false;
    json_error_t jerr;
    json_t *root = json_loadb(data, size, JSON_REJECT_DUPLICATES, &jerr);
    json_set_alloc_funcs(jansson_malloc, jansson_free);
    diff_status s = from_json(root, &jerr, allocation_failed, name, size, set, out, error, error_cap);
    json_decref(root);
    return s;
}

/* Reads `fd` to its end, at most `max` bytes; NULL with the reason in `why`. */
static char *read_all(int fd, uint64_t expected, uint64_t max, size_t *length, char *why, size_t why_cap)
{
    size_t cap = expected ? (size_t)expected + 1 : 65536, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(why, why_cap, "out of memory for %llu bytes", (unsigned long long)cap);
        return NULL;
    }
    for (;;) {
        if (len == cap) {
            if (cap > max) {
                snprintf(why, why_cap, "more than the %llu MiB a report may have", (unsigned long long)(max >> 20));
                free(buf);
                return NULL;
            }
            /* Never more than one byte past the limit, which tells a report too large. */
            size_t grown = cap * 2 < max + 1 ? cap * 2 : (size_t)max + 1;
            char *more = realloc(buf, grown);
            if (!more) {
                snprintf(why, why_cap, "out of memory for %llu bytes", (unsigned long long)grown);
                free(buf);
                return NULL;
            }
            buf = more;
            cap = grown;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            snprintf(why, why_cap, "%s", strerror(errno));
            free(buf);
            return NULL;
        }
        if (got == 0) {
            break;
        }
        len += (size_t)got;
    }
    if (len > max) {
        snprintf(why, why_cap, "more than the %llu MiB a report may have", (unsigned long long)(max >> 20));
        free(buf);
        return NULL;
    }
    *length = len;
    return buf;
}

diff_status diff_load_file(const char *path, diff_profile *out, uint64_t *dev, uint64_t *ino, char *error,
                           size_t error_cap)
{
    return diff_load_file_set(path, 0, out, dev, ino, error, error_cap);
}

diff_status diff_load_file_set(const char *path, size_t set, diff_profile *out, uint64_t *dev, uint64_t *ino,
                               char *error, size_t error_cap)
{
    memset(out, 0, sizeof *out);
    char why[256];
    uint64_t size = 0, d = 0, i = 0;
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "standard input" : path;
    int fd = from_stdin ? STDIN_FILENO : file_open_regular(path, DIFF_MAX_REPORT_BYTES, &size, &d, &i, why, sizeof why);
    if (fd < 0) {
        snprintf(error, error_cap, "%s: cannot read the report: %s", path, why);
        return DIFF_BAD_INPUT;
    }
    size_t length = 0;
    char *text = read_all(fd, size, DIFF_MAX_REPORT_BYTES, &length, why, sizeof why);
    if (!from_stdin) {
        close(fd);
    }
    if (!text) {
        bool memory = strncmp(why, "out of memory", 13) == 0;
        if (memory && size) {
            snprintf(error, error_cap, "%s: cannot read the report: %s (the file holds %llu bytes)", name, why,
                     (unsigned long long)size);
        } else {
            snprintf(error, error_cap, "%s: cannot read the report: %s", name, why);
        }
        return memory ? DIFF_FAILED : DIFF_BAD_INPUT;
    }
    if (dev) {
        *dev = d;
    }
    if (ino) {
        *ino = i;
    }
    diff_status s = diff_load_buffer_set(name, text, length, set, out, error, error_cap);
    free(text);
    return s;
}

void diff_profile_free(diff_profile *p)
{
    for (size_t i = 0; i < p->kernel_count; i++) {
        free_series(&p->kernels[i]);
    }
    for (size_t i = 0; i < p->scope_count; i++) {
        free_series(&p->scopes[i]);
    }
    free(p->kernels);
    free(p->scopes);
    free_series(&p->total);
    free(p->file);
    for (size_t i = 0; p->files && i < p->runs; i++) {
        free(p->files[i]);
    }
    free(p->files);
    free(p->version);
    free(p->adapter);
    free(p->driver);
    free(p->backend);
    free(p->implementation);
    free(p->strategy);
    free(p->shader_checks);
    free(p->partial);
    memset(p, 0, sizeof *p);
}
