/*
 * How a batch's records lay out over the query sets. A batch always starts at query 0 of the
 * first set: pairs take queries 2r and 2r + 1 of set r / 2048; a chain takes query 0 of each
 * set as its start (written where the previous set ended) and one query per record after it.
 */
#include "recorder_internal.h"

uint32_t wgprof__records_per_set(bool chained) { return chained ? WGPROF__CHAIN_PER_SET : WGPROF__PAIRS_PER_SET; }

size_t wgprof__records_in_set(size_t records, bool chained, uint32_t i)
{
    size_t per_set = wgprof__records_per_set(chained), start = (size_t)i * per_set;
    if (records <= start) {
        return 0;
    }
    return records - start < per_set ? records - start : per_set;
}

uint32_t wgprof__queries_in_set(size_t records, bool chained, uint32_t i)
{
    size_t here = wgprof__records_in_set(records, chained, i);
    return (uint32_t)(!here ? 0 : chained ? here + 1 : 2 * here);
}

uint32_t wgprof__sets_used(size_t records, bool chained)
{
    size_t per_set = wgprof__records_per_set(chained);
    return (uint32_t)((records + per_set - 1) / per_set);
}
