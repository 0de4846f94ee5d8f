/* Parsing the options of `run`, `demo` and `diff` (cli_args.h): no I/O, no device, no allocation. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_run_usage[] =
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
    "  --timeout SECONDS   give up on an iteration whose GPU work has not finished after this\n"
    "                      long (default 60): print what completed, exit 3\n"
    "  --max-dispatches N  the most dispatches one iteration may hold, counting repeat\n"
    "                      (default 1000000)\n"
    "  --allow-path DIR    let the spec's paths reach into DIR too (repeatable); by default they\n"
    "                      must stay inside the spec's folder\n"
    "  --shader-checks C   the runtime checks the kernels are compiled with: default (the\n"
    "                      implementation's), no-loop-bounding (wgpu-native's loop counters\n"
    "                      off) or none (bounds checks off too). For trusted WGSL only: to\n"
    "                      measure what the checks cost. wgpu-native only (Dawn: exit 2); the\n"
    "                      table's first line and the JSON report's \"shader_checks\" name it\n"
    "  --baseline FILE     compare the run with FILE, an earlier JSON report, as 'wgprof diff\n"
    "                      FILE' would, and print the comparison after the table (also with\n"
    "                      --quiet); a FILE it cannot read ends the run before it starts (exit 2)\n"
    "  --reference         add wgprof's reference kernel, \"(reference)\", to every iteration: a\n"
    "                      fixed chain of multiply-adds no change to the spec touches, from which\n"
    "                      'wgprof diff' reads the machine's speed (for runs on a shared machine)\n"
    "\n"
    "A FILE of '-' is stdout. Files are replaced whole (through a temporary file beside them) or\n"
    "left as they were; FIFOs and devices are written in place. Profiling is always on for run;\n"
    "where the device has no timestamp queries the work still runs and the reports say why there\n"
    "are no timings. Spec format: see the README.\n"
    "\n"
    "exit status: 0 success, 1 failed at run time, 2 bad usage or input, 3 timed out\n";

const char cli_demo_usage[] =
    "usage: wgprof demo [options]\n"
    "\n"
    "Runs one decode step (one token) of a small llama-style transformer as a wgprof graph of\n"
    "WGSL kernels: embedding; per layer rmsnorm, q/k/v projections, rope, KV-cache update,\n"
    "attention, output projection, rmsnorm, SiLU-gated MLP; final rmsnorm and logits. Checks\n"
    "the logits against a CPU reference and prints their argmax and a checksum, which is the\n"
    "same with profiling on or off. With WEBGPU_TIMESTAMP_QUERY=1 it also prints per-dispatch\n"
    "and per-kernel GPU timings.\n"
    "\n"
    "  --layers N       decoder layers (default 2)\n"
    "  --dim N          model width (default 256)\n"
    "  --heads N        attention heads; dim / heads must be even (default 4)\n"
    "  --ffn N          hidden width of the MLP (default 512)\n"
    "  --vocab N        vocabulary size (default 1024)\n"
    "  --max-seq N      KV cache positions (default 64)\n"
    "  --pos N          position decoded, below --max-seq (default 16)\n"
    "  --warmup N       times the step is executed first and not measured: the first execute\n"
    "                   compiles each kernel's pipeline (default 1)\n"
    "  --iterations N   times the step is executed and measured (default 3)\n"
    "  --fused-sdpa     attention as one sdpa_kv_cache kernel instead of three\n"
    "  --shader-checks C  default, no-loop-bounding or none: the kernels' runtime checks, as\n"
    "                   for wgprof run (wgpu-native only; Dawn: exit 2)\n"
    "  --json FILE      write the JSON report to FILE (without profiling it says why)\n"
    "  --tsv FILE       write the per-dispatch TSV report to FILE\n"
    "  --trace FILE     write a Chrome trace to FILE (Perfetto, chrome://tracing)\n"
    "  --html FILE      write a self-contained HTML report to FILE: timeline, chart, tables\n"
    "  --timeout SECONDS  give up on a step not finished after this long (default 60): exit 3\n"
    "  --baseline FILE  turn profiling on and compare the step's timings with FILE, an earlier\n"
    "                   JSON report, as 'wgprof diff FILE' would; printed after the table\n"
    "  --quiet          print no timing table\n"
    "  --help           print this help\n"
    "\n"
    "exit status: 0 success, 1 failed at run time (or the GPU result is wrong), 2 bad usage,\n"
    "3 timed out\n";

static cli_parse_result usage_error(char *error, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cli_parse_result usage_error(char *error, size_t cap, const char *fmt, ...)
{
    if (cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error, cap, fmt, ap);
        va_end(ap);
    }
    return CLI_PARSE_ERROR;
}

/* A whole number of digits only (no sign, no spaces) in [min, max]. */
static bool parse_whole(const char *text, unsigned long long min, unsigned long long max, unsigned long long *out)
{
    if (!(text[0] >= '0' && text[0] <= '9')) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno == ERANGE || v < min || v > max) {
        return false;
    }
    *out = v;
    return true;
}

/* A finite number in (0, max]. */
static bool parse_positive(const char *text, double max, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || !(v > 0) || v > max) {
        return false;
    }
    *out = v;
    return true;
}

/* The format whose report file option `arg` is ("--" and the format's name), where `accepted`
 * (bits 1 << format) holds it; -1 otherwise. */
static int find_file_flag(unsigned accepted, const char *arg)
{
    wgprof_format f;
    if (strncmp(arg, "--", 2) == 0 && wgprof_format_from_name(arg + 2, &f) == WGPROF_OK && (accepted >> f & 1u)) {
        return (int)f;
    }
    return -1;
}

enum { MAX_TIMEOUT_S = 1000000, MAX_RUN_ITERATIONS = 1000000 };

cli_parse_result cli_parse_run_args(int argc, char *const *argv, cli_run_options *o, char *error, size_t cap)
{
    /* Every format but the table (which goes to stdout) has a report file option. */
    const unsigned file_formats = ((1u << WGPROF_FORMAT_COUNT) - 1) & ~(1u << WGPROF_FORMAT_TABLE);
    memset(o, 0, sizeof *o);
    o->warmup = 3;
    o->iterations = 10;
    o->graph.profiling = WGPROF_PROFILING_ON;
    o->timeout_s = CLI_DEFAULT_TIMEOUT_S;
    o->max_dispatches = 1000000;
    if (cap) {
        error[0] = '\0';
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!a) {
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return CLI_PARSE_HELP;
        }
        if (strcmp(a, "--summary") == 0) {
            o->summary_only = true;
            continue;
        }
        if (strcmp(a, "--reference") == 0) {
            o->reference = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->spec) {
                return usage_error(error, cap, "one spec file at a time ('%s' and '%s')", o->spec, a);
            }
            o->spec = a;
            continue;
        }
        int format = find_file_flag(file_formats, a);
        static const char *const valued[] = {"--warmup",  "--iterations", "--peak-gbps",      "--peak-gflops",
                                             "--strategy", "--layout",    "--timeout",        "--max-dispatches",
                                             "--allow-path", "--shader-checks", "--baseline"};
        bool known = format >= 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !known; k++) {
            known = strcmp(a, valued[k]) == 0;
        }
        if (!known) {
            return usage_error(error, cap, "unknown option '%s'", a);
        }
        if (i + 1 >= argc || !argv[i + 1]) {
            return usage_error(error, cap, "%s needs a value", a);
        }
        const char *v = argv[++i];
        unsigned long long whole = 0;
        if (format >= 0) {
            if (!v[0]) {
                return usage_error(error, cap, "%s needs a file name", a);
            }
            o->files[format] = v;
        } else if (strcmp(a, "--warmup") == 0 || strcmp(a, "--iterations") == 0) {
            bool warmup = strcmp(a, "--warmup") == 0;
            if (!parse_whole(v, warmup ? 0 : 1, MAX_RUN_ITERATIONS, &whole)) {
                return usage_error(error, cap, "%s %s: expected a whole number from %d to %d", a, v, warmup ? 0 : 1,
                                   MAX_RUN_ITERATIONS);
            }
            *(warmup ? &o->warmup : &o->iterations) = (long)whole;
        } else if (strcmp(a, "--peak-gbps") == 0 || strcmp(a, "--peak-gflops") == 0) {
            if (!parse_positive(v, 1e300, strcmp(a, "--peak-gbps") == 0 ? &o->peak_gbps : &o->peak_gflops)) {
                return usage_error(error, cap, "%s %s: expected a positive number", a, v);
            }
        } else if (strcmp(a, "--timeout") == 0) {
            if (!parse_positive(v, MAX_TIMEOUT_S, &o->timeout_s)) {
                return usage_error(error, cap, "--timeout %s: expected a number of seconds above 0, at most %d", v,
                                   MAX_TIMEOUT_S);
            }
        } else if (strcmp(a, "--max-dispatches") == 0) {
            if (!parse_whole(v, 1, UINT32_MAX, &whole)) {
                return usage_error(error, cap, "--max-dispatches %s: expected a whole number from 1 to %u", v,
                                   UINT32_MAX);
            }
            o->max_dispatches = whole;
        } else if (strcmp(a, "--allow-path") == 0) {
            if (!v[0]) {
                return usage_error(error, cap, "--allow-path needs a folder");
            }
            if (o->allow_path_count >= CLI_MAX_ALLOW_PATHS) {
                return usage_error(error, cap, "--allow-path: at most %d folders", CLI_MAX_ALLOW_PATHS);
            }
            o->allow_paths[o->allow_path_count++] = v;
        } else if (strcmp(a, "--baseline") == 0) {
            if (!v[0]) {
                return usage_error(error, cap, "--baseline needs a file name");
            }
            o->baseline = v;
        } else if (strcmp(a, "--shader-checks") == 0) {
            if (!wgprof_shader_checks_from_str(v, &o->shader_checks)) {
                return usage_error(error, cap, "--shader-checks %s: expected default, no-loop-bounding or none", v);
            }
            o->shader_checks_given = true;
        } else if (strcmp(a, "--strategy") == 0) {
            if (!v[0] || !wgprof_strategy_from_str(v, &o->graph.strategy)) {
                return usage_error(error, cap, "--strategy %s: expected auto, pass, inside or chain", v);
            }
        } else { /* --layout */
            if (strcmp(v, "pass") == 0) {
                o->graph.layout = WGPROF_LAYOUT_PASS_PER_DISPATCH;
            } else if (strcmp(v, "single") == 0) {
                o->graph.layout = WGPROF_LAYOUT_SINGLE_PASS;
            } else {
                return usage_error(error, cap, "--layout %s: expected pass or single", v);
            }
        }
    }
    if (!o->spec) {
        return usage_error(error, cap, "no spec file given");
    }
    return CLI_PARSE_OK;
}

/* Bounds that keep every size product within 64 bits; the device limits come on top. */
enum { MAX_LAYERS = 1024, MAX_WIDTH = 1 << 24, MAX_DEMO_ITERATIONS = 1000000 };

cli_parse_result cli_parse_demo_args(int argc, char *const *argv, cli_demo_options *o, char *error, size_t cap)
{
    const unsigned file_formats = 1u << WGPROF_FORMAT_JSON | 1u << WGPROF_FORMAT_TSV | 1u << WGPROF_FORMAT_TRACE |
                                  1u << WGPROF_FORMAT_HTML;
    memset(o, 0, sizeof *o);
    o->model = (demo_config){.layers = 2, .dim = 256, .heads = 4, .ffn = 512, .vocab = 1024, .max_seq = 64, .pos = 16};
    o->warmup = 1;
    o->iterations = 3;
    o->timeout_s = CLI_DEFAULT_TIMEOUT_S;
    if (cap) {
        error[0] = '\0';
    }
    const struct {
        const char *name;
        uint32_t *value;
        uint32_t min, max;
    } numeric[] = {
        {"--layers", &o->model.layers, 1, MAX_LAYERS},   {"--dim", &o->model.dim, 1, MAX_WIDTH},
        {"--heads", &o->model.heads, 1, MAX_WIDTH},      {"--ffn", &o->model.ffn, 1, MAX_WIDTH},
        {"--vocab", &o->model.vocab, 1, MAX_WIDTH},      {"--max-seq", &o->model.max_seq, 1, MAX_WIDTH},
        {"--pos", &o->model.pos, 0, MAX_WIDTH - 1},      {"--iterations", &o->iterations, 1, MAX_DEMO_ITERATIONS},
        {"--warmup", &o->warmup, 0, MAX_DEMO_ITERATIONS},
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!arg) {
            break;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            return CLI_PARSE_HELP;
        }
        if (strcmp(arg, "--fused-sdpa") == 0) {
            o->model.fused_sdpa = true;
            continue;
        }
        if (strcmp(arg, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        int format = find_file_flag(file_formats, arg);
        size_t n = 0;
        while (n < sizeof numeric / sizeof numeric[0] && strcmp(arg, numeric[n].name) != 0) {
            n++;
        }
        bool takes_number = n < sizeof numeric / sizeof numeric[0];
        bool takes_seconds = strcmp(arg, "--timeout") == 0;
        bool takes_checks = strcmp(arg, "--shader-checks") == 0;
        bool takes_baseline = strcmp(arg, "--baseline") == 0;
        if (format < 0 && !takes_number && !takes_seconds && !takes_checks && !takes_baseline) {
            return usage_error(error, cap, "unknown option '%s'", arg);
        }
        if (i + 1 >= argc || !argv[i + 1]) {
            return usage_error(error, cap, "%s needs a value", arg);
        }
        const char *value = argv[++i];
        unsigned long long whole = 0;
        if (takes_number) {
            if (!parse_whole(value, numeric[n].min, numeric[n].max, &whole)) {
                return usage_error(error, cap, "%s '%s': expected a whole number from %u to %u", arg, value,
                                   numeric[n].min, numeric[n].max);
            }
            *numeric[n].value = (uint32_t)whole;
        } else if (takes_checks) {
            if (!wgprof_shader_checks_from_str(value, &o->model.shader_checks)) {
                return usage_error(error, cap, "--shader-checks %s: expected default, no-loop-bounding or none", value);
            }
            o->shader_checks_given = true;
        } else if (takes_seconds) {
            if (!parse_positive(value, MAX_TIMEOUT_S, &o->timeout_s)) {
                return usage_error(error, cap, "--timeout %s: expected a number of seconds above 0, at most %d", value,
                                   MAX_TIMEOUT_S);
            }
        } else if (!value[0]) {
            return usage_error(error, cap, "%s needs a file name", arg);
        } else if (takes_baseline) {
            o->baseline = value;
        } else {
            o->files[format] = value;
        }
    }
    return CLI_PARSE_OK;
}

const char cli_diff_usage[] =
    "usage: wgprof diff [options] BASE.json NEW.json\n"
    "       wgprof diff [options] BASE1.json BASE2.json ... vs NEW1.json NEW2.json ...\n"
    "\n"
    "Compares two JSON reports of wgprof (run, demo or record --json): per kernel, per scope and\n"
    "for the whole run, the count and median GPU time of each side, the change of the median,\n"
    "its confidence interval and a verdict: slower, faster or no change (also added, removed,\n"
    "or too few samples). Above the table it says where the two runs differ in adapter,\n"
    "implementation, strategy or timestamp period.\n"
    "\n"
    "  --threshold PCT        the smallest change of a median that counts (default 5)\n"
    "  --fail-if-slower PCT   exit 1 when a kernel or the total is slower by more than PCT with\n"
    "                         95% confidence: its interval's lower end above 1 + PCT/100\n"
    "  --gate-common          --fail-if-slower also fails on the change common to the kernels\n"
    "                         (a driver or a runner that slows every kernel: see below)\n"
    "  --gate-both-ways       where which of two groups of kernels changed is too close to call\n"
    "                         (the table says so), --fail-if-slower also fails where the other\n"
    "                         group would be the slower one: such a guess hides no regression,\n"
    "                         but a speed-up of one of two kernels on a busy machine may fail\n"
    "  --json FILE            write the comparison as JSON\n"
    "  --markdown FILE        write it as a Markdown table, for a pull request\n"
    "  --html FILE            write a self-contained HTML page: the two runs side by side\n"
    "  --seed N               the bootstrap's seed (default 1): the same seed, the same intervals\n"
    "  --resamples N          the bootstrap's resamples, 100 to 1000000 (default 2000)\n"
    "  --quiet                print no table on stdout\n"
    "  --allow-partial        compare a partial report (one whose program ended before its\n"
    "                         results were final: \"partial\": true), flagged in every output;\n"
    "                         without it such a report is refused (exit 2)\n"
    "  --set K                of reports holding several result sets (wgprof record of several\n"
    "                         devices or processes), compare each one's Kth set (from 1); without\n"
    "                         it such a report is refused, its sets named (exit 2)\n"
    "\n";

const char cli_diff_usage_method[] =
    "The samples are the valid per-dispatch durations of each kernel, the valid instances of each\n"
    "scope, and for the total the sum of each iteration's dispatches (iterations holding an\n"
    "invalid dispatch are left out); invalid records are counted as skipped. The interval is a\n"
    "95% percentile bootstrap of the ratio of the medians, NEW over BASE, each side resampled on\n"
    "its own, whole iterations at a time where it has 5 or more. A verdict of slower needs the\n"
    "whole interval above 1, the median up by more than the threshold and the p-value of no\n"
    "change, corrected by Holm's method over every row tested, below 0.05 (and the rank test's,\n"
    "where it can get there: 4 runs a side or more, or one); faster the same the other way.\n"
    "Fewer than 5 samples on a side give no verdict ('too few samples').\n"
    "A base median of 0 (a timer too coarse for the base's dispatches) gives no ratio: the\n"
    "change is read in us, new less base, slower where its interval lies above what the base\n"
    "can have been (one tick of its timer; for the total, one per dispatch of an iteration) and\n"
    "the change above that by more than the threshold; --fail-if-slower likewise by PCT.\n"
    "\n"
    "The machine's speed: with two kernels or more, each run (and iteration) gets a speed, the\n"
    "median over the kernels of their median there to their typical base median, and changes\n"
    "are tested with it taken out, against the change most kernels share (the 'common' line\n"
    "below the table): a busy machine moves every kernel, a regression one against the others.\n"
    "The common change (the runner's load, a driver) is gated only with --gate-common. With two\n"
    "kernels, which one moved is read from their quickest tenth of times, a guess the table\n"
    "says how firmly the bootstrap keeps. With one kernel the machine's speed and its change\n"
    "cannot be told apart: changes are as measured. Runs of 'wgprof run\n"
    "--reference' hold a kernel no change touches: it settles which group is common, and gates\n"
    "a common change it did not share. Also shown: each side's quartiles, each run's median, a\n"
    "warning where a side's runs disagree, the geometric mean.\n"
    "\n"
    "Several reports a side, with 'vs' between the sides, are runs of the same code, each its own\n"
    "process, of one setting, with the same kernels and scopes (up to 64 a side; a file on one\n"
    "side only, once): their samples are pooled, and the interval draws\n"
    "whole runs, then iterations within them, so that it covers how far whole runs move, which\n"
    "one run cannot show. Where one run moves from the next (a shared machine, a CPU driver),\n"
    "make 5 or more a side. A report named vs is given as ./vs.\n"
    "A report of '-' is read from stdin; a FILE of '-' is stdout; files are replaced whole.\n"
    "\n"
    "exit status: 0 compared (and nothing fails --fail-if-slower), 1 --fail-if-slower failed, or\n"
    "a file could not be written, or out of memory reading a report; 2 bad usage, a report that\n"
    "cannot be read, or a partial report without --allow-partial\n";

/* A number in [0, max] (a percentage). */
static bool parse_percent(const char *text, double max, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || !(v >= 0) || v > max) {
        return false;
    }
    *out = v;
    return true;
}

enum { MAX_PERCENT = 100000, MIN_RESAMPLES = 100, MAX_RESAMPLES = 1000000 };

cli_parse_result cli_parse_diff_args(int argc, char *const *argv, cli_diff_options *o, char *error, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->threshold_pct = 5;
    o->fail_if_slower_pct = -1;
    o->seed = 1;
    o->resamples = 2000;
    if (cap) {
        error[0] = '\0';
    }
    static const char *const valued[] = {"--threshold", "--fail-if-slower", "--json",  "--markdown",
                                         "--html",      "--seed",           "--resamples", "--set"};
    bool vs = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!a) {
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return CLI_PARSE_HELP;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        if (strcmp(a, "--allow-partial") == 0) {
            o->allow_partial = true;
            continue;
        }
        if (strcmp(a, "--gate-common") == 0) {
            o->gate_common = true;
            continue;
        }
        if (strcmp(a, "--gate-both-ways") == 0) {
            o->gate_both_ways = true;
            continue;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (strcmp(a, "vs") == 0) {
                if (vs) {
                    return usage_error(error, cap, "'vs' given twice: it stands once, between the two sides");
                }
                vs = true;
            } else if ((vs ? o->new_count : o->base_count) == CLI_DIFF_MAX_RUNS) {
                return usage_error(error, cap, "more than %d reports%s ('%s')", CLI_DIFF_MAX_RUNS,
                                   vs ? " after 'vs'" : " before 'vs' (or without one)", a);
            } else if (vs) {
                o->new_[o->new_count++] = a;
            } else {
                o->base[o->base_count++] = a;
            }
            continue;
        }
        bool known = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !known; k++) {
            known = strcmp(a, valued[k]) == 0;
        }
        if (!known) {
            return usage_error(error, cap, "unknown option '%s'", a);
        }
        if (i + 1 >= argc || !argv[i + 1]) {
            return usage_error(error, cap, "%s needs a value", a);
        }
        const char *v = argv[++i];
        unsigned long long whole = 0;
        if (strcmp(a, "--threshold") == 0 || strcmp(a, "--fail-if-slower") == 0) {
            if (!parse_percent(v, MAX_PERCENT, a[2] == 't' ? &o->threshold_pct : &o->fail_if_slower_pct)) {
                return usage_error(error, cap, "%s %s: expected a percentage from 0 to %d", a, v, MAX_PERCENT);
            }
        } else if (strcmp(a, "--seed") == 0) {
            if (!parse_whole(v, 0, 0x7fffffffffffffffull, &o->seed)) {
                return usage_error(error, cap, "--seed %s: expected a whole number from 0 to 2^63 - 1", v);
            }
        } else if (strcmp(a, "--set") == 0) {
            if (!parse_whole(v, 1, 1000000, &whole)) {
                return usage_error(error, cap, "--set %s: expected a whole number from 1 (a result set of a report)", v);
            }
            o->set = (size_t)whole;
        } else if (strcmp(a, "--resamples") == 0) {
            if (!parse_whole(v, MIN_RESAMPLES, MAX_RESAMPLES, &whole)) {
                return usage_error(error, cap, "--resamples %s: expected a whole number from %d to %d", v,
                                   MIN_RESAMPLES, MAX_RESAMPLES);
            }
            o->resamples = (unsigned)whole;
        } else if (!v[0]) {
            return usage_error(error, cap, "%s needs a file name", a);
        } else {
            *(a[2] == 'j' ? &o->json : a[2] == 'm' ? &o->markdown : &o->html) = v;
        }
    }
    if (!vs && o->base_count < 2) {
        return usage_error(error, cap, "two reports to compare: wgprof diff BASE.json NEW.json");
    }
    if (!vs && o->base_count > 2) {
        return usage_error(error, cap,
                           "%zu reports: two to compare, or several runs a side with 'vs' between the sides: "
                           "wgprof diff B1.json B2.json vs N1.json N2.json",
                           o->base_count);
    }
    if (!vs) { /* BASE NEW */
        o->new_[o->new_count++] = o->base[--o->base_count];
    }
    if (!o->base_count || !o->new_count) {
        return usage_error(error, cap,
                           "no report %s 'vs': wgprof diff B1.json B2.json vs N1.json N2.json (a report named "
                           "vs is given as ./vs)",
                           o->base_count ? "after" : "before");
    }
    size_t from_stdin = 0;
    for (size_t i = 0; i < o->base_count + o->new_count; i++) {
        const char *f = i < o->base_count ? o->base[i] : o->new_[i - o->base_count];
        from_stdin += strcmp(f, "-") == 0;
    }
    if (from_stdin > 1) {
        return usage_error(error, cap, "one report at most can come from stdin ('-')");
    }
    return CLI_PARSE_OK;
}
