# SuiteOptions::seed (ctest gtest_suite.seed):  cmake -DSUITE=<gtest_suite_test> -P seed_test.cmake
# The suite's properties on a DynamicStitch that digests every case it is given: two runs with
# the default seed (1) see the same cases, OPCONFORM_SEED=2 other ones; the seed is printed,
# by the suite and by RapidCheck; a seed that is not a number fails.

# Runs the properties with `env` (NAME=VALUE...); sets `digest` and `output`.
function(run_suite)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=RC_PARAMS OPCONFORM_SUITE_TABLE=recording ${ARGN}
                          ${SUITE} --gtest_filter=Suite/Properties.*
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the suite failed (exit ${rc}):\n${out}${err}")
  endif()
  if(NOT out MATCHES "recorded ([1-9][0-9]*) cases, digest ([0-9a-f]+)")
    message(FATAL_ERROR "no digest in the output:\n${out}${err}")
  endif()
  message(STATUS "${ARGN}: ${CMAKE_MATCH_1} cases, digest ${CMAKE_MATCH_2}")
  set(digest ${CMAKE_MATCH_2} PARENT_SCOPE)
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

run_suite()
set(first ${digest})
foreach(pattern "opconform::gtest Suite: recording stitch, seed 1 \\(SuiteOptions::seed" "Using configuration: seed=1\n")
  if(NOT output MATCHES "${pattern}")
    message(FATAL_ERROR "the default run does not print /${pattern}/:\n${output}")
  endif()
endforeach()
run_suite()
if(NOT digest STREQUAL first)
  message(FATAL_ERROR "the same seed drew other cases: digest ${first}, then ${digest}")
endif()
run_suite(OPCONFORM_SEED=2)
if(NOT output MATCHES "seed 2 \\(OPCONFORM_SEED")
  message(FATAL_ERROR "OPCONFORM_SEED=2 is not printed:\n${output}")
endif()
if(digest STREQUAL first)
  message(FATAL_ERROR "OPCONFORM_SEED=2 drew the same cases as seed 1 (digest ${digest})")
endif()

# A seed that is not a number is a failing test, not a silent default.
execute_process(COMMAND ${CMAKE_COMMAND} -E env OPCONFORM_SEED=12abc ${SUITE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT out MATCHES "OPCONFORM_SEED=12abc is not a seed")
  message(FATAL_ERROR "OPCONFORM_SEED=12abc: exit ${rc}, expected a failing test naming it:\n${out}${err}")
endif()
