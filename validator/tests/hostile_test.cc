// `opconform validate` against hostile implementations and hostile paths: each test is one way an
// implementation or a command line tried to crash the validator, exhaust its memory, blame the
// wrong case, clobber a file it should not, or freeze it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "../asan.h"
#include "test_support.h"

namespace opconform::validator {
namespace {

using namespace opconform::testing;

std::string hostile(const std::string& mode, const std::string& argument) {
  return std::string("exec:") + OPCONFORM_TEST_HOSTILE + " " + mode + " " + argument;
}

// The opconform command line run as a child process: its exit status, output and its own peak
// RSS (wait4's, so no other test's allocations count).
struct CliRun {
  int exit_code = -1;
  std::int64_t peak_rss_bytes = 0;
  std::string out, err;
};

CliRun run_cli(const std::vector<std::string>& args, const fs::path& dir) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  std::vector<std::string> argv = {OPCONFORM_TEST_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    ::execv(raw[0], raw.data());
    ::_exit(127);
  }
  CliRun r;
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.peak_rss_bytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

[[maybe_unused]] constexpr std::int64_t kValidatorRssBound = std::int64_t{100} << 20;

// 1. A reply nested 100,000 deep is a malformed answer of that case, not a stack overflow.
TEST(HostileReplies, DeepNestingIsAFaultOfTheCase) {
  ValidateOptions o = options_for(hostile("deep-reply", "100000"));
  o.replay = {data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "deep-reply");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.count("fault"), 1);
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "JSON nested deeper than 64 levels");
  EXPECT_EQ(r.report["state"], "complete");
}

// 1b. In protocol version 2, a tensor whose header claims 2^40 elements over 8 payload bytes is
// a malformed answer of that case, refused before anything is allocated for it.
TEST(HostileReplies, ABinaryClaimBeyondThePayloadIsAFaultOfTheCase) {
  ValidateOptions o = options_for(hostile("huge-claim", "1099511627776"));
  o.replay = {data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "huge-claim");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.count("fault"), 1);
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(),
                  "outputs.merged: offset and bytes must lie inside the payload of 8 bytes");
}

// 4. What the validator keeps of an implementation's text is bounded: a 900 KB fault per case
// leaves a fixed prefix (its length noted) in the record, the reports and the signature.
TEST(HostileReplies, LongFaultTextIsKeptAsABoundedPrefix) {
  ValidateOptions o = generated_cases_for(hostile("long-fault", "900000"), 150);
  o.check_pairs = false;
  o.max_shrink_runs = 5;
  const RunOutcome r = run_validator(o, "long-fault");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_GE(r.count("fault"), 100);
  int whole = 0;
  for (const auto& f : r.report["failures"]) {
    const std::string detail = f["detail"].get<std::string>();
    if (f.contains("saved")) {  // the group's first case: the fault's first 4096 bytes
      ++whole;
      EXPECT_LT(detail.size(), 6000u);
      EXPECT_CONTAINS(detail, "... (900000 bytes in all)");
    } else {  // later cases: the head of that
      EXPECT_LT(detail.size(), 700u);
      EXPECT_CONTAINS(detail, "the group's first case has it whole");
    }
  }
  EXPECT_EQ(whole, 1);
  for (const auto& g : r.report["groups"]) EXPECT_LT(g["signature"].get<std::string>().size(), 300u);
  EXPECT_LT(fs::file_size(r.dir / "report.json"), std::uintmax_t{256} << 10);
  EXPECT_LT(r.out.size(), 64u << 10);
}

// 10. Control bytes in an implementation's text reach the terminal escaped.
TEST(HostileReplies, ControlBytesInFaultTextAreEscapedOnTheTerminal) {
  ValidateOptions o = options_for(hostile("escape-fault", "-"));
  o.replay = {data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "escape-fault");
  EXPECT_EQ(r.count("fault"), 1);
  EXPECT_LACKS(r.out, "\x1b");
  EXPECT_LACKS(r.out, std::string(1, '\0'));
  EXPECT_LACKS(r.out, "\x07");
  EXPECT_LACKS(r.out, "\xc2\x9b");
  EXPECT_CONTAINS(r.out, "kernel says \\x1b[2J\\x1b]0;owned\\x07 and \\x00 and \\xc2\\x9b31m");
  // The JSON report keeps the text as it was (JSON escapes it).
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "kernel says \x1b[2J");
}

TEST(Printable, EscapesControlsC1AndBrokenUtf8AndKeepsTheRest) {
  EXPECT_EQ(printable("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(printable("\x1b[0m\x7f"), "\\x1b[0m\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
  EXPECT_EQ(printable("\xc2\x85"), "\\xc2\\x85");           // a C1 control (NEL)
  EXPECT_EQ(printable("x\xff\xc3"), "x\\xff\\xc3");         // not UTF-8, cut short
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
}

// 5. A plug-in that closes the worker's stdin, stdout and stderr fails its own case; the next
// case runs in a fresh worker and passes.
TEST(HostilePlugins, ClosingTheWorkersStdioIsBlamedOnThatCase) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_CLOSES_STDIO);
  o.replay = {data_file("stitch_int16"), data_file("stitch_int32"), data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "closes-stdio");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.count("fault"), 1) << r.out;
  EXPECT_EQ(r.count("crash"), 0) << r.out;
  EXPECT_EQ(r.count("agree"), 2) << r.out;
  const nlohmann::json f = r.failure("fault");
  EXPECT_EQ(f["name"], "stitch_int16");
  EXPECT_CONTAINS(f["detail"].get<std::string>(), "closed or replaced the worker's standard input");
}

// 11. A write that jumps the 1 MiB guard after a small output is still named as an overrun.
TEST(HostilePlugins, AWriteBeyondTheGuardRegionNamesTheOutput) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_FAR_OVERRUN);
  o.replay = {data_file("stitch_int16"), data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "far-overrun");
  EXPECT_EQ(r.count("agree"), 1) << r.out;
#if defined(OPCONFORM_ASAN)
  // A sanitized plug-in's own instrumentation may see the write first (it can land in ASan's
  // heap): then the case is a crash with ASan's report, which names the overflow.
  if (r.count("crash") == 1) {
    EXPECT_CONTAINS(r.failure("crash")["detail"].get<std::string>(), "AddressSanitizer");
    return;
  }
#endif
  EXPECT_EQ(r.count("crash"), 0) << r.out;
  EXPECT_EQ(r.count("fault"), 1) << r.out;
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(),
                  "wrote past the end of its buffer (beyond its guard pages); at offset +1048704 from its end");
}

// 12. A plug-in that sends SIGSTOP to the validator does not freeze it. A watchdog process
// resumes this test process should it ever be stopped, and says so in a marker file.
TEST(HostilePlugins, APluginCannotStopTheValidator) {
  const fs::path marker = fresh_dir("stop-watchdog") / "was-stopped";
  const pid_t self = ::getpid();
  const pid_t watchdog = ::fork();
  if (watchdog == 0) {
    const std::string stat = "/proc/" + std::to_string(self) + "/stat";
    for (;;) {
      const std::string text = read_text(stat);
      const std::size_t paren = text.rfind(')');
      if (text.empty()) ::_exit(0);
      if (paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'T') {
        std::ofstream(marker) << "stopped\n";
        ::kill(self, SIGCONT);
      }
      ::usleep(20000);
    }
  }
  ValidateOptions o = options_for(OPCONFORM_FAKE_STOPS_VALIDATOR);
  o.replay = {data_file("stitch_int16"), data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "stops-validator");
  ::kill(watchdog, SIGKILL);
  ::waitpid(watchdog, nullptr, 0);
  EXPECT_FALSE(fs::exists(marker)) << "the plug-in stopped the validator";
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.count("agree"), 2);
}

// 2. Reports replace regular files only; through anything else they are written, never
// replaced; a link stays a link.
TEST(HostilePaths, AReportNeverReplacesWhatIsNotARegularFile) {
  const fs::path dir = fresh_dir("report-targets");
  // A FIFO with a reader: it stays a FIFO and carries exactly one report (read once the run is
  // over: a small report fits in the pipe's buffer).
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  // A link to a regular file: the file gets the report, the link stays.
  const fs::path file = dir / "real.xml", link = dir / "link.xml";
  std::ofstream(file) << "old";
  fs::create_symlink(file, link);
  ValidateOptions o = options_for("");
  o.replay = {data_file("stitch_float32")};
  o.json_path = fifo.string();
  o.junit_path = link.string();
  // A character device (a copy of /dev/null), where this user may make one.
  const fs::path device = dir / "null";
  const bool have_device = ::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0;
  if (have_device) o.jsonl_path = device.string();
  std::ostringstream out, err;  // run_validate itself: run_validator would read the FIFO back
  const int exit_code = run_validate(o, out, err);
  std::string received;
  char buffer[4096];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;)
    received.append(buffer, static_cast<std::size_t>(n));
  ::close(reader);
  EXPECT_EQ(exit_code, 0) << err.str();
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  const nlohmann::json report = nlohmann::json::parse(received, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << received;
  EXPECT_EQ(report["state"], "complete");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_CONTAINS(read_text(file), "<testsuites");
  if (have_device) {
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status(device)));
  }
}

TEST(HostilePaths, AFolderOrAFifoNobodyReadsIsRefusedBeforeTheFirstCase) {
  const fs::path dir = fresh_dir("report-refused");
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const fs::path& bad : {dir, fifo}) {
    ValidateOptions o = options_for(OPCONFORM_FAKE_CRASH);
    o.replay = {data_file("stitch_int16")};
    o.json_path = bad.string();
    const RunOutcome r = run_validator(o, "report-refused-run");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_CONTAINS(r.err, "cannot write " + bad.string() + " (--json): ");
    EXPECT_LACKS(r.out, "cases,");
  }
}

// 8. A JSON Lines stream that cannot be written stops the run before its first case.
TEST(HostilePaths, AnUnwritableJsonlStreamIsCaughtBeforeTheFirstCase) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_CRASH);
  o.replay = {data_file("stitch_int16")};
  o.jsonl_path = "/dev/full";
  const RunOutcome r = run_validator(o, "jsonl-dev-full");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "cannot write /dev/full: No space left on device");
  EXPECT_LACKS(r.out, "cases,");
}

// 9. Two reports on one file would leave one of them; it is refused.
TEST(HostilePaths, TwoReportsOnOneFileAreRefused) {
  const fs::path dir = fresh_dir("same-report");
  const std::string path = (dir / "report").string();
  fs::create_symlink(dir / "report", dir / "alias");
  struct Pair {
    std::string ValidateOptions::*a;
    std::string ValidateOptions::*b;
    std::string b_path;
    const char* message;
  };
  const Pair pairs[] = {
      {&ValidateOptions::json_path, &ValidateOptions::junit_path, path, "--json and --junit name the same file"},
      {&ValidateOptions::json_path, &ValidateOptions::jsonl_path, path, "--json and --jsonl name the same file"},
      {&ValidateOptions::junit_path, &ValidateOptions::jsonl_path, (dir / "alias").string(),
       "--junit and --jsonl name the same file"},
  };
  for (const Pair& p : pairs) {
    ValidateOptions o = options_for("");
    o.replay = {data_file("stitch_float32")};
    o.json_path = (dir / "other.json").string();
    o.junit_path = (dir / "other.xml").string();
    o.*p.a = path;
    o.*p.b = p.b_path;
    const RunOutcome r = run_validator(o, "same-report-run");
    EXPECT_EQ(r.exit_code, 2) << p.message;
    EXPECT_CONTAINS(r.err, p.message);
  }
  ValidateOptions o = options_for("");
  o.replay = {data_file("stitch_float32")};
  o.json_path = data_file("stitch_float32");
  const RunOutcome r = run_validator(o, "report-over-vector");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--json names a vector given to --replay");
}

// 7. --save-failures naming a regular file is refused before the first case.
TEST(HostilePaths, SaveFailuresNamingAFileIsRefused) {
  const fs::path file = fresh_dir("save-into-file") / "a-file";
  std::ofstream(file) << "not a folder";
  ValidateOptions o = options_for(OPCONFORM_FAKE_CRASH);
  o.replay = {data_file("stitch_int16")};
  o.save_failures_dir = file.string();
  const RunOutcome r = run_validator(o, "save-into-file-run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--save-failures " + file.string() + ": not a folder");
  EXPECT_LACKS(r.out, "failures saved under");
  EXPECT_EQ(read_text(file), "not a folder");
}

// 14. Without --save-failures, failures go to one folder per implementation, reused by each run.
TEST(HostilePaths, DefaultFailureFolderIsOnePerImplementationAndReused) {
  const fs::path cache = fresh_dir("xdg-cache");
  const char* previous = std::getenv("XDG_CACHE_HOME");
  const std::string saved_previous = previous ? previous : "";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  std::vector<std::size_t> files;
  for (int run = 0; run < 2; ++run) {
    ValidateOptions o = generated_cases_for(OPCONFORM_FAKE_CRASH, 40);
    o.check_pairs = false;
    o.max_shrink_runs = 20;
    std::ostringstream out, err;
    EXPECT_EQ(run_validate(o, out, err), 1);
    const fs::path root = cache / "opconform" / "failures";
    ASSERT_TRUE(fs::is_directory(root)) << out.str();
    std::vector<fs::path> folders(fs::directory_iterator(root), fs::directory_iterator{});
    ASSERT_EQ(folders.size(), 1u);
    EXPECT_EQ(folders[0], fs::path(default_failures_dir(o.impl)));
    EXPECT_CONTAINS(out.str(), "failures saved under " + folders[0].string());
    files.push_back(
        static_cast<std::size_t>(std::distance(fs::directory_iterator(folders[0]), fs::directory_iterator{})));
  }
  if (previous)
    ::setenv("XDG_CACHE_HOME", saved_previous.c_str(), 1);
  else
    ::unsetenv("XDG_CACHE_HOME");
  EXPECT_GE(files[0], 1u);
  EXPECT_EQ(files[1], files[0]) << "a second run of the same implementation added files";
}

// 3, 14 and the validator's own memory, from the command line as a user runs it.
TEST(HostileCommandLine, AnEmptyImplIsAnError) {
  const fs::path dir = fresh_dir("empty-impl");
  for (const char* command : {"validate", "run"}) {
    const CliRun r = run_cli({command, "--impl", "", "--json", (dir / "r.json").string()}, dir);
    EXPECT_EQ(r.exit_code, 2) << command << r.out << r.err;
    EXPECT_CONTAINS(r.err, "an empty value (an unset variable?)");
    EXPECT_FALSE(fs::exists(dir / "r.json"));
  }
}

TEST(HostileCommandLine, HelpSaysWhereFailuresGo) {
  const CliRun r = run_cli({"validate", "--help"}, fresh_dir("help"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_CONTAINS(r.out, "$XDG_CACHE_HOME/opconform/failures/NAME-HASH");
}

TEST(HostileCommandLine, TheValidatorStaysUnder100MiBAgainstHostileReplies) {
  const fs::path dir = fresh_dir("cli-rss");
  const std::string vector = data_file("stitch_float32");
  const fs::path not_a_folder = dir / "file";
  std::ofstream(not_a_folder) << "x";
  struct Probe {
    const char* what;
    std::vector<std::string> args;
    int exit_code;
  };
  const Probe probes[] = {
      {"deep reply", {"validate", "--impl", hostile("deep-reply", "100000"), "--replay", vector}, 1},
      {"binary claim of 2^40 elements",
       {"validate", "--impl", hostile("huge-claim", "1099511627776"), "--replay", vector},
       1},
      {"long faults",
       {"validate", "--impl", hostile("long-fault", "900000"), "--no-corpus", "--no-check-pairs", "--cases", "150",
        "--save-failures", (dir / "saved").string(), "--json", (dir / "r.json").string()},
       1},
      {"save-failures is a file",
       {"validate", "--impl", hostile("long-fault", "900000"), "--save-failures", not_a_folder.string()},
       2},
  };
  for (const Probe& p : probes) {
    const CliRun r = run_cli(p.args, dir);
    EXPECT_EQ(r.exit_code, p.exit_code) << p.what << "\n" << r.out << r.err;
#if !defined(OPCONFORM_ASAN)  // ASan's shadow memory and quarantine are most of a sanitized RSS
    EXPECT_LT(r.peak_rss_bytes, kValidatorRssBound) << p.what;
#endif
    std::cout << "[ peak RSS ] " << p.what << ": " << r.peak_rss_bytes / (1 << 20) << " MiB\n";
  }
}

}  // namespace
}  // namespace opconform::validator
