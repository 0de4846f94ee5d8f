/*
 * A Vulkan layer of the tests' own, VK_LAYER_WGPROF_test_period, enabled below wgprof's layer
 * (tests/test_layer.sh): it reports the physical device's timestampPeriod as the number
 * WGPROF_TEST_TIMESTAMP_PERIOD holds (strtod: "nan", "inf", "0", "-1"), as a driver with a broken
 * period would, and passes everything else through. One instance and one device at a time, as
 * the test's program makes them.
 */
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
    return create(physical, info, alloc, out);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL period_GetDeviceProcAddr(VkDevice device, const char *name);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL period_GetDeviceProcAddr(VkDevice device, const char *name)
{
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return (PFN_vkVoidFunction)period_GetDeviceProcAddr;
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
