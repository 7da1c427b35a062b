// opconform-fuzz-driver: libFuzzer over a C-ABI plug-in (fuzz/impl_target.h). `opconform fuzz`
// runs it in fork mode with $OPCONFORM_FUZZ_IMPL and $OPCONFORM_FUZZ_OP set; by hand:
//   OPCONFORM_FUZZ_IMPL=libmine.so OPCONFORM_FUZZ_OP=DynamicStitch opconform-fuzz-driver corpus/
#include <cstddef>
#include <cstdint>

#include "opconform/fuzz/impl_target.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  opconform::fuzz::initialize_from_environment(nullptr, nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return opconform::fuzz::run_input(data, size);
}
