/* The layer's map from a 64-bit handle to a pointer, and its growing arrays (layer_map.c): plain
 * data, no driver, in a library of its own (wgprof_layer_parts) that its unit test links. */
#ifndef WGPROF_LAYER_MAP_H
#define WGPROF_LAYER_MAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wgprof_layer_map_slot {
    _Atomic uint64_t key; /* 0: never used; UINT64_MAX: taken */
    _Atomic(void *) value;
} wgprof_layer_map_slot;

typedef struct wgprof_layer_map_table {
    size_t cap;                              /* a power of two */
    struct wgprof_layer_map_table *outgrown; /* the table this one replaced, kept for gets */
    wgprof_layer_map_slot slots[];
} wgprof_layer_map_table;

/* Zero-initialised is empty. Updates are serialised by the owner; gets need no lock (layer_map.c). */
typedef struct wgprof_layer_map {
    _Atomic(wgprof_layer_map_table *) table;
    size_t count, used; /* keys present; slots not empty (keys and tombstones) */
} wgprof_layer_map;

void *wgprof_layer_map_get(const wgprof_layer_map *map, uint64_t key);
bool wgprof_layer_map_put(wgprof_layer_map *map, uint64_t key, void *value); /* false: out of memory */
void *wgprof_layer_map_take(wgprof_layer_map *map, uint64_t key);
void wgprof_layer_map_each(const wgprof_layer_map *map, void (*fn)(uint64_t key, void *value, void *user), void *user);
void wgprof_layer_map_free(wgprof_layer_map *map);
/* A copy of `old`'s first old_count items in a new array of new_count (zeroed past them), `old`
 * freed; NULL (and `old` kept) where out of memory. */
void *wgprof_layer_grow(void *old, size_t old_count, size_t new_count, size_t size);

#endif
