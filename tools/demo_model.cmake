# wgprof_demo_model: the demo's transformer decode step (demo_model.c and its WGSL kernels), used
# by the CLI's `demo` and by bench_overhead and bench_phases. Included from tools/ and bench/, so
# that it exists whichever of WGPROF_BUILD_TOOLS and WGPROF_BUILD_BENCH is on; the first to
# include it defines it (targets are global, so the others link it by name).
if(NOT TARGET wgprof_demo_model)
  add_library(wgprof_demo_model STATIC
    ${CMAKE_CURRENT_LIST_DIR}/demo_model.c ${CMAKE_CURRENT_LIST_DIR}/demo_kernels.c)
  target_include_directories(wgprof_demo_model PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_compile_options(wgprof_demo_model PRIVATE ${WGPROF_WARNINGS})
  target_compile_definitions(wgprof_demo_model PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(wgprof_demo_model PUBLIC wgprof PRIVATE m)
endif()
