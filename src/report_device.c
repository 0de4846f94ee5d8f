/* The device's description as one JSON object: what `wgprof info --json` prints. */
#include <math.h>

#include "common.h"
#include "internal.h"

static const char *json_bool(bool b) { return b ? "true" : "false"; }

static void field(FILE *out, const char *key, const char *value)
{
    fprintf(out, ", \"%s\": ", key);
    wgprof__escape_json_string(out, value, WGPROF__ESCAPE_JSON_PLAIN);
}

wgprof_status wgprof_device_info_write_json(const wgprof_device_info *d, FILE *out)
{
    if (!d || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    fputs("{\"wgprof_version\": \"" WGPROF_VERSION_STRING "\"", out);
    field(out, "adapter", d->adapter);
    field(out, "vendor", d->vendor);
    field(out, "architecture", d->architecture);
    field(out, "driver", d->driver);
    field(out, "implementation", d->implementation ? d->implementation : "");
    field(out, "backend", d->backend);
    field(out, "adapter_type", d->adapter_type);
    fprintf(out,
            ", \"vendor_id\": %u, \"device_id\": %u, \"timestamp_query\": %s, \"timestamp_inside_passes\": %s, "
            "\"timestamp_inside_encoders\": %s, \"profiling_available\": %s",
            d->vendor_id, d->device_id, json_bool(d->timestamp_query), json_bool(d->timestamp_inside_passes),
            json_bool(d->timestamp_inside_encoders), json_bool(d->profiling_available));
    field(out, "unavailable_reason", d->unavailable_reason);
    /* A period that is not a finite number (a description made by hand) is null: JSON has no NaN. */
    fputs(", \"timestamp_period_ns\": ", out);
    if (isfinite(d->timestamp_period_ns)) {
        fprintf(out, "%.9g", d->timestamp_period_ns);
    } else {
        fputs("null", out);
    }
    fprintf(out,
            ", \"period_from_implementation\": %s, "
            "\"max_workgroups_per_dimension\": %u, \"max_bind_groups\": %u, \"max_buffer_size\": %llu, "
            "\"max_storage_buffer_binding_size\": %llu}\n",
            json_bool(d->period_from_implementation), d->max_workgroups_per_dimension,
            d->max_bind_groups, (unsigned long long)d->max_buffer_size,
            (unsigned long long)d->max_storage_buffer_binding_size);
    if (fflush(out) != 0 || ferror(out)) {
        wgprof__log(WGPROF_LOG_ERROR, "writing the device description failed");
        return WGPROF_ERR_IO;
    }
    return WGPROF_OK;
}
