#include "opconform/validator/protocol.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <span>

#include <nlohmann/json.hpp>

#include "opconform/dtype.h"

namespace opconform::validator {

using nlohmann::json;

namespace {

std::uint64_t dtype_bit(DType d) { return std::uint64_t{1} << static_cast<int>(d); }

json dtype_names(std::uint64_t mask) {
  json names = json::array();
  for (int i = 0; i < kNumDTypes; ++i)
    if (mask & (std::uint64_t{1} << i)) names.push_back(std::string(dtype_name(all_dtypes()[i])));
  return names;
}

json limit(int value) { return value < 0 ? json(nullptr) : json(value); }

// Whether arrays and objects in `body` nest deeper than `limit` (brackets in strings do not
// count). Protocol messages nest a few levels; a deeper one is refused before it is parsed,
// since nlohmann's dump() and destructors recurse once per level.
bool nests_deeper_than(std::string_view body, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char ch = body[i];
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > limit) return true;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return false;
}

// A json object parsed from `body`, or a discarded value (with *why set when it is given).
json parse_object(std::string_view body, std::string* why = nullptr) {
  if (nests_deeper_than(body, kMaxMessageNesting)) {
    if (why) *why = str_cat("JSON nested deeper than ", kMaxMessageNesting, " levels");
    return json::value_t::discarded;
  }
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded() && !j.is_object()) return json::value_t::discarded;
  return j;
}

std::string bounded_text(std::string text) { return text_head(std::move(text), kMaxAnswerTextBytes); }

// The message's "type" when it is a string, else "" (json::value would throw for another type).
std::string message_type(const json& j) {
  const auto it = j.find("type");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The case as canonical JSON without the fields a request leaves out.
json request_case_json(const conformance::Case& c) {
  conformance::Case copy = c;
  copy.expected = conformance::Expected{};
  copy.alternatives.clear();
  copy.tags.clear();
  copy.provenance.clear();
  copy.profile = "tf-cpu";
  json j = json::parse(conformance::to_json(copy));
  j.erase("expected");
  j["memory_limit"] = c.memory_limit;
  return j;
}

// Checks run in a fixed order; the first one that does not hold is the reason.
struct ManifestCheck {
  const OpCaps* caps;
  std::string* reason;
  bool fail(std::string why) {
    *reason = std::move(why);
    return false;
  }
  bool dtype_ok(const Tensor& t, std::string_view what, bool param) {
    const std::uint64_t mask = param ? caps->param_dtypes : caps->dtypes;
    if (mask & dtype_bit(t.dtype())) return true;
    return fail(str_cat(what, " dtype ", dtype_name(t.dtype()), " not declared"));
  }
  bool rank_ok(std::int64_t rank, std::string_view what) {
    if (rank < caps->min_rank) return fail(str_cat(what, " rank ", rank, " < min_rank ", caps->min_rank));
    if (caps->max_rank >= 0 && rank > caps->max_rank)
      return fail(str_cat(what, " rank ", rank, " > max_rank ", caps->max_rank));
    return true;
  }
};

const Tensor* tensor_input(const conformance::Case& c, const char* name) {
  auto it = c.inputs.find(name);
  return it == c.inputs.end() ? nullptr : std::get_if<Tensor>(&it->second);
}

}  // namespace

const OpCaps* Manifest::find(Op op) const {
  for (const OpCaps& caps : ops)
    if (caps.op == op) return &caps;
  return nullptr;
}

bool inside_manifest(const Manifest& manifest, const conformance::Case& c, std::string* reason) {
  const OpCaps* caps = manifest.find(c.op);
  if (caps == nullptr) {
    *reason = str_cat(op_name(c.op), " not listed");
    return false;
  }
  ManifestCheck check{caps, reason};
  const OpInfo& info = op_info(c.op);
  for (const Slot& slot : info.signature.inputs) {
    auto it = c.inputs.find(std::string(slot.name));
    if (it == c.inputs.end()) return check.fail("inputs missing");
    const bool param = slot.dtype_role != "T";
    auto ok = [&](const Tensor& t) {
      return check.dtype_ok(t, slot.name, param) && (param || info.caps_rank || check.rank_ok(t.rank(), slot.name));
    };
    if (const Tensor* t = std::get_if<Tensor>(&it->second)) {
      if (!ok(*t)) return false;
    } else {
      for (const Tensor& t : std::get<std::vector<Tensor>>(it->second))
        if (!ok(t)) return false;
    }
  }
  if (info.caps_rank && !check.rank_ok(info.caps_rank(c.inputs), "sparse")) return false;
  if (const Tensor* block = tensor_input(c, "block_shape")) {
    const std::int64_t m = block->num_elements();
    if (m < caps->min_block_dims)
      return check.fail(str_cat("block dims ", m, " < min_block_dims ", caps->min_block_dims));
    if (caps->max_block_dims >= 0 && m > caps->max_block_dims)
      return check.fail(str_cat("block dims ", m, " > max_block_dims ", caps->max_block_dims));
  }
  return true;
}

std::string frame(std::string_view body) {
  std::string out(4, '\0');
  const auto n = static_cast<std::uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out.append(body);
  return out;
}

std::optional<std::string> FrameDecoder::next(std::string* error) {
  if (buffer_.size() < 4) return std::nullopt;
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= std::uint32_t{static_cast<unsigned char>(buffer_[i])} << (8 * i);
  if (n == 0 || n > kMaxMessageBytes) {
    *error = str_cat("message length ", std::uint64_t{n}, " outside [1, 2^30]");
    return std::nullopt;
  }
  if (n > limit_) {
    *error = str_cat("a message of ", std::uint64_t{n}, " bytes, more than the ", std::uint64_t{limit_},
                     " bytes allowed here (not read)");
    return std::nullopt;
  }
  if (buffer_.size() < 4 + std::size_t{n}) return std::nullopt;
  std::string body = buffer_.substr(4, n);
  buffer_.erase(0, 4 + std::size_t{n});
  return body;
}

void FrameDecoder::set_limit(std::size_t max_bytes) { limit_ = std::min<std::size_t>(max_bytes, kMaxMessageBytes); }

namespace {

// An upper bound of the JSON text of t's elements (conformance/vector_writer.cc's encoding:
// numbers, "0x…" bit patterns, big integers as strings, strings escaped or hex).
std::size_t json_bytes(const Tensor& t) {
  std::size_t bytes = 64 + 24 * static_cast<std::size_t>(t.rank());
  if (t.dtype() == DType::kString) {
    for (const std::string& s : t.values<std::string>()) bytes += 6 * s.size() + 16;
    return bytes;
  }
  const bool complex = t.dtype() == DType::kComplex64 || t.dtype() == DType::kComplex128;
  return bytes + static_cast<std::size_t>(t.num_elements()) * (complex ? 64 : 32);
}

std::size_t json_bytes(const conformance::Values& values) {
  std::size_t bytes = 0;
  for (const auto& [name, value] : values) {
    if (const auto* t = std::get_if<Tensor>(&value))
      bytes += json_bytes(*t);
    else
      for (const Tensor& member : std::get<std::vector<Tensor>>(value)) bytes += json_bytes(member);
  }
  return bytes;
}

}  // namespace

std::size_t max_result_bytes(const conformance::Case& c) {
  const std::size_t largest = std::max(json_bytes(c.expected.outputs), json_bytes(c.inputs));
  return std::min<std::size_t>(kMaxMessageBytes, 2 * largest + (std::size_t{1} << 20));
}

namespace {
// Reads exactly `size` bytes; false at EOF or error (*eof_at_start when nothing was read).
bool read_exact(int fd, char* data, std::size_t size, bool* eof_at_start) {
  std::size_t done = 0;
  *eof_at_start = false;
  while (done < size) {
    const ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *eof_at_start = n == 0 && done == 0;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace

bool read_message(int fd, std::string* body, std::string* error) {
  char head[4];
  bool eof = false;
  error->clear();
  if (!read_exact(fd, head, 4, &eof)) {
    if (!eof) *error = "truncated message header";
    return false;
  }
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= std::uint32_t{static_cast<unsigned char>(head[i])} << (8 * i);
  if (n == 0 || n > kMaxMessageBytes) {
    *error = str_cat("message length ", std::uint64_t{n}, " outside [1, 2^30]");
    return false;
  }
  body->resize(n);
  if (!read_exact(fd, body->data(), n, &eof)) {
    *error = "truncated message body";
    return false;
  }
  return true;
}

bool write_message(int fd, std::string_view body) {
  const std::string wire = frame(body);
  std::size_t done = 0;
  while (done < wire.size()) {
    const ssize_t n = ::write(fd, wire.data() + done, wire.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string hello_message(int highest) {
  json offered = json::array();
  for (int v = kProtocolVersion; v <= highest; ++v) offered.push_back(v);
  return json{{"type", "hello"}, {"protocol", kProtocolVersion}, {"protocols", offered}}.dump();
}

int negotiate_protocol(std::string_view hello, int highest) {
  const json j = parse_object(hello);
  int chosen = kProtocolVersion;
  if (j.is_discarded() || !j.contains("protocols") || !j["protocols"].is_array()) return chosen;
  for (const json& v : j["protocols"])
    if (v.is_number_integer() && v.get<std::int64_t>() > chosen && v.get<std::int64_t>() <= highest)
      chosen = v.get<int>();
  return chosen;
}

std::string load_error_message(std::string_view message) {
  return json{{"type", "error"}, {"message", std::string(message)}}.dump(-1, ' ', false,
                                                                         json::error_handler_t::replace);
}

std::string manifest_message(const Manifest& manifest) {
  json ops = json::array();
  for (const OpCaps& caps : manifest.ops) {
    ops.push_back({{"op", op_name(caps.op)},
                   {"dtypes", dtype_names(caps.dtypes)},
                   {"param_dtypes", dtype_names(caps.param_dtypes)},
                   {"min_rank", caps.min_rank},
                   {"max_rank", limit(caps.max_rank)},
                   {"min_block_dims", caps.min_block_dims},
                   {"max_block_dims", limit(caps.max_block_dims)}});
  }
  return json{{"type", "manifest"},
              {"protocol", manifest.protocol},
              {"name", manifest.name},
              {"profile", manifest.profile},
              {"ops", ops}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

Status parse_manifest_message(std::string_view body, Manifest* out, int offered) {
  std::string why;
  const json j = parse_object(body, &why);
  if (j.is_discarded())
    return invalid_argument("the handshake answer is not a JSON object", why.empty() ? "" : ": ", why);
  const std::string type = message_type(j);
  if (type == "error") {
    const json* message = j.contains("message") ? &j["message"] : nullptr;
    return invalid_argument(
        bounded_text(message && message->is_string() ? message->get<std::string>() : std::string("load error")));
  }
  if (type != "manifest") return invalid_argument("expected a \"manifest\" message, got type \"", type, "\"");
  const json* protocol = j.contains("protocol") && j["protocol"].is_number_integer() ? &j["protocol"] : nullptr;
  if (!protocol || protocol->get<std::int64_t>() < kProtocolVersion || protocol->get<std::int64_t>() > offered)
    return invalid_argument("manifest: protocol must be ", kProtocolVersion,
                            offered > kProtocolVersion ? str_cat(" to ", offered, " (one the hello offered)") : "");
  Manifest m;
  m.protocol = protocol->get<int>();
  if (j.contains("name")) {
    if (!j["name"].is_string()) return invalid_argument("manifest: name must be a string");
    m.name = j["name"].get<std::string>();
  }
  if (j.contains("profile")) {
    if (!j["profile"].is_string()) return invalid_argument("manifest: profile must be a string");
    m.profile = j["profile"].get<std::string>();
  }
  if (m.profile != "tf-cpu" && m.profile != "xla" && m.profile != "tflite")
    return invalid_argument("manifest: unknown profile \"", m.profile, "\"");
  if (!j.contains("ops") || !j["ops"].is_array()) return invalid_argument("manifest: ops must be an array");
  std::set<Op> seen;
  for (const json& entry : j["ops"]) {
    if (!entry.is_object() || !entry.contains("op") || !entry["op"].is_string())
      return invalid_argument("manifest: every ops entry needs \"op\"");
    const std::string name = entry["op"].get<std::string>();
    const std::optional<Op> op = op_from_name(name);
    if (!op) return invalid_argument("manifest: unknown op \"", name, "\"");
    if (!seen.insert(*op).second) return invalid_argument("manifest: op ", name, " listed twice");
    OpCaps caps;
    caps.op = *op;
    for (const char* key : {"dtypes", "param_dtypes"}) {
      if (!entry.contains(key) || !entry[key].is_array())
        return invalid_argument("manifest: ", name, ".", key, " must be an array of dtype names");
      std::uint64_t mask = 0;
      for (const json& d : entry[key]) {
        const std::optional<DType> dtype = d.is_string() ? dtype_from_name(d.get<std::string>()) : std::nullopt;
        if (!dtype) return invalid_argument("manifest: ", name, ".", key, ": unknown dtype ", d.dump());
        mask |= dtype_bit(*dtype);
      }
      (std::string_view(key) == "dtypes" ? caps.dtypes : caps.param_dtypes) = mask;
    }
    struct Field {
      const char* key;
      int* value;
      bool is_max;
    };
    for (Field f :
         {Field{"min_rank", &caps.min_rank, false}, Field{"max_rank", &caps.max_rank, true},
          Field{"min_block_dims", &caps.min_block_dims, false}, Field{"max_block_dims", &caps.max_block_dims, true}}) {
      if (!entry.contains(f.key) || entry[f.key].is_null()) continue;
      const json& v = entry[f.key];
      if (!v.is_number_integer() || v.get<std::int64_t>() < (f.is_max ? -1 : 0) || v.get<std::int64_t>() > 1000)
        return invalid_argument("manifest: ", name, ".", f.key, " must be an integer in [", f.is_max ? -1 : 0,
                                ", 1000]", f.is_max ? " or null" : "");
      *f.value = v.get<int>();
    }
    m.ops.push_back(caps);
  }
  *out = std::move(m);
  return Status();
}

namespace {

// Version-2 bodies: a 4-byte little-endian header length H, H bytes of JSON header, then the
// payload, which holds the bytes of every tensor the header describes by offset and size.
// Elements are stored as in memory on a little-endian host.
static_assert(std::endian::native == std::endian::little, "tensor payloads are little-endian");

constexpr std::size_t kLengthBytes = 4;

void put_u32(std::string* out, std::uint32_t n) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((n >> (8 * i)) & 0xff));
}

std::uint32_t get_u32(const char* p) {
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= std::uint32_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return n;
}

// A JSON integer in [0, max] (false for anything else).
bool get_count(const json& j, std::uint64_t max, std::uint64_t* out) {
  if (j.is_number_unsigned())
    *out = j.get<std::uint64_t>();
  else if (j.is_number_integer() && j.get<std::int64_t>() >= 0)
    *out = static_cast<std::uint64_t>(j.get<std::int64_t>());
  else
    return false;
  return *out <= max;
}

// Lays out a message's tensors: tensor() and values() give each one's header entry, body()
// writes the header and then every described tensor's bytes in order. A string tensor's bytes
// are, per element, its length (4 bytes, little-endian) and its bytes.
class PayloadWriter {
 public:
  json tensor(const Tensor& t) {
    std::uint64_t bytes = 0;
    if (t.dtype() == DType::kString) {
      for (const std::string& s : t.values<std::string>()) bytes += kLengthBytes + s.size();
    } else {
      bytes = static_cast<std::uint64_t>(t.num_elements()) * dtype_storage_size(t.dtype());
    }
    json j = {{"dtype", dtype_name(t.dtype())}, {"shape", t.shape()}, {"offset", size_}, {"bytes", bytes}};
    tensors_.push_back(&t);
    size_ += bytes;
    return j;
  }
  json values(const conformance::Values& values) {
    json j = json::object();
    for (const auto& [name, value] : values) {
      if (const auto* t = std::get_if<Tensor>(&value)) {
        j[name] = tensor(*t);
        continue;
      }
      json list = json::array();
      for (const Tensor& member : std::get<std::vector<Tensor>>(value)) list.push_back(tensor(member));
      j[name] = std::move(list);
    }
    return j;
  }
  // Whether the body of `header` and the tensors fits in one message.
  bool fits(const std::string& header) const {
    return size_ <= kMaxMessageBytes && kLengthBytes + header.size() <= kMaxMessageBytes - size_;
  }
  // Precondition: fits(header).
  std::string body(const std::string& header) const {
    std::string out;
    out.reserve(kLengthBytes + header.size() + size_);
    put_u32(&out, static_cast<std::uint32_t>(header.size()));
    out += header;
    for (const Tensor* t : tensors_) {
      if (t->dtype() == DType::kString) {
        for (const std::string& s : t->values<std::string>()) {
          put_u32(&out, static_cast<std::uint32_t>(s.size()));
          out += s;
        }
      } else {
        out.append(static_cast<const char*>(t->raw_data()),
                   static_cast<std::size_t>(t->num_elements()) * dtype_storage_size(t->dtype()));
      }
    }
    return out;
  }

 private:
  std::vector<const Tensor*> tensors_;
  std::uint64_t size_ = 0;
};

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Status bad(const std::string& path, std::string_view why) { return invalid_argument(path, ": ", why); }

// Reads a version-2 body: its header, and tensors out of its payload, every offset, size and
// element checked before anything is allocated for it, and all the tensors' bytes together
// within the payload's.
class PayloadReader {
 public:
  // Splits `body` into *header and the payload.
  Status open(std::string_view body, json* header) {
    if (body.size() < kLengthBytes)
      return invalid_argument("a binary body of ", body.size(), " bytes has no header length");
    const std::uint32_t n = get_u32(body.data());
    if (n > body.size() - kLengthBytes)
      return invalid_argument("header length ", std::uint64_t{n}, " beyond the body's ", body.size(), " bytes");
    std::string why;
    *header = parse_object(body.substr(kLengthBytes, n), &why);
    if (header->is_discarded())
      return invalid_argument("the header is not a JSON object", why.empty() ? "" : ": ", why);
    payload_ = body.substr(kLengthBytes + n);
    return Status();
  }

  Status tensor(const json& j, const std::string& path, Tensor* out) {
    if (!j.is_object()) return bad(path, "expected a tensor {dtype, shape, offset, bytes}");
    for (const auto& item : j.items())
      if (item.key() != "dtype" && item.key() != "shape" && item.key() != "offset" && item.key() != "bytes")
        return bad(path + "." + item.key(), "unknown field");
    const auto dtype =
        j.contains("dtype") && j["dtype"].is_string() ? dtype_from_name(j["dtype"].get<std::string>()) : std::nullopt;
    if (!dtype) return bad(path + ".dtype", "not a dtype name");
    if (!j.contains("shape") || !j["shape"].is_array() || j["shape"].size() > static_cast<std::size_t>(kMaxDims))
      return bad(path + ".shape", str_cat("expected an array of at most ", kMaxDims, " dims"));
    Shape shape;
    for (const json& d : j["shape"]) {
      std::uint64_t dim = 0;
      if (!get_count(d, std::numeric_limits<std::int64_t>::max(), &dim))
        return bad(path + ".shape", "a dim is not an int64 >= 0");
      shape.push_back(static_cast<std::int64_t>(dim));
    }
    const std::int64_t count = checked_num_elements(shape);
    if (count < 0) return bad(path + ".shape", "the element count of " + shape_string(shape) + " overflows int64");
    std::uint64_t offset = 0, bytes = 0;
    if (!j.contains("offset") || !get_count(j["offset"], payload_.size(), &offset) || !j.contains("bytes") ||
        !get_count(j["bytes"], payload_.size() - offset, &bytes))
      return bad(path, str_cat("offset and bytes must lie inside the payload of ", payload_.size(), " bytes"));
    if (bytes > payload_.size() - claimed_)
      return bad(path, str_cat("the tensors claim more than the payload's ", payload_.size(), " bytes"));
    claimed_ += bytes;  // so that no byte backs two tensors: what is allocated stays within the payload
    const std::string_view data = payload_.substr(offset, bytes);
    const auto elements = static_cast<std::uint64_t>(count);
    if (*dtype == DType::kString) return read_strings(data, elements, std::move(shape), path, out);
    std::uint64_t needed = 0;
    if (__builtin_mul_overflow(elements, std::uint64_t{dtype_storage_size(*dtype)}, &needed) || needed != bytes)
      return bad(path, str_cat(bytes, " bytes for ", dtype_name(*dtype), " ", shape_string(shape)));
    if (*dtype == DType::kBool)
      for (std::size_t i = 0; i < data.size(); ++i)
        if (static_cast<unsigned char>(data[i]) > 1)
          return bad(path, str_cat("bool element ", i, " is the byte ", int{static_cast<unsigned char>(data[i])}));
    Tensor t = Tensor::uninitialized(*dtype, std::move(shape));
    if (!data.empty()) std::memcpy(t.raw_data(), data.data(), data.size());
    *out = std::move(t);
    return Status();
  }

  // The named values of `slots` (an op's inputs or outputs), no more and no fewer.
  Status values(const json& j, const std::string& path, std::span<const Slot> slots, conformance::Values* out) {
    if (!j.is_object()) return bad(path, "expected an object");
    for (const auto& item : j.items())
      if (std::none_of(slots.begin(), slots.end(), [&](const Slot& s) { return s.name == item.key(); }))
        return bad(path + "." + item.key(), "not a value of this op");
    conformance::Values values;
    for (const Slot& slot : slots) {
      const std::string name(slot.name), at = path + "." + name;
      if (!j.contains(name)) return bad(at, "missing");
      const json& v = j[name];
      if (slot.is_list != v.is_array())
        return bad(at, slot.is_list ? "expected a list of tensors" : "expected one tensor");
      if (!slot.is_list) {
        Tensor t;
        OPCONFORM_RETURN_IF_ERROR(tensor(v, at, &t));
        values.emplace(name, std::move(t));
        continue;
      }
      std::vector<Tensor> list(v.size());
      for (std::size_t i = 0; i < v.size(); ++i)
        OPCONFORM_RETURN_IF_ERROR(tensor(v[i], str_cat(at, "[", i, "]"), &list[i]));
      values.emplace(name, std::move(list));
    }
    *out = std::move(values);
    return Status();
  }

 private:
  static Status read_strings(std::string_view data, std::uint64_t elements, Shape shape, const std::string& path,
                             Tensor* out) {
    if (elements > data.size() / kLengthBytes)
      return bad(path, str_cat(data.size(), " bytes cannot hold ", elements, " strings"));
    Tensor t(DType::kString, std::move(shape));
    std::string* dst = t.data<std::string>();
    for (std::uint64_t i = 0; i < elements; ++i) {
      if (data.size() < kLengthBytes) return bad(path, str_cat("string ", i, " runs past its bytes"));
      const std::uint32_t n = get_u32(data.data());
      data.remove_prefix(kLengthBytes);
      if (n > data.size()) return bad(path, str_cat("string ", i, " runs past its bytes"));
      dst[i].assign(data.data(), n);
      data.remove_prefix(n);
    }
    if (!data.empty()) return bad(path, str_cat(data.size(), " bytes after the last string"));
    *out = std::move(t);
    return Status();
  }

  std::string_view payload_;
  std::uint64_t claimed_ = 0;  // bytes of the tensors read so far
};

std::string binary_run_message(std::int64_t id, const conformance::Case& c) {
  PayloadWriter writer;
  json attrs = json::object();
  for (const auto& [name, value] : c.attrs) attrs[name] = value;
  for (const auto& [name, value] : c.string_attrs) attrs[name] = value;
  const json request = {{"op", op_name(c.op)},
                        {"attrs", std::move(attrs)},
                        {"memory_limit", c.memory_limit},
                        {"inputs", writer.values(c.inputs)}};
  return writer.body(dump(json{{"type", "run"}, {"id", id}, {"case", request}}));
}

Status parse_binary_run_message(std::string_view body, std::int64_t* id, conformance::Case* out) {
  PayloadReader reader;
  json j;
  OPCONFORM_RETURN_IF_ERROR(reader.open(body, &j));
  if (message_type(j) != "run") return invalid_argument("expected a \"run\" message");
  if (!j.contains("id") || !j["id"].is_number_integer()) return invalid_argument("run: id must be an integer");
  *id = j["id"].get<std::int64_t>();
  if (!j.contains("case") || !j["case"].is_object()) return invalid_argument("run: case must be an object");
  const json& c = j["case"];
  for (const auto& item : c.items())
    if (item.key() != "op" && item.key() != "attrs" && item.key() != "memory_limit" && item.key() != "inputs")
      return bad("run.case." + item.key(), "unknown field");
  const auto op = c.contains("op") && c["op"].is_string() ? op_from_name(c["op"].get<std::string>()) : std::nullopt;
  if (!op) return bad("run.case.op", "not an op name");
  conformance::Case parsed;
  parsed.op = *op;
  const OpSignature& signature = op_signature(*op);
  const std::size_t num_attrs = signature.attrs.size() + signature.string_attrs.size();
  if (!c.contains("attrs") || !c["attrs"].is_object() || c["attrs"].size() != num_attrs)
    return bad("run.case.attrs", str_cat("expected the ", num_attrs, " attributes of ", op_name(*op)));
  for (std::string_view name : signature.attrs) {
    const std::string key(name);
    const json* value = c["attrs"].contains(key) ? &c["attrs"][key] : nullptr;
    if (!value || !value->is_number_integer() ||
        (value->is_number_unsigned() && value->get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()))
      return bad("run.case.attrs." + key, "expected an int64");
    parsed.attrs[key] = value->get<std::int64_t>();
  }
  for (std::string_view name : signature.string_attrs) {
    const std::string key(name);
    const json* value = c["attrs"].contains(key) ? &c["attrs"][key] : nullptr;
    if (!value || !value->is_string()) return bad("run.case.attrs." + key, "expected a string");
    parsed.string_attrs[key] = value->get<std::string>();
  }
  std::uint64_t limit = 0;
  if (!c.contains("memory_limit") || !get_count(c["memory_limit"], std::numeric_limits<std::int64_t>::max(), &limit))
    return bad("run.case.memory_limit", "expected an int64 >= 0");
  parsed.memory_limit = static_cast<std::int64_t>(limit);
  if (!c.contains("inputs")) return bad("run.case.inputs", "missing");
  OPCONFORM_RETURN_IF_ERROR(reader.values(c["inputs"], "run.case.inputs", signature.inputs, &parsed.inputs));
  *out = std::move(parsed);
  return Status();
}

std::string binary_result_message(std::int64_t id, const conformance::Case& request, const ImplAnswer& answer) {
  PayloadWriter writer;
  json j = {{"type", "result"}, {"id", id}};
  switch (answer.kind) {
    case ImplAnswer::Kind::kOutputs: j["outputs"] = writer.values(answer.outputs); break;
    case ImplAnswer::Kind::kError:
      j["error"] = {{"code", std::string(code_name(answer.error.code()))}, {"message", answer.error.message()}};
      break;
    case ImplAnswer::Kind::kFault: j["fault"] = answer.fault; break;
  }
  const std::string header = dump(j);
  if (writer.fits(header)) return writer.body(header);
  ImplAnswer too_large;
  too_large.kind = ImplAnswer::Kind::kFault;
  too_large.fault = str_cat("the outputs take more than the protocol's ", std::uint64_t{kMaxMessageBytes}, " bytes");
  return binary_result_message(id, request, too_large);
}

// What every result message has, in either protocol: its type, its id, exactly one of outputs,
// error, fault. A fault is taken here (its text bounded); `*fault` says whether it was one.
Status read_result_envelope(const json& j, std::int64_t id, ImplAnswer* answer, bool* fault) {
  if (message_type(j) != "result") return invalid_argument("expected a \"result\" message");
  if (!j.contains("id") || !j["id"].is_number_integer() || j["id"].get<std::int64_t>() != id)
    return invalid_argument("result: id must be ", id);
  const int kinds = int(j.contains("outputs")) + int(j.contains("error")) + int(j.contains("fault"));
  if (kinds != 1) return invalid_argument("result: needs exactly one of outputs, error, fault");
  *fault = j.contains("fault");
  if (*fault) {
    answer->kind = ImplAnswer::Kind::kFault;
    answer->fault = bounded_text(j["fault"].is_string() ? j["fault"].get<std::string>() : dump(j["fault"]));
  }
  return Status();
}

Status parse_binary_result_message(std::string_view body, const conformance::Case& request, std::int64_t id,
                                   ImplAnswer* out) {
  PayloadReader reader;
  json j;
  if (Status s = reader.open(body, &j); !s.ok()) return invalid_argument("the result: ", s.message());
  ImplAnswer answer;
  bool fault = false;
  if (Status s = read_result_envelope(j, id, &answer, &fault); !s.ok()) return s;
  if (fault) {
    *out = std::move(answer);
    return Status();
  }
  if (j.contains("error")) {
    const json& e = j["error"];
    const auto code = e.is_object() && e.contains("code") && e["code"].is_string()
                          ? code_from_name(e["code"].get<std::string>())
                          : std::nullopt;
    if (!code || *code == Code::kOk)
      return invalid_argument("the implementation's result: error.code: not an error code");
    if (!e.contains("message") || !e["message"].is_string() || e.size() != 2)
      return invalid_argument("the implementation's result: error: expected {code, message}");
    answer.kind = ImplAnswer::Kind::kError;
    answer.error = Status(*code, bounded_text(e["message"].get<std::string>()));
  } else {
    answer.kind = ImplAnswer::Kind::kOutputs;
    const auto& slots = op_signature(request.op).outputs;
    if (Status s = reader.values(j["outputs"], "outputs", slots, &answer.outputs); !s.ok())
      return invalid_argument("the implementation's result: ", s.message());
  }
  *out = std::move(answer);
  return Status();
}

}  // namespace

std::string run_message(std::int64_t id, const conformance::Case& c, int protocol) {
  if (protocol == kBinaryProtocolVersion) return binary_run_message(id, c);
  return json{{"type", "run"}, {"id", id}, {"case", request_case_json(c)}}.dump(-1, ' ', false,
                                                                                json::error_handler_t::replace);
}

Status parse_run_message(std::string_view body, std::int64_t* id, conformance::Case* out, int protocol) {
  if (protocol == kBinaryProtocolVersion) return parse_binary_run_message(body, id, out);
  json j = parse_object(body);
  if (j.is_discarded()) return invalid_argument("not a JSON object");
  if (message_type(j) != "run") return invalid_argument("expected a \"run\" message");
  if (!j.contains("id") || !j["id"].is_number_integer()) return invalid_argument("run: id must be an integer");
  if (!j.contains("case") || !j["case"].is_object()) return invalid_argument("run: case must be an object");
  *id = j["id"].get<std::int64_t>();
  json c = std::move(j["case"]);
  c["expected"] = {{"error", {{"code", "INTERNAL"}, {"message", "(not sent)"}}}};
  return conformance::parse_case(c.dump(-1, ' ', false, json::error_handler_t::replace), "run.case", out);
}

namespace {
// The reader names the fields of the vector it parsed the answer into ("result:
// expected.outputs.merged.data: ..."); the answer is the implementation's, not an expectation.
Status implementation_result_error(const Status& s) {
  std::string message = s.message();
  for (const std::string prefix : {"result: expected.", "result: expected: ", "result: "})
    if (message.rfind(prefix, 0) == 0) {
      message = "the implementation's result: " + message.substr(prefix.size());
      break;
    }
  return Status(s.code(), message);
}
}  // namespace

std::string result_message(std::int64_t id, const conformance::Case& request, const ImplAnswer& answer, int protocol) {
  if (protocol == kBinaryProtocolVersion) return binary_result_message(id, request, answer);
  json j = {{"type", "result"}, {"id", id}};
  switch (answer.kind) {
    case ImplAnswer::Kind::kOutputs: {
      conformance::Case outputs_only;
      outputs_only.op = request.op;
      outputs_only.attrs = request.attrs;
      outputs_only.string_attrs = request.string_attrs;
      outputs_only.expected.outputs = answer.outputs;
      j["outputs"] = json::parse(conformance::to_json(outputs_only))["expected"]["outputs"];
      break;
    }
    case ImplAnswer::Kind::kError:
      j["error"] = {{"code", std::string(code_name(answer.error.code()))}, {"message", answer.error.message()}};
      break;
    case ImplAnswer::Kind::kFault: j["fault"] = answer.fault; break;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status parse_result_message(std::string_view body, const conformance::Case& request, std::int64_t id, ImplAnswer* out,
                            int protocol) {
  if (protocol == kBinaryProtocolVersion) return parse_binary_result_message(body, request, id, out);
  std::string why;
  json j = parse_object(body, &why);
  if (j.is_discarded()) return invalid_argument("the result is not a JSON object", why.empty() ? "" : ": ", why);
  ImplAnswer answer;
  bool fault = false;
  if (Status s = read_result_envelope(j, id, &answer, &fault); !s.ok()) return s;
  if (fault) {
    *out = std::move(answer);
    return Status();
  }
  json c = request_case_json(request);
  const bool is_error = j.contains("error");
  c["expected"] = is_error ? json{{"error", std::move(j["error"])}} : json{{"outputs", std::move(j["outputs"])}};
  conformance::Case parsed;
  if (Status s = conformance::parse_case(c.dump(-1, ' ', false, json::error_handler_t::replace), "result", &parsed);
      !s.ok())
    return implementation_result_error(s);
  if (is_error) {
    answer.kind = ImplAnswer::Kind::kError;
    answer.error = Status(parsed.expected.error->code(), bounded_text(parsed.expected.error->message()));
  } else {
    answer.kind = ImplAnswer::Kind::kOutputs;
    answer.outputs = std::move(parsed.expected.outputs);
  }
  *out = std::move(answer);
  return Status();
}

std::string text_head(std::string text, std::size_t bytes, std::string_view note) {
  if (text.size() <= bytes) return text;
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  const std::size_t total = text.size();
  text.resize(bytes);
  return str_cat(text, "... (", total, " bytes in all", note, ")");
}

}  // namespace opconform::validator
