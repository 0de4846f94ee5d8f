/*
 * Opening a file the user named for reading, without waiting on it and without taking what is
 * not a regular file; and opening a path beneath a folder descriptor, so that checking where a
 * path leads and opening it are one operation (common.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH, syscall */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include "common.h"

enum { COMPONENT_MAX = 256 };

path_part path_part_at(const char *at)
{
    while (*at == '/') {
        at++;
    }
    path_part part = {.name = at, .len = strcspn(at, "/")};
    part.rest = at + part.len;
    while (*part.rest == '/') {
        part.rest++;
    }
    part.last = *part.rest == '\0';
    return part;
}

/* The same walk by hand, for kernels without openat2 (before 5.6) or where a sandbox refuses it:
 * one component at a time, each opened with O_NOFOLLOW under the one before. */
static int open_beneath_by_hand(int dirfd, const char *path, int flags)
{
    int cur = dirfd;
    const char *p = path;
    for (;;) {
        path_part part = path_part_at(p);
        size_t n = part.len;
        const char *rest = part.rest;
        bool last = part.last;
        p = part.name;
        char comp[COMPONENT_MAX];
        if (n >= sizeof comp) {
            if (cur != dirfd) {
                close(cur);
            }
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        if (n == 0) {
            strcpy(comp, ".");
        }
        if (strcmp(comp, "..") == 0) {
            if (cur != dirfd) {
                close(cur);
            }
            errno = EXDEV;
            return -1;
        }
        int next;
        if (last) {
            next = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
        } else {
            next = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            struct stat st;
            if (next >= 0 && (fstat(next, &st) != 0 || !S_ISDIR(st.st_mode))) {
                close(next);
                next = -1;
                errno = ELOOP;
            }
        }
        int e = errno;
        if (cur != dirfd) {
            close(cur);
        }
        if (next < 0) {
            errno = e;
            return -1;
        }
        if (last) {
            return next;
        }
        cur = next;
        p = rest;
    }
}

int file_open_beneath(int dirfd, const char *path, int flags)
{
    if (!path[0] || path[0] == '/') {
        errno = path[0] ? EXDEV : ENOENT;
        return -1;
    }
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(flags | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) {
        return (int)fd;
    }
#endif
    return open_beneath_by_hand(dirfd, path, flags);
}

int file_open_regular_at(int dirfd, const char *path, bool beneath, uint64_t max_bytes, uint64_t *size,
                         uint64_t *dev, uint64_t *ino, char *why, size_t why_cap)
{
    /* O_NONBLOCK: opening a FIFO does not wait for a writer, and fstat then tells what it is. */
    int how = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = beneath ? file_open_beneath(dirfd, path, how) : openat(dirfd, path, how);
    if (fd < 0) {
        if (beneath && (errno == EXDEV || errno == ELOOP)) {
            snprintf(why, why_cap, "a symbolic link or '..' on its path (a folder replaced since it was checked?): "
                                   "not followed");
        } else {
            snprintf(why, why_cap, "%s", strerror(errno));
        }
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

int file_open_regular(const char *path, uint64_t max_bytes, uint64_t *size, uint64_t *dev, uint64_t *ino, char *why,
                      size_t why_cap)
{
    return file_open_regular_at(AT_FDCWD, path, false, max_bytes, size, dev, ino, why, why_cap);
}
