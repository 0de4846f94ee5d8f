/* Shared by the wgprof subcommands: exit codes and the stderr logger. Public API only. */
#ifndef WGPROF_CLI_H
#define WGPROF_CLI_H

#include <wgprof/wgprof.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* Installs a logger printing warnings and errors (and more with WGPROF_LOG=debug) to stderr. */
void cli_install_logger(void);

/* Prints "wgprof: <what>: <status>" to stderr and returns the exit code for `s`. */
int cli_fail(const char *what, wgprof_status s);

int cmd_info(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
