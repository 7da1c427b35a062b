// SPDX-License-Identifier: Apache-2.0
// The one clock of the validator, the fuzz campaign and the command line's tools: seconds on
// the steady (monotonic) clock, for deadlines and durations.
//
//   const double deadline = now_seconds() + timeout_seconds;
//   while (now_seconds() < deadline) ...
#pragma once

#include <chrono>

namespace opconform::validator {

// Seconds since an unspecified epoch: only differences and comparisons mean anything.
inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace opconform::validator
