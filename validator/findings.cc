#include "opconform/validator/findings.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "opconform/conformance/format.h"
#include "opconform/dtype.h"
#include "opconform/validator/plugin_host.h"

namespace opconform::validator {

namespace {

bool is_name_char(char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; }

bool same_element(const Tensor& a, const Tensor& b, std::int64_t i) {
  if (a.dtype() == DType::kString) return a.data<std::string>()[i] == b.data<std::string>()[i];
  const std::size_t size = dtype_storage_size(a.dtype());
  return std::memcmp(static_cast<const char*>(a.raw_data()) + i * size,
                     static_cast<const char*>(b.raw_data()) + i * size, size) == 0;
}

bool is_poison(const Tensor& t, std::int64_t i) {
  if (t.dtype() == DType::kString) return false;
  const std::size_t size = dtype_storage_size(t.dtype());
  const auto* bytes = static_cast<const std::uint8_t*>(t.raw_data()) + i * size;
  return std::all_of(bytes, bytes + size, [](std::uint8_t b) { return b == kPoisonByte; });
}

std::string never_written_text() {
  static const char* hex = "0123456789abcdef";
  const char byte[] = {hex[kPoisonByte >> 4], hex[kPoisonByte & 15], '\0'};
  return str_cat("never written (its bytes are still the poison 0x", byte, ")");
}

// The element-wise differences of two tensors of equal dtype and shape; "" when none differ.
std::string element_differences(const Tensor& expected, const Tensor& actual, const std::string& label, bool poison,
                                int max_shown) {
  std::vector<std::int64_t> shown;
  std::int64_t differing = 0;
  for (std::int64_t i = 0; i < expected.num_elements(); ++i) {
    if (same_element(expected, actual, i)) continue;
    if (static_cast<int>(shown.size()) < max_shown) shown.push_back(i);
    ++differing;
  }
  if (differing == 0) return "";
  std::string text = str_cat(label, ": ", differing, " of ", expected.num_elements(), " elements differ");
  for (std::int64_t i : shown) {
    const std::string got =
        poison && is_poison(actual, i) ? never_written_text() : conformance::format_element(actual, i);
    text += str_cat("\n  ", conformance::format_coordinate(expected.shape(), i), ": expected ",
                    conformance::format_element(expected, i), ", implementation ", got);
  }
  if (differing > static_cast<std::int64_t>(shown.size()))
    text += str_cat("\n  ... and ", differing - static_cast<std::int64_t>(shown.size()), " more");
  return text;
}

// The differences of one output pair, or "" when they are equal; `fallback` is set when they
// differ in a way this description does not cover (dtype, shape, member count).
std::string output_differences(const Tensor& expected, const Tensor& actual, const std::string& label, bool poison,
                               int max_shown, bool* fallback) {
  if (expected.dtype() != actual.dtype() || expected.shape() != actual.shape()) {
    *fallback = true;
    return "";
  }
  return element_differences(expected, actual, label, poison, max_shown);
}

}  // namespace

namespace {

bool is_word_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

// `text` with every dtype name (a whole word) replaced by "<dtype>".
std::string without_dtype_names(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (i == 0 || !is_word_char(text[i - 1])) {
      for (int d = 0; d < kNumDTypes && !replaced; ++d) {
        const std::string_view name = dtype_name(all_dtypes()[d]);
        const std::size_t end = i + name.size();
        if (text.substr(i, name.size()) == name && (end == text.size() || !is_word_char(text[end]))) {
          out += "<dtype>";
          i = end;
          replaced = true;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

// `text` with every bracketed list of blanked numbers ("[#]", "[#,#]", "[]", "[#:]") as "[…]".
std::string without_number_lists(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      const std::size_t close = text.find(']', i);
      if (close != std::string::npos && text.find_first_not_of("#,: -", i + 1) >= close) {
        out += "[…]";
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

}  // namespace

std::string message_template(std::string_view text) {
  return without_number_lists(blank_numbers(without_dtype_names(text)));
}

std::string blank_numbers(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool starts_number =
        std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !is_name_char(text[i - 1]));
    if (!starts_number || (!out.empty() && std::isdigit(static_cast<unsigned char>(out.back())))) {
      out += text[i++];
      continue;
    }
    if (text.substr(i, 2) == "0x") {
      out += "0x#";
      i += 2;
      while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    out += '#';
    while (i < text.size()) {
      const char ch = text[i];
      const bool exponent_sign = (ch == '-' || ch == '+') && (text[i - 1] == 'e' || text[i - 1] == 'E');
      if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != '.' && ch != 'e' && ch != 'E' && !exponent_sign) break;
      ++i;
    }
  }
  return out;
}

std::string describe_differences(const conformance::Case& c, const conformance::Values& actual, bool poison,
                                 int max_shown) {
  if (!c.expected.unspecified.empty()) return "";
  for (const auto& [name, expected] : c.expected.outputs) {
    auto it = actual.find(name);
    if (it == actual.end()) return "";
    bool fallback = false;
    std::string text;
    if (const Tensor* e = std::get_if<Tensor>(&expected)) {
      const Tensor* a = std::get_if<Tensor>(&it->second);
      if (a == nullptr) return "";
      text = output_differences(*e, *a, name, poison, max_shown, &fallback);
    } else {
      const auto& e_list = std::get<std::vector<Tensor>>(expected);
      const auto* a_list = std::get_if<std::vector<Tensor>>(&it->second);
      if (a_list == nullptr || a_list->size() != e_list.size()) return "";
      for (std::size_t k = 0; k < e_list.size() && text.empty() && !fallback; ++k)
        text = output_differences(e_list[k], (*a_list)[k], str_cat(name, "[", k, "]"), poison, max_shown, &fallback);
    }
    if (fallback) return "";
    if (!text.empty()) return text;
  }
  return "";
}

std::string signature(Op op, std::string_view outcome, std::string_view key) {
  return str_cat(op_name(op), " ", outcome, key.empty() ? "" : ": ", key);
}

std::pair<int, bool> FailureGroups::add(const std::string& signature, const std::string& case_name) {
  for (Group& g : groups_)
    if (g.signature == signature) {
      ++g.count;
      g.cases.push_back(case_name);
      return {g.id, false};
    }
  groups_.push_back(Group{static_cast<int>(groups_.size()) + 1, signature, 1, {case_name}});
  return {groups_.back().id, true};
}

bool FailureGroups::contains(const std::string& signature) const {
  return std::any_of(groups_.begin(), groups_.end(), [&](const Group& g) { return g.signature == signature; });
}

}  // namespace opconform::validator
