/*
 * Text from a file (a spec, a report, a kernel's label) made safe to print on a terminal: every
 * control character written as an escape, so that none reaches the terminal raw (common.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

void text_escape_terminal(char *out, size_t cap, const char *text, bool keep_newlines)
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
