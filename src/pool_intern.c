/*
 * Interning for the query pool: kernel names, dispatch sites (a name with its sizes and
 * efficiency figures) and scope nodes (a scope name under its parent), each deduplicated
 * through an open-addressing hash index, so that a record stores a small index and repeated
 * executes of a graph add no strings.
 */
#include <math.h>
#include <string.h>

#include "querypool_internal.h"

wgprof_status wgprof__reserve(void **array, uint32_t *cap, uint32_t need, size_t size, uint32_t initial)
{
    if (need <= *cap) {
        return WGPROF_OK;
    }
    uint64_t ncap = *cap ? *cap : initial;
    while (ncap < need) {
        ncap *= 2;
    }
    if (ncap > UINT32_MAX) {
        return WGPROF_ERR_CAPACITY;
    }
    void *n = wgprof__grow(*array, (size_t)*cap * size, (size_t)ncap * size);
    if (!n) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    *array = n;
    *cap = (uint32_t)ncap;
    return WGPROF_OK;
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211ull; /* FNV-1a */
    }
    return h;
}

static const uint64_t HASH_SEED = 14695981039346656037ull;

static uint64_t name_hash(const char *name) { return hash_bytes(HASH_SEED, name, strlen(name)); }

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

static uint64_t scope_node_hash(const wgprof__scope_node *n)
{
    uint64_t h = hash_bytes(HASH_SEED, &n->name, sizeof n->name);
    return hash_bytes(h, &n->parent, sizeof n->parent);
}

static bool site_equal(const wgprof__site *a, const wgprof__site *b)
{
    return a->name == b->name && memcmp(a->workgroups, b->workgroups, sizeof a->workgroups) == 0 &&
           memcmp(a->workgroup_size, b->workgroup_size, sizeof a->workgroup_size) == 0 &&
           a->bytes == b->bytes && a->flops == b->flops;
}

/* An index over `count` items: slots hold item index + 1, 0 is empty. */
typedef struct hash_index {
    uint32_t **slots;
    uint32_t *cap;
} hash_index;

typedef uint64_t (*hash_at_fn)(const wgprof_pool *pool, uint32_t item);

static uint64_t name_hash_at(const wgprof_pool *pool, uint32_t i) { return name_hash(pool->names[i]); }
static uint64_t site_hash_at(const wgprof_pool *pool, uint32_t i) { return site_hash(&pool->sites[i]); }
static uint64_t scope_node_hash_at(const wgprof_pool *pool, uint32_t i)
{
    return scope_node_hash(&pool->scope_nodes[i]);
}

static void index_put(uint32_t *slots, uint32_t cap, uint64_t hash, uint32_t item)
{
    uint32_t mask = cap - 1;
    uint32_t j = (uint32_t)(hash & mask);
    while (slots[j]) {
        j = (j + 1) & mask;
    }
    slots[j] = item + 1;
}

/* Adds item `count` (hash `hash`) to an index of `count` items, growing it to stay at most half
 * full. On failure the index is unchanged. */
static wgprof_status index_insert(hash_index ix, uint32_t count, uint64_t hash, hash_at_fn hash_at,
                                  const wgprof_pool *pool)
{
    if ((uint64_t)(count + 1) * 2 > *ix.cap) {
        uint32_t ncap = *ix.cap ? *ix.cap * 2 : 64;
        uint32_t *n = wgprof__calloc(ncap, sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t i = 0; i < count; i++) {
            index_put(n, ncap, hash_at(pool, i), i);
        }
        wgprof__free(*ix.slots);
        *ix.slots = n;
        *ix.cap = ncap;
    }
    index_put(*ix.slots, *ix.cap, hash, count);
    return WGPROF_OK;
}

typedef bool (*equal_fn)(const wgprof_pool *pool, uint32_t item, const void *key);

/* The first item from `hash` on that `equal` accepts, or WGPROF__NONE. */
static uint32_t index_find(const uint32_t *slots, uint32_t cap, uint64_t hash, equal_fn equal, const wgprof_pool *pool,
                           const void *key)
{
    if (!cap) {
        return WGPROF__NONE;
    }
    uint32_t mask = cap - 1;
    for (uint32_t j = (uint32_t)(hash & mask); slots[j]; j = (j + 1) & mask) {
        if (equal(pool, slots[j] - 1, key)) {
            return slots[j] - 1;
        }
    }
    return WGPROF__NONE;
}

static bool name_equal(const wgprof_pool *pool, uint32_t i, const void *key)
{
    return strcmp(pool->names[i], key) == 0;
}

static bool site_equal_at(const wgprof_pool *pool, uint32_t i, const void *key)
{
    return site_equal(&pool->sites[i], key);
}

static bool scope_node_equal(const wgprof_pool *pool, uint32_t i, const void *key)
{
    const wgprof__scope_node *k = key;
    return pool->scope_nodes[i].name == k->name && pool->scope_nodes[i].parent == k->parent;
}

wgprof_status wgprof__intern_name(wgprof_pool *pool, const char *name, uint32_t *out)
{
    uint64_t h = name_hash(name);
    uint32_t found = index_find(pool->name_index, pool->name_index_cap, h, name_equal, pool, name);
    if (found != WGPROF__NONE) {
        *out = found;
        return WGPROF_OK;
    }
    wgprof_status s = wgprof__reserve((void **)&pool->names, &pool->name_cap, pool->name_count + 1,
                                      sizeof *pool->names, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    char *copy = wgprof__strdup(name);
    if (!copy) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    pool->names[pool->name_count] = copy;
    s = index_insert((hash_index){&pool->name_index, &pool->name_index_cap}, pool->name_count, h, name_hash_at, pool);
    if (s != WGPROF_OK) {
        pool->names[pool->name_count] = NULL;
        wgprof__free(copy);
        return s;
    }
    *out = pool->name_count++;
    return WGPROF_OK;
}

wgprof_status wgprof__pool_site(wgprof_pool *pool, const wgprof_dispatch_desc *d, uint32_t *out)
{
    wgprof__site key = {0};
    wgprof_status s = wgprof__intern_name(pool, d->kernel ? d->kernel : "unnamed", &key.name);
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
    uint32_t found = index_find(pool->site_index, pool->site_index_cap, h, site_equal_at, pool, &key);
    if (found != WGPROF__NONE) {
        *out = found;
        return WGPROF_OK;
    }
    s = wgprof__reserve((void **)&pool->sites, &pool->site_cap, pool->site_count + 1, sizeof *pool->sites, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    pool->sites[pool->site_count] = key;
    s = index_insert((hash_index){&pool->site_index, &pool->site_index_cap}, pool->site_count, h, site_hash_at, pool);
    if (s != WGPROF_OK) {
        return s;
    }
    *out = pool->site_count++;
    return WGPROF_OK;
}

wgprof_status wgprof__intern_scope_node(wgprof_pool *pool, uint32_t parent, uint32_t name, uint32_t *out)
{
    wgprof__scope_node key = {name, parent, parent == WGPROF__NONE ? 0 : pool->scope_nodes[parent].depth + 1};
    uint64_t h = scope_node_hash(&key);
    uint32_t found = index_find(pool->scope_node_index, pool->scope_node_index_cap, h, scope_node_equal, pool, &key);
    if (found != WGPROF__NONE) {
        *out = found;
        return WGPROF_OK;
    }
    wgprof_status s = wgprof__reserve((void **)&pool->scope_nodes, &pool->scope_node_cap, pool->scope_node_count + 1,
                                      sizeof *pool->scope_nodes, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    pool->scope_nodes[pool->scope_node_count] = key;
    s = index_insert((hash_index){&pool->scope_node_index, &pool->scope_node_index_cap}, pool->scope_node_count, h,
                     scope_node_hash_at, pool);
    if (s != WGPROF_OK) {
        return s;
    }
    *out = pool->scope_node_count++;
    return WGPROF_OK;
}

void wgprof__forget_interned(wgprof_pool *pool)
{
    for (uint32_t i = 0; i < pool->name_count; i++) {
        wgprof__free(pool->names[i]);
    }
    pool->name_count = 0;
    pool->site_count = 0;
    pool->scope_node_count = 0;
    uint32_t *indexes[] = {pool->name_index, pool->site_index, pool->scope_node_index};
    uint32_t caps[] = {pool->name_index_cap, pool->site_index_cap, pool->scope_node_index_cap};
    for (int i = 0; i < 3; i++) {
        if (indexes[i]) {
            memset(indexes[i], 0, caps[i] * sizeof *indexes[i]);
        }
    }
}

void wgprof__free_interned(wgprof_pool *pool)
{
    wgprof__forget_interned(pool);
    wgprof__free(pool->names);
    wgprof__free(pool->name_index);
    wgprof__free(pool->sites);
    wgprof__free(pool->site_index);
    wgprof__free(pool->scope_nodes);
    wgprof__free(pool->scope_node_index);
}
