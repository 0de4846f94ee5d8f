# Compiles GLSL compute shaders to SPIR-V at build time, into C headers that wgprof's plain
# Vulkan programs (tests/layer, bench) include: the SPIR-V is generated, never committed.
#
# Included, this file finds the Vulkan headers, the loader and glslangValidator (FindVulkan) and
# sets WGPROF_VULKAN_PROGRAMS to ON where all three are there, else OFF with a message saying
# what is missing; and defines
#   wgprof_glsl_header(<target> <header.h> <shader.comp> <array> [ENTRY <name>])
# which adds to <target> a custom command writing <header.h>, in which
#   const uint32_t <array>[];   the SPIR-V words (include <stdint.h> before it)
# and puts <header.h>'s folder on <target>'s include path. ENTRY names the SPIR-V entry point
# (the GLSL's main renamed, so that two modules can be told apart by it); default main.

find_package(Vulkan QUIET COMPONENTS glslangValidator)
set(WGPROF_VULKAN_PROGRAMS ON)
set(_wgprof_vulkan_missing "")
if(NOT TARGET Vulkan::Vulkan)
  list(APPEND _wgprof_vulkan_missing "the Vulkan headers or loader (Debian: libvulkan-dev)")
endif()
if(NOT Vulkan_GLSLANG_VALIDATOR_EXECUTABLE)
  list(APPEND _wgprof_vulkan_missing "glslangValidator (Debian: glslang-tools)")
endif()
if(_wgprof_vulkan_missing)
  set(WGPROF_VULKAN_PROGRAMS OFF)
  list(JOIN _wgprof_vulkan_missing " and " _wgprof_vulkan_missing)
  get_property(_said GLOBAL PROPERTY WGPROF_VULKAN_MISSING_SAID) # once, from whichever folder includes it first
  if(NOT _said)
    message(STATUS "wgprof: no ${_wgprof_vulkan_missing}: the plain Vulkan programs (tests/layer, "
                   "bench/vk_timestamp_cost) are not built and their tests skip")
    set_property(GLOBAL PROPERTY WGPROF_VULKAN_MISSING_SAID ON)
  endif()
endif()

function(wgprof_glsl_header target header source array)
  cmake_parse_arguments(G "" "ENTRY" "" ${ARGN})
  set(entry "")
  if(G_ENTRY)
    set(entry -e ${G_ENTRY} --source-entrypoint main)
  endif()
  get_filename_component(source "${source}" ABSOLUTE)
  get_filename_component(dir "${header}" DIRECTORY)
  add_custom_command(OUTPUT "${header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND "${Vulkan_GLSLANG_VALIDATOR_EXECUTABLE}" -V --target-env vulkan1.1 ${entry} --vn ${array}
            -o "${header}" "${source}"
    DEPENDS "${source}"
    COMMENT "SPIR-V of ${source}"
    VERBATIM)
  target_sources(${target} PRIVATE "${header}")
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
