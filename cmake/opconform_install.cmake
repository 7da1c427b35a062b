# `cmake --install` and `cpack -G DEB`: the command line, its worker and bundled plug-in, the
# mutant catalogue, the bundled vectors, the fuzz driver and dictionaries, the user docs, the
# libraries with their headers, the CMake package (find_package(opconform CONFIG):
# opconform::<library>, opconform::opconform, opconform_add_validate_test,
# opconform_add_fuzz_target) and a pkg-config file for the plug-in ABI header.
include(CMakePackageConfigHelpers)
set(OPCONFORM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/opconform)

install(TARGETS opconform EXPORT opconformTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS opconform-worker RUNTIME DESTINATION ${OPCONFORM_LIBEXEC_DIR})
install(TARGETS opconform_optimized_plugin LIBRARY DESTINATION ${OPCONFORM_PLUGIN_DIR})

get_property(opconform_libraries GLOBAL PROPERTY OPCONFORM_EXPORTED_TARGETS)
install(TARGETS ${opconform_libraries} EXPORT opconformTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(library IN LISTS opconform_libraries)
  get_target_property(dir ${library} SOURCE_DIR)
  # byte_stream.h is the fuzz codec's own (it needs clang's FuzzedDataProvider): not part of an
  # interface.
  install(DIRECTORY ${dir}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN byte_stream.h EXCLUDE)
endforeach()
# The plug-in kit's header-only part (plugin_sdk/): the entry-point macros every plug-in shares.
# abi_export.h stays in the source tree: it needs the kit's library, which is not installed.
install(FILES ${PROJECT_SOURCE_DIR}/plugin_sdk/include/opconform/plugin_sdk/plugin_entry.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/opconform/plugin_sdk)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/corpus/vectors/ DESTINATION ${OPCONFORM_DATA_DIR}/vectors)
install(FILES ${PROJECT_SOURCE_DIR}/corpus/ops.json DESTINATION ${OPCONFORM_DATA_DIR})
# `opconform fuzz`: the driver (clang + libFuzzer builds) and the op harnesses' dictionaries.
if(TARGET opconform-fuzz-driver)
  install(TARGETS opconform-fuzz-driver RUNTIME DESTINATION ${OPCONFORM_LIBEXEC_DIR})
endif()
if(TARGET opconform_fuzz)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/${OPCONFORM_DATA_DIR}/fuzz/ DESTINATION ${OPCONFORM_DATA_DIR}/fuzz)
endif()
# The user docs keep the repository's relative layout, so their links between each other work
# (ctest -L docs checks every relative link in an install too): the third-party findings with
# their vectors, TensorFlow's ported tests, and the example consumer project the docs build.
# LICENSE (Apache-2.0) and its Debian machine-readable form, `copyright`, go beside them.
install(FILES README.md FUZZING.md CHANGELOG.md LICENSE cmake/copyright DESTINATION ${OPCONFORM_DOC_DIR})
install(FILES corpus/README.md corpus/tf-tests.md corpus/ops.json DESTINATION ${OPCONFORM_DOC_DIR}/corpus)
install(DIRECTORY docs/ DESTINATION ${OPCONFORM_DOC_DIR}/docs)
install(DIRECTORY examples/ DESTINATION ${OPCONFORM_DOC_DIR}/examples)

install(EXPORT opconformTargets NAMESPACE opconform:: DESTINATION ${OPCONFORM_CMAKE_DIR})
configure_package_config_file(cmake/opconformConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/opconformConfig.cmake INSTALL_DESTINATION ${OPCONFORM_CMAKE_DIR})
# 0.x: a minor version may break the interface, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/opconformConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/opconformConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/opconformConfigVersion.cmake
              cmake/opconformHelpers.cmake
        DESTINATION ${OPCONFORM_CMAKE_DIR})

configure_file(cmake/opconform-plugin-abi.pc.in ${CMAKE_CURRENT_BINARY_DIR}/opconform-plugin-abi.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/opconform-plugin-abi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# cpack -G DEB (from the build folder): one package, Debian's package names as dependencies.
# Licensed under Apache-2.0 (LICENSE); the .deb carries it as /usr/share/doc/opconform/copyright.
set(CPACK_PACKAGE_NAME opconform)
set(CPACK_PACKAGE_VENDOR "opconform")
# CPackDeb requires a maintainer (the Maintainer field). No personal or made-up address: the
# project's maintainers, reached through the Homepage field (the project's HOMEPAGE_URL).
set(CPACK_PACKAGE_CONTACT "The opconform maintainers")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Conformance and fuzz suite for TensorFlow-style tensor ops")
set(CPACK_PACKAGE_INSTALL_DIRECTORY opconform)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_STRIP_FILES TRUE)  # executables and plug-ins; the static libraries keep their symbols
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libc6, libstdc++6, libgomp1, ... from the binaries
# What the CMake package's targets need at the user's build: GoogleTest and RapidCheck.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libgtest-dev, librapidcheck-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake, g++, pkg-config")
include(CPack)
