// SPDX-License-Identifier: Apache-2.0
// The reference kernels as one OpTable (include/opconform/ops.h).
#pragma once

#include "opconform/ops.h"

namespace opconform::reference {

const OpTable& op_table();

}  // namespace opconform::reference
