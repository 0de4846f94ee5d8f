/* Reading and clearing the layer's copy of its timestamps (layer_copy.h). */
#include "layer_copy.h"

void wgprof_layer_copy_read(const volatile uint64_t *at, uint32_t n, uint64_t *pairs)
{
    /* Each availability before its value: a value is read only once its copy says it is there.
     * And a value still 0 (as cleared) is not there yet, whatever its availability says: the
     * copy may write the availability first (lavapipe's does), and the reader reads the copies
     * of executions still running. */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t available = at[2 * i + 1];
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint64_t value = available ? at[2 * i] : 0;
        pairs[2 * i] = value;
        pairs[2 * i + 1] = available && value;
    }
}

void wgprof_layer_copy_clear(volatile uint64_t *at, uint32_t n)
{
    for (uint32_t i = 0; i < 2 * n; i++) {
        at[i] = 0;
    }
}
