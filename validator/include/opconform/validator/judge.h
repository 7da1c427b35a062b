// The outcome of one case (docs/plugin-abi.md, "Outcomes"): what the implementation did,
// compared with the case's expectation through conformance::compare, bucketed.
//
//   Judgement j = judge(c, run_result, {.profile = "tf-cpu", .inside_manifest = true});
//   if (is_failure(j.verdict)) ...
#pragma once

#include <string>
#include <string_view>

#include "opconform/conformance/vector.h"
#include "opconform/validator/worker_client.h"

namespace opconform::validator {

enum class Verdict {
  kAgree,
  kBothError,
  kErrorMismatch,
  kErrorVsValue,
  kValueVsError,
  kMismatch,
  kCrash,
  kTimeout,
  kOutOfMemory,
  kFault,
  kUnsupported,
  kResourceExhausted,
  kQuirk,
  kDeviation,
  kProfileDifference,
};
inline constexpr int kNumVerdicts = 15;

std::string_view verdict_name(Verdict v);  // "agree", "error-vs-value", ...
bool is_failure(Verdict v);

struct JudgeOptions {
  std::string profile = "tf-cpu";  // the chosen profile
  bool strict_messages = false;
  bool inside_manifest = true;
};

struct Judgement {
  Verdict verdict = Verdict::kAgree;
  std::string detail;  // why (empty for agree/both-error)
};

// Precondition: c.expected is the oracle's (the vector's, or the reference's outcome).
Judgement judge(const conformance::Case& c, const RunResult& result, const JudgeOptions& options);

}  // namespace opconform::validator
