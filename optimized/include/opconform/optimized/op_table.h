// SPDX-License-Identifier: Apache-2.0
// The optimized kernels as one OpTable (include/opconform/ops.h).
#pragma once

#include "opconform/ops.h"

namespace opconform::optimized {

const OpTable& op_table();

}  // namespace opconform::optimized
