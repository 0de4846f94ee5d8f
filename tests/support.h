/* Helpers the GPU tests share: a device, WGSL pipelines, buffers and readback, and a graph of
 * "busy" kernels whose work is set by a loop count. All of it real WebGPU on the device at hand. */
#ifndef WGPROF_TEST_SUPPORT_H
#define WGPROF_TEST_SUPPORT_H

#include <wgprof/device_util.h>
#include <wgprof/wgprof.h>

/* Creates a device (exits the test with status 1 when none can be made: nothing to test). */
wgprof_device *ts_device(bool timestamps);

WGPUComputePipeline ts_pipeline(wgprof_device *dev, const char *wgsl, const char *entry);
WGPUBuffer ts_buffer(wgprof_device *dev, uint64_t size, WGPUBufferUsage usage);
WGPUBindGroup ts_bind_group(wgprof_device *dev, WGPUComputePipeline p, WGPUBuffer a, uint64_t asize, WGPUBuffer b,
                            uint64_t bsize);
/* Copies `size` bytes of `src` (CopySrc) into `out` through a mapped staging buffer. */
bool ts_read(wgprof_device *dev, WGPUBuffer src, uint64_t size, void *out);

/* The busy kernel: data[i] = f^loops(data[i]) for n = 64 * workgroups elements, loops read from
 * a uniform, so that work grows in proportion to `loops`. */
typedef struct ts_busy {
    WGPUComputePipeline pipeline;
    WGPUBuffer data;
    WGPUBuffer params;
    WGPUBindGroup group;
    uint32_t workgroups;
} ts_busy;

bool ts_busy_init(wgprof_device *dev, ts_busy *b, uint32_t workgroups, uint32_t loops);
void ts_busy_free(ts_busy *b);
/* What the busy kernel leaves in element i after `runs` dispatches of `loops` loops. */
float ts_busy_expected(uint32_t i, uint32_t loops, uint32_t runs);
void ts_busy_node(const ts_busy *b, const char *kernel, wgprof_node_desc *out);

/* A logger for tests: keeps the last message (so tests can check what was said). */
void ts_capture_log(void);
const char *ts_last_log(void);
void ts_clear_log(void);

/* An allocator (wgprof_allocator, its user a ts_counting) that counts the allocations made and
 * the blocks still live, and fails the fail_at-th allocation (0: none): what a test of running
 * out of memory installs. */
typedef struct ts_counting {
    long allocations, live, fail_at;
} ts_counting;
void *ts_counting_alloc(size_t size, void *user);
void ts_counting_free(void *p, void *user);

#endif
