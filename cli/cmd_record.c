/*
 * wgprof record: runs an unmodified program with libwgprof_record.so preloaded (record/) and
 * wgprof's Vulkan layer enabled through the Vulkan loader's environment (layer/), or with one of
 * them alone (--via webgpu, --via vulkan). Beside each other, the layer times every device on
 * Vulkan, named after the labels the preload library has the implementation pass down, and the
 * preload library times the WebGPU devices on any other back end (record.h, RECORD_ENV_LAYER).
 * Each device's results go into a private folder; when the program ends, prints the per-kernel
 * tables, each under a line saying how its times were taken, writes the reports asked for
 * to their paths (where several processes or devices made results, each report holds every
 * result set: record_sets.c) and exits with the program's own status (128 + N for signal N, as
 * a shell does).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "layer.h"
#include "record.h"
#include "record_sets.h"
#include "common.h"

/* The layer's name as the loader knows it, and its manifest's file name: what the layer's own
 * contract (layer/layer.h) spells. Its library, as its manifest names it, beside the manifest. */
#define LAYER_LIBRARY "libwgprof_layer.so"

static const char record_usage[] =
    "usage: wgprof record [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM, unmodified, and times each compute dispatch it makes through the WebGPU C API\n"
    "(programs linked to wgpu-native or Dawn, and wgpu-py scripts) or through Vulkan: the\n"
    "per-kernel table is printed on stderr when it ends, under a line saying how its times were\n"
    "taken. Kernels are named after their compute pipeline's label and entry point (label:entry);\n"
    "compute pass labels and debug groups become scopes.\n"
    "\n"
    "options:\n"
    "  --via auto|webgpu|vulkan\n"
    "                       where dispatches are timed. auto (the default where wgprof's Vulkan\n"
    "                       layer is beside wgprof, else webgpu): both of the below; a device on\n"
    "                       Vulkan is timed by the layer alone, its kernels named and its scopes\n"
    "                       made after the labels the program gives through the WebGPU C API\n"
    "                       (told to the layer in process: nothing is asked of the\n"
    "                       implementation), a device on another back end through the\n"
    "                       WebGPU C API. webgpu: through the WebGPU C API only, by a library\n"
    "                       preloaded into PROGRAM, with the implementation's timestamp queries.\n"
    "                       vulkan: through wgprof's Vulkan layer (" WGPROF_LAYER_NAME ") only,\n"
    "                       enabled for PROGRAM by the Vulkan loader's environment: programs with\n"
    "                       WebGPU compiled in (ONNX Runtime's WebGPU EP, Rust wgpu, Chromium) and\n"
    "                       plain Vulkan programs; kernels are named after debug-utils names, else\n"
    "                       the SPIR-V's entry point\n"
    "  --webgpu IMPL        wgpu-native, dawn or a library's path: as 'wgprof --webgpu IMPL record'\n"
    "  --json FILE          the JSON report: every dispatch, kernel and scope\n"
    "  --html FILE          the HTML report: timeline, charts, tables\n"
    "  --trace FILE         a Chrome trace (Perfetto, chrome://tracing)\n"
    "  --csv FILE           every dispatch, one row each\n"
    "  --strategy S         chain (default: one timestamp per dispatch) or inside (two), through\n"
    "                       the WebGPU C API (the layer always chains)\n"
    "  --sample-every N     time about one dispatch in N (default 1: all): through the layer each\n"
    "                       kernel's 1st, N+1th, 2N+1th... dispatch, so that every kernel is in the\n"
    "                       report (its count is how many were timed); through the WebGPU C API\n"
    "                       one command encoder in N\n"
    "  --sample-by kernel|encoder\n"
    "                       encoder: the layer too times one command buffer in N, whole\n"
    "  --baseline FILE      compare each device's results with FILE, an earlier JSON report, as\n"
    "                       'wgprof diff FILE' would; printed after its table\n"
    "  -h, --help           this help\n"
    "\n"
    "Where several processes or devices make results (a process that execs: each image's), each\n"
    "FILE holds them all: the JSON report a list of result sets, each a report as one device's\n"
    "alone; the trace each set's processes; the CSV a first column `set`; the HTML page each\n"
    "set's page (docs/reports.md). The implementation is the one PROGRAM\n"
    "links or loads; --webgpu names it for programs that load it by path (wgpu-py:\n"
    "WGPU_LIB_PATH; wgpu-py needs wgpu-native). A FILE that is PROGRAM, a file its ARGS name, or\n"
    "another FILE is refused before PROGRAM runs.\n"
    "\n"
    "--via auto and --via vulkan enable the layer as an implicit layer: its folder first on\n"
    "XDG_CONFIG_DIRS (after yours on VK_IMPLICIT_LAYER_PATH, where you set it) and\n"
    "WGPROF_LAYER_ENABLE=1 (and its name on VK_LOADER_LAYERS_ENABLE where a loader filter is\n"
    "set), so that the loader warns the program of nothing; the layers VK_INSTANCE_LAYERS names\n"
    "stay enabled below it: they see the program's calls as wgprof passes them on. Where\n"
    "VK_INSTANCE_LAYERS names it already, it is left there, its folder first on\n"
    "VK_ADD_LAYER_PATH (and after yours on VK_LAYER_PATH).\n"
    "\n"
    "exit status: PROGRAM's own (128 + N when signal N ended it); 2 bad usage (also a program that\n"
    "needs wgpu-native given Dawn, stopped before it starts its work); 127 PROGRAM not found, 126\n"
    "not executable\n";

enum { EXIT_NOT_FOUND = 127, EXIT_NOT_EXECUTABLE = 126 };

/* Where dispatches are timed (--via). */
typedef enum record_via {
    VIA_AUTO,   /* the layer beside the preload library where the layer is there, else VIA_WEBGPU */
    VIA_WEBGPU, /* the preload library alone */
    VIA_VULKAN, /* the layer alone */
} record_via;

typedef struct record_options {
    const char *files[WGPROF_FORMAT_COUNT];
    const char *baseline;
    const char *strategy;
    const char *webgpu; /* --webgpu after `record`, or NULL */
    record_via via;
    unsigned long sample_every;
    const char *sample_by; /* "kernel" or "encoder" */
    char **program; /* argv of the program, NULL-terminated */
} record_options;

static int parse(int argc, char **argv, record_options *o)
{
    static const struct {
        const char *flag;
        wgprof_format format;
    } files[] = {{"--json", WGPROF_FORMAT_JSON}, {"--html", WGPROF_FORMAT_HTML},
                 {"--trace", WGPROF_FORMAT_TRACE}, {"--csv", WGPROF_FORMAT_CSV}};
    o->strategy = "chain";
    o->sample_every = 1;
    o->sample_by = "kernel";
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(record_usage, stdout);
            return -1;
        }
        bool known = false;
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            if (strcmp(a, files[f].flag) == 0) {
                if (i + 1 >= argc || !argv[i + 1][0] || strcmp(argv[i + 1], "--") == 0) {
                    cli_error("wgprof record: %s needs a file name", a);
                    return CLI_USAGE;
                }
                o->files[files[f].format] = argv[++i];
                known = true;
            }
        }
        if (known) {
            continue;
        }
        if (strcmp(a, "--baseline") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0] || strcmp(argv[i + 1], "--") == 0) {
                cli_error("wgprof record: --baseline needs a file name");
                return CLI_USAGE;
            }
            o->baseline = argv[++i];
            continue;
        }
        if (strcmp(a, "--via") == 0 || strncmp(a, "--via=", 6) == 0) {
            const char *v = a[5] == '=' ? a + 6 : i + 1 < argc && strcmp(argv[i + 1], "--") != 0 ? argv[++i] : NULL;
            if (!v) {
                cli_error("wgprof record: --via needs a value: auto, webgpu or vulkan");
                return CLI_USAGE;
            }
            if (strcmp(v, "auto") == 0) {
                o->via = VIA_AUTO;
            } else if (strcmp(v, "webgpu") == 0) {
                o->via = VIA_WEBGPU;
            } else if (strcmp(v, "vulkan") == 0) {
                o->via = VIA_VULKAN;
            } else {
                cli_error("wgprof record: --via %s: auto, webgpu or vulkan", v);
                return CLI_USAGE;
            }
            continue;
        }
        if (strcmp(a, "--webgpu") == 0 || strncmp(a, "--webgpu=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : i + 1 < argc && strcmp(argv[i + 1], "--") != 0 ? argv[++i] : NULL;
            if (!v || !*v) {
                cli_error("wgprof record: --webgpu needs a value: wgpu-native, dawn, or a path to a WebGPU library");
                return CLI_USAGE;
            }
            if (o->webgpu) {
                cli_error("wgprof record: --webgpu given twice ('%s' and '%s')", o->webgpu, v);
                return CLI_USAGE;
            }
            o->webgpu = v;
            continue;
        }
        if (strcmp(a, "--sample-by") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            if (!v) {
                cli_error("wgprof record: --sample-by needs a value: kernel or encoder");
                return CLI_USAGE;
            }
            if (strcmp(v, "kernel") != 0 && strcmp(v, "encoder") != 0) {
                cli_error("wgprof record: --sample-by %s: kernel or encoder", v);
                return CLI_USAGE;
            }
            o->sample_by = v;
            continue;
        }
        if (strcmp(a, "--strategy") == 0 || strcmp(a, "--sample-every") == 0) {
            if (i + 1 >= argc) {
                cli_error("wgprof record: %s needs a value", a);
                return CLI_USAGE;
            }
            const char *v = argv[++i];
            if (a[2] == 's' && a[3] == 't') {
                if (strcmp(v, "chain") != 0 && strcmp(v, "inside") != 0) {
                    cli_error("wgprof record: --strategy %s: chain or inside", v);
                    return CLI_USAGE;
                }
                o->strategy = v;
            } else {
                char *end = NULL;
                errno = 0;
                unsigned long n = strtoul(v, &end, 10);
                if (!*v || *end || errno || n < 1 || n > 1000000000ul || v[0] == '-') {
                    cli_error("wgprof record: --sample-every %s: a whole number from 1", v);
                    return CLI_USAGE;
                }
                o->sample_every = n;
            }
            continue;
        }
        cli_error("wgprof record: unknown option '%s' (the program comes after --; see 'wgprof record --help')", a);
        return CLI_USAGE;
    }
    if (i >= argc || i + 1 >= argc) {
        cli_error("wgprof record: no program: wgprof record [options] -- PROGRAM [ARGS...]");
        return CLI_USAGE;
    }
    o->program = argv + i + 1;
    return CLI_OK;
}

/* ---- outputs: never the program, its files, or one another ---- */

/* The file execvp would run for `name`: itself where it holds a '/', else the first executable
 * regular file of that name in PATH (the C library's default where PATH is unset). */
static bool program_file(const char *name, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        return true;
    }
    const char *path = getenv("PATH");
    if (!path) {
        path = "/bin:/usr/bin";
    }
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        struct stat st;
        /* An empty entry is the current folder. */
        snprintf(out, cap, "%.*s%s%s", (int)n, p, n ? "/" : "", name);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) {
            return true;
        }
        if (!end) {
            return false;
        }
        p = end;
    }
}

/* Which file `plan` writes: what is there now, or (nothing yet) its folder and name. */
typedef struct output_id {
    bool exists;
    uint64_t dev, ino;
    char *name; /* the last component, where nothing is there yet (owned) */
} output_id;

static output_id output_id_of(const out_plan *plan)
{
    output_id id = {plan->exists, plan->dev, plan->ino, NULL};
    if (plan->exists || !plan->path) {
        return id;
    }
    char *copy = strdup(plan->path), *name = strdup(plan->path);
    struct stat st;
    if (copy && name && stat(dirname(copy), &st) == 0) {
        id.dev = (uint64_t)st.st_dev;
        id.ino = (uint64_t)st.st_ino;
        id.name = strdup(basename(name));
    }
    free(copy);
    free(name);
    return id;
}

static bool same_output(const output_id *a, const output_id *b)
{
    if (a->exists != b->exists || a->dev != b->dev || a->ino != b->ino) {
        return false;
    }
    return a->exists ? true : a->name && b->name && strcmp(a->name, b->name) == 0;
}

/* Each report file asked for can be written, and is neither the program, nor a file one of its
 * arguments names (`--json script.py -- python3 script.py` would replace the script), nor
 * another report's file. Checked before the program runs; prints why and returns CLI_USAGE. */
static int check_outputs(const record_options *o)
{
    size_t args = 0;
    while (o->program[args]) {
        args++;
    }
    out_input *inputs = calloc(args + 1, sizeof *inputs);
    char **names = calloc(args + 1, sizeof *names);
    size_t count = 0;
    int rc = inputs && names ? CLI_OK : CLI_FAILED;
    for (size_t i = 0; rc == CLI_OK && i < args; i++) {
        char file[PATH_MAX + 1];
        struct stat st;
        bool found = i == 0 ? program_file(o->program[0], file, sizeof file)
                            : snprintf(file, sizeof file, "%s", o->program[i]) > 0;
        /* Regular files only: /dev/null as an argument and as a report is no clash. */
        if (!found || stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        size_t cap = strlen(file) + 64;
        names[count] = malloc(cap);
        if (!names[count]) {
            rc = CLI_FAILED;
            break;
        }
        if (i == 0) {
            snprintf(names[count], cap, "the program run ('%s')", file);
        } else {
            snprintf(names[count], cap, "the program's argument %zu ('%s')", i, file);
        }
        inputs[count] = (out_input){names[count], (uint64_t)st.st_dev, (uint64_t)st.st_ino};
        count++;
    }
    if (rc == CLI_OK) {
        rc = cli_check_report_files("record", o->files, inputs, count);
    } else {
        cli_error("wgprof record: out of memory");
    }
    output_id ids[WGPROF_FORMAT_COUNT] = {0};
    for (int f = 0; rc == CLI_OK && f < WGPROF_FORMAT_COUNT; f++) {
        out_plan plan;
        char why[4096];
        if (!o->files[f] || !out_plan_path(o->files[f], &plan, why, sizeof why)) {
            continue; /* checked above */
        }
        if (plan.kind == OUT_FILE) { /* devices and descriptors are written in place, not replaced */
            ids[f] = output_id_of(&plan);
        }
        out_plan_free(&plan);
        for (int g = 0; g < f && (ids[f].exists || ids[f].name); g++) {
            if (same_output(&ids[f], &ids[g])) {
                cli_error("wgprof record: --%s %s: the same file as --%s %s: each report needs a file of its own",
                          wgprof_format_name((wgprof_format)f), o->files[f], wgprof_format_name((wgprof_format)g),
                          o->files[g]);
                rc = CLI_USAGE;
                break;
            }
        }
    }
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        free(ids[f].name);
    }
    for (size_t i = 0; i < count; i++) {
        free(names[i]);
    }
    free(names);
    free(inputs);
    return rc;
}

/* A program that runs set-user-ID or set-group-ID as another user or group runs in the
 * system's secure mode, where the dynamic linker ignores LD_PRELOAD and the Vulkan loader the
 * environment's layers: nothing of it can be timed. Said before it runs. */
static void warn_secure(const char *name)
{
    char file[PATH_MAX + 1];
    struct stat st;
    if (!program_file(name, file, sizeof file) || stat(file, &st) != 0) {
        return;
    }
    bool uid = (st.st_mode & S_ISUID) && st.st_uid != geteuid();
    bool gid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid();
    if (uid || gid) {
        cli_error("wgprof record: %s is set-%s-ID: it runs in the system's secure mode, where the dynamic linker "
                  "ignores LD_PRELOAD and the Vulkan loader ignores the environment's layers: nothing of it can be "
                  "timed (run a copy without the bit)",
                  file, uid ? "user" : "group");
    }
}

/* libwgprof_record.so: in the build tree beside this program, or installed in its lib folder. */
static bool find_preload(char *out, size_t cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        return false;
    }
    self[n] = '\0';
    const char *dir = dirname(self);
    const char *candidates[] = {"../record/libwgprof_record.so", WGPROF_BIN_TO_LIB "/libwgprof_record.so"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        snprintf(out, cap, "%s/%s", dir, candidates[i]);
        if (access(out, R_OK) == 0) {
            return true;
        }
    }
    return false;
}

/* The folder of the Vulkan layer's manifest (layer/): in the build tree beside this program's,
 * or installed beside libwgprof_record.so in its lib folder. Absolute, without links: the
 * program may change folder before it creates its Vulkan instance. */
static bool find_layer_folder(char *out, size_t cap, char *looked, size_t looked_cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(looked, looked_cap, "(/proc/self/exe unreadable)");
        return false;
    }
    self[n] = '\0';
    const char *dir = dirname(self);
    const char *candidates[] = {"../layer", WGPROF_BIN_TO_LIB};
    looked[0] = '\0';
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        char folder[4200], manifest[4300];
        snprintf(folder, sizeof folder, "%s/%s", dir, candidates[i]);
        snprintf(manifest, sizeof manifest, "%s/" WGPROF_LAYER_MANIFEST, folder);
        size_t used = strlen(looked);
        snprintf(looked + used, looked_cap - used, "%s%s", used ? " and " : "", manifest);
        if (access(manifest, R_OK) == 0 && realpath(folder, out) && strlen(out) < cap) {
            return true;
        }
    }
    return false;
}

static bool set_env(const char *name, const char *value)
{
    return setenv(name, value, 1) == 0;
}

/* Sets `name` to `value` with what it held before, where it held something, after `value`
 * (before: false) or before it, `separator` between them. */
static bool add_to_env(const char *name, const char *value, char separator, bool before)
{
    const char *old = getenv(name);
    if (!old || !*old) {
        return set_env(name, value);
    }
    size_t cap = strlen(old) + strlen(value) + 2;
    char *joined = malloc(cap);
    if (!joined) {
        errno = ENOMEM;
        return false;
    }
    snprintf(joined, cap, "%s%c%s", before ? value : old, separator, before ? old : value);
    bool ok = set_env(name, joined);
    free(joined);
    return ok;
}

/* The Vulkan loader's environment that enables wgprof's layer in the program, beside the
 * user's own layers. As an implicit layer (layer.h): its manifest's root first on
 * XDG_CONFIG_DIRS (and its folder after the user's VK_IMPLICIT_LAYER_PATH, which replaces the
 * search of newer loaders, where they set one) and WGPROF_LAYER_ENABLE=1; the loader puts implicit layers on the
 * program's side of those VK_INSTANCE_LAYERS names, so that the user's layers, below it, see what
 * it passes on (debug information the preload library had the implementation add taken out,
 * record.h), and it warns the program of nothing. Where VK_INSTANCE_LAYERS names it already, the
 * user chose its place in the list: the explicit manifest's folder is searched (first on
 * VK_ADD_LAYER_PATH, after the user's VK_LAYER_PATH) and the list left as it is. A loader filter
 * (VK_LOADER_LAYERS_DISABLE, e.g. ~all~) disables both kinds unless VK_LOADER_LAYERS_ENABLE
 * names the layer too. */
static bool enable_layer(const char *folder)
{
    const char *instance_layers = getenv("VK_INSTANCE_LAYERS");
    if (instance_layers && list_has(instance_layers, ':', WGPROF_LAYER_NAME)) {
        /* The user's own VK_LAYER_PATH replaces the loader's search, VK_ADD_LAYER_PATH included:
         * the layer's folder goes after theirs there too. */
        const char *layer_path = getenv("VK_LAYER_PATH");
        if (!add_to_env("VK_ADD_LAYER_PATH", folder, ':', true) ||
            (layer_path && *layer_path && !list_has(layer_path, ':', folder) &&
             !add_to_env("VK_LAYER_PATH", folder, ':', false))) {
            return false;
        }
    } else {
        char root[PATH_MAX + 64], dir[PATH_MAX + 96];
        snprintf(root, sizeof root, "%s/" WGPROF_LAYER_IMPLICIT_ROOT, folder);
        snprintf(dir, sizeof dir, "%s/" WGPROF_LAYER_IMPLICIT_DIR, folder);
        /* XDG_CONFIG_DIRS unset is /etc/xdg, kept after the layer's root. A loader that knows
         * VK_IMPLICIT_LAYER_PATH searches only it where it is set; an older one (1.3.239) only
         * XDG's folders: both are given the layer's. */
        const char *implicit_path = getenv("VK_IMPLICIT_LAYER_PATH"), *config = getenv("XDG_CONFIG_DIRS");
        bool searched = (config && *config) || add_to_env("XDG_CONFIG_DIRS", "/etc/xdg", ':', false);
        config = getenv("XDG_CONFIG_DIRS");
        searched = searched && config &&
                   (list_has(config, ':', root) || add_to_env("XDG_CONFIG_DIRS", root, ':', true));
        searched = searched && (!implicit_path || !*implicit_path || list_has(implicit_path, ':', dir) ||
                                add_to_env("VK_IMPLICIT_LAYER_PATH", dir, ':', false));
        if (!searched || !set_env(WGPROF_LAYER_ENABLE_ENV, "1")) {
            return false;
        }
    }
    const char *enable = getenv("VK_LOADER_LAYERS_ENABLE"), *disable = getenv("VK_LOADER_LAYERS_DISABLE");
    bool filtered = (enable && *enable) || (disable && *disable);
    if (filtered && !(enable && list_has(enable, ',', WGPROF_LAYER_NAME)) &&
        !add_to_env("VK_LOADER_LAYERS_ENABLE", WGPROF_LAYER_NAME, ',', false)) {
        return false;
    }
    return true;
}

static volatile sig_atomic_t g_signal;
static void on_signal(int sig) { g_signal = sig; }

/* SIGINT's, SIGTERM's and SIGHUP's dispositions as wgprof found them, while run_program and
 * await_writers hold their own (until signals_give_back, after both). */
static struct sigaction g_old_int, g_old_term, g_old_hup;
static bool g_signals_held;

static void signals_give_back(void)
{
    if (g_signals_held) {
        sigaction(SIGINT, &g_old_int, NULL);
        sigaction(SIGTERM, &g_old_term, NULL);
        sigaction(SIGHUP, &g_old_hup, NULL);
        g_signals_held = false;
    }
}

/* Runs the program; its exit code, or 126/127 with a message where it could not start
 * (*started false). */
static int run_program(char **program, bool *started)
{
    *started = false;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        cli_error("wgprof record: pipe: %s", strerror(errno));
        return CLI_FAILED;
    }
    /* Ctrl-C reaches the program from the terminal already (one process group): wgprof waits
     * through it to write the results. A termination sent to wgprof alone is passed on. */
    struct sigaction sa = {0}, ignore = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
    sigaction(SIGHUP, &sa, &g_old_hup);
    g_signals_held = true;
    pid_t child = fork();
    if (child == 0) {
        /* Every disposition and the mask as wgprof found them, SIGPIPE's included (main()
         * ignores it for wgprof): a program's pipeline ends as it does without wgprof. */
        cli_signals_restore();
        execvp(program[0], program);
        int e = errno;
        ssize_t w = write(pipefd[1], &e, sizeof e);
        (void)w;
        _exit(EXIT_NOT_FOUND);
    }
    close(pipefd[1]);
    if (child < 0) {
        close(pipefd[0]);
        cli_error("wgprof record: cannot start %s: %s", program[0], strerror(errno));
        return CLI_FAILED;
    }
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(pipefd[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    close(pipefd[0]);
    int status = 0;
    for (;;) {
        if (g_signal) { /* also one that came before the wait began */
            kill(child, g_signal);
            g_signal = 0;
        }
        if (waitpid(child, &status, 0) == child) {
            break;
        }
        if (errno != EINTR) {
            cli_error("wgprof record: waiting for %s: %s", program[0], strerror(errno));
            return CLI_FAILED;
        }
    }
    /* From now on a Ctrl-C or a termination only ends await_writers' wait (so does one that
     * came as the program ended, not passed on). */
    sigaction(SIGINT, &sa, NULL);
    if (got == (ssize_t)sizeof exec_errno) {
        cli_error("wgprof record: %s: %s", program[0], strerror(exec_errno));
        return exec_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
    }
    *started = true;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        cli_error("wgprof record: %s ended by signal %d (%s)", program[0], sig, strsignal(sig));
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FAILED;
}

/* ---- results ---- */

typedef struct result_set {
    char id[64]; /* "PID.N" */
    unsigned long pid, device;
} result_set;

/* By process, then device: the order they were made in (PIDs rising). */
static int compare_sets(const void *a, const void *b)
{
    const result_set *x = a, *y = b;
    if (x->pid != y->pid) {
        return x->pid < y->pid ? -1 : 1;
    }
    return x->device < y->device ? -1 : x->device > y->device;
}

/* The results folder: made private in TMPDIR, which someone else may be able to write to, and
 * from then on read and emptied only through descriptors (record.h says why). */
typedef struct results_folder {
    char path[PATH_MAX]; /* absolute, for the program's environment and messages */
    int parent;          /* the folder it was made in */
    char name[64];       /* its name there */
    int fd;              /* itself */
    struct stat st;
} results_folder;

/* Opens `name` in the results folder for reading; NULL where it is not a regular file there. */
static FILE *open_result(const results_folder *r, const char *name)
{
    int fd = openat(r->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0) {
        close(fd);
    }
    return f;
}

/* The results folder's entries, read through a descriptor of its own (closedir closes it);
 * NULL where it cannot be read. */
static DIR *open_listing(const results_folder *r)
{
    int fd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0) {
        close(fd);
    }
    return d;
}

/* The result sets in the results folder (every PID.N.json); *count receives how many. */
static result_set *list_sets(const results_folder *r, size_t *count)
{
    *count = 0;
    DIR *d = open_listing(r);
    if (!d) {
        return NULL;
    }
    size_t cap = 0;
    result_set *sets = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        /* PID.N.json, both numbers in decimal */
        char *end = NULL;
        errno = 0;
        unsigned long pid = strtoul(e->d_name, &end, 10);
        unsigned long dev = 0;
        bool named = !errno && end != e->d_name && isdigit((unsigned char)e->d_name[0]) && *end == '.';
        if (named) {
            const char *n = end + 1;
            dev = strtoul(n, &end, 10);
            named = !errno && end != n && isdigit((unsigned char)*n) && *end == '.' &&
                    strcmp(end + 1, wgprof_format_suffix(WGPROF_FORMAT_JSON)) == 0;
        }
        if (named) {
            if (*count == cap) {
                cap = cap ? cap * 2 : 8;
                result_set *more = realloc(sets, cap * sizeof *sets);
                if (!more) {
                    break;
                }
                sets = more;
            }
            snprintf(sets[*count].id, sizeof sets[*count].id, "%lu.%lu", pid, dev);
            sets[*count].pid = pid;
            sets[*count].device = dev;
            (*count)++;
        }
    }
    closedir(d);
    if (*count) {
        qsort(sets, *count, sizeof *sets, compare_sets);
    }
    return sets;
}

static bool exists(const results_folder *r, const char *name)
{
    struct stat st;
    return fstatat(r->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Whether set `id` has its file of `suffix` (a marker: RECORD_SUFFIX_DONE, RECORD_SUFFIX_UNWRITTEN). */
static bool set_has(const results_folder *r, const char *id, const char *suffix)
{
    char name[4500];
    snprintf(name, sizeof name, "%s.%s", id, suffix);
    return exists(r, name);
}

/* Copies `from` to stderr. */
static void print_file(const results_folder *r, const char *from)
{
    FILE *f = open_result(r, from);
    if (!f) {
        return;
    }
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        fwrite(buf, 1, n, stderr);
    }
    fclose(f);
}

/* Prints how the times of a result set were taken, from its JSON report's "implementation": the
 * layer's (layer.h, record.h) or the WebGPU implementation the preload library timed through. */
static void print_how(const results_folder *r, const char *json)
{
    FILE *f = open_result(r, json);
    if (!f) {
        return;
    }
    /* The device's fields come first in the report: its start is enough. */
    char head[16384];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    static const char key[] = "\"implementation\": \"";
    const char *at = strstr(head, key);
    if (!at) {
        return;
    }
    at += sizeof key - 1;
    size_t len = strcspn(at, "\"\\\n");
    char implementation[256];
    snprintf(implementation, sizeof implementation, "%.*s", (int)len, at);
    /* What a layer row holds depends on how the implementation records (one command buffer for
     * many passes, or one a pass) and on the layer's chain (layer.h): said in the terms that hold
     * for both. */
    const char *chain = getenv(WGPROF_LAYER_CHAIN_ENV);
    const char *layer_rows =
        chain && strcmp(chain, WGPROF_LAYER_CHAIN_PER_CB) == 0
            ? "a dispatch's time runs from the layer's timestamp before it to the next one in its command buffer "
              "(the next dispatch's or run of transfer work's, one where a render pass or secondary command buffers "
              "begin, or the buffer's end)"
            : "a dispatch's time runs from the layer's timestamp before it to the next one in its command buffer or "
              "the next of its batch (the next dispatch's or run of transfer work's, one where a render pass or "
              "secondary command buffers begin, or the batch's end)";
    if (strcmp(implementation, RECORD_LAYER_WITH_LABELS) == 0) {
        fprintf(stderr, "timed by wgprof's Vulkan layer; kernels named after the labels given through webgpu.h; %s\n",
                layer_rows);
    } else if (strcmp(implementation, WGPROF_LAYER_IMPLEMENTATION) == 0) {
        fprintf(stderr, "timed by wgprof's Vulkan layer; kernels named after Vulkan debug-utils names, else the "
                        "SPIR-V; %s\n",
                layer_rows);
    } else {
        fprintf(stderr, "timed through webgpu.h, with the timestamp queries of %s\n",
                implementation[0] ? implementation : "the implementation");
    }
}

/* The value of `key` in a PID.N.meta file of "key value" lines; 0 where it is not there. */
static unsigned long long meta_value(const results_folder *r, const char *meta_path, const char *key)
{
    FILE *f = open_result(r, meta_path);
    if (!f) {
        return 0;
    }
    char line[256];
    unsigned long long found = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n) == 0 && line[n] == ' ') {
            found = strtoull(line + n + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return found;
}

/* ---- processes that outlive the program ---- */

/* How long wgprof waits, once the program ended, for processes it started that still run and
 * have not written their final results (a browser's GPU process, which the browser ends as it
 * exits, without waiting for it): the layer's own wait for work still running (2 s) and the
 * writing of a long run's reports, with room for a loaded machine. After WRITERS_SAY_MS it says
 * whom it waits for. */
enum { WRITERS_WAIT_MS = 10000, WRITERS_SAY_MS = 500, WRITERS_POLL_MS = 10 };

/* A process of a set not final yet that still runs (the very one that wrote it: its start as
 * the set's meta file gives it, where the writer could read it), or 0 where none does; *count
 * receives how many there are. */
static unsigned long still_writing(const results_folder *r, size_t *count)
{
    size_t n = 0;
    result_set *sets = list_sets(r, &n);
    unsigned long pid = 0;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (set_has(r, sets[i].id, RECORD_SUFFIX_DONE)) {
            continue;
        }
        char name[4400];
        snprintf(name, sizeof name, "%s." RECORD_SUFFIX_META, sets[i].id);
        unsigned long long wrote = meta_value(r, name, RECORD_META_START), start = 0;
        bool running = false;
        if ((long)sets[i].pid != (long)getpid() && process_start((long)sets[i].pid, &start, &running) && running &&
            (!wrote || start == wrote)) {
            pid = sets[i].pid;
            (*count)++;
        }
    }
    free(sets);
    return pid;
}

/* Once the program ended (run_program's signal handlers still in place): waits, at most
 * WRITERS_WAIT_MS (a Ctrl-C or a termination ends the wait), while a process it started still
 * runs with results not final, so that a browser's GPU process, still writing when the browser
 * exits, is not reported as cut short. */
static void await_writers(const results_folder *r, const char *program)
{
    double began = cli_now_s();
    bool said = false;
    size_t count = 0;
    unsigned long pid;
    while ((pid = still_writing(r, &count)) != 0 && !g_signal && cli_now_s() - began < WRITERS_WAIT_MS / 1e3) {
        if (!said && cli_now_s() - began >= WRITERS_SAY_MS / 1e3) {
            fprintf(stderr,
                    "wgprof record: %s ended; waiting for %zu process%s it started, still running (PID %lu%s), to "
                    "write %s final results (at most %d s; Ctrl-C stops the wait)\n",
                    program, count, count == 1 ? "" : "es", pid, count == 1 ? "" : " and others",
                    count == 1 ? "its" : "their", WRITERS_WAIT_MS / 1000);
            said = true;
        }
        struct timespec pause = {0, WRITERS_POLL_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
}

static void print_notes(const results_folder *r, const char *base)
{
    char meta[4400];
    snprintf(meta, sizeof meta, "%s." RECORD_SUFFIX_META, base);
    unsigned long long overlap = meta_value(r, meta, RECORD_META_UNTIMED_OVERLAP),
                       sampled = meta_value(r, meta, RECORD_META_UNTIMED_SAMPLED),
                       discarded = meta_value(r, meta, RECORD_META_DISCARDED),
                       simultaneous = meta_value(r, meta, RECORD_META_UNTIMED_SIMULTANEOUS),
                       no_timestamps = meta_value(r, meta, RECORD_META_UNTIMED_NO_TIMESTAMPS),
                       dropped = meta_value(r, meta, RECORD_META_DROPPED);
    if (sampled) {
        fprintf(stderr, "%llu dispatches not timed: --sample-every %llu left them out\n", sampled,
                meta_value(r, meta, RECORD_META_SAMPLE_EVERY));
    }
    if (overlap) {
        fprintf(stderr,
                "%llu dispatches not timed: their command encoder was recorded while another one, not yet "
                "submitted, held the device's timing\n",
                overlap);
    }
    if (discarded) {
        fprintf(stderr, "%llu dispatches encoded but never submitted: not timed\n", discarded);
    }
    if (simultaneous) {
        fprintf(stderr,
                "%llu dispatches not timed: their Vulkan command buffer may run twice at once (simultaneous use), "
                "where one timestamp query would be written twice\n",
                simultaneous);
    }
    if (no_timestamps) {
        fprintf(stderr,
                "%llu dispatches not timed: their device or queue has no usable timestamps (none on the queue, a "
                "counter narrower than the device's others, or a timestamp period that is not a positive number)\n",
                no_timestamps);
    }
    if (dropped) {
        fprintf(stderr,
                "%llu dispatches timed but not kept: their timestamps could not be read (out of memory, or a command "
                "buffer reset before they were there)\n",
                dropped);
    }
}

typedef struct copy_job {
    const results_folder *r;
    const record_sets *sets; /* one set: its file copied as it is; several: one file of them all */
    wgprof_format format;
} copy_job;

static FILE *open_set_file(void *user, const char *file) { return open_result(user, file); }

static bool copy_content(FILE *out, void *user, char *error, size_t cap)
{
    const copy_job *job = user;
    errno = 0;
    if (job->sets->count > 1) {
        if (!record_sets_write(job->sets, job->format, out)) {
            snprintf(error, cap, "cannot put the result sets together: %s", errno ? strerror(errno) : "a set unreadable");
            return false;
        }
        return true;
    }
    FILE *in = open_result(job->r, job->sets->sets[0].file);
    if (!in) {
        snprintf(error, cap, "cannot read the results: %s", errno ? strerror(errno) : "not a regular file");
        return false;
    }
    char buf[65536];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        ok = fwrite(buf, 1, n, out) == n;
    }
    ok = ok && !ferror(in);
    fclose(in);
    return ok;
}

/* The formats a result set holds besides its table, as the preload library writes them
 * (record.h): JSON always, the others where the CLI asked. */
static bool record_writes(int f)
{
    return f == WGPROF_FORMAT_JSON || f == WGPROF_FORMAT_HTML || f == WGPROF_FORMAT_TRACE || f == WGPROF_FORMAT_CSV;
}

/* Prints each PID.why the preload library left (record.h): why a process timed nothing. */
static size_t print_why(const results_folder *r)
{
    DIR *d = open_listing(r);
    if (!d) {
        return 0;
    }
    size_t said = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strchr(e->d_name, '.');
        if (!dot || dot == e->d_name || strspn(e->d_name, "0123456789") != (size_t)(dot - e->d_name) ||
            strcmp(dot + 1, RECORD_SUFFIX_WHY) != 0) {
            continue;
        }
        FILE *f = open_result(r, e->d_name);
        char line[2200];
        if (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            cli_error("wgprof record: process %.*s: %s", (int)(dot - e->d_name), e->d_name, line);
            said++;
        }
        if (f) {
            fclose(f);
        }
    }
    closedir(d);
    return said;
}

/* How many sets the writers marked unwritten (record.h): where no set holds a JSON report, the
 * devices whose results were all lost. */
static size_t count_unwritten(const results_folder *r)
{
    DIR *d = open_listing(r);
    if (!d) {
        return 0;
    }
    size_t n = 0;
    struct dirent *e;
    static const char suffix[] = "." RECORD_SUFFIX_UNWRITTEN;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > sizeof suffix - 1 && strcmp(e->d_name + len - (sizeof suffix - 1), suffix) == 0;
    }
    closedir(d);
    return n;
}

/* Prints each set's table and notes, and copies its reports; false when a report could not be
 * written (by wgprof record, or into the results folder while the program ran). */
static bool deliver(const results_folder *r, const record_options *o, const diff_profile *baseline)
{
    size_t count = 0;
    result_set *sets = list_sets(r, &count);
    size_t unwritten = count ? 0 : count_unwritten(r);
    if (unwritten) {
        cli_error("wgprof record: no results: those of %zu device%s could not be written into the results folder %s "
                  "(the reason is above)",
                  unwritten, unwritten == 1 ? "" : "s", r->path);
        free(sets);
        return false;
    }
    if (!count) {
        if (o->via == VIA_VULKAN) {
            fprintf(stderr, "wgprof record: no results: the program created no Vulkan device, or none that "
                            "wgprof's Vulkan layer could time\n");
        } else {
            fprintf(stderr, "wgprof record: no results: the program created no WebGPU device, or none that wgprof "
                            "could time%s\n", print_why(r) ? " (above)" : "");
        }
        free(sets);
        return true;
    }
    bool ok = true;
    if (count > 1) {
        fprintf(stderr, "wgprof record: results of %zu devices (processes and devices: PID.N)\n", count);
    }
    for (size_t i = 0; i < count; i++) {
        char base[4400], path[4500];
        snprintf(base, sizeof base, "%s", sets[i].id);
        fputc('\n', stderr);
        if (count > 1) {
            fprintf(stderr, "== %s ==\n", sets[i].id);
        }
        snprintf(path, sizeof path, "%s.%s", base, wgprof_format_suffix(WGPROF_FORMAT_JSON));
        print_how(r, path);
        snprintf(path, sizeof path, "%s.%s", base, wgprof_format_suffix(WGPROF_FORMAT_TABLE));
        print_file(r, path);
        print_notes(r, base);
        /* The report by a path through the folder's descriptor (Linux's /proc/self/fd/N is the
         * folder opened, whatever its name now leads to). */
        snprintf(path, sizeof path, "/proc/self/fd/%d/%s.%s", r->fd, base, wgprof_format_suffix(WGPROF_FORMAT_JSON));
        if (baseline && cli_baseline_compare_file("record", baseline, path, count > 1 ? sets[i].id : "this run",
                                                  stderr) != CLI_OK) {
            ok = false;
        }
        bool complete = set_has(r, base, RECORD_SUFFIX_DONE);
        bool lost = set_has(r, base, RECORD_SUFFIX_UNWRITTEN);
        if (lost) {
            cli_error("wgprof record: %s: some of its results could not be written into the results folder (the "
                      "reason is above)",
                      sets[i].id);
            ok = false;
        }
        if (!complete) {
            fprintf(stderr, "wgprof record: %s: the program ended before wgprof could finish: these are the results "
                            "collected until then\n", sets[i].id);
        }
        char missing[512] = "";
        for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
            char from[4600];
            snprintf(from, sizeof from, "%s.%s", base, wgprof_format_suffix((wgprof_format)f));
            if (o->files[f] && record_writes(f) && !exists(r, from)) {
                size_t used = strlen(missing);
                snprintf(missing + used, sizeof missing - used, "%s--%s", used ? ", " : "",
                         wgprof_format_name((wgprof_format)f));
            }
        }
        if (missing[0] && complete) {
            cli_error("wgprof record: %s: %s not written: the results folder could not take it (the reason is above)",
                      sets[i].id, missing);
            ok = false;
        } else if (missing[0]) {
            fprintf(stderr,
                    "wgprof record: %s: %s not written: the program ended before wgprof could write its final "
                    "results; the JSON report and the table hold the dispatches read until then\n",
                    sets[i].id, missing);
        }
    }
    /* Each report asked for: one set's as it is, several sets' in one file (record_sets.c), of
     * those that have it (the others said above). */
    record_set_file *files = calloc(count, sizeof *files);
    char (*names)[96] = calloc(count, sizeof *names);
    for (int f = 0; files && names && f < WGPROF_FORMAT_COUNT; f++) {
        if (!o->files[f] || !record_writes(f)) {
            continue;
        }
        size_t n = 0;
        for (size_t i = 0; i < count; i++) {
            snprintf(names[n], sizeof names[n], "%s.%s", sets[i].id, wgprof_format_suffix((wgprof_format)f));
            if (exists(r, names[n])) {
                files[n] = (record_set_file){sets[i].id, sets[i].pid, sets[i].device, names[n]};
                n++;
            }
        }
        if (!n) {
            continue;
        }
        record_sets group = {files, n, open_set_file, (void *)r};
        copy_job job = {r, &group, (wgprof_format)f};
        char why[4096];
        if (!out_write(o->files[f], copy_content, &job, why, sizeof why)) {
            cli_error("wgprof record: %s", why);
            ok = false;
        }
    }
    if (!files || !names) {
        cli_error("wgprof record: out of memory writing the reports");
        ok = false;
    }
    free(files);
    free(names);
    free(sets);
    return ok;
}

/* Whether the preload library stopped the program before its first WebGPU call (record.h);
 * prints its reason. */
static bool refused(const results_folder *r)
{
    FILE *f = open_result(r, RECORD_FILE_REFUSED);
    if (!f) {
        return false;
    }
    char line[2048];
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        cli_error("wgprof record: %s", line);
    }
    fclose(f);
    return true;
}

/* Empties the results folder through its descriptor, then removes it from where it was made if
 * it is still there: a link or a folder put in its place is left alone, and said. */
static void remove_folder(results_folder *r)
{
    DIR *d = open_listing(r);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                unlinkat(r->fd, e->d_name, 0);
            }
        }
        closedir(d);
    }
    struct stat st;
    if (fstatat(r->parent, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == r->st.st_dev &&
        st.st_ino == r->st.st_ino) {
        unlinkat(r->parent, r->name, AT_REMOVEDIR);
    } else {
        fprintf(stderr,
                "wgprof record: the results folder %s was moved or replaced while the program ran: what is there "
                "now was left untouched\n",
                r->path);
    }
    close(r->fd);
    close(r->parent);
}

/* Makes the results folder in `tmpdir`: a new folder (mkdtemp: mode 0700, a name nobody had),
 * opened once with O_NOFOLLOW and checked to be a folder of ours, 0700, before anything uses
 * it. False with errno (EPERM: not what was made). */
static bool make_folder(const char *tmpdir, results_folder *r)
{
    char parent[PATH_MAX], made[PATH_MAX + 64];
    if (!realpath(tmpdir, parent)) {
        return false;
    }
    r->parent = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r->parent < 0) {
        return false;
    }
    snprintf(made, sizeof made, "%s/wgprof-record.XXXXXX", strcmp(parent, "/") == 0 ? "" : parent);
    if (!mkdtemp(made)) {
        close(r->parent);
        return false;
    }
    snprintf(r->path, sizeof r->path, "%s", made);
    snprintf(r->name, sizeof r->name, "%s", strrchr(made, '/') + 1);
    r->fd = openat(r->parent, r->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (r->fd < 0 || fstat(r->fd, &r->st) != 0 || r->st.st_uid != geteuid() || (r->st.st_mode & 0777) != 0700) {
        if (r->fd >= 0) {
            close(r->fd);
        }
        close(r->parent);
        errno = EPERM;
        return false;
    }
    return true;
}

/* The program's environment: the settings of record.h, the preload library where `preload` is
 * set (also the WebGPU library wgpu-py loads), and wgprof's Vulkan layer, enabled through the
 * loader's environment, where `layer_folder` is set; both: the preload library is told the
 * layer's library (RECORD_ENV_LAYER), so that it leaves the devices on Vulkan to the layer. */
static int prepare_environment(const record_options *o, const results_folder *r, const char *preload,
                               const char *layer_folder)
{
    /* The formats the preload library writes at the end, besides JSON and the table. */
    char formats[64] = "";
    for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
        if (o->files[f] && record_writes(f) && f != WGPROF_FORMAT_JSON) {
            size_t n = strlen(formats);
            snprintf(formats + n, sizeof formats - n, "%s%s", n ? "," : "", wgprof_format_name((wgprof_format)f));
        }
    }
    char every[32];
    snprintf(every, sizeof every, "%lu", o->sample_every);
    /* A program that names its own implementation by WGPU_LIB_PATH keeps it; the preload
     * library stands in its place. */
    const char *implementation = getenv("WGPU_LIB_PATH");
    if (!implementation || !*implementation) {
        implementation = webgpu_loader_path();
    }
    char id[64];
    snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)r->st.st_dev, (unsigned long long)r->st.st_ino);
    bool ok = set_env(RECORD_ENV_DIR, r->path) && set_env(RECORD_ENV_DIR_ID, id) &&
              set_env(RECORD_ENV_LIBRARY, implementation) &&
              set_env(RECORD_ENV_STRATEGY, o->strategy) && set_env(RECORD_ENV_SAMPLE_EVERY, every) && set_env(RECORD_ENV_SAMPLE_BY, o->sample_by) &&
              set_env(RECORD_ENV_FORMATS, formats);
    if (ok && layer_folder) {
        ok = enable_layer(layer_folder);
    }
    if (ok && preload[0]) {
        ok = set_env("WGPU_LIB_PATH", preload) && add_to_env("LD_PRELOAD", preload, ':', true);
    }
    if (ok && preload[0] && layer_folder) {
        char library[PATH_MAX + 64];
        snprintf(library, sizeof library, "%s/" LAYER_LIBRARY, layer_folder);
        ok = set_env(RECORD_ENV_LAYER, library);
    } else if (ok) {
        unsetenv(RECORD_ENV_LAYER); /* one path alone: the preload library times every device */
    }
    if (!ok) {
        cli_error("wgprof record: cannot set the program's environment: %s", strerror(errno));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* The layer's settings the user gave (layer.h), checked before the program runs: a value the
 * layer does not take is refused here, where the layer would only say so and keep its default. */
static int check_layer_settings(void)
{
#define LAYER_SETTING(name, values) {name, values},
    static const struct {
        const char *name, *values;
    } settings[] = {WGPROF_LAYER_USER_SETTINGS(LAYER_SETTING)};
#undef LAYER_SETTING
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        const char *v = getenv(settings[i].name);
        if (v && *v && !list_has(settings[i].values, '|', v)) {
            cli_error("wgprof record: %s=%.*s%s: not a value wgprof's Vulkan layer takes (%s)", settings[i].name,
                      (int)WGPROF_LAYER_VALUE_SHOWN, v,
                      strnlen(v, WGPROF_LAYER_VALUE_SHOWN + 1) > WGPROF_LAYER_VALUE_SHOWN ? "..." : "",
                      settings[i].values);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

int cmd_record(int argc, char **argv, const char *webgpu)
{
    record_options o = {0};
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK) {
        return rc < 0 ? CLI_OK : rc;
    }
    if (webgpu && o.webgpu) {
        cli_error("wgprof record: --webgpu given twice, before and after 'record' ('%s' and '%s')", webgpu, o.webgpu);
        return CLI_USAGE;
    }
    rc = cli_select_webgpu(o.webgpu ? o.webgpu : webgpu);
    if (rc != CLI_OK) {
        return rc;
    }
    rc = check_outputs(&o);
    if (rc == CLI_OK && o.via != VIA_WEBGPU) {
        rc = check_layer_settings();
    }
    if (rc != CLI_OK) {
        return rc;
    }
    warn_secure(o.program[0]);
    char preload[4096] = "", layer_folder[PATH_MAX] = "";
    if (o.via == VIA_AUTO) {
        /* The layer where it is there and usable, else the preload library alone. */
        char looked[8600], library[PATH_MAX + 64];
        bool found = find_layer_folder(layer_folder, sizeof layer_folder, looked, sizeof looked);
        snprintf(library, sizeof library, "%s/" LAYER_LIBRARY, layer_folder);
        if (!found || strchr(layer_folder, ':') || access(library, R_OK) != 0) {
            layer_folder[0] = '\0';
        }
    }
    if (o.via == VIA_VULKAN) {
        char looked[8600];
        if (!find_layer_folder(layer_folder, sizeof layer_folder, looked, sizeof looked)) {
            cli_error("wgprof record: --via vulkan: wgprof's Vulkan layer is not beside wgprof (looked for %s): this "
                      "wgprof was built or installed without it",
                      looked);
            return CLI_USAGE;
        }
        if (strchr(layer_folder, ':')) {
            /* VK_ADD_LAYER_PATH separates its folders at colons: such a path would be split. */
            cli_error("wgprof record: %s: the Vulkan loader cannot search a folder whose path holds a colon; "
                      "install wgprof elsewhere",
                      layer_folder);
            return CLI_FAILED;
        }
    } else if (!find_preload(preload, sizeof preload)) {
        cli_error("wgprof record: libwgprof_record.so is not beside wgprof (looked in ../record/ and %s)",
                  WGPROF_BIN_TO_LIB);
        return CLI_FAILED;
    }
    if (o.via != VIA_VULKAN && strpbrk(preload, " :\t\n")) {
        /* LD_PRELOAD separates its entries at spaces and colons: such a path would be split. */
        cli_error("wgprof record: %s: the dynamic linker cannot preload a library whose path holds a space or a "
                  "colon; install wgprof elsewhere",
                  preload);
        return CLI_FAILED;
    }
    const char *tmpdir = getenv("TMPDIR");
    /* Absolute, so that a program that changes folder still writes into it. */
    results_folder folder;
    if (!make_folder(tmpdir && *tmpdir ? tmpdir : "/tmp", &folder)) {
        cli_error("wgprof record: cannot make a folder for the results in %s: %s", tmpdir && *tmpdir ? tmpdir : "/tmp",
                  strerror(errno));
        return CLI_FAILED;
    }
    /* The baseline is read before the program runs: one it cannot read, or a report asked for
     * over it, stops here. */
    diff_profile baseline;
    out_input baseline_input = {0};
    rc = o.baseline ? cli_baseline_load("record", o.baseline, &baseline, &baseline_input) : CLI_OK;
    bool loaded = o.baseline && rc == CLI_OK;
    if (loaded && (baseline_input.dev || baseline_input.ino)) {
        rc = cli_check_report_files("record", o.files, &baseline_input, 1);
    }
    if (rc == CLI_OK) {
        rc = prepare_environment(&o, &folder, preload, layer_folder[0] ? layer_folder : NULL);
    }
    if (rc == CLI_OK) {
        fflush(NULL);
        bool started = false;
        rc = run_program(o.program, &started);
        if (started) {
            await_writers(&folder, o.program[0]);
        }
        signals_give_back();
        if (started && refused(&folder)) {
            rc = CLI_USAGE;
        } else if (started && !deliver(&folder, &o, loaded ? &baseline : NULL) && rc == 0) {
            rc = CLI_FAILED;
        }
    }
    if (loaded) {
        diff_profile_free(&baseline);
    }
    remove_folder(&folder);
    return rc;
}
