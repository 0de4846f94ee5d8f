/*
 * Finding the implementation the program uses, the settings the CLI passed, and dlopen.
 *
 * The implementation is, in order: the library the program asked dlopen for by its name
 * (libwgpu_native*, libwebgpu_dawn*: wgpu-py loads its library that way), the library the
 * program is linked to (the next wgpu* definition after this one), or WGPROF_RECORD_LIBRARY
 * (the CLI's choice, for programs that load this library by its own path, as wgpu-py does
 * through WGPU_LIB_PATH). Where it is wgpu-native of another major version than the headers
 * these forwarders were generated from, or unknown, the program runs unprofiled. A program that
 * asks for wgpu-native (by WGPU_LIB_PATH, or by its library's name) and would be handed another
 * implementation instead is stopped before its first WebGPU call, the reason given.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "record_lib.h"
#include "internal.h"
#include "webgpu_ext.h"

static _Thread_local int g_inside; /* this thread's hooks' calls into the implementation, open */
static _Thread_local char g_thread_token;

static pthread_once_t g_load_once = PTHREAD_ONCE_INIT;
static void *g_handle;           /* the implementation's, once known */
static pthread_once_t g_settings_once = PTHREAD_ONCE_INIT;
static wgprof_rec_settings g_settings;

void wgprof_rec_enter(void) { g_inside++; }
void wgprof_rec_leave(void) { g_inside--; }
bool wgprof_rec_nested(void) { return g_inside > 0; }
const void *wgprof_rec_thread(void) { return &g_thread_token; }

void wgprof_rec_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "wgprof record: %s\n", line);
}

static void read_settings(void)
{
    const char *dir = getenv(RECORD_ENV_DIR);
    snprintf(g_settings.dir, sizeof g_settings.dir, "%s", dir ? dir : "");
    const char *dir_id = getenv(RECORD_ENV_DIR_ID);
    snprintf(g_settings.dir_id, sizeof g_settings.dir_id, "%s", dir_id ? dir_id : "");
    const char *strategy = getenv(RECORD_ENV_STRATEGY);
    g_settings.inside = strategy && strcmp(strategy, "inside") == 0;
    const char *every = getenv(RECORD_ENV_SAMPLE_EVERY);
    unsigned long n = every ? strtoul(every, NULL, 10) : 1;
    g_settings.sample_every = n >= 1 && n <= UINT32_MAX ? (uint32_t)n : 1;
    const char *formats = getenv(RECORD_ENV_FORMATS);
    snprintf(g_settings.formats, sizeof g_settings.formats, "%s", formats ? formats : "");
    const char *layer = getenv(RECORD_ENV_LAYER);
    snprintf(g_settings.layer, sizeof g_settings.layer, "%s", layer && layer[0] == '/' ? layer : "");
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool is_implementation_name(const char *path)
{
    const char *b = base_name(path);
    return strncmp(b, "libwgpu_native", 14) == 0 || strncmp(b, "libwebgpu_dawn", 14) == 0;
}

/* dlsym as the system has it: the C library's, by its version (this library answers the name
 * dlsym itself, below). */
typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn system_dlsym(void)
{
    static dlsym_fn fn;
    if (!fn) {
        static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"};
        for (size_t i = 0; !fn && i < sizeof versions / sizeof *versions; i++) {
            *(void **)&fn = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
        }
    }
    return fn;
}

void *wgprof_rec_system_dlsym(void *handle, const char *name)
{
    dlsym_fn fn = system_dlsym();
    return fn ? fn(handle, name) : NULL;
}

/* dlopen as the system has it, found once. */
typedef void *(*dlopen_fn)(const char *, int);
static dlopen_fn system_dlopen(void)
{
    static dlopen_fn fn;
    if (!fn) {
        *(void **)&fn = wgprof_rec_system_dlsym(RTLD_NEXT, "dlopen");
    }
    return fn;
}

void *wgprof_rec_system_dlopen(const char *file, int mode) { return system_dlopen()(file, mode); }

bool wgprof_rec_layer_loaded(void)
{
    const char *path = wgprof_rec_settings_get()->layer;
    /* RTLD_NOLOAD finds the library the loader opened (by its file, whatever the path it was
     * opened by) and loads nothing; the reference it takes is given back at once. */
    void *h = path[0] ? system_dlopen()(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (h) {
        dlclose(h);
    }
    return h != NULL;
}

/* The implementation the program is linked to or named: NULL when none is known yet. */
static void *find_implementation(void)
{
    if (g_handle) {
        return g_handle;
    }
    void *next = wgprof_rec_system_dlsym(RTLD_NEXT, "wgpuCreateInstance");
    Dl_info where = {0};
    if (next && dladdr(next, &where) && where.dli_fname) {
        void *h = system_dlopen()(where.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        if (h) {
            return h;
        }
    }
    const char *path = getenv(RECORD_ENV_LIBRARY);
    if (path && *path) {
        void *h = system_dlopen()(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            wgprof_rec_say("cannot load the WebGPU implementation %s: %s", path, dlerror());
        }
        return h;
    }
    return NULL;
}

/* The path of the implementation's library, for messages. */
static void library_path(char *out, size_t cap)
{
    Dl_info where = {0};
    void *create = wgprof_rec_system_dlsym(g_handle, "wgpuCreateInstance");
    snprintf(out, cap, "%s", create && dladdr(create, &where) && where.dli_fname ? where.dli_fname : "(unnamed)");
}

static atomic_bool g_loaded;
bool wgprof_rec_loaded(void) { return atomic_load(&g_loaded); }
/* Its `ready` set as load ends: every hook's call of wgprof_rec_real then reads a flag, not
 * pthread_once. */
wgprof_rec_loaded_state wgprof_rec_load_state;

static void load(void)
{
    atomic_store(&g_loaded, true);
    pthread_once(&g_settings_once, read_settings);
    g_handle = find_implementation();
    if (!g_handle) {
        /* The program calls WebGPU (this runs at its first call) and nothing can answer: it
         * would fail the same way without wgprof, at its link or its dlopen. */
        wgprof_rec_say("the program calls WebGPU, but no implementation was found: it links none and "
                       "WGPROF_RECORD_LIBRARY (--webgpu, or WGPU_LIB_PATH) names none that loads");
        wgprof_rec_exit_plain(127);
    }
    /* The ABI first: the table is filled, and adapted, only for one that wgprof knows. */
    char why[512];
    wgprof_rec_abi abi =
        wgprof_rec_abi_identify(g_handle, wgprof_rec_system_dlsym, WGPROF_REC_WGPU_NATIVE_MAJOR, why, sizeof why);
    size_t found = wgprof__webgpu_procs_load_by(g_handle, wgprof_rec_system_dlsym, &wgprof_rec_load_state.real);
    bool known = wgprof_rec_abi_adapt(abi, g_handle, wgprof_rec_system_dlsym, &wgprof_rec_load_state.real);
    if (!known) {
        char path[1024];
        library_path(path, sizeof path);
        wgprof_rec_say("%s: not a WebGPU ABI wgprof knows (%s): every call goes to it, nothing is timed", path,
                       why[0] ? why : "a function wgprof needs is missing");
    } else if (abi != WGPROF_REC_ABI_WEBGPU_H) {
        char path[1024];
        library_path(path, sizeof path);
        wgprof__log(WGPROF_LOG_DEBUG, "wgprof record: %s has %s", path, wgprof_rec_abi_name(abi));
    }
    /* libwgprof's calls go to the implementation itself, not to this library's hooks. */
    wgprof__webgpu_install(&wgprof_rec_load_state.real, g_handle, wgprof_rec_system_dlsym);
    wgprof_rec_load_state.active = found > 0 && known && g_settings.dir[0];
    if (found < WGPROF__WEBGPU_PROC_COUNT) {
        /* Dawn lacks wgpu-native's extensions: their forwarders report a call, if one comes. */
        wgprof__log(WGPROF_LOG_DEBUG, "wgprof record: the implementation has %zu of %d functions", found,
                    (int)WGPROF__WEBGPU_PROC_COUNT);
    }
    atomic_store_explicit(&wgprof_rec_load_state.ready, true, memory_order_release);
}

void *wgprof_rec_implementation(void)
{
    wgprof_rec_real();
    return g_handle;
}

const wgprof__webgpu_procs *wgprof_rec_load(void)
{
    pthread_once(&g_load_once, load);
    return &wgprof_rec_load_state.real;
}

const wgprof_rec_settings *wgprof_rec_settings_get(void)
{
    /* Once the implementation is loaded, they are read (load's first step, before `ready`). */
    if (!atomic_load_explicit(&wgprof_rec_load_state.ready, memory_order_acquire)) {
        pthread_once(&g_settings_once, read_settings);
    }
    return &g_settings;
}

void wgprof_rec_missing(const char *name)
{
    static atomic_bool said;
    /* Programs that look up wgpu-native's extensions by name (libwgprof: the version, the
     * period, polling) find these forwarders on any implementation; the zero they get back is
     * the answer they expect of one without them, not a mistake. */
    static const char *const probed[] = {"wgpuGetVersion", "wgpuQueueGetTimestampPeriod", "wgpuDevicePoll",
                                         "wgpuComputePassEncoderWriteTimestamp"};
    for (size_t i = 0; i < sizeof probed / sizeof probed[0]; i++) {
        if (strcmp(name, probed[i]) == 0) {
            return;
        }
    }
    if (!atomic_exchange(&said, true)) {
        wgprof_rec_say("the program called %s, which its WebGPU implementation does not have", name);
    }
}

/* Whether `file` is this library, by path: a program given it as its WebGPU library, by
 * WGPU_LIB_PATH (the CLI points it here), which names wgpu-native's library (wgpu-py). */
__attribute__((noinline)) static bool is_this_library(const char *file)
{
    Dl_info self = {0};
    struct stat a, b;
    return strchr(file, '/') && dladdr(&g_settings, &self) && self.dli_fname && stat(file, &a) == 0 &&
           stat(self.dli_fname, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* A program that asked for wgpu-native (`how`) is about to be handed another implementation
 * (--webgpu dawn): it would fail later, in some call of wgpu-native's extensions (wgpu-py needs
 * them), far from the reason. Stopped here, before its first WebGPU call, with the reason: in
 * the results folder for the CLI to print and exit 2 on (record.h), else on stderr. */
static void require_wgpu_native(void *handle, const char *how)
{
    wgprof_rec_settings_get(); /* the results folder */
    if (!handle || wgprof_rec_system_dlsym(handle, "wgpuGetVersion")) {
        return;
    }
    Dl_info where = {0};
    void *any = wgprof_rec_system_dlsym(handle, "wgpuCreateInstance");
    const char *path = any && dladdr(any, &where) && where.dli_fname ? where.dli_fname : "the one chosen";
    char line[1024];
    snprintf(line, sizeof line,
             "the program loads wgpu-native (%s) and needs wgpu-native's extensions, as wgpu-py does; the "
             "implementation wgprof was given, %s (%s), has none of them: record it with --webgpu wgpu-native",
             how, wgprof_rec_system_dlsym(handle, "wgpuDeviceTick") ? "Dawn" : "not wgpu-native", path);
    /* Into the folder the CLI made, not through a link or a folder put in its place. */
    int dir = g_settings.dir[0] ? open(g_settings.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    struct stat st;
    char id[64] = "";
    if (dir >= 0 && fstat(dir, &st) == 0) {
        snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
    }
    int fd = dir >= 0 && strcmp(id, g_settings.dir_id) == 0
                 ? openat(dir, RECORD_FILE_REFUSED, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                 : -1;
    if (dir >= 0) {
        close(dir);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0) {
        close(fd);
    }
    bool told = f && fprintf(f, "%s\n", line) > 0;
    told = f && fclose(f) == 0 && told;
    if (!told) {
        wgprof_rec_say("%s", line);
    }
    wgprof_rec_exit_plain(RECORD_EXIT_REFUSED);
}

/* What a dlopen of the program's is answered with, where this library answers it itself. */
typedef struct answered {
    bool answered;
    void *handle;
} answered;

/* The loader of Chromium's bundled SwiftShader, by its full path (record_lib.h). Not inlined:
 * its buffer would keep dlopen's pass-through from being a tail call. */
__attribute__((noinline)) static answered swiftshader_open(const char *file, const void *caller, int mode)
{
    char loader[4096];
    if (!wgprof_rec_swiftshader_loader(file, caller, loader, sizeof loader)) {
        return (answered){false, NULL};
    }
    return (answered){true, system_dlopen()(loader, mode)}; /* by its full path: no run path is looked in */
}

/* The implementation, asked for by its name (libwgpu_native*, libwebgpu_dawn*): this library,
 * whose wgpu* functions stand in for the implementation's. */
__attribute__((noinline)) static void *implementation_open(const char *file, int mode)
{
    if (!g_handle) {
        /* A bare name is looked up in this library's run path, not the caller's: where that
         * finds nothing, the implementation the CLI named stands in. */
        g_handle = system_dlopen()(file, mode);
        if (!g_handle) {
            g_handle = find_implementation();
        }
        if (!g_handle) {
            return NULL;
        }
    }
    if (strncmp(base_name(file), "libwgpu_native", 14) == 0) {
        require_wgpu_native(g_handle, base_name(file));
    }
    Dl_info self = {0};
    void *me = NULL;
    if (wgprof_rec_active() && dladdr(&g_settings, &self) && self.dli_fname) {
        me = system_dlopen()(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    }
    return me ? me : system_dlopen()(file, mode);
}

/* A program given this library as wgpu-native's by WGPU_LIB_PATH, stopped where the
 * implementation chosen is another. */
__attribute__((noinline)) static void this_library_opened(void)
{
    wgprof_rec_real(); /* the implementation chosen */
    require_wgpu_native(g_handle, "by WGPU_LIB_PATH");
}

/* The program's dlopen: its implementation, named, is answered with this library (and
 * Chromium's SwiftShader loader with its full path); every other call is the system's, made as
 * a tail call so that the system sees the program's caller (dlopen looks up a relative name in
 * the caller's run path): no local of this function may have its address taken, which the
 * helpers above keep theirs for. Every call here is the program's (or a library's it loaded):
 * the copy of libwgprof linked in here opens nothing, the implementation's table and handle
 * being installed in it before it runs (load). */
WGPROF_REC_EXPORT void *dlopen(const char *file, int mode)
{
    answered swiftshader = swiftshader_open(file, __builtin_return_address(0), mode);
    if (swiftshader.answered) {
        return swiftshader.handle;
    }
    /* RTLD_NOLOAD only takes a reference to what is there (libwgprof finding the library of
     * the wgpu* functions it calls, this one): no program asking for wgpu-native. */
    if (file && !(mode & RTLD_NOLOAD) && is_this_library(file)) {
        this_library_opened();
    }
    if (file && is_implementation_name(file)) {
        return implementation_open(file, mode);
    }
    return system_dlopen()(file, mode);
}

/* This library's own handle, as the system's dlopen gives it (once: each such call counts a
 * reference). */
static void *g_self;
static pthread_once_t g_self_once = PTHREAD_ONCE_INIT;
static void find_self(void)
{
    Dl_info self = {0};
    if (dladdr(&g_settings, &self) && self.dli_fname) {
        g_self = system_dlopen()(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    }
}

/* A lookup in this library's handle (the program's dlopen of its implementation was answered
 * with it, or it loaded this library by path): the program means its implementation. Its hooks
 * answer for the functions they stand in for, in the ABI the implementation has; every other
 * name is the implementation's own function, so that a program finds everything its
 * implementation has, whatever the version (ctypes and cffi look names up one by one). The
 * failing lookup, where there is one, is the last call made, so that dlerror() tells of it. */
static void *answer(const char *name)
{
    wgprof_rec_real();
    const char *ours = name;
    wgprof_rec_answer how =
        strncmp(name, "wgpu", 4) == 0 ? wgprof_rec_abi_answer(name, &ours) : WGPROF_REC_ANSWER_THEIRS;
    void *mine = how != WGPROF_REC_ANSWER_THEIRS ? wgprof_rec_system_dlsym(g_self, ours) : NULL;
    if (mine) {
        return mine;
    }
    return wgprof_rec_system_dlsym(g_handle, name);
}

/* The program's dlsym: lookups in this library's handle are answered above, every other one is
 * the system's, made as a tail call so that the system sees the program's caller (RTLD_NEXT
 * is relative to the caller). Nothing of this library calls it (wgprof_rec_system_dlsym). */
WGPROF_REC_EXPORT void *dlsym(void *restrict handle, const char *restrict name)
{
    if (handle != RTLD_DEFAULT && handle != RTLD_NEXT) {
        pthread_once(&g_self_once, find_self);
        if (g_self && handle == g_self) {
            return answer(name);
        }
    }
    dlsym_fn fn = system_dlsym();
    return fn ? fn(handle, name) : NULL;
}
