/* The layer's maps: its instances and devices by the loader's dispatch key (the first word of
 * every dispatchable handle: a device's queues and command buffers share its key, an instance's
 * physical devices its), the program's command buffers, pipelines, shader modules and command
 * pools by handle; one mutex, held for an update (a lookup takes none: layer_map.c). And the
 * settings the CLI passed, and the process's id. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "layer.h"
#include "layer_lib.h"
#include "record.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static wgprof_layer_map g_devices, g_instances;
wgprof_layer_map wgprof_layer_cbs, wgprof_layer_pipelines, wgprof_layer_shaders, wgprof_layer_modules,
    wgprof_layer_pools;

void wgprof_layer_lock(void) { pthread_mutex_lock(&g_lock); }
void wgprof_layer_unlock(void) { pthread_mutex_unlock(&g_lock); }

static uint64_t key_of(const void *dispatchable)
{
    const void *const *table = dispatchable;
    return dispatchable ? (uint64_t)(uintptr_t)*table : 0;
}

wgprof_layer_device *wgprof_layer_device_of(const void *dispatchable)
{
    return wgprof_layer_map_get(&g_devices, key_of(dispatchable));
}

wgprof_layer_cb *wgprof_layer_cb_of(VkCommandBuffer handle)
{
    return wgprof_layer_map_get(&wgprof_layer_cbs, (uint64_t)(uintptr_t)handle);
}

/* The process's id, kept: the hooks ask it at every submit and wait (is the reader this
 * process's, or a copy fork() left without its thread?), and getpid is a system call. A child of
 * fork() learns its own in the handler below, registered once (and dropped with the layer's
 * library where the loader unloads it). */
static _Atomic long g_pid;
static pthread_once_t g_pid_once = PTHREAD_ONCE_INIT;

static void pid_renew(void) { atomic_store_explicit(&g_pid, (long)getpid(), memory_order_relaxed); }

static void pid_watch(void)
{
    pid_renew();
    pthread_atfork(NULL, NULL, pid_renew);
}

long wgprof_layer_pid(void)
{
    pthread_once(&g_pid_once, pid_watch);
    return atomic_load_explicit(&g_pid, memory_order_relaxed);
}

wgprof_layer_instance *wgprof_layer_instance_of(const void *dispatchable)
{
    return wgprof_layer_map_get(&g_instances, key_of(dispatchable));
}

bool wgprof_layer_device_put(wgprof_layer_device *d)
{
    wgprof_layer_lock();
    bool ok = wgprof_layer_map_put(&g_devices, key_of(d->handle), d);
    wgprof_layer_unlock();
    return ok;
}

bool wgprof_layer_instance_put(wgprof_layer_instance *i)
{
    wgprof_layer_lock();
    bool ok = wgprof_layer_map_put(&g_instances, key_of(i->handle), i);
    wgprof_layer_unlock();
    return ok;
}

wgprof_layer_device *wgprof_layer_device_take(const void *dispatchable)
{
    wgprof_layer_lock();
    wgprof_layer_device *d = wgprof_layer_map_take(&g_devices, key_of(dispatchable));
    wgprof_layer_unlock();
    return d;
}

wgprof_layer_instance *wgprof_layer_instance_take(const void *dispatchable)
{
    wgprof_layer_lock();
    wgprof_layer_instance *i = wgprof_layer_map_take(&g_instances, key_of(dispatchable));
    wgprof_layer_unlock();
    return i;
}

typedef struct device_list {
    wgprof_layer_device **items;
    size_t count;
} device_list;

static void collect(uint64_t key, void *value, void *user)
{
    (void)key;
    device_list *list = user;
    wgprof_layer_device *d = value;
    atomic_fetch_add(&d->walkers, 1); /* under the lock that taking it out of the map takes */
    list->items[list->count++] = d;
}

void wgprof_layer_devices_each(void (*fn)(wgprof_layer_device *d))
{
    wgprof_layer_lock();
    device_list list = {wgprof__calloc(g_devices.count + 1, sizeof *list.items), 0};
    if (list.items) {
        wgprof_layer_map_each(&g_devices, collect, &list);
    }
    wgprof_layer_unlock();
    for (size_t i = 0; i < list.count; i++) {
        fn(list.items[i]);
        atomic_fetch_sub(&list.items[i]->walkers, 1);
    }
    wgprof__free(list.items);
}

void wgprof_layer_device_unwalked(wgprof_layer_device *d)
{
    while (atomic_load(&d->walkers)) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

/* Its `read` set once they are: the hooks, which ask for them at every command, then read a flag
 * (layer_lib.h). */
wgprof_layer_settings_state wgprof_layer_settings_now;
static pthread_once_t g_settings_once = PTHREAD_ONCE_INIT;

/* The value of the user's setting `name`, or "" (its default) where it is unset, empty or not one
 * of `values` ("a|b"): said once, as the program starts. */
static const char *user_setting(const char *name, const char *values)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        return "";
    }
    if (!list_has(values, '|', v)) {
        wgprof_layer_say("%s=%.*s%s: not a value it takes (%s); its default is used", name,
                         (int)WGPROF_LAYER_VALUE_SHOWN, v,
                         strnlen(v, WGPROF_LAYER_VALUE_SHOWN + 1) > WGPROF_LAYER_VALUE_SHOWN ? "..." : "", values);
        return "";
    }
    return v;
}

static void read_settings(void)
{
    wgprof_layer_settings *s = &wgprof_layer_settings_now.settings;
    const char *dir = getenv(RECORD_ENV_DIR);
    snprintf(s->dir, sizeof s->dir, "%s", dir ? dir : "");
    const char *id = getenv(RECORD_ENV_DIR_ID);
    snprintf(s->dir_id, sizeof s->dir_id, "%s", id ? id : "");
    const char *formats = getenv(RECORD_ENV_FORMATS);
    snprintf(s->formats, sizeof s->formats, "%s", formats ? formats : "");
    const char *every = getenv(RECORD_ENV_SAMPLE_EVERY);
    unsigned long n = every ? strtoul(every, NULL, 10) : 1;
    s->sample_every = n >= 1 && n <= UINT32_MAX ? (uint32_t)n : 1;
    const char *by = getenv(RECORD_ENV_SAMPLE_BY);
    s->sample_by_kernel = !by || strcmp(by, "encoder") != 0;
    const char *chain = user_setting(WGPROF_LAYER_CHAIN_ENV, WGPROF_LAYER_CHAIN_VALUES);
    s->chain_per_cb = strcmp(chain, WGPROF_LAYER_CHAIN_PER_CB) == 0;
    const char *readback = user_setting(WGPROF_LAYER_READBACK_ENV, WGPROF_LAYER_READBACK_VALUES);
    snprintf(s->readback, sizeof s->readback, "%s", readback);
    const char *only = user_setting(WGPROF_LAYER_TIMESTAMPS_ONLY_ENV, WGPROF_LAYER_TIMESTAMPS_ONLY_VALUES);
    s->timestamps_only = strcmp(only, "1") == 0;
    atomic_store_explicit(&wgprof_layer_settings_now.read, true, memory_order_release);
}

const wgprof_layer_settings *wgprof_layer_settings_read(void)
{
    pthread_once(&g_settings_once, read_settings);
    return &wgprof_layer_settings_now.settings;
}

void wgprof_layer_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "wgprof record (Vulkan layer): %s\n", line);
}
