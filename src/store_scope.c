/*
 * Scopes: named, nestable groups of a store's results (a layer, an attention block). An
 * instance covers the results added between its begin and its end; its time is the GPU span
 * from its first valid dispatch's start to its last valid dispatch's end, which counts the
 * gaps between its dispatches as well as the dispatches.
 */
#include <math.h>
#include <string.h>

#include "clock_fit.h"
#include "store_internal.h"

wgprof_status wgprof__store_scope_begin(wgprof__store *store, const char *name)
{
    uint32_t parent = store->scope_depth ? store->scopes[store->scope_stack[store->scope_depth - 1]].node
                                         : WGPROF__NONE;
    uint32_t name_id, node;
    wgprof_status s = wgprof__intern_name(store, name, &name_id);
    if (s == WGPROF_OK) {
        s = wgprof__intern_scope_node(store, parent, name_id, &node);
    }
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&store->scopes, &store->scope_cap, store->scope_count + 1,
                            sizeof *store->scopes, 16);
    }
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&store->scope_stack, &store->scope_stack_cap, store->scope_depth + 1,
                            sizeof *store->scope_stack, 8);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    store->scopes[store->scope_count] = (wgprof__scope){node, (uint32_t)store->count, WGPROF__NONE};
    store->scope_stack[store->scope_depth++] = store->scope_count++;
    return WGPROF_OK;
}

wgprof_status wgprof__store_scope_end(wgprof__store *store)
{
    if (!store->scope_depth) {
        wgprof__log(WGPROF_LOG_ERROR, "a scope end without an open scope");
        return WGPROF_ERR_STATE;
    }
    store->scopes[store->scope_stack[--store->scope_depth]].end = (uint32_t)store->count;
    return WGPROF_OK;
}

wgprof_status wgprof__store_scope_prepare(wgprof__store *store, const char *const *ops, size_t count)
{
    size_t begins = 0;
    for (size_t i = 0; i < count; i++) {
        begins += ops[i] != NULL;
    }
    if (!begins) {
        return WGPROF_OK;
    }
    if (begins > UINT32_MAX - store->scope_count) {
        return WGPROF_ERR_CAPACITY;
    }
    /* The nodes the open scopes will have, as the begins and ends move them: the open ones' now,
     * then each begin's under its parent. */
    uint32_t depth = store->scope_depth;
    uint32_t *nodes = wgprof__alloc(((size_t)depth + begins) * sizeof *nodes);
    if (!nodes) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t d = 0; d < depth; d++) {
        nodes[d] = store->scopes[store->scope_stack[d]].node;
    }
    wgprof_status s = WGPROF_OK;
    for (size_t i = 0; i < count && s == WGPROF_OK; i++) {
        if (!ops[i]) {
            depth -= depth > 0;
            continue;
        }
        uint32_t name;
        s = wgprof__intern_name(store, ops[i], &name);
        if (s == WGPROF_OK) {
            s = wgprof__intern_scope_node(store, depth ? nodes[depth - 1] : WGPROF__NONE, name, &nodes[depth]);
            depth++;
        }
    }
    wgprof__free(nodes);
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&store->scopes, &store->scope_cap, store->scope_count + (uint32_t)begins,
                            sizeof *store->scopes, 16);
    }
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&store->scope_stack, &store->scope_stack_cap,
                            store->scope_depth + (uint32_t)begins, sizeof *store->scope_stack, 8);
    }
    return s;
}

uint32_t wgprof__store_scope_depth(const wgprof__store *store) { return store->scope_depth; }

void wgprof__scopes_truncate(wgprof__store *store, size_t count)
{
    /* Instances come in begin order: those that begin at or after `count` are the last ones.
     * The closed ones among them go; an open one stays (its end is still to come, and the
     * stack holds it), now beginning at `count`, with the stack pointing at its new place. A
     * closed one left before an open one would otherwise stay as an empty instance. */
    uint32_t kept = store->scope_count;
    while (kept && store->scopes[kept - 1].first >= count) {
        kept--;
    }
    for (uint32_t i = kept, from = kept; from < store->scope_count; from++) {
        if (store->scopes[from].end != WGPROF__NONE) {
            continue;
        }
        for (uint32_t d = 0; d < store->scope_depth; d++) {
            if (store->scope_stack[d] == from) {
                store->scope_stack[d] = i;
            }
        }
        store->scopes[i] = store->scopes[from];
        store->scopes[i].first = (uint32_t)count;
        kept = ++i;
    }
    store->scope_count = kept;
    for (uint32_t i = 0; i < store->scope_count; i++) {
        wgprof__scope *sc = &store->scopes[i];
        if (sc->end != WGPROF__NONE && sc->end > count) {
            sc->end = (uint32_t)count;
        }
    }
}

size_t wgprof__store_scope_count(const wgprof__store *store) { return store->scope_count; }

uint32_t wgprof__store_scope_node_count(const wgprof__store *store) { return store->scope_node_count; }

void wgprof__store_scope_node(const wgprof__store *store, uint32_t node, uint32_t *name, uint32_t *parent,
                              uint32_t *depth)
{
    const wgprof__scope_node *n = &store->scope_nodes[node];
    *name = n->name;
    *parent = n->parent;
    *depth = n->depth;
}

wgprof_status wgprof__store_scope(const wgprof__store *store, const wgprof_clock_info *clock, size_t index,
                                  wgprof_scope_record *out)
{
    if (index >= store->scope_count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const wgprof__scope *sc = &store->scopes[index];
    const wgprof__scope_node *node = &store->scope_nodes[sc->node];
    memset(out, 0, sizeof *out);
    out->name = store->names[node->name];
    out->node = sc->node;
    out->parent_node = node->parent == WGPROF__NONE ? -1 : (int32_t)node->parent;
    out->depth = node->depth;
    out->first_record = sc->first;
    out->end_record = sc->end == WGPROF__NONE ? (uint32_t)store->count : sc->end;
    out->open = sc->end == WGPROF__NONE;
    out->batch = sc->first < store->count ? store->dispatches[sc->first].batch : store->batch_count;
    double start = INFINITY, end = -INFINITY;
    for (uint32_t r = out->first_record; r < out->end_record; r++) {
        const wgprof__result *res = &store->results[r];
        if (res->reason != WGPROF_VALID) {
            out->invalid_records++;
            continue;
        }
        out->valid_records++;
        start = fmin(start, res->start_ns);
        end = fmax(end, res->start_ns + res->duration_ns);
        out->dispatch_ns += res->duration_ns;
    }
    out->valid = out->valid_records > 0;
    out->start_ns = out->end_ns = out->cpu_start_ns = out->cpu_end_ns = NAN;
    if (out->valid) {
        out->start_ns = start - store->epoch_ns;
        out->end_ns = end - store->epoch_ns;
        out->duration_ns = end - start;
        if (clock) {
            out->cpu_start_ns = wgprof__clock_cpu_ns(clock, start);
            out->cpu_end_ns = wgprof__clock_cpu_ns(clock, end);
        }
    }
    return WGPROF_OK;
}
