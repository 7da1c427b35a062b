// A value bug only large outputs show: correct, except that byte 4096 of the merged output (from
// 1024 float32 elements up) has its lowest bit flipped, as a kernel whose second tile is off
// would. Any dtype but string.
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: wrong from byte 4096")
FAKE_DYNAMIC_STITCH {
  fake::ProxyCall proxy(call);
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  if (code == OPCONFORM_CODE_OK && !fake::triggered(data, num_data, OPCONFORM_DTYPE_STRING) &&
      !fake::triggered(data, num_data, OPCONFORM_DTYPE_BOOL))
    proxy.flip_bit(4096);
  return code;
}
