/*
 * Escaping for JSON, HTML, CSV, TSV and the terminal (escape.h). Names come from users and may
 * hold any bytes: invalid UTF-8 becomes U+FFFD everywhere, so that every JSON document parses;
 * control characters never reach a terminal; a CSV or TSV cell never starts a formula.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "escape.h"

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

void wgprof__json_chars(FILE *out, const char *s, int flags)
{
    bool script = (flags & WGPROF__JSON_IN_SCRIPT) != 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    const unsigned char *run = p; /* bytes that go out as they are, written together */
    while (*p) {
        uint32_t cp;
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

void wgprof__json_string(FILE *out, const char *s, int flags)
{
    fputc('"', out);
    wgprof__json_chars(out, s, flags);
    fputc('"', out);
}

void wgprof__html_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp;
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

void wgprof__text(FILE *out, const char *s, int width)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    int shown = 0;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_length(p, &cp);
        /* C0 and C1 controls and DEL would move the cursor, clear the screen or end the row. */
        if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
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

void wgprof__csv_field(FILE *out, const char *s)
{
    const char *quote_prefix = starts_formula(s) ? "'" : "";
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(quote_prefix, out);
        fputs(s, out);
        return;
    }
    fputc('"', out);
    fputs(quote_prefix, out);
    for (; *s; s++) {
        if (*s == '"') {
            fputc('"', out);
        }
        fputc(*s, out);
    }
    fputc('"', out);
}

void wgprof__tsv_field(FILE *out, const char *s)
{
    if (starts_formula(s)) {
        fputc('\'', out);
    }
    for (; *s; s++) {
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
    }
}
