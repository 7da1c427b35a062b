// Computes the right output, then writes outside it, by dtype of data:
//   int16:  one byte past its end;
//   int32:  100 bytes past its end;
//   int64:  64 KiB past its end;
//   uint16: 100 bytes before its start.
#include "fake_common.h"

namespace {
// How far from the buffer the stray write lands: bytes after its end (>= 0) or before its start.
bool stray_offset(const opconform_tensor* data, int64_t num_data, std::ptrdiff_t* after_end) {
  if (fake::triggered(data, num_data))
    *after_end = 0;
  else if (fake::triggered(data, num_data, OPCONFORM_DTYPE_INT32))
    *after_end = 99;
  else if (fake::triggered(data, num_data, OPCONFORM_DTYPE_INT64))
    *after_end = 65535;
  else if (fake::triggered(data, num_data, OPCONFORM_DTYPE_UINT16))
    *after_end = -101;
  else
    return false;
  return true;
}
}  // namespace

FAKE_STITCH_MANIFEST("fake: out of bounds")
FAKE_DYNAMIC_STITCH {
  std::ptrdiff_t after_end = 0;
  if (!stray_offset(data, num_data, &after_end))
    return fake::correct_stitch(call, indices, num_indices, data, num_data);
  fake::ProxyCall proxy(call);
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  for (const auto& [buffer, bytes] : proxy.outputs) {
    char* base = static_cast<char*>(buffer);
    if (after_end >= 0)
      base[bytes + static_cast<std::size_t>(after_end)] = 0x5a;
    else
      base[after_end] = 0x5a;
  }
  return code;
}
