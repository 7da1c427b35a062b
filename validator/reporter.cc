#include "reporter.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace opconform::validator {

namespace {

constexpr double kReportInterval = 5;  // seconds between rewrites of the reports

}  // namespace

bool Reporter::check_targets() {
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
  return true;
}

bool Reporter::open() {
  if (!options_.jsonl_path.empty() &&
      !log_.open_stream(options_.jsonl_path, jsonl_start_line(report_data(RunState::kRunning)))) {
    err_ << "opconform validate: cannot write " << printable(options_.jsonl_path) << ": " << std::strerror(errno)
         << "\n";
    return false;
  }
  if (!write_reports(RunState::kRunning)) {
    err_ << "opconform validate: " << printable(report_error_) << "\n";
    return false;
  }
  return true;
}

ReportData Reporter::report_data(RunState state) const {
  ReportData d;
  d.impl = info_.impl_display.empty() ? options_.impl : info_.impl_display;
  d.manifest_json = info_.loaded ? manifest_message(info_.manifest) : "";
  d.profile = info_.profile;
  d.seed = info_.seed;
  d.state = state;
  d.error = info_.error;
  d.stopped = info_.stopped;
  d.input_problems = sources_.input_problems();
  d.records = &log_.records();
  d.counts = log_.counts();
  d.pair_coverage = sources_.pair_coverage();
  d.throughput = log_.throughput();
  d.failed = log_.failures();
  d.groups = &failures_.groups();
  d.representatives = failures_.representatives();
  const Expectations& expectations = failures_.expectations();
  if (!expectations.empty()) {
    d.expectations = &expectations;
    d.unmatched = expectations.unmatched([this](Op op) { return sources_.ran(op); });
  }
  d.strict_xfail = options_.strict_xfail;
  return d;
}

bool Reporter::write_reports(RunState state, int exit_code) {
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
  if (final && log_.streaming() && !log_.write_line(jsonl_summary_line(data))) {
    if (report_error_.empty()) report_error_ = "cannot write " + options_.jsonl_path;
    ok = false;
  }
  return ok;
}

void Reporter::rewrite_when_due() {
  if (now_seconds() - last_report_ >= kReportInterval) write_reports(RunState::kRunning);
}

int Reporter::finish(int exit_code, RunState state) {
  if (!write_reports(state, exit_code)) {
    err_ << "opconform validate: " << printable(report_error_) << "\n";
    exit_code = 2;
    write_reports(state, exit_code);  // what can still be written says so
  }
  return exit_code;
}

void Reporter::summary() {
  log_.clear_progress();
  const auto& counts = log_.counts();
  std::array<bool, kNumVerdicts> used{};
  for (const auto& [op, op_counts] : counts)
    for (int v = 0; v < kNumVerdicts; ++v) used[v] = used[v] || op_counts[v] > 0;
  std::array<std::int64_t, kNumVerdicts> total{};
  std::ostringstream table;
  table << std::left;
  table.width(22);
  table << "op";
  for (int v = 0; v < kNumVerdicts; ++v)
    if (used[v]) table << " " << verdict_name(static_cast<Verdict>(v));
  const Expectations& expectations = failures_.expectations();
  const bool expected = !expectations.empty();  // the xfail and xpass columns
  if (expected) table << " xfail xpass";
  table << "\n";
  auto row = [&](std::string_view name, const std::array<std::int64_t, kNumVerdicts>& op_counts,
                 const std::array<std::int64_t, 2>& xcounts) {
    table.width(22);
    table << std::string(name);
    for (int v = 0; v < kNumVerdicts; ++v) {
      if (!used[v]) continue;
      table << " ";
      table.width(static_cast<std::streamsize>(verdict_name(static_cast<Verdict>(v)).size()));
      table << std::right << op_counts[v] << std::left;
    }
    for (int k = 0; expected && k < 2; ++k) {
      table << " ";
      table.width(5);
      table << std::right << xcounts[k] << std::left;
    }
    table << "\n";
  };
  std::array<std::int64_t, 2> xtotal{};
  for (const auto& [op, op_counts] : counts) {
    const std::array<std::int64_t, 2> xcounts = failures_.expected_counts(op);
    row(op_name(op), op_counts, xcounts);
    for (int v = 0; v < kNumVerdicts; ++v) total[v] += op_counts[v];
    for (int k = 0; k < 2; ++k) xtotal[k] += xcounts[k];
  }
  row("total", total, xtotal);
  if (!log_.throughput().empty()) {
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
    for (const auto& [op, t] : log_.throughput()) {
      line(op_name(op), t);
      all.add(t);
    }
    line("total", all);
    out_ << "\n" << speed.str();
  }
  out_ << "\n" << table.str();
  if (!sources_.pair_coverage().empty()) {
    PairCoverage all;
    std::string per_op;
    for (const auto& [op, p] : sources_.pair_coverage()) {
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
  if (sources_.not_listed() > 0)
    out_ << sources_.not_listed() << " vectors of ops the manifest does not list were not run\n";
  const FailureGroups& groups = failures_.groups();
  if (!groups.groups().empty()) {
    out_ << "\n" << log_.failures() << " failing cases in " << groups.groups().size() << " groups:\n";
    for (const FailureGroups::Group& g : groups.groups()) {
      const CaseRecord& shown = log_.records()[failures_.representatives()[g.id - 1]];
      out_ << "  #" << g.id << "  " << g.count << (g.count == 1 ? " case   " : " cases  ") << printable(g.signature)
           << "\n"
           << "      e.g. " << printable(shown.name) << ": "
           << printable(shown.saved.empty() ? shown.origin : shown.saved) << "\n"
           << "      replay: " << printable(shown.replay) << "\n";
    }
  }
  summary_of_expectations();
  if (!sources_.input_problems().empty())
    out_ << sources_.input_problems().size() << " inputs could not be read (listed above)\n";
  if (!info_.stopped.empty()) out_ << "the run ended early: " << info_.stopped << "\n";
  out_ << log_.records().size() << " cases, " << log_.failures() << " failed"
       << (expected ? str_cat(", ", expectations.xfail_count(), " xfail, ", expectations.xpass_count(), " xpass")
                    : std::string())
       << "; implementation " << printable(info_.impl_display) << " (" << printable(info_.manifest.name)
       << "), profile " << info_.profile << ", seed " << info_.seed << "\n";
  if (const std::string dir = failures_.saved_under(); !dir.empty())
    out_ << "failures saved under " << printable(dir) << "\n";
}

// Each entry of the expected-failure list with its status: xfail (and how many cases), xpass
// (its cases passed, or its signature's failure did not occur), or unmatched.
void Reporter::summary_of_expectations() {
  const Expectations& expectations = failures_.expectations();
  if (expectations.empty()) return;
  out_ << "\n"
       << expectations.summary(options_.expected_failures,
                               expectations.unmatched([this](Op op) { return sources_.ran(op); }),
                               options_.strict_xfail);
}

}  // namespace opconform::validator
