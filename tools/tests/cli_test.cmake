# The opconform command line's exit codes and messages (ctest "cli"):
#   cmake -DOPCONFORM=<exe> -DDATA=<tools/tests/cli> -DWORK=<scratch dir> -P cli_test.cmake
# DATA holds two vectors that load (one passes, one fails), one xla vector (skipped) and two
# bad files.

# Runs opconform with ARGN; fails unless it exits with `rc` and its output (stdout + stderr)
# matches every regex in `patterns`.
function(expect rc patterns)
  execute_process(COMMAND ${OPCONFORM} ${ARGN} RESULT_VARIABLE actual_rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(NOT actual_rc STREQUAL rc)
    message(FATAL_ERROR "opconform ${ARGN}: exit ${actual_rc}, expected ${rc}\n${all}")
  endif()
  foreach(pattern IN LISTS patterns)
    if(NOT all MATCHES "${pattern}")
      message(FATAL_ERROR "opconform ${ARGN}: output lacks /${pattern}/\n${all}")
    endif()
  endforeach()
endfunction()

file(MAKE_DIRECTORY ${WORK}/empty)
set(re_bad_length "BAD  [^\n]*bad_data_length.json: inputs.block_shape.data: 3 elements for shape \\[2,2\\] \\(needs 4\\)")
set(re_bad_json "BAD  [^\n]*bad_json.json: invalid JSON: parse error at line 2")
set(re_fail "FAIL [^\n]*good_fail.json \\(DynamicPartition, good_fail\\)\n  outputs\\[0\\]: 1 of 2 elements differ; first at \\[1\\]: expected nan, got nan\\(0x7fc00001\\)")
set(re_table "DynamicPartition +1 +1 +1\n")

# Bad files give exit 2 with file and field, and the good files in the same run are checked.
expect(2 "${re_bad_length};${re_bad_json};${re_fail};${re_table};bad files: 2" run ${DATA} --json ${WORK}/report.json)
file(READ ${WORK}/report.json report)
foreach(pattern "\"result\": \"pass\"" "\"result\": \"fail\"" "\"result\": \"skip\"" "\"bad\": 2"
                "\"file\": \"[^\"]*bad_data_length.json\",\n *\"result\": \"bad\"")
  if(NOT report MATCHES "${pattern}")
    message(FATAL_ERROR "report.json lacks /${pattern}/\n${report}")
  endif()
endforeach()

expect(0 "DynamicPartition +1 +0 +0" run ${DATA}/good_pass.json)
expect(0 "" run ${DATA}/good_pass.json --impl optimized)
expect(1 "${re_fail}" run ${DATA}/good_pass.json ${DATA}/good_fail.json)
expect(1 "" run --code-only ${DATA}/good_fail.json)
expect(2 "BAD  /nonexistent/v.json: cannot read: no such file" run /nonexistent/v.json ${DATA}/good_pass.json)
expect(2 "no vectors \\(\\*.json\\) found under ${WORK}/empty" run ${WORK}/empty)

expect(0 "op: DynamicPartition\n;outputs\\[0\\]: float32 \\[2\\] \\[1.5, nan\\(0x7fc00001\\)\\];provenance: tools/tests/cli" show ${DATA}/good_pass.json)
expect(0 "\"data\": \\[1.5, -0.0, \"0x7fc00001\"\\]" show --canonical ${DATA}/good_pass.json)
expect(2 "error: [^\n]*bad_data_length.json: inputs.block_shape.data: 3 elements" show ${DATA}/bad_data_length.json)

# The version, from the CMake project's.
expect(0 "^opconform ${VERSION}\n$" --version)

# Usage errors exit 2, with CLI11's message.
expect(2 "argument was not expected: --frob" run --frob)
expect(2 "file is required" show)
expect(2 "A subcommand is required")
expect(2 "cannot use the implementation gpu" run --impl gpu ${DATA}/good_pass.json)
expect(2 "--max-elements: '0' is not a whole number" show --max-elements 0 ${DATA}/good_pass.json)

# Nothing checked is not a pass: a folder without vectors named beside others, a run whose every
# vector was skipped, a link that loops.
expect(2 "BAD  ${WORK}/empty: no vectors \\(\\*.json\\) in this folder" run ${WORK}/empty ${DATA}/good_pass.json)
expect(2 "no vector was checked" run ${DATA}/skipped_xla.json)
file(REMOVE_RECURSE ${WORK}/links)
file(MAKE_DIRECTORY ${WORK}/links)
file(COPY_FILE ${DATA}/good_pass.json ${WORK}/links/good.json)
file(CREATE_LINK loop.json ${WORK}/links/loop.json SYMBOLIC)
expect(2 "BAD  ${WORK}/links/loop.json: cannot read: Too many levels of symbolic links;DynamicPartition +1 +0 +0" run ${WORK}/links)
expect(2 "error: cannot write /nonexistent-folder/r.json" run ${DATA}/good_pass.json --json /nonexistent-folder/r.json)
