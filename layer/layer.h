/*
 * wgprof's Vulkan layer (libwgprof_layer.so): its contract with the CLI. `wgprof record --via
 * vulkan` enables it through the Vulkan loader's environment (the folder of its manifest on
 * VK_ADD_LAYER_PATH, its name on VK_INSTANCE_LAYERS) and passes it the same WGPROF_RECORD_*
 * settings as record's preload library (record/record.h); it writes its results into the same
 * folder, in the same files (PID.N.json, .txt, .meta, .done), so that the CLI reads either alike.
 */
#ifndef WGPROF_LAYER_H
#define WGPROF_LAYER_H

/* The layer's name, as the loader knows it. */
#define WGPROF_LAYER_NAME "VK_LAYER_WGPROF_timing"
/* Its manifest, written into the layer's build folder (and installed beside the library). */
#define WGPROF_LAYER_MANIFEST "VkLayer_wgprof_timing.json"
/* The implementation the report names ("implementation" in the JSON, the table's header). */
#define WGPROF_LAYER_IMPLEMENTATION "Vulkan layer (VK_LAYER_WGPROF_timing)"

#endif
