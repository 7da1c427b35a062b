#include "opconform/conformance/compare.h"

#include <algorithm>
#include <cstring>

#include "opconform/conformance/format.h"

namespace opconform::conformance {

namespace {

constexpr std::int64_t kRowDisplay = 16;  // elements shown per row in messages

Judgement fail(std::string detail) { return {false, std::move(detail)}; }

bool element_equal(const Tensor& a, const Tensor& b, std::int64_t i) {
  if (a.dtype() == DType::kString) return a.data<std::string>()[i] == b.data<std::string>()[i];
  const std::size_t size = dtype_storage_size(a.dtype());
  return std::memcmp(static_cast<const char*>(a.raw_data()) + i * size,
                     static_cast<const char*>(b.raw_data()) + i * size, size) == 0;
}

// Row `row` (dim 0) of t as bytes that are equal exactly when the rows' bits are.
std::string row_bytes(const Tensor& t, std::int64_t row, std::int64_t row_size) {
  if (t.dtype() == DType::kString) {
    std::string out;
    for (std::int64_t i = row * row_size; i < (row + 1) * row_size; ++i) {
      const std::string& s = t.data<std::string>()[i];
      const std::uint64_t length = s.size();
      out.append(reinterpret_cast<const char*>(&length), sizeof length).append(s);
    }
    return out;
  }
  const std::size_t size = dtype_storage_size(t.dtype()) * static_cast<std::size_t>(row_size);
  return std::string(static_cast<const char*>(t.raw_data()) + row * size, size);
}

// A row as "[1, 2]", or as the bare element when rows are scalars.
std::string row_text(const Tensor& t, std::int64_t row, std::int64_t row_size, bool scalar_rows) {
  if (scalar_rows) return format_element(t, row);
  std::string out = "[";
  for (std::int64_t i = 0; i < row_size; ++i) {
    if (i > 0) out += ", ";
    if (i == kRowDisplay) {
      out += "...";
      break;
    }
    out += format_element(t, row * row_size + i);
  }
  return out + "]";
}

std::int64_t row_size_of(const Tensor& t) { return t.rank() == 0 || t.dim(0) == 0 ? 0 : t.num_elements() / t.dim(0); }

Judgement compare_header(const Tensor& expected, const Tensor& actual, std::string_view label) {
  if (expected.dtype() != actual.dtype())
    return fail(str_cat(label, ": dtype ", dtype_name(actual.dtype()), ", expected ", dtype_name(expected.dtype())));
  if (expected.shape() != actual.shape())
    return fail(
        str_cat(label, ": shape ", shape_string(actual.shape()), ", expected ", shape_string(expected.shape())));
  return {};
}

// Elements [begin, end) bit for bit.
Judgement compare_elements(const Tensor& expected, const Tensor& actual, std::string_view label, std::int64_t begin,
                           std::int64_t end) {
  std::int64_t first = -1, differing = 0;
  for (std::int64_t i = begin; i < end; ++i) {
    if (element_equal(expected, actual, i)) continue;
    if (first < 0) first = i;
    ++differing;
  }
  if (first < 0) return {};
  return fail(str_cat(label, ": ", differing, " of ", end - begin, " elements differ; first at ",
                      format_coordinate(expected.shape(), first), ": expected ", format_element(expected, first),
                      ", got ", format_element(actual, first)));
}

// one_of_rows: each row equals the expected row, or (listed rows) one of the alternatives.
Judgement compare_rows(const Tensor& expected, const Tensor& actual, std::string_view label,
                       const std::map<std::int64_t, std::vector<const Tensor*>>& allowed) {
  const std::int64_t row_size = row_size_of(expected);
  for (std::int64_t row = 0; row_size > 0 && row < expected.dim(0); ++row) {
    const std::int64_t begin = row * row_size, end = begin + row_size;
    Judgement exact = compare_elements(expected, actual, label, begin, end);
    if (exact.pass) continue;
    auto it = allowed.find(row);
    if (it == allowed.end()) return exact;
    const std::string got = row_bytes(actual, row, row_size);
    const auto& alternatives = it->second;
    if (std::any_of(alternatives.begin(), alternatives.end(),
                    [&](const Tensor* a) { return row_bytes(*a, 0, row_size) == got; }))
      continue;
    const bool scalar = expected.rank() == 1;
    std::string allowed_rows = row_text(expected, row, row_size, scalar);
    const std::string expected_bytes = row_bytes(expected, row, row_size);
    for (const Tensor* a : alternatives)
      if (row_bytes(*a, 0, row_size) != expected_bytes) allowed_rows += " or " + row_text(*a, 0, row_size, scalar);
    return fail(str_cat(label, ": row ", row, " is ", row_text(actual, row, row_size, scalar), ", expected one of ",
                        allowed_rows));
  }
  return {};
}

// permutation_within_equal_keys: inside each run of equal `keys` rows, the rows of `values`
// compare as multisets.
Judgement compare_permuted(const Tensor& expected, const Tensor& actual, std::string_view label, const Tensor& keys,
                           std::string_view keys_name) {
  const std::int64_t row_size = row_size_of(expected);
  const std::int64_t key_size = row_size_of(keys);
  const std::int64_t rows = expected.rank() == 0 ? 0 : expected.dim(0);
  for (std::int64_t begin = 0, end = 0; begin < rows; begin = end) {
    const std::string key = row_bytes(keys, begin, key_size);
    for (end = begin + 1; end < rows && row_bytes(keys, end, key_size) == key;) ++end;
    std::vector<std::string> want, got;
    for (std::int64_t r = begin; r < end; ++r) {
      want.push_back(row_bytes(expected, r, row_size));
      got.push_back(row_bytes(actual, r, row_size));
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (want == got) continue;
    if (end - begin == 1) return compare_elements(expected, actual, label, begin * row_size, end * row_size);
    std::string got_rows, want_rows;
    for (std::int64_t r = begin; r < end; ++r) {
      got_rows += (r > begin ? ", " : "") + row_text(actual, r, row_size, expected.rank() == 1);
      want_rows += (r > begin ? ", " : "") + row_text(expected, r, row_size, expected.rank() == 1);
    }
    return fail(str_cat(label, ": rows ", begin, " to ", end - 1, " (equal ", keys_name, " row ",
                        row_text(keys, begin, key_size, keys.rank() == 1), ") are {", got_rows,
                        "}, expected these in any order: {", want_rows, "}"));
  }
  return {};
}

Judgement compare_output(const Expected& want, const std::string& name, const Tensor& expected, const Tensor& actual) {
  if (Judgement header = compare_header(expected, actual, name); !header.pass) return header;
  std::map<std::int64_t, std::vector<const Tensor*>> allowed_rows;
  for (const UnspecifiedRule& rule : want.unspecified) {
    if (const auto* p = std::get_if<PermutationWithinEqualKeys>(&rule); p && p->values == name) {
      auto keys = want.outputs.find(p->keys);
      const Tensor* key_tensor = keys == want.outputs.end() ? nullptr : std::get_if<Tensor>(&keys->second);
      if (key_tensor && key_tensor->rank() > 0 && expected.rank() > 0 && key_tensor->dim(0) == expected.dim(0))
        return compare_permuted(expected, actual, name, *key_tensor, p->keys);
    }
    if (const auto* one_of = std::get_if<OneOfRows>(&rule); one_of && one_of->output == name)
      for (const auto& [row, alternatives] : one_of->rows)
        for (const Tensor& a : alternatives)
          if (a.dtype() == expected.dtype() && a.num_elements() == row_size_of(expected))
            allowed_rows[row].push_back(&a);
  }
  if (!allowed_rows.empty()) return compare_rows(expected, actual, name, allowed_rows);
  return compare_elements(expected, actual, name, 0, expected.num_elements());
}

Judgement compare_outputs(const Expected& want, const Values& actual) {
  for (const auto& [name, value] : actual)
    if (!want.outputs.count(name)) return fail(str_cat("unexpected output '", name, "'"));
  for (const auto& [name, expected] : want.outputs) {
    auto it = actual.find(name);
    if (it == actual.end()) return fail(str_cat("missing output '", name, "'"));
    if (const Tensor* e = std::get_if<Tensor>(&expected)) {
      const Tensor* a = std::get_if<Tensor>(&it->second);
      if (!a) return fail(str_cat(name, ": a list, expected one tensor"));
      if (Judgement r = compare_output(want, name, *e, *a); !r.pass) return r;
      continue;
    }
    const auto& expected_list = std::get<std::vector<Tensor>>(expected);
    const auto* actual_list = std::get_if<std::vector<Tensor>>(&it->second);
    if (!actual_list) return fail(str_cat(name, ": one tensor, expected a list"));
    if (actual_list->size() != expected_list.size())
      return fail(str_cat(name, ": ", actual_list->size(), " tensors, expected ", expected_list.size()));
    for (std::size_t i = 0; i < expected_list.size(); ++i)
      if (Judgement r = compare_tensors(expected_list[i], (*actual_list)[i], str_cat(name, "[", i, "]")); !r.pass)
        return r;
  }
  return {};
}

// The outcome against one allowed outcome; `code_only_message`: the case is tagged
// message:code-only.
Judgement compare_with(const Expected& want, bool code_only_message, const Outcome& actual, Strictness strictness) {
  if (!actual.status.ok() && actual.wrote_outputs_on_error)
    return fail("the op returned " + actual.status.to_string() +
                " but replaced its outputs (they must stay untouched on error)");
  if (want.error) {
    const Status& error = *want.error;
    if (actual.status.ok()) return fail("expected error " + error.to_string() + ", but the op succeeded");
    if (actual.status.code() != error.code())
      return fail("expected error " + error.to_string() + ", got " + actual.status.to_string());
    if (strictness == Strictness::kStrict && !code_only_message && actual.status.message() != error.message())
      return fail(str_cat("message differs (code ", code_name(error.code()),
                          " matches):\n  expected: ", error.message(), "\n  actual:   ", actual.status.message()));
    return {};
  }
  if (!actual.status.ok()) return fail("expected outputs, got error " + actual.status.to_string());
  return compare_outputs(want, actual.outputs);
}

}  // namespace

Judgement compare_tensors(const Tensor& expected, const Tensor& actual, std::string_view label) {
  if (Judgement header = compare_header(expected, actual, label); !header.pass) return header;
  return compare_elements(expected, actual, label, 0, expected.num_elements());
}

Judgement compare(const Case& c, const Outcome& actual, Strictness strictness) {
  return compare_with(c.expected, c.has_tag("message:code-only"), actual, strictness);
}

Allowed compare_allowed(const Case& c, const Outcome& actual, std::string_view profile, Strictness strictness) {
  Allowed result{compare(c, actual, strictness), nullptr};
  if (result.judgement.pass) return result;
  for (const Alternative& a : c.alternatives) {
    if (!a.allows(profile) || !compare_with(a.outcome, c.has_tag("message:code-only"), actual, strictness).pass)
      continue;
    result.judgement = {};
    result.alternative = &a;
    break;
  }
  return result;
}

Expected expected_from(const Outcome& outcome) {
  Expected expected;
  if (outcome.status.ok())
    expected.outputs = outcome.outputs;
  else
    expected.error = outcome.status;
  return expected;
}

}  // namespace opconform::conformance
