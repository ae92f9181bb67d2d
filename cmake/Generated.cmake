# What the build makes from the option definitions by running the built binary: the man pages
# (one per template in docs/man/, hugetune-COMMAND.8.in) and the bash completion script. So a
# new option is in both without being written twice; a new command needs its page's prose.
# Each page is also compressed, as it is installed (Debian policy 12.1, lintian's
# uncompressed-manual-page): gzip -9n leaves the name and time out of the header, so the same
# sources give the same bytes. The tests read the plain pages.
find_program(HUGETUNE_GZIP gzip REQUIRED)
# A cross build runs the binary under its emulator (cmake/toolchain-aarch64-linux-gnu.cmake).
string(REPLACE ";" "," HUGETUNE_RUNNER "${CMAKE_CROSSCOMPILING_EMULATOR}")
file(GLOB HUGETUNE_MAN_TEMPLATES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.8.in)
set(HUGETUNE_MAN_PAGES "")
set(HUGETUNE_MAN_PAGES_GZ "")
foreach(template ${HUGETUNE_MAN_TEMPLATES})
  get_filename_component(page ${template} NAME_WLE)
  string(REGEX REPLACE "^hugetune-?(.*)\\.8$" "\\1" command "${page}")
  set(output ${CMAKE_BINARY_DIR}/man/${page})
  add_custom_command(
    OUTPUT ${output} ${output}.gz
    COMMAND ${CMAKE_COMMAND} -DHUGETUNE=$<TARGET_FILE:hugetune> -DCOMMAND=${command}
            -DTEMPLATE=${template} -DOUTPUT=${output} -DVERSION=${PROJECT_VERSION}
            -DRUNNER=${HUGETUNE_RUNNER}
            -P ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
    COMMAND ${HUGETUNE_GZIP} -9nkf ${output}
    DEPENDS hugetune ${template} ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
    COMMENT "man page ${page}" VERBATIM)
  list(APPEND HUGETUNE_MAN_PAGES ${output})
  list(APPEND HUGETUNE_MAN_PAGES_GZ ${output}.gz)
endforeach()

set(HUGETUNE_COMPLETION ${CMAKE_BINARY_DIR}/completion/hugetune)
add_custom_command(
  OUTPUT ${HUGETUNE_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/completion
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:hugetune> -DARGUMENT=--bash-completion
          -DOUTPUT=${HUGETUNE_COMPLETION} -DRUNNER=${HUGETUNE_RUNNER}
          -P ${PROJECT_SOURCE_DIR}/cmake/RunToFile.cmake
  DEPENDS hugetune ${PROJECT_SOURCE_DIR}/cmake/RunToFile.cmake
  COMMENT "bash completion" VERBATIM)

add_custom_target(generated_docs ALL DEPENDS ${HUGETUNE_MAN_PAGES_GZ} ${HUGETUNE_COMPLETION})
