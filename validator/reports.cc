#include "opconform/validator/reports.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

namespace opconform::validator {

namespace {

using nlohmann::json;

// The length of a character XML 1.0 allows, in well-formed UTF-8, at the start of `s`, or 0.
std::size_t utf8_char_length(std::string_view s) {
  char32_t code = 0;
  const std::size_t n = utf8_sequence_length(s, &code);
  return code == 0xFFFE || code == 0xFFFF ? 0 : n;
}

// Text for XML 1.0 in UTF-8: markup escaped, control characters as '?', and each byte that is
// not part of well-formed UTF-8 (a file name on Linux may hold any) as U+FFFD.
std::string xml_escape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_char_length(s.substr(i));
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    const char ch = s[i++];
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 has no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
          out += '?';
        else
          out += ch;
    }
  }
  return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

const std::vector<CaseRecord>& records_of(const ReportData& d) {
  static const std::vector<CaseRecord> none;
  return d.records ? *d.records : none;
}

// An xfail case fails the run never; an xpass case only under strict_xfail.
bool fails_run(const CaseRecord& r, bool strict_xfail) {
  if (r.expectation == "xfail") return false;
  return is_failure(r.verdict) || (strict_xfail && r.expectation == "xpass");
}

// Per op: the verdicts, and with an expected-failure list the xfail and xpass cases.
json counts_json(const ReportData& d) {
  json counts = json::object();
  for (const auto& [op, c] : d.counts) {
    json per = json::object();
    for (int v = 0; v < kNumVerdicts; ++v)
      if (c[v] > 0) per[std::string(verdict_name(static_cast<Verdict>(v)))] = c[v];
    if (d.expectations) per["xfail"] = per["xpass"] = 0;
    counts[op_name(op)] = per;
  }
  for (const CaseRecord& r : records_of(d))
    if (!r.expectation.empty())
      counts[op_name(r.op)][r.expectation] = counts[op_name(r.op)][r.expectation].get<std::int64_t>() + 1;
  return counts;
}

// The expected-failure list's outcome: counts per kind, every entry with its status, the
// entries that matched no case. null without a list.
json expectations_json(const ReportData& d) {
  if (d.expectations == nullptr) return nullptr;
  json entries = json::array(), unmatched = json::array();
  const auto entry_json = [](const Expectation& e) {
    json j = {{"where", e.where}, {"reason", e.reason}, {"status", e.status()}, {"xfail", e.xfail}, {"xpass", e.xpass}};
    if (!e.name.empty()) j["name"] = e.name;
    if (!e.tag.empty()) j["tag"] = e.tag;
    if (e.op) j["op"] = op_name(*e.op);
    if (!e.signature.empty()) j["signature"] = e.signature;
    return j;
  };
  for (const Expectation& e : d.expectations->entries()) entries.push_back(entry_json(e));
  for (const Expectation* e : d.unmatched) unmatched.push_back(entry_json(*e));
  return {{"xfail", d.expectations->xfail_count()},    {"xpass", d.expectations->xpass_count()},
          {"unmatched", d.unmatched.size()},           {"strict", d.strict_xfail},
          {"unmatched_entries", std::move(unmatched)}, {"entries", std::move(entries)}};
}

json pair_coverage_json(const ReportData& d) {
  json pairs = json::object();
  for (const auto& [op, p] : d.pair_coverage) pairs[op_name(op)] = {{"hit", p.hit}, {"feasible", p.feasible}};
  return pairs;
}

// In total and per op: cases, seconds, cases per second, megabytes (10^6) of tensors per second.
json throughput_json(const ReportData& d) {
  json ops = json::object();
  Throughput total;
  const auto entry = [](const Throughput& t) {
    return json{{"cases", t.cases},
                {"seconds", t.seconds},
                {"cases_per_second", t.cases_per_second()},
                {"mb_per_second", t.mb_per_second()}};
  };
  for (const auto& [op, t] : d.throughput) {
    ops[op_name(op)] = entry(t);
    total.add(t);
  }
  return {{"total", entry(total)}, {"ops", std::move(ops)}};
}

json record_json(const CaseRecord& r) {
  json item = {{"op", op_name(r.op)},
               {"name", r.name},
               {"origin", r.origin},
               {"outcome", std::string(verdict_name(r.verdict))},
               {"detail", r.detail}};
  if (r.group > 0) item["group"] = r.group;
  if (!r.saved.empty()) item["saved"] = r.saved;
  if (!r.replay.empty()) item["replay"] = r.replay;
  if (!r.expectation.empty()) {
    item["expectation"] = r.expectation;
    item["reason"] = r.reason;
  }
  return item;
}

json groups_json(const ReportData& d) {
  json groups = json::array();
  if (d.groups == nullptr) return groups;
  const auto& records = records_of(d);
  for (const FailureGroups::Group& g : d.groups->groups()) {
    json item = {{"id", g.id}, {"signature", g.signature}, {"count", g.count}, {"cases", g.cases}};
    const std::size_t index = static_cast<std::size_t>(g.id - 1);
    if (index < d.representatives.size() && d.representatives[index] < records.size())
      item["representative"] = record_json(records[d.representatives[index]]);
    groups.push_back(std::move(item));
  }
  return groups;
}

json problems_json(const ReportData& d) {
  json problems = json::array();
  for (const auto& p : d.input_problems) problems.push_back({{"path", p.path}, {"reason", p.reason}});
  return problems;
}

json manifest_json(const ReportData& d) {
  if (d.manifest_json.empty()) return nullptr;
  json m = json::parse(d.manifest_json, nullptr, false);
  return m.is_discarded() ? json(nullptr) : m;
}

// The header fields every JSON form shares.
json identity_json(const ReportData& d) {
  json j = {{"impl", d.impl},
            {"manifest", manifest_json(d)},
            {"profile", d.profile},
            {"seed", d.seed},
            {"state", std::string(run_state_name(d.state))}};
  if (!d.error.empty()) j["error"] = d.error;
  if (!d.stopped.empty()) j["stopped"] = d.stopped;
  return j;
}

// The <testsuite> holding the run's own problems: unreadable inputs, a load failure, an
// interrupted or empty run. "" when there are none.
std::string problems_suites(const ReportData& d) {
  std::ostringstream xml;
  if (!d.input_problems.empty()) {
    xml << "  <testsuite name=\"inputs\" tests=\"" << d.input_problems.size() << "\" failures=\"0\" errors=\""
        << d.input_problems.size() << "\">\n";
    for (const auto& p : d.input_problems)
      xml << "    <testcase classname=\"opconform.inputs\" name=\"" << xml_escape(p.path)
          << "\">\n      <error message=\"" << xml_escape(p.reason) << "\">" << xml_escape(conformance::problem_text(p))
          << "</error>\n    </testcase>\n";
    xml << "  </testsuite>\n";
  }
  std::string run_error;
  if (d.state == RunState::kError)
    run_error = d.error;
  else if (d.state == RunState::kInterrupted)
    run_error = d.stopped.empty() ? "interrupted" : d.stopped;
  else if (d.state == RunState::kRunning)
    run_error = "the run has not finished (this report is written as it goes)";
  if (!run_error.empty())
    xml << "  <testsuite name=\"run\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
        << "    <testcase classname=\"opconform.run\" name=\"run\">\n      <error message=\""
        << xml_escape(first_line(run_error)) << "\">" << xml_escape(run_error)
        << "</error>\n    </testcase>\n  </testsuite>\n";
  return xml.str();
}

// The <testsuite> of the expected-failure entries that fail the run under strict_xfail or are
// worth a look: those that matched no case, and signature entries whose failure did not occur.
// "" when there are none.
std::string expectations_suite(const ReportData& d) {
  if (d.expectations == nullptr) return "";
  std::vector<std::pair<const Expectation*, std::string>> listed;
  for (const Expectation* e : d.unmatched) listed.push_back({e, "unmatched: matches no case"});
  for (const Expectation& e : d.expectations->entries())
    if (!e.signature.empty() && e.status() == "xpass") listed.push_back({&e, "xpass: the failure did not occur"});
  if (listed.empty()) return "";
  std::ostringstream xml;
  xml << "  <testsuite name=\"expected-failures\" tests=\"" << listed.size() << "\" failures=\""
      << (d.strict_xfail ? listed.size() : 0) << "\" skipped=\"" << (d.strict_xfail ? 0 : listed.size()) << "\">\n";
  for (const auto& [e, what] : listed) {
    const std::string message = what + " (" + e->matchers() + "): " + e->reason;
    xml << "    <testcase classname=\"opconform.expected-failures\" name=\"" << xml_escape(e->where) << "\">\n      ";
    if (d.strict_xfail)
      xml << "<failure type=\"" << what.substr(0, what.find(':')) << "\" message=\"" << xml_escape(message) << "\"/>\n";
    else
      xml << "<skipped message=\"" << xml_escape(message) << "\"/>\n";
    xml << "    </testcase>\n";
  }
  xml << "  </testsuite>\n";
  return xml.str();
}

std::string testcase_xml(const CaseRecord& r, Op op, bool strict_xfail) {
  std::ostringstream xml;
  xml << "    <testcase classname=\"opconform." << op_name(op) << "\" name=\"" << xml_escape(r.name) << "\" time=\""
      << r.seconds << "\"";
  if (r.expectation == "xfail") {
    xml << ">\n      <skipped message=\"xfail: " << xml_escape(r.reason) << "\">" << verdict_name(r.verdict) << ": "
        << xml_escape(r.detail) << "</skipped>\n    </testcase>\n";
  } else if (r.expectation == "xpass" && strict_xfail) {
    xml << ">\n      <failure type=\"xpass\" message=\"xpass: " << xml_escape(r.reason)
        << "\">the case passed; remove its expected-failure entry</failure>\n    </testcase>\n";
  } else if (r.expectation == "xpass") {
    xml << ">\n      <system-out>xpass: " << xml_escape(r.reason) << "</system-out>\n    </testcase>\n";
  } else if (is_failure(r.verdict)) {
    xml << ">\n      <failure type=\"" << verdict_name(r.verdict) << "\" message=\"" << xml_escape(first_line(r.detail))
        << "\">" << xml_escape(r.detail) << (r.group > 0 ? "\ngroup: #" + std::to_string(r.group) : "")
        << (r.replay.empty() ? "" : "\nreplay: " + xml_escape(r.replay)) << "</failure>\n    </testcase>\n";
  } else if (r.verdict == Verdict::kUnsupported) {
    xml << ">\n      <skipped message=\"" << xml_escape(r.detail) << "\"/>\n    </testcase>\n";
  } else if (r.verdict != Verdict::kAgree && r.verdict != Verdict::kBothError) {
    xml << ">\n      <system-out>" << verdict_name(r.verdict) << ": " << xml_escape(r.detail)
        << "</system-out>\n    </testcase>\n";
  } else {
    xml << "/>\n";
  }
  return xml.str();
}

}  // namespace

std::string_view run_state_name(RunState s) {
  switch (s) {
    case RunState::kRunning: return "running";
    case RunState::kComplete: return "complete";
    case RunState::kInterrupted: return "interrupted";
    case RunState::kError: return "error";
  }
  return "?";
}

std::string json_report(const ReportData& d) {
  json failures = json::array();
  json other = json::array();
  for (const CaseRecord& r : records_of(d)) {
    if ((r.verdict == Verdict::kAgree || r.verdict == Verdict::kBothError) && r.expectation.empty()) continue;
    (is_failure(r.verdict) && r.expectation != "xfail" ? failures : other).push_back(record_json(r));
  }
  json report = identity_json(d);
  report["cases"] = records_of(d).size();
  report["failed"] = d.failed;
  report["counts"] = counts_json(d);
  report["check_pairs"] = pair_coverage_json(d);
  report["throughput"] = throughput_json(d);
  report["groups"] = groups_json(d);
  report["failures"] = std::move(failures);
  report["noted"] = std::move(other);
  report["input_problems"] = problems_json(d);
  if (d.expectations) report["expected_failures"] = expectations_json(d);
  if (d.exit_code >= 0) report["exit_code"] = d.exit_code;
  return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string junit_report(const ReportData& d) {
  std::map<Op, std::vector<const CaseRecord*>> by_op;
  for (const CaseRecord& r : records_of(d)) by_op[r.op].push_back(&r);
  const std::string problems = problems_suites(d);
  const std::string expectations = expectations_suite(d);
  std::int64_t errors = static_cast<std::int64_t>(d.input_problems.size());
  if (d.state != RunState::kComplete) ++errors;
  std::int64_t all_failed = 0, listed = 0;
  for (const CaseRecord& r : records_of(d)) all_failed += fails_run(r, d.strict_xfail);
  if (d.expectations) {
    for (const Expectation& e : d.expectations->entries()) listed += !e.signature.empty() && e.status() == "xpass";
    listed += static_cast<std::int64_t>(d.unmatched.size());
    if (d.strict_xfail) all_failed += listed;
  }
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"opconform validate\" tests=\""
      << records_of(d).size() + static_cast<std::size_t>(errors + listed) << "\" failures=\"" << all_failed
      << "\" errors=\"" << errors << "\">\n";
  xml << problems << expectations;
  for (const auto& [op, records] : by_op) {
    std::int64_t failed = 0, skipped = 0;
    double seconds = 0;
    for (const CaseRecord* r : records) {
      failed += fails_run(*r, d.strict_xfail);
      skipped += r->verdict == Verdict::kUnsupported || r->expectation == "xfail";
      seconds += r->seconds;
    }
    xml << "  <testsuite name=\"" << op_name(op) << "\" tests=\"" << records.size() << "\" failures=\"" << failed
        << "\" skipped=\"" << skipped << "\" time=\"" << seconds << "\">\n";
    for (const CaseRecord* r : records) xml << testcase_xml(*r, op, d.strict_xfail);
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
  return xml.str();
}

std::string jsonl_start_line(const ReportData& d) {
  json j = identity_json(d);
  j["type"] = "start";
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string jsonl_case_line(const CaseRecord& r) {
  json j = record_json(r);
  j["type"] = "case";
  j["seconds"] = r.seconds;
  if (r.verdict == Verdict::kAgree || r.verdict == Verdict::kBothError) j.erase("detail");
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string jsonl_summary_line(const ReportData& d) {
  json j = identity_json(d);
  j["type"] = "summary";
  j["cases"] = records_of(d).size();
  j["failed"] = d.failed;
  j["counts"] = counts_json(d);
  j["check_pairs"] = pair_coverage_json(d);
  j["throughput"] = throughput_json(d);
  j["groups"] = groups_json(d);
  j["input_problems"] = problems_json(d);
  if (d.expectations) j["expected_failures"] = expectations_json(d);
  if (d.exit_code >= 0) j["exit_code"] = d.exit_code;
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::size_t utf8_sequence_length(std::string_view s, char32_t* code) {
  if (s.empty()) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b = byte(0);
  const std::size_t n = b < 0x80                 ? 1
                        : b >= 0xC2 && b <= 0xDF ? 2
                        : b >= 0xE0 && b <= 0xEF ? 3
                        : b >= 0xF0 && b <= 0xF4 ? 4
                                                 : 0;
  if (n == 0 || n > s.size()) return 0;
  char32_t c = n == 1 ? b : b & (0x7F >> n);
  for (std::size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    c = c << 6 | (byte(i) & 0x3F);
  }
  const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *code = c;
  return n;
}

bool ReportTarget::same_as(const ReportTarget& other) const {
  if (inode != 0 && other.inode != 0) return device == other.device && inode == other.inode;
  return !file.empty() && file == other.file;
}

std::string resolve_report_target(const std::string& path, ReportTarget* out) {
  namespace fs = std::filesystem;
  *out = ReportTarget{};
  out->path = path;
  if (path.empty()) return "an empty path";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return std::strerror(errno);
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0) {
      // A dangling link: its target is created through it, and then it is a file like any other.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        return std::string("a dangling symbolic link whose target cannot be created: ") + std::strerror(errno);
      ::close(fd);
      if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
    } else {
      std::error_code ec;
      const fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
      if (ec) return ec.message();
      if (!fs::is_directory(file.parent_path(), ec)) return "no such folder " + file.parent_path().string();
      out->file = file.string();
      return "";
    }
  }
  out->device = st.st_dev;
  out->inode = st.st_ino;
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISREG(st.st_mode)) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (real == nullptr) return std::strerror(errno);
    out->file = real;
    std::free(real);
    return "";
  }
  // A device, a FIFO, a terminal: opened now and kept open (a FIFO nobody reads would block the
  // run, so it is refused).
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno == ENXIO ? "a FIFO or socket nobody reads" : std::strerror(errno);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  out->stream_fd = std::shared_ptr<const int>(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
  return "";
}

namespace {

// "" when all of `text` went to `fd`, else why not.
std::string write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? "nothing written" : std::strerror(errno);
    done += static_cast<std::size_t>(n);
  }
  return "";
}

std::string write_atomically(const std::string& file, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(file);
  const fs::path temporary =
      target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::string("cannot create ") + temporary.string() + ": " + std::strerror(errno);
  std::string why = write_all(fd, text);
  if (::close(fd) != 0 && why.empty()) why = std::strerror(errno);
  if (!why.empty()) {
    ::unlink(temporary.c_str());
    return "cannot write " + temporary.string() + ": " + why;
  }
  if (std::rename(temporary.c_str(), target.c_str()) != 0) {
    why = std::strerror(errno);
    ::unlink(temporary.c_str());
    return "cannot replace " + file + ": " + why;
  }
  return "";
}

}  // namespace

std::string write_report(const ReportTarget& target, const std::string& text) {
  if (!target.stream()) return write_atomically(target.file, text);
  return target.stream_fd ? write_all(*target.stream_fd, text) : "not opened";
}

}  // namespace opconform::validator
