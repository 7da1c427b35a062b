// Every case `opconform validate` has judged, in order, with its tallies per op (verdicts,
// throughput) and the count of failures; each record goes to the JSON Lines report (--jsonl) as
// it is logged. Also the progress line on stderr, which counts them. Internal to the validator.
//
//   CaseLog log(err);
//   log.count(c.op, j.verdict);
//   log.add(record);
//   log.progress();
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "opconform/validator/clock.h"
#include "opconform/validator/reports.h"

namespace opconform::validator {

class CaseLog {
 public:
  explicit CaseLog(std::ostream& err) : err_(err) {}

  // Appends r; writes its JSON line unless `stream` is false (stream(index) writes it later).
  // Returns its index.
  std::size_t add(CaseRecord r, bool stream = true);
  void stream(std::size_t index);
  CaseRecord& operator[](std::size_t index) { return records_[index]; }
  const std::vector<CaseRecord>& records() const { return records_; }

  void count(Op op, Verdict v) { ++counts_[op][static_cast<int>(v)]; }
  void count_failure() { ++failures_; }
  // One more case of `op`, which took `seconds` from its drawing to its judgement and moved
  // `tensor_bytes` to and from the implementation.
  void add_throughput(Op op, double seconds, double tensor_bytes);
  const std::map<Op, std::array<std::int64_t, kNumVerdicts>>& counts() const { return counts_; }
  const std::map<Op, Throughput>& throughput() const { return throughput_; }
  std::int64_t failures() const { return failures_; }  // failed unexpectedly (xfail not counted)

  // The JSON Lines stream: opened (truncated) with its first line; false when it cannot be
  // written. write_line is a no-op while it is closed.
  bool open_stream(const std::string& path, const std::string& first_line);
  bool streaming() const { return jsonl_.is_open(); }
  bool write_line(const std::string& line);  // false when the stream has failed

  // The progress line: on a terminal (`tty`) rewritten in place at most every 0.2 s, else a line
  // every 10 s. clear_progress() erases it before other output.
  void set_tty(bool tty) { tty_ = tty; }
  void progress();
  void clear_progress();

 private:
  std::ostream& err_;
  std::vector<CaseRecord> records_;
  std::map<Op, std::array<std::int64_t, kNumVerdicts>> counts_;
  std::map<Op, Throughput> throughput_;
  std::int64_t failures_ = 0;
  std::ofstream jsonl_;
  bool tty_ = false;
  bool progress_shown_ = false;
  double started_ = now_seconds();
  double last_progress_ = started_;
};

}  // namespace opconform::validator
