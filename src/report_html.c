/*
 * The HTML report: one self-contained page, opened from a file, that fetches nothing. A header
 * names the device, the strategy, the timestamps' resolution (a warning where they are
 * quantized) and the clock fit; a zoomable timeline shows the CPU spans of
 * each batch, the GPU dispatches and the scopes on one axis; a bar chart and tables give the
 * per-kernel statistics and throughput and the per-scope statistics; a table lists every
 * dispatch, a page of rows at a time. The header and summary tables are plain HTML written
 * here; the timeline, the chart and the dispatch table's rows are drawn by the page's script
 * from one JSON object embedded in the page, in which every '<' is escaped, so that no kernel or
 * scope name can end the script element. Invalid records are counted, never drawn on the
 * timeline; the dispatch table shows their reason.
 */
#include <math.h>
#include <string.h>

#include "report_internal.h"

/* Past these the page gets slow to load and draw; the summary tables still cover everything.
 * The dispatch table's rows are drawn a page at a time, so it holds many more. */
enum { HTML_MAX_DISPATCHES = 200000, HTML_MAX_SCOPES = 100000, HTML_MAX_ROWS = 1000000 };

/* The page's stylesheet and script: those both HTML pages share (common/page/base.css and
 * base.js, common.h), then the report's own, src/report_html/page.css and page.js, embedded at
 * build time (cmake/embed_text.cmake writes report_html_assets.h in the build tree); written at
 * the end of this file. */
#include "report_html_assets.h"
static void write_style(FILE *out);
static void write_script(FILE *out);

/* ---- escaping (common/escape.c) ----------------------------------------------------------- */

static void html_text(FILE *out, const char *s) { wgprof__escape_html(out, s); }

/* A JSON string that is also safe inside a script element. */
static void data_string(FILE *out, const char *s) { wgprof__escape_json_string(out, s, WGPROF__ESCAPE_JSON_IN_SCRIPT); }

/* JSON has no NaN or infinity: those become null. */
static void data_number(FILE *out, const char *format, double v) { wgprof__put_real(out, format, v, "null"); }

/* ---- what the timeline holds --------------------------------------------------------------- */

typedef struct timeline {
    const wgprof__store *store;
    const wgprof_clock_info *clock;
    const wgprof_summary *summary;
    bool cpu_clock;          /* the clock fit is calibrated: every lane on the CPU clock */
    double origin_ns;        /* the earliest time shown: 0 on the axis */
    size_t record_end;       /* records [0, record_end) are considered for the page */
    size_t dispatches;       /* valid records embedded */
    size_t dispatches_total; /* valid records with a time in the whole pool */
    size_t scopes;
    size_t scopes_total;
    uint32_t *scope_node;    /* each scope instance's node, for the dispatch table's rows */
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
 * starts, so that the data can then be written in one pass; notes each scope instance's node,
 * which a scope record costs a pass over its records to give. WGPROF_ERR_OUT_OF_MEMORY before
 * anything is written, where there is no room for those. */
static wgprof_status plan_timeline(timeline *t, const wgprof__report *r)
{
    *t = (timeline){.store = r->store, .clock = r->clock, .summary = r->summary,
                    .cpu_clock = r->clock && r->clock->calibrated, .origin_ns = INFINITY};
    size_t scope_count = wgprof__store_scope_count(t->store);
    t->scope_node = scope_count ? wgprof__calloc(scope_count, sizeof *t->scope_node) : NULL;
    if (scope_count && !t->scope_node) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    size_t n = wgprof__store_count(t->store);
    t->record_end = n;
    for (size_t i = 0; i < n; i++) {
        wgprof_record rec;
        double start, end;
        if (wgprof__store_record(t->store, t->clock, i, &rec) != WGPROF_OK || !record_span(t, &rec, &start, &end)) {
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
    for (size_t i = 0; i < scope_count; i++) {
        wgprof_scope_record sc;
        double start, end;
        if (wgprof__store_scope(t->store, t->clock, i, &sc) != WGPROF_OK) {
            continue;
        }
        t->scope_node[i] = sc.node;
        if (scope_span(t, &sc, &start, &end)) {
            t->scopes_total++;
            if (t->scopes < HTML_MAX_SCOPES) {
                t->scopes++;
                take_earliest(t, start);
            }
        }
    }
    if (t->cpu_clock) {
        uint32_t batches = wgprof__store_batch_count(t->store);
        for (uint32_t i = 0; i < batches; i++) {
            wgprof_batch_info b;
            if (wgprof__store_batch(t->store, i, &b) == WGPROF_OK && b.first_record < t->record_end &&
                b.cpu_encode_ns) {
                take_earliest(t, (double)b.cpu_encode_ns);
            }
        }
    }
    if (!isfinite(t->origin_ns)) {
        t->origin_ns = 0;
    }
    return WGPROF_OK;
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

/* The row of kernel `id` in the summary, which fixes its colour: the summary lists kernels in
 * the order of their ids. */
static size_t kernel_row(const wgprof_summary *s, uint32_t id)
{
    size_t lo = 0, hi = s->kernel_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->kernels[mid].id <= id) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
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
        if (wgprof__store_record(t->store, t->clock, i, &rec) != WGPROF_OK || !record_span(t, &rec, &start, &end)) {
            continue;
        }
        /* Eight to a line: short enough lines, far fewer of them. */
        fprintf(out, "%s[%zu,%u,%u,", !written ? "\n" : written % 8 ? "," : ",\n", kernel_row(t->summary, rec.kernel_id),
                rec.batch, rec.index);
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
    uint32_t n = t->cpu_clock ? wgprof__store_batch_count(t->store) : 0;
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        wgprof_batch_info b;
        if (wgprof__store_batch(t->store, i, &b) != WGPROF_OK || b.first_record >= t->record_end) {
            continue;
        }
        fprintf(out, "%s[%u", first ? "\n" : ",\n", b.index);
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
    size_t n = wgprof__store_scope_count(t->store), written = 0;
    for (size_t i = 0; i < n && written < t->scopes; i++) {
        wgprof_scope_record sc;
        double start, end;
        if (wgprof__store_scope(t->store, t->clock, i, &sc) != WGPROF_OK || !scope_span(t, &sc, &start, &end)) {
            continue;
        }
        fputs(written++ ? ",\n[" : "\n[", out);
        data_string(out, sc.name);
        fprintf(out, ",%u,%u,", sc.depth, sc.batch);
        data_number(out, "%.1f", start - t->origin_ns);
        fputc(',', out);
        data_number(out, "%.1f", end - t->origin_ns);
        fprintf(out, ",%u,", sc.valid_records);
        data_number(out, "%.1f", sc.dispatch_ns);
        fputc(']', out);
    }
    fputs("]", out);
}

/* [kernel, iteration, dispatch id, scope node, workgroups x3, local size x3, start, duration,
 * exclusive] for every record up to HTML_MAX_ROWS, in order (a row's place is its record's
 * index); an invalid record has its reason in place of the three times. Times in ns from the
 * pool's epoch, as in the JSON report. */
static void data_rows(FILE *out, const timeline *t)
{
    size_t n = wgprof__store_count(t->store), shown = n < HTML_MAX_ROWS ? n : HTML_MAX_ROWS;
    fprintf(out, ",\n\"rows_total\": %zu,\n\"rows\": [", n);
    for (size_t i = 0; i < shown; i++) {
        wgprof_record rec;
        if (wgprof__store_record(t->store, NULL, i, &rec) != WGPROF_OK) {
            continue;
        }
        fprintf(out, "%s[%zu,%u,", !i ? "\n" : i % 8 ? "," : ",\n", kernel_row(t->summary, rec.kernel_id), rec.batch);
        data_dispatch_id(out, rec.dispatch_id);
        int node = rec.scope >= 0 && t->scope_node ? (int)t->scope_node[rec.scope] : -1;
        fprintf(out, ",%d,%u,%u,%u,%u,%u,%u,", node, rec.workgroups[0], rec.workgroups[1], rec.workgroups[2],
                rec.workgroup_size[0], rec.workgroup_size[1], rec.workgroup_size[2]);
        if (rec.valid) {
            data_number(out, "%.1f", rec.start_ns);
            fputc(',', out);
            data_number(out, "%.1f", rec.duration_ns);
            fputc(',', out);
            data_number(out, "%.1f", rec.exclusive_ns);
        } else {
            fprintf(out, "\"%s\"", wgprof_invalid_reason_str(rec.invalid_reason));
        }
        fputc(']', out);
    }
    fputs("]", out);
}

/* [name, parent node or -1] for each node of the scope tree: the rows name their scope's node. */
static void data_scope_nodes(FILE *out, const timeline *t)
{
    fputs(",\n\"scope_nodes\": [", out);
    uint32_t nodes = wgprof__store_scope_node_count(t->store);
    for (uint32_t n = 0; n < nodes; n++) {
        uint32_t name, parent, depth;
        wgprof__store_scope_node(t->store, n, &name, &parent, &depth);
        fputs(n ? ",\n[" : "\n[", out);
        data_string(out, wgprof__store_name(t->store, name));
        fprintf(out, ",%d]", parent == WGPROF__NONE ? -1 : (int)parent);
    }
    fputs("]", out);
}

static void write_data(FILE *out, const wgprof__report *r, const timeline *t)
{
    fputs("<script type=\"application/json\" id=\"wgprof-data\">\n{\"wgprof_version\": \"" WGPROF_VERSION_STRING
          "\", \"partial\": ",
          out);
    if (r->partial) {
        fputs("true, \"partial_reason\": ", out);
        data_string(out, r->partial);
    } else {
        fputs("false", out);
    }
    fputs(", \"profiling\": ", out);
    if (!t) {
        fputs("false, \"unavailable_reason\": ", out);
        data_string(out, r->desc->unavailable_reason ? r->desc->unavailable_reason : "profiling off");
        fputs(", \"kernels\": [], \"dispatches\": [], \"batches\": [], \"scopes\": [], \"rows\": []}\n</script>\n",
              out);
        return;
    }
    fprintf(out, "true, \"timebase\": \"%s\"", t->cpu_clock ? "cpu" : "gpu");
    data_kernels(out, r->summary);
    data_dispatches(out, t);
    data_batches(out, t);
    data_scopes(out, t);
    data_scope_nodes(out, t);
    data_rows(out, t);
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
        char period[96];
        wgprof__period_text(r, period, sizeof period);
        fact_text(out, "timestamp period", period);
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
    char quantum[64];
    wgprof__quantum_text(s, quantum, sizeof quantum);
    fact_begin(out, "timestamps", false);
    if (quantum[0]) {
        html_text(out, quantum);
    } else if (s->records - s->invalid >= WGPROF_QUANTUM_MIN_READINGS) {
        fputs("every tick", out);
    } else {
        fprintf(out, "resolution not known (under %d valid)", WGPROF_QUANTUM_MIN_READINGS);
    }
    fact_end(out);
    fact_begin(out, "total GPU time", false);
    wgprof__put_real(out, "%.3f us", s->total_ns / 1e3, "-");
    if (s->exclusive_total_ns < s->total_ns) {
        wgprof__put_real(out, " (%.3f us without overlap)", s->exclusive_total_ns / 1e3, "");
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
    const wgprof_clock_info *c = r->clock;
    fact_begin(out, "GPU clock on the CPU clock", true);
    if (c && c->calibrated) {
        fputs("calibrated: &plusmn;", out);
        wgprof__put_real(out, "%.3f", c->uncertainty_ns / 1e3, "-");
        fputs(" us, drift ", out);
        wgprof__put_real(out, "%.3f", c->drift_ppm, "-");
        fprintf(out, " ppm, %u bounds%s", c->samples, c->consistent ? "" : " (bounds disagree)");
    } else {
        fprintf(out, "not calibrated (%u bounds)", c ? c->samples : 0);
    }
    fact_end(out);
    uint64_t dropped_dispatches = 0, dropped = wgprof__store_dropped(r->store, &dropped_dispatches);
    if (dropped) {
        fact_begin(out, "not timed", true);
        fprintf(out, "%llu batches (%llu dispatches): every readback frame was in flight", (unsigned long long)dropped,
                (unsigned long long)dropped_dispatches);
        fact_end(out);
    }
    fputs("</dl>\n", out);
    char warning[256];
    wgprof__quantized_warning(s, warning, sizeof warning);
    if (warning[0]) {
        fputs("<p class=\"note\">Warning: ", out);
        html_text(out, warning);
        fputs(".</p>\n", out);
    }
    fputs("</header>\n", out);
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
        fputs("; the summary tables cover all of them.</p>\n", out);
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

/* A figure that is not a finite number is "-", as an unknown efficiency figure is. */
static void stat_cell(FILE *out, double ns)
{
    if (isfinite(ns / 1e3)) {
        fprintf(out, "<td>%.3f</td>", ns / 1e3);
    } else {
        fputs("<td class=\"unknown\">-</td>", out);
    }
}

static void share_cell(FILE *out, double share)
{
    double percent = share * 100.0;
    if (isfinite(percent)) {
        fprintf(out, "<td class=\"share\" style=\"--share:%.1f%%\">%.1f%%</td>", percent, percent);
    } else {
        fputs("<td class=\"unknown\">-</td>", out);
    }
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

/* A kernel's name cell: the whole name as its title, where the cell is too narrow for it. */
static void name_cell(FILE *out, const char *name)
{
    fputs("<td class=\"name\" title=\"", out);
    html_text(out, name);
    fputs("\">", out);
    html_text(out, name);
    fputs("</td>", out);
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
        fprintf(out, "<tr data-k=\"%zu\">", i);
        name_cell(out, k->name);
        fprintf(out, "<td>%u</td><td>%u</td>", k->count, k->invalid);
        const double values[] = {k->total_ns, k->mean_ns, k->median_ns, k->p95_ns, k->min_ns, k->max_ns, k->stddev_ns};
        figure_cells(out, k->count > 0, values, sizeof values / sizeof values[0], k->share);
    }
    fprintf(out, "</tbody>\n<tfoot><tr><td>total</td><td>%zu</td><td>%zu</td>", s->records - s->invalid, s->invalid);
    stat_cell(out, s->total_ns);
    fputs("<td colspan=\"7\"></td></tr></tfoot>\n</table></div>\n</section>\n", out);
}

static void efficiency_cell(FILE *out, const char *format, double value, const char *title)
{
    if (value > 0 && isfinite(value)) {
        fputs("<td", out);
        if (title) {
            fprintf(out, " title=\"%s\"", title);
        }
        fputc('>', out);
        fprintf(out, format, value);
        fputs("</td>", out);
    } else {
        fputs("<td class=\"unknown\">-</td>", out);
    }
}

/* One figure's columns: per dispatch, typical rate, total rate, share of the peak (when given). */
static void efficiency_cells(FILE *out, double per_dispatch, double typical, double total, double peak)
{
    if (per_dispatch > 0) {
        efficiency_cell(out, "%.10g", per_dispatch, NULL);
    } else {
        fprintf(out, "<td class=\"unknown\">%s</td>", typical > 0 ? "varies" : "-");
    }
    efficiency_cell(out, "%.3f", typical, per_dispatch > 0 ? "one dispatch's figure over the median duration"
                                                          : "the median of the dispatches' own rates");
    efficiency_cell(out, "%.3f", total, "every dispatch's figure over the total time");
    if (peak > 0) {
        efficiency_cell(out, "%.1f%%", 100.0 * typical / peak, NULL);
    }
}

/* The kernels' throughput, as the table's efficiency columns: present only where some kernel
 * has bytes or flops. */
static void write_efficiency_table(FILE *out, const wgprof__report *r)
{
    const wgprof_summary *s = r->summary;
    bool bytes = false, flops = false;
    for (size_t i = 0; i < s->kernel_count; i++) {
        bytes = bytes || s->kernels[i].gbps_total > 0;
        flops = flops || s->kernels[i].gflops_total > 0;
    }
    if (!bytes && !flops) {
        return;
    }
    const double peak_gbps = r->desc->peak_gbps, peak_gflops = r->desc->peak_gflops;
    fputs("<section>\n<h2>Efficiency</h2>\n<div class=\"table-wrap\"><table id=\"efficiency-table\">\n<thead><tr>"
          "<th>kernel</th>",
          out);
    if (bytes) {
        fprintf(out, "<th>bytes / dispatch</th><th>GB/s</th><th>GB/s total</th>%s",
                peak_gbps > 0 ? "<th>of peak GB/s</th>" : "");
    }
    if (flops) {
        fprintf(out, "<th>flops / dispatch</th><th>GFLOP/s</th><th>GFLOP/s total</th>%s",
                peak_gflops > 0 ? "<th>of peak GFLOP/s</th>" : "");
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < s->kernel_count; i++) {
        const wgprof_kernel_stats *k = &s->kernels[i];
        if (k->gbps_total <= 0 && k->gflops_total <= 0) {
            continue;
        }
        fprintf(out, "<tr data-k=\"%zu\">", i);
        name_cell(out, k->name);
        if (bytes) {
            efficiency_cells(out, k->bytes_per_dispatch, k->gbps, k->gbps_total, peak_gbps);
        }
        if (flops) {
            efficiency_cells(out, k->flops_per_dispatch, k->gflops, k->gflops_total, peak_gflops);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n<p class=\"caption\">", out);
    html_text(out, wgprof__throughput_note);
    fputs(".</p>\n</section>\n", out);
}

/* The frame of the table of every dispatch; the page's script fills it a page at a time. */
static void write_dispatch_table(FILE *out, const timeline *t)
{
    size_t n = wgprof__store_count(t->store);
    fputs("<section>\n<h2>Dispatches</h2>\n", out);
    if (n > HTML_MAX_ROWS) {
        fprintf(out, "<p class=\"note\">The table lists the first %d of %zu dispatches; the JSON and CSV reports "
                     "hold every one.</p>\n",
                HTML_MAX_ROWS, n);
    }
    fputs("<div class=\"toolbar\" id=\"dispatch-controls\"></div>\n<div class=\"table-wrap\"><table "
          "id=\"dispatch-table\">\n<thead><tr><th>#</th><th>iteration</th><th>dispatch id</th><th>kernel</th>"
          "<th>scope</th><th>workgroups</th><th>local size</th><th>global size</th><th>start us</th>"
          "<th>duration us</th><th>exclusive us</th></tr></thead>\n<tbody></tbody>\n</table></div>\n</section>\n",
          out);
}

static void write_scope_table(FILE *out, const wgprof_summary *s)
{
    if (!s->scope_count) {
        return;
    }
    fputs("<section>\n<h2>Scopes</h2>\n<div class=\"table-wrap\"><table id=\"scope-table\">\n"
          "<thead><tr><th>scope</th><th>count</th><th>invalid</th><th>empty</th><th>total us</th><th>mean us</th>"
          "<th>min us</th>"
          "<th>max us</th><th>dispatch us</th><th>share</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < s->scope_count; i++) {
        const wgprof_scope_stats *sc = &s->scopes[i];
        /* Deep nesting keeps indenting, up to a point where the name would have no room. */
        unsigned depth = sc->depth < 12 ? sc->depth : 12;
        fprintf(out, "<tr data-depth=\"%u\"><td class=\"name\" style=\"padding-left:%.1fem\" title=\"", sc->depth,
                0.6 + 1.4 * depth);
        html_text(out, sc->name);
        fputs("\">", out);
        html_text(out, sc->name);
        fprintf(out, "</td><td>%u</td><td>%u</td><td>%u</td>", sc->count, sc->invalid, sc->empty);
        const double values[] = {sc->total_ns, sc->mean_ns, sc->min_ns, sc->max_ns, sc->dispatch_ns};
        figure_cells(out, sc->count > 0, values, sizeof values / sizeof values[0], sc->share);
    }
    fputs("</tbody>\n</table></div>\n</section>\n", out);
}

/* The document's head and the page's header. */
static void write_head(FILE *out, const wgprof__report *r)
{
    const wgprof_report_desc *d = r->desc;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    fputs(r->partial ? "PARTIAL wgprof report" : "wgprof report", out);
    if (d->device) {
        fputs(": ", out);
        html_text(out, d->device->adapter);
    }
    fputs("</title>\n<style>\n", out);
    write_style(out);
    fputs("</style>\n</head>\n<body>\n<main>\n", out);
    write_header(out, r);
}

wgprof_status wgprof__write_html(const wgprof__report *r, FILE *out)
{
    const wgprof_report_desc *d = r->desc;
    timeline t;
    bool timed = d->pool && r->summary;
    if (timed && plan_timeline(&t, r) != WGPROF_OK) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    write_head(out, r);
    if (r->partial) {
        fputs("<p class=\"note partial\" id=\"partial\"><strong>Partial results:</strong> ", out);
        html_text(out, r->partial);
        fputs("</p>\n", out);
    }
    if (timed) {
        write_timeline(out, &t);
        fputs("<section>\n<h2>Time per kernel</h2>\n<div class=\"chart-wrap\"><svg id=\"kernel-chart\" "
              "role=\"img\" aria-label=\"total GPU time per kernel\"></svg></div>\n</section>\n",
              out);
        write_kernel_table(out, r->summary);
        write_efficiency_table(out, r);
        write_scope_table(out, r->summary);
        write_dispatch_table(out, &t);
    } else {
        fputs("<p class=\"note unavailable\">No timings: ", out);
        html_text(out, d->unavailable_reason ? d->unavailable_reason : "profiling off");
        fputs("</p>\n", out);
    }
    fputs("<footer>Made by wgprof " WGPROF_VERSION_STRING ". Times in microseconds unless marked; invalid records "
          "are counted and listed with their reason, never drawn.</footer>\n</main>\n",
          out);
    write_data(out, r, timed ? &t : NULL);
    fputs("<script>\n", out);
    write_script(out);
    fputs("</script>\n</body>\n</html>\n", out);
    if (timed) {
        wgprof__free(t.scope_node);
    }
    return WGPROF_OK;
}

/* ---- the stylesheet and the script --------------------------------------------------------- */

static void write_style(FILE *out)
{
    fwrite(wgprof__page_base_css, 1, wgprof__page_base_css_size, out);
    fwrite(wgprof__page_css, 1, wgprof__page_css_size, out);
}

/* Draws the timeline and the chart from the data in #wgprof-data (see write_data for the
 * layout of its arrays), then marks the body rendered and says so on the console. */
static void write_script(FILE *out)
{
    fwrite(wgprof__page_base_js, 1, wgprof__page_base_js_size, out);
    fwrite(wgprof__page_js, 1, wgprof__page_js_size, out);
}
