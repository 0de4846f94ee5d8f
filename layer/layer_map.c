/* A map from a 64-bit handle (never 0) to a pointer: open addressing, tombstones on removal.
 * Updates (put, take, each, free) are its owner's to serialise; a get may run beside them, on
 * any thread, without a lock: a table once published is never changed in a way that hides a
 * key from a probe (a slot goes from empty to a key, a key to a tombstone or back to a key, and
 * a tombstone back to empty only where the slot after it is empty, so that no key's probe runs
 * through it), and a table outgrown stays allocated, read-only, until the map is freed. A get
 * returns the value of the put that happens before it: what Vulkan's external synchronisation
 * of a handle gives every hook looking up the handle it was called with.
 *
 * A program that makes and frees handles all along (a command buffer or a fence a submit) leaves
 * the map as large as what it holds at once: the tombstones at a run's end go back to empty as
 * they are made, and a table is remade at the size its keys need, not twice the last. */
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "layer_map.h"

static const uint64_t TOMBSTONE = UINT64_MAX;

static size_t slot_of(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static wgprof_layer_map_table *table_of(const wgprof_layer_map *map)
{
    return atomic_load_explicit(&((wgprof_layer_map *)map)->table, memory_order_acquire);
}

void *wgprof_layer_map_get(const wgprof_layer_map *map, uint64_t key)
{
    wgprof_layer_map_table *t = table_of(map);
    if (!t || !key) {
        return NULL;
    }
    for (size_t i = slot_of(key, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
        uint64_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (k == key) {
            return atomic_load_explicit(&t->slots[i].value, memory_order_acquire);
        }
        if (!k) {
            return NULL;
        }
    }
    return NULL;
}

/* Writes a slot: the value first, so that a get finding the key finds its value. */
static void slot_set(wgprof_layer_map_slot *s, uint64_t key, void *value)
{
    atomic_store_explicit(&s->value, value, memory_order_release);
    atomic_store_explicit(&s->key, key, memory_order_release);
}

static bool grow(wgprof_layer_map *map)
{
    wgprof_layer_map_table *old = table_of(map);
    /* At most a quarter full once remade (three quarters, tombstones counted, is where it is
     * remade again): runs stay short, so that most tombstones end one and go back to empty. */
    size_t cap = 64;
    while ((map->count + 1) * 4 > cap) {
        cap *= 2;
    }
    wgprof_layer_map_table *t = wgprof__calloc(1, sizeof *t + cap * sizeof t->slots[0]);
    if (!t) {
        return false;
    }
    t->cap = cap;
    t->outgrown = old;
    for (size_t i = 0; old && i < old->cap; i++) {
        uint64_t k = atomic_load_explicit(&old->slots[i].key, memory_order_relaxed);
        if (k && k != TOMBSTONE) {
            size_t j = slot_of(k, cap);
            while (atomic_load_explicit(&t->slots[j].key, memory_order_relaxed)) {
                j = (j + 1) & (cap - 1);
            }
            slot_set(&t->slots[j], k, atomic_load_explicit(&old->slots[i].value, memory_order_relaxed));
        }
    }
    atomic_store_explicit(&map->table, t, memory_order_release);
    map->used = map->count;
    return true;
}

bool wgprof_layer_map_put(wgprof_layer_map *map, uint64_t key, void *value)
{
    if (!key || key == TOMBSTONE) {
        return false;
    }
    wgprof_layer_map_table *t = table_of(map);
    if ((!t || (map->used + 1) * 4 >= t->cap * 3) && !grow(map)) {
        return false;
    }
    t = table_of(map);
    size_t free_slot = SIZE_MAX;
    for (size_t i = slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        uint64_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k == key) {
            atomic_store_explicit(&t->slots[i].value, value, memory_order_release);
            return true;
        }
        if (k == TOMBSTONE && free_slot == SIZE_MAX) {
            free_slot = i;
        }
        if (!k) {
            if (free_slot == SIZE_MAX) {
                free_slot = i;
                map->used++;
            }
            slot_set(&t->slots[free_slot], key, value);
            map->count++;
            return true;
        }
    }
}

/* Where the slot after tombstone `i` is empty, no key's probe runs through `i`: it goes back to
 * empty, and so do the tombstones before it, each then followed by an empty slot. */
static void clear_run_end(wgprof_layer_map *map, wgprof_layer_map_table *t, size_t i)
{
    size_t mask = t->cap - 1;
    while (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) == TOMBSTONE &&
           !atomic_load_explicit(&t->slots[(i + 1) & mask].key, memory_order_relaxed)) {
        atomic_store_explicit(&t->slots[i].key, 0, memory_order_release);
        map->used--;
        i = (i - 1) & mask;
    }
}

void *wgprof_layer_map_take(wgprof_layer_map *map, uint64_t key)
{
    wgprof_layer_map_table *t = table_of(map);
    if (!t || !key) {
        return NULL;
    }
    for (size_t i = slot_of(key, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
        uint64_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k == key) {
            void *v = atomic_load_explicit(&t->slots[i].value, memory_order_relaxed);
            atomic_store_explicit(&t->slots[i].key, TOMBSTONE, memory_order_release);
            atomic_store_explicit(&t->slots[i].value, NULL, memory_order_release);
            map->count--;
            clear_run_end(map, t, i);
            return v;
        }
        if (!k) {
            return NULL;
        }
    }
    return NULL;
}

void wgprof_layer_map_each(const wgprof_layer_map *map, void (*fn)(uint64_t key, void *value, void *user), void *user)
{
    wgprof_layer_map_table *t = table_of(map);
    for (size_t i = 0; t && i < t->cap; i++) {
        uint64_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k && k != TOMBSTONE) {
            fn(k, atomic_load_explicit(&t->slots[i].value, memory_order_relaxed), user);
        }
    }
}

void wgprof_layer_map_free(wgprof_layer_map *map)
{
    wgprof_layer_map_table *t = table_of(map);
    while (t) {
        wgprof_layer_map_table *outgrown = t->outgrown;
        wgprof__free(t);
        t = outgrown;
    }
    atomic_store_explicit(&map->table, NULL, memory_order_release);
    map->count = map->used = 0;
}

void *wgprof_layer_grow(void *old, size_t old_count, size_t new_count, size_t size)
{
    void *p = wgprof__calloc(new_count, size);
    if (p && old_count) {
        memcpy(p, old, old_count * size);
    }
    if (p) {
        wgprof__free(old);
    }
    return p;
}
