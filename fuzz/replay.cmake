# The fuzz targets' saved inputs (fuzz/seeds/, fuzz/regressions/) replayed by ctest in the
# ordinary build, without libFuzzer or clang: each target's LLVMFuzzerTestOneInput with a small
# main (replay_main.c), over copies of the code under test compiled with AddressSanitizer and
# UBSan, as the fuzzers' own are (fuzz/CMakeLists.txt), so that an input that once crashed is
# caught again by `make test`. Included from tests/ where the tools are built.
set(WGPROF_REPLAY_DIR ${CMAKE_CURRENT_LIST_DIR})
set(WGPROF_REPLAY_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)

set(replay_library_sources "")
foreach(source IN LISTS WGPROF_SOURCES)
  if(IS_ABSOLUTE "${source}")
    list(APPEND replay_library_sources "${source}")
  else()
    list(APPEND replay_library_sources "${PROJECT_SOURCE_DIR}/${source}")
  endif()
endforeach()
list(APPEND replay_library_sources "${PROJECT_SOURCE_DIR}/src/device_testing.c"
  "${PROJECT_SOURCE_DIR}/src/recorder_testing.c")
add_library(wgprof_replay_lib STATIC ${replay_library_sources})
add_dependencies(wgprof_replay_lib wgprof_objects) # which generates the embedded assets
target_include_directories(wgprof_replay_lib
  PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include ${PROJECT_SOURCE_DIR}/src
  PRIVATE ${PROJECT_BINARY_DIR}/src)
target_compile_definitions(wgprof_replay_lib PRIVATE WGPROF_BUILDING _GNU_SOURCE)
target_compile_options(wgprof_replay_lib PRIVATE ${WGPROF_WARNINGS} ${WGPROF_REPLAY_FLAGS})
target_link_libraries(wgprof_replay_lib PUBLIC wgprof_webgpu m ${CMAKE_DL_LIBS})

add_library(wgprof_replay_spec STATIC ${PROJECT_SOURCE_DIR}/tools/spec_parse.c
  ${PROJECT_SOURCE_DIR}/tools/wgsl_workgroup.c ${PROJECT_SOURCE_DIR}/tools/json_kind.c)
target_include_directories(wgprof_replay_spec PUBLIC ${PROJECT_SOURCE_DIR}/tools)
target_compile_definitions(wgprof_replay_spec PRIVATE _POSIX_C_SOURCE=200809L)
target_compile_options(wgprof_replay_spec PRIVATE ${WGPROF_REPLAY_FLAGS})
target_link_libraries(wgprof_replay_spec PUBLIC wgprof_replay_lib PRIVATE PkgConfig::JANSSON)

include(${PROJECT_SOURCE_DIR}/tools/diff.cmake) # WGPROF_DIFF_SOURCES, its assets generated here
add_library(wgprof_replay_diff STATIC ${WGPROF_DIFF_SOURCES})
target_include_directories(wgprof_replay_diff PUBLIC ${PROJECT_SOURCE_DIR}/tools PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_compile_definitions(wgprof_replay_diff PRIVATE _POSIX_C_SOURCE=200809L)
target_compile_options(wgprof_replay_diff PRIVATE ${WGPROF_REPLAY_FLAGS})
target_link_libraries(wgprof_replay_diff PUBLIC wgprof_replay_spec wgprof_replay_lib PRIVATE PkgConfig::JANSSON m)

# replay_NAME from fuzz_NAME.c: its sources, definitions and libraries as in fuzz/CMakeLists.txt.
function(wgprof_replay name)
  cmake_parse_arguments(R "" "" "SOURCES;DEFINITIONS;LIBRARIES" ${ARGN})
  add_executable(replay_${name} ${WGPROF_REPLAY_DIR}/fuzz_${name}.c ${WGPROF_REPLAY_DIR}/replay_main.c ${R_SOURCES})
  target_compile_definitions(replay_${name} PRIVATE ${R_DEFINITIONS})
  target_compile_options(replay_${name} PRIVATE ${WGPROF_REPLAY_FLAGS})
  target_link_options(replay_${name} PRIVATE ${WGPROF_REPLAY_FLAGS})
  target_link_libraries(replay_${name} PRIVATE ${R_LIBRARIES})
  set_target_properties(replay_${name} PROPERTIES BUILD_RPATH "${WGPROF_WEBGPU_LIBDIR}")
  add_test(NAME fuzz_replay_${name}
           COMMAND ${WGPROF_REPLAY_DIR}/replay.sh $<TARGET_FILE:replay_${name}> ${name} ${PROJECT_SOURCE_DIR})
  # Leaks count (the fuzzers' runs check them too); UBSan's reports end the program.
  set_tests_properties(fuzz_replay_${name} PROPERTIES LABELS "unit;fuzz" TIMEOUT 120 SKIP_RETURN_CODE 77
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endfunction()

wgprof_replay(spec DEFINITIONS _POSIX_C_SOURCE=200809L LIBRARIES wgprof_replay_spec wgprof_replay_lib)
wgprof_replay(readback LIBRARIES wgprof_replay_lib)
wgprof_replay(writers DEFINITIONS _GNU_SOURCE LIBRARIES wgprof_replay_lib PkgConfig::JANSSON)
# gcc reads scope_path's buffer as possibly empty; a scope's path holds one name at least.
target_compile_options(replay_writers PRIVATE -Wno-stringop-overflow)
wgprof_replay(cli_args SOURCES ${PROJECT_SOURCE_DIR}/tools/cli_args.c DEFINITIONS _POSIX_C_SOURCE=200809L
              LIBRARIES wgprof_replay_lib m)
target_include_directories(replay_cli_args PRIVATE ${PROJECT_SOURCE_DIR}/tools)
wgprof_replay(diff DEFINITIONS _POSIX_C_SOURCE=200809L LIBRARIES wgprof_replay_diff wgprof_replay_lib PkgConfig::JANSSON)
