/*
 * Reading a spec file: JSON syntax through jansson (which gives line and column), then every
 * field checked for presence, type and range, every name resolved, every file read, before
 * anything runs. Unknown keys are errors, so that a typo is never silently ignored.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

typedef struct ctx {
    const char *file;
    char *dir; /* the spec's folder, for relative paths */
    char *error;
    size_t error_cap;
} ctx;

static bool fail(ctx *c, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(ctx *c, const char *where, const char *fmt, ...)
{
    int n = snprintf(c->error, c->error_cap, "%s: %s: ", c->file, where);
    if (n < 0 || (size_t)n >= c->error_cap) {
        return false;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error + n, c->error_cap - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static char *dup_string(const char *s)
{
    if (!s) {
        return NULL;
    }
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

static bool check_keys(ctx *c, json_t *obj, const char *where, const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        bool known = false;
        for (const char *const *a = allowed; *a; a++) {
            known = known || strcmp(key, *a) == 0;
        }
        if (!known) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1]) {
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
                }
            }
            return fail(c, where, "unknown key \"%s\" (expected one of: %s)", key, list);
        }
    }
    return true;
}

static bool get_string(ctx *c, json_t *obj, const char *key, const char *where, bool required, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) {
        return !required || fail(c, where, "missing \"%s\" (a string)", key);
    }
    if (!json_is_string(v) || json_string_length(v) == 0) {
        return fail(c, where, "\"%s\" must be a non-empty string, not %s", key,
                    json_is_string(v) ? "an empty one" : json_kind(v));
    }
    *out = json_string_value(v);
    return true;
}

static bool as_uint(ctx *c, json_t *v, const char *where, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < min ||
        (uint64_t)json_integer_value(v) > max) {
        if (json_is_integer(v)) {
            return fail(c, where, "%lld is out of range (%llu to %llu)", (long long)json_integer_value(v),
                        (unsigned long long)min, (unsigned long long)max);
        }
        return fail(c, where, "expected an integer from %llu to %llu, not %s", (unsigned long long)min,
                    (unsigned long long)max, json_kind(v));
    }
    *out = (uint64_t)json_integer_value(v);
    return true;
}

static bool get_uint(ctx *c, json_t *obj, const char *key, const char *where, uint64_t min, uint64_t max,
                     uint64_t fallback, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = fallback;
        return true;
    }
    char at[300];
    snprintf(at, sizeof at, "%s.%s", where, key);
    return as_uint(c, v, at, min, max, out);
}

static bool get_number(ctx *c, json_t *obj, const char *key, const char *where, double fallback, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = fallback;
        return true;
    }
    if (!json_is_number(v)) {
        return fail(c, where, "\"%s\" must be a number, not %s", key, json_kind(v));
    }
    *out = json_number_value(v);
    return true;
}

/* A size in x, y, z: a number, or an array of one to three numbers; missing components are 1. */
static bool get_dims(ctx *c, json_t *v, const char *where, uint32_t out[3])
{
    out[0] = out[1] = out[2] = 1;
    if (json_is_integer(v)) {
        uint64_t x = 0;
        if (!as_uint(c, v, where, 1, UINT32_MAX, &x)) {
            return false;
        }
        out[0] = (uint32_t)x;
        return true;
    }
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 3) {
        return fail(c, where, "expected a positive integer or an array of 1 to 3 of them, not %s", json_kind(v));
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        char at[300];
        snprintf(at, sizeof at, "%s[%zu]", where, i);
        uint64_t x = 0;
        if (!as_uint(c, json_array_get(v, i), at, 1, UINT32_MAX, &x)) {
            return false;
        }
        out[i] = (uint32_t)x;
    }
    return true;
}

static char *resolve_path(ctx *c, const char *relative)
{
    if (relative[0] == '/' || !c->dir[0]) {
        return dup_string(relative);
    }
    size_t n = strlen(c->dir) + strlen(relative) + 2;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", c->dir, relative);
    }
    return p;
}

static char *read_text(ctx *c, const char *path, const char *where)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(c, where, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *n = realloc(buf, cap);
            if (!n) {
                free(buf);
                fclose(f);
                fail(c, where, "out of memory reading '%s'", path);
                return NULL;
            }
            buf = n;
        }
        size_t got = fread(buf + len, 1, 4096, f);
        len += got;
        if (got < 4096) {
            break;
        }
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        free(buf);
        fail(c, where, "error reading '%s'", path);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    return n;
}

/* Reads @workgroup_size(x, y, z) of the entry point from the source; false when it is not made
 * of integer literals (an override constant, say). */
static bool parse_workgroup_size(const char *source, const char *entry, uint32_t out[3])
{
    char pattern[200];
    snprintf(pattern, sizeof pattern, "fn %s", entry);
    const char *fn = NULL;
    for (const char *p = strstr(source, pattern); p; p = strstr(p + 1, pattern)) {
        char next = p[strlen(pattern)];
        if (next == '(' || next == ' ' || next == '\t' || next == '\n') {
            fn = p;
            break;
        }
    }
    if (!fn) {
        return false;
    }
    const char *attr = NULL;
    for (const char *p = strstr(source, "@workgroup_size"); p && p < fn; p = strstr(p + 1, "@workgroup_size")) {
        attr = p;
    }
    if (!attr) {
        return false;
    }
    const char *p = strchr(attr, '(');
    if (!p) {
        return false;
    }
    out[0] = out[1] = out[2] = 1;
    for (int i = 0; i < 3; i++) {
        p++;
        while (*p == ' ') {
            p++;
        }
        if (*p == ')' && i > 0) {
            return true; /* a trailing comma, as WGSL allows */
        }
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v == 0 || v > 1024) {
            return false;
        }
        out[i] = (uint32_t)v;
        p = end;
        if (*p == 'u' || *p == 'i') {
            p++;
        }
        while (*p == ' ') {
            p++;
        }
        if (*p == ')') {
            return true;
        }
        if (*p != ',') {
            return false;
        }
    }
    return false;
}

/* ---- sections ---- */

static bool find_buffer(const spec *s, size_t count, const char *name, size_t *index)
{
    if (!name) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (s->buffers[i].name && strcmp(s->buffers[i].name, name) == 0) {
            *index = i;
            return true;
        }
    }
    return false;
}

static bool find_kernel(const spec *s, size_t count, const char *name, size_t *index)
{
    if (!name) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (s->kernels[i].name && strcmp(s->kernels[i].name, name) == 0) {
            *index = i;
            return true;
        }
    }
    return false;
}

static bool parse_buffer(ctx *c, json_t *b, const char *where, spec *s, spec_buffer *out)
{
    static const char *const keys[] = {"name", "type", "elements", "bytes", "init", NULL};
    if (!json_is_object(b)) {
        return fail(c, where, "expected an object, not %s", json_kind(b));
    }
    const char *name, *type;
    if (!check_keys(c, b, where, keys) || !get_string(c, b, "name", where, true, &name) ||
        !get_string(c, b, "type", where, false, &type)) {
        return false;
    }
    size_t dup;
    if (find_buffer(s, (size_t)(out - s->buffers), name, &dup)) {
        return fail(c, where, "buffer name \"%s\" is used twice", name);
    }
    out->name = dup_string(name);
    if (!out->name) {
        return fail(c, where, "out of memory");
    }
    out->type = SPEC_F32;
    if (type) {
        if (strcmp(type, "f32") == 0) {
            out->type = SPEC_F32;
        } else if (strcmp(type, "u32") == 0) {
            out->type = SPEC_U32;
        } else if (strcmp(type, "i32") == 0) {
            out->type = SPEC_I32;
        } else {
            return fail(c, where, "type \"%s\": expected f32, u32 or i32", type);
        }
    }
    json_t *init = json_object_get(b, "init");
    char at[300];
    snprintf(at, sizeof at, "%s.init", where);
    out->init = SPEC_INIT_ZEROS;
    if (init && json_is_string(init)) {
        if (strcmp(json_string_value(init), "zeros") != 0) {
            return fail(c, at, "\"%s\": expected \"zeros\" or an object with constant, random or file",
                        json_string_value(init));
        }
    } else if (init && json_is_object(init)) {
        static const char *const init_keys[] = {"constant", "random", "file", NULL};
        if (!check_keys(c, init, at, init_keys)) {
            return false;
        }
        if (json_object_size(init) != 1) {
            return fail(c, at, "give exactly one of constant, random or file");
        }
        json_t *random = json_object_get(init, "random");
        const char *file;
        if (json_object_get(init, "constant")) {
            out->init = SPEC_INIT_CONSTANT;
            if (!get_number(c, init, "constant", at, 0, &out->constant)) {
                return false;
            }
        } else if (random) {
            static const char *const random_keys[] = {"seed", "min", "max", NULL};
            char rat[320];
            snprintf(rat, sizeof rat, "%s.random", at);
            if (!json_is_object(random)) {
                return fail(c, rat, "expected an object with seed, min and max, not %s", json_kind(random));
            }
            out->init = SPEC_INIT_RANDOM;
            if (!check_keys(c, random, rat, random_keys) ||
                !get_uint(c, random, "seed", rat, 0, UINT64_MAX >> 1, 1, &out->seed) ||
                !get_number(c, random, "min", rat, 0, &out->min) || !get_number(c, random, "max", rat, 1, &out->max)) {
                return false;
            }
            if (out->max < out->min) {
                return fail(c, rat, "max (%g) is below min (%g)", out->max, out->min);
            }
        } else {
            if (!get_string(c, init, "file", at, true, &file)) {
                return false;
            }
            out->init = SPEC_INIT_FILE;
            out->file = resolve_path(c, file);
            long n = file_size(out->file);
            if (n < 0) {
                return fail(c, at, "cannot read '%s': %s", out->file, strerror(errno));
            }
            out->size = (uint64_t)n;
        }
    } else if (init) {
        return fail(c, at, "expected \"zeros\" or an object, not %s", json_kind(init));
    }

    json_t *elements = json_object_get(b, "elements"), *bytes = json_object_get(b, "bytes");
    if (elements && bytes) {
        return fail(c, where, "give either \"elements\" or \"bytes\", not both");
    }
    uint64_t n = 0;
    if (elements) {
        if (!get_uint(c, b, "elements", where, 1, UINT64_MAX / 8, 0, &n)) {
            return false;
        }
        n *= 4;
    } else if (bytes) {
        if (!get_uint(c, b, "bytes", where, 4, UINT64_MAX / 2, 0, &n)) {
            return false;
        }
        if (n % 4) {
            return fail(c, where, "\"bytes\": %llu is not a multiple of 4", (unsigned long long)n);
        }
    } else if (out->init != SPEC_INIT_FILE) {
        return fail(c, where, "missing \"elements\" or \"bytes\" (the buffer's size)");
    }
    if (out->init == SPEC_INIT_FILE) {
        if (n && n != out->size) {
            return fail(c, where, "'%s' holds %llu bytes, the buffer %llu", out->file, (unsigned long long)out->size,
                        (unsigned long long)n);
        }
        if (out->size == 0 || out->size % 4) {
            return fail(c, where, "'%s' holds %llu bytes: a buffer needs a positive multiple of 4", out->file,
                        (unsigned long long)out->size);
        }
    } else {
        out->size = n;
    }
    return true;
}

static bool parse_kernel(ctx *c, json_t *k, const char *where, spec *s, spec_kernel *out)
{
    static const char *const keys[] = {"name", "wgsl", "wgsl_file", "entry", "constants", "workgroup_size", NULL};
    if (!json_is_object(k)) {
        return fail(c, where, "expected an object, not %s", json_kind(k));
    }
    const char *name, *wgsl, *file, *entry;
    if (!check_keys(c, k, where, keys) || !get_string(c, k, "name", where, true, &name) ||
        !get_string(c, k, "wgsl", where, false, &wgsl) || !get_string(c, k, "wgsl_file", where, false, &file) ||
        !get_string(c, k, "entry", where, false, &entry)) {
        return false;
    }
    size_t dup;
    if (find_kernel(s, (size_t)(out - s->kernels), name, &dup)) {
        return fail(c, where, "kernel name \"%s\" is used twice", name);
    }
    out->name = dup_string(name);
    out->entry = dup_string(entry ? entry : "main");
    if (!out->name || !out->entry) {
        return fail(c, where, "out of memory");
    }
    if (!wgsl == !file) {
        return fail(c, where, "give exactly one of \"wgsl\" (the source) or \"wgsl_file\" (a path)");
    }
    if (wgsl) {
        out->source = dup_string(wgsl);
        char origin[300];
        snprintf(origin, sizeof origin, "%s (inline)", where);
        out->origin = dup_string(origin);
    } else {
        char at[300];
        snprintf(at, sizeof at, "%s.wgsl_file", where);
        out->origin = resolve_path(c, file);
        out->source = read_text(c, out->origin, at);
        if (!out->source) {
            return false;
        }
    }
    json_t *constants = json_object_get(k, "constants");
    if (constants) {
        char at[300];
        snprintf(at, sizeof at, "%s.constants", where);
        if (!json_is_object(constants)) {
            return fail(c, at, "expected an object of name: number, not %s", json_kind(constants));
        }
        out->constants = calloc(json_object_size(constants) + 1, sizeof *out->constants);
        const char *key;
        json_t *value;
        json_object_foreach(constants, key, value) {
            if (!json_is_number(value)) {
                return fail(c, at, "\"%s\" must be a number, not %s", key, json_kind(value));
            }
            out->constants[out->constant_count].name = dup_string(key);
            out->constants[out->constant_count++].value = json_number_value(value);
        }
    }
    json_t *wgs = json_object_get(k, "workgroup_size");
    if (wgs) {
        char at[300];
        snprintf(at, sizeof at, "%s.workgroup_size", where);
        return get_dims(c, wgs, at, out->workgroup_size);
    }
    if (!parse_workgroup_size(out->source, out->entry, out->workgroup_size)) {
        memset(out->workgroup_size, 0, sizeof out->workgroup_size);
    }
    return true;
}

static bool parse_binding_key(const char *key, uint32_t *group, uint32_t *binding)
{
    char *end;
    unsigned long a = strtoul(key, &end, 10);
    if (end == key || a > 1000) {
        return false;
    }
    if (*end == '\0') {
        *group = 0;
        *binding = (uint32_t)a;
        return key[0] >= '0' && key[0] <= '9';
    }
    if (*end != '/') {
        return false;
    }
    const char *second = end + 1;
    unsigned long b = strtoul(second, &end, 10);
    if (end == second || *end != '\0' || b > 1000 || a > 3) {
        return false;
    }
    *group = (uint32_t)a;
    *binding = (uint32_t)b;
    return true;
}

static bool parse_dispatch(ctx *c, json_t *d, const char *where, spec *s, spec_dispatch *out)
{
    static const char *const keys[] = {"kernel", "label", "bindings", "workgroups", "repeat", "bytes", "flops", NULL};
    if (!json_is_object(d)) {
        return fail(c, where, "expected an object, not %s", json_kind(d));
    }
    const char *kernel, *label;
    if (!check_keys(c, d, where, keys) || !get_string(c, d, "kernel", where, true, &kernel) ||
        !get_string(c, d, "label", where, false, &label)) {
        return false;
    }
    if (!find_kernel(s, s->kernel_count, kernel, &out->kernel)) {
        return fail(c, where, "unknown kernel \"%s\"", kernel);
    }
    out->label = dup_string(label ? label : kernel);
    json_t *wg = json_object_get(d, "workgroups");
    char at[300];
    snprintf(at, sizeof at, "%s.workgroups", where);
    if (!wg) {
        return fail(c, where, "missing \"workgroups\" (workgroup counts: a number or [x, y, z])");
    }
    if (!get_dims(c, wg, at, out->workgroups)) {
        return false;
    }
    uint64_t repeat = 1;
    if (!get_uint(c, d, "repeat", where, 1, 1000000, 1, &repeat) ||
        !get_number(c, d, "bytes", where, 0, &out->bytes) || !get_number(c, d, "flops", where, 0, &out->flops)) {
        return false;
    }
    if (out->bytes < 0 || out->flops < 0) {
        return fail(c, where, "\"bytes\" and \"flops\" must not be negative");
    }
    out->repeat = (uint32_t)repeat;
    json_t *bindings = json_object_get(d, "bindings");
    snprintf(at, sizeof at, "%s.bindings", where);
    if (!bindings) {
        return true; /* a kernel may bind nothing */
    }
    if (!json_is_object(bindings)) {
        return fail(c, at, "expected an object of \"binding\": \"buffer\" (or \"group/binding\"), not %s",
                    json_kind(bindings));
    }
    out->bindings = calloc(json_object_size(bindings) + 1, sizeof *out->bindings);
    const char *key;
    json_t *value;
    json_object_foreach(bindings, key, value) {
        spec_binding *b = &out->bindings[out->binding_count];
        char bat[400];
        snprintf(bat, sizeof bat, "%s[\"%s\"]", at, key);
        if (!parse_binding_key(key, &b->group, &b->binding)) {
            return fail(c, bat, "a binding is named by its number (\"0\") or group and number (\"1/0\")");
        }
        if (!json_is_string(value)) {
            return fail(c, bat, "expected a buffer name, not %s", json_kind(value));
        }
        if (!find_buffer(s, s->buffer_count, json_string_value(value), &b->buffer)) {
            return fail(c, bat, "unknown buffer \"%s\"", json_string_value(value));
        }
        out->binding_count++;
    }
    return true;
}

static bool parse_output(ctx *c, json_t *o, const char *where, spec *s, spec_output *out)
{
    static const char *const keys[] = {"buffer", "file", NULL};
    if (!json_is_object(o)) {
        return fail(c, where, "expected an object, not %s", json_kind(o));
    }
    const char *buffer, *file;
    if (!check_keys(c, o, where, keys) || !get_string(c, o, "buffer", where, true, &buffer) ||
        !get_string(c, o, "file", where, true, &file)) {
        return false;
    }
    if (!find_buffer(s, s->buffer_count, buffer, &out->buffer)) {
        return fail(c, where, "unknown buffer \"%s\"", buffer);
    }
    out->file = dup_string(file);
    return true;
}

typedef bool (*parse_item_fn)(ctx *, json_t *, const char *, spec *, void *);

static bool parse_section(ctx *c, json_t *root, const char *key, bool required, spec *s, void **items,
                          size_t *count, size_t item_size, parse_item_fn parse)
{
    char where[64];
    snprintf(where, sizeof where, "$.%s", key);
    json_t *arr = json_object_get(root, key);
    if (!arr) {
        return !required || fail(c, "$", "missing \"%s\" (an array)", key);
    }
    if (!json_is_array(arr) || (required && json_array_size(arr) == 0)) {
        return fail(c, where, "expected a non-empty array, not %s",
                    json_is_array(arr) ? "an empty one" : json_kind(arr));
    }
    *items = calloc(json_array_size(arr) + 1, item_size);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char at[96];
        snprintf(at, sizeof at, "%s[%zu]", where, i);
        /* Counted before parsing, so that spec_free frees what a failing item allocated. */
        (*count)++;
        if (!parse(c, json_array_get(arr, i), at, s, (char *)*items + i * item_size)) {
            return false;
        }
    }
    return true;
}

/* Parses a document already read; `path` names it in messages and anchors relative paths. */
static bool spec_from_json(json_t *root, const json_error_t *jerr, const char *path, spec *out, char *error,
                           size_t error_cap)
{
    memset(out, 0, sizeof *out);
    ctx c = {path, dup_string(path), error, error_cap};
    if (!c.dir) {
        snprintf(error, error_cap, "%s: out of memory", path);
        return false;
    }
    char *slash = strrchr(c.dir, '/');
    if (slash) {
        *slash = '\0';
    } else {
        c.dir[0] = '\0';
    }
    bool ok = false;
    if (!root) {
        if (jerr->line < 0) {
            snprintf(error, error_cap, "%s: %s", path, jerr->text);
        } else {
            snprintf(error, error_cap, "%s:%d:%d: %s", path, jerr->line, jerr->column, jerr->text);
        }
        goto done;
    }
    static const char *const keys[] = {"buffers", "kernels", "dispatches", "outputs", "description", NULL};
    out->path = dup_string(path);
    if (!json_is_object(root)) {
        fail(&c, "$", "a spec is a JSON object, not %s", json_kind(root));
        goto done;
    }
    ok = check_keys(&c, root, "$", keys) &&
         parse_section(&c, root, "buffers", false, out, (void **)&out->buffers, &out->buffer_count,
                       sizeof *out->buffers, (parse_item_fn)parse_buffer) &&
         parse_section(&c, root, "kernels", true, out, (void **)&out->kernels, &out->kernel_count,
                       sizeof *out->kernels, (parse_item_fn)parse_kernel) &&
         parse_section(&c, root, "dispatches", true, out, (void **)&out->dispatches, &out->dispatch_count,
                       sizeof *out->dispatches, (parse_item_fn)parse_dispatch) &&
         parse_section(&c, root, "outputs", false, out, (void **)&out->outputs, &out->output_count,
                       sizeof *out->outputs, (parse_item_fn)parse_output);
done:
    free(c.dir);
    if (!ok) {
        spec_free(out);
    }
    return ok;
}

bool spec_load(const char *path, spec *out, char *error, size_t error_cap)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    bool ok = spec_from_json(root, &jerr, path, out, error, error_cap);
    json_decref(root);
    return ok;
}

bool spec_load_buffer(const char *name, const char *data, size_t size, spec *out, char *error, size_t error_cap)
{
    json_error_t jerr;
    json_t *root = json_loadb(data, size, JSON_REJECT_DUPLICATES, &jerr);
    bool ok = spec_from_json(root, &jerr, name, out, error, error_cap);
    json_decref(root);
    return ok;
}

void spec_free(spec *s)
{
    for (size_t i = 0; i < s->buffer_count; i++) {
        free(s->buffers[i].name);
        free(s->buffers[i].file);
    }
    for (size_t i = 0; i < s->kernel_count; i++) {
        spec_kernel *k = &s->kernels[i];
        free(k->name);
        free(k->source);
        free(k->origin);
        free(k->entry);
        for (size_t j = 0; j < k->constant_count; j++) {
            free(k->constants[j].name);
        }
        free(k->constants);
    }
    for (size_t i = 0; i < s->dispatch_count; i++) {
        free(s->dispatches[i].label);
        free(s->dispatches[i].bindings);
    }
    for (size_t i = 0; i < s->output_count; i++) {
        free(s->outputs[i].file);
    }
    free(s->buffers);
    free(s->kernels);
    free(s->dispatches);
    free(s->outputs);
    free(s->path);
    memset(s, 0, sizeof *s);
}
