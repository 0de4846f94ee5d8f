/* A map from a 64-bit handle (never 0) to a pointer: open addressing, tombstones on removal.
 * Not thread-safe: its owner locks. */
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

static const uint64_t TOMBSTONE = UINT64_MAX;

static size_t slot_of(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

void *wgprof_layer_map_get(const wgprof_layer_map *map, uint64_t key)
{
    if (!map->cap || !key) {
        return NULL;
    }
    for (size_t i = slot_of(key, map->cap), n = 0; n < map->cap; i = (i + 1) & (map->cap - 1), n++) {
        if (map->keys[i] == key) {
            return map->values[i];
        }
        if (!map->keys[i]) {
            return NULL;
        }
    }
    return NULL;
}

static bool grow(wgprof_layer_map *map)
{
    size_t cap = map->cap ? map->cap * 2 : 64;
    uint64_t *keys = wgprof__calloc(cap, sizeof *keys);
    void **values = wgprof__calloc(cap, sizeof *values);
    if (!keys || !values) {
        wgprof__free(keys);
        wgprof__free(values);
        return false;
    }
    for (size_t i = 0; i < map->cap; i++) {
        if (map->keys[i] && map->keys[i] != TOMBSTONE) {
            size_t j = slot_of(map->keys[i], cap);
            while (keys[j]) {
                j = (j + 1) & (cap - 1);
            }
            keys[j] = map->keys[i];
            values[j] = map->values[i];
        }
    }
    wgprof__free(map->keys);
    wgprof__free(map->values);
    map->keys = keys;
    map->values = values;
    map->cap = cap;
    map->used = map->count;
    return true;
}

bool wgprof_layer_map_put(wgprof_layer_map *map, uint64_t key, void *value)
{
    if (!key || key == TOMBSTONE) {
        return false;
    }
    if ((map->used + 1) * 4 >= map->cap * 3 && !grow(map)) {
        return false;
    }
    size_t free_slot = SIZE_MAX;
    for (size_t i = slot_of(key, map->cap);; i = (i + 1) & (map->cap - 1)) {
        if (map->keys[i] == key) {
            map->values[i] = value;
            return true;
        }
        if (map->keys[i] == TOMBSTONE && free_slot == SIZE_MAX) {
            free_slot = i;
        }
        if (!map->keys[i]) {
            if (free_slot == SIZE_MAX) {
                free_slot = i;
                map->used++;
            }
            map->keys[free_slot] = key;
            map->values[free_slot] = value;
            map->count++;
            return true;
        }
    }
}

void *wgprof_layer_map_take(wgprof_layer_map *map, uint64_t key)
{
    if (!map->cap || !key) {
        return NULL;
    }
    for (size_t i = slot_of(key, map->cap), n = 0; n < map->cap; i = (i + 1) & (map->cap - 1), n++) {
        if (map->keys[i] == key) {
            void *v = map->values[i];
            map->keys[i] = TOMBSTONE;
            map->values[i] = NULL;
            map->count--;
            return v;
        }
        if (!map->keys[i]) {
            return NULL;
        }
    }
    return NULL;
}

void wgprof_layer_map_each(const wgprof_layer_map *map, void (*fn)(uint64_t key, void *value, void *user), void *user)
{
    for (size_t i = 0; i < map->cap; i++) {
        if (map->keys[i] && map->keys[i] != TOMBSTONE) {
            fn(map->keys[i], map->values[i], user);
        }
    }
}

void wgprof_layer_map_free(wgprof_layer_map *map)
{
    wgprof__free(map->keys);
    wgprof__free(map->values);
    memset(map, 0, sizeof *map);
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
