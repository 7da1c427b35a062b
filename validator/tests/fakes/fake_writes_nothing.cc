// For int16 and bool data: allocates the right output and returns OK without writing it.
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: writes nothing")
FAKE_DYNAMIC_STITCH {
  if (!fake::triggered(data, num_data) && !fake::triggered(data, num_data, OPCONFORM_DTYPE_BOOL))
    return fake::correct_stitch(call, indices, num_indices, data, num_data);
  std::vector<std::unique_ptr<char[]>> scratch;
  fake::ProxyCall proxy(call, [&](int32_t, void*, std::size_t bytes) -> void* {
    scratch.push_back(std::make_unique<char[]>(bytes + 1));
    return scratch.back().get();  // the kernel writes here, not into the output
  });
  return fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
}
