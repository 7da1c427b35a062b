# `opconform validate` and `opconform run --impl` from the command line (ctest "cli"):
#   cmake -DOPCONFORM=<exe> -DDATA=<validator/tests/data> -DWORK=<scratch> -DFAKE_CRASH=<.so>
#         -DFAKE_HANG=<.so> -DFAKE_WRONG_RESULTS=<.so> -P validate_cli_test.cmake
# Exit statuses (0 pass, 1 a case failed, 2 unusable: usage, inputs, reports, nothing run), what
# CI keeps after a SIGTERM, and replay commands that work when pasted.

include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK} ${WORK}/other ${WORK}/tmp)

# Usage errors exit 2, quoting the argument as given.
expect(2 "--seed: '-1' is not a whole number from 0 to 18446744073709551615" validate --seed -1)
expect(2 "--cases: '1e400' is not a whole number from 0 to 1000000000" validate --cases 1e400)
string(LENGTH "${OUTPUT}" length)
if(length GREATER 200)
  message(FATAL_ERROR "a usage error printed ${length} characters:\n${OUTPUT}")
endif()
expect(2 "--timeout: '1e300' is not a number greater than 0, at most 86400" validate --timeout 1e300)
expect(2 "--time: 'soon' is not a number" validate --time soon)
expect(2 "--max-failures: '0' is not a whole number from 1" validate --max-failures 0)
expect(2 "--seed excludes --fresh-seed" validate --seed 5 --fresh-seed)
expect(2 "argument was not expected: --frob" validate --frob)
expect(2 "argument was not expected: --frob" run --frob)
# An empty or missing value and a repeated option are called so (not 'unknown op "--cases"',
# not "At Most 1 required but received 2").
expect(2 "--ops: empty op list ','" validate --ops , --cases 0)
expect(2 "--ops: needs a value \\(a comma-separated list of ops\\), not '--cases'" validate --ops --cases 0)
expect(2 "--ops: empty op name in 'DynamicStitch,,SparseConcat'" validate --ops DynamicStitch,,SparseConcat)
expect(2 "--ops: unknown op \"Stitch\"" validate --ops DynamicStitch,Stitch)
expect(2 "--cases: given more than once: '5', '6'" validate --cases 5 --cases 6)
expect(2 "--json: given more than once: 'a.json', 'b.json'" validate --json a.json --json b.json)
expect(0 "DynamicStitch;SparseConcat" validate --ops DynamicStitch --ops sparse_concat --no-corpus --cases 4)
if(OUTPUT MATCHES "SpaceToBatchND")
  message(FATAL_ERROR "--ops DynamicStitch --ops sparse_concat ran other ops:\n${OUTPUT}")
endif()
# A --time budget used up before the implementation started is the run's, not the implementation's.
expect(2 "the --time budget of 1e-300 s was used up before the implementation had started: no case was run"
       validate --time 1e-300 --no-corpus --cases 3 --json ${WORK}/no-time.json)
if(OUTPUT MATCHES "cannot use the implementation")
  message(FATAL_ERROR "--time 1e-300 blamed the implementation:\n${OUTPUT}")
endif()
require_file(${WORK}/no-time.json "\"error\": \"the --time budget of 1e-300 s was used up before")

# Nothing checked is not a pass; an unwritable report is an error before any case runs.
expect(2 "/nonexistent.json: cannot read: no such file or folder;no case was run"
       validate --replay /nonexistent.json --json ${WORK}/missing.json)
require_file(${WORK}/missing.json "\"state\": \"error\"")
expect(2 "no case was run" validate --corpus ${WORK}/other --cases 0)
# A link to nothing is called one, not "no such file".
file(CREATE_LINK ${WORK}/nowhere ${WORK}/dangling.json SYMBOLIC)
expect(2 "dangling.json: cannot read: dangling symbolic link to '${WORK}/nowhere'" validate --replay ${WORK}/dangling.json)
expect(2 "dangling.json: cannot read: dangling symbolic link to '${WORK}/nowhere'" validate --corpus ${WORK}/dangling.json
       --cases 0)
expect(2 "cannot write /nonexistent-folder/r.json" validate --replay ${DATA}/stitch_float32.json
       --json /nonexistent-folder/r.json)

# The default seed is fixed and printed; --fresh-seed draws one.
expect(0 "seed 1 \\(default\\)" validate --no-corpus --cases 12)
expect(0 "seed [0-9]+ \\(fresh\\)" validate --no-corpus --cases 12 --fresh-seed)

# SIGTERM (a CI timeout) mid-run, once the second case hangs (the hang fake writes a marker file
# then): validate dies of the signal, and the reports are there and say so. (No ';' in the
# script: expect_in's arguments are a CMake list.)
expect_in(${WORK} 143 "" ${CMAKE_COMMAND} -E env OPCONFORM_FAKE_HANG_MARKER=${WORK}/hanging.pid sh -c
       "\"$0\" validate --impl \"$1\" --timeout 60 --replay \"$2\" \"$3\" --json term.json --junit term.xml --jsonl term.jsonl &
        while [ ! -e hanging.pid ] && kill -0 $! 2>/dev/null
        do sleep 0.01
        done
        kill -TERM $!
        wait $!"
       ${OPCONFORM} ${FAKE_HANG} ${DATA}/stitch_float32.json ${DATA}/stitch_int16.json)
require_file(${WORK}/term.json "\"state\": \"interrupted\"")
require_file(${WORK}/term.xml "<error message=\"interrupted by SIGTERM\"")
require_file(${WORK}/term.jsonl "\"name\":\"stitch_float32\"")

# --max-failures stops the run (--time bounds it: validate_cli_timing_test.cmake).
foreach(k RANGE 1 10)
  file(COPY_FILE ${DATA}/stitch_int16.json ${WORK}/other/hang${k}.json)
endforeach()
expect(1 "stopped after 1 failing cases \\(--max-failures\\)" validate --impl ${FAKE_CRASH} --replay ${WORK}/other
       --max-failures 1)

# A replay command works when pasted elsewhere; a replay leaves nothing in $TMPDIR.
file(COPY_FILE ${DATA}/stitch_int8.json ${WORK}/crash.json)
file(COPY_FILE ${FAKE_CRASH} ${WORK}/libcrash.so)
expect(1 "replay: /" validate --impl ./libcrash.so --replay crash.json --save-failures saved)
string(REGEX MATCH "replay: ([^\n]*)" replay_line "${OUTPUT}")
set(replay_command "${CMAKE_MATCH_1}")
expect_in(/ 1 "FAIL crash DynamicStitch" sh -c "${replay_command}")
expect_in(${WORK} 1 "FAIL crash" ${CMAKE_COMMAND} -E env TMPDIR=${WORK}/tmp ${OPCONFORM} validate --impl ${FAKE_CRASH}
       --replay ${WORK}/crash.json)
file(GLOB left ${WORK}/tmp/*)
if(left)
  message(FATAL_ERROR "a replay left ${left}")
endif()

# run takes validate's implementations, and both compare error codes only unless told.
expect(1 "FAIL crash DynamicStitch" run --impl ${FAKE_CRASH} ${DATA}/stitch_int8.json)
expect(0 "both-error" run --impl ${FAKE_WRONG_RESULTS} ${DATA}/stitch_float32_negative_index.json)
expect(1 "error-mismatch" run --impl ${FAKE_WRONG_RESULTS} --strict-messages
       ${DATA}/stitch_float32_negative_index.json)
expect(0 "both-error" validate --impl ${FAKE_WRONG_RESULTS} --replay ${DATA}/stitch_float32_negative_index.json)
expect(1 "error-mismatch" validate --impl ${FAKE_WRONG_RESULTS} --strict-messages
       --replay ${DATA}/stitch_float32_negative_index.json)
file(READ ${DATA}/stitch_float32_negative_index.json vector)
string(REGEX REPLACE "\"message\": \"[^\"]*\"" "\"message\": \"another message\"" vector "${vector}")
file(WRITE ${WORK}/other_message.json "${vector}")
expect(0 "DynamicStitch +1 +0 +0" run ${WORK}/other_message.json)
expect(1 "message differs" run --strict-messages ${WORK}/other_message.json)
