// For int16 data: never returns.
#include <unistd.h>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: hang")
FAKE_DYNAMIC_STITCH {
  while (fake::triggered(data, num_data)) ::pause();
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
