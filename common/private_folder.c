/* Opening a private folder another process of ours made (record's results folder, named in the
 * environment): only a folder, not a link, of this user's, closed to everyone else, and the very
 * one that was made (its identity, "DEV:INO"), so that nothing put in its place is written into. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

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
        char id[64];
        snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
        if (st.st_uid != geteuid() || (st.st_mode & 077)) {
            reason = "it is not this user's private folder";
        } else if (strcmp(id, identity) != 0) {
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
