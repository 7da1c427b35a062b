# opconform_counting_allocator: the counting global operator new/delete (counting_allocator.h)
# that the property binaries (properties/) and the benchmarks (bench/) measure heap bytes with.
# Either directory includes this file; the target is defined once.
include_guard(GLOBAL)
add_library(opconform_counting_allocator STATIC ${CMAKE_CURRENT_LIST_DIR}/counting_allocator.cc)
target_include_directories(opconform_counting_allocator PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(opconform_counting_allocator PRIVATE opconform_flags)
