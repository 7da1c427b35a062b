// Allocates its output before it fails: for int16 data it allocates output 0 and then returns
// INVALID_ARGUMENT (work before validation, a fault); for int8 data it allocates output 0 and
// then returns RESOURCE_EXHAUSTED (allowed: a later request may not fit). Otherwise correct.
#include <cstring>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: allocates then fails")
FAKE_DYNAMIC_STITCH {
  const bool invalid = fake::triggered(data, num_data);
  if (invalid || fake::triggered(data, num_data, OPCONFORM_DTYPE_INT8)) {
    const int64_t dims[] = {2};
    call->allocate_output(call->caller, 0, data[0].dtype, 1, dims);
    const char* message = invalid ? "checked after allocating" : "out of memory";
    call->set_message(call->caller, message, static_cast<int64_t>(std::strlen(message)));
    return invalid ? OPCONFORM_CODE_INVALID_ARGUMENT : OPCONFORM_CODE_RESOURCE_EXHAUSTED;
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
