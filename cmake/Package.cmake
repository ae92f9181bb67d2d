# `make package`: a Debian package by CPack from the installed tree (cmake/Install.cmake).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hugetune)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "measures huge page allocation and recommends hugepage_alloc_threads=")
# One string: set() with several would join them with ';'. Each line goes into the control
# file after a space and must fit 80 columns (lintian's extended-description-line-too-long).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "hugetune measures how fast the running kernel allocates and zeroes huge pages\n"
       "at several thread counts per NUMA node, predicts the boot allocation time of\n"
       "the huge page pool and recommends the boot parameter hugepage_alloc_threads=;\n"
       "it applies the value to the boot loader configuration with rollback and\n"
       "verifies it after the reboot.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/package)
# No debug info in the package: the Release build has none of its own, and stripping removes
# the symbol table as well (and .comment, cmake/Install.cmake).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HUGETUNE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Dependencies from the shared libraries the binary links (dpkg-shlibdeps, from dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A cross build (`make package-arm64`) packages for its target, not for the machine that builds:
# the architecture field, and dpkg-shlibdeps told the target's Debian architecture
# (DEB_HOST_ARCH), so it reads the binary with the cross objdump and takes the dependencies
# from the target's multiarch libraries and their packages' shlibs and symbols files
# (libc6:arm64 ...). cpack reads the project config file when it runs, so a plain `cpack` in
# the cross build directory does the same.
if(CMAKE_CROSSCOMPILING)
  if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
    set(HUGETUNE_DEBIAN_ARCH arm64)
  else()
    message(FATAL_ERROR "no Debian architecture known for ${CMAKE_SYSTEM_PROCESSOR}")
  endif()
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${HUGETUNE_DEBIAN_ARCH})
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/CPackProjectConfig.cmake
       CONTENT "set(ENV{DEB_HOST_ARCH} @HUGETUNE_DEBIAN_ARCH@)\n" @ONLY)
  set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/CPackProjectConfig.cmake)
endif()
# The completion is loaded by bash-completion, which an interactive bash lacks without it.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion")
# Used when present: plots (gnuplot), the boot sweep (kexec), the manual pages (man-db).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnuplot-nox, kexec-tools, man-db")
# One maintainer script: prerm says, at removal, what an apply left in the boot configuration
# and how to undo it (packaging/prerm). Installed 0755 whatever the checkout's mode.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)

# `make rpm`: the RHEL family's package, by rpmbuild from BUILD/rpm/hugetune.spec, which is
# packaging/rpm/hugetune.spec.in with what the .deb takes from here and from packaging/prerm.
# rpm reads % as a macro in the description and the scriptlet: doubled, it stays a %.
function(hugetune_rpm_text text out)
  string(REPLACE "%" "%%" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
# A summary starts with a capital (rpmlint's summary-not-capitalized); Debian's synopsis does not.
string(SUBSTRING "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}" 0 1 first)
string(SUBSTRING "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}" 1 -1 rest)
string(TOUPPER "${first}" first)
hugetune_rpm_text("${first}${rest}" HUGETUNE_RPM_SUMMARY)
hugetune_rpm_text("${CPACK_PACKAGE_DESCRIPTION}" HUGETUNE_RPM_DESCRIPTION)
# The prerm from its first command on: rpm runs %preun with /bin/sh itself, and the comments
# above that speak of dpkg (the spec says how rpm calls it).
file(READ ${PROJECT_SOURCE_DIR}/packaging/prerm prerm)
string(REGEX REPLACE "^(#[^\n]*\n)+" "" prerm "${prerm}")
string(STRIP "${prerm}" prerm)
hugetune_rpm_text("${prerm}" HUGETUNE_RPM_PREUN)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/packaging/prerm)
# The changelog entry's date, the commit's (cmake/GitCommit.cmake), as rpm writes it.
execute_process(COMMAND date -u -d "@${HUGETUNE_COMMIT_EPOCH}" "+%a %b %d %Y"
                OUTPUT_VARIABLE HUGETUNE_RPM_CHANGELOG_DATE OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "date -d @${HUGETUNE_COMMIT_EPOCH} failed (${rc})")
endif()
configure_file(packaging/rpm/hugetune.spec.in ${CMAKE_BINARY_DIR}/rpm/hugetune.spec @ONLY)
