/*
 * Hooks for tests, benchmarks and fuzzers only: compiled into the wgprof_testing library
 * (device_testing.c, recorder_testing.c, webgpu_testing.c), never into libwgprof.
 */
#ifndef WGPROF_TESTING_H
#define WGPROF_TESTING_H

#include "store.h"

struct wgprof__webgpu_procs; /* the generated webgpu_procs.h, which not every user of this has */

/* Destroys the underlying WebGPU device (wgpuDeviceDestroy) and marks the device lost. */
void wgprof__device_lose(wgprof_device *device);

/* A pool with no device and no query set, its results store only, for the pure tests, the
 * fuzzer and bench_host; wgprof_pool_destroy frees it. */
wgprof_pool *wgprof__pool_new_host(void);
/* Interns `dispatch` in the pool's store. */
wgprof_status wgprof__host_site(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch, uint32_t *site);
/* Appends `count` pending records, record i of site sites[i % site_count] with dispatch id
 * i + 1, as one resolved batch of the pass strategy (`end_missing`: its last record's end was never written);
 * *first receives its first record and *batch its index. */
wgprof_status wgprof__host_batch(wgprof_pool *pool, size_t count, const uint32_t *sites, size_t site_count,
                                 bool end_missing, size_t *first, uint32_t *batch);
/* Host batches are pairs, timed as the pass strategy times; this says `batch` was timed with
 * `strategy` instead (the readings stay pairs). */
void wgprof__host_timed_with(wgprof_pool *pool, uint32_t batch, wgprof_strategy strategy);
/* What collect does with a readback: takes `count` readings (begin, end pairs) of records
 * [first, first + count) of `batch`, converted with `period_ns`. */
void wgprof__host_readings(wgprof_pool *pool, uint32_t batch, size_t first, size_t count, const uint64_t *ticks,
                           double period_ns, wgprof__extent *extent);
/* Marks the oldest batch not yet collected, `batch`, collected with `period_ns`. */
void wgprof__host_collected(wgprof_pool *pool, uint32_t batch, double period_ns);
/* Gives the pool `clock` as its fit of the GPU clock to the CPU clock, as calibration would. */
void wgprof__host_clock(wgprof_pool *pool, const wgprof_clock_info *clock);

/* Every WebGPU call libwgprof makes from now on goes through a table that first calls
 * report(name, user), `name` the function's ("wgpuQueueSubmit"), then the implementation's
 * function (the library wgpuCreateInstance resolves to). Call before anything of wgprof's runs;
 * false where the process has no WebGPU implementation. */
bool wgprof__webgpu_log_install(void (*report)(const char *name, void *user), void *user);
/* Fills `out` with that table's entries for `real`'s functions (NULL where `real` lacks one);
 * generated for every function of the WebGPU headers (cmake/webgpu_forward.cmake). */
void wgprof__webgpu_procs_logging(const struct wgprof__webgpu_procs *real,
                                  void (*report)(const char *name, void *user), void *user,
                                  struct wgprof__webgpu_procs *out);

#endif
