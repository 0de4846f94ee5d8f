/*
 * The program's exec functions. exec replaces the process's image without exit: no exit
 * handler runs, so the results of the image that ends are written here first, for good, as at
 * exit (wgprof_rec_finish_all), and so are those of wgprof's Vulkan layer where it is loaded
 * beside this library (layer_end_image); the new image keeps the PID and numbers its own result sets
 * after these (wgprof_rec_output_claim). Then the C library's function does the rest.
 *
 * Each of the C library's exec functions is interposed, since they call the kernel directly,
 * not one another through this library. execl, execlp and execle gather their arguments and
 * go the way of execv, execvp and execve. Nothing here loads the implementation: a process
 * that made no device (a shell running the program) finds no session and goes straight on.
 * An exec that fails leaves the sessions finished, as after exit: work the image does after it
 * runs untimed (a program that tries several paths, as Python's os.execvp does, has its results
 * written at the first try).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "internal.h"
#include "record.h"
#include "record_lib.h"

/* Has wgprof's Vulkan layer, where it is loaded beside this library, write its devices' results
 * for good (record.h, RECORD_SYMBOL_LAYER_END_IMAGE). */
static void layer_end_image(void)
{
    const char *path = wgprof_rec_settings_get()->layer;
    void *h = path[0] ? wgprof_rec_system_dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h) {
        return;
    }
    void (*end)(void) = NULL;
    *(void **)&end = wgprof_rec_system_dlsym(h, RECORD_SYMBOL_LAYER_END_IMAGE);
    if (end) {
        end();
    }
    dlclose(h);
}

/* The image's results written for good: this library's sessions, then the Vulkan layer's devices. */
static void end_image(void)
{
    wgprof_rec_finish_all();
    layer_end_image();
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

WGPROF_REC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    end_image();
    execve_fn real = NULL;
    *(void **)&real = wgprof_rec_system_dlsym(RTLD_NEXT, "execve"); /* the C library's */
    return real ? real(path, argv, envp) : (errno = ENOSYS, -1);
}

WGPROF_REC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    end_image();
    execve_fn real = NULL;
    *(void **)&real = wgprof_rec_system_dlsym(RTLD_NEXT, "execvpe"); /* the C library's */
    return real ? real(file, argv, envp) : (errno = ENOSYS, -1);
}

WGPROF_REC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    end_image();
    fexecve_fn real = NULL;
    *(void **)&real = wgprof_rec_system_dlsym(RTLD_NEXT, "fexecve"); /* the C library's */
    return real ? real(fd, argv, envp) : (errno = ENOSYS, -1);
}

WGPROF_REC_EXPORT int execv(const char *path, char *const argv[])
{
    end_image();
    execv_fn real = NULL;
    *(void **)&real = wgprof_rec_system_dlsym(RTLD_NEXT, "execv"); /* the C library's */
    return real ? real(path, argv) : (errno = ENOSYS, -1);
}

WGPROF_REC_EXPORT int execvp(const char *file, char *const argv[])
{
    end_image();
    execv_fn real = NULL;
    *(void **)&real = wgprof_rec_system_dlsym(RTLD_NEXT, "execvp"); /* the C library's */
    return real ? real(file, argv) : (errno = ENOSYS, -1);
}

/* execl's arguments after `first`, up to and with the NULL, as an argv (NULL: out of memory,
 * errno ENOMEM); *rest is left after the NULL (execle's envp). */
static char **gather(const char *first, va_list *rest)
{
    va_list count;
    va_copy(count, *rest);
    size_t n = 1;
    while (va_arg(count, const char *) != NULL) {
        n++;
    }
    va_end(count);
    char **argv = wgprof__calloc(n + 1, sizeof *argv);
    if (!argv) {
        errno = ENOMEM;
        return NULL;
    }
    argv[0] = (char *)first;
    for (size_t i = 1; i <= n; i++) {
        argv[i] = va_arg(*rest, char *); /* the last one read is the NULL */
    }
    return argv;
}

/* Frees what gather() made, keeping errno (the failed exec's). */
static int failed(char **argv)
{
    int e = errno;
    wgprof__free(argv);
    errno = e;
    return -1;
}

WGPROF_REC_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    char **argv = gather(arg, &ap);
    va_end(ap);
    return argv ? (execv(path, argv), failed(argv)) : -1;
}

WGPROF_REC_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    char **argv = gather(arg, &ap);
    va_end(ap);
    return argv ? (execvp(file, argv), failed(argv)) : -1;
}

WGPROF_REC_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    char **argv = gather(arg, &ap);
    char *const *envp = argv ? va_arg(ap, char *const *) : NULL;
    va_end(ap);
    return argv ? (execve(path, argv, envp), failed(argv)) : -1;
}
