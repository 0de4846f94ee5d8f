/* Shared by the wgprof subcommands: exit codes and the stderr logger (cli_util.c), report files
 * (report_files.c), and the commands main.c dispatches to (cmd_*.c). Public API only. */
#ifndef WGPROF_CLI_H
#define WGPROF_CLI_H

#include <stdio.h>

#include <wgprof/wgprof.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* Installs a logger printing warnings and errors (and more with WGPROF_LOG=debug) to stderr. */
void cli_install_logger(void);

/* Prints "wgprof: <what>: <status>" to stderr and returns the exit code for `s`. */
int cli_fail(const char *what, wgprof_status s);

/* Writes `report` in `format` to `path` through path.tmp and a rename; prints why on failure. */
int cli_write_report_file(const wgprof_report_desc *report, wgprof_format format, const char *path);
/* The table to `table` (NULL: none), then each format whose files[format] is set. */
int cli_write_reports(const wgprof_report_desc *report, const char *const files[WGPROF_FORMAT_HTML + 1],
                      FILE *table);

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
