/*
 * Command buffers, pipelines and their names. A timed command buffer gets a timestamp before
 * each dispatch, before each run of the program's transfer work (copies, fills, clears, query
 * copies: the commands between two dispatches, or before the first) and one after the last (at
 * vkEndCommandBuffer), in blocks of queries it takes from its device: one a row, so that a
 * dispatch's time holds no copy's. Each dispatch is a record of the kernel its bound pipeline
 * names: `label:entry` where the pipeline was given a debug-utils name, `module:entry` where its
 * shader module was, else `spirv-xxxxxxxx:entry` (a hash of the SPIR-V, the same in every run);
 * each run a record named by the kinds it held, as record names the encoder's own work. Debug
 * labels become scopes of the rows recorded inside them. None of these commands may be recorded
 * inside a render pass, so neither is a timestamp of the layer's.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "layer_lib.h"
#include "record.h"

static uint64_t handle_key(uint64_t h) { return h; }
#define KEY(h) handle_key((uint64_t)(uintptr_t)(h))

/* ---- shader modules and pipelines ---- */

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
                                                               const VkAllocationCallbacks *alloc,
                                                               VkShaderModule *module)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->CreateShaderModule(device, info, alloc, module);
    wgprof_layer_module *m = r == VK_SUCCESS ? wgprof__calloc(1, sizeof *m) : NULL;
    if (m) {
        wgprof_layer_spirv_read(info->pCode, info->codeSize, m);
        wgprof_layer_lock();
        bool put = wgprof_layer_map_put(&wgprof_layer_modules, KEY(*module), m);
        wgprof_layer_unlock();
        if (!put) {
            wgprof__free(m);
        }
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyShaderModule(VkDevice device, VkShaderModule module,
                                                            const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    wgprof_layer_lock();
    wgprof_layer_module *m = wgprof_layer_map_take(&wgprof_layer_modules, KEY(module));
    wgprof_layer_unlock();
    wgprof__free(m);
    d->DestroyShaderModule(device, module, alloc);
}

/* What the code read in `m` tells of the entry point `entry`: its hash, its workgroup size. */
static void describe_code(wgprof_layer_pipeline *p, const wgprof_layer_module *m, const char *entry)
{
    snprintf(p->code, sizeof p->code, "%s", m->hash);
    const wgprof_layer_entry *e = wgprof_layer_spirv_entry(m, entry);
    if (e) {
        memcpy(p->local_size, e->local_size, sizeof p->local_size);
    }
}

/* The SPIR-V a stage carries itself, in place of a module (VK_KHR_maintenance5: a
 * VkShaderModuleCreateInfo in its chain), read into `out`; false where it has none. */
static bool inline_module(const VkPipelineShaderStageCreateInfo *stage, wgprof_layer_module *out)
{
    for (const VkBaseInStructure *s = stage->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
            const VkShaderModuleCreateInfo *info = (const VkShaderModuleCreateInfo *)s;
            wgprof_layer_spirv_read(info->pCode, info->codeSize, out);
            return true;
        }
    }
    return false;
}

/* Chromium's Dawn names every entry point dawn_entry_point_HEX, HEX the bytes of the page's
 * isolation key, "TOP-LEVEL-ORIGIN FRAME-ORIGIN": the page's own entry point is gone, its origin
 * is not. Where p->entry is such a name of printable text, p->origin takes the frame's origin
 * ("FRAME in TOP-LEVEL" where they differ) and p->entry is emptied. */
static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void isolation_origin(wgprof_layer_pipeline *p)
{
    static const char prefix[] = "dawn_entry_point_";
    if (strncmp(p->entry, prefix, sizeof prefix - 1) != 0) {
        return;
    }
    const char *hex = p->entry + sizeof prefix - 1;
    size_t n = strlen(hex);
    char key[WGPROF_LAYER_NAME_CAP];
    if (n == 0 || n % 2 || n / 2 >= sizeof key) {
        return;
    }
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]), byte = hi * 16 + lo;
        if (hi < 0 || lo < 0 || byte < 0x20 || byte > 0x7e) {
            return; /* not text: left as it is */
        }
        key[i] = (char)byte;
    }
    key[n / 2] = '\0';
    char *space = strchr(key, ' ');
    if (space) {
        *space = '\0';
    }
    const char *top = key, *frame = space ? space + 1 : key;
    int w = strcmp(top, frame) == 0 ? snprintf(p->origin, sizeof p->origin, "%s", frame)
                                    : snprintf(p->origin, sizeof p->origin, "%s in %s", frame, top);
    if (w < 0 || (size_t)w >= sizeof p->origin) {
        p->origin[0] = '\0';
        return;
    }
    p->entry[0] = '\0';
}

/* What names the pipeline's dispatches: the stage's entry point, its module's hash and label
 * (or the hash of the code the stage carries itself), and its workgroup size, copied now (the
 * module may be destroyed while the pipeline lives). */
static wgprof_layer_pipeline *describe(const VkPipelineShaderStageCreateInfo *stage)
{
    wgprof_layer_pipeline *p = wgprof__calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    snprintf(p->entry, sizeof p->entry, "%s", stage->pName ? stage->pName : "");
    isolation_origin(p);
    wgprof_layer_module carried;
    if (stage->module == VK_NULL_HANDLE && inline_module(stage, &carried)) {
        describe_code(p, &carried, stage->pName);
        return p;
    }
    wgprof_layer_lock();
    const wgprof_layer_module *m = wgprof_layer_map_get(&wgprof_layer_modules, KEY(stage->module));
    if (m) {
        snprintf(p->code, sizeof p->code, "%s", m->hash);
        snprintf(p->module_label, sizeof p->module_label, "%s", m->label);
        const wgprof_layer_entry *e = wgprof_layer_spirv_entry(m, stage->pName);
        if (e) {
            memcpy(p->local_size, e->local_size, sizeof p->local_size);
        }
    } else {
        snprintf(p->code, sizeof p->code, "spirv");
    }
    wgprof_layer_unlock();
    return p;
}

/* A pipeline's or shader object's description kept under its handle in `map`, or freed where
 * there is no room (its dispatches then name nothing); and taken out and freed at its end. */
static void keep_description(wgprof_layer_map *map, uint64_t handle, wgprof_layer_pipeline *p)
{
    wgprof_layer_lock();
    bool kept = wgprof_layer_map_put(map, handle, p);
    wgprof_layer_unlock();
    if (!kept) {
        wgprof__free(p);
    }
}

static void forget_description(wgprof_layer_map *map, uint64_t handle)
{
    wgprof_layer_lock();
    wgprof_layer_pipeline *p = wgprof_layer_map_take(map, handle);
    wgprof_layer_unlock();
    wgprof__free(p);
}

/* What record's preload library, where it is loaded beside the layer, says of the pipelines its
 * thread makes (record.h): found once. */
static const char *(*g_pipeline_name)(const char **source);
static unsigned (*g_pending_pipelines)(char *sole, size_t cap, const char **source);
static size_t (*g_dispatch_scopes)(const char **steps, size_t cap);
static pthread_once_t g_preload_once = PTHREAD_ONCE_INIT;

static void find_preload(void)
{
    *(void **)&g_pipeline_name = dlsym(RTLD_DEFAULT, RECORD_SYMBOL_PIPELINE_NAME);
    *(void **)&g_pending_pipelines = dlsym(RTLD_DEFAULT, RECORD_SYMBOL_PENDING_PIPELINES);
    *(void **)&g_dispatch_scopes = dlsym(RTLD_DEFAULT, RECORD_SYMBOL_DISPATCH_SCOPES);
}

/* Whether the device's scopes come from record's preload library (record.h,
 * RECORD_SYMBOL_DISPATCH_SCOPES), its command buffers' debug labels then none of them. */
static bool scopes_from_preload(const wgprof_layer_device *d)
{
    if (!d->left_by_preload) {
        return false;
    }
    pthread_once(&g_preload_once, find_preload);
    return g_dispatch_scopes != NULL;
}

/* Who made the pipeline: on a device left to the layer by record's preload library, the name
 * it gives the program's pipeline being made on this thread; else, made on another thread than
 * the one that asked while the program's one asynchronous creation is pending (Dawn's worker),
 * that one's name; no name while none of the program's is pending, the implementation's own;
 * several pending, not known (named by its code). */
static void whose(const wgprof_layer_device *d, wgprof_layer_pipeline *p)
{
    if (!d->left_by_preload) {
        return;
    }
    pthread_once(&g_preload_once, find_preload);
    const char *given = g_pipeline_name ? g_pipeline_name(&p->given_source) : NULL;
    if (given) {
        snprintf(p->given, sizeof p->given, "%s", given);
    } else if (g_pending_pipelines) {
        /* The program's one pending request (made by the implementation's worker) names it;
         * none pending, it is the implementation's own. */
        p->own = g_pending_pipelines(p->given, sizeof p->given, &p->given_source) == 0;
    }
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateComputePipelines(VkDevice device, VkPipelineCache cache,
                                                                   uint32_t count,
                                                                   const VkComputePipelineCreateInfo *infos,
                                                                   const VkAllocationCallbacks *alloc,
                                                                   VkPipeline *pipelines)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->CreateComputePipelines(device, cache, count, infos, alloc, pipelines);
    for (uint32_t i = 0; i < count; i++) {
        if (pipelines[i] == VK_NULL_HANDLE) {
            continue;
        }
        wgprof_layer_pipeline *p = describe(&infos[i].stage);
        if (!p) {
            continue;
        }
        whose(d, p);
        keep_description(&wgprof_layer_pipelines, KEY(pipelines[i]), p);
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyPipeline(VkDevice device, VkPipeline pipeline,
                                                        const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    /* Its description stays while a recording names it: kept until the process ends would
     * grow without bound, so it goes now, and a command buffer bound to it keeps its copy. */
    forget_description(&wgprof_layer_pipelines, KEY(pipeline));
    d->DestroyPipeline(device, pipeline, alloc);
}

/* ---- shader objects (VK_EXT_shader_object): a compute shader bound names the dispatches after
 * it, as a pipeline bound does ---- */

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateShadersEXT(VkDevice device, uint32_t count,
                                                             const VkShaderCreateInfoEXT *infos,
                                                             const VkAllocationCallbacks *alloc, VkShaderEXT *shaders)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->CreateShadersEXT(device, count, infos, alloc, shaders);
    for (uint32_t i = 0; i < count; i++) {
        /* One that failed is VK_NULL_HANDLE (the others were made). */
        if (shaders[i] == VK_NULL_HANDLE || infos[i].stage != VK_SHADER_STAGE_COMPUTE_BIT) {
            continue;
        }
        wgprof_layer_pipeline *p = wgprof__calloc(1, sizeof *p);
        if (!p) {
            continue;
        }
        snprintf(p->entry, sizeof p->entry, "%s", infos[i].pName ? infos[i].pName : "");
        /* A binary is the driver's own: hashed, nothing read from it. */
        bool spirv = infos[i].codeType == VK_SHADER_CODE_TYPE_SPIRV_EXT;
        wgprof_layer_module m;
        wgprof_layer_spirv_read(spirv ? infos[i].pCode : NULL, spirv ? infos[i].codeSize : 0, &m);
        if (!spirv) {
            code_hash_name(m.hash, "shader", code_hash_fnv1a(CODE_HASH_OFFSET, infos[i].pCode, infos[i].codeSize));
        }
        describe_code(p, &m, infos[i].pName);
        keep_description(&wgprof_layer_shaders, KEY(shaders[i]), p);
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyShaderEXT(VkDevice device, VkShaderEXT shader,
                                                         const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    forget_description(&wgprof_layer_shaders, KEY(shader));
    d->DestroyShaderEXT(device, shader, alloc);
}

/* Holds pipeline `p`'s cache of its last site (a copy's time: nobody calls anything under it). */
static void site_hold(wgprof_layer_pipeline *p)
{
    while (atomic_exchange_explicit(&p->site_busy, true, memory_order_acquire)) {
    }
}
static void site_let_go(wgprof_layer_pipeline *p) { atomic_store_explicit(&p->site_busy, false, memory_order_release); }

/* The entry of `p`'s sites kept for these counts, or -1 (site_busy held). */
static int site_entry(const wgprof_layer_pipeline *p, uint32_t x, uint32_t y, uint32_t z, bool indirect)
{
    for (int i = 0; i < WGPROF_LAYER_SITES_KEPT; i++) {
        if (p->sites[i].known && p->sites[i].indirect == indirect && p->sites[i].counts[0] == x &&
            p->sites[i].counts[1] == y && p->sites[i].counts[2] == z) {
            return i;
        }
    }
    return -1;
}

/* The site of a dispatch of the bound pipeline with these counts, where one is kept: false where not. */
static bool site_cached(wgprof_layer_pipeline *p, uint32_t x, uint32_t y, uint32_t z, bool indirect, wgprof_site *out)
{
    site_hold(p);
    int at = site_entry(p, x, y, z, indirect);
    if (at >= 0) {
        *out = p->sites[at].site;
    }
    site_let_go(p);
    return at >= 0;
}

/* Its name changed: the site and name kept are another name's. */
static void site_forget(wgprof_layer_pipeline *p)
{
    site_hold(p);
    for (int i = 0; i < WGPROF_LAYER_SITES_KEPT; i++) {
        p->sites[i].known = false;
    }
    p->name_known = false;
    site_let_go(p);
}

/* The kernel's name last made for `p`'s dispatches (direct or indirect) copied to `name`, and
 * where it came from; NULL where none is kept. */
static const char *name_cached(wgprof_layer_pipeline *p, bool indirect, char name[WGPROF_LAYER_KERNEL_NAME_CAP])
{
    site_hold(p);
    const char *source = p->name_known && p->name_indirect == indirect ? p->name_source : NULL;
    if (source) {
        memcpy(name, p->name, strlen(p->name) + 1);
    }
    site_let_go(p);
    return source;
}

static void name_keep(wgprof_layer_pipeline *p, bool indirect, const char *name, const char *source)
{
    site_hold(p);
    p->name_known = true;
    p->name_indirect = indirect;
    p->name_source = source;
    memcpy(p->name, name, strlen(name) + 1);
    site_let_go(p);
}

static void site_keep(wgprof_layer_pipeline *p, uint32_t x, uint32_t y, uint32_t z, bool indirect, wgprof_site site)
{
    site_hold(p);
    int at = site_entry(p, x, y, z, indirect); /* another thread's, made meanwhile */
    if (at < 0) {
        at = (int)(p->site_next++ % WGPROF_LAYER_SITES_KEPT);
    }
    p->sites[at].known = true;
    p->sites[at].indirect = indirect;
    p->sites[at].counts[0] = x;
    p->sites[at].counts[1] = y;
    p->sites[at].counts[2] = z;
    p->sites[at].site = site;
    site_let_go(p);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                                       const VkDebugUtilsObjectNameInfoEXT *info)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    wgprof_layer_object_named(info);
    return d->SetDebugUtilsObjectNameEXT ? d->SetDebugUtilsObjectNameEXT(device, info) : VK_SUCCESS;
}

void wgprof_layer_object_named(const VkDebugUtilsObjectNameInfoEXT *info)
{
    if (info && info->pObjectName) {
        wgprof_layer_lock();
        if (info->objectType == VK_OBJECT_TYPE_PIPELINE) {
            wgprof_layer_pipeline *p = wgprof_layer_map_get(&wgprof_layer_pipelines, info->objectHandle);
            if (p) {
                snprintf(p->label, sizeof p->label, "%s", info->pObjectName);
                site_forget(p);
            }
        } else if (info->objectType == VK_OBJECT_TYPE_SHADER_EXT) {
            wgprof_layer_pipeline *p = wgprof_layer_map_get(&wgprof_layer_shaders, info->objectHandle);
            if (p) {
                snprintf(p->label, sizeof p->label, "%s", info->pObjectName);
                site_forget(p);
            }
        } else if (info->objectType == VK_OBJECT_TYPE_SHADER_MODULE) {
            wgprof_layer_module *m = wgprof_layer_map_get(&wgprof_layer_modules, info->objectHandle);
            if (m) {
                snprintf(m->label, sizeof m->label, "%s", info->pObjectName);
            }
        }
        wgprof_layer_unlock();
    }
}

/* ---- command pools and buffers ---- */

/* The pool's record (maps' lock), made where it has none (made at the pool's creation, or out of
 * memory then: its queue family unknown, the first): NULL where there is no memory. */
static wgprof_layer_pool *pool_record(const wgprof_layer_device *d, VkCommandPool pool)
{
    wgprof_layer_pool *p = wgprof_layer_map_get(&wgprof_layer_pools, KEY(pool));
    if (!p && (p = wgprof__calloc(1, sizeof *p)) != NULL) {
        p->device = d;
        if (!wgprof_layer_map_put(&wgprof_layer_pools, KEY(pool), p)) {
            wgprof__free(p);
            p = NULL;
        }
    }
    return p;
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
                                                              const VkAllocationCallbacks *alloc, VkCommandPool *pool)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->CreateCommandPool(device, info, alloc, pool);
    if (r == VK_SUCCESS) {
        wgprof_layer_lock();
        wgprof_layer_pool *p = pool_record(d, *pool);
        if (p) {
            p->family = info->queueFamilyIndex; /* one past the layer's count counts as the first */
        }
        wgprof_layer_unlock();
    }
    return r;
}

static void pool_record_free(wgprof_layer_pool *p)
{
    if (p) {
        wgprof__free(p->cbs);
        wgprof__free(p);
    }
}

/* `handle` (its state `cb`, or NULL where it lost it: then looked for) out of its pool's record
 * (maps' lock). */
static void pool_remove(VkCommandPool pool, VkCommandBuffer handle, const wgprof_layer_cb *cb)
{
    wgprof_layer_pool *p = wgprof_layer_map_get(&wgprof_layer_pools, KEY(pool));
    if (!p) {
        return;
    }
    size_t at = cb && cb->pool_slot < p->count && p->cbs[cb->pool_slot] == handle ? cb->pool_slot : 0;
    for (; at < p->count && p->cbs[at] != handle; at++) {
    }
    if (at == p->count) {
        return;
    }
    p->cbs[at] = p->cbs[--p->count];
    wgprof_layer_cb *moved = at < p->count ? wgprof_layer_map_get(&wgprof_layer_cbs, KEY(p->cbs[at])) : NULL;
    if (moved) {
        moved->pool_slot = at;
    }
}

/* A command buffer freed (taken out of the map already): its state given back now, or by the
 * reader where it was left to it. */
static void cb_free(wgprof_layer_cb *cb)
{
    if (wgprof_layer_cb_release(cb, false)) {
        wgprof_layer_cb_destroy(cb);
    }
}

/* A recording let go of, its state kept for the handle's next: nothing of it left. */
static void cb_cleared(wgprof_layer_cb *cb)
{
    if (atomic_load(&cb->pending)) {
        /* Reset or freed: by Vulkan's rules its execution is over, so what is there is read (and
         * its blocks reset by the reading). */
        wgprof_layer_read_cb(cb, true);
    }
    wgprof_layer_cb_blocks_return(cb);
    cb->open_end = false;
    cb->ticks = 0;
    cb->count = 0;
    cb->gaps = 0;
    cb->child_count = 0;
    cb->bound = NULL;
    cb->timed_any = false;
    cb->holds_untimed = false;
    cb->cached_valid = false;
    cb->broken = false;
    cb->work_kinds = 0;
    cb->mark_count = 0;
    cb->label_len = 0;
    cb->label_depth = 0;
    cb->unnamed_depth = 0;
    cb->unnamed_levels = 0;
    cb->labels_lost = false;
}

/* At most WGPROF_LAYER_RELEASE_BATCH of them. */
static void release_batch(wgprof_layer_cb **cbs, size_t n, bool keep_handle)
{
    enum { B = WGPROF_LAYER_RELEASE_BATCH };
    /* Those with a submit unread, and new states for their handles made while the old ones are
     * still this thread's (once orphaned they are the reader's). */
    wgprof_layer_cb *unread[B], *news[B];
    VkCommandBuffer handles[B];
    size_t at[B];
    bool orphaned[B], gone[B];
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        gone[i] = false;
        if (atomic_load(&cbs[i]->pending)) {
            at[u] = i;
            handles[u] = cbs[i]->handle;
            news[u] = NULL;
            unread[u++] = cbs[i];
        }
    }
    if (u) {
        if (keep_handle) {
            wgprof_layer_cbs_made(unread, u, news);
        }
        wgprof_layer_orphan(unread, u, orphaned);
        if (keep_handle) {
            wgprof_layer_cbs_renewed(handles, news, orphaned, u);
        }
        for (size_t k = 0; k < u; k++) {
            if (orphaned[k]) {
                gone[at[k]] = true;
                cbs[at[k]] = news[k];
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!gone[i]) {
            cb_cleared(cbs[i]);
        }
    }
}

void wgprof_layer_cbs_release(wgprof_layer_cb **cbs, size_t n, bool keep_handle)
{
    for (size_t i = 0; i < n; i += WGPROF_LAYER_RELEASE_BATCH) {
        size_t left = n - i;
        release_batch(cbs + i, left < WGPROF_LAYER_RELEASE_BATCH ? left : WGPROF_LAYER_RELEASE_BATCH, keep_handle);
    }
}

wgprof_layer_cb *wgprof_layer_cb_release(wgprof_layer_cb *cb, bool keep_handle)
{
    if (!atomic_load(&cb->pending)) { /* nothing unread (the usual begin): cleared, no batch made */
        cb_cleared(cb);
        return cb;
    }
    release_batch(&cb, 1, keep_handle);
    return cb;
}

/* A pool's command buffers' states: in `room` where they fit. */
typedef struct pool_match {
    wgprof_layer_cb **found;
    size_t count;
    wgprof_layer_cb *room[128];
} pool_match;

/* The pool's command buffers, taken out of the map where `take` (the pool's end). */
static void pool_cbs(VkCommandPool pool, bool take, pool_match *m)
{
    m->count = 0;
    m->found = m->room;
    wgprof_layer_lock();
    wgprof_layer_pool *p = wgprof_layer_map_get(&wgprof_layer_pools, KEY(pool));
    size_t n = p ? p->count : 0;
    if (n > sizeof m->room / sizeof m->room[0]) {
        m->found = wgprof__calloc(n, sizeof *m->found);
    }
    for (size_t i = 0; m->found && i < n; i++) {
        uint64_t key = KEY(p->cbs[i]);
        wgprof_layer_cb *cb =
            take ? wgprof_layer_map_take(&wgprof_layer_cbs, key) : wgprof_layer_map_get(&wgprof_layer_cbs, key);
        if (cb) {
            m->found[m->count++] = cb;
        }
    }
    wgprof_layer_unlock();
}

static void pool_match_end(pool_match *m)
{
    if (m->found != m->room) {
        wgprof__free(m->found);
    }
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                           const VkAllocationCallbacks *alloc)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    pool_match m;
    pool_cbs(pool, true, &m);
    for (size_t i = 0; i < m.count; i++) {
        cb_free(m.found[i]);
    }
    pool_match_end(&m);
    wgprof_layer_lock();
    wgprof_layer_pool *p = wgprof_layer_map_take(&wgprof_layer_pools, KEY(pool));
    wgprof_layer_unlock();
    pool_record_free(p);
    d->DestroyCommandPool(device, pool, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_ResetCommandPool(VkDevice device, VkCommandPool pool,
                                                             VkCommandPoolResetFlags flags)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    pool_match m;
    pool_cbs(pool, false, &m);
    wgprof_layer_cbs_release(m.found, m.count, true);
    pool_match_end(&m);
    return d->ResetCommandPool(device, pool, flags);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_AllocateCommandBuffers(VkDevice device,
                                                                   const VkCommandBufferAllocateInfo *info,
                                                                   VkCommandBuffer *cbs)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    VkResult r = d->AllocateCommandBuffers(device, info, cbs);
    if (r != VK_SUCCESS) {
        return r;
    }
    /* The pool's record outlives this call: the program may not free or reset the pool meanwhile. */
    wgprof_layer_lock();
    wgprof_layer_pool *p = pool_record(d, info->commandPool);
    uint32_t family = p && p->family < WGPROF_LAYER_FAMILIES ? p->family : 0;
    wgprof_layer_unlock();
    for (uint32_t i = 0; i < info->commandBufferCount; i++) {
        wgprof_layer_cb *cb = wgprof__calloc(1, sizeof *cb);
        if (!cb) {
            continue; /* that one runs untimed */
        }
        cb->handle = cbs[i];
        cb->device = d;
        cb->family = family;
        cb->primary = info->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        wgprof_layer_lock();
        bool room =
            p && wgprof__reserve((void **)&p->cbs, &p->cap, p->count + 1, sizeof *p->cbs, 16) == WGPROF_OK;
        bool kept = room && wgprof_layer_map_put(&wgprof_layer_cbs, KEY(cbs[i]), cb);
        if (kept) {
            cb->pool_slot = p->count;
            p->cbs[p->count++] = cbs[i];
        }
        wgprof_layer_unlock();
        if (!kept) {
            wgprof__free(cb);
        }
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                           const VkCommandBuffer *cbs)
{
    wgprof_layer_device *d = wgprof_layer_device_of(device);
    for (uint32_t i = 0; i < count; i++) {
        wgprof_layer_lock();
        wgprof_layer_cb *cb = cbs[i] ? wgprof_layer_map_take(&wgprof_layer_cbs, KEY(cbs[i])) : NULL;
        if (cbs[i]) {
            pool_remove(pool, cbs[i], cb);
        }
        wgprof_layer_unlock();
        if (cb) {
            cb_free(cb);
        }
    }
    d->FreeCommandBuffers(device, pool, count, cbs);
}

/* A command buffer's state (NULL where the layer keeps none) and its device: one lookup where
 * there is a state, which knows its device. */
static wgprof_layer_device *device_and_cb(VkCommandBuffer handle, wgprof_layer_cb **cb)
{
    *cb = wgprof_layer_cb_of(handle);
    return *cb ? (*cb)->device : wgprof_layer_device_of(handle);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_BeginCommandBuffer(VkCommandBuffer handle, const VkCommandBufferBeginInfo *info)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    cb = cb ? wgprof_layer_cb_release(cb, true) : NULL;
    if (cb) {
        const wgprof_layer_settings *settings = wgprof_layer_settings_get();
        uint32_t every = settings->sample_by_kernel ? 1 : settings->sample_every;
        bool sampled = every == 1 || atomic_fetch_add_explicit(&d->begun, 1, memory_order_relaxed) % every == 0;
        /* A command buffer that may be pending twice at once would write one query twice. */
        bool simultaneous = info && (info->flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT);
        uint32_t family = cb->family < WGPROF_LAYER_FAMILIES ? cb->family : 0;
        cb->untimed_count = d->valid_bits[family] == 0 ? &d->untimed_no_timestamps
                            : simultaneous               ? &d->untimed_simultaneous
                            : !sampled                   ? &d->untimed_sampled
                                                         : NULL;
        cb->untimed = cb->untimed_count != NULL;
        cb->work_timed = !cb->untimed && (d->work_families >> family & 1u);
    }
    return d->BeginCommandBuffer(handle, info);
}

/* The next query of the command buffer's, writing a timestamp into it; false where none. */
static bool write_timestamp(wgprof_layer_cb *cb)
{
    wgprof_layer_device *d = cb->device;
    uint32_t in_block = cb->ticks % WGPROF_LAYER_BLOCK;
    if (in_block == 0 && cb->blocks_held) { /* one it kept clean, next in its array: no lock */
        cb->blocks_held--;
        cb->block_count++;
    } else if (in_block == 0) {
        if (cb->block_count == cb->block_cap) {
            size_t cap = cb->block_cap ? 2 * cb->block_cap : 4;
            wgprof_layer_block *more = wgprof_layer_grow(cb->blocks, cb->block_count, cap, sizeof *more);
            if (!more) {
                return false;
            }
            cb->blocks = more;
            cb->block_cap = cap;
        }
        wgprof_layer_block b;
        if (!wgprof_layer_block_take(d, &b)) {
            return false;
        }
        cb->blocks[cb->block_count++] = b;
    }
    const wgprof_layer_block *b = &cb->blocks[cb->block_count - 1];
    if (in_block == 0 && !d->ResetQueryPool) {
        d->CmdResetQueryPool(cb->handle, b->pool, b->first, WGPROF_LAYER_BLOCK);
    }
    d->CmdWriteTimestamp(cb->handle, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->pool, b->first + in_block);
    cb->ticks++;
    cb->timed_any = true;
    return true;
}

/* A new row of the chain, begun by a timestamp that ends the row before; false (nothing
 * recorded: its time falls in the row before) where there is no room or no query. */
static bool open_row(wgprof_layer_cb *cb, wgprof_site site)
{
    if (cb->count == cb->cap) {
        size_t cap = cb->cap ? 2 * cb->cap : 16;
        wgprof_site *more = wgprof_layer_grow(cb->sites, cb->count, cap, sizeof *more);
        if (!more) {
            return false;
        }
        cb->sites = more;
        cb->cap = cap;
    }
    if (!write_timestamp(cb)) {
        return false;
    }
    cb->sites[cb->count++] = site;
    return true;
}

static const char *const WORK_NAMES[WGPROF_LAYER_WORK_KINDS] = {"copy", "clear", "query resolve"};

/* The open run of transfer work gets its site, named by the kinds it held. */
static void close_work(wgprof_layer_cb *cb)
{
    unsigned kinds = cb->work_kinds;
    cb->work_kinds = 0;
    if (!(cb->work_sites_known & (1u << kinds))) {
        char name[96];
        size_t n = 0;
        for (unsigned k = 0; k < WGPROF_LAYER_WORK_KINDS; k++) {
            if (kinds & (1u << k)) {
                int w = snprintf(name + n, sizeof name - n, "%s%s", n ? ", " : "(", WORK_NAMES[k]);
                n += w > 0 && (size_t)w < sizeof name - n ? (size_t)w : 0;
            }
        }
        snprintf(name + n, sizeof name - n, ")");
        wgprof_dispatch_desc desc = {.kernel = name};
        wgprof_layer_device *d = cb->device;
        pthread_mutex_lock(&d->results_lock);
        bool ok = d->results && wgprof_pool_site(d->results, &desc, &cb->work_sites[kinds]) == WGPROF_OK &&
                  wgprof_pool_kernel_source(d->results, name, WGPROF_WORK_NAME_SOURCE) == WGPROF_OK;
        pthread_mutex_unlock(&d->results_lock);
        if (!ok) {
            cb->broken = true; /* its row has a timestamp and no name */
            return;
        }
        cb->work_sites_known |= 1u << kinds;
    }
    cb->sites[cb->work_row] = cb->work_sites[kinds];
}

/* Transfer work of `kind` comes next: a run of it begins here where none is open. */
static wgprof_layer_device *before_work(VkCommandBuffer handle, unsigned kind)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    if (!cb) {
        return d;
    }
    if (cb->work_timed && wgprof_layer_settings_get()->timestamps_only) {
        if (!cb->work_kinds) {
            write_timestamp(cb);
        }
        cb->work_kinds |= 1u << kind;
    } else if (cb->work_timed) {
        if (!cb->work_kinds) {
            if (!open_row(cb, (wgprof_site){0, 0})) { /* a site the pool refuses, until close_work's */
                cb->holds_untimed = true;
                return d;
            }
            cb->work_row = cb->count - 1;
        }
        cb->work_kinds |= 1u << kind;
    } else {
        cb->holds_untimed = true;
    }
    return d;
}

#define WORK_HOOK(command, kind, params, args)                                                                  \
    VKAPI_ATTR void VKAPI_CALL wgprof_layer_##command params                                                    \
    {                                                                                                           \
        before_work(h, WGPROF_LAYER_WORK_##kind)->command args;                                                 \
    }
WGPROF_LAYER_WORK_COMMANDS(WORK_HOOK)

/* A label's begin (`name`) or end (NULL) among the recording's rows. */
static void label_mark(wgprof_layer_cb *cb, const char *name)
{
    if (cb->untimed || cb->labels_lost || (!name && !cb->label_depth && !cb->unnamed_depth)) {
        return;
    }
    /* Levels of labels open, named or not (beyond 64, every deeper one counts as named). */
    uint32_t level = cb->label_depth + cb->unnamed_depth;
    if (name && !name[0]) {
        if (level < 64) {
            cb->unnamed_levels |= 1ull << level;
            cb->unnamed_depth++;
        }
        return; /* an unnamed label: no scope */
    }
    if (!name && level > 0 && level - 1 < 64 && (cb->unnamed_levels >> (level - 1) & 1u)) {
        cb->unnamed_levels &= ~(1ull << (level - 1));
        cb->unnamed_depth--;
        return; /* the end of an unnamed one */
    }
    if (cb->work_kinds) {
        close_work(cb); /* a run of work lies in one scope: the next begins anew */
    }
    size_t len = name ? strnlen(name, 255) : 0;
    bool room = true;
    if (cb->mark_count == cb->mark_cap) {
        size_t cap = cb->mark_cap ? 2 * cb->mark_cap : 8;
        wgprof_layer_mark *more = wgprof_layer_grow(cb->marks, cb->mark_count, cap, sizeof *more);
        room = more != NULL;
        if (more) {
            cb->marks = more;
            cb->mark_cap = cap;
        }
    }
    if (room && name && cb->label_len + len + 1 > cb->label_cap) {
        size_t cap = cb->label_cap ? cb->label_cap : 256;
        while (cap < cb->label_len + len + 1) {
            cap *= 2;
        }
        char *more = wgprof_layer_grow(cb->label_text, cb->label_len, cap, 1);
        room = more != NULL && cap <= UINT32_MAX;
        if (more) {
            cb->label_text = more;
            cb->label_cap = cap;
        }
    }
    if (!room) {
        cb->labels_lost = true;
        cb->mark_count = 0;
        cb->label_depth = 0;
        return;
    }
    wgprof_layer_mark m = {(uint32_t)cb->count, UINT32_MAX};
    if (name) {
        m.name = (uint32_t)cb->label_len;
        memcpy(cb->label_text + cb->label_len, name, len);
        cb->label_text[cb->label_len + len] = '\0';
        cb->label_len += len + 1;
        cb->label_depth++;
    } else {
        cb->label_depth--;
    }
    cb->marks[cb->mark_count++] = m;
}

/* Whether the program's debug labels are the scopes of a device's rows: not where record's
 * preload library tells them, nor where the layer keeps no rows (timestamps only). */
static bool labels_are_scopes(const wgprof_layer_device *d)
{
    return !scopes_from_preload(d) && !wgprof_layer_settings_get()->timestamps_only;
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer handle, const VkDebugUtilsLabelEXT *info)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    if (cb && labels_are_scopes(d)) {
        label_mark(cb, info && info->pLabelName ? info->pLabelName : "");
    }
    d->CmdBeginDebugUtilsLabelEXT(handle, info);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdEndDebugUtilsLabelEXT(VkCommandBuffer handle)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    if (cb && labels_are_scopes(d)) {
        label_mark(cb, NULL);
    }
    d->CmdEndDebugUtilsLabelEXT(handle);
}

/* The kernel's name for a dispatch of pipeline `p` (NULL: none bound) into `name`; returns where
 * the name came from, as the report's header and each kernel's name_source say. */
static const char *name_of(const wgprof_layer_pipeline *p, bool indirect, char name[WGPROF_LAYER_KERNEL_NAME_CAP])
{
    /* Dawn names every entry point of its SPIR-V so: it tells nothing, and is left out. */
    const char *entry = p && p->entry[0] && strcmp(p->entry, "dawn_entry_point") != 0 ? p->entry : "";
    const char *who = !p ? "unknown" : p->label[0] ? p->label : p->module_label[0] ? p->module_label : p->code;
    /* Where neither a name nor the entry point tells the code apart (a hash alone), its
     * workgroup size, as its SPIR-V states it, says a little more: spirv-2a44b44a[64x1x1]. */
    char size[48] = "";
    if (p && !entry[0] && who == p->code && p->local_size[0]) {
        snprintf(size, sizeof size, "[%ux%ux%u]", p->local_size[0], p->local_size[1], p->local_size[2]);
    }
    if (p && p->given[0]) { /* the program's, named as the webgpu.h way names it */
        snprintf(name, WGPROF_LAYER_KERNEL_NAME_CAP, "%s%s", p->given, indirect ? " (indirect)" : "");
    } else {
        snprintf(name, WGPROF_LAYER_KERNEL_NAME_CAP, "%s%s%s%s%s%s%s%s", p && p->own ? "(implementation) " : "",
                 who, size, entry[0] ? ":" : "", entry, p && p->origin[0] ? " @ " : "", p ? p->origin : "",
                 indirect ? " (indirect)" : "");
    }
    return !p                   ? "no pipeline bound"
           : p->given[0]        ? (p->given_source ? p->given_source : "webgpu.h")
           : p->own             ? "the implementation's own pipeline"
           : p->label[0]        ? "Vulkan pipeline name"
           : p->module_label[0] ? "Vulkan shader module name"
           : entry[0]           ? "SPIR-V hash and entry point"
                                : "SPIR-V hash and workgroup size";
}

/* The site of a dispatch of the bound pipeline with these workgroup counts (0: indirect). */
static bool site_of(wgprof_layer_cb *cb, uint32_t x, uint32_t y, uint32_t z, bool indirect, wgprof_site *out)
{
    wgprof_layer_pipeline *p = cb->bound;
    char name[WGPROF_LAYER_KERNEL_NAME_CAP];
    /* The pipeline's name made once (its source told the results then), not per workgroup counts. */
    const char *source = p ? name_cached(p, indirect, name) : NULL;
    bool made = !source;
    if (made) {
        source = name_of(p, indirect, name);
    }
    wgprof_dispatch_desc desc = {.kernel = name};
    if (p) {
        desc.workgroup_size[0] = p->local_size[0];
        desc.workgroup_size[1] = p->local_size[1];
        desc.workgroup_size[2] = p->local_size[2];
    }
    desc.workgroups[0] = x;
    desc.workgroups[1] = y;
    desc.workgroups[2] = z;
    wgprof_layer_device *d = cb->device;
    pthread_mutex_lock(&d->results_lock);
    bool ok = d->results && wgprof_pool_site(d->results, &desc, out) == WGPROF_OK &&
              (!made || wgprof_pool_kernel_source(d->results, name, source) == WGPROF_OK);
    pthread_mutex_unlock(&d->results_lock);
    if (ok && made && p) {
        name_keep(p, indirect, name, source);
    }
    return ok;
}

/* Before a dispatch of the program's on a device whose scopes come from record's preload
 * library: the scopes that library says begin and end before it (taken whether or not the
 * recording is timed, so that the next dispatch takes its own). */
static void take_scopes(wgprof_layer_cb *cb)
{
    if (!scopes_from_preload(cb->device) || (cb->bound && cb->bound->own)) {
        return;
    }
    enum { STEPS = 64 };
    const char *steps[STEPS];
    size_t n = g_dispatch_scopes(steps, STEPS);
    for (size_t i = 0; n != SIZE_MAX && i < n; i++) {
        label_mark(cb, steps[i]);
    }
}

/* Whether the next dispatch is timed under --sample-every N by kernel: its pipeline's 1st,
 * N+1th, 2N+1th... (counted across every command buffer), so that every kernel is timed at once
 * and then one dispatch in N of it, wherever it comes in the program's steps. */
static bool sampled_dispatch(wgprof_layer_cb *cb)
{
    const wgprof_layer_settings *settings = wgprof_layer_settings_get();
    if (!settings->sample_by_kernel || settings->sample_every <= 1 || !cb->bound) {
        return true;
    }
    /* The description is the layer's own, kept in its map; only its counter changes. */
    _Atomic uint64_t *seen = (_Atomic uint64_t *)&cb->bound->sampled;
    return atomic_fetch_add_explicit(seen, 1, memory_order_relaxed) % settings->sample_every == 0;
}

/* Before a dispatch: its timestamp, and its record; the device whose driver takes the
 * dispatch (one lookup: the command buffer's state knows its device). */
static wgprof_layer_device *before_dispatch(VkCommandBuffer handle, uint32_t x, uint32_t y, uint32_t z, bool indirect)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    if (!cb) {
        return d;
    }
    if (wgprof_layer_settings_get()->timestamps_only) { /* for measurement: the timestamp alone */
        if (!cb->untimed) {
            cb->work_kinds = 0;
            write_timestamp(cb);
        }
        return d;
    }
    atomic_fetch_add_explicit(&d->dispatches, 1, memory_order_relaxed);
    take_scopes(cb);
    if (cb->untimed) {
        atomic_fetch_add_explicit(cb->untimed_count, 1, memory_order_relaxed);
        cb->holds_untimed = true;
        return d;
    }
    if (cb->work_kinds) {
        close_work(cb);
    }
    if (!sampled_dispatch(cb)) {
        /* Not this one: the row before ends here, and a gap runs to the next row. */
        atomic_fetch_add_explicit(&d->untimed_sampled, 1, memory_order_relaxed);
        cb->holds_untimed = true;
        if (cb->count && !wgprof_layer_is_gap(cb->sites[cb->count - 1]) && open_row(cb, WGPROF_LAYER_GAP)) {
            cb->gaps++;
        }
        return d;
    }
    wgprof_site site;
    bool cached = cb->cached_valid && cb->cached_pipeline == cb->bound && cb->cached_indirect == indirect &&
                  cb->cached_counts[0] == x && cb->cached_counts[1] == y && cb->cached_counts[2] == z;
    wgprof_layer_pipeline *p = cb->bound;
    if (cached) {
        site = cb->cached_site;
    } else {
        /* The pipeline's last site, else one made (and kept there for the next). */
        bool kept = p && site_cached(p, x, y, z, indirect, &site);
        if (!kept && !site_of(cb, x, y, z, indirect, &site)) {
            cb->holds_untimed = true;
            return d;
        }
        if (p && !kept) {
            site_keep(p, x, y, z, indirect, site);
        }
        cb->cached_valid = true;
        cb->cached_pipeline = cb->bound;
        cb->cached_indirect = indirect;
        cb->cached_counts[0] = x;
        cb->cached_counts[1] = y;
        cb->cached_counts[2] = z;
        cb->cached_site = site;
    }
    if (!open_row(cb, site)) {
        cb->holds_untimed = true;
    }
    return d;
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdBindPipeline(VkCommandBuffer handle, VkPipelineBindPoint point,
                                                        VkPipeline pipeline)
{
    wgprof_layer_cb *cb = NULL;
    wgprof_layer_device *d = point == VK_PIPELINE_BIND_POINT_COMPUTE ? device_and_cb(handle, &cb)
                                                                     : wgprof_layer_device_of(handle);
    if (cb) {
        cb->bound = wgprof_layer_map_get(&wgprof_layer_pipelines, KEY(pipeline));
    }
    d->CmdBindPipeline(handle, point, pipeline);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdBindShadersEXT(VkCommandBuffer handle, uint32_t count,
                                                          const VkShaderStageFlagBits *stages, const VkShaderEXT *shaders)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    for (uint32_t i = 0; cb && i < count; i++) {
        if (stages[i] == VK_SHADER_STAGE_COMPUTE_BIT) {
            /* NULL shaders, or a null one: the stage unbound. */
            VkShaderEXT shader = shaders ? shaders[i] : VK_NULL_HANDLE;
            cb->bound = shader ? wgprof_layer_map_get(&wgprof_layer_shaders, KEY(shader)) : NULL;
        }
    }
    d->CmdBindShadersEXT(handle, count, stages, shaders);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdDispatch(VkCommandBuffer handle, uint32_t x, uint32_t y, uint32_t z)
{
    wgprof_layer_device *d = before_dispatch(handle, x, y, z, false);
    d->CmdDispatch(handle, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdDispatchBase(VkCommandBuffer handle, uint32_t bx, uint32_t by, uint32_t bz,
                                                        uint32_t x, uint32_t y, uint32_t z)
{
    wgprof_layer_device *d = before_dispatch(handle, x, y, z, false);
    d->CmdDispatchBase(handle, bx, by, bz, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdDispatchIndirect(VkCommandBuffer handle, VkBuffer buffer, VkDeviceSize offset)
{
    wgprof_layer_device *d = before_dispatch(handle, 0, 0, 0, true);
    d->CmdDispatchIndirect(handle, buffer, offset);
}

/* The row before ends here, a gap after it: what follows is not the layer's to time here (the
 * secondaries' own rows, a render pass). Where no timestamp can end it, the row would hold what
 * follows: the recording's rows are dropped at its end instead. */
static void end_row(wgprof_layer_cb *cb)
{
    if (cb && !cb->untimed && !cb->broken && cb->count && !wgprof_layer_is_gap(cb->sites[cb->count - 1])) {
        if (cb->work_kinds) {
            close_work(cb);
        }
        if (open_row(cb, WGPROF_LAYER_GAP)) {
            cb->gaps++;
        } else {
            cb->broken = true;
        }
    }
}

/* A render pass instance begins: the row before ends outside it (WGPROF_LAYER_PASS_BEGINS).
 * Returns the command buffer's device, found once, as before_work does. */
static wgprof_layer_device *before_pass(VkCommandBuffer handle)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    end_row(cb);
    return d;
}

#define PASS_HOOK(command, params, args)                                                                        \
    VKAPI_ATTR void VKAPI_CALL wgprof_layer_##command params { before_pass(h)->command args; }
WGPROF_LAYER_PASS_BEGINS(PASS_HOOK)

VKAPI_ATTR void VKAPI_CALL wgprof_layer_CmdExecuteCommands(VkCommandBuffer handle, uint32_t count,
                                                           const VkCommandBuffer *secondaries)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    end_row(cb);
    for (uint32_t i = 0; cb && i < count; i++) {
        wgprof_layer_cb *child = wgprof_layer_cb_of(secondaries[i]);
        if (!child) {
            continue;
        }
        if (cb->child_count == cb->child_cap) {
            size_t cap = cb->child_cap ? 2 * cb->child_cap : 4;
            wgprof_layer_cb **more = wgprof_layer_grow(cb->children, cb->child_count, cap, sizeof *more);
            if (!more) {
                break;
            }
            cb->children = more;
            cb->child_cap = cap;
        }
        cb->children[cb->child_count++] = child;
    }
    d->CmdExecuteCommands(handle, count, secondaries);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_EndCommandBuffer(VkCommandBuffer handle)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    if (cb && cb->work_kinds && wgprof_layer_settings_get()->timestamps_only) {
        cb->work_kinds = 0; /* no rows: timestamps only */
    } else if (cb && cb->work_kinds) {
        close_work(cb);
    }
    /* The chain's last timestamp: the end of the last row (and of what follows it); where the
     * chain stays open, the next command buffer's first in its batch, or a tail's. */
    bool open = cb && cb->count && cb->primary && !cb->broken && !d->chain_never &&
                !wgprof_layer_settings_get()->chain_per_cb && atomic_load_explicit(&d->chain_open, memory_order_relaxed);
    if (cb) {
        cb->open_end = open;
    }
    if (cb && cb->count && !open && (cb->broken || !write_timestamp(cb))) {
        pthread_mutex_lock(&d->lock);
        d->dropped += wgprof_layer_records(cb);
        pthread_mutex_unlock(&d->lock);
        cb->count = 0;
        cb->gaps = 0;
        cb->mark_count = 0;
        cb->label_depth = 0;
    }
    /* Where the device's results are read from the layer's buffer: a primary's queries, and
     * those of the secondaries it runs, copied there (a secondary may lie in a render pass). */
    if (cb && cb->primary && d->readback_buffer && !wgprof_layer_settings_get()->timestamps_only) {
        wgprof_layer_readback_record(d, handle, cb->blocks, cb->block_count, cb->ticks);
        for (size_t i = 0; i < cb->child_count; i++) {
            const wgprof_layer_cb *child = cb->children[i];
            wgprof_layer_readback_record(d, handle, child->blocks, child->block_count, child->ticks);
        }
    }
    return d->EndCommandBuffer(handle);
}

VKAPI_ATTR VkResult VKAPI_CALL wgprof_layer_ResetCommandBuffer(VkCommandBuffer handle, VkCommandBufferResetFlags flags)
{
    wgprof_layer_cb *cb;
    wgprof_layer_device *d = device_and_cb(handle, &cb);
    if (cb) {
        wgprof_layer_cb_release(cb, true);
    }
    return d->ResetCommandBuffer(handle, flags);
}

typedef struct device_match {
    const wgprof_layer_device *device;
    bool pools; /* matching pool records (their keys kept), else states */
    uint64_t *keys;
    void **found;
    size_t count, cap;
} device_match;

static void match_device(uint64_t key, void *value, void *user)
{
    device_match *m = user;
    const wgprof_layer_device *of = m->pools ? ((const wgprof_layer_pool *)value)->device
                                             : ((const wgprof_layer_cb *)value)->device;
    if (of == m->device && m->count < m->cap) {
        m->keys[m->count] = key;
        m->found[m->count++] = value;
    }
}

/* The device's values of the map (states or pool records), taken out of it (maps' lock);
 * m->found to free. */
static void take_device(wgprof_layer_map *map, device_match *m)
{
    m->count = 0;
    m->cap = map->count;
    m->keys = m->cap ? wgprof__calloc(m->cap, sizeof *m->keys) : NULL;
    m->found = m->keys ? wgprof__calloc(m->cap, sizeof *m->found) : NULL;
    if (m->found) {
        wgprof_layer_map_each(map, match_device, m);
        for (size_t i = 0; i < m->count; i++) {
            wgprof_layer_map_take(map, m->keys[i]);
        }
    }
    wgprof__free(m->keys);
}

void wgprof_layer_cbs_forget(wgprof_layer_device *d)
{
    device_match cbs = {.device = d}, pools = {.device = d, .pools = true};
    wgprof_layer_lock();
    take_device(&wgprof_layer_cbs, &cbs);
    take_device(&wgprof_layer_pools, &pools);
    wgprof_layer_unlock();
    for (size_t i = 0; i < cbs.count; i++) {
        cb_free(cbs.found[i]);
    }
    for (size_t i = 0; i < pools.count; i++) {
        pool_record_free(pools.found[i]);
    }
    wgprof__free(cbs.found);
    wgprof__free(pools.found);
}
