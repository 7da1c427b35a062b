#include "case_sources.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>

#include "opconform/conformance/run.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/generators/check_pairs.h"
#include "opconform/generators/checks.h"
#include "opconform/op_registry.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/case_mix.h"
#include "opconform/validator/clock.h"
#include "opconform/validator/install_layout.h"

namespace opconform::validator {

namespace fs = std::filesystem;
using conformance::Case;

namespace {

constexpr std::int64_t kDefaultGeneratedCases = 500;
constexpr int kGenerationAttempts = 20;  // draws per case to land inside the manifest
constexpr int kPairAttempts = 20;        // draws per check pair to break both checks
// Generated cases whose outputs exceed these are drawn again: each output crosses the pipe as
// JSON and the oracle materialises it (the generators also make valid cases that request
// gigabytes or 2^26 outputs, for the memory-limit properties).
constexpr std::size_t kMaxGeneratedOutputs = 1024;
constexpr std::int64_t kMaxGeneratedOutputBytes = std::int64_t{16} << 20;

// The oracle: the reference kernels' outcome, widened by the spec's unspecified rules.
conformance::Expected oracle_expected(const Case& c) {
  return conformance::oracle_expectation(c, conformance::run_case(reference::op_table(), c));
}

}  // namespace

bool affordable(const Case& c) {
  // The reference builds one Tensor per member of a list output (DynamicPartition's
  // num_partitions) before its memory check can help: a valid length above the output cap is not
  // drawn (above int32 it is rejected first).
  const std::int64_t list_length = list_output_length(op_info(c.op), c.attrs);
  if (list_length > static_cast<std::int64_t>(kMaxGeneratedOutputs) &&
      list_length <= std::numeric_limits<std::int32_t>::max())
    return false;
  const auto outputs = generators::predicted_outputs(c);
  if (!outputs) return true;  // an invalid case: the oracle answers before allocating
  const std::int64_t bytes = generators::predicted_request_bytes(*outputs);
  return outputs->size() <= kMaxGeneratedOutputs && bytes >= 0 && bytes <= kMaxGeneratedOutputBytes;
}

void set_oracle(Case* c) {
  c->expected = oracle_expected(*c);
  c->alternatives.clear();
  std::erase(c->tags, "unspecified");
  if (!c->expected.unspecified.empty()) c->tags.push_back("unspecified");
}

bool CaseSources::read_selection() {
  for (const std::string& selector : options_.select) {
    if (std::string why = selection_.add(selector); !why.empty()) {
      err_ << "opconform validate: --select: " << printable(why) << "\n";
      return false;
    }
  }
  return true;
}

bool CaseSources::wanted(Op op) const {
  return options_.ops.empty() || std::find(options_.ops.begin(), options_.ops.end(), op) != options_.ops.end();
}

bool CaseSources::ran(Op op) const { return wanted(op) && info_.manifest.find(op) != nullptr; }

void CaseSources::each(const Sink& run, const std::function<bool()>& stop) {
  vectors_phase(run, stop);
  pairs_phase(run, stop);
  generated_phase(run, stop);
}

// The vectors to run: the --replay files and folders, or the corpus. Every path or file that
// cannot be read is kept in input_problems_ (and printed); the others still run.
std::vector<Case> CaseSources::vectors() {
  std::vector<Case> cases;
  std::vector<std::string> paths;
  if (!options_.replay.empty()) {
    paths = options_.replay;
  } else if (options_.run_corpus) {
    const fs::path dir = options_.corpus_dir.empty() ? fs::path(default_vectors_dir()) : fs::path(options_.corpus_dir);
    paths = {dir.string()};
  }
  const conformance::VectorFiles found = conformance::find_vector_files(paths);
  input_problems_ = found.problems;
  for (const std::string& folder : found.empty_folders)
    input_problems_.push_back({folder, "no vectors (*.json) in this folder"});
  for (const std::string& f : found.files) {
    Case c;
    if (Status s = conformance::load_case_file(f, &c); !s.ok()) {
      const std::string prefix = f + ": ";
      const std::string reason = s.message().rfind(prefix, 0) == 0 ? s.message().substr(prefix.size()) : s.message();
      input_problems_.push_back({f, reason});
      continue;
    }
    if (!wanted(c.op) || !selection_.selects(CaseFacts::of(c))) continue;
    if (c.profile != "tf-cpu" && c.profile != info_.profile) continue;  // another profile's expectation
    cases.push_back(std::move(c));
  }
  for (const auto& p : input_problems_)
    err_ << "opconform validate: " << printable(conformance::problem_text(p)) << "\n";
  return cases;
}

// 1. Vectors: the bundled corpus, or the --replay files.
void CaseSources::vectors_phase(const Sink& run, const std::function<bool()>& stop) {
  for (const Case& c : vectors()) {
    if (stop()) break;
    if (info_.manifest.find(c.op) == nullptr) {
      ++not_listed_;
      continue;
    }
    run(c, c.source, nullptr, now_seconds());
  }
}

// 2. Check pairs (generators/check_pairs.h): for every feasible pair of an op's checks, one case
// breaking both, drawn from the seed. The pair counts as hit when the oracle answers the earlier
// check on a case inside the manifest; the report gives hits / feasible pairs per op.
void CaseSources::pairs_phase(const Sink& run, const std::function<bool()>& stop) {
  if (!options_.replay.empty() || !options_.check_pairs || options_.cases == 0 || selection_.vectors_only()) return;
  rc::Random random(info_.seed ^ 0x9E3779B97F4A7C15ULL);  // a stream apart from the generated cases'
  for (Op op : kAllOps) {
    if (!wanted(op) || info_.manifest.find(op) == nullptr) continue;
    const std::vector<generators::CheckPair> pairs = generators::feasible_pairs(op);
    PairCoverage& coverage = pair_coverage_[op];
    coverage.feasible = static_cast<std::int64_t>(pairs.size());
    for (const generators::CheckPair& pair : pairs) {
      const double started = now_seconds();
      Case c;
      const auto answers_first = [&](const generators::GeneratedCase& g) {
        c = g.c;
        std::string reason;
        if (!affordable(c) || !inside_manifest(info_.manifest, c, &reason)) return false;
        set_oracle(&c);
        const Status answer = c.expected.error ? *c.expected.error : Status();
        return generators::failed_check(op, answer) == pair.first;
      };
      const std::optional<Shrinkable> drawn =
          generators::find_pair_case(op, pair, random, kValidatorCaseSize / 2, kPairAttempts, answers_first, stop);
      if (!drawn) continue;
      ++coverage.hit;
      c.name = str_cat("pair-", op_snake_name(op), "-", pair.first, "-", pair.second);
      if (!selection_.selects(CaseFacts::of(c))) continue;
      run(c, "generated", &*drawn, started);
    }
  }
}

// 3. Generated cases (case_mix.h), ops in turn, until --cases, --time or a stop. Names depend only
// on the op and the position, so one seed gives the same names and cases on every run.
void CaseSources::generated_phase(const Sink& run, const std::function<bool()>& stop) {
  if (!options_.replay.empty() || selection_.vectors_only()) return;
  std::vector<Op> ops;
  for (Op op : kAllOps)
    if (wanted(op) && info_.manifest.find(op) != nullptr) ops.push_back(op);
  const bool timed = options_.time_seconds >= 0;
  const std::int64_t budget = options_.cases >= 0 ? options_.cases : timed ? -1 : kDefaultGeneratedCases;
  rc::Random random(info_.seed);
  for (std::int64_t i = 0; !ops.empty() && (budget < 0 || i < budget) && !stop(); ++i) {
    const Op op = ops[static_cast<std::size_t>(i) % ops.size()];
    const double started = now_seconds();
    std::optional<Shrinkable> drawn;
    Case c;
    std::string reason;
    for (int attempt = 0; attempt < kGenerationAttempts; ++attempt) {
      try {
        Shrinkable s = validator_case(op)(random.split(), static_cast<int>(i % (kValidatorCaseSize + 1)));
        Case candidate = s.value().c;
        if (!affordable(candidate)) continue;
        drawn = s;
        c = std::move(candidate);
        if (inside_manifest(info_.manifest, c, &reason)) break;
      } catch (const std::exception&) {
        // a generation failure: draw again
      }
    }
    if (!drawn) continue;
    c.name = str_cat("gen-", op_snake_name(op), "-", i);
    if (!selection_.selects(CaseFacts::of(c))) continue;  // drawn all the same: names keep their cases
    set_oracle(&c);
    run(c, "generated", &*drawn, started);
  }
}

}  // namespace opconform::validator
