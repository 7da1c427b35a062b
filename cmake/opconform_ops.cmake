# The op registry's list (plugin_abi/include/opconform/op_list.inc) for CMake, so that per-op
# targets (the fuzz harnesses, their tests) follow the list without hand edits:
#   opconform_ops(names snake_names)   # "SpaceToBatchND;...", "space_to_batch_nd;..."
set(OPCONFORM_OP_LIST ${CMAKE_CURRENT_LIST_DIR}/../plugin_abi/include/opconform/op_list.inc)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${OPCONFORM_OP_LIST})
function(opconform_ops names_var snake_names_var)
  file(STRINGS ${OPCONFORM_OP_LIST} lines REGEX "^OPCONFORM_OP\\(")
  set(names "")
  set(snake_names "")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "^OPCONFORM_OP\\(([A-Za-z0-9]+), ([a-z0-9_]+)," match "${line}")
    list(APPEND names ${CMAKE_MATCH_1})
    list(APPEND snake_names ${CMAKE_MATCH_2})
  endforeach()
  set(${names_var} ${names} PARENT_SCOPE)
  set(${snake_names_var} ${snake_names} PARENT_SCOPE)
endfunction()
