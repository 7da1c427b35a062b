# The command-line tests' helpers, included by validate_cli_test.cmake and xfail_cli_test.cmake
# (OPCONFORM and WORK set by the caller).

# Runs `command...` in `dir`; fails unless it exits with `rc` and its output matches every regex
# in `patterns`. Sets OUTPUT in the caller to stdout + stderr.
function(expect_in dir rc patterns)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${dir} RESULT_VARIABLE actual_rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  set(all "${out}${err}")
  set(OUTPUT "${all}" PARENT_SCOPE)
  if(NOT actual_rc STREQUAL rc)
    message(FATAL_ERROR "${ARGN}: exit ${actual_rc}, expected ${rc}\n${all}")
  endif()
  foreach(pattern IN LISTS patterns)
    if(NOT all MATCHES "${pattern}")
      message(FATAL_ERROR "${ARGN}: output lacks /${pattern}/\n${all}")
    endif()
  endforeach()
endfunction()

function(expect rc patterns)
  expect_in(${WORK} ${rc} "${patterns}" ${OPCONFORM} ${ARGN})
  set(OUTPUT "${OUTPUT}" PARENT_SCOPE)
endfunction()

function(require_file path pattern)
  if(NOT EXISTS ${path})
    message(FATAL_ERROR "${path} was not written")
  endif()
  file(READ ${path} text)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${path} lacks /${pattern}/\n${text}")
  endif()
endfunction()

# Fails when the last expect()'s output matches `pattern`.
function(lacks pattern)
  if(OUTPUT MATCHES "${pattern}")
    message(FATAL_ERROR "the output has /${pattern}/\n${OUTPUT}")
  endif()
endfunction()
