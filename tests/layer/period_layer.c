/*
 * A Vulkan layer of the tests' own, VK_LAYER_WGPROF_test_period, enabled below wgprof's layer
 * (tests/test_layer.sh): it reports the physical device's timestampPeriod as the number
 * WGPROF_TEST_TIMESTAMP_PERIOD holds (strtod: "nan", "inf", "0", "-1"), as a driver with a broken
 * period would; with WGPROF_TEST_EXTRA_FAMILY_BITS=N, vkGetPhysicalDeviceQueueFamilyProperties
 * lists one queue family more than the driver's, a copy engine's (transfer only, one queue) whose
 * timestamps count N bits, as an H100 lists a family of 32 beside its 64-bit ones (no queue of it
 * is ever asked for: the tests' programs use a compute family); with WGPROF_TEST_COUNT_TIMESTAMPS set, it counts the timestamps submitted: each
 * command buffer's vkCmdWriteTimestamp calls since its vkBeginCommandBuffer, added up at each
 * vkQueueSubmit or vkQueueSubmit2 that submits it (the tests' programs write none: every one is
 * a layer's above it), and prints `test layer: N timestamps submitted` on stderr at exit; and
 * the queries a host reset (vkResetQueryPool) reached while written by a submit the program had
 * not yet waited for (its fence waited for or found signalled, its queue or the device idle):
 * `test layer: M queries reset before the program waited for their submit`, and the calls of
 * vkGetQueryPoolResults: `test layer: R query pool reads`. With
 * WGPROF_TEST_LOG_BATCHES set too, each batch submitted as it comes: `test layer: batch T1 T2 ...`,
 * the timestamps of each of its command buffers in their order (a layer's added ones among them).
 * Everything else it passes through. One instance and one device at a time, as the test's
 * program makes them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

static PFN_vkGetInstanceProcAddr g_next_gipa;
static PFN_vkGetDeviceProcAddr g_next_gdpa;
static VkInstance g_instance;
static PFN_vkGetPhysicalDeviceProperties g_next_props;
static PFN_vkGetPhysicalDeviceProperties2 g_next_props2;
static PFN_vkGetPhysicalDeviceQueueFamilyProperties g_next_families;

static PFN_vkCmdWriteTimestamp g_next_write_timestamp;
static PFN_vkBeginCommandBuffer g_next_begin;
static PFN_vkQueueSubmit g_next_submit;
static PFN_vkQueueSubmit2 g_next_submit2;
static PFN_vkWaitForFences g_next_wait_fences;
static PFN_vkGetFenceStatus g_next_fence_status;
static PFN_vkQueueWaitIdle g_next_queue_idle;
static PFN_vkDeviceWaitIdle g_next_device_idle;
static PFN_vkResetQueryPool g_next_reset;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static PFN_vkGetQueryPoolResults g_next_results;
static unsigned long g_submitted, g_early_resets, g_pool_reads;

/* Each command buffer's timestamps since its begin, and the queries they write (the tests'
 * programs use a few thousand command buffers, of a few timestamps each). */
enum { CBS = 8192, CB_QUERIES = 16 };
typedef struct cb_entry {
    VkCommandBuffer cb;
    unsigned long timestamps;
    unsigned queries;
    VkQueryPool pool[CB_QUERIES];
    uint32_t query[CB_QUERIES];
} cb_entry;
static cb_entry g_cbs[CBS];

/* Each query's state: written by a command buffer submitted and not yet waited for (with the
 * fence of its submit), or not. */
enum { POOLS = 16, POOL_QUERIES = 4096 };
static struct {
    VkQueryPool pool;
    VkFence fence[POOL_QUERIES]; /* the submit's fence while unwaited; VK_NULL_HANDLE: none */
    unsigned char unwaited[POOL_QUERIES];
} g_pools[POOLS];

/* Its entry (lock held); NULL where the table is full. */
static cb_entry *entry_of(VkCommandBuffer cb)
{
    for (size_t i = 0; i < CBS; i++) {
        if (g_cbs[i].cb == cb || !g_cbs[i].cb) {
            g_cbs[i].cb = cb;
            return &g_cbs[i];
        }
    }
    return NULL;
}

static size_t pool_of(VkQueryPool pool)
{
    for (size_t i = 0; i < POOLS; i++) {
        if (g_pools[i].pool == pool || !g_pools[i].pool) {
            g_pools[i].pool = pool;
            return i;
        }
    }
    return POOLS;
}

static VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
    pthread_mutex_lock(&g_lock);
    cb_entry *e = entry_of(cb);
    if (e) {
        e->timestamps = 0;
        e->queries = 0;
    }
    pthread_mutex_unlock(&g_lock);
    return g_next_begin(cb, info);
}

static VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
                                                    uint32_t query)
{
    pthread_mutex_lock(&g_lock);
    cb_entry *e = entry_of(cb);
    if (e) {
        e->timestamps++;
        if (e->queries < CB_QUERIES) {
            e->pool[e->queries] = pool;
            e->query[e->queries++] = query;
        }
    }
    pthread_mutex_unlock(&g_lock);
    g_next_write_timestamp(cb, stage, pool, query);
}

/* A command buffer submitted with `fence`: its timestamps counted, and appended to its batch's
 * `line` (of `size`). */
static void count_submitted(VkCommandBuffer cb, VkFence fence, char *line, size_t size)
{
    pthread_mutex_lock(&g_lock);
    cb_entry *e = entry_of(cb);
    g_submitted += e ? e->timestamps : 0;
    size_t n = strlen(line);
    snprintf(line + n, size - n, " %lu", e ? e->timestamps : 0ul);
    for (unsigned i = 0; e && i < e->queries; i++) {
        size_t p = pool_of(e->pool[i]);
        if (p < POOLS && e->query[i] < POOL_QUERIES) {
            g_pools[p].unwaited[e->query[i]] = 1;
            g_pools[p].fence[e->query[i]] = fence;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

/* The program waited for `fence` (VK_NULL_HANDLE: for everything). */
static void waited(VkFence fence)
{
    pthread_mutex_lock(&g_lock);
    for (size_t p = 0; p < POOLS && g_pools[p].pool; p++) {
        for (size_t q = 0; q < POOL_QUERIES; q++) {
            if (g_pools[p].unwaited[q] && (!fence || g_pools[p].fence[q] == fence)) {
                g_pools[p].unwaited[q] = 0;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
}

static VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                  VkFence fence)
{
    for (uint32_t s = 0; s < count; s++) {
        char line[1024] = "";
        for (uint32_t i = 0; i < submits[s].commandBufferCount; i++) {
            count_submitted(submits[s].pCommandBuffers[i], fence, line, sizeof line);
        }
        if (getenv("WGPROF_TEST_LOG_BATCHES")) {
            fprintf(stderr, "test layer: batch%s\n", line);
        }
    }
    return g_next_submit(queue, count, submits, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                                                   VkFence fence)
{
    for (uint32_t s = 0; s < count; s++) {
        char line[1024] = "";
        for (uint32_t i = 0; i < submits[s].commandBufferInfoCount; i++) {
            count_submitted(submits[s].pCommandBufferInfos[i].commandBuffer, fence, line, sizeof line);
        }
        if (getenv("WGPROF_TEST_LOG_BATCHES")) {
            fprintf(stderr, "test layer: batch%s\n", line);
        }
    }
    return g_next_submit2(queue, count, submits, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence *fences, VkBool32 all,
                                                    uint64_t timeout)
{
    VkResult r = g_next_wait_fences(device, count, fences, all, timeout);
    for (uint32_t i = 0; r == VK_SUCCESS && i < count; i++) {
        if (all || count == 1 || g_next_fence_status(device, fences[i]) == VK_SUCCESS) {
            waited(fences[i]);
        }
    }
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence)
{
    VkResult r = g_next_fence_status(device, fence);
    if (r == VK_SUCCESS) {
        waited(fence);
    }
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue)
{
    VkResult r = g_next_queue_idle(queue);
    waited(VK_NULL_HANDLE);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device)
{
    VkResult r = g_next_device_idle(device);
    waited(VK_NULL_HANDLE);
    return r;
}

/* A reset from the host of queries a submit wrote that the program has not waited for. */
static VKAPI_ATTR void VKAPI_CALL ResetQueryPool(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count)
{
    pthread_mutex_lock(&g_lock);
    size_t p = pool_of(pool);
    for (uint32_t q = first; p < POOLS && q < first + count && q < POOL_QUERIES; q++) {
        g_early_resets += g_pools[p].unwaited[q];
        g_pools[p].unwaited[q] = 0;
    }
    pthread_mutex_unlock(&g_lock);
    g_next_reset(device, pool, first, count);
}

static VKAPI_ATTR VkResult VKAPI_CALL GetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first,
                                                          uint32_t count, size_t size, void *data, VkDeviceSize stride,
                                                          VkQueryResultFlags flags)
{
    pthread_mutex_lock(&g_lock);
    g_pool_reads++;
    pthread_mutex_unlock(&g_lock);
    return g_next_results(device, pool, first, count, size, data, stride, flags);
}

static void say_count(void)
{
    fprintf(stderr, "test layer: %lu timestamps submitted\n", g_submitted);
    fprintf(stderr, "test layer: %lu queries reset before the program waited for their submit\n", g_early_resets);
    fprintf(stderr, "test layer: %lu query pool reads\n", g_pool_reads);
}

__attribute__((constructor)) static void watch(void)
{
    if (getenv("WGPROF_TEST_COUNT_TIMESTAMPS")) {
        atexit(say_count);
    }
}

static void *find_link(const void *next, VkStructureType type)
{
    for (const VkBaseInStructure *s = next; s; s = s->pNext) {
        /* Both link structs have their `function` right after sType and pNext. */
        const VkLayerInstanceCreateInfo *info = (const VkLayerInstanceCreateInfo *)s;
        if (s->sType == type && info->function == VK_LAYER_LINK_INFO) {
            return (void *)s;
        }
    }
    return NULL;
}

static void fake_period(VkPhysicalDeviceProperties *p)
{
    const char *value = getenv("WGPROF_TEST_TIMESTAMP_PERIOD");
    if (value) {
        p->limits.timestampPeriod = strtof(value, NULL);
    }
}

static VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice physical, VkPhysicalDeviceProperties *p)
{
    g_next_props(physical, p);
    fake_period(p);
}

static VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice physical, VkPhysicalDeviceProperties2 *p)
{
    g_next_props2(physical, p);
    fake_period(&p->properties);
}

static VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physical, uint32_t *count,
                                                                         VkQueueFamilyProperties *props)
{
    const char *bits = getenv("WGPROF_TEST_EXTRA_FAMILY_BITS");
    if (!bits) {
        g_next_families(physical, count, props);
        return;
    }
    uint32_t real = 0;
    g_next_families(physical, &real, NULL);
    if (!props) {
        *count = real + 1;
        return;
    }
    uint32_t room = *count;
    *count = room < real ? room : real;
    g_next_families(physical, count, props);
    if (room > real) {
        props[real] = (VkQueueFamilyProperties){.queueFlags = VK_QUEUE_TRANSFER_BIT,
                                                .queueCount = 1,
                                                .timestampValidBits = (uint32_t)strtoul(bits, NULL, 10),
                                                .minImageTransferGranularity = {1, 1, 1}};
        *count = real + 1;
    }
}

static VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *info,
                                                     const VkAllocationCallbacks *alloc, VkInstance *out)
{
    VkLayerInstanceCreateInfo *link = find_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (!link || !link->u.pLayerInfo) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    g_next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)g_next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult r = create(info, alloc, out);
    if (r == VK_SUCCESS) {
        g_instance = *out;
        g_next_props = (PFN_vkGetPhysicalDeviceProperties)g_next_gipa(*out, "vkGetPhysicalDeviceProperties");
        g_next_props2 = (PFN_vkGetPhysicalDeviceProperties2)g_next_gipa(*out, "vkGetPhysicalDeviceProperties2");
        if (!g_next_props2) {
            g_next_props2 = (PFN_vkGetPhysicalDeviceProperties2)g_next_gipa(*out, "vkGetPhysicalDeviceProperties2KHR");
        }
        g_next_families = (PFN_vkGetPhysicalDeviceQueueFamilyProperties)g_next_gipa(
            *out, "vkGetPhysicalDeviceQueueFamilyProperties");
    }
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                   const VkAllocationCallbacks *alloc, VkDevice *out)
{
    VkLayerDeviceCreateInfo *link = find_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (!link || !link->u.pLayerInfo) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    g_next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(g_instance, "vkCreateDevice");
    VkResult r = create(physical, info, alloc, out);
    if (r == VK_SUCCESS) {
        g_next_write_timestamp = (PFN_vkCmdWriteTimestamp)g_next_gdpa(*out, "vkCmdWriteTimestamp");
        g_next_begin = (PFN_vkBeginCommandBuffer)g_next_gdpa(*out, "vkBeginCommandBuffer");
        g_next_submit = (PFN_vkQueueSubmit)g_next_gdpa(*out, "vkQueueSubmit");
        g_next_submit2 = (PFN_vkQueueSubmit2)g_next_gdpa(*out, "vkQueueSubmit2");
        g_next_wait_fences = (PFN_vkWaitForFences)g_next_gdpa(*out, "vkWaitForFences");
        g_next_fence_status = (PFN_vkGetFenceStatus)g_next_gdpa(*out, "vkGetFenceStatus");
        g_next_queue_idle = (PFN_vkQueueWaitIdle)g_next_gdpa(*out, "vkQueueWaitIdle");
        g_next_device_idle = (PFN_vkDeviceWaitIdle)g_next_gdpa(*out, "vkDeviceWaitIdle");
        g_next_results = (PFN_vkGetQueryPoolResults)g_next_gdpa(*out, "vkGetQueryPoolResults");
        g_next_reset = (PFN_vkResetQueryPool)g_next_gdpa(*out, "vkResetQueryPool");
        if (!g_next_reset) {
            g_next_reset = (PFN_vkResetQueryPool)g_next_gdpa(*out, "vkResetQueryPoolEXT");
        }
    }
    return r;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL period_GetDeviceProcAddr(VkDevice device, const char *name);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL period_GetDeviceProcAddr(VkDevice device, const char *name)
{
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return (PFN_vkVoidFunction)period_GetDeviceProcAddr;
    }
    static const struct {
        const char *name;
        PFN_vkVoidFunction fn;
    } counted[] = {
        {"vkCmdWriteTimestamp", (PFN_vkVoidFunction)CmdWriteTimestamp},
        {"vkBeginCommandBuffer", (PFN_vkVoidFunction)BeginCommandBuffer},
        {"vkQueueSubmit", (PFN_vkVoidFunction)QueueSubmit},
        {"vkQueueSubmit2", (PFN_vkVoidFunction)QueueSubmit2},
        {"vkWaitForFences", (PFN_vkVoidFunction)WaitForFences},
        {"vkGetFenceStatus", (PFN_vkVoidFunction)GetFenceStatus},
        {"vkQueueWaitIdle", (PFN_vkVoidFunction)QueueWaitIdle},
        {"vkDeviceWaitIdle", (PFN_vkVoidFunction)DeviceWaitIdle},
        {"vkResetQueryPool", (PFN_vkVoidFunction)ResetQueryPool},
        {"vkResetQueryPoolEXT", (PFN_vkVoidFunction)ResetQueryPool},
        {"vkGetQueryPoolResults", (PFN_vkVoidFunction)GetQueryPoolResults},
    };
    for (size_t i = 0; g_next_write_timestamp && i < sizeof counted / sizeof counted[0]; i++) {
        if (strcmp(name, counted[i].name) == 0 && g_next_gdpa(device, name)) {
            return counted[i].fn;
        }
    }
    return g_next_gdpa ? g_next_gdpa(device, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL period_GetInstanceProcAddr(VkInstance instance, const char *name);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL period_GetInstanceProcAddr(VkInstance instance, const char *name)
{
    static const struct {
        const char *name;
        PFN_vkVoidFunction fn;
    } mine[] = {
        {"vkGetInstanceProcAddr", (PFN_vkVoidFunction)period_GetInstanceProcAddr},
        {"vkGetDeviceProcAddr", (PFN_vkVoidFunction)period_GetDeviceProcAddr},
        {"vkCreateInstance", (PFN_vkVoidFunction)CreateInstance},
        {"vkCreateDevice", (PFN_vkVoidFunction)CreateDevice},
        {"vkGetPhysicalDeviceProperties", (PFN_vkVoidFunction)GetPhysicalDeviceProperties},
        {"vkGetPhysicalDeviceProperties2", (PFN_vkVoidFunction)GetPhysicalDeviceProperties2},
        {"vkGetPhysicalDeviceProperties2KHR", (PFN_vkVoidFunction)GetPhysicalDeviceProperties2},
        {"vkGetPhysicalDeviceQueueFamilyProperties", (PFN_vkVoidFunction)GetPhysicalDeviceQueueFamilyProperties},
    };
    if (instance && !g_next_gipa) {
        return NULL;
    }
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        if (strcmp(name, mine[i].name) == 0) {
            return mine[i].fn;
        }
    }
    return g_next_gipa ? g_next_gipa(instance, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *interface);
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *interface)
{
    if (!interface || interface->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (interface->loaderLayerInterfaceVersion > 2) {
        interface->loaderLayerInterfaceVersion = 2;
    }
    interface->pfnGetInstanceProcAddr = period_GetInstanceProcAddr;
    interface->pfnGetDeviceProcAddr = period_GetDeviceProcAddr;
    interface->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
