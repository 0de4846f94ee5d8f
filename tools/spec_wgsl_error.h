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
#ifndef WGPROF_SPEC_WGSL_ERROR_H
#define WGPROF_SPEC_WGSL_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
