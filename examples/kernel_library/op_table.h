// mykernels as an opconform::OpTable (opconform/ops.h), for opconform::gtest::register_suite:
// converts opconform::Tensor to mykernels' views and back. Ops mykernels lacks stay null.
#pragma once

#include "opconform/ops.h"

namespace mykernels {

const opconform::OpTable& op_table();

}  // namespace mykernels
