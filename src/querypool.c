/*
 * The query pool: one record per timed dispatch, the WebGPU query sets that hold their
 * timestamps, resolve + map readback, tick conversion and validation.
 *
 * GPU-side resources are reused by every batch (the dispatches between two collects): a batch
 * always starts at query 0 of the first set, so each set resolves from index 0 into offset 0 of
 * its own buffer and the 256-byte alignment rule of ResolveQuerySet always holds. Records
 * accumulate on the host across batches until reset.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "querypool_internal.h"

/* WebGPU caps a query set at 4096 queries; two per dispatch. */
enum { QUERIES_PER_SET = 4096, DISPATCHES_PER_SET = QUERIES_PER_SET / 2 };

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211ull; /* FNV-1a */
    }
    return h;
}

static const uint64_t HASH_SEED = 14695981039346656037ull;

/* ---- interning of kernel names and dispatch sites ---- */

static uint64_t site_hash(const wgprof__site *s)
{
    uint64_t h = HASH_SEED;
    h = hash_bytes(h, &s->name, sizeof s->name);
    h = hash_bytes(h, s->workgroups, sizeof s->workgroups);
    h = hash_bytes(h, s->workgroup_size, sizeof s->workgroup_size);
    h = hash_bytes(h, &s->bytes, sizeof s->bytes);
    h = hash_bytes(h, &s->flops, sizeof s->flops);
    return h;
}

static bool site_equal(const wgprof__site *a, const wgprof__site *b)
{
    return a->name == b->name && memcmp(a->workgroups, b->workgroups, sizeof a->workgroups) == 0 &&
           memcmp(a->workgroup_size, b->workgroup_size, sizeof a->workgroup_size) == 0 &&
           a->bytes == b->bytes && a->flops == b->flops;
}

/* Puts item `item` into the first free slot from its hash on (linear probing). */
static void index_insert(uint32_t *slots, uint32_t cap, uint64_t hash, uint32_t item)
{
    uint32_t mask = cap - 1;
    uint32_t j = (uint32_t)(hash & mask);
    while (slots[j]) {
        j = (j + 1) & mask;
    }
    slots[j] = item + 1;
}

/* Open-addressing index of `count` items; slots hold item index + 1, 0 is empty. */
static wgprof_status index_grow(uint32_t **slots, uint32_t *cap, uint32_t count,
                                uint64_t (*hash_of)(const wgprof_pool *, uint32_t),
                                const wgprof_pool *pool)
{
    if ((uint64_t)(count + 1) * 2 <= *cap) {
        return WGPROF_OK;
    }
    uint32_t ncap = *cap ? *cap * 2 : 64;
    uint32_t *n = wgprof__calloc(ncap, sizeof *n);
    if (!n) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < count; i++) {
        index_insert(n, ncap, hash_of(pool, i), i);
    }
    wgprof__free(*slots);
    *slots = n;
    *cap = ncap;
    return WGPROF_OK;
}

static uint64_t name_hash_at(const wgprof_pool *pool, uint32_t i)
{
    return hash_bytes(HASH_SEED, pool->names[i], strlen(pool->names[i]));
}

static uint64_t site_hash_at(const wgprof_pool *pool, uint32_t i)
{
    return site_hash(&pool->sites[i]);
}

static wgprof_status intern_name(wgprof_pool *pool, const char *name, uint32_t *out)
{
    uint64_t h = hash_bytes(HASH_SEED, name, strlen(name));
    if (pool->name_index_cap) {
        uint32_t mask = pool->name_index_cap - 1;
        for (uint32_t j = (uint32_t)(h & mask); pool->name_index[j]; j = (j + 1) & mask) {
            uint32_t i = pool->name_index[j] - 1;
            if (strcmp(pool->names[i], name) == 0) {
                *out = i;
                return WGPROF_OK;
            }
        }
    }
    if (pool->name_count == pool->name_cap) {
        uint32_t ncap = pool->name_cap ? pool->name_cap * 2 : 16;
        char **n = wgprof__grow(pool->names, pool->name_cap * sizeof *n, ncap * sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        pool->names = n;
        pool->name_cap = ncap;
    }
    char *copy = wgprof__strdup(name);
    if (!copy) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    pool->names[pool->name_count] = copy;
    wgprof_status s = index_grow(&pool->name_index, &pool->name_index_cap, pool->name_count + 1,
                                 name_hash_at, pool);
    if (s != WGPROF_OK) {
        pool->names[pool->name_count] = NULL;
        wgprof__free(copy);
        return s;
    }
    index_insert(pool->name_index, pool->name_index_cap, h, pool->name_count);
    *out = pool->name_count++;
    return WGPROF_OK;
}

wgprof_status wgprof__pool_site(wgprof_pool *pool, const wgprof_dispatch_desc *d, uint32_t *out)
{
    wgprof__site key = {0};
    wgprof_status s = intern_name(pool, d->kernel ? d->kernel : "unnamed", &key.name);
    if (s != WGPROF_OK) {
        return s;
    }
    for (int k = 0; k < 3; k++) {
        key.workgroups[k] = d->workgroups[k] ? d->workgroups[k] : 1;
        key.workgroup_size[k] = d->workgroup_size[k] ? d->workgroup_size[k] : 1;
    }
    key.bytes = d->bytes > 0 && isfinite(d->bytes) ? d->bytes : 0;
    key.flops = d->flops > 0 && isfinite(d->flops) ? d->flops : 0;
    uint64_t h = site_hash(&key);
    if (pool->site_index_cap) {
        uint32_t mask = pool->site_index_cap - 1;
        for (uint32_t j = (uint32_t)(h & mask); pool->site_index[j]; j = (j + 1) & mask) {
            uint32_t i = pool->site_index[j] - 1;
            if (site_equal(&pool->sites[i], &key)) {
                *out = i;
                return WGPROF_OK;
            }
        }
    }
    if (pool->site_count == pool->site_cap) {
        uint32_t ncap = pool->site_cap ? pool->site_cap * 2 : 16;
        wgprof__site *n = wgprof__grow(pool->sites, pool->site_cap * sizeof *n, ncap * sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        pool->sites = n;
        pool->site_cap = ncap;
    }
    pool->sites[pool->site_count] = key;
    s = index_grow(&pool->site_index, &pool->site_index_cap, pool->site_count + 1, site_hash_at, pool);
    if (s != WGPROF_OK) {
        return s;
    }
    index_insert(pool->site_index, pool->site_index_cap, h, pool->site_count);
    *out = pool->site_count++;
    return WGPROF_OK;
}

/* ---- creation, capacity ---- */

static wgprof_status add_query_set(wgprof_pool *pool)
{
    if (pool->set_count == pool->set_cap) {
        uint32_t ncap = pool->set_cap ? pool->set_cap * 2 : 4;
        wgprof__qset *n = wgprof__grow(pool->sets, pool->set_cap * sizeof *n, ncap * sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        pool->sets = n;
        pool->set_cap = ncap;
    }
    WGPUDevice dev = pool->device->device;
    wgprof__qset *q = &pool->sets[pool->set_count];
    WGPUQuerySetDescriptor qd = {0};
    qd.label = (WGPUStringView){"wgprof timestamps", WGPU_STRLEN};
    qd.type = WGPUQueryType_Timestamp;
    qd.count = QUERIES_PER_SET;
    q->set = wgpuDeviceCreateQuerySet(dev, &qd);
    WGPUBufferDescriptor rd = {0};
    rd.label = (WGPUStringView){"wgprof resolve", WGPU_STRLEN};
    rd.size = QUERIES_PER_SET * sizeof(uint64_t);
    rd.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    q->resolve = wgpuDeviceCreateBuffer(dev, &rd);
    WGPUBufferDescriptor md = {0};
    md.label = (WGPUStringView){"wgprof readback", WGPU_STRLEN};
    md.size = rd.size;
    md.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    q->readback = wgpuDeviceCreateBuffer(dev, &md);
    if (!q->set || !q->resolve || !q->readback) {
        if (q->set) wgpuQuerySetRelease(q->set);
        if (q->resolve) wgpuBufferRelease(q->resolve);
        if (q->readback) wgpuBufferRelease(q->readback);
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
    uint64_t need_sets = (batch_size(pool) + count + DISPATCHES_PER_SET - 1) / DISPATCHES_PER_SET;
    while (pool->set_count < need_sets) {
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
    uint32_t initial = desc->initial_capacity ? desc->initial_capacity : 256;
    if (pool->max_dispatches && initial > pool->max_dispatches) {
        initial = pool->max_dispatches;
    }
    wgprof_status s = wgprof_pool_reserve(pool, initial);
    if (s != WGPROF_OK) {
        wgprof_pool_destroy(pool);
        return s;
    }
    *out = pool;
    return WGPROF_OK;
}

static void free_names(wgprof_pool *pool)
{
    for (uint32_t i = 0; i < pool->name_count; i++) {
        wgprof__free(pool->names[i]);
    }
    pool->name_count = 0;
    pool->site_count = 0;
    if (pool->name_index) {
        memset(pool->name_index, 0, pool->name_index_cap * sizeof *pool->name_index);
    }
    if (pool->site_index) {
        memset(pool->site_index, 0, pool->site_index_cap * sizeof *pool->site_index);
    }
}

void wgprof_pool_destroy(wgprof_pool *pool)
{
    if (!pool) {
        return;
    }
    for (uint32_t i = 0; i < pool->set_count; i++) {
        wgpuQuerySetRelease(pool->sets[i].set);
        wgpuBufferRelease(pool->sets[i].resolve);
        wgpuBufferRelease(pool->sets[i].readback);
    }
    free_names(pool);
    wgprof__free(pool->sets);
    wgprof__free(pool->slots);
    wgprof__free(pool->names);
    wgprof__free(pool->name_index);
    wgprof__free(pool->sites);
    wgprof__free(pool->site_index);
    wgprof__free(pool->iters);
    wgprof__free(pool);
}

void wgprof_pool_reset(wgprof_pool *pool)
{
    if (!pool) {
        return;
    }
    free_names(pool);
    pool->count = 0;
    pool->batch_first = 0;
    pool->invalid = 0;
    pool->iterations = 0;
    pool->resolved = false;
    pool->open_record = false;
    pool->have_epoch = false;
    pool->epoch = 0;
    pool->generation++;
}

void wgprof__pool_discard_batch(wgprof_pool *pool)
{
    pool->count = pool->batch_first;
    pool->resolved = false;
    pool->open_record = false;
}

/* ---- recording ---- */

static wgprof_status add_record(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id, uint32_t *query)
{
    if (pool->resolved) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: a dispatch was recorded after resolve and before collect");
        return WGPROF_ERR_STATE;
    }
    wgprof_status s = wgprof_pool_reserve(pool, 1);
    if (s != WGPROF_OK) {
        return s;
    }
    wgprof__slot *r = &pool->slots[pool->count];
    memset(r, 0, sizeof *r);
    r->site = site;
    r->dispatch_id = dispatch_id ? dispatch_id : pool->count;
    r->iteration = pool->iterations;
    r->reason = WGPROF_INVALID_PENDING;
    *query = (uint32_t)(2 * batch_size(pool));
    pool->count++;
    return WGPROF_OK;
}

wgprof_status wgprof__pool_pass_writes_site(wgprof_pool *pool, uint32_t site, uint64_t dispatch_id,
                                            WGPUPassTimestampWrites *writes)
{
    uint32_t q;
    wgprof_status s = add_record(pool, site, dispatch_id, &q);
    if (s != WGPROF_OK) {
        return s;
    }
    pool->slots[pool->count - 1].end_issued = 1;
    memset(writes, 0, sizeof *writes);
    writes->querySet = pool->sets[q / QUERIES_PER_SET].set;
    writes->beginningOfPassWriteIndex = q % QUERIES_PER_SET;
    writes->endOfPassWriteIndex = q % QUERIES_PER_SET + 1;
    return WGPROF_OK;
}

wgprof_status wgprof_pool_pass_writes(wgprof_pool *pool, const wgprof_dispatch_desc *dispatch,
                                      WGPUPassTimestampWrites *writes)
{
    if (!pool || !dispatch || !writes) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t site;
    wgprof_status s = wgprof__pool_site(pool, dispatch, &site);
    return s != WGPROF_OK ? s : wgprof__pool_pass_writes_site(pool, site, dispatch->dispatch_id, writes);
}

wgprof_status wgprof__pool_begin_site(wgprof_pool *pool, WGPUComputePassEncoder pass, uint32_t site,
                                      uint64_t dispatch_id)
{
    const wgprof__ext *ext = wgprof__ext_get();
    if (!pool->device->info.timestamp_inside_passes || !ext->pass_write_timestamp) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: the device has no in-pass timestamps; use the pass strategy");
        return WGPROF_ERR_UNAVAILABLE;
    }
    if (pool->open_record) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: wgprof_pool_begin called twice without wgprof_pool_end");
        return WGPROF_ERR_STATE;
    }
    uint32_t q;
    wgprof_status s = add_record(pool, site, dispatch_id, &q);
    if (s != WGPROF_OK) {
        return s;
    }
    ext->pass_write_timestamp(pass, pool->sets[q / QUERIES_PER_SET].set, q % QUERIES_PER_SET);
    pool->open_record = true;
    return WGPROF_OK;
}

wgprof_status wgprof_pool_begin(wgprof_pool *pool, WGPUComputePassEncoder pass,
                                const wgprof_dispatch_desc *dispatch)
{
    if (!pool || !pass || !dispatch) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t site;
    wgprof_status s = wgprof__pool_site(pool, dispatch, &site);
    return s != WGPROF_OK ? s : wgprof__pool_begin_site(pool, pass, site, dispatch->dispatch_id);
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
    uint32_t q = (uint32_t)(2 * (batch_size(pool) - 1)) + 1;
    wgprof__ext_get()->pass_write_timestamp(pass, pool->sets[q / QUERIES_PER_SET].set, q % QUERIES_PER_SET);
    pool->slots[pool->count - 1].end_issued = 1;
    pool->open_record = false;
    return WGPROF_OK;
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
    uint32_t queries = (uint32_t)(2 * batch_size(pool));
    for (uint32_t i = 0; queries > i * QUERIES_PER_SET; i++) {
        uint32_t used = queries - i * QUERIES_PER_SET;
        if (used > QUERIES_PER_SET) {
            used = QUERIES_PER_SET;
        }
        wgpuCommandEncoderResolveQuerySet(encoder, pool->sets[i].set, 0, used, pool->sets[i].resolve, 0);
        wgpuCommandEncoderCopyBufferToBuffer(encoder, pool->sets[i].resolve, 0, pool->sets[i].readback, 0,
                                             used * sizeof(uint64_t));
    }
    pool->resolved = true;
    return WGPROF_OK;
}

/* ---- readback and validation ---- */

wgprof_invalid_reason wgprof__classify(const wgprof__reading *r)
{
    if (!r->end_issued || (r->begin == 0 && r->end == 0)) {
        return WGPROF_INVALID_NOT_WRITTEN;
    }
    if (r->begin == 0 || r->end == 0) {
        return WGPROF_INVALID_ZERO;
    }
    if (r->end < r->begin) {
        return WGPROF_INVALID_BACKWARDS;
    }
    return WGPROF_VALID;
}

void wgprof__take_readings(wgprof_pool *pool, size_t first, size_t count, const uint64_t *ticks, uint64_t *max_end)
{
    /* One pass over the readback: validate each reading, then clamp its begin to the largest
     * end seen so far in the batch, in submission order, so that passes the driver overlapped
     * are not counted twice. */
    for (size_t r = 0; r < count; r++) {
        wgprof__slot *slot = &pool->slots[first + r];
        wgprof__reading reading = {ticks[2 * r], ticks[2 * r + 1], slot->end_issued};
        slot->begin = reading.begin;
        slot->end = reading.end;
        slot->reason = (uint8_t)wgprof__classify(&reading);
        if (slot->reason != WGPROF_VALID) {
            pool->invalid++;
            continue;
        }
        uint64_t b = reading.begin > *max_end ? reading.begin : *max_end;
        slot->clamped_begin = b < reading.end ? b : reading.end;
        *max_end = reading.end > *max_end ? reading.end : *max_end;
        if (!pool->have_epoch || reading.begin < pool->epoch) {
            pool->epoch = reading.begin;
            pool->have_epoch = true;
        }
    }
}

static wgprof_status push_iteration(wgprof_pool *pool, double period)
{
    if (pool->iterations == pool->iter_cap) {
        uint32_t ncap = pool->iter_cap ? pool->iter_cap * 2 : 16;
        wgprof__iter *n = wgprof__grow(pool->iters, pool->iter_cap * sizeof *n, ncap * sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        pool->iters = n;
        pool->iter_cap = ncap;
    }
    pool->iters[pool->iterations] = (wgprof__iter){period, (uint32_t)pool->batch_first};
    return WGPROF_OK;
}

wgprof_status wgprof_pool_collect(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->resolved) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: collect called before resolve");
        return WGPROF_ERR_STATE;
    }
    /* Reserve the iteration entry first, so that running out of memory loses nothing. The
     * period is read at every collect, since an implementation may change it at run time. */
    wgprof_status s = push_iteration(pool, wgprof_device_timestamp_period(pool->device));
    if (s != WGPROF_OK) {
        return s;
    }
    size_t first = pool->batch_first;
    uint32_t queries = (uint32_t)(2 * (pool->count - first));
    wgprof_status result = WGPROF_OK;
    uint64_t max_end = 0;
    for (uint32_t i = 0; queries > i * QUERIES_PER_SET; i++) {
        uint32_t used = queries - i * QUERIES_PER_SET;
        if (used > QUERIES_PER_SET) {
            used = QUERIES_PER_SET;
        }
        size_t r0 = first + (size_t)i * DISPATCHES_PER_SET, r1 = r0 + used / 2;
        s = wgprof__map_read(pool->device, pool->sets[i].readback, 0, used * sizeof(uint64_t));
        if (s == WGPROF_OK) {
            const uint64_t *ticks = wgpuBufferGetConstMappedRange(pool->sets[i].readback, 0,
                                                                  used * sizeof(uint64_t));
            if (!ticks) {
                s = WGPROF_ERR_MAP_FAILED;
            } else {
                wgprof__take_readings(pool, r0, r1 - r0, ticks, &max_end);
            }
            wgpuBufferUnmap(pool->sets[i].readback);
        }
        if (s != WGPROF_OK) {
            uint8_t reason = (uint8_t)(s == WGPROF_ERR_DEVICE_LOST ? WGPROF_INVALID_DEVICE_LOST
                                                                   : WGPROF_INVALID_MAP_FAILED);
            for (size_t r = r0; r < r1; r++) {
                pool->slots[r].reason = reason;
            }
            pool->invalid += r1 - r0;
            if (result == WGPROF_OK) {
                result = s;
            }
        }
    }
    pool->iterations++;
    pool->batch_first = pool->count;
    pool->resolved = false;
    pool->open_record = false;
    return result;
}

/* ---- access ---- */

size_t wgprof_pool_count(const wgprof_pool *pool) { return pool ? pool->count : 0; }
size_t wgprof_pool_invalid_count(const wgprof_pool *pool) { return pool ? pool->invalid : 0; }
uint32_t wgprof_pool_iterations(const wgprof_pool *pool) { return pool ? pool->iterations : 0; }

size_t wgprof_pool_capacity(const wgprof_pool *pool)
{
    if (!pool) {
        return 0;
    }
    return pool->max_dispatches ? pool->max_dispatches : (size_t)pool->set_count * DISPATCHES_PER_SET;
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
    out->iteration = r->iteration;
    out->dispatch_id = r->dispatch_id;
    out->kernel = pool->names[site->name];
    for (int k = 0; k < 3; k++) {
        out->workgroups[k] = site->workgroups[k];
        out->workgroup_size[k] = site->workgroup_size[k];
        out->global_size[k] = (uint64_t)site->workgroups[k] * site->workgroup_size[k];
    }
    size_t batch_first = r->iteration < pool->iterations ? pool->iters[r->iteration].first : pool->batch_first;
    uint32_t q = (uint32_t)(2 * (index - batch_first));
    out->begin_query = q;
    out->end_query = q + 1;
    out->bytes = site->bytes;
    out->flops = site->flops;
    out->invalid_reason = (wgprof_invalid_reason)r->reason;
    out->valid = r->reason == WGPROF_VALID;
    if (r->iteration < pool->iterations) {
        out->begin_ticks = r->begin;
        out->end_ticks = r->end;
        out->period_ns = pool->iters[r->iteration].period_ns;
    }
    if (out->valid) {
        double p = out->period_ns;
        out->start_ns = (double)(int64_t)(r->begin - pool->epoch) * p;
        out->end_ns = (double)(int64_t)(r->end - pool->epoch) * p;
        out->duration_ns = (double)(r->end - r->begin) * p;
        out->exclusive_ns = (double)(r->end - r->clamped_begin) * p;
    }
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
