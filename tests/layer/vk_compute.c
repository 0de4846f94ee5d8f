/*
 * A plain Vulkan compute program, for the tests of wgprof's Vulkan layer (tests/test_layer.sh):
 * it knows nothing of wgprof, links the Vulkan loader as applications do and enables no layer
 * of its own. Two compute pipelines (scale.comp, fold.comp: SPIR-V compiled at build time, with
 * the entry points `scale` and `fold`) run one after the other on one storage buffer, a buffer
 * barrier between them, STEPS times, each step submitted with a fence and waited for; then it
 * reads the buffer back, checks it against the same arithmetic on the CPU and prints a checksum.
 *
 * Usage: vk_compute MODE [STEPS] [--debug-utils] [--split-labels] [--middle-dispatch] [--end HOW]
 *   basic      a command buffer allocated, recorded and freed per step
 *   names      basic, with the pipelines named `scaler` and `folder` through
 *              vkSetDebugUtilsObjectNameEXT (needs VK_EXT_debug_utils: else exit 77)
 *   reuse      one command buffer recorded once and submitted STEPS times
 *   secondary  the dispatches in a secondary command buffer recorded once, executed from a
 *              primary one recorded per step
 *   indirect   basic through vkCmdDispatchIndirect, the counts in a buffer
 *   base       basic through vkCmdDispatchBase (base 0)
 *   counts     basic with scale in two pieces through vkCmdDispatchBase, split where the step
 *              says (one of five places: scale's workgroup counts 8 and 56, 24 and 40, 40 and
 *              24, 56 and 8, 16 and 48), so that one pipeline runs with six counts, two a step
 *   long       every step recorded into one command buffer, submitted once: 2 * STEPS
 *              dispatches in one buffer (more than a block of queries from 32 steps on)
 *   mixed      scale dispatched in a primary command buffer recorded per step, fold in a
 *              secondary one recorded once, executed right after it
 *   render     long, each step followed by a render pass (no attachments, nothing drawn)
 *              that runs an empty secondary command buffer (recorded once, inside the pass),
 *              but for the last 4 steps', empty and inline; a profiler must end fold's row
 *              where the pass begins (from 47 steps on, a profiler that writes 3 timestamps a
 *              step into blocks of 64 queries, each reset in the stream, opens a block at step
 *              42's pass)
 *   inline     basic, its pipelines made from SPIR-V their stage carries itself, no shader
 *              module (VK_KHR_maintenance5, on a Vulkan 1.3 instance: else exit 77)
 *   simultaneous  reuse, its command buffer recorded for simultaneous use
 *   batch      each step's scale and fold in a command buffer each (one dispatch each, as
 *              an implementation that records a command buffer a pass has them), submitted
 *              together in one batch; batch2 the same through vkQueueSubmit2 (a Vulkan 1.3
 *              device: else exit 77), with a command buffer of a barrier alone between them
 *              (as wgpu-native records one before each pass); with --middle-dispatch, that one
 *              also dispatches scale once more after its barrier
 *   pipelined  basic with two steps in flight: each submitted with a fence of its own, then,
 *              20 ms later (its work long done), the step before it waited for
 *   event      basic, each step's end known through an event that a second command buffer,
 *              submitted after the step's, sets once everything before it is done
 *              (vkGetEventStatus polled: no fence, no wait the layer sees), then the step's
 *              command buffer freed; under record (WGPROF_RECORD_DIR set), then waits up to 10 s for a
 *              file of results (*.json) in that folder, written while it runs (a profiler that
 *              reads a command buffer freed unread writes one at once), and says which:
 *              `vk_compute: results written while running` or `vk_compute: no results written
 *              while running`
 *   pools      two command pools; each step: scale in a command buffer of the first pool, submitted,
 *              waited for, freed and the pool trimmed; then a command buffer of the second pool
 *              (its handle most likely the freed one's, its memory reused) begun with scale, the first pool
 *              reset while it is being recorded, fold recorded in a command buffer the first pool
 *              keeps, and both submitted together: scale runs twice a step, and a profiler that
 *              took the reset of the first pool for the second's command buffer loses its scale
 *   sync       basic, each step submitted with a fence and SYNC_SEMAPHORES timeline semaphores
 *              of its own (each signalled to 1), waited for through both, then destroyed: a
 *              program that makes its sync objects as it goes, on a driver that never gives a
 *              handle out twice (their memory comes from allocation callbacks of the program's
 *              that never hand out an address again, outside the heap); needs a Vulkan 1.2
 *              device with timeline semaphores (else exit 77); says on stderr by how much its
 *              heap (mallinfo2, every arena) grew over its steps, a step: `vk_compute: heap N
 *              bytes a step`
 *   objects    basic with compute shader objects bound instead of pipelines
 *              (VK_EXT_shader_object, on a Vulkan 1.3 instance: else exit 77)
 *   work       basic, with the program's own transfer work between the dispatches and debug
 *              labels around some (needs VK_EXT_debug_utils: else exit 77); each step's buffer:
 *                fill a spare buffer            at the buffer's start
 *                begin "" (no name), scale, end
 *                copy the data into the spare
 *                begin "block", begin "", begin "fold", fold, end, end, end
 *                begin "tail", update the spare (but the last: left open at the buffer's end)
 *              with --split-labels, each buffer but the first ends "tail" after its fill: an
 *              end begun in the buffer before, as Vulkan allows on one queue (Mesa 22's lavapipe
 *              crashes on it); without, "tail" is never ended.
 * --end HOW, what the program does once its work is done and checked (the manifest and checksum
 * printed and flushed first): keep (returns from main without destroying its device or
 * anything else), abort (abort()), fork (a child of fork() exits at once through exit(); the
 * parent waits for it, then ends as usual), exec (replaces itself with `/bin/sh -c 'exit 0'`
 * without destroying anything), term (sends itself SIGTERM without destroying anything: ended
 * by it, exit status 143 to a shell; still alive 10 s later, it says so and exits 1), fork-term
 * (a child of fork() waits until the parent sends it SIGTERM, which must end it within 10 s;
 * the parent then ends as usual), after-parent (waits until the process that started it has
 * ended, at most 10 s, else it says so and exits 1; then 200 ms more, and ends as usual: a
 * helper process that outlives the program that started it, as a browser's GPU process may),
 * exit-now (a thread of its own calls _exit(0) without destroying anything, as a child process
 * of Chromium's ends when its browser closes the connection).
 * The default ends as usual: everything destroyed, then printed.
 * --close-fds DIR, once the device is made: every descriptor of a folder from 3 up closed (one a
 * profiler opened included; the driver's own files are left, which Mesa 25's lavapipe needs),
 * then the folder DIR opened 16 times, as a program that tidies its descriptors and opens its
 * own would; it must be left empty.
 * --no-device: the instance made and a device picked, then the program ends (exit 0, nothing
 * printed) without making a device, as a program that looks for a GPU and finds none it wants.
 * STEPS: default 5. --debug-utils enables VK_EXT_debug_utils where offered and prints every
 * warning or error a layer reports through it on stderr, one line each:
 *   vk_compute: message ID: TEXT
 *
 * On stdout, what it submitted, for tests/record/check_record.py: `manifest KERNEL COUNT`, and
 * `workgroups KERNEL X Y Z COUNT` for the direct dispatches, where KERNEL is the name a
 * profiler must give: `label:entry`, with `*` for the label where the pipeline has no name
 * (the profiler's choice), and ` (indirect)` after it for indirect dispatches, or, for the
 * program's own work between them, the name the profiler gives a run of it (`(copy)`,
 * `(clear)`: a buffer fill is WebGPU's clearBuffer, an update its writeBuffer); `scope KERNEL
 * PATH COUNT` for those recorded inside debug labels, PATH their names outermost first, joined
 * by `/` (every other record is in none); then `checksum HEX`. Exit 0 on success; 1 with a message on any Vulkan error or a wrong result;
 * 2 bad usage.
 */
#define _GNU_SOURCE /* O_DIRECTORY, fork, execl */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "fold.spv.h"
#include "scale.spv.h"

#define ELEMENTS 4096u
#define SCALE_LOCAL 64u
#define FOLD_LOCAL 32u
#define FOLD_ROWS 2u

typedef enum mode {
    MODE_BASIC,
    MODE_NAMES,
    MODE_REUSE,
    MODE_SECONDARY,
    MODE_INDIRECT,
    MODE_WORK,
    MODE_BASE,
    MODE_LONG,
    MODE_MIXED,
    MODE_INLINE,
    MODE_OBJECTS,
    MODE_SIMULTANEOUS,
    MODE_BATCH,
    MODE_BATCH2,
    MODE_PIPELINED,
    MODE_EVENT,
    MODE_RENDER,
    MODE_COUNTS,
    MODE_POOLS,
    MODE_SYNC
} mode;
static const char *const mode_names[] = {"basic",  "names",   "reuse",        "secondary", "indirect",
                                         "work",   "base",    "long",         "mixed",     "inline",
                                         "objects", "simultaneous", "batch", "batch2", "pipelined", "event",
                                         "render", "counts", "pools", "sync"};

/* VK_KHR_maintenance5's feature, declared here (Vulkan headers older than 1.3.260 lack it). */
#define MAINTENANCE5_EXTENSION "VK_KHR_maintenance5"
#define MAINTENANCE5_FEATURES_STYPE ((VkStructureType)1000470000)
typedef struct maintenance5_features {
    VkStructureType sType;
    void *pNext;
    VkBool32 maintenance5;
} maintenance5_features;
static bool g_inline;
/* counts: scale's pipeline made for dispatches with a base (VK_PIPELINE_CREATE_DISPATCH_BASE_BIT). */
static bool g_dispatch_base;
static bool g_submit2; /* batch2: vkQueueSubmit2, synchronization2 enabled */
static bool g_timeline; /* sync: timeline semaphores enabled */

/* VK_EXT_shader_object, declared here as the registry has it (Vulkan headers before 1.3.246). */
#define SHADER_OBJECT_EXTENSION "VK_EXT_shader_object"
#define SHADER_OBJECT_FEATURES_STYPE ((VkStructureType)1000482000)
#define SHADER_CREATE_INFO_STYPE ((VkStructureType)1000482002)
typedef struct shader_object_features {
    VkStructureType sType;
    void *pNext;
    VkBool32 shaderObject;
} shader_object_features;
typedef uint64_t shader_object; /* VkShaderEXT */
typedef struct shader_create_info {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    VkShaderStageFlagBits stage;
    VkShaderStageFlags nextStage;
    int codeType; /* 1: SPIR-V */
    size_t codeSize;
    const void *pCode;
    const char *pName;
    uint32_t setLayoutCount;
    const VkDescriptorSetLayout *pSetLayouts;
    uint32_t pushConstantRangeCount;
    const VkPushConstantRange *pPushConstantRanges;
    const VkSpecializationInfo *pSpecializationInfo;
} shader_create_info;
typedef VkResult(VKAPI_PTR *create_shaders_fn)(VkDevice, uint32_t, const shader_create_info *,
                                              const VkAllocationCallbacks *, shader_object *);
typedef void(VKAPI_PTR *destroy_shader_fn)(VkDevice, shader_object, const VkAllocationCallbacks *);
typedef void(VKAPI_PTR *bind_shaders_fn)(VkCommandBuffer, uint32_t, const VkShaderStageFlagBits *,
                                         const shader_object *);
static bool g_objects;
typedef enum end_how {
    END_USUAL,
    END_KEEP,
    END_ABORT,
    END_FORK,
    END_EXEC,
    END_TERM,
    END_FORK_TERM,
    END_AFTER_PARENT,
    END_EXIT_NOW
} end_how;
static const char *const end_names[] = {"usual",     "keep",         "abort",   "fork", "exec", "term",
                                        "fork-term", "after-parent", "exit-now"};

static const uint32_t scale_groups[3] = {ELEMENTS / SCALE_LOCAL, 1, 1};
static const uint32_t fold_groups[3] = {ELEMENTS / FOLD_LOCAL / FOLD_ROWS, FOLD_ROWS, 1};

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vk_compute: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* --end exit-now's thread: the process ended at once, no exit handler run. */
static void *exit_now(void *unused)
{
    (void)unused;
    _exit(0);
}

static const char *result_name(VkResult r)
{
    switch (r) {
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    default: return "another VkResult";
    }
}

/* Any result but VK_SUCCESS ends the program, naming the call. */
#define VK_CHECK(call)                                                                                       \
    do {                                                                                                     \
        VkResult r_ = (call);                                                                                \
        if (r_ != VK_SUCCESS) {                                                                              \
            die("%s failed: %s (%d)", #call, result_name(r_), (int)r_);                                      \
        }                                                                                                    \
    } while (0)

typedef struct app {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    PFN_vkSetDebugUtilsObjectNameEXT set_name;
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label;
    VkPhysicalDevice physical;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkBuffer data, indirect, spare;
    VkDeviceMemory data_memory, indirect_memory, spare_memory;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkShaderModule modules[2];
    VkPipeline scale, fold;
    shader_object shaders[2]; /* objects: scale's and fold's */
    bind_shaders_fn bind_shaders;
    destroy_shader_fn destroy_shader;
    VkCommandPool pool;
    VkFence fence;
} app;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    (void)user;
    const char *level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT     ? "error"
                        : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT ? "warning"
                        : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT    ? "info"
                                                                                      : "verbose";
    fprintf(stderr, "vk_compute: message (%s) %s: %s\n", level, data->pMessageIdName ? data->pMessageIdName : "(no id)",
            data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

static bool instance_has_extension(const char *name)
{
    uint32_t count = 0;
    VK_CHECK(vkEnumerateInstanceExtensionProperties(NULL, &count, NULL));
    VkExtensionProperties *props = calloc(count ? count : 1, sizeof *props);
    if (!props) {
        die("out of memory");
    }
    VK_CHECK(vkEnumerateInstanceExtensionProperties(NULL, &count, props));
    bool found = false;
    for (uint32_t i = 0; i < count && !found; i++) {
        found = strcmp(props[i].extensionName, name) == 0;
    }
    free(props);
    return found;
}

static void create_instance(app *a, bool debug_utils)
{
    VkApplicationInfo info = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                              .pApplicationName = "vk_compute",
                              .apiVersion = g_inline || g_objects || g_submit2 ? VK_API_VERSION_1_3
                                             : g_timeline                       ? VK_API_VERSION_1_2
                                                                                : VK_API_VERSION_1_1};
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    /* The messenger is also chained to the instance's creation, as wgpu does: it hears what the
     * loader and the layers say while the instance is made (the loader's words on
     * VK_INSTANCE_LAYERS among them, at every severity). */
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = debug_utils ? &mi : NULL,
                               .pApplicationInfo = &info,
                               .enabledExtensionCount = debug_utils ? 1u : 0u,
                               .ppEnabledExtensionNames = extensions};
    VK_CHECK(vkCreateInstance(&ci, NULL, &a->instance));
    if (!debug_utils) {
        return;
    }
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    a->set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(a->instance, "vkSetDebugUtilsObjectNameEXT");
    a->begin_label =
        (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(a->instance, "vkCmdBeginDebugUtilsLabelEXT");
    a->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(a->instance, "vkCmdEndDebugUtilsLabelEXT");
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
    if (!a->set_name || !a->begin_label || !a->end_label || !create) {
        die("VK_EXT_debug_utils is enabled but its functions are missing");
    }
    VK_CHECK(create(a->instance, &mi, NULL, &a->messenger));
}

static void pick_device(app *a)
{
    uint32_t count = 0;
    VK_CHECK(vkEnumeratePhysicalDevices(a->instance, &count, NULL));
    if (!count) {
        die("no Vulkan device");
    }
    VkPhysicalDevice *devices = calloc(count, sizeof *devices);
    if (!devices) {
        die("out of memory");
    }
    VK_CHECK(vkEnumeratePhysicalDevices(a->instance, &count, devices));
    for (uint32_t d = 0; d < count && !a->physical; d++) {
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, NULL);
        VkQueueFamilyProperties *props = calloc(families ? families : 1, sizeof *props);
        if (!props) {
            die("out of memory");
        }
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, props);
        for (uint32_t f = 0; f < families; f++) {
            if (props[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                a->physical = devices[d];
                a->family = f;
                break;
            }
        }
        free(props);
    }
    free(devices);
    if (!a->physical) {
        die("no Vulkan device with a compute queue");
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(a->physical, &props);
    fprintf(stderr, "vk_compute: on %s\n", props.deviceName);
}

/* Fills `chain` (one features structure, its pNext NULL) where the device offers Vulkan `version`;
 * else leaves it as it is (each feature false). */
static void features_of(const app *a, uint32_t version, void *chain)
{
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(a->physical, &props);
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = chain};
    if (props.apiVersion >= version) {
        vkGetPhysicalDeviceFeatures2(a->physical, &features);
    }
}

/* Skipped (exit 77) where the device does not offer what the mode needs. */
static void needs(VkBool32 offered, const char *what)
{
    if (!offered) {
        fprintf(stderr, "vk_compute: skipped: this mode needs %s, which this device does not offer\n", what);
        exit(77);
    }
}

static void create_device(app *a)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = a->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi};
    maintenance5_features m5 = {.sType = MAINTENANCE5_FEATURES_STYPE, .maintenance5 = VK_TRUE};
    shader_object_features so = {.sType = SHADER_OBJECT_FEATURES_STYPE, .shaderObject = VK_TRUE};
    const char *m5_name = g_objects ? SHADER_OBJECT_EXTENSION : MAINTENANCE5_EXTENSION;
    if (g_inline || g_objects) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(a->physical, &props);
        uint32_t count = 0;
        VK_CHECK(vkEnumerateDeviceExtensionProperties(a->physical, NULL, &count, NULL));
        VkExtensionProperties *ext = calloc(count ? count : 1, sizeof *ext);
        if (!ext) {
            die("out of memory");
        }
        VK_CHECK(vkEnumerateDeviceExtensionProperties(a->physical, NULL, &count, ext));
        bool found = false;
        for (uint32_t i = 0; i < count && !found; i++) {
            found = strcmp(ext[i].extensionName, m5_name) == 0;
        }
        free(ext);
        if (!found || props.apiVersion < VK_API_VERSION_1_3) {
            fprintf(stderr, "vk_compute: skipped: this mode needs Vulkan 1.3 and %s, which this device does not offer\n",
                    m5_name);
            exit(77);
        }
        ci.pNext = g_objects ? (const void *)&so : (const void *)&m5;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &m5_name;
    }
    VkPhysicalDeviceSynchronization2Features sync2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
    if (g_submit2) {
        features_of(a, VK_API_VERSION_1_3, &sync2);
        needs(sync2.synchronization2, "Vulkan 1.3's synchronization2");
        ci.pNext = &sync2;
    }
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    if (g_timeline) {
        features_of(a, VK_API_VERSION_1_2, &timeline);
        needs(timeline.timelineSemaphore, "Vulkan 1.2's timeline semaphores");
        ci.pNext = &timeline;
    }
    VK_CHECK(vkCreateDevice(a->physical, &ci, NULL, &a->device));
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
}

/* A buffer in host-visible, coherent memory: the program writes and reads it directly. */
static void create_buffer(app *a, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *buffer, VkDeviceMemory *memory)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_CHECK(vkCreateBuffer(a->device, &bi, NULL, buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, *buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(a->physical, &mem);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t t = 0; t < mem.memoryTypeCount && type == UINT32_MAX; t++) {
        if ((req.memoryTypeBits & (1u << t)) && (mem.memoryTypes[t].propertyFlags & want) == want) {
            type = t;
        }
    }
    if (type == UINT32_MAX) {
        die("no host-visible, coherent memory type for a buffer");
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VK_CHECK(vkAllocateMemory(a->device, &ai, NULL, memory));
    VK_CHECK(vkBindBufferMemory(a->device, *buffer, *memory, 0));
}

static void write_memory(app *a, VkDeviceMemory memory, const void *from, size_t size)
{
    void *p = NULL;
    VK_CHECK(vkMapMemory(a->device, memory, 0, VK_WHOLE_SIZE, 0, &p));
    memcpy(p, from, size);
    vkUnmapMemory(a->device, memory);
}

static void read_memory(app *a, VkDeviceMemory memory, void *to, size_t size)
{
    void *p = NULL;
    VK_CHECK(vkMapMemory(a->device, memory, 0, VK_WHOLE_SIZE, 0, &p));
    memcpy(to, p, size);
    vkUnmapMemory(a->device, memory);
}

static void create_descriptors(app *a)
{
    VkDescriptorSetLayoutBinding storage = {.binding = 0,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            .descriptorCount = 1,
                                            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 1,
                                          .pBindings = &storage};
    VK_CHECK(vkCreateDescriptorSetLayout(a->device, &li, NULL, &a->set_layout));
    VkDescriptorPoolSize size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &size};
    VK_CHECK(vkCreateDescriptorPool(a->device, &pi, NULL, &a->descriptor_pool));
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = a->descriptor_pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &a->set_layout};
    VK_CHECK(vkAllocateDescriptorSets(a->device, &ai, &a->set));
    VkDescriptorBufferInfo whole = {.buffer = a->data, .offset = 0, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = a->set,
                                  .dstBinding = 0,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &whole};
    vkUpdateDescriptorSets(a->device, 1, &write, 0, NULL);
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &a->set_layout};
    VK_CHECK(vkCreatePipelineLayout(a->device, &pl, NULL, &a->layout));
}

static VkPipeline create_pipeline(app *a, VkShaderModule *module, const uint32_t *code, size_t size,
                                  const char *entry, const char *name)
{
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    *module = VK_NULL_HANDLE;
    if (!g_inline) {
        VK_CHECK(vkCreateShaderModule(a->device, &mi, NULL, module));
    }
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .pNext = g_inline ? &mi : NULL, /* the code carried by the stage itself */
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = *module,
                  .pName = entry},
        .flags = g_dispatch_base ? VK_PIPELINE_CREATE_DISPATCH_BASE_BIT : 0,
        .layout = a->layout};
    VkPipeline pipeline;
    VK_CHECK(vkCreateComputePipelines(a->device, VK_NULL_HANDLE, 1, &ci, NULL, &pipeline));
    if (name) {
        VkDebugUtilsObjectNameInfoEXT ni = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                            .objectType = VK_OBJECT_TYPE_PIPELINE,
                                            .objectHandle = (uint64_t)pipeline,
                                            .pObjectName = name};
        VK_CHECK(a->set_name(a->device, &ni));
    }
    return pipeline;
}

/* What the shaders do, on the CPU. */
static bool g_middle_dispatch; /* batch2: the middle command buffer dispatches scale too; and pools */

static void step_on_cpu(uint32_t *v)
{
    for (unsigned k = 0; k < (g_middle_dispatch ? 2u : 1u); k++) {
        for (uint32_t i = 0; i < ELEMENTS; i++) {
            v[i] = v[i] * 3u + 1u;
        }
    }
    for (uint32_t i = 0; i < ELEMENTS; i++) {
        v[i] ^= (v[i] >> 7) + i;
    }
}

/* The shader's writes made visible to `dst_stage`'s `dst_access`. */
static void barrier(VkCommandBuffer cb, VkBuffer buffer, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    VkBufferMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = dst_access,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .buffer = buffer,
                               .offset = 0,
                               .size = VK_WHOLE_SIZE};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_stage, 0, 0, NULL, 1, &b, 0, NULL);
}

/* How a step dispatches. */
typedef enum dispatch_how { DISPATCH_DIRECT, DISPATCH_INDIRECT, DISPATCH_BASE } dispatch_how;

static void dispatch(const app *a, VkCommandBuffer cb, dispatch_how how, const uint32_t groups[3], VkDeviceSize at)
{
    if (how == DISPATCH_INDIRECT) {
        vkCmdDispatchIndirect(cb, a->indirect, at);
    } else if (how == DISPATCH_BASE) {
        vkCmdDispatchBase(cb, 0, 0, 0, groups[0], groups[1], groups[2]);
    } else {
        vkCmdDispatch(cb, groups[0], groups[1], groups[2]);
    }
}

/* Binds kernel `k` (0: scale, 1: fold): its pipeline, or in objects mode its shader object. */
static void bind_kernel(const app *a, VkCommandBuffer cb, int k)
{
    if (g_objects) {
        const VkShaderStageFlagBits stage = VK_SHADER_STAGE_COMPUTE_BIT;
        a->bind_shaders(cb, 1, &stage, &a->shaders[k]);
    } else {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k ? a->fold : a->scale);
    }
}

/* A step's fold, and a barrier to the host's read. */
static void record_fold(const app *a, VkCommandBuffer cb, dispatch_how how)
{
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
    bind_kernel(a, cb, 1);
    dispatch(a, cb, how, fold_groups, sizeof(VkDispatchIndirectCommand));
    barrier(cb, a->data, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

/* One step's work: scale, a barrier, fold, and a barrier to the host's read. */
static void record_step(const app *a, VkCommandBuffer cb, dispatch_how how)
{
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
    bind_kernel(a, cb, 0);
    dispatch(a, cb, how, scale_groups, 0);
    barrier(cb, a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    record_fold(a, cb, how);
}

/* counts: where step `step` splits scale's workgroups (of scale_groups[0]). */
static uint32_t counts_split(unsigned step)
{
    static const uint32_t splits[] = {8, 24, 40, 56, 16};
    return splits[step % (sizeof splits / sizeof splits[0])];
}

/* counts: a step's scale in two pieces, each element's workgroup once, then fold. */
static void record_counts_step(const app *a, VkCommandBuffer cb, unsigned step)
{
    const uint32_t split = counts_split(step);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
    bind_kernel(a, cb, 0);
    vkCmdDispatchBase(cb, 0, 0, 0, split, 1, 1);
    vkCmdDispatchBase(cb, split, 0, 0, scale_groups[0] - split, 1, 1);
    barrier(cb, a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    record_fold(a, cb, DISPATCH_DIRECT);
}

/* Every write so far (shaders', transfers') made visible to the transfers and shaders after. */
static void barrier_all(VkCommandBuffer cb)
{
    VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                         .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                         .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(cb, stages, stages, 0, 1, &b, 0, NULL, 0, NULL);
}

static void label(const app *a, VkCommandBuffer cb, const char *name)
{
    VkDebugUtilsLabelEXT info = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
    a->begin_label(cb, &info);
}

static bool g_split_labels;

/* MODE_WORK's step (see the top): step `s` of `steps`. */
static void record_work_step(const app *a, VkCommandBuffer cb, unsigned s, unsigned steps)
{
    vkCmdFillBuffer(cb, a->spare, 0, VK_WHOLE_SIZE, 0);
    if (g_split_labels && s > 0) {
        a->end_label(cb);
    }
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
    barrier_all(cb);
    label(a, cb, ""); /* as an implementation may wrap an unlabelled pass: no scope of the program's */
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->scale);
    vkCmdDispatch(cb, scale_groups[0], scale_groups[1], scale_groups[2]);
    a->end_label(cb);
    barrier_all(cb);
    VkBufferCopy region = {.size = ELEMENTS * sizeof(uint32_t)};
    vkCmdCopyBuffer(cb, a->data, a->spare, 1, &region);
    barrier_all(cb);
    label(a, cb, "block");
    label(a, cb, "");
    label(a, cb, "fold");
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->fold);
    vkCmdDispatch(cb, fold_groups[0], fold_groups[1], fold_groups[2]);
    a->end_label(cb);
    a->end_label(cb);
    a->end_label(cb);
    barrier(cb, a->data, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    if (s + 1 < steps) {
        const uint32_t word[4] = {s, steps, 0, 0};
        barrier_all(cb);
        label(a, cb, "tail");
        vkCmdUpdateBuffer(cb, a->spare, 0, sizeof word, word);
    }
}

static VkCommandBuffer allocate(const app *a, VkCommandBufferLevel level)
{
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = a->pool,
                                      .level = level,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, &cb));
    return cb;
}

static void begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags, const VkCommandBufferInheritanceInfo *inheritance)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = flags,
                                   .pInheritanceInfo = inheritance};
    VK_CHECK(vkBeginCommandBuffer(cb, &bi));
}

static void submit_and_wait(const app *a, VkCommandBuffer cb)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    VK_CHECK(vkQueueSubmit(a->queue, 1, &si, a->fence));
    VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(a->device, 1, &a->fence));
}

/* scale dispatched in `cb`, its writes then made visible to the next dispatch. */
static void record_scale_then_barrier(const app *a, VkCommandBuffer cb)
{
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
    bind_kernel(a, cb, 0);
    dispatch(a, cb, DISPATCH_DIRECT, scale_groups, 0);
    barrier(cb, a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

/* Whether a file of results (*.json) appears in `dir` within 10 s. */
static bool results_appear(const char *dir)
{
    for (int tries = 0; tries < 1000; tries++) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
                closedir(d);
                return true;
            }
        }
        if (d) {
            closedir(d);
        }
        struct timespec pause = {0, 10000000};
        nanosleep(&pause, NULL);
    }
    return false;
}

/* event: each step's end seen through an event alone, its command buffer then freed. */
static void run_event_steps(const app *a, unsigned steps)
{
    VkEventCreateInfo ei = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    VkEvent event;
    VK_CHECK(vkCreateEvent(a->device, &ei, NULL, &event));
    /* Set once every command before it on the queue is done (a profiler's own at the step's
     * command buffer's end included), in a submit of its own. */
    VkCommandBuffer setter = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    begin(setter, 0, NULL);
    vkCmdSetEvent(setter, event, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    VK_CHECK(vkEndCommandBuffer(setter));
    for (unsigned s = 0; s < steps; s++) {
        VkCommandBuffer cb = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
        begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        record_step(a, cb, DISPATCH_DIRECT);
        VK_CHECK(vkEndCommandBuffer(cb));
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
        VK_CHECK(vkQueueSubmit(a->queue, 1, &si, VK_NULL_HANDLE));
        si.pCommandBuffers = &setter;
        VK_CHECK(vkQueueSubmit(a->queue, 1, &si, VK_NULL_HANDLE));
        VkResult r;
        while ((r = vkGetEventStatus(a->device, event)) == VK_EVENT_RESET) {
            struct timespec pause = {0, 100000};
            nanosleep(&pause, NULL);
        }
        if (r != VK_EVENT_SET) {
            die("vkGetEventStatus: %s", result_name(r));
        }
        VK_CHECK(vkResetEvent(a->device, event));
        vkFreeCommandBuffers(a->device, a->pool, 1, &cb);
    }
    vkFreeCommandBuffers(a->device, a->pool, 1, &setter);
    vkDestroyEvent(a->device, event, NULL);
    const char *dir = getenv("WGPROF_RECORD_DIR");
    if (dir && dir[0]) {
        fprintf(stderr, "vk_compute: %s written while running\n", results_appear(dir) ? "results" : "no results");
    }
}

/* MODE_RENDER (see the top): every step in one command buffer, each followed by a render pass. */
static void run_render_steps(const app *a, unsigned steps)
{
    VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS};
    VkRenderPassCreateInfo rpi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .subpassCount = 1, .pSubpasses = &subpass};
    VkRenderPass pass;
    VK_CHECK(vkCreateRenderPass(a->device, &rpi, NULL, &pass));
    VkFramebufferCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                  .renderPass = pass,
                                  .width = 1,
                                  .height = 1,
                                  .layers = 1};
    VkFramebuffer framebuffer;
    VK_CHECK(vkCreateFramebuffer(a->device, &fi, NULL, &framebuffer));
    VkCommandBufferInheritanceInfo inheritance = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
                                                  .renderPass = pass,
                                                  .framebuffer = framebuffer};
    VkCommandBuffer secondary = allocate(a, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
    /* run by every pass of the one command buffer: pending in it several times */
    begin(secondary, VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT | VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
          &inheritance);
    VK_CHECK(vkEndCommandBuffer(secondary));
    VkCommandBuffer cb = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
    for (unsigned s = 0; s < steps; s++) {
        record_step(a, cb, DISPATCH_DIRECT);
        VkRenderPassBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                    .renderPass = pass,
                                    .framebuffer = framebuffer,
                                    .renderArea = {.extent = {1, 1}}};
        bool run_secondary = s + 4 < steps;
        vkCmdBeginRenderPass(cb, &bi, run_secondary ? VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS : VK_SUBPASS_CONTENTS_INLINE);
        if (run_secondary) {
            vkCmdExecuteCommands(cb, 1, &secondary);
        }
        vkCmdEndRenderPass(cb);
        barrier(cb, a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    }
    VK_CHECK(vkEndCommandBuffer(cb));
    submit_and_wait(a, cb);
    VkCommandBuffer cbs[2] = {cb, secondary};
    vkFreeCommandBuffers(a->device, a->pool, 2, cbs);
    vkDestroyFramebuffer(a->device, framebuffer, NULL);
    vkDestroyRenderPass(a->device, pass, NULL);
}

static void run_pool_steps(const app *a, unsigned steps)
{
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = a->family};
    VkCommandPool second;
    VK_CHECK(vkCreateCommandPool(a->device, &pi, NULL, &second));
    VkCommandBuffer keep = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    for (unsigned s = 0; s < steps; s++) {
        VkCommandBuffer first = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
        begin(first, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        record_scale_then_barrier(a, first);
        VK_CHECK(vkEndCommandBuffer(first));
        submit_and_wait(a, first);
        vkFreeCommandBuffers(a->device, a->pool, 1, &first);
        vkTrimCommandPool(a->device, a->pool, 0); /* where the driver kept `first` for the pool's next */
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = second,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VkCommandBuffer other;
        VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, &other));
        begin(other, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        record_scale_then_barrier(a, other);
        VK_CHECK(vkResetCommandPool(a->device, a->pool, 0)); /* `keep`'s last step, done */
        begin(keep, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        record_fold(a, keep, DISPATCH_DIRECT);
        VK_CHECK(vkEndCommandBuffer(keep));
        VK_CHECK(vkEndCommandBuffer(other));
        VkCommandBuffer both[2] = {other, keep};
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 2, .pCommandBuffers = both};
        VK_CHECK(vkQueueSubmit(a->queue, 1, &si, a->fence));
        VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
        VK_CHECK(vkResetFences(a->device, 1, &a->fence));
        vkFreeCommandBuffers(a->device, second, 1, &other);
    }
    vkDestroyCommandPool(a->device, second, NULL); /* `keep` goes with the first pool */
}

/* The heap in use (every arena's), for the sync mode's account of what its steps leave behind. */
static size_t heap_in_use(void) { return mallinfo2().uordblks; }

/* The sync mode's allocation callbacks: every allocation at a new address of a region mapped
 * for them (outside the heap), never given out again, so that each object's handle is new. */
typedef struct fresh_region {
    char *base;
    size_t used, size;
} fresh_region;

static VKAPI_ATTR void *VKAPI_CALL fresh_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
    (void)scope;
    fresh_region *r = user;
    size_t at = (r->used + sizeof(size_t) + align - 1) / align * align;
    if (at + size > r->size) {
        return NULL;
    }
    memcpy(r->base + at - sizeof(size_t), &size, sizeof size);
    r->used = at + size;
    return r->base + at;
}

static VKAPI_ATTR void *VKAPI_CALL fresh_realloc(void *user, void *old, size_t size, size_t align,
                                                VkSystemAllocationScope scope)
{
    void *p = fresh_alloc(user, size, align, scope);
    if (p && old) {
        size_t old_size;
        memcpy(&old_size, (char *)old - sizeof old_size, sizeof old_size);
        memcpy(p, old, old_size < size ? old_size : size);
    }
    return p;
}

static VKAPI_ATTR void VKAPI_CALL fresh_free(void *user, void *p)
{
    (void)user;
    (void)p;
}

enum { SYNC_SEMAPHORES = 16 };

static void run_sync_steps(const app *a, unsigned steps)
{
    /* Room for a step's objects many times over (lavapipe's take about 4 KB a step), mapped
     * without reserving it: sized by the steps, not a fixed few GB that a machine holding its
     * memory to what is committed could refuse. */
    fresh_region region = {.size = ((size_t)steps + 16) * 64 * 1024};
    region.base = mmap(NULL, region.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region.base == MAP_FAILED) {
        die("no room mapped for the sync objects");
    }
    VkAllocationCallbacks fresh = {
        .pUserData = &region, .pfnAllocation = fresh_alloc, .pfnReallocation = fresh_realloc, .pfnFree = fresh_free};
    size_t heap_before = heap_in_use();
    for (unsigned s = 0; s < steps; s++) {
        VkCommandBuffer cb = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
        begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        record_step(a, cb, DISPATCH_DIRECT);
        VK_CHECK(vkEndCommandBuffer(cb));
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence fence;
        VK_CHECK(vkCreateFence(a->device, &fi, &fresh, &fence));
        VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
        VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
        VkSemaphore own[SYNC_SEMAPHORES];
        uint64_t ones[SYNC_SEMAPHORES];
        for (int k = 0; k < SYNC_SEMAPHORES; k++) {
            VK_CHECK(vkCreateSemaphore(a->device, &sci, &fresh, &own[k]));
            ones[k] = 1;
        }
        VkTimelineSemaphoreSubmitInfo values = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                                .signalSemaphoreValueCount = SYNC_SEMAPHORES,
                                                .pSignalSemaphoreValues = ones};
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .pNext = &values,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cb,
                           .signalSemaphoreCount = SYNC_SEMAPHORES,
                           .pSignalSemaphores = own};
        VK_CHECK(vkQueueSubmit(a->queue, 1, &si, fence));
        VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                  .semaphoreCount = SYNC_SEMAPHORES,
                                  .pSemaphores = own,
                                  .pValues = ones};
        VK_CHECK(vkWaitSemaphores(a->device, &wi, UINT64_MAX));
        VK_CHECK(vkWaitForFences(a->device, 1, &fence, VK_TRUE, UINT64_MAX));
        for (int k = 0; k < SYNC_SEMAPHORES; k++) {
            vkDestroySemaphore(a->device, own[k], &fresh);
        }
        vkDestroyFence(a->device, fence, &fresh);
        vkFreeCommandBuffers(a->device, a->pool, 1, &cb);
    }
    size_t heap_after = heap_in_use();
    munmap(region.base, region.size);
    long long grown = (long long)heap_after - (long long)heap_before;
    fprintf(stderr, "vk_compute: heap %lld bytes a step\n", steps ? grown / (long long)steps : grown);
}

static void run_steps(const app *a, mode m, unsigned steps)
{
    if (m == MODE_SYNC) {
        run_sync_steps(a, steps);
        return;
    }
    if (m == MODE_RENDER) {
        run_render_steps(a, steps);
        return;
    }
    if (m == MODE_EVENT) {
        run_event_steps(a, steps);
        return;
    }
    if (m == MODE_POOLS) {
        run_pool_steps(a, steps);
        return;
    }
    if (m == MODE_LONG) {
        VkCommandBuffer cb = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
        begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        for (unsigned s = 0; s < steps; s++) {
            record_step(a, cb, DISPATCH_DIRECT);
            barrier(cb, a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        }
        VK_CHECK(vkEndCommandBuffer(cb));
        submit_and_wait(a, cb);
        vkFreeCommandBuffers(a->device, a->pool, 1, &cb);
        return;
    }
    if (m == MODE_PIPELINED) {
        VkFence fences[2] = {a->fence, VK_NULL_HANDLE};
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VK_CHECK(vkCreateFence(a->device, &fi, NULL, &fences[1]));
        VkCommandBuffer cbs[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
        for (unsigned s = 0; s <= steps; s++) {
            if (s < steps) {
                cbs[s % 2] = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
                begin(cbs[s % 2], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
                record_step(a, cbs[s % 2], DISPATCH_DIRECT);
                VK_CHECK(vkEndCommandBuffer(cbs[s % 2]));
                VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cbs[s % 2]};
                VK_CHECK(vkQueueSubmit(a->queue, 1, &si, fences[s % 2]));
                struct timespec pause = {0, 20000000};
                nanosleep(&pause, NULL);
            }
            if (s > 0) {
                unsigned before = (s - 1) % 2;
                VK_CHECK(vkWaitForFences(a->device, 1, &fences[before], VK_TRUE, UINT64_MAX));
                VK_CHECK(vkResetFences(a->device, 1, &fences[before]));
                vkFreeCommandBuffers(a->device, a->pool, 1, &cbs[before]);
            }
        }
        vkDestroyFence(a->device, fences[1], NULL);
        return;
    }
    if (m == MODE_BATCH || m == MODE_BATCH2) {
        for (unsigned s = 0; s < steps; s++) {
            VkCommandBuffer cbs[3] = {allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY),
                                      allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY),
                                      allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY)};
            begin(cbs[0], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
            record_scale_then_barrier(a, cbs[0]);
            VK_CHECK(vkEndCommandBuffer(cbs[0]));
            begin(cbs[1], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
            record_fold(a, cbs[1], DISPATCH_DIRECT);
            VK_CHECK(vkEndCommandBuffer(cbs[1]));
            if (m == MODE_BATCH2) {
                begin(cbs[2], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
                barrier(cbs[2], a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                if (g_middle_dispatch) {
                    record_scale_then_barrier(a, cbs[2]);
                }
                VK_CHECK(vkEndCommandBuffer(cbs[2]));
                VkCommandBufferSubmitInfo infos[3] = {
                    {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cbs[0]},
                    {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cbs[2]},
                    {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cbs[1]}};
                VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                                    .commandBufferInfoCount = 3,
                                    .pCommandBufferInfos = infos};
                VK_CHECK(vkQueueSubmit2(a->queue, 1, &si, a->fence));
            } else {
                VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 2, .pCommandBuffers = cbs};
                VK_CHECK(vkQueueSubmit(a->queue, 1, &si, a->fence));
            }
            VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
            VK_CHECK(vkResetFences(a->device, 1, &a->fence));
            vkFreeCommandBuffers(a->device, a->pool, 3, cbs);
        }
        return;
    }
    if (m == MODE_REUSE || m == MODE_SIMULTANEOUS) {
        VkCommandBuffer cb = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
        begin(cb, m == MODE_SIMULTANEOUS ? VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT : 0, NULL);
        record_step(a, cb, DISPATCH_DIRECT);
        VK_CHECK(vkEndCommandBuffer(cb));
        for (unsigned s = 0; s < steps; s++) {
            submit_and_wait(a, cb);
        }
        vkFreeCommandBuffers(a->device, a->pool, 1, &cb);
        return;
    }
    VkCommandBuffer secondary = VK_NULL_HANDLE;
    if (m == MODE_SECONDARY || m == MODE_MIXED) {
        VkCommandBufferInheritanceInfo inheritance = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
        secondary = allocate(a, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
        begin(secondary, 0, &inheritance);
        if (m == MODE_MIXED) {
            record_fold(a, secondary, DISPATCH_DIRECT);
        } else {
            record_step(a, secondary, DISPATCH_DIRECT);
        }
        VK_CHECK(vkEndCommandBuffer(secondary));
    }
    for (unsigned s = 0; s < steps; s++) {
        VkCommandBuffer cb = allocate(a, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
        begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL);
        if (m == MODE_MIXED) {
            /* scale here, then fold in the secondary: scale's row must end before it */
            vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->scale);
            vkCmdDispatch(cb, scale_groups[0], scale_groups[1], scale_groups[2]);
            barrier(cb, a->data, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
            vkCmdExecuteCommands(cb, 1, &secondary);
        } else if (secondary) {
            vkCmdExecuteCommands(cb, 1, &secondary);
        } else if (m == MODE_WORK) {
            record_work_step(a, cb, s, steps);
        } else if (m == MODE_COUNTS) {
            record_counts_step(a, cb, s);
        } else {
            record_step(a, cb, m == MODE_INDIRECT ? DISPATCH_INDIRECT : m == MODE_BASE ? DISPATCH_BASE : DISPATCH_DIRECT);
        }
        VK_CHECK(vkEndCommandBuffer(cb));
        submit_and_wait(a, cb);
        vkFreeCommandBuffers(a->device, a->pool, 1, &cb);
    }
    if (secondary) {
        vkFreeCommandBuffers(a->device, a->pool, 1, &secondary);
    }
}

static void print_manifest(mode m, unsigned steps)
{
    const char *label[2] = {"*", "*"};
    if (m == MODE_NAMES) {
        label[0] = "scaler";
        label[1] = "folder";
    }
    const char *entry[2] = {"scale", "fold"};
    const uint32_t *groups[2] = {scale_groups, fold_groups};
    for (int k = 0; k < 2; k++) {
        unsigned n = k == 0 && g_middle_dispatch ? 2 * steps : steps;
        if (m == MODE_COUNTS && k == 0) { /* each count scale ran with, and how often */
            printf("manifest %s:%s %u\n", label[k], entry[k], 2 * steps);
            unsigned times[64] = {0};
            for (unsigned s = 0; s < steps; s++) {
                times[counts_split(s)]++;
                times[scale_groups[0] - counts_split(s)]++;
            }
            for (uint32_t x = 0; x < 64; x++) {
                if (times[x]) {
                    printf("workgroups %s:%s %u 1 1 %u\n", label[k], entry[k], x, times[x]);
                }
            }
        } else if (m == MODE_INDIRECT) {
            printf("manifest %s:%s (indirect) %u\n", label[k], entry[k], n);
        } else {
            printf("manifest %s:%s %u\n", label[k], entry[k], n);
            printf("workgroups %s:%s %u %u %u %u\n", label[k], entry[k], groups[k][0], groups[k][1], groups[k][2], n);
        }
    }
    if (m == MODE_WORK) {
        printf("manifest (clear) %u\n", steps);
        printf("manifest (copy) %u\n", steps + steps - 1);
        printf("scope *:fold block/fold %u\n", steps);
        if (steps > 1) {
            printf("scope (copy) tail %u\n", steps - 1);
        }
    }
}

static void destroy(app *a)
{
    vkDestroyFence(a->device, a->fence, NULL);
    vkDestroyCommandPool(a->device, a->pool, NULL);
    for (int k = 0; g_objects && k < 2; k++) {
        a->destroy_shader(a->device, a->shaders[k], NULL);
    }
    vkDestroyPipeline(a->device, a->fold, NULL);
    vkDestroyPipeline(a->device, a->scale, NULL);
    vkDestroyShaderModule(a->device, a->modules[1], NULL);
    vkDestroyShaderModule(a->device, a->modules[0], NULL);
    vkDestroyPipelineLayout(a->device, a->layout, NULL);
    vkDestroyDescriptorPool(a->device, a->descriptor_pool, NULL);
    vkDestroyDescriptorSetLayout(a->device, a->set_layout, NULL);
    if (a->spare) {
        vkDestroyBuffer(a->device, a->spare, NULL);
        vkFreeMemory(a->device, a->spare_memory, NULL);
    }
    vkDestroyBuffer(a->device, a->indirect, NULL);
    vkFreeMemory(a->device, a->indirect_memory, NULL);
    vkDestroyBuffer(a->device, a->data, NULL);
    vkFreeMemory(a->device, a->data_memory, NULL);
    vkDestroyDevice(a->device, NULL);
    if (a->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy_messenger) {
            destroy_messenger(a->instance, a->messenger, NULL);
        }
    }
    vkDestroyInstance(a->instance, NULL);
}

static int usage(void)
{
    fputs("usage: vk_compute basic|names|reuse|secondary|indirect|work|base|long|mixed|render|inline|objects|simultaneous|batch|batch2|pipelined|event|counts|pools|sync [STEPS] [--debug-utils] "
          "[--split-labels] [--middle-dispatch] [--end keep|abort|fork|exec|term|fork-term] [--close-fds DIR]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        return usage();
    }
    int m = -1;
    for (int i = 0; i < (int)(sizeof mode_names / sizeof mode_names[0]); i++) {
        if (strcmp(argv[1], mode_names[i]) == 0) {
            m = i;
        }
    }
    if (m < 0) {
        fprintf(stderr, "vk_compute: unknown mode '%s'\n", argv[1]);
        return usage();
    }
    pid_t parent = getppid();
    unsigned steps = 5;
    g_inline = m == MODE_INLINE;
    g_dispatch_base = m == MODE_COUNTS;
    g_objects = m == MODE_OBJECTS;
    g_submit2 = m == MODE_BATCH2;
    g_timeline = m == MODE_SYNC;
    end_how how = END_USUAL;
    const char *close_fds = NULL;
    bool no_device = false;
    bool want_debug_utils = m == MODE_NAMES || m == MODE_WORK;
    for (int i = 2; i < argc; i++) {
        char *end = NULL;
        unsigned long n = strtoul(argv[i], &end, 10);
        if (strcmp(argv[i], "--close-fds") == 0 && i + 1 < argc) {
            close_fds = argv[++i];
        } else if (strcmp(argv[i], "--end") == 0 && i + 1 < argc) {
            int found = -1;
            for (int k = 1; k < (int)(sizeof end_names / sizeof end_names[0]); k++) {
                found = strcmp(argv[i + 1], end_names[k]) == 0 ? k : found;
            }
            if (found < 0) {
                fprintf(stderr,
                        "vk_compute: --end %s: keep, abort, fork, exec, term, fork-term, after-parent or exit-now\n",
                        argv[i + 1]);
                return usage();
            }
            how = (end_how)found;
            i++;
        } else if (strcmp(argv[i], "--debug-utils") == 0) {
            want_debug_utils = true;
        } else if (strcmp(argv[i], "--split-labels") == 0) {
            g_split_labels = true;
        } else if (strcmp(argv[i], "--middle-dispatch") == 0) {
            g_middle_dispatch = true;
        } else if (strcmp(argv[i], "--no-device") == 0) {
            no_device = true;
        } else if (argv[i][0] >= '0' && argv[i][0] <= '9' && !*end && n >= 1 && n <= 1000000) {
            steps = (unsigned)n;
        } else {
            fprintf(stderr, "vk_compute: '%s': STEPS (1 to 1000000) or --debug-utils\n", argv[i]);
            return usage();
        }
    }
    if (g_middle_dispatch && m != MODE_BATCH2) {
        fputs("vk_compute: --middle-dispatch is batch2's\n", stderr);
        return usage();
    }
    g_middle_dispatch |= m == MODE_POOLS; /* scale twice a step there too */
    bool debug_utils = want_debug_utils && instance_has_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if ((m == MODE_NAMES || m == MODE_WORK) && !debug_utils) {
        fprintf(stderr, "vk_compute: skipped: %s needs VK_EXT_debug_utils, which this Vulkan does not offer\n", argv[1]);
        return 77;
    }
    if (want_debug_utils && !debug_utils) {
        fputs("vk_compute: VK_EXT_debug_utils is not offered: no messages shown\n", stderr);
    }

    app a = {0};
    create_instance(&a, debug_utils);
    pick_device(&a);
    if (no_device) {
        vkDestroyInstance(a.instance, NULL);
        return 0;
    }
    create_device(&a);
    if (close_fds) {
        struct rlimit limit;
        int top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? (int)limit.rlim_cur : 65536;
        for (int fd = 3; fd < top; fd++) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
                close(fd);
            }
        }
        for (int k = 0; k < 16; k++) {
            if (open(close_fds, O_RDONLY | O_DIRECTORY) < 0) {
                die("--close-fds: cannot open %s", close_fds);
            }
        }
    }

    uint32_t *expected = malloc(ELEMENTS * sizeof *expected), *got = malloc(ELEMENTS * sizeof *got);
    if (!expected || !got) {
        die("out of memory");
    }
    for (uint32_t i = 0; i < ELEMENTS; i++) {
        expected[i] = i * 2654435761u;
    }
    create_buffer(&a, ELEMENTS * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                  &a.data, &a.data_memory);
    if (m == MODE_WORK) {
        create_buffer(&a, ELEMENTS * sizeof(uint32_t), VK_BUFFER_USAGE_TRANSFER_DST_BIT, &a.spare, &a.spare_memory);
    }
    write_memory(&a, a.data_memory, expected, ELEMENTS * sizeof *expected);
    const VkDispatchIndirectCommand counts[2] = {{scale_groups[0], scale_groups[1], scale_groups[2]},
                                                 {fold_groups[0], fold_groups[1], fold_groups[2]}};
    create_buffer(&a, sizeof counts, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &a.indirect, &a.indirect_memory);
    write_memory(&a, a.indirect_memory, counts, sizeof counts);

    create_descriptors(&a);
    a.scale = create_pipeline(&a, &a.modules[0], spv_scale, sizeof spv_scale, "scale", m == MODE_NAMES ? "scaler" : NULL);
    a.fold = create_pipeline(&a, &a.modules[1], spv_fold, sizeof spv_fold, "fold", m == MODE_NAMES ? "folder" : NULL);
    if (g_objects) {
        create_shaders_fn create = (create_shaders_fn)vkGetDeviceProcAddr(a.device, "vkCreateShadersEXT");
        a.bind_shaders = (bind_shaders_fn)vkGetDeviceProcAddr(a.device, "vkCmdBindShadersEXT");
        a.destroy_shader = (destroy_shader_fn)vkGetDeviceProcAddr(a.device, "vkDestroyShaderEXT");
        if (!create || !a.bind_shaders || !a.destroy_shader) {
            die("VK_EXT_shader_object enabled, its functions not found");
        }
        shader_create_info si[2];
        const uint32_t *code[2] = {spv_scale, spv_fold};
        const size_t size[2] = {sizeof spv_scale, sizeof spv_fold};
        const char *entry[2] = {"scale", "fold"};
        for (int k = 0; k < 2; k++) {
            si[k] = (shader_create_info){.sType = SHADER_CREATE_INFO_STYPE,
                                         .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                         .codeType = 1,
                                         .codeSize = size[k],
                                         .pCode = code[k],
                                         .pName = entry[k],
                                         .setLayoutCount = 1,
                                         .pSetLayouts = &a.set_layout};
        }
        VK_CHECK(create(a.device, 2, si, NULL, a.shaders));
    }
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = a.family};
    VK_CHECK(vkCreateCommandPool(a.device, &pi, NULL, &a.pool));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(a.device, &fi, NULL, &a.fence));

    run_steps(&a, (mode)m, steps);

    read_memory(&a, a.data_memory, got, ELEMENTS * sizeof *got);
    for (unsigned s = 0; s < steps; s++) {
        step_on_cpu(expected);
    }
    uint32_t checksum = 2166136261u; /* FNV-1a over the words */
    unsigned wrong = 0;
    for (uint32_t i = 0; i < ELEMENTS; i++) {
        if (got[i] != expected[i] && wrong++ == 0) {
            fprintf(stderr, "vk_compute: v[%u] is %u, expected %u\n", i, got[i], expected[i]);
        }
        checksum = (checksum ^ got[i]) * 16777619u;
    }
    free(expected);
    free(got);
    if (wrong) {
        die("%u of %u results wrong", wrong, ELEMENTS);
    }
    if (how == END_KEEP || how == END_ABORT || how == END_EXEC || how == END_TERM || how == END_EXIT_NOW) {
        /* Nothing destroyed: what the program made is left for its end to take care of. */
        print_manifest((mode)m, steps);
        printf("checksum %08x\n", checksum);
        if (fflush(stdout) != 0) {
            return 1;
        }
        if (how == END_ABORT) {
            abort();
        }
        if (how == END_EXEC) {
            execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
            die("exec /bin/sh failed");
        }
        if (how == END_EXIT_NOW) {
            pthread_t thread;
            if (pthread_create(&thread, NULL, exit_now, NULL) != 0) {
                die("cannot start a thread");
            }
            pthread_join(thread, NULL);
        }
        if (how == END_TERM) {
            kill(getpid(), SIGTERM);
            sleep(10);
            die("SIGTERM did not end it within 10 s");
        }
        return 0;
    }
    if (how == END_FORK_TERM) {
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            for (;;) {
                pause(); /* until a signal ends it */
            }
        }
        int status = 0;
        pid_t ended = 0;
        if (child > 0) {
            kill(child, SIGTERM);
            for (int tries = 0; tries < 1000 && (ended = waitpid(child, &status, WNOHANG)) == 0; tries++) {
                struct timespec pause_10ms = {0, 10000000};
                nanosleep(&pause_10ms, NULL);
            }
        }
        if (ended == 0) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            die("the child of fork() was not ended by SIGTERM within 10 s");
        }
        if (ended != child || !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM) {
            die("the child of fork() did not end by SIGTERM");
        }
    }
    if (how == END_AFTER_PARENT) {
        for (int tries = 0; getppid() == parent && tries < 1000; tries++) {
            struct timespec pause_10ms = {0, 10000000};
            nanosleep(&pause_10ms, NULL);
        }
        if (getppid() == parent) {
            die("the process that started it still runs 10 s later");
        }
        struct timespec pause_200ms = {0, 200000000};
        nanosleep(&pause_200ms, NULL);
    }
    if (how == END_FORK) {
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            exit(0); /* its exit handlers run, with a copy of everything the parent made */
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            die("the child of fork() did not exit 0");
        }
    }
    destroy(&a);
    print_manifest((mode)m, steps);
    printf("checksum %08x\n", checksum);
    return fflush(stdout) == 0 ? 0 : 1;
}
