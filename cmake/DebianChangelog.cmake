# The package's Debian changelog (usr/share/doc/hugetune/changelog.gz: Debian policy 12.7 asks
# one of every package, and a package that is its own upstream keeps it under that name) made
# from CHANGELOG.md, its one owner: a stanza per "## VERSION (DATE)" section, with the section's
# lead sentence and each "- " item as an entry, rewrapped to 80 columns (the figures' markers left
# out), then compressed with gzip -9n, which leaves the name and time out of the header, so the
# same sources give the same bytes. A section dated "unreleased" gets distribution UNRELEASED and the time UNRELEASED_EPOCH
# (the commit's, cmake/GitCommit.cmake).
#   cmake -DINPUT=CHANGELOG.md -DOUTPUT=changelog.gz -DPACKAGE=hugetune -DMAINTAINER="N <a@b.c>"
#         -DUNRELEASED_EPOCH=SECONDS -DGZIP=gzip -P DebianChangelog.cmake
# Text is taken apart with string(FIND) rather than as CMake lists, which would split at the
# semicolons and brackets the changelog's prose has.
cmake_policy(VERSION 3.25)
set(width 80)

# RFC 5322 date (the changelog's trailer) of `date -d WHEN`: "Tue, 01 Dec 2026 00:00:00 +0000".
function(rfc_date when out)
  execute_process(COMMAND date -u -R -d "${when}" OUTPUT_VARIABLE text
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "date -d ${when} failed (${rc}): not a date")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Appends to `stanza` the entry TEXT as lines of at most `width` columns: "  * " before the
# first, four spaces before the others.
function(append_entry text)
  # The figures' markers (docs/figures/README.md) are HTML comments, unseen in Markdown.
  string(REGEX REPLACE "<!-- [^>]* -->" "" text "${text}")
  string(REGEX REPLACE "[ \t\n]+" " " text "${text}")
  string(STRIP "${text}" text)
  set(lines "")
  set(line "  *")
  while(NOT text STREQUAL "")
    string(FIND "${text}" " " space)
    if(space EQUAL -1)
      set(word "${text}")
      set(text "")
    else()
      string(SUBSTRING "${text}" 0 ${space} word)
      math(EXPR next "${space} + 1")
      string(SUBSTRING "${text}" ${next} -1 text)
    endif()
    string(LENGTH "${line} ${word}" length)
    if(length GREATER width AND NOT line MATCHES "^ +\\*?$")
      string(APPEND lines "${line}\n")
      set(line "    ${word}")
    else()
      string(APPEND line " ${word}")
    endif()
  endwhile()
  string(APPEND lines "${line}\n")
  set(stanza "${stanza}${lines}" PARENT_SCOPE)
endfunction()

file(READ "${INPUT}" text)
set(output "")
set(stanza "")
set(entry "")
set(version "")

# flush_entry ends the open entry; flush_stanza ends it and the open stanza, with its trailer.
macro(flush_entry)
  if(NOT entry STREQUAL "")
    append_entry("${entry}")
    set(entry "")
  endif()
endmacro()
macro(flush_stanza)
  flush_entry()
  if(NOT version STREQUAL "")
    if(stanza STREQUAL "")
      message(FATAL_ERROR "${INPUT}: release ${version} says nothing")
    endif()
    string(APPEND output "${PACKAGE} (${version}) ${distribution}; urgency=medium\n\n"
           "${stanza}\n -- ${MAINTAINER}  ${date}\n\n")
    set(stanza "")
  endif()
endmacro()

while(NOT text STREQUAL "")
  string(FIND "${text}" "\n" eol)
  if(eol EQUAL -1)
    set(line "${text}")
    set(text "")
  else()
    string(SUBSTRING "${text}" 0 ${eol} line)
    math(EXPR next "${eol} + 1")
    string(SUBSTRING "${text}" ${next} -1 text)
  endif()
  if(line MATCHES "^## ([0-9][0-9.]*) \\((.*)\\)$")
    flush_stanza()
    set(version "${CMAKE_MATCH_1}")
    set(when "${CMAKE_MATCH_2}")
    if(when STREQUAL "unreleased")
      set(distribution UNRELEASED)
      rfc_date("@${UNRELEASED_EPOCH}" date)
    elseif(when MATCHES "^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$")
      set(distribution unstable)
      rfc_date("${when}" date)
    else()
      message(FATAL_ERROR "${INPUT}: release ${version} is dated '${when}', "
                          "neither YYYY-MM-DD nor unreleased")
    endif()
  elseif(line MATCHES "^#")
    flush_stanza()
    set(version "")
  elseif(version STREQUAL "")
    # The file's own introduction, before the first release.
  elseif(line MATCHES "^- (.*)$")
    flush_entry()
    set(entry "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^[ \t]*$")
    flush_entry()
  else()
    string(APPEND entry " ${line}")
  endif()
endwhile()
flush_stanza()
if(output STREQUAL "")
  message(FATAL_ERROR "${INPUT}: no release (a line '## VERSION (DATE)')")
endif()

string(REGEX REPLACE "\n\n$" "\n" output "${output}")
get_filename_component(plain "${OUTPUT}" NAME_WLE)
get_filename_component(directory "${OUTPUT}" DIRECTORY)
file(WRITE "${directory}/${plain}" "${output}")
execute_process(COMMAND "${GZIP}" -9n -c "${directory}/${plain}" OUTPUT_FILE "${OUTPUT}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "${GZIP} -9n ${directory}/${plain} failed (${rc})")
endif()
