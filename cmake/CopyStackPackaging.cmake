# cpack -G DEB (in the build directory): a Debian package of what
# cmake/CopyStackInstall.cmake installs, under /usr (docs/install.md).
# The plugin loads into clang-19 and the drivers run it, so the package
# depends on it; clang-19 brings libLLVM, libclang-cpp, the C and C++
# development files and binutils. glibc 2.35 for _dl_find_object.
set(CPACK_GENERATOR DEB)
# One package of everything installed but the AArch64 shared runtime, an
# ELF file of another architecture than the package's
# (cmake/CopyStackInstall.cmake).
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};copystack;Unspecified;/")
set(CPACK_PACKAGE_NAME copystack)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Who maintains the package, and its Debian copyright file: a packager's
# to give. Until the project names a maintainer and a licence, the
# defaults leave lintian's bogus-mail-host, no-copyright-file and
# no-changelog (whose entries need the maintainer) as its only errors;
# with both given, lintian finds none (scripts/test-install checks both).
set(COPYSTACK_PLACEHOLDER_MAINTAINER
    "copystack maintainers <copystack@localhost>")
set(COPYSTACK_PACKAGE_MAINTAINER "${COPYSTACK_PLACEHOLDER_MAINTAINER}"
    CACHE STRING "The Debian package's Maintainer field")
set(COPYSTACK_PACKAGE_COPYRIGHT "" CACHE FILEPATH
    "A debian/copyright file to install as the package's copyright file")
set(CPACK_PACKAGE_CONTACT "${COPYSTACK_PACKAGE_MAINTAINER}")
if(COPYSTACK_PACKAGE_COPYRIGHT)
  install(FILES "${COPYSTACK_PACKAGE_COPYRIGHT}"
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/copystack
          RENAME copyright)
endif()
# The package's changelog (changelog.gz: a native package, whose version
# is the project's), one entry signed by the maintainer: written only
# when a packager names one, as an entry signed by the placeholder would
# be as bogus as its address. Dated SOURCE_DATE_EPOCH when that is set
# (string(TIMESTAMP) reads it), for reproducible packages.
if(NOT COPYSTACK_PACKAGE_MAINTAINER STREQUAL COPYSTACK_PLACEHOLDER_MAINTAINER)
  string(TIMESTAMP _cs_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
  file(WRITE ${PROJECT_BINARY_DIR}/debian/changelog
       "copystack (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
       "  * copystack ${PROJECT_VERSION}.\n\n"
       " -- ${COPYSTACK_PACKAGE_MAINTAINER}  ${_cs_changelog_date}\n")
  execute_process(COMMAND gzip -9nc changelog
                  OUTPUT_FILE changelog.gz
                  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/debian
                  RESULT_VARIABLE _cs_gzip)
  if(NOT _cs_gzip EQUAL 0)
    message(FATAL_ERROR "gzip of the package's changelog failed")
  endif()
  install(FILES ${PROJECT_BINARY_DIR}/debian/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/copystack)
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Go-style copyable stacks for C and C++ (clang ${LLVM_VERSION_MAJOR} plugin and runtime)")
set(CPACK_PACKAGE_DESCRIPTION
    "Tasks start on 2 KiB stacks that grow by copying, as goroutines do: a clang plugin instruments the code, a runtime moves the stacks and schedules the tasks. Drivers copystack-cc and copystack-c++, a CMake package and pkg-config files.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Debian's llvm-toolchain packages carry epoch 1.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "clang-${LLVM_VERSION_MAJOR} (>= 1:${LLVM_VERSION_MAJOR}.${LLVM_VERSION_MINOR}), libc6 (>= 2.35), libstdc++6, libgcc-s1")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "lld-${LLVM_VERSION_MAJOR}, pkg-config, cmake")
# Shared objects stripped, their debug info in copystack-dbgsym (a .ddeb,
# found by gdb and llvm-symbolizer through the build id); a shlibs file
# for packages that link libcopystack.so.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# libcopystack.so goes into the dynamic linker's cache.
file(WRITE ${PROJECT_BINARY_DIR}/debian/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian/triggers)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "__pycache__")
include(CPack)
