/* Shared by the wgprof subcommands: exit codes, the stderr logger and messages (cli_util.c),
 * warm-up and measured iterations (cli_iterations.c), report files (report_files.c), the
 * comparison with a baseline (cmd_diff.c), and the commands main.c dispatches to (cmd_*.c).
 * Public API only. */
#ifndef WGPROF_CLI_H
#define WGPROF_CLI_H

#include <wgprof/device_util.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include <wgprof/wgprof.h>

#include "diff.h"
#include "common.h"
#include "demo.h"

/* Exit codes: 0 ok, 1 failed at run time, 2 bad usage or input, 3 timed out. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_TIMEOUT = 3 };

/* Installs a logger printing warnings and errors (and more with WGPROF_LOG=debug) to stderr,
 * for wgprof's messages and for libwayland-client's (see cli_util.c). */
void cli_install_logger(void);

/* The signal dispositions and mask wgprof was started with: saved first thing in main(), before
 * wgprof ignores SIGPIPE for itself, and handed back to a program wgprof runs (record) between
 * fork and exec, so that it starts as it would without wgprof. The restore is
 * async-signal-safe. */
void cli_signals_save(void);
void cli_signals_restore(void);

/* Selects the WebGPU implementation wgprof loads (webgpu_loader_select of common.h; NULL: the
 * default). Prints why it cannot and returns CLI_USAGE for a name or path that is not one,
 * CLI_FAILED for one that cannot be loaded. */
int cli_select_webgpu(const char *choice);

/* Seconds on CLOCK_MONOTONIC, for how long a command's work or wait lasts. */
double cli_now_s(void);

/* Prints "wgprof: <what>: <status>" to stderr and returns the exit code for `s`. */
int cli_fail(const char *what, wgprof_status s);

/* Prints a message on stderr, with a newline, every control character but the line breaks
 * escaped: messages carry text from the command line and from specs. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Checks, before any GPU work, that each report file asked for in files[format] can be written
 * and is none of the run's inputs (out_check() of common/common.h). Prints why and returns
 * CLI_USAGE when one cannot. */
int cli_check_report_files(const char *command, const char *const files[WGPROF_FORMAT_COUNT],
                           const out_input *inputs, size_t input_count);
/* Writes `report` in `format` to `path` (common/common.h); prints why on failure. */
int cli_write_report_file(const wgprof_report_desc *report, wgprof_format format, const char *path);
/* The table to `table` (NULL: none), then each format whose files[format] is set. */
int cli_write_reports(const wgprof_report_desc *report, const char *const files[WGPROF_FORMAT_COUNT],
                      FILE *table);

/* What cli_execute_iterations() asked for and what completed. */
typedef struct cli_iterations {
    long warmup, iterations; /* asked for */
    long warmed, measured;   /* completed */
    double measured_s;       /* wall time of the measured executes, each waited for */
    wgprof_status status;    /* the first failure, else WGPROF_OK */
} cli_iterations;

/* Executes `graph` `warmup` times, drops what those executes recorded (wgprof_pool_reset), then
 * executes it `iterations` times; stops at the first failure. `command` ("run", "demo") names
 * the progress line. */
cli_iterations cli_execute_iterations(const char *command, wgprof_graph *graph, long warmup, long iterations);
/* The messages for an execute that timed out: which iteration (warm-up or measured) of how
 * many, and that nothing is reported when no measured iteration completed. */
void cli_error_timed_out(const char *command, const cli_iterations *r, double timeout_s);

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_demo(int argc, char **argv);
/* `webgpu`: the --webgpu given before the command, or NULL. */
int cmd_record(int argc, char **argv, const char *webgpu);
int cmd_diff(int argc, char **argv);

/* --baseline FILE of run, demo and record (cmd_diff.c): the report is read before the run, which
 * a report it cannot read stops (the exit code returned; the message printed, naming
 * `command`), and `input` names it for the checks of the run's output files. After the run,
 * the comparison, with wgprof diff's defaults, is printed on `out`: from the run's own report
 * (`report`, written to memory), or from a JSON report file (`path`, named `name`). A run without
 * timings gives a message, no comparison, and CLI_OK. */
int cli_baseline_load(const char *command, const char *path, diff_profile *baseline, out_input *input);
int cli_baseline_compare_report(const char *command, const diff_profile *baseline, const wgprof_report_desc *report,
                                FILE *out);
int cli_baseline_compare_file(const char *command, const diff_profile *baseline, const char *path, const char *name,
                              FILE *out);

/* ---- cli_args.c ---- */

/*
 * The options of `wgprof run`, `wgprof demo` and `wgprof diff`, parsed apart from running them: the parsers do
 * no I/O (a message goes into `error`), touch no device, allocate nothing and keep pointers into
 * argv, so that a fuzzer can drive them (sources: cli_args.c; link: libwgprof, for
 * wgprof_strategy_from_str).
 */

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
    bool reference; /* --reference: wgprof's reference kernel in every iteration (spec.h) */
    const char *files[WGPROF_FORMAT_COUNT]; /* by format; NULL: not asked for */
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
    const char *files[WGPROF_FORMAT_COUNT]; /* by format; NULL: not asked for */
    bool quiet;
    double timeout_s;
    bool shader_checks_given; /* --shader-checks was given: the reports name it */
    const char *baseline;     /* --baseline: a JSON report to compare the run with */
} cli_demo_options;

/* The most reports on one side of `wgprof diff` (diff/diff.h's DIFF_MAX_RUNS). */
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
    bool allow_partial;           /* --allow-partial: compare a partial report, flagged */
    size_t set;                   /* --set K: each report's result set K (from 1); 0: the one there is */
    bool gate_common;             /* --gate-common: --fail-if-slower gates the common change too */
    bool gate_both_ways;          /* --gate-both-ways: where which of two groups changed is too close
                                     to call, --fail-if-slower reads it both ways */
} cli_diff_options;

extern const char cli_run_usage[];
extern const char cli_demo_usage[];
extern const char cli_diff_usage[];
extern const char cli_diff_usage_method[]; /* printed after cli_diff_usage */

/* argv[0] is the command's name ("run", "demo") and is skipped. `*out` is filled with the
 * defaults, then the flags. */
cli_parse_result cli_parse_run_args(int argc, char *const *argv, cli_run_options *out, char *error, size_t error_cap);
cli_parse_result cli_parse_demo_args(int argc, char *const *argv, cli_demo_options *out, char *error,
                                     size_t error_cap);
cli_parse_result cli_parse_diff_args(int argc, char *const *argv, cli_diff_options *out, char *error,
                                     size_t error_cap);

#endif
