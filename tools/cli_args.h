/*
 * The options of `wgprof run`, `wgprof demo` and `wgprof diff`, parsed apart from running them: the parsers do
 * no I/O (a message goes into `error`), touch no device, allocate nothing and keep pointers into
 * argv, so that a fuzzer can drive them (sources: cli_args.c; link: libwgprof, for
 * wgprof_strategy_from_str).
 */
#ifndef WGPROF_CLI_ARGS_H
#define WGPROF_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wgprof/device_util.h>
#include <wgprof/wgprof.h>

#include "demo_model.h"

typedef enum cli_parse_result {
    CLI_PARSE_OK,    /* go on and run */
    CLI_PARSE_HELP,  /* --help: print the usage on stdout, exit 0 */
    CLI_PARSE_ERROR, /* bad usage: the message is in `error`; exit 2 */
} cli_parse_result;

enum { CLI_MAX_ALLOW_PATHS = 64 };
#define CLI_DEFAULT_TIMEOUT_S 60.0

typedef struct cli_run_options {
    const char *spec;
    long warmup, iterations;
    wgprof_graph_desc graph; /* profiling on; strategy and layout from the flags */
    bool summary_only, quiet;
    const char *files[WGPROF_FORMAT_HTML + 1]; /* by format; NULL: not asked for */
    double peak_gbps, peak_gflops;
    double timeout_s;        /* the longest wait for one iteration's work */
    uint64_t max_dispatches; /* per iteration, counting repeat */
    const char *allow_paths[CLI_MAX_ALLOW_PATHS];
    size_t allow_path_count;
    wgprof_shader_checks shader_checks; /* the runtime checks the kernels are compiled with */
    bool shader_checks_given;           /* --shader-checks was given: the reports name it */
    const char *baseline;               /* --baseline: a JSON report to compare the run with */
} cli_run_options;

typedef struct cli_demo_options {
    demo_config model;
    uint32_t warmup;     /* executes first, not measured */
    uint32_t iterations; /* measured executes */
    const char *files[WGPROF_FORMAT_HTML + 1]; /* by format; NULL: not asked for */
    bool quiet;
    double timeout_s;
    bool shader_checks_given; /* --shader-checks was given: the reports name it */
    const char *baseline;     /* --baseline: a JSON report to compare the run with */
} cli_demo_options;

/* The most reports on one side of `wgprof diff` (tools/diff.h's DIFF_MAX_RUNS). */
#define CLI_DIFF_MAX_RUNS 64

typedef struct cli_diff_options {
    const char *base[CLI_DIFF_MAX_RUNS]; /* the base's reports: one, or several runs */
    size_t base_count;
    const char *new_[CLI_DIFF_MAX_RUNS]; /* the new side's */
    size_t new_count;
    double threshold_pct;         /* --threshold, default 5 */
    double fail_if_slower_pct;    /* --fail-if-slower; < 0 where not given */
    unsigned long long seed;      /* --seed, at most 2^63 - 1 */
    unsigned resamples;           /* --resamples */
    const char *json, *markdown, *html; /* NULL: not asked for */
    bool quiet;                   /* no table on stdout */
} cli_diff_options;

extern const char cli_run_usage[];
extern const char cli_demo_usage[];
extern const char cli_diff_usage[];

/* argv[0] is the command's name ("run", "demo") and is skipped. `*out` is filled with the
 * defaults, then the flags. */
cli_parse_result cli_parse_run_args(int argc, char *const *argv, cli_run_options *out, char *error, size_t error_cap);
cli_parse_result cli_parse_demo_args(int argc, char *const *argv, cli_demo_options *out, char *error,
                                     size_t error_cap);
cli_parse_result cli_parse_diff_args(int argc, char *const *argv, cli_diff_options *out, char *error,
                                     size_t error_cap);

#endif
