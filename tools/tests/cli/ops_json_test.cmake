# `opconform ops --json` must print exactly corpus/ops.json (the committed registry export).
execute_process(COMMAND ${OPCONFORM} ops --json OUTPUT_VARIABLE actual RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "opconform ops --json exited ${rc}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "corpus/ops.json is not what `opconform ops --json` prints: regenerate it with\n"
                      "  opconform ops --json > corpus/ops.json\n--- printed:\n${actual}")
endif()
