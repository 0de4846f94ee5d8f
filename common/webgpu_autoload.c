/*
 * For the test and benchmark programs: loads the WebGPU implementation WGPROF_WEBGPU names
 * (else the first found, see webgpu_loader.h) before main() runs, so that each program runs
 * unchanged on whichever the environment asks for. Linked as an object, never from a static
 * library, so that the linker cannot leave it out.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

__attribute__((constructor)) static void load_webgpu(void)
{
    char error[2048];
    if (!webgpu_loader_select(NULL, error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        exit(1);
    }
}
