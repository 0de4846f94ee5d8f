/* The helpers every wgprof subcommand shares (declared in cli.h): the stderr logger, the
 * messages, the choice of the WebGPU implementation, and the signal state wgprof started with.
 * Below both main.c and the cmd_*.c files; it calls neither. */
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static wgprof_log_level g_level = WGPROF_LOG_WARN;

static void log_stderr(wgprof_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    if (level <= g_level) {
        cli_error("%s", message); /* messages may quote labels from a spec */
    }
}

int cli_select_webgpu(const char *choice)
{
    char error[2048];
    if (!webgpu_loader_select(choice, error, sizeof error)) {
        cli_error("wgprof: %s", error);
        /* A name or path that is not one is bad usage; one that cannot be loaded a failure. */
        return strstr(error, ": expected wgpu-native") ? CLI_USAGE : CLI_FAILED;
    }
    return CLI_OK;
}

/* libwayland-client's messages, at debug level. Mesa's device-selection Vulkan layer asks
 * libwayland for a display while the adapters are listed whenever the instance enables the
 * Wayland surface extension, which wgpu does on every Vulkan instance; without XDG_RUNTIME_DIR
 * libwayland then prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on
 * stderr (twice: the list is asked for twice) and the layer goes on without a display. Newer
 * Mesa skips the probe where WAYLAND_DISPLAY is unset; Mesa 22 does not. wgprof never draws:
 * nothing libwayland says is an error of the run. */
static void log_wayland(const char *fmt, va_list args)
{
    if (g_level < WGPROF_LOG_DEBUG) {
        return;
    }
    char text[1024];
    vsnprintf(text, sizeof text, fmt, args);
    text[strcspn(text, "\n")] = '\0';
    cli_error("wgprof: libwayland: %s", text);
}

/* The handler lives in libwayland-client, loaded here if it is on the system: the layer links
 * the same library, so it sees the handler set. Where it is absent nothing can print. */
static void route_wayland_log(void)
{
    void *lib = dlopen("libwayland-client.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        return;
    }
    void (*set_handler)(void (*)(const char *, va_list)) = NULL;
    *(void **)&set_handler = dlsym(lib, "wl_log_set_handler_client");
    if (set_handler) {
        set_handler(log_wayland);
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
    route_wayland_log();
}

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
    wgprof__escape_terminal_copy(shown, CAP, raw, true);
    fprintf(stderr, "%s\n", shown);
    free(raw);
    free(shown);
}

/* Index 0 unused; a signal the C library keeps for itself (sigaction refuses it) is not saved. */
static struct sigaction g_start_actions[NSIG];
static bool g_start_saved[NSIG];
static sigset_t g_start_mask;
static bool g_start_mask_saved;

void cli_signals_save(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        g_start_saved[sig] = sigaction(sig, NULL, &g_start_actions[sig]) == 0;
    }
    g_start_mask_saved = sigprocmask(SIG_BLOCK, NULL, &g_start_mask) == 0;
}

void cli_signals_restore(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        if (g_start_saved[sig] && sig != SIGKILL && sig != SIGSTOP) {
            sigaction(sig, &g_start_actions[sig], NULL);
        }
    }
    if (g_start_mask_saved) {
        sigprocmask(SIG_SETMASK, &g_start_mask, NULL);
    }
}
