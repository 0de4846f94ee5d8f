/*
 * The layer's queries and readback: blocks of WGPROF_LAYER_BLOCK queries handed to command
 * buffers as they record, reset from the host once read (or in the stream, where the device has
 * no host reset); the program's submits, which only append the command buffers to the device's
 * list in flight; and the reader, a thread of wgprof's per device, which reads a command
 * buffer's timestamps once they are all there, without ever waiting for them: when a wait of the
 * program's says its work is done, and every READER_PERIOD_NS while READER_BACKLOG command
 * buffers or more are in flight (a program that never waits), and writes the snapshots. The
 * program's thread reads only where it must: a command buffer used again before it was read,
 * the first snapshot (kept at the program's first wait, so that a program that crashes right
 * after it leaves its results), and the device's end.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "layer_lib.h"

/* ---- query blocks ---- */

bool wgprof_layer_block_take(wgprof_layer_device *d, wgprof_layer_block *out)
{
    pthread_mutex_lock(&d->lock);
    bool have = d->free_count > 0;
    if (have) {
        *out = d->free_blocks[--d->free_count];
    }
    pthread_mutex_unlock(&d->lock);
    if (have) {
        return true;
    }
    /* A new pool, outside the lock (it calls the driver); its blocks but the first go free. */
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = WGPROF_LAYER_POOL_QUERIES};
    VkQueryPool pool = VK_NULL_HANDLE;
    if (d->CreateQueryPool(d->handle, &info, NULL, &pool) != VK_SUCCESS) {
        return false;
    }
    if (d->ResetQueryPool) {
        d->ResetQueryPool(d->handle, pool, 0, WGPROF_LAYER_POOL_QUERIES);
    }
    enum { BLOCKS = WGPROF_LAYER_POOL_QUERIES / WGPROF_LAYER_BLOCK };
    pthread_mutex_lock(&d->lock);
    VkQueryPool *pools =
        wgprof_layer_grow(d->query_pools, d->query_pool_count, d->query_pool_count + 1, sizeof *pools);
    wgprof_layer_block *blocks =
        pools ? wgprof_layer_grow(d->free_blocks, d->free_count, (d->query_pool_count + 1) * BLOCKS, sizeof *blocks)
              : NULL;
    if (pools) {
        d->query_pools = pools;
    }
    if (blocks) {
        d->free_blocks = blocks;
        d->free_cap = (d->query_pool_count + 1) * BLOCKS; /* every block there is fits */
        d->query_pools[d->query_pool_count++] = pool;
        for (uint32_t b = 1; b < BLOCKS; b++) {
            d->free_blocks[d->free_count++] = (wgprof_layer_block){pool, b * WGPROF_LAYER_BLOCK};
        }
    }
    pthread_mutex_unlock(&d->lock);
    if (!blocks) {
        d->DestroyQueryPool(d->handle, pool, NULL);
        return false;
    }
    *out = (wgprof_layer_block){pool, 0};
    return true;
}

void wgprof_layer_blocks_return(wgprof_layer_device *d, wgprof_layer_block *blocks, size_t count, bool reset)
{
    if (reset && d->ResetQueryPool) {
        for (size_t i = 0; i < count; i++) {
            d->ResetQueryPool(d->handle, blocks[i].pool, blocks[i].first, WGPROF_LAYER_BLOCK);
        }
    }
    pthread_mutex_lock(&d->lock);
    if (d->free_count + count <= d->free_cap) {
        memcpy(d->free_blocks + d->free_count, blocks, count * sizeof *blocks);
        d->free_count += count;
    }
    pthread_mutex_unlock(&d->lock);
}

/* ---- readback ---- */

/* Puts `cb` in its device's in-flight list, under the device's lock; false: out of memory. */
static bool in_flight_push(wgprof_layer_device *d, wgprof_layer_cb *cb)
{
    if (d->in_flight_count == d->in_flight_cap) {
        size_t cap = d->in_flight_cap ? 2 * d->in_flight_cap : 64;
        wgprof_layer_cb **more = wgprof_layer_grow(d->in_flight, d->in_flight_count, cap, sizeof *more);
        if (!more) {
            return false;
        }
        d->in_flight = more;
        d->in_flight_cap = cap;
    }
    d->in_flight[d->in_flight_count++] = cb;
    return true;
}

/* One query pool's results read whole (on lavapipe every read of a pool waits for the whole
 * device: a poll reads each pool once, not each command buffer's blocks one by one). */
typedef struct pool_read {
    VkQueryPool pool; /* VK_NULL_HANDLE: nothing read yet */
    uint64_t pairs[2 * WGPROF_LAYER_POOL_QUERIES];
} pool_read;

/* Block `b`'s `n` readings (value, availability) in `pairs`: from `cache` where it holds the
 * block's pool (read now if it holds another), else read alone. */
static void read_block(wgprof_layer_device *d, const wgprof_layer_block *b, uint32_t n, pool_read *cache,
                       uint64_t *pairs, size_t cap)
{
    const VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
    if (cache) {
        if (cache->pool != b->pool) {
            VkResult r = d->GetQueryPoolResults(d->handle, b->pool, 0, WGPROF_LAYER_POOL_QUERIES, sizeof cache->pairs,
                                                cache->pairs, 2 * sizeof(uint64_t), flags);
            if (r != VK_SUCCESS && r != VK_NOT_READY) {
                memset(cache->pairs, 0, sizeof cache->pairs);
            }
            cache->pool = b->pool;
        }
        memcpy(pairs, cache->pairs + 2 * b->first, 2 * n * sizeof *pairs);
        return;
    }
    VkResult r = d->GetQueryPoolResults(d->handle, b->pool, b->first, n, cap * sizeof *pairs, pairs, 2 * sizeof(uint64_t),
                                        flags);
    if (r != VK_SUCCESS && r != VK_NOT_READY) {
        memset(pairs, 0, cap * sizeof *pairs);
    }
}

/* The command buffer's timestamps in the order written, with their availability; false where
 * one is missing and `force` is not set. */
static bool read_ticks(wgprof_layer_cb *cb, bool force, pool_read *cache, uint64_t *ticks, bool *available)
{
    wgprof_layer_device *d = cb->device;
    uint64_t pairs[2 * WGPROF_LAYER_BLOCK];
    uint32_t left = cb->ticks, at = 0;
    for (size_t b = 0; b < cb->block_count && left; b++) {
        uint32_t n = left < WGPROF_LAYER_BLOCK ? left : WGPROF_LAYER_BLOCK;
        read_block(d, &cb->blocks[b], n, cache, pairs, sizeof pairs / sizeof *pairs);
        for (uint32_t i = 0; i < n; i++) {
            ticks[at] = pairs[2 * i];
            available[at] = pairs[2 * i + 1] != 0;
            if (!available[at] && !force) {
                return false;
            }
            at++;
        }
        left -= n;
    }
    return true;
}

/* Adds a recording's rows to the results: `whole`, its chain as read, where it has no gap; else
 * one chain a run of rows between gaps (WGPROF_LAYER_GAP), each with the scopes among its rows
 * (a scope at a gap goes with the rows before it, or with the first run where none come
 * before). False where the pool refused one: the runs before it are in. */
static bool add_rows(wgprof_pool *pool, const wgprof_external_batch *whole)
{
    size_t first = 0, scope = 0;
    bool any_gap = false;
    for (size_t i = 0; i < whole->count && !any_gap; i++) {
        any_gap = wgprof_layer_is_gap(whole->sites[i]);
    }
    if (!any_gap) {
        return wgprof_pool_add_external(pool, whole) == WGPROF_OK;
    }
    wgprof_external_scope *moved = whole->scope_count ? wgprof__calloc(whole->scope_count, sizeof *moved) : NULL;
    if (whole->scope_count && !moved) {
        return false;
    }
    bool ok = true;
    while (ok && first < whole->count) {
        size_t end = first;
        while (end < whole->count && !wgprof_layer_is_gap(whole->sites[end])) {
            end++;
        }
        size_t next = end; /* the next run's first row, past the gaps */
        while (next < whole->count && wgprof_layer_is_gap(whole->sites[next])) {
            next++;
        }
        if (end > first) {
            /* Its scopes: up to its last row's end, and those of the gaps after it (every one left
             * where no run comes after). */
            size_t taken = 0;
            while (scope < whole->scope_count && (next >= whole->count || whole->scopes[scope].before <= end ||
                                                  whole->scopes[scope].before < next)) {
                size_t before = whole->scopes[scope].before;
                moved[taken].before = before <= first ? 0 : before >= end ? end - first : before - first;
                moved[taken].name = whole->scopes[scope].name;
                taken++;
                scope++;
            }
            wgprof_external_batch run = *whole;
            run.count = end - first;
            run.sites = whole->sites + first;
            run.ticks = whole->ticks + first;
            run.available = whole->available ? whole->available + first : NULL;
            run.scopes = taken ? moved : NULL;
            run.scope_count = taken;
            ok = wgprof_pool_add_external(pool, &run) == WGPROF_OK;
        }
        first = next;
    }
    wgprof__free(moved);
    return ok;
}

/* Reads `cb`, which the caller took out of the in-flight list: its batch into the results, or
 * back into the list where its timestamps are not all there yet. Where `batched`, a command
 * buffer read whole keeps its blocks unreset and stays `reading`, and true says so: the caller
 * resets the blocks of a batch together and then lets them go (batch_done). */
static bool read_taken(wgprof_layer_cb *cb, bool force, pool_read *cache, bool batched)
{
    wgprof_layer_device *d = cb->device;
    if (cb->ticks != cb->count + 1) { /* the chain's last timestamp never came (its recording did not end) */
        pthread_mutex_lock(&d->lock);
        d->dropped += wgprof_layer_records(cb);
        cb->pending = false;
        cb->reading = false;
        pthread_cond_broadcast(&d->read_done);
        pthread_mutex_unlock(&d->lock);
        return false;
    }
    uint64_t *ticks = wgprof__calloc(cb->ticks ? cb->ticks : 1, sizeof *ticks);
    bool *available = wgprof__calloc(cb->ticks ? cb->ticks : 1, sizeof *available);
    bool complete = ticks && available && read_ticks(cb, force, cache, ticks, available);
    /* Its debug labels as scopes, those left open closed at its end (or none, where there is no
     * room for them: its rows count more than their scopes). */
    size_t scope_count = complete ? cb->mark_count + cb->label_depth : 0;
    wgprof_external_scope *scopes = scope_count ? wgprof__calloc(scope_count, sizeof *scopes) : NULL;
    scope_count = scopes ? scope_count : 0;
    for (size_t i = 0; i < scope_count; i++) {
        const wgprof_layer_mark *m = i < cb->mark_count ? &cb->marks[i] : NULL;
        scopes[i].before = m ? m->before : cb->count;
        scopes[i].name = m && m->name != UINT32_MAX ? cb->label_text + m->name : NULL;
    }
    uint64_t now = wgprof_cpu_now_ns();
    bool requeue = false;
    pthread_mutex_lock(&d->lock);
    if (!ticks || !available) {
        d->dropped += wgprof_layer_records(cb);
        cb->pending = false;
    } else if (!complete) {
        requeue = true; /* not there yet: back in the list once this reading is over */
    } else {
        wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN,
                                       .count = cb->count,
                                       .sites = cb->sites,
                                       .ticks = ticks,
                                       .available = available,
                                       .valid_bits = d->pool_bits,
                                       .period_ns = d->period_ns,
                                       .cpu_submit_ns = cb->submit_ns,
                                       .cpu_read_ns = now,
                                       .scopes = scopes,
                                       .scope_count = scope_count};
        if (!d->results || !add_rows(d->results, &batch)) {
            d->dropped += wgprof_layer_records(cb);
        } else {
            d->unsaved = true;
        }
        cb->pending = false;
    }
    pthread_mutex_unlock(&d->lock);
    bool deferred = complete && batched && d->ResetQueryPool;
    if (complete && d->ResetQueryPool && !deferred) {
        /* Ready for the command buffer's next execution (it may be submitted again as it is). */
        for (size_t b = 0; b < cb->block_count; b++) {
            d->ResetQueryPool(d->handle, cb->blocks[b].pool, cb->blocks[b].first, WGPROF_LAYER_BLOCK);
        }
    }
    wgprof__free(ticks);
    wgprof__free(available);
    wgprof__free(scopes);
    if (deferred) {
        return true;
    }
    pthread_mutex_lock(&d->lock);
    if (requeue && !in_flight_push(d, cb)) {
        d->dropped += wgprof_layer_records(cb);
        cb->pending = false;
    }
    cb->reading = false; /* its blocks are reset (or it waits again): it may be used again */
    pthread_cond_broadcast(&d->read_done);
    pthread_mutex_unlock(&d->lock);
    return false;
}

static int by_place(const void *a, const void *b)
{
    const wgprof_layer_block *x = a, *y = b;
    uint64_t px = (uint64_t)(uintptr_t)x->pool, py = (uint64_t)(uintptr_t)y->pool;
    return px != py ? (px < py ? -1 : 1) : x->first != y->first ? (x->first < y->first ? -1 : 1) : 0;
}

/* The command buffers of a batch read whole (`done`, `n`): their blocks reset, adjacent ones in
 * one call, then each free to be used again. */
static void batch_done(wgprof_layer_device *d, wgprof_layer_cb **done, size_t n)
{
    size_t blocks = 0;
    for (size_t i = 0; i < n; i++) {
        blocks += done[i]->block_count;
    }
    wgprof_layer_block *all = blocks ? wgprof__alloc(blocks * sizeof *all) : NULL;
    if (all) {
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            memcpy(all + at, done[i]->blocks, done[i]->block_count * sizeof *all);
            at += done[i]->block_count;
        }
        qsort(all, blocks, sizeof *all, by_place);
        for (size_t i = 0; i < blocks;) {
            size_t j = i + 1;
            while (j < blocks && all[j].pool == all[i].pool &&
                   all[j].first == all[i].first + (uint32_t)(j - i) * WGPROF_LAYER_BLOCK) {
                j++;
            }
            d->ResetQueryPool(d->handle, all[i].pool, all[i].first, (uint32_t)(j - i) * WGPROF_LAYER_BLOCK);
            i = j;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            for (size_t b = 0; b < done[i]->block_count; b++) {
                d->ResetQueryPool(d->handle, done[i]->blocks[b].pool, done[i]->blocks[b].first, WGPROF_LAYER_BLOCK);
            }
        }
    }
    wgprof__free(all);
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < n; i++) {
        done[i]->reading = false;
    }
    pthread_cond_broadcast(&d->read_done);
    pthread_mutex_unlock(&d->lock);
}

void wgprof_layer_wait_unread(wgprof_layer_cb *cb)
{
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->lock);
    while (cb->reading) {
        pthread_cond_wait(&d->read_done, &d->lock);
    }
    pthread_mutex_unlock(&d->lock);
}

/* Takes `cb` out of its device's in-flight list; false where it is not there (read already, or
 * being read by another thread). */
static bool take_in_flight(wgprof_layer_device *d, wgprof_layer_cb *cb)
{
    for (size_t i = 0; i < d->in_flight_count; i++) {
        if (d->in_flight[i] == cb) {
            d->in_flight[i] = d->in_flight[--d->in_flight_count];
            return true;
        }
    }
    return false;
}

void wgprof_layer_read_cb(wgprof_layer_cb *cb, bool force)
{
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->lock);
    while (cb->reading) {
        pthread_cond_wait(&d->read_done, &d->lock);
    }
    bool mine = cb->pending && take_in_flight(d, cb);
    if (mine) {
        cb->reading = true;
    }
    pthread_mutex_unlock(&d->lock);
    if (mine) {
        read_taken(cb, force, NULL, false);
    }
}

/* The results so far written as a partial set as soon as there are any, then again while more
 * come, as often as costs the program at most a hundredth of its time (and at most every 50 ms):
 * a program that crashes, is killed or never ends its device (a browser's GPU process, killed
 * with the browser) still leaves them. */
static void snapshot_if_due(wgprof_layer_device *d)
{
    enum { SNAPSHOT_MIN_NS = 50000000, SNAPSHOT_SHARE = 100 };
    uint64_t now = wgprof_cpu_now_ns();
    pthread_mutex_lock(&d->lock);
    uint64_t wait = SNAPSHOT_SHARE * d->snapshot_cost_ns;
    wait = wait > SNAPSHOT_MIN_NS ? wait : SNAPSHOT_MIN_NS;
    bool due = d->unsaved && !d->finished && !d->snapshot_busy && (!d->snapshot_ns || now - d->snapshot_ns >= wait);
    if (due) {
        d->snapshot_busy = true;
        d->snapshot_ns = now;
    }
    pthread_mutex_unlock(&d->lock);
    if (due) {
        wgprof_layer_output_write(d, "the program ended before wgprof could write its final results (a signal, a "
                                     "crash, abort() or _exit()): the dispatches read until then");
        pthread_mutex_lock(&d->lock);
        d->snapshot_busy = false;
        d->snapshot_cost_ns = wgprof_cpu_now_ns() - now;
        pthread_mutex_unlock(&d->lock);
    }
}

/* In the order of their first block's pool and place: a poll reads each pool once. */
static int by_pool(const void *a, const void *b)
{
    const wgprof_layer_cb *x = *(wgprof_layer_cb *const *)a, *y = *(wgprof_layer_cb *const *)b;
    uint64_t px = x->block_count ? (uint64_t)(uintptr_t)x->blocks[0].pool : 0;
    uint64_t py = y->block_count ? (uint64_t)(uintptr_t)y->blocks[0].pool : 0;
    uint32_t fx = x->block_count ? x->blocks[0].first : 0, fy = y->block_count ? y->blocks[0].first : 0;
    return px != py ? (px < py ? -1 : 1) : fx != fy ? (fx < fy ? -1 : 1) : 0;
}

/* Reads every command buffer in flight whose timestamps are all there (every one, `force`). */
static void read_in_flight(wgprof_layer_device *d, bool force)
{
    pthread_mutex_lock(&d->lock);
    size_t n = d->in_flight_count;
    wgprof_layer_cb **taken = n ? wgprof__calloc(n, sizeof *taken) : NULL;
    if (taken) {
        memcpy(taken, d->in_flight, n * sizeof *taken);
        d->in_flight_count = 0;
        for (size_t i = 0; i < n; i++) {
            taken[i]->reading = true;
        }
    }
    pthread_mutex_unlock(&d->lock);
    if (!taken) {
        return;
    }
    /* Several command buffers: their pools read whole, one at a time. */
    pool_read *cache = n > 1 ? wgprof__alloc(sizeof *cache) : NULL;
    if (cache) {
        cache->pool = VK_NULL_HANDLE;
        qsort(taken, n, sizeof *taken, by_pool);
    }
    /* Those read whole are kept in `taken`'s front for batch_done. */
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        if (read_taken(taken[i], force, cache, true)) {
            taken[done++] = taken[i];
        }
    }
    if (done) {
        batch_done(d, taken, done);
    }
    wgprof__free(cache);
    wgprof__free(taken);
}

void wgprof_layer_poll(wgprof_layer_device *d, bool force)
{
    read_in_flight(d, force);
    snapshot_if_due(d);
}

/* ---- the reader ---- */

enum { READER_PERIOD_NS = 5000000, READER_BACKLOG = 4096 };

static void *reader_main(void *arg)
{
    wgprof_layer_device *d = arg;
    pthread_mutex_lock(&d->lock);
    while (!d->reader_stop) {
        /* It reads after a wait of the program's, or where much is in flight (a program that
         * never waits): between them, reading a query pool can wait for the whole device
         * (lavapipe), which the program's next submit would then wait for too. Otherwise it
         * wakes only to write a snapshot that is owed. */
        if (!d->reader_due) {
            if (d->unsaved || d->in_flight_count >= READER_BACKLOG) {
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_nsec += READER_PERIOD_NS;
                until.tv_sec += until.tv_nsec / 1000000000;
                until.tv_nsec %= 1000000000;
                pthread_cond_timedwait(&d->reader_wake, &d->lock, &until);
            } else {
                pthread_cond_wait(&d->reader_wake, &d->lock);
            }
        }
        bool read = d->reader_due || d->in_flight_count >= READER_BACKLOG;
        d->reader_due = false;
        if (d->reader_stop) {
            break;
        }
        pthread_mutex_unlock(&d->lock);
        if (read) {
            read_in_flight(d, false);
        }
        snapshot_if_due(d);
        pthread_mutex_lock(&d->lock);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* The device's reader, started at its first submit (under the device's lock). Every signal is
 * blocked in it: the program's handlers run on the program's threads, as without wgprof. */
static void reader_start_locked(wgprof_layer_device *d)
{
    if (d->reader_pid == (long)getpid() || d->reader_stop) {
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&d->reader, NULL, reader_main, d) == 0) {
        d->reader_pid = (long)getpid();
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void wgprof_layer_reader_stop(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->lock);
    d->reader_stop = true;
    bool running = d->reader_pid == (long)getpid() && !pthread_equal(d->reader, pthread_self());
    d->reader_pid = 0;
    pthread_cond_broadcast(&d->reader_wake);
    pthread_mutex_unlock(&d->lock);
    if (running) {
        pthread_join(d->reader, NULL);
    }
}

/* A wait of the program's returned: what it waited for is done. The reader reads it; the
 * program's thread only until the first snapshot is written. */
static void waited(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->lock);
    bool any = d->in_flight_count > 0;
    /* Inline where no reader runs in this process (a child of fork, or none could start). */
    bool inline_read = any && (!d->snapshot_ns || d->reader_pid != (long)getpid());
    d->reader_due = true;
    pthread_cond_signal(&d->reader_wake);
    pthread_mutex_unlock(&d->lock);
    if (inline_read) {
        wgprof_layer_poll(d, false);
    }
}

/* ---- submits ---- */

/* Puts `cb` (and the secondaries it executes) in flight; reads a previous execution first. */
static void submitted(wgprof_layer_cb *cb, uint64_t now)
{
    for (size_t i = 0; i < cb->child_count; i++) {
        submitted(cb->children[i], now);
    }
    if (!cb->count) {
        return;
    }
    wgprof_layer_device *d = cb->device;
    wgprof_layer_wait_unread(cb);
    if (cb->pending) {
        /* Submitted again: the previous execution has finished (Vulkan's rule for a command
         * buffer without simultaneous use, which is never timed). Everything ready is read with
         * it, a pool at a time, so that the next command buffers submitted again find theirs
         * read already. */
        read_in_flight(d, false);
        wgprof_layer_read_cb(cb, true);
    }
    pthread_mutex_lock(&d->lock);
    if (in_flight_push(d, cb)) {
        cb->pending = true;
        cb->submit_ns = now;
        reader_start_locked(d);
    } else {
        d->dropped += wgprof_layer_records(cb);
    }
    pthread_mutex_unlock(&d->lock);
}

static void submitted_handle(VkCommandBuffer handle, uint64_t now)
{
    wgprof_layer_lock();
    wgprof_layer_cb *cb = wgprof_layer_map_get(&wgprof_layer_cbs, (uint64_t)(uintptr_t)handle);
    wgprof_layer_unlock();
    if (cb) {
        submitted(cb, now);
    }
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                        VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    uint64_t now = wgprof_cpu_now_ns();
    for (uint32_t s = 0; s < count; s++) {
        for (uint32_t i = 0; i < submits[s].commandBufferCount; i++) {
            submitted_handle(submits[s].pCommandBuffers[i], now);
        }
    }
    return d->QueueSubmit(queue, count, submits, fence);
}

static void submitted2(uint32_t count, const VkSubmitInfo2 *submits)
{
    uint64_t now = wgprof_cpu_now_ns();
    for (uint32_t s = 0; s < count; s++) {
        for (uint32_t i = 0; i < submits[s].commandBufferInfoCount; i++) {
            submitted_handle(submits[s].pCommandBufferInfos[i].commandBuffer, now);
        }
    }
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                                                         VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    submitted2(count, submits);
    return d->QueueSubmit2(queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueSubmit2KHR(VkQueue queue, uint32_t count,
                                                            const VkSubmitInfo2 *submits, VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    submitted2(count, submits);
    return d->QueueSubmit2KHR(queue, count, submits, fence);
}

/* ---- the program's waits: what it waited for is there to read ---- */

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_QueueWaitIdle(VkQueue queue)
{
    wgprof_layer_device *d = wgprof_layer_device_of(queue);
    VkResult r = d->QueueWaitIdle(queue);
    waited(d);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_DeviceWaitIdle(VkDevice device)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->DeviceWaitIdle(device);
    waited(d);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
                                                          VkBool32 all, uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->WaitForFences(device, count, fences, all, timeout);
    if (r == VK_SUCCESS) {
        waited(d);
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_GetFenceStatus(VkDevice device, VkFence fence)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->GetFenceStatus(device, fence);
    if (r == VK_SUCCESS) {
        waited(d);
    }
    return r;
}

/* A wait on timeline semaphores (wgpu-native waits so for its submissions): where it succeeded,
 * what the program waited for is done. Only where something is in flight. */
static VkResult semaphores_waited(wgprof_layer_device *d, VkResult r)
{
    if (r == VK_SUCCESS) {
        waited(d);
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                           uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return semaphores_waited(d, d->WaitSemaphores(device, info, timeout));
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                              uint64_t timeout)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    return semaphores_waited(d, d->WaitSemaphoresKHR(device, info, timeout));
}
