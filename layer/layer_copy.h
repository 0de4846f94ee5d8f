/* The layer's copy of its timestamps in a buffer of its own (layer_readback.c makes it): each
 * query a pair of 64-bit words, its value then its availability, as vkCmdCopyQueryPoolResults
 * writes them with VK_QUERY_RESULT_WITH_AVAILABILITY_BIT (layer_copy.c). Plain memory, no
 * driver, in a library of its own (wgprof_layer_parts) that its unit test links. */
#ifndef WGPROF_LAYER_COPY_H
#define WGPROF_LAYER_COPY_H

#include <stdint.h>

/* `n` queries' readings (value, availability) from `at` into `pairs`; a reading whose value is
 * still the cleared 0 is not available (its copy is under way). Safe beside the device's copy. */
void wgprof_layer_copy_read(const volatile uint64_t *at, uint32_t n, uint64_t *pairs);
/* Clears `n` queries' readings at `at` (none available) for their next use. */
void wgprof_layer_copy_clear(volatile uint64_t *at, uint32_t n);

#endif
