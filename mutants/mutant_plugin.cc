// A mutant as a plug-in (opconform/plugin_abi.h): the one op OPCONFORM_MUTANT_OP
// (an OPCONFORM_OP_* number), computed by the mutated copy of its reference kernel that this
// library is linked with (mutants/catalogue.py), exported through the validator's
// abi_export like the bundled plug-in. Compiled once per op; mutant_name.cc names the mutant.
//
// Heap model: BufferChecks are on in the mutant (buffers from Tensor::uninitialized hold the
// poison byte, as memory a real allocator hands back would hold stale bytes, and every buffer
// has a guard after its end), and a call that left a guard damaged aborts the process the way
// glibc aborts on a corrupted heap. So a mutant that leaves memory unwritten or writes past
// the end behaves as it would in a real process, only deterministically.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "opconform/reference/batch_to_space_nd.h"
#include "opconform/reference/dynamic_partition.h"
#include "opconform/reference/dynamic_stitch.h"
#include "opconform/reference/space_to_batch_nd.h"
#include "opconform/reference/sparse_concat.h"
#include "opconform/validator/abi_export.h"

#ifndef OPCONFORM_MUTANT_OP
#error "OPCONFORM_MUTANT_OP must be set"
#endif
// OPCONFORM_OP_* are enumerators, invisible to #if: the same numbers as macros.
#define MUTANT_SPACE_TO_BATCH_ND 0
#define MUTANT_BATCH_TO_SPACE_ND 1
#define MUTANT_DYNAMIC_STITCH 2
#define MUTANT_PARALLEL_DYNAMIC_STITCH 3
#define MUTANT_DYNAMIC_PARTITION 4
#define MUTANT_SPARSE_CONCAT 5
#if OPCONFORM_MUTANT_OP < 0 || OPCONFORM_MUTANT_OP > 5
#error "OPCONFORM_MUTANT_OP is not an op number"
#endif
static_assert(OPCONFORM_OP_SPARSE_CONCAT == MUTANT_SPARSE_CONCAT && OPCONFORM_OP_DYNAMIC_STITCH == MUTANT_DYNAMIC_STITCH);

namespace opconform::mutants {
extern const char* const kMutantName;
}  // namespace opconform::mutants

namespace {

using namespace opconform;
using namespace opconform::validator;

// Only the mutated op is linked in; the other entries stay null (the manifest lists one op).
OpTable make_table() {
  OpTable t{mutants::kMutantName, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
#if OPCONFORM_MUTANT_OP == MUTANT_SPACE_TO_BATCH_ND
  t.space_to_batch_nd = reference::SpaceToBatchND;
#elif OPCONFORM_MUTANT_OP == MUTANT_BATCH_TO_SPACE_ND
  t.batch_to_space_nd = reference::BatchToSpaceND;
#elif OPCONFORM_MUTANT_OP == MUTANT_DYNAMIC_STITCH
  t.dynamic_stitch = reference::DynamicStitch;
#elif OPCONFORM_MUTANT_OP == MUTANT_PARALLEL_DYNAMIC_STITCH
  t.parallel_dynamic_stitch = reference::ParallelDynamicStitch;
#elif OPCONFORM_MUTANT_OP == MUTANT_DYNAMIC_PARTITION
  t.dynamic_partition = reference::DynamicPartition;
#elif OPCONFORM_MUTANT_OP == MUTANT_SPARSE_CONCAT
  t.sparse_concat = reference::SparseConcat;
#endif
  return t;
}
const OpTable kTable = make_table();

const opconform_op_caps kCaps[] = {abi_export::unlimited_caps(OPCONFORM_MUTANT_OP)};
const std::string kDisplayName = std::string("mutant ") + mutants::kMutantName;
const opconform_manifest kManifest = {OPCONFORM_ABI_VERSION, sizeof(opconform_manifest),
                                      kDisplayName.c_str(), "tf-cpu", 1, kCaps};

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
#if OPCONFORM_MUTANT_OP == MUTANT_SPACE_TO_BATCH_ND
OPCONFORM_PLUGIN_SPACE_TO_BATCH_ND(kTable, checked)
#elif OPCONFORM_MUTANT_OP == MUTANT_BATCH_TO_SPACE_ND
OPCONFORM_PLUGIN_BATCH_TO_SPACE_ND(kTable, checked)
#elif OPCONFORM_MUTANT_OP == MUTANT_DYNAMIC_STITCH
OPCONFORM_PLUGIN_DYNAMIC_STITCH(kTable, checked)
#elif OPCONFORM_MUTANT_OP == MUTANT_PARALLEL_DYNAMIC_STITCH
OPCONFORM_PLUGIN_PARALLEL_DYNAMIC_STITCH(kTable, checked)
#elif OPCONFORM_MUTANT_OP == MUTANT_DYNAMIC_PARTITION
OPCONFORM_PLUGIN_DYNAMIC_PARTITION(kTable, checked)
#elif OPCONFORM_MUTANT_OP == MUTANT_SPARSE_CONCAT
OPCONFORM_PLUGIN_SPARSE_CONCAT(kTable, checked)
#endif
