/*
 * wgprof run SPEC.json: profiles the WGSL kernels a spec describes. The whole spec and every
 * file the run will write are checked (files, then device) before anything runs; warm-up
 * iterations run and are dropped, then the measured iterations give the statistics, the table
 * and the requested files. An iteration that does not finish within --timeout ends the run with
 * what the completed ones measured, and exit code 3. With --baseline, the earlier report is read
 * before anything runs and the comparison with it follows the table (cmd_diff.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spec.h"

/* Every file the run writes (reports, the spec's outputs) checked before any GPU work: it can be
 * written, and is none of the files the run reads. */
static int check_outputs(const cli_run_options *o, const spec *sp, const out_input *baseline)
{
    enum { NAME_CAP = 512 };
    out_input *inputs = calloc(sp->input_count + 1, sizeof *inputs);
    char *names = calloc(sp->input_count + 1, NAME_CAP);
    if (!inputs || !names) {
        free(inputs);
        free(names);
        return cli_fail("checking the output files", WGPROF_ERR_OUT_OF_MEMORY);
    }
    for (size_t i = 0; i < sp->input_count; i++) {
        char *name = names + i * NAME_CAP;
        snprintf(name, NAME_CAP, "%s '%s'", sp->inputs[i].where, sp->inputs[i].path);
        inputs[i] = (out_input){name, sp->inputs[i].dev, sp->inputs[i].ino};
    }
    size_t count = sp->input_count;
    if (baseline && (baseline->dev || baseline->ino)) {
        snprintf(names + count * NAME_CAP, NAME_CAP, "the baseline '%s'", baseline->name);
        inputs[count] = (out_input){names + count * NAME_CAP, baseline->dev, baseline->ino};
        count++;
    }
    int code = cli_check_report_files("run", o->files, inputs, count);
    for (size_t i = 0; code == CLI_OK && i < sp->output_count; i++) {
        char why[4096];
        if (!out_check(sp->outputs[i].file, inputs, count, why, sizeof why)) {
            cli_error("wgprof run: %s: $.outputs[%zu].file: %s", sp->path, i, why);
            code = CLI_USAGE;
        }
    }
    free(inputs);
    free(names);
    return code;
}

static int write_reports(const cli_run_options *o, wgprof_device *dev, wgprof_graph *g, long iterations,
                         const diff_profile *baseline)
{
    wgprof_report_desc report = {0};
    report.device = wgprof_device_describe(dev);
    report.pool = wgprof_graph_pool(g);
    report.iterations = (uint32_t)iterations;
    report.unavailable_reason = wgprof_graph_profiling_note(g);
    report.omit_dispatches = o->summary_only;
    report.peak_gbps = o->peak_gbps;
    report.peak_gflops = o->peak_gflops;
    report.shader_checks = o->shader_checks_given ? wgprof_shader_checks_str(o->shader_checks) : NULL;
    int code = cli_write_reports(&report, o->files, o->quiet ? NULL : stdout);
    if (baseline) {
        int compared = cli_baseline_compare_report("run", baseline, &report, stdout);
        code = code != CLI_OK ? code : compared;
    }
    return code;
}

/* A run that timed out: what the completed measured iterations give, and exit code 3. The GPU
 * objects are left as they are (the device may still be busy with the work that did not end):
 * the process exits without waiting for it. */
static int report_timeout(const cli_run_options *o, wgprof_device *dev, wgprof_graph *g, const cli_iterations *r,
                          const diff_profile *baseline)
{
    cli_error_timed_out("run", r, o->timeout_s);
    if (r->measured == 0) {
        return CLI_TIMEOUT;
    }
    cli_error("wgprof run: reporting the %ld measured iteration%s that completed; the spec's outputs are not "
              "written",
              r->measured, r->measured == 1 ? "" : "s");
    write_reports(o, dev, g, r->measured, baseline);
    return CLI_TIMEOUT;
}

/* Runs a loaded and checked spec; the caller frees it. */
static int run_spec(const cli_run_options *o, spec *sp, const diff_profile *baseline)
{
    char error[8192];
    int code = CLI_OK;
    out_set_wait(o->timeout_s);
    wgprof_device_desc device_desc = {.wait_timeout_s = o->timeout_s};
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(&device_desc, &dev);
    if (s != WGPROF_OK) {
        return cli_fail("creating the WebGPU device", s);
    }
    spec_gpu gpu;
    s = spec_build(sp, dev, &o->graph, o->shader_checks, &gpu, error, sizeof error);
    cli_iterations r = {o->warmup, o->iterations, 0, 0, 0.0, s};
    if (s != WGPROF_OK) {
        if (error[0]) {
            cli_error("wgprof run: %s", error);
            code = CLI_USAGE;
        } else {
            code = cli_fail("setting up the spec on the device", s);
        }
    } else {
        r = cli_execute_iterations("run", gpu.graph, o->warmup, o->iterations);
        if (r.status == WGPROF_ERR_TIMEOUT) {
            return report_timeout(o, dev, gpu.graph, &r, baseline); /* GPU objects left alone */
        }
        code = r.status == WGPROF_OK ? CLI_OK : cli_fail("executing the spec", r.status);
    }
    bool timed_out = false;
    if (code == CLI_OK && !spec_write_outputs(sp, &gpu, dev, &timed_out, error, sizeof error)) {
        cli_error("wgprof run: %s", error);
        code = timed_out ? CLI_TIMEOUT : CLI_FAILED;
    }
    if (code == CLI_OK) {
        code = write_reports(o, dev, gpu.graph, o->iterations, baseline);
    }
    if (code == CLI_TIMEOUT) {
        return code; /* the device may still be busy: left alone */
    }
    spec_gpu_free(&gpu, sp);
    wgprof_device_destroy(dev);
    return code;
}

int cmd_run(int argc, char **argv)
{
    cli_run_options o;
    char error[8192];
    switch (cli_parse_run_args(argc, argv, &o, error, sizeof error)) {
    case CLI_PARSE_HELP:
        fputs(cli_run_usage, stdout);
        return CLI_OK;
    case CLI_PARSE_ERROR:
        cli_error("wgprof run: %s\n(wgprof run --help lists the options)", error);
        return CLI_USAGE;
    case CLI_PARSE_OK:
        break;
    }
    spec_load_options load = {o.allow_paths, o.allow_path_count, o.max_dispatches};
    spec sp;
    if (!spec_load(o.spec, &load, &sp, error, sizeof error)) {
        cli_error("wgprof run: %s", error);
        return CLI_USAGE;
    }
    if (o.reference && !spec_add_reference(&sp, error, sizeof error)) {
        cli_error("wgprof run: %s", error);
        spec_free(&sp);
        return CLI_FAILED;
    }
    /* The baseline is read before anything runs: one it cannot read ends the run here. */
    diff_profile baseline_profile;
    const diff_profile *baseline = NULL;
    out_input baseline_input = {0};
    if (o.baseline) {
        int loaded = cli_baseline_load("run", o.baseline, &baseline_profile, &baseline_input);
        if (loaded != CLI_OK) {
            spec_free(&sp);
            return loaded;
        }
        baseline = &baseline_profile;
    }
    int code = check_outputs(&o, &sp, baseline ? &baseline_input : NULL);
    if (code == CLI_OK) {
        code = run_spec(&o, &sp, baseline);
    }
    if (baseline) {
        diff_profile_free(&baseline_profile);
    }
    spec_free(&sp);
    return code;
}
