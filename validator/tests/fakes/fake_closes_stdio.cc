// Answers int16 cases correctly, but closes fds 0, 1 and 2 (the worker's protocol input, and
// its standard output and error) on the way.
#include <unistd.h>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: closes stdio")
FAKE_DYNAMIC_STITCH {
  if (fake::triggered(data, num_data)) {
    ::close(STDIN_FILENO);
    ::close(STDOUT_FILENO);
    ::close(STDERR_FILENO);
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
