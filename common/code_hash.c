/* The hash that names code nobody named (record's unlabelled shader modules, the Vulkan layer's
 * SPIR-V): 64-bit FNV-1a, shown as 32 bits, the same for the same bytes in every run. */
#include <stdio.h>

#include "common.h"

uint64_t code_hash_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

void code_hash_name(char out[CODE_HASH_NAME_CAP], const char *kind, uint64_t h)
{
    snprintf(out, CODE_HASH_NAME_CAP, "%.6s-%08x", kind, (unsigned)(h ^ (h >> 32)));
}
