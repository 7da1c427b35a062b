// What `opconform validate` does with each judged case (docs/plugin-abi.md, "Failures"): logs it,
// classifies it by the expected-failure list (--xfail), groups failures by signature, and shrinks,
// saves and prints the first failure of each group with a command that replays it. Internal to
// the validator.
//
//   FailureHandler failures(options, info, log, out, err, run_case, must_end);
//   if (failures.record(c, origin, judgement, seconds, shrinkable)) ...  // a new group, printed
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/findings.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/validate.h"
#include "case_log.h"
#include "case_sources.h"
#include "run_info.h"

namespace opconform::validator {

class FailureHandler {
 public:
  // Runs a shrink candidate and judges it; nullopt when the run's end cut it short.
  using Runner = std::function<std::optional<Judgement>(const conformance::Case&)>;

  // Prints failures on `out`, and what cannot be read or saved on `err`.
  FailureHandler(const ValidateOptions& options, const RunInfo& info, CaseLog& log, std::ostream& out,
                 std::ostream& err, Runner run, std::function<bool()> must_end)
      : options_(options),
        info_(info),
        log_(log),
        out_(out),
        err_(err),
        run_(std::move(run)),
        must_end_(std::move(must_end)) {}

  // Reads --xfail; false, with the reason on err, when the list cannot be used.
  bool read_expectations();
  // --save-failures names a folder that exists or can be made, and can be written; else false,
  // with the reason on err.
  bool check_failures_dir() const;

  // Logs a judged case that took `seconds` to run; true when it began a new failure group,
  // which is then shrunk, saved and printed. `shrinkable`: the drawn case's shrink tree, or nullptr.
  bool record(const conformance::Case& c, const std::string& origin, const Judgement& j, double seconds,
              const Shrinkable* shrinkable);

  const FailureGroups& groups() const { return groups_; }
  const std::vector<std::size_t>& representatives() const { return representatives_; }  // per group: its record
  const Expectations& expectations() const { return expectations_; }
  // Per op: the cases that failed as expected (xfail) and those that passed though expected to fail (xpass).
  std::array<std::int64_t, 2> expected_counts(Op op) const;
  // The folder failures were saved under; "" when none was.
  std::string saved_under() const { return saved_paths_.empty() ? "" : failures_dir_; }

 private:
  void expect(const conformance::Case& c, bool failed, const std::string& sig, CaseRecord* r);
  void present_group(std::size_t index, const conformance::Case& c, const Judgement& j, const Shrinkable* shrinkable);
  conformance::Case shrink(const conformance::Case& c, const Judgement& j, const Shrinkable* shrinkable, int* steps,
                           Judgement* final);
  void keep_other_failure(const conformance::Case& candidate, const Judgement& j, const std::string& while_shrinking);
  bool saves_failures() const { return options_.replay.empty() || !options_.save_failures_dir.empty(); }
  std::string save(const conformance::Case& c, Verdict verdict, const std::string& origin, int steps);
  std::string replay_command(const std::string& vector) const;
  void print_group(const CaseRecord& r, const conformance::Case& shown, int steps, const std::string& key);

  const ValidateOptions& options_;
  const RunInfo& info_;
  CaseLog& log_;
  std::ostream& out_;
  std::ostream& err_;
  Runner run_;
  std::function<bool()> must_end_;
  Expectations expectations_;                                  // --xfail
  std::map<Op, std::array<std::int64_t, 2>> expected_counts_;  // per op: xfail, xpass cases
  std::set<int> generated_xfails_;                             // the entries whose generated xfail was printed
  FailureGroups groups_;
  std::vector<std::size_t> representatives_;  // per group: its record
  std::string failures_dir_;
  std::set<std::string> saved_paths_;  // the vectors this run saved
};

}  // namespace opconform::validator
