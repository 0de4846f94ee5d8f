/*
 * The layer's results, written into record's results folder (record.h) as the preload library
 * writes its own: PID.N.json and PID.N.txt (the table), PID.N.meta, and PID.N.done last when
 * they are final. The folder is opened once per process, and only if it is the private folder
 * the CLI made (common.h's private_folder_open); every file is written to a temporary name in
 * it and renamed.
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

static int g_folder = -1;
static pthread_once_t g_folder_once = PTHREAD_ONCE_INIT;

static void open_folder(void)
{
    const wgprof_layer_settings *s = wgprof_layer_settings_get();
    if (!s->dir[0]) {
        return;
    }
    char why[256];
    g_folder = private_folder_open(s->dir, s->dir_id, why, sizeof why);
    if (g_folder < 0) {
        wgprof_layer_say("results folder %s: %s: no results written", s->dir, why);
    }
}

static int folder(void)
{
    pthread_once(&g_folder_once, open_folder);
    return g_folder;
}

unsigned wgprof_layer_output_claim(void)
{
    /* Numbered as record's preload numbers its sets: beside it, or after another image. */
    static _Atomic unsigned next;
    return private_folder_claim(folder(), (long)getpid(), RECORD_SUFFIX_META, &next);
}

/* Writes `name` in the folder through a temporary file: write(f, user) fills it. */
static bool write_file(int dir, const char *name, bool (*write)(FILE *f, void *user), void *user)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    bool ok = write(f, user);
    ok = fflush(f) == 0 && !ferror(f) && ok;
    ok = fclose(f) == 0 && ok;
    if (ok && renameat(dir, tmp, dir, name) == 0) {
        return true;
    }
    unlinkat(dir, tmp, 0);
    return false;
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
} meta_job;

static bool write_meta(FILE *f, void *user)
{
    const wgprof_layer_device *d = ((meta_job *)user)->d;
    return fprintf(f,
                   RECORD_META_PID " %ld\n" RECORD_META_DEVICE " %u\n" RECORD_META_DISPATCHES " %llu\n"
                   RECORD_META_UNTIMED_OVERLAP " 0\n" RECORD_META_UNTIMED_SAMPLED " %llu\n"
                   RECORD_META_DISCARDED " 0\n" RECORD_META_SAMPLE_EVERY " %u\n" RECORD_META_DROPPED " %llu\n",
                   (long)getpid(), d->index, (unsigned long long)atomic_load(&d->dispatches),
                   (unsigned long long)atomic_load(&d->untimed_sampled), wgprof_layer_settings_get()->sample_every,
                   (unsigned long long)d->dropped) > 0;
}

static bool write_nothing(FILE *f, void *user)
{
    (void)f;
    (void)user;
    return true;
}

void wgprof_layer_output_write(wgprof_layer_device *d, bool final)
{
    int dir = folder();
    if (dir < 0) {
        return;
    }
    pthread_mutex_lock(&d->lock);
    wgprof_summary *summary = NULL;
    if (!d->results || wgprof_summary_create(d->results, &summary) != WGPROF_OK) {
        pthread_mutex_unlock(&d->lock);
        wgprof_layer_say("device %u: out of memory summarising the results", d->index);
        return;
    }
    report_job job = {0};
    job.report.device = &d->info;
    job.report.pool = d->results;
    job.report.summary = summary;
    job.report.partial_reason = final ? NULL
                                      : "the program ended before its device did: the dispatches whose "
                                        "timestamps were read until then";
    char base[64], name[96];
    snprintf(base, sizeof base, "%ld.%u", (long)getpid(), d->index);
    static const wgprof_format formats[] = {WGPROF_FORMAT_JSON, WGPROF_FORMAT_TABLE};
    for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
        job.format = formats[k];
        job.report.omit_dispatches = formats[k] == WGPROF_FORMAT_TABLE;
        snprintf(name, sizeof name, "%s.%s", base, wgprof_format_suffix(formats[k]));
        if (!write_file(dir, name, write_report, &job)) {
            wgprof_layer_say("device %u: could not write %s", d->index, name);
        }
    }
    meta_job meta = {d};
    snprintf(name, sizeof name, "%s." RECORD_SUFFIX_META, base);
    write_file(dir, name, write_meta, &meta);
    pthread_mutex_unlock(&d->lock);
    wgprof_summary_destroy(summary);
    if (final) {
        snprintf(name, sizeof name, "%s." RECORD_SUFFIX_DONE, base);
        write_file(dir, name, write_nothing, NULL);
    }
}
