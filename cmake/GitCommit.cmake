# HUGETUNE_COMMIT: the short hash of the commit the sources were configured from, "unknown"
# outside a git tree (a release tarball). A new commit or checkout re-runs the configuration,
# so the hash follows HEAD without a rebuild of everything: only build_info.cpp changes.
# HUGETUNE_COMMIT_EPOCH: that commit's time in seconds since 1970, the date of the package
# changelog's unreleased entry (cmake/DebianChangelog.cmake); outside a git tree the time of the
# configuration, or SOURCE_DATE_EPOCH when set.
find_package(Git QUIET)
set(HUGETUNE_COMMIT "unknown")
string(TIMESTAMP HUGETUNE_COMMIT_EPOCH "%s" UTC)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=7 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE git_commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE git_result ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} log -1 --format=%ct HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE git_epoch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(git_result EQUAL 0 AND git_commit MATCHES "^[0-9a-f]+$")
    set(HUGETUNE_COMMIT "${git_commit}")
    if(git_epoch MATCHES "^[0-9]+$")
      set(HUGETUNE_COMMIT_EPOCH "${git_epoch}")
    endif()
    foreach(head_file "${git_dir}/HEAD" "${git_dir}/logs/HEAD")
      if(EXISTS "${head_file}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${head_file}")
      endif()
    endforeach()
  endif()
endif()
