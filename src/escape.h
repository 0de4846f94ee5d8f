/*
 * Escaping for every text format wgprof writes (escape.c), so that each rule exists once:
 * JSON strings (the JSON report, the trace, the HTML page's data, device info), HTML text,
 * terminal text (the table), CSV and TSV fields.
 */
#ifndef WGPROF_ESCAPE_H
#define WGPROF_ESCAPE_H

#include <stdio.h>

enum {
    WGPROF__JSON_PLAIN = 0,
    WGPROF__JSON_IN_SCRIPT = 1 /* also '<', '>' and '&' as \u escapes: safe inside <script> */
};

/* `s` (NULL: "") as a JSON string literal, quotes included; bytes that are not well-formed
 * UTF-8 become U+FFFD, so that the document always parses. */
void wgprof__json_string(FILE *out, const char *s, int flags);
/* The same without the quotes, for a string written in parts. */
void wgprof__json_chars(FILE *out, const char *s, int flags);
/* `s` as HTML text, safe in element content and in quoted attribute values. */
void wgprof__html_text(FILE *out, const char *s);
/* `s` for a terminal: control characters and bytes that are not UTF-8 become U+FFFD; then
 * spaces up to `width` characters (0: none). */
void wgprof__text(FILE *out, const char *s, int width);
/* `s` as one CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break). A
 * cell that starts with = + - @ tab or CR gets a leading ' so that no spreadsheet runs it. */
void wgprof__csv_field(FILE *out, const char *s);
/* `s` as one TSV field: TSV has no quoting, so a tab or line break becomes a space; the same
 * leading ' as CSV's. */
void wgprof__tsv_field(FILE *out, const char *s);

#endif
