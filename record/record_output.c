/*
 * A session's results, written into the folder the CLI made for them (record.h, private to
 * this run): PID.N.json (the JSON report), PID.N.txt (the per-kernel table),
 * PID.N.meta (what was not timed, and why, as "key value" lines), and at the end the other
 * formats asked for (PID.N.html, .trace.json, .csv) and PID.N.done. N is the first number no
 * image of this process took (wgprof_rec_output_claim). Each file is written to a
 * temporary name and renamed over the old one, so that the CLI never reads half a report, even
 * after the program crashed mid-write. The folder is opened once (record.h says why) and every
 * file is created and renamed through that descriptor, never by path.
 *
 * The reports are written from a copy of the results (the lanes merged, the counts): a
 * snapshot's copy is taken on the program's thread, under the session's lock (from lanes
 * nobody is using: record_device.c), and written on a thread of
 * wgprof's, so that the program pays for the copy alone; the final reports are written where
 * they are asked for, after the snapshot in progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <threads.h>
#include <unistd.h>

#include "internal.h"
#include "record.h"
#include "record_lib.h"
#include "common.h"

enum { PATH_CAP = 256, TMP_CAP = PATH_CAP + 32 }; /* names in the results folder: PID.N.SUFFIX */
/* A snapshot whose last writing took longer than this is written on a thread of wgprof's. */
enum { WRITE_HERE_NS = 2000000 };

static _Atomic int g_folder = -1;
static atomic_bool g_folder_said;

/* The results folder (a child of fork() shares it; a new image opens it again): only a folder,
 * not a link, of this user's, closed to everyone else, and the one the CLI made (its identity),
 * so that nothing put in its place is ever written into; opened again where the program closed
 * its descriptor (common.h's private_folder_held). */
static int results_folder(void)
{
    const wgprof_rec_settings *settings = wgprof_rec_settings_get();
    char why[256];
    int fd = private_folder_held(&g_folder, settings->dir, settings->dir_id, why, sizeof why);
    if (fd < 0 && !atomic_exchange(&g_folder_said, true)) {
        wgprof_rec_say("results folder %s: %s: no results written", settings->dir, why);
    }
    return fd;
}

unsigned wgprof_rec_output_claim(void)
{
    /* Another image of this process (exec keeps the PID) numbers on after this one's sets
     * instead of replacing them. */
    static _Atomic unsigned next;
    return private_folder_claim(results_folder(), (long)getpid(), RECORD_SUFFIX_META, &next);
}

/* Opens a temporary file beside `name` in the results folder; returns it, its name in tmp. */
static FILE *open_temporary(const char *name, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%s.%ld.tmp", name, (long)getpid());
    int dir = results_folder();
    int fd = dir < 0 ? -1 : openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0) {
        close(fd);
    }
    return f;
}

static bool commit(FILE *f, const char *tmp, const char *name)
{
    bool ok = fflush(f) == 0 && !ferror(f);
    int err = ok ? 0 : errno;
    ok = fclose(f) == 0 && ok;
    err = err ? err : errno;
    int dir = results_folder();
    if (ok && dir >= 0 && renameat(dir, tmp, dir, name) == 0) {
        return true;
    }
    err = err ? err : errno;
    if (dir >= 0) {
        unlinkat(dir, tmp, 0);
    }
    errno = err; /* the first failure's, for the message */
    return false;
}

/* What the reports are written from: a copy of the session's results and counts, so that a
 * snapshot can be written on a thread of its own while the program goes on. */
typedef struct output_job {
    wgprof_pool *pool; /* the lanes merged (a results store of its own) */
    wgprof_device_info device;
    char base[64]; /* PID.N, in the results folder */
    unsigned index;
    long pid;
    uint64_t dispatches, untimed_overlap, untimed_sampled, discarded;
    bool final;
} output_job;

static void write_meta(const output_job *job, const char *path)
{
    char tmp[TMP_CAP];
    FILE *f = open_temporary(path, tmp, sizeof tmp);
    if (!f) {
        return;
    }
    unsigned long long start = 0; /* unknown where there is no /proc */
    process_start(job->pid, &start, NULL);
    fprintf(f,
            RECORD_META_PID " %ld\n" RECORD_META_START " %llu\n" RECORD_META_DEVICE " %u\n" RECORD_META_DISPATCHES
            " %llu\n"
            RECORD_META_UNTIMED_OVERLAP " %llu\n" RECORD_META_UNTIMED_SAMPLED " %llu\n" RECORD_META_DISCARDED
            " %llu\n" RECORD_META_SAMPLE_EVERY " %u\n",
            job->pid, start, job->index, (unsigned long long)job->dispatches, (unsigned long long)job->untimed_overlap,
            (unsigned long long)job->untimed_sampled, (unsigned long long)job->discarded,
            wgprof_rec_settings_get()->sample_every);
    commit(f, tmp, path);
}

/* Whether the lane's pool may be read here: nobody records into it or works on it but this
 * thread (the snapshot's lanes are free or wait for their submit; the finish's are its own). */
static bool readable(const wgprof_rec_lane *lane)
{
    return lane->pool && lane->user != WGPROF_REC_LANE_ENCODER &&
           (lane->user != WGPROF_REC_LANE_WORKER || lane->holder == wgprof_rec_thread());
}

/* The session's results now, in a job; NULL (said why) when out of memory. */
static output_job *job_of(const wgprof_rec_session *s, bool final)
{
    output_job *job = wgprof__calloc(1, sizeof *job);
    const wgprof_pool *pools[WGPROF_REC_LANES];
    size_t count = 0;
    for (unsigned i = 0; i < s->lane_count; i++) {
        if (readable(&s->lanes[i])) {
            pools[count++] = s->lanes[i].pool;
        }
    }
    const wgprof_device_info *info = wgprof_device_describe(s->wdev);
    if (!count) {
        wgprof__free(job);
        return NULL;
    }
    if (!job || !info || wgprof_pool_merge(pools, count, &job->pool) != WGPROF_OK) {
        wgprof_rec_say("device %u: out of memory copying the results", s->index);
        wgprof__free(job);
        return NULL;
    }
    job->device = *info;
    snprintf(job->base, sizeof job->base, "%ld.%u", (long)getpid(), s->index);
    job->index = s->index;
    job->pid = (long)getpid();
    job->dispatches = atomic_load(&s->dispatches);
    job->untimed_overlap = atomic_load(&s->untimed_overlap);
    job->untimed_sampled = atomic_load(&s->untimed_sampled);
    job->discarded = atomic_load(&s->discarded);
    job->final = final;
    return job;
}

/* Writes the job's reports and frees it. Touches nothing of the session's. */
static void write_job(output_job *job)
{
    const wgprof_rec_settings *settings = wgprof_rec_settings_get();
    if (results_folder() < 0) { /* said once, when it was opened */
        wgprof_pool_destroy(job->pool);
        wgprof__free(job);
        return;
    }
    wgprof_summary *summary = NULL;
    if (wgprof_summary_create(job->pool, &summary) != WGPROF_OK) {
        wgprof_rec_say("device %u: out of memory summarising the results", job->index);
        wgprof_pool_destroy(job->pool);
        wgprof__free(job);
        return;
    }
    wgprof_report_desc report = {0};
    report.device = &job->device;
    report.pool = job->pool;
    report.summary = summary;
    /* A snapshot is what the CLI delivers only when the final write never came: the program
     * ended first. Marked so in the report itself, where a reader (and `wgprof diff`) sees it,
     * and overwritten by the final reports when they come. */
    report.partial_reason = job->final ? NULL
                                       : "the program ended before wgprof could write its final results (a signal, "
                                         "a crash, abort() or _exit()): the dispatches collected until then";
    bool whole = true;
    for (int k = 0; k < WGPROF_FORMAT_COUNT; k++) {
        /* The JSON report and the table in every snapshot; the other formats asked for, at the end. */
        wgprof_format format = (wgprof_format)k;
        bool always = format == WGPROF_FORMAT_JSON || format == WGPROF_FORMAT_TABLE;
        if (!always && (!job->final || !list_has(settings->formats, ',', wgprof_format_name(format)))) {
            continue;
        }
        char path[PATH_CAP], tmp[TMP_CAP];
        snprintf(path, sizeof path, "%s.%s", job->base, wgprof_format_suffix(format));
        FILE *f = open_temporary(path, tmp, sizeof tmp);
        report.omit_dispatches = format == WGPROF_FORMAT_TABLE;
        errno = 0;
        bool written = f && wgprof_report_write(&report, format, f) == WGPROF_OK && !ferror(f);
        int err = errno;
        if (f && !written) {
            fclose(f);
            unlinkat(results_folder(), tmp, 0);
        }
        if (!written || !commit(f, tmp, path)) {
            whole = false;
            err = written ? errno : err;
            wgprof_rec_say("device %u: could not write %s/%s: %s", job->index, settings->dir, path,
                           err ? strerror(err) : "the report could not be made");
            char mark[PATH_CAP];
            snprintf(mark, sizeof mark, "%s." RECORD_SUFFIX_UNWRITTEN, job->base);
            private_folder_mark(results_folder(), mark);
        }
    }
    char meta[PATH_CAP];
    snprintf(meta, sizeof meta, "%s." RECORD_SUFFIX_META, job->base);
    write_meta(job, meta);
    if (job->final && whole) {
        /* Final and whole: a snapshot that could not be written before is no loss now. */
        char mark[PATH_CAP];
        snprintf(mark, sizeof mark, "%s." RECORD_SUFFIX_UNWRITTEN, job->base);
        unlinkat(results_folder(), mark, 0);
    }
    if (job->final) {
        char done[PATH_CAP];
        snprintf(done, sizeof done, "%s." RECORD_SUFFIX_DONE, job->base);
        private_folder_mark(results_folder(), done);
    }
    wgprof_summary_destroy(summary);
    wgprof_pool_destroy(job->pool);
    wgprof__free(job);
}

/* Writes the job's reports and frees it; returns how long that took. */
static uint64_t timed_write(output_job *job)
{
    uint64_t start = wgprof_cpu_now_ns();
    write_job(job);
    return wgprof_cpu_now_ns() - start;
}

static int writer_main(void *arg)
{
    wgprof_rec_writer *w = arg;
    atomic_store(&w->last_write_ns, timed_write(w->job));
    atomic_store(&w->done, true);
    return 0;
}

bool wgprof_rec_output_busy(wgprof_rec_session *s)
{
    if (!s->writer.running) {
        return false;
    }
    if (!atomic_load(&s->writer.done)) {
        return true;
    }
    thrd_join(s->writer.thread, NULL);
    s->writer.running = false;
    return false;
}

void wgprof_rec_output_wait(wgprof_rec_session *s)
{
    if (s->writer.running) {
        thrd_join(s->writer.thread, NULL);
        s->writer.running = false;
    }
}

void wgprof_rec_output_snapshot(wgprof_rec_session *s)
{
    if (!s->lane_count || !wgprof_rec_settings_get()->dir[0] || wgprof_rec_output_busy(s)) {
        return;
    }
    output_job *job = job_of(s, false);
    if (!job) {
        return;
    }
    /* A snapshot as quick as the last one was (a short run's) is written here, where a crash
     * right after cannot lose it; a longer one on the thread, where a crash while it is being
     * written leaves the one before. */
    if (atomic_load(&s->writer.last_write_ns) > WRITE_HERE_NS) {
        s->writer.job = job;
        atomic_store(&s->writer.done, false);
        if (thrd_create(&s->writer.thread, writer_main, &s->writer) == thrd_success) {
            s->writer.running = true;
            return;
        }
    }
    atomic_store(&s->writer.last_write_ns, timed_write(job));
}

void wgprof_rec_output_write(wgprof_rec_session *s)
{
    wgprof_rec_output_wait(s);
    if (!s->lane_count || !wgprof_rec_settings_get()->dir[0]) {
        return;
    }
    output_job *job = job_of(s, true);
    if (job) {
        write_job(job);
    }
}

void wgprof_rec_output_note(const char *text)
{
    char name[64], tmp[96];
    snprintf(name, sizeof name, "%ld.%s", (long)getpid(), RECORD_SUFFIX_WHY);
    FILE *f = open_temporary(name, tmp, sizeof tmp);
    if (f) {
        fprintf(f, "%s\n", text);
        commit(f, tmp, name);
    }
}
