/*
 * The program's own GPU work on a command encoder between its compute passes (copies, clears,
 * render passes, query resolves and timestamps): before each, the end the encoder's chain owes
 * its last dispatch is written and the work is timed as a record of its own (record_chain.c),
 * so that its time is no dispatch's. The calls themselves go through unchanged.
 */
#include "record_lib.h"

/* Tells the encoder's chain that work of `kind` comes next. */
static void settle(WGPUCommandEncoder enc, wgprof_rec_work kind)
{
    if (wgprof_rec_active() && !wgprof_rec_settings_get()->inside) {
        wgprof_rec_lane *lane = wgprof_rec_lane_enter(wgprof_rec_encoder_lane(enc));
        wgprof_rec_chain_work(lane, enc, kind);
        wgprof_rec_lane_leave(lane);
    }
}

WGPROF_REC_EXPORT WGPURenderPassEncoder wgpuCommandEncoderBeginRenderPass(WGPUCommandEncoder enc,
                                                                          WGPURenderPassDescriptor const *descriptor)
{
    settle(enc, WGPROF_REC_WORK_RENDER_PASS);
    return wgprof_rec_real()->commandEncoderBeginRenderPass(enc, descriptor);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderClearBuffer(WGPUCommandEncoder enc, WGPUBuffer buffer, uint64_t offset,
                                                     uint64_t size)
{
    settle(enc, WGPROF_REC_WORK_CLEAR);
    wgprof_rec_real()->commandEncoderClearBuffer(enc, buffer, offset, size);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder enc, WGPUBuffer source,
                                                            uint64_t sourceOffset, WGPUBuffer destination,
                                                            uint64_t destinationOffset, uint64_t size)
{
    settle(enc, WGPROF_REC_WORK_COPY);
    wgprof_rec_real()->commandEncoderCopyBufferToBuffer(enc, source, sourceOffset, destination,
                                                            destinationOffset, size);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderCopyBufferToTexture(WGPUCommandEncoder enc,
                                                             WGPUTexelCopyBufferInfo const *source,
                                                             WGPUTexelCopyTextureInfo const *destination,
                                                             WGPUExtent3D const *copySize)
{
    settle(enc, WGPROF_REC_WORK_COPY);
    wgprof_rec_real()->commandEncoderCopyBufferToTexture(enc, source, destination, copySize);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderCopyTextureToBuffer(WGPUCommandEncoder enc,
                                                             WGPUTexelCopyTextureInfo const *source,
                                                             WGPUTexelCopyBufferInfo const *destination,
                                                             WGPUExtent3D const *copySize)
{
    settle(enc, WGPROF_REC_WORK_COPY);
    wgprof_rec_real()->commandEncoderCopyTextureToBuffer(enc, source, destination, copySize);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderCopyTextureToTexture(WGPUCommandEncoder enc,
                                                              WGPUTexelCopyTextureInfo const *source,
                                                              WGPUTexelCopyTextureInfo const *destination,
                                                              WGPUExtent3D const *copySize)
{
    settle(enc, WGPROF_REC_WORK_COPY);
    wgprof_rec_real()->commandEncoderCopyTextureToTexture(enc, source, destination, copySize);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder enc, WGPUQuerySet querySet,
                                                         uint32_t firstQuery, uint32_t queryCount,
                                                         WGPUBuffer destination, uint64_t destinationOffset)
{
    settle(enc, WGPROF_REC_WORK_RESOLVE);
    wgprof_rec_real()->commandEncoderResolveQuerySet(enc, querySet, firstQuery, queryCount, destination,
                                                         destinationOffset);
}

WGPROF_REC_EXPORT void wgpuCommandEncoderWriteTimestamp(WGPUCommandEncoder enc, WGPUQuerySet querySet,
                                                        uint32_t queryIndex)
{
    settle(enc, WGPROF_REC_WORK_TIMESTAMP);
    wgprof_rec_real()->commandEncoderWriteTimestamp(enc, querySet, queryIndex);
}
