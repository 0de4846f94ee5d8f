/*
 * The WebGPU implementation of a wgprof program, loaded at run time (see webgpu_loader.h).
 * RTLD_GLOBAL puts its symbols where lazy binding finds them for the program and libwgprof;
 * RTLD_NOW checks the library is whole before anything calls it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "record.h"

const char *const webgpu_loader_names[] = {"wgpu-native", "dawn", NULL};

/* Each name's library file and where the build put it (compile definitions from CMake). */
static const struct {
    const char *name;
    const char *file;
    const char *build_path;
} known[] = {
    {"wgpu-native", "libwgpu_native.so", WGPROF_WGPU_NATIVE_LIBRARY},
    {"dawn", "libwebgpu_dawn.so", WGPROF_DAWN_LIBRARY},
};

static char g_path[PATH_MAX];

const char *webgpu_loader_path(void) { return g_path; }

/* Appends to `error` (of `cap` bytes) without overflowing it. */
static void add(char *error, size_t cap, const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(error);
    if (used + 1 < cap) {
        snprintf(error + used, cap - used, fmt, a, b);
    }
}

static bool try_load(const char *path, char *error, size_t cap)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char *why = dlerror();
        add(error, cap, "\n  %s: %s", path, why ? why : "cannot be loaded");
        return false;
    }
    if (!dlsym(lib, "wgpuCreateInstance")) {
        add(error, cap, "\n  %s: %s", path, "not a WebGPU implementation (no wgpuCreateInstance)");
        dlclose(lib);
        return false;
    }
    snprintf(g_path, sizeof g_path, "%s", path);
    return true; /* kept loaded for the life of the process */
}

/* The folder of the running program, for an installed tree (bin/ beside lib/). */
static bool program_folder(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1) {
        return false;
    }
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
    return true;
}

/* The libraries WGPROF_WEBGPU_PATH lists (colon-separated paths; wgprof's Python package sets it
 * to the implementations installed as packages), in order: each whose file name begins with
 * `stem` (every one where `stem` is NULL) tried until one loads. */
static bool load_listed(const char *stem, char *error, size_t cap)
{
    const char *list = getenv("WGPROF_WEBGPU_PATH");
    char path[PATH_MAX];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n < sizeof path) {
            memcpy(path, p, n);
            path[n] = '\0';
            const char *slash = strrchr(path, '/');
            const char *file = slash ? slash + 1 : path;
            if (slash && (!stem || strncmp(file, stem, strlen(stem)) == 0) && try_load(path, error, cap)) {
                return true;
            }
        }
        p += n + (p[n] == ':');
    }
    return false;
}

/* An installed program takes its own prefix's library, a program in the build tree the one the
 * build fetched; then the dynamic linker's own search. */
static bool load_name(size_t k, char *error, size_t cap)
{
    char stem[64];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(known[k].file) - strlen(".so")), known[k].file);
    if (load_listed(stem, error, cap)) {
        return true;
    }
    char folder[PATH_MAX], path[PATH_MAX + 64];
    if (program_folder(folder, sizeof folder)) {
        snprintf(path, sizeof path, "%s/../lib/%s", folder, known[k].file);
        if (access(path, F_OK) == 0 && try_load(path, error, cap)) {
            return true;
        }
    }
    if (known[k].build_path[0] && access(known[k].build_path, F_OK) == 0 && try_load(known[k].build_path, error, cap)) {
        return true;
    }
    return try_load(known[k].file, error, cap);
}

/* wgprof record's preload library (record.h) defines every wgpu* function too, as forwarders to
 * the implementation the program loads: found first, it is not an implementation linked in. */
static bool is_record_forwarder(void *function)
{
    void *marker = dlsym(RTLD_DEFAULT, RECORD_SYMBOL_LEFT_TO_LAYER);
    Dl_info a, b;
    return marker && dladdr(function, &a) && dladdr(marker, &b) && a.dli_fbase == b.dli_fbase;
}

bool webgpu_loader_select(const char *choice, char *error, size_t cap)
{
    char tried[2048] = ""; /* every place tried and why it failed */
    if (cap) {
        error[0] = '\0';
    }
    if (!choice || !choice[0]) {
        choice = getenv("WGPROF_WEBGPU");
    }
    bool any = !choice || !choice[0];
    void *present = dlsym(RTLD_DEFAULT, "wgpuCreateInstance");
    if (present && (any || !is_record_forwarder(present))) {
        /* Linked in: one implementation per process, the one already there. */
        Dl_info where;
        snprintf(g_path, sizeof g_path, "%s",
                 dladdr(present, &where) && where.dli_fname ? where.dli_fname : "(linked in)");
        if (any) {
            return true;
        }
        snprintf(error, cap, "the program has a WebGPU implementation linked in (%s); --webgpu %s cannot replace it",
                 g_path, choice);
        return false;
    }
    if (!any && strchr(choice, '/')) {
        if (try_load(choice, tried, sizeof tried)) {
            return true;
        }
        snprintf(error, cap, "--webgpu %s: cannot load it:%s", choice, tried);
        return false;
    }
    bool named = any;
    if (any && load_listed(NULL, tried, sizeof tried)) {
        return true;
    }
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (any || strcmp(choice, known[k].name) == 0) {
            named = true;
            if (load_name(k, tried, sizeof tried)) {
                return true;
            }
        }
    }
    if (!named) {
        snprintf(error, cap, "--webgpu %s: expected wgpu-native, dawn, or a path to a WebGPU library", choice);
    } else if (any) {
        snprintf(error, cap, "no WebGPU implementation found: pip install 'wgprof[wgpu]' (or wgpu) installs "
                 "wgpu-native; in a checkout of wgprof scripts/fetch-wgpu-native.sh or scripts/fetch-dawn.sh "
                 "fetches one; --webgpu PATH names one; tried:%s", tried);
    } else {
        snprintf(error, cap, "no %s library found (scripts/fetch-%s.sh fetches it); tried:%s", choice, choice, tried);
    }
    return false;
}
