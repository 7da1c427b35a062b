// The bundled optimized kernels (optimized::op_table()) as a plug-in: every op, every dtype
// (the kernels answer UNIMPLEMENTED themselves where tf-cpu does), any rank. The default
// --impl of `opconform validate`, so the validator's main path always runs.
#include "opconform/optimized/op_table.h"
#include "opconform/validator/abi_export.h"

namespace {

using namespace opconform::validator;
const opconform::OpTable& table() { return opconform::optimized::op_table(); }

const opconform_op_caps kCaps[] = {
    abi_export::unlimited_caps(OPCONFORM_OP_SPACE_TO_BATCH_ND),
    abi_export::unlimited_caps(OPCONFORM_OP_BATCH_TO_SPACE_ND),
    abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_STITCH),
    abi_export::unlimited_caps(OPCONFORM_OP_PARALLEL_DYNAMIC_STITCH),
    abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_PARTITION),
    abi_export::unlimited_caps(OPCONFORM_OP_SPARSE_CONCAT),
};
const opconform_manifest kManifest = {OPCONFORM_ABI_VERSION, sizeof(opconform_manifest),
                                      "opconform optimized (bundled)", "tf-cpu",
                                      OPCONFORM_NUM_OPS, kCaps};

}  // namespace

OPCONFORM_PLUGIN_MANIFEST(kManifest)
OPCONFORM_PLUGIN_SPACE_TO_BATCH_ND(table(), abi_export::direct)
OPCONFORM_PLUGIN_BATCH_TO_SPACE_ND(table(), abi_export::direct)
OPCONFORM_PLUGIN_DYNAMIC_STITCH(table(), abi_export::direct)
OPCONFORM_PLUGIN_PARALLEL_DYNAMIC_STITCH(table(), abi_export::direct)
OPCONFORM_PLUGIN_DYNAMIC_PARTITION(table(), abi_export::direct)
OPCONFORM_PLUGIN_SPARSE_CONCAT(table(), abi_export::direct)
