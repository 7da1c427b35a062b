#include "opconform/validator/validate.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "opconform/conformance/compare.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/conformance/vector.h"
#include "opconform/generators/cases.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/install_layout.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/shrink.h"
#include "opconform/validator/worker_client.h"

namespace opconform::validator {

namespace fs = std::filesystem;
using conformance::Case;

namespace {

constexpr std::int64_t kDefaultGeneratedCases = 500;
constexpr std::int64_t kDefaultSoWorkerMemoryMiB = 8192;
constexpr int kGenerationAttempts = 20;  // draws per case to land inside the manifest
constexpr int kMaxRcSize = 100;
// Generated cases whose outputs exceed these are drawn again: each output crosses the pipe as
// JSON and the oracle materialises it (the generators also make valid cases that request
// gigabytes or 2^26 outputs, for the memory-limit properties).
constexpr std::size_t kMaxGeneratedOutputs = 1024;
constexpr std::int64_t kMaxGeneratedOutputBytes = std::int64_t{16} << 20;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string snake_name(Op op) {
  switch (op) {
    case Op::kSpaceToBatchND: return "space_to_batch_nd";
    case Op::kBatchToSpaceND: return "batch_to_space_nd";
    case Op::kDynamicStitch: return "dynamic_stitch";
    case Op::kParallelDynamicStitch: return "parallel_dynamic_stitch";
    case Op::kDynamicPartition: return "dynamic_partition";
    case Op::kSparseConcat: return "sparse_concat";
  }
  return "?";
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 has no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') out += '?';
        else out += ch;
    }
  }
  return out;
}

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// The oracle: the reference kernels' outcome, widened by the spec's unspecified rules.
conformance::Expected oracle_expected(const Case& c) {
  return conformance::oracle_expectation(c, conformance::run_case(reference::op_table(), c));
}

bool affordable(const Case& c) {
  // The reference builds one Tensor per partition before its memory check can help: a valid
  // num_partitions above the output cap is not drawn (above int32 it is rejected first).
  if (c.op == Op::kDynamicPartition) {
    const auto k = c.attrs.find("num_partitions");
    if (k != c.attrs.end() && k->second > static_cast<std::int64_t>(kMaxGeneratedOutputs) &&
        k->second <= std::numeric_limits<std::int32_t>::max())
      return false;
  }
  const auto outputs = generators::predicted_outputs(c);
  if (!outputs) return true;  // an invalid case: the oracle answers before allocating
  const std::int64_t bytes = generators::predicted_request_bytes(*outputs);
  return outputs->size() <= kMaxGeneratedOutputs && bytes >= 0 && bytes <= kMaxGeneratedOutputBytes;
}

void set_oracle(Case* c) {
  c->expected = oracle_expected(*c);
  std::erase(c->tags, "unspecified");
  if (!c->expected.unspecified.empty()) c->tags.push_back("unspecified");
}

struct Record {
  Op op;
  std::string name;
  std::string origin;  // the vector file, or "generated"
  Verdict verdict;
  std::string detail;
  double seconds;
  std::string saved;   // the saved (shrunk) vector
  std::string replay;  // the one-line replay command
};

class Run {
 public:
  Run(const ValidateOptions& options, std::ostream& out, std::ostream& err)
      : options_(options), out_(out), err_(err) {}

  int main();

 private:
  Status start_worker();
  std::vector<Case> corpus_cases();
  bool stopped() const { return options_.stop_after_failures > 0 && failures_ >= options_.stop_after_failures; }
  bool wanted(Op op) const {
    return options_.ops.empty() || std::find(options_.ops.begin(), options_.ops.end(), op) != options_.ops.end();
  }
  Judgement run_one(const Case& c);
  void handle(const Case& c, const std::string& origin, const rc::Shrinkable<generators::GeneratedCase>* shrinkable);
  Case shrink(const Case& c, Verdict verdict, const rc::Shrinkable<generators::GeneratedCase>* shrinkable, int* steps);
  std::string save(const Case& c, Verdict verdict, const std::string& origin, int steps);
  void progress(bool force);
  void clear_progress();
  void report();
  void write_json(const std::string& path) const;
  void write_junit(const std::string& path) const;

  const ValidateOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  std::unique_ptr<Worker> worker_;
  Manifest manifest_;
  std::string impl_display_;
  std::string profile_;
  std::uint64_t seed_ = 0;
  std::string failures_dir_;
  std::vector<Record> records_;
  std::map<Op, std::array<std::int64_t, kNumVerdicts>> counts_;
  std::int64_t failures_ = 0;
  std::int64_t not_listed_ = 0;
  double started_ = now_seconds();
  double last_progress_ = started_;
  bool tty_ = false;
  bool progress_shown_ = false;
};

Status Run::start_worker() {
  WorkerOptions w;
  w.timeout_seconds = options_.timeout_seconds;
  const std::string impl = options_.impl.empty() ? default_bundled_plugin() : options_.impl;
  impl_display_ = options_.impl.empty() ? "the bundled plug-in " + impl : impl;
  if (impl.rfind("exec:", 0) == 0) {
    w.argv = {"/bin/sh", "-c", impl.substr(5)};
    if (options_.worker_memory_mib > 0) w.address_space_bytes = options_.worker_memory_mib << 20;
  } else {
    const std::string worker = options_.worker_path.empty() ? default_worker_path() : options_.worker_path;
    if (!executable(worker))
      return invalid_argument("the worker binary opconform-worker was not found (", worker,
                              "); set OPCONFORM_WORKER to its path");
    w.argv = {worker, impl};
    const std::int64_t mib = options_.worker_memory_mib > 0 ? options_.worker_memory_mib : kDefaultSoWorkerMemoryMiB;
#if defined(__SANITIZE_ADDRESS__)
    // A sanitized worker reserves terabytes of shadow address space, so RLIMIT_AS cannot
    // apply: ASan's own RSS limit stands in for it.
    const char* asan = std::getenv("ASAN_OPTIONS");
    w.environment.push_back(str_cat("ASAN_OPTIONS=", asan ? asan : "", asan && *asan ? ":" : "",
                                    "hard_rss_limit_mb=", mib, ":allocator_may_return_null=1"));
    w.oom_rss_bytes = (mib << 20) / 4 * 3;
#else
    w.address_space_bytes = mib << 20;
#endif
  }
  worker_ = std::make_unique<Worker>(std::move(w));
  return worker_->start(&manifest_);
}

std::vector<Case> Run::corpus_cases() {
  std::vector<Case> cases;
  std::vector<fs::path> files;
  if (!options_.replay.empty()) {
    for (const std::string& f : options_.replay) files.emplace_back(f);
  } else if (options_.run_corpus) {
    const fs::path dir = options_.corpus_dir.empty() ? fs::path(default_vectors_dir()) : fs::path(options_.corpus_dir);
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
    if (ec) err_ << "opconform validate: cannot list " << dir.string() << ": " << ec.message() << "\n";
    std::sort(files.begin(), files.end());
  }
  for (const fs::path& f : files) {
    Case c;
    if (Status s = conformance::load_case_file(f, &c); !s.ok()) {
      err_ << "opconform validate: skipping a vector that does not read: " << s.message() << "\n";
      continue;
    }
    if (!wanted(c.op)) continue;
    if (c.profile != "tf-cpu" && c.profile != profile_) continue;  // another profile's expectation
    cases.push_back(std::move(c));
  }
  return cases;
}

Judgement Run::run_one(const Case& c) {
  std::string reason;
  const bool inside = inside_manifest(manifest_, c, &reason);
  const RunResult result = worker_->run(c);
  Judgement j = judge(c, result, JudgeOptions{profile_, options_.strict_messages, inside});
  if (!inside) j.detail = "outside the manifest (" + reason + "): " + j.detail;
  return j;
}

Case Run::shrink(const Case& original, Verdict verdict, const rc::Shrinkable<generators::GeneratedCase>* shrinkable,
                 int* steps) {
  *steps = 0;
  int runs = 0;
  const std::string name = original.name;
  auto still_fails = [&](Case x) {
    if (!affordable(x)) return false;
    ++runs;
    x.name = name;
    set_oracle(&x);
    return run_one(x).verdict == verdict;
  };
  Case best = original;
  if (shrinkable != nullptr) {
    // RapidCheck's own shrinks first: the first shrink that still fails, repeatedly.
    rc::Shrinkable<generators::GeneratedCase> current = *shrinkable;
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

std::string Run::save(const Case& c, Verdict verdict, const std::string& origin, int steps) {
  if (failures_dir_.empty()) {
    failures_dir_ = options_.save_failures_dir;
    if (failures_dir_.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      failures_dir_ = str_cat(tmp && *tmp ? tmp : "/tmp", "/opconform-validate-", ::getpid());
    }
    std::error_code ec;
    fs::create_directories(failures_dir_, ec);
  }
  Case saved = c;
  saved.provenance = str_cat("opconform validate: ", verdict_name(verdict), " of ", impl_display_, " on ", origin,
                             steps > 0 ? str_cat(", shrunk in ", steps, " steps") : std::string(),
                             "; expected: ", steps > 0 || origin == "generated" ? "the reference" : "the vector");
  std::string stem;
  for (char ch : c.display_name()) stem += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' ? ch : '_';
  fs::path path = fs::path(failures_dir_) / (stem + ".json");
  for (int i = 2; fs::exists(path); ++i) path = fs::path(failures_dir_) / str_cat(stem, "-", i, ".json");
  if (Status s = conformance::save_case_file(saved, path); !s.ok()) {
    err_ << "opconform validate: cannot save " << path.string() << ": " << s.message() << "\n";
    return "";
  }
  return path.string();
}

void Run::handle(const Case& c, const std::string& origin, const rc::Shrinkable<generators::GeneratedCase>* shrinkable) {
  const double t0 = now_seconds();
  Judgement j = run_one(c);
  Record r{c.op, c.display_name(), origin, j.verdict, j.detail, now_seconds() - t0, "", ""};
  ++counts_[c.op][static_cast<int>(j.verdict)];
  if (is_failure(j.verdict)) {
    ++failures_;
    int steps = 0;
    // A timeout costs the whole timeout per candidate: not shrunk.
    const Case small = j.verdict == Verdict::kTimeout ? c : shrink(c, j.verdict, shrinkable, &steps);
    r.saved = save(small, j.verdict, origin, steps);
    std::string replay = options_.replay_command;
    if (!options_.impl.empty()) replay += " --impl " + shell_quote(options_.impl);
    if (!options_.profile.empty()) replay += " --profile " + options_.profile;
    if (options_.strict_messages) replay += " --strict-messages";
    replay += " --replay " + shell_quote(r.saved.empty() ? origin : r.saved);
    r.replay = replay;
    clear_progress();
    out_ << "FAIL " << verdict_name(j.verdict) << " " << op_name(c.op) << " " << r.name
         << (origin == "generated" ? " (generated)" : "") << "\n  " << j.detail << "\n";
    if (steps > 0) out_ << "  shrunk in " << steps << " steps\n";
    if (!r.saved.empty()) out_ << "  saved: " << r.saved << "\n";
    out_ << "  replay: " << replay << "\n" << std::flush;
  }
  records_.push_back(std::move(r));
  progress(false);
}

void Run::progress(bool force) {
  const double now = now_seconds();
  if (!force && now - last_progress_ < (tty_ ? 0.2 : 10.0)) return;
  last_progress_ = now;
  const double elapsed = std::max(now - started_, 1e-9);
  std::ostringstream line;
  line << records_.size() << " cases, " << failures_ << " failed, " << static_cast<std::int64_t>(records_.size() / elapsed)
       << " cases/s";
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
  table << "\n";
  auto row = [&](std::string_view name, const std::array<std::int64_t, kNumVerdicts>& counts) {
    table.width(22);
    table << std::string(name);
    for (int v = 0; v < kNumVerdicts; ++v) {
      if (!used[v]) continue;
      table << " ";
      table.width(static_cast<std::streamsize>(verdict_name(static_cast<Verdict>(v)).size()));
      table << std::right << counts[v] << std::left;
    }
    table << "\n";
  };
  for (const auto& [op, counts] : counts_) {
    row(op_name(op), counts);
    for (int v = 0; v < kNumVerdicts; ++v) total[v] += counts[v];
  }
  row("total", total);
  out_ << "\n" << table.str();
  if (not_listed_ > 0) out_ << not_listed_ << " vectors of ops the manifest does not list were not run\n";
  out_ << records_.size() << " cases, " << failures_ << " failed; implementation " << impl_display_ << " ("
       << manifest_.name << "), profile " << profile_ << ", seed " << seed_ << "\n";
  if (!failures_dir_.empty() && failures_ > 0) out_ << "failures saved under " << failures_dir_ << "\n";
}

void Run::write_json(const std::string& path) const {
  using nlohmann::json;
  json counts = json::object();
  for (const auto& [op, c] : counts_) {
    json per = json::object();
    for (int v = 0; v < kNumVerdicts; ++v)
      if (c[v] > 0) per[std::string(verdict_name(static_cast<Verdict>(v)))] = c[v];
    counts[op_name(op)] = per;
  }
  json failures = json::array();
  json other = json::array();
  for (const Record& r : records_) {
    if (r.verdict == Verdict::kAgree || r.verdict == Verdict::kBothError) continue;
    json item = {{"op", op_name(r.op)}, {"name", r.name}, {"origin", r.origin},
                 {"outcome", std::string(verdict_name(r.verdict))}, {"detail", r.detail}};
    if (!r.saved.empty()) item["saved"] = r.saved;
    if (!r.replay.empty()) item["replay"] = r.replay;
    (is_failure(r.verdict) ? failures : other).push_back(std::move(item));
  }
  const json report = {{"impl", impl_display_},
                       {"manifest", json::parse(manifest_message(manifest_))},
                       {"profile", profile_},
                       {"seed", seed_},
                       {"cases", records_.size()},
                       {"failed", failures_},
                       {"counts", counts},
                       {"failures", failures},
                       {"noted", other}};
  std::ofstream f(path);
  f << report.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  if (!f) err_ << "opconform validate: cannot write " << path << "\n";
}

void Run::write_junit(const std::string& path) const {
  std::map<Op, std::vector<const Record*>> by_op;
  for (const Record& r : records_) by_op[r.op].push_back(&r);
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"opconform validate\" tests=\""
      << records_.size() << "\" failures=\"" << failures_ << "\">\n";
  for (const auto& [op, records] : by_op) {
    std::int64_t failed = 0, skipped = 0;
    double seconds = 0;
    for (const Record* r : records) {
      failed += is_failure(r->verdict);
      skipped += r->verdict == Verdict::kUnsupported;
      seconds += r->seconds;
    }
    xml << "  <testsuite name=\"" << op_name(op) << "\" tests=\"" << records.size() << "\" failures=\"" << failed
        << "\" skipped=\"" << skipped << "\" time=\"" << seconds << "\">\n";
    for (const Record* r : records) {
      xml << "    <testcase classname=\"opconform." << op_name(op) << "\" name=\"" << xml_escape(r->name)
          << "\" time=\"" << r->seconds << "\"";
      if (is_failure(r->verdict)) {
        xml << ">\n      <failure type=\"" << verdict_name(r->verdict) << "\" message=\""
            << xml_escape(r->detail.substr(0, r->detail.find('\n'))) << "\">" << xml_escape(r->detail)
            << (r->replay.empty() ? "" : "\nreplay: " + xml_escape(r->replay)) << "</failure>\n    </testcase>\n";
      } else if (r->verdict == Verdict::kUnsupported) {
        xml << ">\n      <skipped message=\"" << xml_escape(r->detail) << "\"/>\n    </testcase>\n";
      } else if (r->verdict != Verdict::kAgree && r->verdict != Verdict::kBothError) {
        xml << ">\n      <system-out>" << verdict_name(r->verdict) << ": " << xml_escape(r->detail)
            << "</system-out>\n    </testcase>\n";
      } else {
        xml << "/>\n";
      }
    }
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
  std::ofstream f(path);
  f << xml.str();
  if (!f) err_ << "opconform validate: cannot write " << path << "\n";
}

int Run::main() {
  tty_ = options_.progress.value_or(::isatty(STDERR_FILENO) == 1);
  seed_ = options_.seed.value_or(std::random_device{}() * std::uint64_t{0x100000001} + std::random_device{}());
  if (Status s = start_worker(); !s.ok()) {
    err_ << "opconform validate: cannot use the implementation " << (options_.impl.empty() ? "(bundled)" : options_.impl)
         << ": " << s.message() << "\n";
    return 2;
  }
  profile_ = options_.profile.empty() ? manifest_.profile : options_.profile;
  if (!options_.profile.empty() && options_.profile != manifest_.profile)
    err_ << "opconform validate: note: the implementation declares profile " << manifest_.profile
         << ", judging under " << options_.profile << "\n";

  // 1. Vectors: the bundled corpus, or the --replay files.
  for (const Case& c : corpus_cases()) {
    if (stopped()) break;
    if (manifest_.find(c.op) == nullptr) {
      ++not_listed_;
      continue;
    }
    handle(c, c.source, nullptr);
  }

  // 2. Generated cases, ops in turn, until --cases or --time is used up.
  if (options_.replay.empty()) {
    std::vector<Op> ops;
    for (Op op : kAllOps)
      if (wanted(op) && manifest_.find(op) != nullptr) ops.push_back(op);
    const bool timed = options_.time_seconds >= 0;
    const std::int64_t budget = timed ? -1 : (options_.cases >= 0 ? options_.cases : kDefaultGeneratedCases);
    const double deadline = now_seconds() + (timed ? options_.time_seconds : 0);
    rc::Random random(seed_);
    for (std::int64_t i = 0; !ops.empty() && !stopped() && (timed ? now_seconds() < deadline : i < budget); ++i) {
      const Op op = ops[static_cast<std::size_t>(i) % ops.size()];
      const int size = static_cast<int>(i % (kMaxRcSize + 1));
      std::optional<rc::Shrinkable<generators::GeneratedCase>> drawn;
      Case c;
      std::string reason;
      for (int attempt = 0; attempt < kGenerationAttempts; ++attempt) {
        try {
          rc::Shrinkable<generators::GeneratedCase> s = generators::any_case(op)(random.split(), size);
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
      c.name = str_cat("gen-", snake_name(op), "-", seed_, "-", i);
      set_oracle(&c);
      handle(c, "generated", &*drawn);
    }
  }
  worker_->stop();

  report();
  if (!options_.json_path.empty()) write_json(options_.json_path);
  if (!options_.junit_path.empty()) write_junit(options_.junit_path);
  return failures_ > 0 ? 1 : 0;
}

}  // namespace

std::optional<Op> parse_op_name(std::string_view name) {
  for (Op op : kAllOps)
    if (name == op_name(op) || name == snake_name(op)) return op;
  return std::nullopt;
}

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  Run run(options, out, err);
  return run.main();
}

}  // namespace opconform::validator
