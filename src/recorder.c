/*
 * The recorder: the WebGPU query sets that hold the timestamps, the strategies that write them
 * around or after each dispatch, and the resolve that copies them into a readback frame. Each
 * timed dispatch adds a pending result to the pool's store; recorder_readback.c finishes it.
 *
 * Query sets and their resolve buffers are shared by every batch (the dispatches between two
 * resolves): a batch always starts at query 0 of the first set (recorder_layout.c), so each
 * set resolves from index 0 into offset 0 of its own buffer and the 256-byte alignment rule of
 * ResolveQuerySet always holds; queue order keeps a batch's copy ahead of the next batch's
 * writes. Only the readback buffers, mapped while a batch is in flight, come one per frame of
 * the ring (recorder_frames.c).
 */
#include <stdatomic.h>
#include <string.h>

#include "config.h"
#include "recorder_internal.h"
#include "webgpu_ext.h"

/* ---- creation, capacity ---- */

static wgprof_status add_query_set(wgprof_pool *pool)
{
    wgprof_status s = wgprof__reserve((void **)&pool->sets, &pool->set_cap, pool->set_count + 1, sizeof *pool->sets, 4);
    if (s != WGPROF_OK) {
        return s;
    }
    WGPUDevice dev = pool->device->device;
    wgprof__qset *q = &pool->sets[pool->set_count];
    WGPUQuerySetDescriptor qd = {0};
    qd.label = (WGPUStringView){"wgprof timestamps", WGPU_STRLEN};
    qd.type = WGPUQueryType_Timestamp;
    qd.count = WGPROF__QUERIES_PER_SET;
    q->set = wgprof__wgpu()->deviceCreateQuerySet(dev, &qd);
    WGPUBufferDescriptor rd = {0};
    rd.label = (WGPUStringView){"wgprof resolve", WGPU_STRLEN};
    rd.size = WGPROF__QUERIES_PER_SET * sizeof(uint64_t);
    rd.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    q->resolve = wgprof__wgpu()->deviceCreateBuffer(dev, &rd);
    if (!q->set || !q->resolve) {
        if (q->set) wgprof__wgpu()->querySetRelease(q->set);
        if (q->resolve) wgprof__wgpu()->bufferRelease(q->resolve);
        memset(q, 0, sizeof *q);
        wgprof__log(WGPROF_LOG_ERROR, "creating a timestamp query set failed");
        return WGPROF_ERR_WEBGPU;
    }
    pool->set_count++;
    return WGPROF_OK;
}

/* A merged pool, an external one (and the tests' host pools) hold results only: no device, no
 * query set. */
static wgprof_status need_recorder(const wgprof_pool *pool, const char *call)
{
    if (!pool->device) {
        wgprof__log(WGPROF_LOG_ERROR,
                    pool->external ? "%s: the pool is external: its readings come through wgprof_pool_add_external"
                                   : "%s: the pool holds merged results and records nothing",
                    call);
        return WGPROF_ERR_STATE;
    }
    return WGPROF_OK;
}

static size_t batch_size(const wgprof_pool *pool)
{
    return wgprof__store_count(pool->store) - pool->batch_first;
}

wgprof_status wgprof_pool_reserve(wgprof_pool *pool, uint32_t count)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status recorder = pool->external ? WGPROF_OK : need_recorder(pool, "wgprof_pool_reserve");
    if (recorder != WGPROF_OK) {
        return recorder;
    }
    size_t recorded = wgprof__store_count(pool->store);
    uint32_t max = pool->settings.max_dispatches;
    if (max && (uint64_t)recorded + count > max) {
        wgprof__log(WGPROF_LOG_ERROR,
                    "query pool capacity exceeded: %u more timed dispatches requested, "
                    "%zu already recorded, fixed capacity %u; nothing was recorded",
                    count, recorded, max);
        return WGPROF_ERR_CAPACITY;
    }
    wgprof_status reserved = wgprof__store_reserve(pool->store, count);
    if (reserved != WGPROF_OK || pool->external) {
        return reserved; /* an external pool's records need no query set */
    }
    /* Sets for pairs; a chain needs no more (it also starts the set after a full one). */
    uint64_t need_sets = (batch_size(pool) + count + WGPROF__PAIRS_PER_SET - 1) / WGPROF__PAIRS_PER_SET;
    while (pool->set_count < need_sets || pool->set_count == 0) {
        wgprof_status s = add_query_set(pool);
        if (s != WGPROF_OK) {
            return s;
        }
    }
    return WGPROF_OK;
}

/* A tag tells a pool's sites from another pool's, and from its own before a reset: one count
 * for the process, since pools are made on any thread. 0 is never a tag, so that a zeroed
 * wgprof_site is refused. */
static atomic_uint g_site_tags;

uint32_t wgprof__site_tag_new(void)
{
    uint32_t tag;
    do {
        tag = (uint32_t)atomic_fetch_add(&g_site_tags, 1u) + 1u;
    } while (tag == 0);
    return tag;
}

wgprof_status wgprof__pool_new(wgprof_device *device, const wgprof_pool_desc *desc, wgprof_pool **out)
{
    *out = NULL;
    wgprof_pool *pool = wgprof__calloc(1, sizeof *pool);
    if (!pool) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    pool->device = device;
    pool->external = device == NULL;
    pool->site_tag = wgprof__site_tag_new();
    pool->settings = wgprof__pool_desc_defaults(desc);
    /* An external pool uses no frame, but reset and destroy walk the ring as for any pool. */
    pool->frames = wgprof__calloc(pool->settings.readback_frames, sizeof *pool->frames);
    pool->store = wgprof__store_create();
    wgprof_status s = pool->frames && pool->store ? wgprof_pool_reserve(pool, pool->settings.initial_capacity)
                                                  : WGPROF_ERR_OUT_OF_MEMORY;
    if (s != WGPROF_OK) {
        wgprof_pool_destroy(pool);
        return s;
    }
    *out = pool;
    return WGPROF_OK;
}

wgprof_status wgprof_pool_create(wgprof_device *device, const wgprof_pool_desc *desc, wgprof_pool **out)
{
    if (!device || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (!device->info.profiling_available) {
        wgprof__log(WGPROF_LOG_WARN, "no query pool: %s", device->info.unavailable_reason);
        return WGPROF_ERR_UNAVAILABLE;
    }
    return wgprof__pool_new(device, desc, out);
}

void wgprof_pool_destroy(wgprof_pool *pool)
{
    if (!pool) {
        return;
    }
    wgprof__free_frames(pool);
    for (uint32_t i = 0; i < pool->set_count; i++) {
        wgprof__wgpu()->querySetRelease(pool->sets[i].set);
        wgprof__wgpu()->bufferRelease(pool->sets[i].resolve);
    }
    wgprof__calibration_release(&pool->calibration);
    wgprof__store_destroy(pool->store);
    wgprof__free(pool->sets);
    wgprof__free(pool);
}

void wgprof_pool_reset(wgprof_pool *pool)
{
    if (!pool) {
        return;
    }
    /* Batches in flight are abandoned: their frames come back when their maps complete. */
    for (uint32_t i = 0; i < pool->settings.readback_frames; i++) {
        if (pool->frames[i].state != WGPROF__FRAME_FREE) {
            pool->frames[i].batch = WGPROF__NONE;
        }
    }
    wgprof__pool_unresolve(pool);
    wgprof__store_reset(pool->store);
    pool->batch_first = 0;
    pool->resolved = false;
    pool->open_record = false;
    pool->chain_open = false;
    pool->chain_end_owed = false;
    pool->batch_chained = false;
    pool->batch_strategies = 0;
    pool->site_tag = pool->device || pool->external ? wgprof__site_tag_new() : 0; /* the store forgot its sites */
    pool->external_next_id = 0;
}

void wgprof__pool_unresolve(wgprof_pool *pool)
{
    if (!pool->resolved) {
        return;
    }
    /* Nothing was mapped yet: the frame is free again, and the batch is recorded no more. */
    uint32_t newest = wgprof__newest_frame(pool);
    pool->frames[newest].state = WGPROF__FRAME_FREE;
    pool->frames[newest].sets_used = 0;
    pool->next_frame = newest;
    pool->in_flight--;
    pool->resolved = false;
    uint32_t last = wgprof__store_batch_count(pool->store) - 1;
    pool->batch_first = wgprof__store_batch_at(pool->store, last)->first;
    wgprof__store_remove_last_batch(pool->store);
    wgprof__pool_discard_batch(pool);
}

void wgprof__pool_discard_batch(wgprof_pool *pool)
{
    wgprof__store_truncate(pool->store, pool->batch_first);
    pool->open_record = false;
    pool->chain_open = false;
    pool->chain_end_owed = false;
    pool->batch_chained = false;
    pool->batch_strategies = 0;
}

/* ---- recording ---- */

/* Adds a pending record, timed with `strategy`, of the batch being recorded; *r receives its
 * place in the batch. */
static wgprof_status add_record(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id, wgprof_strategy strategy,
                                uint32_t *r)
{
    bool chained = strategy == WGPROF_STRATEGY_CHAIN;
    if (pool->resolved) {
        wgprof__log(WGPROF_LOG_ERROR, "a dispatch was recorded after resolve: submit the resolving encoder, then "
                                      "call wgprof_pool_read_async() or wgprof_pool_collect() before timing more");
        return WGPROF_ERR_STATE;
    }
    if ((batch_size(pool) > 0 || pool->chain_open) && pool->batch_chained != chained) {
        wgprof__log(WGPROF_LOG_ERROR, "a batch holds pairs or a chain of timestamps, not both");
        return WGPROF_ERR_STATE;
    }
    wgprof_status s = wgprof_pool_reserve(pool, 1);
    if (s != WGPROF_OK) {
        return s;
    }
    if (batch_size(pool) == 0 && !pool->chain_open) {
        pool->batch_cpu_encode_ns = wgprof__now_ns();
    }
    pool->batch_chained = chained;
    pool->batch_strategies |= (uint8_t)(1u << strategy);
    *r = (uint32_t)batch_size(pool);
    wgprof__store_add(pool->store, site, dispatch_id);
    return WGPROF_OK;
}

static WGPUQuerySet pair_set(const wgprof_pool *pool, uint32_t r) { return pool->sets[r / WGPROF__PAIRS_PER_SET].set; }
static uint32_t pair_query(uint32_t r) { return 2 * (r % WGPROF__PAIRS_PER_SET); }

wgprof_status wgprof__pool_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                            WGPUPassTimestampWrites *writes)
{
    uint32_t r;
    wgprof_status s = add_record(pool, site, dispatch_id, WGPROF_STRATEGY_PASS, &r);
    if (s != WGPROF_OK) {
        return s;
    }
    memset(writes, 0, sizeof *writes);
    writes->querySet = pair_set(pool, r);
    writes->beginningOfPassWriteIndex = pair_query(r);
    writes->endOfPassWriteIndex = pair_query(r) + 1;
    return WGPROF_OK;
}

/* The public recording calls: check the arguments, intern the dispatch's site, then record
 * through the site-taking form the graph calls directly. */
typedef wgprof_status (*writes_at_site_fn)(wgprof_pool *, uint32_t, uint64_t, WGPUPassTimestampWrites *);
typedef wgprof_status (*pass_at_site_fn)(wgprof_pool *, WGPUComputePassEncoder, uint32_t, uint64_t);

static wgprof_status record_writes(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch,
                                   WGPUPassTimestampWrites *writes, writes_at_site_fn record)
{
    if (!pool || !dispatch || !writes) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t site;
    wgprof_status s = need_recorder(pool, "recording a dispatch");
    s = s == WGPROF_OK ? wgprof__store_site(pool->store, dispatch, &site) : s;
    return s != WGPROF_OK ? s : record(pool, site, dispatch->dispatch_id, writes);
}

static wgprof_status record_in_pass(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                    const wgprof_dispatch_desc *dispatch, pass_at_site_fn record)
{
    if (!pool || !pass || !dispatch) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t site;
    wgprof_status s = need_recorder(pool, "recording a dispatch");
    s = s == WGPROF_OK ? wgprof__store_site(pool->store, dispatch, &site) : s;
    return s != WGPROF_OK ? s : record(pool, pass, site, dispatch->dispatch_id);
}

wgprof_status wgprof_pool_pass_writes(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch,
                                      WGPUPassTimestampWrites *writes)
{
    return record_writes(pool, dispatch, writes, wgprof__pool_pass_writes_site);
}

static wgprof_status need_inside(const wgprof_pool *pool)
{
    wgprof_status s = need_recorder(pool, "timing inside a pass");
    if (s != WGPROF_OK) {
        return s;
    }
    if (!pool->device->info.timestamp_inside_passes || !wgprof__ext_get()->pass_write_timestamp) {
        wgprof__log(WGPROF_LOG_ERROR, "the device has no in-pass timestamps; use the pass strategy");
        return WGPROF_ERR_UNAVAILABLE;
    }
    return WGPROF_OK;
}

static void write_timestamp(WGPUComputePassEncoder pass, WGPUQuerySet set, uint32_t query)
{
    wgprof__ext_get()->pass_write_timestamp(pass, set, query);
}

wgprof_status wgprof__pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                      uint64_t dispatch_id)
{
    wgprof_status s = need_inside(pool);
    if (s != WGPROF_OK) {
        return s;
    }
    if (pool->open_record) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_begin called twice without wgprof_pool_end");
        return WGPROF_ERR_STATE;
    }
    uint32_t r;
    s = add_record(pool, site, dispatch_id, WGPROF_STRATEGY_INSIDE, &r);
    if (s != WGPROF_OK) {
        return s;
    }
    write_timestamp(pass, pair_set(pool, r), pair_query(r));
    pool->open_record = true;
    return WGPROF_OK;
}

wgprof_status wgprof_pool_begin(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                const wgprof_dispatch_desc *dispatch)
{
    return record_in_pass(pool, pass, dispatch, wgprof__pool_begin_site);
}

/* ---- sites ---- */

bool wgprof__pool_owns_site(const wgprof_pool *pool, wgprof_site site)
{
    return site.tag != 0 && site.tag == pool->site_tag && site.id < wgprof__store_site_count(pool->store);
}

static wgprof_status check_site(const wgprof_pool *pool, wgprof_site site, const char *call)
{
    if (!wgprof__pool_owns_site(pool, site)) {
        wgprof__log(WGPROF_LOG_ERROR, "%s: site %u is not this pool's: another pool's, or interned before its last reset",
                    call, site.id);
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return WGPROF_OK;
}

wgprof_status wgprof_pool_site(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch, wgprof_site *out)
{
    if (!pool || !dispatch || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t id;
    wgprof_status s = pool->external ? WGPROF_OK : need_recorder(pool, "wgprof_pool_site");
    s = s == WGPROF_OK ? wgprof__store_site(pool->store, dispatch, &id) : s;
    if (s == WGPROF_OK) {
        out->id = id;
        out->tag = pool->site_tag;
    }
    return s;
}

wgprof_status wgprof_pool_kernel_source(wgprof_pool *pool, const char *kernel, const char *source)
{
    if (!pool || !kernel) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = pool->external ? WGPROF_OK : need_recorder(pool, "wgprof_pool_kernel_source");
    return s == WGPROF_OK ? wgprof__store_name_source(pool->store, kernel, source) : s;
}

wgprof_status wgprof_pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, wgprof_site site,
                                     uint64_t dispatch_id)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = need_recorder(pool, "wgprof_pool_begin_site");
    s = s == WGPROF_OK ? check_site(pool, site, "wgprof_pool_begin_site") : s;
    return s != WGPROF_OK ? s : wgprof__pool_begin_site(pool, pass, site.id, dispatch_id);
}

wgprof_status wgprof_pool_end(wgprof_pool *pool, WGPUComputePassEncoder pass)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->open_record) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_end without wgprof_pool_begin");
        return WGPROF_ERR_STATE;
    }
    uint32_t r = (uint32_t)batch_size(pool) - 1;
    write_timestamp(pass, pair_set(pool, r), pair_query(r) + 1);
    pool->open_record = false;
    return WGPROF_OK;
}

/* Opens the batch's chain, whose start the caller then writes at query 0 of the first set. */
static wgprof_status chain_open(wgprof_pool *pool)
{
    wgprof_status s = need_inside(pool);
    if (s != WGPROF_OK) {
        return s;
    }
    if (pool->resolved || pool->chain_open || batch_size(pool) > 0) {
        wgprof__log(WGPROF_LOG_ERROR, "a chain begins once per batch, before its first dispatch");
        return WGPROF_ERR_STATE;
    }
    pool->chain_open = true;
    pool->batch_chained = true;
    pool->batch_cpu_encode_ns = wgprof__now_ns();
    return WGPROF_OK;
}

wgprof_status wgprof_pool_chain_begin(wgprof_pool *pool, WGPUComputePassEncoder pass)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = chain_open(pool);
    if (s == WGPROF_OK) {
        write_timestamp(pass, pool->sets[0].set, 0);
    }
    return s;
}

static void chain_carry(const wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t end)
{
    uint32_t set = end / WGPROF__CHAIN_PER_SET, query = end % WGPROF__CHAIN_PER_SET + 1;
    if (query == WGPROF__QUERIES_PER_SET - 1) {
        /* The set is full: the next set's chain starts where this one ends. */
        write_timestamp(pass, pool->sets[set + 1].set, 0);
    }
}

static void chain_end_in_pass(const wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t end)
{
    uint32_t set = end / WGPROF__CHAIN_PER_SET, query = end % WGPROF__CHAIN_PER_SET + 1;
    write_timestamp(pass, pool->sets[set].set, query);
    chain_carry(pool, pass, end);
}

static void chain_end_writes(const wgprof_pool *pool, uint32_t end, WGPUPassTimestampWrites *writes)
{
    memset(writes, 0, sizeof *writes);
    writes->querySet = pool->sets[end / WGPROF__CHAIN_PER_SET].set;
    writes->beginningOfPassWriteIndex = end % WGPROF__CHAIN_PER_SET + 1;
    writes->endOfPassWriteIndex = WGPU_QUERY_SET_INDEX_UNDEFINED;
}

wgprof_status wgprof__pool_chain_next_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                           uint64_t dispatch_id)
{
    if (!pool->chain_open) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_chain_next without wgprof_pool_chain_begin");
        return WGPROF_ERR_STATE;
    }
    if (pool->chain_end_owed) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_chain_next: the chain still owes end %u", pool->chain_owed);
        return WGPROF_ERR_STATE;
    }
    uint32_t r;
    wgprof_status s = add_record(pool, site, dispatch_id, WGPROF_STRATEGY_CHAIN, &r);
    if (s != WGPROF_OK) {
        return s;
    }
    chain_end_in_pass(pool, pass, r);
    return WGPROF_OK;
}

wgprof_status wgprof__pool_chain_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                                  WGPUPassTimestampWrites *writes)
{
    if (pool->chain_end_owed) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_chain_pass_writes: the chain still owes end %u", pool->chain_owed);
        return WGPROF_ERR_STATE;
    }
    uint32_t r;
    wgprof_status s = add_record(pool, site, dispatch_id, WGPROF_STRATEGY_CHAIN, &r);
    if (s != WGPROF_OK) {
        return s;
    }
    uint32_t set = r / WGPROF__CHAIN_PER_SET, query = r % WGPROF__CHAIN_PER_SET + 1;
    memset(writes, 0, sizeof *writes);
    writes->querySet = pool->sets[set].set;
    /* A set's first record also writes the start at its pass's beginning: a pass has one end,
     * so a chain of passes cannot carry into the next set at the previous end as in-pass
     * writes do. */
    writes->beginningOfPassWriteIndex = query == 1 ? 0 : WGPU_QUERY_SET_INDEX_UNDEFINED;
    writes->endOfPassWriteIndex = query;
    pool->chain_open = true;
    return WGPROF_OK;
}

/* ---- a chain whose ends the caller places ---- */

static wgprof_status chain_start_writes(wgprof_pool *pool, WGPUPassTimestampWrites *writes)
{
    wgprof_status s = chain_open(pool);
    if (s == WGPROF_OK) {
        memset(writes, 0, sizeof *writes);
        writes->querySet = pool->sets[0].set;
        writes->beginningOfPassWriteIndex = 0;
        writes->endOfPassWriteIndex = WGPU_QUERY_SET_INDEX_UNDEFINED;
    }
    return s;
}

static wgprof_status chain_add(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id, uint32_t *end)
{
    if (!pool->chain_open) {
        wgprof__log(WGPROF_LOG_ERROR, "a record of a chain added before the chain began");
        return WGPROF_ERR_STATE;
    }
    return add_record(pool, site, dispatch_id, WGPROF_STRATEGY_CHAIN, end);
}

/* Only the end owed can be written: any other would land on a query that a record already
 * read, or one that no record has yet. */
static wgprof_status need_owed(const wgprof_pool *pool, wgprof_chain_end end, const char *call)
{
    wgprof_status s = need_recorder(pool, call);
    if (s == WGPROF_OK && (!pool->chain_end_owed || end != pool->chain_owed)) {
        if (pool->chain_end_owed) {
            wgprof__log(WGPROF_LOG_ERROR, "%s: end %u is not the one the chain owes (%u)", call, end, pool->chain_owed);
        } else {
            wgprof__log(WGPROF_LOG_ERROR, "%s: end %u is not owed: the chain owes no end", call, end);
        }
        s = WGPROF_ERR_INVALID_ARGUMENT;
    }
    return s;
}

wgprof_status wgprof_pool_chain_start_writes(wgprof_pool *pool, WGPUPassTimestampWrites *writes)
{
    if (!pool || !writes) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    return chain_start_writes(pool, writes);
}

wgprof_status wgprof_pool_chain_add(wgprof_pool *pool, wgprof_site site, uint64_t dispatch_id, wgprof_chain_end *end)
{
    if (!pool || !end) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = need_recorder(pool, "wgprof_pool_chain_add");
    s = s == WGPROF_OK ? check_site(pool, site, "wgprof_pool_chain_add") : s;
    if (s != WGPROF_OK) {
        return s;
    }
    if (pool->chain_end_owed) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof_pool_chain_add: the chain still owes end %u; write it first",
                    pool->chain_owed);
        return WGPROF_ERR_STATE;
    }
    uint32_t r;
    s = chain_add(pool, site.id, dispatch_id, &r);
    if (s == WGPROF_OK) {
        pool->chain_end_owed = true;
        pool->chain_owed = r;
        *end = r;
    }
    return s;
}

wgprof_status wgprof_pool_chain_end_in_pass(wgprof_pool *pool, WGPUComputePassEncoder pass, wgprof_chain_end end)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = need_owed(pool, end, "wgprof_pool_chain_end_in_pass");
    if (s == WGPROF_OK) {
        chain_end_in_pass(pool, pass, end);
        pool->chain_end_owed = false;
    }
    return s;
}

wgprof_status wgprof_pool_chain_end_writes(const wgprof_pool *pool, wgprof_chain_end end,
                                           WGPUPassTimestampWrites *writes)
{
    if (!pool || !writes) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = need_owed(pool, end, "wgprof_pool_chain_end_writes");
    if (s == WGPROF_OK) {
        chain_end_writes(pool, end, writes);
    }
    return s;
}

wgprof_status wgprof_pool_chain_carry(wgprof_pool *pool, WGPUComputePassEncoder pass, wgprof_chain_end end)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = need_owed(pool, end, "wgprof_pool_chain_carry");
    if (s == WGPROF_OK) {
        chain_carry(pool, pass, end);
        pool->chain_end_owed = false;
    }
    return s;
}

wgprof_status wgprof_pool_chain_pass_writes(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch,
                                            WGPUPassTimestampWrites *writes)
{
    return record_writes(pool, dispatch, writes, wgprof__pool_chain_pass_writes_site);
}

wgprof_status wgprof_pool_chain_next(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                     const wgprof_dispatch_desc *dispatch)
{
    return record_in_pass(pool, pass, dispatch, wgprof__pool_chain_next_site);
}

/* ---- resolve ---- */

bool wgprof__pool_frame_free(const wgprof_pool *pool)
{
    return pool->frames[pool->next_frame].state == WGPROF__FRAME_FREE;
}

wgprof_status wgprof_pool_discard(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (pool->resolved) {
        return WGPROF_ERR_STATE;
    }
    wgprof__pool_discard_batch(pool);
    return WGPROF_OK;
}

wgprof_status wgprof_pool_resolve(wgprof_pool *pool, WGPUCommandEncoder encoder)
{
    if (!pool || !encoder) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status recorder = need_recorder(pool, "wgprof_pool_resolve");
    if (recorder != WGPROF_OK) {
        return recorder;
    }
    if (pool->resolved) {
        wgprof__log(WGPROF_LOG_ERROR, "resolve called twice: the batch resolved before is kept; submit its encoder, "
                                      "then call wgprof_pool_read_async() or wgprof_pool_collect()");
        return WGPROF_ERR_STATE;
    }
    size_t records = batch_size(pool);
    if (!wgprof__pool_frame_free(pool)) {
        /* Every frame is in flight: drop this batch, never the older ones, and never wait. */
        wgprof__store_count_dropped(pool->store, records);
        wgprof__log(WGPROF_LOG_DEBUG, "%u readback frames in flight; a batch of %zu dispatches dropped",
                    pool->settings.readback_frames, records);
        wgprof__pool_discard_batch(pool);
        return WGPROF_OK;
    }
    if (!pool->in_flight) {
        /* An empty ring starts over: blocking use keeps to one frame's buffers. */
        pool->next_frame = pool->oldest_frame = 0;
    }
    wgprof__frame *frame = &pool->frames[pool->next_frame];
    bool chained = pool->batch_chained;
    uint32_t sets = wgprof__sets_used(records, chained);
    uint64_t now = wgprof__now_ns();
    wgprof__batch b = {0};
    b.first = (uint32_t)pool->batch_first;
    b.count = (uint32_t)records;
    b.chained = chained;
    b.strategies = (uint8_t)(pool->batch_strategies | (chained ? 1u << WGPROF_STRATEGY_CHAIN : 0));
    b.end_missing = pool->open_record || pool->chain_end_owed; /* either is the batch's last record */
    b.cpu_encode_ns = records || chained ? pool->batch_cpu_encode_ns : now;
    b.cpu_submit_ns = now; /* the submit comes later: an early but safe bound */
    uint32_t index = 0;
    wgprof_status s = wgprof__frame_readbacks(pool, frame, sets);
    if (s == WGPROF_OK) {
        s = wgprof__store_add_batch(pool->store, &b, &index);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    for (uint32_t i = 0; i < sets; i++) {
        uint32_t used = wgprof__queries_in_set(records, chained, i);
        wgprof__wgpu()->commandEncoderResolveQuerySet(encoder, pool->sets[i].set, 0, used, pool->sets[i].resolve,
                                                          0);
        wgprof__wgpu()->commandEncoderCopyBufferToBuffer(encoder, pool->sets[i].resolve, 0, frame->readbacks[i], 0,
                                                             used * sizeof(uint64_t));
    }
    frame->batch = index;
    frame->sets_used = sets;
    frame->state = WGPROF__FRAME_RESOLVED;
    pool->next_frame = (pool->next_frame + 1) % pool->settings.readback_frames;
    pool->in_flight++;
    pool->resolved = true;
    pool->batch_first = wgprof__store_count(pool->store);
    pool->open_record = false;
    pool->chain_open = false;
    pool->chain_end_owed = false;
    pool->batch_chained = false;
    pool->batch_strategies = 0;
    return WGPROF_OK;
}

void wgprof__pool_stamp_submit(wgprof_pool *pool, uint64_t encode_ns, uint64_t submit_ns, uint64_t submitted_ns)
{
    if (!pool->resolved) {
        return; /* the batch was dropped: nothing to stamp */
    }
    wgprof__batch *b = wgprof__store_batch_at(pool->store, wgprof__store_batch_count(pool->store) - 1);
    b->cpu_encode_ns = encode_ns;
    b->cpu_submit_ns = submit_ns;
    b->cpu_submitted_ns = submitted_ns;
}

uint64_t wgprof__pool_last_calibration_ns(const wgprof_pool *pool) { return pool->calibration.last_ns; }
wgprof__store *wgprof__pool_store(wgprof_pool *pool) { return pool ? pool->store : NULL; }
const wgprof__store *wgprof__pool_store_const(const wgprof_pool *pool) { return pool ? pool->store : NULL; }
