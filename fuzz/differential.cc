#include "opconform/fuzz/differential.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "opconform/conformance/format.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/optimized/op_table.h"
#include "opconform/reference/op_table.h"

namespace opconform::fuzz {

namespace {

using conformance::Case;
using conformance::Outcome;

bool threw(const Status& s) { return s.code() == Code::kInternal && s.message().find(" threw") != std::string::npos; }

// Every tensor in `values` still has an intact guard region.
bool guards_intact(const conformance::Values& values) {
  for (const auto& [name, value] : values) {
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      if (!t->guard_intact()) return false;
    } else {
      for (const Tensor& t : std::get<std::vector<Tensor>>(value))
        if (!t.guard_intact()) return false;
    }
  }
  return true;
}

// Same status and bit-identical outputs (whole-buffer compares). Exact agreement passes every
// comparison, so conformance::compare is only asked to judge outcomes that differ somewhere.
bool identical(const Outcome& a, const Outcome& b) {
  if (!(a.status == b.status) || a.outputs.size() != b.outputs.size()) return false;
  for (const auto& [name, value] : a.outputs) {
    auto it = b.outputs.find(name);
    if (it == b.outputs.end() || it->second.index() != value.index()) return false;
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      if (!t->bit_equal(std::get<Tensor>(it->second))) return false;
      continue;
    }
    const auto& la = std::get<std::vector<Tensor>>(value);
    const auto& lb = std::get<std::vector<Tensor>>(it->second);
    if (la.size() != lb.size()) return false;
    for (std::size_t i = 0; i < la.size(); ++i)
      if (!la[i].bit_equal(lb[i])) return false;
  }
  return true;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

Verdict run_differential(const Case& c, const Knobs& knobs) {
  const std::int64_t violations_before = guard_violations();
  Verdict v;
  v.reference = conformance::run_case(reference::op_table(), c);
  v.optimized = conformance::run_case(optimized::op_table(), c, knobs);
  auto finding = [&](std::string why) {
    v.agree = false;
    v.why = std::move(why);
    return v;
  };
  if (threw(v.reference.status)) return finding("the reference kernel threw");
  if (threw(v.optimized.status)) return finding("the optimized kernel threw");
  if (v.reference.wrote_outputs_on_error) return finding("the reference kernel replaced its outputs on error");
  if (v.optimized.wrote_outputs_on_error) return finding("the optimized kernel replaced its outputs on error");
  if (guard_violations() != violations_before) return finding("a buffer guard was overwritten (a write past the end)");
  if (!guards_intact(v.reference.outputs)) return finding("the reference kernel wrote past an output's end");
  if (!guards_intact(v.optimized.outputs)) return finding("the optimized kernel wrote past an output's end");
  if (!guards_intact(c.inputs)) return finding("a kernel wrote past an input's end");
  if (identical(v.reference, v.optimized)) return v;
  Case expectation = c;
  expectation.expected = conformance::oracle_expectation(c, v.reference);
  const conformance::Judgement result = conformance::compare(expectation, v.optimized);
  if (!result.pass) return finding("optimized disagrees with reference: " + result.detail);
  return v;
}

void enable_buffer_checks() {
  BufferChecks checks;
  checks.enabled = true;
  set_buffer_checks(checks);
}

void report_and_abort(const Case& c, const Knobs& knobs, const Verdict& verdict) {
  Case shown = c;
  shown.expected = conformance::oracle_expectation(c, verdict.reference);
  std::string out = "\n==== opconform fuzz finding: " + std::string(op_name(c.op)) + " ====\n";
  out += verdict.why + "\n";
  out += str_cat("optimized knobs: ", knobs_string(knobs), " memory_limit=", c.memory_limit, "\n");
  out += "---- case (expected = the reference outcome) ----\n" + conformance::format_case(shown) + "\n";
  const std::vector<std::string> left = lines("reference:\n" + conformance::format_outcome(verdict.reference, "  "));
  const std::vector<std::string> right = lines("optimized:\n" + conformance::format_outcome(verdict.optimized, "  "));
  std::size_t width = 0;
  for (const std::string& l : left) width = std::max(width, l.size());
  width = std::min<std::size_t>(width, 100);
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    std::string l = i < left.size() ? left[i] : "";
    if (l.size() < width) l.resize(width, ' ');
    out += l + " | " + (i < right.size() ? right[i] : "") + "\n";
  }
  out += "---- triage: fuzz/run.sh triage <harness> <this input> writes a minimal vector ----\n";
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace opconform::fuzz
