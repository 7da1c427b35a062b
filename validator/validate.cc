#include "opconform/validator/validate.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "opconform/conformance/compare.h"
#include "opconform/conformance/format.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/vector.h"
#include "opconform/conformance/vector_files.h"
#include "opconform/generators/op_generators.h"
#include "opconform/generators/check_pairs.h"
#include "opconform/generators/checks.h"
#include "opconform/op_registry.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/validator/install_layout.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/case_mix.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/findings.h"
#include "opconform/validator/interrupt.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/reports.h"
#include "opconform/validator/shrink.h"
#include "opconform/validator/worker_client.h"

#include "asan.h"

namespace opconform::validator {

namespace fs = std::filesystem;
using conformance::Case;

namespace {

constexpr std::int64_t kDefaultGeneratedCases = 500;
constexpr std::int64_t kDefaultSoWorkerMemoryMiB = 8192;
constexpr int kGenerationAttempts = 20;  // draws per case to land inside the manifest
constexpr int kPairAttempts = 20;        // draws per check pair to break both checks
constexpr double kReportInterval = 5;    // seconds between rewrites of the reports
#if defined(OPCONFORM_ASAN)
constexpr bool kAsanBuild = true;  // this build's own worker carries ASan too
#else
constexpr bool kAsanBuild = false;
#endif
// Generated cases whose outputs exceed these are drawn again: each output crosses the pipe as
// JSON and the oracle materialises it (the generators also make valid cases that request
// gigabytes or 2^26 outputs, for the memory-limit properties).
constexpr std::size_t kMaxGeneratedOutputs = 1024;
constexpr std::int64_t kMaxGeneratedOutputBytes = std::int64_t{16} << 20;
constexpr std::size_t kMaxLaterDetailBytes = 512;  // of a failure that is not its group's first

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// The oracle: the reference kernels' outcome, widened by the spec's unspecified rules.
conformance::Expected oracle_expected(const Case& c) {
  return conformance::oracle_expectation(c, conformance::run_case(reference::op_table(), c));
}

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

// A changed case's expectation: the oracle's; a vector's alternatives belonged to its inputs.
void set_oracle(Case* c) {
  c->expected = oracle_expected(*c);
  c->alternatives.clear();
  std::erase(c->tags, "unspecified");
  if (!c->expected.unspecified.empty()) c->tags.push_back("unspecified");
}

using Shrinkable = rc::Shrinkable<generators::GeneratedCase>;

// "cd DIR && " when `impl` is a command whose relative paths depend on the working folder.
std::string working_folder_prefix(const std::string& impl) {
  if (impl.rfind("exec:", 0) != 0) return "";
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return ec ? "" : "cd " + shell_quote(cwd.string()) + " && ";
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// Every line of `text` after the first indented by `indent`.
std::string indent_rest(const std::string& text, const std::string& indent) {
  std::string out;
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += indent;
  }
  return out;
}

// The case's inputs (and attrs and memory limit), as a failure shows them.
std::string case_text(const Case& c, const std::string& indent) {
  std::string text;
  for (const auto& [name, value] : c.attrs) text += str_cat(indent, "attr ", name, " = ", value, "\n");
  if (c.memory_limit != kDefaultMemoryLimit) text += str_cat(indent, "memory_limit = ", c.memory_limit, "\n");
  return text + conformance::format_values(c.inputs, indent, 16);
}

// The bytes of the tensors in `values` (elements as stored; strings: their bytes).
double tensor_bytes(const conformance::Values& values) {
  double bytes = 0;
  const auto add = [&](const Tensor& t) {
    if (t.dtype() != DType::kString)
      bytes += static_cast<double>(t.num_elements()) * dtype_storage_size(t.dtype());
    else
      for (const std::string& s : t.values<std::string>()) bytes += static_cast<double>(s.size());
  };
  for (const auto& [name, value] : values) {
    if (const auto* t = std::get_if<Tensor>(&value))
      add(*t);
    else
      for (const Tensor& member : std::get<std::vector<Tensor>>(value)) add(member);
  }
  return bytes;
}

class Run {
 public:
  Run(const ValidateOptions& options, std::ostream& out, std::ostream& err) : options_(options), out_(out), err_(err) {}

  int main();

 private:
  // Setting up.
  Status start_worker();
  std::vector<Case> corpus_cases();
  bool open_outputs();
  bool check_failures_dir();
  // Stopping: --max-failures, --time, SIGINT/SIGTERM; each records why in stopped_.
  bool stopped() const { return options_.stop_after_failures > 0 && failures_ >= options_.stop_after_failures; }
  bool must_end();     // interrupted, or the --time budget is used up
  bool should_stop();  // must_end(), or --max-failures reached
  bool wanted(Op op) const {
    return options_.ops.empty() || std::find(options_.ops.begin(), options_.ops.end(), op) != options_.ops.end();
  }
  bool ran(Op op) const { return wanted(op) && manifest_.find(op) != nullptr; }
  bool read_expectations();
  // Running and judging. nullopt: the run's deadline or an interrupt cut the case short.
  std::optional<Judgement> run_one(const Case& c);
  void corpus_phase();
  void pairs_phase();
  void generated_phase();
  // Runs, judges and records c; `started` is when its drawing began (a vector's: now).
  void handle(const Case& c, const std::string& origin, const Shrinkable* shrinkable, double started);
  void present_group(std::size_t index, const Case& c, const Judgement& j, const Shrinkable* shrinkable);
  Case shrink(const Case& c, const Judgement& j, const Shrinkable* shrinkable, int* steps, Judgement* final);
  void keep_other_failure(const Case& candidate, const Judgement& j, const std::string& while_shrinking);
  bool saves_failures() const { return options_.replay.empty() || !options_.save_failures_dir.empty(); }
  std::string save(const Case& c, Verdict verdict, const std::string& origin, int steps);
  std::string replay_command(const std::string& vector) const;
  void print_group(const CaseRecord& r, const Case& shown, int steps, const std::string& key);
  void add_record(CaseRecord r);
  void expect(const Case& c, bool failed, const std::string& sig, CaseRecord* r);
  // Reporting.
  void progress(bool force);
  void clear_progress();
  void report();
  void report_expectations();
  ReportData report_data(RunState state) const;
  bool write_reports(RunState state, int exit_code = -1);
  int finish(int exit_code, RunState state);

  const ValidateOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  std::unique_ptr<Worker> worker_;
  Manifest manifest_;
  bool loaded_ = false;
  std::string impl_display_;
  std::string profile_;
  std::uint64_t seed_ = 0;
  std::string failures_dir_;
  std::vector<CaseRecord> records_;
  std::map<Op, std::array<std::int64_t, kNumVerdicts>> counts_;
  std::map<Op, PairCoverage> pair_coverage_;
  std::map<Op, Throughput> throughput_;
  double moved_bytes_ = 0;  // of the tensors sent to and received from the implementation
  std::int64_t failures_ = 0;
  std::int64_t not_listed_ = 0;
  Expectations expectations_;                                  // --xfail
  Selection selection_;                                        // --select
  std::map<Op, std::array<std::int64_t, 2>> expected_counts_;  // per op: xfail, xpass cases
  std::set<int> generated_xfails_;                             // the entries whose generated xfail was printed
  FailureGroups groups_;
  std::vector<std::size_t> representatives_;  // per group: its record
  std::vector<conformance::VectorFileProblem> input_problems_;
  std::string error_;    // a load failure, or why no case ran
  std::string stopped_;  // why the run ended early
  double started_ = now_seconds();
  double deadline_ = 0;  // the run's end under --time (0: none)
  double last_progress_ = started_;
  double last_report_ = started_;
  bool tty_ = false;
  bool progress_shown_ = false;
  std::ofstream jsonl_;
  ReportTarget json_target_, junit_target_;
  bool streams_written_ = false;       // a report that is a stream is written once, at the end
  std::string report_error_;           // the first report that could not be written
  std::set<std::string> saved_paths_;  // the vectors this run saved
};

// The --select selectors and the --xfail list: a usage error (exit 2) when one cannot be used.
bool Run::read_expectations() {
  for (const std::string& selector : options_.select) {
    if (std::string why = selection_.add(selector); !why.empty()) {
      err_ << "opconform validate: --select: " << printable(why) << "\n";
      return false;
    }
  }
  if (options_.expected_failures.empty()) return true;
  if (std::string why = Expectations::load(options_.expected_failures, &expectations_); !why.empty()) {
    err_ << "opconform validate: --xfail: " << printable(why) << "\n";
    return false;
  }
  return true;
}

Status Run::start_worker() {
  WorkerOptions w;
  w.timeout_seconds = options_.timeout_seconds;
  const std::string impl = options_.impl.empty() ? default_bundled_plugin() : options_.impl;
  impl_display_ = options_.impl.empty() ? "the bundled plug-in " + impl : impl;
  if (impl.rfind("exec:", 0) == 0) {
    w.argv = {"/bin/sh", "-c", impl.substr(5)};
    if (options_.worker_memory_mib > 0) w.address_space_bytes = options_.worker_memory_mib << 20;
  } else {
    const WorkerChoice worker =
        options_.worker_path.empty() ? choose_worker(impl) : WorkerChoice{options_.worker_path, kAsanBuild, false};
    if (!executable(worker.path))
      return invalid_argument("the worker binary opconform-worker was not found (", worker.path,
                              "); set OPCONFORM_WORKER to its path");
    if (worker.lacks_sanitized)
      return invalid_argument(impl, " is built with sanitizers, and this opconform has no sanitized worker to ",
                              "load it (libexec/opconform/sanitized/opconform-worker, built where clang is ",
                              "present: README, Install); set OPCONFORM_SANITIZED_WORKER to one");
    w.argv = {worker.path, impl};
    // Idle OpenMP threads of the plug-in would spin on the cores the validator needs between
    // calls (generating, judging): they sleep instead, unless the user says otherwise.
    if (std::getenv("OMP_WAIT_POLICY") == nullptr) w.environment.push_back("OMP_WAIT_POLICY=passive");
    const std::int64_t mib = options_.worker_memory_mib > 0 ? options_.worker_memory_mib : kDefaultSoWorkerMemoryMiB;
    if (worker.sanitized) {
      // A sanitized worker reserves terabytes of shadow address space, so RLIMIT_AS cannot
      // apply: ASan's own RSS limit stands in for it.
      const char* asan = std::getenv("ASAN_OPTIONS");
      w.environment.push_back(str_cat("ASAN_OPTIONS=", asan ? asan : "", asan && *asan ? ":" : "",
                                      "hard_rss_limit_mb=", mib, ":allocator_may_return_null=1",
                                      ":print_legend=0"));  // the report's summary line stays in the kept tail
      w.oom_rss_bytes = (mib << 20) / 4 * 3;
    } else {
      w.address_space_bytes = mib << 20;
    }
  }
  worker_ = std::make_unique<Worker>(std::move(w));
  worker_->set_deadline(deadline_);
  return worker_->start(&manifest_);
}

// The vectors to run: the --replay files and folders, or the corpus. Every path or file that
// cannot be read is kept in input_problems_ (and printed); the others still run.
std::vector<Case> Run::corpus_cases() {
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
    if (c.profile != "tf-cpu" && c.profile != profile_) continue;  // another profile's expectation
    cases.push_back(std::move(c));
  }
  for (const auto& p : input_problems_)
    err_ << "opconform validate: " << printable(conformance::problem_text(p)) << "\n";
  return cases;
}

// Checks every path the run writes before the first case, so that a path that cannot be used
// stops the run before it starts: each report can hold one, no two name the same file (nor a
// vector being replayed), --save-failures is a folder. Creates the JSON and JUnit reports (state
// "running"; a stream only at the end) and starts the JSON Lines stream.
bool Run::open_outputs() {
  ReportTarget jsonl_target;
  struct Named {
    const char* option;
    const std::string& path;
    ReportTarget& target;
  };
  const Named named[] = {{"--json", options_.json_path, json_target_},
                         {"--junit", options_.junit_path, junit_target_},
                         {"--jsonl", options_.jsonl_path, jsonl_target}};
  for (std::size_t i = 0; i < std::size(named); ++i) {
    if (named[i].path.empty()) continue;
    if (std::string why = resolve_report_target(named[i].path, &named[i].target); !why.empty()) {
      err_ << "opconform validate: cannot write " << printable(named[i].path) << " (" << named[i].option << "): " << why
           << "\n";
      return false;
    }
    for (std::size_t k = 0; k < i; ++k) {
      if (named[k].path.empty() || !named[k].target.same_as(named[i].target)) continue;
      err_ << "opconform validate: " << named[k].option << " and " << named[i].option
           << " name the same file: " << printable(named[i].path) << "\n";
      return false;
    }
    for (const std::string& vector : options_.replay) {
      struct stat st {};
      if (named[i].target.inode == 0 || ::stat(vector.c_str(), &st) != 0 || st.st_dev != named[i].target.device ||
          st.st_ino != named[i].target.inode)
        continue;
      err_ << "opconform validate: " << named[i].option << " names a vector given to --replay: " << printable(vector)
           << "\n";
      return false;
    }
  }
  if (!check_failures_dir()) return false;
  if (!options_.jsonl_path.empty()) {
    jsonl_.open(options_.jsonl_path, std::ios::trunc);
    if (jsonl_) jsonl_ << jsonl_start_line(report_data(RunState::kRunning)) << std::flush;
    if (!jsonl_) {
      err_ << "opconform validate: cannot write " << printable(options_.jsonl_path) << ": " << std::strerror(errno)
           << "\n";
      return false;
    }
  }
  if (!write_reports(RunState::kRunning)) {
    err_ << "opconform validate: " << printable(report_error_) << "\n";
    return false;
  }
  return true;
}

// --save-failures must name a folder that exists or can be made, and that can be written.
bool Run::check_failures_dir() {
  const std::string& dir = options_.save_failures_dir;
  if (dir.empty()) return true;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string why;
  if (!fs::is_directory(dir))
    why = fs::exists(dir) ? "not a folder" : ec ? ec.message() : "cannot be created";
  else if (::access(dir.c_str(), W_OK | X_OK) != 0)
    why = std::strerror(errno);
  if (why.empty()) return true;
  err_ << "opconform validate: --save-failures " << printable(dir) << ": " << why << "\n";
  return false;
}

bool Run::must_end() {
  if (interrupted()) {
    stopped_ = interrupt_signal() == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM";
    return true;
  }
  if (deadline_ > 0 && now_seconds() >= deadline_) {
    if (stopped_.empty()) stopped_ = str_cat("the --time budget of ", options_.time_seconds, " s was used up");
    return true;
  }
  return false;
}

bool Run::should_stop() {
  if (must_end()) return true;
  if (stopped() && stopped_.empty()) stopped_ = str_cat("stopped after ", failures_, " failing cases (--max-failures)");
  return stopped();
}

std::optional<Judgement> Run::run_one(const Case& c) {
  std::string reason;
  const bool inside = inside_manifest(manifest_, c, &reason);
  const RunResult result = worker_->run(c, max_result_bytes(c));
  moved_bytes_ += tensor_bytes(c.inputs) + tensor_bytes(result.answer.outputs);
  if (result.cut_short) {
    must_end();
    return std::nullopt;
  }
  const bool poison = impl_display_.rfind("exec:", 0) != 0;  // C-ABI outputs start as poison
  Judgement j = judge(c, result, JudgeOptions{profile_, options_.strict_messages, inside, poison});
  if (!inside) j.detail = "outside the manifest (" + reason + "): " + j.detail;
  return j;
}

// Shrinks a failing case while the candidates fail with the same signature (outcome and key).
// A candidate that fails with another outcome (a crash while shrinking a mismatch) is kept as a
// failure of its own when its signature is new (keep_other_failure). *final is the judgement of
// the returned case.
Case Run::shrink(const Case& original, const Judgement& j, const Shrinkable* shrinkable, int* steps, Judgement* final) {
  *steps = 0;
  *final = j;
  int runs = 0;
  const std::string name = original.display_name();
  const std::string wanted = signature(original.op, verdict_name(j.verdict), j.key);
  auto still_fails = [&](Case x) {
    if (!affordable(x) || must_end()) return false;
    ++runs;
    x.name = name;
    set_oracle(&x);
    const std::optional<Judgement> jx = run_one(x);
    if (!jx || !is_failure(jx->verdict)) return false;
    if (signature(x.op, verdict_name(jx->verdict), jx->key) == wanted) {
      *final = *jx;
      return true;
    }
    if (jx->verdict != j.verdict) keep_other_failure(x, *jx, name);
    return false;
  };
  Case best = original;
  if (shrinkable != nullptr) {
    // RapidCheck's own shrinks first: the first shrink that still fails, repeatedly.
    Shrinkable current = *shrinkable;
    bool progress = true;
    while (progress && runs < options_.max_shrink_runs) {
      progress = false;
      auto shrinks = current.shrinks();
      while (auto next = shrinks.next()) {
        if (runs >= options_.max_shrink_runs) break;
        Case candidate;
        try {
          candidate = next->value().c;
        } catch (...) {
          continue;  // a generation failure inside the shrink tree
        }
        if (still_fails(candidate)) {
          current = *next;
          best = candidate;
          ++*steps;
          progress = true;
          break;
        }
      }
    }
    best.name = name;
    set_oracle(&best);
  }
  int greedy_steps = 0;
  best = shrink_case(best, still_fails, std::max(0, options_.max_shrink_runs - runs), &greedy_steps);
  *steps += greedy_steps;
  best.name = name;
  if (*steps > 0) set_oracle(&best);
  return best;
}

// A failure seen on a shrink candidate only (a crash while shrinking a mismatch, say): recorded,
// saved and shown as a group of its own, when no group has its signature yet.
void Run::keep_other_failure(const Case& candidate, const Judgement& j, const std::string& while_shrinking) {
  const std::string sig = signature(candidate.op, verdict_name(j.verdict), j.key);
  if (groups_.contains(sig) || expectations_.find(CaseFacts::of(candidate), true, sig) >= 0) return;
  Case c = candidate;
  const int number = static_cast<int>(groups_.groups().size()) + 1;
  c.name = str_cat(while_shrinking, "-shrinking-", number);
  const std::string origin = "found while shrinking " + while_shrinking;
  ++counts_[c.op][static_cast<int>(j.verdict)];
  ++failures_;
  auto [group, fresh] = groups_.add(sig, c.name);
  CaseRecord r{c.op, c.name, origin, j.verdict, j.detail, 0, "", "", group, "", ""};
  r.saved = save(c, j.verdict, origin, 0);
  r.replay = replay_command(r.saved);
  representatives_.push_back(records_.size());
  add_record(r);
  print_group(r, c, 0, j.key);
}

std::string Run::save(const Case& c, Verdict verdict, const std::string& origin, int steps) {
  const bool reused = options_.save_failures_dir.empty();
  if (failures_dir_.empty()) {
    failures_dir_ = absolute(reused ? default_failures_dir(options_.impl) : options_.save_failures_dir);
    std::error_code ec;
    fs::create_directories(failures_dir_, ec);
  }
  Case saved = c;
  saved.provenance = str_cat("opconform validate: ", verdict_name(verdict), " of ", impl_display_, " on ", origin,
                             origin == "generated" ? str_cat(" (seed ", seed_, ")") : std::string(),
                             steps > 0 ? str_cat(", shrunk in ", steps, " steps") : std::string(),
                             "; expected: ", steps > 0 || origin != c.source ? "the reference" : "the vector");
  std::string stem;
  for (char ch : c.display_name())
    stem += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' ? ch : '_';
  // The reused folder keeps one file per name: an earlier run's file of that name is replaced.
  // A folder the user named keeps what it holds.
  fs::path path = fs::path(failures_dir_) / (stem + ".json");
  for (int i = 2; saved_paths_.count(path.string()) || (!reused && fs::exists(path)); ++i)
    path = fs::path(failures_dir_) / str_cat(stem, "-", i, ".json");
  if (Status s = conformance::save_case_file(saved, path); !s.ok()) {
    err_ << "opconform validate: cannot save " << printable(path.string()) << ": " << printable(s.message()) << "\n";
    return "";
  }
  saved_paths_.insert(path.string());
  return path.string();
}

// A command that replays `vector` when pasted anywhere: absolute paths, the working folder for
// an exec: command, and the options that change the judgement.
std::string Run::replay_command(const std::string& vector) const {
  std::string replay = working_folder_prefix(options_.impl) + options_.replay_command;
  if (!options_.impl.empty())
    replay += " --impl " + shell_quote(options_.impl.rfind("exec:", 0) == 0 ? options_.impl : absolute(options_.impl));
  if (!options_.profile.empty()) replay += " --profile " + options_.profile;
  if (options_.strict_messages) replay += " --strict-messages";
  if (options_.timeout_seconds != ValidateOptions{}.timeout_seconds)
    replay += str_cat(" --timeout ", options_.timeout_seconds);
  if (options_.worker_memory_mib > 0) replay += str_cat(" --worker-memory ", options_.worker_memory_mib);
  return replay + " --replay " + shell_quote(absolute(vector));
}

void Run::print_group(const CaseRecord& r, const Case& shown, int steps, const std::string& key) {
  clear_progress();
  // Names, paths and the implementation's text are printed through printable(): no terminal
  // escapes get through.
  out_ << "FAIL " << verdict_name(r.verdict) << " " << op_name(r.op) << " " << printable(r.name)
       << (r.origin == "generated" ? " (generated)" : "") << ", group #" << r.group << "\n";
  if (r.origin.rfind("found while shrinking ", 0) == 0) out_ << "  " << printable(r.origin) << "\n";
  out_ << "  " << indent_rest(printable(r.detail), "  ") << "\n";
  out_ << "  " << (steps > 0 ? str_cat("case, shrunk in ", steps, " steps:") : std::string("case:")) << "\n"
       << printable(case_text(shown, "    "));
  if (!r.saved.empty()) out_ << "  saved: " << printable(r.saved) << "\n";
  out_ << "  replay: " << printable(r.replay) << "\n";
  out_ << "  signature: " << printable(signature(r.op, verdict_name(r.verdict), key)) << "\n" << std::flush;
}

// Classifies a judged case by the expected-failure list. A vector's xfail or xpass is printed,
// and of the generated cases the first xfail of each entry; the others are counted. An expected
// failure is neither shrunk nor saved.
void Run::expect(const Case& c, bool failed, const std::string& sig, CaseRecord* r) {
  int entry = -1;
  const Expectation::Outcome outcome = expectations_.classify(CaseFacts::of(c), failed, sig, &entry);
  if (outcome == Expectation::Outcome::kNone) return;
  const Expectation& e = expectations_.entries()[entry];
  const bool xfail = outcome == Expectation::Outcome::kXfail;
  r->expectation = xfail ? "xfail" : "xpass";
  r->reason = e.reason + " (" + e.where + ")";
  ++expected_counts_[c.op][xfail ? 0 : 1];
  if (r->origin == "generated" && !(xfail && generated_xfails_.insert(entry).second)) return;
  clear_progress();
  out_ << (xfail ? "XFAIL " : "XPASS ") << (xfail ? std::string(verdict_name(r->verdict)) + " " : "") << op_name(c.op)
       << " " << printable(r->name) << (xfail ? "" : " passed") << ": " << printable(r->reason) << "\n";
  if (xfail) out_ << "  signature: " << printable(sig) << "\n";
  out_ << std::flush;
}

void Run::add_record(CaseRecord r) {
  if (jsonl_.is_open()) jsonl_ << jsonl_case_line(r) << std::flush;
  records_.push_back(std::move(r));
}

// The first failure of a new group: shrunk (unless it is a timeout, or a replay that saves
// nothing), saved, and printed as the group's representative.
void Run::present_group(std::size_t index, const Case& c, const Judgement& j, const Shrinkable* shrinkable) {
  const std::string origin = records_[index].origin;
  int steps = 0;
  Judgement final = j;
  Case small = c;
  if (saves_failures() && j.verdict != Verdict::kTimeout) small = shrink(c, j, shrinkable, &steps, &final);
  CaseRecord& r = records_[index];  // shrinking may have added records
  r.detail = final.detail;
  if (saves_failures()) r.saved = save(small, j.verdict, origin, steps);
  r.replay = replay_command(!r.saved.empty() ? r.saved : origin);
  print_group(r, small, steps, j.key);
}

void Run::handle(const Case& c, const std::string& origin, const Shrinkable* shrinkable, double started) {
  const double t0 = now_seconds();
  const double bytes_before = moved_bytes_;
  const std::optional<Judgement> judged = run_one(c);
  if (!judged) return;  // cut short: not judged, not counted
  const Judgement& j = *judged;
  CaseRecord r{c.op, c.display_name(), origin, j.verdict, j.detail, now_seconds() - t0, "", "", 0, "", ""};
  ++counts_[c.op][static_cast<int>(j.verdict)];
  const std::string sig = is_failure(j.verdict) ? signature(c.op, verdict_name(j.verdict), j.key) : "";
  expect(c, is_failure(j.verdict), sig, &r);
  if (!is_failure(j.verdict) || r.expectation == "xfail") {
    add_record(std::move(r));
  } else {
    ++failures_;
    auto [group, fresh] = groups_.add(sig, r.name);
    r.group = group;
    if (!fresh) {
      // A later case of a group keeps the head of its detail: the representative has it whole,
      // and a run under --time with no case limit stays bounded per case.
      r.detail = text_head(std::move(r.detail), kMaxLaterDetailBytes, "; the group's first case has it whole");
      const CaseRecord& shown = records_[representatives_[group - 1]];
      r.replay = origin == "generated" ? shown.replay : replay_command(origin);
      add_record(std::move(r));
    } else {
      representatives_.push_back(records_.size());
      records_.push_back(r);  // the JSON line follows once it is shrunk and saved
      const std::size_t index = records_.size() - 1;
      present_group(index, c, j, shrinkable);
      if (jsonl_.is_open()) jsonl_ << jsonl_case_line(records_[index]) << std::flush;
      write_reports(RunState::kRunning);
    }
  }
  Throughput& rate = throughput_[c.op];
  ++rate.cases;
  rate.seconds += now_seconds() - started;
  rate.tensor_bytes += moved_bytes_ - bytes_before;
  if (now_seconds() - last_report_ >= kReportInterval) write_reports(RunState::kRunning);
  progress(false);
}

// 1. Vectors: the bundled corpus, or the --replay files.
void Run::corpus_phase() {
  for (const Case& c : corpus_cases()) {
    if (should_stop()) break;
    if (manifest_.find(c.op) == nullptr) {
      ++not_listed_;
      continue;
    }
    handle(c, c.source, nullptr, now_seconds());
  }
}

// 2. Check pairs (generators/check_pairs.h): for every feasible pair of an op's checks, one case
// breaking both, drawn from the seed. The pair counts as hit when the oracle answers the earlier
// check on a case inside the manifest; the report gives hits / feasible pairs per op.
void Run::pairs_phase() {
  if (!options_.replay.empty() || !options_.check_pairs || options_.cases == 0 || selection_.vectors_only()) return;
  rc::Random random(seed_ ^ 0x9E3779B97F4A7C15ULL);  // a stream apart from the generated cases'
  for (Op op : kAllOps) {
    if (!wanted(op) || manifest_.find(op) == nullptr) continue;
    const std::vector<generators::CheckPair> pairs = generators::feasible_pairs(op);
    PairCoverage& coverage = pair_coverage_[op];
    coverage.feasible = static_cast<std::int64_t>(pairs.size());
    for (const generators::CheckPair& pair : pairs) {
      const double started = now_seconds();
      Case c;
      const auto answers_first = [&](const generators::GeneratedCase& g) {
        c = g.c;
        std::string reason;
        if (!affordable(c) || !inside_manifest(manifest_, c, &reason)) return false;
        set_oracle(&c);
        const Status answer = c.expected.error ? *c.expected.error : Status();
        return generators::failed_check(op, answer) == pair.first;
      };
      const std::optional<Shrinkable> drawn = generators::find_pair_case(
          op, pair, random, kValidatorCaseSize / 2, kPairAttempts, answers_first, [this] { return should_stop(); });
      if (!drawn) continue;
      ++coverage.hit;
      c.name = str_cat("pair-", op_snake_name(op), "-", pair.first, "-", pair.second);
      if (!selection_.selects(CaseFacts::of(c))) continue;
      handle(c, "generated", &*drawn, started);
    }
  }
}

// 3. Generated cases (case_mix.h), ops in turn, until --cases, --time or a stop. Names depend only
// on the op and the position, so one seed gives the same names and cases on every run.
void Run::generated_phase() {
  if (!options_.replay.empty() || selection_.vectors_only()) return;
  std::vector<Op> ops;
  for (Op op : kAllOps)
    if (wanted(op) && manifest_.find(op) != nullptr) ops.push_back(op);
  const bool timed = options_.time_seconds >= 0;
  const std::int64_t budget = options_.cases >= 0 ? options_.cases : timed ? -1 : kDefaultGeneratedCases;
  rc::Random random(seed_);
  for (std::int64_t i = 0; !ops.empty() && (budget < 0 || i < budget) && !should_stop(); ++i) {
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
        if (inside_manifest(manifest_, c, &reason)) break;
      } catch (const std::exception&) {
        // a generation failure: draw again
      }
    }
    if (!drawn) continue;
    c.name = str_cat("gen-", op_snake_name(op), "-", i);
    if (!selection_.selects(CaseFacts::of(c))) continue;  // drawn all the same: names keep their cases
    set_oracle(&c);
    handle(c, "generated", &*drawn, started);
  }
}

void Run::progress(bool force) {
  const double now = now_seconds();
  if (!force && now - last_progress_ < (tty_ ? 0.2 : 10.0)) return;
  last_progress_ = now;
  const double elapsed = std::max(now - started_, 1e-9);
  std::ostringstream line;
  line << records_.size() << " cases, " << failures_ << " failed, "
       << static_cast<std::int64_t>(records_.size() / elapsed) << " cases/s";
  if (tty_) {
    err_ << "\r\033[K" << line.str() << std::flush;
    progress_shown_ = true;
  } else {
    err_ << "opconform validate: " << line.str() << "\n";
  }
}

void Run::clear_progress() {
  if (tty_ && progress_shown_) err_ << "\r\033[K" << std::flush;
  progress_shown_ = false;
}

void Run::report() {
  clear_progress();
  std::array<bool, kNumVerdicts> used{};
  for (const auto& [op, counts] : counts_)
    for (int v = 0; v < kNumVerdicts; ++v) used[v] = used[v] || counts[v] > 0;
  std::array<std::int64_t, kNumVerdicts> total{};
  std::ostringstream table;
  table << std::left;
  table.width(22);
  table << "op";
  for (int v = 0; v < kNumVerdicts; ++v)
    if (used[v]) table << " " << verdict_name(static_cast<Verdict>(v));
  const bool expected = !expectations_.empty();  // the xfail and xpass columns
  if (expected) table << " xfail xpass";
  table << "\n";
  auto row = [&](std::string_view name, const std::array<std::int64_t, kNumVerdicts>& counts,
                 const std::array<std::int64_t, 2>& xcounts) {
    table.width(22);
    table << std::string(name);
    for (int v = 0; v < kNumVerdicts; ++v) {
      if (!used[v]) continue;
      table << " ";
      table.width(static_cast<std::streamsize>(verdict_name(static_cast<Verdict>(v)).size()));
      table << std::right << counts[v] << std::left;
    }
    for (int k = 0; expected && k < 2; ++k) {
      table << " ";
      table.width(5);
      table << std::right << xcounts[k] << std::left;
    }
    table << "\n";
  };
  std::array<std::int64_t, 2> xtotal{};
  for (const auto& [op, counts] : counts_) {
    const std::array<std::int64_t, 2> xcounts = expected_counts_[op];
    row(op_name(op), counts, xcounts);
    for (int v = 0; v < kNumVerdicts; ++v) total[v] += counts[v];
    for (int k = 0; k < 2; ++k) xtotal[k] += xcounts[k];
  }
  row("total", total, xtotal);
  if (!throughput_.empty()) {
    // Cases per second and megabytes (10^6) of tensors in and out per second, shrinking included.
    Throughput all;
    std::ostringstream speed;
    speed << std::fixed;
    const auto line = [&](std::string_view name, const Throughput& t) {
      speed << std::left << std::setw(22) << std::string(name) << std::right << std::setprecision(1) << std::setw(10)
            << t.cases_per_second() << std::setprecision(2) << std::setw(10) << t.mb_per_second() << "\n";
    };
    speed << std::left << std::setw(22) << "speed" << std::right << std::setw(10) << "cases/s" << std::setw(10)
          << "MB/s"
          << "\n";
    for (const auto& [op, t] : throughput_) {
      line(op_name(op), t);
      all.add(t);
    }
    line("total", all);
    out_ << "\n" << speed.str();
  }
  out_ << "\n" << table.str();
  if (!pair_coverage_.empty()) {
    PairCoverage all;
    std::string per_op;
    for (const auto& [op, p] : pair_coverage_) {
      all.hit += p.hit;
      all.feasible += p.feasible;
      per_op += str_cat(per_op.empty() ? "" : ", ", op_name(op), " ", p.hit, "/", p.feasible);
    }
    out_ << "check pairs hit (inputs breaking two checks at once, the earlier must answer): " << all.hit << "/"
         << all.feasible << " (" << std::fixed << std::setprecision(1)
         << 100.0 * static_cast<double>(all.hit) / static_cast<double>(std::max<std::int64_t>(1, all.feasible))
         << " %)\n  " << per_op << "\n"
         << std::defaultfloat;
  }
  if (not_listed_ > 0) out_ << not_listed_ << " vectors of ops the manifest does not list were not run\n";
  if (!groups_.groups().empty()) {
    out_ << "\n" << failures_ << " failing cases in " << groups_.groups().size() << " groups:\n";
    for (const FailureGroups::Group& g : groups_.groups()) {
      const CaseRecord& shown = records_[representatives_[g.id - 1]];
      out_ << "  #" << g.id << "  " << g.count << (g.count == 1 ? " case   " : " cases  ") << printable(g.signature)
           << "\n"
           << "      e.g. " << printable(shown.name) << ": "
           << printable(shown.saved.empty() ? shown.origin : shown.saved) << "\n"
           << "      replay: " << printable(shown.replay) << "\n";
    }
  }
  report_expectations();
  if (!input_problems_.empty()) out_ << input_problems_.size() << " inputs could not be read (listed above)\n";
  if (!stopped_.empty()) out_ << "the run ended early: " << stopped_ << "\n";
  out_ << records_.size() << " cases, " << failures_ << " failed"
       << (expected ? str_cat(", ", expectations_.xfail_count(), " xfail, ", expectations_.xpass_count(), " xpass")
                    : std::string())
       << "; implementation " << printable(impl_display_) << " (" << printable(manifest_.name) << "), profile "
       << profile_ << ", seed " << seed_ << "\n";
  if (!saved_paths_.empty()) out_ << "failures saved under " << printable(failures_dir_) << "\n";
}

// Each entry of the expected-failure list with its status: xfail (and how many cases), xpass
// (its cases passed, or its signature's failure did not occur), or unmatched.
void Run::report_expectations() {
  if (expectations_.empty()) return;
  out_ << "\n"
       << expectations_.summary(options_.expected_failures, expectations_.unmatched([this](Op op) { return ran(op); }),
                                options_.strict_xfail);
}

ReportData Run::report_data(RunState state) const {
  ReportData d;
  d.impl = impl_display_.empty() ? options_.impl : impl_display_;
  d.manifest_json = loaded_ ? manifest_message(manifest_) : "";
  d.profile = profile_;
  d.seed = seed_;
  d.state = state;
  d.error = error_;
  d.stopped = stopped_;
  d.input_problems = input_problems_;
  d.records = &records_;
  d.counts = counts_;
  d.pair_coverage = pair_coverage_;
  d.throughput = throughput_;
  d.failed = failures_;
  d.groups = &groups_;
  d.representatives = representatives_;
  if (!expectations_.empty()) {
    d.expectations = &expectations_;
    d.unmatched = expectations_.unmatched([this](Op op) { return ran(op); });
  }
  d.strict_xfail = options_.strict_xfail;
  return d;
}

// Rewrites the JSON and JUnit reports (each atomically). False, with report_error_ set, when
// one cannot be written.
bool Run::write_reports(RunState state, int exit_code) {
  last_report_ = now_seconds();
  ReportData data = report_data(state);
  data.exit_code = exit_code;
  bool ok = true;
  const bool final = exit_code >= 0;
  auto wanted = [&](const ReportTarget& target) {
    return !target.path.empty() && (!target.stream() || (final && !streams_written_));
  };
  auto write = [&](const ReportTarget& target, const std::string& text) {
    if (std::string e = write_report(target, text); !e.empty()) {
      if (report_error_.empty()) report_error_ = "cannot write " + target.path + ": " + e;
      ok = false;
    }
  };
  if (wanted(json_target_)) write(json_target_, json_report(data));
  if (wanted(junit_target_)) write(junit_target_, junit_report(data));
  if (final) streams_written_ = true;
  if (exit_code >= 0 && jsonl_.is_open()) {
    jsonl_ << jsonl_summary_line(data) << std::flush;
    if (!jsonl_ && report_error_.empty()) report_error_ = "cannot write " + options_.jsonl_path;
    ok = ok && static_cast<bool>(jsonl_);
  }
  return ok;
}

// The last reports, and the exit status: 2 when a report cannot be written.
int Run::finish(int exit_code, RunState state) {
  if (!write_reports(state, exit_code)) {
    err_ << "opconform validate: " << printable(report_error_) << "\n";
    exit_code = 2;
    write_reports(state, exit_code);  // what can still be written says so
  }
  return exit_code;
}

int Run::main() {
  InterruptScope interrupts;
  tty_ = options_.progress.value_or(::isatty(STDERR_FILENO) == 1);
  seed_ = options_.seed         ? *options_.seed
          : options_.fresh_seed ? std::random_device{}() * std::uint64_t{0x100000001} + std::random_device{}()
                                : kDefaultSeed;
  if (options_.time_seconds >= 0) deadline_ = started_ + options_.time_seconds;
  impl_display_ = options_.impl.empty() ? "the bundled plug-in" : options_.impl;
  if (!read_expectations() || !open_outputs()) return 2;
  if (Status s = start_worker(); !s.ok()) {
    // A --time budget used up before the handshake ended is the run's doing, not the implementation's.
    if (!interrupted() && must_end())
      error_ = str_cat(stopped_, " before the implementation had started: no case was run");
    else
      error_ = str_cat("cannot use the implementation ", options_.impl.empty() ? "(bundled)" : options_.impl, ": ",
                       s.message());
    err_ << "opconform validate: " << printable(error_) << "\n";
    return finish(2, RunState::kError);
  }
  loaded_ = true;
  profile_ = options_.profile.empty() ? manifest_.profile : options_.profile;
  if (!options_.profile.empty() && options_.profile != manifest_.profile)
    err_ << "opconform validate: note: the implementation declares profile " << printable(manifest_.profile)
         << ", judging under " << options_.profile << "\n";
  err_ << "opconform validate: seed " << seed_
       << (options_.seed         ? ""
           : options_.fresh_seed ? " (fresh)"
                                 : " (default)")
       << "\n";

  corpus_phase();
  pairs_phase();
  generated_phase();
  worker_->stop();
  report();

  RunState state = interrupted() ? RunState::kInterrupted : RunState::kComplete;
  int exit_code = failures_ > 0 ? 1 : 0;
  if (options_.strict_xfail && state == RunState::kComplete &&
      (expectations_.xpass_count() > 0 || !expectations_.unmatched([this](Op op) { return ran(op); }).empty()))
    exit_code = 1;
  if (records_.empty() && state == RunState::kComplete) {
    error_ = "no case was run (nothing to check is not a pass)";
    err_ << "opconform validate: " << error_ << "\n";
    state = RunState::kError;
  }
  if (state != RunState::kComplete || !input_problems_.empty()) exit_code = std::max(exit_code, 2);
  if (state == RunState::kInterrupted && failures_ > 0) exit_code = 1;
  return finish(exit_code, state);
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&out](unsigned char byte) {
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[byte >> 4];
    out += hex[byte & 15];
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f)
        escape(byte);
      else
        out += static_cast<char>(byte);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence stays, but for the C1 controls.
    char32_t code = 0;
    const std::size_t length = utf8_sequence_length(text.substr(i), &code);
    if (length == 0 || code < 0xA0) {
      escape(byte);
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string default_failures_dir(const std::string& impl) {
  // The folder's name: the implementation's file name, and a hash of what identifies it (its
  // absolute path; for an exec: command, the command and the working folder).
  std::string identity = impl.empty() ? std::string("bundled") : impl.rfind("exec:", 0) == 0 ? impl : absolute(impl);
  if (impl.rfind("exec:", 0) == 0) identity += "\n" + absolute(".");
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char ch : identity) hash = (hash ^ ch) * 0x100000001b3ULL;
  std::string stem = impl.empty() ? "bundled" : fs::path(impl.rfind("exec:", 0) == 0 ? "exec" : impl).stem().string();
  for (char& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.') ch = '_';
  if (stem.size() > 40) stem.resize(40);
  std::ostringstream name;
  name << stem << "-" << std::hex << std::setw(16) << std::setfill('0') << hash;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path root;
  if (cache && *cache == '/')
    root = fs::path(cache) / "opconform";
  else if (home && *home == '/')
    root = fs::path(home) / ".cache" / "opconform";
  else
    root = fs::path(std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") /
           str_cat("opconform-", ::getuid());
  return (root / "failures" / name.str()).string();
}

std::optional<Op> parse_op_name(std::string_view name) { return op_from_either_name(name); }

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  Run run(options, out, err);
  return run.main();
}

}  // namespace opconform::validator
