/* Escaping for JSON, HTML, CSV and TSV (escape.h). */
#include <stdbool.h>
#include <string.h>

#include "escape.h"

void wgprof__json_string(FILE *out, const char *s, int flags)
{
    bool script = (flags & WGPROF__JSON_IN_SCRIPT) != 0;
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20 || (script && (*p == '<' || *p == '>' || *p == '&'))) {
                fprintf(out, "\\u%04x", *p);
            } else {
                fputc(*p, out);
            }
        }
    }
    fputc('"', out);
}

void wgprof__html_text(FILE *out, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*p, out);
        }
    }
}

void wgprof__csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
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
    for (; *s; s++) {
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
    }
}
