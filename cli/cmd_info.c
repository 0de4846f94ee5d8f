/* wgprof info: the adapter and what it offers for timing, as text or JSON. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char info_usage[] =
    "usage: wgprof info [--json]\n"
    "\n"
    "Creates a WebGPU device and prints the adapter (name, vendor, backend, type, driver),\n"
    "whether timestamp queries, in-pass and in-encoder timestamps are available, and the\n"
    "timestamp period in ns per tick.\n"
    "\n"
    "  --json   print one JSON object instead of text\n";

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

/* Where NVIDIA's driver puts its Vulkan ICD file: the container toolkit's folder, then the
 * system's. */
static const char *const NVIDIA_ICD_FILES[] = {
    "/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json",
    "/usr/share/vulkan/icd.d/nvidia_icd.json",
    "/etc/vulkan/icd.d/nvidia_icd.json",
};

/* No adapter although NVIDIA's ICD file is there: its usual cause on a headless machine is that
 * the file names libGLX_nvidia.so.0, whose vkCreateInstance needs GLX; the EGL library of the
 * same driver serves Vulkan without a display. */
static void hint_nvidia_icd(void)
{
    for (size_t i = 0; i < sizeof NVIDIA_ICD_FILES / sizeof NVIDIA_ICD_FILES[0]; i++) {
        FILE *f = fopen(NVIDIA_ICD_FILES[i], "r");
        if (!f) {
            continue;
        }
        fclose(f);
        cli_error("wgprof info: hint: NVIDIA's Vulkan driver is installed (%s) but no adapter came up. Without a "
                  "display its GLX library fails; try an ICD file that names libEGL_nvidia.so.0 instead,\n"
                  "  {\"file_format_version\": \"1.0.1\", \"ICD\": {\"library_path\": \"libEGL_nvidia.so.0\", "
                  "\"api_version\": \"1.4.312\"}}\n"
                  "with VK_DRIVER_FILES=that-file and the driver's folder on LD_LIBRARY_PATH (scripts/device-run.sh "
                  "does this)",
                  NVIDIA_ICD_FILES[i]);
        return;
    }
}

int cmd_info(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(info_usage, stdout);
            return CLI_OK;
        } else {
            fprintf(stderr, "wgprof info: unknown option '%s'\n\n%s", argv[i], info_usage);
            return CLI_USAGE;
        }
    }
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(NULL, &dev);
    if (s != WGPROF_OK) {
        int code = cli_fail("creating the WebGPU device", s);
        if (s == WGPROF_ERR_NO_ADAPTER) {
            hint_nvidia_icd();
        }
        return code;
    }
    const wgprof_device_info *d = wgprof_device_describe(dev);
    if (json) {
        s = wgprof_device_info_write_json(d, stdout);
        if (s != WGPROF_OK) {
            wgprof_device_destroy(dev);
            return cli_fail("writing the device description", s);
        }
    } else {
        printf("adapter:                  %s\n", d->adapter);
        printf("vendor:                   %s (0x%04x), device 0x%04x\n", d->vendor[0] ? d->vendor : "-",
               d->vendor_id, d->device_id);
        if (d->architecture[0]) {
            printf("architecture:             %s\n", d->architecture);
        }
        printf("driver:                   %s\n", d->driver[0] ? d->driver : "-");
        printf("WebGPU implementation:    %s\n", d->implementation ? d->implementation : "-");
        printf("backend:                  %s\n", d->backend);
        printf("adapter type:             %s\n", d->adapter_type);
        printf("timestamp queries:        %s\n", yes_no(d->timestamp_query));
        printf("in-pass timestamps:       %s\n", yes_no(d->timestamp_inside_passes));
        printf("in-encoder timestamps:    %s\n", yes_no(d->timestamp_inside_encoders));
        printf("profiling available:      %s%s%s\n", yes_no(d->profiling_available),
               d->profiling_available ? "" : ": ", d->unavailable_reason);
        printf("timestamp period:         %.9g ns/tick%s\n", d->timestamp_period_ns,
               d->period_from_implementation ? " (from the implementation)" : " (assumed: no period query)");
        printf("max workgroups/dimension: %u\n", d->max_workgroups_per_dimension);
    }
    wgprof_device_destroy(dev);
    return CLI_OK;
}
