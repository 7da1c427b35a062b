# Fails unless FILE exists and matches every regex in PATTERNS (a CMake list):
#   cmake -DFILE=<path> "-DPATTERNS=<regex>;<regex>" -P require_file.cmake
if(NOT EXISTS "${FILE}")
  message(FATAL_ERROR "${FILE} was not written")
endif()
file(READ "${FILE}" text)
foreach(pattern IN LISTS PATTERNS)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${FILE} lacks /${pattern}/\n${text}")
  endif()
endforeach()
