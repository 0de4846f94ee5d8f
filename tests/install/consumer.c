/* Links the installed library and checks that header and library agree on the version; creates
 * (and releases) a WebGPU instance, so that it also links the WebGPU library installed beside
 * libwgprof and compiles against the WebGPU header installed with wgprof.h (no GPU needed). */
#include <stdio.h>
#include <string.h>

#include <webgpu/webgpu.h>
#include <wgprof/wgprof.h>

int main(void)
{
    int same = strcmp(wgprof_version(), WGPROF_VERSION_STRING) == 0;
    printf("%s: header %s, library %s\n", same ? "ok" : "MISMATCH", WGPROF_VERSION_STRING, wgprof_version());
    WGPUInstance instance = wgpuCreateInstance(NULL);
    if (!instance) {
        printf("no WebGPU instance\n");
        return 1;
    }
    wgpuInstanceRelease(instance);
    return same ? 0 : 1;
}
