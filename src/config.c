/*
 * Defaults and the environment (config.h). Descriptors are filled here and nowhere else, and
 * this is the only file that calls getenv: one function reads every variable into one
 * structure, each time a device or a graph is created (so that a program may change them
 * between two creations).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "internal.h"

/* Each variable's warning is logged once per process, however often it is read. */
enum { WARN_TIMESTAMP_QUERY, WARN_DISABLE_TIMESTAMPS, WARN_STRATEGY, WARN_COUNT };
static atomic_bool g_warned[WARN_COUNT];

static void warn_once(int which, const char *fmt, const char *name, const char *value)
{
    if (!atomic_exchange(&g_warned[which], true)) {
        wgprof__log(WGPROF_LOG_WARN, fmt, name, value);
    }
}

/* A switch: 1, true, yes, on; 0, false, no, off or unset (any case). Anything else is off,
 * with a warning: a typo must not turn profiling on, nor stop the work. */
static bool flag(const char *name, int which)
{
    static const char *const on[] = {"1", "true", "yes", "on"};
    static const char *const off[] = {"", "0", "false", "no", "off"};
    const char *v = getenv(name);
    if (!v) {
        return false;
    }
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        if (strcasecmp(v, on[i]) == 0) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        if (strcasecmp(v, off[i]) == 0) {
            return false;
        }
    }
    warn_once(which, "%s=%s: expected 1, true, yes, on or 0, false, no, off; taken as off", name, v);
    return false;
}

wgprof__environment wgprof__env_read(void)
{
    wgprof__environment env = {0};
    env.timestamp_query = flag("WEBGPU_TIMESTAMP_QUERY", WARN_TIMESTAMP_QUERY);
    env.disable_timestamps = flag("WGPROF_DISABLE_TIMESTAMPS", WARN_DISABLE_TIMESTAMPS);
    env.strategy_text = getenv("WGPROF_STRATEGY");
    env.dawn_toggles = getenv("WGPROF_DAWN_TOGGLES");
    env.strategy = WGPROF_STRATEGY_AUTO;
    if (env.strategy_text && !wgprof_strategy_from_str(env.strategy_text, &env.strategy)) {
        warn_once(WARN_STRATEGY, "%s=%s: expected auto, pass, inside or chain; auto is used", "WGPROF_STRATEGY",
                  env.strategy_text);
        env.strategy = WGPROF_STRATEGY_AUTO;
    }
    return env;
}

wgprof_pool_desc wgprof__pool_desc_defaults(const wgprof_pool_desc *desc)
{
    wgprof_pool_desc d = desc ? *desc : (wgprof_pool_desc){0};
    d.initial_capacity = d.initial_capacity ? d.initial_capacity : WGPROF__DEFAULT_INITIAL_CAPACITY;
    if (d.max_dispatches && d.initial_capacity > d.max_dispatches) {
        d.initial_capacity = d.max_dispatches;
    }
    d.readback_frames = d.readback_frames ? d.readback_frames : WGPROF__DEFAULT_READBACK_FRAMES;
    return d;
}

const char *wgprof_strategy_str(wgprof_strategy s)
{
    switch (s) {
    case WGPROF_STRATEGY_PASS: return "pass";
    case WGPROF_STRATEGY_INSIDE: return "inside";
    case WGPROF_STRATEGY_CHAIN: return "chain";
    case WGPROF_STRATEGY_AUTO:
    case WGPROF_STRATEGY_DEFAULT: return "auto";
    }
    return "unknown";
}

bool wgprof_strategy_from_str(const char *name, wgprof_strategy *out)
{
    static const wgprof_strategy named[] = {WGPROF_STRATEGY_AUTO, WGPROF_STRATEGY_PASS, WGPROF_STRATEGY_INSIDE,
                                            WGPROF_STRATEGY_CHAIN};
    for (size_t i = 0; name && out && i < sizeof named / sizeof named[0]; i++) {
        if (strcmp(name, wgprof_strategy_str(named[i])) == 0 || (!name[0] && i == 0)) {
            *out = named[i];
            return true;
        }
    }
    return false;
}

wgprof_status wgprof__graph_desc_defaults(const wgprof_graph_desc *desc, wgprof_graph_desc *out)
{
    wgprof_graph_desc d = desc ? *desc : (wgprof_graph_desc){0};
    if ((unsigned)d.layout > WGPROF_LAYOUT_SINGLE_PASS || (unsigned)d.strategy > WGPROF_STRATEGY_CHAIN ||
        (unsigned)d.profiling > WGPROF_PROFILING_OFF) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    wgprof__environment env = wgprof__env_read();
    if (d.strategy == WGPROF_STRATEGY_DEFAULT) {
        d.strategy = env.strategy;
    }
    if (d.profiling == WGPROF_PROFILING_DEFAULT) {
        d.profiling = env.timestamp_query ? WGPROF_PROFILING_ON : WGPROF_PROFILING_OFF;
    }
    d.sample_every = d.sample_every ? d.sample_every : WGPROF__DEFAULT_SAMPLE_EVERY;
    d.calibration_samples = d.calibration_samples ? d.calibration_samples : WGPROF__DEFAULT_CALIBRATION_SAMPLES;
    d.pool = wgprof__pool_desc_defaults(&d.pool);
    *out = d;
    return WGPROF_OK;
}
