/*
 * wgprof run SPEC.json: profiles the WGSL kernels a spec describes. The whole spec is checked
 * (file, then device) before anything runs; warm-up iterations run and are dropped, then the
 * measured iterations give the statistics, the table and the requested files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "spec.h"

static const char run_usage[] =
    "usage: wgprof run [options] SPEC.json\n"
    "\n"
    "Runs the dispatches a spec file describes, with per-dispatch GPU timing, and prints the\n"
    "per-dispatch table and per-kernel statistics over the measured iterations.\n"
    "\n"
    "  --warmup N          iterations run first and not measured (default 3)\n"
    "  --iterations N      measured iterations (default 10)\n"
    "  --strategy S        auto, pass, inside or chain (default: WGPROF_STRATEGY, else auto)\n"
    "  --layout L          pass (one compute pass per dispatch, default) or single (one pass)\n"
    "  --summary           print only the per-kernel summary, not every dispatch\n"
    "  --quiet             print nothing on stdout\n"
    "  --json FILE         write the JSON report\n"
    "  --csv FILE          write per-dispatch rows as CSV\n"
    "  --csv-summary FILE  write per-kernel rows as CSV\n"
    "  --tsv FILE          write per-dispatch rows as TSV\n"
    "  --trace FILE        write a Chrome trace (open in https://ui.perfetto.dev or chrome://tracing)\n"
    "  --html FILE         write a self-contained HTML report: timeline, per-kernel chart, tables\n"
    "  --peak-gbps X       show bandwidth as a share of X GB/s\n"
    "  --peak-gflops X     show arithmetic as a share of X GFLOP/s\n"
    "\n"
    "Profiling is always on for run; where the device has no timestamp queries the work still\n"
    "runs and the reports say why there are no timings. Spec format: see the README.\n";

typedef struct run_options {
    const char *spec;
    long warmup, iterations;
    wgprof_graph_desc graph;
    bool summary_only, quiet;
    const char *files[WGPROF_FORMAT_HTML + 1];
    double peak_gbps, peak_gflops;
} run_options;

static bool parse_long(const char *flag, const char *v, long min, long max, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < min || x > max) {
        fprintf(stderr, "wgprof run: %s %s: expected a whole number from %ld to %ld\n", flag, v, min, max);
        return false;
    }
    *out = x;
    return true;
}

static bool parse_double(const char *flag, const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0)) {
        fprintf(stderr, "wgprof run: %s %s: expected a positive number\n", flag, v);
        return false;
    }
    *out = x;
    return true;
}

/* Returns CLI_OK to go on, or the exit code. */
static int parse_args(int argc, char **argv, run_options *o)
{
    memset(o, 0, sizeof *o);
    o->warmup = 3;
    o->iterations = 10;
    o->graph.profiling = WGPROF_PROFILING_ON;
    static const struct {
        const char *flag;
        wgprof_format format;
    } file_flags[] = {{"--json", WGPROF_FORMAT_JSON},
                      {"--csv", WGPROF_FORMAT_CSV},
                      {"--csv-summary", WGPROF_FORMAT_CSV_SUMMARY},
                      {"--tsv", WGPROF_FORMAT_TSV},
                      {"--trace", WGPROF_FORMAT_TRACE},
                      {"--html", WGPROF_FORMAT_HTML}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(run_usage, stdout);
            return -1;
        }
        if (strcmp(a, "--summary") == 0) {
            o->summary_only = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->spec) {
                fprintf(stderr, "wgprof run: one spec file at a time ('%s' and '%s')\n", o->spec, a);
                return CLI_USAGE;
            }
            o->spec = a;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "wgprof run: %s needs a value\n\n%s", a, run_usage);
            return CLI_USAGE;
        }
        const char *v = argv[++i];
        bool ok = true, known = true;
        if (strcmp(a, "--warmup") == 0) {
            ok = parse_long(a, v, 0, 1000000, &o->warmup);
        } else if (strcmp(a, "--iterations") == 0) {
            ok = parse_long(a, v, 1, 1000000, &o->iterations);
        } else if (strcmp(a, "--peak-gbps") == 0) {
            ok = parse_double(a, v, &o->peak_gbps);
        } else if (strcmp(a, "--peak-gflops") == 0) {
            ok = parse_double(a, v, &o->peak_gflops);
        } else if (strcmp(a, "--strategy") == 0) {
            if (!v[0] || !wgprof_strategy_from_str(v, &o->graph.strategy)) {
                fprintf(stderr, "wgprof run: --strategy %s: expected auto, pass, inside or chain\n", v);
                ok = false;
            }
        } else if (strcmp(a, "--layout") == 0) {
            o->graph.layout = strcmp(v, "pass") == 0     ? WGPROF_LAYOUT_PASS_PER_DISPATCH
                              : strcmp(v, "single") == 0 ? WGPROF_LAYOUT_SINGLE_PASS
                                                         : WGPROF_LAYOUT_PASS_PER_DISPATCH;
            if (o->graph.layout == WGPROF_LAYOUT_PASS_PER_DISPATCH) {
                fprintf(stderr, "wgprof run: --layout %s: expected pass or single\n", v);
                ok = false;
            }
        } else {
            known = false;
            for (size_t f = 0; f < sizeof file_flags / sizeof *file_flags; f++) {
                if (strcmp(a, file_flags[f].flag) == 0) {
                    o->files[file_flags[f].format] = v;
                    known = true;
                    if (!v[0]) {
                        fprintf(stderr, "wgprof run: %s needs a file name\n", a);
                        ok = false;
                    }
                }
            }
        }
        if (!known) {
            fprintf(stderr, "wgprof run: unknown option '%s'\n\n%s", a, run_usage);
            return CLI_USAGE;
        }
        if (!ok) {
            return CLI_USAGE;
        }
    }
    if (!o->spec) {
        fprintf(stderr, "wgprof run: no spec file given\n\n%s", run_usage);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A progress line on stderr, only when it is a terminal and the run has lasted a second. */
typedef struct progress {
    bool tty;
    bool shown;
    double start;
} progress;

static void progress_update(progress *p, const char *phase, long done, long total)
{
    if (p->tty && now_s() - p->start > 1.0) {
        fprintf(stderr, "\rwgprof run: %s %ld/%ld ", phase, done, total);
        p->shown = true;
    }
}

static void progress_clear(progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
    }
}

static int execute_all(wgprof_graph *graph, const run_options *o)
{
    progress p = {isatty(STDERR_FILENO) != 0, false, now_s()};
    wgprof_status s = WGPROF_OK;
    for (long i = 0; i < o->warmup && s == WGPROF_OK; i++) {
        s = wgprof_graph_execute(graph);
        progress_update(&p, "warm-up", i + 1, o->warmup);
    }
    wgprof_pool_reset(wgprof_graph_pool(graph)); /* warm-up is not measured */
    for (long i = 0; i < o->iterations && s == WGPROF_OK; i++) {
        s = wgprof_graph_execute(graph);
        progress_update(&p, "iteration", i + 1, o->iterations);
    }
    progress_clear(&p);
    return s == WGPROF_OK ? CLI_OK : cli_fail("executing the spec", s);
}

int cmd_run(int argc, char **argv)
{
    run_options o;
    int code = parse_args(argc, argv, &o);
    if (code != CLI_OK) {
        return code < 0 ? CLI_OK : code;
    }
    spec sp;
    char error[4096];
    if (!spec_load(o.spec, &sp, error, sizeof error)) {
        fprintf(stderr, "wgprof run: %s\n", error);
        return CLI_USAGE;
    }
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(NULL, &dev);
    if (s != WGPROF_OK) {
        spec_free(&sp);
        return cli_fail("creating the WebGPU device", s);
    }
    spec_gpu gpu;
    s = spec_build(&sp, dev, &o.graph, &gpu, error, sizeof error);
    if (s != WGPROF_OK) {
        if (error[0]) {
            fprintf(stderr, "wgprof run: %s\n", error);
            code = CLI_USAGE;
        } else {
            code = cli_fail("setting up the spec on the device", s);
        }
    } else {
        code = execute_all(gpu.graph, &o);
    }
    if (code == CLI_OK && !spec_write_outputs(&sp, &gpu, dev, error, sizeof error)) {
        fprintf(stderr, "wgprof run: %s\n", error);
        code = CLI_FAILED;
    }
    if (code == CLI_OK) {
        wgprof_graph *g = gpu.graph;
        wgprof_report_desc report = {0};
        report.device = wgprof_device_describe(dev);
        report.pool = wgprof_graph_pool(g);
        report.strategy = wgprof_graph_settings(g).profiling == WGPROF_PROFILING_ON ? wgprof_strategy_str(wgprof_graph_settings(g).strategy) : "none";
        report.iterations = (uint32_t)o.iterations;
        report.unavailable_reason = wgprof_graph_profiling_note(g);
        report.omit_dispatches = o.summary_only;
        report.peak_gbps = o.peak_gbps;
        report.peak_gflops = o.peak_gflops;
        code = cli_write_reports(&report, o.files, o.quiet ? NULL : stdout);
    }
    spec_gpu_free(&gpu, &sp);
    wgprof_device_destroy(dev);
    spec_free(&sp);
    return code;
}
