/*
 * The GPU side of a spec: buffers with their initial contents, shader modules and pipelines,
 * bind groups, and the graph. What only the device can judge (WGSL that compiles, bindings that
 * match the shader, sizes within its limits) is checked here, each inside a WebGPU error scope
 * so that the message names the spec's place; every dispatch is also encoded once, unsubmitted,
 * so that a binding the shader needs and the spec lacks is found before anything runs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output_file.h"
#include "spec.h"
#include "wgprof/device_util.h"

/* A name from the spec, escaped for a message. */
typedef struct shown_name {
    char text[256];
} shown_name;

static shown_name show(const char *text)
{
    shown_name n = {""};
    spec_escape(n.text, sizeof n.text, text ? text : "", false);
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

static wgprof_status fill_buffer(const spec *s, size_t index, WGPUQueue queue, WGPUBuffer buffer, char *error,
                                 size_t cap)
{
    const spec_buffer *b = &s->buffers[index];
    if (b->init == SPEC_INIT_ZEROS) {
        return WGPROF_OK; /* WebGPU buffers start zeroed */
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
        fd = spec_open_regular(b->file, 0, &size, &dev, &ino, why, sizeof why);
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

static wgprof_status make_pipelines(const spec *s, wgprof_device *dev, spec_gpu *g, char *error, size_t cap)
{
    WGPUDevice device = wgprof_device_webgpu(dev);
    char message[2048];
    for (size_t i = 0; i < s->kernel_count; i++) {
        const spec_kernel *k = &s->kernels[i];
        WGPUShaderSourceWGSL src = {0};
        src.chain.sType = WGPUSType_ShaderSourceWGSL;
        src.code = (WGPUStringView){k->source, WGPU_STRLEN};
        WGPUShaderModuleDescriptor md = {0};
        md.nextInChain = &src.chain;
        md.label = (WGPUStringView){k->name, WGPU_STRLEN};
        wgprof_device_push_error_scope(dev);
        WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &md);
        if (wgprof_device_pop_error_scope(dev, message, sizeof message) != WGPROF_OK) {
            if (module) {
                wgpuShaderModuleRelease(module);
            }
            return reject(error, cap, s, "$.kernels[%zu] \"%s\": WGSL from %s does not compile:\n%s", i,
                          show(k->name).text, show(k->origin).text, message);
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
            return reject(error, cap, s, "$.kernels[%zu] \"%s\": no pipeline for entry point \"%s\":\n%s", i,
                          show(k->name).text, show(k->entry).text, message);
        }
        if (k->workgroup_size_why) {
            /* Reports never show a size that was guessed. */
            return reject(error, cap, s, "$.kernels[%zu] \"%s\": cannot tell the workgroup size: %s; give it as "
                          "workgroup_size", i, show(k->name).text, k->workgroup_size_why);
        }
    }
    return WGPROF_OK;
}

static uint32_t groups_used(const spec_dispatch *d)
{
    uint32_t n = 0;
    for (size_t b = 0; b < d->binding_count; b++) {
        n = d->bindings[b].group + 1 > n ? d->bindings[b].group + 1 : n;
    }
    return n;
}

static wgprof_status make_bind_groups(const spec *s, wgprof_device *dev, spec_gpu *g, char *error, size_t cap)
{
    WGPUDevice device = wgprof_device_webgpu(dev);
    char message[2048];
    for (size_t i = 0; i < s->dispatch_count; i++) {
        const spec_dispatch *d = &s->dispatches[i];
        for (uint32_t group = 0; group < groups_used(d); group++) {
            WGPUBindGroupEntry *entries = calloc(d->binding_count + 1, sizeof *entries);
            if (!entries) {
                return WGPROF_ERR_OUT_OF_MEMORY;
            }
            uint32_t count = 0;
            for (size_t b = 0; b < d->binding_count; b++) {
                if (d->bindings[b].group == group) {
                    entries[count].binding = d->bindings[b].binding;
                    entries[count].buffer = g->buffers[d->bindings[b].buffer];
                    entries[count].size = s->buffers[d->bindings[b].buffer].size;
                    count++;
                }
            }
            wgprof_device_push_error_scope(dev);
            WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(g->pipelines[d->kernel], group);
            WGPUBindGroupDescriptor bd = {0};
            bd.layout = layout;
            bd.entryCount = count;
            bd.entries = entries;
            WGPUBindGroup bg = wgpuDeviceCreateBindGroup(device, &bd);
            wgprof_status st = wgprof_device_pop_error_scope(dev, message, sizeof message);
            free(entries);
            if (layout) {
                wgpuBindGroupLayoutRelease(layout);
            }
            g->groups[i * 4 + group] = bg;
            if (st != WGPROF_OK) {
                return reject(error, cap, s, "$.dispatches[%zu].bindings: group %u does not match kernel \"%s\":\n%s",
                              i, group, show(s->kernels[d->kernel].name).text, message);
            }
        }
    }
    return WGPROF_OK;
}

/* Encodes each dispatch alone, without submitting, so that the device validates it now. */
static wgprof_status validate_dispatches(const spec *s, wgprof_device *dev, const spec_gpu *g, char *error,
                                         size_t cap)
{
    char message[2048];
    for (size_t i = 0; i < s->dispatch_count; i++) {
        const spec_dispatch *d = &s->dispatches[i];
        wgprof_device_push_error_scope(dev);
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(wgprof_device_webgpu(dev), NULL);
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
        wgpuComputePassEncoderSetPipeline(pass, g->pipelines[d->kernel]);
        for (uint32_t group = 0; group < groups_used(d); group++) {
            wgpuComputePassEncoderSetBindGroup(pass, group, g->groups[i * 4 + group], 0, NULL);
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
            return reject(error, cap, s, "$.dispatches[%zu] (kernel \"%s\"): the device rejects this dispatch:\n%s",
                          i, show(s->kernels[d->kernel].name).text, message);
        }
    }
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
        nd.bind_group_count = groups_used(d);
        nd.bind_groups = &g->groups[i * 4];
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

wgprof_status spec_build(const spec *s, wgprof_device *dev, const wgprof_graph_desc *graph_desc, spec_gpu *g,
                         char *error, size_t cap)
{
    memset(g, 0, sizeof *g);
    error[0] = '\0';
    WGPULimits limits = {0};
    if (wgpuDeviceGetLimits(wgprof_device_webgpu(dev), &limits) != WGPUStatus_Success) {
        return WGPROF_ERR_WEBGPU;
    }
    g->buffers = calloc(s->buffer_count + 1, sizeof *g->buffers);
    g->pipelines = calloc(s->kernel_count + 1, sizeof *g->pipelines);
    g->group_count = s->dispatch_count * 4;
    g->groups = calloc(g->group_count + 1, sizeof *g->groups);
    if (!g->buffers || !g->pipelines || !g->groups) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    wgprof_status st = check_limits(s, &limits, error, cap);
    if (st == WGPROF_OK) {
        st = make_buffers(s, dev, &limits, g, error, cap);
    }
    if (st == WGPROF_OK) {
        st = make_pipelines(s, dev, g, error, cap);
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
