// Peak heap bytes of a call, measured by the counting global operator new/delete that every
// property binary links (tests/support/counting_allocator; malloc itself is not counted).
//
//   AllocationProbe probe;                 // starts measuring
//   run the op ...
//   std::int64_t peak = probe.peak_bytes();  // most bytes live at once above the start level
#pragma once

#include <cstdint>

namespace opconform::properties {

// One probe at a time (the counters are process-wide); allocations of every thread count.
class AllocationProbe {
 public:
  AllocationProbe();
  std::int64_t peak_bytes() const;

 private:
  std::int64_t start_;
};

}  // namespace opconform::properties
