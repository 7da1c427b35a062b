#include "failure_handler.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "opconform/conformance/format.h"
#include "opconform/conformance/vector_files.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/shrink.h"

namespace opconform::validator {

namespace fs = std::filesystem;
using conformance::Case;

namespace {

constexpr std::size_t kMaxLaterDetailBytes = 512;  // of a failure that is not its group's first

std::string absolute(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// "cd DIR && " when `impl` is a command whose relative paths depend on the working folder.
std::string working_folder_prefix(const std::string& impl) {
  if (impl.rfind("exec:", 0) != 0) return "";
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return ec ? "" : "cd " + shell_quote(cwd.string()) + " && ";
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

}  // namespace

bool FailureHandler::read_expectations() {
  if (options_.expected_failures.empty()) return true;
  if (std::string why = Expectations::load(options_.expected_failures, &expectations_); !why.empty()) {
    err_ << "opconform validate: --xfail: " << printable(why) << "\n";
    return false;
  }
  return true;
}

bool FailureHandler::check_failures_dir() const {
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

std::array<std::int64_t, 2> FailureHandler::expected_counts(Op op) const {
  const auto it = expected_counts_.find(op);
  return it == expected_counts_.end() ? std::array<std::int64_t, 2>{} : it->second;
}

bool FailureHandler::record(const Case& c, const std::string& origin, const Judgement& j, double seconds,
                            const Shrinkable* shrinkable) {
  CaseRecord r{c.op, c.display_name(), origin, j.verdict, j.detail, seconds, "", "", 0, "", ""};
  log_.count(c.op, j.verdict);
  const std::string sig = is_failure(j.verdict) ? signature(c.op, verdict_name(j.verdict), j.key) : "";
  expect(c, is_failure(j.verdict), sig, &r);
  if (!is_failure(j.verdict) || r.expectation == "xfail") {
    log_.add(std::move(r));
    return false;
  }
  log_.count_failure();
  auto [group, fresh] = groups_.add(sig, r.name);
  r.group = group;
  if (!fresh) {
    // A later case of a group keeps the head of its detail: the representative has it whole,
    // and a run under --time with no case limit stays bounded per case.
    r.detail = text_head(std::move(r.detail), kMaxLaterDetailBytes, "; the group's first case has it whole");
    const CaseRecord& shown = log_.records()[representatives_[group - 1]];
    r.replay = origin == "generated" ? shown.replay : replay_command(origin);
    log_.add(std::move(r));
    return false;
  }
  representatives_.push_back(log_.records().size());
  const std::size_t index = log_.add(std::move(r), /*stream=*/false);  // its JSON line once shrunk and saved
  present_group(index, c, j, shrinkable);
  log_.stream(index);
  return true;
}

// Classifies a judged case by the expected-failure list. A vector's xfail or xpass is printed,
// and of the generated cases the first xfail of each entry; the others are counted. An expected
// failure is neither shrunk nor saved.
void FailureHandler::expect(const Case& c, bool failed, const std::string& sig, CaseRecord* r) {
  int entry = -1;
  const Expectation::Match match = expectations_.classify(CaseFacts::of(c), failed, sig, &entry);
  if (match == Expectation::Match::kNone) return;
  const Expectation& e = expectations_.entries()[entry];
  const bool xfail = match == Expectation::Match::kXfail;
  r->expectation = xfail ? "xfail" : "xpass";
  r->reason = e.reason + " (" + e.where + ")";
  ++expected_counts_[c.op][xfail ? 0 : 1];
  if (r->origin == "generated" && !(xfail && generated_xfails_.insert(entry).second)) return;
  log_.clear_progress();
  out_ << (xfail ? "XFAIL " : "XPASS ") << (xfail ? std::string(verdict_name(r->verdict)) + " " : "") << op_name(c.op)
       << " " << printable(r->name) << (xfail ? "" : " passed") << ": " << printable(r->reason) << "\n";
  if (xfail) out_ << "  signature: " << printable(sig) << "\n";
  out_ << std::flush;
}

// The first failure of a new group: shrunk (unless it is a timeout, or a replay that saves
// nothing), saved, and printed as the group's representative.
void FailureHandler::present_group(std::size_t index, const Case& c, const Judgement& j, const Shrinkable* shrinkable) {
  const std::string origin = log_[index].origin;
  int steps = 0;
  Judgement final = j;
  Case small = c;
  if (saves_failures() && j.verdict != Verdict::kTimeout) small = shrink(c, j, shrinkable, &steps, &final);
  CaseRecord& r = log_[index];  // shrinking may have added records
  r.detail = final.detail;
  if (saves_failures()) r.saved = save(small, j.verdict, origin, steps);
  r.replay = replay_command(!r.saved.empty() ? r.saved : origin);
  print_group(r, small, steps, j.key);
}

// Shrinks a failing case while the candidates fail with the same signature (outcome and key).
// A candidate that fails with another outcome (a crash while shrinking a mismatch) is kept as a
// failure of its own when its signature is new (keep_other_failure). *final is the judgement of
// the returned case.
Case FailureHandler::shrink(const Case& original, const Judgement& j, const Shrinkable* shrinkable, int* steps,
                            Judgement* final) {
  *steps = 0;
  *final = j;
  int runs = 0;
  const std::string name = original.display_name();
  const std::string wanted = signature(original.op, verdict_name(j.verdict), j.key);
  auto still_fails = [&](Case x) {
    if (!affordable(x) || must_end_()) return false;
    ++runs;
    x.name = name;
    set_oracle(&x);
    const std::optional<Judgement> jx = run_(x);
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

// A failure seen on a shrink candidate only (a crash while shrinking a mismatch, say): logged,
// saved and shown as a group of its own, when no group has its signature yet.
void FailureHandler::keep_other_failure(const Case& candidate, const Judgement& j, const std::string& while_shrinking) {
  const std::string sig = signature(candidate.op, verdict_name(j.verdict), j.key);
  if (groups_.contains(sig) || expectations_.find(CaseFacts::of(candidate), true, sig) >= 0) return;
  Case c = candidate;
  const int number = static_cast<int>(groups_.groups().size()) + 1;
  c.name = str_cat(while_shrinking, "-shrinking-", number);
  const std::string origin = "found while shrinking " + while_shrinking;
  log_.count(c.op, j.verdict);
  log_.count_failure();
  auto [group, fresh] = groups_.add(sig, c.name);
  CaseRecord r{c.op, c.name, origin, j.verdict, j.detail, 0, "", "", group, "", ""};
  r.saved = save(c, j.verdict, origin, 0);
  r.replay = replay_command(r.saved);
  representatives_.push_back(log_.records().size());
  log_.add(r);
  print_group(r, c, 0, j.key);
}

std::string FailureHandler::save(const Case& c, Verdict verdict, const std::string& origin, int steps) {
  const bool reused = options_.save_failures_dir.empty();
  if (failures_dir_.empty()) {
    failures_dir_ = absolute(reused ? default_failures_dir(options_.impl) : options_.save_failures_dir);
    std::error_code ec;
    fs::create_directories(failures_dir_, ec);
  }
  Case saved = c;
  saved.provenance = str_cat("opconform validate: ", verdict_name(verdict), " of ", info_.impl_display, " on ", origin,
                             origin == "generated" ? str_cat(" (seed ", info_.seed, ")") : std::string(),
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
std::string FailureHandler::replay_command(const std::string& vector) const {
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

void FailureHandler::print_group(const CaseRecord& r, const Case& shown, int steps, const std::string& key) {
  log_.clear_progress();
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

}  // namespace opconform::validator
