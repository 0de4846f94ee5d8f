/*
 * A library that takes Dawn's name (libwebgpu_dawn_unknown.so) and its wgpuDeviceTick but has
 * an ABI wgprof does not know (none of the functions of the string-view era): `wgprof record`
 * must leave a program's every call to it, time nothing and say so naming it
 * (tests/test_record_ctypes_dawn.sh). wgpuUnknownTwice stands for a function wgprof has never
 * heard of.
 */
#include <stdint.h>

void *wgpuCreateInstance(const void *descriptor);
void wgpuDeviceTick(void *device);
uint32_t wgpuUnknownTwice(uint32_t x);

__attribute__((visibility("default"))) void *wgpuCreateInstance(const void *descriptor)
{
    (void)descriptor;
    static char instance; /* its address stands for an instance */
    return &instance;
}

__attribute__((visibility("default"))) void wgpuDeviceTick(void *device) { (void)device; }

__attribute__((visibility("default"))) uint32_t wgpuUnknownTwice(uint32_t x) { return 2 * x + 1; }
