// SPDX-License-Identifier: Apache-2.0
// Runs a Case through one implementation (an OpTable) and records what it did.
//
//   Outcome outcome = run_case(reference::op_table(), c);
//   Judgement result = compare(c, outcome);                   // compare.h
#pragma once

#include <vector>

#include "opconform/allocation_log.h"
#include "opconform/conformance/vector.h"
#include "opconform/exec.h"
#include "opconform/ops.h"

namespace opconform::conformance {

struct Outcome {
  Status status;   // the op's status
  Values outputs;  // its outputs (by the signature's names) when the status is OK
  // The op returned an error but replaced an output (ops.h: outputs are left untouched).
  bool wrote_outputs_on_error = false;
  // The Tensors the op allocated before returning its error (allocation_log.h). The spec allows
  // them only before RESOURCE_EXHAUSTED (outputs are requested in order); after any other error
  // the op allocated before it had validated its inputs.
  std::vector<TensorAllocation> allocated_on_error;
};

// Calls the case's op from `table` with the case's inputs and attrs, the case's memory limit
// and `knobs`. Never throws: an
// exception from the op becomes INTERNAL "<table> <Op> threw: <what>"; a missing function or
// a case without the op's inputs or attrs becomes INTERNAL too.
Outcome run_case(const OpTable& table, const Case& c, const Knobs& knobs = {});

}  // namespace opconform::conformance
