/*
 * Chromium's WebGPU on SwiftShader, made visible to wgprof's Vulkan layer.
 *
 * Without a GPU, the WebGPU adapter of Chromium (and Chrome) is its own SwiftShader, which Dawn
 * opens directly, dlopen(".../libvk_swiftshader.so"), not through the Vulkan loader: no layer
 * sees that device. Where the layer is wanted (record's default way), that one dlopen, made by
 * the browser itself and not by a Vulkan loader (ANGLE reaches SwiftShader through the loader
 * bundled beside it, whose own opens of the library pass), is answered with the loader bundled
 * in the same folder (libvulkan.so.1), and the SwiftShader driver file bundled there
 * (vk_swiftshader_icd.json) is added to VK_ADD_DRIVER_FILES, so that the loader, with wgprof's
 * layer, offers Dawn the same SwiftShader device. Dawn calls the loader as it would have called
 * the driver (both export vkGetInstanceProcAddr). Nothing else of the browser changes.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "record.h"
#include "record_lib.h"

#define SWIFTSHADER_LIBRARY "libvk_swiftshader.so"
#define BUNDLED_LOADER "libvulkan.so.1"
#define SWIFTSHADER_DRIVER_FILE "vk_swiftshader_icd.json"

bool wgprof_rec_swiftshader_loader(const char *file, const void *caller, char *out, size_t cap)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    const char *layer = getenv(RECORD_ENV_LAYER);
    if (!slash || file[0] != '/' || strcmp(slash + 1, SWIFTSHADER_LIBRARY) != 0 || !layer || layer[0] != '/') {
        return false;
    }
    Dl_info who = {0};
    const char *from = dladdr(caller, &who) && who.dli_fname ? strrchr(who.dli_fname, '/') : NULL;
    from = from ? from + 1 : who.dli_fname ? who.dli_fname : "";
    if (strncmp(from, "libvulkan", 9) == 0) {
        return false; /* a Vulkan loader loading the driver */
    }
    int folder = (int)(slash - file + 1);
    char driver_file[4096];
    int a = snprintf(out, cap, "%.*s" BUNDLED_LOADER, folder, file);
    int b = snprintf(driver_file, sizeof driver_file, "%.*s" SWIFTSHADER_DRIVER_FILE, folder, file);
    if (a < 0 || (size_t)a >= cap || b < 0 || (size_t)b >= sizeof driver_file || access(out, R_OK) != 0 ||
        access(driver_file, R_OK) != 0) {
        return false;
    }
    /* The environment changes once, in the GPU process, as Dawn opens its driver: before the
     * loader reads it for the instance Dawn is about to make. */
    const char *added = getenv("VK_ADD_DRIVER_FILES");
    if (!list_has(added, ':', driver_file)) {
        char joined[8192];
        int n = added && *added ? snprintf(joined, sizeof joined, "%s:%s", added, driver_file)
                                : snprintf(joined, sizeof joined, "%s", driver_file);
        if (n < 0 || (size_t)n >= sizeof joined || setenv("VK_ADD_DRIVER_FILES", joined, 1) != 0) {
            return false;
        }
    }
    return true;
}
