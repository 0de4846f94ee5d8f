/*
 * wgprof: the command-line tool. Subcommands live one per file; this file parses the first
 * word and prints the help. The helpers the subcommands share are in cli_util.c.
 *
 * Around every command: standard output must be open (else whatever is opened first would take
 * its number, and the table would land in that file), a write error on it (a full disk, a
 * closed pipe) fails the command, and a command that timed out leaves without waiting for a
 * device that may still be busy.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"

static const char usage[] =
    "usage: wgprof [--webgpu IMPLEMENTATION] <command> [options]\n"
    "\n"
    "Per-dispatch GPU timing for WebGPU compute work.\n"
    "\n"
    "commands:\n"
    "  info      print the adapter, its timestamp support and period (--json for machines)\n"
    "  demo      run a transformer decode step on the GPU, check it against the CPU, and\n"
    "            print per-kernel timings when profiling is on\n"
    "  run       profile the WGSL kernels a spec file describes ('wgprof run --help')\n"
    "  record    run an unmodified program and time its dispatches ('wgprof record --help')\n"
    "  diff      compare two JSON reports: per kernel, the change of the median GPU time, its\n"
    "            confidence interval and a verdict; gate CI on it ('wgprof diff --help')\n"
    "  help      print this help; 'wgprof <command> --help' for a command's options\n"
    "  version   print the version\n"
    "\n"
    "  --webgpu wgpu-native|dawn|PATH   the WebGPU implementation to run on (default: WGPROF_WEBGPU,\n"
    "            else the first of wgpu-native and dawn found); PATH names its library\n"
    "\n"
    "environment:\n"
    "  WEBGPU_TIMESTAMP_QUERY=1     turn profiling on (unset or 0: off)\n"
    "  WGPROF_STRATEGY=auto|pass|inside|chain   how dispatches are bracketed (default auto)\n"
    "  WGPROF_DISABLE_TIMESTAMPS=1  create the device without timestamp features\n"
    "  WGPROF_LOG=error|warn|info|debug   what the library logs to stderr (default warn)\n"
    "  WGPROF_WEBGPU=wgpu-native|dawn|PATH   as --webgpu\n"
    "\n"
    "exit status: 0 success, 1 failed at run time (a WebGPU failure, a file or stdout that could\n"
    "not be written), 2 bad usage or input, 3 timed out (--timeout)\n";

/* Takes `--webgpu X` (or `--webgpu=X`) from before the command, shifting it out of argv. */
static int take_webgpu_option(int *argc, char **argv, const char **choice)
{
    if (*argc < 2 || strncmp(argv[1], "--webgpu", 8) != 0 || (argv[1][8] != '\0' && argv[1][8] != '=')) {
        return CLI_OK;
    }
    int used = 1;
    if (argv[1][8] == '=') {
        *choice = argv[1] + 9;
    } else if (*argc >= 3) {
        *choice = argv[2];
        used = 2;
    } else {
        cli_error("wgprof: --webgpu needs a value: wgpu-native, dawn, or a path to a WebGPU library");
        return CLI_USAGE;
    }
    if (!(*choice)[0]) {
        cli_error("wgprof: --webgpu needs a value: wgpu-native, dawn, or a path to a WebGPU library");
        return CLI_USAGE;
    }
    memmove(argv + 1, argv + 1 + used, (size_t)(*argc - 1 - used + 1) * sizeof *argv); /* with argv[argc] */
    *argc -= used;
    return CLI_OK;
}

/* Commands that touch the GPU load the implementation first; help and version do not. record
 * loads it itself once it has read its options, among which --webgpu may be. */
static bool needs_webgpu(const char *cmd)
{
    return strcmp(cmd, "info") == 0 || strcmp(cmd, "run") == 0 || strcmp(cmd, "demo") == 0;
}

static int run_command(int argc, char **argv)
{
    const char *webgpu = NULL;
    int rc = take_webgpu_option(&argc, argv, &webgpu);
    if (rc != CLI_OK) {
        return rc;
    }
    if (argc >= 2 && needs_webgpu(argv[1])) {
        rc = cli_select_webgpu(webgpu);
        if (rc != CLI_OK) {
            return rc;
        }
    }
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("wgprof %s\n", wgprof_version());
        return CLI_OK;
    }
    if (strcmp(cmd, "info") == 0) {
        return cmd_info(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "run") == 0) {
        return cmd_run(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "demo") == 0) {
        return cmd_demo(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "record") == 0) {
        return cmd_record(argc - 1, argv + 1, webgpu);
    }
    if (strcmp(cmd, "diff") == 0) {
        return cmd_diff(argc - 1, argv + 1);
    }
    cli_error("wgprof: unknown command '%s'\n", cmd);
    fputs(usage, stderr);
    return CLI_USAGE;
}

/* Whether descriptor `fd` is open. */
static bool fd_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

int main(int argc, char **argv)
{
    /* Before anything below changes them: a program that record runs gets them back. */
    cli_signals_save();
    /* A closed stdin or stderr is given /dev/null, so that no file opened later takes its number. */
    for (int fd = 0; fd <= 2; fd += 2) {
        if (!fd_open(fd)) {
            int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (null >= 0 && null != fd) {
                close(null); /* a lower number was free: that one is not ours to fill */
            }
        }
    }
    if (!fd_open(STDOUT_FILENO)) {
        fputs("wgprof: standard output is closed; redirect it to /dev/null to discard what wgprof prints\n", stderr);
        return CLI_FAILED;
    }
    /* A reader that goes away (a pipe, a FIFO) gives EPIPE and a message, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    cli_install_logger();
    int rc = run_command(argc, argv);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno ? errno : EIO;
        fprintf(stderr, "wgprof: cannot write to standard output: %s\n", strerror(e));
        rc = rc == CLI_OK ? CLI_FAILED : rc;
    }
    if (rc == CLI_TIMEOUT) {
        /* The device may still run the work that did not end: leave at once, without the exit
         * handlers of the driver, which would wait for it. */
        fflush(stderr);
        _exit(rc);
    }
    return rc;
}
