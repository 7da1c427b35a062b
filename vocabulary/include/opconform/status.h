// SPDX-License-Identifier: Apache-2.0
// Status {code, message} with TensorFlow's canonical codes. Ops never throw across their
// public boundary: they return a Status and write outputs only on success.
#pragma once

#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace opconform {

enum class Code {
  kOk,
  kInvalidArgument,
  kResourceExhausted,
  kUnimplemented,
  kInternal,
};

// "OK", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED", "INTERNAL".
std::string_view code_name(Code code);
std::optional<Code> code_from_name(std::string_view name);

// One pointer: OK is null, so an OK status costs no allocation and is checked with one
// compare (every op returns and checks a dozen of them per call); an error holds its code and
// message on the heap.
class Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message)
      : rep_(code == Code::kOk && message.empty() ? nullptr : new Rep{code, std::move(message)}) {}
  Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}
  Status(Status&& other) noexcept : rep_(std::exchange(other.rep_, nullptr)) {}
  Status& operator=(const Status& other) {
    if (this != &other) *this = Status(other);
    return *this;
  }
  Status& operator=(Status&& other) noexcept {
    std::swap(rep_, other.rep_);
    return *this;
  }
  ~Status() { delete rep_; }

  bool ok() const { return code() == Code::kOk; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  const std::string& message() const { return rep_ ? rep_->message : empty_message(); }
  std::string to_string() const;  // "INVALID_ARGUMENT: <message>" or "OK"

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  static const std::string& empty_message();
  Rep* rep_ = nullptr;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

// Concatenates streamable pieces. Integers must be passed as int64_t/uint64_t/int (not
// int8_t/char, which stream as characters).
template <class... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <class... Args>
Status invalid_argument(const Args&... args) {
  return Status(Code::kInvalidArgument, str_cat(args...));
}
template <class... Args>
Status internal_error(const Args&... args) {
  return Status(Code::kInternal, str_cat(args...));
}
template <class... Args>
Status unimplemented(const Args&... args) {
  return Status(Code::kUnimplemented, str_cat(args...));
}
template <class... Args>
Status resource_exhausted(const Args&... args) {
  return Status(Code::kResourceExhausted, str_cat(args...));
}

}  // namespace opconform

// Returns from the enclosing function when `expr` is not OK.
#define OPCONFORM_RETURN_IF_ERROR(expr)                    \
  do {                                                     \
    ::opconform::Status opconform_status_ = (expr);        \
    if (!opconform_status_.ok()) return opconform_status_; \
  } while (0)
