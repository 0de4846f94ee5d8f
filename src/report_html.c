/*
 * The HTML report: one self-contained page, opened from a file, that fetches nothing. A header
 * names the device, the strategy and the clock fit; a zoomable timeline shows the CPU spans of
 * each batch, the GPU dispatches and the scopes on one axis; a bar chart and two tables give the
 * per-kernel and per-scope statistics. The header and tables are plain HTML written here; the
 * timeline and chart are drawn by the page's script from one JSON object embedded in the page,
 * in which every '<' is escaped, so that no kernel or scope name can end the script element.
 * Invalid records are counted, never drawn.
 */
#include <math.h>
#include <string.h>

#include "report_internal.h"

/* Past these the page gets slow to load and draw; the tables still cover everything. */
enum { HTML_MAX_DISPATCHES = 200000, HTML_MAX_SCOPES = 100000 };

/* The page's stylesheet and script, at the end of this file. */
static void write_style(FILE *out);
static void write_script(FILE *out);

/* ---- escaping ------------------------------------------------------------------------------ */

static void html_text(FILE *out, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*p, out);
        }
    }
}

/* A JSON string that is also safe inside a script element: '<', '>' and '&' as \u escapes. */
static void data_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', out);
            fputc(*p, out);
        } else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* JSON has no NaN or infinity: those become null. */
static void data_number(FILE *out, const char *format, double v)
{
    if (isfinite(v)) {
        fprintf(out, format, v);
    } else {
        fputs("null", out);
    }
}

/* ---- what the timeline holds --------------------------------------------------------------- */

typedef struct timeline {
    const wgprof_pool *pool;
    const wgprof_summary *summary;
    bool cpu_clock;          /* the clock fit is calibrated: every lane on the CPU clock */
    double origin_ns;        /* the earliest time shown: 0 on the axis */
    size_t record_end;       /* records [0, record_end) are considered for the page */
    size_t dispatches;       /* valid records embedded */
    size_t dispatches_total; /* valid records with a time in the whole pool */
    size_t scopes;
    size_t scopes_total;
} timeline;

static bool record_span(const timeline *t, const wgprof_record *rec, double *start, double *end)
{
    *start = t->cpu_clock ? rec->cpu_start_ns : rec->start_ns;
    *end = t->cpu_clock ? rec->cpu_end_ns : rec->end_ns;
    return rec->valid && isfinite(*start) && isfinite(*end) && *end >= *start;
}

static bool scope_span(const timeline *t, const wgprof_scope_record *sc, double *start, double *end)
{
    *start = t->cpu_clock ? sc->cpu_start_ns : sc->start_ns;
    *end = t->cpu_clock ? sc->cpu_end_ns : sc->end_ns;
    return sc->valid && isfinite(*start) && isfinite(*end) && *end >= *start &&
           sc->first_record < t->record_end;
}

static void take_earliest(timeline *t, double v)
{
    if (v < t->origin_ns) {
        t->origin_ns = v;
    }
}

/* Decides what is embedded (the first dispatches and scopes up to the caps) and where the axis
 * starts, so that the data can then be written in one pass. */
static void plan_timeline(timeline *t, const wgprof_pool *pool, const wgprof_summary *summary)
{
    const wgprof_clock_info *clock = wgprof_pool_clock(pool);
    *t = (timeline){.pool = pool, .summary = summary, .cpu_clock = clock && clock->calibrated,
                    .origin_ns = INFINITY};
    size_t n = wgprof_pool_count(pool);
    t->record_end = n;
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        double start, end;
        if (wgprof_pool_record(pool, i, &rec) != WGPROF_OK || !record_span(t, &rec, &start, &end)) {
            continue;
        }
        t->dispatches_total++;
        if (t->dispatches < HTML_MAX_DISPATCHES) {
            t->dispatches++;
            take_earliest(t, start);
        } else if (t->record_end == n) {
            t->record_end = i;
        }
    }
    size_t scope_count = wgprof_pool_scope_count(pool);
    for (size_t i = 0; i < scope_count; i++) {
        wgprof_scope_record sc;
        double start, end;
        if (wgprof_pool_scope(pool, i, &sc) == WGPROF_OK && scope_span(t, &sc, &start, &end)) {
            t->scopes_total++;
            if (t->scopes < HTML_MAX_SCOPES) {
                t->scopes++;
                take_earliest(t, start);
            }
        }
    }
    if (t->cpu_clock) {
        uint32_t batches = wgprof_pool_batches(pool);
        for (uint32_t i = 0; i < batches; i++) {
            wgprof_batch_info b;
            if (wgprof_pool_batch(pool, i, &b) == WGPROF_OK && b.first_record < t->record_end && b.cpu_encode_ns) {
                take_earliest(t, (double)b.cpu_encode_ns);
            }
        }
    }
    if (!isfinite(t->origin_ns)) {
        t->origin_ns = 0;
    }
}

/* ---- the embedded data --------------------------------------------------------------------- */

static void data_dispatch_id(FILE *out, uint64_t id)
{
    /* Past 2^53 a JavaScript number would change the id; such ids travel as strings. */
    if (id > (1ull << 53)) {
        fprintf(out, "\"%llu\"", (unsigned long long)id);
    } else {
        fprintf(out, "%llu", (unsigned long long)id);
    }
}

/* The kernel's index in the summary, which fixes its colour; names are the pool's, so the
 * pointer usually matches and the comparison of text is the fallback. */
static size_t kernel_index(const wgprof_summary *s, const char *name)
{
    for (size_t k = 0; k < s->kernel_count; k++) {
        if (s->kernels[k].name == name) {
            return k;
        }
    }
    for (size_t k = 0; k < s->kernel_count; k++) {
        if (strcmp(s->kernels[k].name, name) == 0) {
            return k;
        }
    }
    return 0;
}

static void data_kernels(FILE *out, const wgprof_summary *s)
{
    fputs(",\n\"kernels\": [", out);
    for (size_t i = 0; i < s->kernel_count; i++) {
        const wgprof_kernel_stats *k = &s->kernels[i];
        fputs(i ? ",\n{\"name\": " : "\n{\"name\": ", out);
        data_string(out, k->name);
        fprintf(out, ", \"count\": %u", k->count);
        const char *keys[] = {"total_ns", "mean_ns", "median_ns", "p95_ns"};
        double values[] = {k->total_ns, k->mean_ns, k->median_ns, k->p95_ns};
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            fprintf(out, ", \"%s\": ", keys[v]);
            data_number(out, "%.3f", k->count ? values[v] : NAN);
        }
        fputc('}', out);
    }
    fputs("]", out);
}

/* [kernel, iteration, record, start, end, dispatch id, workgroups x3, global size x3] */
static void data_dispatches(FILE *out, const timeline *t)
{
    fprintf(out, ",\n\"dispatches_total\": %zu,\n\"dispatches\": [", t->dispatches_total);
    size_t written = 0;
    for (size_t i = 0; i < t->record_end && written < t->dispatches; i++) {
        wgprof_record rec;
        double start, end;
        if (wgprof_pool_record(t->pool, i, &rec) != WGPROF_OK || !record_span(t, &rec, &start, &end)) {
            continue;
        }
        /* Eight to a line: short enough lines, far fewer of them. */
        fprintf(out, "%s[%zu,%u,%u,", !written ? "\n" : written % 8 ? "," : ",\n", kernel_index(t->summary, rec.kernel),
                rec.iteration, rec.index);
        written++;
        data_number(out, "%.1f", start - t->origin_ns);
        fputc(',', out);
        data_number(out, "%.1f", end - t->origin_ns);
        fputc(',', out);
        data_dispatch_id(out, rec.dispatch_id);
        fprintf(out, ",%u,%u,%u,%llu,%llu,%llu]", rec.workgroups[0], rec.workgroups[1], rec.workgroups[2],
                (unsigned long long)rec.global_size[0], (unsigned long long)rec.global_size[1],
                (unsigned long long)rec.global_size[2]);
    }
    fputs("]", out);
}

static void data_cpu_time(FILE *out, const timeline *t, uint64_t ns)
{
    /* 0 marks a time the pool does not know. */
    if (ns) {
        fprintf(out, ",%.1f", (double)ns - t->origin_ns);
    } else {
        fputs(",null", out);
    }
}

/* [iteration, encode, submit, submitted, ready, waited]: the CPU spans, on the CPU clock only. */
static void data_batches(FILE *out, const timeline *t)
{
    fputs(",\n\"batches\": [", out);
    uint32_t n = t->cpu_clock ? wgprof_pool_batches(t->pool) : 0;
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        wgprof_batch_info b;
        if (wgprof_pool_batch(t->pool, i, &b) != WGPROF_OK || b.first_record >= t->record_end) {
            continue;
        }
        fprintf(out, "%s[%u", first ? "\n" : ",\n", b.iteration);
        data_cpu_time(out, t, b.cpu_encode_ns);
        data_cpu_time(out, t, b.cpu_submit_ns);
        data_cpu_time(out, t, b.cpu_submitted_ns);
        data_cpu_time(out, t, b.cpu_ready_ns);
        fprintf(out, ",%d]", b.waited ? 1 : 0);
        first = false;
    }
    fputs("]", out);
}

/* [name, depth, iteration, start, end, valid records, dispatch time] */
static void data_scopes(FILE *out, const timeline *t)
{
    fprintf(out, ",\n\"scopes_total\": %zu,\n\"scopes\": [", t->scopes_total);
    size_t n = wgprof_pool_scope_count(t->pool), written = 0;
    for (size_t i = 0; i < n && written < t->scopes; i++) {
        wgprof_scope_record sc;
        double start, end;
        if (wgprof_pool_scope(t->pool, i, &sc) != WGPROF_OK || !scope_span(t, &sc, &start, &end)) {
            continue;
        }
        fputs(written++ ? ",\n[" : "\n[", out);
        data_string(out, sc.name);
        fprintf(out, ",%u,%u,", sc.depth, sc.iteration);
        data_number(out, "%.1f", start - t->origin_ns);
        fputc(',', out);
        data_number(out, "%.1f", end - t->origin_ns);
        fprintf(out, ",%u,", sc.valid_records);
        data_number(out, "%.1f", sc.dispatch_ns);
        fputc(']', out);
    }
    fputs("]", out);
}

static void write_data(FILE *out, const wgprof__report *r, const timeline *t)
{
    fputs("<script type=\"application/json\" id=\"wgprof-data\">\n{\"wgprof_version\": \"" WGPROF_VERSION_STRING
          "\", \"profiling\": ",
          out);
    if (!t) {
        fputs("false, \"unavailable_reason\": ", out);
        data_string(out, r->desc->unavailable_reason ? r->desc->unavailable_reason : "profiling off");
        fputs(", \"kernels\": [], \"dispatches\": [], \"batches\": [], \"scopes\": []}\n</script>\n", out);
        return;
    }
    fprintf(out, "true, \"timebase\": \"%s\"", t->cpu_clock ? "cpu" : "gpu");
    data_kernels(out, r->summary);
    data_dispatches(out, t);
    data_batches(out, t);
    data_scopes(out, t);
    fputs("}\n</script>\n", out);
}

/* ---- the page ------------------------------------------------------------------------------ */

/* `wide`: a value that needs two columns of the grid. */
static void fact_begin(FILE *out, const char *label, bool wide)
{
    fprintf(out, "<div%s><dt>%s</dt><dd>", wide ? " class=\"wide\"" : "", label);
}

static void fact_end(FILE *out) { fputs("</dd></div>\n", out); }

static void fact_text(FILE *out, const char *label, const char *value)
{
    fact_begin(out, label, false);
    html_text(out, value);
    fact_end(out);
}

static void write_header(FILE *out, const wgprof__report *r)
{
    const wgprof_device_info *d = r->desc->device;
    fputs("<header>\n<h1>wgprof report</h1>\n<p class=\"sub\">", out);
    if (d) {
        html_text(out, d->adapter);
        fputs(" &middot; ", out);
        html_text(out, d->driver[0] ? d->driver : d->vendor);
    } else {
        fputs("unknown adapter", out);
    }
    fputs("</p>\n<dl class=\"facts\">\n", out);
    fact_text(out, "wgprof", WGPROF_VERSION_STRING);
    if (d) {
        fact_begin(out, "adapter", true);
        html_text(out, d->adapter);
        fputs(" (", out);
        html_text(out, d->adapter_type);
        fputs(")", out);
        fact_end(out);
        fact_text(out, "backend", d->backend);
        fact_begin(out, "timestamp period", false);
        fprintf(out, "%.6g ns/tick%s", d->timestamp_period_ns, d->period_from_implementation ? "" : " (assumed)");
        fact_end(out);
    }
    fact_text(out, "strategy", r->strategy);
    fact_begin(out, "iterations", false);
    fprintf(out, "%u", r->iterations);
    fact_end(out);
    const wgprof_summary *s = r->summary;
    if (!r->desc->pool || !s) {
        fputs("</dl>\n</header>\n", out);
        return;
    }
    fact_begin(out, "dispatches", false);
    fprintf(out, "%zu timed, %zu valid", s->records, s->records - s->invalid);
    fact_end(out);
    fact_begin(out, "total GPU time", false);
    fprintf(out, "%.3f us", s->total_ns / 1e3);
    if (s->exclusive_total_ns < s->total_ns) {
        fprintf(out, " (%.3f us without overlap)", s->exclusive_total_ns / 1e3);
    }
    fact_end(out);
    char why[256];
    wgprof__invalid_breakdown(s, why, sizeof why);
    fact_begin(out, "invalid records", false);
    if (s->invalid) {
        fprintf(out, "%zu (", s->invalid);
        html_text(out, why);
        fputc(')', out);
    } else {
        fputs("none", out);
    }
    fact_end(out);
    const wgprof_clock_info *c = wgprof_pool_clock(r->desc->pool);
    fact_begin(out, "GPU clock on the CPU clock", true);
    if (c && c->calibrated) {
        fprintf(out, "calibrated: &plusmn;%.3f us, drift %.3f ppm, %u bounds%s", c->uncertainty_ns / 1e3, c->drift_ppm,
                c->samples, c->consistent ? "" : " (bounds disagree)");
    } else {
        fprintf(out, "not calibrated (%u bounds)", c ? c->samples : 0);
    }
    fact_end(out);
    uint64_t dropped_dispatches = 0, dropped = wgprof_pool_dropped(r->desc->pool, &dropped_dispatches);
    if (dropped) {
        fact_begin(out, "not timed", true);
        fprintf(out, "%llu batches (%llu dispatches): every readback frame was in flight", (unsigned long long)dropped,
                (unsigned long long)dropped_dispatches);
        fact_end(out);
    }
    fputs("</dl>\n</header>\n", out);
}

static void write_timeline(FILE *out, const timeline *t)
{
    fputs("<section>\n<h2>Timeline</h2>\n", out);
    if (!t->cpu_clock) {
        fputs("<p class=\"note\">The GPU clock is not fitted to the CPU clock, so CPU spans cannot be placed beside "
              "the dispatches: the CPU lane is left out and times count from the first GPU timestamp shown.</p>\n",
              out);
    }
    if (t->dispatches < t->dispatches_total || t->scopes < t->scopes_total) {
        fprintf(out, "<p class=\"note\">The timeline shows the first %zu of %zu dispatches", t->dispatches,
                t->dispatches_total);
        if (t->scopes < t->scopes_total) {
            fprintf(out, " and the first %zu of %zu scope instances", t->scopes, t->scopes_total);
        }
        fputs("; the tables cover all of them.</p>\n", out);
    }
    fputs("<div class=\"toolbar\"><button id=\"timeline-reset\" type=\"button\">reset</button>"
          "<span>wheel: zoom &middot; drag: pan &middot; double-click: reset</span>",
          out);
    fprintf(out,
            "<span id=\"legend\"></span><span>time from the earliest event, on the %s clock</span>"
            "<span id=\"range\"></span></div>\n",
            t->cpu_clock ? "CPU" : "GPU");
    fputs("<div class=\"timeline-wrap\"><canvas id=\"timeline\" height=\"200\"></canvas>"
          "<div id=\"tooltip\"></div></div>\n</section>\n",
          out);
}

static void stat_cell(FILE *out, double ns) { fprintf(out, "<td>%.3f</td>", ns / 1e3); }

static void share_cell(FILE *out, double share)
{
    double percent = isfinite(share) ? share * 100.0 : 0.0;
    fprintf(out, "<td class=\"share\" style=\"--share:%.1f%%\">%.1f%%</td>", percent, percent);
}

/* The rest of a table row: the times in us and the share, or, without a valid record, one cell
 * saying so in their place; then the row's end. */
static void figure_cells(FILE *out, bool any, const double *ns, size_t count, double share)
{
    if (any) {
        for (size_t v = 0; v < count; v++) {
            stat_cell(out, ns[v]);
        }
        share_cell(out, share);
    } else {
        fprintf(out, "<td class=\"none\" colspan=\"%zu\">no valid record</td>", count + 1);
    }
    fputs("</tr>\n", out);
}

static void write_kernel_table(FILE *out, const wgprof_summary *s)
{
    fputs("<section>\n<h2>Per-kernel summary</h2>\n<div class=\"table-wrap\"><table id=\"summary-table\">\n"
          "<thead><tr><th>kernel</th><th>count</th><th>invalid</th><th>total us</th><th>mean us</th>"
          "<th>median us</th><th>p95 us</th><th>min us</th><th>max us</th><th>stddev us</th><th>share</th></tr>"
          "</thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < s->kernel_count; i++) {
        const wgprof_kernel_stats *k = &s->kernels[i];
        fprintf(out, "<tr data-k=\"%zu\"><td title=\"", i);
        html_text(out, k->name);
        fputs("\">", out);
        html_text(out, k->name);
        fprintf(out, "</td><td>%u</td><td>%u</td>", k->count, k->invalid);
        const double values[] = {k->total_ns, k->mean_ns, k->median_ns, k->p95_ns, k->min_ns, k->max_ns, k->stddev_ns};
        figure_cells(out, k->count > 0, values, sizeof values / sizeof values[0], k->share);
    }
    fprintf(out, "</tbody>\n<tfoot><tr><td>total</td><td>%zu</td><td>%zu</td>", s->records - s->invalid, s->invalid);
    stat_cell(out, s->total_ns);
    fputs("<td colspan=\"7\"></td></tr></tfoot>\n</table></div>\n</section>\n", out);
}

static void write_scope_table(FILE *out, const wgprof_summary *s)
{
    if (!s->scope_count) {
        return;
    }
    fputs("<section>\n<h2>Scopes</h2>\n<div class=\"table-wrap\"><table id=\"scope-table\">\n"
          "<thead><tr><th>scope</th><th>count</th><th>invalid</th><th>total us</th><th>mean us</th><th>min us</th>"
          "<th>max us</th><th>dispatch us</th><th>share</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < s->scope_count; i++) {
        const wgprof_scope_stats *sc = &s->scopes[i];
        /* Deep nesting keeps indenting, up to a point where the name would have no room. */
        unsigned depth = sc->depth < 12 ? sc->depth : 12;
        fprintf(out, "<tr data-depth=\"%u\"><td style=\"padding-left:%.1fem\">", sc->depth, 0.7 + 1.4 * depth);
        html_text(out, sc->name);
        fprintf(out, "</td><td>%u</td><td>%u</td>", sc->count, sc->invalid);
        const double values[] = {sc->total_ns, sc->mean_ns, sc->min_ns, sc->max_ns, sc->dispatch_ns};
        figure_cells(out, sc->count > 0, values, sizeof values / sizeof values[0], sc->share);
    }
    fputs("</tbody>\n</table></div>\n</section>\n", out);
}

void wgprof__write_html(const wgprof__report *r, FILE *out)
{
    const wgprof_report_desc *d = r->desc;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>wgprof report",
          out);
    if (d->device) {
        fputs(": ", out);
        html_text(out, d->device->adapter);
    }
    fputs("</title>\n<style>\n", out);
    write_style(out);
    fputs("</style>\n</head>\n<body>\n<main>\n", out);
    write_header(out, r);
    timeline t;
    bool timed = d->pool && r->summary;
    if (timed) {
        plan_timeline(&t, d->pool, r->summary);
        write_timeline(out, &t);
        fputs("<section>\n<h2>Time per kernel</h2>\n<div class=\"chart-wrap\"><svg id=\"kernel-chart\" "
              "role=\"img\" aria-label=\"total GPU time per kernel\"></svg></div>\n</section>\n",
              out);
        write_kernel_table(out, r->summary);
        write_scope_table(out, r->summary);
    } else {
        fputs("<p class=\"note unavailable\">No timings: ", out);
        html_text(out, d->unavailable_reason ? d->unavailable_reason : "profiling off");
        fputs("</p>\n", out);
    }
    fputs("<footer>Made by wgprof " WGPROF_VERSION_STRING ". Times in microseconds unless marked; invalid records "
          "are counted, never drawn.</footer>\n</main>\n",
          out);
    write_data(out, r, timed ? &t : NULL);
    fputs("<script>\n", out);
    write_script(out);
    fputs("</script>\n</body>\n</html>\n", out);
}

/* ---- the stylesheet and the script --------------------------------------------------------- */

/* One string per line: ISO C promises string literals of 4095 characters only. */
static void write_lines(FILE *out, const char *const *lines, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fputs(lines[i], out);
        fputc('\n', out);
    }
}

static void write_style(FILE *out)
{
    static const char *const lines[] = {
        ":root { --fg: #1d2330; --muted: #5d6575; --line: #dde1e8; --panel: #f6f7f9; --accent: #2f5fb3; }",
        "* { box-sizing: border-box; }",
        "body { margin: 0; padding: 20px 28px 40px; color: var(--fg); background: #fff;",
        "  font: 14px/1.45 system-ui, -apple-system, \"Segoe UI\", Roboto, \"DejaVu Sans\", sans-serif; }",
        "main { max-width: 1400px; margin: 0 auto; }",
        "h1 { font-size: 22px; margin: 0 0 2px; }",
        "h2 { font-size: 16px; margin: 26px 0 8px; }",
        ".sub { color: var(--muted); margin: 0 0 14px; }",
        ".facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 8px; margin: 0; }",
        ".facts div { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px;",
        "  min-width: 0; }",
        ".facts .wide { grid-column: span 2; }",
        ".facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }",
        ".facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }",
        ".note { background: #fff7e0; border: 1px solid #ecd9a0; border-radius: 6px; padding: 8px 12px;",
        "  margin: 10px 0; }",
        ".unavailable { font-size: 16px; background: #fdeeee; border-color: #eab8b8; }",
        ".toolbar { display: flex; align-items: center; gap: 14px; flex-wrap: wrap; margin: 0 0 6px;",
        "  color: var(--muted); font-size: 12px; }",
        ".toolbar button { font: inherit; font-size: 12px; padding: 3px 12px; border: 1px solid #b9c0cc;",
        "  border-radius: 4px; background: #fff; color: var(--fg); cursor: pointer; }",
        ".toolbar button:hover { background: var(--panel); }",
        "#legend { display: inline-flex; gap: 14px; }",
        ".legend { display: inline-flex; align-items: center; }",
        ".swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px;",
        "  vertical-align: -1px; }",
        "#range { margin-left: auto; font-variant-numeric: tabular-nums; }",
        ".timeline-wrap { position: relative; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }",
        "#timeline { display: block; width: 100%; cursor: grab; }",
        "#timeline.dragging { cursor: grabbing; }",
        "#tooltip { position: absolute; pointer-events: none; display: none; background: rgba(29, 35, 48, .94);",
        "  color: #fff; font-size: 12px; line-height: 1.45; padding: 6px 9px; border-radius: 5px;",
        "  white-space: nowrap; }",
        "#tooltip b { font-size: 13px; }",
        ".chart-wrap { border: 1px solid var(--line); border-radius: 6px; padding: 6px 0; }",
        "#kernel-chart { display: block; }",
        "#kernel-chart text { font-size: 12px; fill: var(--fg); dominant-baseline: central; }",
        "#kernel-chart text.value { fill: var(--muted); font-variant-numeric: tabular-nums; }",
        "table { border-collapse: collapse; font-size: 13px; }",
        "th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; }",
        "th { text-align: right; font-size: 12px; color: var(--muted); font-weight: 600; background: var(--panel); }",
        "th:first-child, td:first-child { text-align: left; }",
        "td { text-align: right; font-variant-numeric: tabular-nums; }",
        "td:first-child { font-variant-numeric: normal; max-width: 360px; overflow: hidden;",
        "  text-overflow: ellipsis; }",
        "tbody tr:hover { background: #eef3fb; }",
        "tfoot td { font-weight: 600; border-top: 2px solid var(--line); }",
        "td.share { min-width: 90px;",
        "  background: linear-gradient(to right, #6f9ad8 var(--share), #e3e8ef var(--share))",
        "    no-repeat right 10px bottom 3px / calc(100% - 20px) 3px; }",
        "td.none { color: var(--muted); text-align: left; }",
        ".table-wrap { overflow-x: auto; }",
        "footer { margin-top: 28px; color: var(--muted); font-size: 12px; }",
    };
    write_lines(out, lines, sizeof lines / sizeof lines[0]);
}

/* Draws the timeline and the chart from the data in #wgprof-data (see write_data for the
 * layout of its arrays), then marks the body rendered and says so on the console. */
static void write_script(FILE *out)
{
    static const char *const lines[] = {
        "(function () {",
        "  'use strict';",
        "  var data = JSON.parse(document.getElementById('wgprof-data').textContent);",
        "  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',",
        "    '#9c755f', '#17becf', '#2b5d8c', '#c4571a', '#a83246', '#3d9489', '#2f7d32', '#b8902a', '#7b4f9d',",
        "    '#d9628f', '#6b4c3b', '#5f6b7a'];",
        "  var SCOPE_PALETTE = ['#a9bde0', '#b5dba5', '#ecd3a5', '#a4d6cb', '#f2bba6', '#e0b8d8', '#d6d19d',",
        "    '#c3cad4'];",
        "  var CPU_COLORS = {encode: '#8797d8', submit: '#e8a33d', wait: '#c6cbd4'};",
        "  var DOT = ' \\u00b7 ', BY = '\\u00d7';",
        "  var FONT = '12px system-ui, -apple-system, \"Segoe UI\", Roboto, \"DejaVu Sans\", sans-serif';",
        "",
        "  function hex2(v) {",
        "    var s = Math.round(v * 255).toString(16);",
        "    return s.length < 2 ? '0' + s : s;",
        "  }",
        "  function hslHex(h, s, l) {",
        "    var a = s * Math.min(l, 1 - l);",
        "    function f(n) {",
        "      var k = (n + h / 30) % 12;",
        "      return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));",
        "    }",
        "    return '#' + hex2(f(0)) + hex2(f(8)) + hex2(f(4));",
        "  }",
        "  /* The same colour for a kernel in the chart, the timeline and the table. */",
        "  function kernelColor(k) {",
        "    return k < PALETTE.length ? PALETTE[k] : hslHex((k * 137.508) % 360, 0.5, 0.5);",
        "  }",
        "  function darkText(hex) {",
        "    var v = parseInt(hex.slice(1), 16);",
        "    return 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255) > 150;",
        "  }",
        "  function us(ns) {",
        "    return ns == null ? '-' : (ns / 1e3).toFixed(3);",
        "  }",
        "  function at(ns) {",
        "    return Math.abs(ns) >= 1e6 ? (ns / 1e6).toFixed(3) + ' ms' : (ns / 1e3).toFixed(3) + ' us';",
        "  }",
        "  function shorten(s, n) {",
        "    return s.length > n ? s.slice(0, n - 1) + '\\u2026' : s;",
        "  }",
        "  /* Where an element lies on the page, for checks of a screenshot. */",
        "  function box(el) {",
        "    var r = el.getBoundingClientRect();",
        "    return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height].map(Math.round).join(',');",
        "  }",
        "",
        "  function addSwatches() {",
        "    var rows = document.querySelectorAll('#summary-table tbody tr[data-k]');",
        "    for (var i = 0; i < rows.length; i++) {",
        "      var k = +rows[i].getAttribute('data-k');",
        "      if (!data.kernels[k] || !data.kernels[k].count) {",
        "        continue;",
        "      }",
        "      var sw = document.createElement('span');",
        "      sw.className = 'swatch';",
        "      sw.style.background = kernelColor(k);",
        "      rows[i].cells[0].insertBefore(sw, rows[i].cells[0].firstChild);",
        "    }",
        "  }",
        "",
        "  function drawChart() {",
        "    var svg = document.getElementById('kernel-chart');",
        "    if (!svg) {",
        "      return 0;",
        "    }",
        "    var ns = svg.namespaceURI;",
        "    function node(tag, attrs, text) {",
        "      var e = document.createElementNS(ns, tag);",
        "      for (var a in attrs) {",
        "        e.setAttribute(a, attrs[a]);",
        "      }",
        "      if (text != null) {",
        "        e.textContent = text;",
        "      }",
        "      return e;",
        "    }",
        "    while (svg.firstChild) {",
        "      svg.removeChild(svg.firstChild);",
        "    }",
        "    var rows = [];",
        "    data.kernels.forEach(function (k, i) {",
        "      if (k.count > 0 && k.total_ns != null) {",
        "        rows.push({k: k, i: i});",
        "      }",
        "    });",
        "    rows.sort(function (a, b) { return b.k.total_ns - a.k.total_ns || a.i - b.i; });",
        "    var width = Math.max(640, svg.parentNode.clientWidth);",
        "    var rowH = 24, pad = 4, nameW = 200, labelW = 380;",
        "    var barMax = Math.max(80, width - nameW - labelW - 16);",
        "    var height = pad * 2 + Math.max(1, rows.length) * rowH;",
        "    svg.setAttribute('width', width);",
        "    svg.setAttribute('height', height);",
        "    if (!rows.length) {",
        "      svg.appendChild(node('text', {x: 16, y: height / 2}, 'no valid dispatches'));",
        "      return 0;",
        "    }",
        "    var top = rows[0].k.total_ns > 0 ? rows[0].k.total_ns : 1;",
        "    rows.forEach(function (r, n) {",
        "      var k = r.k, y = pad + n * rowH, len = Math.max(2, barMax * k.total_ns / top);",
        "      var g = node('g', {});",
        "      var name = node('text', {x: nameW - 10, y: y + rowH / 2, 'text-anchor': 'end'}, shorten(k.name, 28));",
        "      name.appendChild(node('title', {}, k.name));",
        "      g.appendChild(name);",
        "      var bar = node('rect', {'class': 'bar', x: nameW, y: y + 4, width: len.toFixed(1), height: rowH - 8,",
        "        rx: 2, fill: kernelColor(r.i)});",
        "      var what = k.name + ': ' + us(k.total_ns) + ' us in ' + k.count + ' dispatches';",
        "      bar.appendChild(node('title', {}, what));",
        "      g.appendChild(bar);",
        "      g.appendChild(node('text', {'class': 'value', x: (nameW + len + 8).toFixed(1), y: y + rowH / 2},",
        "        us(k.total_ns) + ' us total' + DOT + 'median ' + us(k.median_ns) + DOT + 'p95 ' + us(k.p95_ns) +",
        "        ' us' + DOT + BY + k.count));",
        "      svg.appendChild(g);",
        "    });",
        "    return rows.length;",
        "  }",
        "",
        "  function setupTimeline() {",
        "    var canvas = document.getElementById('timeline');",
        "    if (!canvas) {",
        "      return 0;",
        "    }",
        "    var ctx = canvas.getContext('2d');",
        "    var tip = document.getElementById('tooltip');",
        "    var rangeLabel = document.getElementById('range');",
        "    var cpu = data.timebase === 'cpu';",
        "    var lanes = [], scopeLanes = [], lo = Infinity, hi = -Infinity;",
        "    function lane(name, height) {",
        "      var l = {name: name, h: height, items: [], y: 0, maxDur: 0};",
        "      lanes.push(l);",
        "      return l;",
        "    }",
        "    function add(l, s, e, color, what, ref) {",
        "      if (s == null || e == null || !(e >= s)) {",
        "        return;",
        "      }",
        "      l.items.push({s: s, e: e, c: color, what: what, ref: ref});",
        "      lo = Math.min(lo, s);",
        "      hi = Math.max(hi, e);",
        "    }",
        "    var legend = document.getElementById('legend');",
        "    if (cpu) {",
        "      Object.keys(CPU_COLORS).forEach(function (name) {",
        "        var item = document.createElement('span'), sw = document.createElement('span');",
        "        item.className = 'legend';",
        "        sw.className = 'swatch';",
        "        sw.style.background = CPU_COLORS[name];",
        "        item.appendChild(sw);",
        "        item.appendChild(document.createTextNode('CPU ' + name));",
        "        legend.appendChild(item);",
        "      });",
        "      var cpuLane = lane('CPU', 24);",
        "      data.batches.forEach(function (b) {",
        "        add(cpuLane, b[1], b[2], CPU_COLORS.encode, 'encode', b);",
        "        add(cpuLane, b[2], b[3], CPU_COLORS.submit, 'submit', b);",
        "        if (b[5]) {",
        "          add(cpuLane, b[3], b[4], CPU_COLORS.wait, 'wait', b);",
        "        }",
        "      });",
        "    }",
        "    var gpuLane = lane('GPU', 36);",
        "    data.dispatches.forEach(function (d) { add(gpuLane, d[3], d[4], kernelColor(d[0]), 'dispatch', d); });",
        "    var scopeColors = {}, scopeNames = 0;",
        "    data.scopes.forEach(function (s) {",
        "      while (scopeLanes.length <= s[1]) {",
        "        scopeLanes.push(lane('scope depth ' + scopeLanes.length, 24));",
        "      }",
        "      if (!Object.prototype.hasOwnProperty.call(scopeColors, s[0])) {",
        "        scopeColors[s[0]] = SCOPE_PALETTE[scopeNames++ % SCOPE_PALETTE.length];",
        "      }",
        "      add(scopeLanes[s[1]], s[3], s[4], scopeColors[s[0]], 'scope', s);",
        "    });",
        "    lanes.forEach(function (l) {",
        "      l.items.sort(function (a, b) { return a.s - b.s; });",
        "      l.items.forEach(function (it) { l.maxDur = Math.max(l.maxDur, it.e - it.s); });",
        "    });",
        "    if (!(hi > lo)) {",
        "      lo = isFinite(lo) ? lo : 0;",
        "      hi = lo + 1000;",
        "    }",
        "    var MIN_SPAN = 50, GUTTER = 112, RIGHT = 10, AXIS = 26, GAP = 4;",
        "    var full0 = lo, full1 = hi, v0 = lo, v1 = hi, W = 0, H = 0, dpr = 1, hover = null, drag = null;",
        "    var widths = {};",
        "",
        "    function layout() {",
        "      var y = AXIS + GAP;",
        "      lanes.forEach(function (l) {",
        "        l.y = y;",
        "        y += l.h + GAP;",
        "      });",
        "      H = y;",
        "      W = Math.max(400, canvas.parentNode.clientWidth);",
        "      dpr = window.devicePixelRatio || 1;",
        "      canvas.style.height = H + 'px';",
        "      canvas.width = Math.round(W * dpr);",
        "      canvas.height = Math.round(H * dpr);",
        "      widths = {};",
        "    }",
        "    function plotW() {",
        "      return W - GUTTER - RIGHT - 6;",
        "    }",
        "    function px(t) {",
        "      return GUTTER + 6 + (t - v0) / (v1 - v0) * plotW();",
        "    }",
        "    function time(x) {",
        "      return v0 + (x - GUTTER - 6) / plotW() * (v1 - v0);",
        "    }",
        "    function niceStep(span, count) {",
        "      var raw = span / Math.max(1, count), p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;",
        "      return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;",
        "    }",
        "    function tickLabel(t, step) {",
        "      if (step >= 1e5) {",
        "        return (t / 1e6).toFixed(Math.max(0, -Math.floor(Math.log10(step / 1e6) + 1e-9))) + ' ms';",
        "      }",
        "      return (t / 1e3).toFixed(Math.max(0, -Math.floor(Math.log10(step / 1e3) + 1e-9))) + ' us';",
        "    }",
        "    function lowerBound(items, t) {",
        "      var a = 0, b = items.length;",
        "      while (a < b) {",
        "        var m = (a + b) >> 1;",
        "        if (items[m].s < t) {",
        "          a = m + 1;",
        "        } else {",
        "          b = m;",
        "        }",
        "      }",
        "      return a;",
        "    }",
        "    function fit(text, room) {",
        "      var w = widths[text];",
        "      if (w == null) {",
        "        w = widths[text] = ctx.measureText(text).width;",
        "      }",
        "      if (w <= room) {",
        "        return text;",
        "      }",
        "      var n = Math.floor(text.length * room / w) - 1;",
        "      return n >= 3 ? text.slice(0, n) + '\\u2026' : '';",
        "    }",
        "    function itemName(it) {",
        "      if (it.what === 'dispatch') {",
        "        return data.kernels[it.ref[0]] ? data.kernels[it.ref[0]].name : '';",
        "      }",
        "      return it.what === 'scope' ? it.ref[0] : it.what;",
        "    }",
        "",
        "    function draw() {",
        "      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);",
        "      ctx.fillStyle = '#ffffff';",
        "      ctx.fillRect(0, 0, W, H);",
        "      ctx.font = FONT;",
        "      ctx.textBaseline = 'middle';",
        "      lanes.forEach(function (l, i) {",
        "        ctx.fillStyle = i % 2 ? '#ffffff' : '#f4f6f9';",
        "        ctx.fillRect(0, l.y - GAP / 2, W, l.h + GAP);",
        "        ctx.fillStyle = '#1d2330';",
        "        ctx.fillText(l.name, 10, l.y + l.h / 2);",
        "      });",
        "      var step = niceStep(v1 - v0, plotW() / 130);",
        "      ctx.strokeStyle = '#dde1e8';",
        "      ctx.lineWidth = 1;",
        "      for (var n = Math.ceil(v0 / step); n * step <= v1; n++) {",
        "        var t = Math.abs(n) < 1e-9 ? 0 : n * step, x = Math.round(px(t)) + 0.5, label = tickLabel(t, step);",
        "        ctx.beginPath();",
        "        ctx.moveTo(x, AXIS - 6);",
        "        ctx.lineTo(x, H);",
        "        ctx.stroke();",
        "        if (x + 4 + ctx.measureText(label).width < W) {",
        "          ctx.fillStyle = '#5d6575';",
        "          ctx.fillText(label, x + 4, AXIS / 2);",
        "        }",
        "      }",
        "      ctx.strokeStyle = '#b9c0cc';",
        "      ctx.beginPath();",
        "      ctx.moveTo(0, AXIS + 0.5);",
        "      ctx.lineTo(W, AXIS + 0.5);",
        "      ctx.moveTo(GUTTER + 0.5, AXIS);",
        "      ctx.lineTo(GUTTER + 0.5, H);",
        "      ctx.stroke();",
        "      ctx.save();",
        "      ctx.beginPath();",
        "      ctx.rect(GUTTER + 1, AXIS + 1, W - GUTTER - 1, H - AXIS - 1);",
        "      ctx.clip();",
        "      lanes.forEach(function (l) {",
        "        var items = l.items, lastX = -1, lastC = '';",
        "        for (var i = lowerBound(items, v0 - l.maxDur); i < items.length && items[i].s <= v1; i++) {",
        "          var it = items[i];",
        "          if (it.e < v0) {",
        "            continue;",
        "          }",
        "          var x0 = px(it.s), w = px(it.e) - x0;",
        "          /* Zoomed out, many items share a pixel column: one rectangle stands for them. */",
        "          if (w < 1) {",
        "            var column = Math.floor(x0);",
        "            if (column === lastX && it.c === lastC) {",
        "              continue;",
        "            }",
        "            lastX = column;",
        "            lastC = it.c;",
        "            w = 1;",
        "          } else {",
        "            lastX = -1;",
        "          }",
        "          ctx.fillStyle = it.c;",
        "          ctx.fillRect(x0, l.y, w, l.h);",
        "          if (w > 28) {",
        "            var left = Math.max(x0, GUTTER + 1) + 4, room = Math.min(x0 + w, W) - left - 4;",
        "            var text = room > 12 ? fit(itemName(it), room) : '';",
        "            if (text) {",
        "              ctx.fillStyle = darkText(it.c) ? '#1d2330' : '#ffffff';",
        "              ctx.fillText(text, left, l.y + l.h / 2);",
        "            }",
        "          }",
        "        }",
        "      });",
        "      if (hover) {",
        "        var hx = px(hover.item.s), hw = Math.max(1, px(hover.item.e) - hx);",
        "        ctx.strokeStyle = '#1d2330';",
        "        ctx.lineWidth = 2;",
        "        ctx.strokeRect(hx - 1, hover.lane.y - 1, hw + 2, hover.lane.h + 2);",
        "      }",
        "      ctx.restore();",
        "      if (rangeLabel) {",
        "        var ms = Math.max(Math.abs(v0), Math.abs(v1)) >= 1e6, unit = ms ? 1e6 : 1e3;",
        "        rangeLabel.textContent = 'showing ' + (v0 / unit).toFixed(3) + ' \\u2013 ' + (v1 / unit).toFixed(3) +",
        "          (ms ? ' ms' : ' us') + ' (' + at(v1 - v0) + ' wide)';",
        "      }",
        "    }",
        "",
        "    function setView(a, b, anchor) {",
        "      var full = full1 - full0, span = Math.min(Math.max(b - a, MIN_SPAN), Math.max(full, MIN_SPAN));",
        "      if (span !== b - a) {",
        "        var r = anchor == null ? 0.5 : (anchor - a) / (b - a);",
        "        a = (anchor == null ? (a + b) / 2 : anchor) - r * span;",
        "      }",
        "      a = Math.max(full0, Math.min(a, full0 + Math.max(full, MIN_SPAN) - span));",
        "      v0 = a;",
        "      v1 = a + span;",
        "      draw();",
        "    }",
        "    function reset() {",
        "      hover = null;",
        "      setView(full0, full1);",
        "    }",
        "    function hit(mx, my) {",
        "      if (mx <= GUTTER) {",
        "        return null;",
        "      }",
        "      for (var li = 0; li < lanes.length; li++) {",
        "        var l = lanes[li];",
        "        if (my < l.y || my > l.y + l.h) {",
        "          continue;",
        "        }",
        "        var t = time(mx), tol = 3 * (v1 - v0) / plotW(), items = l.items, best = null, bestD = Infinity;",
        "        var i = lowerBound(items, t - l.maxDur - tol);",
        "        for (; i < items.length && items[i].s <= t + tol; i++) {",
        "          var it = items[i], d = t < it.s ? it.s - t : t > it.e ? t - it.e : 0;",
        "          if (d <= tol && (d < bestD || (d === bestD && it.e - it.s < best.e - best.s))) {",
        "            best = it;",
        "            bestD = d;",
        "          }",
        "        }",
        "        return best ? {lane: l, item: best} : null;",
        "      }",
        "      return null;",
        "    }",
        "    function tipLines(it) {",
        "      var r = it.ref;",
        "      if (it.what === 'dispatch') {",
        "        var k = data.kernels[r[0]];",
        "        return [k ? k.name : '?',",
        "          'iteration ' + r[1] + DOT + 'dispatch id ' + r[5] + DOT + 'record ' + r[2],",
        "          'duration ' + us(r[4] - r[3]) + ' us' + DOT + 'starts at ' + at(r[3]),",
        "          'workgroups ' + r[6] + BY + r[7] + BY + r[8] + DOT + 'global size ' + r[9] + BY + r[10] + BY +",
        "          r[11]];",
        "      }",
        "      if (it.what === 'scope') {",
        "        return [r[0], 'scope at depth ' + r[1] + DOT + 'iteration ' + r[2],",
        "          'span ' + us(r[4] - r[3]) + ' us' + DOT + 'starts at ' + at(r[3]),",
        "          'dispatches ' + us(r[6]) + ' us in ' + r[5] + ' record' + (r[5] === 1 ? '' : 's')];",
        "      }",
        "      return ['CPU ' + it.what, 'iteration ' + r[0],",
        "        'duration ' + us(it.e - it.s) + ' us' + DOT + 'starts at ' + at(it.s)];",
        "    }",
        "    function showTip(h, mx, my) {",
        "      tip.textContent = '';",
        "      tipLines(h.item).forEach(function (line, i) {",
        "        var el = document.createElement(i ? 'div' : 'b');",
        "        el.textContent = line;",
        "        tip.appendChild(el);",
        "        if (!i) {",
        "          tip.appendChild(document.createElement('br'));",
        "        }",
        "      });",
        "      tip.style.display = 'block';",
        "      var tw = tip.offsetWidth, th = tip.offsetHeight;",
        "      var left = mx + 14 + tw > W ? mx - tw - 14 : mx + 14;",
        "      tip.style.left = Math.max(0, left) + 'px';",
        "      tip.style.top = Math.max(0, Math.min(my + 14, H - th)) + 'px';",
        "    }",
        "    function hideTip() {",
        "      tip.style.display = 'none';",
        "    }",
        "    function pos(e) {",
        "      var r = canvas.getBoundingClientRect();",
        "      return {x: e.clientX - r.left, y: e.clientY - r.top};",
        "    }",
        "",
        "    canvas.addEventListener('mousedown', function (e) {",
        "      if (e.button === 0) {",
        "        drag = {x: e.clientX, v0: v0, v1: v1};",
        "        canvas.classList.add('dragging');",
        "        hideTip();",
        "        e.preventDefault();",
        "      }",
        "    });",
        "    window.addEventListener('mousemove', function (e) {",
        "      if (drag) {",
        "        var dt = (e.clientX - drag.x) / plotW() * (drag.v1 - drag.v0);",
        "        setView(drag.v0 - dt, drag.v1 - dt);",
        "      }",
        "    });",
        "    window.addEventListener('mouseup', function () {",
        "      if (drag) {",
        "        drag = null;",
        "        canvas.classList.remove('dragging');",
        "      }",
        "    });",
        "    canvas.addEventListener('mousemove', function (e) {",
        "      if (drag) {",
        "        return;",
        "      }",
        "      var p = pos(e), h = hit(p.x, p.y);",
        "      if ((h && h.item) !== (hover && hover.item)) {",
        "        hover = h;",
        "        draw();",
        "      }",
        "      if (h) {",
        "        showTip(h, p.x, p.y);",
        "      } else {",
        "        hideTip();",
        "      }",
        "    });",
        "    canvas.addEventListener('mouseleave', function () {",
        "      hideTip();",
        "      if (hover) {",
        "        hover = null;",
        "        draw();",
        "      }",
        "    });",
        "    canvas.addEventListener('wheel', function (e) {",
        "      e.preventDefault();",
        "      hideTip();",
        "      var scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;",
        "      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {",
        "        var dt = e.deltaX * scale / plotW() * (v1 - v0);",
        "        setView(v0 + dt, v1 + dt);",
        "        return;",
        "      }",
        "      var p = pos(e), t = p.x > GUTTER ? time(p.x) : v0, f = Math.exp(e.deltaY * scale * 0.002);",
        "      setView(t - (t - v0) * f, t + (v1 - t) * f, t);",
        "    }, {passive: false});",
        "    canvas.addEventListener('dblclick', reset);",
        "    document.getElementById('timeline-reset').addEventListener('click', reset);",
        "    window.addEventListener('resize', function () {",
        "      layout();",
        "      draw();",
        "    });",
        "    layout();",
        "    draw();",
        "    return data.dispatches.length;",
        "  }",
        "",
        "  var dispatches = 0, kernels = 0;",
        "  if (data.profiling) {",
        "    addSwatches();",
        "    kernels = drawChart();",
        "    dispatches = setupTimeline();",
        "    window.addEventListener('resize', drawChart);",
        "    var canvas = document.getElementById('timeline'), chart = document.getElementById('kernel-chart');",
        "    if (canvas) {",
        "      document.body.dataset.timelineBox = box(canvas);",
        "    }",
        "    if (chart) {",
        "      document.body.dataset.chartBox = box(chart);",
        "    }",
        "  }",
        "  document.body.dataset.rendered = 'ok';",
        "  console.log('wgprof report rendered: ' + dispatches + ' dispatches, ' + kernels + ' kernels');",
        "})();",
    };
    write_lines(out, lines, sizeof lines / sizeof lines[0]);
}
