/* Figures and phrases that several report writers print (report_internal.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report_internal.h"

size_t wgprof__fixed3_text(char buf[WGPROF__FIXED3_CAP], double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mantissa = bits & ((UINT64_C(1) << 52) - 1);
    if (biased == 0x7ff) {
        return 0; /* not finite */
    }
    /* v = mantissa * 2^exponent exactly */
    int exponent = biased ? biased - 1075 : -1074;
    mantissa |= biased ? UINT64_C(1) << 52 : 0;
    uint64_t thousandths; /* v * 1000 rounded to nearest, ties to even, as printf rounds */
    if (exponent > 0) {
        return 0; /* |v| >= 2^53 */
    }
    if (exponent == 0) {
        thousandths = mantissa * 1000; /* a whole number below 2^53: below 2^63 times 1000 */
    } else {
        uint64_t scaled = mantissa * 1000; /* below 2^63: mantissa < 2^53 */
        int shift = -exponent;
        if (shift >= 64) {
            thousandths = 0; /* scaled < 2^63 <= half of 2^shift */
        } else {
            thousandths = scaled >> shift;
            uint64_t rest = scaled & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
            thousandths += rest > half || (rest == half && (thousandths & 1));
        }
    }
    char digits[24];
    size_t n = 0;
    uint64_t whole = thousandths / 1000;
    do {
        digits[n++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    size_t len = 0;
    if (bits >> 63) {
        buf[len++] = '-';
    }
    while (n) {
        buf[len++] = digits[--n];
    }
    unsigned fraction = (unsigned)(thousandths % 1000);
    buf[len++] = '.';
    buf[len++] = (char)('0' + fraction / 100);
    buf[len++] = (char)('0' + fraction / 10 % 10);
    buf[len++] = (char)('0' + fraction % 10);
    buf[len] = '\0';
    return len;
}

/* "%.3f", the format of every time in the reports, without printf where the value allows. */
static bool is_fixed3(const char *format) { return strcmp(format, "%.3f") == 0; }

void wgprof__put_real(FILE *out, const char *format, double v, const char *missing)
{
    char text[WGPROF__FIXED3_CAP];
    size_t len;
    if (!isfinite(v)) {
        fputs(missing, out);
    } else if (is_fixed3(format) && (len = wgprof__fixed3_text(text, v)) > 0) {
        fwrite(text, 1, len, out);
    } else {
        fprintf(out, format, v);
    }
}

const char *wgprof__real_text(char *buf, size_t cap, const char *format, double v, const char *missing)
{
    char text[WGPROF__FIXED3_CAP];
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", missing);
    } else if (is_fixed3(format) && wgprof__fixed3_text(text, v) > 0) {
        snprintf(buf, cap, "%s", text);
    } else {
        snprintf(buf, cap, format, v);
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
