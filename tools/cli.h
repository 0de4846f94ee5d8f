/* Shared by the wgprof subcommands: exit codes, the stderr logger and messages (cli_util.c),
 * report files (report_files.c), and the commands main.c dispatches to (cmd_*.c). Public API
 * only. */
#ifndef WGPROF_CLI_H
#define WGPROF_CLI_H

#include <stdio.h>

#include <wgprof/wgprof.h>

#include "output_file.h"

/* Exit codes: 0 ok, 1 failed at run time, 2 bad usage or input, 3 timed out. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_TIMEOUT = 3 };

/* Installs a logger printing warnings and errors (and more with WGPROF_LOG=debug) to stderr. */
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

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
