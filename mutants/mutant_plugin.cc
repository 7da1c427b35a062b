// A mutant as a plug-in (opconform/plugin_abi.h): the one op OPCONFORM_MUTANT_OP
// (an OPCONFORM_OP_* number; OPCONFORM_MUTANT_KERNEL its name, OPCONFORM_MUTANT_MEMBER its
// snake_case OpTable member), computed by the mutated copy of its reference kernel that this
// library is linked with (mutants/catalogue.py), exported through the validator's abi_export
// like the bundled plug-in. Compiled once per op; mutant_name.cc names the mutant.
//
// Heap model: BufferChecks are on in the mutant (buffers from Tensor::uninitialized hold the
// poison byte, as memory a real allocator hands back would hold stale bytes, and every buffer
// has a guard after its end), and a call that left a guard damaged aborts the process the way
// glibc aborts on a corrupted heap. So a mutant that leaves memory unwritten or writes past
// the end behaves as it would in a real process, only deterministically.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "opconform/ops.h"
#include "opconform/plugin_sdk/abi_export.h"

#if !defined(OPCONFORM_MUTANT_OP) || !defined(OPCONFORM_MUTANT_KERNEL) || !defined(OPCONFORM_MUTANT_MEMBER)
#error "OPCONFORM_MUTANT_OP, OPCONFORM_MUTANT_KERNEL and OPCONFORM_MUTANT_MEMBER must be set"
#endif

namespace opconform::reference {
// The mutated kernel (only its op's reference files are linked in).
std::remove_pointer_t<decltype(OpTable::OPCONFORM_MUTANT_MEMBER)> OPCONFORM_MUTANT_KERNEL;
}  // namespace opconform::reference

namespace opconform::mutants {
extern const char* const kMutantName;
}  // namespace opconform::mutants

namespace {

using namespace opconform;
using namespace opconform::plugin_sdk;

static_assert(OPCONFORM_MUTANT_OP >= 0 && OPCONFORM_MUTANT_OP < kNumOps, "not an op number");

// Only the mutated op is linked in; the other entries stay null (the manifest lists one op).
OpTable make_table() {
  OpTable t{};
  t.name = mutants::kMutantName;
  t.OPCONFORM_MUTANT_MEMBER = &reference::OPCONFORM_MUTANT_KERNEL;
  return t;
}
const OpTable kTable = make_table();

const opconform_op_caps kCaps[] = {abi_export::unlimited_caps(OPCONFORM_MUTANT_OP)};
const std::string kDisplayName = std::string("mutant ") + mutants::kMutantName;
const opconform_manifest kManifest = {
    OPCONFORM_ABI_VERSION, sizeof(opconform_manifest), kDisplayName.c_str(), "tf-cpu", 1, kCaps};

// Runs one call; aborts when it damaged a heap guard (see the heap model above).
template <class Call>
std::int32_t checked(Call call) {
  static const bool checks_on = (set_buffer_checks(BufferChecks{true, 0x5A, 64}), true);
  (void)checks_on;
  const std::int64_t before = guard_violations();
  const std::int32_t code = call();
  if (guard_violations() != before) {
    std::fputs("mutant: heap guard overwritten (a write past the end of a buffer)\n", stderr);
    std::abort();
  }
  return code;
}

}  // namespace

OPCONFORM_PLUGIN_MANIFEST(kManifest)
OPCONFORM_PLUGIN_RUN_OP(kTable, checked)
