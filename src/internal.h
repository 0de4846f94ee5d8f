/*
 * The floor every wgprof source stands on (core.c): the allocation hook, the logger, the CPU
 * clock and array growth. Nothing here is public; names carry the wgprof__ prefix.
 */
#ifndef WGPROF_INTERNAL_H
#define WGPROF_INTERNAL_H

#include "wgprof/wgprof.h"

#if defined(__GNUC__)
#define WGPROF__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define WGPROF__PRINTF(fmt, args)
#endif

#define WGPROF__NONE UINT32_MAX /* no index */

void *wgprof__alloc(size_t size);
void *wgprof__calloc(size_t count, size_t size);
/* Grows a block from old_size to new_size bytes (new bytes zeroed); NULL leaves `ptr` intact. */
void *wgprof__grow(void *ptr, size_t old_size, size_t new_size);
void wgprof__free(void *ptr);
char *wgprof__strdup(const char *s);
/* Grows *array (element `size` bytes, capacity *cap) to hold `need` elements: doubling, from
 * `initial`. New elements are zeroed. */
wgprof_status wgprof__reserve(void **array, uint32_t *cap, uint32_t need, size_t size, uint32_t initial);

/* Sends "wgprof: <message>" to the log callback, if one is set. */
void wgprof__log(wgprof_log_level level, const char *fmt, ...) WGPROF__PRINTF(2, 3);

uint64_t wgprof__now_ns(void); /* the CPU clock of timelines: CLOCK_MONOTONIC */

#endif
