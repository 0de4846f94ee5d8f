/*
 * A workload described in a JSON spec file: buffers, WGSL kernels and an ordered list of
 * dispatches. spec_load() reads and checks the whole file before anything runs; spec_build()
 * makes the GPU objects and the graph, checking what only the GPU can check (WGSL that compiles,
 * bindings that match the shader, limits). Errors name the place: file:line:col for JSON syntax,
 * the JSON path (e.g. $.dispatches[2].kernel) for what is wrong in a valid document.
 */
#ifndef WGPROF_SPEC_H
#define WGPROF_SPEC_H

#include <wgprof/wgprof.h>

typedef enum spec_type { SPEC_F32, SPEC_U32, SPEC_I32 } spec_type;
typedef enum spec_init { SPEC_INIT_ZEROS, SPEC_INIT_CONSTANT, SPEC_INIT_RANDOM, SPEC_INIT_FILE } spec_init;

typedef struct spec_buffer {
    char *name;
    spec_type type;
    uint64_t size; /* bytes, a multiple of 4 */
    spec_init init;
    double constant;
    uint64_t seed;
    double min, max;
    char *file;    /* resolved path for SPEC_INIT_FILE */
} spec_buffer;

typedef struct spec_constant {
    char *name;
    double value;
} spec_constant;

typedef struct spec_kernel {
    char *name;
    char *source;  /* WGSL text */
    char *origin;  /* where the source came from, for messages */
    char *entry;
    spec_constant *constants;
    size_t constant_count;
    uint32_t workgroup_size[3]; /* given, or read from the source; 0 when unknown */
} spec_kernel;

typedef struct spec_binding {
    uint32_t group;
    uint32_t binding;
    size_t buffer;
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
    char *file;
} spec_output;

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
} spec;

/* Reads and checks `path`. On failure returns false with the message in `error`. */
bool spec_load(const char *path, spec *out, char *error, size_t error_cap);
/* The same from `size` bytes at `data`; `name` stands for the file in messages and relative
 * paths. */
bool spec_load_buffer(const char *name, const char *data, size_t size, spec *out, char *error, size_t error_cap);
void spec_free(spec *s);

/* The GPU side of a spec: buffers filled with their initial contents, pipelines, bind groups,
 * and a graph with one node per dispatch repeat. */
typedef struct spec_gpu {
    WGPUBuffer *buffers;
    WGPUComputePipeline *pipelines;
    WGPUBindGroup *groups; /* per dispatch, per group index */
    size_t group_count;
    wgprof_graph *graph;
} spec_gpu;

/* Returns WGPROF_OK, WGPROF_ERR_INVALID_ARGUMENT for a spec the device rejects (message in
 * `error`, naming the place), or another status for a failure of the device. */
wgprof_status spec_build(const spec *s, wgprof_device *dev, const wgprof_graph_desc *graph_desc, spec_gpu *out,
                         char *error, size_t error_cap);
void spec_gpu_free(spec_gpu *g, const spec *s);

/* Reads the spec's outputs back into their files. */
bool spec_write_outputs(const spec *s, const spec_gpu *g, wgprof_device *dev, char *error, size_t error_cap);

#endif
