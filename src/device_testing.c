/*
 * Test-only hook for the device: compiled into the wgprof_testing library that tests link,
 * never into libwgprof.
 */
#include "device_internal.h"
#include "testing.h"
#include "webgpu_ext.h"

void wgprof__device_lose(wgprof_device *d)
{
    if (d && d->device) {
        wgprof__wgpu()->deviceDestroy(d->device);
        atomic_store(&d->lost, true);
    }
}
