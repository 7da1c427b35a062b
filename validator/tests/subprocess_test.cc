// Subprocess (subprocess.h): the child process of the worker client and the fuzz campaign.
#include "opconform/validator/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "opconform/validator/clock.h"

namespace opconform::validator {
namespace {

SubprocessOptions program(std::vector<std::string> argv) {
  SubprocessOptions o;
  o.argv = std::move(argv);
  return o;
}

SubprocessOptions shell(const std::string& script) { return program({"/bin/sh", "-c", script}); }

// Everything `fd` gives until its end of file (or 10 s), polling the process's pipes.
std::string read_all(Subprocess& p, int fd) {
  std::string out;
  const double deadline = now_seconds() + 10;
  while (now_seconds() < deadline) {
    p.poll(false, 100);
    const Subprocess::Read read = Subprocess::read(fd, &out);
    if (read == Subprocess::Read::kEnd || read == Subprocess::Read::kError) break;
  }
  return out;
}

TEST(Subprocess, CapturesStdoutAndStderrApartAndTheExitStatus) {
  Subprocess p;
  ASSERT_TRUE(p.spawn(shell("echo out; echo err >&2; exit 3")).ok());
  EXPECT_TRUE(p.running());
  EXPECT_EQ(read_all(p, p.stdout_fd()), "out\n");
  EXPECT_EQ(read_all(p, p.stderr_fd()), "err\n");
  const int status = p.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_FALSE(p.running());
  EXPECT_EQ(p.pid(), -1);
}

TEST(Subprocess, MergesStderrIntoStdoutAndCanLeaveStdinOurs) {
  Subprocess p;
  SubprocessOptions o = shell("echo out; echo err >&2");
  o.merge_stderr = true;
  o.pipe_stdin = false;
  ASSERT_TRUE(p.spawn(o).ok());
  EXPECT_EQ(p.stdin_fd(), -1);
  EXPECT_EQ(p.stderr_fd(), -1);
  EXPECT_EQ(read_all(p, p.stdout_fd()), "out\nerr\n");
  EXPECT_EQ(p.wait(), 0);
}

TEST(Subprocess, FeedsStdin) {
  Subprocess p;
  ASSERT_TRUE(p.spawn(program({"/bin/cat"})).ok());
  const std::string text = "hello\n";
  ASSERT_EQ(::write(p.stdin_fd(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  p.close_stdin();
  EXPECT_EQ(p.stdin_fd(), -1);
  EXPECT_EQ(read_all(p, p.stdout_fd()), text);
  EXPECT_EQ(p.wait(), 0);
}

TEST(Subprocess, AddsAndReplacesEnvironmentEntries) {
  ASSERT_EQ(::setenv("OPCONFORM_SUBPROCESS_TEST_OLD", "ours", 1), 0);
  ASSERT_EQ(::setenv("OPCONFORM_SUBPROCESS_TEST_KEPT", "kept", 1), 0);
  Subprocess p;
  SubprocessOptions o = shell(
      "echo $OPCONFORM_SUBPROCESS_TEST_OLD $OPCONFORM_SUBPROCESS_TEST_NEW $OPCONFORM_SUBPROCESS_TEST_KEPT; "
      "env | grep -c '^OPCONFORM_SUBPROCESS_TEST_OLD='");
  o.environment = {"OPCONFORM_SUBPROCESS_TEST_OLD=replaced", "OPCONFORM_SUBPROCESS_TEST_NEW=added"};
  ASSERT_TRUE(p.spawn(o).ok());
  EXPECT_EQ(read_all(p, p.stdout_fd()), "replaced added kept\n1\n");
  EXPECT_EQ(p.wait(), 0);
  ::unsetenv("OPCONFORM_SUBPROCESS_TEST_OLD");
  ::unsetenv("OPCONFORM_SUBPROCESS_TEST_KEPT");
}

TEST(Subprocess, AFailedExecExits127WithItsMessage) {
  Subprocess p;
  SubprocessOptions o = program({"/no/such/program"});
  o.exec_error = "test: cannot run it";
  ASSERT_TRUE(p.spawn(o).ok());
  EXPECT_EQ(read_all(p, p.stderr_fd()), "test: cannot run it\n");
  int status = p.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);

  // As perror() writes it, with the reason.
  o.exec_error_reason = true;
  ASSERT_TRUE(p.spawn(o).ok());
  EXPECT_EQ(read_all(p, p.stderr_fd()), std::string("test: cannot run it: ") + std::strerror(ENOENT) + "\n");
  status = p.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);
}

TEST(Subprocess, LooksTheProgramUpInPathOnlyWhenAsked) {
  Subprocess p;
  SubprocessOptions o = program({"sh", "-c", "exit 0"});
  o.search_path = true;
  ASSERT_TRUE(p.spawn(o).ok());
  EXPECT_EQ(p.wait(), 0);
  o.search_path = false;  // "sh" in the working folder
  ASSERT_TRUE(p.spawn(o).ok());
  const int status = p.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);
}

TEST(Subprocess, NoProgramIsAnError) {
  Subprocess p;
  EXPECT_FALSE(p.spawn({}).ok());
  EXPECT_FALSE(p.running());
}

TEST(Subprocess, RunsInItsOwnProcessGroupWhichASignalEnds) {
  Subprocess p;
  // A shell whose background child stays in its group.
  ASSERT_TRUE(p.spawn(shell("sleep 100 & echo $!; wait")).ok());
  const pid_t pid = p.pid();
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgrp());
  std::string line;
  const double deadline = now_seconds() + 10;
  while (line.find('\n') == std::string::npos && now_seconds() < deadline) {
    p.poll(false, 100);
    Subprocess::read(p.stdout_fd(), &line);
  }
  const pid_t sleeper = static_cast<pid_t>(std::atoi(line.c_str()));
  ASSERT_GT(sleeper, 0);
  EXPECT_EQ(::getpgid(sleeper), pid);
  EXPECT_FALSE(p.has_exited());
  p.signal_group(SIGTERM);
  const int status = p.wait();
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  // The sleeper got it too: it is gone (reaped here when it was adopted by this process, a
  // subreaper once a worker ran).
  const double gone_by = now_seconds() + 10;
  while (now_seconds() < gone_by) {
    ::waitpid(sleeper, nullptr, WNOHANG);
    if (::kill(sleeper, 0) != 0) break;
    ::usleep(1000);
  }
  EXPECT_NE(::kill(sleeper, 0), 0);
}

TEST(Subprocess, HasExitedLeavesItToWaitFor) {
  Subprocess p;
  ASSERT_TRUE(p.spawn(shell("exit 5")).ok());
  const double deadline = now_seconds() + 10;
  while (!p.has_exited() && now_seconds() < deadline) ::usleep(1000);
  EXPECT_TRUE(p.has_exited());
  EXPECT_TRUE(p.running());
  const int status = p.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
  EXPECT_FALSE(p.has_exited());
}

TEST(Subprocess, PollTimesOutOnASilentProcess) {
  Subprocess p;
  ASSERT_TRUE(p.spawn(program({"/bin/sleep", "100"})).ok());
  const Subprocess::Ready ready = p.poll(false, 20);
  EXPECT_EQ(ready.count, 0);
  std::string out;
  EXPECT_EQ(Subprocess::read(p.stdout_fd(), &out), Subprocess::Read::kNothing);  // non-blocking
  EXPECT_TRUE(out.empty());
  // stdin takes bytes.
  EXPECT_NE(p.poll(true, 0).stdin_events & POLLOUT, 0);
  p.signal(SIGKILL);
  const int status = p.wait();
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(Subprocess, TheDestructorKillsAndReapsARunningProcess) {
  pid_t pid = -1;
  {
    Subprocess p;
    ASSERT_TRUE(p.spawn(program({"/bin/sleep", "100"})).ok());
    pid = p.pid();
  }
  // Reaped: no zombie is left, so the pid names no process of ours.
  siginfo_t info{};
  EXPECT_NE(::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG), 0);
  EXPECT_EQ(errno, ECHILD);
}

TEST(Subprocess, ConfinedProcessesInheritNoDescriptorAndGetTheirAddressSpaceLimit) {
  const int inherited = ::open("/dev/null", O_RDONLY);  // without O_CLOEXEC
  ASSERT_GE(inherited, 0);
  const std::string script =
      "test -e /proc/self/fd/" + std::to_string(inherited) + " && echo open || echo closed; ulimit -v";
  std::string outputs[2];
  for (bool confine : {false, true}) {
    Subprocess p;
    SubprocessOptions o = shell(script);
    o.confine = confine;
    o.address_space_bytes = confine ? std::int64_t{1} << 30 : 0;
    ASSERT_TRUE(p.spawn(o).ok());
    outputs[confine] = read_all(p, p.stdout_fd());
    EXPECT_EQ(p.wait(), 0);
  }
  ::close(inherited);
  EXPECT_EQ(outputs[0].substr(0, 5), "open\n");
  EXPECT_EQ(outputs[1], "closed\n" + std::to_string((std::int64_t{1} << 30) / 1024) + "\n");
}

#if defined(__x86_64__)
TEST(Subprocess, AConfinedProcessCannotSignalUs) {
  if (::prctl(PR_GET_SECCOMP) < 0) GTEST_SKIP() << "no seccomp here";
  for (bool confine : {false, true}) {
    Subprocess p;
    SubprocessOptions o = shell("kill -0 $PPID && echo allowed || echo denied");
    o.confine = confine;
    ASSERT_TRUE(p.spawn(o).ok());
    EXPECT_EQ(read_all(p, p.stdout_fd()), confine ? "denied\n" : "allowed\n");
    p.wait();
  }
}
#endif

}  // namespace
}  // namespace opconform::validator
