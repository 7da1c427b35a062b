// `opconform validate` as CI runs it: no green run that checked nothing, reports that survive an
// interrupt or a load failure, a bounded run and a bounded validator, guards that catch what a
// kernel does outside its outputs, findings grouped and shown as the shrunk case they are.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <regex>
#include <set>
#include <thread>

#include "opconform/conformance/format.h"
#include "opconform/conformance/vector.h"
#include "test_support.h"

namespace opconform::validator {
namespace {

using namespace opconform::testing;

std::set<std::string> junit_names(const std::string& junit) {
  std::set<std::string> names;
  const std::regex name_re("<testcase classname=\"opconform\\.[A-Za-z]+\" name=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(junit.begin(), junit.end(), name_re); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

// 1. A run that checked nothing, or named an input it could not read, is never a pass.

TEST(NoFalseGreen, AMissingOrTruncatedVectorIsAnError) {
  ValidateOptions o = options_for("");
  o.replay = {"/nonexistent/v.json"};
  RunOutcome r = run_validator(o, "missing");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "/nonexistent/v.json: cannot read: no such file");
  EXPECT_EQ(r.report["state"], "error");
  EXPECT_EQ(r.report["cases"], 0);
  EXPECT_CONTAINS(r.junit, "<error message=\"cannot read: no such file");

  const fs::path dir = vector_folder("truncated", {"stitch_float32"});
  const std::string whole = read_text(data_file("stitch_int16"));
  std::ofstream(dir / "truncated.json") << whole.substr(0, whole.size() / 2);
  o.replay = {dir.string()};
  r = run_validator(o, "truncated");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.count("agree"), 1);  // the good vector still ran
  EXPECT_CONTAINS(r.err, (dir / "truncated.json").string() + ": invalid JSON");
  EXPECT_EQ(r.report["input_problems"].size(), 1u);
}

TEST(NoFalseGreen, AMissingCorpusOrNoCaseAtAllIsAnError) {
  ValidateOptions o = options_for("");
  o.corpus_dir = "/nonexistent";
  o.cases = 0;
  RunOutcome r = run_validator(o, "no-corpus-folder");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "/nonexistent: cannot read: no such file or folder");

  o = generated_cases_for("", 0);
  r = run_validator(o, "nothing");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "no case was run");
  EXPECT_EQ(r.report["state"], "error");
}

// 2. and 3. Links that loop or dangle are reported by path, and the walk goes on.
TEST(NoFalseGreen, LinkLoopsAndDanglingLinksAreReportedAndTheRestRuns) {
  const fs::path dir = vector_folder("links", {"stitch_float32"});
  fs::create_directory_symlink(".", dir / "self");  // a folder loop: not followed
  fs::create_symlink("x.json", dir / "x.json");     // a file loop
  fs::create_symlink("missing.json", dir / "dangling.json");
  ValidateOptions o = options_for("");
  o.corpus_dir = dir.string();
  o.cases = 0;
  const RunOutcome r = run_validator(o, "links");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.count("agree"), 1);
  EXPECT_CONTAINS(r.err, (dir / "x.json").string() + ": cannot read: Too many levels of symbolic links");
  EXPECT_CONTAINS(r.err, (dir / "dangling.json").string() + ": cannot read: dangling symbolic link to 'missing.json'");
  EXPECT_EQ(r.report["input_problems"].size(), 2u);
}

// 5. Reports survive CI: written as the run goes, on an interrupt, on a load failure.

TEST(Reports, SigtermMidRunLeavesReportsThatSayInterrupted) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_HANG);
  o.replay = {data_file("stitch_float32"), data_file("stitch_int16")};  // the second one hangs
  o.timeout_seconds = 60;
  const HangMarker hang;
  std::atomic<bool> finished = false;
  std::thread killer([&] {
    if (hang.wait(finished)) ::kill(::getpid(), SIGTERM);  // the second case hangs now
  });
  const RunOutcome r = run_validator(o, "sigterm");
  finished = true;
  killer.join();
  EXPECT_LT(r.seconds, o.timeout_seconds);  // stopped by the signal, not by the case's timeout
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.report["state"], "interrupted");
  EXPECT_EQ(r.report["stopped"], "interrupted by SIGTERM");
  EXPECT_EQ(r.count("agree"), 1);
  EXPECT_EQ(r.count("timeout"), 0);  // the case cut short is not judged
  EXPECT_CONTAINS(r.junit, "<error message=\"interrupted by SIGTERM\"");
}

TEST(Reports, ResultsAreWrittenAsTheyCome) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_HANG);
  o.replay = {data_file("stitch_float32"), data_file("stitch_int16")};
  const fs::path dir = fresh_dir("as-they-come");
  o.json_path = (dir / "report.json").string();
  o.junit_path = (dir / "junit.xml").string();
  o.jsonl_path = (dir / "cases.jsonl").string();
  const HangMarker hang;
  std::atomic<bool> finished = false;
  std::string jsonl_during, json_during, junit_during;
  std::thread reader([&] {
    const pid_t hanging = hang.wait(finished);  // the second case hangs now
    if (hanging == 0) return;
    jsonl_during = read_text(o.jsonl_path);
    json_during = read_text(o.json_path);
    junit_during = read_text(o.junit_path);
    ::kill(hanging, SIGKILL);  // and the run goes on: the case is a crash
  });
  const RunOutcome r = run_validator(o, "as-they-come-run");
  finished = true;
  reader.join();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_CONTAINS(jsonl_during, "\"type\":\"start\"");
  EXPECT_CONTAINS(jsonl_during, "\"name\":\"stitch_float32\"");
  EXPECT_CONTAINS(json_during, "\"state\": \"running\"");
  EXPECT_CONTAINS(junit_during, "the run has not finished");
  const std::string jsonl = read_text(o.jsonl_path);
  EXPECT_CONTAINS(jsonl, "\"outcome\":\"crash\"");
  EXPECT_CONTAINS(jsonl, "\"type\":\"summary\"");
  EXPECT_CONTAINS(jsonl, "\"exit_code\":1");
}

TEST(Reports, ALoadFailureWritesReports) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_WRONG_ABI);
  o.replay = {data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "load-failure");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.report["state"], "error");
  EXPECT_CONTAINS(r.report["error"].get<std::string>(), "ABI version 2, this validator speaks 1");
  EXPECT_CONTAINS(r.junit, "<error message=\"cannot use the implementation");
}

TEST(Reports, AReportThatCannotBeWrittenIsAnError) {
  for (const char* which : {"json", "junit", "jsonl"}) {
    ValidateOptions o = options_for("");
    o.replay = {data_file("stitch_float32")};
    const std::string bad = "/nonexistent-folder/report";
    if (std::string(which) == "json")
      o.json_path = bad;
    else if (std::string(which) == "junit")
      o.junit_path = bad;
    else
      o.jsonl_path = bad;
    const RunOutcome r = run_validator(o, std::string("unwritable-") + which);
    EXPECT_EQ(r.exit_code, 2) << which;
    EXPECT_CONTAINS(r.err, "cannot write /nonexistent-folder/report");
  }
}

// True when `text` is well-formed UTF-8 (what an XML parser requires of a file that says so).
bool is_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    const int n = b < 0x80                       ? 1
                  : (b >> 5) == 0x6 && b >= 0xC2 ? 2
                  : (b >> 4) == 0xE              ? 3
                  : b >= 0xF0 && b <= 0xF4       ? 4
                                                 : 0;
    if (n == 0 || i + n > text.size()) return false;
    std::uint32_t code = n == 1 ? b : b & (0xFF >> (n + 1));
    for (int k = 1; k < n; ++k) {
      const unsigned char c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      code = code << 6 | (c & 0x3F);
    }
    const std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < least[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += static_cast<std::size_t>(n);
  }
  return true;
}

TEST(Reports, JUnitIsUtf8WhenAVectorPathIsNot) {
  const fs::path dir = fresh_dir("not-utf8") / "vectors\xff";
  fs::create_directories(dir);
  fs::copy_file(data_file("stitch_int8"), dir / "crash\xfe.json");  // a failure: its replay line names it
  std::ofstream(dir / "truncated\xc3.json") << "{";                 // an input problem, named by path
  ValidateOptions o = options_for(OPCONFORM_FAKE_CRASH);
  o.replay = {dir.string()};
  const RunOutcome r = run_validator(o, "not-utf8-run");
  EXPECT_EQ(r.count("crash"), 1) << r.out;
  EXPECT_EQ(r.report["input_problems"].size(), 1u);
  EXPECT_TRUE(is_utf8(r.junit)) << r.junit;
  EXPECT_CONTAINS(r.junit, "vectors\xEF\xBF\xBD/crash\xEF\xBF\xBD.json");  // U+FFFD for each stray byte
  EXPECT_CONTAINS(r.junit, "vectors\xEF\xBF\xBD/truncated\xEF\xBF\xBD.json");
}

// 6. --max-failures stops the run early (--time bounds it: timing_test.cc).

TEST(Budget, MaxFailuresStopsTheRun) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_CRASH);
  o.replay = {vector_folder("crashes", {"stitch_int8"}, 6).string()};
  o.stop_after_failures = 2;
  const RunOutcome r = run_validator(o, "crashes-run");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.report["failed"], 2);
  EXPECT_CONTAINS(r.report["stopped"].get<std::string>(), "--max-failures");
}

// 7. and 8. The validator itself is bounded.

// Resident memory of this process from /proc/self/status: "VmRSS" now, "VmHWM" its peak.
std::int64_t status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
  return -1;
}

// A process keeps its peak for life (getrusage's ru_maxrss, VmHWM): after a heavier test in the
// same process a difference of peaks is 0. So a test that bounds the validator's memory runs
// again alone in a fresh process (this binary, only that test), which writes how far its peak
// rose above where it started to the file $OPCONFORM_PEAK_GROWTH_FILE names.
constexpr const char* kPeakGrowthFile = "OPCONFORM_PEAK_GROWTH_FILE";

bool in_fresh_process() { return std::getenv(kPeakGrowthFile) != nullptr; }

// Runs the current test in a fresh process; its peak growth in bytes, or -1.
std::int64_t peak_growth_in_fresh_process() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fresh_dir("fresh-process");
  const std::string command = shell_quote(fs::read_symlink("/proc/self/exe").string()) +
                              " --gtest_filter=" + test->test_suite_name() + "." + test->name() + " >" +
                              shell_quote((dir / "log").string()) + " 2>&1";
  ::setenv(kPeakGrowthFile, (dir / "peak").c_str(), 1);
  const int status = std::system(command.c_str());
  ::unsetenv(kPeakGrowthFile);
  EXPECT_EQ(status, 0) << read_text(dir / "log");
  std::int64_t growth = -1;
  std::ifstream(dir / "peak") >> growth;
  return growth;
}

TEST(Bounds, AHugeResponseIsAFaultAndIsNeverRead) {
  if (!in_fresh_process()) {
    const std::int64_t growth = peak_growth_in_fresh_process();
    EXPECT_GE(growth, 0);
    EXPECT_LT(growth, std::int64_t{64} << 20);  // the 256 MiB were not taken in
    return;
  }
  const std::int64_t before = status_bytes("VmRSS");
  ValidateOptions o = options_for(std::string("exec:") + OPCONFORM_TEST_HOSTILE + " huge-response 268435456");
  o.replay = {data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "huge-response");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.count("fault"), 1);
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "a message of 268435456 bytes, more than the");
  std::ofstream(std::getenv(kPeakGrowthFile)) << status_bytes("VmHWM") - before;
}

TEST(Bounds, ADescendantThatLeavesTheProcessGroupDoesNotOutliveTheRun) {
  const fs::path pid_file = fresh_dir("setsid") / "escaped.pid";
  ValidateOptions o = options_for(std::string("exec:") + OPCONFORM_TEST_HOSTILE + " setsid-child " + pid_file.string());
  o.replay = {data_file("stitch_float32")};
  o.timeout_seconds = 20;
  const RunOutcome r = run_validator(o, "setsid-run");
  EXPECT_EQ(r.count("crash"), 1) << r.out;
  std::ifstream f(pid_file);
  int pid = 0;
  ASSERT_TRUE(f >> pid) << "the hostile program did not start its child";
  const bool alive = ::kill(pid, 0) == 0;
  if (alive) ::kill(pid, SIGKILL);  // not left behind by a failing test either
  EXPECT_FALSE(alive) << "pid " << pid << " outlived the validator";
}

// 9. Guards: stray writes of any length, writes into inputs, elements never written.

TEST(Guards, OverrunsOfAnyLengthAndUnderrunsAreFaults) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_OUT_OF_BOUNDS);
  o.replay = {data_file("stitch_int16"), data_file("stitch_int32"), data_file("stitch_int64"),
              data_file("stitch_uint16"), data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "overruns");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("fault"), 4) << r.out;
  EXPECT_EQ(r.count("agree"), 1);
  std::map<std::string, std::string> detail;
  for (const auto& f : r.report["failures"]) detail[f["name"].get<std::string>()] = f["detail"].get<std::string>();
  EXPECT_CONTAINS(detail["stitch_int16"], "wrote past the end");
  EXPECT_CONTAINS(detail["stitch_int32"], "wrote past the end of its buffer; at offset +99 from its end");
  EXPECT_CONTAINS(detail["stitch_int64"], "wrote past the end of its buffer; at offset +65535 from its end");
  EXPECT_CONTAINS(detail["stitch_uint16"], "wrote before the start");
}

TEST(Guards, AKernelThatWritesIntoItsInputsIsAFault) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_MODIFIES_INPUT);
  o.replay = {data_file("stitch_int16"), data_file("stitch_int8"), data_file("stitch_float32")};
  const RunOutcome r = run_validator(o, "modifies-input");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("fault"), 2);
  EXPECT_EQ(r.count("agree"), 1);
  std::map<std::string, std::string> detail;
  for (const auto& f : r.report["failures"]) detail[f["name"].get<std::string>()] = f["detail"].get<std::string>();
  EXPECT_CONTAINS(detail["stitch_int16"],
                  "modified input 1 (data[0]): 1 of 4 elements changed; element [0,0] was 1, now 257");
  EXPECT_CONTAINS(detail["stitch_int8"],
                  "modified input 0 (indices[0]): 1 of 2 elements changed; element [0] was 1, now 8");
}

// 11. The corpus holds both sides of every range check: a partition range check that lets
// num_partitions itself through (tools/boundary_coverage.py checks the other edges).
TEST(Corpus, AnOffByOnePartitionRangeCheckFailsTheCorpus) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_PARTITION_OFF_BY_ONE);
  o.corpus_dir = std::string(OPCONFORM_TEST_CORPUS) + "/dynamic_partition";
  o.cases = 0;
  const RunOutcome r = run_validator(o, "partition-off-by-one");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.count("error-vs-value"), 2) << r.out;
  EXPECT_CONTAINS(r.out, "check_partition_range_equal_num_partitions");
}

// 12. and 13. Findings: grouped, each group shown once as its shrunk case.

TEST(Findings, FailuresAreGroupedAndEachGroupIsShownOnce) {
  ValidateOptions o = generated_cases_for(OPCONFORM_FAKE_WRONG_RESULTS, 150);
  o.seed = 3;
  const RunOutcome r = run_validator(o, "groups");
  EXPECT_EQ(r.exit_code, 1);
  const auto& groups = r.report["groups"];
  ASSERT_GE(groups.size(), 2u);
  std::int64_t total = 0;
  for (const auto& g : groups) {
    total += g["count"].get<std::int64_t>();
    EXPECT_TRUE(g["representative"].contains("saved")) << g.dump(1);
    EXPECT_EQ(g["cases"].size(), g["count"].get<std::size_t>());
  }
  EXPECT_EQ(total, r.report["failed"].get<std::int64_t>());
  EXPECT_GT(r.report["failed"].get<std::size_t>(), 2 * groups.size());  // many failures, few causes
  std::size_t printed = 0;
  for (std::size_t at = r.out.find("\nFAIL "); at != std::string::npos; at = r.out.find("\nFAIL ", at + 1)) ++printed;
  printed += r.out.rfind("FAIL ", 0) == 0;
  EXPECT_EQ(printed, groups.size()) << r.out;
  EXPECT_CONTAINS(r.out, "failing cases in " + std::to_string(groups.size()) + " groups:");
}

TEST(Findings, TheShrunkCaseIsTheOneShownWithSeveralDifferences) {
  ValidateOptions o = generated_cases_for(OPCONFORM_FAKE_WRONG_RESULTS, 60);
  o.seed = 1;
  const RunOutcome r = run_validator(o, "shown");
  const nlohmann::json f = r.failure("mismatch");
  ASSERT_TRUE(f.contains("saved")) << r.out;
  conformance::Case saved;
  ASSERT_TRUE(conformance::load_case_file(f["saved"].get<std::string>(), &saved).ok());
  // The printed case is the saved, shrunk one.
  EXPECT_CONTAINS(r.out, "case, shrunk in");
  EXPECT_CONTAINS(r.out, conformance::format_values(saved.inputs, "    ", 16));
  EXPECT_CONTAINS(f["detail"].get<std::string>(), "expected ");
  EXPECT_CONTAINS(f["detail"].get<std::string>(), ", implementation ");

  // A non-mismatch shows what was expected and what the implementation answered, so labelled.
  const nlohmann::json v = r.failure("value-vs-error");
  ASSERT_TRUE(v.is_object()) << r.out;
  EXPECT_CONTAINS(v["detail"].get<std::string>(), "\n  expected:\n");
  EXPECT_CONTAINS(v["detail"].get<std::string>(), "\n  implementation:\n");
  EXPECT_LACKS(v["detail"].get<std::string>(), "actual:");
}

TEST(Findings, AFaultShowsTheExpectedOutcome) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_GARBAGE_SHAPES);
  o.replay = {data_file("stitch_int16")};
  const RunOutcome r = run_validator(o, "fault-expected");
  const std::string detail = r.failure("fault")["detail"].get<std::string>();
  EXPECT_CONTAINS(detail, "\n  expected:\n    merged: int16 [2,2] [[3, 4], [1, 2]]");
}

// 14. A failure met only while shrinking another is kept.
TEST(Findings, AFailureSeenOnlyWhileShrinkingIsKept) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_SHRINK_CRASH);
  o.replay = {data_file("stitch_int16")};
  o.save_failures_dir = (fresh_dir("shrink-crash") / "failures").string();
  const RunOutcome r = run_validator(o, "shrink-crash-run");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("mismatch"), 1);
  EXPECT_EQ(r.count("crash"), 1) << r.out;
  const nlohmann::json crash = r.failure("crash");
  EXPECT_EQ(crash["origin"], "found while shrinking stitch_int16");
  ASSERT_TRUE(crash.contains("saved"));
  ValidateOptions again = options_for(OPCONFORM_FAKE_SHRINK_CRASH);
  again.replay = {crash["saved"].get<std::string>()};
  EXPECT_EQ(run_validator(again, "shrink-crash-replay").count("crash"), 1);
}

// 15. Names of generated cases do not depend on the seed; the default seed is fixed.
TEST(Identity, GeneratedCasesHaveStableNamesAndTheDefaultRunRepeats) {
  ValidateOptions o = generated_cases_for("", 24);
  const RunOutcome first = run_validator(o, "stable-1");
  const RunOutcome second = run_validator(o, "stable-2");
  EXPECT_EQ(first.report["seed"], kDefaultSeed);
  EXPECT_CONTAINS(first.err, "seed 1 (default)");
  EXPECT_EQ(junit_names(first.junit), junit_names(second.junit));
  EXPECT_EQ(first.report["counts"], second.report["counts"]);
  for (const std::string& name : junit_names(first.junit))
    EXPECT_TRUE(std::regex_match(name, std::regex("gen-[a-z_]+-[0-9]+|pair-[a-z_]+-[a-z0-9-]+"))) << name;

  o.seed = 12345;
  const RunOutcome seeded = run_validator(o, "stable-seeded");
  // Same names, other cases (a check pair's case is named only when the seed's drawing hits it).
  const auto generated_names = [](const std::set<std::string>& names) {
    std::set<std::string> gen;
    for (const std::string& n : names)
      if (n.rfind("gen-", 0) == 0) gen.insert(n);
    return gen;
  };
  EXPECT_EQ(generated_names(junit_names(seeded.junit)), generated_names(junit_names(first.junit)));
  o.seed.reset();
  o.fresh_seed = true;
  const RunOutcome fresh = run_validator(o, "fresh");
  EXPECT_CONTAINS(fresh.err, "(fresh)");
  EXPECT_CONTAINS(fresh.err, "seed " + std::to_string(fresh.report["seed"].get<std::uint64_t>()));
}

// 16. Replay commands are absolute; a replay leaves nothing behind.
TEST(Identity, ReplayCommandsUseAbsolutePathsAndReplaysSaveNothing) {
  const fs::path tmp = fresh_dir("tmpdir");
  const fs::path reports = fresh_dir("replay-reports");
  ValidateOptions o = options_for(OPCONFORM_FAKE_CRASH);
  o.replay = {data_file("stitch_int8")};
  o.json_path = (reports / "report.json").string();
  o.junit_path = (reports / "junit.xml").string();
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const RunOutcome r = run_validator(o, "replay-saves-nothing");
  ::unsetenv("TMPDIR");
  EXPECT_EQ(r.exit_code, 1);
  for (const auto& entry : fs::directory_iterator(tmp))
    EXPECT_EQ(entry.path().filename().string().rfind("opconform-validate-", 0), std::string::npos)
        << "a replay left " << entry.path() << " behind";
  const std::string replay = r.failure("crash")["replay"].get<std::string>();
  EXPECT_CONTAINS(replay, std::string("--impl ") + OPCONFORM_FAKE_CRASH);
  EXPECT_CONTAINS(replay, "--replay " + data_file("stitch_int8"));
}

// Check pairs: one case per feasible pair of checks; the default run hits at least 95 % of them
// per op, and --no-check-pairs (or --cases 0) runs none.
TEST(CheckPairs, TheDefaultRunHitsNinetyFivePercentOfTheFeasiblePairsOfEveryOp) {
  ValidateOptions o = generated_cases_for("", 1);
  const RunOutcome r = run_validator(o, "check-pairs");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  ASSERT_EQ(r.report["check_pairs"].size(), kNumOps) << r.report.dump();
  for (const auto& [op, p] : r.report["check_pairs"].items()) {
    EXPECT_GT(p["feasible"].get<std::int64_t>(), 0) << op;
    EXPECT_GE(p["hit"].get<double>(), 0.95 * p["feasible"].get<double>()) << op;
  }
  EXPECT_CONTAINS(r.out, "check pairs hit");

  o.check_pairs = false;
  const RunOutcome none = run_validator(o, "no-check-pairs");
  EXPECT_TRUE(none.report["check_pairs"].empty()) << none.report.dump();
}

}  // namespace
}  // namespace opconform::validator
