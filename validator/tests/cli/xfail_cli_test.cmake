# Expected failures (--xfail, --strict-xfail) and selection (--select, run --ops) from the command
# line, for `opconform validate` and `opconform run` (ctest "cli"):
#   cmake -DOPCONFORM=<exe> -DDATA=<validator/tests/data> -DWORK=<scratch> -DFAKE_CRASH=<.so>
#         -P xfail_cli_test.cmake
# fake_crash crashes on int16 data and is right on float32: stitch_int16 fails, stitch_float32
# passes.

include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(both --impl ${FAKE_CRASH} --replay ${DATA}/stitch_int16.json ${DATA}/stitch_float32.json)

# Without a list the crash fails the run.
expect(1 "FAIL crash DynamicStitch stitch_int16" validate ${both})

# xfail: the listed crash does not fail the run; every report says xfail, with the reason.
file(WRITE ${WORK}/by_name.jsonl "# known bugs\n\n{\"name\": \"stitch_int1?\", \"reason\": \"int16 rows crash, bug 17\"}\n")
expect(0 "XFAIL crash DynamicStitch stitch_int16: int16 rows crash, bug 17 \\(by_name.jsonl:3\\)"
       validate ${both} --xfail by_name.jsonl --json x.json --junit x.xml --jsonl x.jsonl)
lacks("\nFAIL crash")
expect(0 "agree crash xfail xpass\nDynamicStitch +1 +1 +1 +0\n" validate ${both} --xfail by_name.jsonl)
expect(0 "2 cases, 0 failed, 1 xfail, 0 xpass" validate ${both} --xfail by_name.jsonl --strict-xfail)
require_file(${WORK}/x.xml "<skipped message=\"xfail: int16 rows crash, bug 17 \\(by_name.jsonl:3\\)\">crash:")
require_file(${WORK}/x.xml "failures=\"0\"")
require_file(${WORK}/x.json "\"expected_failures\": {")
require_file(${WORK}/x.json "\"xfail\": 1,\n *\"xpass\": 0")
require_file(${WORK}/x.json "\"failed\": 0")
require_file(${WORK}/x.jsonl "\"expectation\":\"xfail\",\"name\":\"stitch_int16\"")

# A failure the list does not cover still fails the run; expected failures do not count
# towards --max-failures.
expect(1 "XFAIL crash DynamicStitch stitch_int16;FAIL crash DynamicStitch stitch_int8;1 failed, 1 xfail"
       validate --impl ${FAKE_CRASH} --replay ${DATA}/stitch_int16.json ${DATA}/stitch_int8.json --xfail by_name.jsonl)
file(MAKE_DIRECTORY ${WORK}/many)
foreach(k RANGE 1 3)
  file(COPY_FILE ${DATA}/stitch_int16.json ${WORK}/many/stitch_int16_${k}.json)
endforeach()
file(COPY_FILE ${DATA}/stitch_int8.json ${WORK}/many/stitch_int8.json)
file(WRITE ${WORK}/int16.jsonl "{\"name\": \"stitch_int16*\", \"reason\": \"int16 rows crash\"}\n")
expect(1 "4 cases, 1 failed, 3 xfail" validate --impl ${FAKE_CRASH} --replay many --xfail int16.jsonl
       --max-failures 1)
lacks("stopped after")

# Generated cases: an op-wide entry covers them all; the first xfail is printed, the others and
# the xpasses are counted.
file(WRITE ${WORK}/op.jsonl "{\"op\": \"DynamicStitch\", \"reason\": \"int8 and int16 crash\"}\n")
expect(0 "XFAIL crash DynamicStitch gen-dynamic_stitch-[0-9]+: int8 and int16 crash;0 failed, [1-9][0-9]* xfail, [1-9][0-9]* xpass"
       validate --impl ${FAKE_CRASH} --no-corpus --no-check-pairs --cases 100 --xfail op.jsonl)
string(REGEX MATCHALL "XFAIL" printed "${OUTPUT}")
list(LENGTH printed printed)
if(NOT printed EQUAL 1)
  message(FATAL_ERROR "${printed} XFAIL lines for generated cases of one entry:\n${OUTPUT}")
endif()
lacks("XPASS")

# By signature, as the failure printed it: the group's cause, whatever the case.
expect(1 "signature: ([^\n]*)" validate ${both})
string(REGEX MATCH "signature: ([^\n]*)" line "${OUTPUT}")
file(WRITE ${WORK}/by_signature.jsonl "{\"signature\": \"${CMAKE_MATCH_1}\", \"op\": \"DynamicStitch\", \"reason\": \"segfault\"}\n")
expect(0 "XFAIL crash DynamicStitch stitch_int16: segfault" validate ${both} --xfail by_signature.jsonl --strict-xfail)
# ... whose failure no longer occurs: the entry is an xpass (the bug is fixed).
expect(0 "xpass  by_signature.jsonl:1" validate --impl ${FAKE_CRASH} --replay ${DATA}/stitch_float32.json
       --xfail by_signature.jsonl)
expect(1 "0 failed, 0 xfail, 1 xpass" validate --impl ${FAKE_CRASH} --replay ${DATA}/stitch_float32.json
       --xfail by_signature.jsonl --strict-xfail --junit sx.xml)
require_file(${WORK}/sx.xml "<failure type=\"xpass\" message=\"xpass: the failure did not occur")

# xpass: a listed case that passes is reported; under --strict-xfail it fails the run.
file(WRITE ${WORK}/xpass.jsonl "{\"name\": \"stitch_float32\", \"reason\": \"fixed in 2.1\"}\n")
expect(0 "XPASS DynamicStitch stitch_float32 passed: fixed in 2.1" validate --impl ${FAKE_CRASH}
       --replay ${DATA}/stitch_float32.json --xfail xpass.jsonl --json p.json)
require_file(${WORK}/p.json "\"xpass\": 1")
expect(1 "XPASS DynamicStitch stitch_float32" validate --impl ${FAKE_CRASH} --replay ${DATA}/stitch_float32.json
       --xfail xpass.jsonl --strict-xfail --junit px.xml --jsonl px.jsonl)
require_file(${WORK}/px.xml "<failure type=\"xpass\" message=\"xpass: fixed in 2.1")
require_file(${WORK}/px.jsonl "\"expectation\":\"xpass\"")

# An entry that matches no case is reported (and fails the run under --strict-xfail); an entry
# of an op the run does not check is not.
file(WRITE ${WORK}/stale.jsonl "{\"name\": \"stitch_int16\", \"reason\": \"crash\"}\n"
                               "{\"name\": \"renamed_vector\", \"reason\": \"stale\"}\n"
                               "{\"op\": \"SparseConcat\", \"reason\": \"not implemented\"}\n")
expect(0 "1 xfail, 0 xpass, 1 unmatched;unmatched \\(matches no case\\)  stale.jsonl:2  name=renamed_vector;not run  stale.jsonl:3"
       validate ${both} --xfail stale.jsonl --json u.json --junit u.xml)
require_file(${WORK}/u.json "\"unmatched_entries\": \\[\n *{\n *\"name\": \"renamed_vector\"")
require_file(${WORK}/u.xml "<skipped message=\"unmatched: matches no case \\(name=renamed_vector\\): stale\"/>")
expect(1 "1 unmatched" validate ${both} --xfail stale.jsonl --strict-xfail)

# A list that cannot be used is a usage error naming the file and line.
file(WRITE ${WORK}/no_reason.jsonl "{\"name\": \"stitch_int16\"}\n")
file(WRITE ${WORK}/unknown.jsonl "{\"name\": \"a\", \"reason\": \"r\"}\n{\"vector\": \"a\", \"reason\": \"r\"}\n")
file(WRITE ${WORK}/broken.jsonl "{\"name\": \"a\", \"reason\": \"r\"}\n\n{\"name\": \"a\",\n")
file(WRITE ${WORK}/no_matcher.jsonl "{\"reason\": \"r\"}\n")
file(WRITE ${WORK}/bad_op.jsonl "{\"op\": \"Stitch\", \"reason\": \"r\"}\n")
expect(2 "--xfail: no_reason.jsonl:1: no \"reason\"" validate ${both} --xfail no_reason.jsonl)
expect(2 "--xfail: unknown.jsonl:2: unknown field \"vector\"" validate ${both} --xfail unknown.jsonl)
expect(2 "--xfail: broken.jsonl:3: not a JSON value" validate ${both} --xfail broken.jsonl)
expect(2 "--xfail: no_matcher.jsonl:1: no matcher" validate ${both} --xfail no_matcher.jsonl)
expect(2 "--xfail: bad_op.jsonl:1: unknown op \"Stitch\"" validate ${both} --xfail bad_op.jsonl)
expect(2 "--xfail: missing.jsonl: cannot read" validate ${both} --xfail missing.jsonl)
expect(2 "--xfail: no_reason.jsonl:1: no \"reason\"" run ${DATA}/stitch_int16.json --xfail no_reason.jsonl)

# Selection: by name glob, tag (or a tag's kind), folder; a tag or folder runs no generated case.
expect(1 "stitch_int16" validate ${both} --select name:stitch_int*)
lacks("stitch_float32")
expect(0 "DynamicStitch +4\ntotal +4\n4 cases" validate --select tag:advisory --ops DynamicStitch)
expect(0 "DynamicStitch +2\n" validate --select tag:advisory --select folder:dynamic_stitch --select name:*018*)
expect(0 "10 cases" validate --select name:gen-dynamic_stitch-1? --ops DynamicStitch --no-corpus --cases 30)
expect(0 "" validate --select folder:dynamic_stitch/tf-tests --jsonl sel.jsonl)
require_file(${WORK}/sel.jsonl "tf-tests")
file(READ ${WORK}/sel.jsonl selected)
if(selected MATCHES "\"origin\":\"generated\"" OR selected MATCHES "\"origin\":\"[^\"]*/space_to_batch_nd/")
  message(FATAL_ERROR "--select folder:dynamic_stitch/tf-tests ran other cases:\n${selected}")
endif()
# A folder that exists is compared by its real path.
expect(0 "3 cases" validate --replay ${DATA} --select folder:${DATA}/../data --select name:stitch_int??)
expect(2 "no case was run" validate --replay ${DATA} --select folder:${WORK} --cases 0)
expect(2 "--select: 'vector:x' is not name:GLOB, tag:TAG or folder:PATH" validate --select vector:x)
expect(2 "--select: 'tag:' has an empty tag" run --select tag:)
expect(2 "no case was run" validate --select name:nothing-is-called-this --cases 3)

# run: the same list and selection, for a plug-in (through the validator) and for the built-in
# kernels, and --ops.
expect(0 "XFAIL crash DynamicStitch stitch_int16" run --impl ${FAKE_CRASH} ${DATA}/stitch_int16.json
       ${DATA}/stitch_float32.json --xfail by_name.jsonl)
expect(1 "XPASS DynamicStitch stitch_float32" run --impl ${FAKE_CRASH} ${DATA}/stitch_float32.json
       --xfail xpass.jsonl --strict-xfail)
expect(0 "DynamicStitch +4 +0 +0\ntotal +4 +0 +0" run --ops DynamicStitch --select tag:advisory)
expect(0 "SpaceToBatchND" run --ops space_to_batch_nd,SparseConcat)
lacks("DynamicStitch")
expect(0 "DynamicStitch" run --select folder:dynamic_stitch/tf-tests --json folder.json)
lacks("SpaceToBatchND")
require_file(${WORK}/folder.json "/dynamic_stitch/tf-tests/")
expect(2 "--ops: unknown op \"Stitch\"" run --ops Stitch)
# The built-in kernels under --strict-messages fail a vector whose expected message differs.
file(READ ${DATA}/stitch_float32_negative_index.json vector)
string(REGEX REPLACE "\"message\": \"[^\"]*\"" "\"message\": \"another message\"" vector "${vector}")
string(REPLACE "\"tags\": [" "\"tags\": [\"message-drift\"," vector "${vector}")
file(WRITE ${WORK}/drift/other_message.json "${vector}")
file(COPY_FILE ${DATA}/stitch_float32.json ${WORK}/drift/stitch_float32.json)
file(WRITE ${WORK}/drift.jsonl "{\"tag\": \"message-drift\", \"reason\": \"messages reworded upstream\"}\n"
                               "{\"name\": \"stitch_float32\", \"reason\": \"was flaky\"}\n"
                               "{\"name\": \"gone\", \"reason\": \"stale\"}\n")
expect(0 "XFAIL .*other_message.json \\(DynamicStitch, [^)]*\\): messages reworded upstream;XPASS .*stitch_float32.json \\(DynamicStitch, stitch_float32\\) passed: was flaky;unmatched \\(matches no case\\)  drift.jsonl:3"
       run --strict-messages drift --xfail drift.jsonl --json drift.json)
expect(0 "passed +failed +skipped +xfail +xpass\nDynamicStitch +0 +0 +0 +1 +1\n" run --strict-messages drift
       --xfail drift.jsonl)
require_file(${WORK}/drift.json "\"result\": \"xfail\"")
require_file(${WORK}/drift.json "\"unmatched\": 1")
expect(1 "1 xfail, 1 xpass, 1 unmatched" run --strict-messages drift --xfail drift.jsonl --strict-xfail)
# A signature matches as printed, never as a glob (signatures hold '[', '*' and '#').
file(WRITE ${WORK}/drift_sig.jsonl "{\"signature\": \"DynamicStitch error-mismatch: *\", \"reason\": \"not a glob\"}\n")
expect(1 "FAIL .*other_message.json" run --strict-messages drift --xfail drift_sig.jsonl)
string(REGEX MATCH "signature: ([^\n]*)" line "${OUTPUT}")
file(WRITE ${WORK}/drift_sig.jsonl "{\"signature\": \"${CMAKE_MATCH_1}\", \"reason\": \"reworded\"}\n")
expect(0 "XFAIL .*other_message.json \\(DynamicStitch, [^)]*\\): reworded" run --strict-messages drift
       --xfail drift_sig.jsonl --strict-xfail)
