/* One report file from several result sets of `wgprof record` (record_sets.c). Internal to the
 * CLI: cmd_record.c is its one user. */
#ifndef WGPROF_RECORD_SETS_H
#define WGPROF_RECORD_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <wgprof/wgprof.h>

typedef struct record_set_file {
    const char *id;      /* "PID.N" */
    unsigned long pid, device;
    const char *file;    /* its file of the format written, as `open` takes it */
} record_set_file;

typedef struct record_sets {
    const record_set_file *sets; /* in order: by process, then device */
    size_t count;
    FILE *(*open)(void *user, const char *file); /* opens a set's file for reading; NULL: missing */
    void *user;
} record_sets;

/* Writes the sets' files of `format` (JSON, trace, CSV or HTML) as one file of that format into
 * `out`; false where a set's file is missing or unreadable, or `out` failed. */
bool record_sets_write(const record_sets *sets, wgprof_format format, FILE *out);

#endif
