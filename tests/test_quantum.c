/* Timestamp resolution on the real driver, on whichever WebGPU implementation is in the process.
 * On the devices wgprof creates, records are not rounded: of many dispatches lasting from a few
 * to a few hundred µs, hardly any duration or timestamp is a multiple of 65,536 ns (as all would
 * be on Dawn with its timestamp_quantization toggle on), and the summary's quantum is small and
 * agrees with the records' own ticks. On a device the application creates itself with every
 * toggle at its default, then wraps, Dawn rounds timestamps to 65,536 ns: the summary must find
 * exactly that, every report must say it, and a warning must name the toggle. On every
 * implementation, the same real readings rounded to a known step (65,536 and 32 ticks) in a host
 * pool must give that step back: a detector that never finds one fails here too, not only where
 * the implementation happens to round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "support.h"
#include "testing.h"

/* Three loop counts a factor of 4 apart: on lavapipe a dispatch lasts from about ten µs to a few
 * hundred; on a large GPU from a few µs. NODES nodes per execute, cycling through them. */
enum { WORKGROUPS = 16, KINDS = 3, NODES = 48, EXECUTES = 3, QUANTUM = 65536 };
static const uint32_t LOOPS[KINDS] = {20, 80, 320};

/* The lowest set bit of the valid records' begin and end ticks, times the period: what the
 * summary's quantum must be, found here from the public records. 0 where it is one tick. */
static double records_quantum_ns(const wgprof_pool *pool)
{
    uint64_t bits = 0;
    double period = 0;
    for (size_t i = 0; i < wgprof_pool_count(pool); i++) {
        wgprof_record r;
        if (wgprof_pool_record(pool, i, &r) == WGPROF_OK && r.valid) {
            bits |= r.begin_ticks | r.end_ticks;
            period = period == 0 || r.period_ns < period ? r.period_ns : period;
        }
    }
    uint64_t step = bits & (~bits + 1);
    return step > 1 ? (double)step * period : 0;
}

typedef struct measured {
    size_t valid;
    size_t round_durations; /* durations that are a whole multiple of QUANTUM ns */
    size_t round_stamps;    /* records whose begin and end are both multiples of QUANTUM ns */
    double min_ns, max_ns;
    uint64_t *pairs; /* the valid records' begin and end ticks */
    double period_ns; /* the smallest of their periods */
    wgprof_summary *summary;
    char *table;
} measured;

/* Runs the busy kernels profiled on `dev` and reads what came back. */
static void measure(wgprof_device *dev, const char *what, measured *m)
{
    memset(m, 0, sizeof *m);
    ts_busy busy[KINDS];
    for (int k = 0; k < KINDS; k++) {
        CHECK(ts_busy_init(dev, &busy[k], WORKGROUPS, LOOPS[k]));
    }
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK_MSG(wgprof_graph_settings(g).profiling == WGPROF_PROFILING_ON, "%s: not profiling: %s", what,
              wgprof_graph_profiling_note(g));
    static const char *const names[KINDS] = {"busy_20", "busy_80", "busy_320"};
    for (int n = 0; n < NODES; n++) {
        wgprof_node_desc nd;
        ts_busy_node(&busy[n % KINDS], names[n % KINDS], &nd);
        CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    }
    for (int i = 0; i < EXECUTES; i++) {
        CHECK_OK(wgprof_graph_execute(g));
    }
    const wgprof_pool *pool = wgprof_graph_pool(g);
    CHECK(pool && wgprof_pool_count(pool) == NODES * EXECUTES);
    for (size_t i = 0; pool && i < wgprof_pool_count(pool); i++) {
        wgprof_record r;
        CHECK_OK(wgprof_pool_record(pool, i, &r));
        if (!r.valid) {
            continue;
        }
        double begin_ns = (double)r.begin_ticks * r.period_ns, end_ns = (double)r.end_ticks * r.period_ns;
        uint64_t *grown = realloc(m->pairs, 2 * (m->valid + 1) * sizeof *grown);
        if (grown) {
            m->pairs = grown;
            m->pairs[2 * m->valid] = r.begin_ticks;
            m->pairs[2 * m->valid + 1] = r.end_ticks;
            m->period_ns = m->valid == 0 || r.period_ns < m->period_ns ? r.period_ns : m->period_ns;
        }
        CHECK(grown != NULL);
        m->valid++;
        m->round_durations += fmod(r.duration_ns, QUANTUM) == 0;
        m->round_stamps += fmod(begin_ns, QUANTUM) == 0 && fmod(end_ns, QUANTUM) == 0;
        m->min_ns = m->valid == 1 || r.duration_ns < m->min_ns ? r.duration_ns : m->min_ns;
        m->max_ns = r.duration_ns > m->max_ns ? r.duration_ns : m->max_ns;
    }
    CHECK_MSG(m->valid == NODES * EXECUTES, "%s: %zu of %d records valid", what, m->valid, NODES * EXECUTES);
    if (pool) {
        CHECK_OK(wgprof_summary_create(pool, &m->summary));
        double expected = records_quantum_ns(pool);
        CHECK_MSG(m->summary && m->summary->timestamp_quantum_ns == expected,
                  "%s: the summary's quantum %g ns, the records' own %g ns", what,
                  m->summary ? m->summary->timestamp_quantum_ns : -1.0, expected);
        size_t len = 0;
        FILE *f = open_memstream(&m->table, &len);
        wgprof_report_desc rd = {.device = wgprof_device_describe(dev), .pool = pool, .summary = m->summary,
                                 .omit_dispatches = true};
        CHECK_OK(wgprof_report_write(&rd, WGPROF_FORMAT_TABLE, f));
        fclose(f);
    }
    fputs(m->table ? m->table : "", stdout);
    printf("%s: %zu records, durations %.3f to %.3f us, %zu durations and %zu records' timestamps multiples of "
           "%d ns, quantum %g ns\n",
           what, m->valid, m->min_ns / 1e3, m->max_ns / 1e3, m->round_durations, m->round_stamps, QUANTUM,
           m->summary ? m->summary->timestamp_quantum_ns : -1.0);
    wgprof_graph_destroy(g);
    for (int k = 0; k < KINDS; k++) {
        ts_busy_free(&busy[k]);
    }
}

/* Real readings (`count` begin, end pairs of ticks of `period` ns), each tick rounded down to a
 * multiple of `step`, taken into a host pool: its summary's quantum must be exactly `step`
 * ticks, whatever the implementation's own clock does. */
static void rounded_again(const uint64_t *pairs, size_t count, double period, uint64_t step, const char *what)
{
    uint64_t *ticks = calloc(2 * (count ? count : 1), sizeof *ticks);
    for (size_t i = 0; i < 2 * count; i++) {
        ticks[i] = pairs[i] / step * step;
    }
    wgprof_pool *host = wgprof__pool_new_host();
    wgprof_dispatch_desc d = {.kernel = "rounded"};
    uint32_t site;
    size_t first;
    uint32_t batch;
    CHECK_OK(wgprof__host_site(host, &d, &site));
    CHECK_OK(wgprof__host_batch(host, count, &site, 1, false, &first, &batch));
    wgprof__extent extent = {0};
    wgprof__host_readings(host, batch, first, count, ticks, period, &extent);
    wgprof__host_collected(host, batch, period);
    wgprof_summary *sum = NULL;
    CHECK_OK(wgprof_summary_create(host, &sum));
    double want = (double)step * period;
    CHECK_MSG(sum && sum->records == count && sum->invalid == 0, "%s: %zu readings rounded to %llu ticks: %zu records, "
              "%zu invalid", what, count, (unsigned long long)step, sum ? sum->records : 0, sum ? sum->invalid : 0);
    CHECK_MSG(sum && sum->timestamp_quantum_ns == want && sum->timestamp_quantized == (want >= WGPROF_QUANTIZED_NS),
              "%s: %zu real readings rounded to %llu ticks of %g ns: quantum found %g ns, want %g ns", what, count,
              (unsigned long long)step, period, sum ? sum->timestamp_quantum_ns : -1.0, want);
    printf("%s: %zu real readings rounded to %llu ticks: quantum %g ns\n", what, count, (unsigned long long)step,
           sum ? sum->timestamp_quantum_ns : -1.0);
    wgprof_summary_destroy(sum);
    wgprof_pool_destroy(host);
    free(ticks);
}

static void measured_free(measured *m)
{
    wgprof_summary_destroy(m->summary);
    free(m->table);
    free(m->pairs);
}

/* wgprof's own device: full resolution. Were the timestamps rounded to 65,536 ns, every
 * duration and every timestamp would be a multiple of it; at full resolution about one in
 * 65,536 is by chance. */
static void test_own_device(wgprof_device *dev, measured *out)
{
    measured m;
    measure(dev, "wgprof's device", &m);
    CHECK_MSG(m.max_ns >= 2000, "durations up to %.0f ns: too short to show rounding to %d ns", m.max_ns, QUANTUM);
    CHECK_MSG(m.round_durations * 10 <= m.valid, "%zu of %zu durations are multiples of %d ns", m.round_durations,
              m.valid, QUANTUM);
    CHECK_MSG(m.round_stamps * 10 <= m.valid, "%zu of %zu records have both timestamps multiples of %d ns",
              m.round_stamps, m.valid, QUANTUM);
    CHECK(m.summary && m.summary->timestamp_quantum_ns < WGPROF_QUANTIZED_NS && !m.summary->timestamp_quantized);
    CHECK_MSG(m.table && !strstr(m.table, "quantized"), "%s", m.table ? m.table : "no table");
    *out = m;
}

/* The detector on wgprof's device's own readings, rounded by the test to 65,536 ticks (a
 * quantized clock, as Dawn's) and to 32 (a coarse counter): after the application's device, whose
 * test reads the one warning a process gets. */
static void test_rounded_readings(const measured *own)
{
    CHECK_MSG(own->valid >= WGPROF_QUANTUM_MIN_READINGS, "%zu valid readings: too few to name a quantum", own->valid);
    rounded_again(own->pairs, own->valid, own->period_ns, QUANTUM, "wgprof's device");
    rounded_again(own->pairs, own->valid, own->period_ns, 32, "wgprof's device");
}

/* ---- a device the application makes itself, every toggle at its default ------------------ */

typedef struct request {
    bool done;
    void *handle;
} request;

static void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message, void *u1,
                       void *u2)
{
    (void)message;
    (void)u2;
    request *r = u1;
    r->handle = status == WGPURequestAdapterStatus_Success ? adapter : NULL;
    r->done = true;
}

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *u1, void *u2)
{
    (void)u2;
    request *r = u1;
    if (status != WGPURequestDeviceStatus_Success) {
        fprintf(stderr, "no device: %.*s\n", (int)(message.length == WGPU_STRLEN ? 0 : message.length),
                message.data ? message.data : "");
    }
    r->handle = status == WGPURequestDeviceStatus_Success ? device : NULL;
    r->done = true;
}

/* Polls the instance until the request is answered, for up to 60 s. */
static bool answered(WGPUInstance instance, request *r)
{
    for (int i = 0; i < 60000 && !r->done; i++) {
        wgpuInstanceProcessEvents(instance);
        if (!r->done) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
    }
    return r->done && r->handle;
}

/* As an engine creates its device: plain webgpu.h, TimestampQuery required, no toggles. On the
 * instance of wgprof's device, so that the same implementation answers. */
static bool application_device(WGPUInstance instance, WGPUAdapter *adapter, WGPUDevice *device)
{
    request ra = {0}, rd = {0};
    WGPURequestAdapterCallbackInfo acb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_adapter,
                                          .userdata1 = &ra};
    wgpuInstanceRequestAdapter(instance, NULL, acb);
    if (!answered(instance, &ra)) {
        return false;
    }
    *adapter = ra.handle;
    WGPUFeatureName features[] = {WGPUFeatureName_TimestampQuery};
    WGPUDeviceDescriptor dd = {.requiredFeatureCount = 1, .requiredFeatures = features};
    WGPURequestDeviceCallbackInfo dcb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_device,
                                         .userdata1 = &rd};
    wgpuAdapterRequestDevice(*adapter, &dd, dcb);
    if (!answered(instance, &rd)) {
        wgpuAdapterRelease(*adapter);
        return false;
    }
    *device = rd.handle;
    return true;
}

static void test_application_device(WGPUInstance instance, const char *implementation)
{
    WGPUAdapter adapter = NULL;
    WGPUDevice device = NULL;
    CHECK_MSG(application_device(instance, &adapter, &device), "%s: no device made with webgpu.h alone",
              implementation);
    if (!device) {
        return;
    }
    wgprof_device *dev = NULL;
    CHECK_OK(wgprof_device_wrap(instance, adapter, device, &dev));
    CHECK(dev && wgprof_device_describe(dev)->timestamp_query);
    bool dawn = strncmp(implementation, "Dawn", 4) == 0;
    ts_clear_log();
    measured m;
    measure(dev, dawn ? "an application's Dawn device, toggles at their defaults" : "an application's device", &m);
    if (dawn) {
        /* Dawn's timestamp_quantization, on by default: every timestamp a multiple of 65,536 ns,
         * found as exactly that, said in the report and in one warning. */
        CHECK_MSG(m.round_stamps == m.valid && m.round_durations == m.valid,
                  "%zu of %zu records rounded: is timestamp_quantization still on by default?", m.round_stamps,
                  m.valid);
        CHECK(m.summary && m.summary->timestamp_quantum_ns == QUANTUM && m.summary->timestamp_quantized);
        CHECK_MSG(m.table && strstr(m.table, " | quantized to 65536 ns | ") && strstr(m.table, "\nwarning: "), "%s",
                  m.table ? m.table : "no table");
        CHECK_MSG(strstr(ts_last_log(), "quantized to 65536 ns") && strstr(ts_last_log(), "timestamp_quantization"),
                  "log: %s", ts_last_log());
    } else if (strncmp(implementation, "wgpu-native", 11) == 0) {
        /* wgpu-native rounds nothing, on any device. */
        CHECK(m.summary && !m.summary->timestamp_quantized);
        CHECK_MSG(m.round_durations * 10 <= m.valid, "%zu of %zu durations are multiples of %d ns",
                  m.round_durations, m.valid, QUANTUM);
    }
    measured_free(&m);
    wgprof_device_destroy(dev);
    wgpuDeviceRelease(device);
    wgpuAdapterRelease(adapter);
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    const char *implementation = wgprof_device_describe(dev)->implementation;
    implementation = implementation ? implementation : "unknown";
    printf("implementation: %s\n", implementation);
    measured own;
    test_own_device(dev, &own);
    test_application_device(wgprof_device_instance(dev), implementation);
    test_rounded_readings(&own);
    measured_free(&own);
    wgprof_device_destroy(dev);
    return check_summary();
}
