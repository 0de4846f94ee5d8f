# The reader, statistics and writers of `wgprof diff` (tools/diff.h), with the HTML page's
# script and stylesheet (tools/diff_html/) embedded at build time. Included from tools/ (the
# CLI) and fuzz/ (the reader under the fuzzer, with its instrumentation): the sources and the
# generated assets are named here once.
set(WGPROF_DIFF_DIR ${CMAKE_CURRENT_LIST_DIR})
set(WGPROF_DIFF_ASSETS "${PROJECT_BINARY_DIR}/tools/diff_html_assets.c")
if(NOT DEFINED WGPROF_DIFF_ASSETS_RULE)
  set(WGPROF_DIFF_ASSETS_RULE ON)
  wgprof_embed_text("${WGPROF_DIFF_ASSETS}" "${PROJECT_BINARY_DIR}/tools/diff_html_assets.h"
    diff_page_css ${WGPROF_DIFF_DIR}/diff_html/page.css
    diff_page_js ${WGPROF_DIFF_DIR}/diff_html/page.js)
endif()
set(WGPROF_DIFF_SOURCES ${WGPROF_DIFF_DIR}/diff_load.c ${WGPROF_DIFF_DIR}/diff_stats.c
  ${WGPROF_DIFF_DIR}/diff_compare.c ${WGPROF_DIFF_DIR}/diff_report.c ${WGPROF_DIFF_DIR}/diff_html.c
  "${WGPROF_DIFF_ASSETS}")
