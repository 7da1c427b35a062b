#include "opconform/validator/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

// True once `pid` has exited (it stays reapable).
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

void close_fd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

// A seccomp filter that keeps the worker and its descendants from signalling the validator
// (pid `validator`, process group `group`): kill() of it, of its group or of every process,
// a thread-directed or queued signal to it, and a pidfd of it fail with EPERM. So a plug-in
// cannot stop (SIGSTOP) or kill the validator. Everything else is allowed. Empty where the
// architecture is not known here.
std::vector<sock_filter> signal_shield(pid_t validator, pid_t group) {
#if defined(__x86_64__)
  const auto pid = static_cast<std::uint32_t>(validator);
  const auto minus_pid = static_cast<std::uint32_t>(-validator);
  const auto minus_group = static_cast<std::uint32_t>(-group);
  constexpr std::uint32_t kDeny = SECCOMP_RET_ERRNO | EPERM;
  constexpr std::uint32_t kArg0 = offsetof(seccomp_data, args[0]);  // its low 32 bits (a pid_t)
  // Jump offsets count instructions from the next one.
  return {
      /*  0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /*  1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      /*  2 */ BPF_STMT(BPF_RET | BPF_K, kDeny),  // i386 calls (int 0x80) would pass the numbers below
      /*  3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /*  4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  // x32 calls, likewise
      /*  5 */ BPF_STMT(BPF_RET | BPF_K, kDeny),
      /*  6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_send_signal, 0, 1),  // its target is not visible
      /*  7 */ BPF_STMT(BPF_RET | BPF_K, kDeny),
      /*  8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 10, 0),  // to 19
      /*  9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tkill, 5, 0),  // to 15
      /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 4, 0),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigqueueinfo, 3, 0),
      /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_tgsigqueueinfo, 2, 0),
      /* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 1, 0),
      /* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      // 15: a call whose first argument is a process or thread: not the validator.
      /* 15 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0),
      /* 16 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pid, 0, 1),
      /* 17 */ BPF_STMT(BPF_RET | BPF_K, kDeny),
      /* 18 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      // 19: kill(pid, sig): not the validator, its process group, or every process (-1).
      /* 19 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0),
      /* 20 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pid, 3, 0),  // to 24
      /* 21 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, minus_pid, 2, 0),
      /* 22 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, minus_group, 1, 0),
      /* 23 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xFFFFFFFFu, 0, 1),
      /* 24 */ BPF_STMT(BPF_RET | BPF_K, kDeny),
      /* 25 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
#else
  (void)validator, (void)group;
  return {};
#endif
}

}  // namespace

Worker::Worker(WorkerOptions options) : options_(std::move(options)) {}

double Worker::effective_deadline(double case_deadline) const {
  return deadline_ > 0 ? std::min(deadline_, case_deadline) : case_deadline;
}

bool Worker::cut_by_run(double case_deadline) const { return deadline_ > 0 && deadline_ < case_deadline; }

Worker::~Worker() { stop(); }

Status Worker::spawn() {
  static const bool ignored_sigpipe = [] {
    ::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe gives EPIPE instead
    return true;
  }();
  (void)ignored_sigpipe;
  if (options_.argv.empty()) return invalid_argument("no program to run");
  become_subreaper();  // descendants that leave the process group come back to us

  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return internal_error("pipe: ", std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return internal_error("pipe: ", std::strerror(errno));
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return internal_error("pipe: ", std::strerror(errno));
  }
  std::vector<char*> argv;
  for (std::string& a : options_.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Our environment with options_.environment's entries replacing those of the same name.
  std::vector<std::string> environment = options_.environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(environment.begin(), environment.end(), [&](const std::string& x) {
      return x.size() > name.size() && x.compare(0, name.size(), name) == 0 && x[name.size()] == '=';
    });
    if (!replaced) environment.emplace_back(entry);
  }
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  std::vector<sock_filter> shield = signal_shield(parent, ::getpgrp());

  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    return internal_error("fork: ", std::strerror(errno));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here to exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::syscall(SYS_close_range, 3u, ~0u, 0u);
    ::signal(SIGPIPE, SIG_DFL);
    if (!shield.empty()) {
      // Where seccomp is not to be had, the worker runs without the shield.
      const sock_fprog program{static_cast<unsigned short>(shield.size()), shield.data()};
      if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
    }
    if (options_.address_space_bytes > 0) {
      const rlimit limit{static_cast<rlim_t>(options_.address_space_bytes),
                         static_cast<rlim_t>(options_.address_space_bytes)};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    const char message[] = "opconform validate: cannot execute the implementation's program\n";
    ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  note_worker_started(pid);
  pid_ = pid;
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  decoder_ = FrameDecoder();
  ++starts_;
  return Status();
}

void Worker::drain_stderr() {
  char buffer[4096];
  while (stderr_fd_ >= 0) {
    const ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
    if (n > 0) {
      stderr_.append(buffer, static_cast<std::size_t>(n));
      if (stderr_.size() > 2 * kStderrTailBytes) stderr_.erase(0, stderr_.size() - kStderrTailBytes);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) close_fd(&stderr_fd_);
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
    pollfd fds[2] = {{stdin_fd_, POLLOUT, 0}, {stderr_fd_, POLLIN, 0}};
    const int ready = ::poll(fds, stderr_fd_ >= 0 ? 2 : 1, poll_timeout_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && now_seconds() < deadline) continue;
    if (ready <= 0) return false;
    if (fds[1].revents) drain_stderr();
    if (fds[0].revents & (POLLERR | POLLHUP)) return false;
    if (fds[0].revents & POLLOUT) {
      const ssize_t n = ::write(stdin_fd_, wire.data() + done, wire.size() - done);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
  }
  return true;
}

bool Worker::input_closed() const {
  pollfd fd{stdin_fd_, POLLOUT, 0};
  return stdin_fd_ >= 0 && ::poll(&fd, 1, 0) == 1 && (fd.revents & (POLLERR | POLLHUP)) != 0;
}

Worker::Wait Worker::receive(std::string* body, double deadline, std::string* error) {
  for (;;) {
    if (std::optional<std::string> message = decoder_.next(error)) {
      *body = std::move(*message);
      return Wait::kMessage;
    }
    if (!error->empty()) return Wait::kError;
    if (interrupted()) return Wait::kCutShort;
    pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
    const int ready = ::poll(fds, stderr_fd_ >= 0 ? 2 : 1, poll_timeout_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      *error = std::string("poll: ") + std::strerror(errno);
      return Wait::kError;
    }
    if (ready == 0) {
      // Dead, though a descendant still holds its stdout open: no answer can come.
      if (has_exited(pid_)) return Wait::kEof;
      if (now_seconds() < deadline) continue;
      return Wait::kTimeout;
    }
    if (fds[1].revents) drain_stderr();
    if (fds[0].revents) {
      char buffer[65536];
      const ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
      if (n > 0) decoder_.feed(buffer, static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR)) return Wait::kEof;
    }
  }
}

std::string Worker::reap(bool kill, bool* out_of_memory) {
  *out_of_memory = false;
  if (pid_ < 0) return "not running";
  if (!kill) {
    // Its stdout closed: give it a moment to finish dying on its own.
    const double deadline = now_seconds() + 2.0;
    while (now_seconds() < deadline) {
      if (has_exited(pid_)) break;
      drain_stderr();
      ::usleep(2000);
    }
  }
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  rusage usage{};
  while (::wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  note_worker_reaped(pid_);
  kill_adopted_processes(pid_);  // its group's survivors and descendants that left the group
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  drain_stderr();
  close_fd(&stdin_fd_);
  close_fd(&stdout_fd_);
  close_fd(&stderr_fd_);
  pid_ = -1;

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
  if (pid_ < 0) return;
  // A clean goodbye first: close stdin, wait briefly, then kill.
  close_fd(&stdin_fd_);
  const double deadline = now_seconds() + 0.5;
  while (now_seconds() < deadline && !has_exited(pid_)) ::usleep(1000);
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

RunResult Worker::run(const conformance::Case& c, std::size_t max_response_bytes) {
  RunResult result;
  const double started = now_seconds();
  if (pid_ < 0) {
    Manifest ignored;
    if (Status s = start(&ignored); !s.ok()) {
      result.kind = RunResult::Kind::kCrash;
      result.detail = "could not restart the implementation: " + s.message();
      if (interrupted() || (deadline_ > 0 && now_seconds() >= deadline_)) {
        result.kind = RunResult::Kind::kTimeout;
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
        result.kind = RunResult::Kind::kProtocolFault;
        result.detail = "malformed result: " + s.message() + stderr_tail();
      } else {
        result.kind = RunResult::Kind::kAnswer;
        if (input_closed()) {
          // The channel broke during this case: blamed on it, not on the next one.
          reap(true, &oom);
          if (result.answer.kind != ImplAnswer::Kind::kFault) {
            result.kind = RunResult::Kind::kProtocolFault;
            result.detail = "the implementation closed its standard input during the case, so it cannot take another" +
                            stderr_tail();
          }
        }
      }
      break;
    case Wait::kCutShort:
      reap(true, &oom);
      result.kind = RunResult::Kind::kTimeout;
      result.cut_short = true;
      result.detail = interrupted() ? "interrupted" : "the run's time was up";
      break;
    case Wait::kTimeout:
      reap(true, &oom);
      result.kind = RunResult::Kind::kTimeout;
      result.detail = str_cat("no answer within ", options_.timeout_seconds, " s", stderr_tail());
      break;
    case Wait::kEof: {
      const std::string how = reap(false, &oom);
      result.kind = oom ? RunResult::Kind::kOutOfMemory : RunResult::Kind::kCrash;
      result.detail = "the implementation " + how + stderr_tail();
      if (exit_status_ == kWorkerExitGuardFault) {
        result.kind = RunResult::Kind::kProtocolFault;
        result.detail = guard_fault_text();
      }
      break;
    }
    case Wait::kError:
      reap(true, &oom);
      result.kind = RunResult::Kind::kProtocolFault;
      result.detail = error + stderr_tail();
      break;
  }
  result.seconds = now_seconds() - started;
  return result;
}

}  // namespace opconform::validator
