/*
 * Where the time of a profiled execute goes, and what each way of placing timestamps costs, on
 * the device at hand. Prints one JSON object.
 *
 * The decode step of `wgprof demo`, encoded here with WebGPU calls directly, so that the ways
 * of placing timestamps are compared on equal terms:
 *   none            no timestamps (the plain executor)
 *   pass            each pass's timestampWrites: 2 per dispatch
 *   inside          WriteTimestamp in the pass before and after each dispatch: 2 per dispatch
 *   inside_shared   WriteTimestamp before the first dispatch and after each one: N + 1, a
 *                   dispatch's begin is the previous one's end
 *   encoder_shared  the same N + 1 written by the command encoder between passes
 *   pass_shared     the same N + 1 as pass writes: the first pass writes its begin and end,
 *                   every later pass only its end (core WebGPU, no native feature)
 * each with the readback (resolve, copy, blocking map) and without it (timestamps written but
 * never read; the wait is for the queue), which separates writing timestamps from reading them.
 *
 * Every execute is split into encode (create encoder .. finish), submit, and wait. A second
 * section brackets each command buffer with two encoder timestamps, which gives the GPU's span
 * of it, and reads the schemes' own timestamps: how far a dispatch's begin lies after the
 * previous dispatch's end. A last section samples the GPU clock against the host clock with
 * small synchronous submissions (what a calibration has to work with).
 *
 * Variants run interleaved, one execute each in turn, so that drift of the machine spreads
 * evenly over them; figures are medians over all executes.
 *
 * With --frames FILE, each bracketed execute's two timestamps (ticks of the GPU's clock) go to
 * FILE, a line each: "LAYOUT SCHEME READBACK BEGIN END". A profiler's per-dispatch records of
 * the same run carry ticks of the same clock, so each execute's records are found by the frame
 * they lie in and their durations added up against its span (bench/layer_span.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>

#include <webgpu/webgpu.h>

/* In-pass timestamps: an extension that wgpu-native and Dawn both export with this signature
 * (wgpu.h declares it; Dawn ships no header). */
void wgpuComputePassEncoderWriteTimestamp(WGPUComputePassEncoder pass, WGPUQuerySet set, uint32_t index);

#include "bench_util.h"
#include "demo.h"

enum { NONE, PASS, INSIDE, INSIDE_SHARED, ENCODER_SHARED, PASS_SHARED, SCHEMES };
static const char *const scheme_names[SCHEMES] = {"none", "pass", "inside", "inside_shared", "encoder_shared",
                                                  "pass_shared"};
enum { QUERIES = 4096, MAX_SAMPLES = 4096 };

typedef struct bench {
    wgprof_device *dev;
    WGPUDevice device;
    WGPUQueue queue;
    wgprof_graph *graph; /* holds the nodes; never executed */
    uint32_t nodes;
    WGPUQuerySet set;
    WGPUBuffer resolve, readback;
    double period;
} bench;

static void die(const char *what)
{
    fprintf(stderr, "bench_phases: %s\n", what);
    exit(1);
}

static void encode_dispatch(WGPUComputePassEncoder pass, const wgprof_node_desc *n)
{
    wgpuComputePassEncoderSetPipeline(pass, n->pipeline);
    for (uint32_t k = 0; k < n->bind_group_count; k++) {
        wgpuComputePassEncoderSetBindGroup(pass, k, n->bind_groups[k], 0, NULL);
    }
    wgpuComputePassEncoderDispatchWorkgroups(pass, n->workgroups[0], n->workgroups[1], n->workgroups[2]);
}

static void end_pass(WGPUComputePassEncoder pass)
{
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
}

/* Encodes the graph with `scheme`, its queries from `q`; returns the next free query. */
static uint32_t encode_scheme(const bench *b, WGPUCommandEncoder enc, int scheme, bool single_pass, uint32_t q)
{
    wgprof_node_desc n;
    WGPUComputePassEncoder pass = NULL;
    if (single_pass) {
        pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
    }
    if (scheme == INSIDE_SHARED && single_pass) {
        wgpuComputePassEncoderWriteTimestamp(pass, b->set, q++); /* else in the first pass, below */
    }
    if (scheme == ENCODER_SHARED) {
        wgpuCommandEncoderWriteTimestamp(enc, b->set, q++);
    }
    for (uint32_t i = 0; i < b->nodes && wgprof_graph_node(b->graph, i, &n) == WGPROF_OK; i++) {
        if (!single_pass) {
            WGPUPassTimestampWrites tw = {.querySet = b->set, .beginningOfPassWriteIndex = q,
                                          .endOfPassWriteIndex = q + 1};
            if (scheme == PASS_SHARED && i > 0) {
                tw.beginningOfPassWriteIndex = WGPU_QUERY_SET_INDEX_UNDEFINED;
                tw.endOfPassWriteIndex = q;
            }
            bool writes = scheme == PASS || scheme == PASS_SHARED;
            WGPUComputePassDescriptor pd = {.timestampWrites = writes ? &tw : NULL};
            pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
            q += scheme == PASS || (scheme == PASS_SHARED && i == 0) ? 2 : scheme == PASS_SHARED ? 1 : 0;
            if (scheme == INSIDE_SHARED && i == 0) {
                wgpuComputePassEncoderWriteTimestamp(pass, b->set, q++);
            }
        }
        if (scheme == INSIDE) {
            wgpuComputePassEncoderWriteTimestamp(pass, b->set, q++);
        }
        encode_dispatch(pass, &n);
        if (scheme == INSIDE || scheme == INSIDE_SHARED) {
            wgpuComputePassEncoderWriteTimestamp(pass, b->set, q++);
        }
        if (!single_pass) {
            end_pass(pass);
            if (scheme == ENCODER_SHARED) {
                wgpuCommandEncoderWriteTimestamp(enc, b->set, q++);
            }
        }
    }
    if (single_pass) {
        end_pass(pass);
    }
    return q;
}

static void on_done(WGPUQueueWorkDoneStatus s, WGPUStringView m, void *done, void *unused)
{
    (void)s;
    (void)m;
    (void)unused;
    *(volatile bool *)done = true;
}

static void on_mapped(WGPUMapAsyncStatus s, WGPUStringView m, void *done, void *unused)
{
    (void)m;
    (void)unused;
    if (s != WGPUMapAsyncStatus_Success) {
        die("a map failed");
    }
    *(volatile bool *)done = true;
}

/* Blocks on wgpu-native's wgpuDevicePoll where the implementation has it (looked up at run
 * time: Dawn has none), else spins on wgpuInstanceProcessEvents. */
static void wait_for(const bench *b, volatile bool *done)
{
    WGPUBool (*poll)(WGPUDevice, WGPUBool, const void *) = NULL;
    *(void **)&poll = dlsym(RTLD_DEFAULT, "wgpuDevicePoll");
    while (!*done) {
        if (poll) {
            poll(b->device, 1, NULL);
        } else {
            wgpuInstanceProcessEvents(wgprof_device_instance(b->dev));
        }
    }
}

typedef struct phases {
    double encode, submit, wait, wall; /* seconds */
} phases;

/* One execute; with `frame`, two encoder timestamps bracket the command buffer (queries 0 and
 * the last), and the readings are copied to `ticks`. */
static phases execute(const bench *b, int scheme, bool single_pass, bool readback, bool frame, uint64_t *ticks,
                      uint32_t *used)
{
    phases p;
    double t0 = bench_now_s();
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(b->device, NULL);
    uint32_t q = 0;
    if (frame) {
        wgpuCommandEncoderWriteTimestamp(enc, b->set, q++);
    }
    q = encode_scheme(b, enc, scheme, single_pass, q);
    if (frame) {
        wgpuCommandEncoderWriteTimestamp(enc, b->set, q++);
    }
    if (readback && q > 0) {
        wgpuCommandEncoderResolveQuerySet(enc, b->set, 0, q, b->resolve, 0);
        wgpuCommandEncoderCopyBufferToBuffer(enc, b->resolve, 0, b->readback, 0, q * 8ull);
    }
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    double t1 = bench_now_s();
    wgpuQueueSubmit(b->queue, 1, &cb);
    wgpuCommandBufferRelease(cb);
    double t2 = bench_now_s();
    volatile bool done = false;
    if (readback && q > 0) {
        WGPUBufferMapCallbackInfo info = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_mapped,
                                          .userdata1 = (void *)&done};
        wgpuBufferMapAsync(b->readback, WGPUMapMode_Read, 0, q * 8ull, info);
        wait_for(b, &done);
        const uint64_t *mapped = wgpuBufferGetConstMappedRange(b->readback, 0, q * 8ull);
        if (ticks && mapped) {
            memcpy(ticks, mapped, q * 8ull);
        }
        wgpuBufferUnmap(b->readback);
    } else {
        WGPUQueueWorkDoneCallbackInfo info = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_done,
                                              .userdata1 = (void *)&done};
        wgpuQueueOnSubmittedWorkDone(b->queue, info);
        wait_for(b, &done);
    }
    double t3 = bench_now_s();
    p.encode = t1 - t0;
    p.submit = t2 - t1;
    p.wait = t3 - t2;
    p.wall = t3 - t0;
    if (used) {
        *used = q;
    }
    return p;
}

typedef struct variant {
    int scheme;
    bool single_pass;
    bool readback;
    double encode[MAX_SAMPLES], submit[MAX_SAMPLES], wait[MAX_SAMPLES], wall[MAX_SAMPLES];
    double span[MAX_SAMPLES], gap[MAX_SAMPLES], busy[MAX_SAMPLES];
    uint64_t frame[MAX_SAMPLES][2]; /* the bracketing timestamps, ticks */
    int n, spans;
} variant;

static const char *layout_name(bool single_pass) { return single_pass ? "single_pass" : "pass_per_dispatch"; }

static void print_variant(variant *v, bool first)
{
    printf("%s    {\"layout\": \"%s\", \"scheme\": \"%s\", \"readback\": %s, \"executes\": %d, "
           "\"median_us\": {\"encode\": %.2f, \"submit\": %.2f, \"wait\": %.2f, \"wall\": %.2f}",
           first ? "" : ",\n", layout_name(v->single_pass), scheme_names[v->scheme], v->readback ? "true" : "false",
           v->n, bench_median(v->encode, v->n) * 1e6, bench_median(v->submit, v->n) * 1e6,
           bench_median(v->wait, v->n) * 1e6, bench_median(v->wall, v->n) * 1e6);
    if (v->spans) {
        printf(", \"gpu_span_us\": %.2f, \"dispatch_sum_us\": %.2f", bench_median(v->span, v->spans) * 1e-3,
               bench_median(v->busy, v->spans) * 1e-3);
        if (v->scheme == PASS || v->scheme == INSIDE) {
            printf(", \"median_begin_after_previous_end_ns\": %.1f", bench_median(v->gap, v->spans));
        }
    }
    printf("}");
}

/* From one frame-bracketed execute: the GPU span, the sum of the scheme's durations, and the
 * median distance of a begin from the previous end (2-per-dispatch schemes). */
static void read_frame(const bench *b, variant *v, const uint64_t *t, uint32_t used)
{
    double p = b->period;
    v->span[v->spans] = (double)(t[used - 1] - t[0]) * p;
    v->frame[v->spans][0] = t[0];
    v->frame[v->spans][1] = t[used - 1];
    double busy = 0, gaps[MAX_SAMPLES];
    int ngaps = 0;
    const uint64_t *s = t + 1;
    uint32_t n = b->nodes;
    for (uint32_t i = 0; i < n; i++) {
        bool pairs = v->scheme == PASS || v->scheme == INSIDE;
        if (v->scheme == NONE) {
            break;
        }
        uint64_t begin = pairs ? s[2 * i] : s[i], end = pairs ? s[2 * i + 1] : s[i + 1];
        busy += (double)(end - begin) * p;
        if (pairs && i > 0 && ngaps < MAX_SAMPLES) {
            gaps[ngaps++] = (double)(int64_t)(begin - s[2 * i - 1]) * p;
        }
    }
    v->busy[v->spans] = busy;
    v->gap[v->spans] = ngaps ? bench_median(gaps, ngaps) : 0;
    v->spans++;
}

/* ---- clock sampling: one timestamp per small synchronous submission ---- */

static void sample_clock(const bench *b, int samples)
{
    double lo = -INFINITY, hi = INFINITY, latency[MAX_SAMPLES] = {0}, offsets[MAX_SAMPLES] = {0};
    for (int i = 0; i < samples; i++) {
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(b->device, NULL);
        wgpuCommandEncoderWriteTimestamp(enc, b->set, 0);
        wgpuCommandEncoderResolveQuerySet(enc, b->set, 0, 1, b->resolve, 0);
        wgpuCommandEncoderCopyBufferToBuffer(enc, b->resolve, 0, b->readback, 0, 8);
        WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
        wgpuCommandEncoderRelease(enc);
        double t0 = bench_now_s();
        wgpuQueueSubmit(b->queue, 1, &cb);
        wgpuCommandBufferRelease(cb);
        volatile bool done = false;
        WGPUBufferMapCallbackInfo info = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_mapped,
                                          .userdata1 = (void *)&done};
        wgpuBufferMapAsync(b->readback, WGPUMapMode_Read, 0, 8, info);
        wait_for(b, &done);
        double t1 = bench_now_s();
        const uint64_t *mapped = wgpuBufferGetConstMappedRange(b->readback, 0, 8);
        double g = mapped ? (double)mapped[0] * b->period * 1e-9 : 0;
        wgpuBufferUnmap(b->readback);
        lo = fmax(lo, t0 - g);
        hi = fmin(hi, t1 - g);
        latency[i] = (t1 - t0) * 1e6;
        offsets[i] = ((t0 + t1) / 2 - g) * 1e6;
    }
    double first = offsets[0];
    double spread_lo = 0, spread_hi = 0;
    for (int i = 0; i < samples; i++) {
        spread_lo = fmin(spread_lo, offsets[i] - first);
        spread_hi = fmax(spread_hi, offsets[i] - first);
    }
    printf("  \"clock\": {\"samples\": %d, \"offset_s\": %.9f, \"bound_width_us\": %.3f, "
           "\"median_submit_to_done_us\": %.2f, \"midpoint_spread_us\": [%.2f, %.2f]}\n",
           samples, (lo + hi) / 2, (hi - lo) * 1e6, bench_median(latency, samples), spread_lo, spread_hi);
}

/* Each variant's bracketing timestamps, a line each (see the head of this file). */
static bool write_frames(const char *path, const variant *variants, int nv)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return false;
    }
    for (int v = 0; v < nv; v++) {
        const variant *x = &variants[v];
        for (int i = 0; i < x->spans; i++) {
            fprintf(f, "%s %s %s %llu %llu\n", layout_name(x->single_pass), scheme_names[x->scheme],
                    x->readback ? "true" : "false", (unsigned long long)x->frame[i][0],
                    (unsigned long long)x->frame[i][1]);
        }
    }
    return fclose(f) == 0;
}

int main(int argc, char **argv)
{
    int executes = 200;
    const char *frames = NULL;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
            frames = argv[++a];
        } else {
            char *end = NULL;
            executes = (int)strtol(argv[a], &end, 10);
            if (end == argv[a] || *end) {
                executes = 0;
            }
        }
    }
    if (executes < 1 || executes > MAX_SAMPLES) {
        fprintf(stderr, "usage: bench_phases [EXECUTES per variant (1..%d, default 200)] [--frames FILE]\n",
                MAX_SAMPLES);
        return 2;
    }
    bench b = {0};
    if (wgprof_device_create(NULL, &b.dev) != WGPROF_OK) {
        die("no device");
    }
    const wgprof_device_info *info = wgprof_device_describe(b.dev);
    if (!info->timestamp_inside_passes || !info->timestamp_inside_encoders) {
        die("this device lacks in-pass or in-encoder timestamps");
    }
    b.device = wgprof_device_webgpu(b.dev);
    b.queue = wgprof_device_queue(b.dev);
    b.period = wgprof_device_timestamp_period(b.dev);
    demo_config cfg = {.layers = 2, .dim = 256, .heads = 4, .ffn = 512, .vocab = 1024, .max_seq = 64, .pos = 16};
    demo_model *model = NULL;
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_OFF};
    if (demo_model_create(&cfg, &model) != WGPROF_OK || wgprof_graph_create(b.dev, &gd, &b.graph) != WGPROF_OK ||
        demo_model_build(model, b.dev, b.graph) != WGPROF_OK) {
        die("building the decode step");
    }
    demo_model_set_step(model, b.dev);
    b.nodes = wgprof_graph_node_count(b.graph);
    WGPUQuerySetDescriptor qd = {.type = WGPUQueryType_Timestamp, .count = QUERIES};
    b.set = wgpuDeviceCreateQuerySet(b.device, &qd);
    WGPUBufferDescriptor rd = {.size = QUERIES * 8, .usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc};
    b.resolve = wgpuDeviceCreateBuffer(b.device, &rd);
    WGPUBufferDescriptor md = {.size = QUERIES * 8, .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst};
    b.readback = wgpuDeviceCreateBuffer(b.device, &md);

    static variant variants[2 * SCHEMES * 2];
    int nv = 0;
    for (int single = 0; single < 2; single++) {
        for (int s = 0; s < SCHEMES; s++) {
            if (single && (s == PASS || s == ENCODER_SHARED || s == PASS_SHARED)) {
                continue; /* these need a pass per dispatch */
            }
            for (int rb = 0; rb < 2; rb++) {
                if (s == NONE && rb) {
                    continue;
                }
                variants[nv++] = (variant){.scheme = s, .single_pass = single, .readback = rb};
            }
        }
    }
    for (int v = 0; v < nv; v++) { /* warm-up */
        execute(&b, variants[v].scheme, variants[v].single_pass, variants[v].readback, false, NULL, NULL);
    }
    for (int i = 0; i < executes; i++) {
        for (int v = 0; v < nv; v++) {
            variant *x = &variants[v];
            phases p = execute(&b, x->scheme, x->single_pass, x->readback, false, NULL, NULL);
            x->encode[x->n] = p.encode;
            x->submit[x->n] = p.submit;
            x->wait[x->n] = p.wait;
            x->wall[x->n] = p.wall;
            x->n++;
        }
    }
    static uint64_t ticks[QUERIES];
    for (int i = 0; i < executes; i++) {
        for (int v = 0; v < nv; v++) {
            variant *x = &variants[v];
            if (!x->readback && x->scheme != NONE) {
                continue;
            }
            uint32_t used = 0;
            execute(&b, x->scheme, x->single_pass, true, true, ticks, &used);
            read_frame(&b, x, ticks, used);
        }
    }
    printf("{\n  \"adapter\": \"%s\", \"dispatches\": %u, \"period_ns\": %.6g,\n  \"variants\": [\n", info->adapter,
           b.nodes, b.period);
    for (int v = 0; v < nv; v++) {
        print_variant(&variants[v], v == 0);
    }
    printf("\n  ],\n");
    sample_clock(&b, executes < 256 ? executes : 256);
    printf("}\n");
    if (frames && !write_frames(frames, variants, nv)) {
        die("writing the frames file");
    }

    wgpuQuerySetRelease(b.set);
    wgpuBufferRelease(b.resolve);
    wgpuBufferRelease(b.readback);
    wgprof_graph_destroy(b.graph);
    demo_model_destroy(model);
    wgprof_device_destroy(b.dev);
    return 0;
}
