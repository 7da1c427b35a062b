// SPDX-License-Identifier: Apache-2.0
// The reports of `opconform validate` (docs/plugin-abi.md, "Reports"): the JSON report and the
// JUnit XML, both rewritten whole and atomically while the run goes on and at its end, and the
// JSON Lines stream, one line per case as it is judged. Each says what state the run is in, so
// a report written before the end (a CI timeout, a load failure) is never mistaken for a pass.
//
//   ReportData data = ...;                      // a view of the run so far
//   ReportTarget target;
//   std::string error = resolve_report_target(path, &target);
//   if (error.empty()) error = write_report(target, json_report(data));
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "opconform/conformance/vector_files.h"
#include "opconform/ops.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/findings.h"
#include "opconform/validator/judge.h"

namespace opconform::validator {

// One judged case.
struct CaseRecord {
  Op op;
  std::string name;
  std::string origin;  // the vector file, "generated", or "found while shrinking <name>"
  Verdict verdict;
  std::string detail;
  double seconds;
  std::string saved;        // the saved (shrunk) vector, for a group's representative
  std::string replay;       // the command that replays it
  int group = 0;            // the failure group (FailureGroups id), 0 for a non-failure
  std::string expectation;  // "xfail", "xpass" or "" (expectations.h)
  std::string reason;       // the expected-failure entry's reason, and where it is
};

// Where the run is. A report with any state but kComplete describes a run that did not finish.
enum class RunState { kRunning, kComplete, kInterrupted, kError };

// Check pairs of one op (generators/check_pairs.h): feasible pairs, and those a case broke
// with the oracle answering the earlier check.
struct PairCoverage {
  std::int64_t hit = 0, feasible = 0;
};

// How fast one op's cases went: from drawing each case (a vector: running it) to its judgement,
// shrinking included, and the bytes of the tensors sent to and received from the implementation
// meanwhile.
struct Throughput {
  std::int64_t cases = 0;
  double seconds = 0;
  double tensor_bytes = 0;
  double cases_per_second() const { return seconds > 0 ? static_cast<double>(cases) / seconds : 0; }
  double mb_per_second() const { return seconds > 0 ? tensor_bytes / 1e6 / seconds : 0; }
  void add(const Throughput& t) {
    cases += t.cases;
    seconds += t.seconds;
    tensor_bytes += t.tensor_bytes;
  }
};

struct ReportData {
  std::string impl;           // as the user named it
  std::string manifest_json;  // the implementation's manifest message ("" before the handshake)
  std::string profile;
  std::uint64_t seed = 0;
  RunState state = RunState::kRunning;
  std::string error;    // kError: the load failure, or why no case ran
  std::string stopped;  // why the run ended before all its cases ("" when it did not)
  std::vector<conformance::VectorFileProblem> input_problems;
  const std::vector<CaseRecord>* records = nullptr;
  std::map<Op, std::array<std::int64_t, kNumVerdicts>> counts;
  std::map<Op, PairCoverage> pair_coverage;
  std::map<Op, Throughput> throughput;
  std::int64_t failed = 0;
  const FailureGroups* groups = nullptr;
  std::vector<std::size_t> representatives;  // per group id - 1: the record shown for the group
  int exit_code = -1;                        // set on the last write
  // The expected-failure list (nullptr: none) and its entries that matched no case.
  const Expectations* expectations = nullptr;
  std::vector<const Expectation*> unmatched;
  bool strict_xfail = false;
};

std::string_view run_state_name(RunState s);  // "running", "complete", "interrupted", "error"

// The JSON report: the run's identity, state, counts, throughput, failure groups (count,
// signature, representative), every failure and every noted non-failure, the unreadable inputs,
// and with an expected-failure list the xfail and xpass counts, each entry's status and the
// unmatched.
std::string json_report(const ReportData& data);
// JUnit XML: one <testsuite> per op (failures as <failure type="<outcome>">, unsupported cases
// and expected failures as <skipped>, an xpass under strict_xfail as <failure type="xpass">),
// an "expected-failures" suite with the entries that matched nothing, an "inputs" suite with an <error> per unreadable input, and a "run" suite with
// an <error> when the run did not complete or ran no case.
std::string junit_report(const ReportData& data);
// JSON Lines: a "start" line, one "case" line per judged case, a "summary" line.
std::string jsonl_start_line(const ReportData& data);
std::string jsonl_case_line(const CaseRecord& r);
std::string jsonl_summary_line(const ReportData& data);

// Where a report goes. A regular file (or a path that does not exist yet, or a link to either)
// is replaced whole on every rewrite, through a temporary file and a rename, so a reader sees the
// old or the new report, never half of one; a link stays a link. Anything else (a device, a
// pipe, a terminal, /dev/stdout) is never replaced: the report is written through it once, at
// the end of the run.
struct ReportTarget {
  std::string path;  // as given
  std::string file;  // the regular file a rename replaces (links resolved); "" for a stream
  dev_t device = 0;  // identity, when the target exists
  ino_t inode = 0;
  // A stream's descriptor: opened when the target is resolved, so a FIFO's reader sees one
  // writer from the start to the end of the run; closed with the last copy.
  std::shared_ptr<const int> stream_fd;
  bool stream() const { return file.empty(); }
  bool same_as(const ReportTarget& other) const;
};

// The length of the well-formed UTF-8 sequence at the start of `s` (no overlong form, no
// surrogate, at most U+10FFFF), with its code point in *code; 0 when there is none.
std::size_t utf8_sequence_length(std::string_view s, char32_t* code);

// Resolves `path` into *out: "" on success, else why it cannot hold a report (a folder, a link
// loop, a FIFO nobody reads, a folder that does not exist).
std::string resolve_report_target(const std::string& path, ReportTarget* out);
// Writes `text` to the target (atomically for a file, through it for a stream). "" on success,
// else why not.
std::string write_report(const ReportTarget& target, const std::string& text);

}  // namespace opconform::validator
