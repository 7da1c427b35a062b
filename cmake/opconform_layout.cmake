# Where the product's files live, relative to the install prefix. The build tree has the same
# layout under ${CMAKE_BINARY_DIR} (bin/, libexec/opconform/, lib/opconform/, share/opconform/),
# so `opconform` finds its worker, bundled plug-in, mutants and vectors the same way in both:
# relative to its own executable, never through a path compiled in.
set(OPCONFORM_LIBEXEC_DIR ${CMAKE_INSTALL_LIBEXECDIR}/opconform)   # opconform-worker
set(OPCONFORM_PLUGIN_DIR ${CMAKE_INSTALL_LIBDIR}/opconform)         # bundled plug-in, mutants/
set(OPCONFORM_DATA_DIR ${CMAKE_INSTALL_DATADIR}/opconform)          # vectors/
set(OPCONFORM_DOC_DIR ${CMAKE_INSTALL_DOCDIR})                       # user docs

# Paths from bin/ to the others, compiled into the command line (relative, so a moved or
# relocated install keeps working).
function(opconform_relative_from_bin out dir)
  file(RELATIVE_PATH rel /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${dir})
  set(${out} ${rel} PARENT_SCOPE)
endfunction()
opconform_relative_from_bin(OPCONFORM_REL_LIBEXEC ${OPCONFORM_LIBEXEC_DIR})
opconform_relative_from_bin(OPCONFORM_REL_PLUGINS ${OPCONFORM_PLUGIN_DIR})
opconform_relative_from_bin(OPCONFORM_REL_DATA ${OPCONFORM_DATA_DIR})

# Puts a product target's output where the install will put it (build tree mirror).
function(opconform_stage target dir)
  set_target_properties(${target} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${dir}
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${dir})
endfunction()

# The bundled vectors, seen from the build tree's share/opconform/ (a link to the source tree).
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/${OPCONFORM_DATA_DIR})
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/corpus/vectors ${CMAKE_BINARY_DIR}/${OPCONFORM_DATA_DIR}/vectors
     SYMBOLIC)

# A library of the installed package: opconform_<name> in the build, opconform::<name> for users
# (an alias here, the exported name after install). Its public headers are
# <dir>/include/opconform/..., valid in the build tree and, as <prefix>/include, after install.
# Position-independent, so that users (and the bundled plug-in) can link them into shared
# libraries.
function(opconform_public_library name)
  set_target_properties(opconform_${name} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  add_library(opconform::${name} ALIAS opconform_${name})
  get_target_property(type opconform_${name} TYPE)
  set(scope PUBLIC)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  endif()
  target_include_directories(opconform_${name} ${scope}
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_property(GLOBAL APPEND PROPERTY OPCONFORM_EXPORTED_TARGETS opconform_${name})
endfunction()
