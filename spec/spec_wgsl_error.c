/*
 * WGSL errors that point at the place: reading the implementation's compile error, and
 * scanning the source for its bindings (spec/spec.h says why text is all there is).
 *
 * naga, through wgpu-native, renders an error with codespan:
 *
 *     Shader 'k' parsing error: no definition in scope for identifier: `x`
 *       ┌─ wgsl:4:25
 *       │
 *     4 │     v[i] = x;
 *       │            ^ unknown identifier
 *       │
 *       = a note
 *
 * where the name before the place is "wgsl" or the module's label, never the file, and the
 * column counts characters. Tint, through Dawn, writes (column in UTF-8 bytes, name empty):
 *
 *     Error while parsing WGSL: :4:25 error: unresolved value 'x'
 *         v[i] = x;
 *                ^
 *
 *     :2:1 note: a note
 *
 * Anything else is shown trimmed, never guessed at.
 */
#include "spec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "┌─" and "│", the box drawing of codespan's place line and gutter, in UTF-8. */
static const char PLACE_MARK[] = "\xe2\x94\x8c\xe2\x94\x80";
static const char GUTTER[] = "\xe2\x94\x82";

/* ---- text ---------------------------------------------------------------------------------- */

/* Text appended to a fixed buffer; what does not fit is cut, the buffer stays terminated. */
typedef struct text_out {
    char *p;
    size_t cap, n;
} text_out;

static void put(text_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text_out *o, const char *fmt, ...)
{
    if (o->n + 1 >= o->cap) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
    va_end(ap);
    if (k > 0) {
        o->n = o->n + (size_t)k < o->cap ? o->n + (size_t)k : o->cap - 1;
    }
}

static void put_bytes(text_out *o, const char *p, size_t n)
{
    put(o, "%.*s", (int)(n > 65536 ? 65536 : n), p);
}

static const char *line_end(const char *p)
{
    const char *e = strchr(p, '\n');
    return e ? e : p + strlen(p);
}

static const char *next_line(const char *p)
{
    const char *e = line_end(p);
    return *e ? e + 1 : e;
}

static const char *skip_spaces(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) {
        p++;
    }
    return p;
}

/* The end of [p, end) without trailing spaces and a carriage return. */
static const char *trim_end(const char *p, const char *end)
{
    while (end > p && isspace((unsigned char)end[-1])) {
        end--;
    }
    return end;
}

static bool starts_with(const char *p, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

static const char *find_in(const char *p, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; (size_t)(end - p) >= n; p++) {
        if (memcmp(p, needle, n) == 0) {
            return p;
        }
    }
    return NULL;
}

static void copy_text(char *out, size_t cap, const char *p, const char *end)
{
    size_t n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Digits ending at `end` (and starting after `floor`): their value in *v and where they start;
 * NULL when there are none or too many to be a line number. */
static const char *digits_before(const char *floor, const char *end, uint32_t *v)
{
    const char *p = end;
    while (p > floor && isdigit((unsigned char)p[-1])) {
        p--;
    }
    if (p == end || end - p > 9) {
        return NULL;
    }
    *v = (uint32_t)strtoul(p, NULL, 10);
    return *v ? p : NULL;
}

/* Reads "NAME:LINE:COL" ending at `end`, NAME possibly empty: true with both numbers. */
static bool place_before(const char *floor, const char *end, uint32_t *line, uint32_t *column)
{
    const char *p = digits_before(floor, end, column);
    if (!p || p == floor || p[-1] != ':') {
        return false;
    }
    p = digits_before(floor, p - 1, line);
    return p && p > floor && p[-1] == ':';
}

/* ---- reading a compile error ------------------------------------------------------------- */

static void add_note(spec_wgsl_diagnostic *d, uint32_t line, const char *p, const char *end)
{
    p = skip_spaces(p, end);
    end = trim_end(p, end);
    if (p == end || d->note_count == SPEC_WGSL_MAX_NOTES) {
        return;
    }
    spec_wgsl_note note = {line, ""};
    copy_text(note.text, sizeof note.text, p, end);
    for (size_t i = 0; i < d->note_count; i++) {
        if (d->notes[i].line == line && strcmp(d->notes[i].text, note.text) == 0) {
            return; /* the implementation says some notes twice */
        }
    }
    d->notes[d->note_count++] = note;
}

/* The message of a headline such as "Shader 'k' parsing error: MESSAGE". */
static void set_message(spec_wgsl_diagnostic *d, const char *p, const char *end)
{
    p = skip_spaces(p, end);
    end = trim_end(p, end);
    const char *e = find_in(p, end, "error: ");
    if (e && e + 7 < end) {
        p = e + 7;
    }
    copy_text(d->message, sizeof d->message, p, end);
}

/* naga's codespan block after its place line: the marks under the source lines and the notes.
 * False when the block shows no source line of the place: the text only looked like naga's. */
static bool read_codespan_block(spec_wgsl_diagnostic *d, const char *p)
{
    uint32_t source_line = 0;
    bool place_shown = false, primary_seen = false;
    for (; *p; p = next_line(p)) {
        const char *end = trim_end(p, line_end(p));
        const char *t = skip_spaces(p, end);
        if (t == end) {
            break; /* the block ends at a blank line; what follows repeats the notes */
        }
        if (starts_with(t, end, "= ")) {
            add_note(d, 0, t + 2, end);
            continue;
        }
        const char *digits_end = t;
        while (digits_end < end && isdigit((unsigned char)*digits_end)) {
            digits_end++;
        }
        if (digits_end > t) {
            if (digits_end - t <= 9 && starts_with(skip_spaces(digits_end, end), end, GUTTER)) {
                source_line = (uint32_t)strtoul(t, NULL, 10);
                place_shown = place_shown || source_line == d->line;
            }
            continue;
        }
        if (!starts_with(t, end, GUTTER)) {
            continue;
        }
        const char *mark = skip_spaces(t + strlen(GUTTER), end);
        if (mark == end || (*mark != '^' && *mark != '-')) {
            continue;
        }
        const char *label = mark;
        while (label < end && *label == *mark) {
            label++;
        }
        uint32_t run = (uint32_t)(label - mark);
        label = skip_spaces(label, end);
        if (starts_with(label, end, "naga::")) {
            label = end; /* it names an IR handle, nothing in the WGSL */
        }
        if (source_line == d->line && !primary_seen) {
            primary_seen = true;
            d->length = run;
            copy_text(d->label, sizeof d->label, label, end);
        } else {
            add_note(d, source_line, label, end);
        }
    }
    return place_shown;
}

static bool read_naga(const char *text, spec_wgsl_diagnostic *d)
{
    const char *headline = NULL, *headline_end = NULL;
    for (const char *p = text; *p; p = next_line(p)) {
        const char *end = trim_end(p, line_end(p));
        const char *t = skip_spaces(p, end);
        if (starts_with(t, end, PLACE_MARK) && place_before(t, end, &d->line, &d->column)) {
            if (headline) {
                set_message(d, headline, headline_end);
            }
            if (!d->message[0]) {
                snprintf(d->message, sizeof d->message, "WGSL does not compile");
            }
            return read_codespan_block(d, next_line(p));
        }
        if (t < end) {
            headline = t;
            headline_end = end;
        }
    }
    return false;
}

/* The length of the caret run that a line holds alone ("    ^^^"), else 0. */
static uint32_t caret_run(const char *p)
{
    const char *end = trim_end(p, line_end(p)), *mark = skip_spaces(p, end), *q = mark;
    while (q < end && *q == '^') {
        q++;
    }
    return q == end ? (uint32_t)(q - mark) : 0;
}

/* Tint's "NAME:LINE:COL error: MESSAGE" (its source line and carets under it), then
 * "NAME:LINE:COL note: TEXT" lines; a second error is left for another run. */
static bool read_tint(const char *text, spec_wgsl_diagnostic *d)
{
    bool found = false;
    for (const char *p = text; *p; p = next_line(p)) {
        const char *end = trim_end(p, line_end(p));
        const char *kind = found ? find_in(p, end, " note: ") : find_in(p, end, " error: ");
        uint32_t line = 0, column = 0;
        if (!kind || !place_before(p, kind, &line, &column)) {
            continue;
        }
        const char *words = kind + (found ? 7 : 8);
        if (!found) {
            d->line = line;
            d->column = column;
            d->column_in_bytes = true;
            copy_text(d->message, sizeof d->message, skip_spaces(words, end), end);
            d->length = caret_run(next_line(next_line(p)));
            found = true;
        } else {
            add_note(d, line, words, end);
        }
    }
    return found;
}

bool spec_wgsl_read_error(const char *text, spec_wgsl_diagnostic *out)
{
    memset(out, 0, sizeof *out);
    if (!text) {
        return false;
    }
    if (read_naga(text, out)) {
        return true;
    }
    memset(out, 0, sizeof *out);
    if (read_tint(text, out)) {
        return true;
    }
    memset(out, 0, sizeof *out);
    return false;
}

/* ---- writing it ----------------------------------------------------------------------------- */

static bool utf8_start(unsigned char c) { return (c & 0xc0) != 0x80; }

/* Line `line` of `source` with a caret under character `column`, as a compiler shows it. Long
 * lines (minified WGSL) show a window around the place. */
static void put_source_line(text_out *o, const char *source, const spec_wgsl_diagnostic *d)
{
    uint32_t line = d->line, column = d->column, length = d->length;
    enum { WIDTH = 150, BEFORE = 60 };
    const char *p = source;
    for (uint32_t l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (!p || (!*p && line > 1)) {
        return; /* the place is past the source: the text was of some other source */
    }
    const char *end = line_end(p);
    if (end > p && end[-1] == '\r') {
        end--;
    }
    /* Character offsets: the line's length, and the window shown. */
    size_t chars = 0;
    for (const char *q = p; q < end; q++) {
        chars += utf8_start((unsigned char)*q);
    }
    size_t at = column - 1; /* the place's character offset */
    if (d->column_in_bytes) {
        at = 0;
        for (const char *q = p; q < end && (size_t)(q - p) < column - 1; q++) {
            at += utf8_start((unsigned char)*q);
        }
    }
    at = at < chars ? at : chars;
    size_t first = chars > WIDTH && at > BEFORE ? at - BEFORE : 0;
    size_t last = first + WIDTH < chars ? first + WIDTH : chars;
    const char *from = p, *to = end;
    size_t c = 0;
    for (const char *q = p; q <= end; q++) {
        if (q == end || utf8_start((unsigned char)*q)) {
            if (c == first) {
                from = q;
            }
            if (c == last) {
                to = q;
            }
            c++;
        }
    }
    put(o, "\n%5u | %s", line, first ? "..." : "");
    put_bytes(o, from, (size_t)(to - from));
    put(o, "%s\n      | %s", last < chars ? "..." : "", first ? "   " : "");
    /* The caret lines up under the place: tabs stay tabs, every other character a space. */
    c = first;
    for (const char *q = from; q < to && c < at; q++) {
        if (utf8_start((unsigned char)*q)) {
            put(o, "%c", *q == '\t' ? '\t' : ' ');
            c++;
        }
    }
    put(o, "^");
    size_t room = last > at + 1 ? last - at - 1 : 0;
    for (size_t k = 1; k < length && k - 1 < room; k++) {
        put(o, "~");
    }
    if (d->label[0]) {
        put(o, " %s", d->label);
    }
}

void spec_wgsl_format_error(char *out, size_t cap, const char *where, const char *text, const char *source)
{
    if (!cap) {
        return;
    }
    text_out o = {out, cap, 0};
    out[0] = '\0';
    spec_wgsl_diagnostic *d = malloc(sizeof *d);
    if (!d || !spec_wgsl_read_error(text, d)) {
        put(&o, "%s: error: WGSL does not compile", where);
        if (o.n + 2 < cap) {
            spec_device_message(out + o.n + 2, cap - o.n - 2, text ? text : "", 2);
            if (out[o.n + 2]) {
                memcpy(out + o.n, ":\n", 2); /* the text, trimmed, under the headline */
            }
        }
        free(d);
        return;
    }
    put(&o, "%s:%u:%u: error: %s", where, d->line, d->column, d->message);
    if (source) {
        put_source_line(&o, source, d);
    }
    for (size_t i = 0; i < d->note_count; i++) {
        if (d->notes[i].line) {
            put(&o, "\n%s:%u: note: %s", where, d->notes[i].line, d->notes[i].text);
        } else {
            put(&o, "\n  note: %s", d->notes[i].text);
        }
    }
    free(d);
}

/* The lines that frame a message: which call failed, not where the spec is wrong. */
static bool framing(const char *t, const char *end)
{
    return (end - t == 16 && starts_with(t, end, "Validation Error")) ||
           (end - t == 10 && starts_with(t, end, "Caused by:")) || starts_with(t, end, "In wgpu") ||
           starts_with(t, end, "- While calling [");
}

void spec_device_message(char *out, size_t cap, const char *text, int indent)
{
    if (!cap) {
        return;
    }
    out[0] = '\0';
    size_t least = SIZE_MAX;
    for (const char *p = text; *p; p = next_line(p)) {
        const char *end = trim_end(p, line_end(p));
        const char *t = skip_spaces(p, end);
        if (t < end && !framing(t, end) && (size_t)(t - p) < least) {
            least = (size_t)(t - p);
        }
    }
    text_out o = {out, cap, 0};
    for (const char *p = text; *p; p = next_line(p)) {
        const char *end = trim_end(p, line_end(p));
        const char *t = skip_spaces(p, end);
        if (t == end || framing(t, end)) {
            continue;
        }
        put(&o, "%s%*s", o.n ? "\n" : "", indent, "");
        put_bytes(&o, p + least, (size_t)(end - (p + least)));
    }
}

/* ---- the bindings a shader declares and uses ----------------------------------------------- */

typedef struct token {
    const char *p;
    uint32_t n;
    char kind; /* 'a' a name or keyword, '0' a number, else the punctuation character itself */
} token;

static bool name_start(unsigned char c) { return isalpha(c) || c == '_' || c >= 0x80; }
static bool name_char(unsigned char c) { return isalnum(c) || c == '_' || c >= 0x80; }

static bool is_word(const token *t, const char *word)
{
    return t->kind == 'a' && t->n == strlen(word) && memcmp(t->p, word, t->n) == 0;
}

static bool tokenize(const char *s, token **out, size_t *count)
{
    size_t cap = 256, n = 0;
    token *t = malloc(cap * sizeof *t);
    if (!t) {
        return false;
    }
    while (*s) {
        unsigned char c = (unsigned char)*s;
        if (isspace(c)) {
            s++;
            continue;
        }
        if (c == '/' && s[1] == '/') {
            while (*s && *s != '\n') {
                s++;
            }
            continue;
        }
        if (c == '/' && s[1] == '*') { /* WGSL's block comments nest */
            int depth = 0;
            do {
                if (s[0] == '/' && s[1] == '*') {
                    depth++;
                    s += 2;
                } else if (s[0] == '*' && s[1] == '/') {
                    depth--;
                    s += 2;
                } else {
                    s++;
                }
            } while (*s && depth > 0);
            continue;
        }
        const char *e = s + 1;
        char kind = (char)c;
        if (name_start(c)) {
            kind = 'a';
            while (name_char((unsigned char)*e)) {
                e++;
            }
        } else if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]))) {
            kind = '0';
            while (name_char((unsigned char)*e) || *e == '.' ||
                   ((*e == '+' || *e == '-') && strchr("eEpP", e[-1]))) {
                e++;
            }
        }
        if (n == cap) {
            token *grown = realloc(t, 2 * cap * sizeof *t);
            if (!grown) {
                free(t);
                return false;
            }
            t = grown;
            cap *= 2;
        }
        t[n++] = (token){s, (uint32_t)(e - s), kind};
        s = e;
    }
    *out = t;
    *count = n;
    return true;
}

/* The index after the bracket that closes the one at `i`. */
static size_t skip_balanced(const token *t, size_t n, size_t i, char open, char close)
{
    int depth = 0;
    for (; i < n; i++) {
        depth += t[i].kind == open;
        depth -= t[i].kind == close;
        if (depth == 0) {
            return i + 1;
        }
    }
    return n;
}

/* An attribute's value if it is one integer literal ("2", "2u", "0x2"), else -1. */
static long literal(const token *t, size_t n, size_t open, size_t after)
{
    size_t inner = after - open - 2; /* tokens between the parentheses */
    if (!(inner == 1 || (inner == 2 && t[open + 2].kind == ',')) || open + 1 >= n || t[open + 1].kind != '0') {
        return -1;
    }
    char text[32];
    if (t[open + 1].n >= sizeof text) {
        return -1;
    }
    memcpy(text, t[open + 1].p, t[open + 1].n);
    text[t[open + 1].n] = '\0';
    char *end;
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    unsigned long v = strtoul(hex ? text + 2 : text, &end, hex ? 16 : 10);
    if (end == text || (*end && strcmp(end, "u") != 0 && strcmp(end, "i") != 0) || v > 65535) {
        return -1;
    }
    return (long)v;
}

/* A declaration's text from `first` to `last` (tokens), spaces collapsed. */
static void declaration_text(char *out, size_t cap, const token *first, const token *last)
{
    text_out o = {out, cap, 0};
    out[0] = '\0';
    for (const token *t = first; t <= last; t++) {
        bool space = t > first && t->p > t[-1].p + t[-1].n;
        put(&o, "%s%.*s", space ? " " : "", (int)t->n, t->p);
    }
}

typedef struct named {
    const token *name;
    size_t index;
    bool function; /* else a binding */
} named;

static int compare_named(const void *a, const void *b)
{
    const token *x = ((const named *)a)->name, *y = ((const named *)b)->name;
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

typedef struct function {
    const token *name;
    size_t body, end; /* token indices of its braces' contents */
    bool visited;
} function;

typedef struct scan {
    token *t;
    size_t n;
    function *functions;
    size_t function_count;
    const token **binding_names; /* per out->items */
    named *names;
    size_t name_count;
} scan;

/* Marks the bindings named in function `f` and the functions it calls, depth first. */
static bool mark_uses(scan *sc, spec_wgsl_bindings *out, size_t f)
{
    size_t cap = 16, top = 0;
    size_t *stack = malloc(cap * sizeof *stack);
    if (!stack) {
        return false;
    }
    stack[top++] = f;
    sc->functions[f].visited = true;
    while (top) {
        const function *fn = &sc->functions[stack[--top]];
        for (size_t i = fn->body; i < fn->end; i++) {
            if (sc->t[i].kind != 'a' || (i > 0 && sc->t[i - 1].kind == '.')) {
                continue; /* a member after '.' is no global */
            }
            named key = {&sc->t[i], 0, false};
            named *hit = bsearch(&key, sc->names, sc->name_count, sizeof *sc->names, compare_named);
            /* Equal names sit together: look at each. */
            while (hit && hit > sc->names && compare_named(hit - 1, &key) == 0) {
                hit--;
            }
            for (; hit && hit < sc->names + sc->name_count && compare_named(hit, &key) == 0; hit++) {
                if (!hit->function) {
                    out->items[hit->index].used = true;
                } else if (!sc->functions[hit->index].visited) {
                    if (top == cap) {
                        size_t *grown = realloc(stack, 2 * cap * sizeof *stack);
                        if (!grown) {
                            free(stack);
                            return false;
                        }
                        stack = grown;
                        cap *= 2;
                    }
                    sc->functions[hit->index].visited = true;
                    stack[top++] = hit->index;
                }
            }
        }
    }
    free(stack);
    return true;
}

/* Module scope: attributes, `var` declarations and functions; every other braced body (structs)
 * is skipped whole. */
static bool read_module(scan *sc, spec_wgsl_bindings *out)
{
    const token *t = sc->t;
    size_t n = sc->n, cap_b = 0, cap_f = 0;
    long group = -1, binding = -1;
    bool has_group = false, has_binding = false;
    for (size_t i = 0; i < n;) {
        if (t[i].kind == '@' && i + 1 < n) {
            bool is_group = is_word(&t[i + 1], "group"), is_binding = is_word(&t[i + 1], "binding");
            i += 2;
            if (i < n && t[i].kind == '(') {
                size_t after = skip_balanced(t, n, i, '(', ')');
                if (is_group || is_binding) {
                    long v = literal(t, n, i, after);
                    *(is_group ? &group : &binding) = v;
                    *(is_group ? &has_group : &has_binding) = true;
                }
                i = after;
            }
            continue;
        }
        if (is_word(&t[i], "var")) {
            size_t end = i;
            while (end < n && t[end].kind != ';' && t[end].kind != '{' && t[end].kind != '}') {
                end++;
            }
            if (has_group && has_binding && (group < 0 || binding < 0)) {
                out->complete = false; /* @group(G) with G a constant: not followed */
            } else if (has_group && has_binding && end > i + 1) {
                if (out->count == cap_b) {
                    cap_b = cap_b ? 2 * cap_b : 8;
                    spec_wgsl_binding *grown = realloc(out->items, cap_b * sizeof *grown);
                    const token **names = realloc(sc->binding_names, cap_b * sizeof *names);
                    if (grown) {
                        out->items = grown;
                    }
                    if (names) {
                        sc->binding_names = names;
                    }
                    if (!grown || !names) {
                        return false;
                    }
                }
                spec_wgsl_binding *b = &out->items[out->count];
                memset(b, 0, sizeof *b);
                b->group = (uint32_t)group;
                b->binding = (uint32_t)binding;
                size_t j = i + 1;
                if (t[j].kind == '<') {
                    b->buffer = j + 1 < n && (is_word(&t[j + 1], "storage") || is_word(&t[j + 1], "uniform"));
                    j = skip_balanced(t, n, j, '<', '>');
                }
                declaration_text(b->declaration, sizeof b->declaration, &t[i], &t[end - 1]);
                sc->binding_names[out->count++] = j < end && t[j].kind == 'a' ? &t[j] : NULL;
            }
            has_group = has_binding = false;
            i = end + 1;
            continue;
        }
        if (is_word(&t[i], "fn") && i + 1 < n && t[i + 1].kind == 'a') {
            size_t open = i + 2;
            while (open < n && t[open].kind != '{' && t[open].kind != ';') {
                open++;
            }
            size_t after = open < n && t[open].kind == '{' ? skip_balanced(t, n, open, '{', '}') : open + 1;
            if (sc->function_count == cap_f) {
                cap_f = cap_f ? 2 * cap_f : 8;
                function *grown = realloc(sc->functions, cap_f * sizeof *grown);
                if (!grown) {
                    return false;
                }
                sc->functions = grown;
            }
            sc->functions[sc->function_count++] = (function){&t[i + 1], open + 1, after > 0 ? after - 1 : 0, false};
            has_group = has_binding = false;
            i = after;
            continue;
        }
        if (t[i].kind == '{') {
            i = skip_balanced(t, n, i, '{', '}');
            has_group = has_binding = false;
            continue;
        }
        if (t[i].kind == ';') {
            has_group = has_binding = false;
        }
        i++;
    }
    return true;
}

bool spec_wgsl_scan_bindings(const char *source, const char *entry, spec_wgsl_bindings *out)
{
    memset(out, 0, sizeof *out);
    out->complete = true;
    scan sc = {0};
    if (!source || !tokenize(source, &sc.t, &sc.n)) {
        return !source;
    }
    bool ok = read_module(&sc, out);
    sc.names = ok ? malloc((sc.function_count + out->count + 1) * sizeof *sc.names) : NULL;
    ok = ok && sc.names;
    size_t entry_index = SIZE_MAX;
    for (size_t i = 0; ok && i < sc.function_count; i++) {
        sc.names[sc.name_count++] = (named){sc.functions[i].name, i, true};
        const token *name = sc.functions[i].name;
        if (entry && name->n == strlen(entry) && memcmp(name->p, entry, name->n) == 0) {
            entry_index = i;
        }
    }
    for (size_t i = 0; ok && i < out->count; i++) {
        if (sc.binding_names && sc.binding_names[i]) {
            sc.names[sc.name_count++] = (named){sc.binding_names[i], i, false};
        }
    }
    if (ok && entry_index != SIZE_MAX) {
        qsort(sc.names, sc.name_count, sizeof *sc.names, compare_named);
        ok = mark_uses(&sc, out, entry_index);
        out->uses_known = ok;
    }
    free(sc.names);
    free(sc.functions);
    free(sc.binding_names);
    free(sc.t);
    if (!ok) {
        spec_wgsl_bindings_free(out);
    }
    return ok;
}

void spec_wgsl_bindings_free(spec_wgsl_bindings *b)
{
    free(b->items);
    memset(b, 0, sizeof *b);
}
