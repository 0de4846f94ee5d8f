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
static wgprof__webgpu_procs g_real;
static void *g_handle;           /* the implementation's, once known */
static bool g_active;
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
    const char *strategy = getenv(RECORD_ENV_STRATEGY);
    g_settings.inside = strategy && strcmp(strategy, "inside") == 0;
    const char *every = getenv(RECORD_ENV_SAMPLE_EVERY);
    unsigned long n = every ? strtoul(every, NULL, 10) : 1;
    g_settings.sample_every = n >= 1 && n <= UINT32_MAX ? (uint32_t)n : 1;
    const char *formats = getenv(RECORD_ENV_FORMATS);
    snprintf(g_settings.formats, sizeof g_settings.formats, "%s", formats ? formats : "");
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

/* dlopen as the system has it, found once. */
typedef void *(*dlopen_fn)(const char *, int);
static dlopen_fn system_dlopen(void)
{
    static dlopen_fn fn;
    if (!fn) {
        *(void **)&fn = dlsym(RTLD_NEXT, "dlopen");
    }
    return fn;
}

/* The implementation the program is linked to or named: NULL when none is known yet. */
static void *find_implementation(void)
{
    if (g_handle) {
        return g_handle;
    }
    void *next = dlsym(RTLD_NEXT, "wgpuCreateInstance");
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

/* wgpu-native's version packs one byte per part, major first; these forwarders follow the
 * webgpu.h of WGPROF_REC_WGPU_NATIVE_MAJOR (the pinned wgpu-native, cmake). Dawn has no version
 * call: its core ABI was checked equal to that header (README), so it is taken as it is. */
static bool check_version(void)
{
    uint32_t (*get_version)(void) = NULL;
    *(void **)&get_version = dlsym(g_handle, "wgpuGetVersion");
    if (get_version) {
        uint32_t v = get_version();
        if (v >> 24 != WGPROF_REC_WGPU_NATIVE_MAJOR) {
            wgprof_rec_say("the program uses wgpu-native %u.%u.%u, wgprof was built for wgpu-native %u: running "
                           "it unprofiled (struct layouts differ between major versions)",
                           v >> 24, (v >> 16) & 0xFF, (v >> 8) & 0xFF, WGPROF_REC_WGPU_NATIVE_MAJOR);
            return false;
        }
        return true;
    }
    if (dlsym(g_handle, "wgpuDeviceTick")) {
        return true; /* Dawn */
    }
    wgprof_rec_say("the program's WebGPU library is neither wgpu-native nor Dawn: running it unprofiled");
    return false;
}

static void load(void)
{
    read_settings();
    g_handle = find_implementation();
    if (!g_handle) {
        /* The program calls WebGPU (this runs at its first call) and nothing can answer: it
         * would fail the same way without wgprof, at its link or its dlopen. */
        wgprof_rec_say("the program calls WebGPU, but no implementation was found: it links none and "
                       "WGPROF_RECORD_LIBRARY (--webgpu, or WGPU_LIB_PATH) names none that loads");
        _exit(127);
    }
    size_t found = wgprof__webgpu_procs_load(g_handle, &g_real);
    /* libwgprof's calls go to the implementation itself, not to this library's hooks. */
    wgprof__webgpu_install(&g_real, g_handle);
    g_active = found > 0 && check_version() && g_settings.dir[0];
    if (found < WGPROF__WEBGPU_PROC_COUNT) {
        /* Dawn lacks wgpu-native's extensions: their forwarders report a call, if one comes. */
        wgprof__log(WGPROF_LOG_DEBUG, "wgprof record: the implementation has %zu of %d functions", found,
                    (int)WGPROF__WEBGPU_PROC_COUNT);
    }
}

const wgprof__webgpu_procs *wgprof_rec_real(void)
{
    pthread_once(&g_load_once, load);
    return &g_real;
}

bool wgprof_rec_active(void)
{
    wgprof_rec_real();
    return g_active;
}

const wgprof_rec_settings *wgprof_rec_settings_get(void)
{
    wgprof_rec_real();
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
static bool is_this_library(const char *file)
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
    wgprof_rec_real(); /* the settings: the results folder */
    if (!handle || dlsym(handle, "wgpuGetVersion")) {
        return;
    }
    Dl_info where = {0};
    void *any = dlsym(handle, "wgpuCreateInstance");
    const char *path = any && dladdr(any, &where) && where.dli_fname ? where.dli_fname : "the one chosen";
    char line[1024];
    snprintf(line, sizeof line,
             "the program loads wgpu-native (%s) and needs wgpu-native's extensions, as wgpu-py does; the "
             "implementation wgprof was given, %s (%s), has none of them: record it with --webgpu wgpu-native",
             how, dlsym(handle, "wgpuDeviceTick") ? "Dawn" : "not wgpu-native", path);
    char refused[sizeof g_settings.dir + 32];
    snprintf(refused, sizeof refused, "%s/" RECORD_FILE_REFUSED, g_settings.dir);
    FILE *f = g_settings.dir[0] ? fopen(refused, "wx") : NULL;
    bool told = f && fprintf(f, "%s\n", line) > 0;
    told = f && fclose(f) == 0 && told;
    if (!told) {
        wgprof_rec_say("%s", line);
    }
    _exit(RECORD_EXIT_REFUSED);
}

/* The program's dlopen: its implementation, named, is answered with this library, whose
 * wgpu* functions stand in for the implementation's; every other call is the system's, made as
 * a tail call so that the system sees the program's caller (dlopen looks up a relative name in
 * the caller's run path). Every call here is the program's (or a library's it loaded): the copy
 * of libwgprof linked in here opens nothing, the implementation's table and handle being
 * installed in it before it runs (load). */
WGPROF_REC_EXPORT void *dlopen(const char *file, int mode)
{
    if (file && is_this_library(file)) {
        wgprof_rec_real(); /* the implementation chosen */
        require_wgpu_native(g_handle, "by WGPU_LIB_PATH");
    }
    if (file && is_implementation_name(file)) {
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
    return system_dlopen()(file, mode);
}
