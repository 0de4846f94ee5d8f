/*
 * Why a process made no WebGPU call that wgprof saw. At its exit, where none reached this
 * library, the objects it has loaded are looked at for a WebGPU implementation that its calls
 * went around: one compiled into a program or library (no exported wgpu* function: its code and
 * its names are there, as text), or one that exports the functions but was loaded under a name
 * wgprof does not stand in for, or bound inside itself. What is found is written to the results
 * folder (record_output.c) for the CLI to print where nothing was timed. A process with no
 * WebGPU in it (a shell the program runs through) writes nothing.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "record_lib.h"

/* Text every implementation wgprof knows holds in its code, compiled in or not: Dawn's and
 * wgpu-native's tables of function names, Dawn's and wgpu's own namespaces. */
static const char *const MARKS[] = {"wgpuCreateInstance", "dawn::native::", "wgpu_core::"};
/* Objects bigger than this are not read at exit (a program's exit is not held up for it). */
static const off_t MAX_BYTES = (off_t)1 << 30;

typedef struct finding {
    char self[1024]; /* this library */
    struct stat layer; /* wgprof's Vulkan layer's library, enabled beside this one (st_ino 0: none) */
    char note[2048];
} finding;

/* Whether `path` is wgprof's Vulkan layer's library (libwgprof holds WebGPU's names too). */
static bool is_layer(const finding *f, const char *path)
{
    struct stat st;
    return f->layer.st_ino && stat(path, &st) == 0 && st.st_dev == f->layer.st_dev && st.st_ino == f->layer.st_ino;
}

static const char *mark_in(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 || st.st_size > MAX_BYTES) {
        if (fd >= 0) {
            close(fd);
        }
        return NULL;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        return NULL;
    }
    const char *found = NULL;
    for (size_t i = 0; !found && i < sizeof MARKS / sizeof *MARKS; i++) {
        if (memmem(map, (size_t)st.st_size, MARKS[i], strlen(MARKS[i]))) {
            found = MARKS[i];
        }
    }
    munmap(map, (size_t)st.st_size);
    return found;
}

static int visit(struct dl_phdr_info *info, size_t size, void *user)
{
    (void)size;
    finding *f = user;
    char exe[1024];
    const char *path = info->dlpi_name;
    if (!path || !path[0]) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0) {
            return 0;
        }
        exe[n] = '\0';
        path = exe;
    }
    if (path[0] != '/' || strcmp(path, f->self) == 0 || is_layer(f, path) || !mark_in(path)) {
        return 0;
    }
    /* Whether it defines the functions itself, exported (as a library loaded in full does). */
    bool exported = false;
    if (path != exe) {
        void *h = wgprof_rec_system_dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
        void *fn = h ? wgprof_rec_system_dlsym(h, "wgpuCreateInstance") : NULL;
        Dl_info where = {0};
        exported = fn && dladdr(fn, &where) && where.dli_fname && strcmp(where.dli_fname, path) == 0;
        if (h) {
            dlclose(h);
        }
    }
    if (exported) {
        snprintf(f->note, sizeof f->note,
                 "%s exports WebGPU's functions, but none of the program's calls to them went through wgprof: "
                 "it was loaded under a name wgprof does not stand in for (only libwgpu_native* and "
                 "libwebgpu_dawn*), or it binds its own calls inside itself",
                 path);
    } else {
        snprintf(f->note, sizeof f->note,
                 "%s has a WebGPU implementation compiled in (no wgpu* function exported): its calls never "
                 "leave it, and wgprof record cannot see them",
                 path);
    }
    return 1;
}

static void at_exit(void)
{
    if (wgprof_rec_loaded()) {
        return;
    }
    finding f = {0};
    static const char anchor = 0; /* an object of this library's, to find its path by */
    Dl_info me = {0};
    if (dladdr(&anchor, &me) && me.dli_fname) {
        snprintf(f.self, sizeof f.self, "%s", me.dli_fname);
    }
    const char *layer = getenv(RECORD_ENV_LAYER); /* the settings are read at the first WebGPU call only */
    if (!layer || !layer[0] || stat(layer, &f.layer) != 0) {
        f.layer.st_ino = 0;
    }
    dl_iterate_phdr(visit, &f);
    if (f.note[0]) {
        wgprof_rec_output_note(f.note);
    }
}

__attribute__((constructor)) static void watch(void)
{
    if (getenv(RECORD_ENV_DIR)) {
        atexit(at_exit);
    }
}
