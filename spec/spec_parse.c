/*
 * Reading a spec file: JSON syntax through jansson (which gives line and column), then every
 * field checked for presence, type and range, every name resolved, every file read, before
 * anything runs. Unknown keys are errors, so that a typo is never silently ignored.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, O_PATH */
#endif
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "spec.h"

enum { SHOWN_SLOTS = 4, SHOWN_CAP = 256 };

typedef struct ctx {
    const char *file;
    char *dir; /* the spec's folder as given, for relative paths ("" for the current one) */
    char *root; /* the spec's folder, real (links resolved); NULL until needed */
    int root_fd; /* the spec's folder, opened once: every path under it is opened beneath it */
    char **allow; /* the --allow-path folders, real */
    int *allow_fd; /* and opened once, likewise */
    size_t allow_count;
    uint64_t max_dispatches, dispatch_total;
    char *error;
    size_t error_cap;
    char shown[SHOWN_SLOTS][SHOWN_CAP];
    unsigned next_shown;
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

/* Text from the spec, escaped for a message; valid until SHOWN_SLOTS more calls. */
static const char *shown(ctx *c, const char *text)
{
    char *out = c->shown[c->next_shown++ % SHOWN_SLOTS];
    wgprof__escape_terminal_copy(out, SHOWN_CAP, text ? text : "", false);
    return out;
}

/* Reads a regular file of at most `max_bytes` whole, NUL-terminated; NULL with the reason. */
static char *read_regular(int dirfd, const char *path, bool beneath, uint64_t max_bytes, size_t *length,
                          uint64_t *dev, uint64_t *ino, char *why, size_t why_cap)
{
    uint64_t size = 0;
    int fd = file_open_regular_at(dirfd, path, beneath, max_bytes, &size, dev, ino, why, why_cap);
    if (fd < 0) {
        return NULL;
    }
    char *buf = malloc((size_t)size + 2);
    if (!buf) {
        snprintf(why, why_cap, "out of memory for %llu bytes", (unsigned long long)size);
        close(fd);
        return NULL;
    }
    /* One byte more than the size, to see a file that grew since fstat. */
    size_t len = 0;
    while (len < size + 1) {
        ssize_t got = read(fd, buf + len, (size_t)size + 1 - len);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            snprintf(why, why_cap, "%s", strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0) {
            break;
        }
        len += (size_t)got;
    }
    close(fd);
    if (len != size) {
        snprintf(why, why_cap, "it changed size while being read");
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    *length = len;
    return buf;
}

static bool add_input(ctx *c, spec *s, const char *path, const char *where, uint64_t dev, uint64_t ino)
{
    spec_input *grown = realloc(s->inputs, (s->input_count + 1) * sizeof *grown);
    if (!grown) {
        return fail(c, where, "out of memory");
    }
    s->inputs = grown;
    spec_input *in = &s->inputs[s->input_count];
    in->path = dup_string(path);
    in->where = dup_string(where);
    in->dev = dev;
    in->ino = ino;
    s->input_count++;
    return in->path && in->where ? true : fail(c, where, "out of memory");
}

static bool is_within(const char *path, const char *folder)
{
    size_t n = strlen(folder);
    if (n == 1 && folder[0] == '/') {
        return path[0] == '/';
    }
    return strncmp(path, folder, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Whether a real path may be used: inside the spec's folder (for a relative path) or inside an
 * allowed folder. */
static bool allowed(const ctx *c, const char *real, bool absolute)
{
    if (!absolute && c->root && is_within(real, c->root)) {
        return true;
    }
    for (size_t i = 0; i < c->allow_count; i++) {
        if (is_within(real, c->allow[i])) {
            return true;
        }
    }
    return false;
}

static bool refuse_outside(ctx *c, const char *where, const char *given, const char *real, bool absolute)
{
    if (absolute) {
        return fail(c, where, "'%s' is an absolute path: a spec's paths are relative to its folder; give "
                              "--allow-path with a folder holding it to allow it",
                    shown(c, given));
    }
    return fail(c, where, "'%s' leads to '%s', outside the spec's folder '%s'; give --allow-path with a folder "
                          "holding it to allow it",
                shown(c, given), shown(c, real), shown(c, c->root));
}

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", dir, name);
    }
    return p;
}

/* Whether `real` names the folder `fd` was opened on: a folder swapped between the two is
 * refused, so that the descriptor and the path the checks use are one folder. */
static bool same_folder(int fd, const char *real)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(real, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The spec's folder, real, found once, and opened (if spec_load has not opened it already). */
static bool find_root(ctx *c, const char *where)
{
    if (!c->root) {
        const char *folder = c->dir[0] ? c->dir : ".";
        if (c->root_fd < 0) {
            c->root_fd = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        c->root = c->root_fd >= 0 ? realpath(folder, NULL) : NULL;
        if (!c->root) {
            return fail(c, where, "cannot find the spec's folder '%s': %s", shown(c, folder), strerror(errno));
        }
        if (!same_folder(c->root_fd, c->root)) {
            return fail(c, where, "the spec's folder '%s' was replaced while the spec was read", shown(c, folder));
        }
    }
    return true;
}

/* The folder descriptor a checked real path is opened beneath, and the path under it: the
 * spec's folder or the allowed folder that allowed() found it in. -1 where none holds it. */
static int beneath(const ctx *c, const char *real, bool absolute, const char **rest)
{
    const char *folder = NULL;
    int fd = -1;
    if (!absolute && c->root && is_within(real, c->root)) {
        folder = c->root;
        fd = c->root_fd;
    }
    for (size_t i = 0; fd < 0 && i < c->allow_count; i++) {
        if (is_within(real, c->allow[i])) {
            folder = c->allow[i];
            fd = c->allow_fd[i];
        }
    }
    if (fd >= 0) {
        const char *r = real + (strcmp(folder, "/") == 0 ? 0 : strlen(folder));
        while (*r == '/') {
            r++;
        }
        *rest = r[0] ? r : ".";
    }
    return fd;
}

/* A path from the spec, for reading: `*display` gets it as the user would write it (relative to
 * the current folder), and the result is its real path, checked to be where it may be. */
/* What resolving a spec's path starts with: `*display`, the path as the user would write it
 * (relative to the current folder), whether it was given absolute, and the spec's real folder. */
static bool start_resolving(ctx *c, const char *given, const char *where, char **display, bool *absolute)
{
    *display = NULL;
    if (!given) {
        return fail(c, where, "missing path");
    }
    *absolute = given[0] == '/';
    *display = *absolute || !c->dir[0] ? dup_string(given) : join_path(c->dir, given);
    if (!*display) {
        return fail(c, where, "out of memory");
    }
    return find_root(c, where);
}

static char *resolve_input(ctx *c, const char *given, const char *where, char **display)
{
    bool absolute = false;
    if (!start_resolving(c, given, where, display, &absolute)) {
        return NULL;
    }
    char *real = realpath(*display, NULL);
    if (!real) {
        int e = errno;
        /* Say that the folder is out of bounds before saying that the file is missing. */
        char *folder = dup_string(*display);
        char *slash = folder ? strrchr(folder, '/') : NULL;
        char *real_folder = NULL;
        if (folder) {
            if (slash) {
                *slash = '\0';
            }
            real_folder = realpath(slash ? (folder[0] ? folder : "/") : ".", NULL);
        }
        bool outside = real_folder && !allowed(c, real_folder, absolute);
        if (outside) {
            refuse_outside(c, where, given, real_folder, absolute);
        } else {
            fail(c, where, "cannot read '%s': %s", shown(c, *display), strerror(e));
        }
        free(folder);
        free(real_folder);
        return NULL;
    }
    if (!allowed(c, real, absolute)) {
        refuse_outside(c, where, given, real, absolute);
        free(real);
        return NULL;
    }
    return real;
}

/* A path from the spec, for writing: its folder must exist; the file need not. The result is the
 * real folder joined with the name; a link there must lead somewhere allowed too. */
static char *resolve_output(ctx *c, const char *given, const char *where, char **display)
{
    bool absolute = false;
    if (!start_resolving(c, given, where, display, &absolute)) {
        return NULL;
    }
    char *folder = dup_string(*display);
    if (!folder) {
        fail(c, where, "out of memory");
        return NULL;
    }
    char *slash = strrchr(folder, '/');
    const char *name = slash ? *display + (slash - folder) + 1 : *display;
    if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        fail(c, where, "'%s' names a folder, not a file", shown(c, given));
        free(folder);
        return NULL;
    }
    if (slash) {
        *slash = '\0';
    }
    char *real_folder = realpath(slash ? (folder[0] ? folder : "/") : ".", NULL);
    if (!real_folder) {
        fail(c, where, "cannot write '%s': the folder '%s' %s", shown(c, *display),
             shown(c, slash ? (folder[0] ? folder : "/") : "."), errno == ENOENT ? "does not exist" : strerror(errno));
        free(folder);
        return NULL;
    }
    free(folder);
    char *real = join_path(real_folder, name);
    bool ok = real != NULL;
    if (!ok) {
        fail(c, where, "out of memory");
    } else if (!allowed(c, real_folder, absolute)) {
        ok = refuse_outside(c, where, given, real_folder, absolute);
    } else {
        struct stat st;
        if (lstat(real, &st) == 0 && S_ISLNK(st.st_mode)) {
            char *target = realpath(real, NULL);
            if (!target) {
                ok = fail(c, where, "'%s' is a symbolic link to nothing that exists", shown(c, *display));
            } else if (!allowed(c, target, absolute)) {
                ok = refuse_outside(c, where, given, target, absolute);
            }
            free(target);
        }
    }
    free(real_folder);
    if (!ok) {
        free(real);
        return NULL;
    }
    return real;
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
            return fail(c, where, "unknown key \"%s\" (expected one of: %s)", shown(c, key), list);
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
    if (strlen(json_string_value(v)) != json_string_length(v)) {
        return fail(c, where, "\"%s\" must not hold a NUL character (\\u0000)", key);
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

/* ---- sections ---- */

/* Whether `v` is a value of `type`: within f32's or f16's range, or an integer within u32's or
 * i32's. Nothing is wrapped or clamped to make it one; a float rounds to the nearest value of
 * its type, as a WGSL literal does. */
static bool fits_type(ctx *c, const char *where, spec_type type, double v)
{
    switch (type) {
    case SPEC_F32:
        return fabs(v) <= FLT_MAX ? true : fail(c, where, "%g is outside the range of f32", v);
    case SPEC_F16:
        return fabs(v) <= 65504.0 ? true : fail(c, where, "%g is outside the range of f16 (-65504 to 65504)", v);
    case SPEC_U32:
        if (v != floor(v) || v < 0 || v > 4294967295.0) {
            return fail(c, where, "%g is not a u32 (a whole number from 0 to 4294967295)", v);
        }
        return true;
    case SPEC_I32:
        if (v != floor(v) || v < -2147483648.0 || v > 2147483647.0) {
            return fail(c, where, "%g is not an i32 (a whole number from -2147483648 to 2147483647)", v);
        }
        return true;
    }
    return fail(c, where, "unknown type");
}

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

/* ---- struct inits: fields laid out by WGSL's rules ---- */

static const struct field_scalar {
    const char *name;
    char suffix; /* WGSL's shorthand: vec3f, vec2u, vec4h */
    spec_type type;
    uint32_t size;
} field_scalars[] = {
    {"u32", 'u', SPEC_U32, 4},
    {"i32", 'i', SPEC_I32, 4},
    {"f32", 'f', SPEC_F32, 4},
    {"f16", 'h', SPEC_F16, 2},
};

static const struct field_scalar *scalar_of(spec_type type)
{
    for (size_t i = 0; i < sizeof field_scalars / sizeof field_scalars[0]; i++) {
        if (field_scalars[i].type == type) {
            return &field_scalars[i];
        }
    }
    return &field_scalars[0];
}

/* A field's type: a scalar, vecN<T>, or WGSL's shorthand vecNT. Returns its component count
 * (1 for a scalar), 0 for no type. */
static uint32_t parse_field_type(const char *text, spec_type *type)
{
    for (size_t i = 0; i < sizeof field_scalars / sizeof field_scalars[0]; i++) {
        for (uint32_t count = 1; count <= 4; count++) {
            char full[16], shorthand[16];
            snprintf(full, sizeof full, "vec%u<%s>", count, field_scalars[i].name);
            snprintf(shorthand, sizeof shorthand, "vec%u%c", count, field_scalars[i].suffix);
            if (count == 1 ? strcmp(text, field_scalars[i].name) == 0
                           : strcmp(text, full) == 0 || strcmp(text, shorthand) == 0) {
                *type = field_scalars[i].type;
                return count;
            }
        }
    }
    return 0;
}

/* WGSL's SizeOf and AlignOf for a scalar or vector: a vec3 is aligned as a vec4. */
static uint32_t field_size(const spec_field *f) { return scalar_of(f->type)->size * f->count; }
static uint32_t field_align(const spec_field *f) { return scalar_of(f->type)->size * (f->count == 3 ? 4 : f->count); }

static const char *field_type_name(const spec_field *f, char *out, size_t cap)
{
    if (f->count == 1) {
        snprintf(out, cap, "%s", scalar_of(f->type)->name);
    } else {
        snprintf(out, cap, "vec%u<%s>", f->count, scalar_of(f->type)->name);
    }
    return out;
}

/* Field `f` (the struct's field `index`, at `at`) from its JSON object; `end` is where the
 * previous field ends and becomes where this one does. */
static bool parse_field(ctx *c, json_t *fj, const char *at, spec_buffer *b, size_t index, uint64_t *end)
{
    static const char *const keys[] = {"name", "type", "value", "offset", NULL};
    spec_field *f = &b->fields[index];
    if (!json_is_object(fj)) {
        return fail(c, at, "expected an object with \"type\" and \"value\", not %s", json_kind(fj));
    }
    const char *name, *type;
    if (!check_keys(c, fj, at, keys) || !get_string(c, fj, "name", at, false, &name) ||
        !get_string(c, fj, "type", at, true, &type)) {
        return false;
    }
    if (name) {
        f->name = dup_string(name);
        if (!f->name) {
            return fail(c, at, "out of memory");
        }
        for (size_t i = 0; i < index; i++) {
            if (b->fields[i].name && strcmp(b->fields[i].name, name) == 0) {
                return fail(c, at, "field name \"%s\" is used twice", shown(c, name));
            }
        }
    }
    /* Every message about this field names it too, when it has a name. */
    char suffix[300] = "", named[660], sub[700], tname[24];
    if (name) {
        snprintf(suffix, sizeof suffix, " (field \"%s\")", shown(c, name));
    }
    snprintf(named, sizeof named, "%s%s", at, suffix);
    f->count = parse_field_type(type, &f->type);
    if (f->count == 0) {
        snprintf(sub, sizeof sub, "%s.type%s", at, suffix);
        return fail(c, sub, "\"%s\" is not a field type: expected u32, i32, f32, f16, or a vec2, vec3 or vec4 of one "
                            "(vec3<f32> or vec3f)",
                    shown(c, type));
    }
    field_type_name(f, tname, sizeof tname);
    json_t *value = json_object_get(fj, "value");
    if (!value) {
        return fail(c, named, "missing \"value\" (%s)", f->count == 1 ? "a number" : "an array of numbers");
    }
    snprintf(sub, sizeof sub, "%s.value%s", at, suffix);
    if (f->count == 1) {
        if (!json_is_number(value)) {
            return fail(c, sub, "expected a number (%s), not %s", tname, json_kind(value));
        }
        f->value[0] = json_number_value(value);
        if (!fits_type(c, sub, f->type, f->value[0])) {
            return false;
        }
    } else {
        if (!json_is_array(value)) {
            return fail(c, sub, "expected an array of %u numbers (%s), not %s", f->count, tname, json_kind(value));
        }
        if (json_array_size(value) != f->count) {
            return fail(c, sub, "expected %u numbers (%s), not %zu", f->count, tname, json_array_size(value));
        }
        for (uint32_t k = 0; k < f->count; k++) {
            json_t *item = json_array_get(value, k);
            char vat[700];
            snprintf(vat, sizeof vat, "%s.value[%u]%s", at, k, suffix);
            if (!json_is_number(item)) {
                return fail(c, vat, "expected a number, not %s", json_kind(item));
            }
            f->value[k] = json_number_value(item);
            if (!fits_type(c, vat, f->type, f->value[k])) {
                return false;
            }
        }
    }
    uint64_t align = field_align(f), offset = (*end + align - 1) / align * align;
    json_t *given = json_object_get(fj, "offset");
    if (given) {
        snprintf(sub, sizeof sub, "%s.offset%s", at, suffix);
        if (!as_uint(c, given, sub, 0, SPEC_MAX_STRUCT_BYTES, &offset)) {
            return false;
        }
        if (offset % align) {
            return fail(c, sub, "%llu is not a multiple of %llu, the alignment of %s", (unsigned long long)offset,
                        (unsigned long long)align, tname);
        }
        if (offset < *end) {
            return fail(c, sub, "%llu overlaps the previous field, which ends at byte %llu", (unsigned long long)offset,
                        (unsigned long long)*end);
        }
    }
    if (offset + field_size(f) > SPEC_MAX_STRUCT_BYTES) {
        return fail(c, named, "the field would end at byte %llu, past the %u bytes a struct may span",
                    (unsigned long long)offset + field_size(f), SPEC_MAX_STRUCT_BYTES);
    }
    f->offset = (uint32_t)offset;
    *end = offset + field_size(f);
    return true;
}

/* `{"struct": [fields]}` at `where`: the fields, and the struct's size by WGSL's rules (the end
 * of its last field rounded up to its largest alignment). */
static bool parse_struct(ctx *c, json_t *fields, const char *where, spec_buffer *b, uint64_t *size)
{
    if (!json_is_array(fields) || json_array_size(fields) == 0) {
        return fail(c, where, "expected a non-empty array of fields ({\"name\", \"type\", \"value\"}), not %s",
                    json_is_array(fields) ? "an empty one" : json_kind(fields));
    }
    size_t n = json_array_size(fields);
    if (n > SPEC_MAX_STRUCT_BYTES / 2) {
        return fail(c, where, "%zu fields, more than the %u bytes a struct may span can hold", n,
                    SPEC_MAX_STRUCT_BYTES);
    }
    b->fields = calloc(n, sizeof *b->fields);
    if (!b->fields) {
        return fail(c, where, "out of memory");
    }
    uint64_t end = 0, max_align = 1;
    for (size_t i = 0; i < n; i++) {
        char at[340];
        snprintf(at, sizeof at, "%s[%zu]", where, i);
        b->field_count++; /* counted first, so that spec_free frees its name */
        if (!parse_field(c, json_array_get(fields, i), at, b, i, &end)) {
            return false;
        }
        max_align = field_align(&b->fields[i]) > max_align ? field_align(&b->fields[i]) : max_align;
    }
    *size = (end + max_align - 1) / max_align * max_align;
    return true;
}

/* A name of the spec's that is not wgprof's own (SPEC_REFERENCE_NAME, record's "(copy)"): those
 * start with "(". */
static bool own_name(ctx *c, const char *where, const char *what, const char *name)
{
    return !name || name[0] != '(' ||
           fail(c, where, "%s \"%s\": names starting with \"(\" are wgprof's own rows (%s)", what, shown(c, name),
                SPEC_REFERENCE_NAME);
}

static bool parse_buffer(ctx *c, json_t *b, const char *where, spec *s, spec_buffer *out)
{
    static const char *const keys[] = {"name", "type", "elements", "bytes", "init", NULL};
    if (!json_is_object(b)) {
        return fail(c, where, "expected an object, not %s", json_kind(b));
    }
    const char *name, *type;
    if (!check_keys(c, b, where, keys) || !get_string(c, b, "name", where, true, &name) ||
        !get_string(c, b, "type", where, false, &type) || !own_name(c, where, "buffer name", name)) {
        return false;
    }
    size_t dup;
    if (find_buffer(s, (size_t)(out - s->buffers), name, &dup)) {
        return fail(c, where, "buffer name \"%s\" is used twice", shown(c, name));
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
            return fail(c, where, "type \"%s\": expected f32, u32 or i32", shown(c, type));
        }
    }
    json_t *init = json_object_get(b, "init");
    char at[300];
    snprintf(at, sizeof at, "%s.init", where);
    uint64_t struct_size = 0;
    out->init = SPEC_INIT_ZEROS;
    if (init && json_is_string(init)) {
        if (strcmp(json_string_value(init), "zeros") != 0) {
            return fail(c, at, "\"%s\": expected \"zeros\" or an object with constant, random, file or struct",
                        shown(c, json_string_value(init)));
        }
    } else if (init && json_is_object(init)) {
        static const char *const init_keys[] = {"constant", "random", "file", "struct", NULL};
        if (!check_keys(c, init, at, init_keys)) {
            return false;
        }
        if (json_object_size(init) != 1) {
            return fail(c, at, "give exactly one of constant, random, file or struct");
        }
        json_t *random = json_object_get(init, "random"), *fields = json_object_get(init, "struct");
        const char *file;
        if (fields) {
            char sat[320];
            snprintf(sat, sizeof sat, "%s.struct", at);
            if (type) {
                return fail(c, where, "\"type\" has no meaning with a struct init: each field has its own");
            }
            out->init = SPEC_INIT_STRUCT;
            if (!parse_struct(c, fields, sat, out, &struct_size)) {
                return false;
            }
        } else if (json_object_get(init, "constant")) {
            out->init = SPEC_INIT_CONSTANT;
            char cat[320];
            snprintf(cat, sizeof cat, "%s.constant", at);
            if (!get_number(c, init, "constant", at, 0, &out->constant) || !fits_type(c, cat, out->type, out->constant)) {
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
            char mat[340];
            snprintf(mat, sizeof mat, "%s.min", rat);
            if (!fits_type(c, mat, out->type, out->min)) {
                return false;
            }
            snprintf(mat, sizeof mat, "%s.max", rat);
            if (!fits_type(c, mat, out->type, out->max)) {
                return false;
            }
        } else {
            if (!get_string(c, init, "file", at, true, &file)) {
                return false;
            }
            out->init = SPEC_INIT_FILE;
            char *display = NULL;
            out->file = resolve_input(c, file, at, &display);
            bool ok = out->file != NULL;
            if (ok) {
                char why[256];
                /* Opened beneath the folder that allowed it: a folder on the way swapped for a link
                 * since the check cannot lead elsewhere. spec_gpu.c opens it again by name and
                 * takes it only if it is still this file. */
                const char *rest = NULL;
                int dirfd = beneath(c, out->file, file[0] == '/', &rest);
                int fd = dirfd < 0 ? -1
                                   : file_open_regular_at(dirfd, rest, true, 0, &out->size, &out->file_dev,
                                                          &out->file_ino, why, sizeof why);
                if (dirfd < 0) {
                    snprintf(why, sizeof why, "outside the folders allowed");
                }
                if (fd < 0) {
                    ok = fail(c, at, "cannot read '%s': %s", shown(c, display), why);
                } else {
                    close(fd);
                    ok = add_input(c, s, display, at, out->file_dev, out->file_ino);
                }
            }
            free(display);
            if (!ok) {
                return false;
            }
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
    } else if (out->init != SPEC_INIT_FILE && out->init != SPEC_INIT_STRUCT) {
        return fail(c, where, "missing \"elements\" or \"bytes\" (the buffer's size)");
    }
    if (out->init == SPEC_INIT_STRUCT) {
        if (n && n < struct_size) {
            char sat[320];
            snprintf(sat, sizeof sat, "%s.%s", where, elements ? "elements" : "bytes");
            return fail(c, sat, "%llu bytes, fewer than the struct's %llu", (unsigned long long)n,
                        (unsigned long long)struct_size);
        }
        /* Without a size, the struct's rounded up to 16 bytes, zeros after the last field: WGSL's
         * uniform address space lays structs out in 16-byte units, and a shader's struct may end
         * in padding fields the spec leaves out (`_pad: vec2u`, filling a row), so the buffer
         * still binds as that uniform. */
        out->size = n ? n : (struct_size + 15) / 16 * 16;
    } else if (out->init == SPEC_INIT_FILE) {
        if (n && n != out->size) {
            return fail(c, where, "'%s' holds %llu bytes, the buffer %llu", shown(c, out->file),
                        (unsigned long long)out->size, (unsigned long long)n);
        }
        if (out->size == 0 || out->size % 4) {
            return fail(c, where, "'%s' holds %llu bytes: a buffer needs a positive multiple of 4", shown(c, out->file),
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
        !get_string(c, k, "entry", where, false, &entry) || !own_name(c, where, "kernel name", name)) {
        return false;
    }
    size_t dup;
    if (find_kernel(s, (size_t)(out - s->kernels), name, &dup)) {
        return fail(c, where, "kernel name \"%s\" is used twice", shown(c, name));
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
        snprintf(origin, sizeof origin, "%s.wgsl", where);
        out->origin = dup_string(origin);
        out->inline_source = true;
    } else {
        char at[300];
        snprintf(at, sizeof at, "%s.wgsl_file", where);
        char *real = resolve_input(c, file, at, &out->origin);
        if (!real) {
            return false;
        }
        char why[256];
        size_t length = 0;
        uint64_t dev = 0, ino = 0;
        const char *rest = NULL;
        int dirfd = beneath(c, real, file[0] == '/', &rest);
        snprintf(why, sizeof why, "outside the folders allowed");
        out->source = dirfd < 0 ? NULL
                                : read_regular(dirfd, rest, true, SPEC_MAX_WGSL_BYTES, &length, &dev, &ino, why,
                                               sizeof why);
        free(real);
        if (!out->source) {
            return fail(c, at, "cannot read '%s': %s", shown(c, out->origin), why);
        }
        if (strlen(out->source) != length) {
            return fail(c, at, "'%s' holds a NUL byte: WGSL is text", shown(c, out->origin));
        }
        if (!add_input(c, s, out->origin, at, dev, ino)) {
            return false;
        }
    }
    json_t *constants = json_object_get(k, "constants");
    if (constants) {
        char at[300];
        snprintf(at, sizeof at, "%s.constants", where);
        if (!json_is_object(constants)) {
            return fail(c, at, "expected an object of name: number or boolean, not %s", json_kind(constants));
        }
        out->constants = calloc(json_object_size(constants) + 1, sizeof *out->constants);
        if (!out->constants) {
            return fail(c, at, "out of memory");
        }
        const char *key;
        json_t *value;
        json_object_foreach(constants, key, value) {
            /* WebGPU passes every override as a double: a bool override takes 1 or 0. */
            if (!json_is_number(value) && !json_is_boolean(value)) {
                char cat[600];
                snprintf(cat, sizeof cat, "%s[\"%s\"]", at, shown(c, key));
                return fail(c, cat, "expected a number or a boolean, not %s", json_kind(value));
            }
            spec_constant *constant = &out->constants[out->constant_count++];
            constant->name = dup_string(key);
            constant->value = json_is_boolean(value) ? (json_is_true(value) ? 1.0 : 0.0) : json_number_value(value);
            if (!constant->name) {
                return fail(c, at, "out of memory");
            }
        }
    }
    /* The size is read from the shader, overrides resolved; the spec's workgroup_size is needed
     * only where that fails, and must agree with it where both exist: a size is never guessed. */
    char why[300] = "";
    uint32_t read[3];
    bool from_source = wgsl_workgroup_size(out->source, out->entry, out->constants, out->constant_count, read, why,
                                           sizeof why);
    json_t *wgs = json_object_get(k, "workgroup_size");
    if (wgs) {
        char at[300];
        snprintf(at, sizeof at, "%s.workgroup_size", where);
        if (!get_dims(c, wgs, at, out->workgroup_size)) {
            return false;
        }
        if (from_source && memcmp(read, out->workgroup_size, sizeof read) != 0) {
            return fail(c, at, "[%u, %u, %u] disagrees with the shader's @workgroup_size, [%u, %u, %u]",
                        out->workgroup_size[0], out->workgroup_size[1], out->workgroup_size[2], read[0], read[1],
                        read[2]);
        }
        return true;
    }
    if (!from_source) {
        /* Reported after the device compiled the shader: a WGSL error says more. */
        memset(out->workgroup_size, 0, sizeof out->workgroup_size);
        out->workgroup_size_why = dup_string(why);
        return out->workgroup_size_why ? true : fail(c, where, "out of memory");
    }
    memcpy(out->workgroup_size, read, sizeof read);
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

/* A binding's buffer: its name (the whole buffer), or {"buffer", "offset", "size"} for a range. */
static bool parse_binding_value(ctx *c, json_t *value, const char *where, spec *s, spec_binding *b)
{
    static const char *const keys[] = {"buffer", "offset", "size", NULL};
    const char *name = json_string_value(value);
    if (json_is_object(value) &&
        (!check_keys(c, value, where, keys) || !get_string(c, value, "buffer", where, true, &name))) {
        return false;
    }
    if (!name) {
        return fail(c, where, "expected a buffer name or {\"buffer\", \"offset\", \"size\"}, not %s",
                    json_kind(value));
    }
    if (!find_buffer(s, s->buffer_count, name, &b->buffer)) {
        return fail(c, where, "unknown buffer \"%s\"", shown(c, name));
    }
    uint64_t total = s->buffers[b->buffer].size;
    b->offset = 0;
    b->size = total;
    if (!json_is_object(value)) {
        return true;
    }
    char at[480];
    json_t *offset = json_object_get(value, "offset"), *size = json_object_get(value, "size");
    if (offset) {
        snprintf(at, sizeof at, "%s.offset", where);
        if (!as_uint(c, offset, at, 0, INT64_MAX, &b->offset)) {
            return false;
        }
        /* 256 is the default of both offset alignments and the most a device may require. */
        if (b->offset % SPEC_BINDING_OFFSET_ALIGNMENT) {
            return fail(c, at, "%llu is not a multiple of %u (WebGPU's buffer offset alignment)",
                        (unsigned long long)b->offset, SPEC_BINDING_OFFSET_ALIGNMENT);
        }
        if (b->offset >= total) {
            return fail(c, at, "%llu is past the end of buffer \"%s\" (%llu bytes)", (unsigned long long)b->offset,
                        shown(c, name), (unsigned long long)total);
        }
        b->size = total - b->offset;
    }
    if (size) {
        snprintf(at, sizeof at, "%s.size", where);
        if (!as_uint(c, size, at, 1, INT64_MAX, &b->size)) {
            return false;
        }
        if (b->size % 4) {
            return fail(c, at, "%llu is not a multiple of 4", (unsigned long long)b->size);
        }
        if (b->size > total - b->offset) {
            return fail(c, at, "%llu bytes from offset %llu run past the end of buffer \"%s\" (%llu bytes)",
                        (unsigned long long)b->size, (unsigned long long)b->offset, shown(c, name),
                        (unsigned long long)total);
        }
    }
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
        !get_string(c, d, "label", where, false, &label) || (label && !own_name(c, where, "label", label))) {
        return false;
    }
    if (!find_kernel(s, s->kernel_count, kernel, &out->kernel)) {
        return fail(c, where, "unknown kernel \"%s\"", shown(c, kernel));
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
    if (!get_uint(c, d, "repeat", where, 1, UINT32_MAX, 1, &repeat) ||
        !get_number(c, d, "bytes", where, 0, &out->bytes) || !get_number(c, d, "flops", where, 0, &out->flops)) {
        return false;
    }
    if (out->bytes < 0 || out->flops < 0) {
        return fail(c, where, "\"bytes\" and \"flops\" must not be negative");
    }
    /* A bound no real dispatch comes near, so that every sum the reports make of these (over
     * repeats, dispatches and iterations, each bounded too) stays a finite number. */
    if (out->bytes > SPEC_MAX_DISPATCH_FIGURE || out->flops > SPEC_MAX_DISPATCH_FIGURE) {
        return fail(c, where, "\"%s\" is %g, more than the %g one dispatch may claim",
                    out->bytes > SPEC_MAX_DISPATCH_FIGURE ? "bytes" : "flops",
                    out->bytes > SPEC_MAX_DISPATCH_FIGURE ? out->bytes : out->flops, SPEC_MAX_DISPATCH_FIGURE);
    }
    out->repeat = (uint32_t)repeat;
    /* The cap counts every repeat, and is checked before any per-dispatch memory exists. */
    c->dispatch_total += repeat;
    if (c->dispatch_total > c->max_dispatches) {
        snprintf(at, sizeof at, "%s%s", where, json_object_get(d, "repeat") ? ".repeat" : "");
        return fail(c, at,
                    "brings the dispatches per iteration to %llu, more than the cap of %llu "
                    "(--max-dispatches N raises it)",
                    (unsigned long long)c->dispatch_total, (unsigned long long)c->max_dispatches);
    }
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
    if (!out->bindings) {
        return fail(c, at, "out of memory");
    }
    const char *key;
    json_t *value;
    json_object_foreach(bindings, key, value) {
        spec_binding *b = &out->bindings[out->binding_count];
        char bat[400];
        snprintf(bat, sizeof bat, "%s[\"%s\"]", at, shown(c, key));
        if (!parse_binding_key(key, &b->group, &b->binding)) {
            return fail(c, bat, "a binding is named by its number (\"0\") or group and number (\"1/0\")");
        }
        if (!parse_binding_value(c, value, bat, s, b)) {
            return false;
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
        return fail(c, where, "unknown buffer \"%s\"", shown(c, buffer));
    }
    char at[300];
    snprintf(at, sizeof at, "%s.file", where);
    out->file = resolve_output(c, file, at, &out->display);
    return out->file != NULL;
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
    if (strcmp(key, "dispatches") == 0 && json_array_size(arr) > c->max_dispatches) {
        return fail(c, where, "%zu dispatches, more than the cap of %llu per iteration (--max-dispatches N raises it)",
                    json_array_size(arr), (unsigned long long)c->max_dispatches);
    }
    *items = calloc(json_array_size(arr) + 1, item_size);
    if (!*items) {
        return fail(c, where, "out of memory");
    }
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

/* The allowed folders of `options`, real, into the context; false with the message. */
static bool resolve_allowed(ctx *c, const spec_load_options *options)
{
    if (!options || !options->allow_path_count) {
        return true;
    }
    c->allow = calloc(options->allow_path_count, sizeof *c->allow);
    c->allow_fd = calloc(options->allow_path_count, sizeof *c->allow_fd);
    if (!c->allow || !c->allow_fd) {
        snprintf(c->error, c->error_cap, "--allow-path: out of memory");
        return false;
    }
    for (size_t i = 0; i < options->allow_path_count; i++) {
        const char *given = options->allow_paths[i];
        int fd = open(given, O_PATH | O_CLOEXEC);
        char *real = fd >= 0 ? realpath(given, NULL) : NULL;
        struct stat st;
        if (!real || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || !same_folder(fd, real)) {
            snprintf(c->error, c->error_cap, "--allow-path '%s': %s", shown(c, given),
                     !real ? strerror(errno) : S_ISDIR(st.st_mode) ? "replaced while the spec was read" : "not a folder");
            free(real);
            if (fd >= 0) {
                close(fd);
            }
            return false;
        }
        c->allow_fd[c->allow_count] = fd;
        c->allow[c->allow_count++] = real;
    }
    return true;
}

/* Parses a document already read; `path` names it in messages and anchors relative paths;
 * `self` (may be NULL) identifies the file it came from; `dir_fd` (taken over; -1: opened here
 * when needed) is the folder it was read from. */
static bool spec_from_json(json_t *root, const json_error_t *jerr, const char *path, const spec_load_options *options,
                           const spec_input *self, int dir_fd, spec *out, char *error, size_t error_cap)
{
    memset(out, 0, sizeof *out);
    ctx c = {.file = path, .dir = dup_string(path), .root_fd = dir_fd, .error = error, .error_cap = error_cap};
    c.max_dispatches = options && options->max_dispatches ? options->max_dispatches : SPEC_DEFAULT_MAX_DISPATCHES;
    if (!c.dir) {
        snprintf(error, error_cap, "%s: out of memory", path);
        if (dir_fd >= 0) {
            close(dir_fd);
        }
        return false;
    }
    char *slash = strrchr(c.dir, '/');
    if (slash) {
        slash[slash == c.dir ? 1 : 0] = '\0'; /* "/spec.json" is in "/" */
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
    if (!out->path) {
        snprintf(error, error_cap, "%s: out of memory", path);
        goto done;
    }
    if (!resolve_allowed(&c, options)) {
        goto done;
    }
    if (self && !add_input(&c, out, path, "the spec", self->dev, self->ino)) {
        goto done;
    }
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
    free(c.root);
    if (c.root_fd >= 0) {
        close(c.root_fd);
    }
    for (size_t i = 0; i < c.allow_count; i++) {
        free(c.allow[i]);
        close(c.allow_fd[i]);
    }
    free(c.allow);
    free(c.allow_fd);
    if (!ok) {
        spec_free(out);
    }
    return ok;
}

bool spec_load(const char *path, const spec_load_options *options, spec *out, char *error, size_t error_cap)
{
    /* Read whole, as a regular file of bounded size: a FIFO or a device is refused at once. */
    char why[256];
    size_t length = 0;
    spec_input self = {0};
    /* The folder first, and the spec read through it: the folder whose files the spec names is
     * the one it was read from, whatever is renamed meanwhile. */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *folder = slash ? malloc((size_t)(slash - path) + 2) : NULL;
    if (folder) {
        size_t n = slash == path ? 1 : (size_t)(slash - path); /* "/spec.json" is in "/" */
        memcpy(folder, path, n);
        folder[n] = '\0';
    }
    int dir_fd = slash && !folder ? -1 : open(folder ? folder : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    free(folder);
    char *text = dir_fd < 0 ? NULL
                            : read_regular(dir_fd, base[0] ? base : ".", false, SPEC_MAX_BYTES, &length, &self.dev,
                                           &self.ino, why, sizeof why);
    if (dir_fd < 0) {
        snprintf(why, sizeof why, "%s", strerror(errno));
    }
    if (!text) {
        memset(out, 0, sizeof *out);
        snprintf(error, error_cap, "%s: cannot read the spec: %s", path, why);
        if (dir_fd >= 0) {
            close(dir_fd);
        }
        return false;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    bool ok = spec_from_json(root, &jerr, path, options, &self, dir_fd, out, error, error_cap);
    json_decref(root);
    return ok;
}

bool spec_load_buffer(const char *name, const char *data, size_t size, spec *out, char *error, size_t error_cap)
{
    json_error_t jerr;
    json_t *root = json_loadb(data, size, JSON_REJECT_DUPLICATES, &jerr);
    bool ok = spec_from_json(root, &jerr, name, NULL, NULL, -1, out, error, error_cap);
    json_decref(root);
    return ok;
}

void spec_free(spec *s)
{
    for (size_t i = 0; i < s->buffer_count; i++) {
        free(s->buffers[i].name);
        free(s->buffers[i].file);
        for (size_t j = 0; j < s->buffers[i].field_count; j++) {
            free(s->buffers[i].fields[j].name);
        }
        free(s->buffers[i].fields);
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
        free(k->workgroup_size_why);
    }
    for (size_t i = 0; i < s->dispatch_count; i++) {
        free(s->dispatches[i].label);
        free(s->dispatches[i].bindings);
    }
    for (size_t i = 0; i < s->output_count; i++) {
        free(s->outputs[i].file);
        free(s->outputs[i].display);
    }
    for (size_t i = 0; i < s->input_count; i++) {
        free(s->inputs[i].path);
        free(s->inputs[i].where);
    }
    free(s->inputs);
    free(s->buffers);
    free(s->kernels);
    free(s->dispatches);
    free(s->outputs);
    free(s->path);
    memset(s, 0, sizeof *s);
}
