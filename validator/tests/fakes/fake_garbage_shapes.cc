// For int16 data: asks for an output of shape [-5,2,1] and returns OK although it got NULL.
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: garbage shapes")
FAKE_DYNAMIC_STITCH {
  if (!fake::triggered(data, num_data)) return fake::correct_stitch(call, indices, num_indices, data, num_data);
  const int64_t dims[] = {-5, 2, 1};
  call->allocate_output(call->caller, 0, OPCONFORM_DTYPE_INT16, 3, dims);
  return OPCONFORM_CODE_OK;
}
