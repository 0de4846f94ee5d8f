/*
 * wgprof's Vulkan layer, inside. It stands between a program (or the WebGPU implementation
 * compiled into it) and the Vulkan driver, and times each compute dispatch with timestamps of
 * its own: before each vkCmdDispatch* of a command buffer, before each run of its transfer work
 * (copies, blits, buffer updates and fills, image clears, query copies) between two dispatches
 * or before the first, and once after the last (the chain: a row's time runs from the end of
 * the work before it to its own end). Where a batch of a submit holds several primary command
 * buffers (an implementation that records one a pass), their chains are one (the default;
 * WGPROF_LAYER_CHAIN_ENV=command-buffer ends each at its own, layer.h): the last row of each
 * ends at the next one's first timestamp, and the batch's at a tail, a command buffer of the
 * layer's added after it (layer_submit.c). A run of transfer work is a row of its own, named by the
 * kinds it held in record's words ("(copy)", "(copy, clear)"), so that no dispatch's time holds
 * it; render-pass work is not told apart (it falls in the row it lies in), and the layer writes
 * no timestamp inside a render pass, where none of these commands may be. Debug labels
 * (vkCmdBeginDebugUtilsLabelEXT/End) become the scopes of the rows recorded inside them, within
 * their command buffer: an end the buffer did not begin is left out, one left open closes at
 * the buffer's end; a label with no name is no scope. On a device record's preload library
 * left to the layer, the scopes are the program's pass labels and debug groups that library
 * tells it dispatch by dispatch (record.h, RECORD_SYMBOL_DISPATCH_SCOPES) instead, and the
 * pipelines' names those it tells as they are made. The timestamps are written into query pools the layer owns, reset from the
 * host where the device allows it (hostQueryReset, enabled at device creation where the program
 * did not say otherwise), else by one reset in the stream per block of queries. Results are read without waiting (vkGetQueryPoolResults with
 * availability) by the device's reader thread after the program's waits (at its next idle
 * moment: layer_queue.c), when a command buffer is used again, and at the device's end; they go into a wgprof pool fed from outside
 * (wgprof_pool_add_external, the labels as the batch's scopes) and are written into record's
 * results folder (record.h).
 *
 * Files, from the bottom: layer_map.c (handle maps), layer_spirv.c (entry points, workgroup
 * sizes and a hash from SPIR-V), layer_registry.c (the maps, the devices by dispatch key, the
 * settings), layer_output.c (the results folder), layer_blocks.c (query blocks),
 * layer_readback.c (the copy of the timestamps in a buffer of the layer's, where the device
 * reads from one), layer_copy.c (that copy read and cleared; with layer_map.c a library of its
 * own, wgprof_layer_parts, plain data that its unit test links), layer_tail.c (the tails), layer_cb.c (a command buffer's state: renewed for a
 * handle let go of unread, kept, given back), layer_queue.c (readback, the reader), layer_retire.c (the program's waits: what
 * is done), layer_submit.c (submits, chains across a batch), layer_commands.c (command buffers, pipelines, names, transfer work, labels),
 * layer_term.c (a SIGTERM: results written first), layer_dispatch.c (instances, devices, the
 * loader's interface: it hands out the others' hooks).
 *
 * Threads: a command buffer and its pool are used by one thread at a time (Vulkan's external
 * synchronization), so its state needs no lock. The maps have one mutex, held for an update (a
 * lookup takes none: layer_map.c); a device's mutex guards its free query blocks, the command
 * buffers in flight and its counts, and a second one its results. No lock is held while the
 * layer calls the driver.
 */
#ifndef WGPROF_LAYER_LIB_H
#define WGPROF_LAYER_LIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <wgprof/wgprof.h>

#include "common.h"
#include "layer_copy.h"
#include "layer_map.h"

#define WGPROF_LAYER_EXPORT __attribute__((visibility("default")))

/* VK_EXT_shader_object, declared here as the registry has it where the Vulkan headers predate it
 * (1.3.246): what the layer reads of a compute shader object. */
#ifndef VK_EXT_shader_object
typedef struct VkShaderEXT_T *VkShaderEXT; /* VK_DEFINE_NON_DISPATCHABLE_HANDLE on 64-bit targets */
typedef struct VkShaderCreateInfoEXT {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    VkShaderStageFlagBits stage;
    VkShaderStageFlags nextStage;
    int codeType; /* VkShaderCodeTypeEXT */
    size_t codeSize;
    const void *pCode;
    const char *pName;
    uint32_t setLayoutCount;
    const VkDescriptorSetLayout *pSetLayouts;
    uint32_t pushConstantRangeCount;
    const VkPushConstantRange *pPushConstantRanges;
    const VkSpecializationInfo *pSpecializationInfo;
} VkShaderCreateInfoEXT;
typedef VkResult(VKAPI_PTR *PFN_vkCreateShadersEXT)(VkDevice device, uint32_t count, const VkShaderCreateInfoEXT *infos,
                                                     const VkAllocationCallbacks *alloc, VkShaderEXT *shaders);
typedef void(VKAPI_PTR *PFN_vkDestroyShaderEXT)(VkDevice device, VkShaderEXT shader, const VkAllocationCallbacks *alloc);
typedef void(VKAPI_PTR *PFN_vkCmdBindShadersEXT)(VkCommandBuffer cb, uint32_t count, const VkShaderStageFlagBits *stages,
                                                  const VkShaderEXT *shaders);
#define VK_SHADER_CODE_TYPE_SPIRV_EXT 1
#define VK_OBJECT_TYPE_SHADER_EXT ((VkObjectType)1000482000)
#endif

/* ---- layer_map.c: layer_map.h ---- */

/* ---- layer_spirv.c ---- */

enum { WGPROF_LAYER_ENTRIES = 16, WGPROF_LAYER_NAME_CAP = 128 };
enum { WGPROF_LAYER_KERNEL_NAME_CAP = 4 * WGPROF_LAYER_NAME_CAP + 64 }; /* a kernel's name, as reported */

typedef struct wgprof_layer_entry {
    char name[WGPROF_LAYER_NAME_CAP];
    uint32_t local_size[3]; /* 0: not stated by a LocalSize mode */
} wgprof_layer_entry;

typedef struct wgprof_layer_module {
    char hash[CODE_HASH_NAME_CAP]; /* "spirv-xxxxxxxx" */
    char label[WGPROF_LAYER_NAME_CAP]; /* its debug-utils name, "" where none */
    uint32_t entry_count;
    wgprof_layer_entry entries[WGPROF_LAYER_ENTRIES]; /* its GLCompute entry points */
} wgprof_layer_module;

void wgprof_layer_spirv_read(const uint32_t *code, size_t bytes, wgprof_layer_module *out);
const wgprof_layer_entry *wgprof_layer_spirv_entry(const wgprof_layer_module *m, const char *name);

/* ---- layer_registry.c (types), layer_dispatch.c (hooks): instances and devices ---- */

typedef struct wgprof_layer_instance {
    VkInstance handle;
    uint32_t api_version;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
} wgprof_layer_instance;

enum { WGPROF_LAYER_BLOCK = 64, WGPROF_LAYER_POOL_QUERIES = 4096, WGPROF_LAYER_FAMILIES = 16, WGPROF_LAYER_QUEUES = 15 };
/* The sites a pipeline keeps, by workgroup counts (wgprof_layer_pipeline). */
enum { WGPROF_LAYER_SITES_KEPT = 8 };

/* A block of WGPROF_LAYER_BLOCK queries of one of the device's query pools; where the device
 * reads its results from a buffer of the layer's (layer_readback.c), that buffer and the block's
 * place in its mapping (a value and its availability a query), else VK_NULL_HANDLE and NULL. */
typedef struct wgprof_layer_block {
    VkQueryPool pool;
    uint32_t first;
    VkBuffer buffer;
    volatile uint64_t *copied;
} wgprof_layer_block;

typedef struct wgprof_layer_cb wgprof_layer_cb;

/* One of the layer's query pools, of WGPROF_LAYER_POOL_QUERIES timestamps; where the device
 * reads its results from a buffer (readback_buffer), the buffer that the command buffers copy
 * them into at their end, its memory and where that is mapped (else all VK_NULL_HANDLE, NULL). */
typedef struct wgprof_layer_query_pool {
    VkQueryPool pool;
    VkBuffer buffer;
    VkDeviceMemory memory;
    volatile uint64_t *mapped;
} wgprof_layer_query_pool;

/* A command buffer of the layer's own, recorded once: one timestamp (its block's query
 * `query`, reset in the stream before it where the device has no host reset). Added to a batch
 * of the program's after a command buffer whose chain is open (WGPROF_LAYER_CHAIN_ENV), it ends
 * that one's last row; free again once read (layer_tail.c). */
typedef struct wgprof_layer_tail {
    VkCommandBuffer handle;
    VkQueryPool pool;
    uint32_t query;
    VkBuffer buffer;           /* where its result is copied, and its place there, as a block's */
    volatile uint64_t *copied;
    uint32_t family;
    struct wgprof_layer_tail *next_free;
} wgprof_layer_tail;

/* The program's own transfer work, timed between its dispatches as rows of its own named by the
 * kinds each held, in record's words and order ("(copy)", "(copy, clear)"): a buffer fill is
 * WebGPU's clearBuffer, an inline buffer update its writeBuffer. Render-pass work is not among
 * them: the row before a render pass ends where it begins (WGPROF_LAYER_PASS_BEGINS). */
enum { WGPROF_LAYER_WORK_COPY, WGPROF_LAYER_WORK_CLEAR, WGPROF_LAYER_WORK_RESOLVE, WGPROF_LAYER_WORK_KINDS };

/* Each such command: X(command, kind, parameters, arguments). The hooks (layer_commands.c), the
 * next layer's functions (the device's) and the loader's table (layer_dispatch.c) come from it. */
#define WGPROF_LAYER_WORK_COMMANDS(X)                                                                              \
    X(CmdCopyBuffer, COPY, (VkCommandBuffer h, VkBuffer src, VkBuffer dst, uint32_t n, const VkBufferCopy *r),    \
      (h, src, dst, n, r))                                                                                       \
    X(CmdCopyBuffer2, COPY, (VkCommandBuffer h, const VkCopyBufferInfo2 *info), (h, info))                        \
    X(CmdCopyBuffer2KHR, COPY, (VkCommandBuffer h, const VkCopyBufferInfo2 *info), (h, info))                     \
    X(CmdCopyImage, COPY,                                                                                        \
      (VkCommandBuffer h, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,             \
       const VkImageCopy *r),                                                                                    \
      (h, src, sl, dst, dl, n, r))                                                                               \
    X(CmdCopyImage2, COPY, (VkCommandBuffer h, const VkCopyImageInfo2 *info), (h, info))                          \
    X(CmdCopyImage2KHR, COPY, (VkCommandBuffer h, const VkCopyImageInfo2 *info), (h, info))                       \
    X(CmdCopyBufferToImage, COPY,                                                                                \
      (VkCommandBuffer h, VkBuffer src, VkImage dst, VkImageLayout dl, uint32_t n, const VkBufferImageCopy *r),  \
      (h, src, dst, dl, n, r))                                                                                   \
    X(CmdCopyBufferToImage2, COPY, (VkCommandBuffer h, const VkCopyBufferToImageInfo2 *info), (h, info))          \
    X(CmdCopyBufferToImage2KHR, COPY, (VkCommandBuffer h, const VkCopyBufferToImageInfo2 *info), (h, info))       \
    X(CmdCopyImageToBuffer, COPY,                                                                                \
      (VkCommandBuffer h, VkImage src, VkImageLayout sl, VkBuffer dst, uint32_t n, const VkBufferImageCopy *r),  \
      (h, src, sl, dst, n, r))                                                                                   \
    X(CmdCopyImageToBuffer2, COPY, (VkCommandBuffer h, const VkCopyImageToBufferInfo2 *info), (h, info))          \
    X(CmdCopyImageToBuffer2KHR, COPY, (VkCommandBuffer h, const VkCopyImageToBufferInfo2 *info), (h, info))       \
    X(CmdBlitImage, COPY,                                                                                        \
      (VkCommandBuffer h, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,             \
       const VkImageBlit *r, VkFilter filter),                                                                   \
      (h, src, sl, dst, dl, n, r, filter))                                                                       \
    X(CmdBlitImage2, COPY, (VkCommandBuffer h, const VkBlitImageInfo2 *info), (h, info))                          \
    X(CmdBlitImage2KHR, COPY, (VkCommandBuffer h, const VkBlitImageInfo2 *info), (h, info))                       \
    X(CmdUpdateBuffer, COPY, (VkCommandBuffer h, VkBuffer dst, VkDeviceSize at, VkDeviceSize size, const void *data), \
      (h, dst, at, size, data))                                                                                  \
    X(CmdFillBuffer, CLEAR, (VkCommandBuffer h, VkBuffer dst, VkDeviceSize at, VkDeviceSize size, uint32_t data), \
      (h, dst, at, size, data))                                                                                  \
    X(CmdClearColorImage, CLEAR,                                                                                 \
      (VkCommandBuffer h, VkImage image, VkImageLayout layout, const VkClearColorValue *color, uint32_t n,       \
       const VkImageSubresourceRange *ranges),                                                                   \
      (h, image, layout, color, n, ranges))                                                                      \
    X(CmdClearDepthStencilImage, CLEAR,                                                                          \
      (VkCommandBuffer h, VkImage image, VkImageLayout layout, const VkClearDepthStencilValue *value, uint32_t n, \
       const VkImageSubresourceRange *ranges),                                                                   \
      (h, image, layout, value, n, ranges))                                                                      \
    X(CmdCopyQueryPoolResults, RESOLVE,                                                                          \
      (VkCommandBuffer h, VkQueryPool pool, uint32_t first, uint32_t n, VkBuffer dst, VkDeviceSize at,           \
       VkDeviceSize stride, VkQueryResultFlags flags),                                                           \
      (h, pool, first, n, dst, at, stride, flags))

#define WGPROF_LAYER_WORK_NEXT(command, kind, params, args) PFN_vk##command command;

/* The commands that begin a render pass instance: the row before ends there with a gap (its
 * timestamp outside the instance, where a reset of a fresh block may be recorded), so that no
 * dispatch's row holds the drawing that follows it. X(command, parameters, arguments), as
 * above. */
#define WGPROF_LAYER_PASS_BEGINS(X)                                                                                \
    X(CmdBeginRenderPass, (VkCommandBuffer h, const VkRenderPassBeginInfo *info, VkSubpassContents contents),      \
      (h, info, contents))                                                                                       \
    X(CmdBeginRenderPass2,                                                                                       \
      (VkCommandBuffer h, const VkRenderPassBeginInfo *info, const VkSubpassBeginInfo *subpass), (h, info, subpass)) \
    X(CmdBeginRenderPass2KHR,                                                                                    \
      (VkCommandBuffer h, const VkRenderPassBeginInfo *info, const VkSubpassBeginInfo *subpass), (h, info, subpass)) \
    X(CmdBeginRendering, (VkCommandBuffer h, const VkRenderingInfo *info), (h, info))                              \
    X(CmdBeginRenderingKHR, (VkCommandBuffer h, const VkRenderingInfo *info), (h, info))

#define WGPROF_LAYER_PASS_NEXT(command, params, args) PFN_vk##command command;

/* The states a device keeps for renewals, so that a program that resets its pools after each
 * wait (wgpu-native) allocates nothing a step. */
enum { WGPROF_LAYER_SPARES_KEPT = 256 };

typedef struct wgprof_layer_device {
    VkDevice handle;
    VkPhysicalDevice physical;
    wgprof_layer_instance *instance;
    PFN_vkGetDeviceProcAddr gdpa;
    /* The next layer's (or the driver's) functions. */
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkCreateQueryPool CreateQueryPool;
    PFN_vkDestroyQueryPool DestroyQueryPool;
    PFN_vkResetQueryPool ResetQueryPool; /* NULL: resets in the stream */
    PFN_vkGetQueryPoolResults GetQueryPoolResults;
    PFN_vkCmdWriteTimestamp CmdWriteTimestamp;
    PFN_vkCmdResetQueryPool CmdResetQueryPool;
    PFN_vkCmdPipelineBarrier CmdPipelineBarrier;
    PFN_vkCreateBuffer CreateBuffer;
    PFN_vkDestroyBuffer DestroyBuffer;
    PFN_vkGetBufferMemoryRequirements GetBufferMemoryRequirements;
    PFN_vkAllocateMemory AllocateMemory;
    PFN_vkFreeMemory FreeMemory;
    PFN_vkBindBufferMemory BindBufferMemory;
    PFN_vkMapMemory MapMemory;
    PFN_vkCmdDispatch CmdDispatch;
    PFN_vkCmdDispatchBase CmdDispatchBase;
    PFN_vkCmdDispatchIndirect CmdDispatchIndirect;
    PFN_vkCmdBindPipeline CmdBindPipeline;
    PFN_vkCreateShadersEXT CreateShadersEXT;
    PFN_vkDestroyShaderEXT DestroyShaderEXT;
    PFN_vkCmdBindShadersEXT CmdBindShadersEXT;
    PFN_vkCmdExecuteCommands CmdExecuteCommands;
    PFN_vkCmdBeginDebugUtilsLabelEXT CmdBeginDebugUtilsLabelEXT;
    PFN_vkCmdEndDebugUtilsLabelEXT CmdEndDebugUtilsLabelEXT;
    WGPROF_LAYER_WORK_COMMANDS(WGPROF_LAYER_WORK_NEXT)
    WGPROF_LAYER_PASS_BEGINS(WGPROF_LAYER_PASS_NEXT)
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkEndCommandBuffer EndCommandBuffer;
    PFN_vkResetCommandBuffer ResetCommandBuffer;
    PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
    PFN_vkFreeCommandBuffers FreeCommandBuffers;
    PFN_vkCreateCommandPool CreateCommandPool;
    PFN_vkDestroyCommandPool DestroyCommandPool;
    PFN_vkResetCommandPool ResetCommandPool;
    PFN_vkCreateShaderModule CreateShaderModule;
    PFN_vkDestroyShaderModule DestroyShaderModule;
    PFN_vkCreateComputePipelines CreateComputePipelines;
    PFN_vkDestroyPipeline DestroyPipeline;
    PFN_vkSetDebugUtilsObjectNameEXT SetDebugUtilsObjectNameEXT;
    PFN_vkQueueSubmit QueueSubmit;
    PFN_vkQueueSubmit2 QueueSubmit2;
    PFN_vkQueueSubmit2 QueueSubmit2KHR;
    PFN_vkQueueWaitIdle QueueWaitIdle;
    PFN_vkDeviceWaitIdle DeviceWaitIdle;
    PFN_vkWaitForFences WaitForFences;
    PFN_vkGetFenceStatus GetFenceStatus;
    PFN_vkDestroyFence DestroyFence;
    PFN_vkDestroySemaphore DestroySemaphore;
    PFN_vkWaitSemaphores WaitSemaphores;
    PFN_vkWaitSemaphores WaitSemaphoresKHR;
    PFN_vkGetSemaphoreCounterValue GetSemaphoreCounterValue;
    PFN_vkGetSemaphoreCounterValue GetSemaphoreCounterValueKHR;
    PFN_vkSetDeviceLoaderData set_loader_data; /* the loader's, for the layer's own command buffers */

    double period_ns;
    uint32_t valid_bits[WGPROF_LAYER_FAMILIES]; /* per queue family; 0: none there, or fewer than pool_bits */
    uint32_t pool_bits; /* the widest of a family that can dispatch, for every batch (a pool has one width) */
    /* The queue families (bit per family) where the program's transfer work is timed: all with
     * host resets, else those with compute or graphics, where a query reset may be recorded
     * (a transfer-only queue takes no vkCmdResetQueryPool). */
    uint32_t work_families;
    /* Primary command buffers are recorded with their chain open (WGPROF_LAYER_CHAIN_ENV) while
     * the device's last batch of timed work held two command buffers or more (wgpu-native's
     * passes): closed, as alone, where each batch holds one (Dawn's), so that no batch pays for
     * a command buffer of the layer's. Never on a device of several GPUs (a device group). */
    atomic_bool chain_open;
    bool chain_never;
    unsigned index; /* N of PID.N */
    wgprof_device_info info;

    /* The results' own lock: its sites, added as the program records (a kernel new to the
     * command buffer), its records, added by the readers, the snapshots' copies. Never held
     * with `lock`. */
    pthread_mutex_t results_lock;
    pthread_mutex_t lock;         /* what follows but the results */
    pthread_cond_t read_done;     /* a command buffer's reading ended */
    wgprof_layer_block *free_blocks;
    size_t free_count, free_cap;
    wgprof_layer_query_pool *query_pools;
    size_t query_pool_count;
    /* Its results read from buffers of the layer's, not from its query pools
     * (WGPROF_LAYER_READBACK_ENV, layer.h; layer_readback.c), and the memory types to have them. */
    bool readback_buffer;
    VkPhysicalDeviceMemoryProperties memory;
    /* Its results may be read on any thread beside the program's submits: from the layer's
     * buffer, or from the query pools of a device that is not a CPU's (lavapipe's reading waits
     * for the whole device). Else a command buffer let go of unread is read on the program's
     * thread (wgprof_layer_orphan). */
    bool read_anywhere;
    wgprof_layer_tail *free_tails; /* the layer's own command buffers, free (layer_tail.c) */
    struct wgprof_layer_tails *tail_sets; /* every one made, for the device's end */
    /* What the program's waits say is done (layer_retire.c): submits numbered, per queue the
     * last retired, every one up to `retired_all` (the device idle); each fence's last submit,
     * each semaphore's signals, until the program destroys it. */
    uint64_t submit_seq, retired_all;
    struct {
        VkQueue queue;
        uint64_t retired;
    } queues[WGPROF_LAYER_QUEUES];
    uint32_t queue_count;
    wgprof_layer_map fences, signals;
    wgprof_layer_cb **in_flight;  /* submitted, results not read: the first of each chain */
    wgprof_layer_cb *orphans_read; /* let go of by the program, read since: to be freed (layer_queue.c) */
    /* States read and let go of, made as new by the reader, kept for renewals (layer_cb.c): an
     * array, so that taking a batch of them walks no memory another thread wrote last; under a
     * mutex of their own, not the device's, which the reader holds while it takes its work. */
    pthread_mutex_t spares_lock;
    wgprof_layer_cb *spares[WGPROF_LAYER_SPARES_KEPT];
    size_t spare_count;
    size_t in_flight_count, in_flight_cap;
    wgprof_pool *results;         /* fed by wgprof_pool_add_external: guarded by results_lock */
    /* Counted without the lock: dispatches, and those not timed by why (layer_untimed). */
    _Atomic uint64_t dispatches, untimed_sampled, untimed_simultaneous, untimed_no_timestamps;
    uint64_t dropped;
    _Atomic uint64_t begun;       /* command buffers begun, for --sample-every */
    /* Its end (layer_dispatch.c, `finish`): begun by one thread (the program's vkDestroyDevice,
     * its exit, or a SIGTERM's: layer_term.c); the final results written, which another caller
     * waits for (`final_written`, `final_cond`). */
    bool finished, final_written;
    pthread_cond_t final_cond;
    /* Walks of the devices (wgprof_layer_devices_each) holding it: vkDestroyDevice frees it only
     * once none does. */
    _Atomic unsigned walkers;
    bool unsaved;                 /* results read since the last snapshot */
    uint64_t snapshot_ns;         /* when the last snapshot was written (wgprof_cpu_now_ns); 0: none yet */
    uint64_t snapshot_cost_ns;    /* how long writing it took */
    bool snapshot_busy;           /* one is being written */
    /* The reader: wgprof's own thread, which reads what the program submitted and writes the
     * snapshots, so that a submit only appends (layer_queue.c). */
    pthread_cond_t reader_wake;   /* signalled by the program's idle moments and by the device's end */
    pthread_t reader;
    long reader_pid;              /* the process it runs in (0: none started) */
    bool reader_due;              /* to read now */
    bool reader_stop;
    bool reader_sleeping;         /* waiting with nothing owed, for as long as it takes */
    /* A wait of the program's said that work is done (or the program let go of command buffers
     * unread): a read is owed, done at the program's next idle moment (wgprof_layer_idle) or
     * within the reader's period, so that its driver calls do not meet the program's recording.
     * Set under the device's lock, taken without it. */
    atomic_bool read_owed;
    long pid;                     /* the process that made it: a child of fork() has a copy, not the device */
    bool left_by_preload;         /* record's preload library left it to the layer: its pipelines'
                                     names and its scopes come from that library (record.h) */
    atomic_bool unwritten_said;   /* a file of its results could not be written, and that was said */
    atomic_bool readback_failed_said; /* no buffer could be had for its copies, and that was said */
} wgprof_layer_device;

/* What the layer knows of a dispatchable handle's owner (the loader's dispatch key): a device
 * for a VkDevice, VkQueue or VkCommandBuffer, an instance for a VkInstance or VkPhysicalDevice. */
wgprof_layer_device *wgprof_layer_device_of(const void *dispatchable);
wgprof_layer_instance *wgprof_layer_instance_of(const void *dispatchable);
bool wgprof_layer_device_put(wgprof_layer_device *d);     /* false: out of memory */
bool wgprof_layer_instance_put(wgprof_layer_instance *i);
wgprof_layer_device *wgprof_layer_device_take(const void *dispatchable);
wgprof_layer_instance *wgprof_layer_instance_take(const void *dispatchable);
/* Every live device, for the exit: each held (its `walkers`) until `fn` returns, so that a
 * vkDestroyDevice meanwhile waits to free it (wgprof_layer_device_unwalked). */
void wgprof_layer_devices_each(void (*fn)(wgprof_layer_device *d));
/* Waits until no walk holds `d`, taken out of the devices already. */
void wgprof_layer_device_unwalked(wgprof_layer_device *d);

/* From the first device on (layer_term.c): a thread of the layer's runs `finish_all` (every
 * device's results written, as at exit) at a SIGTERM, where SIGTERM has its default action, then
 * ends the process by it as the default action would; and at the program's _exit or _Exit, where
 * record's preload library is loaded beside the layer, before the process ends. */
void wgprof_layer_term_watch(void (*finish_all)(void));
/* The settings the CLI passed (record.h): the results folder, its identity, sampling. */
typedef struct wgprof_layer_settings {
    char dir[4096];
    char dir_id[64];
    char formats[64]; /* the report formats asked for besides JSON and the table: "html,trace,csv" */
    uint32_t sample_every;
    bool sample_by_kernel; /* RECORD_ENV_SAMPLE_BY: each pipeline's dispatches sampled (else whole command buffers) */
    bool chain_per_cb;     /* WGPROF_LAYER_CHAIN_ENV=command-buffer (layer.h) */
    bool timestamps_only;  /* WGPROF_LAYER_TIMESTAMPS_ONLY_ENV=1: for measurement only (layer.h) */
    char readback[16];     /* WGPROF_LAYER_READBACK_ENV as given ("buffer", "query"; "" where unset: by device) */
} wgprof_layer_settings;
/* The settings as read once, at the first hook's call (layer_registry.c), before `read` is set:
 * every hook reads them inline, without a call. */
typedef struct wgprof_layer_settings_state {
    atomic_bool read;
    wgprof_layer_settings settings;
} wgprof_layer_settings_state;
extern wgprof_layer_settings_state wgprof_layer_settings_now;
/* The first read (once, whatever the threads); the settings after. */
const wgprof_layer_settings *wgprof_layer_settings_read(void);
static inline const wgprof_layer_settings *wgprof_layer_settings_get(void)
{
    if (__builtin_expect(!atomic_load_explicit(&wgprof_layer_settings_now.read, memory_order_acquire), 0)) {
        return wgprof_layer_settings_read();
    }
    return &wgprof_layer_settings_now.settings;
}
/* getpid(), without a system call after the first: renewed in a child of fork(). */
long wgprof_layer_pid(void);
void wgprof_layer_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The maps, updated behind one mutex, read without it (layer_registry.c). */
void wgprof_layer_lock(void);
void wgprof_layer_unlock(void);
extern wgprof_layer_map wgprof_layer_cbs;       /* VkCommandBuffer -> wgprof_layer_cb */
extern wgprof_layer_map wgprof_layer_pipelines; /* VkPipeline -> wgprof_layer_pipeline */
extern wgprof_layer_map wgprof_layer_shaders;   /* VkShaderEXT (compute) -> wgprof_layer_pipeline */
extern wgprof_layer_map wgprof_layer_modules;   /* VkShaderModule -> wgprof_layer_module */
extern wgprof_layer_map wgprof_layer_pools;     /* VkCommandPool -> wgprof_layer_pool */

/* A program's command pool: its queue family, and the handles of its command buffers that have
 * a state (each state knows its place, `pool_slot`), so that a reset or the pool's end finds
 * them without a walk through every command buffer of the process. Under the maps' mutex. */
typedef struct wgprof_layer_pool {
    const wgprof_layer_device *device;
    uint32_t family;
    VkCommandBuffer *cbs;
    uint32_t count, cap;
} wgprof_layer_pool;

/* The layer's state of a program's command buffer (NULL: none kept). */
wgprof_layer_cb *wgprof_layer_cb_of(VkCommandBuffer handle);

/* ---- layer_commands.c ---- */

typedef struct wgprof_layer_pipeline {
    char given[2 * WGPROF_LAYER_NAME_CAP]; /* the name record's preload library gave it (record.h), "" where none */
    const char *given_source;              /* where record's library took `given` from (static) */
    bool own;                              /* made by the implementation for its own work (record.h) */
    char entry[WGPROF_LAYER_NAME_CAP];
    char origin[WGPROF_LAYER_NAME_CAP];        /* the page's origin, where Chromium's Dawn put it in the
                                                  entry point's name ("" elsewhere) */
    char code[CODE_HASH_NAME_CAP];             /* the module's hash */
    char module_label[WGPROF_LAYER_NAME_CAP];
    char label[WGPROF_LAYER_NAME_CAP];         /* its debug-utils name */
    uint32_t local_size[3];
    _Atomic uint64_t sampled; /* its dispatches recorded so far, for --sample-every by kernel */
    /* The sites of its last dispatches timed with different workgroup counts (or direct and
     * indirect), so that the next with the same counts needs no name made and no lookup under the
     * results' lock: a kernel of a repeating step is dispatched with a few counts (four of the
     * demo's with two each, which one site kept missed every step); every command buffer's, of
     * any thread: guarded by `site_busy`, a spin held for a copy (no call made under it), and
     * forgotten where its name changes. The oldest is replaced first. */
    atomic_bool site_busy;
    struct {
        bool known, indirect;
        uint32_t counts[3];
        wgprof_site site;
    } sites[WGPROF_LAYER_SITES_KEPT];
    uint32_t site_next; /* the entry the next new site takes */
    /* And its kernel's name as last made (direct or indirect), with where the name came from,
     * so that a dispatch with other counts makes none (also under `site_busy`). */
    bool name_known, name_indirect;
    const char *name_source; /* static */
    char name[WGPROF_LAYER_KERNEL_NAME_CAP];
} wgprof_layer_pipeline;

/* A debug label's begin or end among a recording's rows. */
typedef struct wgprof_layer_mark {
    uint32_t before; /* the row it comes before */
    uint32_t name;   /* its name's offset in the recording's label text; UINT32_MAX: an end */
} wgprof_layer_mark;

struct wgprof_layer_cb {
    VkCommandBuffer handle;
    wgprof_layer_device *device;
    size_t pool_slot; /* its handle's place in its pool's record (wgprof_layer_pool) */
    uint32_t family;
    bool untimed;  /* this recording is not timed: untimed_count says why */
    _Atomic uint64_t *untimed_count; /* the device's count of the reason (sampling, simultaneous use,
                                       no timestamps) */
    bool work_timed; /* the program's transfer work is timed in it (its queue family allows) */
    bool timed_any; /* a timestamp was written in this recording */
    bool holds_untimed; /* a dispatch or transfer work recorded in it has no row of its own */
    bool broken;   /* a row got no site: the recording's rows are dropped at its end */
    wgprof_layer_pipeline *bound;
    /* The recording's blocks of queries, then `blocks_held` more kept clean (reset, their
     * copies cleared) for its next recordings, taken without the device's lock. */
    wgprof_layer_block *blocks;
    size_t block_count, block_cap, blocks_held;
    uint32_t ticks; /* timestamps written */
    wgprof_site *sites;
    size_t count, cap; /* rows timed: dispatches and runs of transfer work, and gaps */
    size_t gaps;       /* rows that are gaps (WGPROF_LAYER_GAP): no record's */
    /* The open run of transfer work: the kinds it holds (bit per kind; 0: none open), its row. */
    unsigned work_kinds;
    size_t work_row;
    /* The site of a run per set of kinds, once known (bit per set): the device's pool is never
     * reset, so they hold for every recording. */
    wgprof_site work_sites[1u << WGPROF_LAYER_WORK_KINDS];
    uint32_t work_sites_known;
    /* Debug labels: their begins and ends among the rows, the names they hold, the labels open
     * (closed at the recording's end); an end with none open is one begun in another buffer,
     * left out. Where one could not be kept, none of the recording's are. */
    wgprof_layer_mark *marks;
    size_t mark_count, mark_cap;
    char *label_text;
    size_t label_len, label_cap;
    uint32_t label_depth;
    /* Labels with no name (an unlabelled pass, to some implementations) are no scope: the open
     * ones' count and, per level below 64, whether it is such a label, so that its end is too. */
    uint32_t unnamed_depth;
    uint64_t unnamed_levels;
    bool labels_lost;
    /* The last dispatch's site, for the next of the same pipeline and counts (most are). */
    const wgprof_layer_pipeline *cached_pipeline;
    uint32_t cached_counts[3];
    bool cached_indirect, cached_valid;
    wgprof_site cached_site;
    wgprof_layer_cb **children; /* secondaries it executes */
    size_t child_count, child_cap;
    bool primary;
    /* Its chain's last row ends after it (WGPROF_LAYER_CHAIN_ENV): no timestamp of its own at
     * its end, but the next command buffer's first in its batch (`chain_next`) or a tail's. */
    bool open_end;
    /* Both written under the device's lock; read without it where false says enough: a
     * command buffer not pending is nobody's but the program's (only its submit makes it
     * pending again, and `reading` is true only while it is pending). */
    _Atomic bool pending; /* submitted, not read */
    _Atomic bool reading; /* taken out of the in-flight list by a thread reading it */
    uint64_t submit_ns;
    uint64_t seq;        /* while pending: its submit's number (layer_retire.c) */
    uint32_t queue_slot; /* and its queue's place (WGPROF_LAYER_QUEUES: none) */
    /* While pending, in a chain of command buffers of one batch (the first in the in-flight list
     * stands for all): the first (`chain_head`, NULL where alone or first), the next, and for
     * the last where its chain is open, the tail that ends it. */
    wgprof_layer_cb *chain_head, *chain_next;
    wgprof_layer_tail *tail;
    bool blocks_reset; /* its queries read and reset (or cleared) since last written */
    /* Let go of by the program while pending (begun again, reset or freed): the handle has
     * another state, or none, and this one is the reader's, which frees it once read (device's
     * lock; `next_orphan`: the device's list of those read, to be freed). */
    bool orphaned;
    wgprof_layer_cb *next_orphan;
};

/* The site of a gap in a recording's chain: the row begun by the layer's timestamp before a
 * vkCmdExecuteCommands, which ends the row before it. The secondary command buffers executed
 * there time their own rows, so the gap's time is nobody's (a primary's dispatch is never
 * charged its secondaries' time, nor is their time counted twice). No site a pool gives has a
 * tag of 0. */
#define WGPROF_LAYER_GAP ((wgprof_site){UINT32_MAX, 0})
static inline bool wgprof_layer_is_gap(wgprof_site s) { return s.tag == 0 && s.id == UINT32_MAX; }
/* The records a recording holds: its rows but the gaps. */
static inline size_t wgprof_layer_records(const wgprof_layer_cb *cb) { return cb->count - cb->gaps; }
/* Whether the program's waits say the submit of the chain from `head` is done (device's lock). */
static inline bool wgprof_layer_retired(const wgprof_layer_device *d, const wgprof_layer_cb *head)
{
    return head->seq <= d->retired_all ||
           (head->queue_slot < d->queue_count && head->seq <= d->queues[head->queue_slot].retired);
}
/* Those of a chain of command buffers in flight, from its first. */
static inline size_t wgprof_layer_chain_records(const wgprof_layer_cb *head)
{
    size_t n = 0;
    for (const wgprof_layer_cb *cb = head; cb; cb = cb->chain_next) {
        n += wgprof_layer_records(cb);
    }
    return n;
}

/* Hooks handed out by layer_dispatch.c. */
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
                                                               const VkAllocationCallbacks *alloc,
                                                               VkShaderModule *module);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyShaderModule(VkDevice device, VkShaderModule module,
                                                            const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateComputePipelines(VkDevice device, VkPipelineCache cache,
                                                                   uint32_t count,
                                                                   const VkComputePipelineCreateInfo *infos,
                                                                   const VkAllocationCallbacks *alloc,
                                                                   VkPipeline *pipelines);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyPipeline(VkDevice device, VkPipeline pipeline,
                                                        const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateShadersEXT(VkDevice device, uint32_t count,
                                                             const VkShaderCreateInfoEXT *infos,
                                                             const VkAllocationCallbacks *alloc, VkShaderEXT *shaders);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyShaderEXT(VkDevice device, VkShaderEXT shader,
                                                         const VkAllocationCallbacks *alloc);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdBindShadersEXT(VkCommandBuffer cb, uint32_t count,
                                                          const VkShaderStageFlagBits *stages, const VkShaderEXT *shaders);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                                       const VkDebugUtilsObjectNameInfoEXT *info);
/* The name a debug-utils call gives a pipeline, shader object or shader module, kept for naming
 * its dispatches (the call itself is the caller's to pass on). */
void wgprof_layer_object_named(const VkDebugUtilsObjectNameInfoEXT *info);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
                                                              const VkAllocationCallbacks *alloc, VkCommandPool *pool);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                           const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_ResetCommandPool(VkDevice device, VkCommandPool pool,
                                                             VkCommandPoolResetFlags flags);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_AllocateCommandBuffers(VkDevice device,
                                                                   const VkCommandBufferAllocateInfo *info,
                                                                   VkCommandBuffer *cbs);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                           const VkCommandBuffer *cbs);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_EndCommandBuffer(VkCommandBuffer cb);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point,
                                                        VkPipeline pipeline);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz,
                                                        uint32_t x, uint32_t y, uint32_t z);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdExecuteCommands(VkCommandBuffer cb, uint32_t count,
                                                           const VkCommandBuffer *secondaries);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *info);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdEndDebugUtilsLabelEXT(VkCommandBuffer cb);
#define WGPROF_LAYER_WORK_DECLARE(command, kind, params, args) VKAPI_ATTR void VKAPI_CALL wgprof_layer_##command params;
WGPROF_LAYER_WORK_COMMANDS(WGPROF_LAYER_WORK_DECLARE)
#define WGPROF_LAYER_PASS_DECLARE(command, params, args) VKAPI_ATTR void VKAPI_CALL wgprof_layer_##command params;
WGPROF_LAYER_PASS_BEGINS(WGPROF_LAYER_PASS_DECLARE)
/* Lets go of command buffers' recordings (begun again, reset or freed), all of one device's:
 * their queries back to the device. Where one's last submit is still unread and the device's
 * reader may read it (a reader runs in this process, and reads safely beside the program:
 * wgprof_layer_orphan), its state is left to the reader, off the program's thread, and where
 * `keep_handle` a new one takes its place in the map; else what is there is read first, here.
 * The device's lock and the map's are taken once for as many as WGPROF_LAYER_RELEASE_BATCH
 * (a pool's reset). cbs[i] becomes the handle's state from now on: the same, a new one, or
 * NULL (left to the reader and not kept, or no memory for a new one: the handle then runs
 * untimed). */
enum { WGPROF_LAYER_RELEASE_BATCH = 64 };
void wgprof_layer_cbs_release(wgprof_layer_cb **cbs, size_t n, bool keep_handle);
/* The same for one command buffer; returns its handle's state from now on. */
wgprof_layer_cb *wgprof_layer_cb_release(wgprof_layer_cb *cb, bool keep_handle);
/* Forgets every command buffer and command pool of the device's (its end). */
void wgprof_layer_cbs_forget(wgprof_layer_device *d);

/* ---- layer_cb.c ---- */

/* A command buffer's recording's queries let go of: those written and not reset since back to
 * the device, reset first; of the clean ones, up to two kept in `blocks_held` for its next
 * recordings, the rest back to the device. */
void wgprof_layer_cb_blocks_return(wgprof_layer_cb *cb);
/* A command buffer's state given back: its queries to the device (reset first where they were
 * written and not reset since), its memory. */
void wgprof_layer_cb_destroy(wgprof_layer_cb *cb);
/* States read and let go of (a list through `next_orphan`): made as new and kept for renewals
 * (their queries back to the device but for the clean ones they hold, their arrays' room kept),
 * or given back where the device keeps enough; a trip through the spares' lock per 64. */
void wgprof_layer_cbs_recycle(wgprof_layer_device *d, wgprof_layer_cb *list);
/* Gives back every state kept (the device's end). */
void wgprof_layer_cb_spares_free(wgprof_layer_device *d);
/* New states for the handles of `n` command buffers of one device (what lasts across recordings
 * copied: the place in its pool's record, family, level, the sites of their runs of transfer
 * work), kept ones (made as new by the reader already) taken in one trip through the spares'
 * lock; made before the old ones may go to the reader. news[i] NULL where there is no memory. */
void wgprof_layer_cbs_made(wgprof_layer_cb *const *olds, size_t n, wgprof_layer_cb **news);
/* The new states of the handles whose old ones were orphaned put in the map in their place, in
 * one trip through the map's lock (the handle out of the map, running untimed, where there is
 * no state); the others kept for later. news[i] is the handle's state from now on, or NULL. At
 * most WGPROF_LAYER_RELEASE_BATCH. */
void wgprof_layer_cbs_renewed(const VkCommandBuffer *handles, wgprof_layer_cb **news, const bool *orphaned, size_t n);

/* ---- layer_blocks.c ---- */

/* Queries back to the device, reset (from the host, where `reset`) for another use. */
void wgprof_layer_blocks_return(wgprof_layer_device *d, wgprof_layer_block *blocks, size_t count, bool reset);
/* A block for a command buffer being recorded; false where none can be had. */
bool wgprof_layer_block_take(wgprof_layer_device *d, wgprof_layer_block *out);

/* ---- layer_readback.c ---- */

/* Where reading a query pool waits for the whole device and is not safe beside the program's
 * submits from another thread (lavapipe, a CPU device), the layer reads its results from a
 * buffer of its own instead: each command buffer it times copies its queries there at its end.
 * Makes `p`'s buffer where the device does so (its query pool made already); false where it
 * could not be had (the pool is then not used). */
bool wgprof_layer_readback_make(wgprof_layer_device *d, wgprof_layer_query_pool *p);
/* Gives `p`'s buffer back (the device's end). */
void wgprof_layer_readback_free(wgprof_layer_device *d, wgprof_layer_query_pool *p);
/* Records into `handle`, at its end, the copies of the first `ticks` queries of `blocks` (in
 * order, WGPROF_LAYER_BLOCK a block) into the layer's buffer, then a barrier that makes them
 * visible to the host. Nothing where the device reads its query pools. */
void wgprof_layer_readback_record(wgprof_layer_device *d, VkCommandBuffer handle, const wgprof_layer_block *blocks,
                                  size_t block_count, uint32_t ticks);
/* Reading and clearing the copies there: layer_copy.h. */

/* ---- layer_queue.c ---- */

/* Reads every command buffer in flight whose timestamps are all there (`force`: every one, the
 * missing ones as not written). Calls the driver; takes the device's lock only in between. */
void wgprof_layer_poll(wgprof_layer_device *d, bool force);
/* Stops the device's reader and waits for it to end (at the device's end, or the process's;
 * nothing in a child of fork(), where it does not run). */
void wgprof_layer_reader_stop(wgprof_layer_device *d);
/* The program is about to wait, or asked and found its work not done: where a read is owed,
 * the reader reads now, while the program's thread has nothing to record. Takes no lock where
 * none is owed. */
void wgprof_layer_idle(wgprof_layer_device *d);
/* Leaves each of `n` command buffers of one device, let go of by the program while its last
 * submit is unread, to the device's reader, where one runs in this process, the device is not
 * ending, and reading beside the program's submits is safe (not a CPU device read from its
 * query pools: lavapipe's reading waits for the whole device): marked orphaned, a read owed
 * (wgprof_layer_idle), even while the reader reads one already; orphaned[i] says so (the state is then the reader's to
 * free, and not to be touched). False: the state stays the caller's, no reading of it under way
 * (one was waited for). One trip through the device's lock, but for those waits. */
void wgprof_layer_orphan(wgprof_layer_cb *const *cbs, size_t n, bool *orphaned);
/* Reads `cb` now if it was submitted (`force` as above); its queries reset for a new use. Where
 * another thread is reading it, waits for that reading to end (no driver call is waited on
 * with the lock held: only the other thread's). */
void wgprof_layer_read_cb(wgprof_layer_cb *cb, bool force);
/* Waits while another thread reads `cb` (its recording must not change under the reading). */
void wgprof_layer_wait_unread(wgprof_layer_cb *cb);

/* Puts the chain from `head` (linked by the submit: one command buffer, or several of one
 * batch) in flight, submitted at `now` as submit `seq` of queue `slot` (layer_retire.c): each
 * pending, the reader started. False where out of memory: its records are dropped. */
bool wgprof_layer_in_flight_put(wgprof_layer_cb *head, uint64_t now, uint64_t seq, uint32_t slot);
/* Reads every chain in flight that the program's waits retired and whose timestamps are all
 * there (the caller's thread). */
void wgprof_layer_read_retired(wgprof_layer_device *d);
/* A wait of the program's returned: the reader reads what it retired (the program's thread only
 * until the first snapshot is written). */
void wgprof_layer_waited(wgprof_layer_device *d);

/* ---- layer_retire.c ---- */

/* A submit to `queue` begins: its number, its queue's place in `*slot`, its fence kept. */
uint64_t wgprof_layer_submit_begin(wgprof_layer_device *d, VkQueue queue, VkFence fence, uint32_t *slot);
/* The timeline semaphore values a batch of the submit signals, kept. */
void wgprof_layer_submit_signals(wgprof_layer_device *d, uint32_t slot, uint64_t seq, const VkSubmitInfo *submit);
void wgprof_layer_submit2_signals(wgprof_layer_device *d, uint32_t slot, uint64_t seq, const VkSubmitInfo2 *submit);
/* Forgets the device's fences and signals (its end). */
void wgprof_layer_retire_forget(wgprof_layer_device *d);

/* Hooks handed out by layer_dispatch.c. */
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore,
                                                                     uint64_t *value);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetSemaphoreCounterValueKHR(VkDevice device, VkSemaphore semaphore,
                                                                        uint64_t *value);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueWaitIdle(VkQueue queue);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_DeviceWaitIdle(VkDevice device);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
                                                          VkBool32 all, uint64_t timeout);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetFenceStatus(VkDevice device, VkFence fence);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks *alloc);
VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroySemaphore(VkDevice device, VkSemaphore semaphore,
                                                         const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                           uint64_t timeout);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                              uint64_t timeout);

/* ---- layer_submit.c ---- */

/* Hooks handed out by layer_dispatch.c. */
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                        VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                                                         VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2KHR(VkQueue queue, uint32_t count,
                                                            const VkSubmitInfo2 *submits, VkFence fence);

/* ---- layer_tail.c ---- */

/* A tail for a batch on a queue of `family`, recorded and ready to submit; NULL where none can
 * be had (out of memory, or the driver refused): the command buffer it would end then has no
 * time for its last row. Calls the driver outside the device's lock. */
wgprof_layer_tail *wgprof_layer_tail_take(wgprof_layer_device *d, uint32_t family);
/* Tails read: their queries reset (from the host, where the device allows) and free again. */
void wgprof_layer_tails_return(wgprof_layer_device *d, wgprof_layer_tail *const *tails, size_t count);
/* Every tail of the device's, at its end (its work over). */
void wgprof_layer_tails_destroy(wgprof_layer_device *d);

/* ---- layer_output.c ---- */

/* Writes the device's results into the results folder: final (`partial` NULL) every format asked
 * for and PID.N.done last; else the JSON report and the table, marked partial for the reason
 * given (a snapshot while the program runs, or what could be collected at its end). */
void wgprof_layer_output_write(wgprof_layer_device *d, const char *partial);
/* The N of the device's PID.N, taken in the results folder (as record's preload takes it). */
unsigned wgprof_layer_output_claim(void);

#endif
