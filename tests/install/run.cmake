# Installs the build into a scratch prefix, moves the prefix elsewhere and checks that the moved
# tree stands on its own, with nothing of the source or build tree (nor the WebGPU folder in
# .deps) in reach:
#  - no NEEDED entry of the installed binaries is a path; every run path entry is $ORIGIN-relative;
#  - no installed text file (wgprof.pc, the CMake package) names the source, build or WebGPU
#    folder or the prefix it was installed to;
#  - bin/wgprof (`version`, `info`) runs from the moved prefix in a bare environment (no
#    LD_LIBRARY_PATH, working folder outside both trees), and the dynamic loader, asked with
#    LD_DEBUG, loaded libwgprof and the WebGPU library from the moved prefix, nothing from the trees;
#  - two consumers, one configured with find_package, one compiled with the flags pkg-config
#    gives, build against the moved prefix and run in the same bare environment, and their
#    NEEDED and run path entries point nowhere into the trees either.
# Called by ctest with BUILD_DIR (the build tree) and SOURCE_DIR (this folder).
cmake_minimum_required(VERSION 3.25)
get_filename_component(root "${SOURCE_DIR}/../.." ABSOLUTE)
load_cache("${BUILD_DIR}" READ_WITH_PREFIX cache_
           WGPROF_WEBGPU_DIR WGPROF_WEBGPU_LIBRARY CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR
           CMAKE_C_COMPILER)
foreach(v LIBDIR BINDIR)
  if(NOT cache_CMAKE_INSTALL_${v})
    set(cache_CMAKE_INSTALL_${v} lib)
    if(v STREQUAL BINDIR)
      set(cache_CMAKE_INSTALL_${v} bin)
    endif()
  endif()
endforeach()
set(libdir "${cache_CMAKE_INSTALL_LIBDIR}")
set(bindir "${cache_CMAKE_INSTALL_BINDIR}")
set(webgpu_lib libwgpu_native.so)  # the file name it was found by, installed beside libwgprof
if(cache_WGPROF_WEBGPU_LIBRARY)
  get_filename_component(webgpu_lib "${cache_WGPROF_WEBGPU_LIBRARY}" NAME)
endif()
find_program(READELF readelf REQUIRED)
find_program(ENV_PROGRAM env REQUIRED)
find_program(PKG_CONFIG pkg-config REQUIRED)

# The folders nothing installed may refer to (real paths too, where links lead elsewhere).
set(forbidden "${root}" "${BUILD_DIR}")
if(cache_WGPROF_WEBGPU_DIR)
  list(APPEND forbidden "${cache_WGPROF_WEBGPU_DIR}")
endif()
foreach(dir IN LISTS forbidden)
  file(REAL_PATH "${dir}" real)
  list(APPEND forbidden "${real}")
endforeach()
list(REMOVE_DUPLICATES forbidden)

function(check_no_tree what text)
  foreach(dir IN LISTS forbidden ARGN)
    string(FIND "${text}" "${dir}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${what} refers to ${dir}:\n${text}")
    endif()
  endforeach()
endfunction()

# The scratch folder lies outside both trees.
if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
  set(tmp "$ENV{TMPDIR}")
else()
  set(tmp /tmp)
endif()
execute_process(COMMAND mktemp -d "${tmp}/wgprof-install-test.XXXXXX" OUTPUT_VARIABLE scratch
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${scratch}")
  message(FATAL_ERROR "cannot make a scratch folder in ${tmp}")
endif()
file(REAL_PATH "${scratch}" scratch)
check_no_tree("the scratch folder (set TMPDIR outside the trees)" "${scratch}")
message("scratch folder: ${scratch} (removed if every check passes)")
set(staged "${scratch}/staged/prefix")
set(prefix "${scratch}/moved/elsewhere/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY "${scratch}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
  set(run_out "${out}" PARENT_SCOPE)
  set(run_err "${err}" PARENT_SCOPE)
endfunction()

# A bare environment: no LD_LIBRARY_PATH, nothing pointing into the trees; the GPU driver's
# settings pass where they are set.
set(bare_env ${ENV_PROGRAM} -i PATH=/usr/local/bin:/usr/bin:/bin HOME=${scratch})
foreach(var VK_ICD_FILENAMES VK_DRIVER_FILES XDG_RUNTIME_DIR)
  if(DEFINED ENV{${var}})
    check_no_tree("${var}" "$ENV{${var}}")
    list(APPEND bare_env "${var}=$ENV{${var}}")
  endif()
endforeach()

# NEEDED entries are names, never paths; run path entries are $ORIGIN-relative (installed
# binaries) or at least outside the trees (consumers, which get the moved prefix's lib/).
function(check_elf file origin_only)
  execute_process(COMMAND ${READELF} -d "${file}" OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${file} failed")
  endif()
  check_no_tree("the dynamic section of ${file}" "${dyn}" "${staged}")
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]*\\]" needed "${dyn}")
  foreach(entry IN LISTS needed)
    if(entry MATCHES "\\[[^]]*/[^]]*\\]")
      message(FATAL_ERROR "${file} needs a library by its path: ${entry}")
    endif()
  endforeach()
  string(REGEX MATCHALL "\\((RUNPATH|RPATH)\\)[^\n]*\\[[^]\n]*\\]" paths "${dyn}")
  foreach(entry IN LISTS paths)
    string(REGEX REPLACE ".*\\[([^]]*)\\]" "\\1" value "${entry}")
    string(REPLACE ":" ";" value "${value}")
    foreach(dir IN LISTS value)
      if(origin_only AND NOT dir MATCHES "^\\$ORIGIN(/|$)")
        message(FATAL_ERROR "${file} has a run path entry not relative to $ORIGIN: [${dir}] in ${entry}")
      endif()
    endforeach()
  endforeach()
  message("${file}: ${needed};${paths}")
endfunction()

# Loads a program in the bare environment with the dynamic loader's trace on: each of `libs`
# comes from the moved prefix, nothing from the trees.
function(check_loaded what libs)
  execute_process(COMMAND ${bare_env} LD_DEBUG=libs ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE trace WORKING_DIRECTORY "${scratch}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}) with LD_DEBUG=libs: ${ARGN}\n${out}\n${trace}")
  endif()
  string(REGEX MATCHALL "calling init: [^\n]*" inits "${trace}")
  check_no_tree("what the loader loaded for ${what}" "${inits}" "${staged}")
  foreach(lib IN LISTS libs)
    string(REGEX MATCH "calling init: [^\n]*/${lib}[^/\n]*" hit "${trace}")
    string(REPLACE "calling init: " "" hit "${hit}")
    if(NOT hit)
      message(FATAL_ERROR "${what}: the loader did not load ${lib}:\n${inits}")
    endif()
    file(REAL_PATH "${hit}" hit)
    string(FIND "${hit}" "${prefix}/" at)
    if(NOT at EQUAL 0)
      message(FATAL_ERROR "${what}: ${lib} loaded from ${hit}, not from ${prefix}")
    endif()
  endforeach()
endfunction()

# Install, then move.
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${staged}")
file(MAKE_DIRECTORY "${scratch}/moved/elsewhere")
file(RENAME "${staged}" "${prefix}")
file(REMOVE_RECURSE "${scratch}/staged")

# What a consumer compiles and links against is all in the prefix.
foreach(f include/wgprof/wgprof.h include/webgpu/webgpu.h ${libdir}/libwgprof.so
          ${libdir}/${webgpu_lib} ${libdir}/pkgconfig/wgprof.pc ${libdir}/cmake/wgprof/wgprofConfig.cmake)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(EXISTS "${cache_WGPROF_WEBGPU_DIR}/include/webgpu/wgpu.h" AND NOT EXISTS "${prefix}/include/webgpu/wgpu.h")
  message(FATAL_ERROR "not installed: include/webgpu/wgpu.h")
endif()

# The installed text files name no tree and not the prefix they were installed to.
file(GLOB_RECURSE texts "${prefix}/${libdir}/pkgconfig/*" "${prefix}/${libdir}/cmake/*")
foreach(f IN LISTS texts)
  file(READ "${f}" text)
  check_no_tree("${f}" "${text}" "${staged}")
endforeach()

# The installed binaries.
file(GLOB libs "${prefix}/${libdir}/*.so*")
foreach(f IN LISTS libs)
  if(NOT IS_SYMLINK "${f}")
    check_elf("${f}" TRUE)
  endif()
endforeach()
set(cli "${prefix}/${bindir}/wgprof")
if(EXISTS "${cli}")
  check_elf("${cli}" TRUE)
  run(${bare_env} "${cli}" version)
  run(${bare_env} "${cli}" info)
  check_loaded("wgprof info" "libwgprof.so;${webgpu_lib}" "${cli}" info)
else()
  message("no ${bindir}/wgprof installed (WGPROF_BUILD_TOOLS=OFF): the CLI is not checked")
endif()

# A consumer with find_package: it must find the moved prefix's package, and no other.
set(work "${scratch}/consumer-cmake")
set(cc_args)
if(cache_CMAKE_C_COMPILER)
  set(cc_args "-DCMAKE_C_COMPILER=${cache_CMAKE_C_COMPILER}")
endif()
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${work}" "-DCMAKE_PREFIX_PATH=${prefix}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${cc_args})
load_cache("${work}" READ_WITH_PREFIX consumer_ wgprof_DIR)
file(REAL_PATH "${consumer_wgprof_DIR}" found)
if(NOT found STREQUAL "${prefix}/${libdir}/cmake/wgprof")
  message(FATAL_ERROR "find_package found wgprof in ${consumer_wgprof_DIR}, not in ${prefix}")
endif()
run(${CMAKE_COMMAND} --build "${work}")
check_elf("${work}/consumer" FALSE)
run(${bare_env} "${work}/consumer")
check_loaded("the find_package consumer" "libwgprof.so;${webgpu_lib}" "${work}/consumer")

# A consumer compiled with the flags pkg-config gives: they name only the moved prefix, and
# carry the run path (the program runs without LD_LIBRARY_PATH).
set(ENV{PKG_CONFIG_PATH} "${prefix}/${libdir}/pkgconfig")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs wgprof OUTPUT_VARIABLE flags
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config finds no wgprof in ${prefix}")
endif()
message("pkg-config --cflags --libs wgprof: ${flags}")
check_no_tree("pkg-config's flags" "${flags}" "${staged}")
separate_arguments(flags UNIX_COMMAND "${flags}")
set(cc cc)
if(cache_CMAKE_C_COMPILER)
  set(cc "${cache_CMAKE_C_COMPILER}")
endif()
run(${cc} "${SOURCE_DIR}/consumer.c" ${flags} -o "${scratch}/consumer-pc")
check_elf("${scratch}/consumer-pc" FALSE)
run(${bare_env} "${scratch}/consumer-pc")
check_loaded("the pkg-config consumer" "libwgprof.so;${webgpu_lib}" "${scratch}/consumer-pc")

file(REMOVE_RECURSE "${scratch}")
message("install_consumer: every check passed")
