/* Each graph owns its pool: graphs on one shared device, executing from several threads at
 * once, each get their own complete, correct results. */
#include <string.h>
#include <pthread.h>

#include "check.h"
#include "support.h"

enum { THREADS = 8, EXECUTES = 100 };

typedef struct worker {
    wgprof_device *dev;
    uint32_t loops;
    uint32_t nodes;
    wgprof_status status;
    size_t records, invalid, wrong_kernel;
    int wrong_results;
    bool read_failed; /* the results could not be read back: nothing to compare */
    char kernel[32];
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    ts_busy b;
    if (!ts_busy_init(w->dev, &b, 8, w->loops)) {
        w->status = WGPROF_ERR_WEBGPU;
        return NULL;
    }
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON};
    wgprof_graph *g = NULL;
    w->status = wgprof_graph_create(w->dev, &gd, &g);
    wgprof_node_desc nd;
    ts_busy_node(&b, w->kernel, &nd);
    for (uint32_t i = 0; i < w->nodes && w->status == WGPROF_OK; i++) {
        w->status = wgprof_graph_add(g, &nd, NULL);
    }
    for (int i = 0; i < EXECUTES && w->status == WGPROF_OK; i++) {
        w->status = wgprof_graph_execute(g);
    }
    if (w->status == WGPROF_OK) {
        const wgprof_pool *pool = wgprof_graph_pool(g);
        w->records = wgprof_pool_count(pool);
        w->invalid = wgprof_pool_invalid_count(pool);
        for (size_t i = 0; i < w->records; i++) {
            wgprof_record r;
            w->wrong_kernel += wgprof_pool_record(pool, i, &r) != WGPROF_OK || strcmp(r.kernel, w->kernel) != 0;
        }
        float out[8 * 64];
        w->read_failed = !ts_read(w->dev, b.data, sizeof out, out);
        for (uint32_t i = 0; !w->read_failed && i < 8 * 64; i++) {
            w->wrong_results += out[i] != ts_busy_expected(i, w->loops, EXECUTES * w->nodes);
        }
    }
    wgprof_graph_destroy(g);
    ts_busy_free(&b);
    return NULL;
}

int main(void)
{
    ts_capture_log();
    wgprof_device *dev = ts_device(true);
    worker workers[THREADS];
    pthread_t threads[THREADS]; /* pthreads, which ThreadSanitizer follows (it misses thrd_create) */
    for (int t = 0; t < THREADS; t++) {
        memset(&workers[t], 0, sizeof workers[t]);
        workers[t].dev = dev;
        workers[t].loops = 100u * (uint32_t)(t + 1);
        workers[t].nodes = 3u + (uint32_t)t;
        snprintf(workers[t].kernel, sizeof workers[t].kernel, "thread_%d", t);
        CHECK(pthread_create(&threads[t], NULL, run_worker, &workers[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        const worker *w = &workers[t];
        CHECK_MSG(w->status == WGPROF_OK, "thread %d: %s", t, wgprof_status_str(w->status));
        CHECK_MSG(w->records == (size_t)EXECUTES * w->nodes, "thread %d: %zu records", t, w->records);
        CHECK(w->invalid == 0);
        CHECK(w->wrong_kernel == 0);
        CHECK_MSG(!w->read_failed, "thread %d: its results could not be read back", t);
        CHECK_MSG(w->wrong_results == 0, "thread %d: %d wrong results", t, w->wrong_results);
    }
    wgprof_device_destroy(dev);
    return check_summary();
}
