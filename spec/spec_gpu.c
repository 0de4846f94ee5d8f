/*
 * The GPU side of a spec: buffers with their initial contents, shader modules and pipelines,
 * bind groups, and the graph. What only the device can judge (WGSL that compiles, bindings that
 * match the shader, sizes within its limits) is checked here, each inside a WebGPU error scope
 * so that the message names the spec's place; every dispatch is also encoded once, unsubmitted,
 * so that a binding the shader needs and the spec lacks is found before anything runs.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "spec.h"
#include "wgprof/device_util.h"

/* A name from the spec, escaped for a message. */
typedef struct shown_name {
    char text[256];
} shown_name;

static shown_name show(const char *text)
{
    shown_name n = {""};
    wgprof__escape_terminal_copy(n.text, sizeof n.text, text ? text : "", false);
    return n;
}

static wgprof_status reject(char *error, size_t cap, const spec *s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static wgprof_status reject(char *error, size_t cap, const spec *s, const char *fmt, ...)
{
    int n = snprintf(error, cap, "%s: ", s->path);
    if (n > 0 && (size_t)n < cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return WGPROF_ERR_INVALID_ARGUMENT;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Element i of a buffer's initial contents, as its 4 bytes. */
static uint32_t initial_word(const spec_buffer *b, uint64_t *rng)
{
    double v = b->init == SPEC_INIT_CONSTANT ? b->constant : 0;
    if (b->init == SPEC_INIT_RANDOM) {
        double u = (double)(splitmix64(rng) >> 11) * 0x1.0p-53; /* [0, 1) */
        v = b->min + u * (b->max - b->min);
        if (b->type != SPEC_F32) {
            v = (double)(int64_t)(b->min + u * (b->max - b->min + 1)); /* integers in [min, max] */
        }
    }
    uint32_t word;
    if (b->type == SPEC_F32) {
        float f = (float)v;
        memcpy(&word, &f, 4);
    } else if (b->type == SPEC_U32) {
        word = v <= 0 ? 0 : v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
    } else {
        int32_t i = v <= -2147483648.0 ? INT32_MIN : v >= 2147483647.0 ? INT32_MAX : (int32_t)v;
        memcpy(&word, &i, 4);
    }
    return word;
}

/* The IEEE binary16 bits of the f16 nearest `v` (ties to even), rounded once from the double,
 * not through f32, which could round twice. |v| <= 65504, checked when the spec was read. */
static uint16_t half_bits(double v)
{
    uint16_t sign = signbit(v) ? 0x8000u : 0u;
    double a = fabs(v);
    if (a < 0x1p-14) { /* zero or subnormal: a count of 2^-24; 1024 of them is the least normal */
        return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24));
    }
    int e = 0;
    frexp(a, &e);                                         /* a = m * 2^e, m in [0.5, 1) */
    uint32_t mantissa = (uint32_t)nearbyint(ldexp(a, 11 - e)); /* 1024 to 2048 */
    if (mantissa == 2048) {
        mantissa = 1024;
        e++;
    }
    return (uint16_t)(sign | (uint32_t)(e + 14) << 10 | (mantissa - 1024));
}

/* A struct init's bytes, `size` of them (a multiple of 4 covering every field), little-endian
 * as WebGPU's buffers are: each field at its offset, zeros between. */
static void encode_struct(const spec_buffer *b, unsigned char *out, size_t size)
{
    memset(out, 0, size);
    for (size_t i = 0; i < b->field_count; i++) {
        const spec_field *f = &b->fields[i];
        for (uint32_t k = 0; k < f->count; k++) {
            double v = f->value[k];
            unsigned char *at = out + f->offset;
            if (f->type == SPEC_F16) {
                uint16_t h = half_bits(v);
                memcpy(at + 2 * k, &h, 2);
            } else if (f->type == SPEC_F32) {
                float x = (float)v;
                memcpy(at + 4 * k, &x, 4);
            } else if (f->type == SPEC_U32) {
                uint32_t x = (uint32_t)v;
                memcpy(at + 4 * k, &x, 4);
            } else {
                int32_t x = (int32_t)v;
                memcpy(at + 4 * k, &x, 4);
            }
        }
    }
}

static wgprof_status fill_buffer(const spec *s, size_t index, WGPUQueue queue, WGPUBuffer buffer, char *error,
                                 size_t cap)
{
    const spec_buffer *b = &s->buffers[index];
    if (b->init == SPEC_INIT_ZEROS) {
        return WGPROF_OK; /* WebGPU buffers start zeroed */
    }
    if (b->init == SPEC_INIT_STRUCT) {
        /* Up to the last field's end, rounded to 4 as writeBuffer needs; the rest stays zero. */
        const spec_field *last = &b->fields[b->field_count - 1];
        size_t size = ((size_t)last->offset + (last->type == SPEC_F16 ? 2u : 4u) * last->count + 3) / 4 * 4;
        unsigned char *bytes = malloc(size);
        if (!bytes) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        encode_struct(b, bytes, size);
        wgpuQueueWriteBuffer(queue, buffer, 0, bytes, size);
        free(bytes);
        return WGPROF_OK;
    }
    enum { CHUNK = 1 << 20 };
    uint32_t *chunk = malloc(CHUNK);
    if (!chunk) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    int fd = -1;
    if (b->init == SPEC_INIT_FILE) {
        /* The file checked when the spec was read, still the same regular file and size. */
        char why[256];
        uint64_t size = 0, dev = 0, ino = 0;
        fd = file_open_regular(b->file, 0, &size, &dev, &ino, why, sizeof why);
        if (fd < 0 || dev != b->file_dev || ino != b->file_ino || size != b->size) {
            if (fd >= 0) {
                close(fd);
                snprintf(why, sizeof why, "it changed since the spec was read");
            }
            free(chunk);
            return reject(error, cap, s, "$.buffers[%zu].init: cannot read '%s': %s", index, show(b->file).text,
                          why);
        }
    }
    uint64_t rng = b->seed;
    wgprof_status status = WGPROF_OK;
    for (uint64_t offset = 0; offset < b->size && status == WGPROF_OK; offset += CHUNK) {
        size_t n = (size_t)(b->size - offset < CHUNK ? b->size - offset : CHUNK);
        if (fd >= 0) {
            size_t got = 0;
            while (got < n) {
                ssize_t r = read(fd, (char *)chunk + got, n - got);
                if (r < 0 && errno == EINTR) {
                    continue;
                }
                if (r <= 0) {
                    break;
                }
                got += (size_t)r;
            }
            if (got != n) {
                status = reject(error, cap, s, "$.buffers[%zu].init: '%s' is shorter than the buffer", index,
                                show(b->file).text);
            }
        } else {
            for (size_t i = 0; i < n / 4; i++) {
                chunk[i] = initial_word(b, &rng);
            }
        }
        if (status == WGPROF_OK) {
            wgpuQueueWriteBuffer(queue, buffer, offset, chunk, n);
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    free(chunk);
    return status;
}

static wgprof_status make_buffers(const spec *s, wgprof_device *dev, const WGPULimits *limits, spec_gpu *g,
                                  char *error, size_t cap)
{
    WGPUDevice device = wgprof_device_webgpu(dev);
    for (size_t i = 0; i < s->buffer_count; i++) {
        const spec_buffer *b = &s->buffers[i];
        if (b->size > limits->maxBufferSize) {
            return reject(error, cap, s, "$.buffers[%zu] \"%s\": %llu bytes exceed the device's maxBufferSize of %llu",
                          i, show(b->name).text, (unsigned long long)b->size,
                          (unsigned long long)limits->maxBufferSize);
        }
        WGPUBufferDescriptor bd = {0};
        bd.label = (WGPUStringView){b->name, WGPU_STRLEN};
        bd.size = b->size;
        bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_Uniform | WGPUBufferUsage_CopySrc |
                   WGPUBufferUsage_CopyDst;
        char message[1024];
        wgprof_device_push_error_scope(dev);
        g->buffers[i] = wgpuDeviceCreateBuffer(device, &bd);
        if (wgprof_device_pop_error_scope(dev, message, sizeof message) != WGPROF_OK) {
            return reject(error, cap, s, "$.buffers[%zu] \"%s\": the device refused it: %s", i, show(b->name).text,
                          message);
        }
        wgprof_status st = fill_buffer(s, i, wgprof_device_queue(dev), g->buffers[i], error, cap);
        if (st != WGPROF_OK) {
            return st;
        }
    }
    return WGPROF_OK;
}

/* A compile error at its place in the WGSL: "FILE:LINE:COL: error: ...", or for an inline "wgsl"
 * string "SPEC: $.kernels[2].wgsl:LINE:COL: error: ...", the line and column within the string. */
static wgprof_status reject_wgsl(char *error, size_t cap, const spec *s, const spec_kernel *k, const char *message)
{
    char where[600];
    if (k->inline_source) {
        snprintf(where, sizeof where, "%s: %s", s->path, k->origin);
    } else {
        snprintf(where, sizeof where, "%s", show(k->origin).text);
    }
    spec_wgsl_format_error(error, cap, where, message, k->source);
    return WGPROF_ERR_INVALID_ARGUMENT;
}

static wgprof_status make_pipelines(const spec *s, wgprof_device *dev, wgprof_shader_checks checks, spec_gpu *g,
                                    char *error, size_t cap)
{
    WGPUDevice device = wgprof_device_webgpu(dev);
    char message[8192]; /* naga quotes the source line, which may be long */
    for (size_t i = 0; i < s->kernel_count; i++) {
        const spec_kernel *k = &s->kernels[i];
        WGPUShaderModule module = NULL;
        wgprof_device_push_error_scope(dev);
        wgprof_status made = wgprof_shader_module_create(dev, k->source, k->name, checks, &module);
        if (made == WGPROF_ERR_UNSUPPORTED) {
            wgprof_device_pop_error_scope(dev, NULL, 0);
            snprintf(error, cap,
                     "--shader-checks %s: %s compiles every shader with its own runtime checks; only wgpu-native "
                     "can drop them (--webgpu wgpu-native)",
                     wgprof_shader_checks_str(checks), wgprof_device_describe(dev)->implementation);
            return made;
        }
        if (made != WGPROF_OK) {
            wgprof_device_pop_error_scope(dev, NULL, 0);
            return made;
        }
        if (wgprof_device_pop_error_scope(dev, message, sizeof message) != WGPROF_OK) {
            if (module) {
                wgpuShaderModuleRelease(module);
            }
            return reject_wgsl(error, cap, s, k, message);
        }
        WGPUConstantEntry *constants = calloc(k->constant_count + 1, sizeof *constants);
        if (!constants) {
            wgpuShaderModuleRelease(module);
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        for (size_t j = 0; j < k->constant_count; j++) {
            constants[j].key = (WGPUStringView){k->constants[j].name, WGPU_STRLEN};
            constants[j].value = k->constants[j].value;
        }
        WGPUComputePipelineDescriptor pd = {0};
        pd.label = (WGPUStringView){k->name, WGPU_STRLEN};
        pd.compute.module = module;
        pd.compute.entryPoint = (WGPUStringView){k->entry, WGPU_STRLEN};
        pd.compute.constantCount = k->constant_count;
        pd.compute.constants = constants;
        wgprof_device_push_error_scope(dev);
        g->pipelines[i] = wgpuDeviceCreateComputePipeline(device, &pd);
        wgprof_status st = wgprof_device_pop_error_scope(dev, message, sizeof message);
        free(constants);
        wgpuShaderModuleRelease(module);
        if (st != WGPROF_OK) {
            spec_wgsl_diagnostic *located = malloc(sizeof *located);
            bool at_place = located && spec_wgsl_read_error(message, located);
            free(located);
            if (at_place) {
                return reject_wgsl(error, cap, s, k, message); /* e.g. an override's value, checked here */
            }
            char shown_message[sizeof message];
            spec_device_message(shown_message, sizeof shown_message, message, 2);
            return reject(error, cap, s, "$.kernels[%zu] \"%s\": no pipeline for entry point \"%s\":\n%s", i,
                          show(k->name).text, show(k->entry).text, shown_message);
        }
        if (k->workgroup_size_why) {
            /* Reports never show a size that was guessed. */
            return reject(error, cap, s, "$.kernels[%zu] \"%s\": cannot tell the workgroup size: %s; give it as "
                          "workgroup_size", i, show(k->name).text, k->workgroup_size_why);
        }
    }
    return WGPROF_OK;
}

/* ---- binding mismatches, explained ---------------------------------------------------------
 * WebGPU derives a pipeline's layout from the bindings its entry point uses, and the device says
 * only that a bind group does not fit it ("Number of bindings in bind group descriptor (1) does
 * not match ... (2)"). The WGSL scan (spec_wgsl_error.h) says which bindings the kernel declares
 * and uses; nothing is claimed until the device confirms the layout the scan predicts. */

enum { SPARE_BYTES = 65536 }; /* WebGPU's least maxUniformBufferBindingSize: binds as anything */

/* Appends a line to a message built in `error`. */
static void add_line(char *error, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_line(char *error, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(error);
    if (n + 2 >= cap) {
        return;
    }
    if (n) {
        error[n++] = '\n';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error + n, cap - n, fmt, ap);
    va_end(ap);
}

/* Whether group `group` of the layout of dispatch `d`'s pipeline holds exactly the bindings
 * `want`, as the device answers for a bind group of them: each bound as the spec binds it in
 * `d`, or else to `*spare` (made on first need). */
static bool layout_holds(const spec *s, wgprof_device *dev, const spec_gpu *g, const spec_dispatch *d,
                         uint32_t group, const uint32_t *want, size_t n, WGPUBuffer *spare)
{
    WGPUBindGroupEntry *entries = calloc(n + 1, sizeof *entries);
    if (!entries) {
        return false;
    }
    bool ready = true;
    for (size_t k = 0; k < n; k++) {
        entries[k].binding = want[k];
        for (size_t b = 0; b < d->binding_count; b++) {
            const spec_binding *x = &d->bindings[b];
            if (x->group == group && x->binding == want[k]) {
                entries[k].buffer = g->buffers[x->buffer];
                entries[k].offset = x->offset;
                entries[k].size = x->size ? x->size : s->buffers[x->buffer].size;
            }
        }
        if (!entries[k].buffer) {
            if (!*spare) {
                WGPUBufferDescriptor bd = {0};
                bd.size = SPARE_BYTES;
                bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_Uniform;
                wgprof_device_push_error_scope(dev);
                *spare = wgpuDeviceCreateBuffer(wgprof_device_webgpu(dev), &bd);
                ready = wgprof_device_pop_error_scope(dev, NULL, 0) == WGPROF_OK && ready;
            }
            entries[k].buffer = *spare;
            entries[k].size = SPARE_BYTES;
        }
    }
    bool holds = false;
    wgprof_device_push_error_scope(dev);
    WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(g->pipelines[d->kernel], group);
    if (wgprof_device_pop_error_scope(dev, NULL, 0) != WGPROF_OK) {
        holds = n == 0; /* the pipeline has no such group: it holds nothing */
    } else if (ready) {
        WGPUBindGroupDescriptor bd = {0};
        bd.layout = layout;
        bd.entryCount = n;
        bd.entries = entries;
        wgprof_device_push_error_scope(dev);
        WGPUBindGroup bg = wgpuDeviceCreateBindGroup(wgprof_device_webgpu(dev), &bd);
        holds = wgprof_device_pop_error_scope(dev, NULL, 0) == WGPROF_OK;
        if (bg) {
            wgpuBindGroupRelease(bg);
        }
    }
    if (layout) {
        wgpuBindGroupLayoutRelease(layout);
    }
    free(entries);
    return holds;
}

/* What a dispatch binds and its kernel declares in one group, for explaining a mismatch. */
typedef struct group_bindings {
    spec_wgsl_bindings scan;
    uint32_t *bound, *declared, *used; /* binding numbers, ascending, each once */
    size_t bound_count, declared_count, used_count;
    bool all_buffers; /* every declared one is a buffer, so that a bind group can hold it */
} group_bindings;

static int by_number(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static size_t sorted_unique(uint32_t *v, size_t n)
{
    qsort(v, n, sizeof *v, by_number);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!m || v[m - 1] != v[i]) {
            v[m++] = v[i];
        }
    }
    return m;
}

static bool contains(const uint32_t *v, size_t n, uint32_t x)
{
    return bsearch(&x, v, n, sizeof *v, by_number) != NULL;
}

static void group_bindings_free(group_bindings *gb)
{
    spec_wgsl_bindings_free(&gb->scan);
    free(gb->bound);
    free(gb->declared);
    free(gb->used);
}

static bool read_group(const spec_dispatch *d, const spec_kernel *k, uint32_t group, group_bindings *gb)
{
    memset(gb, 0, sizeof *gb);
    if (!spec_wgsl_scan_bindings(k->source, k->entry, &gb->scan)) {
        return false;
    }
    gb->bound = calloc(d->binding_count + 1, sizeof *gb->bound);
    gb->declared = calloc(gb->scan.count + 1, sizeof *gb->declared);
    gb->used = calloc(gb->scan.count + 1, sizeof *gb->used);
    if (!gb->bound || !gb->declared || !gb->used) {
        group_bindings_free(gb);
        return false;
    }
    for (size_t b = 0; b < d->binding_count; b++) {
        if (d->bindings[b].group == group) {
            gb->bound[gb->bound_count++] = d->bindings[b].binding;
        }
    }
    gb->all_buffers = true;
    for (size_t j = 0; j < gb->scan.count; j++) {
        const spec_wgsl_binding *w = &gb->scan.items[j];
        if (w->group == group) {
            gb->declared[gb->declared_count++] = w->binding;
            gb->all_buffers = gb->all_buffers && w->buffer;
            if (w->used) {
                gb->used[gb->used_count++] = w->binding;
            }
        }
    }
    gb->bound_count = sorted_unique(gb->bound, gb->bound_count);
    gb->declared_count = sorted_unique(gb->declared, gb->declared_count);
    gb->used_count = sorted_unique(gb->used, gb->used_count);
    return true;
}

static const char *declaration_of(const group_bindings *gb, uint32_t group, uint32_t binding)
{
    for (size_t j = 0; j < gb->scan.count; j++) {
        if (gb->scan.items[j].group == group && gb->scan.items[j].binding == binding) {
            return gb->scan.items[j].declaration;
        }
    }
    return "";
}

/* The bindings of `group` in the pipeline's layout, as the scan predicts and the device
 * confirms: the ones the entry point uses, else every one declared. NULL: not confirmed. */
static const uint32_t *confirmed_layout(const spec *s, wgprof_device *dev, const spec_gpu *g,
                                        const spec_dispatch *d, uint32_t group, const group_bindings *gb,
                                        WGPUBuffer *spare, size_t *count)
{
    if (!gb->all_buffers || !gb->scan.complete) {
        return NULL; /* a texture or a sampler cannot be bound by a spec: nothing to try */
    }
    if (gb->scan.uses_known && layout_holds(s, dev, g, d, group, gb->used, gb->used_count, spare)) {
        *count = gb->used_count;
        return gb->used;
    }
    if (layout_holds(s, dev, g, d, group, gb->declared, gb->declared_count, spare)) {
        *count = gb->declared_count;
        return gb->declared;
    }
    return NULL;
}

/* The message for bind group `group` of dispatch `i`, which the device refused with `message`:
 * each binding the kernel's layout has and the spec lacks, and each the spec binds that the
 * layout lacks; the device's own words where the scan cannot tell. */
static wgprof_status reject_bindings(const spec *s, wgprof_device *dev, const spec_gpu *g, size_t i, uint32_t group,
                                     const char *message, char *error, size_t cap)
{
    const spec_dispatch *d = &s->dispatches[i];
    const spec_kernel *k = &s->kernels[d->kernel];
    shown_name kernel = show(k->name); /* held: the text lives in it */
    char at[300];
    snprintf(at, sizeof at, "%s: $.dispatches[%zu].bindings", s->path, i);
    group_bindings gb;
    if (!read_group(d, k, group, &gb)) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    WGPUBuffer spare = NULL;
    size_t layout_count = 0;
    const uint32_t *layout = confirmed_layout(s, dev, g, d, group, &gb, &spare, &layout_count);
    if (spare) {
        wgpuBufferRelease(spare);
    }
    error[0] = '\0';
    for (size_t j = 0; layout && j < layout_count; j++) {
        if (!contains(gb.bound, gb.bound_count, layout[j])) {
            add_line(error, cap, "%s: kernel \"%s\" uses group %u binding %u (%s), which the spec does not bind",
                     at, kernel.text, group, layout[j], declaration_of(&gb, group, layout[j]));
        }
    }
    for (size_t j = 0; layout && j < gb.bound_count; j++) {
        uint32_t b = gb.bound[j];
        if (contains(layout, layout_count, b)) {
            continue;
        }
        if (contains(gb.declared, gb.declared_count, b)) {
            add_line(error, cap,
                     "%s: binds group %u binding %u, which kernel \"%s\" declares (%s) but its entry point \"%s\" "
                     "does not use: WebGPU leaves it out of the pipeline's layout",
                     at, group, b, kernel.text, declaration_of(&gb, group, b), show(k->entry).text);
        } else {
            add_line(error, cap, "%s: binds group %u binding %u, which kernel \"%s\" does not declare", at, group, b,
                     kernel.text);
        }
    }
    if (!error[0]) {
        /* Not explained (a type or a size, or a scan that missed): the device's words. */
        char shown_message[2048];
        spec_device_message(shown_message, sizeof shown_message, message, 2);
        add_line(error, cap, "%s: group %u does not match kernel \"%s\":\n%s", at, group, kernel.text, shown_message);
        char list[1024] = "";
        for (size_t j = 0; j < gb.declared_count; j++) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s%u (%s)", j ? ", " : "", gb.declared[j],
                     declaration_of(&gb, group, gb.declared[j]));
        }
        if (gb.declared_count || gb.scan.complete) {
            add_line(error, cap, "  kernel \"%s\" declares in group %u: %s%s", kernel.text, group,
                     gb.declared_count ? list : "nothing",
                     gb.scan.complete ? "" : " (and bindings numbered by a constant, not read here)");
        }
    }
    group_bindings_free(&gb);
    return WGPROF_ERR_INVALID_ARGUMENT;
}

/* The message for dispatch `i`, which the device refused with `message` when encoded: a group
 * the pipeline needs and the spec does not bind, named with its bindings, or the device's words. */
static wgprof_status reject_dispatch(const spec *s, wgprof_device *dev, const spec_gpu *g, size_t i,
                                     const char *message, char *error, size_t cap)
{
    const spec_dispatch *d = &s->dispatches[i];
    const spec_kernel *k = &s->kernels[d->kernel];
    shown_name kernel = show(k->name); /* held: the text lives in it */
    uint32_t bound_groups = 0;
    for (size_t b = 0; b < d->binding_count; b++) {
        bound_groups = d->bindings[b].group + 1 > bound_groups ? d->bindings[b].group + 1 : bound_groups;
    }
    WGPUBuffer spare = NULL;
    wgprof_status st = WGPROF_ERR_INVALID_ARGUMENT;
    error[0] = '\0';
    for (uint32_t group = bound_groups; group < 4 && !error[0]; group++) {
        if (layout_holds(s, dev, g, d, group, NULL, 0, &spare)) {
            continue; /* the pipeline has nothing in this group */
        }
        group_bindings gb;
        if (!read_group(d, k, group, &gb)) {
            st = WGPROF_ERR_OUT_OF_MEMORY;
            break;
        }
        size_t count = 0;
        const uint32_t *layout = confirmed_layout(s, dev, g, d, group, &gb, &spare, &count);
        char list[1024] = "";
        for (size_t j = 0; layout && j < count; j++) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%sbinding %u: %s", j ? "; " : " (", layout[j],
                     declaration_of(&gb, group, layout[j]));
        }
        add_line(error, cap, "%s: $.dispatches[%zu].bindings: kernel \"%s\" uses group %u%s%s, which the spec does not "
                 "bind", s->path, i, kernel.text, group, list, list[0] ? ")" : "");
        group_bindings_free(&gb);
    }
    if (spare) {
        wgpuBufferRelease(spare);
    }
    if (!error[0] && st == WGPROF_ERR_INVALID_ARGUMENT) {
        char shown_message[2048];
        spec_device_message(shown_message, sizeof shown_message, message, 2);
        reject(error, cap, s, "$.dispatches[%zu] (kernel \"%s\"): the device rejects this dispatch:\n%s", i,
               kernel.text, shown_message);
    }
    return st;
}

static uint32_t groups_used(const spec_dispatch *d)
{
    uint32_t n = 0;
    for (size_t b = 0; b < d->binding_count; b++) {
        n = d->bindings[b].group + 1 > n ? d->bindings[b].group + 1 : n;
    }
    return n;
}

/* Keys (runs of uint64_t) to dense indices, by open addressing: how dispatches that bind alike
 * find the bind groups and the sets of groups made for the first of them. */
typedef struct key_table {
    uint64_t *words; /* every key, each preceded by its length */
    size_t word_count, word_cap;
    size_t *key_at;  /* [index]: where its key starts in words */
    size_t count, index_cap;
    uint32_t *slots; /* index + 1; 0: empty */
    size_t slot_cap; /* a power of two, at least twice count */
} key_table;

static void key_table_free(key_table *t)
{
    free(t->words);
    free(t->key_at);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static uint64_t key_hash(const uint64_t *key, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ key[i]) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static bool key_equal(const key_table *t, size_t index, const uint64_t *key, size_t n)
{
    const uint64_t *at = &t->words[t->key_at[index]];
    return at[0] == n && memcmp(at + 1, key, n * sizeof *key) == 0;
}

static bool key_grow(void **p, size_t *cap, size_t need, size_t item)
{
    if (need <= *cap) {
        return true;
    }
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        n *= 2;
    }
    void *q = realloc(*p, n * item);
    if (!q) {
        return false;
    }
    *p = q;
    *cap = n;
    return true;
}

static size_t key_slot(const key_table *t, const uint64_t *key, size_t n)
{
    size_t mask = t->slot_cap - 1, i = (size_t)key_hash(key, n) & mask;
    while (t->slots[i] && !key_equal(t, t->slots[i] - 1, key, n)) {
        i = (i + 1) & mask;
    }
    return i;
}

/* The index of `key`, added with the next index when new (*added then true). False: no memory. */
static bool key_find_or_add(key_table *t, const uint64_t *key, size_t n, size_t *index, bool *added)
{
    if ((t->count + 1) * 2 > t->slot_cap) {
        size_t cap = t->slot_cap ? t->slot_cap * 2 : 64;
        uint32_t *slots = calloc(cap, sizeof *slots);
        if (!slots || t->count >= UINT32_MAX - 1) {
            free(slots);
            return false;
        }
        free(t->slots);
        t->slots = slots;
        t->slot_cap = cap;
        for (size_t k = 0; k < t->count; k++) {
            const uint64_t *at = &t->words[t->key_at[k]];
            t->slots[key_slot(t, at + 1, (size_t)at[0])] = (uint32_t)k + 1;
        }
    }
    size_t slot = key_slot(t, key, n);
    *added = t->slots[slot] == 0;
    if (!*added) {
        *index = t->slots[slot] - 1;
        return true;
    }
    if (!key_grow((void **)&t->words, &t->word_cap, t->word_count + n + 1, sizeof *t->words) ||
        !key_grow((void **)&t->key_at, &t->index_cap, t->count + 1, sizeof *t->key_at)) {
        return false;
    }
    t->key_at[t->count] = t->word_count;
    t->words[t->word_count] = n;
    memcpy(&t->words[t->word_count + 1], key, n * sizeof *key);
    t->word_count += n + 1;
    t->slots[slot] = (uint32_t)t->count + 1;
    *index = t->count++;
    return true;
}

/* Group, then binding: each group's bindings together, in one order whatever the spec's. */
static int by_binding(const void *a, const void *b)
{
    const spec_binding *x = a, *y = b;
    if (x->group != y->group) {
        return x->group < y->group ? -1 : 1;
    }
    if (x->binding != y->binding) {
        return x->binding < y->binding ? -1 : 1;
    }
    if (x->buffer != y->buffer) {
        return x->buffer < y->buffer ? -1 : 1;
    }
    return x->offset != y->offset ? (x->offset < y->offset ? -1 : 1) : (x->size > y->size) - (x->size < y->size);
}

/* Creates the next bind group: group `group` of dispatch `i`'s kernel, from `bindings` (`count`
 * of them). */
static wgprof_status create_bind_group(const spec *s, wgprof_device *dev, spec_gpu *g, size_t i, uint32_t group,
                                       const spec_binding *bindings, size_t count, char *error, size_t cap)
{
    const spec_dispatch *d = &s->dispatches[i];
    WGPUBindGroupEntry *entries = calloc(count + 1, sizeof *entries);
    if (!entries) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    for (size_t b = 0; b < count; b++) {
        entries[b].binding = bindings[b].binding;
        entries[b].buffer = g->buffers[bindings[b].buffer];
        entries[b].offset = bindings[b].offset;
        entries[b].size = bindings[b].size;
    }
    char message[2048];
    wgprof_device_push_error_scope(dev);
    WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(g->pipelines[d->kernel], group);
    WGPUBindGroupDescriptor bd = {0};
    bd.layout = layout;
    bd.entryCount = count;
    bd.entries = entries;
    g->groups[g->group_count++] = wgpuDeviceCreateBindGroup(wgprof_device_webgpu(dev), &bd);
    wgprof_status st = wgprof_device_pop_error_scope(dev, message, sizeof message);
    free(entries);
    if (layout) {
        wgpuBindGroupLayoutRelease(layout);
    }
    if (st != WGPROF_OK) {
        return reject_bindings(s, dev, g, i, group, message, error, cap);
    }
    return WGPROF_OK;
}

/* The device's offset alignment, where it is stricter than the one the spec was read with. */
static wgprof_status check_offsets(const spec *s, size_t i, const WGPULimits *limits, char *error, size_t cap)
{
    const spec_dispatch *d = &s->dispatches[i];
    /* Whether the shader binds it as storage or uniform only the device knows: both must hold. */
    uint32_t align = limits->minStorageBufferOffsetAlignment > limits->minUniformBufferOffsetAlignment
                         ? limits->minStorageBufferOffsetAlignment
                         : limits->minUniformBufferOffsetAlignment;
    for (size_t b = 0; b < d->binding_count; b++) {
        const spec_binding *x = &d->bindings[b];
        if (align && x->offset % align) {
            return reject(error, cap, s,
                          "$.dispatches[%zu].bindings[\"%u/%u\"].offset: %llu is not a multiple of %u, the device's "
                          "buffer offset alignment",
                          i, x->group, x->binding, (unsigned long long)x->offset, align);
        }
    }
    return WGPROF_OK;
}

/* One bind group per distinct kernel, group index and bindings, and one set per distinct list
 * of them: dispatches that bind alike share them, so that a million dispatches over a few
 * buffers make a few bind groups, not millions (lavapipe allocates descriptors per group, and
 * failed inside that allocation at 100,000 dispatches). Each dispatch keeps its set's index. */
static wgprof_status make_bind_groups(const spec *s, wgprof_device *dev, spec_gpu *g, char *error, size_t cap)
{
    WGPULimits limits = {0};
    if (wgpuDeviceGetLimits(wgprof_device_webgpu(dev), &limits) != WGPUStatus_Success) {
        return WGPROF_ERR_WEBGPU;
    }
    size_t max_bindings = 0;
    for (size_t i = 0; i < s->dispatch_count; i++) {
        max_bindings = s->dispatches[i].binding_count > max_bindings ? s->dispatches[i].binding_count : max_bindings;
    }
    key_table groups = {0}, sets = {0};
    spec_binding *sorted = calloc(max_bindings + 1, sizeof *sorted);
    uint64_t *key = calloc(3 + 4 * max_bindings + 1, sizeof *key);
    g->dispatch_set = calloc(s->dispatch_count + 1, sizeof *g->dispatch_set);
    size_t groups_cap = 0, sets_cap = 0, sizes_cap = 0;
    wgprof_status st = sorted && key && g->dispatch_set ? WGPROF_OK : WGPROF_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < s->dispatch_count && st == WGPROF_OK; i++) {
        const spec_dispatch *d = &s->dispatches[i];
        uint32_t used = groups_used(d);
        uint64_t set_key[6] = {d->kernel, used};
        if (d->binding_count) { /* a dispatch without bindings has none to copy (bindings NULL) */
            memcpy(sorted, d->bindings, d->binding_count * sizeof *sorted);
            qsort(sorted, d->binding_count, sizeof *sorted, by_binding);
        }
        for (uint32_t group = 0; group < used && st == WGPROF_OK; group++) {
            size_t n = 0, count = 0, first = 0, index = 0;
            key[n++] = d->kernel;
            key[n++] = group;
            for (size_t b = 0; b < d->binding_count; b++) {
                if (sorted[b].group == group) {
                    first = count++ ? first : b;
                    key[n++] = sorted[b].binding;
                    key[n++] = sorted[b].buffer;
                    key[n++] = sorted[b].offset;
                    key[n++] = sorted[b].size;
                }
            }
            bool added = false;
            if (!key_find_or_add(&groups, key, n, &index, &added) ||
                (added && !key_grow((void **)&g->groups, &groups_cap, g->group_count + 1, sizeof *g->groups))) {
                st = WGPROF_ERR_OUT_OF_MEMORY;
            } else if (added) {
                st = check_offsets(s, i, &limits, error, cap);
                if (st == WGPROF_OK) {
                    st = create_bind_group(s, dev, g, i, group, &sorted[first], count, error, cap);
                }
            }
            set_key[2 + group] = index;
        }
        size_t set = 0;
        bool added = false;
        if (st == WGPROF_OK && !key_find_or_add(&sets, set_key, 2 + used, &set, &added)) {
            st = WGPROF_ERR_OUT_OF_MEMORY;
        }
        if (st == WGPROF_OK && added) {
            if (!key_grow((void **)&g->sets, &sets_cap, 4 * (set + 1), sizeof *g->sets) ||
                !key_grow((void **)&g->set_sizes, &sizes_cap, set + 1, sizeof *g->set_sizes)) {
                st = WGPROF_ERR_OUT_OF_MEMORY;
            } else {
                for (uint32_t group = 0; group < used; group++) {
                    g->sets[set * 4 + group] = g->groups[set_key[2 + group]];
                }
                g->set_sizes[set] = used;
                g->set_count = set + 1;
            }
        }
        g->dispatch_set[i] = (uint32_t)set;
    }
    key_table_free(&groups);
    key_table_free(&sets);
    free(sorted);
    free(key);
    return st;
}

/* Encodes each dispatch alone, without submitting, so that the device validates it now: the
 * first of those that share a kernel and bind groups stands for them all (their workgroup
 * counts are checked against the limits in check_limits). */
static wgprof_status validate_dispatches(const spec *s, wgprof_device *dev, const spec_gpu *g, char *error,
                                         size_t cap)
{
    char message[2048];
    bool *seen = calloc(g->set_count + 1, sizeof *seen);
    if (!seen) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < s->dispatch_count; i++) {
        const spec_dispatch *d = &s->dispatches[i];
        uint32_t set = g->dispatch_set[i];
        if (seen[set]) {
            continue;
        }
        seen[set] = true;
        wgprof_device_push_error_scope(dev);
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
        wgpuComputePassEncoderSetPipeline(pass, g->pipelines[d->kernel]);
        for (uint32_t group = 0; group < g->set_sizes[set]; group++) {
            wgpuComputePassEncoderSetBindGroup(pass, group, g->sets[set * 4 + group], 0, NULL);
        }
        wgpuComputePassEncoderDispatchWorkgroups(pass, d->workgroups[0], d->workgroups[1], d->workgroups[2]);
        wgpuComputePassEncoderEnd(pass);
        wgpuComputePassEncoderRelease(pass);
        WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
        if (cb) {
            wgpuCommandBufferRelease(cb);
        }
        wgpuCommandEncoderRelease(enc);
        if (wgprof_device_pop_error_scope(dev, message, sizeof message) != WGPROF_OK) {
            free(seen);
            return reject_dispatch(s, dev, g, i, message, error, cap);
        }
    }
    free(seen);
    return WGPROF_OK;
}

static wgprof_status check_limits(const spec *s, const WGPULimits *limits, char *error, size_t cap)
{
    for (size_t i = 0; i < s->dispatch_count; i++) {
        const spec_dispatch *d = &s->dispatches[i];
        for (int k = 0; k < 3; k++) {
            if (d->workgroups[k] > limits->maxComputeWorkgroupsPerDimension) {
                return reject(error, cap, s,
                              "$.dispatches[%zu].workgroups[%d]: %u exceeds the device's limit of %u workgroups per "
                              "dimension",
                              i, k, d->workgroups[k], limits->maxComputeWorkgroupsPerDimension);
            }
        }
        for (size_t b = 0; b < d->binding_count; b++) {
            if (d->bindings[b].group >= 4) {
                return reject(error, cap, s, "$.dispatches[%zu].bindings: group %u: WebGPU has groups 0 to 3", i,
                              d->bindings[b].group);
            }
        }
    }
    return WGPROF_OK;
}

static wgprof_status make_graph(const spec *s, wgprof_device *dev, const wgprof_graph_desc *desc, spec_gpu *g)
{
    wgprof_status st = wgprof_graph_create(dev, desc, &g->graph);
    for (size_t i = 0; i < s->dispatch_count && st == WGPROF_OK; i++) {
        const spec_dispatch *d = &s->dispatches[i];
        const spec_kernel *k = &s->kernels[d->kernel];
        wgprof_node_desc nd = {0};
        nd.pipeline = g->pipelines[d->kernel];
        nd.bind_group_count = g->set_sizes[g->dispatch_set[i]];
        nd.bind_groups = &g->sets[g->dispatch_set[i] * 4];
        memcpy(nd.workgroups, d->workgroups, sizeof nd.workgroups);
        memcpy(nd.workgroup_size, k->workgroup_size, sizeof nd.workgroup_size);
        nd.kernel = d->label;
        nd.dispatch_id = i + 1; /* the spec's dispatch, counted from 1 */
        nd.bytes = d->bytes;
        nd.flops = d->flops;
        for (uint32_t r = 0; r < d->repeat && st == WGPROF_OK; r++) {
            st = wgprof_graph_add(g->graph, &nd, NULL);
        }
    }
    return st;
}

wgprof_status spec_build(const spec *s, wgprof_device *dev, const wgprof_graph_desc *graph_desc,
                         wgprof_shader_checks checks, spec_gpu *g, char *error, size_t cap)
{
    memset(g, 0, sizeof *g);
    error[0] = '\0';
    WGPULimits limits = {0};
    if (wgpuDeviceGetLimits(wgprof_device_webgpu(dev), &limits) != WGPUStatus_Success) {
        return WGPROF_ERR_WEBGPU;
    }
    g->buffers = calloc(s->buffer_count + 1, sizeof *g->buffers);
    g->pipelines = calloc(s->kernel_count + 1, sizeof *g->pipelines);
    if (!g->buffers || !g->pipelines) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    wgprof_status st = check_limits(s, &limits, error, cap);
    if (st == WGPROF_OK) {
        st = make_buffers(s, dev, &limits, g, error, cap);
    }
    if (st == WGPROF_OK) {
        st = make_pipelines(s, dev, checks, g, error, cap);
    }
    if (st == WGPROF_OK) {
        st = make_bind_groups(s, dev, g, error, cap);
    }
    if (st == WGPROF_OK) {
        st = validate_dispatches(s, dev, g, error, cap);
    }
    if (st == WGPROF_OK) {
        st = make_graph(s, dev, graph_desc, g);
    }
    return st;
}

void spec_gpu_free(spec_gpu *g, const spec *s)
{
    wgprof_graph_destroy(g->graph);
    for (size_t i = 0; g->groups && i < g->group_count; i++) {
        if (g->groups[i]) {
            wgpuBindGroupRelease(g->groups[i]);
        }
    }
    for (size_t i = 0; g->pipelines && i < s->kernel_count; i++) {
        if (g->pipelines[i]) {
            wgpuComputePipelineRelease(g->pipelines[i]);
        }
    }
    for (size_t i = 0; g->buffers && i < s->buffer_count; i++) {
        if (g->buffers[i]) {
            wgpuBufferRelease(g->buffers[i]);
        }
    }
    free(g->groups);
    free(g->sets);
    free(g->set_sizes);
    free(g->dispatch_set);
    free(g->pipelines);
    free(g->buffers);
    memset(g, 0, sizeof *g);
}

typedef struct output_bytes {
    const void *data;
    size_t size;
} output_bytes;

static bool write_bytes(FILE *f, void *user, char *error, size_t cap)
{
    (void)error;
    (void)cap;
    const output_bytes *b = user;
    return fwrite(b->data, 1, b->size, f) == b->size;
}

static bool write_output(const spec *s, size_t index, const spec_gpu *g, wgprof_device *dev, bool *timed_out,
                         char *error, size_t cap)
{
    const spec_output *o = &s->outputs[index];
    const spec_buffer *b = &s->buffers[o->buffer];
    WGPUBufferDescriptor bd = {0};
    bd.size = b->size;
    bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    WGPUBuffer staging = wgpuDeviceCreateBuffer(wgprof_device_webgpu(dev), &bd);
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
    wgpuCommandEncoderCopyBufferToBuffer(enc, g->buffers[o->buffer], 0, staging, 0, b->size);
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuQueueSubmit(wgprof_device_queue(dev), 1, &cb);
    wgpuCommandBufferRelease(cb);
    wgpuCommandEncoderRelease(enc);
    bool ok = false;
    wgprof_status st = wgprof_device_map_read(dev, staging, 0, (size_t)b->size);
    if (st != WGPROF_OK) {
        *timed_out = st == WGPROF_ERR_TIMEOUT;
        snprintf(error, cap, "%s: $.outputs[%zu]: reading back buffer \"%s\": %s", s->path, index,
                 show(b->name).text, wgprof_status_str(st));
    } else {
        output_bytes bytes = {wgpuBufferGetConstMappedRange(staging, 0, (size_t)b->size), (size_t)b->size};
        char why[2048];
        /* Messages name the file as the spec gave it, not the real path it resolved to. */
        ok = bytes.data && out_write(o->file, write_bytes, &bytes, why, sizeof why);
        if (!ok) {
            snprintf(error, cap, "%s: $.outputs[%zu].file ('%s'): %s", s->path, index, show(o->display).text,
                     bytes.data ? why : "the buffer could not be mapped");
        }
        wgpuBufferUnmap(staging);
    }
    wgpuBufferRelease(staging);
    return ok && st == WGPROF_OK;
}

bool spec_write_outputs(const spec *s, const spec_gpu *g, wgprof_device *dev, bool *timed_out, char *error,
                        size_t cap)
{
    *timed_out = false;
    for (size_t i = 0; i < s->output_count; i++) {
        if (!write_output(s, i, g, dev, timed_out, error, cap)) {
            return false;
        }
    }
    return true;
}
