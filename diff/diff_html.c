/*
 * The HTML page of a comparison (diff.h): one file that fetches nothing. The comparison's JSON
 * (diff_write_json) is embedded with every '<' escaped (wgprof__escape_json_in_script, common.h),
 * so that no name can end its script element; the page's script (diff/diff_html/page.js,
 * embedded at build time with its stylesheet, each after what both HTML pages share, common.h)
 * draws the two runs side by side from it: per kernel a bar for each median and the new median's
 * interval across the new one, then the tables.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "diff.h"
#include "diff_html_assets.h"

bool diff_write_html(const diff_result *r, FILE *out)
{
    char *data = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&data, &size);
    if (!mem) {
        return false;
    }
    bool ok = diff_write_json(r, mem);
    ok = fclose(mem) == 0 && ok;
    if (!ok) {
        free(data);
        return false;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    fputs(r->base->partial || r->new_->partial ? "PARTIAL wgprof diff" : "wgprof diff", out);
    fputs("</title>\n<style>\n", out);
    fwrite(wgprof__page_base_css, 1, wgprof__page_base_css_size, out);
    fwrite(wgprof__diff_page_css, 1, wgprof__diff_page_css_size, out);
    fputs("</style>\n</head>\n<body>\n<main></main>\n<script type=\"application/json\" id=\"wgprof-diff-data\">\n",
          out);
    wgprof__escape_json_in_script(out, data, size);
    fputs("</script>\n<script>\n", out);
    fwrite(wgprof__page_base_js, 1, wgprof__page_base_js_size, out);
    fwrite(wgprof__diff_page_js, 1, wgprof__diff_page_js_size, out);
    fputs("</script>\n</body>\n</html>\n", out);
    free(data);
    return !ferror(out);
}
