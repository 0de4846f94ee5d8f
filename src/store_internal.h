/*
 * The results store's layout, shared by its own files only (store.c: results and batches;
 * store_intern.c: names, sites and scope nodes; store_scope.c: scope instances). Everything
 * else goes through store.h.
 */
#ifndef WGPROF_STORE_INTERNAL_H
#define WGPROF_STORE_INTERNAL_H

#include "store.h"

/* A scope's place in the tree of scope names: interned, so that the instances of "layer 0"
 * inside "decode" in every batch share one node. */
typedef struct wgprof__scope_node {
    uint32_t name;   /* index into names */
    uint32_t parent; /* WGPROF__NONE for a root */
    uint32_t depth;
} wgprof__scope_node;

/* One instance of a scope: the results [first, end). */
typedef struct wgprof__scope {
    uint32_t node;
    uint32_t first;
    uint32_t end; /* WGPROF__NONE while open */
} wgprof__scope;

struct wgprof__store {
    wgprof__result *results;     /* [cap], filled at collect */
    wgprof__dispatch *dispatches; /* [cap], filled when recorded */
    size_t count, cap;
    size_t invalid;

    wgprof__batch *batches;
    uint32_t batch_count, batch_cap; /* batches resolved */
    uint32_t collected;              /* batches [0, collected) are read */
    uint64_t dropped_batches, dropped_dispatches;

    uint32_t generation;
    uint64_t origin_ticks; /* GPU time 0 */
    bool have_origin;
    double epoch_ns;       /* smallest valid start */
    bool have_epoch;
    uint64_t ticks_or;     /* every valid reading's begin and end ticks, ORed: its lowest set
                              bit is the step every reading was a multiple of */
    double ticks_or_period_ns; /* the smallest period those readings were converted with */

    char **names;
    uint32_t name_count, name_cap;
    uint32_t *sources;     /* [source_count]: for each kernel name, the name of where it came
                              from (WGPROF__NONE: not said); names past source_count have none */
    uint32_t source_count, source_cap;
    uint32_t *name_index, name_index_cap;
    wgprof__site *sites;
    uint32_t site_count, site_cap;
    uint32_t *site_index, site_index_cap;

    wgprof__scope_node *scope_nodes;
    uint32_t scope_node_count, scope_node_cap;
    uint32_t *scope_node_index, scope_node_index_cap;
    wgprof__scope *scopes;
    uint32_t scope_count, scope_cap;
    uint32_t *scope_stack; /* open instances, innermost last */
    uint32_t scope_depth, scope_stack_cap;
};

/* ---- store_intern.c ---- */
wgprof_status wgprof__intern_name(wgprof__store *store, const char *name, uint32_t *out);
wgprof_status wgprof__intern_scope_node(wgprof__store *store, uint32_t parent, uint32_t name, uint32_t *out);
/* Forgets every interned name, site and scope node (reset). */
void wgprof__forget_interned(wgprof__store *store);
void wgprof__free_interned(wgprof__store *store);

/* ---- store_scope.c ---- */
/* Drops scope instances that begin at or after result `count`, and closes at `count` those
 * that end after it. */
void wgprof__scopes_truncate(wgprof__store *store, size_t count);

#endif
