#include "opconform/validator/validate.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>

#include "opconform/validator/install_layout.h"
#include "opconform/validator/interrupt.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/reports.h"
#include "opconform/validator/worker_client.h"

#include "asan.h"
#include "case_log.h"
#include "case_sources.h"
#include "failure_handler.h"
#include "reporter.h"
#include "run_info.h"

namespace opconform::validator {

using conformance::Case;

namespace {

constexpr std::int64_t kDefaultSoWorkerMemoryMiB = 8192;
#if defined(OPCONFORM_ASAN)
constexpr bool kAsanBuild = true;  // this build's own worker carries ASan too
#else
constexpr bool kAsanBuild = false;
#endif

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

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

// One run of `opconform validate`: starts the implementation's worker, runs each case the case
// sources give through it, judges it and hands it to the failure handler, and ends on an
// interrupt, the --time budget or --max-failures; the reporter prints and writes what it found.
class Run {
 public:
  Run(const ValidateOptions& options, std::ostream& out, std::ostream& err)
      : options_(options),
        err_(err),
        log_(err),
        sources_(options, info_, err),
        failures_(
            options, info_, log_, out, err, [this](const Case& c) { return run_one(c); },
            [this] { return must_end(); }),
        reporter_(options, info_, log_, sources_, failures_, out, err) {}

  int main();

 private:
  Status start_worker();
  // Stopping: --max-failures, --time, SIGINT/SIGTERM; each records why in info_.stopped.
  bool stopped() const { return options_.stop_after_failures > 0 && log_.failures() >= options_.stop_after_failures; }
  bool must_end();     // interrupted, or the --time budget is used up
  bool should_stop();  // must_end(), or --max-failures reached
  // Runs c through the worker and judges it. nullopt: the run's deadline or an interrupt cut the
  // case short.
  std::optional<Judgement> run_one(const Case& c);
  // Runs, judges and records c; `started` is when its drawing began (a vector's: now).
  void handle(const Case& c, const std::string& origin, const Shrinkable* shrinkable, double started);

  const ValidateOptions& options_;
  std::ostream& err_;
  RunInfo info_;
  std::unique_ptr<Worker> worker_;
  double started_ = now_seconds();
  double deadline_ = 0;     // the run's end under --time (0: none)
  double moved_bytes_ = 0;  // of the tensors sent to and received from the implementation
  CaseLog log_;
  CaseSources sources_;
  FailureHandler failures_;
  Reporter reporter_;
};

Status Run::start_worker() {
  WorkerOptions w;
  w.timeout_seconds = options_.timeout_seconds;
  const std::string impl = options_.impl.empty() ? default_bundled_plugin() : options_.impl;
  info_.impl_display = options_.impl.empty() ? "the bundled plug-in " + impl : impl;
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
  return worker_->start(&info_.manifest);
}

bool Run::must_end() {
  if (interrupted()) {
    info_.stopped = interrupt_signal() == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM";
    return true;
  }
  if (deadline_ > 0 && now_seconds() >= deadline_) {
    if (info_.stopped.empty())
      info_.stopped = str_cat("the --time budget of ", options_.time_seconds, " s was used up");
    return true;
  }
  return false;
}

bool Run::should_stop() {
  if (must_end()) return true;
  if (stopped() && info_.stopped.empty())
    info_.stopped = str_cat("stopped after ", log_.failures(), " failing cases (--max-failures)");
  return stopped();
}

std::optional<Judgement> Run::run_one(const Case& c) {
  std::string reason;
  const bool inside = inside_manifest(info_.manifest, c, &reason);
  const WorkerOutcome outcome = worker_->run(c, max_result_bytes(c));
  moved_bytes_ += tensor_bytes(c.inputs) + tensor_bytes(outcome.answer.outputs);
  if (outcome.cut_short) {
    must_end();
    return std::nullopt;
  }
  const bool poison = info_.impl_display.rfind("exec:", 0) != 0;  // C-ABI outputs start as poison
  Judgement j = judge(c, outcome, JudgeOptions{info_.profile, options_.strict_messages, inside, poison});
  if (!inside) j.detail = "outside the manifest (" + reason + "): " + j.detail;
  return j;
}

void Run::handle(const Case& c, const std::string& origin, const Shrinkable* shrinkable, double started) {
  const double t0 = now_seconds();
  const double bytes_before = moved_bytes_;
  const std::optional<Judgement> judged = run_one(c);
  if (!judged) return;  // cut short: not judged, not counted
  if (failures_.record(c, origin, *judged, now_seconds() - t0, shrinkable))
    reporter_.write_reports(RunState::kRunning);  // a new failure group
  log_.add_throughput(c.op, now_seconds() - started, moved_bytes_ - bytes_before);
  reporter_.rewrite_when_due();
  log_.progress();
}

int Run::main() {
  InterruptScope interrupts;
  log_.set_tty(options_.progress.value_or(::isatty(STDERR_FILENO) == 1));
  info_.seed = options_.seed         ? *options_.seed
               : options_.fresh_seed ? std::random_device{}() * std::uint64_t{0x100000001} + std::random_device{}()
                                     : kDefaultSeed;
  if (options_.time_seconds >= 0) deadline_ = started_ + options_.time_seconds;
  info_.impl_display = options_.impl.empty() ? "the bundled plug-in" : options_.impl;
  // Every option that names an input or output is checked before the worker starts.
  if (!sources_.read_selection() || !failures_.read_expectations() || !reporter_.check_targets() ||
      !failures_.check_failures_dir() || !reporter_.open())
    return 2;
  if (Status s = start_worker(); !s.ok()) {
    // A --time budget used up before the handshake ended is the run's doing, not the implementation's.
    if (!interrupted() && must_end())
      info_.error = str_cat(info_.stopped, " before the implementation had started: no case was run");
    else
      info_.error = str_cat("cannot use the implementation ", options_.impl.empty() ? "(bundled)" : options_.impl, ": ",
                            s.message());
    err_ << "opconform validate: " << printable(info_.error) << "\n";
    return reporter_.finish(2, RunState::kError);
  }
  info_.loaded = true;
  info_.profile = options_.profile.empty() ? info_.manifest.profile : options_.profile;
  if (!options_.profile.empty() && options_.profile != info_.manifest.profile)
    err_ << "opconform validate: note: the implementation declares profile " << printable(info_.manifest.profile)
         << ", judging under " << options_.profile << "\n";
  err_ << "opconform validate: seed " << info_.seed
       << (options_.seed         ? ""
           : options_.fresh_seed ? " (fresh)"
                                 : " (default)")
       << "\n";

  sources_.each([this](const Case& c, const std::string& origin, const Shrinkable* shrinkable,
                       double started) { handle(c, origin, shrinkable, started); },
                [this] { return should_stop(); });
  worker_->stop();
  reporter_.summary();

  RunState state = interrupted() ? RunState::kInterrupted : RunState::kComplete;
  int exit_code = log_.failures() > 0 ? 1 : 0;
  const Expectations& expectations = failures_.expectations();
  if (options_.strict_xfail && state == RunState::kComplete &&
      (expectations.xpass_count() > 0 || !expectations.unmatched([this](Op op) { return sources_.ran(op); }).empty()))
    exit_code = 1;
  if (log_.records().empty() && state == RunState::kComplete) {
    info_.error = "no case was run (nothing to check is not a pass)";
    err_ << "opconform validate: " << info_.error << "\n";
    state = RunState::kError;
  }
  if (state != RunState::kComplete || !sources_.input_problems().empty()) exit_code = std::max(exit_code, 2);
  if (state == RunState::kInterrupted && log_.failures() > 0) exit_code = 1;
  return reporter_.finish(exit_code, state);
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

std::optional<Op> parse_op_name(std::string_view name) { return op_from_either_name(name); }

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  Run run(options, out, err);
  return run.main();
}

}  // namespace opconform::validator
