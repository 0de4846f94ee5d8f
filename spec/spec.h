/*
 * A workload described in a JSON spec file: buffers, WGSL kernels and an ordered list of
 * dispatches. spec_load() reads and checks the whole file before anything runs; spec_build()
 * makes the GPU objects and the graph, checking what only the GPU can check (WGSL that compiles,
 * bindings that match the shader, limits). Errors name the place: file:line:col for JSON syntax,
 * the JSON path (e.g. $.dispatches[2].kernel) for what is wrong in a valid document.
 */
#ifndef WGPROF_SPEC_H
#define WGPROF_SPEC_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include <wgprof/device_util.h>
#include <wgprof/wgprof.h>

#include "common.h"

/* Limits on what a spec may ask for, checked before anything is read or allocated for it. */
#define SPEC_MAX_BYTES (64ull << 20)      /* the spec file itself */
#define SPEC_MAX_WGSL_BYTES (16ull << 20) /* one wgsl_file */
#define SPEC_DEFAULT_MAX_DISPATCHES 1000000ull /* dispatches per iteration, counting repeat */
#define SPEC_MAX_DISPATCH_FIGURE 1e18 /* a dispatch's "bytes" or "flops" */

/* SPEC_F16 is a struct field's scalar only: a buffer's own type is f32, u32 or i32. */
typedef enum spec_type { SPEC_F32, SPEC_U32, SPEC_I32, SPEC_F16 } spec_type;
typedef enum spec_init {
    SPEC_INIT_ZEROS,
    SPEC_INIT_CONSTANT,
    SPEC_INIT_RANDOM,
    SPEC_INIT_FILE,
    SPEC_INIT_STRUCT
} spec_init;

/* A struct's largest size, the default maxUniformBufferBindingSize: a struct init describes a
 * uniform block of parameters, not bulk data. */
#define SPEC_MAX_STRUCT_BYTES 65536u

/* One field of a struct init: a scalar or vecN of `type`, laid out by WGSL's rules. */
typedef struct spec_field {
    char *name;       /* may be NULL; for messages */
    spec_type type;   /* the scalar */
    uint32_t count;   /* 1 for a scalar, else the vector's 2, 3 or 4 components */
    uint32_t offset;  /* bytes from the buffer's start */
    double value[4];  /* checked to be values of `type` (f16 within its range) */
} spec_field;

typedef struct spec_buffer {
    char *name;
    spec_type type;
    uint64_t size; /* bytes, a multiple of 4 */
    spec_init init;
    double constant;
    uint64_t seed;
    double min, max;
    char *file;    /* SPEC_INIT_FILE: the real path (links resolved) */
    uint64_t file_dev, file_ino; /* SPEC_INIT_FILE: the file read, to find it unchanged at upload */
    spec_field *fields; /* SPEC_INIT_STRUCT: in offset order; the bytes between them are zeros */
    size_t field_count;
} spec_buffer;

typedef wgsl_constant spec_constant; /* an override's value */

typedef struct spec_kernel {
    char *name;
    char *source;  /* WGSL text */
    char *origin;  /* where the source came from, for messages: the wgsl_file as the user would
                      write it (relative to the current folder), or the JSON path of an inline
                      "wgsl" string (e.g. $.kernels[2].wgsl) */
    bool inline_source; /* origin is a JSON path in the spec, not a file */
    char *entry;
    spec_constant *constants;
    size_t constant_count;
    uint32_t workgroup_size[3]; /* given, or read from the source; 0 when unknown */
    char *workgroup_size_why;   /* why it is unknown: said once the shader is known to compile */
} spec_kernel;

/* WebGPU's default minStorageBufferOffsetAlignment and minUniformBufferOffsetAlignment, also
 * the largest value a device may require: an offset that is a multiple of it binds anywhere. */
#define SPEC_BINDING_OFFSET_ALIGNMENT 256u

typedef struct spec_binding {
    uint32_t group;
    uint32_t binding;
    size_t buffer;
    uint64_t offset; /* bytes into the buffer: a multiple of SPEC_BINDING_OFFSET_ALIGNMENT */
    uint64_t size;   /* bytes bound, > 0 and a multiple of 4: the rest of the buffer unless given */
} spec_binding;

typedef struct spec_dispatch {
    size_t kernel;
    char *label;
    spec_binding *bindings;
    size_t binding_count;
    uint32_t workgroups[3];
    uint32_t repeat;
    double bytes, flops;
} spec_dispatch;

typedef struct spec_output {
    size_t buffer;
    char *file;    /* the real folder and the name: where the file is written */
    char *display; /* as the spec wrote it, relative to the current folder, for messages */
} spec_output;

/* A file the spec made wgprof read: the spec itself, a wgsl_file, an init file. Nothing a run
 * writes may be one of them. */
typedef struct spec_input {
    char *path;  /* for messages */
    char *where; /* "the spec", or the JSON path that named it */
    uint64_t dev, ino;
} spec_input;

typedef struct spec {
    char *path;
    spec_buffer *buffers;
    size_t buffer_count;
    spec_kernel *kernels;
    size_t kernel_count;
    spec_dispatch *dispatches;
    size_t dispatch_count;
    spec_output *outputs;
    size_t output_count;
    spec_input *inputs;
    size_t input_count;
} spec;

/* How a spec is read. Every path in a spec (wgsl_file, init.file, outputs[].file) is relative to
 * the spec's folder and, after resolving links, must lie inside that folder's tree or inside
 * one of `allow_paths`; an absolute path must lie inside one of `allow_paths`. */
typedef struct spec_load_options {
    const char *const *allow_paths; /* folders that must exist */
    size_t allow_path_count;
    uint64_t max_dispatches;        /* per iteration, counting repeat; 0: the default */
} spec_load_options;

/* The name of wgprof's reference kernel, its buffer and its dispatch (spec_reference.c). Names in
 * parentheses are wgprof's own rows: a spec's buffer, kernel and label names may not start with
 * "(". */
#define SPEC_REFERENCE_NAME WGPROF_REFERENCE_KERNEL

/* Reads and checks `path` (a regular file of at most SPEC_MAX_BYTES); `options` may be NULL for
 * the defaults. On failure returns false with the message in `error`. */
bool spec_load(const char *path, const spec_load_options *options, spec *out, char *error, size_t error_cap);
/* The same from `size` bytes at `data`, with the default options; `name` stands for the file in
 * messages and relative paths. */
bool spec_load_buffer(const char *name, const char *data, size_t size, spec *out, char *error, size_t error_cap);
void spec_free(spec *s);
/* Adds wgprof's reference kernel to `s` (`wgprof run --reference`): a buffer, a kernel and a
 * dispatch after the spec's own, each named SPEC_REFERENCE_NAME, a fixed chain of multiply-adds
 * that no change to the spec touches, for `wgprof diff` to read the machine's speed from. False
 * with the message where out of memory (what was added is freed by spec_free). */
bool spec_add_reference(spec *s, char *error, size_t error_cap);

/* The GPU side of a spec: buffers filled with their initial contents, pipelines, bind groups,
 * and a graph with one node per dispatch repeat. */
typedef struct spec_gpu {
    WGPUBuffer *buffers;
    WGPUComputePipeline *pipelines;
    WGPUBindGroup *groups; /* distinct bind groups: one per kernel, group index and bindings */
    size_t group_count;
    WGPUBindGroup *sets;   /* [set * 4 + group]: a dispatch's groups, shared by dispatches alike */
    uint32_t *set_sizes;   /* [set]: how many groups the set binds */
    uint32_t *dispatch_set; /* [dispatch]: its set */
    size_t set_count;
    wgprof_graph *graph;
} spec_gpu;

/* Returns WGPROF_OK, WGPROF_ERR_INVALID_ARGUMENT for a spec the device rejects (message in
 * `error`, naming the place), WGPROF_ERR_UNSUPPORTED when the implementation cannot compile
 * with `checks` (message in `error`), or another status for a failure of the device. */
wgprof_status spec_build(const spec *s, wgprof_device *dev, const wgprof_graph_desc *graph_desc,
                         wgprof_shader_checks checks, spec_gpu *out, char *error, size_t error_cap);
void spec_gpu_free(spec_gpu *g, const spec *s);

/* Reads the spec's outputs back into their files (common/common.h: each replaced whole or
 * left untouched). On failure returns false with the message in `error`; `*timed_out` tells a
 * read-back that did not finish within the device's wait_timeout_s. */
bool spec_write_outputs(const spec *s, const spec_gpu *g, wgprof_device *dev, bool *timed_out, char *error,
                        size_t error_cap);

/* ---- spec_wgsl_error.c: messages about a kernel's WGSL ---- */

/*
 * Messages about a kernel's WGSL that point at the place, from text alone (no GPU here).
 *
 * A compile error is read out of the implementation's message (naga's through wgpu-native,
 * Tint's through Dawn) for its line, column and words: wgpu-native 29 has no working
 * wgpuShaderModuleGetCompilationInfo (it aborts as unimplemented), so the text is all there is.
 * Text that names no place is shown as it came, trimmed.
 *
 * A binding mismatch is explained from the source: its @group/@binding declarations, and which
 * of them the entry point uses (WebGPU's derived layout holds those only). The scan is tolerant
 * and may be wrong (a local name shadowing a global); callers confirm it on the device first.
 */

#define SPEC_WGSL_MAX_NOTES 8

typedef struct spec_wgsl_note {
    uint32_t line; /* 0: the note has no place of its own */
    char text[256];
} spec_wgsl_note;

/* A compile error as read from the implementation's message. */
typedef struct spec_wgsl_diagnostic {
    uint32_t line, column; /* 1-based, as the implementation counts */
    bool column_in_bytes;  /* Tint counts the column in UTF-8 bytes, naga in characters */
    uint32_t length;       /* characters marked at the place; 0: not said */
    char message[512];
    char label[256];       /* what the implementation wrote under the place, if anything */
    spec_wgsl_note notes[SPEC_WGSL_MAX_NOTES]; /* each once */
    size_t note_count;
} spec_wgsl_diagnostic;

/* Reads the first located error out of `text`; false when the text names no line and column. */
bool spec_wgsl_read_error(const char *text, spec_wgsl_diagnostic *out);

/* Writes the compile error `text` about the WGSL `source` (may be NULL) that came from `where`
 * (a file, or the spec and a JSON path): "WHERE:LINE:COL: error: MESSAGE", the source line with
 * a caret under the place, then the notes; or, when the text names no place, "WHERE: error: WGSL
 * does not compile:" and the text trimmed. No trailing newline. */
void spec_wgsl_format_error(char *out, size_t cap, const char *where, const char *text, const char *source);

/* Copies a device's message without the framing that names the call and not the place
 * (wgpu-native's "Validation Error", "Caused by:" and "In wgpuDeviceCreateX" lines, Dawn's
 * " - While calling [Device].CreateX(...)"), blank lines and trailing spaces; the rest keeps its
 * relative indentation under `indent` spaces. */
void spec_device_message(char *out, size_t cap, const char *text, int indent);

/* A resource the WGSL declares with literal @group and @binding numbers. */
typedef struct spec_wgsl_binding {
    uint32_t group, binding;
    bool buffer;           /* var<storage, ...> or var<uniform>: what a spec can bind */
    bool used;             /* named by the entry point or a function it calls */
    char declaration[160]; /* e.g. "var<uniform> params: Params", as written, spaces collapsed */
} spec_wgsl_binding;

typedef struct spec_wgsl_bindings {
    spec_wgsl_binding *items; /* in source order */
    size_t count;
    bool uses_known; /* the entry point was found: `used` means something */
    bool complete;   /* every @group and @binding was a number (not a constant's name) */
} spec_wgsl_bindings;

/* Scans `source` for its bindings and those `entry` uses. False only when out of memory. */
bool spec_wgsl_scan_bindings(const char *source, const char *entry, spec_wgsl_bindings *out);
void spec_wgsl_bindings_free(spec_wgsl_bindings *b);

#endif
