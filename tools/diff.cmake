# The reader, statistics and writers of `wgprof diff` (tools/diff.h), with the HTML page's
# script and stylesheet (tools/diff_html/) embedded at build time. Included from tools/ (the
# CLI) and fuzz/ (the reader under the fuzzer, with its instrumentation): the sources are named
# here once; each including folder generates its own copy of the assets (diff_html_assets.c and
# .h in its binary folder, which must be on the including target's include path).
set(WGPROF_DIFF_DIR ${CMAKE_CURRENT_LIST_DIR})
wgprof_embed_text("${CMAKE_CURRENT_BINARY_DIR}/diff_html_assets.c" "${CMAKE_CURRENT_BINARY_DIR}/diff_html_assets.h"
  diff_page_css ${WGPROF_DIFF_DIR}/diff_html/page.css
  diff_page_js ${WGPROF_DIFF_DIR}/diff_html/page.js)
set(WGPROF_DIFF_SOURCES ${WGPROF_DIFF_DIR}/diff_load.c ${WGPROF_DIFF_DIR}/diff_runs.c ${WGPROF_DIFF_DIR}/diff_stats.c
  ${WGPROF_DIFF_DIR}/diff_compare.c ${WGPROF_DIFF_DIR}/diff_report.c ${WGPROF_DIFF_DIR}/diff_html.c
  "${CMAKE_CURRENT_BINARY_DIR}/diff_html_assets.c")
