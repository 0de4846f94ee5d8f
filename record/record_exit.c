/*
 * The program's _exit and _Exit. They end the process without its exit handlers: a child process
 * of Chromium's ends so when its browser closes the connection, often before its devices are
 * destroyed. Where wgprof's Vulkan layer watches this process (it registered its end here,
 * RECORD_SYMBOL_EXIT_WATCH), its devices' results are written for good first, by the layer's
 * thread, waited for a bounded time (layer_term.c), since _exit may be called where little else
 * may run (a signal handler, a child of vfork()). This library's own sessions are left as they
 * were last written (a snapshot: partial), as before. Then the process ends as the C library's
 * _exit ends it, by the exit_group system call (the C library's internal calls of _exit do not
 * come here).
 */
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"
#include "record_lib.h"

typedef void (*end_fn)(void);

static _Atomic(end_fn) g_layer_end;

WGPROF_REC_EXPORT void wgprof_record_exit_watch(void (*end)(void));
WGPROF_REC_EXPORT void wgprof_record_exit_watch(void (*end)(void)) { atomic_store(&g_layer_end, end); }

_Noreturn void wgprof_rec_exit_plain(int status)
{
    for (;;) {
        syscall(SYS_exit_group, status);
    }
}

static _Noreturn void end_process(int status)
{
    end_fn end = atomic_load(&g_layer_end);
    if (end) {
        end();
    }
    wgprof_rec_exit_plain(status);
}

WGPROF_REC_EXPORT void _exit(int status) { end_process(status); }
WGPROF_REC_EXPORT void _Exit(int status) { end_process(status); }
