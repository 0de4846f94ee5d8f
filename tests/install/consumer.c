/* Links the installed library and checks that header and library agree on the version. */
#include <stdio.h>
#include <string.h>

#include <wgprof/wgprof.h>

int main(void)
{
    int same = strcmp(wgprof_version(), WGPROF_VERSION_STRING) == 0;
    printf("%s: header %s, library %s\n", same ? "ok" : "MISMATCH", WGPROF_VERSION_STRING, wgprof_version());
    return same ? 0 : 1;
}
