/* Writing a named file atomically and safely; the rules are in common.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH; S_ISVTX */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

enum { MAX_LINKS = 40, MAX_TRIES = 100, TEMP_BASE_MAX = 200 };

static double g_wait_s = 60.0;

void out_set_wait(double seconds)
{
    g_wait_s = seconds > 0 ? seconds : 60.0;
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

/* The folder part of `path` ("." when it has none), as a new string. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        return dup_text(".");
    }
    if (slash == path) {
        return dup_text("/");
    }
    size_t n = (size_t)(slash - path);
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, path, n);
        p[n] = '\0';
    }
    return p;
}

/* The descriptor a path names in this process: "-", /dev/std{in,out,err}, /dev/fd/N,
 * /proc/self/fd/N (and thread-self); -1 for any other path. */
static int descriptor_of(const char *path)
{
    static const struct {
        const char *name;
        int fd;
    } fixed[] = {{"-", 1}, {"/dev/stdin", 0}, {"/dev/stdout", 1}, {"/dev/stderr", 2}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (strcmp(path, fixed[i].name) == 0) {
            return fixed[i].fd;
        }
    }
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) == 0 && path[n] >= '0' && path[n] <= '9') {
            char *end;
            long fd = strtol(path + n, &end, 10);
            if (*end == '\0' && fd >= 0 && fd <= INT_MAX) {
                return (int)fd;
            }
        }
    }
    return -1;
}

static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode)    ? "a folder"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISLNK(mode)  ? "a symbolic link"
                            : "not a regular file";
}

/* "'path'" or "'path' (a link to 'target')", for messages. */
static void name_it(char *out, size_t cap, const char *given, const out_plan *plan)
{
    if (plan && plan->linked && plan->path) {
        snprintf(out, cap, "'%s' (a link to '%s')", given, plan->path);
    } else {
        snprintf(out, cap, "'%s'", given);
    }
}

void out_plan_free(out_plan *plan)
{
    free(plan->path);
    free(plan->name);
    if (plan->dir_fd >= 0) {
        close(plan->dir_fd);
    }
    memset(plan, 0, sizeof *plan);
    plan->fd = -1;
    plan->dir_fd = -1;
}

static bool plan_descriptor(const char *given, int fd, out_plan *plan, char *error, size_t cap)
{
    plan->kind = OUT_DESCRIPTOR;
    plan->fd = fd;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        snprintf(error, cap, "'%s': descriptor %d is not open", given, fd);
        return false;
    }
    if ((flags & O_ACCMODE) == O_RDONLY) {
        snprintf(error, cap, "'%s': descriptor %d is open for reading only", given, fd);
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) == 0) {
        plan->exists = true;
        plan->dev = (uint64_t)st.st_dev;
        plan->ino = (uint64_t)st.st_ino;
    }
    return true;
}

/* Linux's fs.protected_symlinks rule, which a link followed by hand would escape: a link in a
 * sticky folder that anyone may write to (/tmp) is followed only when it belongs to us or to
 * the folder's owner. `dir` is the folder the link was found in, as a descriptor: the folder
 * judged is the one the link is in, not whatever its name leads to later. */
static bool may_follow(int dir, const struct stat *link_st, uid_t *folder_owner)
{
    struct stat ds;
    if (fstat(dir, &ds) != 0) {
        return false;
    }
    *folder_owner = ds.st_uid;
    bool shared = (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH);
    return !shared || link_st->st_uid == geteuid() || link_st->st_uid == ds.st_uid;
}

/* Where `given` leads, walked one component at a time from "/" or ".", each folder opened under
 * the one before with O_NOFOLLOW and each link followed by hand, by may_follow()'s rule, at
 * every component (a planted link one folder up redirects a write as surely as one at the end).
 * Sets plan->path (the path after its links, for messages), plan->linked, plan->dir_fd (the
 * folder of the last component, opened once: all that is written is written through it),
 * plan->name, and `st`/`found` for what is there now. */
static bool follow_links(const char *given, out_plan *plan, struct stat *st, bool *found, char *error, size_t cap)
{
    char *cur = dup_text(given);
    int hops = 0;
    int dir = -1;
    char comp[NAME_MAX + 1];
    while (cur) {
        int fd = descriptor_of(cur);
        if (fd >= 0) {
            free(cur);
            return plan_descriptor(given, fd, plan, error, cap);
        }
        dir = open(cur[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0 && errno == EACCES) {
            dir = open(cur[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        if (dir < 0) {
            snprintf(error, cap, "'%s': %s", given, strerror(errno));
            break;
        }
        const char *p = cur;
        char *next = NULL;
        bool failed = false, done = false;
        while (!failed && !done && !next) {
            path_part part = path_part_at(p);
            p = part.name;
            size_t n = part.len;
            const char *rest = part.rest;
            bool last = part.last;
            if (n > NAME_MAX) {
                snprintf(error, cap, "'%s': %s", given, strerror(ENAMETOOLONG));
                failed = true;
                break;
            }
            memcpy(comp, n ? p : ".", n ? n : 1); /* a trailing '/' names the folder itself */
            comp[n ? n : 1] = '\0';
            int shown = (int)(p + n - cur); /* the path up to this component, for messages */
            struct stat cs;
            if (fstatat(dir, comp, &cs, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT && last) {
                    *found = false;
                    done = true;
                } else if (errno == ENOENT) {
                    snprintf(error, cap, "'%s': the folder '%.*s' does not exist", given, shown, cur);
                    failed = true;
                } else {
                    snprintf(error, cap, "'%s': %s", given, strerror(errno));
                    failed = true;
                }
                break;
            }
            if (S_ISLNK(cs.st_mode)) {
                uid_t owner = 0;
                if (!may_follow(dir, &cs, &owner)) {
                    snprintf(error, cap,
                             "'%s': '%.*s' is a symbolic link in a shared sticky folder, owned by uid %u, neither "
                             "this process's nor the folder's (uid %u): not followed (the rule of "
                             "fs.protected_symlinks)",
                             given, shown, cur, (unsigned)cs.st_uid, (unsigned)owner);
                    failed = true;
                    break;
                }
                if (++hops > MAX_LINKS) {
                    snprintf(error, cap, "'%s': too many levels of symbolic links", given);
                    failed = true;
                    break;
                }
                char target[PATH_MAX];
                ssize_t len = readlinkat(dir, comp, target, sizeof target - 1);
                if (len <= 0) {
                    snprintf(error, cap, "'%s': cannot read the link '%.*s': %s", given, shown, cur,
                             len < 0 ? strerror(errno) : "it is empty");
                    failed = true;
                    break;
                }
                target[len] = '\0';
                /* The link's text in its place: the folders before it, then what follows it. */
                int before = target[0] == '/' ? 0 : (int)(p - cur);
                size_t size = (size_t)before + (size_t)len + strlen(rest) + 2;
                next = malloc(size);
                if (!next) {
                    snprintf(error, cap, "'%s': out of memory", given);
                    failed = true;
                    break;
                }
                snprintf(next, size, "%.*s%s%s%s", before, cur, target, rest[0] ? "/" : "", rest);
                plan->linked = true;
                break;
            }
            if (last) {
                *found = true;
                *st = cs;
                done = true;
                break;
            }
            if (!S_ISDIR(cs.st_mode)) {
                snprintf(error, cap, "'%s': '%.*s' is not a folder", given, shown, cur);
                failed = true;
                break;
            }
            int sub = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0 && errno == EACCES) {
                sub = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); /* searchable only */
            }
            if (sub < 0) {
                snprintf(error, cap, "'%s': the folder '%.*s': %s", given, shown, cur, strerror(errno));
                failed = true;
                break;
            }
            close(dir);
            dir = sub;
            p = rest;
        }
        if (failed) {
            break;
        }
        if (done) {
            plan->path = cur;
            plan->dir_fd = dir;
            plan->name = dup_text(comp);
            if (!plan->name) {
                snprintf(error, cap, "'%s': out of memory", given);
                return false; /* out_plan_free() closes dir */
            }
            return true;
        }
        close(dir);
        dir = -1;
        free(cur);
        cur = next;
    }
    if (!cur) {
        snprintf(error, cap, "'%s': out of memory", given);
    }
    if (dir >= 0) {
        close(dir);
    }
    free(cur);
    return false;
}

static mode_t current_umask(void);

bool out_plan_path(const char *path, out_plan *plan, char *error, size_t cap)
{
    (void)current_umask(); /* found now, before the device's threads exist */
    memset(plan, 0, sizeof *plan);
    plan->kind = OUT_FILE; /* until found to be something else */
    plan->fd = -1;
    plan->dir_fd = -1;
    if (!path[0]) {
        snprintf(error, cap, "an empty file name");
        return false;
    }
    struct stat st = {0};
    bool found = false;
    if (!follow_links(path, plan, &st, &found, error, cap)) {
        out_plan_free(plan);
        return false;
    }
    if (plan->kind == OUT_DESCRIPTOR) {
        return true;
    }
    char name[PATH_MAX + 300];
    name_it(name, sizeof name, path, plan);
    if (found) {
        plan->exists = true;
        plan->dev = (uint64_t)st.st_dev;
        plan->ino = (uint64_t)st.st_ino;
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
            plan->kind = OUT_DEVICE;
            if (faccessat(plan->dir_fd, plan->name, W_OK, 0) != 0) {
                snprintf(error, cap, "%s: %s", name, strerror(errno));
                out_plan_free(plan);
                return false;
            }
            return true;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(error, cap, "%s is %s: wgprof writes regular files, FIFOs and character devices only", name,
                     kind_of(st.st_mode));
            out_plan_free(plan);
            return false;
        }
    }
    plan->kind = OUT_FILE;
    if (strcmp(plan->name, ".") == 0 || strcmp(plan->name, "..") == 0) {
        snprintf(error, cap, "%s names a folder, not a file", name);
        out_plan_free(plan);
        return false;
    }
    if (faccessat(plan->dir_fd, ".", W_OK | X_OK, 0) != 0) {
        char *dir = folder_of(plan->path);
        snprintf(error, cap, "%s: cannot create files in the folder '%s': %s", name, dir ? dir : "?", strerror(errno));
        free(dir);
        out_plan_free(plan);
        return false;
    }
    return true;
}

bool out_check(const char *path, const out_input *inputs, size_t input_count, char *error, size_t cap)
{
    out_plan plan;
    if (!out_plan_path(path, &plan, error, cap)) {
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && plan.exists && i < input_count; i++) {
        if (plan.dev == inputs[i].dev && plan.ino == inputs[i].ino) {
            char name[PATH_MAX + 300];
            name_it(name, sizeof name, path, &plan);
            snprintf(error, cap, "%s is %s, which this run reads: it would be overwritten", name, inputs[i].name);
            ok = false;
        }
    }
    out_plan_free(&plan);
    return ok;
}

/* ---- writing ---- */

/* Calls `write` on `f`, flushes, and fills `error` when anything failed. Closes `f`. */
static bool write_and_close(FILE *f, out_writer write, void *user, const char *name, bool sync, char *error,
                            size_t cap)
{
    char why[1024] = "";
    errno = 0;
    bool ok = write(f, user, why, sizeof why);
    int e = errno;
    if (ok && fflush(f) != 0) {
        ok = false;
        e = errno;
    }
    if (ok && ferror(f)) {
        ok = false;
        e = e ? e : EIO;
    }
    if (ok && sync && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
        ok = false;
        e = errno;
    }
    if (fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        snprintf(error, cap, "cannot write %s: %s", name, why[0] ? why : strerror(e ? e : EIO));
    }
    return ok;
}

static bool write_descriptor(const char *given, const out_plan *plan, out_writer write, void *user, char *error,
                             size_t cap)
{
    char name[PATH_MAX + 300];
    name_it(name, sizeof name, given, plan);
    fflush(stdout); /* what is printed before comes before */
    fflush(stderr);
    int fd = fcntl(plan->fd, F_DUPFD_CLOEXEC, 3);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    return write_and_close(f, write, user, name, false, error, cap);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool write_device(const char *given, const out_plan *plan, out_writer write, void *user, char *error,
                         size_t cap)
{
    char name[PATH_MAX + 300];
    name_it(name, sizeof name, given, plan);
    /* Non-blocking, so that a FIFO nobody reads is not waited for forever. */
    double deadline = now_s() + g_wait_s;
    int fd;
    for (;;) {
        fd = openat(plan->dir_fd, plan->name, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO || now_s() > deadline) {
            break;
        }
        sleep_ms(50);
    }
    if (fd < 0) {
        if (errno == ENXIO) {
            snprintf(error, cap, "cannot write %s: no process opened the FIFO for reading within %.0f s", name,
                     g_wait_s);
        } else {
            snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        }
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        snprintf(error, cap, "cannot write %s: it is no longer a FIFO or a character device", name);
        close(fd);
        return false;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        close(fd);
        return false;
    }
    return write_and_close(f, write, user, name, false, error, cap);
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Creates `.BASE.XXXXXX` in the folder `dir` with a name no other file has; its name into `tmp`. */
static int create_temporary(int dir, const char *base, char *tmp, size_t cap)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16));
    int base_len = (int)strnlen(base, TEMP_BASE_MAX);
    for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
        uint64_t r = mix(seed + ++counter * 0x9e3779b97f4a7c15ull);
        char suffix[7];
        for (int i = 0; i < 6; i++) {
            suffix[i] = letters[r % (sizeof letters - 1)];
            r /= sizeof letters - 1;
        }
        suffix[6] = '\0';
        int n = snprintf(tmp, cap, ".%.*s.%s", base_len, base, suffix);
        if (n < 0 || (size_t)n >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
    }
    errno = EEXIST;
    return -1;
}

/* The process's umask, found once: from /proc where it is shown (Linux 4.7 and later), else by
 * setting it and back, which out_plan_path() does before any thread that creates files runs. */
static mode_t current_umask(void)
{
    static int known = -1;
    if (known < 0) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        while (f && known < 0 && fgets(line, sizeof line, f)) {
            if (strncmp(line, "Umask:", 6) == 0) {
                char *end;
                unsigned long mask = strtoul(line + 6, &end, 8);
                if (end != line + 6) {
                    known = (int)(mask & 0777);
                }
            }
        }
        if (f) {
            fclose(f);
        }
        if (known < 0) {
            mode_t m = umask(077);
            umask(m);
            known = (int)m;
        }
    }
    return (mode_t)known;
}

/* Whether `name` in `dir` is absent or a regular file right now: the only things that may be
 * replaced. */
static bool replaceable(int dir, const char *name, struct stat *st, bool *exists)
{
    if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) != 0) {
        *exists = false;
        return errno == ENOENT;
    }
    *exists = true;
    return S_ISREG(st->st_mode);
}

/* Writes through plan->dir_fd, the folder opened once when the path was walked: the temporary
 * file is created in it and renamed within it, so that a folder on the way swapped for a link
 * after the walk cannot redirect the write. */
static bool write_file(const char *given, const out_plan *plan, out_writer write, void *user, char *error,
                       size_t cap)
{
    char name[PATH_MAX + 300];
    name_it(name, sizeof name, given, plan);
    char tmp[NAME_MAX + 1];
    int fd = create_temporary(plan->dir_fd, plan->name, tmp, sizeof tmp);
    if (fd < 0) {
        char *dir = folder_of(plan->path);
        snprintf(error, cap, "cannot write %s: cannot create a temporary file in '%s': %s", name, dir ? dir : "?",
                 strerror(errno));
        free(dir);
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        close(fd);
        unlinkat(plan->dir_fd, tmp, 0);
        return false;
    }
    /* The mode (and owner) of the file replaced, else what a new file would get. */
    struct stat st;
    bool exists = false;
    const char *why = NULL;
    if (!replaceable(plan->dir_fd, plan->name, &st, &exists)) {
        why = exists ? "it is no longer a regular file; it was not replaced" : strerror(errno);
    } else if (exists) {
        if (fchown(fd, st.st_uid, st.st_gid) != 0) {
            errno = 0; /* only root may give a file away: it stays ours */
        }
        why = fchmod(fd, st.st_mode & 0777) != 0 ? strerror(errno) : NULL;
    } else {
        why = fchmod(fd, 0666 & ~current_umask()) != 0 ? strerror(errno) : NULL;
    }
    if (why) {
        snprintf(error, cap, "cannot write %s: %s", name, why);
        fclose(f);
        unlinkat(plan->dir_fd, tmp, 0);
        return false;
    }
    bool ok = write_and_close(f, write, user, name, true, error, cap);
    if (ok && !replaceable(plan->dir_fd, plan->name, &st, &exists)) {
        snprintf(error, cap, "cannot write %s: it is no longer a regular file; it was not replaced", name);
        ok = false;
    }
    if (ok && renameat(plan->dir_fd, tmp, plan->dir_fd, plan->name) != 0) {
        snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlinkat(plan->dir_fd, tmp, 0);
    } else if (fsync(plan->dir_fd) != 0) {
        errno = 0; /* the rename itself; best effort (a folder opened for search only cannot) */
    }
    return ok;
}

bool out_write(const char *path, out_writer write, void *user, char *error, size_t cap)
{
    out_plan plan;
    if (!out_plan_path(path, &plan, error, cap)) {
        char why[2048];
        snprintf(why, sizeof why, "%s", error);
        snprintf(error, cap, "cannot write %s", why);
        return false;
    }
    bool ok = plan.kind == OUT_DESCRIPTOR ? write_descriptor(path, &plan, write, user, error, cap)
              : plan.kind == OUT_DEVICE   ? write_device(path, &plan, write, user, error, cap)
                                          : write_file(path, &plan, write, user, error, cap);
    out_plan_free(&plan);
    return ok;
}
