// SPDX-License-Identifier: Apache-2.0
// Every check of every op (the spec pages' lists, the README pre-checks and the memory limit):
// an id, the code, and a pattern of its message. failed_check() names the check an
// error belongs to, so properties can count which checks they exercised and invalid-case
// generators can be held to "fails exactly this check first".
//
//   failed_check(Op::kSpaceToBatchND, status)   // "block-positive", "" for OK
//
// Checks the spec lists but no input can reach are left out, with the reason in
// properties/README.md ("Check coverage").
#pragma once

#include <span>
#include <string_view>

#include "opconform/ops.h"

namespace opconform::generators {

struct Check {
  std::string_view id;  // as in the corpus tags check:<Op>:<id>
  Code code;
  std::string_view pattern;  // ECMAScript regex matching the whole message
  std::string_view where;    // where the spec lists the check
};

// The op's checks in check order: its list generators/checks/<snake_name>.inc.
std::span<const Check> checks_of(Op op);

inline constexpr std::string_view kUnclassified = "unclassified";

// The id of the check whose code and pattern match `status`; "" for OK; kUnclassified when no
// check matches (a message or code the spec does not have).
std::string_view failed_check(Op op, const Status& status);

}  // namespace opconform::generators
