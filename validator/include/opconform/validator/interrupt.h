// SPDX-License-Identifier: Apache-2.0
// SIGINT and SIGTERM during a validation run (a CI timeout, Ctrl-C): while an InterruptScope is
// alive these signals only set a flag, which the run's loops and the worker client's waits check
// (every wait polls in short slices), so the run stops within a fraction of a second and still
// writes its reports. The previous handlers come back when the scope ends.
//
//   InterruptScope scope;
//   while (!interrupted()) run_next_case();
//   if (int sig = interrupt_signal()) ...   // SIGINT or SIGTERM
#pragma once

namespace opconform::validator {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct Saved;
  Saved* saved_;
};

// True once SIGINT or SIGTERM arrived inside the current scope.
bool interrupted();
// The signal that arrived (0: none).
int interrupt_signal();

// The longest a blocking wait of the validator may last before it checks interrupted() again.
inline constexpr double kInterruptPollSeconds = 0.1;

}  // namespace opconform::validator
