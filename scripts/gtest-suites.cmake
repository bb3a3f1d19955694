# Writes one ctest test per GoogleTest suite of a unit-test binary, named PREFIX + suite:
# cmake -D EXE=... -D OUT=... -D PREFIX=... -D LABEL=... -P gtest-suites.cmake, after each link.
# A sanitized binary takes most of a second to start, so one process per test case
# (gtest_discover_tests) spent more time starting than testing; one per suite keeps ctest's
# parallelism and still names the suite that failed.
execute_process(COMMAND "${EXE}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc})")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(script "")
foreach(line IN LISTS lines)
  # Suite lines start at column 0 and end with '.', before an optional "# TypeParam" comment.
  if(line MATCHES "^([^ #][^ ]*)\\.( +#.*)?$")
    set(suite "${CMAKE_MATCH_1}")
    set(name "${PREFIX}${suite}")
    string(APPEND script "add_test([=[${name}]=] [=[${EXE}]=] [=[--gtest_filter=${suite}.*]=])\n"
                         "set_tests_properties([=[${name}]=] PROPERTIES LABELS [=[${LABEL}]=])\n")
  endif()
endforeach()
if(script STREQUAL "")
  message(FATAL_ERROR "${EXE} lists no test suites")
endif()
file(WRITE "${OUT}" "${script}")
