/*
 * The layer's results read from buffers of its own (WGPROF_LAYER_READBACK_ENV, layer.h). On
 * lavapipe, vkGetQueryPoolResults begins by waiting for the whole device, and that wait is not
 * safe beside a submit of the program's on another thread (it touches every queue): the layer's
 * reader could not read there without racing the program. So each command buffer the layer times
 * copies its queries, at its end, into a host-visible buffer (one a query pool), and the reader
 * reads plain memory, on any thread, without a call into the driver; a block's place there is
 * cleared before the block's next use.
 */
#include <string.h>

#include "internal.h"
#include "layer_lib.h"

enum { PAIR = 2 * sizeof(uint64_t), POOL_BYTES = WGPROF_LAYER_POOL_QUERIES * PAIR };

/* A memory type of `bits` that the host sees without flushes; UINT32_MAX where none. */
static uint32_t host_type(const VkPhysicalDeviceMemoryProperties *m, uint32_t bits)
{
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t t = 0; t < m->memoryTypeCount && t < 32; t++) {
        if ((bits >> t & 1u) && (m->memoryTypes[t].propertyFlags & want) == want) {
            return t;
        }
    }
    return UINT32_MAX;
}

bool wgprof_layer_readback_make(wgprof_layer_device *d, wgprof_layer_query_pool *p)
{
    p->buffer = VK_NULL_HANDLE;
    p->memory = VK_NULL_HANDLE;
    p->mapped = NULL;
    if (!d->readback_buffer) {
        return true;
    }
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                               .size = POOL_BYTES,
                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (d->CreateBuffer(d->handle, &info, NULL, &p->buffer) != VK_SUCCESS) {
        p->buffer = VK_NULL_HANDLE;
        return false;
    }
    VkMemoryRequirements need;
    d->GetBufferMemoryRequirements(d->handle, p->buffer, &need);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                  .allocationSize = need.size,
                                  .memoryTypeIndex = host_type(&d->memory, need.memoryTypeBits)};
    void *mapped = NULL;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    bool ok = alloc.memoryTypeIndex != UINT32_MAX && d->AllocateMemory(d->handle, &alloc, NULL, &memory) == VK_SUCCESS;
    p->memory = ok ? memory : VK_NULL_HANDLE;
    ok = ok && d->BindBufferMemory(d->handle, p->buffer, p->memory, 0) == VK_SUCCESS;
    ok = ok && d->MapMemory(d->handle, p->memory, 0, VK_WHOLE_SIZE, 0, &mapped) == VK_SUCCESS && mapped;
    if (!ok) {
        wgprof_layer_readback_free(d, p);
        return false;
    }
    p->mapped = mapped;
    wgprof_layer_copy_clear(p->mapped, WGPROF_LAYER_POOL_QUERIES);
    return true;
}

void wgprof_layer_readback_free(wgprof_layer_device *d, wgprof_layer_query_pool *p)
{
    if (p->buffer) {
        d->DestroyBuffer(d->handle, p->buffer, NULL);
    }
    if (p->memory) {
        d->FreeMemory(d->handle, p->memory, NULL); /* unmapped with it */
    }
    p->buffer = VK_NULL_HANDLE;
    p->memory = VK_NULL_HANDLE;
    p->mapped = NULL;
}

void wgprof_layer_readback_record(wgprof_layer_device *d, VkCommandBuffer handle, const wgprof_layer_block *blocks,
                                  size_t block_count, uint32_t ticks)
{
    if (!d->readback_buffer || !ticks) {
        return;
    }
    const VkQueryResultFlags flags =
        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT | VK_QUERY_RESULT_WAIT_BIT;
    for (size_t b = 0; b < block_count && ticks; b++) {
        uint32_t n = ticks < WGPROF_LAYER_BLOCK ? ticks : WGPROF_LAYER_BLOCK;
        ticks -= n;
        /* Every one of the n was written before, in this command buffer: the wait ends. */
        d->CmdCopyQueryPoolResults(handle, blocks[b].pool, blocks[b].first, n, blocks[b].buffer,
                                   (VkDeviceSize)blocks[b].first * PAIR, PAIR, flags);
    }
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    d->CmdPipelineBarrier(handle, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL,
                          0, NULL);
}
