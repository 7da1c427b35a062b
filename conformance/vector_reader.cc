// The vector reader: JSON (nlohmann) -> Case, with errors naming the file and field path.
// Inside this file a bad field throws ReadError; parse_case turns it into a Status.

#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>

#include <nlohmann/json.hpp>

#include "opconform/conformance/floats.h"
#include "opconform/conformance/vector.h"
#include "opconform/conformance/vector_files.h"

namespace opconform::conformance {

namespace {

using json = nlohmann::json;
using Int = __int128;  // holds every int64 and uint64 element

struct ReadError {
  std::string message;
};

std::string int_string(Int v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  for (; v != 0; v /= 10) digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -(v % 10) : v % 10)));
  return negative ? "-" + digits : digits;
}

// Renders j into out, stopping once out holds more than `limit` characters or below depth 3
// (so hostile nesting costs no stack and huge values no time).
void sketch(const json& j, int depth, std::size_t limit, std::string& out) {
  if (!j.is_structured()) {
    const std::string text = j.is_string() ? json(j.get_ref<const std::string&>().substr(0, limit))
                                                 .dump(-1, ' ', false, json::error_handler_t::replace)
                                           : j.dump();
    out += text;
    return;
  }
  out += j.is_array() ? '[' : '{';
  bool first = true;
  for (auto it = j.begin(); it != j.end() && out.size() <= limit; ++it, first = false) {
    if (!first) out += ',';
    if (depth >= 2) {
      out += "...";
      break;
    }
    if (j.is_object()) out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ":";
    sketch(*it, depth + 1, limit, out);
  }
  out += j.is_array() ? ']' : '}';
}

// A short rendering of a JSON value for "got …" in messages.
std::string describe(const json& j) {
  constexpr std::size_t kLimit = 40;
  std::string text;
  sketch(j, 0, kLimit, text);
  if (text.size() > kLimit) text = text.substr(0, kLimit - 3) + "...";
  return text;
}

std::string field(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// A decimal integer in its one canonical spelling ("0", "-12"; no "+", "-0" or leading zeros).
std::optional<Int> parse_decimal(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  if (digits.empty() || digits.size() > 20 || (digits[0] == '0' && (digits.size() > 1 || negative)))
    return std::nullopt;
  Int v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

template <class T>
constexpr FloatFormat float_format() {
  if constexpr (std::is_same_v<T, float16>)
    return kFloat16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return kBFloat16;
  else if constexpr (std::is_same_v<T, float>)
    return kFloat32;
  else
    return kFloat64;
}

template <class T>
constexpr bool is_float_element =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
T float_from_bits(std::uint64_t bits) {
  if constexpr (std::is_same_v<T, float16>)
    return float16{static_cast<std::uint16_t>(bits)};
  else if constexpr (std::is_same_v<T, bfloat16>)
    return bfloat16{static_cast<std::uint16_t>(bits)};
  else if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  else
    return std::bit_cast<double>(bits);
}

class Reader {
 public:
  Reader(std::string_view source, const ReadLimits& limits) : source_(source), limits_(limits) {}

  Case read(const json& root) {
    if (!root.is_object()) fail("", "expected a JSON object, got " + describe(root));
    known_fields(root, "",
                 {"format", "op", "attrs", "inputs", "expected", "alternatives", "memory_limit", "profile", "tags",
                  "provenance", "name"});
    const std::string format = read_string(required(root, "", "format"), "format");
    if (format != kFormatName) fail("format", "expected \"" + std::string(kFormatName) + "\", got \"" + format + "\"");
    const std::string op_text = read_string(required(root, "", "op"), "op");
    const std::optional<Op> op = op_from_name(op_text);
    if (!op) fail("op", "unknown op \"" + op_text + "\"");

    Case c;
    c.op = *op;
    const OpSignature& signature = op_signature(*op);
    read_attrs(root, signature, &c);
    c.inputs = read_values(required(root, "", "inputs"), "inputs", signature.inputs, "input");
    c.expected = read_outcome(required(root, "", "expected"), "expected", signature);
    if (const json* j = optional(root, "alternatives")) c.alternatives = read_alternatives(*j, signature);
    if (const json* j = optional(root, "memory_limit")) {
      c.memory_limit = read_int<std::int64_t>(*j, "memory_limit", "int64");
      if (c.memory_limit < 0) fail("memory_limit", "must be >= 0, got " + int_string(c.memory_limit));
    }
    if (const json* j = optional(root, "profile")) c.profile = read_profile(*j, "profile");
    if (const json* j = optional(root, "tags")) {
      if (!j->is_array()) fail("tags", "expected an array of strings, got " + describe(*j));
      for (std::size_t i = 0; i < j->size(); ++i) c.tags.push_back(read_string((*j)[i], item("tags", i)));
    }
    if (!c.expected.unspecified.empty() && !c.has_tag("unspecified"))
      fail("tags", "a vector with expected.unspecified carries the tag \"unspecified\"");
    if (!c.alternatives.empty() && !c.has_tag("deviation") && !c.has_tag("quirk"))
      fail("tags", "a vector with alternatives carries the tag \"deviation\" or \"quirk\"");
    if (const json* j = optional(root, "provenance")) c.provenance = read_string(*j, "provenance");
    if (const json* j = optional(root, "name")) c.name = read_string(*j, "name");
    return c;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw ReadError{source_ + ": " + (path.empty() ? "" : path + ": ") + problem};
  }

  void expect_object(const json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an object, got " + describe(j));
  }

  void known_fields(const json& j, const std::string& path, std::initializer_list<std::string_view> known) const {
    expect_object(j, path);
    for (const auto& [key, value] : j.items())
      if (std::find(known.begin(), known.end(), key) == known.end()) fail(field(path, key), "unknown field");
  }

  const json& required(const json& j, const std::string& path, std::string_view key) const {
    auto it = j.find(key);
    if (it == j.end()) fail(path, "missing field \"" + std::string(key) + "\"");
    return *it;
  }

  static const json* optional(const json& j, std::string_view key) {
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }

  std::string read_string(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string, got " + describe(j));
    return j.get<std::string>();
  }

  // A JSON integer or a canonical decimal string (corpus/README.md: readers accept both).
  Int read_integer(const json& j, const std::string& path) const {
    if (j.is_number_unsigned()) return j.get<std::uint64_t>();
    if (j.is_number_integer()) return j.get<std::int64_t>();
    if (j.is_string()) {
      if (auto v = parse_decimal(j.get<std::string>())) return *v;
      fail(path, "expected an integer or a decimal string, got " + describe(j));
    }
    fail(path, "expected an integer, got " + describe(j));
  }

  template <class I>
  I read_int(const json& j, const std::string& path, std::string_view type_name) const {
    const Int v = read_integer(j, path);
    if (v < std::numeric_limits<I>::min() || v > std::numeric_limits<I>::max())
      fail(path, int_string(v) + " is out of range for " + std::string(type_name));
    return static_cast<I>(v);
  }

  std::uint64_t read_float_bits(const json& j, const std::string& path, FloatFormat f) const {
    if (j.is_number()) return round_to_format(j.get<double>(), f);
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      if (s == "inf") return round_to_format(std::numeric_limits<double>::infinity(), f);
      if (s == "-inf") return round_to_format(-std::numeric_limits<double>::infinity(), f);
      if (s == "nan") return canonical_nan_bits(f);
      const std::size_t max_digits = static_cast<std::size_t>(f.width() / 4);
      if (s.size() > 2 && s.size() <= 2 + max_digits && s.compare(0, 2, "0x") == 0 &&
          s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos) {
        std::uint64_t bits = 0;
        std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
        return bits;
      }
    }
    fail(path, "expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most " + std::to_string(f.width() / 4) +
                   " hex digits, got " + describe(j));
  }

  std::string read_string_element(const json& j, const std::string& path) const {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_object()) {
      known_fields(j, path, {"hex"});
      const std::string hex = read_string(required(j, path, "hex"), field(path, "hex"));
      if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        fail(field(path, "hex"), "expected an even number of hex digits");
      std::string bytes(hex.size() / 2, '\0');
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        unsigned byte = 0;
        std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, byte, 16);
        bytes[i] = static_cast<char>(byte);
      }
      return bytes;
    }
    fail(path, "expected a string or {\"hex\": ...}, got " + describe(j));
  }

  template <class T>
  T read_element(const json& j, const std::string& path, DType dtype) const {
    const std::string_view name = dtype_name(dtype);
    if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) fail(path, "expected true or false, got " + describe(j));
      return j.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      return read_int<T>(j, path, name);
    } else if constexpr (std::is_same_v<T, qint8>) {
      return qint8{read_int<std::int8_t>(j, path, name)};
    } else if constexpr (std::is_same_v<T, quint8>) {
      return quint8{read_int<std::uint8_t>(j, path, name)};
    } else if constexpr (std::is_same_v<T, qint32>) {
      return qint32{read_int<std::int32_t>(j, path, name)};
    } else if constexpr (is_float_element<T>) {
      return float_from_bits<T>(read_float_bits(j, path, float_format<T>()));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return read_string_element(j, path);
    } else {  // std::complex<float|double>
      using Part = typename T::value_type;
      if (!j.is_array() || j.size() != 2) fail(path, "expected [real, imaginary], got " + describe(j));
      const DType part = std::is_same_v<Part, float> ? DType::kFloat32 : DType::kFloat64;
      return T(read_element<Part>(j[0], item(path, 0), part), read_element<Part>(j[1], item(path, 1), part));
    }
  }

  // Decodes a JSON array of exactly t's element count into t.
  void read_elements(const json& data, const std::string& path, Tensor& t) const {
    visit_dtype(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = t.data<T>();
      for (std::int64_t i = 0; i < t.num_elements(); ++i)
        out[i] = read_element<T>(data[static_cast<std::size_t>(i)], item(path, static_cast<std::size_t>(i)), t.dtype());
    });
  }

  Shape read_shape(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "expected an array of dims, got " + describe(j));
    if (j.size() > static_cast<std::size_t>(kMaxDims))
      fail(path, "rank " + std::to_string(j.size()) + " exceeds " + std::to_string(kMaxDims));
    Shape shape;
    for (std::size_t i = 0; i < j.size(); ++i) {
      shape.push_back(read_int<std::int64_t>(j[i], item(path, i), "a dim"));
      if (shape.back() < 0) fail(item(path, i), "negative dim " + int_string(shape.back()));
    }
    if (checked_num_elements(shape) < 0) fail(path, "the element count of " + shape_string(shape) + " overflows int64");
    return shape;
  }

  Tensor read_tensor(const json& j, const std::string& path) {
    known_fields(j, path, {"dtype", "shape", "data", "fill"});
    const std::string dtype_text = read_string(required(j, path, "dtype"), field(path, "dtype"));
    const std::optional<DType> dtype = dtype_from_name(dtype_text);
    if (!dtype) fail(field(path, "dtype"), "unknown dtype \"" + dtype_text + "\"");
    Shape shape = read_shape(required(j, path, "shape"), field(path, "shape"));
    const std::int64_t count = checked_num_elements(shape);
    const json* data = optional(j, "data");
    const json* fill = optional(j, "fill");
    if (data && fill) fail(path, "has both \"data\" and \"fill\"");
    if (data) {
      const std::string data_path = field(path, "data");
      if (!data->is_array()) fail(data_path, "expected an array of elements, got " + describe(*data));
      if (static_cast<std::uint64_t>(data->size()) != static_cast<std::uint64_t>(count))
        fail(data_path, std::to_string(data->size()) + " elements for shape " + shape_string(shape) + " (needs " +
                            std::to_string(count) + ")");
      Tensor t(*dtype, std::move(shape));
      read_elements(*data, data_path, t);
      return t;
    }
    if (!fill) fail(path, "missing field \"data\" (or \"fill\")");
    const std::string fill_path = field(path, "fill");
    return visit_dtype(*dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T element = read_element<T>(*fill, fill_path, *dtype);
      std::int64_t element_bytes = static_cast<std::int64_t>(sizeof(T));
      if constexpr (std::is_same_v<T, std::string>) element_bytes += static_cast<std::int64_t>(element.size());
      std::int64_t bytes = 0;
      if (count > limits_.max_fill_elements || __builtin_mul_overflow(count, element_bytes, &bytes) ||
          bytes > limits_.max_fill_bytes - fill_bytes_)
        fail(fill_path, "filling " + shape_string(shape) + " exceeds the reader's limit (" +
                            std::to_string(limits_.max_fill_elements) + " elements, " +
                            std::to_string(limits_.max_fill_bytes) + " bytes per vector)");
      fill_bytes_ += bytes;
      Tensor t(*dtype, std::move(shape));
      std::fill_n(t.data<T>(), count, element);
      return t;
    });
  }

  Value read_value(const json& j, const std::string& path, bool is_list) {
    if (!is_list) {
      if (j.is_array()) fail(path, "expected one tensor, got a list");
      return read_tensor(j, path);
    }
    if (!j.is_array()) fail(path, "expected an array of tensors (a list argument), got " + describe(j));
    std::vector<Tensor> list;
    for (std::size_t i = 0; i < j.size(); ++i) list.push_back(read_tensor(j[i], item(path, i)));
    return list;
  }

  static std::string slot_names(std::span<const Slot> slots) {
    std::string names;
    for (const Slot& s : slots) names += (names.empty() ? "" : ", ") + std::string(s.name);
    return names;
  }

  Values read_values(const json& j, const std::string& path, std::span<const Slot> slots, std::string_view what) {
    expect_object(j, path);
    for (const auto& item : j.items()) {  // no structured binding: clang 14 cannot capture one
      const std::string& key = item.key();
      if (std::none_of(slots.begin(), slots.end(), [&](const Slot& s) { return s.name == key; }))
        fail(field(path, key), "not an " + std::string(what) + " of this op (expected " + slot_names(slots) + ")");
    }
    Values values;
    for (const Slot& slot : slots) {
      const json& v = required(j, path, slot.name);
      values.emplace(std::string(slot.name), read_value(v, field(path, slot.name), slot.is_list));
    }
    return values;
  }

  void read_attrs(const json& root, const OpSignature& signature, Case* c) const {
    const json* attrs = optional(root, "attrs");
    if (!attrs && signature.attrs.empty() && signature.string_attrs.empty()) return;
    if (!attrs) fail("", "missing field \"attrs\"");
    expect_object(*attrs, "attrs");
    auto listed = [](std::span<const std::string_view> names, std::string_view key) {
      return std::find(names.begin(), names.end(), key) != names.end();
    };
    for (const auto& [key, value] : attrs->items())
      if (!listed(signature.attrs, key) && !listed(signature.string_attrs, key))
        fail(field("attrs", key), std::string("not an attribute of ") + op_name(c->op));
    for (std::string_view name : signature.attrs)
      c->attrs[std::string(name)] =
          read_int<std::int64_t>(required(*attrs, "attrs", name), field("attrs", name), "int64");
    for (std::string_view name : signature.string_attrs)
      c->string_attrs[std::string(name)] = read_string(required(*attrs, "attrs", name), field("attrs", name));
  }

  std::string read_profile(const json& j, const std::string& path) const {
    std::string profile = read_string(j, path);
    if (profile != "tf-cpu" && profile != "xla" && profile != "tflite")
      fail(path, "unknown profile \"" + profile + "\" (tf-cpu, xla, tflite)");
    return profile;
  }

  // An allowed outcome at `path` ("expected", "alternatives[0].outcome"): outputs (and rules) or
  // an error.
  Expected read_outcome(const json& j, const std::string& path, const OpSignature& signature) {
    known_fields(j, path, {"outputs", "error", "unspecified"});
    const json* outputs = optional(j, "outputs");
    const json* error = optional(j, "error");
    const std::string error_path = field(path, "error"), rules_path = field(path, "unspecified");
    if (outputs && error) fail(path, "has both \"outputs\" and \"error\"");
    Expected expected;
    if (error) {
      if (optional(j, "unspecified")) fail(rules_path, "only goes with \"outputs\"");
      known_fields(*error, error_path, {"code", "message"});
      const std::string code_path = field(error_path, "code");
      const std::string code_text = read_string(required(*error, error_path, "code"), code_path);
      const std::optional<Code> code = code_from_name(code_text);
      if (!code || *code == Code::kOk) fail(code_path, "unknown error code \"" + code_text + "\"");
      expected.error =
          Status(*code, read_string(required(*error, error_path, "message"), field(error_path, "message")));
      return expected;
    }
    if (!outputs) fail(path, "missing field \"outputs\" (or \"error\")");
    expected.outputs = read_values(*outputs, field(path, "outputs"), signature.outputs, "output");
    if (const json* rules = optional(j, "unspecified")) {
      if (!rules->is_array()) fail(rules_path, "expected an array of rules, got " + describe(*rules));
      for (std::size_t i = 0; i < rules->size(); ++i)
        expected.unspecified.push_back(read_rule((*rules)[i], item(rules_path, i), expected.outputs));
    }
    return expected;
  }

  // corpus/README.md, "Alternatives": profiles (known, each once), an outcome, and why.
  std::vector<Alternative> read_alternatives(const json& j, const OpSignature& signature) {
    if (!j.is_array() || j.empty())
      fail("alternatives", "expected a non-empty array of alternatives, got " + describe(j));
    std::vector<Alternative> alternatives;
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string path = item("alternatives", i), profiles_path = field(path, "profiles");
      known_fields(j[i], path, {"profiles", "outcome", "why"});
      Alternative a;
      const json& profiles = required(j[i], path, "profiles");
      if (!profiles.is_array() || profiles.empty())
        fail(profiles_path, "expected a non-empty array of profiles, got " + describe(profiles));
      for (std::size_t k = 0; k < profiles.size(); ++k) {
        std::string profile = read_profile(profiles[k], item(profiles_path, k));
        if (a.allows(profile)) fail(item(profiles_path, k), "profile \"" + profile + "\" listed twice");
        a.profiles.push_back(std::move(profile));
      }
      a.outcome = read_outcome(required(j[i], path, "outcome"), field(path, "outcome"), signature);
      a.why = read_string(required(j[i], path, "why"), field(path, "why"));
      if (a.why.empty()) fail(field(path, "why"), "empty (cite the contract)");
      alternatives.push_back(std::move(a));
    }
    return alternatives;
  }

  // The single-tensor output of rank >= 1 that a rule names.
  const Tensor& rule_output(const json& rule, const std::string& path, std::string_view key,
                            const Values& outputs) const {
    const std::string key_path = field(path, key);
    const std::string name = read_string(required(rule, path, key), key_path);
    auto it = outputs.find(name);
    if (it == outputs.end()) fail(key_path, "no output named \"" + name + "\"");
    const Tensor* t = std::get_if<Tensor>(&it->second);
    if (!t || t->rank() < 1) fail(key_path, "\"" + name + "\" is not a single tensor of rank >= 1");
    return *t;
  }

  UnspecifiedRule read_rule(const json& j, const std::string& path, const Values& outputs) const {
    expect_object(j, path);
    const std::string rule = read_string(required(j, path, "rule"), field(path, "rule"));
    if (rule == "permutation_within_equal_keys") {
      known_fields(j, path, {"rule", "keys", "values"});
      const Tensor& keys = rule_output(j, path, "keys", outputs);
      const Tensor& values = rule_output(j, path, "values", outputs);
      if (keys.dim(0) != values.dim(0))
        fail(path, "keys and values differ in dim 0 (" + std::to_string(keys.dim(0)) + " vs " +
                       std::to_string(values.dim(0)) + ")");
      return PermutationWithinEqualKeys{j["keys"].get<std::string>(), j["values"].get<std::string>()};
    }
    if (rule != "one_of_rows")
      fail(field(path, "rule"), "unknown rule \"" + rule + "\" (one_of_rows, permutation_within_equal_keys)");
    known_fields(j, path, {"rule", "output", "rows"});
    const Tensor& output = rule_output(j, path, "output", outputs);
    const Shape row_shape(output.shape().begin() + 1, output.shape().end());
    const std::int64_t row_size = checked_num_elements(row_shape);
    OneOfRows result{j["output"].get<std::string>(), {}};
    const std::string rows_path = field(path, "rows");
    const json& rows = required(j, path, "rows");
    expect_object(rows, rows_path);
    for (const auto& [key, alternatives] : rows.items()) {
      const std::string row_path = field(rows_path, key);
      const std::optional<Int> row = parse_decimal(key);
      if (!row || *row < 0 || *row >= output.dim(0))
        fail(row_path, "not a row of " + result.output + " (0 to " + std::to_string(output.dim(0) - 1) + ")");
      if (!alternatives.is_array()) fail(row_path, "expected an array of alternatives, got " + describe(alternatives));
      std::vector<Tensor>& list = result.rows[static_cast<std::int64_t>(*row)];
      for (std::size_t a = 0; a < alternatives.size(); ++a) {
        const json& data = alternatives[a];
        const std::string data_path = item(row_path, a);
        if (!data.is_array()) fail(data_path, "expected an array of elements, got " + describe(data));
        if (static_cast<std::uint64_t>(data.size()) != static_cast<std::uint64_t>(row_size))
          fail(data_path, std::to_string(data.size()) + " elements for a row of shape " + shape_string(row_shape) +
                              " (needs " + std::to_string(row_size) + ")");
        Tensor t(output.dtype(), row_shape);
        read_elements(data, data_path, t);
        list.push_back(std::move(t));
      }
    }
    return result;
  }

  std::string source_;
  ReadLimits limits_;
  std::int64_t fill_bytes_ = 0;  // bytes allocated for "fill" tensors so far
};

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, ..." without the tag.
std::string parse_error_text(const char* what) {
  std::string_view text = what;
  if (text.starts_with("[json.exception.")) text.remove_prefix(std::min(text.find("] ") + 2, text.size()));
  return std::string(text);
}

}  // namespace

Status parse_case(std::string_view json_text, std::string_view source, Case* out, const ReadLimits& limits) {
  try {
    json root;
    try {
      root = json::parse(json_text.begin(), json_text.end());
    } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e400
      return invalid_argument(source, ": invalid JSON: ", parse_error_text(e.what()));
    }
    Case c = Reader(source, limits).read(root);
    c.source = std::string(source);
    *out = std::move(c);
    return Status();
  } catch (const ReadError& e) {
    return invalid_argument(e.message);
  } catch (const std::bad_alloc&) {
    return invalid_argument(source, ": out of memory while reading");
  } catch (const std::exception& e) {
    return invalid_argument(source, ": ", e.what());
  }
}

Status load_case_file(const std::filesystem::path& path, Case* out, const ReadLimits& limits) {
  namespace fs = std::filesystem;
  const std::string source = path.string();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)  // a looping link, a folder without access, ...
    return invalid_argument(source, ": cannot read: ", ec.message());
  if (!fs::exists(status)) return invalid_argument(source, ": cannot read: ", missing_reason(path, "no such file"));
  if (fs::is_directory(status)) return invalid_argument(source, ": cannot read: is a directory");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > static_cast<std::uintmax_t>(limits.max_file_bytes))
    return invalid_argument(source, ": cannot read: larger than ", limits.max_file_bytes, " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_argument(source, ": cannot read: ", std::strerror(errno));
  // Read at most kMaxFileBytes + 1 bytes, so that a device or pipe cannot exhaust memory.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > static_cast<std::size_t>(limits.max_file_bytes))
      return invalid_argument(source, ": cannot read: larger than ", limits.max_file_bytes, " bytes");
  }
  if (in.bad()) return invalid_argument(source, ": cannot read: I/O error");
  return parse_case(text, source, out, limits);
}

}  // namespace opconform::conformance
