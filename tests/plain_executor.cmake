# wgprof_plain_executor: the plain (wgprof-less) executor the call-sequence and continuous tests
# and bench_overhead compare wgprof with. Included from bench/ and tests/, so that it exists
# whichever of WGPROF_BUILD_BENCH and WGPROF_BUILD_TESTS is on (make check builds the tests
# without the benchmarks); the first to include it defines it, the others link it by name.
# It takes only wgprof's headers: each consumer links the wgprof it needs, the tests the static
# library (they read internals), bench_overhead the shared one it measures.
if(NOT TARGET wgprof_plain_executor)
  add_library(wgprof_plain_executor STATIC ${CMAKE_CURRENT_LIST_DIR}/plain_executor.c)
  target_include_directories(wgprof_plain_executor PUBLIC ${CMAKE_CURRENT_LIST_DIR}
    PRIVATE $<TARGET_PROPERTY:wgprof,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_options(wgprof_plain_executor PRIVATE ${WGPROF_WARNINGS})
  target_link_libraries(wgprof_plain_executor PUBLIC wgprof_webgpu_headers)
endif()
