// libFuzzer harness: the conformance-vector reader and canonical writer, then the parsed case
// through both kernel layers (fuzz/harness_bodies.h, FUZZING.md).
#include "opconform/fuzz/harness_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return opconform::fuzz::run_vector_reader_harness(data, size);
}
