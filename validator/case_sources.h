// The cases `opconform validate` runs, in this order: 1. the vectors (the corpus, or the --replay
// files and folders), 2. one case per feasible pair of an op's checks, 3. generated cases; each
// narrowed by --ops, --select and the implementation's manifest. Internal to the validator.
//
//   CaseSources sources(options, info, err);
//   sources.each([&](const Case& c, const std::string& origin, const Shrinkable* s, double started) { ... },
//                [&] { return should_stop(); });
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "opconform/conformance/vector.h"
#include "opconform/conformance/vector_files.h"
#include "opconform/generators/op_generators.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/reports.h"
#include "opconform/validator/validate.h"
#include "run_info.h"

namespace opconform::validator {

// A drawn case with its shrink tree (RapidCheck's).
using Shrinkable = rc::Shrinkable<generators::GeneratedCase>;

// Whether a drawn case is cheap enough to run: its outputs fit the pipe and the oracle (at most
// 1024 of at most 16 MiB in all), and a list output's length does not make the reference build
// more members than that before its memory check.
bool affordable(const conformance::Case& c);
// Sets a drawn or shrunk case's expectation to the oracle's (the reference kernels' outcome,
// widened by the unspecified rules); a vector's alternatives, which belonged to its inputs, go.
void set_oracle(conformance::Case* c);

class CaseSources {
 public:
  // Takes one case: `origin` is its vector file or "generated", `shrinkable` its shrink tree
  // (nullptr for a vector), `started` when its drawing began (a vector: when it is handed over).
  using Sink = std::function<void(const conformance::Case& c, const std::string& origin, const Shrinkable* shrinkable,
                                  double started)>;

  // `info` gives the manifest, seed and profile; they are read when each() runs.
  CaseSources(const ValidateOptions& options, const RunInfo& info, std::ostream& err)
      : options_(options), info_(info), err_(err) {}

  // Reads --select; false, with the reason on err, when a selector cannot be used.
  bool read_selection();
  // Hands every case to `run`, in order, until `stop` says so (asked before each vector and
  // generated case, and while a check pair's case is drawn). Prints each unreadable input on err.
  void each(const Sink& run, const std::function<bool()>& stop);

  bool wanted(Op op) const;  // by --ops
  bool ran(Op op) const;     // wanted, and in the manifest

  // What each() met: the inputs it could not read, the check pairs per op, and the vectors it
  // left out because the manifest does not list their op.
  const std::vector<conformance::VectorFileProblem>& input_problems() const { return input_problems_; }
  const std::map<Op, PairCoverage>& pair_coverage() const { return pair_coverage_; }
  std::int64_t not_listed() const { return not_listed_; }

 private:
  std::vector<conformance::Case> vectors();
  void vectors_phase(const Sink& run, const std::function<bool()>& stop);
  void pairs_phase(const Sink& run, const std::function<bool()>& stop);
  void generated_phase(const Sink& run, const std::function<bool()>& stop);

  const ValidateOptions& options_;
  const RunInfo& info_;
  std::ostream& err_;
  Selection selection_;  // --select
  std::vector<conformance::VectorFileProblem> input_problems_;
  std::map<Op, PairCoverage> pair_coverage_;
  std::int64_t not_listed_ = 0;
};

}  // namespace opconform::validator
