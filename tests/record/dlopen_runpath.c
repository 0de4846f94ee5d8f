/*
 * A program that loads a library of its own by its bare name, found in the program's run path
 * ($ORIGIN/runpath_lib): dlopen looks a relative name up in its caller's run path, so under
 * `wgprof record` the preload library's dlopen must leave the caller the program's. Prints
 * "found 42" and exits 0, else says why and exits 1.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *h = dlopen("libwgprof_runpath_probe.so", RTLD_NOW);
    int (*probe)(void) = NULL;
    if (h) {
        *(void **)&probe = dlsym(h, "wgprof_runpath_probe");
    }
    if (!probe) {
        fprintf(stderr, "dlopen_runpath: %s\n", h ? "no wgprof_runpath_probe" : dlerror());
        return 1;
    }
    printf("found %d\n", probe());
    return 0;
}
