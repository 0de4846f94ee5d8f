/*
 * wgprof_common: what several of wgprof's products share, below all of them (docs/architecture.md).
 * Files the user names, opened and written safely (output_file.c, file_open.c); what kind of
 * JSON value a reader met (json_kind.c); an entry point's @workgroup_size read from WGSL
 * (wgsl_workgroup.c); and, in the target wgprof_webgpu_loader, which WebGPU implementation
 * wgprof's own programs load (webgpu_loader.c). Nothing here calls libwgprof or another product.
 *
 * Below libwgprof too: the escaping of every text format (escape.c) is its own target,
 * wgprof_escape, compiled into libwgprof (hidden there) and into wgprof_common, so that the
 * library's report writers and the products write each format by one rule. It includes nothing
 * but the C library's headers, and this header includes nothing more, for the library's sake:
 * jansson's users include <jansson.h> themselves. The HTML pages' shared stylesheet and script
 * are below libwgprof the same way (wgprof_page_base).
 */
#ifndef WGPROF_COMMON_H
#define WGPROF_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The row of wgprof's reference kernel (`wgprof run --reference`, spec/spec_reference.c): a fixed
 * kernel in every iteration that no change to the spec touches, which `wgprof diff` reads the
 * machine's speed from (diff/diff_common.c) and leaves out of the total and the geometric mean.
 * Names in parentheses are wgprof's own; a spec's cannot take them. */
#define WGPROF_REFERENCE_KERNEL "(reference)"

/* Where the name of a row of transfer work ("(copy, clear)") comes from, as the recorders tell
 * the reports (wgprof_pool_kernel_source). */
#define WGPROF_WORK_NAME_SOURCE "transfer work between dispatches, by kind"

/* ---- code_hash.c ---- */

/* 64-bit FNV-1a of `data`, continued from `h` (CODE_HASH_OFFSET to start). */
#define CODE_HASH_OFFSET 0xcbf29ce484222325ull
uint64_t code_hash_fnv1a(uint64_t h, const void *data, size_t n);
/* "KIND-xxxxxxxx" (KIND at most 6 characters): what names code nobody named. */
enum { CODE_HASH_NAME_CAP = 16 };
void code_hash_name(char out[CODE_HASH_NAME_CAP], const char *kind, uint64_t h);

/* ---- list_has.c ---- */

/* Whether `item` (not "") is one of the names of `list` (NULL: none), separated by `separator`:
 * "html,trace,csv" with ',', a search path with ':'. */
bool list_has(const char *list, char separator, const char *item);

/* ---- private_folder.c ---- */

/* Opens `path`, a folder another process of ours made and named (with its identity "DEV:INO"),
 * as a descriptor: -1 with the reason in `why` where it is not a folder (a link), not this
 * user's and private, or not the one made. */
int private_folder_open(const char *path, const char *identity, char *why, size_t cap);
/* The N of a result set "PID.N" in the folder `dir` (-1: none; N from *next on), taken by
 * creating PID.N.SUFFIX alone (O_EXCL): a number another image of the process (exec keeps the
 * PID), or another recorder in it, took already is passed over. */
unsigned private_folder_claim(int dir, long pid, const char *suffix, _Atomic unsigned *next);
/* The folder's descriptor held in *fd, opened at the first call and checked at each later one:
 * a program may close every descriptor it did not open and open its own under the same number
 * (a folder of its own, even), so a number that no longer leads to the folder of `identity` is
 * left to the program and the folder opened anew. -1 with the reason in `why` where it cannot be
 * opened (private_folder_open's reasons). Any thread; where two open it at once, one keeps it. */
int private_folder_held(_Atomic int *fd, const char *path, const char *identity, char *why, size_t cap);
/* Creates the empty file `name` in the folder `dir` (a marker: record's PID.N.done), or leaves
 * the one there; false with errno where it cannot. An empty file needs no room for data: it can
 * be made where a full filesystem refuses every write. */
bool private_folder_mark(int dir, const char *name);

/* ---- process_start.c ---- */

/* Process `pid`'s start (clock ticks after the machine's boot, /proc/PID/stat's 22nd field),
 * which a later process given the same number does not share, and whether it still runs (one
 * ended and not yet waited for by its parent does not; `running` may be NULL); false, *start
 * untouched, where there is no such process (or no /proc). */
bool process_start(long pid, unsigned long long *start, bool *running);

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
 * The path is walked one component at a time from "/" or ".", each folder opened under the one
 * before with O_NOFOLLOW and each link followed by hand, so that one rule holds at every
 * component, not only the last: a link in a sticky folder that anyone may write to (/tmp) is
 * followed only when it belongs to this process's user or to the folder's owner (the rule of
 * Linux's fs.protected_symlinks, which wgprof keeps even where the kernel's is off; links the
 * user has elsewhere, a home folder that is a link, are followed). The last folder stays open
 * (out_plan.dir_fd): the temporary file is created, and renamed over the target, within that
 * descriptor, so that a folder on the way swapped for a link after the check cannot redirect the
 * write.
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
    int dir_fd;     /* OUT_DEVICE, OUT_FILE: the folder it is in, opened once (owned; -1: none) */
    char *name;     /* OUT_DEVICE, OUT_FILE: its name in that folder (owned) */
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

struct json_t;
const char *json_kind(const struct json_t *v);

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
 * the first library WGPROF_WEBGPU_PATH lists (colon-separated paths) that loads, else the first
 * of webgpu_loader_names found. A name looks among WGPROF_WEBGPU_PATH's libraries of its file
 * name (libwgpu_native*, libwebgpu_dawn*), beside the installed program (../lib), in the build's
 * .deps folder (none in a wheel's build), then where the dynamic linker looks. Where the process
 * already has an implementation (linked in), nothing is loaded and a choice must not ask for
 * another. On failure returns false with the reason (every place tried) in `error`. */
bool webgpu_loader_select(const char *choice, char *error, size_t cap);

/* The file the implementation was loaded from; "" before a successful select. */
const char *webgpu_loader_path(void);

/* ---- file_open.c ---- */

/* One component of a path walked by hand (file_open_beneath, out_plan_path): `at`'s leading
 * slashes skipped, the component's text (`len` bytes at `name`, 0 for a trailing '/'), what
 * follows it with its slashes skipped, and whether it is the last. */
typedef struct path_part {
    const char *name;
    size_t len;
    const char *rest;
    bool last;
} path_part;
path_part path_part_at(const char *at);

/* Opens `path` for reading without waiting on it (a FIFO, a device): returns the descriptor of a
 * regular file of at most `max_bytes` (0: any size) with its size and identity, or -1 with the
 * reason in `why`. */
int file_open_regular(const char *path, uint64_t max_bytes, uint64_t *size, uint64_t *dev, uint64_t *ino, char *why,
                      size_t why_cap);

/*
 * A path checked and opened in one operation. A folder whose contents someone else controls (a
 * spec's folder: its owner may swap a subfolder for a symbolic link at any moment) is opened
 * once, as a descriptor, and every path under it is opened relative to that descriptor, beneath
 * it: no component may be a symbolic link, "..", or absolute. With openat2() that is
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; where the kernel lacks it (before Linux 5.6) or a
 * sandbox refuses it, the same walk is made by hand, each component opened with O_NOFOLLOW
 * under the one before. A path checked by name (realpath) and then opened by name can be
 * redirected between the two; one opened this way cannot.
 */

/* Opens `path` beneath the folder `dirfd` with open() `flags` (O_CLOEXEC added); -1 with errno,
 * EXDEV or ELOOP where a component is "..", absolute or a symbolic link. */
int file_open_beneath(int dirfd, const char *path, int flags);

/* file_open_regular() of `path` relative to `dirfd`: beneath it as file_open_beneath() opens, or
(`beneath` false) as openat() does, links followed. */
int file_open_regular_at(int dirfd, const char *path, bool beneath, uint64_t max_bytes, uint64_t *size,
                         uint64_t *dev, uint64_t *ino, char *why, size_t why_cap);

/* ---- escape.c ---- */

/*
 * Text from users (kernel and scope names, files' contents) written in each format wgprof
 * writes. Nothing here allocates. `s` NULL is "" where the rule says so.
 */

enum {
    WGPROF__ESCAPE_JSON_PLAIN = 0,
    WGPROF__ESCAPE_JSON_IN_SCRIPT = 1 /* also '<', '>' and '&' as \u escapes: safe inside <script> */
};

/* `s` (NULL: "") as a JSON string literal, quotes included; bytes that are not well-formed
 * UTF-8 become U+FFFD, so that the document always parses. */
void wgprof__escape_json_string(FILE *out, const char *s, int flags);
/* The same without the quotes, for a string written in parts. */
void wgprof__escape_json_chars(FILE *out, const char *s, int flags);
/* `size` bytes of JSON text (a whole document, as jansson writes it) with each '<' as \u003c,
 * so that no string in it can end the script element it is embedded in. */
void wgprof__escape_json_in_script(FILE *out, const char *json, size_t size);
/* `s` (NULL: "") as HTML text, safe in element content and in quoted attribute values; bytes
 * that are not UTF-8 become U+FFFD. */
void wgprof__escape_html(FILE *out, const char *s);
/* `s` (NULL: "") as one CSV field (RFC 4180: quoted when it holds a comma or a quote). CSV is
 * printed as often as it is opened: as in the table's cells, control characters (C0, DEL, C1;
 * line breaks and tabs too) and bytes that are not UTF-8 become U+FFFD. A cell that starts
 * with = + - @ tab or CR gets a leading ' so that no spreadsheet runs it. */
void wgprof__escape_csv(FILE *out, const char *s);
/* `s` (NULL: "") as one TSV field: TSV has no quoting; controls (tab and line breaks among
 * them) and bytes that are not UTF-8 as U+FFFD, as CSV's; the same leading ' as CSV's. */
void wgprof__escape_tsv(FILE *out, const char *s);
/* `s` in a Markdown table cell: the characters that format Markdown or end a cell escaped with
 * a backslash; control characters, line breaks and bidirectional controls as spaces. */
void wgprof__escape_markdown(FILE *out, const char *s);

/* Terminal text, three ways. A table cell of the library's table report: `s` (NULL: "") with
 * control characters and bytes that are not UTF-8 as U+FFFD; then spaces up to `width`
 * characters (0: none). */
void wgprof__escape_terminal_cell(FILE *out, const char *s, int width);
/* A name shown in `wgprof diff`'s table: every control character (C0, DEL, C1 in UTF-8) as \xNN
 * or \uNNNN and the bidirectional controls as \uNNNN, so that a name can neither move the
 * cursor nor reorder the line, and what it was stays readable; padded with spaces to `width`
 * bytes. */
void wgprof__escape_terminal_shown(FILE *out, const char *s, size_t width);
/* A message's quote of a file: `text` copied into `out` with every control character written as
 * an escape (\n, \t, \x1b, and the C1 range \u0080 to \u009f); `keep_newlines` leaves line
 * breaks and tabs as they are. Long text is cut with "...". */
void wgprof__escape_terminal_copy(char *out, size_t cap, const char *text, bool keep_newlines);

/* ---- page/base.css, page/base.js (target wgprof_page_base) ---- */

/* What both HTML pages share (the library's report and `wgprof diff --html`), embedded at build
 * time (cmake/embed_text.cmake): the stylesheet, written before a page's own in its style
 * element, and the script, written before a page's own in its script element, where it defines
 * wgprofPage (element(), us(), rendered(), DOT) for that page's script. Each is the file's bytes
 * and a '\0'; the size leaves the '\0' out. */
extern const char wgprof__page_base_css[];
extern const size_t wgprof__page_base_css_size;
extern const char wgprof__page_base_js[];
extern const size_t wgprof__page_base_js_size;

#endif
