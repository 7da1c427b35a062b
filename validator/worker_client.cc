#include "opconform/validator/worker_client.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "opconform/validator/interrupt.h"
#include "opconform/validator/plugin_host.h"
#include "opconform/validator/reaper.h"

namespace opconform::validator {

namespace {

constexpr std::size_t kStderrTailBytes = 4096;
// A manifest is small: a handshake answer longer than this is not one.
constexpr std::size_t kMaxHandshakeBytes = std::size_t{1} << 20;

// Until `deadline`, in slices short enough to notice an interrupt.
int poll_timeout_ms(double deadline) {
  const double left = deadline - now_seconds();
  if (left <= 0) return 0;
  return static_cast<int>(std::min(left, kInterruptPollSeconds) * 1000.0 + 1.0);
}

}  // namespace

Worker::Worker(WorkerOptions options) : options_(std::move(options)) {}

double Worker::effective_deadline(double case_deadline) const {
  return deadline_ > 0 ? std::min(deadline_, case_deadline) : case_deadline;
}

bool Worker::cut_by_run(double case_deadline) const { return deadline_ > 0 && deadline_ < case_deadline; }

Worker::~Worker() { stop(); }

Status Worker::spawn() {
  if (options_.argv.empty()) return invalid_argument("no program to run");
  become_subreaper();  // descendants that leave the process group come back to us
  OPCONFORM_RETURN_IF_ERROR(
      process_.spawn({.argv = options_.argv,
                      .environment = options_.environment,
                      .search_path = true,
                      .confine = true,
                      .address_space_bytes = options_.address_space_bytes,
                      .exec_error = "opconform validate: cannot execute the implementation's program"}));
  note_worker_started(process_.pid());
  decoder_ = FrameDecoder();
  ++starts_;
  return Status();
}

void Worker::drain_stderr() {
  while (process_.stderr_fd() >= 0) {
    const Subprocess::Read read = Subprocess::read(process_.stderr_fd(), &stderr_);
    if (read == Subprocess::Read::kData) {
      if (stderr_.size() > 2 * kStderrTailBytes) stderr_.erase(0, stderr_.size() - kStderrTailBytes);
      continue;
    }
    if (read == Subprocess::Read::kEnd) process_.close_stderr();
    return;
  }
}

std::string Worker::stderr_tail() const {
  std::string tail = stderr_.size() > kStderrTailBytes ? stderr_.substr(stderr_.size() - kStderrTailBytes) : stderr_;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  return tail.empty() ? "" : "\n  stderr: " + tail;
}

bool Worker::send(const std::string& wire, double deadline) {
  std::size_t done = 0;
  while (done < wire.size()) {
    if (interrupted()) return false;
    const Subprocess::Ready ready = process_.poll(true, poll_timeout_ms(deadline));
    if (ready.count < 0 && errno == EINTR) continue;
    if (ready.count == 0 && now_seconds() < deadline) continue;
    if (ready.count <= 0) return false;
    if (ready.stderr_events) drain_stderr();
    if (ready.stdin_events & (POLLERR | POLLHUP)) return false;
    if (ready.stdin_events & POLLOUT) {
      const ssize_t n = ::write(process_.stdin_fd(), wire.data() + done, wire.size() - done);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
  }
  return true;
}

bool Worker::input_closed() const {
  return process_.stdin_fd() >= 0 && (process_.poll(true, 0).stdin_events & (POLLERR | POLLHUP)) != 0;
}

Worker::Wait Worker::receive(std::string* body, double deadline, std::string* error) {
  for (;;) {
    if (std::optional<std::string> message = decoder_.next(error)) {
      *body = std::move(*message);
      return Wait::kMessage;
    }
    if (!error->empty()) return Wait::kError;
    if (interrupted()) return Wait::kCutShort;
    const Subprocess::Ready ready = process_.poll(false, poll_timeout_ms(deadline));
    if (ready.count < 0 && errno == EINTR) continue;
    if (ready.count < 0) {
      *error = std::string("poll: ") + std::strerror(errno);
      return Wait::kError;
    }
    if (ready.count == 0) {
      // Dead, though a descendant still holds its stdout open: no answer can come.
      if (process_.has_exited()) return Wait::kEof;
      if (now_seconds() < deadline) continue;
      return Wait::kTimeout;
    }
    if (ready.stderr_events) drain_stderr();
    if (ready.stdout_events) {
      std::string bytes;
      const Subprocess::Read read = Subprocess::read(process_.stdout_fd(), &bytes);
      if (read == Subprocess::Read::kData)
        decoder_.feed(bytes.data(), bytes.size());
      else if (read != Subprocess::Read::kNothing)
        return Wait::kEof;
    }
  }
}

std::string Worker::reap(bool kill, bool* out_of_memory) {
  *out_of_memory = false;
  if (!process_.running()) return "not running";
  if (!kill) {
    // Its stdout closed: give it a moment to finish dying on its own.
    const double deadline = now_seconds() + 2.0;
    while (now_seconds() < deadline) {
      if (process_.has_exited()) break;
      drain_stderr();
      ::usleep(2000);
    }
  }
  const pid_t pid = process_.pid();
  process_.signal_group(SIGKILL);
  process_.signal(SIGKILL);  // also when it left its group
  rusage usage{};
  const int status = process_.wait(&usage);
  note_worker_reaped(pid);
  kill_adopted_processes(pid);  // its group's survivors and descendants that left the group
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  drain_stderr();
  process_.close_pipes();

  const std::int64_t max_rss = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
  const std::int64_t oom_rss =
      options_.oom_rss_bytes > 0 ? options_.oom_rss_bytes : options_.address_space_bytes / 4 * 3;
  if (oom_rss > 0 && max_rss >= oom_rss) *out_of_memory = true;
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == kWorkerExitOutOfMemory) *out_of_memory = true;
    return str_cat("exited with status ", WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (kill && sig == SIGKILL) return "was killed by the validator";
    const char* name = ::strsignal(sig);
    return str_cat("was killed by signal ", sig, " (", name ? name : "?", ")");
  }
  return "ended";
}

void Worker::stop() {
  if (!process_.running()) return;
  // A clean goodbye first: close stdin, wait briefly, then kill.
  process_.close_stdin();
  const double deadline = now_seconds() + 0.5;
  while (now_seconds() < deadline && !process_.has_exited()) ::usleep(1000);
  bool oom = false;
  reap(true, &oom);
}

Status Worker::start(Manifest* manifest) {
  stop();
  stderr_.clear();
  OPCONFORM_RETURN_IF_ERROR(spawn());
  const double handshake_deadline = now_seconds() + options_.handshake_timeout_seconds;
  const double deadline = effective_deadline(handshake_deadline);
  decoder_.set_limit(kMaxHandshakeBytes);
  std::string body, error;
  bool oom = false;
  Wait wait =
      send(frame(hello_message(options_.max_protocol)), deadline) ? receive(&body, deadline, &error) : Wait::kEof;
  if (wait != Wait::kMessage && (interrupted() || (now_seconds() >= deadline && cut_by_run(handshake_deadline))))
    wait = Wait::kCutShort;
  switch (wait) {
    case Wait::kMessage: break;
    case Wait::kCutShort: {
      reap(true, &oom);
      return invalid_argument(interrupted() ? "interrupted" : "the run's time was up", " during the handshake");
    }
    case Wait::kTimeout: {
      reap(true, &oom);
      return invalid_argument("no manifest within ", options_.handshake_timeout_seconds, " s", stderr_tail());
    }
    case Wait::kEof: {
      const std::string how = reap(false, &oom);
      return invalid_argument("the implementation ", how, " before sending its manifest", stderr_tail());
    }
    case Wait::kError: {
      reap(true, &oom);
      return invalid_argument("bad handshake: ", error, stderr_tail());
    }
  }
  if (Status s = parse_manifest_message(body, manifest, options_.max_protocol); !s.ok()) {
    reap(true, &oom);
    return invalid_argument(s.message(), stderr_tail());
  }
  protocol_ = manifest->protocol;
  return Status();
}

std::string Worker::guard_fault_text() const {
  // The worker's fault handler (guard_pages.h) wrote one line naming the buffer.
  const std::string marker(kGuardFaultMarker);
  const std::size_t at = stderr_.rfind(marker);
  if (at == std::string::npos) return "an access outside an output buffer (guard page)";
  const std::size_t begin = at + marker.size();
  return stderr_.substr(begin, stderr_.find('\n', begin) - begin);
}

WorkerOutcome Worker::run(const conformance::Case& c, std::size_t max_response_bytes) {
  WorkerOutcome result;
  const double started = now_seconds();
  if (!process_.running()) {
    Manifest ignored;
    if (Status s = start(&ignored); !s.ok()) {
      result.kind = WorkerOutcome::Kind::kCrash;
      result.detail = "could not restart the implementation: " + s.message();
      if (interrupted() || (deadline_ > 0 && now_seconds() >= deadline_)) {
        result.kind = WorkerOutcome::Kind::kTimeout;
        result.cut_short = true;
      }
      return result;
    }
  }
  stderr_.clear();
  const std::int64_t id = next_id_++;
  const double case_deadline = now_seconds() + options_.timeout_seconds;
  const double deadline = effective_deadline(case_deadline);
  decoder_.set_limit(max_response_bytes > 0 ? max_response_bytes : kMaxMessageBytes);
  std::string body, error;
  Wait wait = send(frame(run_message(id, c, protocol_)), deadline) ? receive(&body, deadline, &error) : Wait::kEof;
  if (wait == Wait::kEof && now_seconds() >= deadline) wait = Wait::kTimeout;
  if (wait != Wait::kMessage && (interrupted() || (wait == Wait::kTimeout && cut_by_run(case_deadline))))
    wait = Wait::kCutShort;
  bool oom = false;
  switch (wait) {
    case Wait::kMessage:
      if (Status s = parse_result_message(body, c, id, &result.answer, protocol_); !s.ok()) {
        reap(true, &oom);
        result.kind = WorkerOutcome::Kind::kProtocolFault;
        result.detail = "malformed result: " + s.message() + stderr_tail();
      } else {
        result.kind = WorkerOutcome::Kind::kAnswer;
        if (input_closed()) {
          // The channel broke during this case: blamed on it, not on the next one.
          reap(true, &oom);
          if (result.answer.kind != ImplAnswer::Kind::kFault) {
            result.kind = WorkerOutcome::Kind::kProtocolFault;
            result.detail = "the implementation closed its standard input during the case, so it cannot take another" +
                            stderr_tail();
          }
        }
      }
      break;
    case Wait::kCutShort:
      reap(true, &oom);
      result.kind = WorkerOutcome::Kind::kTimeout;
      result.cut_short = true;
      result.detail = interrupted() ? "interrupted" : "the run's time was up";
      break;
    case Wait::kTimeout:
      reap(true, &oom);
      result.kind = WorkerOutcome::Kind::kTimeout;
      result.detail = str_cat("no answer within ", options_.timeout_seconds, " s", stderr_tail());
      break;
    case Wait::kEof: {
      const std::string how = reap(false, &oom);
      result.kind = oom ? WorkerOutcome::Kind::kOutOfMemory : WorkerOutcome::Kind::kCrash;
      result.detail = "the implementation " + how + stderr_tail();
      if (exit_status_ == kWorkerExitGuardFault) {
        result.kind = WorkerOutcome::Kind::kProtocolFault;
        result.detail = guard_fault_text();
      }
      break;
    }
    case Wait::kError:
      reap(true, &oom);
      result.kind = WorkerOutcome::Kind::kProtocolFault;
      result.detail = error + stderr_tail();
      break;
  }
  result.seconds = now_seconds() - started;
  return result;
}

}  // namespace opconform::validator
