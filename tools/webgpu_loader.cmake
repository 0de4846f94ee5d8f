# The WebGPU implementation of wgprof's own programs, chosen at run time (webgpu_loader.h):
# wgprof_webgpu_loader (the CLI calls it after reading --webgpu) and wgprof_webgpu_autoload (the
# tests and benchmarks: it loads WGPROF_WEBGPU's choice before main). wgprof_loads_webgpu(target)
# links a program that way: no implementation on its link line; its wgpu* references, and
# libwgprof's, are resolved lazily against the library loaded at run time.
# tests/check_webgpu_symbols.sh checks instead that every one of them is in both implementations.
if(NOT TARGET wgprof_webgpu_loader)
  add_library(wgprof_webgpu_loader STATIC ${PROJECT_SOURCE_DIR}/tools/webgpu_loader.c)
  target_include_directories(wgprof_webgpu_loader PUBLIC ${PROJECT_SOURCE_DIR}/tools)
  target_compile_options(wgprof_webgpu_loader PRIVATE ${WGPROF_WARNINGS})
  target_compile_definitions(wgprof_webgpu_loader PRIVATE
    WGPROF_WGPU_NATIVE_LIBRARY="${WGPROF_WGPU_NATIVE_LIBRARY}" WGPROF_DAWN_LIBRARY="${WGPROF_DAWN_LIBRARY}")
  target_link_libraries(wgprof_webgpu_loader PUBLIC ${CMAKE_DL_LIBS})
  add_library(wgprof_webgpu_autoload OBJECT ${PROJECT_SOURCE_DIR}/tools/webgpu_autoload.c)
  target_compile_options(wgprof_webgpu_autoload PRIVATE ${WGPROF_WARNINGS})
  target_include_directories(wgprof_webgpu_autoload PRIVATE ${PROJECT_SOURCE_DIR}/tools)

  function(wgprof_loads_webgpu target)
    # wgpu* references are weak (cmake/webgpu_weak.cmake); libwgprof's are left to the dynamic
    # linker too; -z lazy binds them at the first call, after the implementation is loaded (the
    # default of most toolchains, said here for those that bind at load).
    target_link_options(${target} PRIVATE -Wl,--allow-shlib-undefined -Wl,-z,lazy)
    target_link_libraries(${target} PRIVATE wgprof_webgpu_loader)
  endfunction()
  function(wgprof_autoloads_webgpu target)
    wgprof_loads_webgpu(${target})
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:wgprof_webgpu_autoload>)
  endfunction()
endif()
