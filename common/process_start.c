/* A process told apart from a later one given the same number: its start, from /proc. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

bool process_start(long pid, unsigned long long *start, bool *running)
{
    char path[64], stat[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) {
        return false;
    }
    stat[n] = '\0';
    /* "PID (COMMAND) STATE PPID ...": the command may hold spaces and parentheses itself, so
     * the fields are counted from the last ')'; STATE is the 3rd field, the start the 22nd. */
    const char *p = strrchr(stat, ')');
    if (!p || p[1] != ' ' || !p[2]) {
        return false;
    }
    char state = p[2];
    p += 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p) {
            return false;
        }
        p++;
    }
    char *end = NULL;
    unsigned long long ticks = strtoull(p, &end, 10);
    if (end == p) {
        return false;
    }
    *start = ticks;
    if (running) {
        *running = state != 'Z' && state != 'X' && state != 'x';
    }
    return true;
}
