#include "replay.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "opconform/conformance/format.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/vector_files.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/install_layout.h"
#include "opconform/optimized/op_table.h"

namespace opconform::tools {

namespace {

namespace fs = std::filesystem;
using conformance::Case;

enum class Result { kPass, kFail, kSkip, kBad };
constexpr const char* kResultNames[] = {"pass", "fail", "skip", "bad"};

struct CaseReport {
  std::string file;
  Result result;
  std::string op;           // empty for a bad file
  std::string name;
  std::string description;  // why it failed, was skipped or could not be loaded
  std::string expected, actual;
};

// Every file named, and every *.json below the folders named, in sorted order
// (conformance/vector_files.h); every path, folder or entry that cannot be read, and every named
// folder without vectors, becomes a bad report.
std::vector<std::string> collect(const std::vector<std::string>& paths, std::vector<CaseReport>& bad) {
  const conformance::VectorFiles found = conformance::find_vector_files(paths);
  for (const conformance::VectorFileProblem& p : found.problems)
    bad.push_back({p.path, Result::kBad, "", "", conformance::problem_text(p), "", ""});
  for (const std::string& folder : found.empty_folders)
    if (found.files.size() + found.problems.size() > 0)  // else the "no vectors" error says it
      bad.push_back({folder, Result::kBad, "", "", folder + ": no vectors (*.json) in this folder", "", ""});
  return found.files;
}

const OpTable& choose_table(const std::string& impl, std::ostream& err) {
  if (impl == "optimized") return optimized::op_table();
  return reference::op_table();
}

CaseReport check_file(const std::string& file, const OpTable& table, conformance::Strictness strictness) {
  Case c;
  const Status loaded = conformance::load_case_file(file, &c);
  if (!loaded.ok()) return {file, Result::kBad, "", "", loaded.message(), "", ""};
  CaseReport report{file, Result::kPass, op_name(c.op), c.display_name(), "", "", ""};
  if (c.profile != "tf-cpu") {
    report.result = Result::kSkip;
    report.description = "profile " + c.profile + " (the implementations here are tf-cpu)";
    return report;
  }
  const conformance::Outcome outcome = conformance::run_case(table, c);
  const conformance::Allowed allowed = conformance::compare_allowed(c, outcome, "tf-cpu", strictness);
  if (allowed.alternative) report.description = "tf-alternative: " + allowed.alternative->why;
  const conformance::Comparison& comparison = allowed.comparison;
  if (comparison.pass) return report;
  report.result = Result::kFail;
  report.description = comparison.description;
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
  } else if (r.result == Result::kFail) {
    out << "FAIL " << r.file << " (" << r.op << ", " << r.name << ")\n"
        << indented(r.description, "  ")
        << "  expected:\n" << indented(r.expected, "    ") << "  actual:\n" << indented(r.actual, "    ");
  }
}

struct Counts {
  std::array<std::int64_t, 4> by_result{};  // indexed by Result
};

void print_table(const std::map<std::string, Counts>& by_op, const Counts& total, std::ostream& out) {
  char line[128];
  std::snprintf(line, sizeof line, "%-24s %8s %8s %8s\n", "op", "passed", "failed", "skipped");
  out << "\n" << line;
  for (Op op : kAllOps) {
    auto it = by_op.find(op_name(op));
    if (it == by_op.end()) continue;
    const auto& n = it->second.by_result;
    std::snprintf(line, sizeof line, "%-24s %8lld %8lld %8lld\n", op_name(op), static_cast<long long>(n[0]),
                  static_cast<long long>(n[1]), static_cast<long long>(n[2]));
    out << line;
  }
  const auto& n = total.by_result;
  std::snprintf(line, sizeof line, "%-24s %8lld %8lld %8lld\n", "total", static_cast<long long>(n[0]),
                static_cast<long long>(n[1]), static_cast<long long>(n[2]));
  out << line;
  if (n[3] > 0) out << "bad files: " << n[3] << "\n";
}

bool write_json(const std::string& path, const ReplayOptions& options, const std::string& table_name,
                const std::vector<std::string>& paths, const std::map<std::string, Counts>& by_op,
                const Counts& total, const std::vector<CaseReport>& reports, std::ostream& err) {
  using json = nlohmann::ordered_json;
  const auto counts = [](const Counts& c) {
    return json{{"passed", c.by_result[0]}, {"failed", c.by_result[1]}, {"skipped", c.by_result[2]}, {"bad", c.by_result[3]}};
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
    if (r.result == Result::kFail) {
      entry["expected"] = r.expected;
      entry["actual"] = r.actual;
    }
    report["cases"].push_back(std::move(entry));
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
  const std::vector<std::string> paths = options.paths.empty() ? std::vector{default_corpus()} : options.paths;
  std::vector<CaseReport> reports;
  const std::vector<std::string> files = collect(paths, reports);
  for (const CaseReport& r : reports) print_report(r, out);
  for (const std::string& file : files) {
    reports.push_back(check_file(file, table, options.strictness));
    print_report(reports.back(), out);
  }

  std::map<std::string, Counts> by_op;
  Counts total;
  for (const CaseReport& r : reports) {
    ++total.by_result[static_cast<int>(r.result)];
    if (!r.op.empty()) ++by_op[r.op].by_result[static_cast<int>(r.result)];
  }
  print_table(by_op, total, out);
  const bool written =
      options.json_report.empty() || write_json(options.json_report, options, table.name, paths, by_op, total, reports, err);
  if (files.empty() && total.by_result[3] == 0) {
    err << "error: no vectors (*.json) found under";
    for (const std::string& p : paths) err << " " << p;
    err << "\n";
    return 2;
  }
  if (total.by_result[static_cast<int>(Result::kBad)] > 0 || !written) return 2;
  if (total.by_result[static_cast<int>(Result::kPass)] + total.by_result[static_cast<int>(Result::kFail)] == 0) {
    err << "error: no vector was checked (all were skipped); nothing checked is not a pass\n";
    return 2;
  }
  return total.by_result[static_cast<int>(Result::kFail)] > 0 ? 1 : 0;
}

}  // namespace opconform::tools
