/*
 * What the layer reads from a shader module's SPIR-V: its compute entry points, each with its
 * workgroup size where a LocalSize execution mode states it (LocalSizeId and specialization
 * leave it unknown: 0), and a hash of the code that names it where nobody did.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "layer_lib.h"

enum {
    SPIRV_MAGIC = 0x07230203,
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    MODEL_GL_COMPUTE = 5,
    MODE_LOCAL_SIZE = 17,
};

void wgprof_layer_spirv_read(const uint32_t *code, size_t bytes, wgprof_layer_module *out)
{
    memset(out, 0, sizeof *out);
    code_hash_name(out->hash, "spirv", code_hash_fnv1a(CODE_HASH_OFFSET, code, bytes));
    size_t words = bytes / 4;
    if (!code || words < 5 || code[0] != SPIRV_MAGIC) {
        return;
    }
    uint32_t ids[WGPROF_LAYER_ENTRIES] = {0};
    for (size_t i = 5; i < words;) {
        uint32_t count = code[i] >> 16, op = code[i] & 0xFFFF;
        if (count == 0 || i + count > words) {
            return; /* not SPIR-V as the spec has it: what was read stands */
        }
        if (op == OP_ENTRY_POINT && count >= 4 && code[i + 1] == MODEL_GL_COMPUTE &&
            out->entry_count < WGPROF_LAYER_ENTRIES) {
            wgprof_layer_entry *e = &out->entries[out->entry_count];
            const char *name = (const char *)&code[i + 3];
            size_t max = (count - 3) * 4;
            size_t n = strnlen(name, max);
            if (n < max) {
                snprintf(e->name, sizeof e->name, "%.*s", (int)n, name);
                ids[out->entry_count++] = code[i + 2];
            }
        } else if (op == OP_EXECUTION_MODE && count >= 6 && code[i + 2] == MODE_LOCAL_SIZE) {
            for (uint32_t k = 0; k < out->entry_count; k++) {
                if (ids[k] == code[i + 1]) {
                    memcpy(out->entries[k].local_size, &code[i + 3], 3 * sizeof(uint32_t));
                }
            }
        }
        i += count;
    }
}

const wgprof_layer_entry *wgprof_layer_spirv_entry(const wgprof_layer_module *m, const char *name)
{
    for (uint32_t k = 0; m && k < m->entry_count; k++) {
        if (name && strcmp(m->entries[k].name, name) == 0) {
            return &m->entries[k];
        }
    }
    return NULL;
}
