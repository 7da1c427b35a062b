// For int16 data: dies of SIGSEGV; for int8 data: abort(). Correct otherwise.
#include <csignal>
#include <cstdlib>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: crash")
FAKE_DYNAMIC_STITCH {
  if (fake::triggered(data, num_data)) std::raise(SIGSEGV);
  if (fake::triggered(data, num_data, OPCONFORM_DTYPE_INT8)) std::abort();
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
