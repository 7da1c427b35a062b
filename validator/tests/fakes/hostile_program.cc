// A subprocess-protocol program (docs/plugin-abi.md, section 2) that misbehaves in one way, for
// the validator's own bounds:
//   hostile_program huge-response BYTES  answers every case with a well-formed result of BYTES
//                                        bytes (a float32 `merged` of zeros);
//   hostile_program setsid-child FILE    at the first case, starts a child that leaves the process
//                                        group (setsid), writes its pid to FILE and sleeps, then
//                                        aborts;
//   hostile_program deep-reply DEPTH     answers with outputs nested DEPTH arrays deep;
//   hostile_program long-fault BYTES     answers every case with a fault whose text is BYTES long;
//   hostile_program escape-fault -       answers with a fault holding ESC, NUL and other control
//                                        bytes (a terminal escape sequence);
//   hostile_program huge-claim ELEMENTS  chooses protocol version 2 and answers with a `merged`
//                                        of ELEMENTS float32 elements backed by 8 payload bytes.
// It declares DynamicStitch for every dtype.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "opconform/validator/protocol.h"

using namespace opconform;
using namespace opconform::validator;

namespace {

// The protocol version chosen (at most `highest`), or 0 when the handshake failed.
int handshake(int highest) {
  std::string body, error;
  if (!read_message(STDIN_FILENO, &body, &error)) return 0;
  Manifest m;
  m.protocol = negotiate_protocol(body, highest);
  m.name = "hostile program";
  m.ops.push_back(OpCaps{Op::kDynamicStitch, (std::uint64_t{1} << kNumDTypes) - 1, (std::uint64_t{1} << kNumDTypes) - 1,
                         0, -1, 0, -1});
  return write_message(STDOUT_FILENO, manifest_message(m)) ? m.protocol : 0;
}

bool write_all(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDOUT_FILENO, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// {"type":"result","id":ID,"outputs":{"merged":{"dtype":"float32","shape":[K],"data":[0,0,...]}}}
// padded with spaces to exactly `bytes`, sent as one frame.
bool huge_response(std::int64_t id, std::size_t bytes) {
  const std::size_t zeros = bytes / 2 - 64;
  const std::string head = "{\"type\":\"result\",\"id\":" + std::to_string(id) +
                           ",\"outputs\":{\"merged\":{\"dtype\":\"float32\",\"shape\":[" + std::to_string(zeros) +
                           "],\"data\":[0";
  const std::string tail = "]}}}";
  std::size_t body = head.size() + 2 * (zeros - 1) + tail.size();
  const std::size_t padding = bytes > body ? bytes - body : 0;
  body += padding;
  const char length[4] = {static_cast<char>(body & 0xff), static_cast<char>((body >> 8) & 0xff),
                          static_cast<char>((body >> 16) & 0xff), static_cast<char>((body >> 24) & 0xff)};
  if (!write_all(length, 4) || !write_all(head.data(), head.size())) return false;
  const std::string chunk = [] {
    std::string c;
    for (int i = 0; i < 32768; ++i) c += ",0";
    return c;
  }();
  for (std::size_t left = zeros - 1; left > 0;) {
    const std::size_t n = std::min<std::size_t>(left, 32768);
    if (!write_all(chunk.data(), 2 * n)) return false;
    left -= n;
  }
  const std::string spaces(padding, ' ');
  return write_all(spaces.data(), spaces.size()) && write_all(tail.data(), tail.size());
}

void escape_and_abort(const char* pid_file) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::setsid();
    if (FILE* f = std::fopen(pid_file, "w")) {
      std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
      std::fclose(f);
    }
    for (;;) ::pause();
  }
  ::usleep(200000);  // the child has written its pid
  std::abort();
}

bool send_result(std::int64_t id, const std::string& rest) {
  return write_message(STDOUT_FILENO, "{\"type\":\"result\",\"id\":" + std::to_string(id) + "," + rest + "}");
}

bool deep_reply(std::int64_t id, std::size_t depth) {
  return send_result(id, "\"outputs\":" + std::string(depth, '[') + std::string(depth, ']'));
}

bool long_fault(std::int64_t id, std::size_t bytes) {
  return send_result(id, "\"fault\":\"" + std::string(bytes, 'x') + "\"");
}

// A version-2 result whose one tensor claims `elements` float32 elements over an 8-byte payload.
bool huge_claim(std::int64_t id, std::uint64_t elements) {
  const std::string header = "{\"type\":\"result\",\"id\":" + std::to_string(id) +
                             ",\"outputs\":{\"merged\":{\"dtype\":\"float32\",\"shape\":[" + std::to_string(elements) +
                             "],\"offset\":0,\"bytes\":" + std::to_string(4 * elements) + "}}}";
  std::string body(4, '\0');
  for (int i = 0; i < 4; ++i) body[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return write_message(STDOUT_FILENO, body + header + std::string(8, '\0'));
}

bool escape_fault(std::int64_t id) {
  return send_result(id, R"("fault":"kernel says \u001b[2J\u001b]0;owned\u0007 and \u0000 and \u009b31m")");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: hostile_program huge-response BYTES | setsid-child FILE | deep-reply DEPTH |"
                 " long-fault BYTES | escape-fault - | huge-claim ELEMENTS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int protocol = handshake(mode == "huge-claim" ? kBinaryProtocolVersion : kProtocolVersion);
  if (protocol == 0) return 0;
  std::string body, error;
  while (read_message(STDIN_FILENO, &body, &error)) {
    std::int64_t id = 0;
    conformance::Case c;
    (void)parse_run_message(body, &id, &c, protocol);
    const std::size_t n = std::strtoull(argv[2], nullptr, 10);
    if (mode == "huge-response") {
      if (!huge_response(id, n)) return 0;
    } else if (mode == "deep-reply") {
      if (!deep_reply(id, n)) return 0;
    } else if (mode == "long-fault") {
      if (!long_fault(id, n)) return 0;
    } else if (mode == "escape-fault") {
      if (!escape_fault(id)) return 0;
    } else if (mode == "huge-claim") {
      if (!huge_claim(id, n)) return 0;
    } else {
      escape_and_abort(argv[2]);
    }
  }
  return 0;
}
