/* The helpers every wgprof subcommand shares (declared in cli.h): the stderr logger and the
 * messages. Below both main.c and the cmd_*.c files; it calls neither. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spec.h"

static wgprof_log_level g_level = WGPROF_LOG_WARN;

static void log_stderr(wgprof_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    if (level <= g_level) {
        cli_error("%s", message); /* messages may quote labels from a spec */
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
    cli_error("wgprof: %s: %s", what, wgprof_status_str(s));
    return s == WGPROF_ERR_INVALID_ARGUMENT ? CLI_USAGE : s == WGPROF_ERR_TIMEOUT ? CLI_TIMEOUT : CLI_FAILED;
}

void cli_error(const char *fmt, ...)
{
    enum { CAP = 16384 };
    char *raw = malloc(CAP), *shown = malloc(CAP);
    if (!raw || !shown) {
        free(raw);
        free(shown);
        fputs("wgprof: out of memory printing a message\n", stderr);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, CAP, fmt, ap);
    va_end(ap);
    spec_escape(shown, CAP, raw, true);
    fprintf(stderr, "%s\n", shown);
    free(raw);
    free(shown);
}
