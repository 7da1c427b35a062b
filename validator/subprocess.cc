#include "opconform/validator/subprocess.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace opconform::validator {

namespace {

void close_fd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

// A seccomp filter that keeps the child and its descendants from signalling this process
// (pid `parent`, process group `group`): kill() of it, of its group or of every process, a
// thread-directed or queued signal to it, and a pidfd of it fail with EPERM. So a plug-in
// cannot stop (SIGSTOP) or kill the validator. Everything else is allowed. Empty where the
// architecture is not known here.
std::vector<sock_filter> signal_shield(pid_t parent, pid_t group) {
#if defined(__x86_64__)
  const auto pid = static_cast<std::uint32_t>(parent);
  const auto minus_pid = static_cast<std::uint32_t>(-parent);
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
  (void)parent, (void)group;
  return {};
#endif
}

// Our environment with `changes` (NAME=VALUE) replacing the entries of the same name.
std::vector<std::string> environment_with(const std::vector<std::string>& changes) {
  std::vector<std::string> environment = changes;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(changes.begin(), changes.end(), [&](const std::string& x) {
      return x.size() > name.size() && x.compare(0, name.size(), name) == 0 && x[name.size()] == '=';
    });
    if (!replaced) environment.emplace_back(entry);
  }
  return environment;
}

}  // namespace

Subprocess::~Subprocess() {
  if (running()) {
    signal_group(SIGKILL);
    signal(SIGKILL);
    wait();
  }
  close_pipes();
}

Status Subprocess::spawn(SubprocessOptions options) {
  if (options.argv.empty()) return invalid_argument("no program to run");
  if (running()) return internal_error("a process is already running");
  if (options.pipe_stdin) {
    static const bool ignored_sigpipe = [] {
      ::signal(SIGPIPE, SIG_IGN);  // a dead child's pipe gives EPIPE instead
      return true;
    }();
    (void)ignored_sigpipe;
  }
  // Our ends first, then the child's: in[1], out[0], err[0]; in[0], out[1], err[1].
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]}) close_fd(fd);
  };
  if ((options.pipe_stdin && ::pipe2(in, O_CLOEXEC) != 0) || ::pipe2(out, O_CLOEXEC) != 0 ||
      (!options.merge_stderr && ::pipe2(err, O_CLOEXEC) != 0)) {
    const int error = errno;
    close_all();
    return internal_error("pipe: ", std::strerror(error));
  }
  std::vector<char*> argv;
  for (std::string& a : options.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = environment_with(options.environment);
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string exec_error = options.exec_error + "\n";
  const pid_t parent = ::getpid();
  std::vector<sock_filter> shield;
  if (options.confine) shield = signal_shield(parent, ::getpgrp());

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    close_all();
    return internal_error("fork: ", std::strerror(error));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here to exec.
    ::setpgid(0, 0);
    if (options.confine) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
    }
    if (in[0] >= 0) ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1] >= 0 ? err[1] : out[1], STDERR_FILENO);
    if (options.confine) ::syscall(SYS_close_range, 3u, ~0u, 0u);
    if (options.pipe_stdin) ::signal(SIGPIPE, SIG_DFL);
    if (!shield.empty()) {
      // Where seccomp is not to be had, the child runs without the shield.
      const sock_fprog program{static_cast<unsigned short>(shield.size()), shield.data()};
      if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
    }
    if (options.address_space_bytes > 0) {
      const rlimit limit{static_cast<rlim_t>(options.address_space_bytes),
                         static_cast<rlim_t>(options.address_space_bytes)};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    if (options.search_path)
      ::execvpe(argv[0], argv.data(), envp.data());
    else
      ::execve(argv[0], argv.data(), envp.data());
    if (options.exec_error_reason) {
      std::perror(options.exec_error.c_str());
    } else {
      ssize_t ignored = ::write(STDERR_FILENO, exec_error.data(), exec_error.size());
      (void)ignored;
    }
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  close_fd(&in[0]), close_fd(&out[1]), close_fd(&err[1]);
  pid_ = pid;
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_})
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return Status();
}

void Subprocess::close_stdin() { close_fd(&stdin_fd_); }

void Subprocess::close_stderr() { close_fd(&stderr_fd_); }

void Subprocess::close_pipes() {
  close_fd(&stdin_fd_);
  close_fd(&stdout_fd_);
  close_fd(&stderr_fd_);
}

Subprocess::Ready Subprocess::poll(bool writing, int timeout_ms) const {
  // poll(2) skips the negative (closed) descriptors.
  pollfd fds[2] = {writing ? pollfd{stdin_fd_, POLLOUT, 0} : pollfd{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
  Ready ready;
  ready.count = ::poll(fds, 2, timeout_ms);
  (writing ? ready.stdin_events : ready.stdout_events) = fds[0].revents;
  ready.stderr_events = fds[1].revents;
  return ready;
}

Subprocess::Read Subprocess::read(int fd, std::string* out) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    out->append(buffer, static_cast<std::size_t>(n));
    return Read::kData;
  }
  if (n == 0) return Read::kEnd;
  return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? Read::kNothing : Read::kError;
}

bool Subprocess::has_exited() const {
  if (!running()) return false;
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

void Subprocess::signal_group(int sig) const {
  if (running()) ::kill(-pid_, sig);
}

void Subprocess::signal(int sig) const {
  if (running()) ::kill(pid_, sig);
}

int Subprocess::wait(rusage* usage) {
  if (!running()) return 0;
  int status = 0;
  while (::wait4(pid_, &status, 0, usage) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

}  // namespace opconform::validator
