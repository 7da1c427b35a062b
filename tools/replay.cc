#include "replay.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "opconform/conformance/format.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/vector_files.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/install_layout.h"
#include "opconform/optimized/op_table.h"

namespace opconform::tools {

namespace {

namespace fs = std::filesystem;
using conformance::Case;

// An xfail failed as the expected-failure list expects; an xpass passed where it expects a failure.
enum class Result { kPass, kFail, kSkip, kBad, kXfail, kXpass };
constexpr const char* kResultNames[] = {"pass", "fail", "skip", "bad", "xfail", "xpass"};

struct CaseReport {
  std::string file;
  Result result;
  std::string op;  // empty for a bad file
  std::string name;
  std::string description;  // why it failed, was skipped or could not be loaded
  std::string expected, actual;
  std::string reason;     // the expected-failure entry's, for an xfail or xpass
  std::string signature;  // a failure's group signature (validator/findings.h)
};

// The run's expected-failure list and selection (validator/expectations.h).
struct Expecting {
  validator::Expectations list;
  validator::Selection selection;
  const std::vector<Op>* ops = nullptr;
  bool wanted(Op op) const { return ops->empty() || std::find(ops->begin(), ops->end(), op) != ops->end(); }
};

// Every file named, and every *.json below the folders named, in sorted order
// (conformance/vector_files.h); every path, folder or entry that cannot be read, and every named
// folder without vectors, becomes a bad report.
std::vector<std::string> collect(const std::vector<std::string>& paths, std::vector<CaseReport>& bad) {
  const conformance::VectorFiles found = conformance::find_vector_files(paths);
  for (const conformance::VectorFileProblem& p : found.problems)
    bad.push_back({p.path, Result::kBad, "", "", conformance::problem_text(p), "", "", "", ""});
  for (const std::string& folder : found.empty_folders)
    if (found.files.size() + found.problems.size() > 0)  // else the "no vectors" error says it
      bad.push_back({folder, Result::kBad, "", "", folder + ": no vectors (*.json) in this folder", "", "", "", ""});
  return found.files;
}

const OpTable& choose_table(const std::string& impl, std::ostream& err) {
  if (impl == "optimized") return optimized::op_table();
  return reference::op_table();
}

// nullopt: a vector of another op, or not selected.
std::optional<CaseReport> check_file(const std::string& file, const OpTable& table, conformance::Strictness strictness,
                                     Expecting& expecting) {
  Case c;
  const Status loaded = conformance::load_case_file(file, &c);
  if (!loaded.ok()) return CaseReport{file, Result::kBad, "", "", loaded.message(), "", "", "", ""};
  const validator::CaseFacts facts = validator::CaseFacts::of(c);
  if (!expecting.wanted(c.op) || !expecting.selection.selects(facts)) return std::nullopt;
  CaseReport report{file, Result::kPass, op_name(c.op), c.display_name(), "", "", "", "", ""};
  if (c.profile != "tf-cpu") {
    report.result = Result::kSkip;
    report.description = "profile " + c.profile + " (the implementations here are tf-cpu)";
    return report;
  }
  const conformance::Outcome outcome = conformance::run_case(table, c);
  const conformance::Allowed allowed = conformance::compare_allowed(c, outcome, "tf-cpu", strictness);
  if (allowed.alternative) report.description = "tf-alternative: " + allowed.alternative->why;
  const conformance::Judgement& judgement = allowed.judgement;
  report.signature = judgement.pass ? ""
                                    : validator::in_process_signature(c, outcome.status, outcome.outputs, "tf-cpu",
                                                                      strictness == conformance::Strictness::kStrict);
  int entry = -1;
  const auto expected = expecting.list.classify(facts, !judgement.pass, report.signature, &entry);
  if (entry >= 0) {
    const validator::Expectation& e = expecting.list.entries()[entry];
    report.reason = e.reason + " (" + e.where + ")";
  }
  if (expected == validator::Expectation::Match::kXpass) report.result = Result::kXpass;
  if (judgement.pass) return report;
  report.result = expected == validator::Expectation::Match::kXfail ? Result::kXfail : Result::kFail;
  report.description = judgement.detail;
  report.expected = conformance::format_expected(c, "");
  report.actual = conformance::format_outcome(outcome, "");
  return report;
}

// Every line of `text` prefixed with `indent`.
std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    out += indent + text.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  return out;
}

void print_report(const CaseReport& r, std::ostream& out) {
  if (r.result == Result::kBad) {
    out << "BAD  " << r.description << "\n";
  } else if (r.result == Result::kPass && !r.description.empty()) {  // an alternative's outcome
    out << "PASS " << r.file << " (" << r.op << ", " << r.name << "): " << r.description << "\n";
  } else if (r.result == Result::kXfail) {
    out << "XFAIL " << r.file << " (" << r.op << ", " << r.name << "): " << r.reason << "\n";
  } else if (r.result == Result::kXpass) {
    out << "XPASS " << r.file << " (" << r.op << ", " << r.name << ") passed: " << r.reason << "\n";
  } else if (r.result == Result::kFail) {
    out << "FAIL " << r.file << " (" << r.op << ", " << r.name << ")\n"
        << indented(r.description, "  ") << "  expected:\n"
        << indented(r.expected, "    ") << "  actual:\n"
        << indented(r.actual, "    ") << "  signature: " << r.signature << "\n";
  }
}

struct Counts {
  std::array<std::int64_t, 6> by_result{};  // indexed by Result
};

// passed, failed, skipped per op; xfail and xpass too with an expected-failure list.
void print_table(const std::map<std::string, Counts>& by_op, const Counts& total, bool expected, std::ostream& out) {
  char line[128];
  const auto print = [&](const char* name, const auto& n) {
    std::snprintf(line, sizeof line, "%-24s %8s %8s %8s", name, n[0].c_str(), n[1].c_str(), n[2].c_str());
    out << line;
    if (expected) {
      std::snprintf(line, sizeof line, " %8s %8s", n[4].c_str(), n[5].c_str());
      out << line;
    }
    out << "\n";
  };
  const auto texts = [](const Counts& c) {
    std::array<std::string, 6> n;
    for (std::size_t i = 0; i < n.size(); ++i) n[i] = std::to_string(c.by_result[i]);
    return n;
  };
  out << "\n";
  print("op", std::array<std::string, 6>{"passed", "failed", "skipped", "", "xfail", "xpass"});
  for (Op op : kAllOps) {
    auto it = by_op.find(op_name(op));
    if (it != by_op.end()) print(op_name(op), texts(it->second));
  }
  print("total", texts(total));
  if (total.by_result[3] > 0) out << "bad files: " << total.by_result[3] << "\n";
}

bool write_json(const std::string& path, const ReplayOptions& options, const std::string& table_name,
                const std::vector<std::string>& paths, const std::map<std::string, Counts>& by_op, const Counts& total,
                const std::vector<CaseReport>& reports, const Expecting& expecting,
                const std::vector<const validator::Expectation*>& unmatched, std::ostream& err) {
  using json = nlohmann::ordered_json;
  const auto counts = [](const Counts& c) {
    return json{{"passed", c.by_result[0]}, {"failed", c.by_result[1]}, {"skipped", c.by_result[2]},
                {"bad", c.by_result[3]},    {"xfail", c.by_result[4]},  {"xpass", c.by_result[5]}};
  };
  json report = {{"impl", options.impl},
                 {"ran", table_name},
                 {"strictness", options.strictness == conformance::Strictness::kStrict ? "strict" : "code-only"},
                 {"paths", paths},
                 {"summary", counts(total)},
                 {"ops", json::object()},
                 {"cases", json::array()}};
  for (const auto& [op, c] : by_op) report["ops"][op] = counts(c);
  for (const CaseReport& r : reports) {
    json entry = {{"file", r.file}, {"result", kResultNames[static_cast<int>(r.result)]}};
    if (!r.op.empty()) entry["op"] = r.op;
    if (!r.name.empty()) entry["name"] = r.name;
    if (!r.description.empty()) entry["description"] = r.description;
    if (!r.reason.empty()) entry["reason"] = r.reason;
    if (!r.signature.empty()) entry["signature"] = r.signature;
    if (r.result == Result::kFail || r.result == Result::kXfail) {
      entry["expected"] = r.expected;
      entry["actual"] = r.actual;
    }
    report["cases"].push_back(std::move(entry));
  }
  if (!options.expected_failures.empty()) {
    json entries = json::array(), missed = json::array();
    for (const validator::Expectation& e : expecting.list.entries()) {
      json item = {{"where", e.where},     {"matchers", e.matchers()}, {"reason", e.reason},
                   {"status", e.status()}, {"xfail", e.xfail},         {"xpass", e.xpass}};
      if (std::find(unmatched.begin(), unmatched.end(), &e) != unmatched.end()) missed.push_back(item);
      entries.push_back(std::move(item));
    }
    report["expected_failures"] = {{"xfail", expecting.list.xfail_count()}, {"xpass", expecting.list.xpass_count()},
                                   {"unmatched", unmatched.size()},         {"strict", options.strict_xfail},
                                   {"unmatched_entries", missed},           {"entries", entries}};
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << report.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  file.close();
  if (!file) err << "error: cannot write " << path << "\n";
  return static_cast<bool>(file);
}

}  // namespace

std::string default_corpus() { return validator::default_vectors_dir(); }

int replay(const ReplayOptions& options, std::ostream& out, std::ostream& err) {
  const OpTable& table = choose_table(options.impl, err);
  Expecting expecting;
  expecting.ops = &options.ops;
  for (const std::string& selector : options.select) {
    if (std::string why = expecting.selection.add(selector); !why.empty()) {
      err << "error: --select: " << why << "\n";
      return 2;
    }
  }
  if (!options.expected_failures.empty()) {
    if (std::string why = validator::Expectations::load(options.expected_failures, &expecting.list); !why.empty()) {
      err << "error: --xfail: " << why << "\n";
      return 2;
    }
  }
  const std::vector<std::string> paths = options.paths.empty() ? std::vector{default_corpus()} : options.paths;
  std::vector<CaseReport> reports;
  const std::vector<std::string> files = collect(paths, reports);
  for (const CaseReport& r : reports) print_report(r, out);
  for (const std::string& file : files) {
    std::optional<CaseReport> report = check_file(file, table, options.strictness, expecting);
    if (!report) continue;
    reports.push_back(std::move(*report));
    print_report(reports.back(), out);
  }

  std::map<std::string, Counts> by_op;
  Counts total;
  for (const CaseReport& r : reports) {
    ++total.by_result[static_cast<int>(r.result)];
    if (!r.op.empty()) ++by_op[r.op].by_result[static_cast<int>(r.result)];
  }
  const bool expected = !options.expected_failures.empty();
  print_table(by_op, total, expected, out);
  const auto unmatched = expecting.list.unmatched([&](Op op) { return expecting.wanted(op); });
  if (expected) out << "\n" << expecting.list.summary(options.expected_failures, unmatched, options.strict_xfail);
  const bool written = options.json_report.empty() || write_json(options.json_report, options, table.name, paths, by_op,
                                                                 total, reports, expecting, unmatched, err);
  if (files.empty() && total.by_result[3] == 0) {
    err << "error: no vectors (*.json) found under";
    for (const std::string& p : paths) err << " " << p;
    err << "\n";
    return 2;
  }
  if (total.by_result[static_cast<int>(Result::kBad)] > 0 || !written) return 2;
  const auto& n = total.by_result;
  const auto count = [&n](Result r) { return n[static_cast<int>(r)]; };
  if (count(Result::kPass) + count(Result::kFail) + count(Result::kXfail) + count(Result::kXpass) == 0) {
    err << "error: no vector was checked (all were skipped or not selected); nothing checked is not a pass\n";
    return 2;
  }
  if (options.strict_xfail && (expecting.list.xpass_count() > 0 || !unmatched.empty())) return 1;
  return count(Result::kFail) > 0 ? 1 : 0;
}

}  // namespace opconform::tools
