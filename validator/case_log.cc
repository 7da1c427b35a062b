#include "case_log.h"

#include <algorithm>
#include <sstream>

namespace opconform::validator {

std::size_t CaseLog::add(CaseRecord r, bool stream) {
  if (stream && jsonl_.is_open()) jsonl_ << jsonl_case_line(r) << std::flush;
  records_.push_back(std::move(r));
  return records_.size() - 1;
}

void CaseLog::stream(std::size_t index) {
  if (jsonl_.is_open()) jsonl_ << jsonl_case_line(records_[index]) << std::flush;
}

void CaseLog::add_throughput(Op op, double seconds, double tensor_bytes) {
  Throughput& rate = throughput_[op];
  ++rate.cases;
  rate.seconds += seconds;
  rate.tensor_bytes += tensor_bytes;
}

bool CaseLog::open_stream(const std::string& path, const std::string& first_line) {
  jsonl_.open(path, std::ios::trunc);
  if (jsonl_) jsonl_ << first_line << std::flush;
  return static_cast<bool>(jsonl_);
}

bool CaseLog::write_line(const std::string& line) {
  if (!jsonl_.is_open()) return true;
  jsonl_ << line << std::flush;
  return static_cast<bool>(jsonl_);
}

void CaseLog::progress() {
  const double now = now_seconds();
  if (now - last_progress_ < (tty_ ? 0.2 : 10.0)) return;
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

void CaseLog::clear_progress() {
  if (tty_ && progress_shown_) err_ << "\r\033[K" << std::flush;
  progress_shown_ = false;
}

}  // namespace opconform::validator
