/*
 * Reading a WGSL entry point's @workgroup_size from its source (wgsl_workgroup.c).
 */
#ifndef WGPROF_WGSL_WORKGROUP_H
#define WGPROF_WGSL_WORKGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A pipeline constant (an override's value). */
typedef struct wgsl_constant {
    char *name;
    double value;
} wgsl_constant;

/* Reads @workgroup_size(x, y, z) of entry point `entry` in `source`: integer literals, or
 * overrides resolved with `constants` and the overrides' defaults. False, with the reason in
 * `why`, when it cannot: an expression, say. Missing components are 1. */
bool wgsl_workgroup_size(const char *source, const char *entry, const wgsl_constant *constants, size_t constant_count,
                         uint32_t out[3], char *why, size_t cap);

#endif
