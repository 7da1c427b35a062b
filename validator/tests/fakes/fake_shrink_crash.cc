// For int16 data: aborts when the data hold exactly one element, else answers with the lowest bit
// of the first output byte flipped (a mismatch). Shrinking that mismatch meets the crash.
#include <cstdlib>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: crashes on one element")
FAKE_DYNAMIC_STITCH {
  if (!fake::triggered(data, num_data)) return fake::correct_stitch(call, indices, num_indices, data, num_data);
  int64_t elements = 0;
  for (int64_t m = 0; m < num_data; ++m) {
    int64_t n = 1;
    for (int32_t d = 0; d < data[m].rank; ++d) n *= data[m].dims[d];
    elements += n;
  }
  if (elements == 1) std::abort();
  fake::ProxyCall proxy(call);
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  if (code == OPCONFORM_CODE_OK) proxy.flip_bit(0);
  return code;
}
