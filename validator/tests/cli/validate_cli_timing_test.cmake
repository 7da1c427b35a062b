# `opconform validate --time` from the command line, timed (ctest labels "cli;timing", which the
# default test presets leave out):
#   cmake -DOPCONFORM=<exe> -DDATA=<validator/tests/data> -DWORK=<scratch> -DFAKE_HANG=<.so>
#         -P validate_cli_timing_test.cmake
# --time bounds the whole run, also when every case hangs.

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(k RANGE 1 10)
  file(COPY_FILE ${DATA}/stitch_int16.json ${WORK}/hang${k}.json)
endforeach()
string(TIMESTAMP started "%s")
execute_process(COMMAND ${OPCONFORM} validate --impl ${FAKE_HANG} --replay ${WORK} --time 2 --timeout 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${started}")
if(NOT rc STREQUAL 1 OR NOT "${out}${err}" MATCHES "the --time budget of 2 s was used up")
  message(FATAL_ERROR "validate --time 2: exit ${rc}, expected 1 and the budget named\n${out}${err}")
endif()
if(took GREATER 5)
  message(FATAL_ERROR "--time 2 took ${took} s")
endif()
