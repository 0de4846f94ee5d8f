/*
 * Process-wide settings: the allocation hook every allocation goes through (and array growth
 * over it), the log callback, the CPU clock, status names and the version getter.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static void *default_alloc(size_t size, void *user_data)
{
    (void)user_data;
    return malloc(size);
}

static void default_free(void *ptr, void *user_data)
{
    (void)user_data;
    free(ptr);
}

static wgprof_allocator g_allocator = {default_alloc, default_free, NULL};
static wgprof_log_fn g_log_fn;
static void *g_log_user;

void wgprof_set_allocator(const wgprof_allocator *allocator)
{
    if (allocator && allocator->alloc && allocator->free) {
        g_allocator = *allocator;
    } else {
        g_allocator = (wgprof_allocator){default_alloc, default_free, NULL};
    }
}

void wgprof_set_logger(wgprof_log_fn fn, void *user_data)
{
    g_log_fn = fn;
    g_log_user = user_data;
}

void *wgprof__alloc(size_t size)
{
    return g_allocator.alloc(size ? size : 1, g_allocator.user_data);
}

void *wgprof__calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        return NULL;
    }
    size_t bytes = count * size;
    void *p = wgprof__alloc(bytes);
    if (p && bytes > 0) {
        memset(p, 0, bytes);
    }
    return p;
}

void *wgprof__grow(void *ptr, size_t old_size, size_t new_size)
{
    void *p = wgprof__alloc(new_size);
    if (!p) {
        return NULL;
    }
    if (ptr && old_size) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
    }
    if (new_size > old_size) {
        memset((char *)p + old_size, 0, new_size - old_size);
    }
    wgprof__free(ptr);
    return p;
}

void wgprof__free(void *ptr)
{
    if (ptr) {
        g_allocator.free(ptr, g_allocator.user_data);
    }
}

char *wgprof__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = wgprof__alloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

void wgprof__log(wgprof_log_level level, const char *fmt, ...)
{
    if (!g_log_fn) {
        return;
    }
    static const char prefix[] = "wgprof: ";
    char message[1024];
    memcpy(message, prefix, sizeof prefix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message + sizeof prefix - 1, sizeof message - (sizeof prefix - 1), fmt, ap);
    va_end(ap);
    g_log_fn(level, message, g_log_user);
}

uint64_t wgprof__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t wgprof_cpu_now_ns(void)
{
    return wgprof__now_ns();
}

wgprof_status wgprof__reserve(void **array, uint32_t *cap, uint32_t need, size_t size, uint32_t initial)
{
    if (need <= *cap) {
        return WGPROF_OK;
    }
    uint64_t ncap = *cap ? *cap : initial;
    while (ncap < need) {
        ncap *= 2;
    }
    if (ncap > UINT32_MAX) {
        return WGPROF_ERR_CAPACITY;
    }
    void *n = wgprof__grow(*array, (size_t)*cap * size, (size_t)ncap * size);
    if (!n) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    *array = n;
    *cap = (uint32_t)ncap;
    return WGPROF_OK;
}

const char *wgprof_status_str(wgprof_status status)
{
    switch (status) {
    case WGPROF_OK: return "WGPROF_OK: success";
    case WGPROF_ERR_INVALID_ARGUMENT: return "WGPROF_ERR_INVALID_ARGUMENT: invalid argument";
    case WGPROF_ERR_OUT_OF_MEMORY: return "WGPROF_ERR_OUT_OF_MEMORY: out of memory";
    case WGPROF_ERR_NO_ADAPTER: return "WGPROF_ERR_NO_ADAPTER: no WebGPU adapter found";
    case WGPROF_ERR_NO_DEVICE: return "WGPROF_ERR_NO_DEVICE: the adapter created no device";
    case WGPROF_ERR_UNAVAILABLE: return "WGPROF_ERR_UNAVAILABLE: timestamp queries unavailable";
    case WGPROF_ERR_CAPACITY: return "WGPROF_ERR_CAPACITY: query pool capacity exceeded";
    case WGPROF_ERR_MAP_FAILED: return "WGPROF_ERR_MAP_FAILED: mapping the readback buffer failed";
    case WGPROF_ERR_DEVICE_LOST: return "WGPROF_ERR_DEVICE_LOST: the device was lost";
    case WGPROF_ERR_WEBGPU: return "WGPROF_ERR_WEBGPU: the WebGPU implementation reported an error";
    case WGPROF_ERR_TIMEOUT: return "WGPROF_ERR_TIMEOUT: submitted work did not finish in time";
    case WGPROF_ERR_STATE: return "WGPROF_ERR_STATE: call out of order";
    case WGPROF_ERR_IO: return "WGPROF_ERR_IO: writing output failed";
    case WGPROF_ERR_UNSUPPORTED: return "WGPROF_ERR_UNSUPPORTED: the WebGPU implementation cannot do this";
    }
    return "WGPROF_ERR_UNKNOWN: unknown status";
}

const char *wgprof_version(void)
{
    return WGPROF_VERSION_STRING;
}
