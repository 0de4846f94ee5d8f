/*
 * The host cost of recording dispatches, measured by a raw Vulkan program: what a layer (wgprof's
 * timing layer, bench/layer_host_cost.sh) adds to each vkCmdDispatch on the program's thread.
 * A round records N vkCmdDispatch(1,1,1) of vk_timestamp_kernel.comp, the pipeline, descriptor
 * set and push constant bound once per command buffer, spread over B command buffers recorded
 * one after the other; only vkBeginCommandBuffer..vkEndCommandBuffer of the B buffers is timed
 * (CLOCK_MONOTONIC). Then the buffers are submitted together and waited for with a fence, and
 * reset: outside the timed part, so that a layer's readback (after the wait) and its release of
 * a buffer's queries (at the reset) are not counted. One round of warm-up is not counted (the
 * driver's and a layer's first allocations, the layer's query pools).
 * B > 1 is for sampling: with a layer that times one command buffer in B, every round holds
 * one timed buffer, so that the mean of a round is what the sampling costs a dispatch.
 *
 * --submits: the submit path instead. N command buffers of one dispatch each are recorded once;
 * a round submits each alone, without waiting in between (a fence on the last), and only the N
 * vkQueueSubmit calls are timed: what a layer adds to a submit, and whether that grows with the
 * work in flight. Then the fence is waited for, outside the timing.
 *
 * Usage: vk_record_cost [ROUNDS] [--dispatches N] [--buffers B] [--submits]
 *   ROUNDS 21; --dispatches 20000 a round; --buffers 1 (N a multiple of B)
 * Prints one raw line per round on stderr, and one JSON object on stdout: the device, the
 * parameters, every round's ns per dispatch and their median. Exit 1 on a Vulkan error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "bench_util.h"
#include "vk_bench.h"
#include "vk_timestamp_kernel.spv.h"

enum { LOCAL_SIZE = 64, MAX_BUFFERS = 1000 };

typedef struct bench {
    vk_bench vk; /* the instance, device and kernel (vk_bench.h) */
    VkCommandPool pool;
    VkFence fence;
    VkCommandBuffer *cbs;
    unsigned dispatches, buffers;
    uint32_t loops;
} bench;

static void create_device(bench *b)
{
    vk_bench_open(&b->vk, "vk_record_cost");
    vk_bench_create_device(&b->vk, NULL);
}

/* One workgroup's buffer (host-visible memory is fine: only recording is timed), its set and the
 * pipeline. */
static void create_pipeline(bench *b)
{
    vk_bench_create_kernel(&b->vk, LOCAL_SIZE * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false,
                           spv_timestamp_kernel, sizeof spv_timestamp_kernel);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Begins recording `cb` with the kernel, its set and its push constant bound. */
static void begin_with_kernel(bench *b, VkCommandBuffer cb)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(&b->vk, vkBeginCommandBuffer(cb, &bi));
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->vk.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->vk.layout, 0, 1, &b->vk.set, 0, NULL);
    vkCmdPushConstants(cb, b->vk.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof b->loops, &b->loops);
}

/* One round: the recording timed, then its execution and the buffers' reset untimed. Its ns per
 * dispatch. */
static double run_round(bench *b)
{
    unsigned per_buffer = b->dispatches / b->buffers;
    uint64_t t0 = now_ns();
    for (unsigned k = 0; k < b->buffers; k++) {
        VkCommandBuffer cb = b->cbs[k];
        begin_with_kernel(b, cb);
        for (unsigned i = 0; i < per_buffer; i++) {
            vkCmdDispatch(cb, 1, 1, 1);
        }
        VK_CHECK(&b->vk, vkEndCommandBuffer(cb));
    }
    uint64_t t1 = now_ns();
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = b->buffers, .pCommandBuffers = b->cbs};
    VK_CHECK(&b->vk, vkQueueSubmit(b->vk.queue, 1, &si, b->fence));
    VK_CHECK(&b->vk, vkWaitForFences(b->vk.device, 1, &b->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(&b->vk, vkResetFences(b->vk.device, 1, &b->fence));
    for (unsigned k = 0; k < b->buffers; k++) {
        VK_CHECK(&b->vk, vkResetCommandBuffer(b->cbs[k], 0));
    }
    return (double)(t1 - t0) / (double)b->dispatches;
}

/* One round of --submits: the N one-dispatch buffers submitted one by one, the submits timed.
 * Its ns per submit. */
static double run_submits(bench *b)
{
    uint64_t t0 = now_ns();
    for (unsigned k = 0; k < b->dispatches; k++) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cbs[k]};
        VK_CHECK(&b->vk, vkQueueSubmit(b->vk.queue, 1, &si, k + 1 == b->dispatches ? b->fence : VK_NULL_HANDLE));
    }
    uint64_t t1 = now_ns();
    VK_CHECK(&b->vk, vkWaitForFences(b->vk.device, 1, &b->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(&b->vk, vkResetFences(b->vk.device, 1, &b->fence));
    return (double)(t1 - t0) / (double)b->dispatches;
}

/* The --submits buffers, recorded once: one dispatch each. */
static void record_singles(bench *b)
{
    for (unsigned k = 0; k < b->dispatches; k++) {
        VkCommandBuffer cb = b->cbs[k];
        begin_with_kernel(b, cb);
        vkCmdDispatch(cb, 1, 1, 1);
        VK_CHECK(&b->vk, vkEndCommandBuffer(cb));
    }
}

static unsigned parse_count(const char *what, const char *v, unsigned max)
{
    char *end = NULL;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || v[0] == '-' || n < 1 || n > max) {
        fprintf(stderr, "vk_record_cost: %s %s: a whole number from 1 to %u\n", what, v, max);
        exit(2);
    }
    return (unsigned)n;
}

int main(int argc, char **argv)
{
    /* One loop a thread: the kernels run in as little time as they can, only recording counts. */
    bench b = {.dispatches = 20000, .buffers = 1, .loops = 1};
    unsigned rounds = 21;
    bool submits = false;
    for (int i = 1; i < argc && argv[i]; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--submits") == 0) {
            submits = true;
            continue;
        }
        if (strcmp(a, "--dispatches") == 0 && v) {
            b.dispatches = parse_count(a, v, 10000000);
        } else if (strcmp(a, "--buffers") == 0 && v) {
            b.buffers = parse_count(a, v, MAX_BUFFERS);
        } else if (a[0] != '-' && i == 1) {
            rounds = parse_count("ROUNDS", a, 100000);
            continue;
        } else {
            fprintf(stderr, "usage: vk_record_cost [ROUNDS] [--dispatches N] [--buffers B] [--submits]\n");
            return 2;
        }
        i++;
    }
    if (b.dispatches % b.buffers) {
        fprintf(stderr, "vk_record_cost: --dispatches %u is not a multiple of --buffers %u\n", b.dispatches, b.buffers);
        return 2;
    }

    create_device(&b);
    create_pipeline(&b);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = b.vk.family};
    VK_CHECK(&b.vk, vkCreateCommandPool(b.vk.device, &pci, NULL, &b.pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(&b.vk, vkCreateFence(b.vk.device, &fci, NULL, &b.fence));
    if (submits) {
        b.buffers = b.dispatches; /* one dispatch a buffer */
    }
    b.cbs = calloc(b.buffers, sizeof *b.cbs);
    double *ns = calloc(rounds, sizeof *ns);
    double *sorted = calloc(rounds, sizeof *sorted);
    if (!b.cbs || !ns || !sorted) {
        vk_bench_die(&b.vk, "out of memory");
    }
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = b.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = b.buffers};
    VK_CHECK(&b.vk, vkAllocateCommandBuffers(b.vk.device, &ai, b.cbs));

    fprintf(stderr, "vk_record_cost: %s, %u rounds of %u dispatches in %u command buffer(s)\n", b.vk.props.deviceName,
            rounds, b.dispatches, b.buffers);
    if (submits) {
        record_singles(&b);
    }
    double (*round_fn)(bench *) = submits ? run_submits : run_round;
    const char *unit = submits ? "submit" : "dispatch";
    round_fn(&b); /* warm-up */
    for (unsigned r = 0; r < rounds; r++) {
        ns[r] = round_fn(&b);
        sorted[r] = ns[r];
        fprintf(stderr, "round %u ns/%s %.2f\n", r, unit, ns[r]);
    }
    printf("{\"benchmark\": \"vk_record_cost\", \"mode\": \"%s\", \"device\": \"%s\", \"driver_version\": %u, "
           "\"rounds\": %u, \"dispatches\": %u, \"buffers\": %u, \"ns_per_%s\": [",
           submits ? "submits" : "record", b.vk.props.deviceName, b.vk.props.driverVersion, rounds, b.dispatches,
           b.buffers, unit);
    for (unsigned r = 0; r < rounds; r++) {
        printf("%s%.2f", r ? ", " : "", ns[r]);
    }
    printf("], \"median_ns_per_%s\": %.2f}\n", unit, bench_median(sorted, (int)rounds));
    free(sorted);
    free(ns);

    vkFreeCommandBuffers(b.vk.device, b.pool, b.buffers, b.cbs);
    free(b.cbs);
    vkDestroyFence(b.vk.device, b.fence, NULL);
    vkDestroyCommandPool(b.vk.device, b.pool, NULL);
    vk_bench_close(&b.vk);
    return fflush(stdout) == 0 ? 0 : 1;
}
