# cmake -DDIR=<dir> -P reset_dir.cmake: an empty <dir> (for ctest fixtures).
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
