/* Writing a named file atomically and safely; the rules are in output_file.h. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* S_ISVTX */
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

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
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
    memset(plan, 0, sizeof *plan);
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
 * the folder's owner. */
static bool may_follow(const char *link, const struct stat *link_st)
{
    char *dir = folder_of(link);
    struct stat ds;
    bool ok = dir && stat(dir, &ds) == 0;
    free(dir);
    if (!ok) {
        return false;
    }
    bool shared = (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH);
    return !shared || link_st->st_uid == geteuid() || link_st->st_uid == ds.st_uid;
}

/* Where `path` leads after its links: sets plan->path, plan->linked, and `st`/`found`. */
static bool follow_links(const char *given, out_plan *plan, struct stat *st, bool *found, char *error, size_t cap)
{
    char *cur = dup_text(given);
    for (int hop = 0; cur; hop++) {
        int fd = descriptor_of(cur);
        if (fd >= 0) {
            free(cur);
            return plan_descriptor(given, fd, plan, error, cap);
        }
        if (lstat(cur, st) != 0) {
            if (errno != ENOENT) {
                snprintf(error, cap, "'%s': %s", given, strerror(errno));
                free(cur);
                return false;
            }
            *found = false;
            plan->path = cur;
            return true;
        }
        if (!S_ISLNK(st->st_mode)) {
            *found = true;
            plan->path = cur;
            return true;
        }
        if (hop >= MAX_LINKS) {
            break;
        }
        if (!may_follow(cur, st)) {
            char at[PATH_MAX + 8] = "";
            if (strcmp(cur, given) != 0) {
                snprintf(at, sizeof at, " ('%s')", cur);
            }
            snprintf(error, cap,
                     "'%s'%s is a symbolic link in a shared sticky folder, owned by someone else: not followed "
                     "(as fs.protected_symlinks would)",
                     given, at);
            free(cur);
            return false;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            snprintf(error, cap, "'%s': cannot read the link '%s': %s", given, cur, strerror(errno));
            free(cur);
            return false;
        }
        target[n] = '\0';
        plan->linked = true;
        char *next;
        if (target[0] == '/') {
            next = dup_text(target);
        } else {
            char *dir = folder_of(cur);
            size_t len = (dir ? strlen(dir) : 0) + strlen(target) + 2;
            next = dir ? malloc(len) : NULL;
            if (next) {
                snprintf(next, len, "%s/%s", dir, target);
            }
            free(dir);
        }
        free(cur);
        cur = next;
    }
    if (!cur) {
        snprintf(error, cap, "'%s': out of memory", given);
    } else {
        snprintf(error, cap, "'%s': too many levels of symbolic links", given);
        free(cur);
    }
    return false;
}

static mode_t current_umask(void);

bool out_plan_path(const char *path, out_plan *plan, char *error, size_t cap)
{
    (void)current_umask(); /* found now, before the device's threads exist */
    memset(plan, 0, sizeof *plan);
    plan->kind = OUT_FILE; /* until found to be something else */
    plan->fd = -1;
    if (!path[0]) {
        snprintf(error, cap, "an empty file name");
        return false;
    }
    struct stat st;
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
            if (access(plan->path, W_OK) != 0) {
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
    const char *base = base_of(plan->path);
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        snprintf(error, cap, "%s names a folder, not a file", name);
        out_plan_free(plan);
        return false;
    }
    char *dir = folder_of(plan->path);
    struct stat ds;
    bool ok = dir != NULL;
    if (!dir) {
        snprintf(error, cap, "%s: out of memory", name);
    } else if (stat(dir, &ds) != 0) {
        snprintf(error, cap, "%s: the folder '%s' %s", name, dir,
                 errno == ENOENT ? "does not exist" : strerror(errno));
        ok = false;
    } else if (!S_ISDIR(ds.st_mode)) {
        snprintf(error, cap, "%s: '%s' is not a folder", name, dir);
        ok = false;
    } else if (access(dir, W_OK | X_OK) != 0) {
        snprintf(error, cap, "%s: cannot create files in the folder '%s': %s", name, dir, strerror(errno));
        ok = false;
    }
    free(dir);
    if (!ok) {
        out_plan_free(plan);
    }
    return ok;
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
        fd = open(plan->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
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

/* Creates `dir/.BASE.XXXXXX` with a name no other file has; its path into `tmp`. */
static int create_temporary(const char *dir, const char *base, char *tmp, size_t cap)
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
        int n = snprintf(tmp, cap, "%s/.%.*s.%s", dir, base_len, base, suffix);
        if (n < 0 || (size_t)n >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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

/* Whether `path` is absent or a regular file right now: the only things that may be replaced. */
static bool replaceable(const char *path, struct stat *st, bool *exists)
{
    if (lstat(path, st) != 0) {
        *exists = false;
        return errno == ENOENT;
    }
    *exists = true;
    return S_ISREG(st->st_mode);
}

static bool write_file(const char *given, const out_plan *plan, out_writer write, void *user, char *error,
                       size_t cap)
{
    char name[PATH_MAX + 300];
    name_it(name, sizeof name, given, plan);
    char *dir = folder_of(plan->path);
    if (!dir) {
        snprintf(error, cap, "cannot write %s: out of memory", name);
        return false;
    }
    char tmp[PATH_MAX];
    int fd = create_temporary(dir, base_of(plan->path), tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(error, cap, "cannot write %s: cannot create a temporary file in '%s': %s", name, dir,
                 strerror(errno));
        free(dir);
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        close(fd);
        unlink(tmp);
        free(dir);
        return false;
    }
    /* The mode (and owner) of the file replaced, else what a new file would get. */
    struct stat st;
    bool exists = false;
    const char *why = NULL;
    if (!replaceable(plan->path, &st, &exists)) {
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
        unlink(tmp);
        free(dir);
        return false;
    }
    bool ok = write_and_close(f, write, user, name, true, error, cap);
    if (ok && !replaceable(plan->path, &st, &exists)) {
        snprintf(error, cap, "cannot write %s: it is no longer a regular file; it was not replaced", name);
        ok = false;
    }
    if (ok && rename(tmp, plan->path) != 0) {
        snprintf(error, cap, "cannot write %s: %s", name, strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlink(tmp);
    } else {
        int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d >= 0) {
            fsync(d); /* the rename itself; best effort */
            close(d);
        }
    }
    free(dir);
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
