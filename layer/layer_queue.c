/*
 * The layer's readback: the chains of command buffers the program submitted (layer_submit.c),
 * held in the device's list in flight, and the reader, a thread of wgprof's per device, which
 * reads a chain's timestamps once they are all there, without ever waiting for them: when a wait
 * of the program's says its work is done, and every READER_PERIOD_NS while READER_BACKLOG chains
 * or more are in flight (a program that never waits), and writes the snapshots. The program's
 * thread reads only where it must: a command buffer used again before it was read, the first
 * snapshot (kept at the program's first wait, so that a program that crashes right after it
 * leaves its results), and the device's end. Read blocks are reset together, adjacent ones in
 * one call.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "layer_lib.h"

/* ---- readback ---- */

/* Puts `cb` (a chain's first) in its device's in-flight list, under the device's lock; false:
 * out of memory. */
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

/* Block `b`'s `n` readings (value, availability) in `pairs`: from the layer's buffer where it is
 * copied there, else from `cache` where it holds the block's pool (read now if it holds
 * another), else read alone. */
static void read_block(wgprof_layer_device *d, const wgprof_layer_block *b, uint32_t n, pool_read *cache,
                       uint64_t *pairs, size_t cap)
{
    const VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
    if (b->copied) {
        wgprof_layer_copy_read(b->copied, n, pairs);
        return;
    }
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

/* Marks every command buffer of the chain from `head` as being read, or no longer (device's lock). */
static void chain_reading(wgprof_layer_cb *head, bool reading)
{
    for (wgprof_layer_cb *cb = head; cb; cb = cb->chain_next) {
        cb->reading = reading;
    }
}

/* The chain from `head` read, or dropped (device's lock): each command buffer no longer pending
 * nor in a chain, free to be used again once its reading ends; one the program let go of
 * meanwhile (orphaned) to the device's list of those to free (orphans_free). */
static void chain_unlink(wgprof_layer_cb *head)
{
    wgprof_layer_device *d = head->device;
    wgprof_layer_cb *cb = head;
    while (cb) {
        wgprof_layer_cb *next = cb->chain_next;
        cb->pending = false;
        cb->chain_head = NULL;
        cb->chain_next = NULL;
        cb->tail = NULL;
        if (cb->orphaned) {
            cb->next_orphan = d->orphans_read;
            d->orphans_read = cb;
        }
        cb = next;
    }
}

/* Gives back the orphaned command buffers read (not holding the device's lock: their queries go
 * back through it), kept for the next renewals. */
static void orphans_free(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->lock);
    wgprof_layer_cb *cb = d->orphans_read;
    d->orphans_read = NULL;
    pthread_mutex_unlock(&d->lock);
    if (cb) {
        wgprof_layer_cbs_recycle(d, cb);
    }
}

/* Whether the program let go of a command buffer of the chain from `head`: by Vulkan's rules
 * the chain's execution is over (device's lock). */
static bool chain_orphaned(const wgprof_layer_cb *head)
{
    for (const wgprof_layer_cb *cb = head; cb; cb = cb->chain_next) {
        if (cb->orphaned) {
            return true;
        }
    }
    return false;
}

/* The timestamps of one command buffer of a chain being read: its own as written, then its last
 * row's end (its own last, or the next's first, or its tail's). */
typedef struct cb_ticks {
    uint64_t *ticks;
    bool *available;
} cb_ticks;

/* Reads the timestamps of the chain from `head` (`n` command buffers) into `out`; false where one
 * is missing and `force` is not set, or memory ran out (`*memory` false). A command buffer whose
 * recording never ended (its chain's last timestamp never written) has none (`ticks` NULL). */
static bool chain_ticks(wgprof_layer_cb *head, size_t n, bool force, pool_read *cache, cb_ticks *out, bool *memory)
{
    wgprof_layer_device *d = head->device;
    bool complete = true;
    size_t i = 0;
    *memory = true;
    for (wgprof_layer_cb *cb = head; cb && i < n; cb = cb->chain_next, i++) {
        if (cb->ticks != cb->count + (cb->open_end ? 0u : 1u)) {
            continue;
        }
        out[i].ticks = wgprof__calloc(cb->count + 1, sizeof *out[i].ticks);
        out[i].available = wgprof__calloc(cb->count + 1, sizeof *out[i].available);
        if (!out[i].ticks || !out[i].available) {
            *memory = false;
            return false;
        }
        if (complete || force) {
            complete = read_ticks(cb, force, cache, out[i].ticks, out[i].available) && complete;
        }
    }
    /* Each open chain's end: the next command buffer's first timestamp, or the tail's. */
    i = 0;
    for (wgprof_layer_cb *cb = head; cb && i < n; cb = cb->chain_next, i++) {
        if (!cb->open_end || !out[i].ticks) {
            continue;
        }
        bool have = false, source = true;
        if (cb->chain_next && i + 1 < n && out[i + 1].ticks) {
            out[i].ticks[cb->count] = out[i + 1].ticks[0];
            have = out[i + 1].available[0];
        } else if (cb->tail) {
            uint64_t pair[2];
            const wgprof_layer_tail *t = cb->tail;
            read_block(d, &(wgprof_layer_block){t->pool, t->query, t->buffer, t->copied}, 1, cache, pair, 2);
            out[i].ticks[cb->count] = pair[0];
            have = pair[1] != 0;
        } else {
            source = false; /* no tail could be had: its last row has no end, and waits for none */
        }
        out[i].available[cb->count] = have;
        complete = complete && (have || force || !source);
    }
    return complete;
}

/* Adds one command buffer's rows, read, to the results (their lock held); false where they
 * could not be (its records dropped). */
static bool add_cb_rows(wgprof_layer_device *d, wgprof_layer_cb *cb, const cb_ticks *t, uint64_t now)
{
    /* Its debug labels as scopes, those left open closed at its end (or none, where there is no
     * room for them: its rows count more than their scopes). */
    size_t scope_count = cb->mark_count + cb->label_depth;
    wgprof_external_scope *scopes = scope_count ? wgprof__calloc(scope_count, sizeof *scopes) : NULL;
    scope_count = scopes ? scope_count : 0;
    for (size_t i = 0; i < scope_count; i++) {
        const wgprof_layer_mark *m = i < cb->mark_count ? &cb->marks[i] : NULL;
        scopes[i].before = m ? m->before : cb->count;
        scopes[i].name = m && m->name != UINT32_MAX ? cb->label_text + m->name : NULL;
    }
    wgprof_external_batch batch = {.strategy = WGPROF_STRATEGY_CHAIN,
                                   .count = cb->count,
                                   .sites = cb->sites,
                                   .ticks = t->ticks,
                                   .available = t->available,
                                   .valid_bits = d->pool_bits,
                                   .period_ns = d->period_ns,
                                   .cpu_submit_ns = cb->submit_ns,
                                   .cpu_read_ns = now,
                                   .scopes = scopes,
                                   .scope_count = scope_count};
    bool added = t->ticks && d->results && add_rows(d->results, &batch);
    wgprof__free(scopes);
    return added;
}

/* Resets the blocks of every command buffer of the chains from `heads` (from the host, adjacent
 * blocks in one call; where the device reads from the layer's buffer, their copies there cleared
 * and the queries reset in the stream at their next use) and lets their tails go. */
static void chains_reset(wgprof_layer_device *d, wgprof_layer_cb *const *heads, size_t n);

/* Reads the chain from `head` (one command buffer, or several of one batch), which the caller
 * took out of the in-flight list: its rows into the results, or the chain back into the list
 * where its timestamps are not all there yet. Where `batched`, a chain read whole keeps its
 * blocks unreset and stays `reading`, and true says so: the caller resets the blocks of a batch
 * of chains together and then lets them go (batch_done). */
static bool read_taken(wgprof_layer_cb *head, bool force, pool_read *cache, bool batched)
{
    wgprof_layer_device *d = head->device;
    size_t n = 0;
    for (wgprof_layer_cb *cb = head; cb; cb = cb->chain_next) {
        n++;
    }
    cb_ticks *t = wgprof__calloc(n, sizeof *t);
    bool memory = t != NULL;
    bool complete = t && chain_ticks(head, n, force, cache, t, &memory);
    uint64_t now = wgprof_cpu_now_ns();
    /* Not all there, or no memory to read it: back in the list, unless its time is up (`force`:
     * its records are dropped where they could not be read). */
    bool requeue = !complete && !force;
    size_t dropped = memory || requeue ? 0 : wgprof_layer_chain_records(head);
    bool added = false;
    if (complete) {
        size_t i = 0;
        pthread_mutex_lock(&d->results_lock);
        for (wgprof_layer_cb *cb = head; cb; cb = cb->chain_next, i++) {
            if (add_cb_rows(d, cb, &t[i], now)) {
                added = true;
            } else {
                dropped += wgprof_layer_records(cb);
            }
        }
        pthread_mutex_unlock(&d->results_lock);
    }
    if (dropped || added) {
        pthread_mutex_lock(&d->lock);
        d->dropped += dropped;
        d->unsaved = d->unsaved || added;
        pthread_mutex_unlock(&d->lock);
    }
    for (size_t i = 0; t && i < n; i++) {
        wgprof__free(t[i].ticks);
        wgprof__free(t[i].available);
    }
    wgprof__free(t);
    bool deferred = complete && batched && d->ResetQueryPool;
    if (deferred) {
        return true;
    }
    if (!requeue) {
        chains_reset(d, &head, 1);
    }
    pthread_mutex_lock(&d->lock);
    chain_reading(head, false); /* its blocks are reset (or it waits again): it may be used again */
    if (!requeue) {
        chain_unlink(head);
    } else if (!in_flight_push(d, head)) {
        d->dropped += wgprof_layer_chain_records(head);
        chain_unlink(head);
    }
    pthread_cond_broadcast(&d->read_done);
    pthread_mutex_unlock(&d->lock);
    orphans_free(d);
    return false;
}

static int by_place(const void *a, const void *b)
{
    const wgprof_layer_block *x = a, *y = b;
    uint64_t px = (uint64_t)(uintptr_t)x->pool, py = (uint64_t)(uintptr_t)y->pool;
    return px != py ? (px < py ? -1 : 1) : x->first != y->first ? (x->first < y->first ? -1 : 1) : 0;
}

static void chains_reset(wgprof_layer_device *d, wgprof_layer_cb *const *heads, size_t n)
{
    size_t blocks = 0, tails = 0;
    for (size_t i = 0; i < n; i++) {
        for (wgprof_layer_cb *cb = heads[i]; cb; cb = cb->chain_next) {
            blocks += cb->block_count;
            tails += cb->tail != NULL;
            cb->blocks_reset = true; /* here, or in the stream at their next use */
        }
    }
    wgprof_layer_tail **done_tails = tails ? wgprof__calloc(tails, sizeof *done_tails) : NULL;
    tails = 0;
    for (size_t i = 0; done_tails && i < n; i++) {
        for (const wgprof_layer_cb *cb = heads[i]; cb; cb = cb->chain_next) {
            if (cb->tail) {
                done_tails[tails++] = cb->tail;
            }
        }
    }
    if (done_tails) {
        wgprof_layer_tails_return(d, done_tails, tails);
        wgprof__free(done_tails);
    }
    for (size_t i = 0; d->readback_buffer && i < n; i++) {
        for (const wgprof_layer_cb *cb = heads[i]; cb; cb = cb->chain_next) {
            for (size_t b = 0; b < cb->block_count; b++) {
                if (cb->blocks[b].copied) { /* read: no copy of this execution's may be taken again */
                    wgprof_layer_copy_clear(cb->blocks[b].copied, WGPROF_LAYER_BLOCK);
                }
            }
        }
    }
    if (!d->ResetQueryPool) {
        return; /* reset in the stream, at their next use */
    }
    wgprof_layer_block *all = blocks ? wgprof__alloc(blocks * sizeof *all) : NULL;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        for (const wgprof_layer_cb *cb = heads[i]; cb; cb = cb->chain_next) {
            if (all) {
                memcpy(all + at, cb->blocks, cb->block_count * sizeof *all);
                at += cb->block_count;
            } else {
                for (size_t b = 0; b < cb->block_count; b++) {
                    d->ResetQueryPool(d->handle, cb->blocks[b].pool, cb->blocks[b].first, WGPROF_LAYER_BLOCK);
                }
            }
        }
    }
    if (all) {
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
    }
    wgprof__free(all);
}

/* The chains of a batch read whole (`done`, `n`): their blocks reset, adjacent ones in one call,
 * their tails free, then each command buffer free to be used again. */
static void batch_done(wgprof_layer_device *d, wgprof_layer_cb **done, size_t n)
{
    chains_reset(d, done, n);
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < n; i++) {
        chain_reading(done[i], false);
        chain_unlink(done[i]);
    }
    pthread_cond_broadcast(&d->read_done);
    pthread_mutex_unlock(&d->lock);
    orphans_free(d);
}

void wgprof_layer_wait_unread(wgprof_layer_cb *cb)
{
    if (!atomic_load(&cb->pending)) {
        return; /* not read by anyone: read already, or never submitted */
    }
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->lock);
    while (cb->reading) {
        pthread_cond_wait(&d->read_done, &d->lock);
    }
    pthread_mutex_unlock(&d->lock);
}

/* Takes `head` out of its device's in-flight list; false where it is not there (read already,
 * or being read by another thread). */
static bool take_in_flight(wgprof_layer_device *d, wgprof_layer_cb *head)
{
    for (size_t i = 0; i < d->in_flight_count; i++) {
        if (d->in_flight[i] == head) {
            d->in_flight[i] = d->in_flight[--d->in_flight_count];
            return true;
        }
    }
    return false;
}

/* A read owed (device's lock held): the reader, where it sleeps for as long as it takes, told
 * to wait no longer than its period. */
static void read_owed_locked(wgprof_layer_device *d)
{
    atomic_store(&d->read_owed, true);
    if (d->reader_sleeping) {
        d->reader_sleeping = false;
        pthread_cond_signal(&d->reader_wake);
    }
}

void wgprof_layer_idle(wgprof_layer_device *d)
{
    if (!atomic_load_explicit(&d->read_owed, memory_order_relaxed)) {
        return;
    }
    pthread_mutex_lock(&d->lock);
    if (atomic_exchange(&d->read_owed, false)) {
        d->reader_due = true;
        pthread_cond_signal(&d->reader_wake);
    }
    pthread_mutex_unlock(&d->lock);
}

void wgprof_layer_orphan(wgprof_layer_cb *const *cbs, size_t n, bool *orphaned)
{
    wgprof_layer_device *d = cbs[0]->device;
    pthread_mutex_lock(&d->lock);
    bool reader = d->read_anywhere && d->reader_pid == wgprof_layer_pid() && !d->finished;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        orphaned[i] = reader && cbs[i]->pending;
        if (orphaned[i]) {
            cbs[i]->orphaned = true;
            any = true;
        }
    }
    if (any) {
        read_owed_locked(d);
    }
    for (size_t i = 0; i < n; i++) {
        while (!orphaned[i] && cbs[i]->reading) {
            pthread_cond_wait(&d->read_done, &d->lock);
        }
    }
    pthread_mutex_unlock(&d->lock);
}

void wgprof_layer_read_cb(wgprof_layer_cb *cb, bool force)
{
    if (!atomic_load(&cb->pending)) {
        return;
    }
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->lock);
    while (cb->reading) {
        pthread_cond_wait(&d->read_done, &d->lock);
    }
    /* A command buffer in a chain is read with its chain, which its first stands for. */
    wgprof_layer_cb *head = cb->chain_head ? cb->chain_head : cb;
    bool mine = cb->pending && take_in_flight(d, head);
    if (mine) {
        chain_reading(head, true);
    }
    pthread_mutex_unlock(&d->lock);
    if (mine) {
        read_taken(head, force, NULL, false);
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

/* Which chains in flight a reading takes: those the program's waits retired, or every one,
 * and whether their timestamps must all be there. */
typedef enum read_what { READ_RETIRED, READ_READY, READ_ALL } read_what;

/* Reads the chains in flight `what` says whose timestamps are all there (every one, READ_ALL). */
static void read_in_flight(wgprof_layer_device *d, read_what what)
{
    bool force = what == READ_ALL;
    pthread_mutex_lock(&d->lock);
    size_t count = d->in_flight_count, n = 0;
    wgprof_layer_cb **taken = count ? wgprof__calloc(count, sizeof *taken) : NULL;
    size_t kept = 0;
    for (size_t i = 0; taken && i < count; i++) {
        wgprof_layer_cb *head = d->in_flight[i];
        if (what != READ_RETIRED || wgprof_layer_retired(d, head) || chain_orphaned(head)) {
            chain_reading(head, true);
            taken[n++] = head;
        } else {
            d->in_flight[kept++] = head;
        }
    }
    if (taken) {
        d->in_flight_count = kept;
    }
    pthread_mutex_unlock(&d->lock);
    if (!n) {
        wgprof__free(taken);
        return;
    }
    /* Several command buffers: their pools read whole, one at a time. */
    pool_read *cache = n > 1 && !d->readback_buffer ? wgprof__alloc(sizeof *cache) : NULL;
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

void wgprof_layer_read_retired(wgprof_layer_device *d) { read_in_flight(d, READ_RETIRED); }

void wgprof_layer_poll(wgprof_layer_device *d, bool force)
{
    read_in_flight(d, force ? READ_ALL : READ_READY);
    snapshot_if_due(d);
}

/* ---- the reader ---- */

enum { READER_PERIOD_NS = 5000000, READER_BACKLOG = 4096 };

static void *reader_main(void *arg)
{
    wgprof_layer_device *d = arg;
    pthread_mutex_lock(&d->lock);
    while (!d->reader_stop) {
        /* It reads what the program's waits retired, at the program's next idle moment (or
         * within its period where none comes), or where much is in flight (a program that never
         * waits): between them, reading a query pool can wait for the whole device (lavapipe),
         * which the program's next submit would then wait for too, and a driver's calls from
         * two threads can meet on its locks. Otherwise it wakes only to write a snapshot that
         * is owed. */
        if (!d->reader_due) {
            if (d->unsaved || d->in_flight_count >= READER_BACKLOG || atomic_load(&d->read_owed)) {
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_nsec += READER_PERIOD_NS;
                until.tv_sec += until.tv_nsec / 1000000000;
                until.tv_nsec %= 1000000000;
                pthread_cond_timedwait(&d->reader_wake, &d->lock, &until);
            } else {
                d->reader_sleeping = true;
                pthread_cond_wait(&d->reader_wake, &d->lock);
                d->reader_sleeping = false;
            }
        }
        bool backlog = d->in_flight_count >= READER_BACKLOG;
        bool read = atomic_exchange(&d->read_owed, false) || d->reader_due || backlog;
        d->reader_due = false;
        if (d->reader_stop) {
            break;
        }
        pthread_mutex_unlock(&d->lock);
        if (read) {
            /* Past the backlog, what is ready; else only what the program's waits retired, so
             * that no query is reset before the program knows its work done. */
            read_in_flight(d, backlog ? READ_READY : READ_RETIRED);
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
    if (d->reader_pid == wgprof_layer_pid() || d->reader_stop) {
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&d->reader, NULL, reader_main, d) == 0) {
        d->reader_pid = wgprof_layer_pid();
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void wgprof_layer_reader_stop(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->lock);
    d->reader_stop = true;
    bool running = d->reader_pid == wgprof_layer_pid() && !pthread_equal(d->reader, pthread_self());
    d->reader_pid = 0;
    pthread_cond_broadcast(&d->reader_wake);
    pthread_mutex_unlock(&d->lock);
    if (running) {
        pthread_join(d->reader, NULL);
    }
}

bool wgprof_layer_in_flight_put(wgprof_layer_cb *head, uint64_t now, uint64_t seq, uint32_t slot)
{
    wgprof_layer_device *d = head->device;
    head->seq = seq;
    head->queue_slot = slot;
    pthread_mutex_lock(&d->lock);
    bool kept = in_flight_push(d, head);
    for (wgprof_layer_cb *cb = head; cb; cb = cb->chain_next) {
        cb->pending = kept;
        cb->submit_ns = now;
        cb->blocks_reset = false; /* written again */
    }
    if (kept) {
        reader_start_locked(d);
    } else {
        d->dropped += wgprof_layer_chain_records(head);
        chain_unlink(head);
    }
    pthread_mutex_unlock(&d->lock);
    return kept;
}

void wgprof_layer_waited(wgprof_layer_device *d)
{
    pthread_mutex_lock(&d->lock);
    bool any = d->in_flight_count > 0;
    /* Inline where no reader runs in this process (a child of fork, or none could start). */
    bool inline_read = any && (!d->snapshot_ns || d->reader_pid != wgprof_layer_pid());
    if (any && !inline_read) {
        read_owed_locked(d);
    }
    pthread_mutex_unlock(&d->lock);
    if (inline_read) {
        read_in_flight(d, READ_RETIRED);
        snapshot_if_due(d);
    }
}
