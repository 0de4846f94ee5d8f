/* libFuzzer target: wgprof diff's reader on arbitrary bytes (diff/diff_load.c), and where two
 * reports read, the pooling of runs, the comparison and every writer. The input is split at its
 * first NUL byte into the base and the new report (no NUL: the same bytes for both); the new
 * side is that report read twice, pooled as two runs (diff/diff_runs.c). It must refuse or
 * compare, never crash, leak or read out of bounds, and the JSON it writes must parse. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_diff: %s\n", what);
        abort();
    }
}

/* Writes with `write` to memory; the text (to free) or NULL where the writer failed. */
static char *written(bool (*write)(const diff_result *, FILE *), const diff_result *r, size_t *size)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    if (!f) {
        return NULL;
    }
    bool ok = write(r, f);
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t base_size = nul ? (size_t)(nul - text) : size;
    const char *next = nul ? nul + 1 : text;
    size_t next_size = nul ? size - base_size - 1 : size;
    diff_profile base, other;
    char error[1024];
    if (diff_load_buffer("base.json", text, base_size, &base, error, sizeof error) != DIFF_OK) {
        check(strncmp(error, "base.json", 9) == 0, "a message that does not name the file");
        return 0;
    }
    diff_profile runs[2];
    if (diff_load_buffer("new.json", next, next_size, &runs[0], error, sizeof error) != DIFF_OK) {
        diff_profile_free(&base);
        return 0;
    }
    if (diff_load_buffer("new2.json", next, next_size, &runs[1], error, sizeof error) != DIFF_OK) {
        diff_profile_free(&runs[0]);
        diff_profile_free(&base);
        return 0;
    }
    size_t kernels = runs[0].kernel_count, totals = runs[0].total.samples.count;
    diff_status pooled = diff_merge_runs(runs, 2, &other, error, sizeof error);
    if (pooled != DIFF_OK) {
        check(pooled == DIFF_FAILED, "two runs of the same report refused as of different settings");
        diff_profile_free(&base);
        return 0;
    }
    check(other.runs == 2 && other.kernel_count == kernels && other.total.samples.count == 2 * totals,
          "two runs of one report pooled into other counts");
    diff_options o;
    diff_default_options(&o);
    o.resamples = 100;
    o.fail_if_slower = 0.1;
    diff_result r;
    if (diff_compare(&base, &other, &o, &r) == DIFF_OK) {
        size_t n = 0;
        char *json = written(diff_write_json, &r, &n);
        check(json != NULL, "the JSON writer failed");
        json_error_t err;
        json_t *root = json_loadb(json, n, 0, &err);
        check(root != NULL, "the comparison's JSON does not parse");
        json_decref(root);
        free(json);
        free(written(diff_write_table, &r, &n));
        free(written(diff_write_markdown, &r, &n));
        free(written(diff_write_html, &r, &n));
        diff_result_free(&r);
    }
    diff_profile_free(&base);
    diff_profile_free(&other);
    return 0;
}
