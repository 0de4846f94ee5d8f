/* Figures and phrases that several report writers print (report_internal.h). */
#include <math.h>

#include "report_internal.h"

void wgprof__put_real(FILE *out, const char *format, double v, const char *missing)
{
    if (isfinite(v)) {
        fprintf(out, format, v);
    } else {
        fputs(missing, out);
    }
}

const char *wgprof__real_text(char *buf, size_t cap, const char *format, double v, const char *missing)
{
    if (isfinite(v)) {
        snprintf(buf, cap, format, v);
    } else {
        snprintf(buf, cap, "%s", missing);
    }
    return buf;
}

void wgprof__strategy_text(const wgprof_summary *s, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int st = WGPROF_STRATEGY_PASS; s && st <= WGPROF_STRATEGY_CHAIN && used < cap; st++) {
        if (s->strategies & (1u << st)) {
            int n = snprintf(buf + used, cap - used, "%s%s", used ? "+" : "", wgprof_strategy_str((wgprof_strategy)st));
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (!used) {
        snprintf(buf, cap, "none");
    }
}

bool wgprof__any_throughput(const wgprof_summary *s)
{
    for (size_t i = 0; s && i < s->kernel_count; i++) {
        if (s->kernels[i].gbps_total > 0 || s->kernels[i].gflops_total > 0) {
            return true;
        }
    }
    return false;
}

const char wgprof__throughput_note[] =
    "GB/s and GFLOP/s: a dispatch's bytes and flops over the median duration, or the median of the "
    "dispatches' own rates where those differ between dispatches; _total: all the bytes and flops "
    "over the total time";

void wgprof__invalid_breakdown(const wgprof_summary *s, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int reason = 1; reason < WGPROF_INVALID_REASON_COUNT && used < cap; reason++) {
        if (s->invalid_by_reason[reason]) {
            int n = snprintf(buf + used, cap - used, "%s%zu %s", used ? ", " : "", s->invalid_by_reason[reason],
                             wgprof_invalid_reason_str((wgprof_invalid_reason)reason));
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

void wgprof__quantum_text(const wgprof_summary *s, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (s && s->timestamp_quantum_ns > 0 && isfinite(s->timestamp_quantum_ns)) {
        snprintf(buf, cap, "%s %.6g ns", s->timestamp_quantized ? "quantized to" : "resolution",
                 s->timestamp_quantum_ns);
    }
}

void wgprof__quantized_warning(const wgprof_summary *s, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (s && s->timestamp_quantized && isfinite(s->timestamp_quantum_ns)) {
        snprintf(buf, cap,
                 "timestamps quantized to %.6g ns: every time is rounded to a multiple of it, not exact "
                 "(on Dawn: the device toggle timestamp_quantization is on; disable it)",
                 s->timestamp_quantum_ns);
    }
}

void wgprof__period_text(const wgprof__report *r, char *buf, size_t cap)
{
    const wgprof_summary *s = r->summary;
    const wgprof_device_info *d = r->desc->device;
    bool collected = s && s->period_min_ns > 0 && isfinite(s->period_max_ns);
    if (collected && s->period_min_ns == s->period_max_ns) {
        snprintf(buf, cap, "%.6g ns/tick", s->period_min_ns);
    } else if (collected) {
        snprintf(buf, cap, "%.6g-%.6g ns/tick (varied by batch)", s->period_min_ns, s->period_max_ns);
    } else if (d && isfinite(d->timestamp_period_ns)) {
        snprintf(buf, cap, "%.6g ns/tick%s", d->timestamp_period_ns, d->period_from_implementation ? "" : " (assumed)");
    } else {
        snprintf(buf, cap, "unknown");
    }
}
