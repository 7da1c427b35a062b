# opconform_add_validate_test(NAME <name> IMPL <plug-in target | path.so | exec:COMMAND>
#                             [OPS <op>...] [ARGS <validate argument>...])
#
# Registers a ctest that runs `opconform validate` against an implementation, with a JUnit
# report in <build dir>/<name>.junit.xml. IMPL may name a shared-library target of the calling
# project (built first). The test passes when validate exits 0 (every case conformed).
#
#   find_package(opconform 0.2 CONFIG REQUIRED)
#   opconform_add_validate_test(NAME mykernels_validate IMPL mykernels_plugin ARGS --cases 200)
function(opconform_add_validate_test)
  cmake_parse_arguments(arg "" "NAME;IMPL" "OPS;ARGS" ${ARGN})
  if(NOT arg_NAME OR NOT arg_IMPL)
    message(FATAL_ERROR "opconform_add_validate_test: NAME and IMPL are required")
  endif()
  set(impl ${arg_IMPL})
  if(TARGET ${arg_IMPL})
    set(impl $<TARGET_FILE:${arg_IMPL}>)
  endif()
  set(ops "")
  if(arg_OPS)
    list(JOIN arg_OPS "," ops_joined)
    set(ops --ops ${ops_joined})
  endif()
  set(tool opconform::opconform)
  if(NOT TARGET ${tool})
    set(tool opconform)  # inside opconform's own build
  endif()
  add_test(NAME ${arg_NAME}
    COMMAND ${tool} validate --impl ${impl} ${ops}
            --junit ${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}.junit.xml ${arg_ARGS})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "opconform")
endfunction()
