/* With profiling off, execute() must make exactly the WebGPU calls of a plain executor: no
 * query set, no extra pass, no extra buffer, no call of any other kind. Every WebGPU call
 * libwgprof makes goes through its table of the implementation's functions; the test installs a
 * table that logs each call's name on its way to the implementation (src/testing.h), for every
 * function of the WebGPU headers. The plain executor (plain_executor.c, written the way an engine
 * without wgprof would write it) is compiled into this test with each of its wgpu* calls sent
 * through the same table (CMakeLists.txt), so one log compares the two. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plain_executor.h"
#include "support.h"
#include "testing.h"

/* ---- the call log ---- */

static char g_log[1 << 16];
static size_t g_len;
static bool g_recording;

/* Waiting repeats as often as the GPU takes, through whichever calls the implementation drives
 * its callbacks with: each is logged as "(wait)", and one line stands for a run of them. */
static const char *const WAIT_CALLS[] = {"wgpuInstanceProcessEvents", "wgpuInstanceWaitAny", "wgpuDevicePoll"};

static void log_call(const char *name, void *user)
{
    (void)user;
    if (!g_recording) {
        return;
    }
    for (size_t i = 0; i < sizeof WAIT_CALLS / sizeof WAIT_CALLS[0]; i++) {
        if (strcmp(name, WAIT_CALLS[i]) == 0) {
            name = "(wait)";
        }
    }
    size_t n = strlen(name);
    if (strcmp(name, "(wait)") == 0 && g_len >= n + 1 && strncmp(g_log + g_len - n - 1, name, n) == 0) {
        return;
    }
    if (g_len + n + 2 < sizeof g_log) {
        memcpy(g_log + g_len, name, n);
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

/* The calls of one execute of a graph made beforehand. */
static char *graph_calls(wgprof_device *dev, const ref_node *nodes, int count, wgprof_layout layout,
                         wgprof_profiling profiling)
{
    wgprof_graph *g = make_graph(dev, nodes, count, layout, profiling);
    start_log();
    CHECK_OK(wgprof_graph_execute(g));
    char *calls = stop_log();
    wgprof_graph_destroy(g);
    return calls;
}

/* Making and destroying an unprofiled graph takes and drops references to what its nodes use,
 * and calls nothing else: no query set, no buffer. */
static void check_setup_calls(wgprof_device *dev, const ref_node *nodes, int count, wgprof_layout layout)
{
    static const char *const REFERENCES[] = {"wgpuComputePipelineAddRef", "wgpuComputePipelineRelease",
                                             "wgpuBindGroupAddRef", "wgpuBindGroupRelease"};
    start_log();
    wgprof_graph_destroy(make_graph(dev, nodes, count, layout, WGPROF_PROFILING_OFF));
    char *calls = stop_log();
    for (char *save = NULL, *line = strtok_r(calls, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        bool reference = false;
        for (size_t i = 0; i < sizeof REFERENCES / sizeof REFERENCES[0]; i++) {
            reference = reference || strcmp(line, REFERENCES[i]) == 0;
        }
        CHECK_MSG(reference, "making an unprofiled graph called %s", line);
    }
    free(calls);
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
    /* The log did see both sides' calls. */
    CHECK(strstr(reference, "wgpuComputePassEncoderSetPipeline") != NULL);
    CHECK(strstr(off, "wgpuComputePassEncoderDispatchWorkgroups") != NULL);
    /* The same comparison tells a profiled run apart: it adds timestamps, resolve and map. */
    char *on = graph_calls(dev, nodes, count, layout, WGPROF_PROFILING_ON);
    CHECK(strcmp(reference, on) != 0);
    CHECK(strstr(on, "wgpuCommandEncoderResolveQuerySet") && strstr(on, "wgpuBufferMapAsync"));
    check_setup_calls(dev, nodes, count, layout);
    free(reference);
    free(off);
    free(on);
}

int main(void)
{
    /* Before anything of wgprof's runs: every call of libwgprof's goes through the log. */
    CHECK(wgprof__webgpu_log_install(log_call, NULL));
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
