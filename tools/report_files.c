/* Writing reports: the table on stdout, and each requested file through FILE.tmp and a rename,
 * so that a file is either untouched or a whole new report, never a partial one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_write_report_file(const wgprof_report_desc *report, wgprof_format format, const char *path)
{
    size_t n = strlen(path) + sizeof ".tmp";
    char *tmp = malloc(n);
    if (!tmp) {
        return cli_fail("writing a report", WGPROF_ERR_OUT_OF_MEMORY);
    }
    snprintf(tmp, n, "%s.tmp", path);
    int code = CLI_OK;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "wgprof: cannot write '%s': %s\n", tmp, strerror(errno));
        code = CLI_FAILED;
    } else {
        wgprof_status s = wgprof_report_write(report, format, f);
        bool closed = fclose(f) == 0;
        if (s != WGPROF_OK || !closed || rename(tmp, path) != 0) {
            fprintf(stderr, "wgprof: cannot write '%s': %s\n", path,
                    s != WGPROF_OK ? wgprof_status_str(s) : strerror(errno));
            remove(tmp);
            code = CLI_FAILED;
        }
    }
    free(tmp);
    return code;
}

int cli_write_reports(const wgprof_report_desc *report, const char *const files[WGPROF_FORMAT_HTML + 1],
                      FILE *table)
{
    int code = CLI_OK;
    if (table) {
        wgprof_status s = wgprof_report_write(report, WGPROF_FORMAT_TABLE, table);
        if (s != WGPROF_OK) {
            code = cli_fail("printing the table", s);
        }
    }
    for (int f = 0; f <= WGPROF_FORMAT_HTML; f++) {
        if (files[f] && cli_write_report_file(report, (wgprof_format)f, files[f]) != CLI_OK) {
            code = CLI_FAILED;
        }
    }
    return code;
}
