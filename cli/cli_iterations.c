/*
 * Executing a graph the way every measuring command does (declared in cli.h): warm-up
 * iterations first, whose records are dropped, then the measured ones. The first executes of a
 * graph pay for pipeline compilation and cold caches (tens of ms per kernel on lavapipe), which
 * is not the kernels' time. A progress line goes to stderr when it is a terminal and the work
 * lasts over a second.
 */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

typedef struct progress {
    const char *command;
    bool tty;
    bool shown;
    double start;
} progress;

static void progress_update(progress *p, const char *phase, long done, long total)
{
    if (p->tty && cli_now_s() - p->start > 1.0) {
        fprintf(stderr, "\rwgprof %s: %s %ld/%ld ", p->command, phase, done, total);
        p->shown = true;
    }
}

static void progress_clear(progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
    }
}

cli_iterations cli_execute_iterations(const char *command, wgprof_graph *graph, long warmup, long iterations)
{
    progress p = {command, isatty(STDERR_FILENO) != 0, false, cli_now_s()};
    cli_iterations r = {warmup, iterations, 0, 0, 0.0, WGPROF_OK};
    for (; r.warmed < warmup && r.status == WGPROF_OK; r.warmed += r.status == WGPROF_OK) {
        r.status = wgprof_graph_execute(graph);
        progress_update(&p, "warm-up", r.warmed + 1, warmup);
    }
    if (r.status == WGPROF_OK) {
        wgprof_pool_reset(wgprof_graph_pool(graph)); /* warm-up is not measured; NULL unprofiled */
    }
    double start = cli_now_s();
    for (; r.measured < iterations && r.status == WGPROF_OK; r.measured += r.status == WGPROF_OK) {
        r.status = wgprof_graph_execute(graph);
        progress_update(&p, "iteration", r.measured + 1, iterations);
    }
    r.measured_s = cli_now_s() - start;
    progress_clear(&p);
    return r;
}

void cli_error_timed_out(const char *command, const cli_iterations *r, double timeout_s)
{
    bool in_warmup = r->warmed < r->warmup;
    cli_error("wgprof %s: %s iteration %ld of %ld did not finish within %g s (--timeout); giving up", command,
              in_warmup ? "warm-up" : "measured", (in_warmup ? r->warmed : r->measured) + 1,
              in_warmup ? r->warmup : r->iterations, timeout_s);
    if (r->measured == 0) {
        cli_error("wgprof %s: no measured iteration completed: no report written", command);
    }
}
