/* libFuzzer target: the spec reader and checker on arbitrary bytes. It must return an error or
 * a spec, never crash, leak or read out of bounds. */
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spec s;
    char error[1024];
    if (spec_load_buffer("fuzz/input.json", (const char *)data, size, &s, error, sizeof error)) {
        spec_free(&s);
    }
    return 0;
}
