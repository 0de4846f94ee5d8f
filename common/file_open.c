/*
 * Opening a file the user named for reading, without waiting on it and without taking what is
 * not a regular file (common.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

int file_open_regular(const char *path, uint64_t max_bytes, uint64_t *size, uint64_t *dev, uint64_t *ino, char *why,
                      size_t why_cap)
{
    /* O_NONBLOCK: opening a FIFO does not wait for a writer, and fstat then tells what it is. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_cap, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_cap, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_cap, "not a regular file but %s",
                 S_ISDIR(st.st_mode)    ? "a folder"
                 : S_ISFIFO(st.st_mode) ? "a FIFO"
                 : S_ISCHR(st.st_mode)  ? "a character device"
                 : S_ISBLK(st.st_mode)  ? "a block device"
                 : S_ISSOCK(st.st_mode) ? "a socket"
                                        : "something else");
        close(fd);
        return -1;
    }
    if (max_bytes && (uint64_t)st.st_size > max_bytes) {
        snprintf(why, why_cap, "%llu bytes, more than the %llu MiB allowed", (unsigned long long)st.st_size,
                 (unsigned long long)(max_bytes >> 20));
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) {
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }
    *size = (uint64_t)st.st_size;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return fd;
}
