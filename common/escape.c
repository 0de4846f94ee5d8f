/*
 * Every escaping rule of wgprof, once (common.h): JSON strings, JSON text inside a script
 * element, HTML text, CSV and TSV fields, Markdown table cells, and three ways of showing text on
 * a terminal. Compiled into libwgprof (for its report writers) and into wgprof_common (for the
 * products). Names come from users and may hold any bytes: invalid UTF-8 becomes U+FFFD in
 * JSON and HTML, so that every document parses, and U+FFFD in the table, CSV and TSV, where
 * control characters become U+FFFD too, so that none reaches a terminal; a CSV or TSV cell
 * never starts a formula; a Markdown cell can neither format nor break its table.
 * Nothing here allocates: everything is written to a stream or to the caller's buffer.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD in UTF-8 */

/* The length of the well-formed UTF-8 sequence at p (1 to 4), 0 where there is none: a stray
 * continuation byte, a truncated sequence, an overlong form, a surrogate, past U+10FFFF. The
 * terminating NUL is never a continuation byte, so nothing past it is read. */
static size_t utf8_length(const unsigned char *p, uint32_t *code_point)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t cp, min;
    if (c < 0x80) {
        *code_point = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1Fu, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    *code_point = cp;
    return n;
}

void wgprof__escape_json_chars(FILE *out, const char *s, int flags)
{
    bool script = (flags & WGPROF__ESCAPE_JSON_IN_SCRIPT) != 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    const unsigned char *run = p; /* bytes that go out as they are, written together */
    while (*p) {
        uint32_t cp = 0;
        size_t n = utf8_length(p, &cp);
        bool plain = n > 0 && cp >= 0x20 && cp != '"' && cp != '\\' &&
                     !(script && (cp == '<' || cp == '>' || cp == '&'));
        if (plain) {
            p += n;
            continue;
        }
        fwrite(run, 1, (size_t)(p - run), out);
        switch (n ? cp : 0xFFFD) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default: fprintf(out, "\\u%04x", (unsigned)(n ? cp : 0xFFFD)); /* a control, markup, or not UTF-8 */
        }
        p += n ? n : 1;
        run = p;
    }
    fwrite(run, 1, (size_t)(p - run), out);
}

void wgprof__escape_json_string(FILE *out, const char *s, int flags)
{
    fputc('"', out);
    wgprof__escape_json_chars(out, s, flags);
    fputc('"', out);
}

void wgprof__escape_html(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp = 0;
        size_t n = utf8_length(p, &cp);
        if (n == 0) {
            fputs(REPLACEMENT, out);
            p++;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fwrite(p, 1, n, out);
        }
        p += n;
    }
}

/* Whether a character (n bytes, code point cp; n 0: not UTF-8) may be shown as it is in text
 * read on a terminal: the table, and CSV and TSV, which are as often printed as opened. C0 and
 * C1 controls and DEL would move the cursor, clear the screen, set the window's title or end
 * the row; bytes that are not UTF-8 show as whatever the terminal makes of them. */
static bool shown_as_is(size_t n, uint32_t cp) { return n > 0 && cp >= 0x20 && !(cp >= 0x7F && cp <= 0x9F); }

void wgprof__escape_terminal_cell(FILE *out, const char *s, int width)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    int shown = 0;
    while (*p) {
        uint32_t cp = 0;
        size_t n = utf8_length(p, &cp);
        if (!shown_as_is(n, cp)) {
            fputs(REPLACEMENT, out);
        } else {
            fwrite(p, 1, n, out);
        }
        p += n ? n : 1;
        shown++;
    }
    for (; shown < width; shown++) {
        fputc(' ', out);
    }
}

/* A cell a spreadsheet would read as a formula (or as a command, in older ones). */
static bool starts_formula(const char *s) { return s[0] && strchr("=+-@\t\r", s[0]) != NULL; }

/* `s` as a CSV (quote '"') or TSV (quote 0) cell's text, by the table's rule: controls and
 * bytes that are not UTF-8 as U+FFFD, which also leaves no tab or line break to split a row;
 * a CSV field's quotes doubled. */
static void cell_text(FILE *out, const char *s, char quote)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = 0;
        size_t n = utf8_length(p, &cp);
        if (!shown_as_is(n, cp)) {
            fputs(REPLACEMENT, out);
        } else {
            if (quote && cp == (uint32_t)quote) {
                fputc(quote, out);
            }
            fwrite(p, 1, n, out);
        }
        p += n ? n : 1;
    }
}

void wgprof__escape_csv(FILE *out, const char *s)
{
    s = s ? s : "";
    bool quoted = strpbrk(s, ",\"") != NULL;
    fputs(quoted ? "\"" : "", out);
    fputs(starts_formula(s) ? "'" : "", out);
    cell_text(out, s, '"');
    fputs(quoted ? "\"" : "", out);
}

void wgprof__escape_tsv(FILE *out, const char *s)
{
    s = s ? s : "";
    fputs(starts_formula(s) ? "'" : "", out);
    cell_text(out, s, 0);
}

/* The code point of a bidirectional override or isolate (U+202A..U+202E, U+2066..U+2069) that
 * `p` starts with, else 0: text that would reorder what follows it on a line. */
static unsigned bidi_control(const unsigned char *p)
{
    if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) {
        return 0x2000u | (p[2] & 0x3fu);
    }
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9) {
        return 0x2040u | (p[2] & 0x3fu);
    }
    return 0;
}

void wgprof__escape_terminal_shown(FILE *out, const char *s, size_t width)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned bidi = bidi_control(p);
        if (*p < 0x20 || *p == 0x7f) {
            n += (size_t)fprintf(out, "\\x%02x", *p);
        } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            n += (size_t)fprintf(out, "\\u%04x", p[1]);
            p++;
        } else if (bidi) {
            n += (size_t)fprintf(out, "\\u%04x", bidi);
            p += 2;
        } else {
            fputc(*p, out);
            n++;
        }
    }
    for (; n < width; n++) {
        fputc(' ', out);
    }
}

void wgprof__escape_terminal_copy(char *out, size_t cap, const char *text, bool keep_newlines)
{
    if (!cap) {
        return;
    }
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)text;
    for (; *p; p++) {
        char piece[8];
        unsigned char ch = *p;
        bool layout = ch == '\n' || ch == '\t';
        bool control = ch < 0x20 || ch == 0x7f || (ch == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
        if (!control || (layout && keep_newlines)) {
            piece[0] = (char)ch; /* printable, or a line break kept */
            piece[1] = '\0';
        } else if (ch == '\n' || ch == '\t' || ch == '\r') {
            snprintf(piece, sizeof piece, "\\%c", ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r');
        } else if (ch < 0x20 || ch == 0x7f) {
            snprintf(piece, sizeof piece, "\\x%02x", ch);
        } else { /* a C1 control, as UTF-8 */
            snprintf(piece, sizeof piece, "\\u%04x", p[1]);
            p++;
        }
        size_t len = strlen(piece);
        if (n + len + 4 > cap) {
            if (cap >= 4) {
                n = n + 4 > cap ? cap - 4 : n;
                memcpy(out + n, "...", 3);
                n += 3;
            }
            break;
        }
        memcpy(out + n, piece, len);
        n += len;
    }
    out[n < cap ? n : cap - 1] = '\0';
}

void wgprof__escape_markdown(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            fputc(' ', out);
        } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            fputc(' ', out);
            p++;
        } else if (bidi_control(p)) {
            fputc(' ', out);
            p += 2;
        } else if (strchr("\\`*_[]<>|~&", *p)) {
            fputc('\\', out);
            fputc(*p, out);
        } else {
            fputc(*p, out);
        }
    }
}

/* Inside JSON a '<' can only be within a string, where \u003c means the same. */
void wgprof__escape_json_in_script(FILE *out, const char *json, size_t size)
{
    const char *p = json, *end = json + size;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        size_t n = lt ? (size_t)(lt - p) : (size_t)(end - p);
        fwrite(p, 1, n, out);
        if (!lt) {
            break;
        }
        fputs("\\u003c", out);
        p = lt + 1;
    }
}
