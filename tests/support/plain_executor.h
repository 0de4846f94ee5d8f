/* A plain executor, written the way an engine without wgprof encodes, submits and waits: the
 * reference the call-sequence test and the benchmarks compare wgprof's unprofiled path with. */
#ifndef WGPROF_PLAIN_EXECUTOR_H
#define WGPROF_PLAIN_EXECUTOR_H

#include <wgprof/wgprof.h>

/* Runs the nodes of `graph` (read through wgprof_graph_node) with WebGPU calls only: one
 * encoder, one pass per dispatch (or one pass for all), one submit, a wait for the queue. */
void plain_execute(wgprof_device *dev, const wgprof_graph *graph, bool single_pass);
/* The same without the wait: encode and submit only, as a loop that keeps work in flight does. */
void plain_submit(wgprof_device *dev, const wgprof_graph *graph, bool single_pass);

/* A serving loop's own throttle: after each submit, waits until at most `limit` of the loop's
 * submissions are on the GPU, counting them with work-done callbacks. */
typedef struct plain_throttle {
    wgprof_device *dev;
    uint64_t limit;
    uint64_t submitted;
    volatile uint64_t done;
} plain_throttle;

void plain_throttle_after_submit(plain_throttle *t);

#endif
