/*
 * The options of `wgprof run`, `wgprof demo` and `wgprof diff` from arbitrary arguments: the
 * input, split at NUL bytes, is the argument list (its first byte picks the command: bit 1 diff,
 * else bit 0 demo or run). Each parse must end in one of its three results; what it accepts must
 * lie within the documented ranges and point into the arguments given; what it refuses must say
 * why.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { MAX_ARGS = 64 };

static bool points_into(const char *p, char *const *argv, int argc)
{
    for (int i = 0; i < argc; i++) {
        if (p >= argv[i] && p <= argv[i] + strlen(argv[i])) {
            return true;
        }
    }
    return false;
}

static void check_files(const char *const *files, char *const *argv, int argc)
{
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        if (files[f] && !points_into(files[f], argv, argc)) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) {
        return 0;
    }
    char *text = malloc(size + 1); /* the arguments, NUL-terminated each */
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = data[0] & 2 ? "diff" : data[0] & 1 ? "demo" : "run";
    for (char *p = text; p <= text + size - 1 && argc < MAX_ARGS; p += strlen(p) + 1) {
        argv[argc++] = p;
    }
    argv[argc] = NULL;
    char error[512];
    memset(error, 0x7f, sizeof error);
    cli_parse_result r;
    if (data[0] & 2) {
        cli_diff_options o;
        r = cli_parse_diff_args(argc, argv, &o, error, sizeof error);
        if (r == CLI_PARSE_OK &&
            (o.base_count < 1 || o.base_count > CLI_DIFF_MAX_RUNS || o.new_count < 1 ||
             o.new_count > CLI_DIFF_MAX_RUNS || !(o.threshold_pct >= 0) || !isfinite(o.threshold_pct) || o.resamples < 100 || o.resamples > 1000000 ||
             o.seed > 0x7fffffffffffffffull || !isfinite(o.fail_if_slower_pct) ||
             (o.fail_if_slower_pct < 0 && o.fail_if_slower_pct != -1))) {
            abort();
        }
        for (size_t i = 0; r == CLI_PARSE_OK && i < o.base_count + o.new_count; i++) {
            const char *report = i < o.base_count ? o.base[i] : o.new_[i - o.base_count];
            if (!report || !points_into(report, argv, argc) || strcmp(report, "vs") == 0) {
                abort();
            }
        }
        const char *const files[] = {o.json, o.markdown, o.html};
        for (size_t f = 0; r == CLI_PARSE_OK && f < 3; f++) {
            if (files[f] && (!files[f][0] || !points_into(files[f], argv, argc))) {
                abort();
            }
        }
    } else if (data[0] & 1) {
        cli_demo_options o;
        r = cli_parse_demo_args(argc, argv, &o, error, sizeof error);
        if (r == CLI_PARSE_OK && (o.iterations < 1 || !(o.timeout_s > 0) || !isfinite(o.timeout_s) ||
                                  o.model.layers < 1 || o.model.max_seq < 1)) {
            abort();
        }
        if (r == CLI_PARSE_OK) {
            check_files(o.files, argv, argc);
        }
    } else {
        cli_run_options o;
        r = cli_parse_run_args(argc, argv, &o, error, sizeof error);
        if (r == CLI_PARSE_OK &&
            (!o.spec || !points_into(o.spec, argv, argc) || o.warmup < 0 || o.iterations < 1 ||
             !(o.timeout_s > 0) || !isfinite(o.timeout_s) || o.max_dispatches < 1 ||
             o.allow_path_count > CLI_MAX_ALLOW_PATHS || o.peak_gbps < 0 || o.peak_gflops < 0)) {
            abort();
        }
        if (r == CLI_PARSE_OK) {
            check_files(o.files, argv, argc);
            for (size_t i = 0; i < o.allow_path_count; i++) {
                if (!points_into(o.allow_paths[i], argv, argc)) {
                    abort();
                }
            }
        }
    }
    if (r != CLI_PARSE_OK && r != CLI_PARSE_HELP && r != CLI_PARSE_ERROR) {
        abort();
    }
    /* A refusal says why, in a terminated message. */
    if (r == CLI_PARSE_ERROR && (error[0] == '\0' || error[0] == 0x7f || memchr(error, '\0', sizeof error) == NULL)) {
        abort();
    }
    free(text);
    return 0;
}
