/*
 * wgprof_common: what several of wgprof's products share, below all of them (docs/architecture.md).
 * Files the user names, opened and written safely (output_file.c, file_open.c); what kind of
 * JSON value a reader met (json_kind.c); an entry point's @workgroup_size read from WGSL
 * (wgsl_workgroup.c); text from a file shown on a terminal (text_escape.c); and, in the target
 * wgprof_webgpu_loader, which WebGPU implementation wgprof's own programs load (webgpu_loader.c).
 * Nothing here calls libwgprof or another product.
 */
#ifndef WGPROF_COMMON_H
#define WGPROF_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* ---- output_file.c ---- */

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

/* ---- json_kind.c ---- */

/* What kind of JSON value a jansson value is, as an error message names it ("an array"): for
 * the readers of specs (spec_parse.c) and reports (diff_load.c). */

const char *json_kind(const json_t *v);

/* ---- wgsl_workgroup.c ---- */

/*
 * Reading a WGSL entry point's @workgroup_size from its source (wgsl_workgroup.c).
 */

/* A pipeline constant (an override's value). */
typedef struct wgsl_constant {
    char *name;
    double value;
} wgsl_constant;

/* Reads @workgroup_size(x, y, z) of entry point `entry` in `source`: integer literals, or
 * overrides resolved with `constants` and the overrides' defaults. False, with the reason in
 * `why`, when it cannot: an expression, say. Missing components are 1. */
bool wgsl_workgroup_size(const char *source, const char *entry, const wgsl_constant *constants, size_t constant_count,
                         uint32_t out[3], char *why, size_t cap);

/* ---- webgpu_loader.c ---- */

/*
 * Choosing the WebGPU implementation a wgprof program runs on, at run time. The wgprof
 * programs (the CLI, the tests, the benchmarks) link no implementation: they load one here,
 * with its symbols global, before their first WebGPU call, and every wgpu* call of the program
 * and of libwgprof then resolves to it (lazy binding). libwgprof itself never loads one; an
 * application that links its implementation does not need this.
 *
 * Not thread-safe: call it from main() before any thread starts.
 */

/* The names webgpu_loader_select() knows, in the order it tries them when none is asked for. */
extern const char *const webgpu_loader_names[];

/* Loads `choice`: "wgpu-native", "dawn", or a path to an implementation's library (it has a
 * '/'). NULL or "" takes WGPROF_WEBGPU from the environment, and where that is unset or empty,
 * the first of webgpu_loader_names found. A name looks beside the installed program (../lib),
 * then in the build's .deps folder, then where the dynamic linker looks. Where the process
 * already has an implementation (linked in), nothing is loaded and a choice must not ask for
 * another. On failure returns false with the reason (every place tried) in `error`. */
bool webgpu_loader_select(const char *choice, char *error, size_t cap);

/* The file the implementation was loaded from; "" before a successful select. */
const char *webgpu_loader_path(void);

/* ---- file_open.c ---- */

/* Opens `path` for reading without waiting on it (a FIFO, a device): returns the descriptor of a
 * regular file of at most `max_bytes` (0: any size) with its size and identity, or -1 with the
 * reason in `why`. */
int file_open_regular(const char *path, uint64_t max_bytes, uint64_t *size, uint64_t *dev, uint64_t *ino, char *why,
                      size_t why_cap);

/* ---- text_escape.c ---- */

/* Copies `text` into `out` with every control character written as an escape (\n, \t, \x1b,
 * and the C1 range \u0080 to \u009f), so that text from a file never reaches a terminal raw;
 * `keep_newlines` leaves line breaks and tabs as they are. Long text is cut with "...". */
void text_escape_terminal(char *out, size_t cap, const char *text, bool keep_newlines);

#endif
