/* Writing reports: the table on stdout, and each requested file through output_file.c, so that a
 * file is either untouched or a whole new report, never a partial one, and nothing but the file
 * named (or what its link points to) is ever written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* How a message names the report of `format`: its option ("--json"). */
static void flag_name(int format, char *out, size_t cap)
{
    const char *name = wgprof_format_name((wgprof_format)format);
    if (format == WGPROF_FORMAT_TABLE || !name) {
        snprintf(out, cap, "%s", name ? "the table" : "a report");
    } else {
        snprintf(out, cap, "--%s", name);
    }
}

int cli_check_report_files(const char *command, const char *const files[WGPROF_FORMAT_COUNT],
                           const out_input *inputs, size_t input_count)
{
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        char why[4096];
        if (files[f] && !out_check(files[f], inputs, input_count, why, sizeof why)) {
            char flag[32];
            flag_name(f, flag, sizeof flag);
            cli_error("wgprof %s: %s %s: %s", command, flag, files[f], why);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

typedef struct report_job {
    const wgprof_report_desc *report;
    wgprof_format format;
} report_job;

static bool write_report(FILE *f, void *user, char *error, size_t cap)
{
    const report_job *job = user;
    wgprof_status s = wgprof_report_write(job->report, job->format, f);
    if (s != WGPROF_OK && !ferror(f)) {
        snprintf(error, cap, "%s", wgprof_status_str(s));
    }
    return s == WGPROF_OK;
}

int cli_write_report_file(const wgprof_report_desc *report, wgprof_format format, const char *path)
{
    report_job job = {report, format};
    char why[4096];
    if (!out_write(path, write_report, &job, why, sizeof why)) {
        char flag[32];
        flag_name((int)format, flag, sizeof flag);
        cli_error("wgprof: %s: %s", flag, why);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_write_reports(const wgprof_report_desc *report, const char *const files[WGPROF_FORMAT_COUNT],
                      FILE *table)
{
    int code = CLI_OK;
    if (table) {
        wgprof_status s = wgprof_report_write(report, WGPROF_FORMAT_TABLE, table);
        if (s != WGPROF_OK) {
            code = cli_fail("printing the table", s);
        }
    }
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        if (files[f] && cli_write_report_file(report, (wgprof_format)f, files[f]) != CLI_OK) {
            code = CLI_FAILED;
        }
    }
    return code;
}
