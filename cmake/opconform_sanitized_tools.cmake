# The sanitized tools, beside the plain ones in one build and one install. A plain build (g++ or
# clang, no sanitizers) makes the libraries a user's GoogleTest binary links; two programs can
# only come from a clang build with libFuzzer, ASan and UBSan:
#   libexec/opconform/opconform-fuzz-driver        what `opconform fuzz` runs
#   libexec/opconform/sanitized/opconform-worker   the worker that loads a sanitized plug-in
#                                                  (validate and fuzz pick it: install_layout.h)
# Where clang 14 with its libFuzzer, ASan and OpenMP runtimes is installed (Debian: clang
# libclang-rt-14-dev libomp-14-dev), OPCONFORM_SANITIZED_TOOLS builds them from these same
# sources in <build>/sanitized (an ExternalProject: nothing is fetched) as part of `all`, and
# installs them. A build that is itself sanitized and linked with libFuzzer (the fuzz preset)
# makes both directly and needs no second build.
if(OPCONFORM_SANITIZE OR OPCONFORM_LIBFUZZER OR NOT TARGET opconform_fuzz)
  return()
endif()

set(have OFF)
find_program(OPCONFORM_CLANGXX NAMES clang++-14 clang++ DOC "clang++ for the sanitized tools")
if(OPCONFORM_CLANGXX)
  execute_process(COMMAND ${OPCONFORM_CLANGXX} -print-resource-dir
                  OUTPUT_VARIABLE resource_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(runtimes ${resource_dir}/lib/linux/libclang_rt.fuzzer-${CMAKE_SYSTEM_PROCESSOR}.a
               ${resource_dir}/lib/linux/libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.a
               ${resource_dir}/../../libomp.so)   # clang's own lib/ (libomp-14-dev)
  set(have ON)
  foreach(runtime IN LISTS runtimes)
    if(NOT EXISTS ${runtime})
      set(have OFF)
    endif()
  endforeach()
endif()
option(OPCONFORM_SANITIZED_TOOLS
       "Also build the fuzz driver and a sanitized worker with clang (libFuzzer, ASan, UBSan)" ${have})
if(NOT OPCONFORM_SANITIZED_TOOLS)
  return()
endif()
if(NOT have)
  message(FATAL_ERROR "OPCONFORM_SANITIZED_TOOLS needs clang++ with the libFuzzer, ASan and OpenMP "
                      "runtimes (Debian: clang libclang-rt-14-dev libomp-14-dev)")
endif()

include(ExternalProject)
set(sanitized_dir ${CMAKE_BINARY_DIR}/sanitized)
set(libexec ${CMAKE_BINARY_DIR}/${OPCONFORM_LIBEXEC_DIR})
set(launcher "")
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
ExternalProject_Add(opconform_sanitized_tools
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${sanitized_dir}
  CMAKE_ARGS -DCMAKE_CXX_COMPILER=${OPCONFORM_CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo ${launcher}
             -DOPCONFORM_SANITIZE=ON -DOPCONFORM_LIBFUZZER=ON -DOPCONFORM_BUILD_TESTS=OFF
             -DOPCONFORM_BUILD_FUZZERS=OFF -DOPCONFORM_BUILD_MUTANTS=OFF -DOPCONFORM_BUILD_BENCHMARKS=OFF
  BUILD_COMMAND ${CMAKE_COMMAND} --build ${sanitized_dir} --target opconform-worker opconform-fuzz-driver
  # Staged where the install puts them, so the build tree's `opconform fuzz` finds them too.
  INSTALL_COMMAND ${CMAKE_COMMAND} -E make_directory ${libexec}/sanitized
          COMMAND ${CMAKE_COMMAND} -E copy_if_different ${sanitized_dir}/${OPCONFORM_LIBEXEC_DIR}/opconform-fuzz-driver ${libexec}/
          COMMAND ${CMAKE_COMMAND} -E copy_if_different ${sanitized_dir}/${OPCONFORM_LIBEXEC_DIR}/opconform-worker ${libexec}/sanitized/
  BUILD_ALWAYS ON   # the sub-build's own ninja decides what is out of date
  USES_TERMINAL_BUILD ON)
install(PROGRAMS ${libexec}/opconform-fuzz-driver DESTINATION ${OPCONFORM_LIBEXEC_DIR})
install(PROGRAMS ${libexec}/sanitized/opconform-worker DESTINATION ${OPCONFORM_LIBEXEC_DIR}/sanitized)
