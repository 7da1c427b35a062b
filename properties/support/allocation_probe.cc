#include "support/allocation_probe.h"

#include "counting_allocator.h"

namespace opconform::properties {

AllocationProbe::AllocationProbe() : start_(counting_allocator::reset_peak()) {}

std::int64_t AllocationProbe::peak_bytes() const { return counting_allocator::peak_bytes() - start_; }

}  // namespace opconform::properties
