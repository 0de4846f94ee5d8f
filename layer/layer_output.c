/*
 * The layer's results, written into record's results folder (record.h) as the preload library
 * writes its own: PID.N.json and PID.N.txt (the table), PID.N.meta, and when they are final the
 * other formats asked for (PID.N.html, .trace.json, .csv) and PID.N.done last. The folder is
 * opened only if it is the private folder the CLI made (common.h's private_folder_open), and
 * checked again at each use; every file is written to a temporary name in it and renamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "layer.h"
#include "layer_lib.h"
#include "record.h"

static _Atomic int g_folder = -1;
static atomic_bool g_folder_said;

/* The results folder, checked at each use (common.h's private_folder_held): a program that
 * closes its descriptors and opens its own under the same number is never written into. */
static int folder(void)
{
    const wgprof_layer_settings *s = wgprof_layer_settings_get();
    if (!s->dir[0]) {
        return -1;
    }
    char why[256];
    int fd = private_folder_held(&g_folder, s->dir, s->dir_id, why, sizeof why);
    if (fd < 0 && !atomic_exchange(&g_folder_said, true)) {
        wgprof_layer_say("results folder %s: %s: no results written", s->dir, why);
    }
    return fd;
}

unsigned wgprof_layer_output_claim(void)
{
    /* Numbered as record's preload numbers its sets: beside it, or after another image. */
    static _Atomic unsigned next;
    return private_folder_claim(folder(), (long)getpid(), RECORD_SUFFIX_META, &next);
}

/* Writes `name` in the folder through a temporary file: write(f, user) fills it. False with
 * errno (the first failure's) where it could not be written whole. */
static bool write_file(int dir, const char *name, bool (*write)(FILE *f, void *user), void *user)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int err = errno;
        if (fd >= 0) {
            close(fd);
        }
        errno = err;
        return false;
    }
    errno = 0;
    bool ok = write(f, user);
    ok = fflush(f) == 0 && !ferror(f) && ok;
    int err = ok ? 0 : errno;
    ok = fclose(f) == 0 && ok;
    err = err ? err : (ok ? 0 : errno);
    if (ok && renameat(dir, tmp, dir, name) == 0) {
        return true;
    }
    err = err ? err : errno;
    unlinkat(dir, tmp, 0);
    errno = err;
    return false;
}

/* Says that `name` could not be written, and why (the first time for the device); marks the set
 * so for the CLI (record.h). */
static void say_unwritten(int dir, wgprof_layer_device *d, const char *base, const char *name)
{
    int err = errno;
    if (!atomic_exchange(&d->unwritten_said, true)) {
        wgprof_layer_say("device %u: could not write %s/%s: %s (later failures of its files are not said)", d->index,
                         wgprof_layer_settings_get()->dir, name, err ? strerror(err) : "the report could not be made");
    }
    char mark[96];
    snprintf(mark, sizeof mark, "%s." RECORD_SUFFIX_UNWRITTEN, base);
    private_folder_mark(dir, mark);
}

typedef struct report_job {
    wgprof_report_desc report;
    wgprof_format format;
} report_job;

static bool write_report(FILE *f, void *user)
{
    report_job *job = user;
    return wgprof_report_write(&job->report, job->format, f) == WGPROF_OK;
}

typedef struct meta_job {
    const wgprof_layer_device *d;
    unsigned long long dropped; /* as it was when the results were taken */
} meta_job;

static bool write_meta(FILE *f, void *user)
{
    const meta_job *job = user;
    const wgprof_layer_device *d = job->d;
    unsigned long long start = 0; /* unknown where there is no /proc */
    process_start((long)getpid(), &start, NULL);
    return fprintf(f,
                   RECORD_META_PID " %ld\n" RECORD_META_START " %llu\n" RECORD_META_DEVICE " %u\n"
                   RECORD_META_DISPATCHES " %llu\n"
                   RECORD_META_UNTIMED_OVERLAP " 0\n" RECORD_META_UNTIMED_SAMPLED " %llu\n"
                   RECORD_META_DISCARDED " 0\n" RECORD_META_SAMPLE_EVERY " %u\n" RECORD_META_DROPPED " %llu\n"
                   RECORD_META_UNTIMED_SIMULTANEOUS " %llu\n" RECORD_META_UNTIMED_NO_TIMESTAMPS " %llu\n",
                   (long)getpid(), start, d->index, (unsigned long long)atomic_load(&d->dispatches),
                   (unsigned long long)atomic_load(&d->untimed_sampled), wgprof_layer_settings_get()->sample_every,
                   job->dropped, (unsigned long long)atomic_load(&d->untimed_simultaneous),
                   (unsigned long long)atomic_load(&d->untimed_no_timestamps)) > 0;
}

void wgprof_layer_output_write(wgprof_layer_device *d, const char *partial)
{
    int dir = folder();
    if (dir < 0) {
        return;
    }
    /* A snapshot is written from a copy of the results, taken under their lock and written
     * outside it, so that a recording that names a new kernel (which takes it) never waits for
     * the files; the final results from the results themselves. The program's submits and waits
     * take neither. */
    pthread_mutex_lock(&d->lock);
    meta_job meta = {d, (unsigned long long)d->dropped};
    d->unsaved = false;
    pthread_mutex_unlock(&d->lock);
    pthread_mutex_lock(&d->results_lock);
    wgprof_pool *copy = NULL;
    if (partial && d->results) {
        const wgprof_pool *pools[1] = {d->results};
        if (wgprof_pool_merge(pools, 1, &copy) != WGPROF_OK) {
            copy = NULL;
        }
    }
    const wgprof_pool *results = copy ? copy : d->results;
    if (copy) {
        pthread_mutex_unlock(&d->results_lock);
    }
    wgprof_summary *summary = NULL;
    if (!results || wgprof_summary_create(results, &summary) != WGPROF_OK) {
        if (!copy) {
            pthread_mutex_unlock(&d->results_lock);
        }
        wgprof_pool_destroy(copy);
        wgprof_layer_say("device %u: out of memory summarising the results", d->index);
        return;
    }
    report_job job = {0};
    job.report.device = &d->info;
    job.report.pool = results;
    job.report.summary = summary;
    job.report.partial_reason = partial;
    char base[64], name[96];
    snprintf(base, sizeof base, "%ld.%u", (long)getpid(), d->index);
    const char *asked = wgprof_layer_settings_get()->formats;
    bool whole = true;
    /* The JSON report and the table always; the other formats asked for, once final. */
    for (int k = 0; k < WGPROF_FORMAT_COUNT; k++) {
        job.format = (wgprof_format)k;
        bool always = job.format == WGPROF_FORMAT_JSON || job.format == WGPROF_FORMAT_TABLE;
        if (!always && (partial || !list_has(asked, ',', wgprof_format_name(job.format)))) {
            continue;
        }
        job.report.omit_dispatches = job.format == WGPROF_FORMAT_TABLE;
        snprintf(name, sizeof name, "%s.%s", base, wgprof_format_suffix(job.format));
        if (!write_file(dir, name, write_report, &job)) {
            say_unwritten(dir, d, base, name);
            whole = false;
        }
    }
    snprintf(name, sizeof name, "%s." RECORD_SUFFIX_META, base);
    if (!write_file(dir, name, write_meta, &meta)) {
        say_unwritten(dir, d, base, name);
        whole = false;
    }
    if (!copy) {
        pthread_mutex_unlock(&d->results_lock);
    }
    wgprof_summary_destroy(summary);
    wgprof_pool_destroy(copy);
    if (!partial && whole) {
        /* Final and whole: a snapshot that could not be written before is no loss now. */
        snprintf(name, sizeof name, "%s." RECORD_SUFFIX_UNWRITTEN, base);
        unlinkat(dir, name, 0);
    }
    if (!partial) {
        snprintf(name, sizeof name, "%s." RECORD_SUFFIX_DONE, base);
        if (!private_folder_mark(dir, name)) {
            say_unwritten(dir, d, base, name);
        }
    }
}
