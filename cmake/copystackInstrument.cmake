# copystack_instrument(<target> [NO_MAIN] [SHARED_RUNTIME|STATIC_LINK]): what
# the copystack-cc driver (tools/copystack-cc.in) does, for a CMake target.
# Installed with the CMake package; copystackConfig.cmake includes it.
#
#   compiling        the plugin, -D__COPYSTACK__=1, copystack's headers
#   an executable    links the whole static runtime and exports it (for the
#                    instrumented libraries it loads), and runs main as the
#                    first task. NO_MAIN keeps main on the thread's stack;
#                    SHARED_RUNTIME links libcopystack.so instead;
#                    STATIC_LINK, for an executable linked with -static or
#                    -static-pie, links libcopystack_static.a and wraps its
#                    interposers (-Wl,--wrap=) instead of exporting them
#   a shared library links libcopystack.so: one runtime per process, the
#   or module        executable's when it has one
#   a static or      compiling only: whatever links it brings the runtime
#   object library   (an instrumented executable, or libcopystack.so)
#
# The plugin loads into the clang it was built for: the target's C and C++
# compilers must be clang of that major version (CC=clang-19 CXX=clang++-19).
# Must match tools/copystack-cc.in.
function(copystack_instrument target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_MAIN;SHARED_RUNTIME;STATIC_LINK"
                        "" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "copystack_instrument(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_SHARED_RUNTIME AND arg_STATIC_LINK)
    message(FATAL_ERROR "copystack_instrument(${target}): SHARED_RUNTIME "
      "links libcopystack.so, which a STATIC_LINK executable cannot load")
  endif()
  if(CMAKE_VERSION VERSION_LESS 3.24)
    message(FATAL_ERROR "copystack_instrument(${target}) needs CMake 3.24 "
      "($<LINK_LIBRARY:WHOLE_ARCHIVE,...>); this is ${CMAKE_VERSION}")
  endif()

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(lang C CXX)
    if(NOT lang IN_LIST languages)
      continue()
    endif()
    set(compiler ${CMAKE_${lang}_COMPILER})
    get_filename_component(name ${compiler} NAME)
    if(name MATCHES "^copystack-")
      message(FATAL_ERROR "copystack_instrument(${target}): the ${lang} "
        "compiler is already a copystack driver (${compiler}); use either "
        "the driver or copystack_instrument, not both")
    endif()
    set(version ${CMAKE_${lang}_COMPILER_VERSION})
    string(REGEX MATCH "^[0-9]+" major "${version}")
    if(NOT CMAKE_${lang}_COMPILER_ID STREQUAL "Clang" OR
       NOT major EQUAL COPYSTACK_CLANG_VERSION_MAJOR)
      message(FATAL_ERROR "copystack_instrument(${target}): the copystack "
        "plugin loads into clang ${COPYSTACK_CLANG_VERSION_MAJOR} (built for "
        "${COPYSTACK_CLANG_VERSION}); the ${lang} compiler is "
        "${CMAKE_${lang}_COMPILER_ID} ${version} (${compiler}). Configure with "
        "CC=clang-${COPYSTACK_CLANG_VERSION_MAJOR} "
        "CXX=clang++-${COPYSTACK_CLANG_VERSION_MAJOR}.")
    endif()
  endforeach()

  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fplugin=$<TARGET_FILE:copystack::plugin>>")
  # AArch64, the port in progress (docs/porting.md): what the drivers pass
  # for it, the plugin's consent and return addresses never signed.
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:-mllvm -copystack-experimental-aarch64>"
      "$<$<COMPILE_LANGUAGE:C,CXX>:-mbranch-protection=none>")
  endif()
  target_compile_definitions(${target} PRIVATE __COPYSTACK__=1)
  target_include_directories(${target} PRIVATE
    $<TARGET_PROPERTY:copystack::runtime,INTERFACE_INCLUDE_DIRECTORIES>)

  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    if(NOT arg_NO_MAIN)
      # -u main: main may come from a static library (gtest_main).
      target_link_options(${target} PRIVATE "LINKER:-u,main" "LINKER:--wrap=main")
      target_link_libraries(${target} PRIVATE copystack::main)
    endif()
    if(arg_SHARED_RUNTIME)
      target_link_libraries(${target} PRIVATE copystack::runtime_shared)
    elseif(arg_STATIC_LINK)
      target_link_libraries(${target} PRIVATE
        "$<LINK_LIBRARY:WHOLE_ARCHIVE,copystack::runtime_static>")
      foreach(symbol IN LISTS COPYSTACK_WRAPPED_SYMBOLS)
        target_link_options(${target} PRIVATE "LINKER:--wrap=${symbol}")
      endforeach()
    else()
      target_link_libraries(${target} PRIVATE
        "$<LINK_LIBRARY:WHOLE_ARCHIVE,copystack::runtime>")
      foreach(symbol IN LISTS COPYSTACK_EXPORTED_SYMBOLS)
        target_link_options(${target} PRIVATE
          "LINKER:--export-dynamic-symbol=${symbol}")
      endforeach()
    endif()
  elseif(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    target_link_libraries(${target} PRIVATE copystack::runtime_shared)
  elseif(NOT type STREQUAL "STATIC_LIBRARY" AND
         NOT type STREQUAL "OBJECT_LIBRARY")
    message(FATAL_ERROR
      "copystack_instrument(${target}): cannot instrument a ${type}")
  endif()
  if(NOT type MATCHES "^(STATIC|OBJECT)_LIBRARY$")
    # The runtime is C++; -z now: no lazy binding on a task stack
    # (tools/copystack-cc.in says why).
    target_link_libraries(${target} PRIVATE stdc++)
    target_link_options(${target} PRIVATE "LINKER:-z,now")
  endif()
endfunction()
