#include "opconform/conformance/format.h"

#include <algorithm>
#include <bit>

#include "opconform/conformance/floats.h"

namespace opconform::conformance {

namespace {

// As the vector format spells it, a non-canonical NaN as "nan(0x...)".
std::string float_text(std::uint64_t bits, FloatFormat f) {
  const std::string spelling = float_spelling(bits, f);
  return is_nan_bits(bits, f) && spelling != "nan" ? "nan(" + spelling + ")" : spelling;
}

std::string string_text(const std::string& bytes) {
  constexpr std::size_t kMaxBytes = 80;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < bytes.size() && i < kMaxBytes; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '"' || c == '\\')
      out += {'\\', static_cast<char>(c)};
    else if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 0xf]};
  }
  out += '"';
  if (bytes.size() > kMaxBytes) out += "...(" + std::to_string(bytes.size()) + " bytes)";
  return out;
}

template <class T>
std::string element_text(const T& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (std::is_integral_v<T>)
    return std::to_string(v);
  else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> || std::is_same_v<T, qint32>)
    return std::to_string(v.value);
  else if constexpr (std::is_same_v<T, float16>)
    return float_text(v.bits, kFloat16);
  else if constexpr (std::is_same_v<T, bfloat16>)
    return float_text(v.bits, kBFloat16);
  else if constexpr (std::is_same_v<T, float>)
    return float_text(std::bit_cast<std::uint32_t>(v), kFloat32);
  else if constexpr (std::is_same_v<T, double>)
    return float_text(std::bit_cast<std::uint64_t>(v), kFloat64);
  else if constexpr (std::is_same_v<T, std::string>)
    return string_text(v);
  else
    return "(" + element_text(v.real()) + ", " + element_text(v.imag()) + ")";  // complex
}

// Nested brackets over dims [dim, rank); `budget` counts elements (and empty sub-arrays) left.
void nested(const Tensor& t, int dim, std::int64_t offset, std::int64_t& budget, std::string& out) {
  if (dim == t.rank()) {
    out += format_element(t, offset);
    --budget;
    return;
  }
  const std::int64_t stride = checked_num_elements(std::span(t.shape()).subspan(dim + 1));
  out += '[';
  for (std::int64_t i = 0; i < t.dim(dim); ++i) {
    if (i > 0) out += ", ";
    if (budget <= 0) {
      out += "...";
      break;
    }
    if (stride == 0) --budget;
    nested(t, dim + 1, offset + i * stride, budget, out);
  }
  out += ']';
}

// Names in the order the signatures list them (inputs, then outputs, op by op); others after.
std::vector<const std::pair<const std::string, Value>*> in_signature_order(const Values& values) {
  std::vector<std::string_view> order;
  for (Op op : kAllOps) {
    const OpSignature& s = op_signature(op);
    for (auto slots : {s.inputs, s.outputs})
      for (const Slot& slot : slots)
        if (std::find(order.begin(), order.end(), slot.name) == order.end()) order.push_back(slot.name);
  }
  const auto rank = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  std::vector<const std::pair<const std::string, Value>*> sorted;
  for (const auto& entry : values) sorted.push_back(&entry);
  std::stable_sort(sorted.begin(), sorted.end(), [&](auto* a, auto* b) { return rank(a->first) < rank(b->first); });
  return sorted;
}

void append_tensor_line(const std::string& indent, const std::string& label, const Tensor& t, std::int64_t max_elements,
                        std::string& out) {
  out += indent + label + ": " + format_tensor(t, max_elements) + "\n";
}

}  // namespace

std::string format_element(const Tensor& t, std::int64_t index) {
  return visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return element_text(t.data<T>()[index]);
  });
}

std::string format_coordinate(const Shape& shape, std::int64_t index) {
  Shape coordinate(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) break;
    coordinate[d] = index % shape[d];
    index /= shape[d];
  }
  return shape_string(coordinate);
}

std::string format_tensor(const Tensor& t, std::int64_t max_elements) {
  std::string out = str_cat(dtype_name(t.dtype()), " ", shape_string(t.shape()), " ");
  std::int64_t budget = max_elements;
  nested(t, 0, 0, budget, out);
  return out;
}

std::string format_values(const Values& values, const std::string& indent, std::int64_t max_elements) {
  std::string out;
  for (const auto* entry : in_signature_order(values)) {
    const auto& [name, value] = *entry;
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      append_tensor_line(indent, name, *t, max_elements, out);
      continue;
    }
    const auto& list = std::get<std::vector<Tensor>>(value);
    if (list.empty()) out += indent + name + ": (empty list)\n";
    for (std::size_t i = 0; i < list.size(); ++i)
      append_tensor_line(indent, str_cat(name, "[", i, "]"), list[i], max_elements, out);
  }
  return out;
}

std::string format_outcome(const Outcome& outcome, const std::string& indent, std::int64_t max_elements) {
  if (!outcome.status.ok()) return indent + "error " + outcome.status.to_string() + "\n";
  return format_values(outcome.outputs, indent, max_elements);
}

namespace {

std::string format_allowed(const Expected& expected, bool code_only, const std::string& indent,
                           std::int64_t max_elements) {
  if (expected.error)
    return indent + "error " + expected.error->to_string() + (code_only ? "  (code only)" : "") + "\n";
  std::string out = format_values(expected.outputs, indent, max_elements);
  for (const UnspecifiedRule& rule : expected.unspecified) {
    if (const auto* p = std::get_if<PermutationWithinEqualKeys>(&rule)) {
      out += indent + "unspecified: " + p->values + " may be permuted within runs of equal " + p->keys + " rows\n";
      continue;
    }
    const auto& one_of = std::get<OneOfRows>(rule);
    for (const auto& [row, alternatives] : one_of.rows) {
      out += str_cat(indent, "unspecified: ", one_of.output, " row ", row, " may also be");
      for (std::size_t a = 0; a < alternatives.size(); ++a) {
        std::int64_t budget = max_elements;
        out += a == 0 ? " " : " or ";
        nested(alternatives[a], 0, 0, budget, out);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace

std::string format_expected(const Case& c, const std::string& indent, std::int64_t max_elements) {
  const bool code_only = c.has_tag("message:code-only");
  std::string out = format_allowed(c.expected, code_only, indent, max_elements);
  for (const Alternative& a : c.alternatives) {
    std::string profiles;
    for (const std::string& p : a.profiles) profiles += (profiles.empty() ? "" : ", ") + p;
    out += indent + "or, under " + profiles + " (" + a.why + "):\n" +
           format_allowed(a.outcome, code_only, indent + "  ", max_elements);
  }
  return out;
}

std::string format_case(const Case& c, std::int64_t max_elements) {
  std::string out = "name: " + c.display_name() + "\n";
  if (!c.source.empty()) out += "file: " + c.source + "\n";
  out += str_cat("op: ", op_name(c.op), "\n");
  for (const auto& [name, value] : c.attrs) out += str_cat("attr ", name, ": ", value, "\n");
  out += "profile: " + c.profile + "\n";
  out += str_cat("memory_limit: ", c.memory_limit, "\n");
  out += "inputs:\n" + format_values(c.inputs, "  ", max_elements);
  out += "expected:\n" + format_expected(c, "  ", max_elements);
  std::string tags;
  for (const std::string& tag : c.tags) tags += (tags.empty() ? "" : ", ") + tag;
  if (!tags.empty()) out += "tags: " + tags + "\n";
  if (!c.provenance.empty()) out += "provenance: " + c.provenance + "\n";
  return out;
}

}  // namespace opconform::conformance
