/* Shared by the wgprof subcommands: exit codes, the stderr logger and messages (cli_util.c),
 * warm-up and measured iterations (cli_iterations.c), report files (report_files.c), the
 * comparison with a baseline (cmd_diff.c), and the commands main.c dispatches to (cmd_*.c).
 * Public API only. */
#ifndef WGPROF_CLI_H
#define WGPROF_CLI_H

#include <stdio.h>

#include <wgprof/wgprof.h>

#include "diff.h"
#include "output_file.h"

/* Exit codes: 0 ok, 1 failed at run time, 2 bad usage or input, 3 timed out. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_TIMEOUT = 3 };

/* Installs a logger printing warnings and errors (and more with WGPROF_LOG=debug) to stderr,
 * for wgprof's messages and for libwayland-client's (see cli_util.c). */
void cli_install_logger(void);

/* Prints "wgprof: <what>: <status>" to stderr and returns the exit code for `s`. */
int cli_fail(const char *what, wgprof_status s);

/* Prints a message on stderr, with a newline, every control character but the line breaks
 * escaped: messages carry text from the command line and from specs. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Checks, before any GPU work, that each report file asked for in files[format] can be written
 * and is none of the run's inputs (out_check() of tools/output_file.h). Prints why and returns
 * CLI_USAGE when one cannot. */
int cli_check_report_files(const char *command, const char *const files[WGPROF_FORMAT_HTML + 1],
                           const out_input *inputs, size_t input_count);
/* Writes `report` in `format` to `path` (tools/output_file.h); prints why on failure. */
int cli_write_report_file(const wgprof_report_desc *report, wgprof_format format, const char *path);
/* The table to `table` (NULL: none), then each format whose files[format] is set. */
int cli_write_reports(const wgprof_report_desc *report, const char *const files[WGPROF_FORMAT_HTML + 1],
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
int cmd_record(int argc, char **argv);
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

#endif
