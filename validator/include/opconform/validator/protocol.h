// SPDX-License-Identifier: Apache-2.0
// The subprocess protocol of docs/plugin-abi.md (section 2): message framing, the manifest, and
// the run/result messages that carry conformance vectors. Used on both sides: by the validator
// (worker_client.h) and by opconform-worker, which speaks it for a C-ABI plug-in.
//
// Version 1 carries every message as JSON text. Version 2, when both sides offer it in the
// handshake, carries run and result messages as a JSON header followed by the tensors' raw
// bytes (docs/plugin-abi.md, "Binary tensors").
//
//   std::string wire = frame(run_message(7, c, manifest.protocol));  // 4-byte LE length + body
//   ImplAnswer answer;
//   Status s = parse_result_message(body, c, 7, &answer, manifest.protocol);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/ops.h"
#include "opconform/status.h"

namespace opconform::validator {

inline constexpr int kProtocolVersion = 1;        // JSON text throughout
inline constexpr int kBinaryProtocolVersion = 2;  // run and result: JSON header + raw tensor bytes
inline constexpr std::uint32_t kMaxMessageBytes = std::uint32_t{1} << 30;
// An implementation's message nesting deeper than this is malformed (a valid one nests about 5).
inline constexpr int kMaxMessageNesting = 64;
// Of an implementation's fault text and error message, the validator keeps this many bytes (and
// notes the length): what it holds per case stays bounded whatever the implementation says.
inline constexpr std::size_t kMaxAnswerTextBytes = 4096;

// The first `bytes` of `text`, cut at a UTF-8 character boundary, with "... (N bytes in all" +
// `note` + ")" after it when it was cut.
std::string text_head(std::string text, std::size_t bytes, std::string_view note = "");

// What an implementation declares for one op (plugin_abi.h, opconform_op_caps). Masks have bit
// static_cast<int>(DType) set per dtype; a max of -1 means no limit.
struct OpCaps {
  Op op = Op::kSpaceToBatchND;
  std::uint64_t dtypes = 0;
  std::uint64_t param_dtypes = 0;
  int min_rank = 0;
  int max_rank = -1;
  int min_block_dims = 0;
  int max_block_dims = -1;
};

struct Manifest {
  std::string name;
  std::string profile = "tf-cpu";
  std::vector<OpCaps> ops;
  int protocol = kProtocolVersion;  // the version the program chose from the hello's offer
  const OpCaps* find(Op op) const;  // nullptr when the op is not listed
};

// Whether `c` lies inside the manifest (docs/plugin-abi.md, "The manifest"); when not,
// *reason says why ("op not listed", "dtype string not declared", "rank 5 > max_rank 4", ...).
bool inside_manifest(const Manifest& manifest, const conformance::Case& c, std::string* reason);

// What an implementation answered for one case.
struct ImplAnswer {
  enum class Kind { kOutputs, kError, kFault };
  Kind kind = Kind::kFault;
  conformance::Values outputs;  // kOutputs
  Status error;                 // kError
  std::string fault;            // kFault: the ABI or protocol violation
};

// Framing: 4-byte little-endian length, then the body.
std::string frame(std::string_view body);

// Accumulates bytes from a stream and cuts them into message bodies.
class FrameDecoder {
 public:
  void feed(const char* data, std::size_t size) { buffer_.append(data, size); }
  // The next complete body, if any. Sets *error (and returns nullopt) for a length of 0 or
  // above the limit, as soon as the length is known (the body is never buffered).
  std::optional<std::string> next(std::string* error);
  bool empty() const { return buffer_.empty(); }
  // The longest body accepted from now on (at most kMaxMessageBytes, the default).
  void set_limit(std::size_t max_bytes);

 private:
  std::string buffer_;
  std::size_t limit_ = kMaxMessageBytes;
};

// The longest result message the validator reads for `c` (its expectation set): twice the
// JSON its expected outputs or its inputs could take, whichever is more, plus 1 MiB for the
// envelope and messages; at most kMaxMessageBytes. A correct answer always fits, in either
// version (raw bytes take less than their JSON text).
std::size_t max_result_bytes(const conformance::Case& c);

// Blocking helpers for the worker side. read_message: false at EOF or on error (*error set,
// empty at a clean EOF between messages).
bool read_message(int fd, std::string* body, std::string* error);
bool write_message(int fd, std::string_view body);

// Handshake messages (JSON bodies in every version). The hello offers versions 1 to `highest`.
std::string hello_message(int highest = kBinaryProtocolVersion);
// The version a program that speaks 1 to `highest` chooses for `hello`: the highest both speak
// (1 for a hello that offers nothing more).
int negotiate_protocol(std::string_view hello, int highest = kBinaryProtocolVersion);
std::string load_error_message(std::string_view message);
std::string manifest_message(const Manifest& manifest);  // with manifest.protocol
// The program's answer to a hello that offered 1 to `offered`: its manifest, or a load error
// (returned as the Status message).
Status parse_manifest_message(std::string_view body, Manifest* out, int offered = kBinaryProtocolVersion);

// Run and result bodies in `protocol` (kProtocolVersion or kBinaryProtocolVersion).
// A run request: the case without expected, tags or provenance, memory_limit always set.
std::string run_message(std::int64_t id, const conformance::Case& c, int protocol = kProtocolVersion);
Status parse_run_message(std::string_view body, std::int64_t* id, conformance::Case* out,
                         int protocol = kProtocolVersion);

// Outputs that do not fit in a version-2 message become a fault.
std::string result_message(std::int64_t id, const conformance::Case& request, const ImplAnswer& answer,
                           int protocol = kProtocolVersion);
// Reads a result for `request`; a malformed one is an error Status (the caller records it as
// a fault).
Status parse_result_message(std::string_view body, const conformance::Case& request, std::int64_t id, ImplAnswer* out,
                            int protocol = kProtocolVersion);

}  // namespace opconform::validator
