// Computes the right output, then writes into an input it was given as const, by dtype of data:
//   int16: the first element of data[0];
//   int8:  the first index of indices[0].
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: modifies its input")
FAKE_DYNAMIC_STITCH {
  const int32_t code = fake::correct_stitch(call, indices, num_indices, data, num_data);
  if (num_data > 0 && data[0].rank > 0 && data[0].dims[0] > 0 && fake::triggered(data, num_data))
    const_cast<int16_t*>(static_cast<const int16_t*>(data[0].data))[0] ^= 0x0100;
  if (num_indices > 0 && indices[0].rank > 0 && indices[0].dims[0] > 0 &&
      fake::triggered(data, num_data, OPCONFORM_DTYPE_INT8))
    const_cast<int32_t*>(static_cast<const int32_t*>(indices[0].data))[0] += 7;
  return code;
}
