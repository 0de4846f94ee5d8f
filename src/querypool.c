/*
 * The query pool: one record per timed dispatch, the WebGPU query sets that hold their
 * timestamps, and the resolve that copies them into a readback frame.
 *
 * Query sets and their resolve buffers are shared by every batch (the dispatches between two
 * resolves): a batch always starts at query 0 of the first set, so each set resolves from
 * index 0 into offset 0 of its own buffer and the 256-byte alignment rule of ResolveQuerySet
 * always holds; queue order keeps a batch's copy ahead of the next batch's writes. Only the
 * readback buffers, mapped while a batch is in flight, come one per frame of the ring
 * (pool_readback.c). Records accumulate on the host across batches until reset.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "querypool_internal.h"

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
    q->set = wgpuDeviceCreateQuerySet(dev, &qd);
    WGPUBufferDescriptor rd = {0};
    rd.label = (WGPUStringView){"wgprof resolve", WGPU_STRLEN};
    rd.size = WGPROF__QUERIES_PER_SET * sizeof(uint64_t);
    rd.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    q->resolve = wgpuDeviceCreateBuffer(dev, &rd);
    if (!q->set || !q->resolve) {
        if (q->set) wgpuQuerySetRelease(q->set);
        if (q->resolve) wgpuBufferRelease(q->resolve);
        memset(q, 0, sizeof *q);
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: creating a timestamp query set failed");
        return WGPROF_ERR_WEBGPU;
    }
    pool->set_count++;
    return WGPROF_OK;
}

static size_t batch_size(const wgprof_pool *pool)
{
    return pool->count - pool->batch_first;
}

wgprof_status wgprof_pool_reserve(wgprof_pool *pool, uint32_t count)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (pool->max_dispatches && (uint64_t)pool->count + count > pool->max_dispatches) {
        wgprof__log(WGPROF_LOG_ERROR,
                    "wgprof: query pool capacity exceeded: %u more timed dispatches requested, "
                    "%zu already recorded, fixed capacity %u; nothing was recorded",
                    count, pool->count, pool->max_dispatches);
        return WGPROF_ERR_CAPACITY;
    }
    uint64_t need_records = (uint64_t)pool->count + count;
    if (need_records > UINT32_MAX) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: query pool cannot index %llu records",
                    (unsigned long long)need_records);
        return WGPROF_ERR_CAPACITY;
    }
    if (need_records > pool->slot_cap) {
        size_t ncap = pool->slot_cap ? pool->slot_cap : 256;
        while (ncap < need_records) {
            ncap *= 2;
        }
        wgprof__slot *n = wgprof__grow(pool->slots, pool->slot_cap * sizeof *n, ncap * sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        pool->slots = n;
        pool->slot_cap = ncap;
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

wgprof_status wgprof_pool_create(wgprof_device *device, const wgprof_pool_desc *desc, wgprof_pool **out)
{
    if (!device || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (!device->info.profiling_available) {
        wgprof__log(WGPROF_LOG_WARN, "wgprof: no query pool: %s", device->info.unavailable_reason);
        return WGPROF_ERR_UNAVAILABLE;
    }
    wgprof_pool_desc defaults = {0};
    if (!desc) {
        desc = &defaults;
    }
    wgprof_pool *pool = wgprof__calloc(1, sizeof *pool);
    if (!pool) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    pool->device = device;
    pool->max_dispatches = desc->max_dispatches;
    pool->ring = desc->readback_frames ? desc->readback_frames : 3;
    pool->frames = wgprof__calloc(pool->ring, sizeof *pool->frames);
    uint32_t initial = desc->initial_capacity ? desc->initial_capacity : 256;
    if (pool->max_dispatches && initial > pool->max_dispatches) {
        initial = pool->max_dispatches;
    }
    wgprof_status s = pool->frames ? wgprof_pool_reserve(pool, initial) : WGPROF_ERR_OUT_OF_MEMORY;
    if (s != WGPROF_OK) {
        wgprof_pool_destroy(pool);
        return s;
    }
    *out = pool;
    return WGPROF_OK;
}

void wgprof_pool_destroy(wgprof_pool *pool)
{
    if (!pool) {
        return;
    }
    wgprof__free_frames(pool);
    for (uint32_t i = 0; i < pool->set_count; i++) {
        wgpuQuerySetRelease(pool->sets[i].set);
        wgpuBufferRelease(pool->sets[i].resolve);
    }
    wgprof__clock_release(&pool->clock);
    wgprof__free_interned(pool);
    wgprof__free(pool->sets);
    wgprof__free(pool->slots);
    wgprof__free(pool->batches);
    wgprof__free(pool->scopes);
    wgprof__free(pool->scope_stack);
    wgprof__free(pool);
}

void wgprof_pool_reset(wgprof_pool *pool)
{
    if (!pool) {
        return;
    }
    /* Batches in flight are abandoned: their frames come back when their maps complete. */
    for (uint32_t i = 0; i < pool->ring; i++) {
        if (pool->frames[i].state != WGPROF__FRAME_FREE) {
            pool->frames[i].batch = WGPROF__NONE;
        }
    }
    wgprof__pool_unresolve(pool);
    wgprof__forget_interned(pool);
    pool->count = 0;
    pool->batch_first = 0;
    pool->invalid = 0;
    pool->batch_count = 0;
    pool->collected = 0;
    pool->resolved = false;
    pool->open_record = false;
    pool->chain_open = false;
    pool->batch_chained = false;
    pool->have_epoch = false;
    pool->epoch = 0;
    pool->scope_count = 0;
    pool->scope_depth = 0;
    pool->dropped_batches = 0;
    pool->dropped_dispatches = 0;
    pool->generation++;
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
    pool->batch_first = pool->batches[--pool->batch_count].first;
    wgprof__pool_discard_batch(pool);
}

void wgprof__pool_discard_batch(wgprof_pool *pool)
{
    pool->count = pool->batch_first;
    wgprof__scopes_truncate(pool, pool->count);
    pool->open_record = false;
    pool->chain_open = false;
    pool->batch_chained = false;
}

/* ---- recording ---- */

/* Adds a pending record; `end_issued`: its end timestamp is encoded with this call (the
 * inside strategy encodes it later, in wgprof_pool_end). */
static wgprof_status add_record(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id, bool chained, bool end_issued,
                                uint32_t *r)
{
    if (pool->resolved) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: a dispatch was recorded after resolve and before collect");
        return WGPROF_ERR_STATE;
    }
    if ((batch_size(pool) > 0 || pool->chain_open) && pool->batch_chained != chained) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: a batch holds pairs or a chain of timestamps, not both");
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
    wgprof__slot *slot = &pool->slots[pool->count];
    memset(slot, 0, sizeof *slot);
    slot->site = site;
    slot->dispatch_id = dispatch_id ? dispatch_id : pool->count;
    slot->batch = pool->batch_count;
    slot->reason = WGPROF_INVALID_PENDING;
    slot->end_issued = end_issued;
    *r = (uint32_t)batch_size(pool);
    pool->count++;
    return WGPROF_OK;
}

static WGPUQuerySet pair_set(const wgprof_pool *pool, uint32_t r) { return pool->sets[r / WGPROF__PAIRS_PER_SET].set; }
static uint32_t pair_query(uint32_t r) { return 2 * (r % WGPROF__PAIRS_PER_SET); }

wgprof_status wgprof__pool_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                            WGPUPassTimestampWrites *writes)
{
    uint32_t r;
    wgprof_status s = add_record(pool, site, dispatch_id, false, true, &r);
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
    wgprof_status s = wgprof__pool_site(pool, dispatch, &site);
    return s != WGPROF_OK ? s : record(pool, site, dispatch->dispatch_id, writes);
}

static wgprof_status record_in_pass(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                    const wgprof_dispatch_desc *dispatch, pass_at_site_fn record)
{
    if (!pool || !pass || !dispatch) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t site;
    wgprof_status s = wgprof__pool_site(pool, dispatch, &site);
    return s != WGPROF_OK ? s : record(pool, pass, site, dispatch->dispatch_id);
}

wgprof_status wgprof_pool_pass_writes(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch,
                                      WGPUPassTimestampWrites *writes)
{
    return record_writes(pool, dispatch, writes, wgprof__pool_pass_writes_site);
}

static wgprof_status need_inside(const wgprof_pool *pool)
{
    if (!pool->device->info.timestamp_inside_passes || !wgprof__ext_get()->pass_write_timestamp) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: the device has no in-pass timestamps; use the pass strategy");
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
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: wgprof_pool_begin called twice without wgprof_pool_end");
        return WGPROF_ERR_STATE;
    }
    uint32_t r;
    s = add_record(pool, site, dispatch_id, false, false, &r);
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

wgprof_status wgprof_pool_end(wgprof_pool *pool, WGPUComputePassEncoder pass)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->open_record) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: wgprof_pool_end without wgprof_pool_begin");
        return WGPROF_ERR_STATE;
    }
    uint32_t r = (uint32_t)batch_size(pool) - 1;
    write_timestamp(pass, pair_set(pool, r), pair_query(r) + 1);
    pool->slots[pool->count - 1].end_issued = 1;
    pool->open_record = false;
    return WGPROF_OK;
}

wgprof_status wgprof_pool_chain_begin(wgprof_pool *pool, WGPUComputePassEncoder pass)
{
    if (!pool || !pass) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof_status s = need_inside(pool);
    if (s != WGPROF_OK) {
        return s;
    }
    if (pool->resolved || pool->chain_open || batch_size(pool) > 0) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: a chain begins once per batch, before its first dispatch");
        return WGPROF_ERR_STATE;
    }
    write_timestamp(pass, pool->sets[0].set, 0);
    pool->chain_open = true;
    pool->batch_chained = true;
    pool->batch_cpu_encode_ns = wgprof__now_ns();
    return WGPROF_OK;
}

wgprof_status wgprof__pool_chain_next_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                           uint64_t dispatch_id)
{
    if (!pool->chain_open) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: wgprof_pool_chain_next without wgprof_pool_chain_begin");
        return WGPROF_ERR_STATE;
    }
    uint32_t r;
    wgprof_status s = add_record(pool, site, dispatch_id, true, true, &r);
    if (s != WGPROF_OK) {
        return s;
    }
    uint32_t set = r / WGPROF__CHAIN_PER_SET, query = r % WGPROF__CHAIN_PER_SET + 1;
    write_timestamp(pass, pool->sets[set].set, query);
    if (query == WGPROF__QUERIES_PER_SET - 1) {
        /* The set is full: the next set's chain starts where this one ends. */
        write_timestamp(pass, pool->sets[set + 1].set, 0);
    }
    return WGPROF_OK;
}

wgprof_status wgprof__pool_chain_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                                  WGPUPassTimestampWrites *writes)
{
    uint32_t r;
    wgprof_status s = add_record(pool, site, dispatch_id, true, true, &r);
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

uint32_t wgprof__records_per_set(bool chained) { return chained ? WGPROF__CHAIN_PER_SET : WGPROF__PAIRS_PER_SET; }

size_t wgprof__records_in_set(size_t records, bool chained, uint32_t i)
{
    size_t per_set = wgprof__records_per_set(chained), start = (size_t)i * per_set;
    if (records <= start) {
        return 0;
    }
    return records - start < per_set ? records - start : per_set;
}

uint32_t wgprof__queries_in_set(size_t records, bool chained, uint32_t i)
{
    size_t here = wgprof__records_in_set(records, chained, i);
    return (uint32_t)(!here ? 0 : chained ? here + 1 : 2 * here);
}

static uint32_t sets_used(size_t records, bool chained)
{
    size_t per_set = wgprof__records_per_set(chained);
    return (uint32_t)((records + per_set - 1) / per_set);
}

/* Readback buffers for sets [0, sets) of `frame`, created where missing. */
static wgprof_status frame_readbacks(wgprof_pool *pool, wgprof__frame *frame, uint32_t sets)
{
    if (sets <= frame->readback_count) {
        return WGPROF_OK;
    }
    WGPUBuffer *buffers = wgprof__grow(frame->readbacks, frame->readback_count * sizeof *buffers, sets * sizeof *buffers);
    if (!buffers) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    frame->readbacks = buffers;
    wgprof__waiter **maps = wgprof__grow(frame->maps, frame->readback_count * sizeof *maps, sets * sizeof *maps);
    if (!maps) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    frame->maps = maps;
    for (; frame->readback_count < sets; frame->readback_count++) {
        WGPUBufferDescriptor md = {0};
        md.label = (WGPUStringView){"wgprof readback", WGPU_STRLEN};
        md.size = WGPROF__QUERIES_PER_SET * sizeof(uint64_t);
        md.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
        buffers[frame->readback_count] = wgpuDeviceCreateBuffer(pool->device->device, &md);
        if (!buffers[frame->readback_count]) {
            wgprof__log(WGPROF_LOG_ERROR, "wgprof: creating a readback buffer failed");
            return WGPROF_ERR_WEBGPU;
        }
    }
    return WGPROF_OK;
}

bool wgprof__pool_frame_free(const wgprof_pool *pool)
{
    return pool->frames[pool->next_frame].state == WGPROF__FRAME_FREE;
}

wgprof_status wgprof_pool_resolve(wgprof_pool *pool, WGPUCommandEncoder encoder)
{
    if (!pool || !encoder) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (pool->resolved) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: resolve called twice before collect");
        return WGPROF_ERR_STATE;
    }
    size_t records = batch_size(pool);
    if (!wgprof__pool_frame_free(pool)) {
        /* Every frame is in flight: drop this batch, never the older ones, and never wait. */
        pool->dropped_batches++;
        pool->dropped_dispatches += records;
        wgprof__log(WGPROF_LOG_DEBUG, "wgprof: %u readback frames in flight; a batch of %zu dispatches dropped",
                    pool->ring, records);
        wgprof__pool_discard_batch(pool);
        return WGPROF_OK;
    }
    if (!pool->in_flight) {
        /* An empty ring starts over: blocking use keeps to one frame's buffers. */
        pool->next_frame = pool->oldest_frame = 0;
    }
    wgprof__frame *frame = &pool->frames[pool->next_frame];
    bool chained = pool->batch_chained;
    uint32_t sets = sets_used(records, chained);
    wgprof_status s = frame_readbacks(pool, frame, sets);
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&pool->batches, &pool->batch_cap, pool->batch_count + 1, sizeof *pool->batches, 16);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    for (uint32_t i = 0; i < sets; i++) {
        uint32_t used = wgprof__queries_in_set(records, chained, i);
        wgpuCommandEncoderResolveQuerySet(encoder, pool->sets[i].set, 0, used, pool->sets[i].resolve, 0);
        wgpuCommandEncoderCopyBufferToBuffer(encoder, pool->sets[i].resolve, 0, frame->readbacks[i], 0,
                                             used * sizeof(uint64_t));
    }
    uint64_t now = wgprof__now_ns();
    wgprof__batch *b = &pool->batches[pool->batch_count];
    memset(b, 0, sizeof *b);
    b->first = (uint32_t)pool->batch_first;
    b->count = (uint32_t)records;
    b->chained = chained;
    b->cpu_encode_ns = records || chained ? pool->batch_cpu_encode_ns : now;
    b->cpu_submit_ns = now; /* the submit comes later: an early but safe bound */
    frame->batch = pool->batch_count++;
    frame->sets_used = sets;
    frame->state = WGPROF__FRAME_RESOLVED;
    pool->next_frame = (pool->next_frame + 1) % pool->ring;
    pool->in_flight++;
    pool->resolved = true;
    pool->batch_first = pool->count;
    pool->open_record = false;
    pool->chain_open = false;
    pool->batch_chained = false;
    return WGPROF_OK;
}

void wgprof__pool_stamp_submit(wgprof_pool *pool, uint64_t encode_ns, uint64_t submit_ns, uint64_t submitted_ns)
{
    if (!pool->resolved) {
        return; /* the batch was dropped: nothing to stamp */
    }
    wgprof__batch *b = &pool->batches[pool->batch_count - 1];
    b->cpu_encode_ns = encode_ns;
    b->cpu_submit_ns = submit_ns;
    b->cpu_submitted_ns = submitted_ns;
}

/* ---- access ---- */

size_t wgprof_pool_count(const wgprof_pool *pool) { return pool ? pool->count : 0; }
size_t wgprof_pool_invalid_count(const wgprof_pool *pool) { return pool ? pool->invalid : 0; }
uint32_t wgprof_pool_iterations(const wgprof_pool *pool) { return pool ? pool->collected : 0; }
uint32_t wgprof_pool_in_flight(const wgprof_pool *pool) { return pool ? pool->in_flight : 0; }

uint64_t wgprof_pool_dropped(const wgprof_pool *pool, uint64_t *dispatches)
{
    if (dispatches) {
        *dispatches = pool ? pool->dropped_dispatches : 0;
    }
    return pool ? pool->dropped_batches : 0;
}

size_t wgprof_pool_capacity(const wgprof_pool *pool)
{
    if (!pool) {
        return 0;
    }
    return pool->max_dispatches ? pool->max_dispatches : (size_t)pool->set_count * WGPROF__PAIRS_PER_SET;
}

/* The CPU time of `ticks` through the clock fit; NAN without one. */
static double to_cpu_ns(const wgprof_pool *pool, uint64_t ticks, double period)
{
    const wgprof_clock_info *c = &pool->clock.info;
    if (!c->calibrated) {
        return NAN;
    }
    double since = (double)(int64_t)(ticks - c->ref_ticks) * period;
    return c->ref_cpu_ns + since * (1.0 + c->drift_ppm * 1e-6);
}

wgprof_status wgprof_pool_record(const wgprof_pool *pool, size_t index, wgprof_record *out)
{
    if (!pool || !out || index >= pool->count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const wgprof__slot *r = &pool->slots[index];
    const wgprof__site *site = &pool->sites[r->site];
    memset(out, 0, sizeof *out);
    out->index = (uint32_t)index;
    out->iteration = r->batch;
    out->dispatch_id = r->dispatch_id;
    out->kernel = pool->names[site->name];
    for (int k = 0; k < 3; k++) {
        out->workgroups[k] = site->workgroups[k];
        out->workgroup_size[k] = site->workgroup_size[k];
        out->global_size[k] = (uint64_t)site->workgroups[k] * site->workgroup_size[k];
    }
    bool resolved = r->batch < pool->batch_count;
    const wgprof__batch *b = resolved ? &pool->batches[r->batch] : NULL;
    bool chained = b ? b->chained : pool->batch_chained;
    uint32_t rel = (uint32_t)(index - (b ? b->first : pool->batch_first));
    uint32_t per_set = wgprof__records_per_set(chained);
    uint32_t begin = chained ? rel % per_set : pair_query(rel);
    /* Query indices across the pool's sets, as the resolve lays them out. */
    out->begin_query = (rel / per_set) * WGPROF__QUERIES_PER_SET + begin;
    out->end_query = out->begin_query + 1;
    out->bytes = site->bytes;
    out->flops = site->flops;
    out->invalid_reason = (wgprof_invalid_reason)r->reason;
    out->valid = r->reason == WGPROF_VALID;
    out->cpu_start_ns = out->cpu_end_ns = NAN;
    if (b && b->collected) {
        out->begin_ticks = r->begin;
        out->end_ticks = r->end;
        out->period_ns = b->period_ns;
    }
    if (out->valid) {
        double p = out->period_ns;
        out->start_ns = (double)(int64_t)(r->begin - pool->epoch) * p;
        out->end_ns = (double)(int64_t)(r->end - pool->epoch) * p;
        out->duration_ns = (double)(r->end - r->begin) * p;
        out->exclusive_ns = (double)(r->end - r->clamped_begin) * p;
        out->cpu_start_ns = to_cpu_ns(pool, r->begin, p);
        out->cpu_end_ns = to_cpu_ns(pool, r->end, p);
    }
    return WGPROF_OK;
}

uint32_t wgprof_pool_batches(const wgprof_pool *pool) { return pool ? pool->batch_count : 0; }

wgprof_status wgprof_pool_batch(const wgprof_pool *pool, uint32_t iteration, wgprof_batch_info *out)
{
    if (!pool || !out || iteration >= pool->batch_count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const wgprof__batch *b = &pool->batches[iteration];
    memset(out, 0, sizeof *out);
    out->iteration = iteration;
    out->first_record = b->first;
    out->records = b->count;
    out->collected = b->collected;
    out->waited = b->waited;
    out->chained = b->chained;
    out->period_ns = b->period_ns;
    out->cpu_encode_ns = b->cpu_encode_ns;
    out->cpu_submit_ns = b->cpu_submit_ns;
    out->cpu_submitted_ns = b->cpu_submitted_ns;
    out->cpu_ready_ns = b->cpu_ready_ns;
    return WGPROF_OK;
}

const char *wgprof_invalid_reason_str(wgprof_invalid_reason reason)
{
    switch (reason) {
    case WGPROF_VALID: return "valid";
    case WGPROF_INVALID_PENDING: return "pending";
    case WGPROF_INVALID_NOT_WRITTEN: return "not-written";
    case WGPROF_INVALID_ZERO: return "zero";
    case WGPROF_INVALID_BACKWARDS: return "backwards";
    case WGPROF_INVALID_MAP_FAILED: return "map-failed";
    case WGPROF_INVALID_DEVICE_LOST: return "device-lost";
    case WGPROF_INVALID_REASON_COUNT: break;
    }
    return "unknown";
}
