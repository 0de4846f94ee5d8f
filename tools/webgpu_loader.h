/*
 * Choosing the WebGPU implementation a wgprof program runs on, at run time. The wgprof
 * programs (the CLI, the tests, the benchmarks) link no implementation: they load one here,
 * with its symbols global, before their first WebGPU call, and every wgpu* call of the program
 * and of libwgprof then resolves to it (lazy binding). libwgprof itself never loads one; an
 * application that links its implementation does not need this.
 *
 * Not thread-safe: call it from main() before any thread starts.
 */
#ifndef WGPROF_WEBGPU_LOADER_H
#define WGPROF_WEBGPU_LOADER_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
