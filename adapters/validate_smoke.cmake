# ctest driver: runs `opconform validate` against one adapter with a small budget and checks
# that the run is clean — exit 0 (conforms) or 1 (failures found, expected for third-party
# libraries), never 2 (load failure / unusable) or a signal — and that the JSON report exists.
# -DOPCONFORM=<exe> -DIMPL=<--impl value> -DREPORT=<json path> [-DOPS=A,B]
file(REMOVE ${REPORT})
set(ops_args)
if(OPS)
  set(ops_args --ops ${OPS})
endif()
# A fixed seed: the same cases on every run (a random one made the budget and outcome vary).
# Shrinking is capped so that a library that fails many cases still ends well inside the
# ctest TIMEOUT; --timeout bounds a hanging case.
execute_process(COMMAND ${OPCONFORM} validate --impl ${IMPL} ${ops_args} --cases 40 --seed 1 --timeout 20
                        --max-shrink-runs 20 --json ${REPORT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT (rc STREQUAL "0" OR rc STREQUAL "1"))
  message(FATAL_ERROR "opconform validate ended with '${rc}' (want 0 or 1)")
endif()
if(NOT EXISTS ${REPORT})
  message(FATAL_ERROR "no report written at ${REPORT}")
endif()
file(SIZE ${REPORT} report_size)
if(report_size EQUAL 0)
  message(FATAL_ERROR "empty report ${REPORT}")
endif()
