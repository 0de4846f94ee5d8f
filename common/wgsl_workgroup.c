/*
 * Reading a WGSL entry point's @workgroup_size from its source: integer literals, or overrides
 * resolved with the pipeline's constants and the overrides' defaults. Shared by the spec reader
 * (wgprof run) and wgprof record's preload library, which sees the WGSL its program compiles.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        p++;
    }
    return p;
}

static bool ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* An integer literal of WGSL (decimal or 0x hex, an optional i or u suffix) at *p. */
static bool read_integer(const char **p, uint64_t *out)
{
    const char *q = *p;
    int base = q[0] == '0' && (q[1] == 'x' || q[1] == 'X') ? 16 : 10;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(q, &end, base);
    if (end == q || errno || !isdigit((unsigned char)q[0])) {
        return false;
    }
    if (*end == 'u' || *end == 'i') {
        end++;
    }
    *p = end;
    *out = v;
    return true;
}

/* The value of override `name`: the given constant where there is one, else the default of its
 * declaration (`override NAME: u32 = 64;`) in the source. */
static bool override_value(const char *source, const wgsl_constant *constants, size_t constant_count, const char *name,
                           size_t len, uint64_t *out, char *why, size_t cap)
{
    for (size_t i = 0; i < constant_count; i++) {
        if (strlen(constants[i].name) == len && strncmp(constants[i].name, name, len) == 0) {
            double v = constants[i].value;
            if (!(v >= 1 && v <= UINT32_MAX) || v != (double)(uint64_t)v) {
                snprintf(why, cap, "the constant %.*s = %g is no workgroup size", (int)len, name, v);
                return false;
            }
            *out = (uint64_t)v;
            return true;
        }
    }
    for (const char *p = strstr(source, "override"); p; p = strstr(p + 1, "override")) {
        if ((p > source && ident_char(p[-1])) || ident_char(p[8])) {
            continue;
        }
        const char *q = skip_blanks(p + 8);
        if (strncmp(q, name, len) != 0 || ident_char(q[len])) {
            continue;
        }
        q = skip_blanks(q + len);
        if (*q == ':') {
            q = skip_blanks(q + 1);
            while (ident_char(*q)) {
                q++;
            }
            q = skip_blanks(q);
        }
        if (*q != '=') {
            snprintf(why, cap, "the override %.*s has no default and no constant gives it a value",
                     (int)len, name);
            return false;
        }
        q = skip_blanks(q + 1);
        if (!read_integer(&q, out) || *skip_blanks(q) != ';') {
            snprintf(why, cap, "the default of the override %.*s is not an integer literal", (int)len, name);
            return false;
        }
        return true;
    }
    snprintf(why, cap, "%.*s is neither a literal nor an override declared in the source", (int)len, name);
    return false;
}

/* Reads @workgroup_size(x, y, z) of the entry point: integer literals, or overrides resolved
 * with the given constants and the overrides' defaults. False, with the reason in `why`, when
 * it cannot: an expression, say. */
bool wgsl_workgroup_size(const char *source, const char *entry, const wgsl_constant *constants, size_t constant_count,
                         uint32_t out[3], char *why, size_t cap)
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
    const char *attr = NULL;
    for (const char *p = strstr(source, "@workgroup_size"); fn && p && p < fn; p = strstr(p + 1, "@workgroup_size")) {
        attr = p;
    }
    const char *p = attr ? strchr(attr, '(') : NULL;
    if (!p) {
        snprintf(why, cap, "no @workgroup_size found before fn %s", entry);
        return false;
    }
    out[0] = out[1] = out[2] = 1;
    for (int i = 0; i < 3; i++) {
        p = skip_blanks(p + 1);
        if (*p == ')' && i > 0) {
            return true; /* a trailing comma, as WGSL allows */
        }
        uint64_t v = 0;
        if (isdigit((unsigned char)*p)) {
            if (!read_integer(&p, &v)) {
                snprintf(why, cap, "component %d of @workgroup_size is not a number", i + 1);
                return false;
            }
        } else {
            const char *name = p;
            while (ident_char(*p)) {
                p++;
            }
            if (p == name) {
                snprintf(why, cap, "component %d of @workgroup_size cannot be read", i + 1);
                return false;
            }
            if (!override_value(source, constants, constant_count, name, (size_t)(p - name), &v, why, cap)) {
                return false;
            }
        }
        if (v == 0 || v > UINT32_MAX) {
            snprintf(why, cap, "component %d of @workgroup_size is %llu", i + 1, (unsigned long long)v);
            return false;
        }
        out[i] = (uint32_t)v;
        p = skip_blanks(p);
        if (*p == ')') {
            return true;
        }
        if (*p != ',') {
            snprintf(why, cap, "component %d of @workgroup_size is an expression wgprof does not evaluate", i + 1);
            return false;
        }
    }
    snprintf(why, cap, "@workgroup_size has more than three components");
    return false;
}
