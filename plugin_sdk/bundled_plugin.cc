// The bundled optimized kernels (optimized::op_table()) as a plug-in: every op, every dtype
// (the kernels answer UNIMPLEMENTED themselves where tf-cpu does), any rank. The default
// --impl of `opconform validate`, so the validator's main path always runs.
#include "opconform/optimized/op_table.h"
#include "opconform/plugin_sdk/abi_export.h"

namespace {

using namespace opconform::plugin_sdk;
const opconform::OpTable& table() { return opconform::optimized::op_table(); }

const opconform_op_caps kCaps[] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) abi_export::unlimited_caps(OPCONFORM_OP_##UPPER_NAME),
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
};
const opconform_manifest kManifest = {OPCONFORM_ABI_VERSION,
                                      sizeof(opconform_manifest),
                                      "opconform optimized (bundled)",
                                      "tf-cpu",
                                      OPCONFORM_NUM_OPS,
                                      kCaps};

}  // namespace

// Every op through the generic entry point (the typed ABI 1.0 ones are tested by the fakes and
// the ABI 1.0 plug-in fixture).
OPCONFORM_PLUGIN_MANIFEST(kManifest)
OPCONFORM_PLUGIN_RUN_OP(table(), abi_export::direct)
