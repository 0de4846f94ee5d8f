/*
 * The loader's interface: vkNegotiateLoaderLayerInterfaceVersion, vkGetInstanceProcAddr and
 * vkGetDeviceProcAddr hand out the layer's hooks (layer_commands.c, layer_queue.c) and the next
 * layer's functions for everything else; vkCreateInstance and vkCreateDevice pass the call down
 * the chain and keep what the hooks need. A device is created with host query resets where it
 * has them and the program left them unsaid (VkPhysicalDeviceHostQueryResetFeatures chained in
 * front of its own structs, VK_EXT_host_query_reset added for Vulkan < 1.2); else the layer
 * resets its queries in the command stream. At the device's end (or the process's) its results
 * are read and written.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "layer.h"
#include "layer_lib.h"
#include "record.h"

/* ---- instances ---- */

static const void *find_chain(const void *next, VkStructureType type, VkLayerFunction function)
{
    for (const VkBaseInStructure *s = next; s; s = s->pNext) {
        const VkLayerInstanceCreateInfo *info = (const VkLayerInstanceCreateInfo *)s;
        if (s->sType == type && info->function == function) {
            return s;
        }
    }
    return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *info,
                                                           const VkAllocationCallbacks *alloc, VkInstance *out)
{
    VkLayerInstanceCreateInfo *chain = (VkLayerInstanceCreateInfo *)find_chain(
        info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, VK_LAYER_LINK_INFO);
    if (!chain || !chain->u.pLayerInfo) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext; /* the next layer's turn */
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult r = create ? create(info, alloc, out) : VK_ERROR_INITIALIZATION_FAILED;
    if (r != VK_SUCCESS) {
        return r;
    }
    wgprof_layer_instance *i = wgprof__calloc(1, sizeof *i);
    if (!i) {
        return r; /* the layer stays out of this instance's way */
    }
    i->handle = *out;
    i->gipa = gipa;
    i->api_version = info->pApplicationInfo && info->pApplicationInfo->apiVersion ? info->pApplicationInfo->apiVersion
                                                                                    : VK_API_VERSION_1_0;
    i->DestroyInstance = (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
    i->GetPhysicalDeviceProperties = (PFN_vkGetPhysicalDeviceProperties)gipa(*out, "vkGetPhysicalDeviceProperties");
    i->GetPhysicalDeviceQueueFamilyProperties =
        (PFN_vkGetPhysicalDeviceQueueFamilyProperties)gipa(*out, "vkGetPhysicalDeviceQueueFamilyProperties");
    i->GetPhysicalDeviceMemoryProperties =
        (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(*out, "vkGetPhysicalDeviceMemoryProperties");
    if (i->api_version >= VK_API_VERSION_1_1) {
        i->GetPhysicalDeviceFeatures2 = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2");
    }
    i->EnumerateDeviceExtensionProperties =
        (PFN_vkEnumerateDeviceExtensionProperties)gipa(*out, "vkEnumerateDeviceExtensionProperties");
    if (!wgprof_layer_instance_put(i)) {
        wgprof__free(i);
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
    wgprof_layer_instance *i = wgprof_layer_instance_take(instance);
    if (i) {
        PFN_vkDestroyInstance destroy = i->DestroyInstance;
        wgprof__free(i);
        destroy(instance, alloc);
    }
}

/* ---- devices ---- */

static bool has_extension(wgprof_layer_instance *i, VkPhysicalDevice physical, const char *name)
{
    uint32_t n = 0;
    if (i->EnumerateDeviceExtensionProperties(physical, NULL, &n, NULL) != VK_SUCCESS || !n) {
        return false;
    }
    VkExtensionProperties *all = wgprof__calloc(n, sizeof *all);
    bool found = false;
    if (all && i->EnumerateDeviceExtensionProperties(physical, NULL, &n, all) == VK_SUCCESS) {
        for (uint32_t k = 0; k < n && !found; k++) {
            found = strcmp(all[k].extensionName, name) == 0;
        }
    }
    wgprof__free(all);
    return found;
}

/* How the device's queries get reset: from the host (true), with what `info` needs to allow it
 * put in `copy` (and in `ours`, `names`), or in the stream (false, `copy` as `info`). */
static bool plan_host_reset(wgprof_layer_instance *i, VkPhysicalDevice physical, uint32_t device_api,
                            const VkDeviceCreateInfo *info, VkDeviceCreateInfo *copy,
                            VkPhysicalDeviceHostQueryResetFeatures *ours, const char ***names)
{
    *copy = *info;
    *names = NULL;
    /* What the program chained already decides it. */
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
            return ((const VkPhysicalDeviceVulkan12Features *)s)->hostQueryReset;
        }
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES) {
            return ((const VkPhysicalDeviceHostQueryResetFeatures *)s)->hostQueryReset;
        }
    }
    if (!i->GetPhysicalDeviceFeatures2) {
        return false; /* cannot ask the device (a Vulkan 1.0 instance) */
    }
    VkPhysicalDeviceHostQueryResetFeatures probe = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &probe};
    bool core = device_api >= VK_API_VERSION_1_2 && i->api_version >= VK_API_VERSION_1_2;
    bool extension = !core && has_extension(i, physical, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
    if (!core && !extension) {
        return false;
    }
    i->GetPhysicalDeviceFeatures2(physical, &features);
    if (!probe.hostQueryReset) {
        return false;
    }
    if (extension) {
        bool listed = false;
        for (uint32_t k = 0; k < info->enabledExtensionCount && !listed; k++) {
            listed = strcmp(info->ppEnabledExtensionNames[k], VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) == 0;
        }
        if (!listed) {
            *names = wgprof__calloc(info->enabledExtensionCount + 1, sizeof **names);
            if (!*names) {
                return false;
            }
            for (uint32_t k = 0; k < info->enabledExtensionCount; k++) {
                (*names)[k] = info->ppEnabledExtensionNames[k];
            }
            (*names)[info->enabledExtensionCount] = VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME;
            copy->enabledExtensionCount = info->enabledExtensionCount + 1;
            copy->ppEnabledExtensionNames = *names;
        }
    }
    *ours = (VkPhysicalDeviceHostQueryResetFeatures){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES,
                                                     .hostQueryReset = VK_TRUE};
    memcpy(&ours->pNext, &info->pNext, sizeof ours->pNext); /* the program's chain after ours, untouched */
    copy->pNext = ours;
    return true;
}

/* Dawn names a shader module "DawnDbg=ID;Dawn_ShaderModule" and a compute pipeline
 * "DawnDbg=ID;Dawn_ComputePipeline" (ID: its device's, by which it routes a validation layer's
 * messages back), then, with its toggle use_user_defined_labels_in_backend (where a program
 * asks for it), "_" and the label: the layer names them after that label alone (none where there
 * is none), and passes Dawn's name on down as it is. */
static VKAPI_ATTR VkResult VKAPI_CALL layer_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                                     const VkDebugUtilsObjectNameInfoEXT *info)
{
    const char *kind = !info || !info->pObjectName                          ? NULL
                       : info->objectType == VK_OBJECT_TYPE_SHADER_MODULE ? "Dawn_ShaderModule"
                       : info->objectType == VK_OBJECT_TYPE_PIPELINE      ? "Dawn_ComputePipeline"
                                                                          : NULL;
    const char *semi = kind && strncmp(info->pObjectName, "DawnDbg=", 8) == 0 ? strchr(info->pObjectName, ';') : NULL;
    const char *rest = semi && strncmp(semi + 1, kind, strlen(kind)) == 0 ? semi + 1 + strlen(kind) : NULL;
    if (!rest || (*rest != '_' && *rest != '\0')) {
        return wgprof_layer_SetDebugUtilsObjectNameEXT(device, info);
    }
    VkDebugUtilsObjectNameInfoEXT plain = *info;
    plain.pObjectName = *rest ? rest + 1 : rest;
    wgprof_layer_object_named(&plain);
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return d->SetDebugUtilsObjectNameEXT ? d->SetDebugUtilsObjectNameEXT(device, info) : VK_SUCCESS;
}

#define NEXT(d, name) (d)->name = (PFN_vk##name)(d)->gdpa((d)->handle, "vk" #name)

static void describe(wgprof_layer_device *d, const VkPhysicalDeviceProperties *p)
{
    wgprof_device_info *info = &d->info;
    snprintf(info->adapter, sizeof info->adapter, "%s", p->deviceName);
    snprintf(info->driver, sizeof info->driver, "Vulkan %u.%u.%u, driver 0x%x", VK_API_VERSION_MAJOR(p->apiVersion),
             VK_API_VERSION_MINOR(p->apiVersion), VK_API_VERSION_PATCH(p->apiVersion), p->driverVersion);
    /* A device record's preload library left to the layer, its names told in process (record.h). */
    static atomic_uint taken;
    unsigned (*left)(void) = NULL;
    *(void **)&left = dlsym(RTLD_DEFAULT, RECORD_SYMBOL_LEFT_TO_LAYER);
    unsigned seen = atomic_load(&taken);
    bool labels = left && left() > seen && atomic_compare_exchange_strong(&taken, &seen, seen + 1);
    d->left_by_preload = labels;
    info->implementation = labels ? RECORD_LAYER_WITH_LABELS : WGPROF_LAYER_IMPLEMENTATION;
    info->backend = "vulkan";
    info->adapter_type = p->deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? "discrete"
                         : p->deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? "integrated"
                         : p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU            ? "cpu"
                                                                                   : "unknown";
    info->vendor_id = p->vendorID;
    info->device_id = p->deviceID;
    info->timestamp_query = true;
    info->timestamp_inside_passes = true;
    info->timestamp_inside_encoders = true;
    info->profiling_available = true;
    info->timestamp_period_ns = p->limits.timestampPeriod;
    info->period_from_implementation = true;
}

/* At a SIGTERM, where the program left it its default action, and at an _exit under record,
 * every device's results written (defined below; layer_term.c); watched from the first device
 * on. */
static void at_term(void);
static pthread_once_t g_term_once = PTHREAD_ONCE_INIT;
static void watch_term(void) { wgprof_layer_term_watch(at_term); }

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                         const VkAllocationCallbacks *alloc, VkDevice *out)
{
    VkLayerDeviceCreateInfo *chain = (VkLayerDeviceCreateInfo *)find_chain(
        info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, VK_LAYER_LINK_INFO);
    wgprof_layer_instance *i = wgprof_layer_instance_of(physical);
    if (!chain || !chain->u.pLayerInfo || !i) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
    const VkLayerDeviceCreateInfo *loader_data = (const VkLayerDeviceCreateInfo *)find_chain(
        info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, VK_LOADER_DATA_CALLBACK);
    const VkDeviceGroupDeviceCreateInfo *group = NULL;
    for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
        group = s->sType == VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO ? (const void *)s : group;
    }
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(i->handle, "vkCreateDevice");
    if (!create) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkPhysicalDeviceProperties props;
    i->GetPhysicalDeviceProperties(physical, &props);
    VkDeviceCreateInfo copy;
    VkPhysicalDeviceHostQueryResetFeatures ours;
    const char **names = NULL;
    bool host_reset = plan_host_reset(i, physical, props.apiVersion, info, &copy, &ours, &names);
    VkResult r = create(physical, &copy, alloc, out);
    wgprof__free(names);
    if (r != VK_SUCCESS) {
        return r;
    }
    wgprof_layer_device *d = wgprof__calloc(1, sizeof *d);
    if (!d) {
        return r;
    }
    d->handle = *out;
    d->physical = physical;
    d->instance = i;
    d->gdpa = gdpa;
    d->set_loader_data = loader_data ? loader_data->u.pfnSetDeviceLoaderData : NULL;
    /* Several GPUs: a batch's command buffers each carry their device mask, which a tail of the
     * layer's would have to match. */
    d->chain_never = group && group->physicalDeviceCount > 1;
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->spares_lock, NULL);
    pthread_mutex_init(&d->results_lock, NULL);
    pthread_cond_init(&d->read_done, NULL);
    pthread_cond_init(&d->reader_wake, NULL);
    pthread_cond_init(&d->final_cond, NULL);
    NEXT(d, DestroyDevice);
    NEXT(d, CreateQueryPool);
    NEXT(d, DestroyQueryPool);
    NEXT(d, GetQueryPoolResults);
    NEXT(d, CmdWriteTimestamp);
    NEXT(d, CmdResetQueryPool);
    NEXT(d, CmdPipelineBarrier);
    NEXT(d, CreateBuffer);
    NEXT(d, DestroyBuffer);
    NEXT(d, GetBufferMemoryRequirements);
    NEXT(d, AllocateMemory);
    NEXT(d, FreeMemory);
    NEXT(d, BindBufferMemory);
    NEXT(d, MapMemory);
    NEXT(d, CmdDispatch);
    NEXT(d, CmdDispatchBase);
    NEXT(d, CmdDispatchIndirect);
    NEXT(d, CmdBindPipeline);
    NEXT(d, CreateShadersEXT);
    NEXT(d, DestroyShaderEXT);
    NEXT(d, CmdBindShadersEXT);
    NEXT(d, CmdExecuteCommands);
    NEXT(d, CmdBeginDebugUtilsLabelEXT);
    NEXT(d, CmdEndDebugUtilsLabelEXT);
#define NEXT_WORK(command, kind, params, args) NEXT(d, command);
    WGPROF_LAYER_WORK_COMMANDS(NEXT_WORK)
#define NEXT_PASS(command, params, args) NEXT(d, command);
    WGPROF_LAYER_PASS_BEGINS(NEXT_PASS)
    NEXT(d, BeginCommandBuffer);
    NEXT(d, EndCommandBuffer);
    NEXT(d, ResetCommandBuffer);
    NEXT(d, AllocateCommandBuffers);
    NEXT(d, FreeCommandBuffers);
    NEXT(d, CreateCommandPool);
    NEXT(d, DestroyCommandPool);
    NEXT(d, ResetCommandPool);
    NEXT(d, CreateShaderModule);
    NEXT(d, DestroyShaderModule);
    NEXT(d, CreateComputePipelines);
    NEXT(d, DestroyPipeline);
    NEXT(d, SetDebugUtilsObjectNameEXT);
    NEXT(d, QueueSubmit);
    NEXT(d, QueueSubmit2);
    NEXT(d, QueueSubmit2KHR);
    NEXT(d, QueueWaitIdle);
    NEXT(d, DeviceWaitIdle);
    NEXT(d, WaitForFences);
    NEXT(d, GetFenceStatus);
    NEXT(d, DestroyFence);
    NEXT(d, DestroySemaphore);
    NEXT(d, WaitSemaphores);
    NEXT(d, WaitSemaphoresKHR);
    NEXT(d, GetSemaphoreCounterValue);
    NEXT(d, GetSemaphoreCounterValueKHR);
    /* Read from a buffer of the layer's where asked, or by default on a CPU device (lavapipe:
     * reading its query pools waits for the whole device, unsafely beside the program's submits). */
    const char *readback = wgprof_layer_settings_get()->readback;
    d->readback_buffer = strcmp(readback, "buffer") == 0 ||
                         (strcmp(readback, "query") != 0 && props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU);
    if (d->readback_buffer && i->GetPhysicalDeviceMemoryProperties) {
        i->GetPhysicalDeviceMemoryProperties(physical, &d->memory);
    }
    d->readback_buffer = d->readback_buffer && i->GetPhysicalDeviceMemoryProperties;
    d->read_anywhere = d->readback_buffer || props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
    /* There, its queries are reset in the stream too: a reset from the host (lavapipe's destroys
     * the query through the queue's context) is not safe beside the queue's running either. */
    if (host_reset && !d->readback_buffer) {
        d->ResetQueryPool = (PFN_vkResetQueryPool)gdpa(*out, "vkResetQueryPool");
        if (!d->ResetQueryPool) {
            d->ResetQueryPool = (PFN_vkResetQueryPool)gdpa(*out, "vkResetQueryPoolEXT");
        }
    }
    d->period_ns = props.limits.timestampPeriod;
    /* A period that is not a positive finite number turns no tick into a time: the device's
     * dispatches are counted, none timed, and that is said. */
    bool period_ok = isfinite(d->period_ns) && d->period_ns > 0;
    if (!period_ok) {
        wgprof_layer_say("device %s: its timestampPeriod is %g, not a positive finite number of nanoseconds a "
                         "tick: its dispatches are counted, not timed",
                         props.deviceName, d->period_ns);
    }
    uint32_t families = 0;
    i->GetPhysicalDeviceQueueFamilyProperties(physical, &families, NULL);
    VkQueueFamilyProperties fam[WGPROF_LAYER_FAMILIES];
    families = families < WGPROF_LAYER_FAMILIES ? families : WGPROF_LAYER_FAMILIES;
    i->GetPhysicalDeviceQueueFamilyProperties(physical, &families, fam);
    /* Every reading is unwrapped at one width: the widest that a family able to dispatch counts
     * (an H100 has a family of 32 bits beside its 64-bit ones: at the narrowest, every tick
     * would lose its high bits, and records apart by more than 2^31 ticks their place on one
     * timeline). A family narrower than that is not timed, as one without timestamps. */
    uint32_t widest = 0, widest_any = 0;
    for (uint32_t k = 0; k < families; k++) {
        uint32_t bits = period_ok ? fam[k].timestampValidBits : 0;
        widest_any = bits > widest_any ? bits : widest_any;
        if ((fam[k].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) && bits > widest) {
            widest = bits;
        }
    }
    d->pool_bits = widest ? widest : widest_any;
    for (uint32_t k = 0; k < families; k++) {
        uint32_t bits = period_ok ? fam[k].timestampValidBits : 0;
        d->valid_bits[k] = bits >= d->pool_bits ? bits : 0;
        if (d->ResetQueryPool || (fam[k].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))) {
            d->work_families |= 1u << k;
        }
    }
    describe(d, &props);
    d->info.timestamp_query = d->pool_bits != 0;
    d->info.profiling_available = d->pool_bits != 0;
    d->pid = wgprof_layer_pid();
    if (wgprof_pool_create_external(NULL, &d->results) != WGPROF_OK) {
        d->results = NULL;
        wgprof_layer_say("device %s: out of memory: it runs untimed", props.deviceName);
    }
    d->index = wgprof_layer_settings_get()->timestamps_only ? 0 : wgprof_layer_output_claim(); /* no report */
    if (!wgprof_layer_device_put(d)) {
        wgprof_pool_destroy(d->results);
        wgprof__free(d);
    } else if (wgprof_layer_settings_get()->dir[0] && !wgprof_layer_settings_get()->timestamps_only) {
        pthread_once(&g_term_once, watch_term);
    }
    return r;
}

/* How long the end of a process (or of its image) waits for the work it submitted to finish. */
enum { END_WAIT_NS = 2000000000, END_POLL_NS = 1000000 };

/* Records of command buffers submitted and not read yet. */
static uint64_t unread_records(wgprof_layer_device *d)
{
    uint64_t n = 0;
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->in_flight_count; i++) {
        n += wgprof_layer_chain_records(d->in_flight[i]);
    }
    pthread_mutex_unlock(&d->lock);
    return n;
}

/* The device's end, or the process's: the work submitted is waited for (at most END_WAIT_NS;
 * at vkDestroyDevice, Vulkan's rules say it is over), read as it finishes, and the results
 * written for good: complete, or partial saying how many records never finished. A second
 * caller (the program destroying the device while a SIGTERM's thread ends the process, or the
 * other way round) waits for the first's results to be written. */
static void finish(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->lock);
    bool done = d->finished;
    d->finished = true;
    while (done && !d->final_written) {
        pthread_cond_wait(&d->final_cond, &d->lock);
    }
    pthread_mutex_unlock(&d->lock);
    if (done) {
        return;
    }
    wgprof_layer_reader_stop(d);
    uint64_t deadline = wgprof_cpu_now_ns() + END_WAIT_NS;
    wgprof_layer_poll(d, false);
    while (unread_records(d) && wgprof_cpu_now_ns() < deadline) {
        struct timespec pause = {0, END_POLL_NS};
        nanosleep(&pause, NULL);
        wgprof_layer_poll(d, false);
    }
    uint64_t unfinished = unread_records(d);
    wgprof_layer_poll(d, true); /* what never came: records without a time */
    char why[256];
    if (unfinished) {
        snprintf(why, sizeof why,
                 "%llu records of work the program submitted had not finished %.0f s after the program's end: "
                 "they are in the report without a time",
                 (unsigned long long)unfinished, END_WAIT_NS / 1e9);
    }
    if (!wgprof_layer_settings_get()->timestamps_only) {
        wgprof_layer_output_write(d, unfinished ? why : NULL);
    }
    pthread_mutex_lock(&d->lock);
    d->final_written = true;
    pthread_cond_broadcast(&d->final_cond);
    pthread_mutex_unlock(&d->lock);
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    if (!d) {
        return;
    }
    finish(d);
    wgprof_layer_cbs_forget(d);
    wgprof_layer_cb_spares_free(d);
    wgprof_layer_tails_destroy(d);
    wgprof_layer_retire_forget(d);
    wgprof_layer_device_take(device);
    wgprof_layer_device_unwalked(d);
    for (size_t k = 0; k < d->query_pool_count; k++) {
        wgprof_layer_readback_free(d, &d->query_pools[k]);
        d->DestroyQueryPool(device, d->query_pools[k].pool, NULL);
    }
    PFN_vkDestroyDevice destroy = d->DestroyDevice;
    wgprof_pool_destroy(d->results);
    wgprof__free(d->query_pools);
    wgprof__free(d->free_blocks);
    wgprof__free(d->in_flight);
    pthread_cond_destroy(&d->read_done);
    pthread_cond_destroy(&d->reader_wake);
    pthread_cond_destroy(&d->final_cond);
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->spares_lock);
    pthread_mutex_destroy(&d->results_lock);
    wgprof__free(d);
    destroy(device, alloc);
}

/* A program that ends (or replaces its image) without destroying its device: its work finished
 * and read, as at the device's end. A child of fork() holds a copy of its parent's devices,
 * whose results are the parent's to write: it writes only those it made. */
static void finish_at_exit(wgprof_layer_device *d)
{
    if (d->pid == wgprof_layer_pid()) {
        finish(d);
    }
}

static void at_exit(void) { wgprof_layer_devices_each(finish_at_exit); }

/* At a SIGTERM or an _exit: as at exit, but for a device that recorded nothing and wrote nothing
 * yet (one a browser's GPU process keeps for itself), which the signal's default action or the
 * _exit would have ended without a word, as it did before the layer answered them. */
static void finish_at_term(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->results_lock);
    bool empty = !d->results || wgprof_pool_count(d->results) == 0;
    pthread_mutex_unlock(&d->results_lock);
    pthread_mutex_lock(&d->lock);
    empty = empty && !d->snapshot_ns && atomic_load(&d->dispatches) == 0;
    pthread_mutex_unlock(&d->lock);
    if (!empty) {
        finish_at_exit(d);
    }
}

static void at_term(void) { wgprof_layer_devices_each(finish_at_term); }

/* Before an exec, from record's preload library (record.h): no exit handler runs then. */
WGPROF_LAYER_EXPORT void wgprof_layer_end_image(void);
WGPROF_LAYER_EXPORT void wgprof_layer_end_image(void) { at_exit(); }

__attribute__((constructor)) static void watch(void)
{
    if (wgprof_layer_settings_get()->dir[0]) {
        atexit(at_exit);
    }
}

/* ---- the loader's interface ---- */

typedef struct hook {
    const char *name;
    PFN_vkVoidFunction fn;
} hook;

/* HOOK(Name, fn): the layer's fn for vkName, checked against PFN_vkName (the selection has no
 * other case: a hook of another signature does not compile). */
#define HOOK(name, fn) {"vk" #name, (PFN_vkVoidFunction)_Generic(&(fn), PFN_vk##name: &(fn))}

static const hook DEVICE_HOOKS[] = {
    HOOK(DestroyDevice, layer_DestroyDevice),
    HOOK(CreateShaderModule, wgprof_layer_CreateShaderModule),
    HOOK(DestroyShaderModule, wgprof_layer_DestroyShaderModule),
    HOOK(CreateComputePipelines, wgprof_layer_CreateComputePipelines),
    HOOK(DestroyPipeline, wgprof_layer_DestroyPipeline),
    HOOK(CreateShadersEXT, wgprof_layer_CreateShadersEXT),
    HOOK(DestroyShaderEXT, wgprof_layer_DestroyShaderEXT),
    HOOK(CmdBindShadersEXT, wgprof_layer_CmdBindShadersEXT),
    HOOK(SetDebugUtilsObjectNameEXT, layer_SetDebugUtilsObjectNameEXT),
    HOOK(CreateCommandPool, wgprof_layer_CreateCommandPool),
    HOOK(DestroyCommandPool, wgprof_layer_DestroyCommandPool),
    HOOK(ResetCommandPool, wgprof_layer_ResetCommandPool),
    HOOK(AllocateCommandBuffers, wgprof_layer_AllocateCommandBuffers),
    HOOK(FreeCommandBuffers, wgprof_layer_FreeCommandBuffers),
    HOOK(BeginCommandBuffer, wgprof_layer_BeginCommandBuffer),
    HOOK(EndCommandBuffer, wgprof_layer_EndCommandBuffer),
    HOOK(ResetCommandBuffer, wgprof_layer_ResetCommandBuffer),
    HOOK(CmdBindPipeline, wgprof_layer_CmdBindPipeline),
    HOOK(CmdDispatch, wgprof_layer_CmdDispatch),
    HOOK(CmdDispatchBase, wgprof_layer_CmdDispatchBase),
    HOOK(CmdDispatchBaseKHR, wgprof_layer_CmdDispatchBase),
    HOOK(CmdDispatchIndirect, wgprof_layer_CmdDispatchIndirect),
    HOOK(CmdExecuteCommands, wgprof_layer_CmdExecuteCommands),
    HOOK(CmdBeginDebugUtilsLabelEXT, wgprof_layer_CmdBeginDebugUtilsLabelEXT),
    HOOK(CmdEndDebugUtilsLabelEXT, wgprof_layer_CmdEndDebugUtilsLabelEXT),
#define WORK_HOOK(command, kind, params, args) HOOK(command, wgprof_layer_##command),
    WGPROF_LAYER_WORK_COMMANDS(WORK_HOOK)
#define PASS_HOOK(command, params, args) HOOK(command, wgprof_layer_##command),
    WGPROF_LAYER_PASS_BEGINS(PASS_HOOK)
    HOOK(QueueSubmit, wgprof_layer_QueueSubmit),
    HOOK(QueueSubmit2, wgprof_layer_QueueSubmit2),
    HOOK(QueueSubmit2KHR, wgprof_layer_QueueSubmit2KHR),
    HOOK(QueueWaitIdle, wgprof_layer_QueueWaitIdle),
    HOOK(DeviceWaitIdle, wgprof_layer_DeviceWaitIdle),
    HOOK(WaitForFences, wgprof_layer_WaitForFences),
    HOOK(GetFenceStatus, wgprof_layer_GetFenceStatus),
    HOOK(DestroyFence, wgprof_layer_DestroyFence),
    HOOK(DestroySemaphore, wgprof_layer_DestroySemaphore),
    HOOK(WaitSemaphores, wgprof_layer_WaitSemaphores),
    HOOK(WaitSemaphoresKHR, wgprof_layer_WaitSemaphoresKHR),
    HOOK(GetSemaphoreCounterValue, wgprof_layer_GetSemaphoreCounterValue),
    HOOK(GetSemaphoreCounterValueKHR, wgprof_layer_GetSemaphoreCounterValueKHR),
};

static PFN_vkVoidFunction device_hook(const char *name)
{
    for (size_t k = 0; k < sizeof DEVICE_HOOKS / sizeof *DEVICE_HOOKS; k++) {
        if (strcmp(name, DEVICE_HOOKS[k].name) == 0) {
            return DEVICE_HOOKS[k].fn;
        }
    }
    return NULL;
}

WGPROF_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wgprof_layer_GetDeviceProcAddr(VkDevice device,
                                                                                            const char *name);

WGPROF_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wgprof_layer_GetDeviceProcAddr(VkDevice device,
                                                                                            const char *name)
{
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return (PFN_vkVoidFunction)wgprof_layer_GetDeviceProcAddr;
    }
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    if (!d) {
        return NULL;
    }
    PFN_vkVoidFunction next = d->gdpa(device, name);
    /* Only what the device has (an extension's function where it was enabled). */
    PFN_vkVoidFunction mine = next ? device_hook(name) : NULL;
    return mine ? mine : next;
}

WGPROF_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wgprof_layer_GetInstanceProcAddr(VkInstance instance,
                                                                                              const char *name);

WGPROF_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wgprof_layer_GetInstanceProcAddr(VkInstance instance,
                                                                                              const char *name)
{
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) {
        return (PFN_vkVoidFunction)wgprof_layer_GetInstanceProcAddr;
    }
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return (PFN_vkVoidFunction)wgprof_layer_GetDeviceProcAddr;
    }
    if (strcmp(name, "vkCreateInstance") == 0) {
        return (PFN_vkVoidFunction)layer_CreateInstance;
    }
    wgprof_layer_instance *i = instance ? wgprof_layer_instance_of(instance) : NULL;
    if (!i) {
        return NULL;
    }
    if (strcmp(name, "vkDestroyInstance") == 0) {
        return (PFN_vkVoidFunction)layer_DestroyInstance;
    }
    if (strcmp(name, "vkCreateDevice") == 0) {
        return (PFN_vkVoidFunction)layer_CreateDevice;
    }
    PFN_vkVoidFunction next = i->gipa(instance, name);
    PFN_vkVoidFunction mine = next ? device_hook(name) : NULL;
    return mine ? mine : next;
}

WGPROF_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *interface)
{
    if (!interface || interface->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) {
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (interface->loaderLayerInterfaceVersion > 2) {
        interface->loaderLayerInterfaceVersion = 2;
    }
    interface->pfnGetInstanceProcAddr = wgprof_layer_GetInstanceProcAddr;
    interface->pfnGetDeviceProcAddr = wgprof_layer_GetDeviceProcAddr;
    interface->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
