#include "opconform/validator/case_mix.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "opconform/generators/payload.h"

namespace opconform::validator {

namespace {

using generators::GeneratedCase;

constexpr int kMaxLog2Elements = 16;                            // targets up to 2^16 elements
constexpr std::int64_t kMaxGrownElements = std::int64_t{1} << 17;  // a grown case stays below
constexpr std::int64_t kMaxGrownBytes = std::int64_t{8} << 20;
constexpr int kEmptyRedraws = 30;  // draws to get an empty or a non-empty output, as wanted

Tensor& tensor(conformance::Case& c, const char* name) { return std::get<Tensor>(c.inputs.at(name)); }
std::vector<Tensor>& list(conformance::Case& c, const char* name) {
  return std::get<std::vector<Tensor>>(c.inputs.at(name));
}

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

Shape with_trailing(Shape shape, std::int64_t dim) {
  shape.push_back(dim);
  return shape;
}

// SpaceToBatchND, BatchToSpaceND: `times` the input along the batch, along one spatial dim (by
// whole blocks for SpaceToBatchND, so the padded size stays divisible), or along a new trailing
// dim; validity is kept by construction.
void grow_space_batch(conformance::Case& c, std::int64_t times) {
  Tensor& input = tensor(c, "input");
  const std::vector<std::int64_t> block = generators::index_values(tensor(c, "block_shape"));
  Shape shape = input.shape();
  const int m = static_cast<int>(block.size());
  const int way = *rc::gen::inRange(0, 3);
  if (way == 0) {
    const std::int64_t unit = c.op == Op::kSpaceToBatchND
                                  ? 1
                                  : std::accumulate(block.begin(), block.end(), std::int64_t{1},
                                                    [](std::int64_t a, std::int64_t b) { return a * b; });
    shape[0] = std::max(shape[0], unit) * times;
  } else if (way == 1 && m > 0) {
    const int i = *rc::gen::inRange(0, m);
    std::int64_t& size = shape[1 + i];
    if (c.op == Op::kSpaceToBatchND) size += block[i] * std::max<std::int64_t>(1, (size * (times - 1)) / block[i]);
    else size = std::max<std::int64_t>(1, size) * times;
  } else {
    shape.push_back(times);
  }
  input = *generators::gen_payload(input.dtype(), shape);
}

// DynamicStitch, ParallelDynamicStitch: wider rows (a trailing dim on every data member), or
// `times` as many positions with fresh indices: a permutation of a slightly larger range of rows
// (gaps), now and then with repeats (duplicates, across lists too), split over the lists.
void grow_stitch(conformance::Case& c, std::int64_t times) {
  auto& indices = list(c, "indices");
  auto& data = list(c, "data");
  const DType dtype = data[0].dtype();
  std::vector<Shape> shapes;
  if (*rc::gen::arbitrary<bool>()) {
    for (const Tensor& d : data) shapes.push_back(with_trailing(d.shape(), times));
    data = *generators::gen_payloads(dtype, shapes);
    return;
  }
  const Shape trailing(data[0].shape().begin() + indices[0].rank(), data[0].shape().end());
  std::int64_t before = 0;
  for (const Tensor& t : indices) before += t.num_elements();
  const std::int64_t total = std::max<std::int64_t>(1, before) * times;
  const std::int64_t rows = total + *rc::gen::inRange<std::int64_t>(0, total / 8 + 2);
  std::vector<std::int64_t> values(static_cast<std::size_t>(rows));
  std::iota(values.begin(), values.end(), 0);
  std::mt19937_64 engine(*rc::gen::inRange<std::uint32_t>(0, 1u << 30));
  std::shuffle(values.begin(), values.end(), engine);
  values.resize(static_cast<std::size_t>(total));
  if (*rc::gen::weightedElement<bool>({{1, true}, {3, false}}))  // duplicates
    for (std::size_t i = 0; i < values.size(); i += 1 + engine() % 7) values[i] = values[engine() % values.size()];
  std::int64_t next = 0;
  for (std::size_t m = 0; m < indices.size(); ++m) {
    const std::int64_t left = total - next;
    const std::int64_t count = m + 1 == indices.size() ? left : *rc::gen::inRange<std::int64_t>(0, left + 1);
    indices[m] = generators::index_tensor(DType::kInt32, {count},
                                          std::vector<std::int64_t>(values.begin() + next, values.begin() + next + count));
    Shape s = {count};
    s.insert(s.end(), trailing.begin(), trailing.end());
    shapes.push_back(s);
    next += count;
  }
  data = *generators::gen_payloads(dtype, shapes);
}

// DynamicPartition: wider slices (a trailing dim on data), or `times` as many positions with
// fresh partition values.
void grow_partition(conformance::Case& c, std::int64_t times) {
  Tensor& data = tensor(c, "data");
  Tensor& partitions = tensor(c, "partitions");
  if (*rc::gen::arbitrary<bool>()) {
    data = *generators::gen_payload(data.dtype(), with_trailing(data.shape(), times));
    return;
  }
  const Shape slice(data.shape().begin() + partitions.rank(), data.shape().end());
  const std::int64_t n = std::max<std::int64_t>(1, partitions.num_elements()) * times;
  const std::int64_t k = c.attrs.at("num_partitions");
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  std::mt19937_64 engine(*rc::gen::inRange<std::uint32_t>(0, 1u << 30));
  for (auto& v : values) v = static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(k));
  partitions = generators::index_tensor(DType::kInt32, {n}, values);
  Shape shape = {n};
  shape.insert(shape.end(), slice.begin(), slice.end());
  data = *generators::gen_payload(data.dtype(), shape);
}

// SparseConcat: every input's entries `times` over (in blocks, which unsorts them, or row by row),
// with fresh values.
void grow_sparse(conformance::Case& c, std::int64_t times) {
  auto& indices = list(c, "indices");
  auto& values = list(c, "values");
  const bool row_by_row = *rc::gen::arbitrary<bool>();
  std::vector<Shape> shapes;
  for (Tensor& m : indices) {
    const std::int64_t n = m.dim(0), r = m.dim(1);
    Tensor out(DType::kInt64, {n * times, r});
    for (std::int64_t k = 0; k < n * times; ++k)
      std::copy_n(m.data<std::int64_t>() + (row_by_row ? k / times : k % n) * r, r, out.data<std::int64_t>() + k * r);
    m = std::move(out);
    shapes.push_back({m.dim(0)});
  }
  values = *generators::gen_payloads(values[0].dtype(), shapes);
}

// An op whose one input is its data and whose dim 0 is a free batch (SpaceToDepth,
// DepthToSpace): `times` the batch, with a fresh payload; validity is kept.
void grow_batch(conformance::Case& c, std::int64_t times) {
  const OpSignature& signature = op_signature(c.op);
  if (signature.inputs.size() != 1 || signature.inputs[0].is_list) return;  // no free batch known
  Tensor& input = tensor(c, std::string(signature.inputs[0].name).c_str());
  if (input.rank() == 0) return;
  Shape shape = input.shape();
  shape[0] = std::max<std::int64_t>(1, shape[0]) * times;
  input = *generators::gen_payload(input.dtype(), shape);
}

void grow(conformance::Case& c, std::int64_t times) {
  switch (c.op) {
    case Op::kSpaceToBatchND:
    case Op::kBatchToSpaceND: grow_space_batch(c, times); break;
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: grow_stitch(c, times); break;
    case Op::kDynamicPartition: grow_partition(c, times); break;
    case Op::kSparseConcat: grow_sparse(c, times); break;
    default: grow_batch(c, times); break;
  }
}

bool small_enough(const conformance::Case& c) {
  const auto outputs = generators::predicted_outputs(c);
  if (!outputs) return false;
  const std::int64_t bytes = generators::predicted_request_bytes(*outputs);
  const std::int64_t elements = data_output_elements(c);
  return bytes >= 0 && bytes <= kMaxGrownBytes && elements >= 0 && elements <= kMaxGrownElements;
}

// The largest dim of any input tensor, or of SparseConcat's dense shapes.
std::int64_t largest_dim(const conformance::Case& c) {
  std::int64_t largest = 0;
  const auto visit = [&](const Tensor& t) {
    for (std::int64_t d : t.shape()) largest = std::max(largest, d);
  };
  if (c.op == Op::kSparseConcat)
    for (const Tensor& shape : generators::input_list(c, "shapes"))
      for (std::int64_t i = 0; i < shape.num_elements(); ++i) largest = std::max(largest, shape.index_value(i));
  for (const auto& [name, value] : c.inputs) {
    if (const Tensor* t = std::get_if<Tensor>(&value)) visit(*t);
    else for (const Tensor& m : std::get<std::vector<Tensor>>(value)) visit(m);
  }
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
  return rc::gen::resize(kValidatorCaseSize, rc::gen::exec([op] {
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
    grow(grown.c, (target + elements - 1) / elements);
    return small_enough(grown.c) ? grown : g;
  }));
}

rc::Gen<GeneratedCase> validator_case(Op op) {
  return rc::gen::oneOf(sized_valid_case(op), generators::any_invalid_case(op));
}

}  // namespace opconform::validator
