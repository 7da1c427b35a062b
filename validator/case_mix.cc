#include "opconform/validator/case_mix.h"

#include <algorithm>
#include <limits>

namespace opconform::validator {

namespace {

using generators::GeneratedCase;

constexpr int kMaxLog2Elements = 16;                               // targets up to 2^16 elements
constexpr std::int64_t kMaxGrownElements = std::int64_t{1} << 17;  // a grown case stays below
constexpr std::int64_t kMaxGrownBytes = std::int64_t{8} << 20;
constexpr int kEmptyRedraws = 30;  // draws to get an empty or a non-empty output, as wanted

// T of the case: the dtype of (the first tensor of) its data input.
DType data_dtype(const conformance::Case& c) {
  const Value& data = c.inputs.at(std::string(data_input(op_info(c.op)).name));
  if (const Tensor* t = std::get_if<Tensor>(&data)) return t->dtype();
  return std::get<std::vector<Tensor>>(data).at(0).dtype();
}

// How many distinct values a payload of `dtype` holds (payload.h).
std::int64_t distinct_values(DType dtype) {
  switch (dtype) {
    case DType::kBool: return 2;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kQInt8:
    case DType::kQUInt8: return 250;
    case DType::kFloat16: return 7000;
    case DType::kBFloat16: return 15000;
    default: return std::numeric_limits<std::int64_t>::max();
  }
}

// 2^u elements, u uniform in [0, 16]; three times in four no more than `dtype` has distinct
// values, so that a wrong index cannot hide behind an equal value.
std::int64_t draw_target(DType dtype) {
  std::int64_t target = std::int64_t{1} << *rc::gen::inRange(0, kMaxLog2Elements + 1);
  if (target > distinct_values(dtype) && *rc::gen::weightedElement<bool>({{3, true}, {1, false}}))
    target = distinct_values(dtype);
  return target;
}

bool small_enough(const conformance::Case& c) {
  const auto outputs = generators::predicted_outputs(c);
  if (!outputs) return false;
  const std::int64_t bytes = generators::predicted_request_bytes(*outputs);
  const std::int64_t elements = data_output_elements(c);
  return bytes >= 0 && bytes <= kMaxGrownBytes && elements >= 0 && elements <= kMaxGrownElements;
}

// Applies `visit` to the input `value`: the tensor, or each member of the list.
template <typename Visit>
void each_tensor(const Value& value, Visit visit) {
  if (const Tensor* t = std::get_if<Tensor>(&value))
    visit(*t);
  else
    for (const Tensor& m : std::get<std::vector<Tensor>>(value)) visit(m);
}

// The largest dim of any input tensor, or held in an input whose values are dims
// (OpInfo::dims_inputs: SparseConcat's dense shapes).
std::int64_t largest_dim(const conformance::Case& c) {
  std::int64_t largest = 0;
  for (std::string_view name : op_info(c.op).dims_inputs)
    if (auto it = c.inputs.find(std::string(name)); it != c.inputs.end())
      each_tensor(it->second, [&](const Tensor& dims) {
        for (std::int64_t i = 0; i < dims.num_elements(); ++i) largest = std::max(largest, dims.index_value(i));
      });
  for (const auto& [name, value] : c.inputs)
    each_tensor(value, [&](const Tensor& t) {
      for (std::int64_t d : t.shape()) largest = std::max(largest, d);
    });
  return largest;
}

}  // namespace

std::int64_t data_output_elements(const conformance::Case& c) {
  const auto outputs = generators::predicted_outputs(c);
  if (!outputs) return -1;
  if (outputs->empty()) return generators::input_tensor(c, "input").num_elements();  // the identity path
  // The outputs of dtype T (PredictedOutput lists them in signature order, list members one by one).
  std::int64_t total = 0;
  std::size_t next = 0;
  for (const Slot& slot : op_signature(c.op).outputs) {
    const std::size_t count = slot.is_list ? outputs->size() - next : 1;  // a list output is the last
    for (std::size_t i = 0; i < count && next < outputs->size(); ++i, ++next)
      if (slot.dtype_role == "T") {
        const std::int64_t elements = checked_num_elements((*outputs)[next].shape);
        if (elements < 0) return -1;
        total += elements;
      }
  }
  return total;
}

rc::Gen<GeneratedCase> sized_valid_case(Op op) {
  return rc::gen::resize(
      kValidatorCaseSize, rc::gen::exec([op] {
        // Empty outputs find no value bug, but they are where 32-bit and wrapping shape arithmetic
        // goes wrong without touching memory: one case in ten is empty on purpose, half of those
        // "huge but empty" (a dim of 2^31 or more around the zero); the others are drawn until their
        // output is not empty.
        const int want = *rc::gen::weightedElement<int>({{18, 0}, {1, 1}, {1, 2}});  // non-empty, empty, huge
        const auto wanted = [want](const conformance::Case& c) {
          const bool empty = data_output_elements(c) == 0;
          return want == 0 ? !empty : empty && (want == 1 || largest_dim(c) > std::numeric_limits<std::int32_t>::max());
        };
        GeneratedCase g = *generators::valid_case(op);
        for (int attempt = 0; attempt < kEmptyRedraws && !wanted(g.c); ++attempt) g = *generators::valid_case(op);
        const std::int64_t elements = data_output_elements(g.c);
        if (elements <= 0) return g;
        const std::int64_t target = draw_target(data_dtype(g.c));
        if (target <= elements) return g;
        GeneratedCase grown = g;
        generators::grow_valid_case(grown.c, (target + elements - 1) / elements);
        return small_enough(grown.c) ? grown : g;
      }));
}

rc::Gen<GeneratedCase> validator_case(Op op) {
  return rc::gen::oneOf(sized_valid_case(op), generators::any_invalid_case(op));
}

}  // namespace opconform::validator
