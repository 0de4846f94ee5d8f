/* The Vulkan setup the raw Vulkan benchmarks share (vk_bench.h). */
#include "vk_bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void vk_bench_die(const vk_bench *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", v->program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void vk_bench_open(vk_bench *v, const char *program)
{
    v->program = program;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = program,
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VK_CHECK(v, vkCreateInstance(&ici, NULL, &v->instance));
    uint32_t count = 0;
    VK_CHECK(v, vkEnumeratePhysicalDevices(v->instance, &count, NULL));
    VkPhysicalDevice *devices = calloc(count ? count : 1, sizeof *devices);
    if (!devices) {
        vk_bench_die(v, "out of memory");
    }
    VK_CHECK(v, vkEnumeratePhysicalDevices(v->instance, &count, devices));
    for (uint32_t d = 0; d < count && !v->physical; d++) {
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, NULL);
        VkQueueFamilyProperties *fp = calloc(families ? families : 1, sizeof *fp);
        if (!fp) {
            vk_bench_die(v, "out of memory");
        }
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, fp);
        for (uint32_t f = 0; f < families; f++) {
            if (fp[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                v->physical = devices[d];
                v->family = f;
                v->valid_bits = fp[f].timestampValidBits;
                break;
            }
        }
        free(fp);
    }
    free(devices);
    if (!v->physical) {
        vk_bench_die(v, "no Vulkan device with a compute queue");
    }
    vkGetPhysicalDeviceProperties(v->physical, &v->props);
}

void vk_bench_create_device(vk_bench *v, const void *next)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = v->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = next,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qi};
    VK_CHECK(v, vkCreateDevice(v->physical, &dci, NULL, &v->device));
    vkGetDeviceQueue(v->device, v->family, 0, &v->queue);
}

/* The buffer's memory: device-local where asked and there is such a type, else the first that
 * fits. */
static void bind_memory(vk_bench *v, bool device_local)
{
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(v->device, v->buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(v->physical, &mem);
    uint32_t type = UINT32_MAX;
    for (int pass = device_local ? 0 : 1; pass < 2 && type == UINT32_MAX; pass++) {
        for (uint32_t t = 0; t < mem.memoryTypeCount && type == UINT32_MAX; t++) {
            bool local = mem.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
            if ((req.memoryTypeBits & (1u << t)) && (local || pass == 1)) {
                type = t;
            }
        }
    }
    if (type == UINT32_MAX) {
        vk_bench_die(v, "no memory type for the buffer");
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VK_CHECK(v, vkAllocateMemory(v->device, &ai, NULL, &v->memory));
    VK_CHECK(v, vkBindBufferMemory(v->device, v->buffer, v->memory, 0));
}

void vk_bench_create_kernel(vk_bench *v, VkDeviceSize size, VkBufferUsageFlags usage, bool device_local,
                            const uint32_t *code, size_t bytes)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_CHECK(v, vkCreateBuffer(v->device, &bi, NULL, &v->buffer));
    bind_memory(v, device_local);

    VkDescriptorSetLayoutBinding storage = {.binding = 0,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            .descriptorCount = 1,
                                            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 1,
                                          .pBindings = &storage};
    VK_CHECK(v, vkCreateDescriptorSetLayout(v->device, &li, NULL, &v->set_layout));
    VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
    VK_CHECK(v, vkCreateDescriptorPool(v->device, &pi, NULL, &v->descriptor_pool));
    VkDescriptorSetAllocateInfo si = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = v->descriptor_pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &v->set_layout};
    VK_CHECK(v, vkAllocateDescriptorSets(v->device, &si, &v->set));
    VkDescriptorBufferInfo dbi = {.buffer = v->buffer, .offset = 0, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                              .dstSet = v->set,
                              .dstBinding = 0,
                              .descriptorCount = 1,
                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              .pBufferInfo = &dbi};
    vkUpdateDescriptorSets(v->device, 1, &w, 0, NULL);
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &v->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &range};
    VK_CHECK(v, vkCreatePipelineLayout(v->device, &pl, NULL, &v->layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = bytes, .pCode = code};
    VK_CHECK(v, vkCreateShaderModule(v->device, &mi, NULL, &v->module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = v->module,
                  .pName = "main"},
        .layout = v->layout};
    VK_CHECK(v, vkCreateComputePipelines(v->device, VK_NULL_HANDLE, 1, &ci, NULL, &v->pipeline));
}

void vk_bench_close(vk_bench *v)
{
    vkDestroyPipeline(v->device, v->pipeline, NULL);
    vkDestroyShaderModule(v->device, v->module, NULL);
    vkDestroyPipelineLayout(v->device, v->layout, NULL);
    vkDestroyDescriptorPool(v->device, v->descriptor_pool, NULL);
    vkDestroyDescriptorSetLayout(v->device, v->set_layout, NULL);
    vkDestroyBuffer(v->device, v->buffer, NULL);
    vkFreeMemory(v->device, v->memory, NULL);
    vkDestroyDevice(v->device, NULL);
    vkDestroyInstance(v->instance, NULL);
}
