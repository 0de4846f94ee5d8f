/*
 * Writing a file the user named (a report, a spec's output) without ever leaving it half-written
 * or clobbering something else:
 *
 * - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are this process's open
 *   descriptors: written in place, through a duplicate, never replaced;
 * - a FIFO or a character device (/dev/null, /dev/full, a terminal) is opened and written in
 *   place, never replaced; a FIFO without a reader is waited for at most out_set_wait() seconds;
 * - a regular file, or nothing yet, is written to a new temporary file with a unique name beside
 *   it (`.NAME.XXXXXX`, created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), flushed and synced,
 *   given the mode (and, where allowed, the owner) of the file it replaces, and renamed over the
 *   target only if the target is still absent or a regular file;
 * - a symbolic link is followed, by the same rules, to what it points to: the link stays;
 * - anything else (a folder, a socket, a block device) is refused.
 *
 * Messages name the path as the user gave it (and where a link led, when it did).
 */
#ifndef WGPROF_OUTPUT_FILE_H
#define WGPROF_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum out_kind {
    OUT_DESCRIPTOR, /* an open descriptor of this process, written in place */
    OUT_DEVICE,     /* a FIFO or a character device, written in place */
    OUT_FILE,       /* a regular file or nothing yet: replaced through a temporary file */
} out_kind;

typedef struct out_plan {
    out_kind kind;
    int fd;         /* OUT_DESCRIPTOR */
    char *path;     /* OUT_DEVICE, OUT_FILE: the path written, after following links (owned) */
    bool linked;    /* path came through a symbolic link */
    bool exists;    /* something is there now; dev and ino identify it */
    uint64_t dev, ino;
} out_plan;

/* Writes the content to `f`; false on failure, with the reason in `error` (or left empty when
 * `f` says it: ferror and errno). */
typedef bool (*out_writer)(FILE *f, void *user, char *error, size_t cap);

/* Finds how `path` would be written and checks that it can be: what it leads to is writable
 * (a descriptor open for writing, a device with write permission, or a folder that exists and
 * where files may be created) and is not a folder. No file is created. On failure returns false
 * with the reason, naming `path`, in `error`. Free the plan with out_plan_free(). */
bool out_plan_path(const char *path, out_plan *plan, char *error, size_t cap);
void out_plan_free(out_plan *plan);

/* A file the run reads, which nothing it writes may be. */
typedef struct out_input {
    const char *name; /* for messages: "the spec 'x.json'", "$.kernels[0].wgsl_file 'k.wgsl'" */
    uint64_t dev, ino;
} out_input;

/* out_plan_path(), and then that what `path` leads to is none of `inputs`. */
bool out_check(const char *path, const out_input *inputs, size_t input_count, char *error, size_t cap);

/* Writes `path` by the rules above, calling `write` once. On failure returns false with a
 * message naming `path` in `error`; an existing file is then untouched and no temporary file
 * is left. */
bool out_write(const char *path, out_writer write, void *user, char *error, size_t cap);

/* The longest wait for a reader to open a FIFO written to (default 60 s). */
void out_set_wait(double seconds);

#endif
