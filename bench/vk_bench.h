/*
 * What the raw Vulkan benchmarks (vk_timestamp_cost, vk_record_cost) share: an instance and the
 * first device with a compute queue, the device made on it, and one kernel with its storage
 * buffer, descriptor set and a 4-byte push constant. Nothing of wgprof and no WebGPU. Any Vulkan
 * error ends the program with exit 1, its message naming the program.
 */
#ifndef WGPROF_VK_BENCH_H
#define WGPROF_VK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

typedef struct vk_bench {
    const char *program; /* for messages */
    VkInstance instance;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    uint32_t family, valid_bits; /* the compute queue family and its timestampValidBits */
    VkDevice device;
    VkQueue queue;
    /* the kernel */
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline pipeline;
} vk_bench;

/* Prints "PROGRAM: message" on stderr and exits 1. */
_Noreturn void vk_bench_die(const vk_bench *v, const char *fmt, ...);

#define VK_CHECK(v, call)                                                                                    \
    do {                                                                                                     \
        VkResult r_ = (call);                                                                                \
        if (r_ != VK_SUCCESS) {                                                                              \
            vk_bench_die((v), "%s failed: VkResult %d", #call, (int)r_);                                     \
        }                                                                                                    \
    } while (0)

/* The instance (Vulkan 1.2, named `program`) and the first device with a compute queue: physical,
 * props, family and valid_bits. */
void vk_bench_open(vk_bench *v, const char *program);
/* The device, with `next` chained on its create info (NULL for none), and its compute queue. */
void vk_bench_create_device(vk_bench *v, const void *next);
/* The kernel: a storage buffer of `size` bytes with `usage` (device-local memory where
 * `device_local` and the device has it, else the first type that fits), bound at set 0 binding
 * 0, and the compute pipeline of `code` (`bytes` of SPIR-V, entry "main"). */
void vk_bench_create_kernel(vk_bench *v, VkDeviceSize size, VkBufferUsageFlags usage, bool device_local,
                            const uint32_t *code, size_t bytes);
/* Everything above destroyed, after the program's own objects. */
void vk_bench_close(vk_bench *v);

#endif
