// Computes the right output of an int16 case, then writes one byte 1 MiB + 128 past its end:
// beyond the 1 MiB guard region that follows a small output.
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: far overrun")
FAKE_DYNAMIC_STITCH {
  if (!fake::triggered(data, num_data)) return fake::correct_stitch(call, indices, num_indices, data, num_data);
  fake::ProxyCall proxy(call);
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  for (const auto& [buffer, bytes] : proxy.outputs) {
    volatile char* past = static_cast<char*>(buffer) + bytes + (std::size_t{1} << 20) + 128;
    *past = 0x5a;
  }
  return code;
}
