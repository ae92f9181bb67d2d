# `make install` (and `cmake --install`, DESTDIR honoured) and the paths the package takes.
include(GNUInstallDirs)
# Relative to the prefix, so that a package and DESTDIR both relocate it; with the prefix /usr
# it is /usr/lib/systemd/system, where systemd reads packaged units (Debian 12 has merged /usr).
set(HUGETUNE_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "systemd system unit directory, relative to the install prefix")

configure_file(systemd/hugetune-verify.service.in
               ${CMAKE_BINARY_DIR}/systemd/hugetune-verify.service @ONLY)
configure_file(systemd/verify-boot.in ${CMAKE_BINARY_DIR}/systemd/verify-boot @ONLY)
# Enabled by being in multi-user.target.wants of the package itself: no maintainer script, and
# nothing runs at install; the unit starts at the next boot, and only with an apply ledger.
# `systemctl mask hugetune-verify.service` turns it off.
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/systemd/multi-user.target.wants)
file(CREATE_LINK ../hugetune-verify.service
     ${CMAKE_BINARY_DIR}/systemd/multi-user.target.wants/hugetune-verify.service SYMBOLIC)

# Who answers for the package: its Maintainer field, the changelog's signature and the
# copyright file's contact. The project has no mail address of its own yet; this placeholder
# is in a domain reserved for examples (RFC 2606), which lintian accepts (its bogus-mail-host
# refuses a host that is not a domain name, such as localhost). A packager sets their own.
set(HUGETUNE_PACKAGE_MAINTAINER "hugetune developers <hugetune@lists.example.org>" CACHE STRING
    "Maintainer of the Debian package, as 'name <address>'")

# The two files Debian policy asks of every package (12.5, 12.7), in usr/share/doc/hugetune:
# the copyright file in the machine-readable format, and the changelog made from CHANGELOG.md
# (cmake/DebianChangelog.cmake). The stamp holds what the changelog takes from the
# configuration, and is written only when that changes, so a new commit remakes it.
configure_file(packaging/copyright.in ${CMAKE_BINARY_DIR}/debian/copyright @ONLY)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.inputs
     CONTENT "@HUGETUNE_PACKAGE_MAINTAINER@\n@HUGETUNE_COMMIT_EPOCH@\n" @ONLY)
set(HUGETUNE_DEBIAN_CHANGELOG ${CMAKE_BINARY_DIR}/debian/changelog.gz)
add_custom_command(
  OUTPUT ${HUGETUNE_DEBIAN_CHANGELOG}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${PROJECT_SOURCE_DIR}/CHANGELOG.md
          -DOUTPUT=${HUGETUNE_DEBIAN_CHANGELOG} -DPACKAGE=${PROJECT_NAME}
          -DMAINTAINER=${HUGETUNE_PACKAGE_MAINTAINER} -DUNRELEASED_EPOCH=${HUGETUNE_COMMIT_EPOCH}
          -DGZIP=${HUGETUNE_GZIP} -P ${PROJECT_SOURCE_DIR}/cmake/DebianChangelog.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/CHANGELOG.md ${PROJECT_SOURCE_DIR}/cmake/DebianChangelog.cmake
          ${CMAKE_BINARY_DIR}/debian/changelog.inputs
  COMMENT "Debian changelog" VERBATIM)
add_custom_target(debian_changelog ALL DEPENDS ${HUGETUNE_DEBIAN_CHANGELOG})

# What the install rules below take from the build: the binary and the files made from it and
# from the sources. `make build` builds this target alone (not the tests, which `make test`
# builds with everything), and `make install` then installs without building more.
add_custom_target(installable DEPENDS hugetune generated_docs debian_changelog)

install(TARGETS hugetune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# A stripped install (`cmake --install --strip`, and the package: CPACK_STRIP_FILES) also drops
# what strip keeps by default and no program reads: the compilers' version strings (.comment)
# and .note, as Debian's dh_strip does (lintian's binary-has-unneeded-section).
set(installed_binary "\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/hugetune")
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --remove-section=.comment --remove-section=.note
                            \"${installed_binary}\" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR \"${CMAKE_STRIP} --remove-section=.comment ${installed_binary}: \${rc}\")
    endif()
  endif()")
install(FILES ${HUGETUNE_MAN_PAGES_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
install(FILES ${HUGETUNE_COMPLETION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CMAKE_BINARY_DIR}/systemd/hugetune-verify.service
        DESTINATION ${HUGETUNE_SYSTEMD_UNIT_DIR})
install(FILES ${CMAKE_BINARY_DIR}/systemd/multi-user.target.wants/hugetune-verify.service
        DESTINATION ${HUGETUNE_SYSTEMD_UNIT_DIR}/multi-user.target.wants)
install(PROGRAMS ${CMAKE_BINARY_DIR}/systemd/verify-boot
        DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hugetune)
install(FILES model/documents/schema/report.schema.json model/documents/schema/sweep.schema.json
              model/documents/schema/boot-record.schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/hugetune/schema)
# The PostgreSQL role that may only add boot records (docs/fleet.md "The boot writer role").
install(FILES fleet_db/sql/boot-writer-role.sql DESTINATION ${CMAKE_INSTALL_DATADIR}/hugetune/sql)
# Rules for Prometheus, which a site names in its prometheus.yml (docs/fleet.md "Prometheus
# rules"): data for another program, not a configuration of this package.
install(FILES packaging/prometheus/hugetune-rules.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/hugetune/prometheus)
install(FILES README.md CHANGELOG.md docs/kernel-facts.md docs/sweep-format.md docs/fleet.md
              ${CMAKE_BINARY_DIR}/debian/copyright ${HUGETUNE_DEBIAN_CHANGELOG}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The tags lintian gets wrong for this package, each with the reason.
install(FILES packaging/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME hugetune)
