/*
 * wgprof record's protocol: what the CLI (cli/cmd_record.c) and the preload library it loads
 * into the program (libwgprof_record.so, this folder) agree on. Two processes, two builds of
 * one source: everything either side spells is spelled here once.
 *
 * The CLI sets the environment variables below in the program's environment, with the preload
 * library in LD_PRELOAD. The preload library writes one result set per device the program
 * creates into the folder WGPROF_RECORD_ENV_DIR names: PID.N.SUFFIX, where PID is the process,
 * N the device's index in that process (from 0, in creation order; after an exec, the new
 * image's go on after the old one's), and SUFFIX a report format's
 * (wgprof_format_suffix), or one of the two below. The JSON report and the table are written
 * for every set, the other formats where WGPROF_RECORD_ENV_FORMATS asks for them; a set is
 * complete once its marker file exists, written after everything else.
 */
#ifndef WGPROF_RECORD_H
#define WGPROF_RECORD_H

/* ---- environment: CLI -> preload library ---- */

/* The folder the result sets go to; unset or empty: the program runs unprofiled. It is private
 * to the CLI's user (mode 0700) but may lie in a folder someone else can write to (a hostile
 * TMPDIR), where it can be renamed away and a link put in its place: so the preload library
 * opens it once, with O_NOFOLLOW, takes it only if it is a folder of its user's, with no access
 * for anyone else and the identity below, and writes every file through that descriptor. */
#define RECORD_ENV_DIR "WGPROF_RECORD_DIR"
/* The folder's identity, "DEV:INO" in decimal (st_dev, st_ino), as the CLI made it. */
#define RECORD_ENV_DIR_ID "WGPROF_RECORD_DIR_ID"
/* The WebGPU implementation's library, for programs that do not link one by name. */
#define RECORD_ENV_LIBRARY "WGPROF_RECORD_LIBRARY"
/* The strategy: "chain" (the default) or "inside". */
#define RECORD_ENV_STRATEGY "WGPROF_RECORD_STRATEGY"
/* Time one command encoder in N (decimal, >= 1). */
#define RECORD_ENV_SAMPLE_EVERY "WGPROF_RECORD_SAMPLE_EVERY"
/* How the layer samples with SAMPLE_EVERY N > 1: "kernel" (the default: each pipeline's 1st,
 * N+1th, 2N+1th... dispatch timed, so that every kernel is in the report at about 1/N of the
 * cost) or "encoder" (one command buffer in N timed whole, as record's preload library samples
 * command encoders). */
#define RECORD_ENV_SAMPLE_BY "WGPROF_RECORD_SAMPLE_BY"
/* The report formats wanted besides JSON and the table: format names (wgprof_format_name),
 * separated by commas. */
#define RECORD_ENV_FORMATS "WGPROF_RECORD_FORMATS"
/* Set where the CLI enabled wgprof's Vulkan layer beside the preload library (`--via auto`): the
 * absolute path of the layer's library (libwgprof_layer.so). A device whose adapter is on Vulkan
 * while that library is loaded in the process (the Vulkan loader loads it for every instance) is
 * the layer's to time: the preload library then times nothing of it and only asks the
 * implementation to pass the program's labels down to Vulkan, where the layer names its
 * pipelines after them. Any other device (another back end, no Vulkan loader, the layer not
 * loaded) the preload library times itself, as without this variable. */
#define RECORD_ENV_LAYER "WGPROF_RECORD_LAYER"
/* The preload library's count of the WebGPU devices it left to the layer so far, a function
 * `unsigned NAME(void)` it exports (it is preloaded: found with dlsym(RTLD_DEFAULT)). It counts
 * each one before the implementation creates it: a Vulkan device the layer sees created while
 * the count is above those it has taken is such a device, its pipelines' names the program's
 * labels. */
#define RECORD_SYMBOL_LEFT_TO_LAYER "wgprof_record_left_to_layer"
/* The layer's end of the process's image, a function `void NAME(void)` the layer exports: its
 * devices' results collected and written for good, as at exit. The preload library calls it
 * (found in the layer's library, RECORD_ENV_LAYER, opened with RTLD_NOLOAD) before an exec
 * replaces the image, where no exit handler runs. */
#define RECORD_SYMBOL_LAYER_END_IMAGE "wgprof_layer_end_image"
/* The layer's end at _exit: `void NAME(void (*end)(void))`, which this library exports and the
 * layer calls once, as it starts watching its process's end (its first device under record).
 * This library's _exit and _Exit call `end` first, which writes the layer's devices' results for
 * good (or gives up after a bounded wait: layer_term.c) and returns. */
#define RECORD_SYMBOL_EXIT_WATCH "wgprof_record_exit_watch"
/* The name of the compute pipeline the calling thread is making through webgpu.h right now, as
 * this library names a pipeline's dispatches ("label:entry", record's rules), NULL where it makes
 * none, with where the name came from in *source ("pipeline label", a static string; NULL with
 * no name): a function `const char *NAME(const char **source)` the preload library exports. The layer asks it in
 * vkCreateComputePipelines, on the thread the implementation makes the Vulkan pipeline on: a
 * name is the program's pipeline's, passed down without asking the implementation to change
 * what it makes; no name, on a device left to the layer while no asynchronous creation is
 * pending (the count below), is a pipeline the implementation made for its own work (Dawn's
 * timestamp conversion, say). */
#define RECORD_SYMBOL_PIPELINE_NAME "wgprof_record_pipeline_name"
/* The program's asynchronous pipeline creations pending: `unsigned NAME(char *sole, size_t cap,
 * const char **source)`, how many; where exactly one is pending and the calling thread is not
 * the one that asked for it (an implementation's worker making it: Dawn's), its name in `sole`
 * and where that came from in *source, else "" and NULL. While any is
 * pending, a pipeline made on another thread may be the program's; with several, which is
 * which cannot be told. */
#define RECORD_SYMBOL_PENDING_PIPELINES "wgprof_record_pending_pipelines"
/* The scopes of the program's next dispatch in the commands the implementation is recording on
 * the calling thread: `size_t NAME(const char **steps, size_t cap)`. While the program's
 * wgpuCommandEncoderFinish or wgpuQueueSubmit runs on that thread (wgpu-native records an
 * encoder's Vulkan commands at its finish, Dawn a submit's at the submit), this library holds
 * the program's pass labels, debug groups and dispatches as it encoded them; each call hands out
 * the steps before the program's next dispatch (a scope begun: its name, "" for none; one ended:
 * NULL), at most `cap`, returns how many, and passes that dispatch. SIZE_MAX where nothing is held
 * on this thread, all was handed out, or what is held is not whole (out of memory). The layer
 * asks it at each dispatch of a pipeline of the program's on a device left to it, whose scopes
 * then come from here alone. */
#define RECORD_SYMBOL_DISPATCH_SCOPES "wgprof_record_dispatch_scopes"
/* What the layer's reports name as their "implementation" for such a device: times taken by the
 * layer, kernel names from the labels the program gave through webgpu.h (where the
 * implementation passed them down; else the layer's own SPIR-V names). */
#define RECORD_LAYER_WITH_LABELS "Vulkan layer (VK_LAYER_WGPROF_timing), names from webgpu.h labels"

/* ---- result sets: preload library -> CLI ---- */

/* The report that names a set: PID.N.json (wgprof_format_suffix(WGPROF_FORMAT_JSON)). */
/* What was not timed, and why: "key value" lines, the keys below, values in decimal. */
#define RECORD_SUFFIX_META "meta"
/* The set is complete: written last, empty. A set without it is what was collected before the
 * program ended. */
#define RECORD_SUFFIX_DONE "done"
/* Some of the set's files could not be written (a full filesystem, say): empty, made where
 * that happened (an empty file needs no room), after the writer said why on stderr. */
#define RECORD_SUFFIX_UNWRITTEN "unwritten"
/* PID.why: one line, written at the exit of a process that made no WebGPU call wgprof saw but
 * holds an implementation its calls went around (compiled in, or loaded under another name). */
#define RECORD_SUFFIX_WHY "why"

/* The program was stopped before its first WebGPU call, for the reason this file holds (one
 * line): it asked for wgpu-native and would have been handed another implementation. The
 * process ends with the status below; wgprof record exits with it too (bad usage). */
#define RECORD_FILE_REFUSED "refused"
#define RECORD_EXIT_REFUSED 2

#define RECORD_META_PID "pid"
#define RECORD_META_START "start" /* the process's start (common.h's process_start; 0: unknown): record
                                    waits for a process still running with a set not done */
#define RECORD_META_DEVICE "device"
#define RECORD_META_DISPATCHES "dispatches"           /* encoded, timed or not */
#define RECORD_META_UNTIMED_OVERLAP "untimed_overlap" /* in an encoder recorded while every lane was held */
#define RECORD_META_UNTIMED_SAMPLED "untimed_sampled" /* in encoders the sampling skipped */
#define RECORD_META_DISCARDED "discarded"             /* in encoders never submitted */
#define RECORD_META_UNTIMED_SIMULTANEOUS "untimed_simultaneous" /* in command buffers that may run twice at
                                                                   once (Vulkan's simultaneous use) */
#define RECORD_META_UNTIMED_NO_TIMESTAMPS "untimed_no_timestamps" /* on a queue or device without usable
                                                                     timestamps (none, a counter narrower
                                                                     than the device's, or no period) */
#define RECORD_META_SAMPLE_EVERY "sample_every"
#define RECORD_META_DROPPED "dropped" /* timed, but their timestamps could not be kept (out of memory, a
                                         command buffer reset before they were there) */

#endif
