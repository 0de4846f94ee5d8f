/*
 * A program ended by SIGTERM: a browser ending its GPU process at shutdown, `timeout`, a process
 * manager, `wgprof record` passing on its own. Where the program left SIGTERM its default action
 * when its first device was made, the layer's handler passes the signal to a thread of the
 * layer's, which writes every device's results as the process's exit would (waiting, as there,
 * for work still running, and for a vkDestroyDevice of the program's already writing them),
 * then ends the process by the same signal with its default action: the program ends as it
 * would have, its results whole, a few milliseconds later (at most the 2 s the exit waits for
 * work still running); its other threads run on meanwhile, as they do while exit handlers run.
 *
 * The handler does only what a handler may: getpid, sem_post, and in a child of fork() (which has
 * no such thread) sigaction and raise, the default action at once. A semaphore, not a pipe: a
 * program that closes every descriptor it did not open must not leave its SIGTERM unanswered,
 * nor get the layer's byte written into a file of its own. A handler the program installs later
 * replaces the layer's; the thread then waits for nothing, idle.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include "layer_lib.h"

static sem_t g_term;
static pid_t g_pid;
static void (*g_finish_all)(void);

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
    if (getpid() != g_pid || sem_post(&g_term) != 0) {
        default_action();
        raise(sig);
    }
    errno = saved;
}

/* The layer's thread: once the signal came, every device's results written, then the process
 * ended by it (delivered to a thread of the program's: this one blocks every signal). */
static void *term_main(void *unused)
{
    (void)unused;
    while (sem_wait(&g_term) != 0) {
    }
    g_finish_all();
    default_action();
    kill(getpid(), SIGTERM);
    return NULL;
}

void wgprof_layer_term_watch(void (*finish_all)(void))
{
    struct sigaction old;
    if (sigaction(SIGTERM, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL ||
        sem_init(&g_term, 0, 0) != 0) {
        return; /* the program's own handler, or SIGTERM ignored: left as it is */
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
        sem_destroy(&g_term);
        return;
    }
    pthread_detach(thread);
    struct sigaction ours = {.sa_handler = on_term, .sa_flags = SA_RESTART}, replaced;
    sigemptyset(&ours.sa_mask);
    if (sigaction(SIGTERM, &ours, &replaced) == 0 && ((replaced.sa_flags & SA_SIGINFO) || replaced.sa_handler != SIG_DFL)) {
        sigaction(SIGTERM, &replaced, NULL); /* one the program set meanwhile stands */
    }
}
