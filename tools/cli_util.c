/* The helpers every wgprof subcommand shares (declared in cli.h): the stderr logger and the
 * failure message. Below both main.c and the cmd_*.c files; it calls neither. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static wgprof_log_level g_level = WGPROF_LOG_WARN;

static void log_stderr(wgprof_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    if (level <= g_level) {
        fprintf(stderr, "%s\n", message);
    }
}

void cli_install_logger(void)
{
    const char *v = getenv("WGPROF_LOG");
    if (v) {
        g_level = strcmp(v, "error") == 0 ? WGPROF_LOG_ERROR
                  : strcmp(v, "info") == 0 ? WGPROF_LOG_INFO
                  : strcmp(v, "debug") == 0 ? WGPROF_LOG_DEBUG
                                            : WGPROF_LOG_WARN;
    }
    wgprof_set_logger(log_stderr, NULL);
}

int cli_fail(const char *what, wgprof_status s)
{
    fprintf(stderr, "wgprof: %s: %s\n", what, wgprof_status_str(s));
    return s == WGPROF_ERR_INVALID_ARGUMENT ? CLI_USAGE : CLI_FAILED;
}
