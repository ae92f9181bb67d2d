# Every header compiles on its own: one generated translation unit per header, holding nothing
# but its #include, so a header that leans on what its includer happened to include first fails
# here, where the unity build (which joins sources) and a source that includes the header after
# others would both hide it. The headers are found by a glob evaluated again at each build
# (CONFIGURE_DEPENDS), so a new header is checked without being listed. Each unit is an object
# of one library that nothing links; ccache keeps the ones whose header did not change, and a
# failure fails the build. The units never join a unity batch, which would defeat the check.
file(GLOB_RECURSE HUGETUNE_CHECKED_HEADERS CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}
     ${PROJECT_SOURCE_DIR}/cli/*.hpp ${PROJECT_SOURCE_DIR}/tuner/*.hpp
     ${PROJECT_SOURCE_DIR}/model/*.hpp ${PROJECT_SOURCE_DIR}/reports/*.hpp
     ${PROJECT_SOURCE_DIR}/fleet_db/*.hpp ${PROJECT_SOURCE_DIR}/tests/*.hpp)
# In a tree that compiles each source on its own (no unity build), a header of the product with
# a source beside it of the same name is compiled alone already: that source includes it before
# anything else (tests/structure/check-includes.sh fails otherwise), so a header that leans on
# an include it lacks fails that source's compile. Only the others need a unit here: in make test
# 23 of 156 headers, which spares the Release tree 133 compiles of the heavy headers.
if(NOT CMAKE_UNITY_BUILD)
  set(unproven "")
  foreach(header ${HUGETUNE_CHECKED_HEADERS})
    string(REGEX REPLACE "\\.hpp$" ".cpp" source ${header})
    if(header MATCHES "^(cli|tuner|model|reports|fleet_db)/" AND EXISTS ${PROJECT_SOURCE_DIR}/${source})
      continue()
    endif()
    list(APPEND unproven ${header})
  endforeach()
  set(HUGETUNE_CHECKED_HEADERS ${unproven})
endif()
set(units "")
foreach(header ${HUGETUNE_CHECKED_HEADERS})
  set(unit ${CMAKE_BINARY_DIR}/header_check/${header}.cpp)
  # Written only when its text changes, so an unchanged unit is not compiled again.
  file(CONFIGURE OUTPUT ${unit} CONTENT "#include \"${header}\"\n" @ONLY)
  list(APPEND units ${unit})
endforeach()
add_library(hugetune_header_check OBJECT ${units})
set_target_properties(hugetune_header_check PROPERTIES UNITY_BUILD OFF)
# Every include path a header of ours may use: the project's, its libraries' dependencies',
# SOCI's and PostgreSQL's (fleet_db's private ones) and doctest's (the tests' support headers).
# Not our libraries themselves, which would make the check wait until they are built.
target_include_directories(hugetune_header_check PRIVATE ${PROJECT_SOURCE_DIR})
target_include_directories(hugetune_header_check SYSTEM PRIVATE ${SOCI_INCLUDE_DIR}
                           ${PostgreSQL_INCLUDE_DIR})
target_link_libraries(hugetune_header_check PRIVATE Eigen3::Eigen nlohmann_json::nlohmann_json
                      Boost::program_options doctest::doctest hugetune_warnings)
# What the tests' targets define for their support headers (tests/CMakeLists.txt).
target_compile_definitions(hugetune_header_check PRIVATE
                           HUGETUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# The units keep the tree's flags; they emit almost no code, so parsing the header is nearly all
# that each costs. `make test` turns the check on in the Release tree, whose product is built
# without unity, so that most headers are proven by their own source's compile (above).
# Built with what make test builds in that tree.
add_dependencies(shipped_tests hugetune_header_check)
