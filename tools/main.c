/*
 * wgprof: the command-line tool. Subcommands live one per file; this file parses the first
 * word and prints the help. The helpers the subcommands share are in cli_util.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: wgprof <command> [options]\n"
    "\n"
    "Per-dispatch GPU timing for WebGPU compute work.\n"
    "\n"
    "commands:\n"
    "  info      print the adapter, its timestamp support and period (--json for machines)\n"
    "  demo      run a transformer decode step on the GPU, check it against the CPU, and\n"
    "            print per-kernel timings when profiling is on\n"
    "  run       profile the WGSL kernels a spec file describes ('wgprof run --help')\n"
    "  help      print this help; 'wgprof <command> --help' for a command's options\n"
    "  version   print the version\n"
    "\n"
    "environment:\n"
    "  WEBGPU_TIMESTAMP_QUERY=1     turn profiling on (unset or 0: off)\n"
    "  WGPROF_STRATEGY=auto|pass|inside|chain   how dispatches are bracketed (default auto)\n"
    "  WGPROF_DISABLE_TIMESTAMPS=1  create the device without timestamp features\n"
    "  WGPROF_LOG=error|warn|info|debug   what the library logs to stderr (default warn)\n"
    "\n"
    "exit status: 0 success, 1 the work failed, 2 bad usage or input\n";

int main(int argc, char **argv)
{
    cli_install_logger();
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
    fprintf(stderr, "wgprof: unknown command '%s'\n\n%s", cmd, usage);
    return CLI_USAGE;
}
