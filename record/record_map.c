/*
 * Handle -> value maps, those of the registry (record_registry.c, which locks them):
 * open addressing with linear probing, removal by shifting back the run after the hole, so
 * that no tombstones pile up in a program that makes millions of encoders. Grown at 1/2 full.
 */
#include <stdint.h>

#include "internal.h"
#include "record_lib.h"

static size_t slot_of(const wgprof_rec_map *map, const void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)h & (map->cap - 1);
}

static size_t find(const wgprof_rec_map *map, const void *key)
{
    size_t i = slot_of(map, key);
    while (map->keys[i] && map->keys[i] != key) {
        i = (i + 1) & (map->cap - 1);
    }
    return i;
}

void *wgprof_rec_map_get(const wgprof_rec_map *map, const void *key)
{
    if (!map->cap || !key) {
        return NULL;
    }
    size_t i = find(map, key);
    return map->keys[i] ? map->values[i] : NULL;
}

static bool grow(wgprof_rec_map *map)
{
    size_t cap = map->cap ? map->cap * 2 : 64;
    wgprof_rec_map bigger = {wgprof__calloc(cap, sizeof(void *)), wgprof__calloc(cap, sizeof(void *)), cap, 0};
    if (!bigger.keys || !bigger.values) {
        wgprof__free(bigger.keys);
        wgprof__free(bigger.values);
        return false;
    }
    for (size_t i = 0; i < map->cap; i++) {
        if (map->keys[i]) {
            size_t j = find(&bigger, map->keys[i]);
            bigger.keys[j] = map->keys[i];
            bigger.values[j] = map->values[i];
            bigger.count++;
        }
    }
    wgprof__free(map->keys);
    wgprof__free(map->values);
    *map = bigger;
    return true;
}

bool wgprof_rec_map_put(wgprof_rec_map *map, const void *key, void *value)
{
    if (!key || ((map->count + 1) * 2 > map->cap && !grow(map))) {
        return false;
    }
    size_t i = find(map, key);
    if (!map->keys[i]) {
        map->keys[i] = key;
        map->count++;
    }
    map->values[i] = value;
    return true;
}

void *wgprof_rec_map_take(wgprof_rec_map *map, const void *key)
{
    if (!map->cap || !key) {
        return NULL;
    }
    size_t hole = find(map, key);
    if (!map->keys[hole]) {
        return NULL;
    }
    void *value = map->values[hole];
    map->keys[hole] = NULL;
    map->count--;
    /* Shift back each later entry of the run that may move into the hole: one whose home slot
     * does not lie cyclically in (hole, j]. */
    size_t mask = map->cap - 1;
    for (size_t j = (hole + 1) & mask; map->keys[j]; j = (j + 1) & mask) {
        size_t home = slot_of(map, map->keys[j]);
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            map->keys[hole] = map->keys[j];
            map->values[hole] = map->values[j];
            map->keys[j] = NULL;
            hole = j;
        }
    }
    return value;
}

void wgprof_rec_map_each(const wgprof_rec_map *map, void (*fn)(void *value, void *user), void *user)
{
    for (size_t i = 0; i < map->cap; i++) {
        if (map->keys[i]) {
            fn(map->values[i], user);
        }
    }
}
