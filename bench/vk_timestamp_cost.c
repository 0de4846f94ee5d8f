/*
 * The GPU cost of a timestamp on the device at hand, measured by a raw Vulkan program, as the
 * floor a profiler's timestamps are compared with. A step is 33 dispatches of a small kernel
 * (vk_timestamp_kernel.comp), a buffer barrier between each two; four variants of it:
 *   none         no timestamp
 *   bracketed    one timestamp before and one after each dispatch (66 a step)
 *   chain        one before each dispatch and one after the last (34 a step)
 *   back_to_back 34 timestamps one after the other, nothing between them, then the step as in
 *                none: what a timestamp costs where no barrier or dispatch separates them
 * Each variant's command buffer holds STEPS steps between an outer pair of timestamps of its own,
 * whose difference over STEPS is its GPU time per step. Every query pool is reset from the host
 * (vkResetQueryPool, Vulkan 1.2's hostQueryReset) before each submit: no reset in the stream.
 * The variants run ROUNDS rounds, interleaved (each round starts at the next variant), after one
 * round of warm-up that is not counted; each submit is waited for with a fence.
 *
 * Usage: vk_timestamp_cost [ROUNDS] [--steps N] [--groups N] [--loops N] [--stage bottom|top|compute]
 *   ROUNDS 21; --steps 20 steps a command buffer; --groups 64 workgroups of 64 a dispatch;
 *   --loops 64 multiply-adds a thread; --stage the pipeline stage of the variants' timestamps
 *   (default bottom: VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, what Dawn and wgpu write at)
 * Prints one raw line per round on stderr, and one JSON object on stdout: the device, the
 * parameters, and per variant its timestamps a step, every round's GPU time per step (us), their
 * median, and the cost per timestamp: (variant - none) / timestamps a step, from the medians and
 * as the median of the rounds' paired differences. Exit 77 where the device has no timestamps
 * on its compute queue or no hostQueryReset, 1 on a Vulkan error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "bench_util.h"
#include "vk_bench.h"
#include "vk_timestamp_kernel.spv.h"

enum { DISPATCHES = 33, VARIANTS = 4, LOCAL_SIZE = 64 };

typedef enum variant { V_NONE, V_BRACKETED, V_CHAIN, V_BACK_TO_BACK } variant;
static const char *const variant_names[VARIANTS] = {"none", "bracketed", "chain", "back_to_back"};
static const unsigned timestamps_per_step[VARIANTS] = {0, 2 * DISPATCHES, DISPATCHES + 1, DISPATCHES + 1};

typedef struct bench {
    vk_bench vk; /* the instance, device and kernel (vk_bench.h) */
    VkCommandPool pool;
    VkFence fence;
    VkQueryPool queries[VARIANTS];
    uint32_t query_count[VARIANTS];
    VkCommandBuffer cb[VARIANTS];
    /* parameters */
    unsigned steps, groups, loops;
    VkPipelineStageFlagBits stage;
} bench;

static void create_device(bench *b)
{
    vk_bench_open(&b->vk, "vk_timestamp_cost");
    if (!b->vk.valid_bits || b->vk.props.limits.timestampPeriod <= 0.0f) {
        fprintf(stderr, "vk_timestamp_cost: skipped: %s has no timestamps on its compute queue\n", b->vk.props.deviceName);
        exit(77);
    }
    VkPhysicalDeviceVulkan12Features have12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have12};
    if (b->vk.props.apiVersion >= VK_API_VERSION_1_2) {
        vkGetPhysicalDeviceFeatures2(b->vk.physical, &have);
    }
    if (b->vk.props.apiVersion < VK_API_VERSION_1_2 || !have12.hostQueryReset) {
        fprintf(stderr, "vk_timestamp_cost: skipped: %s has no Vulkan 1.2 hostQueryReset\n", b->vk.props.deviceName);
        exit(77);
    }
    VkPhysicalDeviceVulkan12Features want12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                               .hostQueryReset = VK_TRUE};
    vk_bench_create_device(&b->vk, &want12);
}

/* The kernel's buffer (device-local where there is such memory), its descriptor set and the
 * pipeline. */
static void create_pipeline(bench *b)
{
    vk_bench_create_kernel(&b->vk, (VkDeviceSize)b->groups * LOCAL_SIZE * sizeof(float),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true,
                           spv_timestamp_kernel, sizeof spv_timestamp_kernel);
}

static void barrier(const bench *b, VkCommandBuffer cb)
{
    VkBufferMemoryBarrier m = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .buffer = b->vk.buffer,
                               .offset = 0,
                               .size = VK_WHOLE_SIZE};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, NULL, 1,
                         &m, 0, NULL);
}

/* Variant v's command buffer: the outer pair in queries 0 and 1, the variant's own after them. */
static void record_variant(bench *b, variant v)
{
    b->query_count[v] = 2 + timestamps_per_step[v] * b->steps;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = b->query_count[v]};
    VK_CHECK(&b->vk, vkCreateQueryPool(b->vk.device, &qi, NULL, &b->queries[v]));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = b->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VK_CHECK(&b->vk, vkAllocateCommandBuffers(b->vk.device, &ai, &b->cb[v]));
    VkCommandBuffer cb = b->cb[v];
    VkQueryPool q = b->queries[v];
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(&b->vk, vkBeginCommandBuffer(cb, &bi));
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->vk.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->vk.layout, 0, 1, &b->vk.set, 0, NULL);
    vkCmdPushConstants(cb, b->vk.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof b->loops, &b->loops);
    /* The outer pair at the bottom of the pipe: the end one waits for all the work before it. */
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, q, 0);
    uint32_t next = 2;
    for (unsigned s = 0; s < b->steps; s++) {
        if (v == V_BACK_TO_BACK) {
            for (unsigned t = 0; t < timestamps_per_step[v]; t++) {
                vkCmdWriteTimestamp(cb, b->stage, q, next++);
            }
        }
        for (unsigned d = 0; d < DISPATCHES; d++) {
            if (s + d > 0) {
                barrier(b, cb);
            }
            if (v == V_BRACKETED || v == V_CHAIN) {
                vkCmdWriteTimestamp(cb, b->stage, q, next++);
            }
            vkCmdDispatch(cb, b->groups, 1, 1);
            if (v == V_BRACKETED) {
                vkCmdWriteTimestamp(cb, b->stage, q, next++);
            }
        }
        if (v == V_CHAIN) {
            vkCmdWriteTimestamp(cb, b->stage, q, next++);
        }
    }
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, q, 1);
    VK_CHECK(&b->vk, vkEndCommandBuffer(cb));
    if (next != b->query_count[v]) {
        vk_bench_die(&b->vk, "variant %s wrote %u timestamps, expected %u", variant_names[v], next, b->query_count[v]);
    }
}

/* Runs variant v once; its GPU time per step in microseconds. */
static double run_variant(bench *b, variant v)
{
    vkResetQueryPool(b->vk.device, b->queries[v], 0, b->query_count[v]);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cb[v]};
    VK_CHECK(&b->vk, vkQueueSubmit(b->vk.queue, 1, &si, b->fence));
    VK_CHECK(&b->vk, vkWaitForFences(b->vk.device, 1, &b->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(&b->vk, vkResetFences(b->vk.device, 1, &b->fence));
    uint64_t t[2];
    VK_CHECK(&b->vk, vkGetQueryPoolResults(b->vk.device, b->queries[v], 0, 2, sizeof t, t, sizeof t[0],
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    uint64_t mask = b->vk.valid_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << b->vk.valid_bits) - 1;
    uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask;
    return (double)ticks * (double)b->vk.props.limits.timestampPeriod / 1000.0 / (double)b->steps;
}

static unsigned parse_count(const char *what, const char *v, unsigned max)
{
    char *end = NULL;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || v[0] == '-' || n < 1 || n > max) {
        fprintf(stderr, "vk_timestamp_cost: %s %s: a whole number from 1 to %u\n", what, v, max);
        exit(2);
    }
    return (unsigned)n;
}

int main(int argc, char **argv)
{
    bench b = {.steps = 20, .groups = 64, .loops = 64, .stage = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT};
    unsigned rounds = 21;
    const char *stage_name = "bottom";
    for (int i = 1; i < argc && argv[i]; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--steps") == 0 && v) {
            b.steps = parse_count(a, v, 100000);
        } else if (strcmp(a, "--groups") == 0 && v) {
            b.groups = parse_count(a, v, 1u << 20);
        } else if (strcmp(a, "--loops") == 0 && v) {
            b.loops = parse_count(a, v, 1u << 24);
        } else if (strcmp(a, "--stage") == 0 && v) {
            stage_name = v;
            if (strcmp(v, "bottom") == 0) {
                b.stage = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
            } else if (strcmp(v, "top") == 0) {
                b.stage = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
            } else if (strcmp(v, "compute") == 0) {
                b.stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
            } else {
                fprintf(stderr, "vk_timestamp_cost: --stage %s: bottom, top or compute\n", v);
                return 2;
            }
        } else if (a[0] != '-' && i == 1) {
            rounds = parse_count("ROUNDS", a, 100000);
            continue;
        } else {
            fprintf(stderr, "usage: vk_timestamp_cost [ROUNDS] [--steps N] [--groups N] [--loops N] "
                            "[--stage bottom|top|compute]\n");
            return 2;
        }
        i++;
    }

    create_device(&b);
    create_pipeline(&b);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = b.vk.family};
    VK_CHECK(&b.vk, vkCreateCommandPool(b.vk.device, &pci, NULL, &b.pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(&b.vk, vkCreateFence(b.vk.device, &fci, NULL, &b.fence));
    /* The buffer's first contents: zeros, set once (the kernel's loop stays finite from there). */
    {
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = b.pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VkCommandBuffer cb;
        VK_CHECK(&b.vk, vkAllocateCommandBuffers(b.vk.device, &ai, &cb));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        VK_CHECK(&b.vk, vkBeginCommandBuffer(cb, &bi));
        vkCmdFillBuffer(cb, b.vk.buffer, 0, VK_WHOLE_SIZE, 0);
        VkMemoryBarrier filled = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &filled, 0,
                             NULL, 0, NULL);
        VK_CHECK(&b.vk, vkEndCommandBuffer(cb));
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
        VK_CHECK(&b.vk, vkQueueSubmit(b.vk.queue, 1, &si, b.fence));
        VK_CHECK(&b.vk, vkWaitForFences(b.vk.device, 1, &b.fence, VK_TRUE, UINT64_MAX));
        VK_CHECK(&b.vk, vkResetFences(b.vk.device, 1, &b.fence));
        vkFreeCommandBuffers(b.vk.device, b.pool, 1, &cb);
    }
    for (int v = 0; v < VARIANTS; v++) {
        record_variant(&b, (variant)v);
    }

    fprintf(stderr, "vk_timestamp_cost: %s, %u rounds of %u steps of %d dispatches (%u workgroups of %d, %u loops), "
                    "timestamps at %s\n",
            b.vk.props.deviceName, rounds, b.steps, DISPATCHES, b.groups, LOCAL_SIZE, b.loops, stage_name);
    double *us = calloc((size_t)rounds * VARIANTS, sizeof *us);
    double *sorted = calloc(rounds, sizeof *sorted);
    if (!us || !sorted) {
        vk_bench_die(&b.vk, "out of memory");
    }
    for (int v = 0; v < VARIANTS; v++) { /* warm-up: pipelines, caches, clocks */
        run_variant(&b, (variant)v);
    }
    for (unsigned r = 0; r < rounds; r++) {
        for (int k = 0; k < VARIANTS; k++) {
            int v = (int)((r + (unsigned)k) % VARIANTS);
            us[r * VARIANTS + (unsigned)v] = run_variant(&b, (variant)v);
        }
        fprintf(stderr, "round %u us/step:", r);
        for (int v = 0; v < VARIANTS; v++) {
            fprintf(stderr, " %s %.3f", variant_names[v], us[r * VARIANTS + (unsigned)v]);
        }
        fputc('\n', stderr);
    }

    printf("{\n  \"benchmark\": \"vk_timestamp_cost\",\n  \"device\": \"%s\",\n  \"driver_version\": %u,\n"
           "  \"api_version\": \"%u.%u.%u\",\n  \"timestamp_period_ns\": %.6f,\n  \"timestamp_valid_bits\": %u,\n"
           "  \"rounds\": %u,\n  \"steps\": %u,\n  \"dispatches_per_step\": %d,\n  \"workgroups\": %u,\n"
           "  \"workgroup_size\": %d,\n  \"loops\": %u,\n  \"stage\": \"%s\",\n  \"query_reset\": \"host\",\n"
           "  \"variants\": {\n",
           b.vk.props.deviceName, b.vk.props.driverVersion, VK_API_VERSION_MAJOR(b.vk.props.apiVersion),
           VK_API_VERSION_MINOR(b.vk.props.apiVersion), VK_API_VERSION_PATCH(b.vk.props.apiVersion),
           (double)b.vk.props.limits.timestampPeriod, b.vk.valid_bits, rounds, b.steps, DISPATCHES, b.groups, LOCAL_SIZE,
           b.loops, stage_name);
    for (unsigned r = 0; r < rounds; r++) {
        sorted[r] = us[r * VARIANTS + V_NONE];
    }
    double none_median = bench_median(sorted, (int)rounds);
    for (int v = 0; v < VARIANTS; v++) {
        printf("    \"%s\": {\"timestamps_per_step\": %u, \"us_per_step\": [", variant_names[v], timestamps_per_step[v]);
        for (unsigned r = 0; r < rounds; r++) {
            printf("%s%.3f", r ? ", " : "", us[r * VARIANTS + (unsigned)v]);
            sorted[r] = us[r * VARIANTS + (unsigned)v];
        }
        double median = bench_median(sorted, (int)rounds);
        printf("], \"median_us_per_step\": %.3f", median);
        if (timestamps_per_step[v]) {
            for (unsigned r = 0; r < rounds; r++) {
                sorted[r] = us[r * VARIANTS + (unsigned)v] - us[r * VARIANTS + V_NONE];
            }
            double paired = bench_median(sorted, (int)rounds);
            printf(", \"us_per_timestamp\": %.4f, \"us_per_timestamp_paired\": %.4f",
                   (median - none_median) / timestamps_per_step[v], paired / timestamps_per_step[v]);
        }
        printf("}%s\n", v + 1 < VARIANTS ? "," : "");
    }
    printf("  }\n}\n");
    free(sorted);
    free(us);

    for (int v = 0; v < VARIANTS; v++) {
        vkDestroyQueryPool(b.vk.device, b.queries[v], NULL);
    }
    vkDestroyFence(b.vk.device, b.fence, NULL);
    vkDestroyCommandPool(b.vk.device, b.pool, NULL);
    vk_bench_close(&b.vk);
    return fflush(stdout) == 0 ? 0 : 1;
}
