/*
 * Scopes: named, nestable groups of a pool's records (a layer, an attention block). An
 * instance covers the records added between its begin and its end; its time is the GPU span
 * from its first valid dispatch's begin to its last valid dispatch's end, which counts the
 * gaps between its dispatches as well as the dispatches.
 */
#include <math.h>
#include <string.h>

#include "querypool_internal.h"

wgprof_status wgprof_scope_begin(wgprof_pool *pool, const char *name)
{
    if (!pool || !name) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    uint32_t parent = pool->scope_depth ? pool->scopes[pool->scope_stack[pool->scope_depth - 1]].node : WGPROF__NONE;
    uint32_t name_id, node;
    wgprof_status s = wgprof__intern_name(pool, name, &name_id);
    if (s == WGPROF_OK) {
        s = wgprof__intern_scope_node(pool, parent, name_id, &node);
    }
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&pool->scopes, &pool->scope_cap, pool->scope_count + 1, sizeof *pool->scopes, 16);
    }
    if (s == WGPROF_OK) {
        s = wgprof__reserve((void **)&pool->scope_stack, &pool->scope_stack_cap, pool->scope_depth + 1,
                            sizeof *pool->scope_stack, 8);
    }
    if (s != WGPROF_OK) {
        return s;
    }
    pool->scopes[pool->scope_count] = (wgprof__scope){node, (uint32_t)pool->count, WGPROF__NONE};
    pool->scope_stack[pool->scope_depth++] = pool->scope_count++;
    return WGPROF_OK;
}

wgprof_status wgprof_scope_end(wgprof_pool *pool)
{
    if (!pool) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    if (!pool->scope_depth) {
        wgprof__log(WGPROF_LOG_ERROR, "wgprof: wgprof_scope_end without an open scope");
        return WGPROF_ERR_STATE;
    }
    pool->scopes[pool->scope_stack[--pool->scope_depth]].end = (uint32_t)pool->count;
    return WGPROF_OK;
}

void wgprof__scopes_truncate(wgprof_pool *pool, size_t count)
{
    while (pool->scope_count && pool->scopes[pool->scope_count - 1].first >= count &&
           pool->scopes[pool->scope_count - 1].end != WGPROF__NONE) {
        pool->scope_count--;
    }
    for (uint32_t i = 0; i < pool->scope_count; i++) {
        wgprof__scope *sc = &pool->scopes[i];
        if (sc->end != WGPROF__NONE && sc->end > count) {
            sc->end = (uint32_t)count;
        }
    }
}

size_t wgprof_pool_scope_count(const wgprof_pool *pool) { return pool ? pool->scope_count : 0; }

wgprof_status wgprof_pool_scope(const wgprof_pool *pool, size_t index, wgprof_scope_record *out)
{
    if (!pool || !out || index >= pool->scope_count) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    const wgprof__scope *sc = &pool->scopes[index];
    const wgprof__scope_node *node = &pool->scope_nodes[sc->node];
    memset(out, 0, sizeof *out);
    out->name = pool->names[node->name];
    out->node = sc->node;
    out->parent_node = node->parent == WGPROF__NONE ? -1 : (int32_t)node->parent;
    out->depth = node->depth;
    out->first_record = sc->first;
    out->end_record = sc->end == WGPROF__NONE ? (uint32_t)pool->count : sc->end;
    out->open = sc->end == WGPROF__NONE;
    out->iteration = sc->first < pool->count ? pool->slots[sc->first].batch : pool->batch_count;
    out->start_ns = out->end_ns = out->cpu_start_ns = out->cpu_end_ns = NAN;
    for (uint32_t r = out->first_record; r < out->end_record; r++) {
        wgprof_record rec;
        if (wgprof_pool_record(pool, r, &rec) != WGPROF_OK || !rec.valid) {
            out->invalid_records++;
            continue;
        }
        if (!out->valid_records++) {
            out->start_ns = rec.start_ns;
            out->end_ns = rec.end_ns;
            out->cpu_start_ns = rec.cpu_start_ns;
            out->cpu_end_ns = rec.cpu_end_ns;
        }
        out->start_ns = fmin(out->start_ns, rec.start_ns);
        out->end_ns = fmax(out->end_ns, rec.end_ns);
        out->cpu_start_ns = fmin(out->cpu_start_ns, rec.cpu_start_ns);
        out->cpu_end_ns = fmax(out->cpu_end_ns, rec.cpu_end_ns);
        out->dispatch_ns += rec.duration_ns;
    }
    out->valid = out->valid_records > 0;
    out->duration_ns = out->valid ? out->end_ns - out->start_ns : 0;
    return WGPROF_OK;
}
