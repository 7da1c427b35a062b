// SPDX-License-Identifier: Apache-2.0
// A child process in its own process group, with pipes to its standard streams: what the
// worker client (worker_client.h) and the fuzz campaign (fuzz/campaign.h) run their programs
// with. The parent's ends of the pipes are non-blocking; poll() and read() serve timed reads.
// Destroying a Subprocess that still runs kills its group (SIGKILL) and reaps it.
//
//   Subprocess p;
//   Status s = p.spawn({.argv = {"/bin/prog", "arg"}, .environment = {"NAME=value"}});
//   Subprocess::Ready r = p.poll(false, 100);   // stdout or stderr readable within 100 ms
//   std::string out;
//   if (r.stdout_events) p.read(p.stdout_fd(), &out);
//   p.signal_group(SIGTERM);
//   int status = p.wait();                      // waitpid status
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "opconform/status.h"

namespace opconform::validator {

struct SubprocessOptions {
  std::vector<std::string> argv;         // program and arguments, exec'd directly
  std::vector<std::string> environment;  // NAME=VALUE entries added to (or replacing) ours
  bool search_path = false;              // argv[0] without a '/' is looked up in PATH (execvp)
  bool pipe_stdin = true;                // a pipe to its stdin (else it shares ours)
  bool merge_stderr = false;             // its stderr goes to the stdout pipe (else a pipe of its own)
  // The worker's confinement: it is killed when we die (PR_SET_PDEATHSIG), inherits no
  // descriptor beyond 0-2, and cannot signal this process or its process group (seccomp,
  // x86-64 only).
  bool confine = false;
  std::int64_t address_space_bytes = 0;  // RLIMIT_AS of the process; 0: none
  // When exec fails the child writes this line to its stderr, with `exec_error_reason` as
  // perror() does (": " and the reason), and exits with status 127.
  std::string exec_error = "cannot execute the program";
  bool exec_error_reason = false;
};

class Subprocess {
 public:
  Subprocess() = default;
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Starts the program in a new process group (whose id is its pid). An error (no program, no
  // pipe, no fork) starts nothing; a failing exec shows as the child's exit status 127. With a
  // stdin pipe this process ignores SIGPIPE from then on (a write to a dead child fails with
  // EPIPE); the child gets the default back. Not while another process of this object runs.
  Status spawn(SubprocessOptions options);

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }  // -1 when not running
  // Our ends of its pipes (non-blocking), -1 when there is none or it was closed.
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  void close_stdin();
  void close_stderr();
  void close_pipes();  // all three

  // What poll(2) said: `count` is its result (-1 with errno set), the others the revents.
  struct Ready {
    int count = 0;
    short stdin_events = 0, stdout_events = 0, stderr_events = 0;
  };
  // Waits up to `timeout_ms` (-1: no limit) until stderr is readable, or stdout is (stdin takes
  // bytes when `writing`). Closed pipes are not waited for.
  Ready poll(bool writing, int timeout_ms) const;

  enum class Read { kData, kNothing, kEnd, kError };
  // One read(2) of our end `fd`, appended to `out`: kNothing when it has no bytes now (EAGAIN,
  // EINTR), kEnd at end of file (`fd` stays open), kError with errno set.
  static Read read(int fd, std::string* out);

  // Whether it has exited (or was killed); it stays reapable. False when not running.
  bool has_exited() const;
  // Sends `sig` to its process group, or only to it (it may have left the group).
  void signal_group(int sig) const;
  void signal(int sig) const;
  // Waits for it to end (retrying on EINTR) and returns the waitpid status, with its resource
  // usage in `usage` when given; it is then not running. The pipes stay open. 0 when it was
  // not running.
  int wait(rusage* usage = nullptr);

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1, stdout_fd_ = -1, stderr_fd_ = -1;
};

}  // namespace opconform::validator
