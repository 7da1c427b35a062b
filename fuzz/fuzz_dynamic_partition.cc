// libFuzzer harness: DynamicPartition, reference vs optimized (fuzz/harness_bodies.h, FUZZING.md).
#include "opconform/fuzz/harness_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return opconform::fuzz::run_op_harness(opconform::Op::kDynamicPartition, data, size);
}
