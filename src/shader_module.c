/*
 * Shader modules with chosen runtime checks (wgprof/device_util.h): the default goes through
 * wgpuDeviceCreateShaderModule, anything else through the implementation's trusted-module entry
 * point where it has one (webgpu_ext.c finds it), so that the checks' cost can be measured.
 */
#include <string.h>

#include "device_internal.h"
#include "webgpu_ext.h"
#include "wgprof/device_util.h"

static const char *const CHECK_NAMES[] = {
    [WGPROF_SHADER_CHECKS_DEFAULT] = "default",
    [WGPROF_SHADER_CHECKS_NO_LOOP_BOUNDING] = "no-loop-bounding",
    [WGPROF_SHADER_CHECKS_NONE] = "none",
};
enum { CHECK_COUNT = sizeof CHECK_NAMES / sizeof CHECK_NAMES[0] };

const char *wgprof_shader_checks_str(wgprof_shader_checks checks)
{
    return (unsigned)checks < CHECK_COUNT ? CHECK_NAMES[checks] : NULL;
}

bool wgprof_shader_checks_from_str(const char *name, wgprof_shader_checks *out)
{
    for (unsigned i = 0; name && out && i < CHECK_COUNT; i++) {
        if (strcmp(name, CHECK_NAMES[i]) == 0) {
            *out = (wgprof_shader_checks)i;
            return true;
        }
    }
    return false;
}

/* The checks wgpu-native keeps for each setting: all of its checks but the ones dropped, so that
 * a check added by a later release stays on. */
static uint64_t runtime_checks(wgprof_shader_checks checks)
{
    const uint64_t all = WGPROF__CHECK_BOUNDS | WGPROF__CHECK_LOOP_BOUNDING | WGPROF__CHECK_RAY_QUERY |
                         WGPROF__CHECK_TASK_DISPATCH | WGPROF__CHECK_MESH_INDICES;
    return checks == WGPROF_SHADER_CHECKS_NONE ? 0 : all & ~WGPROF__CHECK_LOOP_BOUNDING;
}

wgprof_status wgprof_shader_module_create(wgprof_device *device, const char *wgsl, const char *label,
                                          wgprof_shader_checks checks, WGPUShaderModule *out)
{
    if (!device || !wgsl || !out || !wgprof_shader_checks_str(checks)) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (atomic_load(&device->lost)) {
        return WGPROF_ERR_DEVICE_LOST;
    }
    const wgprof__ext *ext = wgprof__ext_get();
    if (checks != WGPROF_SHADER_CHECKS_DEFAULT && !ext->create_trusted_module) {
        /* Dawn: its checks are set per device (toggles), not per module. */
        return WGPROF_ERR_UNSUPPORTED;
    }
    WGPUShaderSourceWGSL source = {0};
    source.chain.sType = WGPUSType_ShaderSourceWGSL;
    source.code = (WGPUStringView){wgsl, WGPU_STRLEN};
    WGPUShaderModuleDescriptor desc = {0};
    desc.nextInChain = &source.chain;
    desc.label = label ? (WGPUStringView){label, WGPU_STRLEN} : (WGPUStringView){NULL, 0};
    *out = checks == WGPROF_SHADER_CHECKS_DEFAULT
               ? wgprof__wgpu()->deviceCreateShaderModule(device->device, &desc)
               : ext->create_trusted_module(device->device, &desc, runtime_checks(checks));
    return *out ? WGPROF_OK : WGPROF_ERR_WEBGPU;
}
