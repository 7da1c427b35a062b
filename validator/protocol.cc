#include "opconform/validator/protocol.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

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
      if (ch == '\\') ++i;
      else if (ch == '"') in_string = false;
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
  bool dtype_ok(const Tensor& t, const char* what, bool param) {
    const std::uint64_t mask = param ? caps->param_dtypes : caps->dtypes;
    if (mask & dtype_bit(t.dtype())) return true;
    return fail(str_cat(what, " dtype ", dtype_name(t.dtype()), " not declared"));
  }
  bool rank_ok(std::int64_t rank, const char* what) {
    if (rank < caps->min_rank)
      return fail(str_cat(what, " rank ", rank, " < min_rank ", caps->min_rank));
    if (caps->max_rank >= 0 && rank > caps->max_rank)
      return fail(str_cat(what, " rank ", rank, " > max_rank ", caps->max_rank));
    return true;
  }
};

const Tensor* tensor_input(const conformance::Case& c, const char* name) {
  auto it = c.inputs.find(name);
  return it == c.inputs.end() ? nullptr : std::get_if<Tensor>(&it->second);
}
const std::vector<Tensor>* list_input(const conformance::Case& c, const char* name) {
  auto it = c.inputs.find(name);
  return it == c.inputs.end() ? nullptr : std::get_if<std::vector<Tensor>>(&it->second);
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
  switch (c.op) {
    case Op::kSpaceToBatchND:
    case Op::kBatchToSpaceND: {
      const Tensor* input = tensor_input(c, "input");
      const Tensor* block = tensor_input(c, "block_shape");
      const char* amounts_name = c.op == Op::kSpaceToBatchND ? "paddings" : "crops";
      const Tensor* amounts = tensor_input(c, amounts_name);
      if (!input || !block || !amounts) return check.fail("inputs missing");
      if (!check.dtype_ok(*input, "input", false) || !check.dtype_ok(*block, "block_shape", true) ||
          !check.dtype_ok(*amounts, amounts_name, true) || !check.rank_ok(input->rank(), "input"))
        return false;
      const std::int64_t m = block->num_elements();
      if (m < caps->min_block_dims)
        return check.fail(str_cat("block dims ", m, " < min_block_dims ", caps->min_block_dims));
      if (caps->max_block_dims >= 0 && m > caps->max_block_dims)
        return check.fail(str_cat("block dims ", m, " > max_block_dims ", caps->max_block_dims));
      return true;
    }
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: {
      const auto* indices = list_input(c, "indices");
      const auto* data = list_input(c, "data");
      if (!indices || !data) return check.fail("inputs missing");
      for (const Tensor& t : *indices)
        if (!check.dtype_ok(t, "indices", true)) return false;
      for (const Tensor& t : *data)
        if (!check.dtype_ok(t, "data", false) || !check.rank_ok(t.rank(), "data")) return false;
      return true;
    }
    case Op::kDynamicPartition: {
      const Tensor* data = tensor_input(c, "data");
      const Tensor* partitions = tensor_input(c, "partitions");
      if (!data || !partitions) return check.fail("inputs missing");
      return check.dtype_ok(*data, "data", false) && check.dtype_ok(*partitions, "partitions", true) &&
             check.rank_ok(data->rank(), "data");
    }
    case Op::kSparseConcat: {
      const auto* indices = list_input(c, "indices");
      const auto* values = list_input(c, "values");
      const auto* shapes = list_input(c, "shapes");
      if (!indices || !values || !shapes) return check.fail("inputs missing");
      for (const Tensor& t : *indices)
        if (!check.dtype_ok(t, "indices", true)) return false;
      for (const Tensor& t : *shapes)
        if (!check.dtype_ok(t, "shapes", true)) return false;
      for (const Tensor& t : *values)
        if (!check.dtype_ok(t, "values", false)) return false;
      const std::int64_t rank = shapes->empty() ? 0 : (*shapes)[0].num_elements();
      return check.rank_ok(rank, "sparse");
    }
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
    if (const auto* t = std::get_if<Tensor>(&value)) bytes += json_bytes(*t);
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

std::string hello_message() { return json{{"type", "hello"}, {"protocol", kProtocolVersion}}.dump(); }

std::string load_error_message(std::string_view message) {
  return json{{"type", "error"}, {"message", std::string(message)}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
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
  return json{{"type", "manifest"}, {"protocol", kProtocolVersion}, {"name", manifest.name},
              {"profile", manifest.profile}, {"ops", ops}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

Status parse_manifest_message(std::string_view body, Manifest* out) {
  std::string why;
  const json j = parse_object(body, &why);
  if (j.is_discarded()) return invalid_argument("the handshake answer is not a JSON object", why.empty() ? "" : ": ", why);
  const std::string type = j.value("type", "");
  if (type == "error") {
    const json* message = j.contains("message") ? &j["message"] : nullptr;
    return invalid_argument(bounded_text(message && message->is_string() ? message->get<std::string>()
                                                                          : std::string("load error")));
  }
  if (type != "manifest") return invalid_argument("expected a \"manifest\" message, got type \"", type, "\"");
  if (!j.contains("protocol") || !j["protocol"].is_number_integer() || j["protocol"].get<std::int64_t>() != kProtocolVersion)
    return invalid_argument("manifest: protocol must be ", kProtocolVersion);
  Manifest m;
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
    const std::optional<Op> op = conformance::op_from_name(name);
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
    for (Field f : {Field{"min_rank", &caps.min_rank, false}, Field{"max_rank", &caps.max_rank, true},
                    Field{"min_block_dims", &caps.min_block_dims, false},
                    Field{"max_block_dims", &caps.max_block_dims, true}}) {
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

std::string run_message(std::int64_t id, const conformance::Case& c) {
  return json{{"type", "run"}, {"id", id}, {"case", request_case_json(c)}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

Status parse_run_message(std::string_view body, std::int64_t* id, conformance::Case* out) {
  json j = parse_object(body);
  if (j.is_discarded()) return invalid_argument("not a JSON object");
  if (j.value("type", "") != "run") return invalid_argument("expected a \"run\" message");
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

std::string result_message(std::int64_t id, const conformance::Case& request, const ImplAnswer& answer) {
  json j = {{"type", "result"}, {"id", id}};
  switch (answer.kind) {
    case ImplAnswer::Kind::kOutputs: {
      conformance::Case outputs_only;
      outputs_only.op = request.op;
      outputs_only.attrs = request.attrs;
      outputs_only.expected.outputs = answer.outputs;
      j["outputs"] = json::parse(conformance::to_json(outputs_only))["expected"]["outputs"];
      break;
    }
    case ImplAnswer::Kind::kError:
      j["error"] = {{"code", std::string(code_name(answer.error.code()))}, {"message", answer.error.message()}};
      break;
    case ImplAnswer::Kind::kFault:
      j["fault"] = answer.fault;
      break;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status parse_result_message(std::string_view body, const conformance::Case& request, std::int64_t id,
                            ImplAnswer* out) {
  std::string why;
  json j = parse_object(body, &why);
  if (j.is_discarded()) return invalid_argument("the result is not a JSON object", why.empty() ? "" : ": ", why);
  if (j.value("type", "") != "result") return invalid_argument("expected a \"result\" message");
  if (!j.contains("id") || !j["id"].is_number_integer() || j["id"].get<std::int64_t>() != id)
    return invalid_argument("result: id must be ", id);
  const int kinds = int(j.contains("outputs")) + int(j.contains("error")) + int(j.contains("fault"));
  if (kinds != 1) return invalid_argument("result: needs exactly one of outputs, error, fault");
  ImplAnswer answer;
  if (j.contains("fault")) {
    answer.kind = ImplAnswer::Kind::kFault;
    answer.fault = bounded_text(j["fault"].is_string() ? j["fault"].get<std::string>()
                                                        : j["fault"].dump(-1, ' ', false, json::error_handler_t::replace));
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
