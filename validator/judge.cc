#include "opconform/validator/judge.h"

#include <algorithm>
#include <regex>

#include "opconform/conformance/compare.h"
#include "opconform/conformance/format.h"
#include "opconform/op_registry.h"
#include "opconform/validator/findings.h"

namespace opconform::validator {

namespace {

// The registry's kind of a comparison failure's verdict.
Disagreement disagreement_of(Verdict verdict) {
  switch (verdict) {
    case Verdict::kErrorVsValue: return Disagreement::kErrorVsValue;
    case Verdict::kValueVsError: return Disagreement::kValueVsError;
    case Verdict::kErrorMismatch: return Disagreement::kErrorMismatch;
    default: return Disagreement::kMismatch;
  }
}

// Whether a case whose expectation is tf-cpu's and whose comparison failed with `verdict` shows
// a difference docs/contract/profiles.md documents for `profile`: each op's registry entry
// (vocabulary/ops/<op>.cc, profile_dtypes and profile_differences) holds them.
bool documented_profile_difference(const conformance::Case& c, Verdict verdict, const Status& actual,
                                   const std::string& profile) {
  const OpCall call{c.inputs, c.attrs, c.string_attrs};
  const Status* expected_error = c.expected.error ? &*c.expected.error : nullptr;
  return opconform::documented_profile_difference(op_info(c.op), profile, disagreement_of(verdict), call,
                                                  expected_error, actual)
      .has_value();
}

std::string without_final_newline(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string summary(const conformance::Outcome& o) {
  return without_final_newline(conformance::format_outcome(o, "    ", 16));
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The key of a run that gave no answer, or a faulty one: its first clause without parenthesised
// particulars (an output's dtype and shape, a pointer), numbers blanked; a crash keeps them (the
// signal's name).
std::string failure_key(const std::string& detail, bool keep_parentheses = false) {
  std::string line = first_line(detail);
  if (keep_parentheses) return blank_numbers(line.substr(0, 160));
  if (const std::size_t semicolon = line.find("; "); semicolon != std::string::npos) line.resize(semicolon);
  std::string key;
  int depth = 0;
  for (char ch : line) {
    if (ch == '(') ++depth;
    if (depth == 0) key += ch;
    if (ch == ')' && depth > 0) --depth;
  }
  if (key.size() > 160) key.resize(160);
  return message_template(key);
}

// A crash's key: a sanitizer's one-line summary when it wrote one ("AddressSanitizer:
// heap-buffer-overflow kernel.cc:#:# in count_rows(...)": the kind and the place), else the
// first line (how the process ended).
std::string crash_key(const std::string& detail) {
  const std::size_t summary = detail.find("SUMMARY: ");
  if (summary == std::string::npos) return failure_key(detail, true);
  // "(/lib/libx.so.22+0x1416e2) (BuildId: 1323...)": the library stays, the rest varies by build.
  static const std::regex build_id(R"( ?\(BuildId: [0-9a-fA-F]+\))");
  const std::string line = std::regex_replace(first_line(detail.substr(summary + 9)), build_id, "");
  return blank_numbers(line.substr(0, 200));
}

// The key of a comparison failure: for outputs, the first differing output and how it differs;
// for errors, the codes and the template of the message that matters.
std::string comparison_key(Verdict verdict, const conformance::Case& c, const Status& actual,
                           const std::string& description) {
  const std::string code = c.expected.error ? std::string(code_name(c.expected.error->code())) : "";
  switch (verdict) {
    case Verdict::kErrorVsValue: return str_cat("expected ", code, " ", message_template(c.expected.error->message()));
    case Verdict::kValueVsError:
      return str_cat("got ", code_name(actual.code()), " ", message_template(actual.message()));
    case Verdict::kErrorMismatch:
      return str_cat("expected ", code, ", got ", code_name(actual.code()), ": ",
                     message_template(c.expected.error->message()));
    default: break;
  }
  const std::string line = first_line(description);
  const std::size_t colon = line.find(": ");
  if (colon == std::string::npos) return message_template(line);
  const std::string label = message_template(line.substr(0, colon));
  const std::string rest = line.substr(colon + 2);
  if (rest.find("elements differ") != std::string::npos) return label + ": elements differ";
  for (const char* kind : {"dtype", "shape", "row", "rows"})
    if (rest.rfind(std::string(kind) + " ", 0) == 0) return label + ": " + kind;
  return label + ": " + message_template(rest);
}

// What the case expected, for details that otherwise show only what went wrong.
std::string expected_block(const conformance::Case& c) {
  return "\n  expected:\n" + without_final_newline(conformance::format_expected(c, "    ", 16));
}
}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kAgree: return "agree";
    case Verdict::kBothError: return "both-error";
    case Verdict::kErrorMismatch: return "error-mismatch";
    case Verdict::kErrorVsValue: return "error-vs-value";
    case Verdict::kValueVsError: return "value-vs-error";
    case Verdict::kMismatch: return "mismatch";
    case Verdict::kCrash: return "crash";
    case Verdict::kTimeout: return "timeout";
    case Verdict::kOutOfMemory: return "out-of-memory";
    case Verdict::kFault: return "fault";
    case Verdict::kUnsupported: return "unsupported";
    case Verdict::kResourceExhausted: return "resource-exhausted";
    case Verdict::kProfileDifference: return "profile-difference";
    case Verdict::kTfAlternative: return "tf-alternative";
  }
  return "?";
}

bool is_failure(Verdict v) {
  switch (v) {
    case Verdict::kAgree:
    case Verdict::kBothError:
    case Verdict::kUnsupported:
    case Verdict::kResourceExhausted:
    case Verdict::kProfileDifference:
    case Verdict::kTfAlternative: return false;
    default: return true;
  }
}

Judgement judge(const conformance::Case& c, const WorkerOutcome& outcome, const JudgeOptions& options) {
  switch (outcome.kind) {
    case WorkerOutcome::Kind::kCrash:
      return {Verdict::kCrash, outcome.detail + expected_block(c), crash_key(outcome.detail)};
    case WorkerOutcome::Kind::kTimeout: return {Verdict::kTimeout, outcome.detail + expected_block(c), ""};
    case WorkerOutcome::Kind::kOutOfMemory: return {Verdict::kOutOfMemory, outcome.detail + expected_block(c), ""};
    case WorkerOutcome::Kind::kProtocolFault:
      return {Verdict::kFault, outcome.detail + expected_block(c), failure_key(outcome.detail)};
    case WorkerOutcome::Kind::kAnswer: break;
  }
  const ImplAnswer& answer = outcome.answer;
  if (answer.kind == ImplAnswer::Kind::kFault)
    return {Verdict::kFault, answer.fault + expected_block(c), failure_key(answer.fault)};

  conformance::Outcome actual;
  if (answer.kind == ImplAnswer::Kind::kError) {
    actual.status = answer.error;
  } else {
    actual.outputs = answer.outputs;
  }
  const bool expected_error = c.expected.error.has_value();
  if (!options.inside_manifest && !actual.status.ok()) return {Verdict::kUnsupported, actual.status.to_string(), ""};
  if (actual.status.code() == Code::kResourceExhausted &&
      !(expected_error && c.expected.error->code() == Code::kResourceExhausted))
    return {Verdict::kResourceExhausted, actual.status.to_string(), ""};

  const conformance::Allowed allowed = conformance::compare_allowed(
      c, actual, options.profile,
      options.strict_messages ? conformance::Strictness::kStrict : conformance::Strictness::kCodeOnly);
  if (const conformance::Alternative* a = allowed.alternative)
    return {Verdict::kTfAlternative,
            "matches the alternative allowed under " + options.profile + ": " + a->why + expected_block(c) +
                "\n  implementation:\n" + summary(actual),
            ""};
  const conformance::Judgement& compared = allowed.judgement;
  if (compared.pass) return {expected_error ? Verdict::kBothError : Verdict::kAgree, "", ""};

  Verdict verdict;
  if (expected_error)
    verdict = actual.status.ok() ? Verdict::kErrorVsValue : Verdict::kErrorMismatch;
  else
    verdict = actual.status.ok() ? Verdict::kMismatch : Verdict::kValueVsError;
  std::string detail = compared.detail;
  if (verdict == Verdict::kMismatch) {
    if (std::string listed = describe_differences(c, actual.outputs, options.poison_outputs); !listed.empty())
      detail = listed;
  } else {
    detail += expected_block(c) + "\n  implementation:\n" + summary(actual);
  }
  const std::string key = comparison_key(verdict, c, actual.status, compared.detail);

  if (options.profile != "tf-cpu" && c.profile == "tf-cpu" &&
      documented_profile_difference(c, verdict, actual.status, options.profile))
    return {Verdict::kProfileDifference, detail, key};
  return {verdict, detail, key};
}

}  // namespace opconform::validator
