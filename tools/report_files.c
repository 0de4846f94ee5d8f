/* Writing reports: the table on stdout, and each requested file through output_file.c, so that a
 * file is either untouched or a whole new report, never a partial one, and nothing but the file
 * named (or what its link points to) is ever written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const flag_of[WGPROF_FORMAT_HTML + 1] = {
    [WGPROF_FORMAT_TABLE] = "the table", [WGPROF_FORMAT_TSV] = "--tsv",     [WGPROF_FORMAT_CSV] = "--csv",
    [WGPROF_FORMAT_CSV_SUMMARY] = "--csv-summary", [WGPROF_FORMAT_JSON] = "--json", [WGPROF_FORMAT_TRACE] = "--trace",
    [WGPROF_FORMAT_HTML] = "--html",
};

static const char *flag_name(int format)
{
    return format >= 0 && format <= WGPROF_FORMAT_HTML && flag_of[format] ? flag_of[format] : "a report";
}

int cli_check_report_files(const char *command, const char *const files[WGPROF_FORMAT_HTML + 1],
                           const out_input *inputs, size_t input_count)
{
    for (int f = 0; f <= WGPROF_FORMAT_HTML; f++) {
        char why[4096];
        if (files[f] && !out_check(files[f], inputs, input_count, why, sizeof why)) {
            cli_error("wgprof %s: %s %s: %s", command, flag_name(f), files[f], why);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

typedef struct report_job {
    const wgprof_report_desc *report;
    wgprof_format format;
    const char *shader_checks; /* NULL: not named */
} report_job;

/* The report with the shader checks named: written to memory first, then copied with the note
 * put in its place (the end of the table's first line; the JSON object's first key). Formats
 * without a header are copied as they are. */
static wgprof_status write_noted(const report_job *job, FILE *f)
{
    char *text = NULL;
    size_t length = 0;
    FILE *memory = open_memstream(&text, &length);
    if (!memory) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    wgprof_status s = wgprof_report_write(job->report, job->format, memory);
    if (fclose(memory) != 0 && s == WGPROF_OK) {
        s = WGPROF_ERR_OUT_OF_MEMORY;
    }
    if (s == WGPROF_OK) {
        const char *newline = memchr(text, '\n', length);
        size_t head = newline ? (size_t)(newline - text) : length;
        if (job->format == WGPROF_FORMAT_TABLE) {
            fwrite(text, 1, head, f);
            fprintf(f, " | shader checks %s", job->shader_checks);
            fwrite(text + head, 1, length - head, f);
        } else if (job->format == WGPROF_FORMAT_JSON && head == 1 && text[0] == '{') {
            fprintf(f, "{\n  \"shader_checks\": \"%s\",", job->shader_checks); /* a fixed name: no escaping */
            fwrite(text + 1, 1, length - 1, f);
        } else {
            fwrite(text, 1, length, f);
        }
        if (ferror(f)) {
            s = WGPROF_ERR_IO;
        }
    }
    free(text);
    return s;
}

static bool write_report(FILE *f, void *user, char *error, size_t cap)
{
    const report_job *job = user;
    wgprof_status s = job->shader_checks ? write_noted(job, f) : wgprof_report_write(job->report, job->format, f);
    if (s != WGPROF_OK && !ferror(f)) {
        snprintf(error, cap, "%s", wgprof_status_str(s));
    }
    return s == WGPROF_OK;
}

int cli_write_report_file(const wgprof_report_desc *report, wgprof_format format, const char *path,
                          const char *shader_checks)
{
    report_job job = {report, format, shader_checks};
    char why[4096];
    if (!out_write(path, write_report, &job, why, sizeof why)) {
        cli_error("wgprof: %s: %s", flag_name((int)format), why);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_write_reports(const wgprof_report_desc *report, const char *const files[WGPROF_FORMAT_HTML + 1],
                      FILE *table, const char *shader_checks)
{
    int code = CLI_OK;
    if (table) {
        report_job job = {report, WGPROF_FORMAT_TABLE, shader_checks};
        wgprof_status s = shader_checks ? write_noted(&job, table) : wgprof_report_write(report, WGPROF_FORMAT_TABLE, table);
        if (s != WGPROF_OK) {
            code = cli_fail("printing the table", s);
        }
    }
    for (int f = 0; f <= WGPROF_FORMAT_HTML; f++) {
        if (files[f] && cli_write_report_file(report, (wgprof_format)f, files[f], shader_checks) != CLI_OK) {
            code = CLI_FAILED;
        }
    }
    return code;
}
