// For int16 data: returns the status code 42, which the ABI does not have.
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: bad status")
FAKE_DYNAMIC_STITCH {
  if (fake::triggered(data, num_data)) return 42;
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
