/*
 * A session's results, written into the folder the CLI made for them (WGPROF_RECORD_DIR,
 * private to this run): PID.N.json (the JSON report), PID.N.txt (the per-kernel table),
 * PID.N.meta (what was not timed, and why, as "key value" lines), and at the end the other
 * formats asked for (PID.N.html, .trace.json, .csv) and PID.N.done. Each file is written to a
 * temporary name and renamed over the old one, so that the CLI never reads half a report, even
 * after the program crashed mid-write.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "record_lib.h"

enum { PATH_CAP = 4400, TMP_CAP = PATH_CAP + 32 }; /* the folder's path is under 4096 bytes */

typedef struct output_kind {
    const char *setting; /* its name in WGPROF_RECORD_FORMATS; NULL: always written */
    const char *suffix;
    wgprof_format format;
    bool final_only;
} output_kind;

static const output_kind KINDS[] = {
    {NULL, "json", WGPROF_FORMAT_JSON, false},
    {NULL, "txt", WGPROF_FORMAT_TABLE, false},
    {"html", "html", WGPROF_FORMAT_HTML, true},
    {"trace", "trace.json", WGPROF_FORMAT_TRACE, true},
    {"csv", "csv", WGPROF_FORMAT_CSV, true},
};

static bool asked_for(const char *formats, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = formats; (p = strstr(p, name)) != NULL; p += n) {
        bool starts = p == formats || p[-1] == ',';
        bool ends = p[n] == '\0' || p[n] == ',';
        if (starts && ends) {
            return true;
        }
    }
    return false;
}

/* Opens a temporary file beside `path`; returns it, its name in tmp. */
static FILE *open_temporary(const char *path, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%s.%ld.tmp", path, (long)getpid());
    return fopen(tmp, "w");
}

static bool commit(FILE *f, const char *tmp, const char *path)
{
    bool ok = fflush(f) == 0 && !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0) {
        return true;
    }
    remove(tmp);
    return false;
}

static void write_meta(const wgprof_rec_session *s, const char *path)
{
    char tmp[TMP_CAP];
    FILE *f = open_temporary(path, tmp, sizeof tmp);
    if (!f) {
        return;
    }
    fprintf(f, "pid %ld\ndevice %u\ndispatches %llu\nuntimed_overlap %llu\nuntimed_sampled %llu\n"
               "discarded %llu\nsample_every %u\n",
            (long)getpid(), s->index, (unsigned long long)s->dispatches, (unsigned long long)s->untimed_overlap,
            (unsigned long long)s->untimed_sampled, (unsigned long long)s->discarded,
            wgprof_rec_settings_get()->sample_every);
    commit(f, tmp, path);
}

void wgprof_rec_output_write(wgprof_rec_session *s, bool final)
{
    const wgprof_rec_settings *settings = wgprof_rec_settings_get();
    if (!s->lane_count || !settings->dir[0]) {
        return;
    }
    /* One lane's pool as it is; several merged into one for the reports. */
    wgprof_pool *merged = NULL, *pool = s->lanes[0].pool;
    if (s->lane_count > 1) {
        const wgprof_pool *pools[WGPROF_REC_LANES];
        for (unsigned i = 0; i < s->lane_count; i++) {
            pools[i] = s->lanes[i].pool;
        }
        if (wgprof_pool_merge(pools, s->lane_count, &merged) != WGPROF_OK) {
            wgprof_rec_say("device %u: out of memory merging the results", s->index);
            return;
        }
        pool = merged;
    }
    wgprof_summary *summary = NULL;
    if (wgprof_summary_create(pool, &summary) != WGPROF_OK) {
        wgprof_rec_say("device %u: out of memory summarising the results", s->index);
        wgprof_pool_destroy(merged);
        return;
    }
    wgprof_report_desc report = {0};
    report.device = wgprof_device_describe(s->wdev);
    report.pool = pool;
    report.summary = summary;
    char base[PATH_CAP - 16];
    snprintf(base, sizeof base, "%s/%ld.%u", settings->dir, (long)getpid(), s->index);
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
        const output_kind *kind = &KINDS[k];
        if ((kind->final_only && !final) || (kind->setting && !asked_for(settings->formats, kind->setting))) {
            continue;
        }
        char path[PATH_CAP], tmp[TMP_CAP];
        snprintf(path, sizeof path, "%s.%s", base, kind->suffix);
        FILE *f = open_temporary(path, tmp, sizeof tmp);
        report.omit_dispatches = kind->format == WGPROF_FORMAT_TABLE;
        bool written = f && wgprof_report_write(&report, kind->format, f) == WGPROF_OK;
        if (f && !written) {
            fclose(f);
            remove(tmp);
        }
        if (!written || !commit(f, tmp, path)) {
            wgprof_rec_say("device %u: could not write %s", s->index, path);
        }
    }
    char meta[PATH_CAP];
    snprintf(meta, sizeof meta, "%s.meta", base);
    write_meta(s, meta);
    if (final) {
        char done[PATH_CAP];
        snprintf(done, sizeof done, "%s.done", base);
        FILE *f = fopen(done, "w");
        if (f) {
            fclose(f);
        }
    }
    wgprof_summary_destroy(summary);
    wgprof_pool_destroy(merged);
}
