// SPDX-License-Identifier: Apache-2.0
// The validator's side of the subprocess protocol: starts an implementation's program (the
// C-ABI worker or an exec: command) in its own process group with pipes, handshakes, and runs
// cases with a per-case timeout. A crash, hang or runaway allocation comes back as a WorkerOutcome
// and the next run() starts a fresh process.
//
//   Worker worker({.argv = {"/path/opconform-worker", "lib.so"}, .address_space_bytes = 8 << 30});
//   Manifest manifest;
//   Status loaded = worker.start(&manifest);   // a load failure: stop the whole run
//   WorkerOutcome outcome = worker.run(c);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/validator/clock.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/subprocess.h"

namespace opconform::validator {

struct WorkerOptions {
  std::vector<std::string> argv;         // program and arguments, exec'd directly
  std::int64_t address_space_bytes = 0;  // RLIMIT_AS of the process; 0: none
  std::vector<std::string> environment;  // NAME=VALUE entries added to (or replacing) ours
  // A process that dies with a peak RSS of at least this many bytes ran out of memory
  // (0: address_space_bytes * 3/4).
  std::int64_t oom_rss_bytes = 0;
  double timeout_seconds = 10;            // per case
  double handshake_timeout_seconds = 30;  // start-up and manifest
  // The highest protocol version the hello offers (protocol.h); the program chooses.
  int max_protocol = kBinaryProtocolVersion;
};

// What running one case through the worker gave: the implementation's answer, or a crash, a
// timeout, running out of memory, a protocol fault. The cross-process counterpart of
// conformance::Outcome (run.h), what an in-process op call gave.
struct WorkerOutcome {
  enum class Kind { kAnswer, kCrash, kTimeout, kOutOfMemory, kProtocolFault };
  Kind kind = Kind::kCrash;
  ImplAnswer answer;   // kAnswer
  std::string detail;  // otherwise: what happened, with the end of the process's stderr
  double seconds = 0;
  // The wait was ended by the run's deadline or an interrupt (interrupt.h), not by the
  // implementation: the case was not judged (kind is kTimeout).
  bool cut_short = false;
};

class Worker {
 public:
  explicit Worker(WorkerOptions options);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Starts the program and reads its manifest. An error is a load failure (message, plus the
  // program's stderr when it says more).
  Status start(Manifest* manifest);
  // Runs one case, (re)starting the program first when it is not running. A response longer
  // than `max_response_bytes` (0: the protocol's 2^30) is a protocol fault of the case: the
  // validator never reads more than that.
  WorkerOutcome run(const conformance::Case& c, std::size_t max_response_bytes = 0);
  // Waits end at this time of now_seconds() (clock.h; 0: never), with WorkerOutcome::cut_short
  // set. Interrupts (interrupt.h) end them too.
  void set_deadline(double steady_seconds) { deadline_ = steady_seconds; }
  // Kills the process group, if any.
  void stop();

  int starts() const { return starts_; }

 private:
  enum class Wait { kMessage, kEof, kTimeout, kError, kCutShort };
  Status spawn();
  bool send(const std::string& wire, double deadline);
  Wait receive(std::string* body, double deadline, std::string* error);
  void drain_stderr();
  // Whether nothing reads the process's stdin any more (it closed it).
  bool input_closed() const;
  // Reaps the process after its stdout closed (or kills it first when `kill`); describes how
  // it ended and whether it looks like running out of memory.
  std::string reap(bool kill, bool* out_of_memory);
  std::string stderr_tail() const;
  // What the worker's guard-page fault handler said (plugin_host.h, kWorkerExitGuardFault).
  std::string guard_fault_text() const;
  // The earlier of `case_deadline` and the run's deadline.
  double effective_deadline(double case_deadline) const;
  // Whether a wait that ended at `case_deadline`'s effective deadline was cut by the run.
  bool cut_by_run(double case_deadline) const;

  WorkerOptions options_;
  Subprocess process_;  // in its own process group, with stdin, stdout and stderr pipes
  FrameDecoder decoder_;
  std::string stderr_;  // the last bytes of the process's stderr in this case
  std::int64_t next_id_ = 1;
  int starts_ = 0;
  double deadline_ = 0;
  int exit_status_ = -1;             // of the last reaped process when it exited, else -1
  int protocol_ = kProtocolVersion;  // the running process's choice
};

}  // namespace opconform::validator
