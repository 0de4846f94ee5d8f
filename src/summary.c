/*
 * Per-kernel aggregation of a pool's finished results (read from its results store): count,
 * invalid count, total, mean, min, max, median, p95, standard deviation, share and throughput,
 * all in floating point; the strategy the batches were timed with; the timestamps' quantum.
 * Invalid records are counted and excluded from every figure.
 *
 * One pass over the records places each valid duration in its kernel's run of an array and
 * keeps the kernel's running sum, minimum, maximum and sum of squares; the median and p95 are
 * then selected in each run. Selection first buckets the values by their bit patterns (which
 * order non-negative doubles as their values do, on a roughly logarithmic scale), then finishes
 * by quickselect inside the one or two buckets that hold the wanted ranks: a couple of
 * branch-light passes where two full quickselects would shuffle the whole run twice.
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "recorder.h"
#include "summary_internal.h"

enum { BUCKETS = 2048 };

static uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Reorders v so that v[k] is the k-th smallest, all before it no larger and all after no
 * smaller (quickselect, median-of-three pivots). */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) {
                i++;
            }
            while (v[j] > pivot) {
                j--;
            }
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0) {
                    break;
                }
                j--;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            break;
        }
    }
    return v[k];
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The values of ranks lo_rank <= hi_rank of v (n values, all >= 0, min and max given), v
 * reordered. Buckets by bit pattern, moves the bucket holding lo_rank to the front and the one
 * holding hi_rank to the back, and selects inside those. Returns how many values the front
 * bucket holds: v[lo_rank - *before_lo] is the lo_rank-th value and those after it in the
 * front bucket are no smaller. */
static size_t select_two(double *v, size_t n, double min, double max, size_t lo_rank, size_t hi_rank,
                         double *lo_value, double *hi_value, size_t *before_lo_out)
{
    uint64_t base = bits_of(min), range = bits_of(max) - base;
    unsigned shift = 0;
    while ((range >> shift) >= BUCKETS) {
        shift++;
    }
    uint32_t count[BUCKETS] = {0};
    for (size_t i = 0; i < n; i++) {
        count[(bits_of(v[i]) - base) >> shift]++;
    }
    size_t before_lo = 0, before_hi = 0, seen = 0;
    uint64_t lo_bucket = 0, hi_bucket = 0;
    for (uint64_t b = 0, found = 0; b < BUCKETS && found < 2; b++) {
        if (found == 0 && lo_rank < seen + count[b]) {
            lo_bucket = b;
            before_lo = seen;
            found = 1;
        }
        if (found == 1 && hi_rank < seen + count[b]) {
            hi_bucket = b;
            before_hi = seen;
            found = 2;
        }
        seen += count[b];
    }
    if (lo_bucket == hi_bucket) {
        size_t front = 0;
        for (size_t i = 0; i < n; i++) {
            if (((bits_of(v[i]) - base) >> shift) == lo_bucket) {
                swap(&v[i], &v[front++]);
            }
        }
        *hi_value = select_kth(v, front, hi_rank - before_lo);
        *lo_value = select_kth(v, hi_rank - before_lo + 1, lo_rank - before_lo);
        *before_lo_out = before_lo;
        return front;
    }
    size_t front = 0, back = n;
    for (size_t i = 0; i < back;) {
        uint64_t b = (bits_of(v[i]) - base) >> shift;
        if (b == lo_bucket) {
            swap(&v[i++], &v[front++]);
        } else if (b == hi_bucket) {
            swap(&v[i], &v[--back]);
        } else {
            i++;
        }
    }
    *lo_value = select_kth(v, front, lo_rank - before_lo);
    *hi_value = select_kth(v + back, n - back, hi_rank - before_hi);
    *before_lo_out = before_lo;
    return front;
}

/* Median and nearest-rank p95 of v (n >= 1 values >= 0 between min and max), v reordered. */
static void quantiles(double *v, size_t n, double min, double max, wgprof_kernel_stats *k)
{
    size_t p95_rank = (size_t)ceil(0.95 * (double)n); /* nearest rank, 1-based */
    p95_rank = (p95_rank ? p95_rank : 1) - 1;
    size_t before = 0;
    if (n % 2) {
        select_two(v, n, min, max, n / 2, p95_rank, &k->median_ns, &k->p95_ns, &before);
        return;
    }
    /* Even count: the mean of the two middle values. The lower one is selected with p95; the
     * upper one is the smallest value after it in its bucket, or, when the lower one ends its
     * bucket, the smallest value above it anywhere. */
    double lower, upper = max;
    size_t front = select_two(v, n, min, max, n / 2 - 1, p95_rank, &lower, &k->p95_ns, &before);
    size_t at = n / 2 - 1 - before;
    if (at + 1 < front) {
        upper = v[at + 1];
        for (size_t i = at + 2; i < front; i++) {
            upper = v[i] < upper ? v[i] : upper;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            upper = v[i] > lower && v[i] < upper ? v[i] : upper;
        }
    }
    k->median_ns = (lower + upper) / 2.0;
}

/* Sum, extremes and sum of squared deviations, gathered one value at a time. Squares are taken
 * about the first value, which keeps the variance exact enough when the spread is small
 * against the mean. */
typedef struct running {
    size_t count;
    double sum, shift, shifted_sum, shifted_squares, min, max;
} running;

static void running_add(running *r, double v)
{
    if (r->count++ == 0) {
        r->shift = r->min = r->max = v;
    }
    double d = v - r->shift;
    r->sum += v;
    r->shifted_sum += d;
    r->shifted_squares += d * d;
    r->min = v < r->min ? v : r->min;
    r->max = v > r->max ? v : r->max;
}

static void finish_stats(const running *r, double *values, wgprof_kernel_stats *k)
{
    size_t n = r->count;
    k->count = (uint32_t)n;
    if (n == 0) {
        return;
    }
    double nd = (double)n;
    double var = (r->shifted_squares - r->shifted_sum * r->shifted_sum / nd) / nd;
    k->total_ns = r->sum;
    k->mean_ns = r->sum / nd;
    k->min_ns = r->min;
    k->max_ns = r->max;
    /* NaN where durations past the largest double leave no spread to tell (the reports print
     * it as missing), never 0, which would read as measured. */
    k->stddev_ns = isnan(var) ? NAN : sqrt(var > 0 ? var : 0);
    quantiles(values, n, r->min, r->max, k);
}

void wgprof__stats(double *values, size_t n, wgprof_kernel_stats *k)
{
    running r = {0};
    for (size_t i = 0; i < n; i++) {
        running_add(&r, values[i]);
    }
    finish_stats(&r, values, k);
}

/* What the summary gathers per kernel name while it places the durations. */
typedef struct kernel_acc {
    size_t start, fill;
    uint32_t invalid;
    running run;
    double exclusive, bytes, flops;
    double one_bytes, one_flops;     /* the first valid record's figures */
    bool bytes_differ, flops_differ; /* a later one had others */
    size_t row;                      /* its index in the summary's kernels */
} kernel_acc;

/* Per ns: GB/s from bytes, GFLOP/s from flops; 0 where either side is unknown. */
static double rate(double amount, double ns) { return amount > 0 && ns > 0 ? amount / ns : 0; }

/* Where a kernel's records differ in bytes (flops: `flops`), its typical throughput is the
 * median of their own rates, records without a figure or a duration left out. One pass places
 * the rates in each kernel's run of `rates` (laid out as the durations are); selection does the
 * rest. */
static void median_rates(const wgprof__store *store, kernel_acc *acc, uint32_t names, double *rates, bool flops,
                         wgprof_summary *sum)
{
    const wgprof__result *results = wgprof__store_results(store);
    const wgprof__site *sites = wgprof__store_sites(store);
    size_t count = wgprof__store_count(store);
    for (uint32_t n = 0; n < names; n++) {
        acc[n].fill = acc[n].start;
    }
    for (size_t i = 0; i < count; i++) {
        const wgprof__result *r = &results[i];
        const wgprof__site *site = &sites[r->site];
        kernel_acc *a = &acc[site->name];
        double v = rate(flops ? site->flops : site->bytes, r->duration_ns);
        if (r->reason == WGPROF_VALID && (flops ? a->flops_differ : a->bytes_differ) && v > 0) {
            rates[a->fill++] = v;
        }
    }
    for (uint32_t n = 0; n < names; n++) {
        const kernel_acc *a = &acc[n];
        if (a->fill > a->start) {
            wgprof_kernel_stats of_rates = {0}; /* statistics of the rates: their median is median_ns */
            wgprof__stats(rates + a->start, a->fill - a->start, &of_rates);
            *(flops ? &sum->kernels[a->row].gflops : &sum->kernels[a->row].gbps) = of_rates.median_ns;
        }
    }
}

/* Throughput per kernel (wgprof_kernel_stats.gbps and the rest). Room for a rate per record is
 * taken only where some kernel's records differ in bytes or flops. */
static wgprof_status summarize_throughput(const wgprof__store *store, kernel_acc *acc, uint32_t names,
                                          wgprof_summary *sum)
{
    bool differ = false;
    for (uint32_t n = 0; n < names; n++) {
        const kernel_acc *a = &acc[n];
        if (!a->run.count) {
            continue;
        }
        wgprof_kernel_stats *k = &sum->kernels[a->row];
        k->bytes_per_dispatch = a->bytes_differ ? 0 : a->one_bytes;
        k->flops_per_dispatch = a->flops_differ ? 0 : a->one_flops;
        k->gbps = rate(k->bytes_per_dispatch, k->median_ns);
        k->gflops = rate(k->flops_per_dispatch, k->median_ns);
        k->gbps_total = rate(k->bytes, k->total_ns);
        k->gflops_total = rate(k->flops, k->total_ns);
        differ = differ || a->bytes_differ || a->flops_differ;
    }
    if (!differ) {
        return WGPROF_OK;
    }
    double *rates = wgprof__calloc(wgprof__store_count(store) + 1, sizeof *rates);
    if (!rates) {
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    median_rates(store, acc, names, rates, false, sum);
    median_rates(store, acc, names, rates, true, sum);
    wgprof__free(rates);
    return WGPROF_OK;
}

/* Numbers the scope nodes depth first into sum->scopes (each before its children, siblings in
 * order of first appearance); order[node] receives a node's index there. Linear in the nodes:
 * the children are sorted by parent once (a counting sort), never searched for. */
static void place_scopes(const wgprof__store *store, uint32_t nodes, uint32_t *order, uint32_t *work,
                         wgprof_summary *sum)
{
    uint32_t *parent = work, *first_child = work + nodes, *children = work + 2 * nodes + 1;
    for (uint32_t n = 0; n < nodes; n++) {
        uint32_t name, depth;
        wgprof__store_scope_node(store, n, &name, &parent[n], &depth);
        if (parent[n] != WGPROF__NONE) {
            first_child[parent[n] + 1]++;
        }
    }
    for (uint32_t n = 0; n < nodes; n++) {
        first_child[n + 1] += first_child[n];
    }
    uint32_t *fill = order; /* borrowed until the walk below: the next free slot per parent */
    for (uint32_t n = 0; n < nodes; n++) {
        fill[n] = first_child[n];
    }
    for (uint32_t n = 0; n < nodes; n++) {
        if (parent[n] != WGPROF__NONE) {
            children[fill[parent[n]]++] = n;
        }
    }
    uint32_t placed = 0, top = 0;
    uint32_t *pending = children + nodes; /* the walk's own stack */
    for (uint32_t root = 0; root < nodes; root++) {
        if (parent[root] != WGPROF__NONE) {
            continue;
        }
        pending[top++] = root;
        while (top) {
            uint32_t n = pending[--top];
            order[n] = placed;
            wgprof_scope_stats *st = &sum->scopes[placed++];
            uint32_t name, up, depth;
            wgprof__store_scope_node(store, n, &name, &up, &depth);
            st->name = wgprof__store_name(store, name);
            st->depth = depth;
            st->parent = up == WGPROF__NONE ? -1 : (int32_t)order[up];
            for (uint32_t c = first_child[n + 1]; c-- > first_child[n];) { /* last to first: popped in order */
                pending[top++] = children[c];
            }
        }
    }
    sum->scope_count = placed;
}

/* Scope instances aggregated per node, laid out depth first. */
static wgprof_status summarize_scopes(const wgprof__store *store, wgprof_summary *sum)
{
    uint32_t nodes = wgprof__store_scope_node_count(store);
    if (!nodes) {
        return WGPROF_OK;
    }
    sum->scopes = wgprof__calloc(nodes, sizeof *sum->scopes);
    uint32_t *order = wgprof__calloc(nodes, sizeof *order); /* node -> index in sum->scopes */
    uint32_t *work = wgprof__calloc(4 * (size_t)nodes + 1, sizeof *work);
    if (!sum->scopes || !order || !work) {
        wgprof__free(order);
        wgprof__free(work);
        return WGPROF_ERR_OUT_OF_MEMORY;
    }
    place_scopes(store, nodes, order, work, sum);
    wgprof__free(work);
    size_t instances = wgprof__store_scope_count(store);
    for (size_t i = 0; i < instances; i++) {
        wgprof_scope_record sc;
        if (wgprof__store_scope(store, NULL, i, &sc) != WGPROF_OK) {
            continue;
        }
        wgprof_scope_stats *st = &sum->scopes[order[sc.node]];
        if (!sc.valid) {
            *(sc.invalid_records ? &st->invalid : &st->empty) += 1;
            continue;
        }
        st->min_ns = st->count ? fmin(st->min_ns, sc.duration_ns) : sc.duration_ns;
        st->max_ns = st->count ? fmax(st->max_ns, sc.duration_ns) : sc.duration_ns;
        st->count++;
        st->total_ns += sc.duration_ns;
        st->dispatch_ns += sc.dispatch_ns;
    }
    for (size_t i = 0; i < sum->scope_count; i++) {
        wgprof_scope_stats *st = &sum->scopes[i];
        st->mean_ns = st->count ? st->total_ns / st->count : 0;
        st->share = sum->total_ns > 0 ? st->dispatch_ns / sum->total_ns : 0;
    }
    wgprof__free(order);
    return WGPROF_OK;
}

/* The collected batches and the range of periods they were converted with. */
static void summarize_periods(const wgprof__store *store, wgprof_summary *sum)
{
    sum->batches = wgprof__store_collected(store);
    for (uint32_t i = 0; i < sum->batches; i++) {
        wgprof_batch_info b;
        if (wgprof__store_batch(store, i, &b) != WGPROF_OK || b.period_ns <= 0) {
            continue;
        }
        bool first = sum->period_min_ns == 0;
        sum->period_min_ns = first || b.period_ns < sum->period_min_ns ? b.period_ns : sum->period_min_ns;
        sum->period_max_ns = first || b.period_ns > sum->period_max_ns ? b.period_ns : sum->period_max_ns;
    }
}

/* What the batches were timed with: the one strategy, or DEFAULT where none or several. */
static void summarize_strategy(const wgprof__store *store, wgprof_summary *sum)
{
    sum->strategies = wgprof__store_strategies(store);
    sum->strategy = WGPROF_STRATEGY_DEFAULT;
    for (int s = WGPROF_STRATEGY_PASS; s <= WGPROF_STRATEGY_CHAIN; s++) {
        if (sum->strategies == 1u << s) {
            sum->strategy = (wgprof_strategy)s;
        }
    }
}

/* The timestamps' quantum (wgprof_summary.timestamp_quantum_ns), once enough readings make it
 * more than chance; a warning the first time in the process that it shows rounding. */
static void summarize_quantum(const wgprof__store *store, wgprof_summary *sum)
{
    static atomic_bool warned;
    size_t valid = sum->records - sum->invalid;
    sum->timestamp_quantum_ns = valid >= WGPROF_QUANTUM_MIN_READINGS ? wgprof__store_quantum_ns(store) : 0;
    sum->timestamp_quantized = sum->timestamp_quantum_ns >= WGPROF_QUANTIZED_NS;
    if (sum->timestamp_quantized && !atomic_exchange(&warned, true)) {
        wgprof__log(WGPROF_LOG_WARN,
                    "timestamps quantized to %.6g ns: all %zu valid readings are multiples of it, so every "
                    "duration is rounded to it. On Dawn this is the device toggle timestamp_quantization, on "
                    "by default, here likely on a device the application created and wgprof wrapped: create "
                    "that device with the toggle disabled (DawnTogglesDescriptor, disabledToggles "
                    "\"timestamp_quantization\") or let wgprof_device_create make it",
                    sum->timestamp_quantum_ns, valid);
    }
}

wgprof_status wgprof_summary_create(const wgprof_pool *pool, wgprof_summary **out)
{
    if (!pool || !out) {
        return WGPROF_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    const wgprof__store *store = wgprof__pool_store_const(pool);
    const wgprof__result *results = wgprof__store_results(store);
    const wgprof__site *sites = wgprof__store_sites(store);
    size_t count = wgprof__store_count(store);
    uint32_t names = wgprof__store_name_count(store);
    wgprof_summary *sum = wgprof__calloc(1, sizeof *sum);
    kernel_acc *acc = wgprof__calloc((size_t)names + 1, sizeof *acc);
    double *durations = wgprof__calloc(count + 1, sizeof *durations);
    wgprof_status status = WGPROF_ERR_OUT_OF_MEMORY;
    if (!sum || !acc || !durations) {
        goto done;
    }
    /* Counting sort by kernel name: count, prefix-sum, place. */
    for (size_t i = 0; i < count; i++) {
        const wgprof__result *r = &results[i];
        uint32_t name = sites[r->site].name;
        if (r->reason == WGPROF_VALID) {
            acc[name + 1].start++;
        } else {
            acc[name].invalid++;
            sum->invalid++;
            sum->invalid_by_reason[r->reason]++;
        }
    }
    size_t kernels = 0;
    for (uint32_t n = 0; n < names; n++) {
        kernels += (acc[n + 1].start || acc[n].invalid) ? 1 : 0;
        acc[n + 1].start += acc[n].start;
        acc[n].fill = acc[n].start;
    }
    for (size_t i = 0; i < count; i++) {
        const wgprof__result *r = &results[i];
        if (r->reason != WGPROF_VALID) {
            continue;
        }
        const wgprof__site *site = &sites[r->site];
        kernel_acc *a = &acc[site->name];
        if (!a->run.count) {
            a->one_bytes = site->bytes;
            a->one_flops = site->flops;
        }
        a->bytes_differ = a->bytes_differ || site->bytes != a->one_bytes;
        a->flops_differ = a->flops_differ || site->flops != a->one_flops;
        durations[a->fill++] = r->duration_ns;
        running_add(&a->run, r->duration_ns);
        a->exclusive += r->exclusive_ns;
        a->bytes += site->bytes;
        a->flops += site->flops;
    }
    sum->kernels = wgprof__calloc(kernels + 1, sizeof *sum->kernels);
    if (!sum->kernels) {
        goto done;
    }
    for (uint32_t n = 0; n < names; n++) {
        kernel_acc *a = &acc[n];
        if (!a->run.count && !a->invalid) {
            continue;
        }
        a->row = sum->kernel_count;
        wgprof_kernel_stats *k = &sum->kernels[sum->kernel_count++];
        k->name = wgprof__store_name(store, n);
        k->id = n;
        finish_stats(&a->run, durations + a->start, k);
        k->invalid = a->invalid;
        k->exclusive_total_ns = a->exclusive;
        k->bytes = a->bytes;
        k->flops = a->flops;
        sum->total_ns += k->total_ns;
        sum->exclusive_total_ns += k->exclusive_total_ns;
    }
    for (size_t i = 0; i < sum->kernel_count; i++) {
        sum->kernels[i].share = sum->total_ns > 0 ? sum->kernels[i].total_ns / sum->total_ns : 0;
    }
    sum->records = count;
    summarize_periods(store, sum);
    summarize_strategy(store, sum);
    summarize_quantum(store, sum);
    if (summarize_throughput(store, acc, names, sum) != WGPROF_OK || summarize_scopes(store, sum) != WGPROF_OK) {
        goto done;
    }
    *out = sum;
    sum = NULL;
    status = WGPROF_OK;
done:
    wgprof_summary_destroy(sum);
    wgprof__free(acc);
    wgprof__free(durations);
    return status;
}

void wgprof_summary_destroy(wgprof_summary *summary)
{
    if (summary) {
        wgprof__free(summary->kernels);
        wgprof__free(summary->scopes);
        wgprof__free(summary);
    }
}
