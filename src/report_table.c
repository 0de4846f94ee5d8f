/*
 * The human-readable table: a header naming the device, the timestamps' resolution where it is
 * coarser than a tick (with a warning line where they are quantized) and the strategy, one row
 * per dispatch,
 * then the per-kernel summary, the scopes, indented by depth, and the kernels' throughput. Times
 * in µs with 3 decimals; invalid records show their reason in place of a number, and a figure
 * that is not a finite number shows "-".
 */
#include <math.h>
#include <string.h>

#include "report_internal.h"

/* `lead`, then `v` with `format` right-aligned in `width` columns, or "-" where it is not finite.
 * Room for the largest double with its decimals (309 digits), so that none is cut short. */
static void cell(FILE *out, const char *lead, int width, const char *format, double v)
{
    char text[328];
    fprintf(out, "%s%*s", lead, width, wgprof__real_text(text, sizeof text, format, v, "-"));
}

/* "kernel names from: S (N)[, ...]": where the kernels' names came from, as their recorder said
 * (wgprof_pool_kernel_source), the kernels of each counted; where they differ, each source with
 * a few kernels names them. Nothing where no kernel's source was said. */
static void write_name_sources(const wgprof__report *r, FILE *out)
{
    const wgprof_summary *s = r->summary;
    size_t n = s && r->store ? s->kernel_count : 0;
    const char *seen[8];
    size_t counts[8] = {0}, kinds = 0, unsaid = 0;
    for (size_t i = 0; i < n; i++) {
        const char *source = wgprof__store_source(r->store, s->kernels[i].id);
        size_t k = 0;
        while (source && k < kinds && strcmp(seen[k], source) != 0) {
            k++;
        }
        if (!source || (k == kinds && kinds == sizeof seen / sizeof seen[0])) {
            unsaid++;
            continue;
        }
        seen[k] = source;
        kinds += k == kinds;
        counts[k]++;
    }
    if (!kinds) {
        return;
    }
    fputs("kernel names from: ", out);
    for (size_t k = 0; k < kinds; k++) {
        fputs(k ? ", " : "", out);
        wgprof__escape_terminal_cell(out, seen[k], 0);
        fprintf(out, " (%zu", counts[k]);
        for (size_t i = 0, listed = 0; kinds + (unsaid > 0) > 1 && counts[k] <= 3 && i < n; i++) {
            const char *source = wgprof__store_source(r->store, s->kernels[i].id);
            if (source && strcmp(source, seen[k]) == 0) {
                fputs(listed++ ? ", " : ": ", out);
                wgprof__escape_terminal_cell(out, s->kernels[i].name, 0);
            }
        }
        fputs(")", out);
    }
    if (unsaid) {
        fprintf(out, ", not said (%zu)", unsaid);
    }
    fputc('\n', out);
}

static void write_header(const wgprof__report *r, FILE *out)
{
    const wgprof_device_info *d = r->desc->device;
    fprintf(out, "wgprof %s", WGPROF_VERSION_STRING);
    if (d) {
        char period[96];
        wgprof__period_text(r, period, sizeof period);
        fputs(" | ", out);
        wgprof__escape_terminal_cell(out, d->adapter, 0);
        fprintf(out, " (%s, %s) | period %s", d->backend, d->adapter_type, period);
    }
    char quantum[64], warning[256];
    wgprof__quantum_text(r->summary, quantum, sizeof quantum);
    if (quantum[0]) {
        fprintf(out, " | %s", quantum);
    }
    fputs(" | strategy ", out);
    wgprof__escape_terminal_cell(out, r->strategy, 0);
    fprintf(out, " | %u iteration%s", r->iterations, r->iterations == 1 ? "" : "s");
    if (r->desc->shader_checks) {
        fputs(" | shader checks ", out);
        wgprof__escape_terminal_cell(out, r->desc->shader_checks, 0);
    }
    fputc('\n', out);
    if (r->partial) {
        fputs("PARTIAL RESULTS: ", out);
        wgprof__escape_terminal_cell(out, r->partial, 0);
        fputc('\n', out);
    }
    wgprof__quantized_warning(r->summary, warning, sizeof warning);
    if (warning[0]) {
        fprintf(out, "warning: %s\n", warning);
    }
    uint64_t dropped_dispatches = 0, dropped = r->store ? wgprof__store_dropped(r->store, &dropped_dispatches) : 0;
    if (dropped) {
        fprintf(out, "%llu execute%s (%llu dispatches) not timed: every readback frame was in flight\n",
                (unsigned long long)dropped, dropped == 1 ? "" : "s", (unsigned long long)dropped_dispatches);
    }
    const wgprof_clock_info *clock = r->clock;
    if (clock && clock->calibrated) {
        cell(out, "GPU clock on the CPU clock: within +-", 0, "%.3f", clock->uncertainty_ns / 1e3);
        fprintf(out, " us%s", clock->consistent ? "" : " (bounds disagree)");
        cell(out, ", drift ", 0, "%.3f", clock->drift_ppm);
        fprintf(out, " ppm, %u bounds\n", clock->samples);
    }
    write_name_sources(r, out);
}

static void write_scopes(const wgprof_summary *s, FILE *out)
{
    if (!s->scope_count) {
        return;
    }
    fprintf(out, "\n%-28s %7s %7s %7s %13s %11s %11s %11s %13s %7s\n", "scope", "count", "invalid", "empty",
            "total_us", "mean_us", "min_us", "max_us", "dispatch_us", "share");
    for (size_t i = 0; i < s->scope_count; i++) {
        const wgprof_scope_stats *sc = &s->scopes[i];
        /* Indented by depth; a deep name keeps its full text and pushes the row right. */
        int indent = (int)(2 * (sc->depth < 8 ? sc->depth : 8));
        int width = 28 - indent;
        fprintf(out, "%*s", indent, "");
        wgprof__escape_terminal_cell(out, sc->name, width);
        fprintf(out, " %7u %7u %7u ", sc->count, sc->invalid, sc->empty);
        if (sc->count) {
            cell(out, "", 13, "%.3f", sc->total_ns / 1e3);
            cell(out, " ", 11, "%.3f", sc->mean_ns / 1e3);
            cell(out, " ", 11, "%.3f", sc->min_ns / 1e3);
            cell(out, " ", 11, "%.3f", sc->max_ns / 1e3);
            cell(out, " ", 13, "%.3f", sc->dispatch_ns / 1e3);
            cell(out, " ", 7, "%.1f%%", sc->share * 100.0);
            fputc('\n', out);
        } else {
            fprintf(out, "%13s\n", sc->invalid ? "no valid record" : "no dispatch");
        }
    }
}

static void format_dims(char *buf, size_t cap, const uint32_t v[3])
{
    snprintf(buf, cap, "%u,%u,%u", v[0], v[1], v[2]);
}

static void write_dispatches(const wgprof__report *r, FILE *out)
{
    fprintf(out, "\n%6s %5s  %-28s %-16s %-12s %-20s %14s %14s\n", "#", "iter", "kernel", "workgroups", "local",
            "global", "duration_us", "exclusive_us");
    size_t n = wgprof__store_count(r->store);
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        if (wgprof__store_record(r->store, r->clock, i, &rec) != WGPROF_OK) {
            continue;
        }
        char wg[40], ls[40], gs[64];
        format_dims(wg, sizeof wg, rec.workgroups);
        if (!rec.workgroups[0]) {
            snprintf(wg, sizeof wg, "?");
        }
        format_dims(ls, sizeof ls, rec.workgroup_size);
        snprintf(gs, sizeof gs, "%llu,%llu,%llu", (unsigned long long)rec.global_size[0],
                 (unsigned long long)rec.global_size[1], (unsigned long long)rec.global_size[2]);
        if (!rec.workgroup_size[0]) { /* unknown: never a guess */
            snprintf(ls, sizeof ls, "?");
        }
        if (!rec.global_size[0]) {
            snprintf(gs, sizeof gs, "?");
        }
        fprintf(out, "%6zu %5u  ", i, rec.batch);
        wgprof__escape_terminal_cell(out, rec.kernel, 28);
        fprintf(out, " %-16s %-12s %-20s ", wg, ls, gs);
        if (rec.valid) {
            cell(out, "", 14, "%.3f", rec.duration_ns / 1e3);
            cell(out, " ", 14, "%.3f", rec.exclusive_ns / 1e3);
            fputc('\n', out);
        } else {
            fprintf(out, "%14s %14s\n", "invalid:", wgprof_invalid_reason_str(rec.invalid_reason));
        }
    }
}

static void write_kernels(const wgprof_summary *s, FILE *out)
{
    fprintf(out, "\n%-28s %7s %7s %13s %11s %11s %11s %11s %11s %11s %7s\n", "kernel", "count", "invalid",
            "total_us", "mean_us", "median_us", "p95_us", "min_us", "max_us", "stddev_us", "share");
    for (size_t i = 0; i < s->kernel_count; i++) {
        const wgprof_kernel_stats *k = &s->kernels[i];
        wgprof__escape_terminal_cell(out, k->name, 28);
        fprintf(out, " %7u %7u ", k->count, k->invalid);
        if (k->count) {
            cell(out, "", 13, "%.3f", k->total_ns / 1e3);
            const double us[] = {k->mean_ns, k->median_ns, k->p95_ns, k->min_ns, k->max_ns, k->stddev_ns};
            for (size_t v = 0; v < sizeof us / sizeof *us; v++) {
                cell(out, " ", 11, "%.3f", us[v] / 1e3);
            }
            cell(out, " ", 7, "%.1f%%", k->share * 100.0);
            fputc('\n', out);
        } else {
            fprintf(out, "%13s\n", "no valid record");
        }
    }
    fprintf(out, "%-28s %7zu %7zu", "total", s->records - s->invalid, s->invalid);
    cell(out, " ", 13, "%.3f", s->total_ns / 1e3);
    cell(out, "   (exclusive of overlap: ", 0, "%.3f", s->exclusive_total_ns / 1e3);
    fputs(" us)\n", out);
    if (s->invalid) {
        char why[256];
        wgprof__invalid_breakdown(s, why, sizeof why);
        fprintf(out, "%zu invalid record%s (%s) excluded from every figure\n", s->invalid, s->invalid == 1 ? "" : "s",
                why);
    }
}

/* A figure, or its share of `peak` in percent; "-" stays where either is unknown or not finite. */
static void figure_cell(char *text, size_t cap, double value)
{
    if (value > 0 && isfinite(value)) {
        snprintf(text, cap, "%.3f", value);
    }
}

static void peak_cell(char *text, size_t cap, double value, double peak)
{
    if (value > 0 && peak > 0 && isfinite(100.0 * value / peak)) {
        snprintf(text, cap, "%.1f%%", 100.0 * value / peak);
    }
}

static void write_efficiency(const wgprof__report *r, FILE *out)
{
    const wgprof_summary *s = r->summary;
    if (!wgprof__any_throughput(s)) {
        return;
    }
    fprintf(out, "\n%-28s %12s %10s %12s %12s %10s %14s\n", "kernel", "GB/s", "of_peak", "GB/s_total", "GFLOP/s",
            "of_peak", "GFLOP/s_total");
    for (size_t i = 0; i < s->kernel_count; i++) {
        const wgprof_kernel_stats *k = &s->kernels[i];
        if (k->gbps_total <= 0 && k->gflops_total <= 0) {
            continue;
        }
        char cells[6][32] = {"-", "-", "-", "-", "-", "-"};
        figure_cell(cells[0], sizeof cells[0], k->gbps);
        peak_cell(cells[1], sizeof cells[1], k->gbps, r->desc->peak_gbps);
        figure_cell(cells[2], sizeof cells[2], k->gbps_total);
        figure_cell(cells[3], sizeof cells[3], k->gflops);
        peak_cell(cells[4], sizeof cells[4], k->gflops, r->desc->peak_gflops);
        figure_cell(cells[5], sizeof cells[5], k->gflops_total);
        wgprof__escape_terminal_cell(out, k->name, 28);
        fprintf(out, " %12s %10s %12s %12s %10s %14s\n", cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]);
    }
    fprintf(out, "%s\n", wgprof__throughput_note);
}

wgprof_status wgprof__write_table(const wgprof__report *r, FILE *out)
{
    write_header(r, out);
    if (!r->desc->pool || !r->summary) {
        fputs("no timings: ", out);
        wgprof__escape_terminal_cell(
            out, r->desc->unavailable_reason ? r->desc->unavailable_reason : "profiling off", 0);
        fputc('\n', out);
        return WGPROF_OK;
    }
    if (!r->desc->omit_dispatches) {
        write_dispatches(r, out);
    }
    write_kernels(r->summary, out);
    write_scopes(r->summary, out);
    write_efficiency(r, out);
    return WGPROF_OK;
}
