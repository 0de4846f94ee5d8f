# The fuzz build (clang only): configure with CC=clang -DWGPROF_FUZZ=ON. scripts/fuzz.sh builds
# and runs every fuzz_* executable of the build.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "WGPROF_FUZZ needs clang (CC=clang)")
endif()
# The code under test is compiled with the fuzzers' instrumentation (coverage for the fuzzer,
# ASan, UBSan) but without libFuzzer's main, which only the fuzz targets link
# (WGPROF_FUZZ_FLAGS, fuzz/CMakeLists.txt).
set(WGPROF_FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g)
set(WGPROF_FUZZ_LIBRARY_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -g)
# A function used without its declaration (a feature-test macro missing) would return a truncated
# int in place of a pointer: an error here, where the library's own warnings do not apply.
set(WGPROF_FUZZ_WARNINGS -Werror=implicit-function-declaration -Werror=int-conversion)

# The library itself, instrumented: its sources (WGPROF_SOURCES, the generated HTML assets
# included) and the test-only hooks of src/testing.h, compiled again with the flags above, the
# include folders and definitions of wgprof_objects. wgprof_static and wgprof_testing carry no
# coverage instrumentation, so a fuzzer linked against them sees only its own edges.
add_library(wgprof_fuzz_lib STATIC ${WGPROF_SOURCES} src/device_testing.c src/recorder_testing.c)
target_include_directories(wgprof_fuzz_lib
  PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include ${PROJECT_SOURCE_DIR}/src
  PRIVATE ${PROJECT_BINARY_DIR}/src)
target_compile_definitions(wgprof_fuzz_lib PRIVATE WGPROF_BUILDING _GNU_SOURCE)
target_compile_options(wgprof_fuzz_lib PRIVATE ${WGPROF_WARNINGS} ${WGPROF_FUZZ_LIBRARY_FLAGS})
# The escaping module (common/escape.c) comes, instrumented, from wgprof_common, and with it the
# HTML pages' shared assets.
target_link_libraries(wgprof_fuzz_lib PUBLIC wgprof_webgpu wgprof_common m ${CMAKE_DL_LIBS})
