/* What kind of JSON value a jansson value is, as an error message names it ("an array"): for
 * the readers of specs (spec_parse.c) and reports (diff_load.c). */
#ifndef WGPROF_JSON_KIND_H
#define WGPROF_JSON_KIND_H

#include <jansson.h>

const char *json_kind(const json_t *v);

#endif
