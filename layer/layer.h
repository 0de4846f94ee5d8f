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
/* The implementation the report names ("implementation" in the JSON, the table's header). */
#define WGPROF_LAYER_IMPLEMENTATION "Vulkan layer (VK_LAYER_WGPROF_timing)"

#endif
