/*
 * Test-only hook for the table libwgprof calls WebGPU through: a table whose every entry reports
 * its function's name, then calls the implementation's (webgpu_procs_logging.c, generated from
 * the WebGPU headers), installed in libwgprof. Compiled into the wgprof_testing library that
 * tests link, never into libwgprof.
 */
#include "testing.h"
#include "webgpu_ext.h"

bool wgprof__webgpu_log_install(void (*report)(const char *name, void *user), void *user)
{
    void *library = NULL;
    if (!wgprof__webgpu_find_library(&library)) {
        return false;
    }
    wgprof__webgpu_procs real = {0};
    wgprof__webgpu_procs logged = {0};
    wgprof__webgpu_procs_load(library, &real);
    wgprof__webgpu_procs_logging(&real, report, user, &logged);
    wgprof__webgpu_install(&logged, library, NULL);
    return true;
}
