/*
 * Parts of the Vulkan layer that need no driver (layer/layer_map.h, layer/layer_copy.h), on
 * their own:
 *  - its map's gets without a lock (layer_map.c): threads look up keys they put before starting,
 *    each must find its own value every time, while another thread puts and takes other keys and
 *    so grows the map through many tables;
 *  - the map of a program that makes and frees handles all along (a command buffer or a fence a
 *    submit) stays the size of what it holds at once: its tables do not grow with the run;
 *  - a reading of the layer's copy of its timestamps (layer_copy.c) as a copy under way leaves
 *    it: the availability written, the value not yet (lavapipe's copy writes them in that order).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "layer_copy.h"
#include "layer_map.h"

enum { KEPT = 64, READERS = 3, CHURN = 200000 };

static wgprof_layer_map g_map;
static atomic_bool g_done;
static atomic_ulong g_wrong, g_gets;

/* Each key's own value: a place of its own in this array (every key used is below its size). */
static char g_values[1 << 18];
static void *value_of(uint64_t key) { return &g_values[key % sizeof g_values]; }

static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_done)) {
        for (uint64_t k = 1; k <= KEPT; k++) {
            if (wgprof_layer_map_get(&g_map, k) != value_of(k)) {
                atomic_fetch_add(&g_wrong, 1);
            }
            atomic_fetch_add_explicit(&g_gets, 1, memory_order_relaxed);
        }
    }
    return NULL;
}

static void map_gets_beside_updates(void)
{
    for (uint64_t k = 1; k <= KEPT; k++) {
        CHECK(wgprof_layer_map_put(&g_map, k, value_of(k)));
    }
    pthread_t threads[READERS];
    for (int i = 0; i < READERS; i++) {
        CHECK(pthread_create(&threads[i], NULL, reader, NULL) == 0);
    }
    /* Other keys put, replaced and taken: the map grows table after table (tombstones count
     * towards its load), and every slot of the first keys' tables is rewritten around them. */
    for (uint64_t i = 0; i < CHURN; i++) {
        uint64_t k = 1000 + i;
        CHECK(wgprof_layer_map_put(&g_map, k, value_of(k)));
        CHECK(wgprof_layer_map_put(&g_map, k, value_of(k + 1)));
        if (i % 3 != 0) {
            CHECK(wgprof_layer_map_take(&g_map, k) == value_of(k + 1));
        }
    }
    atomic_store(&g_done, true);
    for (int i = 0; i < READERS; i++) {
        pthread_join(threads[i], NULL);
    }
    printf("map: %lu gets beside %d updates, %lu wrong\n", atomic_load(&g_gets), 3 * CHURN, atomic_load(&g_wrong));
    CHECK(atomic_load(&g_wrong) == 0);
    CHECK(atomic_load(&g_gets) > 0);
    CHECK(g_map.count == KEPT + (CHURN + 2) / 3);
    for (uint64_t k = 1; k <= KEPT; k++) {
        CHECK(wgprof_layer_map_get(&g_map, k) == value_of(k));
    }
    CHECK(wgprof_layer_map_get(&g_map, 1001) == NULL);
    CHECK(wgprof_layer_map_get(&g_map, 1000) == value_of(1001));
    wgprof_layer_map_free(&g_map);
    CHECK(wgprof_layer_map_get(&g_map, 1) == NULL);
}

/* A million handles made and freed, a hundred held at once, as a program that allocates a command
 * buffer (or a fence) a submit does: the map's tables, all it keeps, stay the size a hundred keys
 * need. */
static void map_of_a_long_run(void)
{
    enum { HELD = 100, MADE = 1000000 };
    wgprof_layer_map map = {0};
    uint64_t held[HELD], next = 0x7f0000000000ull, seed = 12345;
    for (size_t i = 0; i < HELD; i++) {
        held[i] = next += 0x40;
        CHECK(wgprof_layer_map_put(&map, held[i], value_of(held[i])));
    }
    for (size_t i = 0; i < MADE; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)(seed >> 33) % HELD;
        CHECK(wgprof_layer_map_take(&map, held[j]) == value_of(held[j]));
        held[j] = next += 0x40 + ((seed >> 20) & 0x3c0);
        CHECK(wgprof_layer_map_put(&map, held[j], value_of(held[j])));
    }
    size_t tables = 0, slots = 0;
    for (wgprof_layer_map_table *t = atomic_load(&map.table); t; t = t->outgrown) {
        tables++;
        slots += t->cap;
    }
    printf("map: %d handles made and freed, %d held: %zu tables of %zu slots in all\n", MADE, HELD, tables, slots);
    CHECK(map.count == HELD);
    CHECK(slots <= 16 * HELD);
    for (size_t i = 0; i < HELD; i++) {
        CHECK(wgprof_layer_map_get(&map, held[i]) == value_of(held[i]));
    }
    wgprof_layer_map_free(&map);
}

static void readings_of_a_copy_under_way(void)
{
    volatile uint64_t copy[6];
    wgprof_layer_copy_clear(copy, 3);
    uint64_t pairs[6] = {1, 1, 1, 1, 1, 1};
    wgprof_layer_copy_read(copy, 3, pairs);
    CHECK(pairs[1] == 0 && pairs[3] == 0 && pairs[5] == 0); /* cleared: none there */
    copy[1] = 1;                                             /* availability written, value not yet */
    copy[2] = 123456789;                                     /* a value, its availability not yet */
    copy[4] = 987654321;                                     /* both */
    copy[5] = 1;
    wgprof_layer_copy_read(copy, 3, pairs);
    CHECK(pairs[1] == 0);
    CHECK(pairs[3] == 0);
    CHECK(pairs[4] == 987654321 && pairs[5] != 0);
}

int main(void)
{
    map_gets_beside_updates();
    map_of_a_long_run();
    readings_of_a_copy_under_way();
    return check_summary();
}
