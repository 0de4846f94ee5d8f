/*
 * A preloaded attacker for test_hostile: makes the race of a spec's folder happen every time.
 * The spec's owner wins the race when a subfolder is swapped for a symbolic link between the
 * moment wgprof checks a path and the moment it opens it; this library does the swap exactly
 * there, once: right after the first realpath() whose result lies in WGPROF_TEST_SWAP_DIR, it
 * renames that folder away and puts a link to WGPROF_TEST_SWAP_TO in its place.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((visibility("default"))) char *realpath(const char *path, char *resolved)
{
    static char *(*real)(const char *, char *);
    static int swapped;
    if (!real) {
        void *found = dlsym(RTLD_NEXT, "realpath");
        memcpy(&real, &found, sizeof real); /* ISO C has no cast from an object pointer to a function's */
    }
    char *out = real(path, resolved);
    const char *dir = getenv("WGPROF_TEST_SWAP_DIR");
    const char *to = getenv("WGPROF_TEST_SWAP_TO");
    size_t n = dir ? strlen(dir) : 0;
    if (out && dir && to && !swapped && strncmp(out, dir, n) == 0 && out[n] == '/') {
        char away[4200];
        snprintf(away, sizeof away, "%s.away", dir);
        swapped = rename(dir, away) == 0 && symlink(to, dir) == 0;
    }
    return out;
}
