// The canonical writer: Case -> JSON text (corpus/README.md's form, bit-exact elements).
// Elements are rendered to JSON tokens first, then laid out: a value goes on one line when it
// fits in kLineWidth columns; longer arrays of scalars wrap, several elements per line.

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "opconform/conformance/floats.h"
#include "opconform/conformance/vector.h"

namespace opconform::conformance {

namespace {

constexpr std::size_t kLineWidth = 100;
constexpr std::int64_t kFillThreshold = 64;  // more equal elements than this: "fill"

// A JSON value whose scalars are already JSON text.
struct Node {
  enum Kind { kToken, kArray, kObject } kind = kToken;
  std::string token;
  std::vector<Node> items;        // kArray: the elements; kObject: the values, in order
  std::vector<std::string> keys;  // kObject: the keys as JSON text (no pair<string, Node>:
                                  // clang 14 rejects it while Node is incomplete)

  static Node of(std::string token) { return Node{kToken, std::move(token), {}, {}}; }
  static Node array() { return Node{kArray, {}, {}, {}}; }
  static Node object() { return Node{kObject, {}, {}, {}}; }
  void add(std::string_view key, Node value) {
    keys.push_back(quote(key));
    items.push_back(std::move(value));
  }

  static std::string quote(std::string_view s) {
    return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
};

// Width of `n` on one line, or a number above `limit` once it is known not to fit.
std::size_t inline_width(const Node& n, std::size_t limit) {
  if (n.kind == Node::kToken) return n.token.size();
  std::size_t width = 2;
  for (std::size_t i = 0; i < n.items.size() && width <= limit; ++i) {
    if (i > 0) width += 2;
    if (n.kind == Node::kObject) width += n.keys[i].size() + 2;
    width += inline_width(n.items[i], limit - std::min(width, limit));
  }
  return width;
}

void print_inline(const Node& n, std::string& out) {
  if (n.kind == Node::kToken) {
    out += n.token;
    return;
  }
  out += n.kind == Node::kArray ? '[' : '{';
  for (std::size_t i = 0; i < n.items.size(); ++i) {
    if (i > 0) out += ", ";
    if (n.kind == Node::kObject) out += n.keys[i] + ": ";
    print_inline(n.items[i], out);
  }
  out += n.kind == Node::kArray ? ']' : '}';
}

// How deeply objects nest in `n` (0: no object, 1: objects of scalars and arrays only).
int object_depth(const Node& n) {
  int depth = 0;
  for (const Node& item : n.items) depth = std::max(depth, object_depth(item));
  return depth + (n.kind == Node::kObject ? 1 : 0);
}

// Prints `n` starting at column `column`, its inner lines indented by `indent` + 2. A value goes
// on one line when it fits and holds no object inside an object (a tensor does, "inputs" not).
void print(const Node& n, std::size_t indent, std::size_t column, bool top, std::string& out) {
  if (n.kind == Node::kToken || (!top && column + inline_width(n, kLineWidth) <= kLineWidth && object_depth(n) <= 1))
    return print_inline(n, out);
  const std::string inner(indent + 2, ' ');
  if (n.kind == Node::kObject) {
    out += "{";
    for (std::size_t i = 0; i < n.items.size(); ++i) {
      out += (i > 0 ? ",\n" : "\n") + inner + n.keys[i] + ": ";
      print(n.items[i], indent + 2, inner.size() + n.keys[i].size() + 2, false, out);
    }
    out += "\n" + std::string(indent, ' ') + "}";
    return;
  }
  const bool scalars =
      std::all_of(n.items.begin(), n.items.end(), [](const Node& item) { return item.kind == Node::kToken; });
  out += "[";
  std::size_t line = kLineWidth;  // columns used on the current line
  for (std::size_t i = 0; i < n.items.size(); ++i) {
    const Node& item = n.items[i];
    const std::size_t width = inline_width(item, kLineWidth);
    if (!scalars || line + 2 + width > kLineWidth) {
      out += (i > 0 ? ",\n" : "\n") + inner;
      line = inner.size();
    } else {
      out += ", ";
      line += 2;
    }
    print(item, indent + 2, line, false, out);
    line += width;
  }
  out += "\n" + std::string(indent, ' ') + "]";
}

std::string integer_token(__int128 v) {
  // corpus/README.md: beyond 2^53 in magnitude, a decimal string.
  constexpr __int128 kExact = __int128{1} << 53;
  std::string digits;
  const bool negative = v < 0;
  __int128 m = v;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -(m % 10) : m % 10)));
    m /= 10;
  } while (m != 0);
  if (negative) digits.insert(digits.begin(), '-');
  return (v > kExact || v < -kExact) ? "\"" + digits + "\"" : digits;
}

// A JSON number when finite, else the spelling as a JSON string.
std::string float_token(std::uint64_t bits, FloatFormat f) {
  const std::string spelling = float_spelling(bits, f);
  return is_nan_bits(bits, f) || is_inf_bits(bits, f) ? "\"" + spelling + "\"" : spelling;
}

std::string string_token(const std::string& bytes) {
  try {
    return nlohmann::json(bytes).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  } catch (const nlohmann::json::type_error&) {  // not UTF-8
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned char c : bytes) hex += {kHex[c >> 4], kHex[c & 0xf]};
    return "{\"hex\": \"" + hex + "\"}";
  }
}

template <class T>
std::string element_token(const T& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (std::is_integral_v<T>)
    return integer_token(v);
  else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> || std::is_same_v<T, qint32>)
    return integer_token(v.value);
  else if constexpr (std::is_same_v<T, float16>)
    return float_token(v.bits, kFloat16);
  else if constexpr (std::is_same_v<T, bfloat16>)
    return float_token(v.bits, kBFloat16);
  else if constexpr (std::is_same_v<T, float>)
    return float_token(std::bit_cast<std::uint32_t>(v), kFloat32);
  else if constexpr (std::is_same_v<T, double>)
    return float_token(std::bit_cast<std::uint64_t>(v), kFloat64);
  else if constexpr (std::is_same_v<T, std::string>)
    return string_token(v);
  else
    return "[" + element_token(v.real()) + ", " + element_token(v.imag()) + "]";  // complex
}

// The elements of `t` (all, or only the first) as tokens, in row-major order.
Node elements_node(const Tensor& t, bool first_only = false) {
  Node data = Node::array();
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (const T& v : t.values<T>()) {
      data.items.push_back(Node::of(element_token(v)));
      if (first_only) break;
    }
  });
  return data;
}

bool all_elements_equal(const Tensor& t) {
  if (t.dtype() == DType::kString) {
    auto values = t.values<std::string>();
    return std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values[0]; });
  }
  const std::size_t size = dtype_storage_size(t.dtype());
  const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
  for (std::int64_t i = 1; i < t.num_elements(); ++i)
    if (std::memcmp(bytes, bytes + i * size, size) != 0) return false;
  return true;
}

Node tensor_node(const Tensor& t) {
  Node node = Node::object();
  node.add("dtype", Node::of(Node::quote(dtype_name(t.dtype()))));
  Node shape = Node::array();
  for (std::int64_t d : t.shape()) shape.items.push_back(Node::of(integer_token(d)));
  node.add("shape", std::move(shape));
  if (t.num_elements() > kFillThreshold && all_elements_equal(t)) {
    node.add("fill", std::move(elements_node(t, true).items[0]));
  } else {
    node.add("data", elements_node(t));
  }
  return node;
}

Node value_node(const Value& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) return tensor_node(*t);
  Node list = Node::array();
  for (const Tensor& t : std::get<std::vector<Tensor>>(v)) list.items.push_back(tensor_node(t));
  return list;
}

// The values in the signature's order, then any others by name.
Node values_node(const Values& values, std::span<const Slot> slots) {
  Node node = Node::object();
  for (const Slot& slot : slots)
    if (auto it = values.find(std::string(slot.name)); it != values.end()) node.add(slot.name, value_node(it->second));
  for (const auto& entry : values)  // no structured binding: clang 14 cannot capture one
    if (std::none_of(slots.begin(), slots.end(), [&](const Slot& s) { return s.name == entry.first; }))
      node.add(entry.first, value_node(entry.second));
  return node;
}

Node rule_node(const UnspecifiedRule& rule) {
  Node node = Node::object();
  if (const auto* p = std::get_if<PermutationWithinEqualKeys>(&rule)) {
    node.add("rule", Node::of("\"permutation_within_equal_keys\""));
    node.add("keys", Node::of(Node::quote(p->keys)));
    node.add("values", Node::of(Node::quote(p->values)));
    return node;
  }
  const auto& one_of = std::get<OneOfRows>(rule);
  node.add("rule", Node::of("\"one_of_rows\""));
  node.add("output", Node::of(Node::quote(one_of.output)));
  Node rows = Node::object();
  for (const auto& [row, alternatives] : one_of.rows) {
    Node list = Node::array();
    for (const Tensor& alternative : alternatives) list.items.push_back(elements_node(alternative));
    rows.add(std::to_string(row), std::move(list));
  }
  node.add("rows", std::move(rows));
  return node;
}

// {"outputs": ..., "unspecified": ...} or {"error": ...}.
Node outcome_node(const Expected& outcome, const OpSignature& signature) {
  Node node = Node::object();
  if (outcome.error) {
    Node error = Node::object();
    error.add("code", Node::of(Node::quote(code_name(outcome.error->code()))));
    error.add("message", Node::of(string_token(outcome.error->message())));
    node.add("error", std::move(error));
    return node;
  }
  node.add("outputs", values_node(outcome.outputs, signature.outputs));
  if (!outcome.unspecified.empty()) {
    Node rules = Node::array();
    for (const UnspecifiedRule& rule : outcome.unspecified) rules.items.push_back(rule_node(rule));
    node.add("unspecified", std::move(rules));
  }
  return node;
}

}  // namespace

std::string to_json(const Case& c) {
  const OpSignature& signature = op_signature(c.op);
  Node root = Node::object();
  root.add("format", Node::of(Node::quote(kFormatName)));
  root.add("op", Node::of(Node::quote(op_name(c.op))));
  if (!c.attrs.empty() || !c.string_attrs.empty()) {
    Node attrs = Node::object();
    for (const auto& [name, value] : c.attrs) attrs.add(name, Node::of(integer_token(value)));
    for (const auto& [name, value] : c.string_attrs) attrs.add(name, Node::of(Node::quote(value)));
    root.add("attrs", std::move(attrs));
  }
  root.add("inputs", values_node(c.inputs, signature.inputs));
  root.add("expected", outcome_node(c.expected, signature));
  if (!c.alternatives.empty()) {
    Node alternatives = Node::array();
    for (const Alternative& a : c.alternatives) {
      Node node = Node::object();
      Node profiles = Node::array();
      for (const std::string& p : a.profiles) profiles.items.push_back(Node::of(Node::quote(p)));
      node.add("profiles", std::move(profiles));
      node.add("outcome", outcome_node(a.outcome, signature));
      node.add("why", Node::of(string_token(a.why)));
      alternatives.items.push_back(std::move(node));
    }
    root.add("alternatives", std::move(alternatives));
  }
  if (c.memory_limit != kDefaultMemoryLimit) root.add("memory_limit", Node::of(integer_token(c.memory_limit)));
  if (c.profile != "tf-cpu") root.add("profile", Node::of(Node::quote(c.profile)));
  if (!c.tags.empty()) {
    Node tags = Node::array();
    for (const std::string& tag : c.tags) tags.items.push_back(Node::of(string_token(tag)));
    root.add("tags", std::move(tags));
  }
  if (!c.provenance.empty()) root.add("provenance", Node::of(string_token(c.provenance)));
  if (!c.name.empty()) root.add("name", Node::of(string_token(c.name)));
  std::string out;
  print(root, 0, 0, true, out);
  return out + "\n";
}

Status save_case_file(const Case& c, const std::filesystem::path& path) {
  try {
    const std::string text = to_json(c);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return invalid_argument(path.string(), ": cannot write");
    return Status();
  } catch (const std::exception& e) {
    return invalid_argument(path.string(), ": cannot write: ", e.what());
  }
}

}  // namespace opconform::conformance
