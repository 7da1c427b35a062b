// SPDX-License-Identifier: Apache-2.0
// Descendants that escape a worker's process group (setsid, setpgid, a double fork): the
// validator's process becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so when a worker
// dies its orphaned descendants are re-parented to the validator instead of init, and
// kill_adopted_processes() kills and reaps them.
//
//   become_subreaper();            // before the first worker starts
//   ... kill the worker's process group, reap the worker ...
//   kill_adopted_processes(worker_group);   // whatever it left behind
#pragma once

#include <sys/types.h>

#include <vector>

namespace opconform::validator {

// Makes this process a child subreaper (once; later calls do nothing).
void become_subreaper();

// Worker processes the worker client has started and not yet reaped: never adopted.
void note_worker_started(pid_t pid);
void note_worker_reaped(pid_t pid);

// The children of this process that are neither in its own process group nor running workers:
// the validator's own children are workers (each in its own group), so these are workers'
// descendants adopted after their parent died.
std::vector<pid_t> adopted_processes();

// Kills (SIGKILL) and reaps every adopted process, repeatedly, since their own children are
// adopted when they die, until none is left and process group `group` (a killed worker's; 0:
// none) has no member left, or `max_seconds` have passed. Returns how many it killed.
int kill_adopted_processes(pid_t group, double max_seconds = 2.0);

}  // namespace opconform::validator
