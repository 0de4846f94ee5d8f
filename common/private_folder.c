/* Opening a private folder another process of ours made (record's results folder, named in the
 * environment): only a folder, not a link, of this user's, closed to everyone else, and the very
 * one that was made (its identity, "DEV:INO"), so that nothing put in its place is written into. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* Whether `st` is of the file whose identity is `identity` ("DEV:INO"). */
static bool has_identity(const struct stat *st, const char *identity)
{
    char id[64];
    snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
    return strcmp(id, identity) == 0;
}

int private_folder_open(const char *path, const char *identity, char *why, size_t cap)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    const char *reason = NULL;
    if (fd < 0) {
        reason = errno == ELOOP || errno == ENOTDIR ? "it is no longer a folder (a symbolic link put in its place?)"
                                                    : strerror(errno);
    } else if (fstat(fd, &st) != 0) {
        reason = strerror(errno);
    } else {
        if (st.st_uid != geteuid() || (st.st_mode & 077)) {
            reason = "it is not this user's private folder";
        } else if (!has_identity(&st, identity)) {
            reason = "it is not the folder wgprof made (replaced while the program ran?)";
        }
    }
    if (reason) {
        snprintf(why, cap, "%s", reason);
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

unsigned private_folder_claim(int dir, long pid, const char *suffix, _Atomic unsigned *next)
{
    for (;;) {
        unsigned n = atomic_fetch_add(next, 1);
        char name[96];
        snprintf(name, sizeof name, "%ld.%u.%s", pid, n, suffix);
        int fd = dir >= 0 ? openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
        if (fd >= 0) {
            close(fd);
        }
        /* Any failure but "taken" is the writing's to say, later. */
        if (fd >= 0 || errno != EEXIST || dir < 0) {
            return n;
        }
    }
}

/* Whether `fd` is still the folder of `identity`. */
static bool is_folder(int fd, const char *identity)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && has_identity(&st, identity);
}

int private_folder_held(_Atomic int *fd, const char *path, const char *identity, char *why, size_t cap)
{
    int held = atomic_load(fd);
    if (is_folder(held, identity)) {
        return held;
    }
    /* Never opened, or the number is now another file's (the program's, not to be closed). */
    int opened = private_folder_open(path, identity, why, cap);
    if (opened < 0) {
        return -1;
    }
    if (!atomic_compare_exchange_strong(fd, &held, opened)) {
        close(opened); /* another thread opened it first: `held` is now its descriptor */
        return held;
    }
    return opened;
}

bool private_folder_mark(int dir, const char *name)
{
    int fd = dir < 0 ? -1 : openat(dir, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return false;
    }
    close(fd);
    return true;
}
