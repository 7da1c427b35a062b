// Case generators of SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md).
//
// Valid cases are built by construction: NHWC inputs whose spatial dims (SpaceToDepth) or depth
// (DepthToSpace) the block divides, block 2..4 mostly and now and then up to 2^31 - 1 (on
// empty inputs), any registered dtype, zero-size dims anywhere. One case in eight is "huge but
// empty": a zero in one dim and huge dims around it that keep every checked product in range.
// Before those, one case in eight puts block_size at a width boundary (index_boundaries.h).
//
// Invalid cases: one generator per check of the op (check order of the contract page), each
// failing exactly that check first.
#include <algorithm>
#include <string>

#include "opconform/generators/depth_space.h"
#include "breakers.h"
#include "opconform/generators/index_boundaries.h"
#include "opconform/generators/payload.h"
#include "check_generators.h"
#include "widen.h"

namespace opconform::generators {
namespace {

// The checks of each op (checks/space_to_depth.inc, checks/depth_to_space.inc): enum and table.
enum class SpaceToDepthCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/space_to_depth.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kSpaceToDepthChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/space_to_depth.inc"
#undef OPCONFORM_CHECK
};
enum class DepthToSpaceCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/depth_to_space.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kDepthToSpaceChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/depth_to_space.inc"
#undef OPCONFORM_CHECK
};
constexpr std::size_t kNumS2DChecks = std::size(kSpaceToDepthChecks);
constexpr std::size_t kNumD2SChecks = std::size(kDepthToSpaceChecks);

constexpr std::string_view kBadFormats[] = {"nhwc", "", "NHCW", "NHWC ", "NCHW_VECT", "CHWN"};

bool is_space_to_depth(Op op) { return op == Op::kSpaceToDepth; }

struct Draw {
  Op op = Op::kSpaceToDepth;
  DType dtype = DType::kFloat32;
  std::int64_t block = 2;
  std::string data_format = "NHWC";
  Shape shape;  // the input, [N, H, W, C] for a valid case
};

GeneratedCase build(const Draw& d, std::string_view check = {}) {
  conformance::Values inputs;
  inputs.emplace("input", *gen_payload(d.dtype, d.shape));
  GeneratedCase g = make_case(d.op, std::move(inputs), {{"block_size", d.block}}, std::string(check));
  g.c.string_attrs["data_format"] = d.data_format;
  return g;
}

// A small valid NHWC input: SpaceToDepth's H and W multiples of b, DepthToSpace's C a multiple
// of b*b, at most kMaxCaseElements elements.
Draw draw_valid(Op op) {
  Draw d;
  d.op = op;
  d.dtype = *gen_dtype_among(registered_dtypes(op));
  d.block = *rc::gen::weightedElement<std::int64_t>({{6, 2}, {3, 3}, {1, 4}});
  const std::int64_t b = d.block;
  SizeBudget budget(kMaxCaseElements);
  if (is_space_to_depth(op)) {
    budget.take(b * b);
    const std::int64_t h = budget.draw(0, 3), w = budget.draw(0, 3);
    d.shape = {budget.draw(0, 3), h * b, w * b, budget.draw(0, 4)};
  } else {
    budget.take(b * b);
    const std::int64_t c = budget.draw(0, 3);
    d.shape = {budget.draw(0, 3), budget.draw(0, 3), budget.draw(0, 3), c * b * b};
  }
  return d;
}

// An empty input with huge dims: one dim is zero, the others are as large as the op's checked
// products allow (SpaceToDepth: C*b*b fits int64; DepthToSpace: H*b and W*b fit, and the
// output's running element count stays below 2^63 before its zero).
Draw draw_huge_empty(Op op) {
  Draw d;
  d.op = op;
  d.dtype = *gen_dtype_among(registered_dtypes(op));
  d.block = draw_edge(2, kInt32Max);
  const std::int64_t b = d.block;
  const int zero = *rc::gen::inRange(0, 4);
  if (is_space_to_depth(op)) {
    // Output [N, H/b, W/b, C*b*b]: a dim before the zero stays small (N <= 2, H and W = b, so the
    // input's N*H*W <= 2b^2 < 2^63), one after it is huge.
    const auto spatial = [&](int i) { return i < zero ? b : b * draw_log_uniform(1, headroom(b)); };
    const std::int64_t depth = zero < 3 ? draw_log_uniform(1, headroom(b * b)) : 1;
    d.shape = {zero == 0 ? 0 : *rc::gen::inRange<std::int64_t>(1, 3), zero == 1 ? 0 : spatial(1),
               zero == 2 ? 0 : spatial(2), zero == 3 ? 0 : depth};
  } else {
    // Output [N, H*b, W*b, C/(b*b)]: the dims before the zero small, after it as large as fits.
    // (N, H and W before the zero are 1: the output's N * (H*b) * (W*b) stays within b^2 < 2^62.)
    const auto spatial = [&](int i) { return i < zero ? 1 : draw_log_uniform(1, headroom(b)); };
    const std::int64_t depth = zero < 3 ? b * b * draw_log_uniform(1, headroom(b * b)) : 0;
    d.shape = {zero == 0 ? 0 : 1, zero == 1 ? 0 : spatial(1), zero == 2 ? 0 : spatial(2), zero == 3 ? 0 : depth};
  }
  return d;
}

// A boundary case (index_boundaries.h): block v on an empty NHWC input of small dims, the zero
// in N, in one of the output's spatial factors or in the depth (SpaceToDepth [N, h*v, w*v, C];
// DepthToSpace [N, H, W, c*v*v]). Every checked product stays below 2^40.
Draw draw_at_boundary(Op op, std::int64_t v) {
  Draw d;
  d.op = op;
  d.dtype = *gen_dtype_among(registered_dtypes(op));
  d.block = v;
  const int zero = *rc::gen::inRange(0, 4);
  std::int64_t dims[4];
  for (int k = 0; k < 4; ++k) dims[k] = k == zero ? 0 : *rc::gen::inRange<std::int64_t>(1, 3);
  if (is_space_to_depth(op))
    d.shape = {dims[0], dims[1] * v, dims[2] * v, dims[3]};
  else
    d.shape = {dims[0], dims[1], dims[2], dims[3] * v * v};
  return d;
}

// --- invalid cases -------------------------------------------------------------------------

GeneratedCase draw_invalid(Op op, std::size_t check);

// A valid case or one failing a check listed after `check` (the earlier check must win).
GeneratedCase draw_base_after(Op op, std::string_view check) {
  return valid_or_failing(
      checks_after(op, check), [op] { return build(draw_valid(op)); },
      [op](std::size_t later) { return draw_invalid(op, later); });
}

template <class Edit>
GeneratedCase after(Op op, std::string_view check, Edit edit) {
  GeneratedCase g = draw_base_after(op, check);
  edit(g.c);
  g.check = check;
  return g;
}

// The edits that break one pre-check or step 1 whatever else the case breaks: the invalid cases
// apply them to a valid case (or one failing a later check), each check's breaker to a case
// failing a later check.
bool set_block_below_2(conformance::Case& c) {  // pre-check 2a
  c.attrs["block_size"] = draw_edge(kInt64Min, 1);
  return true;
}
bool set_format_not_allowed(conformance::Case& c) {  // pre-check 2b
  c.string_attrs["data_format"] =
      std::string(*rc::gen::elementOf(std::vector<std::string_view>(std::begin(kBadFormats), std::end(kBadFormats))));
  return true;
}
template <Op kOp>
bool set_unregistered_dtype(conformance::Case& c) {  // pre-check 3a
  Tensor& input = std::get<Tensor>(c.inputs.at("input"));
  input = *gen_payload(*gen_dtype_among(unregistered_dtypes(kOp)), input.shape());
  return true;
}
bool set_format_not_nhwc(conformance::Case& c) {  // pre-check 3b
  c.string_attrs["data_format"] = *rc::gen::element<std::string>("NCHW", "NCHW_VECT_C");
  return true;
}
bool set_block_past_int32(conformance::Case& c) {  // step 1
  c.attrs["block_size"] = draw_edge(kInt32Max + 1, kInt64Max);
  return true;
}

GeneratedCase block_below_2(Op op, std::string_view check) { return after(op, check, set_block_below_2); }
GeneratedCase format_not_allowed(Op op, std::string_view check) { return after(op, check, set_format_not_allowed); }
GeneratedCase input_unregistered(Op op, std::string_view check) {
  return after(
      op, check,
      is_space_to_depth(op) ? set_unregistered_dtype<Op::kSpaceToDepth> : set_unregistered_dtype<Op::kDepthToSpace>);
}
GeneratedCase format_not_nhwc(Op op, std::string_view check) { return after(op, check, set_format_not_nhwc); }
GeneratedCase block_past_int32(Op op, std::string_view check) { return after(op, check, set_block_past_int32); }
// Step 2: an input of rank other than 4.
GeneratedCase rank_not_4(Op op, std::string_view check) {
  Draw d = draw_valid(op);
  const int rank = *rc::gen::element(0, 1, 2, 3, 5, 6);
  SizeBudget budget(kMaxCaseElements);
  d.shape.assign(static_cast<std::size_t>(rank), 0);
  for (auto& dim : d.shape) dim = budget.draw(0, 4);
  return build(d, check);
}
// Step 3: SpaceToDepth's H or W, or DepthToSpace's C, not a multiple of the block.
GeneratedCase not_divisible(Op op, std::string_view check) {
  Draw d = draw_valid(op);
  const std::int64_t b = d.block, off = *rc::gen::inRange<std::int64_t>(1, b);
  if (!is_space_to_depth(op)) {
    // C mod b*b anywhere in [1, b*b - 1], multiples of b (divisible by b, not by b*b) included.
    d.shape[3] += *rc::gen::inRange<std::int64_t>(1, b * b);
  } else {
    const int which = *rc::gen::inRange(0, 3);  // H, W or both
    if (which != 1) d.shape[1] += off;
    if (which != 0) d.shape[2] += off;
  }
  if (*rc::gen::weightedElement<bool>({{4, false}, {1, true}})) {  // a huge block on an empty input
    d.block = draw_edge(5, kInt32Max);
    d.shape[0] = 0;
    if (is_space_to_depth(op))
      d.shape[1] = d.block + 1;
    else
      d.shape[3] = d.block * d.block - 1;
  }
  return build(d, check);
}
// Step 4 (deviation): SpaceToDepth's C*b*b, DepthToSpace's H*b or W*b overflows int64 (only an
// empty input gets there).
GeneratedCase output_dim_overflow(Op op, std::string_view check) {
  Draw d = draw_valid(op);
  d.block = draw_edge(2, kInt32Max);
  const std::int64_t b = d.block;
  // N and the other spatial dim are 0 or 1, so the input's own element count stays in range.
  const auto bit = [] { return *rc::gen::inRange<std::int64_t>(0, 2); };
  if (is_space_to_depth(op)) {
    d.shape = {bit(), 0, b * bit(), draw_edge(kInt64Max / (b * b) + 1, kInt64Max)};
  } else if (*rc::gen::arbitrary<bool>()) {
    d.shape = {bit(), draw_edge(kInt64Max / b + 1, kInt64Max), bit(), 0};
  } else {
    d.shape = {bit(), bit(), draw_edge(kInt64Max / b + 1, kInt64Max), 0};
  }
  return build(d, check);
}
// Step 5 (DepthToSpace): the output [N, H*b, W*b, 0]'s running element count passes 2^63
// before its zero depth.
// With b = 2^e and N = 2^k0, H = 2^k1, W = 2^k2: the input's count N*H*W = 2^(k0+k1+k2) stays
// below 2^63 while the output's N*(H*b)*(W*b) = 2^(k0+k1+k2+2e) reaches it.
GeneratedCase output_shape_overflow(Op op, std::string_view check) {
  Draw d = draw_valid(op);
  const int e = *rc::gen::inRange(1, 11);
  d.block = std::int64_t{1} << e;
  const int sum = *rc::gen::inRange(63 - 2 * e, 63);  // k0 + k1 + k2
  const int k1 = *rc::gen::inRange(0, std::min(sum, 62 - e) + 1);
  const int k2 = *rc::gen::inRange(0, std::min(sum - k1, 62 - e) + 1);
  const int k0 = sum - k1 - k2;
  d.shape = {std::int64_t{1} << k0, std::int64_t{1} << k1, std::int64_t{1} << k2, 0};
  return build(d, check);
}
// Step 6: a valid case under a limit below its request.
GeneratedCase request_past_memory_limit(Op op, std::string_view check) {
  return with_memory_limit_below_request(build(draw_valid(op), check));
}

// The generators of the checks, by check (a check without one does not compile).
using GenerateFn = GeneratedCase (*)(Op op, std::string_view check);
constexpr auto kS2DGenerators = by_check<kNumS2DChecks, SpaceToDepthCheck, GenerateFn>(
    {
        {SpaceToDepthCheck::kBlockSizeMinimum, block_below_2},
        {SpaceToDepthCheck::kDataFormatAllowed, format_not_allowed},
        {SpaceToDepthCheck::kRegistration, input_unregistered},
        {SpaceToDepthCheck::kNhwcOnly, format_not_nhwc},
        {SpaceToDepthCheck::kBlockSizeInt32, block_past_int32},
        {SpaceToDepthCheck::kInputRank, rank_not_4},
        {SpaceToDepthCheck::kDivisibility, not_divisible},
        {SpaceToDepthCheck::kOutputDims, output_dim_overflow},
        {SpaceToDepthCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);
constexpr auto kD2SGenerators = by_check<kNumD2SChecks, DepthToSpaceCheck, GenerateFn>(
    {
        {DepthToSpaceCheck::kBlockSizeMinimum, block_below_2},
        {DepthToSpaceCheck::kDataFormatAllowed, format_not_allowed},
        {DepthToSpaceCheck::kRegistration, input_unregistered},
        {DepthToSpaceCheck::kNhwcOnly, format_not_nhwc},
        {DepthToSpaceCheck::kBlockSizeInt32, block_past_int32},
        {DepthToSpaceCheck::kInputRank, rank_not_4},
        {DepthToSpaceCheck::kDivisibility, not_divisible},
        {DepthToSpaceCheck::kOutputDims, output_dim_overflow},
        {DepthToSpaceCheck::kOutputShapeOverflow, output_shape_overflow},
        {DepthToSpaceCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);

GeneratedCase draw_invalid(Op op, std::size_t check) {
  if (is_space_to_depth(op)) return kS2DGenerators.at(check)(op, kSpaceToDepthChecks[check].id);
  return kD2SGenerators.at(check)(op, kDepthToSpaceChecks[check].id);
}

rc::Gen<GeneratedCase> invalid_by_index(Op op, std::size_t check) {
  return rc::gen::exec([op, check] { return draw_invalid(op, check); });
}

// large_valid_case: the batch `times` over, with a fresh payload (validity is kept).
void widen_batch(GeneratedCase& g) {
  Tensor& input = std::get<Tensor>(g.c.inputs.at("input"));
  if (const std::int64_t bytes = widen::data_bytes(input); bytes > 0) {
    Shape shape = input.shape();
    shape[0] *= widen::widening(bytes);
    input = *gen_payload(input.dtype(), shape);
  }
}

// grow_valid_case: `times` the batch, with a fresh payload; validity is kept.
void grow_batch(conformance::Case& c, std::int64_t times) {
  Tensor& input = input_tensor(c, "input");
  Shape shape = input.shape();
  shape[0] = std::max<std::int64_t>(1, shape[0]) * times;
  input = *gen_payload(input.dtype(), shape);
}

// --- the checks' breakers (check_pairs.h) --------------------------------------------------

Tensor& input_of(conformance::Case& c) { return std::get<Tensor>(c.inputs.at("input")); }

// The input reshaped to `shape` with a fresh payload; false when that has too many elements
// (an empty shape may have huge dims).
bool with_shape(conformance::Case& c, Shape shape) { return breakers::reshape_fresh(input_of(c), std::move(shape)); }
// The input with one dim changed to `value`.
bool with_dim(conformance::Case& c, int dim, std::int64_t value) {
  if (input_of(c).rank() <= dim) return false;
  Shape shape = input_of(c).shape();
  shape[dim] = value;
  return with_shape(c, std::move(shape));
}

bool break_input_rank(conformance::Case& c) {
  Shape shape = input_of(c).shape();
  if (shape.size() == 4 && *rc::gen::arbitrary<bool>())
    shape.push_back(1);
  else
    shape.resize(shape.size() == 4 ? 3 : 5, 1);
  return with_shape(c, std::move(shape));
}
// SpaceToDepth: H one past a multiple of b; DepthToSpace: C one past a multiple of b*b.
template <Op kOp>
bool break_divisibility(conformance::Case& c) {
  const std::int64_t block = c.attrs.at("block_size");
  const Tensor& input = input_of(c);
  if (input.rank() != 4 || block < 2 || block > 64) return false;
  if (kOp == Op::kSpaceToDepth) return with_dim(c, 1, input.dim(1) / block * block + 1);
  return with_dim(c, 3, input.dim(3) / (block * block) * block * block + 1);
}
// An empty input whose DepthToSpace output height passes int64.
bool break_output_dims(conformance::Case& c) {
  const std::int64_t block = c.attrs.at("block_size");
  const Tensor& input = input_of(c);
  if (input.rank() != 4 || block < 2 || block > kInt32Max) return false;
  const Shape& s = input.shape();
  return with_shape(c, {std::min<std::int64_t>(s[0], 1), draw_edge(kInt64Max / block + 1, kInt64Max),
                        std::min<std::int64_t>(s[2], 1), 0});
}

// Each check's breaker, by check; the last checks need none (every pair they come first
// in is excluded).
constexpr auto kS2DBreakers = by_check<kNumS2DChecks, SpaceToDepthCheck, BreakFn>(
    {
        {SpaceToDepthCheck::kBlockSizeMinimum, set_block_below_2},
        {SpaceToDepthCheck::kDataFormatAllowed, set_format_not_allowed},
        {SpaceToDepthCheck::kRegistration, set_unregistered_dtype<Op::kSpaceToDepth>},
        {SpaceToDepthCheck::kNhwcOnly, set_format_not_nhwc},
        {SpaceToDepthCheck::kBlockSizeInt32, set_block_past_int32},
        {SpaceToDepthCheck::kInputRank, break_input_rank},
        {SpaceToDepthCheck::kDivisibility, break_divisibility<Op::kSpaceToDepth>},
    },
    false);
constexpr auto kD2SBreakers = by_check<kNumD2SChecks, DepthToSpaceCheck, BreakFn>(
    {
        {DepthToSpaceCheck::kBlockSizeMinimum, set_block_below_2},
        {DepthToSpaceCheck::kDataFormatAllowed, set_format_not_allowed},
        {DepthToSpaceCheck::kRegistration, set_unregistered_dtype<Op::kDepthToSpace>},
        {DepthToSpaceCheck::kNhwcOnly, set_format_not_nhwc},
        {DepthToSpaceCheck::kBlockSizeInt32, set_block_past_int32},
        {DepthToSpaceCheck::kInputRank, break_input_rank},
        {DepthToSpaceCheck::kDivisibility, break_divisibility<Op::kDepthToSpace>},
        {DepthToSpaceCheck::kOutputDims, break_output_dims},
    },
    false);

constexpr std::string_view kNonZeroDepth =
    "a depth that b*b does not divide is not 0, so the input would hold the 2^63 / b^2 elements the overflow needs";

// Pairs no single input breaks together, with the reason.
constexpr Exclusion kS2DExclusions[] = {
    excluded(SpaceToDepthCheck::kOutputDims, SpaceToDepthCheck::kMemoryLimit, breakers::kNoOutput),
};
constexpr Exclusion kD2SExclusions[] = {
    excluded(DepthToSpaceCheck::kDivisibility, DepthToSpaceCheck::kOutputShapeOverflow, kNonZeroDepth),
    excluded(DepthToSpaceCheck::kOutputDims, DepthToSpaceCheck::kMemoryLimit, breakers::kNoOutput),
    excluded(DepthToSpaceCheck::kOutputShapeOverflow, DepthToSpaceCheck::kMemoryLimit, breakers::kNoOutput),
};

// TF_CALL_ALL_TYPES and qint8; TF_CALL_ALL_TYPES.
std::vector<DType> s2d_registered() { return dtypes_except({DType::kQUInt8, DType::kQInt32}); }
std::vector<DType> d2s_registered() { return dtypes_except({DType::kQInt8, DType::kQUInt8, DType::kQInt32}); }

}  // namespace

rc::Gen<GeneratedCase> valid_depth_space(Op op) {
  return rc::gen::exec([op] {
    if (const auto target = draw_boundary_target(op)) return build(draw_at_boundary(op, target->value));
    return build(*rc::gen::weightedElement<bool>({{7, false}, {1, true}}) ? draw_huge_empty(op) : draw_valid(op));
  });
}

rc::Gen<GeneratedCase> invalid_depth_space(Op op, std::string_view check) {
  return invalid_by_index(op, check_index(op, check));
}

std::optional<std::vector<PredictedOutput>> depth_space_outputs(const conformance::Case& c) {
  const Tensor& input = input_tensor(c, "input");
  const std::int64_t b = c.attrs.at("block_size");
  const auto format = c.string_attrs.find("data_format");
  const std::vector<DType> registered = registered_dtypes(c.op);
  if (b < 2 || b > kInt32Max || format == c.string_attrs.end() || format->second != "NHWC" || input.rank() != 4 ||
      std::find(registered.begin(), registered.end(), input.dtype()) == registered.end())
    return std::nullopt;
  const std::int64_t n = input.dim(0), h = input.dim(1), w = input.dim(2), depth = input.dim(3);
  Shape out;
  if (is_space_to_depth(c.op)) {
    std::int64_t out_depth = 0;
    if (h % b != 0 || w % b != 0 || __builtin_mul_overflow(depth, b * b, &out_depth)) return std::nullopt;
    out = {n, h / b, w / b, out_depth};
  } else {
    std::int64_t out_h = 0, out_w = 0;
    if (depth % (b * b) != 0 || __builtin_mul_overflow(h, b, &out_h) || __builtin_mul_overflow(w, b, &out_w))
      return std::nullopt;
    out = {n, out_h, out_w, depth / (b * b)};
  }
  if (checked_num_elements(out) < 0) return std::nullopt;
  return std::vector<PredictedOutput>{{input.dtype(), out}};
}

constinit const OpGenerators kSpaceToDepthGenerators = {
    kSpaceToDepthChecks, s2d_registered, valid_depth_space, invalid_by_index, depth_space_outputs,
    widen_batch,         kS2DBreakers,   kS2DExclusions,    grow_batch,
};
constinit const OpGenerators kDepthToSpaceGenerators = {
    kDepthToSpaceChecks, d2s_registered, valid_depth_space, invalid_by_index, depth_space_outputs,
    widen_batch,         kD2SBreakers,   kD2SExclusions,    grow_batch,
};

}  // namespace opconform::generators
