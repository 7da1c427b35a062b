#include "opconform/generators/dynamic_partition.h"

#include <algorithm>
#include <random>

#include "breakers.h"
#include "widen.h"
#include "opconform/generators/index_boundaries.h"
#include "opconform/generators/payload.h"
#include "check_generators.h"

namespace opconform::generators {
namespace {

// The checks (checks/dynamic_partition.inc): their enum and Check table.
enum class DynamicPartitionCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/dynamic_partition.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kDynamicPartitionChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/dynamic_partition.inc"
#undef OPCONFORM_CHECK
};
using PartitionCheck = DynamicPartitionCheck;
constexpr std::size_t kNumPartitionChecks = std::size(kDynamicPartitionChecks);

struct Draw {
  DType dtype = DType::kFloat32;
  Shape partitions_shape;
  std::vector<std::int64_t> partitions;
  Shape slice;
  std::optional<Shape> data_shape;  // default: partitions_shape + slice
  std::int64_t num_partitions = 1;

  Shape data() const {
    if (data_shape) return *data_shape;
    Shape s = partitions_shape;
    s.insert(s.end(), slice.begin(), slice.end());
    return s;
  }
};

GeneratedCase build(const Draw& d, std::string_view check = {}) {
  conformance::Values inputs;
  inputs.emplace("data", *gen_payload(d.dtype, d.data()));
  inputs.emplace("partitions", index_tensor(DType::kInt32, d.partitions_shape, d.partitions));
  return make_case(Op::kDynamicPartition, std::move(inputs), {{"num_partitions", d.num_partitions}},
                   std::string(check));
}

// Empty outputs with huge dims around the zero, which sits in any position of data: in the
// partitions' shape (no entry: every output is [0] + slice), or in the slice after a few
// entries. Before the zero, data's and every output's element counts stay below 2^63.
Draw draw_huge_empty() {
  Draw d;
  d.dtype = *gen_dtype_among(registered_dtypes(Op::kDynamicPartition));
  const int partitions_rank = *rc::gen::inRange(0, 4);
  const int rank = partitions_rank + *rc::gen::inRange(partitions_rank == 0 ? 1 : 0, 3);
  const int zero = *rc::gen::inRange(0, rank);
  d.num_partitions = *rc::gen::inRange<std::int64_t>(1, 7);
  if (zero < partitions_rank) {
    const Shape dims = draw_empty_huge_dims(rank, zero);
    d.partitions_shape.assign(dims.begin(), dims.begin() + partitions_rank);
    d.slice.assign(dims.begin() + partitions_rank, dims.end());
    return d;
  }
  SizeBudget budget(8);
  d.partitions_shape.resize(static_cast<std::size_t>(partitions_rank));
  for (auto& dim : d.partitions_shape) dim = budget.draw(1, 2);
  d.partitions.resize(static_cast<std::size_t>(checked_num_elements(d.partitions_shape)));
  for (auto& p : d.partitions) p = *rc::gen::inRange<std::int64_t>(0, d.num_partitions);
  const auto entries = static_cast<std::int64_t>(d.partitions.size());
  d.slice = draw_empty_huge_dims(rank - partitions_rank, zero - partitions_rank, entries);
  return d;
}

Draw draw_valid() {
  Draw d;
  d.dtype = *gen_dtype_among(registered_dtypes(Op::kDynamicPartition));
  SizeBudget budget(kMaxCaseElements);
  d.partitions_shape.resize(static_cast<std::size_t>(*rc::gen::inRange(0, 4)));
  for (auto& dim : d.partitions_shape) dim = budget.draw(0, 4);
  d.slice.resize(static_cast<std::size_t>(*rc::gen::inRange(0, 3)));
  for (auto& dim : d.slice) dim = budget.draw(0, 3);
  d.num_partitions = *rc::gen::weightedElement<bool>({{9, true}, {1, false}}) ? *rc::gen::inRange<std::int64_t>(1, 7)
                                                                              : *rc::gen::inRange<std::int64_t>(7, 301);
  d.partitions.resize(static_cast<std::size_t>(checked_num_elements(d.partitions_shape)));
  for (auto& p : d.partitions) p = *rc::gen::inRange<std::int64_t>(0, d.num_partitions);
  return d;
}

// A boundary case (index_boundaries.h), from a small valid draw: a partition id v at any
// position (num_partitions v + 1 to v + 3), or num_partitions v with the ids redrawn from
// [0, v), the last one half the time. Each of the (up to 2^16 + 2) outputs is small or empty.
Draw draw_at_boundary(const BoundaryTarget& t) {
  Draw d = draw_valid();
  if (d.partitions.empty()) {
    d.partitions_shape = {1};
    d.partitions = {0};
  }
  const std::int64_t v = t.value;
  if (t.name == "partitions") {
    d.partitions[*rc::gen::inRange<std::size_t>(0, d.partitions.size())] = v;
    d.num_partitions = v + *rc::gen::inRange<std::int64_t>(1, 4);
  } else {
    d.num_partitions = v;
    for (auto& p : d.partitions) p = *rc::gen::arbitrary<bool>() ? v - 1 : *rc::gen::inRange<std::int64_t>(0, v);
  }
  return d;
}

// --- invalid cases -------------------------------------------------------------------------
//
// One generator per check (kCheckGenerators below, by check): each draws a case that fails `check` first and
// names `check` as the check it fails.

GeneratedCase draw_invalid(std::size_t check);

// A valid case or one failing a check listed after `check` (the earlier check must win).
GeneratedCase draw_base_after(std::string_view check) {
  return valid_or_failing(
      checks_after(Op::kDynamicPartition, check), [] { return build(draw_valid()); }, draw_invalid);
}

// README pre-check 1: partitions of a dtype other than int32.
GeneratedCase partitions_not_int32(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  Tensor& p = std::get<Tensor>(g.c.inputs.at("partitions"));
  p = *gen_payload(*gen_dtype_among(dtypes_except({DType::kInt32})), p.shape());
  g.check = check;
  return g;
}

// Check 0: num_partitions below 1.
GeneratedCase num_partitions_below_1(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  g.c.attrs["num_partitions"] = draw_edge(kInt64Min, 0);
  g.check = check;
  return g;
}

// README pre-check 3: T not registered.
GeneratedCase data_unregistered(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  Tensor& data = std::get<Tensor>(g.c.inputs.at("data"));
  data = *gen_payload(*gen_dtype_among(unregistered_dtypes(Op::kDynamicPartition)), data.shape());
  g.check = check;
  return g;
}

// Check 0: num_partitions past int32.
GeneratedCase num_partitions_past_int32(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  g.c.attrs["num_partitions"] = draw_edge(kInt32Max + 1, kInt64Max);
  g.check = check;
  return g;
}

// Check 1: data's shape shorter than the partitions', or one of its leading dims differs.
GeneratedCase data_shape_not_prefixed(std::string_view check) {
  Draw d = draw_valid();
  if (d.partitions_shape.empty()) {  // a scalar is a prefix of every shape: make it [k]
    d.partitions_shape = {*rc::gen::inRange<std::int64_t>(0, 4)};
    d.partitions.assign(static_cast<std::size_t>(d.partitions_shape[0]), 0);
  }
  Shape data = d.data();
  if (*rc::gen::arbitrary<bool>()) {  // too short
    data.resize(*rc::gen::inRange<std::size_t>(0, d.partitions_shape.size()));
  } else {  // one leading dim differs
    const std::size_t j = *rc::gen::inRange<std::size_t>(0, d.partitions_shape.size());
    data[j] = d.partitions_shape[j] + (d.partitions_shape[j] > 0 && *rc::gen::arbitrary<bool>() ? -1 : 1);
  }
  d.data_shape = data;
  return build(d, check);
}

// Check 2: a value outside [0, num_partitions) at a random position.
GeneratedCase partition_out_of_range(std::string_view check) {
  Draw d = draw_valid();
  if (d.partitions.empty()) {
    d.partitions_shape.assign(d.partitions_shape.size(), 1);
    d.partitions.assign(1, 0);
  }
  const std::size_t j = *rc::gen::inRange<std::size_t>(0, d.partitions.size());
  d.partitions[j] = *rc::gen::arbitrary<bool>() ? draw_edge(kInt32Min, -1) : draw_edge(d.num_partitions, kInt32Max);
  return build(d, check);
}

// The memory limit: num_partitions whose 64-byte headers alone pass 4 GiB, or a valid case
// under a limit below its request.
GeneratedCase request_past_memory_limit(std::string_view check) {
  Draw d = draw_valid();
  if (*rc::gen::arbitrary<bool>()) {
    d.num_partitions = draw_edge((std::int64_t{1} << 26) + 1, kInt32Max);  // 64 * k > 4 GiB
    return build(d, check);
  }
  return with_memory_limit_below_request(build(d, check));
}

// The generators of the checks, by check (a check without one does not compile).
using GenerateFn = GeneratedCase (*)(std::string_view check);
constexpr auto kCheckGenerators = by_check<kNumPartitionChecks, PartitionCheck, GenerateFn>(
    {
        {PartitionCheck::kArgTypes, partitions_not_int32},
        {PartitionCheck::kNumPartitionsMin, num_partitions_below_1},
        {PartitionCheck::kRegistration, data_unregistered},
        {PartitionCheck::kNumPartitionsInt32, num_partitions_past_int32},
        {PartitionCheck::kShapePrefix, data_shape_not_prefixed},
        {PartitionCheck::kPartitionRange, partition_out_of_range},
        {PartitionCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);

GeneratedCase draw_invalid(std::size_t check) { return kCheckGenerators.at(check)(kDynamicPartitionChecks[check].id); }

rc::Gen<GeneratedCase> invalid_by_index(Op, std::size_t check) {
  return rc::gen::exec([check] { return draw_invalid(check); });
}

// large_valid_case: wide rows (a trailing dim on data) or many rows (a leading dim on data
// and partitions alike, the partitions repeated), with a fresh payload.
void widen_data(GeneratedCase& g) {
  const bool leading = *rc::gen::arbitrary<bool>();
  Tensor& data = std::get<Tensor>(g.c.inputs.at("data"));
  if (const std::int64_t bytes = widen::data_bytes(data); bytes > 0) {
    const std::int64_t times = widen::widening(bytes);
    if (leading) {
      Tensor& partitions = std::get<Tensor>(g.c.inputs.at("partitions"));
      partitions = widen::stacked(partitions, times);
    }
    data = *gen_payload(data.dtype(),
                        leading ? widen::prepended(data.shape(), times) : widen::appended(data.shape(), times));
  }
}

// grow_valid_case: wider slices (a trailing dim on data), or `times` as many positions with
// fresh partition values.
void grow_partition(conformance::Case& c, std::int64_t times) {
  Tensor& data = input_tensor(c, "data");
  Tensor& partitions = input_tensor(c, "partitions");
  if (*rc::gen::arbitrary<bool>()) {
    data = *gen_payload(data.dtype(), widen::appended(data.shape(), times));
    return;
  }
  const Shape slice(data.shape().begin() + partitions.rank(), data.shape().end());
  const std::int64_t n = std::max<std::int64_t>(1, partitions.num_elements()) * times;
  const std::int64_t k = c.attrs.at("num_partitions");
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  std::mt19937_64 engine(*rc::gen::inRange<std::uint32_t>(0, 1u << 30));
  for (auto& v : values) v = static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(k));
  partitions = index_tensor(DType::kInt32, {n}, values);
  Shape shape = {n};
  shape.insert(shape.end(), slice.begin(), slice.end());
  data = *gen_payload(data.dtype(), shape);
}

// Every dtype but the quantized ones.
std::vector<DType> registered() { return dtypes_except({DType::kQInt8, DType::kQUInt8, DType::kQInt32}); }

}  // namespace

rc::Gen<GeneratedCase> valid_dynamic_partition() {
  return rc::gen::exec([] {
    if (const auto target = draw_boundary_target(Op::kDynamicPartition)) return build(draw_at_boundary(*target));
    return build(*rc::gen::weightedElement<bool>({{7, false}, {1, true}}) ? draw_huge_empty() : draw_valid());
  });
}
rc::Gen<GeneratedCase> invalid_dynamic_partition(std::string_view check) {
  return invalid_by_index(Op::kDynamicPartition, check_index(Op::kDynamicPartition, check));
}

// Also nullopt above 2^24 partitions (their headers alone pass 1 GiB: not a valid case here).
std::optional<std::vector<PredictedOutput>> dynamic_partition_outputs(const conformance::Case& c) {
  const Tensor& data = input_tensor(c, "data");
  const Tensor& partitions = input_tensor(c, "partitions");
  const std::int64_t k = c.attrs.at("num_partitions");
  if (partitions.dtype() != DType::kInt32 || k < 1 || k > (1 << 24) || data.rank() < partitions.rank() ||
      !std::equal(partitions.shape().begin(), partitions.shape().end(), data.shape().begin()))
    return std::nullopt;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(k), 0);
  for (std::int64_t p : index_values(partitions)) {
    if (p < 0 || p >= k) return std::nullopt;
    ++counts[p];
  }
  std::vector<PredictedOutput> outputs;
  for (std::int64_t count : counts) {
    Shape shape = {count};
    shape.insert(shape.end(), data.shape().begin() + partitions.rank(), data.shape().end());
    outputs.push_back({data.dtype(), shape});
  }
  return outputs;
}

// --- the checks' breakers (check_pairs.h) --------------------------------------------------

namespace breakers {
namespace {

bool break_arg_types(conformance::Case& c) {
  tensor(c, "partitions") = retyped(tensor(c, "partitions"), other_dtype(DType::kInt32));
  return true;
}

bool break_num_partitions_min(conformance::Case& c) {
  c.attrs["num_partitions"] = *rc::gen::element<std::int64_t>(0, -1, kInt32Min, kInt64Min);
  return true;
}

bool break_registration(conformance::Case& c) {
  tensor(c, "data") = retyped(tensor(c, "data"), *gen_dtype_among(unregistered_dtypes(Op::kDynamicPartition)));
  return true;
}

bool break_num_partitions_int32(conformance::Case& c) {
  c.attrs["num_partitions"] = draw_edge(kInt32Max + 1, kInt64Max);
  return true;
}

bool break_shape_prefix(conformance::Case& c) {
  Tensor& data = tensor(c, "data");
  if (tensor(c, "partitions").rank() == 0 || data.rank() == 0) return false;
  Shape shape = data.shape();
  shape[0] = shape[0] > 0 && *rc::gen::arbitrary<bool>() ? shape[0] - 1 : shape[0] + 1;
  return reshape_fresh(data, shape);
}

bool break_partition_range(conformance::Case& c) {
  Tensor& partitions = tensor(c, "partitions");
  const std::int64_t n = c.attrs.at("num_partitions");
  if (partitions.dtype() != DType::kInt32 || partitions.num_elements() == 0) return false;
  const std::int64_t bad = n <= kInt32Max && *rc::gen::arbitrary<bool>() ? n : -1;
  partitions.data<std::int32_t>()[*rc::gen::inRange<std::int64_t>(0, partitions.num_elements())] =
      static_cast<std::int32_t>(bad);
  return true;
}

// Each check's breaker, by check; memory-limit, checked last, needs none.
constexpr auto kPartitionBreakers = by_check<kNumPartitionChecks, PartitionCheck, BreakFn>(
    {
        {PartitionCheck::kArgTypes, break_arg_types},
        {PartitionCheck::kNumPartitionsMin, break_num_partitions_min},
        {PartitionCheck::kRegistration, break_registration},
        {PartitionCheck::kNumPartitionsInt32, break_num_partitions_int32},
        {PartitionCheck::kShapePrefix, break_shape_prefix},
        {PartitionCheck::kPartitionRange, break_partition_range},
    },
    false);

constexpr std::string_view kSameAttr = "both checks bound the same attr from opposite sides";

// Pairs no single input breaks together, with the reason.
constexpr Exclusion kPartitionExclusions[] = {
    excluded(PartitionCheck::kNumPartitionsMin, PartitionCheck::kNumPartitionsInt32, kSameAttr),
    excluded(PartitionCheck::kNumPartitionsMin, PartitionCheck::kMemoryLimit, kNoOutput),
};

}  // namespace
}  // namespace breakers

constinit const OpGenerators kDynamicPartitionGenerators = {
    kDynamicPartitionChecks,
    registered,
    [](Op) { return valid_dynamic_partition(); },
    invalid_by_index,
    dynamic_partition_outputs,
    widen_data,
    breakers::kPartitionBreakers,
    breakers::kPartitionExclusions,
    grow_partition,
    // A 2^16 boundary case has up to 2^16 + 3 outputs: a second or more of the properties'
    // poison and round-trip checks each.
    64,
};

}  // namespace opconform::generators
