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

# opconform_add_gtest(NAME <target> SRCS <source>... [DEPS <target>...] [LABELS <label>...])
# A GoogleTest executable linked with GTest::gtest_main, the test support (tests/support/) and
# DEPS, its tests discovered with every label of LABELS.
function(opconform_add_gtest)
  cmake_parse_arguments(arg "" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  if(NOT arg_NAME OR NOT arg_SRCS)
    message(FATAL_ERROR "opconform_add_gtest: NAME and SRCS are required")
  endif()
  add_executable(${arg_NAME} ${arg_SRCS})
  target_link_libraries(${arg_NAME} PRIVATE ${arg_DEPS} opconform_test_support GTest::gtest_main)
  opconform_discover_tests(${arg_NAME} ${arg_LABELS})
endfunction()

# opconform_add_gtests(PREFIX <prefix> [DEPS <target>...] [LABELS <label>...] [NAME_LABEL])
# One opconform_add_gtest per tests/<name>_test.cc of the calling folder (globbed, so a new test
# file is picked up at the next build): target <prefix>_<name>, NAME_LABEL adding <name> to its
# labels. Lists the targets in <prefix>_TEST_TARGETS, for properties set on all of them.
function(opconform_add_gtests)
  cmake_parse_arguments(arg "NAME_LABEL" "PREFIX" "DEPS;LABELS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*_test.cc)
  set(targets "")
  foreach(source IN LISTS sources)
    get_filename_component(name ${source} NAME_WE)
    set(labels ${arg_LABELS})
    if(arg_NAME_LABEL)
      list(APPEND labels ${name})
    endif()
    opconform_add_gtest(NAME ${arg_PREFIX}_${name} SRCS ${source} DEPS ${arg_DEPS} LABELS ${labels})
    list(APPEND targets ${arg_PREFIX}_${name})
  endforeach()
  set(${arg_PREFIX}_TEST_TARGETS ${targets} PARENT_SCOPE)
endfunction()
