/* With profiling off, execute() must make exactly the WebGPU calls of a plain executor: no
 * query set, no extra pass, no extra buffer. The test links wgprof statically with the linker's
 * --wrap, so that every call below is logged on its way to the real implementation, then
 * compares the calls of an unprofiled graph with those of the plain executor (plain_executor.c),
 * written the way an engine without wgprof would write it. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plain_executor.h"
#include "support.h"

/* ---- the call log ---- */

static char g_log[1 << 16];
static size_t g_len;
static bool g_recording;

static void log_call(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_call(const char *fmt, ...)
{
    if (!g_recording) {
        return;
    }
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* Event pumping repeats as often as the GPU takes; one line stands for a run of them. */
    size_t n = strlen(line);
    if (g_len >= n + 1 && strncmp(g_log + g_len - n - 1, line, n) == 0 && strcmp(line, "pump") == 0) {
        return;
    }
    if (g_len + n + 2 < sizeof g_log) {
        memcpy(g_log + g_len, line, n);
        g_len += n;
        g_log[g_len++] = '\n';
        g_log[g_len] = '\0';
    }
}

static void start_log(void)
{
    g_len = 0;
    g_log[0] = '\0';
    g_recording = true;
}

static char *stop_log(void)
{
    g_recording = false;
    char *copy = malloc(g_len + 1);
    memcpy(copy, g_log, g_len + 1);
    return copy;
}

/* ---- wrappers: log, then call the real function ---- */

#define REAL(name) __real_##name
/* Weak, as every wgpu* reference of wgprof's programs (cmake/webgpu_weak.cmake): the linker
 * turns __real_X into X, which the implementation loaded at run time defines. */
#define WRAP(ret, name, params, args, ...)                                                         \
    ret REAL(name) params __attribute__((weak));                                                   \
    ret __wrap_##name params;                                                                      \
    ret __wrap_##name params                                                                       \
    {                                                                                              \
        log_call(__VA_ARGS__);                                                                     \
        return REAL(name) args;                                                                    \
    }
#define WRAPV(name, params, args, ...)                                                             \
    void REAL(name) params __attribute__((weak));                                                  \
    void __wrap_##name params;                                                                     \
    void __wrap_##name params                                                                      \
    {                                                                                              \
        log_call(__VA_ARGS__);                                                                     \
        REAL(name) args;                                                                           \
    }

WRAP(WGPUCommandEncoder, wgpuDeviceCreateCommandEncoder,
     (WGPUDevice d, WGPUCommandEncoderDescriptor const *desc), (d, desc), "CreateCommandEncoder(desc=%s)",
     desc ? "set" : "null")
WRAP(WGPUComputePassEncoder, wgpuCommandEncoderBeginComputePass,
     (WGPUCommandEncoder e, WGPUComputePassDescriptor const *desc), (e, desc),
     "BeginComputePass(desc=%s, timestampWrites=%s)", desc ? "set" : "null",
     desc && desc->timestampWrites ? "set" : "null")
WRAPV(wgpuComputePassEncoderSetPipeline, (WGPUComputePassEncoder p, WGPUComputePipeline pl), (p, pl),
     "SetPipeline(%p)", (void *)pl)
WRAPV(wgpuComputePassEncoderSetBindGroup,
     (WGPUComputePassEncoder p, uint32_t i, WGPUBindGroup g, size_t n, uint32_t const *o), (p, i, g, n, o),
     "SetBindGroup(%u, %p, %zu)", i, (void *)g, n)
WRAPV(wgpuComputePassEncoderDispatchWorkgroups, (WGPUComputePassEncoder p, uint32_t x, uint32_t y, uint32_t z),
     (p, x, y, z), "DispatchWorkgroups(%u, %u, %u)", x, y, z)
WRAPV(wgpuComputePassEncoderEnd, (WGPUComputePassEncoder p), (p), "End")
WRAPV(wgpuComputePassEncoderRelease, (WGPUComputePassEncoder p), (p), "ReleasePass")
WRAP(WGPUCommandBuffer, wgpuCommandEncoderFinish, (WGPUCommandEncoder e, WGPUCommandBufferDescriptor const *d),
     (e, d), "Finish(desc=%s)", d ? "set" : "null")
WRAPV(wgpuCommandEncoderRelease, (WGPUCommandEncoder e), (e), "ReleaseEncoder")
WRAPV(wgpuQueueSubmit, (WGPUQueue q, size_t n, WGPUCommandBuffer const *c), (q, n, c), "Submit(%zu)", n)
WRAPV(wgpuCommandBufferRelease, (WGPUCommandBuffer c), (c), "ReleaseCommandBuffer")
WRAP(WGPUFuture, wgpuQueueOnSubmittedWorkDone, (WGPUQueue q, WGPUQueueWorkDoneCallbackInfo i), (q, i),
     "OnSubmittedWorkDone")
WRAPV(wgpuInstanceProcessEvents, (WGPUInstance i), (i), "pump")
WRAP(WGPUWaitStatus, wgpuInstanceWaitAny, (WGPUInstance i, size_t n, WGPUFutureWaitInfo *f, uint64_t t), (i, n, f, t),
     "pump")
WRAP(WGPUQuerySet, wgpuDeviceCreateQuerySet, (WGPUDevice d, WGPUQuerySetDescriptor const *q), (d, q),
     "CreateQuerySet")
WRAP(WGPUBuffer, wgpuDeviceCreateBuffer, (WGPUDevice d, WGPUBufferDescriptor const *b), (d, b), "CreateBuffer")
WRAPV(wgpuCommandEncoderResolveQuerySet,
     (WGPUCommandEncoder e, WGPUQuerySet q, uint32_t f, uint32_t c, WGPUBuffer b, uint64_t o), (e, q, f, c, b, o),
     "ResolveQuerySet")
WRAPV(wgpuCommandEncoderCopyBufferToBuffer,
     (WGPUCommandEncoder e, WGPUBuffer s, uint64_t so, WGPUBuffer d, uint64_t dof, uint64_t n), (e, s, so, d, dof, n),
     "CopyBufferToBuffer")
WRAP(WGPUFuture, wgpuBufferMapAsync, (WGPUBuffer b, WGPUMapMode m, size_t o, size_t s, WGPUBufferMapCallbackInfo i),
     (b, m, o, s, i), "MapAsync")

/* ---- the comparison ---- */

typedef struct ref_node {
    WGPUComputePipeline pipeline;
    WGPUBindGroup group;
    uint32_t workgroups;
} ref_node;

static wgprof_graph *make_graph(wgprof_device *dev, const ref_node *nodes, int count, wgprof_layout layout,
                                wgprof_profiling profiling)
{
    wgprof_graph_desc gd = {.layout = layout, .profiling = profiling, .strategy = WGPROF_STRATEGY_PASS};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    for (int i = 0; i < count; i++) {
        wgprof_node_desc nd = {0};
        nd.pipeline = nodes[i].pipeline;
        nd.bind_group_count = 1;
        nd.bind_groups = &nodes[i].group;
        nd.workgroups[0] = nodes[i].workgroups;
        nd.kernel = "k";
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    }
    return g;
}

static char *graph_calls(wgprof_device *dev, const ref_node *nodes, int count, wgprof_layout layout,
                         wgprof_profiling profiling)
{
    start_log();
    wgprof_graph *g = make_graph(dev, nodes, count, layout, profiling);
    CHECK_OK(wgprof_graph_execute(g));
    wgprof_graph_destroy(g);
    return stop_log();
}

static void compare(wgprof_device *dev, const ref_node *nodes, int count, wgprof_layout layout)
{
    wgprof_graph *nodes_only = make_graph(dev, nodes, count, layout, WGPROF_PROFILING_OFF);
    start_log();
    plain_execute(dev, nodes_only, layout == WGPROF_LAYOUT_SINGLE_PASS);
    char *reference = stop_log();
    wgprof_graph_destroy(nodes_only);
    char *off = graph_calls(dev, nodes, count, layout, WGPROF_PROFILING_OFF);
    CHECK_MSG(strcmp(reference, off) == 0, "calls differ:\n--- reference\n%s--- wgprof, profiling off\n%s", reference,
              off);
    CHECK(strstr(off, "SetPipeline") != NULL); /* the log did see the calls */
    /* The same comparison tells a profiled run apart: it adds timestamps, resolve and map. */
    char *on = graph_calls(dev, nodes, count, layout, WGPROF_PROFILING_ON);
    CHECK(strcmp(reference, on) != 0);
    CHECK(strstr(on, "timestampWrites=set") && strstr(on, "ResolveQuerySet") && strstr(on, "MapAsync"));
    CHECK(strstr(off, "CreateQuerySet") == NULL && strstr(off, "CreateBuffer") == NULL);
    free(reference);
    free(off);
    free(on);
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    ts_busy a, b;
    CHECK(ts_busy_init(dev, &a, 2, 10));
    CHECK(ts_busy_init(dev, &b, 3, 20));
    ref_node nodes[3] = {{a.pipeline, a.group, 2}, {b.pipeline, b.group, 3}, {a.pipeline, a.group, 2}};
    compare(dev, nodes, 3, WGPROF_LAYOUT_PASS_PER_DISPATCH);
    compare(dev, nodes, 3, WGPROF_LAYOUT_SINGLE_PASS);
    ts_busy_free(&a);
    ts_busy_free(&b);
    wgprof_device_destroy(dev);
    return check_summary();
}
