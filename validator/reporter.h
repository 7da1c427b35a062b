// What `opconform validate` reports (docs/plugin-abi.md, "Reports"): the summary printed at the
// end (speed, verdicts per op, check pairs, failure groups, expected failures), and the JSON,
// JUnit and JSON Lines reports, checked and opened before the first case, rewritten as the run
// goes and written last at its end. Internal to the validator.
//
//   Reporter reporter(options, info, log, sources, failures, out, err);
//   if (!reporter.check_targets() || !reporter.open()) return 2;
//   ...
//   reporter.summary();
//   return reporter.finish(exit_code, RunState::kComplete);
#pragma once

#include <ostream>
#include <string>

#include "opconform/validator/reports.h"
#include "opconform/validator/validate.h"
#include "case_log.h"
#include "case_sources.h"
#include "failure_handler.h"
#include "run_info.h"

namespace opconform::validator {

class Reporter {
 public:
  Reporter(const ValidateOptions& options, const RunInfo& info, CaseLog& log, const CaseSources& sources,
           const FailureHandler& failures, std::ostream& out, std::ostream& err)
      : options_(options), info_(info), log_(log), sources_(sources), failures_(failures), out_(out), err_(err) {}

  // Resolves --json, --junit and --jsonl: false, with the reason on err, when one cannot hold a
  // report, two name the same file, or one names a vector given to --replay.
  bool check_targets();
  // Starts the JSON Lines stream and writes the JSON and JUnit reports (state "running"; a
  // stream only at the end); false, with the reason on err, when one cannot be written.
  bool open();

  // Rewrites the JSON and JUnit reports (each atomically), and with an exit code (the last
  // write) the streams and the JSON Lines summary. False, with the error kept for finish(), when
  // one cannot be written.
  bool write_reports(RunState state, int exit_code = -1);
  // write_reports(kRunning) when 5 s have passed since the last write.
  void rewrite_when_due();
  // The last reports, and the exit status: 2 when a report cannot be written.
  int finish(int exit_code, RunState state);

  // The summary on out: speed and verdicts per op, check pairs, failure groups, expected failures,
  // and the closing line.
  void summary();

 private:
  void summary_of_expectations();
  ReportData report_data(RunState state) const;

  const ValidateOptions& options_;
  const RunInfo& info_;
  CaseLog& log_;
  const CaseSources& sources_;
  const FailureHandler& failures_;
  std::ostream& out_;
  std::ostream& err_;
  ReportTarget json_target_, junit_target_;
  double last_report_ = now_seconds();
  bool streams_written_ = false;  // a report that is a stream is written once, at the end
  std::string report_error_;      // the first report that could not be written
};

}  // namespace opconform::validator
