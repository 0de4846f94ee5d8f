/*
 * Defaults and the environment, in one place (config.c): every default value a zeroed
 * descriptor stands for, the functions that fill descriptors with them, and the one reader of
 * the environment variables that change behaviour without a rebuild.
 */
#ifndef WGPROF_CONFIG_H
#define WGPROF_CONFIG_H

#include "wgprof/wgprof.h"

#define WGPROF__DEFAULT_WAIT_TIMEOUT_S 60.0
enum {
    WGPROF__DEFAULT_INITIAL_CAPACITY = 256,   /* dispatches a new pool prepares query sets for */
    WGPROF__DEFAULT_READBACK_FRAMES = 3,      /* batches in flight at once */
    WGPROF__DEFAULT_CALIBRATION_SAMPLES = 8,  /* synchronous submissions of a clock fit */
    WGPROF__DEFAULT_SAMPLE_EVERY = 1          /* profile every execute */
};
/* Blocking executes re-fit the clocks this often. */
#define WGPROF__RECALIBRATE_NS 10000000000ull

/* What the environment says (README.md, "Environment"). */
typedef struct wgprof__environment {
    bool timestamp_query;       /* WEBGPU_TIMESTAMP_QUERY is 1, true, yes or on: profiling on */
    bool disable_timestamps;    /* WGPROF_DISABLE_TIMESTAMPS likewise: request no timestamp feature */
    wgprof_strategy strategy;   /* WGPROF_STRATEGY's, or auto (unset, or a name it is not) */
    const char *strategy_text;  /* WGPROF_STRATEGY as given (NULL: unset), for messages */
    const char *dawn_toggles;   /* WGPROF_DAWN_TOGGLES as given (NULL: unset): comma-separated
                                   Dawn device toggles to enable beside wgprof's own */
} wgprof__environment;

/* Reads every variable now. */
wgprof__environment wgprof__env_read(void);

/* `desc` (NULL: all defaults) with every zero replaced by its default. */
wgprof_pool_desc wgprof__pool_desc_defaults(const wgprof_pool_desc *desc);
/* `desc` with its own zeros replaced; the profiling switch and the strategy resolved against
 * the environment (DEFAULT becomes ON/OFF, and a strategy or AUTO); the pool's descriptor
 * filled too. WGPROF_ERR_INVALID_ARGUMENT for enum values out of range; the environment never
 * fails it (a value it cannot read is warned about once and taken as the default). */
wgprof_status wgprof__graph_desc_defaults(const wgprof_graph_desc *desc, wgprof_graph_desc *out);

#endif
