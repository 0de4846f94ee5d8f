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
 * Usage: vk_record_cost [ROUNDS] [--dispatches N] [--buffers B]
 *   ROUNDS 21; --dispatches 20000 a round; --buffers 1 (N a multiple of B)
 * Prints one raw line per round on stderr, and one JSON object on stdout: the device, the
 * parameters, every round's ns per dispatch and their median. Exit 1 on a Vulkan error.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "bench_util.h"
#include "vk_timestamp_kernel.spv.h"

enum { LOCAL_SIZE = 64, MAX_BUFFERS = 1000 };

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vk_record_cost: ", stderr);
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
    uint32_t family;
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
    VkCommandBuffer *cbs;
    unsigned dispatches, buffers;
    uint32_t loops;
} bench;

static void create_device(bench *b)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "vk_record_cost",
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
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = b->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi};
    VK_CHECK(vkCreateDevice(b->physical, &dci, NULL, &b->device));
    vkGetDeviceQueue(b->device, b->family, 0, &b->queue);
}

/* One workgroup's buffer (host-visible memory is fine: only recording is timed), its set and the
 * pipeline. */
static void create_pipeline(bench *b)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = LOCAL_SIZE * sizeof(float),
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_CHECK(vkCreateBuffer(b->device, &bi, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(b->device, b->buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(b->physical, &mem);
    uint32_t type = UINT32_MAX;
    for (uint32_t t = 0; t < mem.memoryTypeCount && type == UINT32_MAX; t++) {
        if (req.memoryTypeBits & (1u << t)) {
            type = t;
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

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One round: the recording timed, then its execution and the buffers' reset untimed. Its ns per
 * dispatch. */
static double run_round(bench *b)
{
    unsigned per_buffer = b->dispatches / b->buffers;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    uint64_t t0 = now_ns();
    for (unsigned k = 0; k < b->buffers; k++) {
        VkCommandBuffer cb = b->cbs[k];
        VK_CHECK(vkBeginCommandBuffer(cb, &bi));
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->pipeline);
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->layout, 0, 1, &b->set, 0, NULL);
        vkCmdPushConstants(cb, b->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof b->loops, &b->loops);
        for (unsigned i = 0; i < per_buffer; i++) {
            vkCmdDispatch(cb, 1, 1, 1);
        }
        VK_CHECK(vkEndCommandBuffer(cb));
    }
    uint64_t t1 = now_ns();
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = b->buffers, .pCommandBuffers = b->cbs};
    VK_CHECK(vkQueueSubmit(b->queue, 1, &si, b->fence));
    VK_CHECK(vkWaitForFences(b->device, 1, &b->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(b->device, 1, &b->fence));
    for (unsigned k = 0; k < b->buffers; k++) {
        VK_CHECK(vkResetCommandBuffer(b->cbs[k], 0));
    }
    return (double)(t1 - t0) / (double)b->dispatches;
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
    for (int i = 1; i < argc && argv[i]; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--dispatches") == 0 && v) {
            b.dispatches = parse_count(a, v, 10000000);
        } else if (strcmp(a, "--buffers") == 0 && v) {
            b.buffers = parse_count(a, v, MAX_BUFFERS);
        } else if (a[0] != '-' && i == 1) {
            rounds = parse_count("ROUNDS", a, 100000);
            continue;
        } else {
            fprintf(stderr, "usage: vk_record_cost [ROUNDS] [--dispatches N] [--buffers B]\n");
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
                                   .queueFamilyIndex = b.family};
    VK_CHECK(vkCreateCommandPool(b.device, &pci, NULL, &b.pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(b.device, &fci, NULL, &b.fence));
    b.cbs = calloc(b.buffers, sizeof *b.cbs);
    double *ns = calloc(rounds, sizeof *ns);
    double *sorted = calloc(rounds, sizeof *sorted);
    if (!b.cbs || !ns || !sorted) {
        die("out of memory");
    }
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = b.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = b.buffers};
    VK_CHECK(vkAllocateCommandBuffers(b.device, &ai, b.cbs));

    fprintf(stderr, "vk_record_cost: %s, %u rounds of %u dispatches in %u command buffer(s)\n", b.props.deviceName,
            rounds, b.dispatches, b.buffers);
    run_round(&b); /* warm-up */
    for (unsigned r = 0; r < rounds; r++) {
        ns[r] = run_round(&b);
        sorted[r] = ns[r];
        fprintf(stderr, "round %u ns/dispatch %.2f\n", r, ns[r]);
    }
    printf("{\"benchmark\": \"vk_record_cost\", \"device\": \"%s\", \"driver_version\": %u, \"rounds\": %u, "
           "\"dispatches\": %u, \"buffers\": %u, \"ns_per_dispatch\": [",
           b.props.deviceName, b.props.driverVersion, rounds, b.dispatches, b.buffers);
    for (unsigned r = 0; r < rounds; r++) {
        printf("%s%.2f", r ? ", " : "", ns[r]);
    }
    printf("], \"median_ns_per_dispatch\": %.2f}\n", bench_median(sorted, (int)rounds));
    free(sorted);
    free(ns);

    vkFreeCommandBuffers(b.device, b.pool, b.buffers, b.cbs);
    free(b.cbs);
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
