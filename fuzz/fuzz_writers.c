/* libFuzzer target: kernel and scope names through every report writer.
 *
 * The input is a list of tokens separated by '\0' (which no name can hold). A token's first byte
 * says what it is; the rest is a name, any bytes: invalid UTF-8, control characters, quotes,
 * markup such as "</script>", a spreadsheet formula's first character (= + - @).
 *   's' NAME   opens a scope NAME (wgprof_pool_scope_begin)
 *   'e'        closes the innermost scope (wgprof_pool_scope_end: refused when none is open)
 *   'b'        ends the batch being built
 *   'x' NAME   a dispatch of kernel NAME whose readings are invalid (both timestamps 0)
 *   any other byte, then NAME: a dispatch of kernel NAME with valid readings
 * A host pool (src/testing.h) takes them: each dispatch its own site (wgprof__host_site), the
 * dispatches gathered into batches (wgprof__host_batch) that end at every scope begin or end, at
 * 'b' and at the end, so that scopes hold parts of the records, each batch given synthetic
 * readings and collected (wgprof__host_readings, wgprof__host_collected). Then every format is
 * written into memory and checked; any violation aborts:
 *   - table: valid UTF-8 without control characters (C0, DEL, C1) but its line ends, and as many
 *     lines as the same report with plain names ("n0", "n1", ...);
 *   - JSON and trace: jansson parses them; every kernel and scope name comes back equal to its
 *     input where that is valid UTF-8 without control characters (the others only need to be
 *     strings); the JSON's scope paths are their names joined by '/';
 *   - CSV, CSV summary, TSV: every row has the header's field count (CSV read as RFC 4180),
 *     one row per record (per kernel for the summary); no kernel cell starts like a formula
 *     (= + - @ tab CR), and a plain name comes back as it is, after a ' where it starts so;
 *   - HTML: the names add no markup: the page has as many '<' and '>' as the same report with
 *     plain names, and as many '"' and '\'' outside its embedded data; the
 *     embedded data parses, with the names as in the JSON. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_TOKENS = 256 };

typedef enum op_kind { OP_KERNEL, OP_KERNEL_INVALID, OP_SCOPE_BEGIN, OP_SCOPE_END, OP_BATCH } op_kind;

typedef struct op {
    op_kind kind;
    char *name;     /* NUL-terminated copy, kernels and scope begins only */
    uint32_t plain; /* index of the distinct name, for the plain twin */
} op;

typedef struct program {
    op ops[MAX_TOKENS];
    size_t count;
    uint32_t distinct; /* distinct names so far */
} program;

/* Aborts, naming the check that failed, so that libFuzzer reports the input. */
static void fail(const char *what, int line)
{
    fprintf(stderr, "fuzz_writers.c:%d: check failed: %s\n", line, what);
    abort();
}
#define check(ok) ((ok) ? (void)0 : fail(#ok, __LINE__))

/* ---- names ----------------------------------------------------------------------------------- */

/* Valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned cp;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2, cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3, cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4, cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i < len) {
            return false;
        }
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                return false;
            }
            cp = cp << 6 | (s[i + k] & 0x3fu);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff)) {
            return false;
        }
        i += len;
    }
    return true;
}

/* A name every format must give back as it is: valid UTF-8 without control characters. */
static bool plain_text(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            return false;
        }
    }
    return utf8_valid((const unsigned char *)s, strlen(s));
}

/* Plain text that CSV and TSV also write as it is: no C1 control either (U+0080 to U+009F,
 * written as U+FFFD, as the table writes them). */
static bool cell_text_as_is(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            return false;
        }
    }
    return plain_text(s);
}

/* A cell a spreadsheet would take for a formula: CSV and TSV put a ' before such a name. */
static bool formula_start(const char *s) { return s[0] && strchr("=+-@\t\r", s[0]) != NULL; }

static bool json_str_is(const json_t *v, const char *expected)
{
    size_t n = strlen(expected);
    return json_is_string(v) && json_string_length(v) == n && memcmp(json_string_value(v), expected, n) == 0;
}

/* A string everywhere; equal to `expected` where that is plain text. */
static void check_name(const json_t *v, const char *expected)
{
    check(json_is_string(v));
    if (plain_text(expected)) {
        check(json_str_is(v, expected));
    }
}

/* ---- the input --------------------------------------------------------------------------- */

static void parse_program(const uint8_t *data, size_t size, program *p)
{
    p->count = 0;
    p->distinct = 0;
    size_t at = 0;
    while (at < size && p->count < MAX_TOKENS) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        if (len > 0) {
            op *o = &p->ops[p->count++];
            uint8_t tag = data[at];
            o->kind = tag == 's' ? OP_SCOPE_BEGIN : tag == 'e' ? OP_SCOPE_END : tag == 'b' ? OP_BATCH
                    : tag == 'x' ? OP_KERNEL_INVALID : OP_KERNEL;
            o->name = NULL;
            o->plain = 0;
            if (o->kind != OP_SCOPE_END && o->kind != OP_BATCH) {
                o->name = malloc(len);
                check(o->name != NULL);
                memcpy(o->name, data + at + 1, len - 1);
                o->name[len - 1] = '\0';
                /* The plain twin's names: one per distinct name, kernels and scopes alike (they
                 * share the pool's dictionary), so that both reports have the same shape. */
                o->plain = p->distinct;
                for (size_t i = 0; i + 1 < p->count; i++) {
                    if (p->ops[i].name && strcmp(p->ops[i].name, o->name) == 0) {
                        o->plain = p->ops[i].plain;
                        break;
                    }
                }
                p->distinct += o->plain == p->distinct;
            }
        }
        at += len + 1;
    }
}

static void free_program(program *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->ops[i].name);
    }
}

/* ---- the pool ---------------------------------------------------------------------------- */

typedef struct pending {
    uint32_t sites[MAX_TOKENS];
    bool valid[MAX_TOKENS];
    size_t count;
    uint64_t next; /* the next record's index in the pool */
} pending;

static void flush_batch(wgprof_pool *pool, pending *b)
{
    if (!b->count) {
        return;
    }
    size_t first = 0;
    uint32_t batch = 0;
    check(wgprof__host_batch(pool, b->count, b->sites, b->count, false, &first, &batch) == WGPROF_OK);
    uint64_t ticks[2 * MAX_TOKENS];
    for (size_t i = 0; i < b->count; i++) {
        uint64_t r = b->next + i;
        /* Some overlap their predecessor, so that exclusive times differ from durations. */
        ticks[2 * i] = b->valid[i] ? 1000 + 100 * r : 0;
        ticks[2 * i + 1] = b->valid[i] ? 1000 + 100 * r + 50 + 30 * (r % 3) : 0;
    }
    wgprof__extent extent = {0};
    wgprof__host_readings(pool, batch, first, b->count, ticks, 1.0, &extent);
    wgprof__host_collected(pool, batch, 1.0);
    b->next += b->count;
    b->count = 0;
}

/* The pool the program describes, with its names (`plain`: "n0", "n1", ... in their place). */
static wgprof_pool *build_pool(const program *p, bool plain)
{
    wgprof_pool *pool = wgprof__pool_new_host();
    check(pool != NULL);
    pending b = {.count = 0, .next = 0};
    uint32_t depth = 0;
    for (size_t i = 0; i < p->count; i++) {
        const op *o = &p->ops[i];
        char plain_name[16];
        const char *name = o->name;
        if (name && plain) {
            snprintf(plain_name, sizeof plain_name, "n%u", o->plain);
            name = plain_name;
        }
        switch (o->kind) {
        case OP_KERNEL:
        case OP_KERNEL_INVALID: {
            wgprof_dispatch_desc d = {.kernel = name,
                                      .workgroups = {(uint32_t)i + 1, 2, 1},
                                      .workgroup_size = {64, 1, 1},
                                      .bytes = 1000.0 * (double)(i % 3),
                                      .flops = i % 2 ? 1e6 : 0};
            check(wgprof__host_site(pool, &d, &b.sites[b.count]) == WGPROF_OK);
            b.valid[b.count++] = o->kind == OP_KERNEL;
            break;
        }
        case OP_SCOPE_BEGIN:
            flush_batch(pool, &b);
            check(wgprof_pool_scope_begin(pool, name) == WGPROF_OK);
            depth++;
            break;
        case OP_SCOPE_END:
            flush_batch(pool, &b);
            check(wgprof_pool_scope_end(pool) == (depth ? WGPROF_OK : WGPROF_ERR_STATE));
            depth -= depth > 0;
            break;
        case OP_BATCH:
            flush_batch(pool, &b);
            break;
        }
    }
    flush_batch(pool, &b); /* scopes still open stay open */
    return pool;
}

/* ---- writing ----------------------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t size;
} text;

static text write_report(const wgprof_pool *pool, const wgprof_summary *s, wgprof_format format)
{
    text t = {NULL, 0};
    FILE *mem = open_memstream(&t.data, &t.size);
    check(mem != NULL);
    wgprof_report_desc desc = {
        .pool = pool, .summary = s, .peak_gbps = 1, .peak_gflops = 1};
    check(wgprof_report_write(&desc, format, mem) == WGPROF_OK);
    check(fclose(mem) == 0);
    return t;
}

/* ---- JSON and trace ------------------------------------------------------------------------ */

typedef struct expected {
    const wgprof_pool *pool;
    const wgprof_summary *summary;
    size_t records, scopes;
} expected;

static json_t *parse(const char *what, const char *data, size_t size)
{
    json_error_t error;
    json_t *root = json_loadb(data, size, 0, &error);
    if (!root) {
        fprintf(stderr, "fuzz_writers: the %s does not parse: %s (line %d, column %d, byte %d)\n", what, error.text,
                error.line, error.column, error.position);
        check(root != NULL);
    }
    check(json_is_object(root));
    return root;
}

/* Record `index`'s kernel name as the pool holds it. */
static const char *record_kernel(const expected *e, size_t index)
{
    wgprof_record r;
    check(wgprof_pool_record(e->pool, index, &r) == WGPROF_OK);
    return r.kernel;
}

/* The JSON's scope path of summary scope `i`: its names from the top joined by '/', whole at any
 * depth and length (malloc'd); NULL where a name is no plain text. */
static char *scope_path(const wgprof_summary *s, size_t i)
{
    size_t size = 0;
    for (int32_t at = (int32_t)i; at >= 0; at = s->scopes[at].parent) {
        if (!plain_text(s->scopes[at].name)) {
            return NULL;
        }
        size += strlen(s->scopes[at].name) + 1;
    }
    char *path = malloc(size);
    check(path != NULL);
    size_t end = size - 1; /* written from the end: the innermost name last */
    path[end] = '\0';
    for (int32_t at = (int32_t)i; at >= 0; at = s->scopes[at].parent) {
        size_t n = strlen(s->scopes[at].name);
        end -= n;
        memcpy(path + end, s->scopes[at].name, n);
        if (end) {
            path[--end] = '/';
        }
    }
    check(end == 0);
    return path;
}

static void check_json(const text *t, const expected *e)
{
    json_t *root = parse("JSON report", t->data, t->size);
    const wgprof_summary *s = e->summary;
    const json_t *dispatches = json_object_get(root, "dispatches");
    check(json_is_array(dispatches) && json_array_size(dispatches) == e->records);
    for (size_t i = 0; i < e->records; i++) {
        check_name(json_object_get(json_array_get(dispatches, i), "kernel"), record_kernel(e, i));
    }
    const json_t *kernels = json_object_get(root, "kernels");
    check(json_is_array(kernels) && json_array_size(kernels) == s->kernel_count);
    for (size_t i = 0; i < s->kernel_count; i++) {
        check_name(json_object_get(json_array_get(kernels, i), "name"), s->kernels[i].name);
    }
    const json_t *scopes = json_object_get(root, "scopes");
    check(json_is_array(scopes) && json_array_size(scopes) == s->scope_count);
    for (size_t i = 0; i < s->scope_count; i++) {
        const json_t *sc = json_array_get(scopes, i);
        check_name(json_object_get(sc, "name"), s->scopes[i].name);
        const json_t *p = json_object_get(sc, "path");
        check(json_is_string(p));
        char *path = scope_path(s, i);
        if (path) {
            check(json_str_is(p, path));
            free(path);
        }
    }
    const json_t *instances = json_object_get(root, "scope_instances");
    check(json_is_array(instances) && json_array_size(instances) == e->scopes);
    for (size_t i = 0; i < e->scopes; i++) {
        wgprof_scope_record sc;
        check(wgprof_pool_scope(e->pool, i, &sc) == WGPROF_OK);
        check_name(json_object_get(json_array_get(instances, i), "name"), sc.name);
        /* its path is its scope's, as the aggregate names it */
        const json_t *path = json_object_get(json_array_get(instances, i), "path");
        check(json_is_string(path));
        bool found = false;
        for (size_t j = 0; j < s->scope_count && !found; j++) {
            found = json_equal(path, json_object_get(json_array_get(scopes, j), "path"));
        }
        check(found);
    }
    json_decref(root);
}

static void check_trace(const text *t, const expected *e)
{
    json_t *root = parse("trace", t->data, t->size);
    const json_t *events = json_object_get(root, "traceEvents");
    check(json_is_array(events));
    size_t valid_records = 0, valid_scopes = 0, dispatch_events = 0, scope_events = 0;
    for (size_t i = 0; i < e->records; i++) {
        wgprof_record r;
        check(wgprof_pool_record(e->pool, i, &r) == WGPROF_OK);
        valid_records += r.valid;
    }
    size_t scope_index = 0; /* the next scope instance a scope event can stand for */
    for (size_t i = 0; i < json_array_size(events); i++) {
        const json_t *ev = json_array_get(events, i);
        const json_t *cat = json_object_get(ev, "cat");
        if (json_str_is(cat, "dispatch")) {
            dispatch_events++;
            const json_t *index_value = json_object_get(json_object_get(ev, "args"), "index");
            check(json_is_integer(index_value));
            json_int_t index = json_integer_value(index_value);
            check(index >= 0 && (size_t)index < e->records);
            check_name(json_object_get(ev, "name"), record_kernel(e, (size_t)index));
        } else if (json_str_is(cat, "scope")) {
            /* The valid scope instances, in order. */
            wgprof_scope_record sc = {0};
            while (scope_index < e->scopes) {
                check(wgprof_pool_scope(e->pool, scope_index++, &sc) == WGPROF_OK);
                if (sc.valid) {
                    break;
                }
            }
            check(sc.valid);
            scope_events++;
            check_name(json_object_get(ev, "name"), sc.name);
        }
    }
    for (size_t i = 0; i < e->scopes; i++) {
        wgprof_scope_record sc;
        check(wgprof_pool_scope(e->pool, i, &sc) == WGPROF_OK);
        valid_scopes += sc.valid;
    }
    check(dispatch_events == valid_records && scope_events == valid_scopes);
    json_decref(root);
}

/* ---- CSV and TSV ----------------------------------------------------------------------------- */

typedef struct cells {
    const char *at, *end;
    char sep;
    bool quoting; /* RFC 4180 quotes (CSV); TSV has none */
    char *field;
    size_t len, cap;
} cells;

static void push(cells *c, char ch)
{
    if (c->len + 1 >= c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->field = realloc(c->field, c->cap);
        check(c->field != NULL);
    }
    c->field[c->len++] = ch;
    c->field[c->len] = '\0';
}

/* Reads the next field into c->field: 1 when its row goes on, 2 when it was the row's last, 0
 * when the text is malformed (an unterminated quote, a quote or CR in an unquoted field, a
 * quoted field followed by anything but a separator, a last row without its '\n'). */
static int next_field(cells *c)
{
    c->len = 0;
    if (c->field) {
        c->field[0] = '\0';
    }
    if (c->quoting && c->at < c->end && *c->at == '"') {
        for (c->at++;;) {
            if (c->at == c->end) {
                return 0;
            }
            char ch = *c->at++;
            if (ch == '"') {
                if (c->at < c->end && *c->at == '"') {
                    c->at++;
                } else {
                    break;
                }
            }
            push(c, ch);
        }
    } else {
        while (c->at < c->end && *c->at != c->sep && *c->at != '\n') {
            if (*c->at == '"' && c->quoting) {
                return 0;
            }
            if (*c->at == '\r') {
                return 0;
            }
            push(c, *c->at++);
        }
    }
    if (c->at == c->end) {
        return 0;
    }
    char ch = *c->at++;
    return ch == c->sep ? 1 : ch == '\n' ? 2 : 0;
}

/* Every row has the header's field count; `rows` rows follow it; cell `column` of row r never
 * starts like a formula, and is name(r) where that is plain text (after a ' where it does). */
static void check_rows(const text *t, char sep, bool quoting, size_t rows, size_t column,
                       const char *(*name)(const expected *, size_t), const expected *e)
{
    cells c = {t->data, t->data + t->size, sep, quoting, NULL, 0, 0};
    size_t columns = 0, row = 0, field = 0;
    while (c.at < c.end) {
        int r = next_field(&c);
        check(r != 0);
        check(row <= rows);
        if (row > 0 && field == column) {
            const char *expected_name = name(e, row - 1);
            check(c.len == 0 || !formula_start(c.field));
            if (cell_text_as_is(expected_name)) {
                size_t prefix = formula_start(expected_name) ? 1 : 0, n = strlen(expected_name);
                check(c.len == prefix + n && (!prefix || c.field[0] == '\''));
                check(n == 0 || memcmp(c.field + prefix, expected_name, n) == 0);
            }
        }
        field++;
        if (r == 2) {
            if (row == 0) {
                columns = field;
                check(columns > column);
            }
            check(field == columns);
            row++;
            field = 0;
        }
    }
    check(field == 0 && row == rows + 1);
    free(c.field);
}

static const char *summary_kernel(const expected *e, size_t index) { return e->summary->kernels[index].name; }

/* ---- HTML ---------------------------------------------------------------------------------- */

static const char DATA_BEGIN[] = "<script type=\"application/json\" id=\"wgprof-data\">";

typedef struct markup {
    size_t lt, gt, quot, apos; /* '<' and '>' in the page; '"' and '\'' outside its data */
    const char *data;          /* the embedded data */
    size_t data_size;
} markup;

/* Through memchr, which is not instrumented: a loop over every byte of the page, traced for
 * coverage, took most of the time of a run. */
static size_t count(const char *s, size_t n, char ch)
{
    size_t k = 0;
    for (const char *end = s + n, *at; s < end && (at = memchr(s, ch, (size_t)(end - s))) != NULL; s = at + 1) {
        k++;
    }
    return k;
}

static markup read_markup(const text *t)
{
    markup m = {0};
    const char *begin = memmem(t->data, t->size, DATA_BEGIN, sizeof DATA_BEGIN - 1);
    check(begin != NULL);
    m.data = begin + sizeof DATA_BEGIN - 1;
    const char *end = memmem(m.data, t->size - (size_t)(m.data - t->data), "</script>", 9);
    check(end != NULL);
    m.data_size = (size_t)(end - m.data);
    m.lt = count(t->data, t->size, '<');
    m.gt = count(t->data, t->size, '>');
    m.quot = count(t->data, t->size, '"') - count(m.data, m.data_size, '"');
    m.apos = count(t->data, t->size, '\'') - count(m.data, m.data_size, '\'');
    return m;
}

static void check_html(const text *t, const text *twin, const expected *e)
{
    markup m = read_markup(t), plain = read_markup(twin);
    check(m.lt == plain.lt && m.gt == plain.gt && m.quot == plain.quot && m.apos == plain.apos);
    json_t *root = parse("HTML page's data", m.data, m.data_size);
    const wgprof_summary *s = e->summary;
    const json_t *kernels = json_object_get(root, "kernels");
    check(json_is_array(kernels) && json_array_size(kernels) == s->kernel_count);
    for (size_t i = 0; i < s->kernel_count; i++) {
        check_name(json_object_get(json_array_get(kernels, i), "name"), s->kernels[i].name);
    }
    /* [name, depth, ...] for each valid scope instance, in order. */
    const json_t *scopes = json_object_get(root, "scopes");
    check(json_is_array(scopes));
    size_t k = 0;
    for (size_t i = 0; i < e->scopes; i++) {
        wgprof_scope_record sc;
        check(wgprof_pool_scope(e->pool, i, &sc) == WGPROF_OK);
        if (sc.valid) {
            check(k < json_array_size(scopes));
            check_name(json_array_get(json_array_get(scopes, k++), 0), sc.name);
        }
    }
    check(k == json_array_size(scopes));
    json_decref(root);
}

/* ---- the table ---------------------------------------------------------------------------- */

/* What a terminal shows as text: valid UTF-8, no C0 control but '\n', no DEL, no C1 control. */
static bool terminal_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n') || c == 0x7f ||
            (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f)) {
            return false;
        }
    }
    return utf8_valid((const unsigned char *)s, n);
}

static void check_table(const text *t, const text *twin)
{
    check(t->size > 0 && terminal_text(t->data, t->size));
    check(count(t->data, t->size, '\n') == count(twin->data, twin->size, '\n'));
}

/* ---- the target ---------------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static program p; /* large: off the stack */
    parse_program(data, size, &p);
    wgprof_pool *pool = build_pool(&p, false);
    /* The pool keeps every name as given. */
    size_t records = 0, scopes = 0;
    for (size_t i = 0; i < p.count; i++) {
        const op *o = &p.ops[i];
        if (o->kind == OP_KERNEL || o->kind == OP_KERNEL_INVALID) {
            wgprof_record r;
            check(wgprof_pool_record(pool, records++, &r) == WGPROF_OK && strcmp(r.kernel, o->name) == 0);
            check(r.valid == (o->kind == OP_KERNEL));
        } else if (o->kind == OP_SCOPE_BEGIN) {
            wgprof_scope_record sc;
            check(wgprof_pool_scope(pool, scopes++, &sc) == WGPROF_OK && strcmp(sc.name, o->name) == 0);
        }
    }
    check(wgprof_pool_count(pool) == records && wgprof_pool_scope_count(pool) == scopes);
    wgprof_summary *s = NULL;
    check(wgprof_summary_create(pool, &s) == WGPROF_OK);
    expected e = {pool, s, records, scopes};
    /* The same with plain names, for the formats whose shape is compared. */
    wgprof_pool *plain_pool = build_pool(&p, true);
    wgprof_summary *plain_summary = NULL;
    check(wgprof_summary_create(plain_pool, &plain_summary) == WGPROF_OK);

    text table = write_report(pool, s, WGPROF_FORMAT_TABLE);
    text plain_table = write_report(plain_pool, plain_summary, WGPROF_FORMAT_TABLE);
    check_table(&table, &plain_table);
    free(table.data);
    free(plain_table.data);
    text tsv = write_report(pool, s, WGPROF_FORMAT_TSV);
    check_rows(&tsv, '\t', false, records, 3, record_kernel, &e);
    free(tsv.data);
    text json = write_report(pool, s, WGPROF_FORMAT_JSON);
    check_json(&json, &e);
    free(json.data);
    text csv = write_report(pool, s, WGPROF_FORMAT_CSV);
    check_rows(&csv, ',', true, records, 3, record_kernel, &e);
    free(csv.data);
    text csv_summary = write_report(pool, s, WGPROF_FORMAT_CSV_SUMMARY);
    check_rows(&csv_summary, ',', true, s->kernel_count, 0, summary_kernel, &e);
    free(csv_summary.data);
    text trace = write_report(pool, s, WGPROF_FORMAT_TRACE);
    check_trace(&trace, &e);
    free(trace.data);

    text html = write_report(pool, s, WGPROF_FORMAT_HTML);
    text plain_html = write_report(plain_pool, plain_summary, WGPROF_FORMAT_HTML);
    check_html(&html, &plain_html, &e);
    free(html.data);
    free(plain_html.data);
    wgprof_summary_destroy(plain_summary);
    wgprof_pool_destroy(plain_pool);

    wgprof_summary_destroy(s);
    wgprof_pool_destroy(pool);
    free_program(&p);
    return 0;
}
