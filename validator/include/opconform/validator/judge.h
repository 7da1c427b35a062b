// SPDX-License-Identifier: Apache-2.0
// The outcome of one case (docs/plugin-abi.md, "Outcomes"): what the implementation did,
// compared with the case's expectation through conformance::compare, bucketed.
//
//   Judgement j = judge(c, worker.run(c), {.profile = "tf-cpu", .inside_manifest = true});
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
  kProfileDifference,
  kTfAlternative,
};
inline constexpr int kNumVerdicts = 14;

std::string_view verdict_name(Verdict v);  // "agree", "error-vs-value", ...
bool is_failure(Verdict v);

struct JudgeOptions {
  std::string profile = "tf-cpu";  // the chosen profile
  bool strict_messages = false;
  bool inside_manifest = true;
  // The implementation's outputs started filled with kPoisonByte (a C-ABI plug-in): a differing
  // element that still holds only that byte is reported as never written.
  bool poison_outputs = false;
};

// conformance::Judgement (compare.h) refined: a verdict instead of pass/fail, and a grouping key.
struct Judgement {
  Verdict verdict = Verdict::kAgree;
  // Why, for a person: what differs (several elements of a mismatch), the expected outcome and
  // the implementation's ("implementation:"). Empty for agree/both-error.
  std::string detail;
  // What identifies the cause, for grouping (findings.h, signature()): the check's message
  // template, the first differing output and how it differs, the fault's or crash's text with
  // its numbers blanked. Empty for agree/both-error.
  std::string key;
};

// Precondition: c.expected is the oracle's (the vector's, or the reference's outcome).
Judgement judge(const conformance::Case& c, const WorkerOutcome& outcome, const JudgeOptions& options);

}  // namespace opconform::validator
