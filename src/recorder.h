/*
 * The recorder as its users inside the library see it: the graph records through the
 * site-taking calls below (a graph interns its nodes' sites once, not at every execute), and
 * everyone reads results through the pool's store and clock. The pool's layout stays in
 * recorder_internal.h, which only the recorder's own files include.
 */
#ifndef WGPROF_RECORDER_H
#define WGPROF_RECORDER_H

#include "store.h"

/* The pool's results store and clock fit; NULL pool: NULL. */
wgprof__store *wgprof__pool_store(wgprof_pool *pool);
const wgprof__store *wgprof__pool_store_const(const wgprof_pool *pool);

/* The recording calls of wgprof.h, for a site already interned in the pool's store. */
wgprof_status wgprof__pool_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                            WGPUPassTimestampWrites *writes);
wgprof_status wgprof__pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                      uint64_t dispatch_id);
wgprof_status wgprof__pool_chain_next_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                           uint64_t dispatch_id);
wgprof_status wgprof__pool_chain_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                                  WGPUPassTimestampWrites *writes);

/* Drops the records (and scopes) of the batch not yet resolved: an execute that failed while
 * encoding. */
void wgprof__pool_discard_batch(wgprof_pool *pool);
/* Takes back a resolve whose encoder was never submitted: the frame is free, the batch gone. */
void wgprof__pool_unresolve(wgprof_pool *pool);
/* wgprof_pool_collect_ready without letting the implementation run any callback: takes the
 * batches whose maps' callbacks have already run. For a caller that has just let it (wgprof
 * record, after the program's own poll or submit). */
wgprof_status wgprof__pool_take_ready(wgprof_pool *pool, uint32_t *collected);
/* Whether a resolve now would find a free readback frame. */
bool wgprof__pool_frame_free(const wgprof_pool *pool);
/* The caller's exact CPU times of the batch resolved last (nothing after a dropped batch). */
void wgprof__pool_stamp_submit(wgprof_pool *pool, uint64_t encode_ns, uint64_t submit_ns, uint64_t submitted_ns);
/* When the clocks were last calibrated (wgprof__now_ns), 0 never. */
uint64_t wgprof__pool_last_calibration_ns(const wgprof_pool *pool);

#endif
