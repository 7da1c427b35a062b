#include "opconform/fuzz/campaign.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "opconform/conformance/vector.h"
#include "opconform/conformance/vector_files.h"
#include "opconform/fuzz/convert.h"
#include "opconform/validator/clock.h"
#include "opconform/validator/install_layout.h"
#include "opconform/validator/interrupt.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/subprocess.h"
#include "opconform/validator/validate.h"
#include "opconform/validator/worker_client.h"

namespace fs = std::filesystem;

namespace opconform::fuzz {

namespace {

// What libFuzzer's fork mode reports on its status lines, and what the campaign saw of findings.
struct OpStats {
  Op op;
  std::int64_t execs = 0, coverage = 0, features = 0, corpus = 0;
  // Finding inputs libFuzzer saved since the op started, by kind. (Its status line counts only
  // its jobs' crashes, not an input that fails while it merges the seeds.)
  std::int64_t crashes = 0, timeouts = 0, ooms = 0, leaks = 0;
  double seconds = 0;
  double first_finding_seconds = -1;    // since the op's start; -1: none
  std::set<std::string> finding_lines;  // "ERROR: ..." lines the fuzzing processes printed, shown once
  std::int64_t artifacts = 0;           // finding inputs in artifacts/ at the end, earlier ones too
  bool instrumented = false;            // the driver found coverage counters in the plug-in
  // Since the op's start: libFuzzer's own exec/s is the last finished job's.
  std::int64_t exec_rate() const { return seconds > 0 ? static_cast<std::int64_t>(execs / seconds) : 0; }
  std::int64_t findings() const { return crashes + timeouts + ooms + leaks; }
};

// "#1234: cov: 56 ft: 78 corp: 9 exec/s 1000 oom/timeout/crash: 0/0/1 time: 12s job: 3 dft_time: 0"
// (the execs, coverage, features and corpus size)
bool parse_status_line(const std::string& line, OpStats* s) {
  static const std::regex pattern(
      R"(^#(\d+): cov: (\d+) ft: (\d+) corp: (\d+) exec/s:? (\d+) oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s)");
  std::smatch m;
  if (!std::regex_search(line, m, pattern)) return false;
  auto n = [&](int i) { return std::stoll(m[i].str()); };
  s->execs = n(1);
  s->coverage = n(2);
  s->features = n(3);
  s->corpus = n(4);
  return true;
}

std::string thousands(std::int64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string status_text(const OpStats& s, double budget) {
  char head[96];
  std::snprintf(head, sizeof head, "%-21s %4.0fs/%.0fs", std::string(op_name(s.op)).c_str(), s.seconds, budget);
  std::ostringstream o;
  o << head << "  execs " << thousands(s.execs) << " (" << thousands(s.exec_rate()) << "/s)  cov "
    << thousands(s.coverage) << "  ft " << thousands(s.features) << "  corpus " << s.corpus << "  findings "
    << s.findings();
  if (s.findings() > 0)
    o << " (crash " << s.crashes << ", timeout " << s.timeouts << ", oom " << s.ooms << ", leak " << s.leaks << ")";
  return o.str();
}

// libFuzzer's finding inputs in `dir` (crash-*, timeout-*, oom-*, leak-*).
std::vector<fs::path> finding_inputs(const fs::path& dir) {
  std::vector<fs::path> inputs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    for (const char* kind : {"crash-", "timeout-", "oom-", "leak-"})
      if (name.rfind(kind, 0) == 0 && entry.is_regular_file()) inputs.push_back(entry.path());
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

// Counts the finding inputs in `dir` that are not `known`, by kind.
void count_findings(const fs::path& dir, const std::set<fs::path>& known, OpStats* s) {
  s->crashes = s->timeouts = s->ooms = s->leaks = 0;
  for (const fs::path& input : finding_inputs(dir)) {
    if (known.count(input)) continue;
    const std::string name = input.filename().string();
    std::int64_t& kind = name[0] == 'c'   ? s->crashes
                         : name[0] == 't' ? s->timeouts
                         : name[0] == 'o' ? s->ooms
                                          : s->leaks;
    ++kind;
  }
}

// The bundled vectors that load, each with its file's stem.
std::vector<std::pair<std::string, conformance::Case>> bundled_vectors() {
  std::vector<std::pair<std::string, conformance::Case>> out;
  for (const std::string& file : conformance::find_vector_files({validator::default_vectors_dir()}).files)
    if (conformance::Case c; conformance::load_case_file(file, &c).ok())
      out.emplace_back(fs::path(file).stem().string(), std::move(c));
  return out;
}

// The vectors of `op` as inputs of its harness, into an empty corpus folder.
int seed_corpus(Op op, const std::vector<std::pair<std::string, conformance::Case>>& vectors, const fs::path& corpus) {
  int written = 0;
  for (const auto& [stem, c] : vectors) {
    std::vector<std::uint8_t> bytes;
    if (c.op != op || !vector_to_fuzz(c, Knobs{}, &bytes).ok()) continue;
    std::ofstream(corpus / ("seed-" + stem), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ++written;
  }
  return written;
}

class Campaign {
 public:
  Campaign(const CampaignOptions& o, std::ostream& out, std::ostream& err) : o_(o), out_(out), err_(err) {}
  int main();

 private:
  Status load_manifest();
  bool fuzz_op(OpStats* stats);
  void collect_artifacts(OpStats* stats);
  void show_progress(const OpStats& s, bool force);
  void write_json(int exit_code) const;

  const CampaignOptions& o_;
  std::ostream& out_;
  std::ostream& err_;
  std::string impl_, driver_, dicts_;
  fs::path dir_;
  validator::Manifest manifest_;
  std::vector<OpStats> stats_;
  std::vector<std::string> raw_findings_;
  std::vector<std::pair<std::string, conformance::Case>> vectors_;  // the bundled ones, for seeds
  bool tty_ = false;
  double last_progress_ = 0;
  bool interrupted_ = false;
};

Status Campaign::load_manifest() {
  validator::WorkerOptions w;
  w.argv = {validator::choose_worker(impl_).path, impl_};
  validator::Worker worker(w);
  return worker.start(&manifest_);
}

void Campaign::show_progress(const OpStats& s, bool force) {
  const double now = validator::now_seconds();
  if (!force && now - last_progress_ < (tty_ ? 0.5 : 10)) return;
  last_progress_ = now;
  if (tty_)
    err_ << "\r\033[K" << status_text(s, o_.seconds_per_op) << std::flush;
  else
    err_ << status_text(s, o_.seconds_per_op) << "\n" << std::flush;
}

// Runs the driver on one op until its time is up; false when it could not run at all.
bool Campaign::fuzz_op(OpStats* s) {
  const fs::path op_dir = dir_ / op_snake_name(s->op);
  const fs::path corpus = op_dir / "corpus", artifacts = op_dir / "artifacts";
  fs::create_directories(corpus);
  fs::create_directories(artifacts);
  if (fs::is_empty(corpus) && o_.seed_from_vectors) {
    if (vectors_.empty()) vectors_ = bundled_vectors();  // read once for all the ops
    out_ << "  " << op_name(s->op) << ": " << seed_corpus(s->op, vectors_, corpus)
         << " seeds from the bundled vectors\n";
  }
  const std::vector<fs::path> earlier = finding_inputs(artifacts);  // from earlier campaigns
  const std::set<fs::path> known(earlier.begin(), earlier.end());

  std::vector<std::string> args = {
      driver_,
      "-fork=" + std::to_string(o_.jobs),
      "-ignore_crashes=1",
      "-ignore_timeouts=1",
      "-ignore_ooms=1",
      "-max_total_time=" + std::to_string(std::max(1, static_cast<int>(o_.seconds_per_op))),
      "-timeout=" + std::to_string(std::max(1, static_cast<int>(o_.timeout_seconds))),
      "-rss_limit_mb=" + std::to_string(o_.rss_limit_mib),
      "-max_len=8192",
      "-print_funcs=0",
      "-artifact_prefix=" + artifacts.string() + "/",
      corpus.string()};
  const fs::path dict = fs::path(dicts_) / (std::string(harness_name(harness_for_op(s->op))) + ".dict");
  if (fs::exists(dict)) args.insert(args.end() - 1, "-dict=" + dict.string());

  // The driver, in its own process group, with its stdout and stderr in one pipe.
  validator::SubprocessOptions run{
      .argv = std::move(args),
      .environment = {"OPCONFORM_FUZZ_IMPL=" + impl_, "OPCONFORM_FUZZ_OP=" + std::string(op_name(s->op))},
      .pipe_stdin = false,
      .merge_stderr = true,
      .exec_error = "opconform fuzz: cannot run the fuzz driver",
      .exec_error_reason = true};
  if (!o_.profile.empty()) run.environment.push_back("OPCONFORM_FUZZ_PROFILE=" + o_.profile);
  validator::Subprocess driver;
  if (!driver.spawn(std::move(run)).ok()) return false;
  std::ofstream log(op_dir / "fuzz.log", std::ios::app);
  const double start = validator::now_seconds();
  const double hard_end = start + o_.seconds_per_op + std::max(60.0, 3 * o_.timeout_seconds);
  std::string pending;
  bool stopping = false;
  double last_artifact_check = 0;
  for (;;) {
    const int ready = driver.poll(false, static_cast<int>(validator::kInterruptPollSeconds * 1000)).count;
    if ((validator::interrupted() || validator::now_seconds() > hard_end) && !stopping) {
      interrupted_ = interrupted_ || validator::interrupted();
      driver.signal_group(SIGTERM);
      stopping = true;
    }
    const double now = validator::now_seconds();
    if (now - last_artifact_check >= 0.5) {
      last_artifact_check = now;
      count_findings(artifacts, known, s);
      if (s->findings() > 0 && s->first_finding_seconds < 0) s->first_finding_seconds = now - start;
    }
    if (ready <= 0) {
      s->seconds = now - start;
      show_progress(*s, false);
      continue;
    }
    std::string bytes;
    const validator::Subprocess::Read read = validator::Subprocess::read(driver.stdout_fd(), &bytes);
    if (read == validator::Subprocess::Read::kNothing) continue;
    if (read != validator::Subprocess::Read::kData) break;  // all its output is in
    log.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    pending += bytes;
    for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos; pending.erase(0, eol + 1)) {
      const std::string line = pending.substr(0, eol);
      s->seconds = validator::now_seconds() - start;
      if (line.rfind("opconform fuzz target: ", 0) == 0 && s->execs == 0) {
        s->instrumented = line.find("is instrumented") != std::string::npos;
        if (tty_) err_ << "\r\033[K";
        const std::size_t note = line.find("; ");
        out_ << "  " << op_name(s->op) << ": " << (note == std::string::npos ? line : line.substr(note + 2)) << "\n";
      } else if (parse_status_line(line, s)) {
      } else if (line.find("ERROR: ") != std::string::npos || line.find("runtime error:") != std::string::npos) {
        // "==1234== ERROR: ..." from each process: the same text is shown once.
        std::string text = std::regex_replace(line, std::regex(R"(^==\d+==\s*)"), "");
        text = std::regex_replace(text, std::regex("0x[0-9a-fA-F]+"), "0x#");
        if (s->finding_lines.insert(text).second) {
          if (tty_) err_ << "\r\033[K";
          out_ << "  finding: " << text << "\n" << std::flush;
        }
      }
      show_progress(*s, false);
    }
  }
  driver.close_pipes();
  const int status = driver.wait();
  s->seconds = validator::now_seconds() - start;
  count_findings(artifacts, known, s);
  if (s->findings() > 0 && s->first_finding_seconds < 0) s->first_finding_seconds = s->seconds;
  show_progress(*s, true);
  if (tty_) err_ << "\n";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && s->execs == 0) {
    err_ << "opconform fuzz: the driver could not start; see " << (op_dir / "fuzz.log").string() << "\n";
    return false;
  }
  return true;
}

// libFuzzer's finding inputs of this op, as vectors for the replay.
void Campaign::collect_artifacts(OpStats* s) {
  const fs::path op_dir = dir_ / op_snake_name(s->op);
  const fs::path raw = op_dir / "findings-raw";
  const std::vector<fs::path> inputs = finding_inputs(op_dir / "artifacts");
  s->artifacts = static_cast<std::int64_t>(inputs.size());
  for (const fs::path& input : inputs) {
    std::ifstream in(input, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    conformance::Case c;
    if (Status st = fuzz_to_vector(harness_for_op(s->op), bytes, input.filename().string(), &c); !st.ok()) {
      err_ << "opconform fuzz: " << input.string() << " does not decode: " << st.message() << "\n";
      continue;
    }
    c.name = std::string(op_snake_name(s->op)) + "-" + input.filename().string();
    const fs::path vector = raw / (input.filename().string() + ".json");
    fs::create_directories(raw);
    if (conformance::save_case_file(c, vector).ok()) raw_findings_.push_back(vector.string());
  }
}

void Campaign::write_json(int exit_code) const {
  if (o_.json_path.empty()) return;
  nlohmann::json ops = nlohmann::json::array();
  for (const OpStats& s : stats_)
    ops.push_back({{"op", op_name(s.op)},
                   {"seconds", s.seconds},
                   {"execs", s.execs},
                   {"exec_per_second", s.exec_rate()},
                   {"coverage", s.coverage},
                   {"features", s.features},
                   {"corpus", s.corpus},
                   {"crashes", s.crashes},
                   {"timeouts", s.timeouts},
                   {"ooms", s.ooms},
                   {"leaks", s.leaks},
                   {"first_finding_seconds", s.first_finding_seconds},
                   {"artifacts", s.artifacts},
                   {"implementation_instrumented", s.instrumented}});
  const nlohmann::json report = {{"implementation", impl_},
                                 {"manifest_name", manifest_.name},
                                 {"work_dir", dir_.string()},
                                 {"exit_code", exit_code},
                                 {"ops", ops}};
  std::ofstream(o_.json_path) << report.dump(2) << "\n";
}

int Campaign::main() {
  tty_ = o_.progress.value_or(::isatty(STDERR_FILENO) == 1);
  std::error_code ec;
  impl_ = fs::absolute(o_.impl, ec).lexically_normal().string();
  driver_ = o_.driver.empty() ? validator::default_fuzz_driver() : o_.driver;
  dicts_ = validator::default_fuzz_dicts_dir();
  if (::access(driver_.c_str(), X_OK) != 0) {
    err_ << "opconform fuzz: no fuzz driver at " << driver_
         << ": it comes with a clang + libFuzzer build of opconform (cmake --preset product-fuzz; FUZZING.md, "
            "\"Fuzzing your own kernels\")\n";
    return 2;
  }
  if (Status s = load_manifest(); !s.ok()) {
    err_ << "opconform fuzz: " << s.message() << "\n";
    return 2;
  }
  std::vector<Op> ops = o_.ops;
  if (ops.empty())
    for (const validator::OpCaps& caps : manifest_.ops) ops.push_back(caps.op);
  for (Op op : ops)
    if (manifest_.find(op) == nullptr) {
      err_ << "opconform fuzz: " << manifest_.name << " does not list " << op_name(op) << "\n";
      return 2;
    }
  dir_ = o_.work_dir.empty() ? fs::path("opconform-fuzz") / fs::path(impl_).stem() : fs::path(o_.work_dir);
  dir_ = fs::absolute(dir_, ec).lexically_normal();
  fs::create_directories(dir_);
  out_ << "opconform fuzz: " << manifest_.name << " (" << impl_ << "), " << ops.size() << " op(s), "
       << o_.seconds_per_op << " s each, " << o_.jobs << " job(s); working folder " << dir_.string() << "\n";

  validator::InterruptScope interrupts;
  for (Op op : ops) {
    if (interrupted_) break;
    OpStats s;
    s.op = op;
    if (!fuzz_op(&s)) return 2;
    collect_artifacts(&s);
    stats_.push_back(s);
  }

  out_ << "\n"
       << "op                      execs   execs/s  coverage  features  corpus  findings  first (s)\n";
  for (const OpStats& s : stats_) {
    char first[32] = "-";
    if (s.first_finding_seconds >= 0) std::snprintf(first, sizeof first, "%.1f", s.first_finding_seconds);
    char line[192];
    std::snprintf(line, sizeof line, "%-21s %8lld %9lld %9lld %9lld %7lld %9lld %10s\n",
                  std::string(op_name(s.op)).c_str(), static_cast<long long>(s.execs),
                  static_cast<long long>(s.exec_rate()), static_cast<long long>(s.coverage),
                  static_cast<long long>(s.features), static_cast<long long>(s.corpus),
                  static_cast<long long>(s.findings()), first);
    out_ << line;
  }
  out_ << std::flush;
  if (interrupted_) {
    write_json(2);
    return 2;
  }
  if (raw_findings_.empty()) {
    out_ << "\nno findings\n";
    write_json(0);
    return 0;
  }

  // The findings, judged again in validate's crash-isolated worker: grouped, shrunk, saved.
  out_ << "\n"
       << raw_findings_.size() << " finding input(s) from libFuzzer, replayed through `opconform validate`:\n"
       << std::flush;
  validator::ValidateOptions v;
  v.impl = impl_;
  v.profile = o_.profile;
  v.replay = raw_findings_;
  v.save_failures_dir = (dir_ / "findings").string();
  v.timeout_seconds = o_.timeout_seconds;
  v.replay_command = o_.replay_command;
  v.max_shrink_runs = o_.max_shrink_runs;
  v.progress = false;
  const int code = validator::run_validate(v, out_, err_);
  if (code == 0)
    out_ << "none of them failed again in the worker (a flaky failure, or one over libFuzzer's own memory or "
            "time limit): the inputs are in "
         << dir_.string() << "/*/artifacts\n";
  // A finding libFuzzer recorded stays a finding even when the replay does not repeat it.
  const int exit_code = code == 2 ? 2 : 1;
  write_json(exit_code);
  return exit_code;
}

}  // namespace

int run_campaign(const CampaignOptions& options, std::ostream& out, std::ostream& err) {
  return Campaign(options, out, err).main();
}

}  // namespace opconform::fuzz
