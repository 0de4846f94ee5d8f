/*
 * The reference kernel `wgprof run --reference` adds to every iteration: a fixed chain of fused
 * multiply-adds of wgprof's own that no change to the spec touches, so that `wgprof diff` can
 * tell the machine's speed from the spec's kernels where those alone cannot (two kernels, one of
 * them changed: which one moved?). It is one buffer, one kernel and one dispatch more, after the
 * spec's own, all named SPEC_REFERENCE_NAME: a spec's names cannot start with "(" (spec_parse.c),
 * so nothing of the spec's is taken for it.
 */
#include <stdlib.h>
#include <string.h>

#include "spec.h"

/* 4096 threads, each a dependent chain of 1000 multiply-adds (0.9 ms on lavapipe on a 2-core
 * machine); its one store keeps the chain from being optimised away. */
#define REFERENCE_THREADS 4096u
#define REFERENCE_WORKGROUP 64u
static const char REFERENCE_WGSL[] =
    "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "    var x = f32(id.x & 1023u) * 0.0009765625;\n"
    "    for (var k = 0u; k < 1000u; k++) {\n"
    "        x = fma(x, 0.9999, 0.0001);\n"
    "    }\n"
    "    out[id.x] = x;\n"
    "}\n";

/* One more item at the end of `*items` (`*count` of `size` bytes), zeroed; NULL without memory. */
static void *append(void **items, size_t *count, size_t size)
{
    char *more = realloc(*items, (*count + 1) * size);
    if (!more) {
        return NULL;
    }
    *items = more;
    memset(more + *count * size, 0, size);
    return more + (*count)++ * size;
}

bool spec_add_reference(spec *s, char *error, size_t error_cap)
{
    /* The spec's own arrays grow first: what is added to them is the spec's, freed by spec_free
     * whatever fails after. */
    spec_buffer *b = append((void **)&s->buffers, &s->buffer_count, sizeof *b);
    if (b) {
        *b = (spec_buffer){.name = strdup(SPEC_REFERENCE_NAME), .type = SPEC_F32, .size = REFERENCE_THREADS * 4u};
    }
    spec_kernel *k = b && b->name ? append((void **)&s->kernels, &s->kernel_count, sizeof *k) : NULL;
    if (k) {
        *k = (spec_kernel){.name = strdup(SPEC_REFERENCE_NAME),
                           .source = strdup(REFERENCE_WGSL),
                           .origin = strdup("wgprof's reference kernel (--reference)"),
                           .entry = strdup("main"),
                           .workgroup_size = {REFERENCE_WORKGROUP, 1, 1}};
    }
    bool kernel_whole = k && k->name && k->source && k->origin && k->entry;
    spec_binding *binding = kernel_whole ? calloc(1, sizeof *binding) : NULL;
    char *label = binding ? strdup(SPEC_REFERENCE_NAME) : NULL;
    spec_dispatch *d = label ? append((void **)&s->dispatches, &s->dispatch_count, sizeof *d) : NULL;
    if (!d) {
        free(binding);
        free(label);
        snprintf(error, error_cap, "%s: --reference: out of memory", s->path);
        return false;
    }
    *binding = (spec_binding){.buffer = s->buffer_count - 1, .size = REFERENCE_THREADS * 4u};
    *d = (spec_dispatch){.kernel = s->kernel_count - 1,
                         .label = label,
                         .bindings = binding,
                         .binding_count = 1,
                         .workgroups = {REFERENCE_THREADS / REFERENCE_WORKGROUP, 1, 1},
                         .repeat = 1};
    return true;
}
