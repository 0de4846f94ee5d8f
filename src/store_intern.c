/*
 * Interning for the results store: kernel names, dispatch sites (a name with its sizes and
 * efficiency figures) and scope nodes (a scope name under its parent), each deduplicated
 * through an open-addressing hash index, so that a record stores a small index and repeated
 * executes of a graph add no strings.
 */
#include <math.h>
#include <string.h>

#include "store_internal.h"

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

typedef uint64_t (*hash_at_fn)(const wgprof__store *store, uint32_t item);

static uint64_t name_hash_at(const wgprof__store *store, uint32_t i) { return name_hash(store->names[i]); }
static uint64_t site_hash_at(const wgprof__store *store, uint32_t i) { return site_hash(&store->sites[i]); }
static uint64_t scope_node_hash_at(const wgprof__store *store, uint32_t i)
{
    return scope_node_hash(&store->scope_nodes[i]);
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
                                  const wgprof__store *store)
{
    if ((uint64_t)(count + 1) * 2 > *ix.cap) {
        uint32_t ncap = *ix.cap ? *ix.cap * 2 : 64;
        uint32_t *n = wgprof__calloc(ncap, sizeof *n);
        if (!n) {
            return WGPROF_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t i = 0; i < count; i++) {
            index_put(n, ncap, hash_at(store, i), i);
        }
        wgprof__free(*ix.slots);
        *ix.slots = n;
        *ix.cap = ncap;
    }
    index_put(*ix.slots, *ix.cap, hash, count);
    return WGPROF_OK;
}

typedef bool (*equal_fn)(const wgprof__store *store, uint32_t item, const void *key);

/* The first item from `hash` on that `equal` accepts, or WGPROF__NONE. */
static uint32_t index_find(const uint32_t *slots, uint32_t cap, uint64_t hash, equal_fn equal, const wgprof__store *store,
                           const void *key)
{
    if (!cap) {
        return WGPROF__NONE;
    }
    uint32_t mask = cap - 1;
    for (uint32_t j = (uint32_t)(hash & mask); slots[j]; j = (j + 1) & mask) {
        if (equal(store, slots[j] - 1, key)) {
            return slots[j] - 1;
        }
    }
    return WGPROF__NONE;
}

static bool name_equal(const wgprof__store *store, uint32_t i, const void *key)
{
    return strcmp(store->names[i], key) == 0;
}

static bool site_equal_at(const wgprof__store *store, uint32_t i, const void *key)
{
    return site_equal(&store->sites[i], key);
}

static bool scope_node_equal(const wgprof__store *store, uint32_t i, const void *key)
{
    const wgprof__scope_node *k = key;
    return store->scope_nodes[i].name == k->name && store->scope_nodes[i].parent == k->parent;
}

wgprof_status wgprof__intern_name(wgprof__store *store, const char *name, uint32_t *out)
{
    uint64_t h = name_hash(name);
    uint32_t found = index_find(store->name_index, store->name_index_cap, h, name_equal, store, name);
    if (found != WGPROF__NONE) {
        *out = found;
        return WGPROF_OK;
    }
    wgprof_status s = wgprof__reserve((void **)&store->names, &store->name_cap, store->name_count + 1,
                                      sizeof *store->names, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    char *copy = wgprof__strdup(name);
    if (!copy) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    store->names[store->name_count] = copy;
    s = index_insert((hash_index){&store->name_index, &store->name_index_cap}, store->name_count, h, name_hash_at, store);
    if (s != WGPROF_OK) {
        store->names[store->name_count] = NULL;
        wgprof__free(copy);
        return s;
    }
    *out = store->name_count++;
    return WGPROF_OK;
}

wgprof_status wgprof__store_name_source(wgprof__store *store, const char *name, const char *source)
{
    uint32_t named, from = WGPROF__NONE;
    wgprof_status s = wgprof__intern_name(store, name, &named);
    if (s == WGPROF_OK && source) {
        s = wgprof__intern_name(store, source, &from);
    }
    if (s == WGPROF_OK && named >= store->source_count) {
        s = wgprof__reserve((void **)&store->sources, &store->source_cap, named + 1, sizeof *store->sources, 16);
        for (uint32_t i = store->source_count; s == WGPROF_OK && i <= named; i++) {
            store->sources[i] = WGPROF__NONE;
        }
        store->source_count = s == WGPROF_OK ? named + 1 : store->source_count;
    }
    if (s == WGPROF_OK) {
        store->sources[named] = from;
    }
    return s;
}

const char *wgprof__store_source(const wgprof__store *store, uint32_t name)
{
    uint32_t from = name < store->source_count ? store->sources[name] : WGPROF__NONE;
    return from == WGPROF__NONE ? NULL : store->names[from];
}

wgprof_status wgprof__store_site(wgprof__store *store, const wgprof_dispatch_desc *d, uint32_t *out)
{
    wgprof__site key = {0};
    wgprof_status s = wgprof__intern_name(store, d->kernel ? d->kernel : "unnamed", &key.name);
    if (s != WGPROF_OK) {
        return s;
    }
    /* Workgroup counts or a workgroup size of all zeros are unknown (an indirect dispatch's
     * counts live on the GPU) and stay so: reports never show a guess. */
    bool groups_known = d->workgroups[0] || d->workgroups[1] || d->workgroups[2];
    bool size_known = d->workgroup_size[0] || d->workgroup_size[1] || d->workgroup_size[2];
    for (int k = 0; k < 3; k++) {
        key.workgroups[k] = d->workgroups[k] ? d->workgroups[k] : groups_known;
        key.workgroup_size[k] = d->workgroup_size[k] ? d->workgroup_size[k] : size_known;
    }
    key.bytes = d->bytes > 0 && isfinite(d->bytes) ? d->bytes : 0;
    key.flops = d->flops > 0 && isfinite(d->flops) ? d->flops : 0;
    uint64_t h = site_hash(&key);
    uint32_t found = index_find(store->site_index, store->site_index_cap, h, site_equal_at, store, &key);
    if (found != WGPROF__NONE) {
        *out = found;
        return WGPROF_OK;
    }
    s = wgprof__reserve((void **)&store->sites, &store->site_cap, store->site_count + 1, sizeof *store->sites, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    store->sites[store->site_count] = key;
    s = index_insert((hash_index){&store->site_index, &store->site_index_cap}, store->site_count, h, site_hash_at, store);
    if (s != WGPROF_OK) {
        return s;
    }
    *out = store->site_count++;
    return WGPROF_OK;
}

wgprof_status wgprof__intern_scope_node(wgprof__store *store, uint32_t parent, uint32_t name, uint32_t *out)
{
    wgprof__scope_node key = {name, parent, parent == WGPROF__NONE ? 0 : store->scope_nodes[parent].depth + 1};
    uint64_t h = scope_node_hash(&key);
    uint32_t found = index_find(store->scope_node_index, store->scope_node_index_cap, h, scope_node_equal, store, &key);
    if (found != WGPROF__NONE) {
        *out = found;
        return WGPROF_OK;
    }
    wgprof_status s = wgprof__reserve((void **)&store->scope_nodes, &store->scope_node_cap, store->scope_node_count + 1,
                                      sizeof *store->scope_nodes, 16);
    if (s != WGPROF_OK) {
        return s;
    }
    store->scope_nodes[store->scope_node_count] = key;
    s = index_insert((hash_index){&store->scope_node_index, &store->scope_node_index_cap}, store->scope_node_count, h,
                     scope_node_hash_at, store);
    if (s != WGPROF_OK) {
        return s;
    }
    *out = store->scope_node_count++;
    return WGPROF_OK;
}

void wgprof__forget_interned(wgprof__store *store)
{
    for (uint32_t i = 0; i < store->name_count; i++) {
        wgprof__free(store->names[i]);
    }
    store->name_count = 0;
    store->source_count = 0;
    store->site_count = 0;
    store->scope_node_count = 0;
    uint32_t *indexes[] = {store->name_index, store->site_index, store->scope_node_index};
    uint32_t caps[] = {store->name_index_cap, store->site_index_cap, store->scope_node_index_cap};
    for (int i = 0; i < 3; i++) {
        if (indexes[i]) {
            memset(indexes[i], 0, caps[i] * sizeof *indexes[i]);
        }
    }
}

void wgprof__free_interned(wgprof__store *store)
{
    wgprof__forget_interned(store);
    wgprof__free(store->names);
    wgprof__free(store->sources);
    wgprof__free(store->name_index);
    wgprof__free(store->sites);
    wgprof__free(store->site_index);
    wgprof__free(store->scope_nodes);
    wgprof__free(store->scope_node_index);
}

const wgprof__site *wgprof__store_site_at(const wgprof__store *store, uint32_t site) { return &store->sites[site]; }
const wgprof__site *wgprof__store_sites(const wgprof__store *store) { return store->sites; }
uint32_t wgprof__store_site_count(const wgprof__store *store) { return store->site_count; }
uint32_t wgprof__store_name_count(const wgprof__store *store) { return store->name_count; }
const char *wgprof__store_name(const wgprof__store *store, uint32_t name) { return store->names[name]; }
