# opconform_discover_tests(<target> <label>...): gtest_discover_tests with every label set.
# gtest_discover_tests (CMake 3.25) keeps only the first of several LABELS, so the labels are
# set by a script ctest runs after discovery, on the <target>_TESTS list (the documented
# TEST_INCLUDE_FILES way to set properties on discovered tests).
function(opconform_discover_tests target)
  gtest_discover_tests(${target} ${OPCONFORM_DISCOVERY_ARGS})
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${script}
    "if(${target}_TESTS)\n  set_tests_properties(\${${target}_TESTS} PROPERTIES LABELS \"${ARGN}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()
