/*
 * The readback ring's frames: each a MapRead buffer per query set, created the first time a
 * batch needs that many, kept for the pool's life, and handed from batch to batch.
 */
#include "recorder_internal.h"
#include "webgpu_ext.h"

uint32_t wgprof__newest_frame(const wgprof_pool *pool)
{
    uint32_t ring = pool->settings.readback_frames;
    return (pool->next_frame + ring - 1) % ring;
}

wgprof_status wgprof__frame_readbacks(wgprof_pool *pool, wgprof__frame *frame, uint32_t sets)
{
    if (sets <= frame->readback_count) {
        return WGPROF_OK;
    }
    WGPUBuffer *buffers = wgprof__grow(frame->readbacks, frame->readback_count * sizeof *buffers, sets * sizeof *buffers);
    if (!buffers) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    frame->readbacks = buffers;
    wgprof__waiter **maps = wgprof__grow(frame->maps, frame->readback_count * sizeof *maps, sets * sizeof *maps);
    if (!maps) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    frame->maps = maps;
    for (; frame->readback_count < sets; frame->readback_count++) {
        WGPUBufferDescriptor md = {0};
        md.label = (WGPUStringView){"wgprof readback", WGPU_STRLEN};
        md.size = WGPROF__QUERIES_PER_SET * sizeof(uint64_t);
        md.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
        buffers[frame->readback_count] = wgprof__wgpu()->deviceCreateBuffer(pool->device->device, &md);
        if (!buffers[frame->readback_count]) {
            wgprof__log(WGPROF_LOG_ERROR, "creating a readback buffer failed");
            return WGPROF_ERR_WEBGPU;
        }
    }
    return WGPROF_OK;
}

void wgprof__release_oldest(wgprof_pool *pool)
{
    wgprof__frame *frame = &pool->frames[pool->oldest_frame];
    frame->state = WGPROF__FRAME_FREE;
    frame->sets_used = 0;
    pool->oldest_frame = (pool->oldest_frame + 1) % pool->settings.readback_frames;
    pool->in_flight--;
}

void wgprof__free_frames(wgprof_pool *pool)
{
    for (uint32_t f = 0; pool->frames && f < pool->settings.readback_frames; f++) {
        wgprof__frame *frame = &pool->frames[f];
        for (uint32_t i = 0; i < frame->readback_count; i++) {
            if (frame->state == WGPROF__FRAME_MAPPING && i < frame->sets_used) {
                wgprof__waiter_release(frame->maps[i]);
            }
            wgprof__wgpu()->bufferRelease(frame->readbacks[i]);
        }
        wgprof__free(frame->readbacks);
        wgprof__free(frame->maps);
    }
    wgprof__free(pool->frames);
}
