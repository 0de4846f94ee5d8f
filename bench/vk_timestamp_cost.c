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
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "bench_util.h"
#include "vk_timestamp_kernel.spv.h"

enum { DISPATCHES = 33, VARIANTS = 4, LOCAL_SIZE = 64 };

typedef enum variant { V_NONE, V_BRACKETED, V_CHAIN, V_BACK_TO_BACK } variant;
static const char *const variant_names[VARIANTS] = {"none", "bracketed", "chain", "back_to_back"};
static const unsigned timestamps_per_step[VARIANTS] = {0, 2 * DISPATCHES, DISPATCHES + 1, DISPATCHES + 1};

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vk_timestamp_cost: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define VK_CHECK(call)                                                                                       \
    do {                                                                                                     \
        VkResult r_ = (call);                                                                                \
        if (r_ != VK_SUCCESS) {                                                                              \
            die("%s failed: VkResult %d", #call, (int)r_);                                                   \
        }                                                                                                    \
    } while (0)

typedef struct bench {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    uint32_t family, valid_bits;
    VkDevice device;
    VkQueue queue;
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline pipeline;
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
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "vk_timestamp_cost",
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VK_CHECK(vkCreateInstance(&ici, NULL, &b->instance));
    uint32_t count = 0;
    VK_CHECK(vkEnumeratePhysicalDevices(b->instance, &count, NULL));
    VkPhysicalDevice *devices = calloc(count ? count : 1, sizeof *devices);
    if (!devices) {
        die("out of memory");
    }
    VK_CHECK(vkEnumeratePhysicalDevices(b->instance, &count, devices));
    for (uint32_t d = 0; d < count && !b->physical; d++) {
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, NULL);
        VkQueueFamilyProperties *fp = calloc(families ? families : 1, sizeof *fp);
        if (!fp) {
            die("out of memory");
        }
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, fp);
        for (uint32_t f = 0; f < families; f++) {
            if (fp[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                b->physical = devices[d];
                b->family = f;
                b->valid_bits = fp[f].timestampValidBits;
                break;
            }
        }
        free(fp);
    }
    free(devices);
    if (!b->physical) {
        die("no Vulkan device with a compute queue");
    }
    vkGetPhysicalDeviceProperties(b->physical, &b->props);
    if (!b->valid_bits || b->props.limits.timestampPeriod <= 0.0f) {
        fprintf(stderr, "vk_timestamp_cost: skipped: %s has no timestamps on its compute queue\n", b->props.deviceName);
        exit(77);
    }
    VkPhysicalDeviceVulkan12Features have12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have12};
    if (b->props.apiVersion >= VK_API_VERSION_1_2) {
        vkGetPhysicalDeviceFeatures2(b->physical, &have);
    }
    if (b->props.apiVersion < VK_API_VERSION_1_2 || !have12.hostQueryReset) {
        fprintf(stderr, "vk_timestamp_cost: skipped: %s has no Vulkan 1.2 hostQueryReset\n", b->props.deviceName);
        exit(77);
    }
    VkPhysicalDeviceVulkan12Features want12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                               .hostQueryReset = VK_TRUE};
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = b->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &want12,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qi};
    VK_CHECK(vkCreateDevice(b->physical, &dci, NULL, &b->device));
    vkGetDeviceQueue(b->device, b->family, 0, &b->queue);
}

/* The kernel's buffer (device-local where there is such memory), its descriptor set and the
 * pipeline. */
static void create_pipeline(bench *b)
{
    VkDeviceSize size = (VkDeviceSize)b->groups * LOCAL_SIZE * sizeof(float);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_CHECK(vkCreateBuffer(b->device, &bi, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(b->device, b->buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(b->physical, &mem);
    uint32_t type = UINT32_MAX;
    for (int pass = 0; pass < 2 && type == UINT32_MAX; pass++) {
        for (uint32_t t = 0; t < mem.memoryTypeCount && type == UINT32_MAX; t++) {
            bool local = mem.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
            if ((req.memoryTypeBits & (1u << t)) && (local || pass == 1)) {
                type = t;
            }
        }
    }
    if (type == UINT32_MAX) {
        die("no memory type for the buffer");
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VK_CHECK(vkAllocateMemory(b->device, &ai, NULL, &b->memory));
    VK_CHECK(vkBindBufferMemory(b->device, b->buffer, b->memory, 0));

    VkDescriptorSetLayoutBinding storage = {.binding = 0,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            .descriptorCount = 1,
                                            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 1,
                                          .pBindings = &storage};
    VK_CHECK(vkCreateDescriptorSetLayout(b->device, &li, NULL, &b->set_layout));
    VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
    VK_CHECK(vkCreateDescriptorPool(b->device, &pi, NULL, &b->descriptor_pool));
    VkDescriptorSetAllocateInfo si = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = b->descriptor_pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &b->set_layout};
    VK_CHECK(vkAllocateDescriptorSets(b->device, &si, &b->set));
    VkDescriptorBufferInfo dbi = {.buffer = b->buffer, .offset = 0, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                              .dstSet = b->set,
                              .dstBinding = 0,
                              .descriptorCount = 1,
                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              .pBufferInfo = &dbi};
    vkUpdateDescriptorSets(b->device, 1, &w, 0, NULL);
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &b->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &range};
    VK_CHECK(vkCreatePipelineLayout(b->device, &pl, NULL, &b->layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = sizeof spv_timestamp_kernel,
                                   .pCode = spv_timestamp_kernel};
    VK_CHECK(vkCreateShaderModule(b->device, &mi, NULL, &b->module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = b->module,
                  .pName = "main"},
        .layout = b->layout};
    VK_CHECK(vkCreateComputePipelines(b->device, VK_NULL_HANDLE, 1, &ci, NULL, &b->pipeline));
}

static void barrier(const bench *b, VkCommandBuffer cb)
{
    VkBufferMemoryBarrier m = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .buffer = b->buffer,
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
    VK_CHECK(vkCreateQueryPool(b->device, &qi, NULL, &b->queries[v]));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = b->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VK_CHECK(vkAllocateCommandBuffers(b->device, &ai, &b->cb[v]));
    VkCommandBuffer cb = b->cb[v];
    VkQueryPool q = b->queries[v];
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cb, &bi));
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->layout, 0, 1, &b->set, 0, NULL);
    vkCmdPushConstants(cb, b->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof b->loops, &b->loops);
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
    VK_CHECK(vkEndCommandBuffer(cb));
    if (next != b->query_count[v]) {
        die("variant %s wrote %u timestamps, expected %u", variant_names[v], next, b->query_count[v]);
    }
}

/* Runs variant v once; its GPU time per step in microseconds. */
static double run_variant(bench *b, variant v)
{
    vkResetQueryPool(b->device, b->queries[v], 0, b->query_count[v]);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cb[v]};
    VK_CHECK(vkQueueSubmit(b->queue, 1, &si, b->fence));
    VK_CHECK(vkWaitForFences(b->device, 1, &b->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(b->device, 1, &b->fence));
    uint64_t t[2];
    VK_CHECK(vkGetQueryPoolResults(b->device, b->queries[v], 0, 2, sizeof t, t, sizeof t[0],
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    uint64_t mask = b->valid_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << b->valid_bits) - 1;
    uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask;
    return (double)ticks * (double)b->props.limits.timestampPeriod / 1000.0 / (double)b->steps;
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
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = b.family};
    VK_CHECK(vkCreateCommandPool(b.device, &pci, NULL, &b.pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(b.device, &fci, NULL, &b.fence));
    /* The buffer's first contents: zeros, set once (the kernel's loop stays finite from there). */
    {
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = b.pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VkCommandBuffer cb;
        VK_CHECK(vkAllocateCommandBuffers(b.device, &ai, &cb));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        VK_CHECK(vkBeginCommandBuffer(cb, &bi));
        vkCmdFillBuffer(cb, b.buffer, 0, VK_WHOLE_SIZE, 0);
        VkMemoryBarrier filled = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &filled, 0,
                             NULL, 0, NULL);
        VK_CHECK(vkEndCommandBuffer(cb));
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
        VK_CHECK(vkQueueSubmit(b.queue, 1, &si, b.fence));
        VK_CHECK(vkWaitForFences(b.device, 1, &b.fence, VK_TRUE, UINT64_MAX));
        VK_CHECK(vkResetFences(b.device, 1, &b.fence));
        vkFreeCommandBuffers(b.device, b.pool, 1, &cb);
    }
    for (int v = 0; v < VARIANTS; v++) {
        record_variant(&b, (variant)v);
    }

    fprintf(stderr, "vk_timestamp_cost: %s, %u rounds of %u steps of %d dispatches (%u workgroups of %d, %u loops), "
                    "timestamps at %s\n",
            b.props.deviceName, rounds, b.steps, DISPATCHES, b.groups, LOCAL_SIZE, b.loops, stage_name);
    double *us = calloc((size_t)rounds * VARIANTS, sizeof *us);
    double *sorted = calloc(rounds, sizeof *sorted);
    if (!us || !sorted) {
        die("out of memory");
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
           b.props.deviceName, b.props.driverVersion, VK_API_VERSION_MAJOR(b.props.apiVersion),
           VK_API_VERSION_MINOR(b.props.apiVersion), VK_API_VERSION_PATCH(b.props.apiVersion),
           (double)b.props.limits.timestampPeriod, b.valid_bits, rounds, b.steps, DISPATCHES, b.groups, LOCAL_SIZE,
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
        vkDestroyQueryPool(b.device, b.queries[v], NULL);
    }
    vkDestroyFence(b.device, b.fence, NULL);
    vkDestroyCommandPool(b.device, b.pool, NULL);
    vkDestroyPipeline(b.device, b.pipeline, NULL);
    vkDestroyShaderModule(b.device, b.module, NULL);
    vkDestroyPipelineLayout(b.device, b.layout, NULL);
    vkDestroyDescriptorPool(b.device, b.descriptor_pool, NULL);
    vkDestroyDescriptorSetLayout(b.device, b.set_layout, NULL);
    vkDestroyBuffer(b.device, b.buffer, NULL);
    vkFreeMemory(b.device, b.memory, NULL);
    vkDestroyDevice(b.device, NULL);
    vkDestroyInstance(b.instance, NULL);
    return fflush(stdout) == 0 ? 0 : 1;
}
