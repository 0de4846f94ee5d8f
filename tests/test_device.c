/* The device context on the real driver: what it reports, a checked dispatch, and failing open
 * when the device is created without timestamp queries. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "support.h"

static void check_dispatch_result(wgprof_device *dev, wgprof_graph_desc *gd, const char *what)
{
    ts_busy busy;
    CHECK(ts_busy_init(dev, &busy, 4, 30));
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, gd, &g));
    wgprof_node_desc nd;
    ts_busy_node(&busy, "busy", &nd);
    CHECK_OK(wgprof_graph_add(g, &nd, NULL));
    CHECK_OK(wgprof_graph_execute(g));
    float out[256];
    CHECK(ts_read(dev, busy.data, sizeof out, out));
    int wrong = 0;
    for (uint32_t i = 0; i < 256; i++) {
        wrong += out[i] != ts_busy_expected(i, 30, 1);
    }
    CHECK_MSG(wrong == 0, "%s: %d of 256 results wrong", what, wrong);
    wgprof_graph_destroy(g);
    ts_busy_free(&busy);
}

static void test_info(void)
{
    wgprof_device *dev = ts_device(true);
    const wgprof_device_info *info = wgprof_device_describe(dev);
    CHECK(info->adapter[0] != '\0');
    CHECK(strcmp(info->backend, "unknown") != 0);
    CHECK(info->timestamp_period_ns > 0 && isfinite(info->timestamp_period_ns));
    CHECK(wgprof_device_timestamp_period(dev) == info->timestamp_period_ns); /* read again now: the same */
    /* Both implementations state their period: wgpu-native by its query, Dawn by resolving in ns. */
    CHECK_MSG(info->period_from_implementation || (strncmp(info->implementation, "wgpu-native", 11) != 0 &&
                                                   strncmp(info->implementation, "Dawn", 4) != 0),
              "%s: period assumed", info->implementation);
    CHECK(info->max_workgroups_per_dimension >= 65535);
    /* The adapter's limits, not WebGPU's default of 256 MiB buffers:
     * lavapipe offers 2 GiB, desktop GPUs more. */
    CHECK_MSG(info->max_buffer_size > 256ull << 20 && info->max_storage_buffer_binding_size >= 128ull << 20,
              "max buffer %llu, storage binding %llu", (unsigned long long)info->max_buffer_size,
              (unsigned long long)info->max_storage_buffer_binding_size);
    CHECK(info->max_bind_groups >= 4);
    /* lavapipe and every desktop Vulkan driver have timestamp queries; the device must use them. */
    CHECK(info->timestamp_query);
    CHECK(info->profiling_available);
    CHECK(info->unavailable_reason[0] == '\0');
    CHECK(!wgprof_device_is_lost(dev));
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_OFF};
    check_dispatch_result(dev, &gd, "plain device");
    wgprof_device_destroy(dev);
}

static void test_fail_open(void)
{
    wgprof_device *dev = ts_device(false);
    const wgprof_device_info *info = wgprof_device_describe(dev);
    CHECK(!info->profiling_available);
    CHECK(!info->timestamp_inside_passes);
    CHECK(strstr(info->unavailable_reason, "disabled") != NULL);
    wgprof_pool *pool = NULL;
    CHECK(wgprof_pool_create(dev, NULL, &pool) == WGPROF_ERR_UNAVAILABLE);
    CHECK(pool == NULL);

    /* Profiling asked for, on a device without the feature: the graph runs unprofiled. */
    wgprof_graph_desc gd = {.profiling = WGPROF_PROFILING_ON};
    wgprof_graph *g = NULL;
    CHECK_OK(wgprof_graph_create(dev, &gd, &g));
    CHECK(wgprof_graph_settings(g).profiling != WGPROF_PROFILING_ON);
    CHECK(wgprof_graph_pool(g) == NULL);
    CHECK(strstr(wgprof_graph_profiling_note(g), "disabled") != NULL);
    wgprof_graph_destroy(g);
    check_dispatch_result(dev, &gd, "device without timestamps");
    wgprof_device_destroy(dev);
}

static void test_bad_arguments(void)
{
    CHECK(wgprof_device_create(NULL, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_graph_create(NULL, NULL, NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(wgprof_device_wait_idle(NULL) == WGPROF_ERR_INVALID_ARGUMENT);
    CHECK(strncmp(wgprof_status_str(WGPROF_ERR_CAPACITY), "WGPROF_ERR_CAPACITY", 19) == 0);
    CHECK(strcmp(wgprof_version(), WGPROF_VERSION_STRING) == 0);
    wgprof_device_destroy(NULL);
    wgprof_graph_destroy(NULL);
    wgprof_pool_destroy(NULL);
}

int main(void)
{
    ts_capture_log();
    test_info();
    test_fail_open();
    test_bad_arguments();
    return check_summary();
}
