/*
 * A WebGPU compute program as people write them, for the tests of `wgprof record`: it knows
 * nothing of wgprof, uses webgpu.h only (and, built for wgpu-native, RECORD_APP_WGPU_NATIVE
 * defined, its wgpuDevicePoll), and is linked to one implementation (built once per
 * implementation). Each mode does one kind of thing an application does that a profiler
 * slipped under it must survive, then checks its own results on the CPU.
 *
 * It prints what it did on stdout, one line per kernel, so that a test can compare it with what
 * the profiler reports, without this program knowing how the profiler works:
 *   manifest KERNEL COUNT            dispatches of KERNEL that were submitted
 *   workgroups KERNEL X Y Z COUNT    of those, the direct ones of that size
 * KERNEL is the name the profiler must give: the pipeline's label and entry point
 * (`label:entry`); for an unlabelled pipeline the shader module's label (`module:entry`), or,
 * where the module has none either, `wgsl-*:entry` (the `*` standing for the profiler's hash of
 * the code), and after a name not from the pipeline's label its override constants
 * (`(name=value,...)`); with ` (indirect)` after it for indirect dispatches. Dispatches that were encoded but
 * never submitted are not counted. Dispatches submitted after the program let go of its device
 * (or in the call during which it did), whose timing a profiler cannot be held to, are printed
 * apart:
 *   maybe KERNEL COUNT               dispatches of KERNEL submitted after that
 *
 * Usage: record_app MODE [STATUS]
 *   basic           labelled and unlabelled pipelines, many dispatches in several passes,
 *                   encoders and submits
 *   own-timestamps  its own timestampWrites on its passes and its own resolve, checked
 *   unsubmitted     an encoder finished and released unsubmitted, one released unfinished, and
 *                   a pipeline from wgpuDeviceCreateComputePipelineAsync (Dawn; wgpu-native 29
 *                   does not implement it)
 *   no-release      exit() right after the last readback, with everything alive
 *   crash           raise(SIGSEGV) after submitted and read-back work
 *   crash-kill, crash-term, crash-abort, crash-exit0
 *                   the same work, then raise(SIGKILL), raise(SIGTERM), abort() or _exit(0):
 *                   every way a process ends without its exit handlers
 *   indirect        wgpuComputePassEncoderDispatchWorkgroupsIndirect beside direct dispatches
 *   early-release   its adapter and instance released as soon as it has the device, then work
 *                   (it maps with AllowSpontaneous callbacks, and waits with wgpuDevicePoll on
 *                   wgpu-native, wgpuDeviceTick on Dawn)
 *   device-first    its device released while it still holds an encoder with dispatches, which
 *                   it then finishes and submits, and buffers, which it then releases
 *   callback-release  a buffer-mapping callback releases the device; it prints where the
 *                   callback ran ("map callback ran in wgpuQueueSubmit" or "... in
 *                   wgpuInstanceProcessEvents")
 *   orphan-scope    an encoder with a debug group "abandoned" and a dispatch, released
 *                   unfinished, then passes labelled "later"
 *   two-devices     two instances, a device on each, work on both; each device's lines are
 *                   printed after "device 0: " or "device 1: "
 *   copies          a one-workgroup dispatch, then in the same encoder a large buffer copy and
 *                   clear, then another one-workgroup dispatch; it first times the same copy
 *                   and clear alone (submitted and waited for) and prints "copy-us N", so
 *                   that a test can tell that their time went to no dispatch; the work between
 *                   the passes is in its manifest as "(copy, clear)"
 *   fork            forks after timed work, with an encoder open; the child exits at once with
 *                   exit(0), making no WebGPU call; the parent goes on and prints how the child
 *                   ended ("child ended: exit N" or "child ended: signal N")
 *   long-chain      a fill, then 8,200 one-workgroup dispatches of one kernel, each in a pass of
 *                   its own, all in one encoder and one submit: more passes than one query set
 *                   of 4,096 timestamps can time
 *   threads8        8 threads started together, each with its own buffer, pipeline (labelled
 *                   "thread0" ... "thread7") and encoders, submitting its own steps to the
 *                   one queue and checking its own results
 *   names           unlabelled pipelines: one of a labelled module, two of one unlabelled module
 *                   with different entry points, two of one entry point with different
 *                   override constants, one with no entry point given; each dispatched once
 *   names-reversed  the same pipelines created in the reverse order
 *   exec            12 dispatches, checked and printed, then it replaces itself (execv, the same
 *                   process) with this program in mode exec-after, everything still alive
 *   exec-after      20 dispatches, checked and printed
 *   interleaved     two encoders, each with a labelled pass ("first", "second") open at once on
 *                   the one thread, their dispatches taking turns: fill and doubler in "first",
 *                   which ends first, two arith_adds in "second"; both submitted in one call
 *   callback-thread a mapping callback (AllowProcessEvents) of the main thread waits, at most
 *                   10 s, for a second thread to encode a dispatch (pass "other thread") and
 *                   submit it; it prints where the callback ran ("callback ran in
 *                   wgpuQueueSubmit" or "... in wgpuInstanceProcessEvents"), and fails where
 *                   the second thread could not submit meanwhile
 * Exit status: STATUS (default 0) where every check passed, 1 where one failed, 77 where the
 * device lacks what the mode needs.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <webgpu/webgpu.h>
#ifdef RECORD_APP_WGPU_NATIVE
#include <webgpu/wgpu.h> /* wgpuDevicePoll: wgpu-native fires map callbacks from it */
#else
/* Dawn's own (its webgpu.h, not the one built against here): what a program for Dawn that let
 * go of its instance waits with. */
void wgpuDeviceTick(WGPUDevice device);
#endif

enum { N = 1 << 16, WG_SIZE = 64, MAX_OPS = 64, MAX_SHAPES = 16 };

/* v[i] for i = x + y * (workgroups in x) * 64, so that 1D and 2D dispatches cover the same
 * elements. Every operation keeps small integers exact in f32. */
static const char arith_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
    "fn flat(id: vec3u, n: vec3u) -> u32 { return id.x + id.y * n.x * 64u; }\n"
    "@compute @workgroup_size(64) fn add_one(@builtin(global_invocation_id) id: vec3u,\n"
    "                                        @builtin(num_workgroups) n: vec3u) {\n"
    "    let i = flat(id, n); if (i < arrayLength(&v)) { v[i] = v[i] + 1.0; }\n"
    "}\n"
    "@compute @workgroup_size(64) fn twice(@builtin(global_invocation_id) id: vec3u,\n"
    "                                      @builtin(num_workgroups) n: vec3u) {\n"
    "    let i = flat(id, n); if (i < arrayLength(&v)) { v[i] = v[i] * 2.0; }\n"
    "}\n"
    "@compute @workgroup_size(64) fn halve(@builtin(global_invocation_id) id: vec3u,\n"
    "                                      @builtin(num_workgroups) n: vec3u) {\n"
    "    let i = flat(id, n); if (i < arrayLength(&v)) { v[i] = v[i] * 0.5; }\n"
    "}\n";

static const char fill_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
    "@compute @workgroup_size(64) fn fill(@builtin(global_invocation_id) id: vec3u,\n"
    "                                     @builtin(num_workgroups) n: vec3u) {\n"
    "    let i = id.x + id.y * n.x * 64u; if (i < arrayLength(&v)) { v[i] = f32(i % 7u); }\n"
    "}\n";

typedef enum { OP_FILL, OP_ADD_ONE, OP_TWICE, OP_HALVE } op_kind;

/* A pipeline and the name a profiler must report for it. */
typedef struct {
    WGPUComputePipeline pipeline;
    op_kind op;
    const char *name;
    const char *indirect_name;
    unsigned submitted, submitted_indirect;
    unsigned unpromised; /* submitted after the program let go of its device */
    struct { uint32_t wg[3]; unsigned count; } shapes[MAX_SHAPES];
    unsigned shape_count;
} kernel;

/* What one command encoder did, applied to the CPU's copy and the counts when it is submitted. */
typedef struct {
    WGPUCommandEncoder encoder;
    WGPUComputePassEncoder pass;
    struct { kernel *k; uint32_t wg[3]; bool indirect; } ops[MAX_OPS];
    unsigned op_count;
} recording;

typedef struct {
    WGPUInstance instance;
    WGPUAdapter adapter;
    WGPUDevice device;
    WGPUQueue queue;
    WGPUShaderModule arith, fill;
    WGPUBindGroupLayout bgl;
    WGPUPipelineLayout layout;
    WGPUBuffer data, readback, indirect;
    WGPUBindGroup group;
    kernel kernels[8];
    unsigned kernel_count;
    float expected[N];
    int errors;
    bool device_released; /* by the program: what it submits from then on is counted apart */
} app;

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("record_app: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static WGPUStringView view(const char *s) { return (WGPUStringView){s, s ? WGPU_STRLEN : 0}; }

/* ---- waiting: the application's own loop, as in its main loop ---- */

static void poll_once(app *a)
{
#ifdef RECORD_APP_WGPU_NATIVE
    if (a->device) {
        wgpuDevicePoll(a->device, 0, NULL);
    }
#else
    if (a->device && !a->instance) {
        wgpuDeviceTick(a->device);
    }
#endif
    if (a->instance) {
        wgpuInstanceProcessEvents(a->instance);
    }
}

static bool wait_for(app *a, const volatile bool *done)
{
    struct timespec nap = {0, 200000};
    for (int i = 0; i < 300000 && !*done; i++) { /* about a minute */
        poll_once(a);
        if (!*done) {
            nanosleep(&nap, NULL);
        }
    }
    return *done;
}

/* ---- set-up ---- */

typedef struct { volatile bool done; void *handle; } reply;

static void on_adapter(WGPURequestAdapterStatus s, WGPUAdapter adapter, WGPUStringView msg, void *r_, void *unused)
{
    (void)msg;
    (void)unused;
    reply *r = r_;
    r->handle = s == WGPURequestAdapterStatus_Success ? adapter : NULL;
    r->done = true;
}

static void on_device(WGPURequestDeviceStatus s, WGPUDevice device, WGPUStringView msg, void *r_, void *unused)
{
    (void)msg;
    (void)unused;
    reply *r = r_;
    r->handle = s == WGPURequestDeviceStatus_Success ? device : NULL;
    r->done = true;
}

/* Without this callback wgpu-native aborts on the first validation error; counted instead, so
 * that an error caused by something under the program fails the run with its message. */
static void on_error(const WGPUDevice *device, WGPUErrorType type, WGPUStringView msg, void *a_, void *unused)
{
    (void)device;
    (void)unused;
    app *a = a_;
    a->errors++;
    int n = msg.data ? (int)(msg.length == WGPU_STRLEN ? strlen(msg.data) : msg.length) : 0;
    fprintf(stderr, "record_app: WebGPU error %d: %.*s\n", (int)type, n, msg.data ? msg.data : "");
}

static WGPUShaderModule make_module(app *a, const char *label, const char *code)
{
    WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = view(code)};
    WGPUShaderModuleDescriptor md = {.nextInChain = &src.chain, .label = view(label)};
    return wgpuDeviceCreateShaderModule(a->device, &md);
}

static WGPUComputePipelineDescriptor pipeline_desc(app *a, const char *label, WGPUShaderModule m, const char *entry)
{
    return (WGPUComputePipelineDescriptor){.label = view(label), .layout = a->layout,
                                           .compute = {.module = m, .entryPoint = view(entry)}};
}

static kernel *add_kernel(app *a, WGPUComputePipeline p, op_kind op, const char *name, const char *indirect_name)
{
    kernel *k = &a->kernels[a->kernel_count++];
    *k = (kernel){.pipeline = p, .op = op, .name = name, .indirect_name = indirect_name};
    return k;
}

static kernel *make_kernel(app *a, const char *label, WGPUShaderModule m, const char *entry, op_kind op,
                           const char *name, const char *indirect_name)
{
    WGPUComputePipelineDescriptor pd = pipeline_desc(a, label, m, entry);
    return add_kernel(a, wgpuDeviceCreateComputePipeline(a->device, &pd), op, name, indirect_name);
}

enum { SETUP_TIMESTAMPS = 1, SETUP_RELEASE_EARLY = 2 };

static int setup(app *a, unsigned flags)
{
    bool timestamps = flags & SETUP_TIMESTAMPS;
    a->instance = wgpuCreateInstance(NULL);
    if (!a->instance) {
        return fail("no WebGPU instance");
    }
    reply ra = {0};
    WGPURequestAdapterCallbackInfo acb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_adapter,
                                          .userdata1 = &ra};
    wgpuInstanceRequestAdapter(a->instance, NULL, acb);
    if (!wait_for(a, &ra.done) || !ra.handle) {
        return fail("no WebGPU adapter");
    }
    a->adapter = ra.handle;
    if (timestamps && !wgpuAdapterHasFeature(a->adapter, WGPUFeatureName_TimestampQuery)) {
        fprintf(stderr, "record_app: the adapter has no timestamp queries\n");
        exit(77);
    }
    WGPUFeatureName features[] = {WGPUFeatureName_TimestampQuery};
    WGPUDeviceDescriptor dd = {.requiredFeatureCount = timestamps ? 1 : 0, .requiredFeatures = features};
    dd.uncapturedErrorCallbackInfo.callback = on_error;
    dd.uncapturedErrorCallbackInfo.userdata1 = a;
    reply rd = {0};
    WGPURequestDeviceCallbackInfo dcb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_device,
                                         .userdata1 = &rd};
    wgpuAdapterRequestDevice(a->adapter, &dd, dcb);
    if (!wait_for(a, &rd.done) || !rd.handle) {
        return fail("no WebGPU device");
    }
    a->device = rd.handle;
    if (flags & SETUP_RELEASE_EARLY) {
        /* As a program does that keeps only what it uses: the device outlives them. */
        wgpuAdapterRelease(a->adapter);
        a->adapter = NULL;
        wgpuInstanceRelease(a->instance);
        a->instance = NULL;
    }
    a->queue = wgpuDeviceGetQueue(a->device);
    a->arith = make_module(a, "arith", arith_wgsl);
    a->fill = make_module(a, NULL, fill_wgsl);
    WGPUBindGroupLayoutEntry binding = {.binding = 0, .visibility = WGPUShaderStage_Compute,
                                        .buffer = {.type = WGPUBufferBindingType_Storage}};
    WGPUBindGroupLayoutDescriptor bgld = {.entryCount = 1, .entries = &binding};
    a->bgl = wgpuDeviceCreateBindGroupLayout(a->device, &bgld);
    WGPUPipelineLayoutDescriptor pld = {.bindGroupLayoutCount = 1, .bindGroupLayouts = &a->bgl};
    a->layout = wgpuDeviceCreatePipelineLayout(a->device, &pld);
    WGPUBufferDescriptor bd = {.label = view("data"), .size = N * sizeof(float),
                               .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst};
    a->data = wgpuDeviceCreateBuffer(a->device, &bd); /* zeros, as WebGPU promises */
    WGPUBufferDescriptor rbd = {.size = N * sizeof(float), .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst};
    a->readback = wgpuDeviceCreateBuffer(a->device, &rbd);
    WGPUBufferDescriptor ibd = {.size = 3 * sizeof(uint32_t), .usage = WGPUBufferUsage_Indirect | WGPUBufferUsage_CopyDst};
    a->indirect = wgpuDeviceCreateBuffer(a->device, &ibd);
    WGPUBindGroupEntry entry = {.binding = 0, .buffer = a->data, .size = N * sizeof(float)};
    WGPUBindGroupDescriptor bgd = {.layout = a->bgl, .entryCount = 1, .entries = &entry};
    a->group = wgpuDeviceCreateBindGroup(a->device, &bgd);
    return a->errors ? fail("setting up failed") : 0;
}

/* The kernels every mode has. Their names, as a profiler must report them, are spelt out here
 * by hand rather than derived, so that a wrong rule in either place shows up. */
typedef struct { kernel *fill, *adder, *doubler, *halver, *arith_add; } kernel_set;

static kernel_set make_kernels(app *a)
{
    kernel_set k;
    k.fill = make_kernel(a, NULL, a->fill, "fill", OP_FILL, "wgsl-*:fill", "wgsl-*:fill (indirect)");
    k.adder = make_kernel(a, "adder", a->arith, "add_one", OP_ADD_ONE, "adder:add_one", "adder:add_one (indirect)");
    k.doubler = make_kernel(a, "doubler", a->arith, "twice", OP_TWICE, "doubler:twice", "doubler:twice (indirect)");
    k.halver = make_kernel(a, "halver", a->arith, "halve", OP_HALVE, "halver:halve", "halver:halve (indirect)");
    k.arith_add = make_kernel(a, NULL, a->arith, "add_one", OP_ADD_ONE, "arith:add_one", "arith:add_one (indirect)");
    return k;
}

/* ---- encoding, and the CPU's copy of what the GPU does ---- */

static void begin(app *a, recording *r)
{
    memset(r, 0, sizeof *r);
    r->encoder = wgpuDeviceCreateCommandEncoder(a->device, NULL);
}

static void pass_begin(app *a, recording *r, const char *label, const WGPUPassTimestampWrites *writes)
{
    WGPUComputePassDescriptor pd = {.label = view(label), .timestampWrites = writes};
    r->pass = wgpuCommandEncoderBeginComputePass(r->encoder, &pd);
    wgpuComputePassEncoderSetBindGroup(r->pass, 0, a->group, 0, NULL);
}

static void pass_end(recording *r)
{
    wgpuComputePassEncoderEnd(r->pass);
    wgpuComputePassEncoderRelease(r->pass);
    r->pass = NULL;
}

static void note(recording *r, kernel *k, uint32_t x, uint32_t y, uint32_t z, bool indirect)
{
    if (r->op_count < MAX_OPS) {
        r->ops[r->op_count].k = k;
        r->ops[r->op_count].wg[0] = x;
        r->ops[r->op_count].wg[1] = y;
        r->ops[r->op_count].wg[2] = z;
        r->ops[r->op_count++].indirect = indirect;
    }
}

static void dispatch(recording *r, kernel *k, uint32_t x, uint32_t y, uint32_t z)
{
    wgpuComputePassEncoderSetPipeline(r->pass, k->pipeline);
    wgpuComputePassEncoderDispatchWorkgroups(r->pass, x, y, z);
    note(r, k, x, y, z, false);
}

static uint32_t indirect_args[3];

static void dispatch_indirect(app *a, recording *r, kernel *k)
{
    wgpuComputePassEncoderSetPipeline(r->pass, k->pipeline);
    wgpuComputePassEncoderDispatchWorkgroupsIndirect(r->pass, a->indirect, 0);
    note(r, k, indirect_args[0], indirect_args[1], indirect_args[2], true);
}

static void apply(app *a, kernel *k, const uint32_t wg[3])
{
    uint64_t covered = (uint64_t)wg[0] * WG_SIZE * wg[1];
    for (uint64_t i = 0; i < covered && i < N; i++) {
        float *v = &a->expected[i];
        switch (k->op) {
        case OP_FILL: *v = (float)(i % 7); break;
        case OP_ADD_ONE: *v += 1.0f; break;
        case OP_TWICE: *v *= 2.0f; break;
        case OP_HALVE: *v *= 0.5f; break;
        }
    }
}

static void count(kernel *k, const uint32_t wg[3], bool indirect, bool unpromised)
{
    if (unpromised) {
        k->unpromised++;
        return;
    }
    if (indirect) {
        k->submitted_indirect++;
        return;
    }
    k->submitted++;
    for (unsigned s = 0; s < k->shape_count; s++) {
        if (!memcmp(k->shapes[s].wg, wg, sizeof k->shapes[s].wg)) {
            k->shapes[s].count++;
            return;
        }
    }
    if (k->shape_count < MAX_SHAPES) {
        memcpy(k->shapes[k->shape_count].wg, wg, sizeof k->shapes[0].wg);
        k->shapes[k->shape_count++].count = 1;
    }
}

static WGPUCommandBuffer finish(recording *r)
{
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(r->encoder, NULL);
    wgpuCommandEncoderRelease(r->encoder);
    r->encoder = NULL;
    return cb;
}

/* Submits the recordings' command buffers in one wgpuQueueSubmit, in order. */
static void submit(app *a, recording **rs, unsigned n)
{
    WGPUCommandBuffer cbs[4];
    for (unsigned i = 0; i < n && i < 4; i++) {
        cbs[i] = finish(rs[i]);
    }
    wgpuQueueSubmit(a->queue, n, cbs);
    /* Read after the call: a callback run inside it may have released the device. */
    bool unpromised = a->device_released;
    for (unsigned i = 0; i < n; i++) {
        wgpuCommandBufferRelease(cbs[i]);
        for (unsigned o = 0; o < rs[i]->op_count; o++) {
            apply(a, rs[i]->ops[o].k, rs[i]->ops[o].wg);
            count(rs[i]->ops[o].k, rs[i]->ops[o].wg, rs[i]->ops[o].indirect, unpromised);
        }
    }
}

static void submit_one(app *a, recording *r) { submit(a, &r, 1); }

static void write_indirect(app *a, uint32_t x, uint32_t y, uint32_t z)
{
    indirect_args[0] = x;
    indirect_args[1] = y;
    indirect_args[2] = z;
    wgpuQueueWriteBuffer(a->queue, a->indirect, 0, indirect_args, sizeof indirect_args);
}

/* ---- reading back ---- */

typedef struct { volatile bool done; WGPUMapAsyncStatus status; } map_reply;

static void on_map(WGPUMapAsyncStatus status, WGPUStringView msg, void *r_, void *unused)
{
    (void)msg;
    (void)unused;
    map_reply *r = r_;
    r->status = status;
    r->done = true;
}

static const void *map_read(app *a, WGPUBuffer buffer, size_t size)
{
    map_reply r = {0};
    /* Without an instance there is no wgpuInstanceProcessEvents to run it from. */
    WGPUCallbackMode when = a->instance ? WGPUCallbackMode_AllowProcessEvents : WGPUCallbackMode_AllowSpontaneous;
    WGPUBufferMapCallbackInfo cb = {.mode = when, .callback = on_map, .userdata1 = &r};
    wgpuBufferMapAsync(buffer, WGPUMapMode_Read, 0, size, cb);
    if (!wait_for(a, &r.done) || r.status != WGPUMapAsyncStatus_Success) {
        fail("mapping a buffer for reading failed (status %d)", (int)r.status);
        return NULL;
    }
    return wgpuBufferGetConstMappedRange(buffer, 0, size);
}

/* Copies the data out and compares it with the CPU's copy; the buffer stays mapped. */
static int check_data(app *a)
{
    recording r;
    begin(a, &r);
    wgpuCommandEncoderCopyBufferToBuffer(r.encoder, a->data, 0, a->readback, 0, N * sizeof(float));
    submit_one(a, &r);
    const float *out = map_read(a, a->readback, N * sizeof(float));
    if (!out) {
        return 1;
    }
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        if (out[i] != a->expected[i] && wrong++ == 0) {
            fail("v[%d] is %g, expected %g", i, (double)out[i], (double)a->expected[i]);
        }
    }
    printf("result: %s (%d of %d wrong)\n", wrong ? "WRONG" : "ok", wrong, N);
    return wrong != 0;
}

/* Each line after `prefix` (empty but where the program has several devices). */
static void print_manifest_of(const app *a, const char *prefix)
{
    for (unsigned i = 0; i < a->kernel_count; i++) {
        const kernel *k = &a->kernels[i];
        if (k->submitted) {
            printf("%smanifest %s %u\n", prefix, k->name, k->submitted);
        }
        if (k->submitted_indirect) {
            printf("%smanifest %s %u\n", prefix, k->indirect_name, k->submitted_indirect);
        }
        if (k->unpromised) { /* direct ones only, in the modes that have them */
            printf("%smaybe %s %u\n", prefix, k->name, k->unpromised);
        }
        for (unsigned s = 0; s < k->shape_count; s++) {
            printf("%sworkgroups %s %u %u %u %u\n", prefix, k->name, k->shapes[s].wg[0], k->shapes[s].wg[1],
                   k->shapes[s].wg[2], k->shapes[s].count);
        }
    }
    fflush(stdout);
}

static void print_manifest(const app *a) { print_manifest_of(a, ""); }

/* What a mode released already is NULL here. */
static void release_all(app *a)
{
    for (unsigned i = 0; i < a->kernel_count; i++) {
        wgpuComputePipelineRelease(a->kernels[i].pipeline);
    }
    wgpuBindGroupRelease(a->group);
    wgpuBufferRelease(a->indirect);
    wgpuBufferRelease(a->readback);
    if (a->data) {
        wgpuBufferRelease(a->data);
    }
    wgpuPipelineLayoutRelease(a->layout);
    wgpuBindGroupLayoutRelease(a->bgl);
    wgpuShaderModuleRelease(a->fill);
    wgpuShaderModuleRelease(a->arith);
    wgpuQueueRelease(a->queue);
    if (a->device) {
        wgpuDeviceRelease(a->device);
    }
    if (a->adapter) {
        wgpuAdapterRelease(a->adapter);
    }
    if (a->instance) {
        wgpuInstanceRelease(a->instance);
    }
}

/* ---- the modes ---- */

enum { ALL = N / WG_SIZE }; /* workgroups in x that cover the buffer in one row */

/* Two submits: the first with two command buffers, passes holding several dispatches of
 * several kernels, 1D and 2D sizes, and one dispatch over half the buffer. */
static void basic_work(app *a, const kernel_set *k)
{
    recording r1, r2, r3;
    begin(a, &r1);
    pass_begin(a, &r1, "setup", NULL);
    dispatch(&r1, k->fill, ALL, 1, 1);
    pass_end(&r1);
    pass_begin(a, &r1, "steps", NULL);
    for (int i = 0; i < 3; i++) {
        dispatch(&r1, k->adder, ALL, 1, 1);
    }
    dispatch(&r1, k->doubler, ALL / 4, 4, 1);
    pass_end(&r1);
    begin(a, &r2);
    pass_begin(a, &r2, NULL, NULL);
    dispatch(&r2, k->arith_add, ALL / 16, 16, 1);
    dispatch(&r2, k->arith_add, ALL / 16, 16, 1);
    pass_end(&r2);
    recording *both[] = {&r1, &r2};
    submit(a, both, 2);

    begin(a, &r3);
    pass_begin(a, &r3, "mixed", NULL);
    dispatch(&r3, k->halver, ALL, 1, 1);
    dispatch(&r3, k->doubler, ALL / 2, 1, 1);
    dispatch(&r3, k->doubler, ALL, 1, 1);
    pass_end(&r3);
    pass_begin(a, &r3, NULL, NULL);
    dispatch(&r3, k->adder, ALL, 1, 1);
    pass_end(&r3);
    submit_one(a, &r3);
}

/* Then one small submit after another, as a loop over steps does. */
static void loop_work(app *a, const kernel_set *k, int steps)
{
    for (int s = 0; s < steps; s++) {
        recording r;
        begin(a, &r);
        pass_begin(a, &r, "step", NULL);
        dispatch(&r, k->adder, ALL, 1, 1);
        dispatch(&r, k->doubler, ALL / 4, 4, 1);
        dispatch(&r, k->halver, ALL / 16, 16, 1);
        pass_end(&r);
        submit_one(a, &r);
    }
}

static int mode_basic(app *a, bool keep_alive)
{
    kernel_set k = make_kernels(a);
    basic_work(a, &k);
    loop_work(a, &k, 5);
    int failed = check_data(a);
    print_manifest(a);
    if (keep_alive) {
        /* Everything still alive, the readback buffer still mapped: as a program that ends
         * with exit() leaves it. */
        exit(failed || a->errors ? 1 : 0);
    }
    wgpuBufferUnmap(a->readback);
    return failed;
}

/* The program's own timestamps: beginning and end of passes, a pass with only one of them, a
 * pass with none, resolved by the program and checked: written (not zero), in order. */
static int mode_own_timestamps(app *a)
{
    kernel_set k = make_kernels(a);
    enum { QUERIES = 6, RESOLVE_SIZE = 512 };
    WGPUQuerySetDescriptor qd = {.label = view("own"), .type = WGPUQueryType_Timestamp, .count = QUERIES};
    WGPUQuerySet queries = wgpuDeviceCreateQuerySet(a->device, &qd);
    WGPUBufferDescriptor rd = {.size = RESOLVE_SIZE, .usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc};
    WGPUBuffer resolved = wgpuDeviceCreateBuffer(a->device, &rd);
    WGPUBufferDescriptor md = {.size = RESOLVE_SIZE, .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst};
    WGPUBuffer mapped = wgpuDeviceCreateBuffer(a->device, &md);

    recording r1, r2;
    begin(a, &r1);
    WGPUPassTimestampWrites w0 = {.querySet = queries, .beginningOfPassWriteIndex = 0, .endOfPassWriteIndex = 1};
    pass_begin(a, &r1, "setup", &w0);
    dispatch(&r1, k.fill, ALL, 1, 1);
    pass_end(&r1);
    WGPUPassTimestampWrites w1 = {.querySet = queries, .beginningOfPassWriteIndex = 2, .endOfPassWriteIndex = 3};
    pass_begin(a, &r1, "steps", &w1);
    dispatch(&r1, k.adder, ALL, 1, 1);
    dispatch(&r1, k.adder, ALL, 1, 1);
    dispatch(&r1, k.doubler, ALL / 4, 4, 1);
    pass_end(&r1);
    WGPUPassTimestampWrites w2 = {.querySet = queries, .beginningOfPassWriteIndex = 4,
                                  .endOfPassWriteIndex = WGPU_QUERY_SET_INDEX_UNDEFINED};
    pass_begin(a, &r1, NULL, &w2);
    dispatch(&r1, k.halver, ALL, 1, 1);
    pass_end(&r1);
    wgpuCommandEncoderResolveQuerySet(r1.encoder, queries, 0, 5, resolved, 0);
    submit_one(a, &r1);

    begin(a, &r2);
    WGPUPassTimestampWrites w3 = {.querySet = queries, .beginningOfPassWriteIndex = WGPU_QUERY_SET_INDEX_UNDEFINED,
                                  .endOfPassWriteIndex = 5};
    pass_begin(a, &r2, "late", &w3);
    dispatch(&r2, k.arith_add, ALL, 1, 1);
    pass_end(&r2);
    pass_begin(a, &r2, "untimed", NULL);
    dispatch(&r2, k.doubler, ALL, 1, 1);
    pass_end(&r2);
    /* Resolve offsets are multiples of 256. */
    wgpuCommandEncoderResolveQuerySet(r2.encoder, queries, 5, 1, resolved, 256);
    wgpuCommandEncoderCopyBufferToBuffer(r2.encoder, resolved, 0, mapped, 0, RESOLVE_SIZE);
    submit_one(a, &r2);

    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    const uint64_t *t = map_read(a, mapped, RESOLVE_SIZE);
    if (!t) {
        failed = 1;
    } else {
        uint64_t ts[QUERIES] = {t[0], t[1], t[2], t[3], t[4], t[256 / 8]};
        printf("own timestamps:");
        for (int i = 0; i < QUERIES; i++) {
            printf(" %llu", (unsigned long long)(ts[i] - ts[0]));
        }
        printf("\n");
        /* Every query written, and in the order the queue ran them (each pass depends on the
         * one before through the buffer); a span of minutes would be garbage. */
        for (int i = 0; i < QUERIES; i++) {
            if (ts[i] == 0) {
                failed = fail("own timestamp %d was never written", i);
            }
            if (i > 0 && ts[i] < ts[i - 1]) {
                failed = fail("own timestamp %d (%llu) is before %d (%llu)", i, (unsigned long long)ts[i], i - 1,
                              (unsigned long long)ts[i - 1]);
            }
        }
        if (ts[QUERIES - 1] - ts[0] > 600000000000ull) {
            failed = fail("own timestamps span %llu ticks", (unsigned long long)(ts[QUERIES - 1] - ts[0]));
        }
        wgpuBufferUnmap(mapped);
    }
    print_manifest(a);
    /* Each encoder resolves its queries after its passes, the second also copies them: GPU
     * work of the encoders' own. */
    printf("manifest (query resolve) 1\nmanifest (copy, query resolve) 1\n");
    wgpuBufferRelease(mapped);
    wgpuBufferRelease(resolved);
    wgpuQuerySetRelease(queries);
    return failed;
}

static void on_pipeline(WGPUCreatePipelineAsyncStatus s, WGPUComputePipeline p, WGPUStringView msg, void *r_,
                        void *unused)
{
    (void)msg;
    (void)unused;
    reply *r = r_;
    r->handle = s == WGPUCreatePipelineAsyncStatus_Success ? p : NULL;
    r->done = true;
}

/* Work encoded and thrown away (finished and released unsubmitted; released unfinished)
 * between work that is submitted, some of it on a pipeline made asynchronously. */
static int mode_unsubmitted(app *a)
{
    kernel_set k = make_kernels(a);
    WGPUComputePipelineDescriptor pd = pipeline_desc(a, "async_adder", a->arith, "add_one");
    reply rp = {0};
#ifdef RECORD_APP_WGPU_NATIVE
    /* wgpu-native 29 does not implement it (it panics and aborts): made the way a program for
     * wgpu-native makes it. */
    (void)on_pipeline;
    fprintf(stderr, "record_app: wgpu-native has no wgpuDeviceCreateComputePipelineAsync; made synchronously\n");
    rp.handle = wgpuDeviceCreateComputePipeline(a->device, &pd);
#else
    WGPUCreateComputePipelineAsyncCallbackInfo cb = {.mode = WGPUCallbackMode_AllowProcessEvents,
                                                     .callback = on_pipeline, .userdata1 = &rp};
    wgpuDeviceCreateComputePipelineAsync(a->device, &pd, cb);
    if (!wait_for(a, &rp.done) || !rp.handle) {
        return fail("wgpuDeviceCreateComputePipelineAsync gave no pipeline");
    }
#endif
    kernel *async_adder = add_kernel(a, rp.handle, OP_ADD_ONE, "async_adder:add_one", "async_adder:add_one (indirect)");

    recording used, dropped, unfinished, later;
    begin(a, &used);
    pass_begin(a, &used, "setup", NULL);
    dispatch(&used, k.fill, ALL, 1, 1);
    dispatch(&used, k.adder, ALL, 1, 1);
    pass_end(&used);
    submit_one(a, &used);

    /* One after the other, so that what is tested here is throwing work away (several
     * encoders open at once are basic's): finished and released unsubmitted, the command
     * buffer kept a while; then released unfinished; then work that is submitted. */
    begin(a, &dropped);
    pass_begin(a, &dropped, "dropped", NULL);
    for (int i = 0; i < 3; i++) {
        dispatch(&dropped, k.doubler, ALL, 1, 1);
    }
    dispatch(&dropped, async_adder, ALL, 1, 1);
    pass_end(&dropped);
    WGPUCommandBuffer never = finish(&dropped);
    begin(a, &unfinished);
    pass_begin(a, &unfinished, "unfinished", NULL);
    dispatch(&unfinished, k.halver, ALL, 1, 1);
    dispatch(&unfinished, k.halver, ALL, 1, 1);
    pass_end(&unfinished);
    wgpuCommandEncoderRelease(unfinished.encoder);
    wgpuCommandBufferRelease(never);
    begin(a, &later);
    pass_begin(a, &later, "later", NULL);
    dispatch(&later, async_adder, ALL, 1, 1);
    dispatch(&later, async_adder, ALL, 1, 1);
    dispatch(&later, k.doubler, ALL / 4, 4, 1);
    pass_end(&later);
    submit_one(a, &later);

    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

/* Submitted work read back (the program polls, so a profiler can collect), then more work
 * submitted, and the process dies without waiting for it, as `ending` says: "" (SIGSEGV),
 * "kill", "term", "abort" or "exit0" (_exit(0): no exit handler runs, but the status is 0). */
static int mode_crash(app *a, const char *ending)
{
    kernel_set k = make_kernels(a);
    recording r1, r2;
    begin(a, &r1);
    pass_begin(a, &r1, "before", NULL);
    dispatch(&r1, k.fill, ALL, 1, 1);
    dispatch(&r1, k.adder, ALL, 1, 1);
    dispatch(&r1, k.adder, ALL, 1, 1);
    pass_end(&r1);
    submit_one(a, &r1);
    if (check_data(a)) {
        return 1;
    }
    wgpuBufferUnmap(a->readback);
    begin(a, &r2);
    pass_begin(a, &r2, "lost", NULL);
    dispatch(&r2, k.doubler, ALL, 1, 1);
    dispatch(&r2, k.halver, ALL, 1, 1);
    pass_end(&r2);
    submit_one(a, &r2);
    print_manifest(a);
    fprintf(stderr, "record_app: crashing on purpose%s%s\n", *ending ? ": " : "", ending);
    fflush(stdout);
    if (!strcmp(ending, "exit0")) {
        _exit(0);
    } else if (!strcmp(ending, "abort")) {
        abort();
    }
    raise(!strcmp(ending, "kill") ? SIGKILL : !strcmp(ending, "term") ? SIGTERM : SIGSEGV);
    return 1;
}

/* Copies and a clear of COPY_BYTES between the same two scratch buffers. */
enum { COPY_BYTES = 256u << 20 };

static void encode_copies(WGPUCommandEncoder enc, WGPUBuffer from, WGPUBuffer to)
{
    wgpuCommandEncoderCopyBufferToBuffer(enc, from, 0, to, 0, COPY_BYTES);
    wgpuCommandEncoderClearBuffer(enc, from, 0, COPY_BYTES);
    wgpuCommandEncoderCopyBufferToBuffer(enc, to, 0, from, 0, COPY_BYTES);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int mode_copies(app *a)
{
    kernel_set k = make_kernels(a);
    WGPUBufferDescriptor bd = {.size = COPY_BYTES, .usage = WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst};
    WGPUBuffer from = wgpuDeviceCreateBuffer(a->device, &bd), to = wgpuDeviceCreateBuffer(a->device, &bd);
    /* The copies alone, twice (the first touches the memory), the second timed on the CPU from
     * the submit to its end: an upper bound of their GPU time. */
    double alone_us = 0;
    for (int i = 0; i < 2; i++) {
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(a->device, NULL);
        encode_copies(enc, from, to);
        WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
        wgpuCommandEncoderRelease(enc);
        double start = now_us();
        wgpuQueueSubmit(a->queue, 1, &cb);
        wgpuCommandBufferRelease(cb);
        if (check_data(a)) { /* waits for the queue */
            return 1;
        }
        alone_us = now_us() - start;
        wgpuBufferUnmap(a->readback);
    }
    printf("copy-us %.0f\n", alone_us);
    recording r;
    begin(a, &r);
    pass_begin(a, &r, "before", NULL);
    dispatch(&r, k.fill, 1, 1, 1);
    pass_end(&r);
    encode_copies(r.encoder, from, to);
    pass_begin(a, &r, "after", NULL);
    dispatch(&r, k.adder, 1, 1, 1);
    pass_end(&r);
    submit_one(a, &r);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    wgpuBufferRelease(from);
    wgpuBufferRelease(to);
    print_manifest(a);
    printf("manifest (copy, clear) 1\n"); /* the work between the passes, timed as one */
    return failed;
}

static int mode_indirect(app *a)
{
    kernel_set k = make_kernels(a);
    write_indirect(a, ALL / 4, 4, 1);
    recording r;
    begin(a, &r);
    pass_begin(a, &r, "indirect", NULL);
    dispatch(&r, k.fill, ALL, 1, 1);
    dispatch_indirect(a, &r, k.adder);
    dispatch_indirect(a, &r, k.adder);
    dispatch(&r, k.adder, ALL, 1, 1);
    dispatch_indirect(a, &r, k.doubler);
    pass_end(&r);
    pass_begin(a, &r, NULL, NULL);
    dispatch(&r, k.halver, ALL, 1, 1);
    pass_end(&r);
    submit_one(a, &r);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

static const char scale_wgsl[] =
    "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
    "override factor: f32 = 1.0;\n"
    "@compute @workgroup_size(64) fn scale(@builtin(global_invocation_id) id: vec3u,\n"
    "                                      @builtin(num_workgroups) n: vec3u) {\n"
    "    let i = id.x + id.y * n.x * 64u; if (i < arrayLength(&v)) { v[i] = v[i] * factor; }\n"
    "}\n";

/* Pipelines the program names nothing, created in one order or the other: the profiler's names
 * for them must be the same either way. */
static int mode_names(app *a, bool reversed)
{
    /* Code of their own, unlike setup's "arith": Dawn hands out one module for the same code,
     * labelled as it was first made. */
    char own[2][sizeof arith_wgsl + 32];
    snprintf(own[0], sizeof own[0], "// unlabelled\n%s", arith_wgsl);
    snprintf(own[1], sizeof own[1], "// labelled\n%s", arith_wgsl);
    WGPUShaderModule plain = make_module(a, NULL, own[0]);
    WGPUShaderModule labelled = make_module(a, "lab", own[1]);
    WGPUShaderModule scale = make_module(a, NULL, scale_wgsl);
    WGPUConstantEntry twice = {.key = view("factor"), .value = 2.0}, half = {.key = view("factor"), .value = 0.5};
    struct {
        WGPUShaderModule module;
        const char *entry;
        const WGPUConstantEntry *constant;
        op_kind op;
        const char *name;
    } made[] = {
        {labelled, "add_one", NULL, OP_ADD_ONE, "lab:add_one"},
        {plain, "add_one", NULL, OP_ADD_ONE, "wgsl-*:add_one"},
        {plain, "twice", NULL, OP_TWICE, "wgsl-*:twice"},
        {scale, "scale", &twice, OP_TWICE, "wgsl-*:scale(factor=2)"},
        {scale, "scale", &half, OP_HALVE, "wgsl-*:scale(factor=0.5)"},
        {a->fill, NULL, NULL, OP_FILL, "wgsl-*:fill"},
    };
    enum { MADE = sizeof made / sizeof made[0] };
    kernel *k[MADE];
    for (unsigned n = 0; n < MADE; n++) {
        unsigned i = reversed ? MADE - 1 - n : n;
        WGPUComputePipelineDescriptor pd = pipeline_desc(a, NULL, made[i].module, made[i].entry);
        if (!made[i].entry) { /* null (not empty): the module's one @compute function */
            pd.compute.entryPoint = (WGPUStringView){NULL, WGPU_STRLEN};
        }
        pd.compute.constantCount = made[i].constant ? 1 : 0;
        pd.compute.constants = made[i].constant;
        k[i] = add_kernel(a, wgpuDeviceCreateComputePipeline(a->device, &pd), made[i].op, made[i].name, "");
    }
    recording r;
    begin(a, &r);
    pass_begin(a, &r, NULL, NULL);
    dispatch(&r, k[MADE - 1], ALL, 1, 1); /* the fill first, then the others in their order */
    for (unsigned i = 0; i + 1 < MADE; i++) {
        dispatch(&r, k[i], ALL, 1, 1);
    }
    pass_end(&r);
    submit_one(a, &r);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    wgpuShaderModuleRelease(plain);
    wgpuShaderModuleRelease(labelled);
    wgpuShaderModuleRelease(scale);
    return failed;
}

/* Basic's work on a device whose adapter and instance the program released as soon as it had
 * it (setup did, SETUP_RELEASE_EARLY). */
static int mode_early_release(app *a)
{
    kernel_set k = make_kernels(a);
    basic_work(a, &k);
    loop_work(a, &k, 3);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

/* Work submitted and read back; then the device released while the program still holds an
 * encoder with dispatches in it, its queue and its buffers: it finishes and submits the encoder
 * (halver's dispatches, counted apart), then releases the data buffer. */
static int mode_device_first(app *a)
{
    kernel_set k = make_kernels(a);
    recording before, after;
    begin(a, &before);
    pass_begin(a, &before, "before", NULL);
    dispatch(&before, k.fill, ALL, 1, 1);
    dispatch(&before, k.adder, ALL, 1, 1);
    dispatch(&before, k.adder, ALL / 4, 4, 1);
    pass_end(&before);
    submit_one(a, &before);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);

    begin(a, &after);
    pass_begin(a, &after, "after", NULL);
    dispatch(&after, k.halver, ALL, 1, 1);
    dispatch(&after, k.halver, ALL, 1, 1);
    wgpuDeviceRelease(a->device);
    a->device = NULL;
    a->device_released = true;
    pass_end(&after);
    submit_one(a, &after);
    wgpuBufferRelease(a->data);
    a->data = NULL;
    print_manifest(a);
    /* Nothing can be read back now; what the device reports about work on it after it was let
     * go of is the implementation's business, not this program's. */
    a->errors = 0;
    return failed;
}

typedef struct { app *a; volatile bool done; } release_reply;

/* A program that ends its GPU work from a callback. */
static void on_map_release(WGPUMapAsyncStatus status, WGPUStringView msg, void *r_, void *unused)
{
    (void)status;
    (void)msg;
    (void)unused;
    release_reply *r = r_;
    wgpuDeviceRelease(r->a->device);
    r->a->device = NULL;
    r->a->device_released = true;
    r->done = true;
}

/* Work submitted and read back; then a mapping whose callback (AllowProcessEvents) releases the
 * device, not waited for: the next submit comes first. wgpu-native runs such callbacks inside
 * wgpuQueueSubmit; Dawn only in wgpuInstanceProcessEvents, which the program then calls. */
static int mode_callback_release(app *a)
{
    kernel_set k = make_kernels(a);
    recording first, next;
    begin(a, &first);
    pass_begin(a, &first, "first", NULL);
    dispatch(&first, k.fill, ALL, 1, 1);
    dispatch(&first, k.adder, ALL, 1, 1);
    pass_end(&first);
    submit_one(a, &first);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);

    release_reply r = {.a = a};
    WGPUBufferMapCallbackInfo cb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_map_release,
                                    .userdata1 = &r};
    wgpuBufferMapAsync(a->readback, WGPUMapMode_Read, 0, N * sizeof(float), cb);
    struct timespec nap = {0, 100000000}; /* the mapping is ready well before the next submit */
    nanosleep(&nap, NULL);
    begin(a, &next);
    pass_begin(a, &next, "next", NULL);
    dispatch(&next, k.doubler, ALL, 1, 1);
    pass_end(&next);
    submit_one(a, &next);
    const char *where = r.done ? "wgpuQueueSubmit" : "wgpuInstanceProcessEvents";
    if (!wait_for(a, &r.done)) {
        failed = fail("the mapping callback never ran");
    }
    printf("map callback ran in %s\n", where);
    print_manifest(a);
    a->errors = 0; /* as in device-first */
    return failed;
}

/* An encoder that pushes a debug group, dispatches, and is released unfinished (as on an error
 * path); then passes labelled "later" submitted one by one. */
static int mode_orphan_scope(app *a)
{
    kernel_set k = make_kernels(a);
    recording setup_work, abandoned;
    begin(a, &setup_work);
    pass_begin(a, &setup_work, "setup", NULL);
    dispatch(&setup_work, k.fill, ALL, 1, 1);
    pass_end(&setup_work);
    submit_one(a, &setup_work);

    begin(a, &abandoned);
    wgpuCommandEncoderPushDebugGroup(abandoned.encoder, view("abandoned"));
    pass_begin(a, &abandoned, NULL, NULL);
    dispatch(&abandoned, k.doubler, ALL, 1, 1);
    pass_end(&abandoned);
    wgpuCommandEncoderRelease(abandoned.encoder);

    for (int i = 0; i < 3; i++) {
        recording later;
        begin(a, &later);
        pass_begin(a, &later, "later", NULL);
        dispatch(&later, k.adder, ALL, 1, 1);
        pass_end(&later);
        submit_one(a, &later);
    }
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

/* Two passes open at once on one thread, in two encoders, dispatches taking turns: each
 * dispatch is its own pass's, whichever pass was begun last. */
static int mode_interleaved(app *a)
{
    kernel_set k = make_kernels(a);
    recording first, second;
    begin(a, &first);
    begin(a, &second);
    pass_begin(a, &first, "first", NULL);
    pass_begin(a, &second, "second", NULL);
    dispatch(&first, k.fill, ALL, 1, 1);
    dispatch(&second, k.arith_add, ALL / 16, 16, 1);
    dispatch(&first, k.doubler, ALL, 1, 1);
    pass_end(&first);
    dispatch(&second, k.arith_add, ALL / 16, 16, 1);
    pass_end(&second);
    recording *both[] = {&first, &second};
    submit(a, both, 2);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

/* A second instance with its own device beside the first, work on both in turn. */
static int mode_two_devices(app *a)
{
    static app second; /* its CPU copy of the data is large */
    if (setup(&second, 0)) {
        return 1;
    }
    kernel_set k0 = make_kernels(a);
    kernel_set k1 = make_kernels(&second);
    basic_work(a, &k0);
    loop_work(&second, &k1, 2);
    loop_work(a, &k0, 2);
    loop_work(&second, &k1, 3);
    int failed = check_data(a);
    failed |= check_data(&second);
    wgpuBufferUnmap(a->readback);
    wgpuBufferUnmap(second.readback);
    print_manifest_of(a, "device 0: ");
    print_manifest_of(&second, "device 1: ");
    if (second.errors) {
        failed = fail("%d WebGPU errors on the second device", second.errors);
    }
    release_all(&second);
    return failed;
}

/* Timed work, then a fork with an encoder and its pass open; the child ends at once through
 * exit(), as a program's helper process that fails to exec does; the parent waits for it, then
 * submits. */
static int mode_fork(app *a)
{
    kernel_set k = make_kernels(a);
    recording before, pending;
    begin(a, &before);
    pass_begin(a, &before, "before", NULL);
    dispatch(&before, k.fill, ALL, 1, 1);
    dispatch(&before, k.adder, ALL, 1, 1);
    pass_end(&before);
    submit_one(a, &before);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);

    begin(a, &pending);
    pass_begin(a, &pending, "open", NULL);
    dispatch(&pending, k.doubler, ALL, 1, 1);
    fflush(stdout); /* or the child would print what is buffered again */
    pid_t child = fork();
    if (child < 0) {
        return fail("fork failed");
    }
    if (child == 0) {
        exit(0);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
        failed = fail("waiting for the child failed");
    }
    /* Printed, not judged: Mesa 22's lavapipe kills such a child (SIGSEGV joining, in an exit
     * handler, threads that only the parent has) with no profiler in sight. */
    if (WIFEXITED(status)) {
        printf("child ended: exit %d\n", WEXITSTATUS(status));
    } else {
        printf("child ended: signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    }
    dispatch(&pending, k.halver, ALL / 4, 4, 1);
    pass_end(&pending);
    submit_one(a, &pending);
    failed |= check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

/* One encoder of more passes than a query set has timestamps (a profiler's chain must go on
 * into a second and a third set), each pass one small dispatch. The recording's list holds only
 * the first of them: the rest are applied and counted here, after the submit. */
static int mode_long_chain(app *a)
{
    enum { PASSES = 2 * 4095 + 10 };
    kernel_set k = make_kernels(a);
    recording r;
    begin(a, &r);
    pass_begin(a, &r, "setup", NULL);
    dispatch(&r, k.fill, ALL, 1, 1);
    pass_end(&r);
    for (int i = 0; i < PASSES; i++) {
        pass_begin(a, &r, "link", NULL);
        wgpuComputePassEncoderSetPipeline(r.pass, k.adder->pipeline);
        wgpuComputePassEncoderDispatchWorkgroups(r.pass, 1, 1, 1);
        pass_end(&r);
    }
    submit_one(a, &r);
    const uint32_t one[3] = {1, 1, 1};
    for (int i = 0; i < PASSES; i++) {
        apply(a, k.adder, one);
        count(k.adder, one, false, false);
    }
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

/* A fill and `adds` adds in one pass; then, for the exec mode, this program in place of this
 * one (the same process), nothing released, as a program that execs another leaves it. */
static int mode_exec(app *a, int adds, bool then_exec)
{
    kernel_set k = make_kernels(a);
    recording r;
    begin(a, &r);
    pass_begin(a, &r, "before exec", NULL);
    dispatch(&r, k.fill, ALL, 1, 1);
    for (int i = 0; i < adds; i++) {
        dispatch(&r, k.adder, ALL, 1, 1);
    }
    pass_end(&r);
    submit_one(a, &r);
    int failed = check_data(a);
    print_manifest(a);
    if (then_exec && !failed) {
        char *const args[] = {"record_app", "exec-after", NULL};
        execv("/proc/self/exe", args);
        return fail("execv: %s", strerror(errno));
    }
    wgpuBufferUnmap(a->readback);
    return failed;
}

/* ---- threads ---- */

enum { THREADS = 8, THREAD_STEPS = 6, THREAD_DISPATCHES = 3 };

static const char *const thread_labels[THREADS] = {"thread0", "thread1", "thread2", "thread3",
                                                   "thread4", "thread5", "thread6", "thread7"};
static const char *const thread_names[THREADS] = {"thread0:add_one", "thread1:add_one", "thread2:add_one",
                                                  "thread3:add_one", "thread4:add_one", "thread5:add_one",
                                                  "thread6:add_one", "thread7:add_one"};

typedef struct {
    app *a;
    unsigned index;
    kernel *k;
    pthread_barrier_t *start;
    int failed;
} worker;

/* One thread's work, on objects of its own but the device and queue: THREAD_STEPS submits of
 * THREAD_DISPATCHES add_one each over its own zeroed buffer, then its own readback. */
static void *thread_main(void *arg)
{
    worker *w = arg;
    app *a = w->a;
    WGPUBufferDescriptor bd = {.size = N * sizeof(float),
                               .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc};
    WGPUBuffer data = wgpuDeviceCreateBuffer(a->device, &bd);
    WGPUBufferDescriptor rbd = {.size = N * sizeof(float), .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst};
    WGPUBuffer readback = wgpuDeviceCreateBuffer(a->device, &rbd);
    WGPUBindGroupEntry entry = {.binding = 0, .buffer = data, .size = N * sizeof(float)};
    WGPUBindGroupDescriptor bgd = {.layout = a->bgl, .entryCount = 1, .entries = &entry};
    WGPUBindGroup group = wgpuDeviceCreateBindGroup(a->device, &bgd);
    WGPUComputePipelineDescriptor pd = pipeline_desc(a, thread_labels[w->index], a->arith, "add_one");
    w->k->pipeline = wgpuDeviceCreateComputePipeline(a->device, &pd);
    pthread_barrier_wait(w->start);
    const uint32_t wg[3] = {ALL, 1, 1};
    for (int s = 0; s < THREAD_STEPS; s++) {
        WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(a->device, NULL);
        WGPUComputePassDescriptor pass_desc = {.label = view(thread_labels[w->index])};
        WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pass_desc);
        wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
        wgpuComputePassEncoderSetPipeline(pass, w->k->pipeline);
        for (int d = 0; d < THREAD_DISPATCHES; d++) {
            wgpuComputePassEncoderDispatchWorkgroups(pass, wg[0], wg[1], wg[2]);
        }
        wgpuComputePassEncoderEnd(pass);
        wgpuComputePassEncoderRelease(pass);
        WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
        wgpuCommandEncoderRelease(enc);
        wgpuQueueSubmit(a->queue, 1, &cb);
        wgpuCommandBufferRelease(cb);
        for (int d = 0; d < THREAD_DISPATCHES; d++) {
            count(w->k, wg, false, false);
        }
    }
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(a->device, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(enc, data, 0, readback, 0, N * sizeof(float));
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
    wgpuCommandEncoderRelease(enc);
    wgpuQueueSubmit(a->queue, 1, &cb);
    wgpuCommandBufferRelease(cb);
    const float *out = map_read(a, readback, N * sizeof(float));
    const float want = THREAD_STEPS * THREAD_DISPATCHES;
    int wrong = 0;
    for (int i = 0; out && i < N; i++) {
        if (out[i] != want && wrong++ == 0) {
            fail("thread %u: v[%d] is %g, expected %g", w->index, i, (double)out[i], (double)want);
        }
    }
    w->failed = !out || wrong;
    if (out) {
        wgpuBufferUnmap(readback);
    }
    wgpuBindGroupRelease(group);
    wgpuBufferRelease(readback);
    wgpuBufferRelease(data);
    return NULL;
}

static int mode_threads8(app *a)
{
    worker workers[THREADS];
    pthread_t threads[THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    for (unsigned i = 0; i < THREADS; i++) {
        kernel *k = add_kernel(a, NULL, OP_ADD_ONE, thread_names[i], thread_names[i]);
        workers[i] = (worker){.a = a, .index = i, .k = k, .start = &start};
    }
    int failed = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        if (pthread_create(&threads[i], NULL, thread_main, &workers[i]) != 0) {
            return fail("cannot start thread %u", i); /* the others wait at the barrier: exit */
        }
    }
    for (unsigned i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        failed |= workers[i].failed;
    }
    pthread_barrier_destroy(&start);
    printf("result: %s\n", failed ? "WRONG" : "ok");
    print_manifest(a);
    return failed;
}

/* A callback of the main thread's that waits for another thread's submit. */
typedef struct {
    app *a;
    kernel *k;
    atomic_int stage; /* 0: waiting; 1: the callback asks; 2: the other thread submitted */
    bool done;        /* the callback ran (whatever it found) */
    bool in_time;     /* the other thread submitted within the time */
} handoff;

static void *other_thread(void *arg)
{
    handoff *h = arg;
    struct timespec nap = {0, 1000000};
    while (atomic_load(&h->stage) == 0) {
        nanosleep(&nap, NULL);
    }
    if (atomic_load(&h->stage) < 0) {
        return NULL;
    }
    recording r;
    begin(h->a, &r);
    pass_begin(h->a, &r, "other thread", NULL);
    dispatch(&r, h->k, ALL, 1, 1);
    pass_end(&r);
    WGPUCommandBuffer cb = finish(&r);
    wgpuQueueSubmit(h->a->queue, 1, &cb);
    wgpuCommandBufferRelease(cb);
    atomic_store(&h->stage, 2);
    return NULL;
}

static void on_map_handoff(WGPUMapAsyncStatus status, WGPUStringView msg, void *h_, void *unused)
{
    (void)status;
    (void)msg;
    (void)unused;
    handoff *h = h_;
    atomic_store(&h->stage, 1);
    struct timespec nap = {0, 1000000};
    for (int i = 0; i < 10000 && atomic_load(&h->stage) != 2; i++) { /* 10 s */
        nanosleep(&nap, NULL);
    }
    h->in_time = atomic_load(&h->stage) == 2;
    h->done = true;
}

/* The main thread's submit runs its mapping callback (wgpu-native; on Dawn its later
 * wgpuInstanceProcessEvents does), which lets a second thread encode and submit a dispatch and
 * waits for that: a lock a profiler held across the main thread's call would keep the second
 * thread out until the wait gave up. */
static int mode_callback_thread(app *a)
{
    kernel_set k = make_kernels(a);
    recording first, next;
    begin(a, &first);
    pass_begin(a, &first, "first", NULL);
    dispatch(&first, k.fill, ALL, 1, 1);
    pass_end(&first);
    submit_one(a, &first);
    int failed = check_data(a);
    wgpuBufferUnmap(a->readback);

    handoff h = {.a = a, .k = k.adder};
    pthread_t other;
    if (pthread_create(&other, NULL, other_thread, &h) != 0) {
        return fail("cannot start a thread");
    }
    WGPUBufferDescriptor bd = {.size = 16, .usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst};
    WGPUBuffer small = wgpuDeviceCreateBuffer(a->device, &bd);
    WGPUBufferMapCallbackInfo cb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_map_handoff,
                                    .userdata1 = &h};
    wgpuBufferMapAsync(small, WGPUMapMode_Read, 0, 16, cb);
    struct timespec nap = {0, 100000000}; /* the mapping is ready well before the next submit */
    nanosleep(&nap, NULL);
    begin(a, &next);
    pass_begin(a, &next, "next", NULL);
    dispatch(&next, k.doubler, ALL, 1, 1);
    pass_end(&next);
    submit_one(a, &next);
    const char *where = h.done ? "wgpuQueueSubmit" : "wgpuInstanceProcessEvents";
    if (!wait_for(a, &h.done)) {
        failed = fail("the mapping callback never ran");
        atomic_store(&h.stage, -1);
    }
    pthread_join(other, NULL);
    if (h.done && !h.in_time) {
        failed = fail("the second thread did not encode and submit within 10 s while a callback of the main "
                      "thread's waited for it");
    }
    printf("callback ran in %s\n", where);
    if (atomic_load(&h.stage) == 2) {
        /* On the queue after the main thread's doubling, whichever call the callback ran in. */
        const uint32_t wg[3] = {ALL, 1, 1};
        count(k.adder, wg, false, false);
        apply(a, k.adder, wg);
    }
    wgpuBufferUnmap(small);
    wgpuBufferRelease(small);
    failed |= check_data(a);
    wgpuBufferUnmap(a->readback);
    print_manifest(a);
    return failed;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"basic",        "own-timestamps", "unsubmitted",      "no-release",
                                        "crash",        "indirect",       "early-release",    "device-first",
                                        "callback-release", "orphan-scope", "two-devices", "fork",
                                        "copies",       "long-chain",     "threads8",         "callback-thread",
                                        "names",        "names-reversed", "crash-kill",       "crash-term",
                                        "crash-abort",  "crash-exit0",    "exec",             "exec-after",
                                        "interleaved"};
    const char *mode = argc > 1 ? argv[1] : "";
    int known = 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        known |= !strcmp(mode, modes[i]);
    }
    char *end = NULL;
    long status = argc > 2 ? strtol(argv[2], &end, 10) : 0;
    if (!known || argc > 3 || (end && (*end || end == argv[2] || status < 0 || status > 255))) {
        fprintf(stderr, "usage: %s MODE [STATUS 0-255], MODE one of:", argv[0]);
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            fprintf(stderr, " %s", modes[i]);
        }
        fputc('\n', stderr);
        return 2;
    }
    static app a; /* its CPU copy of the data is large */
    unsigned flags = !strcmp(mode, "own-timestamps") ? SETUP_TIMESTAMPS
                     : !strcmp(mode, "early-release") ? SETUP_RELEASE_EARLY
                                                      : 0;
    if (setup(&a, flags)) {
        return 1;
    }
    int failed;
    if (!strcmp(mode, "basic") || !strcmp(mode, "no-release")) {
        failed = mode_basic(&a, !strcmp(mode, "no-release"));
    } else if (!strcmp(mode, "own-timestamps")) {
        failed = mode_own_timestamps(&a);
    } else if (!strcmp(mode, "unsubmitted")) {
        failed = mode_unsubmitted(&a);
    } else if (!strncmp(mode, "crash", 5)) {
        failed = mode_crash(&a, mode[5] == '-' ? mode + 6 : "");
    } else if (!strcmp(mode, "indirect")) {
        failed = mode_indirect(&a);
    } else if (!strcmp(mode, "early-release")) {
        failed = mode_early_release(&a);
    } else if (!strcmp(mode, "device-first")) {
        failed = mode_device_first(&a);
    } else if (!strcmp(mode, "callback-release")) {
        failed = mode_callback_release(&a);
    } else if (!strcmp(mode, "orphan-scope")) {
        failed = mode_orphan_scope(&a);
    } else if (!strcmp(mode, "interleaved")) {
        failed = mode_interleaved(&a);
    } else if (!strcmp(mode, "two-devices")) {
        failed = mode_two_devices(&a);
    } else if (!strcmp(mode, "copies")) {
        failed = mode_copies(&a);
    } else if (!strcmp(mode, "long-chain")) {
        failed = mode_long_chain(&a);
    } else if (!strcmp(mode, "threads8")) {
        failed = mode_threads8(&a);
    } else if (!strcmp(mode, "callback-thread")) {
        failed = mode_callback_thread(&a);
    } else if (!strncmp(mode, "names", 5)) {
        failed = mode_names(&a, !strcmp(mode, "names-reversed"));
    } else if (!strcmp(mode, "exec") || !strcmp(mode, "exec-after")) {
        failed = mode_exec(&a, !strcmp(mode, "exec") ? 11 : 19, !strcmp(mode, "exec"));
    } else {
        failed = mode_fork(&a);
    }
    if (a.errors) {
        failed = fail("%d WebGPU errors", a.errors);
    }
    release_all(&a);
    return failed ? 1 : (int)status;
}
