/*
 * A program ended without its exit handlers: by SIGTERM (a browser ending its GPU process at
 * shutdown, `timeout`, a process manager, `wgprof record` passing on its own), or by _exit (a
 * child process of Chromium's when its browser closes the connection: it ends at once, often
 * before its devices are destroyed). In both, a thread of the layer's, started with the first
 * device, writes every device's results as the process's exit would (waiting, as there, for work
 * still running, and for a vkDestroyDevice of the program's already writing them).
 *
 * - SIGTERM: where the program left it its default action when its first device was made, the
 *   layer's handler wakes the thread, which then ends the process by the same signal with its
 *   default action: the program ends as it would have, its results whole, a few milliseconds
 *   later (at most the 2 s the exit waits for work still running); its other threads run on
 *   meanwhile, as they do while exit handlers run. A handler the program installs later replaces
 *   the layer's.
 * - _exit and _Exit: record's preload library, where it is loaded beside the layer, interposes
 *   them and calls the end registered with it (record.h, RECORD_SYMBOL_EXIT_WATCH): the caller
 *   wakes the thread and waits for it at most END_NOW_WAIT_S, then the process ends as the C
 *   library's _exit ends it. The caller only posts and waits on semaphores: _exit may be called
 *   where little else may run (a signal handler; a child of fork() or vfork(), which returns at
 *   once, its devices being its parent's), and where the thread cannot finish (a thread of the
 *   program's that stopped holding what it needs) the wait ends and the program ends as before.
 *
 * A semaphore, not a pipe: a program that closes every descriptor it did not open must not leave
 * its SIGTERM unanswered, nor get the layer's byte written into a file of its own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "layer_lib.h"
#include "record.h"

/* How long an _exit waits for the results: the 2 s the end waits for work still running, and
 * the writing of a long run's reports. */
enum { END_NOW_WAIT_S = 5 };

static sem_t g_wake, g_ended;
static pid_t g_pid;
static void (*g_finish_all)(void);
static atomic_bool g_exiting;

/* SIGTERM's default action back (sigaction: safe in a handler too). */
static void default_action(void)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTERM, &dfl, NULL);
}

static void on_term(int sig)
{
    int saved = errno;
    if (getpid() != g_pid || sem_post(&g_wake) != 0) {
        default_action();
        raise(sig);
    }
    errno = saved;
}

/* The layer's thread: once woken, every device's results written; then, for an _exit, the
 * caller let go (the process ends by it), else the process ended by the signal (delivered to a
 * thread of the program's: this one blocks every signal). */
static void *term_main(void *unused)
{
    (void)unused;
    for (;;) {
        while (sem_wait(&g_wake) != 0) {
        }
        g_finish_all();
        if (atomic_load(&g_exiting)) {
            sem_post(&g_ended);
            continue;
        }
        default_action();
        kill(getpid(), SIGTERM);
        return NULL;
    }
}

/* Called by record's preload library from the program's _exit or _Exit, before the process ends. */
static void end_now(void)
{
    if (getpid() != g_pid) {
        return; /* a child of fork() or vfork(): the devices are its parent's, and no thread runs here */
    }
    atomic_store(&g_exiting, true);
    if (sem_post(&g_wake) != 0) {
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += END_NOW_WAIT_S;
    while (sem_timedwait(&g_ended, &until) != 0 && errno == EINTR) {
    }
}

void wgprof_layer_term_watch(void (*finish_all)(void))
{
    if (sem_init(&g_wake, 0, 0) != 0) {
        return;
    }
    if (sem_init(&g_ended, 0, 0) != 0) {
        sem_destroy(&g_wake);
        return;
    }
    g_pid = getpid();
    g_finish_all = finish_all;
    /* The thread starts with every signal blocked, so that none of the program's comes to it. */
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pthread_t thread;
    bool started = pthread_create(&thread, NULL, term_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (!started) {
        sem_destroy(&g_ended);
        sem_destroy(&g_wake);
        return;
    }
    pthread_detach(thread);
    void (*watch)(void (*)(void)) = NULL;
    *(void **)&watch = dlsym(RTLD_DEFAULT, RECORD_SYMBOL_EXIT_WATCH);
    if (watch) {
        watch(end_now);
    }
    struct sigaction old;
    if (sigaction(SIGTERM, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) {
        return; /* the program's own handler, or SIGTERM ignored: left as it is */
    }
    struct sigaction ours = {.sa_handler = on_term, .sa_flags = SA_RESTART}, replaced;
    sigemptyset(&ours.sa_mask);
    if (sigaction(SIGTERM, &ours, &replaced) == 0 && ((replaced.sa_flags & SA_SIGINFO) || replaced.sa_handler != SIG_DFL)) {
        sigaction(SIGTERM, &replaced, NULL); /* one the program set meanwhile stands */
    }
}
