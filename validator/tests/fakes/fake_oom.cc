// For int16 data: allocates and touches 64 MiB blocks until allocation fails (a runaway
// allocation; std::bad_alloc leaves through the entry point).
#include <cstring>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: oom")
FAKE_DYNAMIC_STITCH {
  static std::vector<char*> hoard;
  while (fake::triggered(data, num_data)) {
    constexpr std::size_t kBlock = std::size_t{64} << 20;
    char* block = new char[kBlock];
    std::memset(block, 1, kBlock);
    hoard.push_back(block);
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
