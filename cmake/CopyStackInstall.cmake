# Installation (docs/install.md): the drivers, the plugins, the static and
# shared runtime, the headers, the CMake package, the pkg-config files, the
# documentation and the gdb extension, in the GNUInstallDirs layout:
#
#   bin/copystack-cc, copystack-c++           the drivers (tools/installed/)
#   lib/copystack/CopyStack.so                clang -fplugin= / -fpass-plugin=
#   lib/copystack/CopyStack-clang19.so        the plugin CopyStack.so loads
#   lib/copystack/CopyStackPasses.so          opt -load-pass-plugin=
#   lib/copystack/aarch64-linux-gnu/          the AArch64 runtime, when built
#   lib/libcopystack.a, libcopystack.so.*     the runtime
#   lib/libcopystack_static.a                 the runtime of -static(-pie)
#   lib/libcopystack_main.a                   main as the first task
#   lib/libcopystack_stub.a                   instrumented libraries' __morestack
#   include/copystack/                        copystack.h(pp), abi.h, version.h
#   lib/cmake/copystack/                      find_package(copystack)
#   lib/pkgconfig/copystack*.pc               pkg-config
#   share/doc/copystack/                      README.md, docs/, examples/
#   share/copystack/gdb/                      tools/gdb/*.py, when there are any
#
# Whatever is installed finds the rest relative to itself (the drivers from
# their own directory, the CMake package from its file, the pkg-config files
# through ${pcfiledir}), so an installed prefix can be moved. The rules name
# the targets and leave their sources to the directories that define them.
include(CMakePackageConfigHelpers)

# 0.x releases may change the runtime's ABI with any minor version.
set_target_properties(copystack_shared PROPERTIES VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

# Names in the CMake package: copystack::runtime and so on.
set_target_properties(copystack PROPERTIES EXPORT_NAME runtime)
set_target_properties(copystack_static PROPERTIES EXPORT_NAME runtime_static)
set_target_properties(copystack_shared PROPERTIES EXPORT_NAME runtime_shared)
set_target_properties(copystack_main PROPERTIES EXPORT_NAME main)
set_target_properties(copystack_stub PROPERTIES EXPORT_NAME stub)
set_target_properties(CopyStack PROPERTIES EXPORT_NAME plugin)
set_target_properties(CopyStackPasses PROPERTIES EXPORT_NAME pass_plugin)

install(TARGETS copystack copystack_static copystack_shared copystack_main
        copystack_stub
  EXPORT copystackTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS CopyStack CopyStackPasses
  EXPORT copystackTargets
  LIBRARY DESTINATION ${COPYSTACK_INSTALL_PLUGINDIR})
# What CopyStack.so loads from its own directory (plugin/Shim.c).
install(TARGETS CopyStackClang
  LIBRARY DESTINATION ${COPYSTACK_INSTALL_PLUGINDIR})
# The AArch64 runtime scripts/build cross-builds beside this build, for the
# installed drivers' --target=aarch64-linux-gnu (docs/porting.md), when it
# was built.
# The shared one is a component of its own, which the Debian package (an
# amd64 package: no AArch64 ELF file in it) leaves out
# (cmake/CopyStackPackaging.cmake).
if(COPYSTACK_AARCH64_BUILD)
  install(DIRECTORY ${COPYSTACK_AARCH64_BUILD}/lib/
    DESTINATION ${COPYSTACK_INSTALL_PLUGINDIR}/aarch64-linux-gnu
    OPTIONAL FILES_MATCHING PATTERN "libcopystack*.a")
  install(DIRECTORY ${COPYSTACK_AARCH64_BUILD}/lib/
    DESTINATION ${COPYSTACK_INSTALL_PLUGINDIR}/aarch64-linux-gnu
    COMPONENT aarch64_shared
    OPTIONAL FILES_MATCHING PATTERN "libcopystack.so")
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/copystack
                  ${COPYSTACK_GENERATED_INCLUDE}/copystack
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

install(PROGRAMS ${PROJECT_BINARY_DIR}/tools/installed/copystack-cc
                 ${PROJECT_BINARY_DIR}/tools/installed/copystack-c++
  DESTINATION ${CMAKE_INSTALL_BINDIR})

# --- find_package(copystack) -------------------------------------------------
set(COPYSTACK_CMAKE_STAGE ${PROJECT_BINARY_DIR}/cmake)
configure_package_config_file(cmake/copystackConfig.cmake.in
  ${COPYSTACK_CMAKE_STAGE}/copystackConfig.cmake
  INSTALL_DESTINATION ${COPYSTACK_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
# A 0.x minor version may break what the previous one offered.
write_basic_package_version_file(${COPYSTACK_CMAKE_STAGE}/copystackConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(EXPORT copystackTargets NAMESPACE copystack::
  DESTINATION ${COPYSTACK_INSTALL_CMAKEDIR})
install(FILES ${COPYSTACK_CMAKE_STAGE}/copystackConfig.cmake
              ${COPYSTACK_CMAKE_STAGE}/copystackConfigVersion.cmake
              cmake/copystackInstrument.cmake
  DESTINATION ${COPYSTACK_INSTALL_CMAKEDIR})

# --- pkg-config --------------------------------------------------------------
# The .pc files live in <libdir>/pkgconfig and reach the prefix from there.
file(RELATIVE_PATH COPYSTACK_PC_TO_PREFIX
     ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" COPYSTACK_PC_TO_PREFIX "${COPYSTACK_PC_TO_PREFIX}")
list(TRANSFORM COPYSTACK_EXPORTED_SYMBOLS PREPEND "-Wl,--export-dynamic-symbol="
     OUTPUT_VARIABLE COPYSTACK_PC_EXPORT_OPTIONS)
list(JOIN COPYSTACK_PC_EXPORT_OPTIONS " " COPYSTACK_PC_EXPORT_OPTIONS)
list(TRANSFORM COPYSTACK_WRAPPED_SYMBOLS PREPEND "-Wl,--wrap="
     OUTPUT_VARIABLE COPYSTACK_PC_WRAP_OPTIONS)
list(JOIN COPYSTACK_PC_WRAP_OPTIONS " " COPYSTACK_PC_WRAP_OPTIONS)
foreach(pc copystack copystack-main copystack-shared copystack-static)
  configure_file(cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# --- Documentation, examples, gdb --------------------------------------------
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs examples DESTINATION ${CMAKE_INSTALL_DOCDIR}
  PATTERN man EXCLUDE)

# Manual pages (docs/man), compressed as Debian's policy wants them:
# copystack-cc(1), copystack-c++(1) (a .so of the first), copystack(7).
set(COPYSTACK_MAN_GZ)
foreach(page copystack-cc.1 copystack-c++.1 copystack.7)
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${page})
  set(gz ${PROJECT_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${gz}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND sh -c "gzip -9n -c \"$0\" > \"$1\"" ${PROJECT_SOURCE_DIR}/docs/man/${page} ${gz}
    DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/${page}
    VERBATIM)
  list(APPEND COPYSTACK_MAN_GZ ${gz})
  install(FILES ${gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(copystack_man ALL DEPENDS ${COPYSTACK_MAN_GZ})
# Read when installing: nothing to install until tools/gdb/ exists.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tools/gdb/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/copystack/gdb
  OPTIONAL FILES_MATCHING PATTERN "*.py")
