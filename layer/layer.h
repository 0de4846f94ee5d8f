/*
 * wgprof's Vulkan layer (libwgprof_layer.so): its contract with the CLI. `wgprof record --via
 * vulkan` enables it through the Vulkan loader's environment (its implicit manifest's folder
 * searched, WGPROF_LAYER_ENABLE=1; see below) and passes it the same WGPROF_RECORD_*
 * settings as record's preload library (record/record.h); it writes its results into the same
 * folder, in the same files (PID.N.json, .txt, .meta, .done), so that the CLI reads either alike.
 */
#ifndef WGPROF_LAYER_H
#define WGPROF_LAYER_H

/* The layer's name, as the loader knows it. */
#define WGPROF_LAYER_NAME "VK_LAYER_WGPROF_timing"
/* Its manifest, written into the layer's build folder (and installed beside the library). */
#define WGPROF_LAYER_MANIFEST "VkLayer_wgprof_timing.json"
/* The same layer as an implicit one, in the layer's folder: its manifest at
 * ROOT/vulkan/implicit_layer.d/ (ROOT on XDG_CONFIG_DIRS, or that folder on the user's
 * VK_IMPLICIT_LAYER_PATH), enabled by WGPROF_LAYER_ENABLE=1. Enabled so, the loader says nothing
 * above its info level, where VK_INSTANCE_LAYERS and VK_LOADER_LAYERS_ENABLE each make it warn
 * the program's debug messenger, and log, at every instance. */
#define WGPROF_LAYER_IMPLICIT_ROOT "wgprof-implicit-layer"
#define WGPROF_LAYER_IMPLICIT_DIR WGPROF_LAYER_IMPLICIT_ROOT "/vulkan/implicit_layer.d"
#define WGPROF_LAYER_ENABLE_ENV "WGPROF_LAYER_ENABLE"
/* How the chain of the layer's timestamps ends a primary command buffer's last row:
 * "submit" (the default) at the next command buffer's first timestamp
 * in the same batch of a submit, or at a timestamp of the layer's own after the batch's last (a
 * command buffer of the layer's added to the batch), which saves one timestamp a command buffer
 * where an implementation records one a pass (wgpu-native) and charges the time between them
 * to the row before; a command buffer between them with no row and no work left untimed
 * (wgpu-native's of barriers before each pass) leaves the chain open; "command-buffer" with a
 * timestamp of its own, as a secondary one always does. On an H100, "submit" halved the GPU
 * cost of wgpu-native's timestamps and its rows add up to the step's GPU span (BENCHMARKS.md
 * section 18). */
#define WGPROF_LAYER_CHAIN_ENV "WGPROF_LAYER_CHAIN"
#define WGPROF_LAYER_CHAIN_PER_CB "command-buffer"
/* Where the layer reads its timestamps from: "query", its query pools (vkGetQueryPoolResults);
 * "buffer", a buffer of its own that each command buffer it times copies its queries into at its
 * end (a copy and a barrier more on the GPU, and plain memory to read on any thread); unset,
 * "buffer" on a CPU device (lavapipe, where reading a query pool waits for the
 * whole device, and is not safe beside the program's submits from another thread), else
 * "query". */
#define WGPROF_LAYER_READBACK_ENV "WGPROF_LAYER_READBACK"
/* For measurement only: set to 1, the layer writes one timestamp before each row it would time
 * (each dispatch, each run of transfer work) and does nothing else: no names, no records, no
 * chain's end, nothing read back, no report. A benchmark runs it in the same rounds as the
 * layer itself, so that what the layer's bookkeeping costs is told from what its timestamps cost
 * the hardware. */
#define WGPROF_LAYER_TIMESTAMPS_ONLY_ENV "WGPROF_LAYER_TIMESTAMPS_ONLY"
/* The values each setting above takes, "|" between them; unset or empty, a setting has its
 * default. The layer tells any other value on stderr, once, and keeps the default; `wgprof
 * record` refuses it before the program runs (exit 2). */
#define WGPROF_LAYER_CHAIN_VALUES "submit|" WGPROF_LAYER_CHAIN_PER_CB
#define WGPROF_LAYER_READBACK_VALUES "query|buffer"
#define WGPROF_LAYER_TIMESTAMPS_ONLY_VALUES "0|1"
/* A setting's value in a message that refuses it: at most so many characters, then "...", so
 * that the reason still fits (the CLI's refusal and the layer's own say it alike). */
#define WGPROF_LAYER_VALUE_SHOWN 64
/* Each of them: X(variable, values). */
#define WGPROF_LAYER_USER_SETTINGS(X)                                                                              \
    X(WGPROF_LAYER_CHAIN_ENV, WGPROF_LAYER_CHAIN_VALUES)                                                           \
    X(WGPROF_LAYER_READBACK_ENV, WGPROF_LAYER_READBACK_VALUES)                                                     \
    X(WGPROF_LAYER_TIMESTAMPS_ONLY_ENV, WGPROF_LAYER_TIMESTAMPS_ONLY_VALUES)
/* The implementation the report names ("implementation" in the JSON, the table's header). */
#define WGPROF_LAYER_IMPLEMENTATION "Vulkan layer (VK_LAYER_WGPROF_timing)"

#endif
