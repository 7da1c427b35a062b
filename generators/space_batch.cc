// Generators of SpaceToBatchND and BatchToSpaceND cases (space_to_batch_nd.h,
// batch_to_space_nd.h): both ops share the layout of block dims and most invalid-case checks.
#include <algorithm>
#include <numeric>

#include "opconform/generators/batch_to_space_nd.h"
#include "opconform/generators/index_boundaries.h"
#include "opconform/generators/payload.h"
#include "opconform/generators/space_to_batch_nd.h"
#include "breakers.h"
#include "widen.h"
#include "check_generators.h"
#include "wide_arithmetic.h"

namespace opconform::generators {
namespace {

// The checks of both ops (checks/space_to_batch_nd.inc, checks/batch_to_space_nd.inc): their
// enums and Check tables.
enum class SpaceToBatchNDCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/space_to_batch_nd.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kSpaceToBatchNDChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/space_to_batch_nd.inc"
#undef OPCONFORM_CHECK
};
enum class BatchToSpaceNDCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/batch_to_space_nd.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kBatchToSpaceNDChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/batch_to_space_nd.inc"
#undef OPCONFORM_CHECK
};
using S2BCheck = SpaceToBatchNDCheck;
using B2SCheck = BatchToSpaceNDCheck;
constexpr std::size_t kNumS2BChecks = std::size(kSpaceToBatchNDChecks);
constexpr std::size_t kNumB2SChecks = std::size(kBatchToSpaceNDChecks);

// One case of either op before it becomes tensors: block dim i has block[i], the pair
// (start[i], end[i]) (paddings or crops) and the input's spatial size size[i].
struct Draw {
  Op op = Op::kSpaceToBatchND;
  DType dtype = DType::kFloat32;
  DType block_dtype = DType::kInt32;
  DType paddings_or_crops_dtype = DType::kInt32;
  std::int64_t batch = 0;
  std::vector<std::int64_t> block, start, end, size;
  Shape rest;

  int m() const { return static_cast<int>(block.size()); }
  void add_dim(std::int64_t b, std::int64_t s, std::int64_t e, std::int64_t spatial) {
    block.push_back(b);
    start.push_back(s);
    end.push_back(e);
    size.push_back(spatial);
  }
  Shape input_shape() const {
    Shape shape = {batch};
    shape.insert(shape.end(), size.begin(), size.end());
    shape.insert(shape.end(), rest.begin(), rest.end());
    return shape;
  }
  std::vector<std::int64_t> paddings_or_crops() const {
    std::vector<std::int64_t> p;
    for (int i = 0; i < m(); ++i) p.insert(p.end(), {start[i], end[i]});
    return p;
  }
  bool trivial(int i) const { return block[i] == 1 && start[i] == 0 && end[i] == 0; }
  // The internal span [first, last] of non-trivial dims; first > last when there is none.
  std::pair<int, int> span() const {
    int first = 0, last = m() - 1;
    while (first < m() && trivial(first)) ++first;
    while (last >= first && trivial(last)) --last;
    return {first, last};
  }
  // Exact product of the block values (may lie outside int64).
  I128 block_product() const { return exact_product(block); }
};

const char* paddings_or_crops_name(Op op) { return op == Op::kSpaceToBatchND ? "paddings" : "crops"; }

DType fitting(DType drawn, const std::vector<std::int64_t>& values) {
  for (std::int64_t v : values)
    if (v < kInt32Min || v > kInt32Max) return DType::kInt64;
  return drawn;
}

std::int64_t dtype_max(DType index_dtype) { return index_dtype == DType::kInt32 ? kInt32Max : kInt64Max; }
std::int64_t dtype_min(DType index_dtype) { return index_dtype == DType::kInt32 ? kInt32Min : kInt64Min; }

Tensor block_tensor(const Draw& d) { return index_tensor(fitting(d.block_dtype, d.block), {d.m()}, d.block); }
Tensor paddings_or_crops_tensor(const Draw& d) {
  const std::vector<std::int64_t> p = d.paddings_or_crops();
  return index_tensor(fitting(d.paddings_or_crops_dtype, p), {d.m(), 2}, p);
}

GeneratedCase build(Op op, std::string_view check, Tensor input, Tensor block, Tensor paddings_or_crops) {
  conformance::Values inputs;
  inputs.emplace("input", std::move(input));
  inputs.emplace("block_shape", std::move(block));
  inputs.emplace(paddings_or_crops_name(op), std::move(paddings_or_crops));
  return make_case(op, std::move(inputs), {}, std::string(check));
}
GeneratedCase build(const Draw& d, std::string_view check = {}) {
  return build(d.op, check, *gen_payload(d.dtype, d.input_shape()), block_tensor(d), paddings_or_crops_tensor(d));
}

// Which block dims are internal: the span [lead, lead + internal), whose ends are non-trivial.
struct Layout {
  int m = 0, lead = 0, internal = 0;
  bool inside(int i) const { return i >= lead && i < lead + internal; }
  bool span_end(int i) const { return i == lead || i == lead + internal - 1; }
};
Layout draw_layout(int m_lo, int m_hi, int internal_lo, int internal_hi) {
  Layout l;
  l.m = *rc::gen::inRange(m_lo, m_hi + 1);
  const int hi = std::min(l.m, internal_hi);
  l.internal = *rc::gen::inRange(std::min(internal_lo, hi), hi + 1);
  l.lead = *rc::gen::inRange(0, l.m - l.internal + 1);
  return l;
}
bool draw_nontrivial(const Layout& l, int i) {
  if (!l.inside(i)) return false;
  return l.span_end(i) || *rc::gen::arbitrary<bool>();
}

// A Draw of `op` with no dims yet and its three dtypes drawn.
Draw typed_draw(Op op) {
  Draw d;
  d.op = op;
  d.dtype = *gen_dtype_among(registered_dtypes(op));
  d.block_dtype = *gen_index_dtype();
  d.paddings_or_crops_dtype = *gen_index_dtype();
  return d;
}

// --- valid cases ---------------------------------------------------------------------------

// A non-trivial SpaceToBatchND dim under the budget (which counts output elements).
void add_valid_s2b_dim(Draw& d, SizeBudget& budget) {
  const std::int64_t b = budget.draw(1, 4);
  const std::int64_t o = budget.draw(b == 1 ? 1 : 0, 3);
  const std::int64_t total = *rc::gen::inRange<std::int64_t>(b == 1 ? 1 : 0, o * b + 1);
  const std::int64_t s = *rc::gen::inRange<std::int64_t>(0, total + 1);
  d.add_dim(b, s, total - s, o * b - total);
}
// A non-trivial BatchToSpaceND dim under the budget (which counts input elements).
void add_valid_b2s_dim(Draw& d, SizeBudget& budget) {
  const std::int64_t b = budget.draw(1, 4);
  const std::int64_t s = budget.draw(b == 1 ? 1 : 0, 3);
  const std::int64_t total = *rc::gen::inRange<std::int64_t>(b == 1 ? 1 : 0, s * b + 1);
  const std::int64_t c = *rc::gen::inRange<std::int64_t>(0, total + 1);
  d.add_dim(b, c, total - c, s);
}

// What a running product leaves for the next dim: anything once a zero has come (run 0).
std::int64_t room(I128 run) { return run == 0 ? kInt64Max : headroom(static_cast<std::int64_t>(run)); }

// No element in the input or the output, with the zero in any position (the batch, a spatial
// dim or a remaining dim) and huge dims around it: before the zero, the running products of
// the input's and the output's dims (and B * P) stay below 2^63; after it, dims take any size
// a valid case allows. Blocks are below 2^31 and their product below 2^40.
Draw draw_huge_empty(Op op) {
  Draw d = typed_draw(op);
  const bool s2b = op == Op::kSpaceToBatchND;
  const Layout l = draw_layout(1, 4, 1, 4);
  const int rest_rank = *rc::gen::inRange(0, 3);
  const int zero = *rc::gen::inRange(0, 1 + l.m + rest_rank);  // 0: the batch
  std::vector<std::int64_t> blocks(static_cast<std::size_t>(l.m), 1);
  std::vector<bool> nontrivial(static_cast<std::size_t>(l.m));
  I128 p = 1;
  for (int i = 0; i < l.m; ++i) {
    nontrivial[i] = draw_nontrivial(l, i);
    if (!nontrivial[i]) continue;
    blocks[i] = draw_log_uniform(1, static_cast<std::int64_t>(std::min<I128>(kInt32Max, (I128{1} << 40) / p)));
    p *= blocks[i];
  }
  // The running products of the input's and the output's dims so far (0 after the zero).
  I128 in = 0, out = 0;
  const std::int64_t batch = zero == 0 ? 0 : draw_log_uniform(1, headroom(static_cast<std::int64_t>(p)));
  d.batch = s2b ? batch : static_cast<std::int64_t>(batch * p);  // B2S: batch is the output's
  if (zero != 0) {
    in = d.batch;
    out = s2b ? batch * p : batch;
  }
  // A dim both shapes share (trivial block dims, remaining dims).
  auto shared_dim = [&](int position) -> std::int64_t {
    if (position == zero) {
      in = out = 0;
      return 0;
    }
    const std::int64_t v = draw_log_uniform(position < zero ? 1 : 0, std::min(room(in), room(out)));
    in *= v;
    out *= v;
    return v;
  };
  for (int i = 0; i < l.m; ++i) {
    const std::int64_t b = blocks[i];
    if (!nontrivial[i]) {
      const std::int64_t v = shared_dim(1 + i);
      d.add_dim(1, 0, 0, v);
      continue;
    }
    if (1 + i == zero) {
      d.add_dim(b, 0, 0, 0);
      in = out = 0;
      continue;
    }
    const std::int64_t lo = 1 + i < zero ? 1 : 0;
    // SpaceToBatchND: output o, input s <= o * b, paddings o * b - s. BatchToSpaceND: input
    // s, output c <= s * b, crops s * b - c.
    const std::int64_t n = draw_log_uniform(lo, std::min(room(s2b ? out : in), headroom(b)));
    const std::int64_t m = draw_log_uniform(lo, std::min(n * b, room(s2b ? in : out)));
    const std::int64_t total = n * b - m;
    const std::int64_t start = draw_log_uniform(0, total);
    d.add_dim(b, start, total - start, s2b ? m : n);
    in *= s2b ? m : n;
    out *= s2b ? n : m;
  }
  for (int r = 0; r < rest_rank; ++r) d.rest.push_back(shared_dim(1 + l.m + r));
  return d;
}

Draw draw_small(Op op, SpaceBatchMode mode) {
  Draw d = typed_draw(op);
  SizeBudget budget(kMaxCaseElements);
  const bool s2b = op == Op::kSpaceToBatchND;
  std::int64_t batch_out = 0;  // BatchToSpaceND: the output batch
  if (mode == SpaceBatchMode::kSquareNHWC) {
    const std::int64_t b = *rc::gen::inRange<std::int64_t>(1, 5);
    const std::int64_t n = budget.draw(0, 3);
    budget.take(b * b);
    const std::int64_t h = budget.draw(0, 3), w = budget.draw(0, 3);
    d.rest = {budget.draw(0, 3)};
    d.add_dim(b, 0, 0, s2b ? h * b : h);
    d.add_dim(b, 0, 0, s2b ? w * b : w);
    d.batch = s2b ? n : n * b * b;
    return d;
  }
  const bool need_internal = mode == SpaceBatchMode::kNotIdentity;
  const Layout l = draw_layout(need_internal ? 1 : 0, 6, need_internal ? 1 : 0, 4);
  if (s2b)
    d.batch = budget.draw(0, 3);
  else
    batch_out = budget.draw(0, 3);
  for (int i = 0; i < l.m; ++i) {
    if (!draw_nontrivial(l, i))
      d.add_dim(1, 0, 0, budget.draw(0, 3));
    else if (s2b)
      add_valid_s2b_dim(d, budget);
    else
      add_valid_b2s_dim(d, budget);
  }
  const int rest_rank = *rc::gen::inRange(0, 6 - l.m + 1);
  for (int r = 0; r < rest_rank; ++r) d.rest.push_back(budget.draw(0, 3));
  if (!s2b) {
    // The quirk: two negative block values on internal dims of size 0 with zero crops.
    std::vector<int> internal;
    for (int i = l.lead; i < l.lead + l.internal; ++i)
      if (!d.trivial(i)) internal.push_back(i);
    if (internal.size() >= 2 && *rc::gen::weightedElement<bool>({{7, false}, {1, true}})) {
      for (int k = 0; k < 2; ++k) {
        const int i = internal[k];
        d.block[i] = -d.block[i];
        d.start[i] = d.end[i] = d.size[i] = 0;
      }
    }
    d.batch = batch_out * static_cast<std::int64_t>(d.block_product());
  }
  return d;
}

// A boundary case (index_boundaries.h) from a small draw with an internal dim i (BatchToSpaceND's
// negative-block quirk undone: its blocks made positive, -1 becoming 2, on their size-0 dims). block_shape v:
// SpaceToBatchND's output dim o in [0, 2] from an input of size <= 3 and paddings o * v - s;
// BatchToSpaceND's input dim s in [0, 2] cropped to <= 3. paddings or crops v (at either end):
// the other end makes the padded or cropped size a multiple of the block. Where the input or the
// output then passes kMaxCaseElements, the batch or a new remaining dim is 0 (every product
// before that zero stays below 2^56).
Draw draw_at_boundary(Op op, const BoundaryTarget& t) {
  const bool s2b = op == Op::kSpaceToBatchND;
  Draw d = draw_small(op, SpaceBatchMode::kNotIdentity);
  const I128 old_product = d.block_product();
  const std::int64_t batch_out = s2b ? 0 : static_cast<std::int64_t>(d.batch / old_product);
  for (auto& b : d.block) b = b == -1 ? 2 : b < 0 ? -b : b;
  std::vector<int> internal;
  for (int i = 0; i < d.m(); ++i)
    if (!d.trivial(i)) internal.push_back(i);
  const int i = *rc::gen::elementOf(internal);
  const std::int64_t v = t.value;
  if (t.name == "block_shape") {
    d.block[i] = v;
    const std::int64_t n = *rc::gen::inRange<std::int64_t>(0, 3);  // o (SpaceToBatchND) or s
    const std::int64_t small = *rc::gen::inRange<std::int64_t>(0, std::min<std::int64_t>(3, n * v) + 1);
    const std::int64_t total = n * v - small;  // paddings or crops
    d.start[i] = draw_edge(0, total);
    d.end[i] = total - d.start[i];
    d.size[i] = s2b ? small : n;
  } else {
    const std::int64_t b = d.block[i];
    const bool at_start = *rc::gen::arbitrary<bool>();
    // SpaceToBatchND: s + v + e = o * b. BatchToSpaceND: c + v + e = s * b, output c in [0, 3].
    const std::int64_t known = s2b ? d.size[i] : *rc::gen::inRange<std::int64_t>(0, 4);
    const std::int64_t e = (b - (known + v) % b) % b + b * *rc::gen::inRange<std::int64_t>(0, 2);
    (at_start ? d.start[i] : d.end[i]) = v;
    (at_start ? d.end[i] : d.start[i]) = e;
    if (!s2b) d.size[i] = (known + v + e) / b;
  }
  if (!s2b) d.batch = batch_out * static_cast<std::int64_t>(d.block_product());
  // The element counts of the input and the output.
  I128 in = d.batch, out = s2b ? d.batch * d.block_product() : batch_out;
  for (int k = 0; k < d.m(); ++k) {
    const I128 outer = s2b ? (d.size[k] + d.start[k] + d.end[k]) / d.block[k]
                           : static_cast<I128>(d.size[k]) * d.block[k] - d.start[k] - d.end[k];
    in *= d.size[k];
    out *= outer;
  }
  for (std::int64_t r : d.rest) in *= r, out *= r;
  if (in > kMaxCaseElements || out > kMaxCaseElements) {
    if (*rc::gen::arbitrary<bool>())
      d.batch = 0;
    else
      d.rest.insert(d.rest.begin() + *rc::gen::inRange<std::ptrdiff_t>(0, d.rest.size() + 1), 0);
  }
  return d;
}

Draw draw_valid(Op op, SpaceBatchMode mode) {
  if (mode == SpaceBatchMode::kAny && *rc::gen::weightedElement<bool>({{7, false}, {1, true}}))
    return draw_huge_empty(op);
  return draw_small(op, mode == SpaceBatchMode::kAny ? SpaceBatchMode::kSmall : mode);
}

// The boundary cases of the full mix (kAny).
Draw draw_valid_or_at_boundary(Op op, SpaceBatchMode mode) {
  if (mode == SpaceBatchMode::kAny)
    if (const auto target = draw_boundary_target(op)) return draw_at_boundary(op, *target);
  return draw_valid(op, mode);
}

// --- invalid cases -------------------------------------------------------------------------
//
// One generator per check (the tables below): each draws a case of `op` that fails `check`
// first and names `check` as the check it fails.

GeneratedCase draw_invalid(Op op, std::size_t check);

// A base for the pre-checks: a valid case or one failing one of the op's own checks (the
// pre-check must win over both).
GeneratedCase draw_base(Op op) {
  return valid_or_failing(
      checks_after(
          op, op == Op::kSpaceToBatchND ? check_index(S2BCheck::kRegistration) : check_index(B2SCheck::kRegistration)),
      [op] { return build(draw_valid(op, SpaceBatchMode::kAny)); },
      [op](std::size_t own) { return draw_invalid(op, own); });
}

// A base case whose `input` gets a payload of a dtype drawn from `dtypes`.
GeneratedCase base_with_dtype(Op op, const std::string& input, const std::vector<DType>& dtypes,
                              std::string_view check) {
  GeneratedCase g = draw_base(op);
  Tensor& t = std::get<Tensor>(g.c.inputs.at(input));
  t = *gen_payload(*gen_dtype_among(dtypes), t.shape());
  g.check = check;
  return g;
}

// Picks a dim of the internal span of a Draw that has one.
int draw_span_dim(const Draw& d) {
  const auto [first, last] = d.span();
  return *rc::gen::inRange(first, last + 1);
}

// README pre-check 1: block_shape of a dtype other than int32 and int64.
GeneratedCase block_shape_not_int(Op op, std::string_view check) {
  return base_with_dtype(op, "block_shape", dtypes_except({DType::kInt32, DType::kInt64}), check);
}
// README pre-check 1: paddings or crops of a dtype other than int32 and int64.
GeneratedCase paddings_or_crops_not_int(Op op, std::string_view check) {
  return base_with_dtype(op, paddings_or_crops_name(op), dtypes_except({DType::kInt32, DType::kInt64}), check);
}

// README pre-check 3: T not registered.
GeneratedCase input_unregistered(Op op, std::string_view check) {
  return base_with_dtype(op, "input", unregistered_dtypes(op), check);
}

// Check 1: block_shape a scalar or of rank 2 or 3.
GeneratedCase block_shape_not_vector(Op op, std::string_view check) {
  const Draw d = draw_valid(op, SpaceBatchMode::kSmall);
  std::vector<std::int64_t> values = d.block;
  Shape shape = *rc::gen::elementOf(std::vector<Shape>{{}, {1, d.m()}, {d.m(), 1}, {d.m(), 1, 1}});
  if (shape.empty()) values = {d.m() > 0 ? d.block[0] : 2};
  return build(op, check, *gen_payload(d.dtype, d.input_shape()),
               index_tensor(fitting(d.block_dtype, values), shape, values), paddings_or_crops_tensor(d));
}

// Check 2: an input of rank M or less.
GeneratedCase input_rank_too_small(Op op, std::string_view check) {
  const Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  const Shape full = d.input_shape();
  const Shape shape(full.begin(), full.begin() + *rc::gen::inRange(0, d.m() + 1));
  return build(op, check, *gen_payload(d.dtype, shape), block_tensor(d), paddings_or_crops_tensor(d));
}

// Check 3: paddings or crops of a shape other than [M, 2].
GeneratedCase paddings_or_crops_not_m_by_2(Op op, std::string_view check) {
  const Draw d = draw_valid(op, SpaceBatchMode::kSmall);
  const std::int64_t m = d.m();
  std::vector<Shape> wrong = {{m}, {m, 3}, {m + 1, 2}, {m, 2, 1}, {}, {m, 1}};
  if (m >= 1) wrong.push_back({m - 1, 2});
  if (m != 2) wrong.push_back({2, m});
  const Shape shape = *rc::gen::elementOf(wrong);
  const std::int64_t count = checked_num_elements(shape);
  const auto values = *rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(count),
                                                                     rc::gen::inRange<std::int64_t>(0, 4));
  return build(op, check, *gen_payload(d.dtype, d.input_shape()), block_tensor(d),
               index_tensor(d.paddings_or_crops_dtype, shape, values));
}

// Check 4 of SpaceToBatchND: a block value below 1.
GeneratedCase block_not_positive(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  const int i = *rc::gen::inRange(0, d.m());
  d.block[i] = draw_edge(dtype_min(d.block_dtype), 0);
  return build(d, check);
}

// 2 to 6 block values (3 to 6 in int32) whose product reaches 2^63 only at the last.
std::vector<std::int64_t> draw_blocks_reaching_2pow63(const Draw& d) {
  const int m = *rc::gen::inRange(d.block_dtype == DType::kInt32 ? 3 : 2, 7);
  return factors_reaching_2pow63(m, dtype_max(d.block_dtype));
}

// Check 5 of SpaceToBatchND: the checked product turns negative at the last factor.
GeneratedCase block_product_wraps(Op op, std::string_view check) {
  Draw d = typed_draw(op);
  for (std::int64_t b : draw_blocks_reaching_2pow63(d))
    d.add_dim(b, 0, *rc::gen::inRange<std::int64_t>(0, 3), *rc::gen::inRange<std::int64_t>(0, 3));
  d.batch = *rc::gen::inRange<std::int64_t>(0, 3);
  return build(d, check);
}

// Check 4 of BatchToSpaceND: the exact product lies outside int64 (no zero factor; signs
// anywhere; the prefix stays inside, so only the last factor takes it out).
GeneratedCase block_product_past_int64(Op op, std::string_view check) {
  Draw d = typed_draw(op);
  for (std::int64_t b : draw_blocks_reaching_2pow63(d))
    d.add_dim(*rc::gen::arbitrary<bool>() ? -b : b, 0, 0, *rc::gen::inRange<std::int64_t>(0, 3));
  if (d.block_product() == -kTwoPow63) d.block[0] = -d.block[0];  // -2^63 fits: make it +2^63
  d.batch = *rc::gen::inRange<std::int64_t>(0, 3);
  return build(d, check);
}

// m block values of any size and sign, one of them 0.
void add_blocks_with_a_zero(Draw& d, int m) {
  for (int i = 0; i < m; ++i) d.add_dim(draw_edge(dtype_min(d.block_dtype), dtype_max(d.block_dtype)), 0, 0, 1);
  d.block[*rc::gen::inRange(0, m)] = 0;
}

// m block values, an odd number of them negative, with |product| <= 2^63 (so -2^63 fits).
void add_blocks_with_negative_product(Draw& d, int m) {
  I128 p = 1;
  for (int i = 0; i < m; ++i) {
    const auto cap = static_cast<std::int64_t>(std::min<I128>(dtype_max(d.block_dtype), kTwoPow63 / p));
    d.add_dim(draw_edge(1, cap), 0, 0, *rc::gen::inRange<std::int64_t>(0, 3));
    p *= d.block.back();
  }
  int negatives = 0;
  for (int i = 0; i < m; ++i)
    if (*rc::gen::arbitrary<bool>()) d.block[i] = -d.block[i], ++negatives;
  if (negatives % 2 == 0) d.block[0] = -d.block[0];
}

// Check 4 of BatchToSpaceND: the exact product is 0 or negative (down to -2^63 exactly).
GeneratedCase block_product_not_positive(Op op, std::string_view check) {
  Draw d = typed_draw(op);
  const int m = *rc::gen::inRange(1, 7);
  if (*rc::gen::arbitrary<bool>())
    add_blocks_with_a_zero(d, m);
  else
    add_blocks_with_negative_product(d, m);
  d.batch = *rc::gen::inRange<std::int64_t>(0, 3);
  return build(d, check);
}

// Check 5 of BatchToSpaceND: an input batch that the block product (>= 2) does not divide.
GeneratedCase batch_not_divisible(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  const int i = d.span().first;
  if (d.block[i] == 1 || d.block[i] == -1) d.block[i] *= 2;
  if (*rc::gen::weightedElement<bool>({{2, false}, {1, true}}))
    d.block[i] = (d.block[i] < 0 ? -1 : 1) * draw_edge(2, kInt32Max);
  const auto p = static_cast<std::int64_t>(d.block_product());  // >= 2
  d.batch = *rc::gen::inRange<std::int64_t>(1, std::min<std::int64_t>(p - 1, 7) + 1);
  if (p <= 8 && *rc::gen::arbitrary<bool>()) d.batch += p;
  return build(d, check);
}

// Check 6: more than four internal dims; blocks small and positive; input empty or small.
GeneratedCase too_many_internal_dims(Op op, std::string_view check) {
  Draw d = typed_draw(op);
  Layout l;
  l.m = *rc::gen::inRange(5, 7);
  l.internal = *rc::gen::inRange(5, l.m + 1);
  l.lead = *rc::gen::inRange(0, l.m - l.internal + 1);
  SizeBudget budget(kMaxCaseElements);
  for (int i = 0; i < l.m; ++i) {
    if (!draw_nontrivial(l, i)) {
      d.add_dim(1, 0, 0, budget.draw(0, 2));
      continue;
    }
    const std::int64_t b = *rc::gen::inRange<std::int64_t>(1, 4);
    const std::int64_t total = *rc::gen::inRange<std::int64_t>(b == 1 ? 1 : 0, 4);
    const std::int64_t s = *rc::gen::inRange<std::int64_t>(0, total + 1);
    d.add_dim(b, s, total - s, budget.draw(0, 2));
  }
  const auto p = static_cast<std::int64_t>(d.block_product());
  d.batch = op == Op::kSpaceToBatchND ? budget.draw(0, 3) : p * *rc::gen::inRange(0, 2);
  if (d.batch > 0 && op == Op::kBatchToSpaceND) d.size[0] = 0;  // keeps the input empty
  return build(d, check);
}

// Check 8 of SpaceToBatchND: B * P overflows (the input is empty: a zero-size dim after B).
GeneratedCase batch_times_blocks_overflows(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  const int i = d.span().first;
  d.block[i] = std::max<std::int64_t>(d.block[i], 2);
  const auto p = static_cast<std::int64_t>(d.block_product());
  d.batch = draw_edge(static_cast<std::int64_t>((kTwoPow63 + p - 1) / p), kInt64Max);
  d.size[0] = 0;
  return build(d, check);
}

// The output shape's element count of SpaceToBatchND overflows at a dim of the output while
// the input stays valid, because it has a zero-size spatial dim there. Each takes a Draw with
// its dtypes drawn.

// At the last of one or two leading trivial dims (internal dims of size 0 follow).
void overflow_at_leading_dim(Draw& d) {
  const int lead = *rc::gen::inRange(1, 3);
  std::vector<std::int64_t> prefix;
  d.batch = *rc::gen::inRange<std::int64_t>(1, (1 << 20) + 1);
  I128 x = d.batch;  // the input's running product
  for (int i = 0; i + 1 < lead; ++i) {
    prefix.push_back(*rc::gen::inRange<std::int64_t>(1, (1 << 10) + 1));
    x *= prefix.back();
  }
  const int internal = *rc::gen::inRange(1, 3);
  std::vector<std::int64_t> blocks;
  I128 p = 1;
  for (int i = 0; i < internal; ++i) {
    blocks.push_back(*rc::gen::inRange<std::int64_t>(2, 5));
    p *= blocks.back();
  }
  const I128 q = x * p;  // the output's running product before the last prefix dim
  prefix.push_back(
      draw_edge(static_cast<std::int64_t>((kTwoPow63 + q - 1) / q), static_cast<std::int64_t>((kTwoPow63 - 1) / x)));
  for (std::int64_t s : prefix) d.add_dim(1, 0, 0, s);
  for (std::int64_t b : blocks) d.add_dim(b, 0, 0, 0);
}

// At an internal dim padded up from size 0 (perhaps after a trivial and a valid internal dim).
void overflow_at_padded_dim(Draw& d) {
  d.batch = *rc::gen::inRange<std::int64_t>(2, (1 << 10) + 1);
  if (*rc::gen::arbitrary<bool>()) d.add_dim(1, 0, 0, *rc::gen::inRange<std::int64_t>(1, 5));
  I128 q = d.batch * static_cast<I128>(d.m() > 0 ? d.size[0] : 1);
  if (*rc::gen::arbitrary<bool>()) {  // a valid internal dim before it
    const std::int64_t b = *rc::gen::inRange<std::int64_t>(2, 4), o = *rc::gen::inRange<std::int64_t>(1, 4);
    d.add_dim(b, 0, 0, o * b);
    q *= b * o;
  }
  const std::int64_t b = *rc::gen::inRange<std::int64_t>(1, 5);
  q *= b;  // B * P also holds this dim's block
  const auto o =
      draw_edge(static_cast<std::int64_t>((kTwoPow63 + q - 1) / q), static_cast<std::int64_t>((kTwoPow63 - 1) / b));
  const std::int64_t total = o * b;
  const std::int64_t s = draw_edge(0, total);
  d.add_dim(b, s, total - s, 0);
}

// At a remaining dim, after an internal dim padded from 0 to one block.
void overflow_at_remaining_dim(Draw& d) {
  d.batch = *rc::gen::inRange<std::int64_t>(2, (1 << 10) + 1);
  const std::int64_t b = *rc::gen::inRange<std::int64_t>(1, 5);
  d.add_dim(b, 0, b, 0);
  I128 q = static_cast<I128>(d.batch) * b;
  const int rest = *rc::gen::inRange(1, 4);
  for (int r = 0; r + 1 < rest; ++r) {
    d.rest.push_back(*rc::gen::inRange<std::int64_t>(1, (1 << 10) + 1));
    q *= d.rest.back();
  }
  d.rest.push_back(draw_edge(static_cast<std::int64_t>((kTwoPow63 + q - 1) / q), kInt64Max));
}

// Checks 9-11 of SpaceToBatchND: the output shape's element count overflows.
GeneratedCase output_shape_overflows(Op op, std::string_view check) {
  Draw d = typed_draw(Op::kSpaceToBatchND);
  constexpr void (*kWhere[])(Draw&) = {overflow_at_leading_dim, overflow_at_padded_dim, overflow_at_remaining_dim};
  kWhere[*rc::gen::inRange(0, 3)](d);
  return build(d, check);
}

// Check 10 / 9: a negative padding or crop on an internal dim (earlier dims valid).
GeneratedCase negative_pair(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  const int i = draw_span_dim(d);
  (*rc::gen::arbitrary<bool>() ? d.start : d.end)[i] = draw_edge(dtype_min(d.paddings_or_crops_dtype), -1);
  return build(d, check);
}

// Check 10 (deviation): s_i + pad_start_i + pad_end_i overflows, at the first or second add.
GeneratedCase padded_size_overflows(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  d.batch = 0;
  const int i = draw_span_dim(d);
  d.size[i] = draw_edge(0, kInt64Max);
  d.start[i] = draw_edge(d.size[i] == 0 ? 1 : 0, kInt64Max);  // s + start >= 1: end can pass 2^63 - 1
  const I128 sum = static_cast<I128>(d.size[i]) + d.start[i];
  d.end[i] =
      sum > kInt64Max ? draw_edge(0, kInt64Max) : draw_edge(static_cast<std::int64_t>(kTwoPow63 - sum), kInt64Max);
  return build(d, check);
}

// Check 10: a padded size that its block value does not divide.
GeneratedCase padded_not_divisible(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  const int i = draw_span_dim(d);
  if (d.block[i] == 1) d.block[i] = *rc::gen::inRange<std::int64_t>(2, 5);
  if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) d.block[i] = draw_edge(2, kInt32Max);
  const std::int64_t padded = d.size[i] + d.start[i] + d.end[i];
  const std::int64_t remainder = padded % d.block[i];
  if (remainder == 0) d.end[i] += *rc::gen::inRange<std::int64_t>(1, std::min<std::int64_t>(d.block[i] - 1, 5) + 1);
  return build(d, check);
}

// s_i * b_i above int64 at dim i, with zero crops.
void size_times_block_past_int64(Draw& d, int i) {
  I128 others = 1;
  for (int k = 0; k < d.m(); ++k)
    if (k != i) others *= d.block[k] < 0 ? -d.block[k] : d.block[k];
  const auto cap =
      static_cast<std::int64_t>(std::min<I128>(dtype_max(d.block_dtype), (kTwoPow63 - 1) / std::max<I128>(1, others)));
  d.block[i] = draw_edge(2, std::max<std::int64_t>(2, cap));
  if (d.block_product() < 0) d.block[i] = -d.block[i];  // another dim has the quirk's sign
  // s * |b| >= 2^63 overflows a positive product; a negative one must pass 2^63 (-2^63 fits).
  const std::int64_t magnitude = d.block[i] < 0 ? -d.block[i] : d.block[i];
  const I128 lo = d.block[i] > 0 ? (kTwoPow63 + magnitude - 1) / magnitude : kTwoPow63 / magnitude + 1;
  d.size[i] = draw_edge(static_cast<std::int64_t>(lo), kInt64Max);
  d.start[i] = d.end[i] = 0;
}

// s_i * b_i - crop_start_i - crop_end_i below -2^63 at dim i.
void crops_past_int64_min(Draw& d, int i) {
  d.block[i] = std::abs(d.block[i]);
  if (d.block_product() <= 0) d.block[i] = -d.block[i];
  d.start[i] = draw_edge(std::int64_t{1} << 62, kInt64Max);
  const I128 sb = static_cast<I128>(d.size[i]) * d.block[i];
  d.end[i] = draw_edge(static_cast<std::int64_t>(std::max<I128>(0, kTwoPow63 + sb - d.start[i] + 1)), kInt64Max);
}

// Check 9 (deviation): s_i * b_i - crop_start_i - crop_end_i lies outside int64.
GeneratedCase cropped_size_past_int64(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  d.batch = 0;
  const int i = draw_span_dim(d);
  if (*rc::gen::arbitrary<bool>())
    size_times_block_past_int64(d, i);
  else
    crops_past_int64_min(d, i);
  return build(d, check);
}

// The quirk's other side: the span's end block values negated, the first on a non-empty dim.
// False, with d unchanged, when the span's ends are one dim or not both positive, or (two in
// three) by chance.
bool negate_span_ends(Draw& d) {
  const auto [first, last] = d.span();
  if (!(last > first && d.block[first] > 0 && d.block[last] > 0 &&
        *rc::gen::weightedElement<bool>({{2, false}, {1, true}})))
    return false;
  const std::int64_t batch_out = d.batch / static_cast<std::int64_t>(d.block_product());
  d.block[first] = -d.block[first];
  d.block[last] = -d.block[last];
  if (d.size[first] == 0) d.size[first] = 1;
  d.batch = batch_out * static_cast<std::int64_t>(d.block_product());
  return true;
}

// Crops of an internal dim that add up to more than s_i * b_i.
void crops_past_size(Draw& d) {
  const int i = draw_span_dim(d);
  const I128 sb = static_cast<I128>(d.size[i]) * d.block[i];
  const std::int64_t over = draw_edge(1, static_cast<std::int64_t>(std::min<I128>(kInt64Max - sb, kTwoPow63 + sb)));
  const std::int64_t total = static_cast<std::int64_t>(sb + over);
  d.start[i] = *rc::gen::inRange<std::int64_t>(-1, total) + 1;  // [0, total]; total may be 2^63-1
  d.end[i] = total - d.start[i];
}

// Check 9 of BatchToSpaceND: a cropped size below 0.
GeneratedCase cropped_size_negative(Op op, std::string_view check) {
  Draw d = draw_valid(op, SpaceBatchMode::kNotIdentity);
  if (!negate_span_ends(d)) crops_past_size(d);
  return build(d, check);
}

// SpaceToBatchND: an output of 2^33 to 2^40 elements per block from an empty input.
Draw draw_huge_output_of_empty_input(Op op) {
  Draw d = typed_draw(op);
  d.batch = 1;
  const std::int64_t b = *rc::gen::inRange<std::int64_t>(2, (1 << 20) + 1);
  const std::int64_t o = draw_edge(((std::int64_t{1} << 33) + b - 1) / b, std::int64_t{1} << 40);
  const std::int64_t s = *rc::gen::inRange<std::int64_t>(0, o * b + 1);
  d.add_dim(b, s, o * b - s, 0);
  return d;
}

// The memory limit: a valid case under a limit below its request, or (SpaceToBatchND, half the
// time) a huge output under the default limit.
GeneratedCase request_past_memory_limit(Op op, std::string_view check) {
  if (op == Op::kSpaceToBatchND && *rc::gen::arbitrary<bool>())
    return build(draw_huge_output_of_empty_input(op), check);
  return with_memory_limit_below_request(build(draw_valid(op, SpaceBatchMode::kNotIdentity), check));
}

// The generators of each op's checks, by check (a check without one does not compile).
using GenerateFn = GeneratedCase (*)(Op op, std::string_view check);
constexpr auto kS2BGenerators = by_check<kNumS2BChecks, S2BCheck, GenerateFn>(
    {
        {S2BCheck::kArgTypesBlockShape, block_shape_not_int},
        {S2BCheck::kArgTypesPaddings, paddings_or_crops_not_int},
        {S2BCheck::kRegistration, input_unregistered},
        {S2BCheck::kBlockShapeRank, block_shape_not_vector},
        {S2BCheck::kInputRank, input_rank_too_small},
        {S2BCheck::kPaddingsShape, paddings_or_crops_not_m_by_2},
        {S2BCheck::kBlockPositive, block_not_positive},
        {S2BCheck::kBlockProduct, block_product_wraps},
        {S2BCheck::kMaxInternalDims, too_many_internal_dims},
        {S2BCheck::kBatchOverflow, batch_times_blocks_overflows},
        {S2BCheck::kOutputShapeOverflow, output_shape_overflows},
        {S2BCheck::kPaddingsNegative, negative_pair},
        {S2BCheck::kPaddedOverflow, padded_size_overflows},
        {S2BCheck::kDivisibility, padded_not_divisible},
        {S2BCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);
constexpr auto kB2SGenerators = by_check<kNumB2SChecks, B2SCheck, GenerateFn>(
    {
        {B2SCheck::kArgTypesBlockShape, block_shape_not_int},
        {B2SCheck::kArgTypesCrops, paddings_or_crops_not_int},
        {B2SCheck::kRegistration, input_unregistered},
        {B2SCheck::kBlockShapeRank, block_shape_not_vector},
        {B2SCheck::kInputRank, input_rank_too_small},
        {B2SCheck::kCropsShape, paddings_or_crops_not_m_by_2},
        {B2SCheck::kBlockProductOverflow, block_product_past_int64},
        {B2SCheck::kBlockProductPositive, block_product_not_positive},
        {B2SCheck::kBatchDivisible, batch_not_divisible},
        {B2SCheck::kMaxInternalDims, too_many_internal_dims},
        {B2SCheck::kCropsNegative, negative_pair},
        {B2SCheck::kCroppedOverflow, cropped_size_past_int64},
        {B2SCheck::kCroppedNegative, cropped_size_negative},
        {B2SCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);

GeneratedCase draw_invalid(Op op, std::size_t check) {
  if (op == Op::kSpaceToBatchND) return kS2BGenerators.at(check)(op, kSpaceToBatchNDChecks[check].id);
  return kB2SGenerators.at(check)(op, kBatchToSpaceNDChecks[check].id);
}

// --- predicted outputs ---------------------------------------------------------------------

struct Parsed {
  Shape input;
  DType dtype;
  std::vector<std::int64_t> block, paddings_or_crops;
  bool identity = false;
};

std::optional<Parsed> parse(const conformance::Case& c) {
  const Tensor& input = input_tensor(c, "input");
  const Tensor& block = input_tensor(c, "block_shape");
  const Tensor& paddings_or_crops = input_tensor(c, paddings_or_crops_name(c.op));
  auto index = [](const Tensor& t) { return t.dtype() == DType::kInt32 || t.dtype() == DType::kInt64; };
  if (!index(block) || !index(paddings_or_crops) || block.rank() != 1) return std::nullopt;
  const std::int64_t m = block.dim(0);
  if (input.rank() < m + 1 || paddings_or_crops.shape() != Shape{m, 2}) return std::nullopt;
  Parsed p{input.shape(), input.dtype(), index_values(block), index_values(paddings_or_crops)};
  int first = 0, last = static_cast<int>(m) - 1;
  auto trivial = [&](int i) {
    return p.block[i] == 1 && p.paddings_or_crops[2 * i] == 0 && p.paddings_or_crops[2 * i + 1] == 0;
  };
  while (first < m && trivial(first)) ++first;
  while (last >= first && trivial(last)) --last;
  if (last - first + 1 > 4) return std::nullopt;
  p.identity = last < first;
  return p;
}

rc::Gen<GeneratedCase> invalid_by_index(Op op, std::size_t check) {
  return rc::gen::exec([op, check] { return draw_invalid(op, check); });
}

// TF_CALL_REAL_NUMBER_TYPES: what tf-cpu registers of both ops.
std::vector<DType> real_number_types() {
  return {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,   DType::kInt16,
          DType::kInt32,   DType::kInt64,   DType::kUInt8,   DType::kUInt16,   DType::kUInt32, DType::kUInt64};
}

// large_valid_case: one trailing dim appended to the input, with a fresh payload.
void widen_input(GeneratedCase& g) {
  Tensor& data = std::get<Tensor>(g.c.inputs.at("input"));
  if (const std::int64_t bytes = widen::data_bytes(data); bytes > 0)
    data = *gen_payload(data.dtype(), widen::appended(data.shape(), widen::widening(bytes)));
}

// grow_valid_case: `times` the input along the batch, along one spatial dim (by
// whole blocks for SpaceToBatchND, so the padded size stays divisible), or along a new trailing
// dim; validity is kept by construction.
void grow_space_batch(conformance::Case& c, std::int64_t times) {
  Tensor& input = input_tensor(c, "input");
  const std::vector<std::int64_t> block = index_values(input_tensor(c, "block_shape"));
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
    if (c.op == Op::kSpaceToBatchND)
      size += block[i] * std::max<std::int64_t>(1, (size * (times - 1)) / block[i]);
    else
      size = std::max<std::int64_t>(1, size) * times;
  } else {
    shape.push_back(times);
  }
  input = *gen_payload(input.dtype(), shape);
}

}  // namespace

rc::Gen<GeneratedCase> valid_space_to_batch_nd(SpaceBatchMode mode) {
  return rc::gen::exec([mode] { return build(draw_valid_or_at_boundary(Op::kSpaceToBatchND, mode)); });
}
rc::Gen<GeneratedCase> invalid_space_to_batch_nd(std::string_view check) {
  return invalid_by_index(Op::kSpaceToBatchND, check_index(Op::kSpaceToBatchND, check));
}
rc::Gen<GeneratedCase> valid_batch_to_space_nd(SpaceBatchMode mode) {
  return rc::gen::exec([mode] { return build(draw_valid_or_at_boundary(Op::kBatchToSpaceND, mode)); });
}
rc::Gen<GeneratedCase> invalid_batch_to_space_nd(std::string_view check) {
  return invalid_by_index(Op::kBatchToSpaceND, check_index(Op::kBatchToSpaceND, check));
}

std::optional<std::vector<PredictedOutput>> space_to_batch_nd_outputs(const conformance::Case& c) {
  const std::optional<Parsed> p = parse(c);
  if (!p) return std::nullopt;
  if (p->identity) return std::vector<PredictedOutput>{};
  std::int64_t product = 1;
  for (std::int64_t b : p->block) {
    if (b < 1) return std::nullopt;
    product = multiply_without_overflow(product, b);
  }
  if (product <= 0) return std::nullopt;
  ShapeBuilder shape;
  if (!shape.add_dim(multiply_without_overflow(p->input[0], product)).ok()) return std::nullopt;
  for (std::size_t i = 0; i < p->block.size(); ++i) {
    std::int64_t padded = 0;
    if (p->paddings_or_crops[2 * i] < 0 || p->paddings_or_crops[2 * i + 1] < 0 ||
        __builtin_add_overflow(p->input[1 + i], p->paddings_or_crops[2 * i], &padded) ||
        __builtin_add_overflow(padded, p->paddings_or_crops[2 * i + 1], &padded) || padded % p->block[i] != 0 ||
        !shape.add_dim(padded / p->block[i]).ok())
      return std::nullopt;
  }
  for (std::size_t d = 1 + p->block.size(); d < p->input.size(); ++d)
    if (!shape.add_dim(p->input[d]).ok()) return std::nullopt;
  return std::vector<PredictedOutput>{{p->dtype, shape.dims()}};
}

std::optional<std::vector<PredictedOutput>> batch_to_space_nd_outputs(const conformance::Case& c) {
  const std::optional<Parsed> p = parse(c);
  if (!p) return std::nullopt;
  I128 product = 1;
  for (std::int64_t b : p->block)
    if (__builtin_mul_overflow(product, static_cast<I128>(b), &product)) return std::nullopt;
  if (product <= 0 || product > kInt64Max || p->input[0] % static_cast<std::int64_t>(product) != 0) return std::nullopt;
  if (p->identity) return std::vector<PredictedOutput>{};
  ShapeBuilder shape;
  if (!shape.add_dim(p->input[0] / static_cast<std::int64_t>(product)).ok()) return std::nullopt;
  for (std::size_t i = 0; i < p->block.size(); ++i) {
    const I128 cropped = static_cast<I128>(p->input[1 + i]) * p->block[i] - p->paddings_or_crops[2 * i] -
                         p->paddings_or_crops[2 * i + 1];
    if (p->paddings_or_crops[2 * i] < 0 || p->paddings_or_crops[2 * i + 1] < 0 || cropped < 0 || cropped > kInt64Max ||
        !shape.add_dim(static_cast<std::int64_t>(cropped)).ok())
      return std::nullopt;
  }
  for (std::size_t d = 1 + p->block.size(); d < p->input.size(); ++d)
    if (!shape.add_dim(p->input[d]).ok()) return std::nullopt;
  return std::vector<PredictedOutput>{{p->dtype, shape.dims()}};
}

// --- the checks' breakers (check_pairs.h) --------------------------------------------------

namespace breakers {
namespace {

// The block dims of a case whose block_shape is [m] and paddings_or_crops [m, 2] (else nullopt).
struct Blocks {
  std::vector<std::int64_t> block, paddings_or_crops;
  int m() const { return static_cast<int>(block.size()); }
  bool trivial(int i) const {
    return block[i] == 1 && paddings_or_crops[2 * i] == 0 && paddings_or_crops[2 * i + 1] == 0;
  }
  int first_nontrivial() const {
    for (int i = 0; i < m(); ++i)
      if (!trivial(i)) return i;
    return m() > 0 ? 0 : -1;
  }
  I128 product() const { return exact_product(block); }
};
std::optional<Blocks> blocks_of(conformance::Case& c) {
  const Tensor& block = tensor(c, "block_shape");
  const Tensor& paddings_or_crops = tensor(c, paddings_or_crops_name(c.op));
  for (const Tensor* t : {&block, &paddings_or_crops})
    if (t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64) return std::nullopt;
  if (block.rank() != 1 || paddings_or_crops.rank() != 2 || paddings_or_crops.dim(0) != block.dim(0) ||
      paddings_or_crops.dim(1) != 2)
    return std::nullopt;
  return Blocks{index_values(block), index_values(paddings_or_crops)};
}
// Writes the block values (int64 when a value leaves int32) and paddings_or_crops (int64 always when
// `wide_paddings_or_crops`).
void set_blocks(conformance::Case& c, const Blocks& b, bool wide_paddings_or_crops = false) {
  const auto fits32 = [](const std::vector<std::int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x >= kInt32Min && x <= kInt32Max; });
  };
  Tensor& block = tensor(c, "block_shape");
  Tensor& paddings_or_crops = tensor(c, paddings_or_crops_name(c.op));
  block = index_tensor(fits32(b.block) ? block.dtype() : DType::kInt64, {b.m()}, b.block);
  paddings_or_crops =
      index_tensor(!wide_paddings_or_crops && fits32(b.paddings_or_crops) ? paddings_or_crops.dtype() : DType::kInt64,
                   {b.m(), 2}, b.paddings_or_crops);
}

std::int64_t index_max(const Tensor& t) { return t.dtype() == DType::kInt32 ? kInt32Max : kInt64Max; }

// Raises block values (keeping their signs, none zero) until |product| > 2^63 - 1 + extra.
bool raise_block_product(conformance::Case& c, Blocks& b, I128 target) {
  const std::int64_t dmax = index_max(tensor(c, "block_shape"));
  const int start = *rc::gen::inRange(0, b.m());
  for (int k = 0; k < b.m(); ++k) {
    const int i = (start + k) % b.m();
    I128 others = 1;
    for (int k = 0; k < b.m(); ++k)
      if (k != i) others *= b.block[k] < 0 ? -b.block[k] : b.block[k];
    if (others >= target) return true;
    const I128 need = (target + others - 1) / others;
    const std::int64_t sign = b.block[i] < 0 ? -1 : 1;
    if (need <= dmax) {
      b.block[i] = sign * static_cast<std::int64_t>(need);
      return true;
    }
    b.block[i] = sign * dmax;
  }
  return false;
}

bool break_arg_types_block_shape(conformance::Case& c) {
  tensor(c, "block_shape") = retyped(tensor(c, "block_shape"), non_index_dtype());
  return true;
}

bool break_paddings_or_crops_type(conformance::Case& c) {
  tensor(c, paddings_or_crops_name(c.op)) = retyped(tensor(c, paddings_or_crops_name(c.op)), non_index_dtype());
  return true;
}

bool break_registration(conformance::Case& c) {
  tensor(c, "input") = retyped(tensor(c, "input"), *gen_dtype_among(unregistered_dtypes(c.op)));
  return true;
}

bool break_block_shape_rank(conformance::Case& c) {
  Tensor& block = tensor(c, "block_shape");
  if (block.rank() != 1) return false;
  const std::int64_t m = block.dim(0);
  std::vector<Shape> shapes = {{1, m}, {m, 1}};
  if (m == 1) shapes.push_back({});
  block = reshaped(block, *rc::gen::elementOf(shapes));
  return true;
}

bool break_input_rank(conformance::Case& c) {
  Tensor& input = tensor(c, "input");
  const Tensor& block = tensor(c, "block_shape");
  const std::int64_t m = block.rank() == 1 ? block.dim(0) : 0;
  if (input.rank() <= m) return false;
  const auto rank = static_cast<std::size_t>(*rc::gen::inRange<std::int64_t>(0, m + 1));
  const Shape shape(input.shape().begin(), input.shape().begin() + static_cast<std::ptrdiff_t>(rank));
  return reshape_fresh(input, shape);
}

bool break_paddings_or_crops_shape(conformance::Case& c) {
  Tensor& t = tensor(c, paddings_or_crops_name(c.op));
  if (t.rank() != 2) return false;
  const std::int64_t m = t.dim(0);
  t = reshaped(t, *rc::gen::elementOf(std::vector<Shape>{{m, 2, 1}, {1, m, 2}, {2 * m}}));
  return true;
}

bool break_block_positive(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl || bl->m() == 0) return false;
  const int i = *rc::gen::inRange(0, bl->m());
  bl->block[i] = bl->block[i] > 0 && *rc::gen::arbitrary<bool>() ? -bl->block[i] : 0;
  set_blocks(c, *bl);
  return true;
}

bool break_block_product(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl || bl->m() < 2 || bl->product() <= 0) return false;
  if (!raise_block_product(c, *bl, kTwoPow63)) return false;
  set_blocks(c, *bl);
  return true;
}

bool break_block_product_overflow(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl || bl->m() < 2 || bl->product() == 0) return false;
  if (!raise_block_product(c, *bl, kTwoPow63 + 1)) return false;
  set_blocks(c, *bl);
  return true;
}

bool break_block_product_positive(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl || bl->m() == 0) return false;
  bl->block[*rc::gen::inRange(0, bl->m())] = 0;
  set_blocks(c, *bl);
  return true;
}

bool break_batch_divisible(conformance::Case& c) {
  auto bl = blocks_of(c);
  Tensor& input = tensor(c, "input");
  if (!bl || input.rank() == 0 || bl->product() < 2 || bl->product() > kInt64Max) return false;
  Shape shape = input.shape();
  shape[0] += 1;
  return reshape_fresh(input, shape);
}

// Five more block dims of block 2 and size 0 after the others: more than four internal dims.
bool break_max_internal_dims(conformance::Case& c) {
  auto bl = blocks_of(c);
  Tensor& input = tensor(c, "input");
  if (!bl || input.rank() < bl->m() + 1) return false;
  Shape shape = input.shape();
  for (int k = 0; k < 5; ++k) {
    bl->block.push_back(2);
    bl->paddings_or_crops.insert(bl->paddings_or_crops.end(), {0, 0});
    shape.insert(shape.begin() + 1 + bl->m() - 1, 0);
  }
  if (c.op != Op::kSpaceToBatchND) {
    if (shape[0] > kInt64Max / 32) return false;
    shape[0] *= 32;
  }
  set_blocks(c, *bl);
  return reshape_fresh(input, shape);
}

// B * P overflows; the input stays empty (a dim of size 0 after the batch).
bool break_batch_overflow(conformance::Case& c) {
  auto bl = blocks_of(c);
  Tensor& input = tensor(c, "input");
  if (!bl || input.rank() < 1) return false;
  const I128 p = bl->product();
  if (p < 2 || p > kInt64Max) return false;
  Shape shape = input.shape();
  if (std::find(shape.begin() + 1, shape.end(), 0) == shape.end()) shape.push_back(0);
  shape[0] = draw_edge(static_cast<std::int64_t>((kTwoPow63 + p - 1) / p), kInt64Max);
  return reshape_fresh(input, shape);
}

// Two leading trivial dims, of sizes s and 0: the output's element count overflows at s,
// before any internal dim is looked at; the input stays empty.
bool break_output_shape_overflow(conformance::Case& c) {
  auto bl = blocks_of(c);
  Tensor& input = tensor(c, "input");
  if (!bl || input.rank() < bl->m() + 1) return false;
  const I128 p = bl->product();
  if (p < 2 || p > kInt64Max) return false;
  Shape shape = input.shape();
  shape[0] = std::max<std::int64_t>(shape[0], 1);
  const I128 batch_out = static_cast<I128>(shape[0]) * p;
  if (batch_out >= kTwoPow63) return false;
  const I128 lo = (kTwoPow63 + batch_out - 1) / batch_out, hi = (kTwoPow63 - 1) / shape[0];
  if (lo > hi) return false;
  const std::int64_t s = draw_edge(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
  shape.insert(shape.begin() + 1, {s, 0});
  bl->block.insert(bl->block.begin(), {1, 1});
  bl->paddings_or_crops.insert(bl->paddings_or_crops.begin(), {0, 0, 0, 0});
  set_blocks(c, *bl);
  return reshape_fresh(input, shape);
}

// The per-dim checks: broken at the first internal dim, which is checked first.
bool break_negative_pair(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl || bl->m() == 0) return false;
  const int i = bl->first_nontrivial();
  bl->paddings_or_crops[2 * i + *rc::gen::inRange(0, 2)] = -*rc::gen::inRange<std::int64_t>(1, 3);
  set_blocks(c, *bl);
  return true;
}

bool break_padded_overflow(conformance::Case& c) {
  auto bl = blocks_of(c);
  const Tensor& input = tensor(c, "input");
  if (!bl || bl->m() == 0 || input.rank() < bl->m() + 1) return false;
  const int i = bl->first_nontrivial();
  if (input.dim(1 + i) + bl->paddings_or_crops[2 * i] == 0) bl->paddings_or_crops[2 * i] = 1;
  bl->paddings_or_crops[2 * i + 1] = kInt64Max;
  set_blocks(c, *bl, true);
  return true;
}

bool break_divisibility(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl) return false;
  for (int i = 0; i < bl->m(); ++i) {
    if (bl->block[i] < 2 || bl->paddings_or_crops[2 * i + 1] == kInt64Max) continue;
    bl->paddings_or_crops[2 * i + 1] += 1;
    set_blocks(c, *bl);
    return true;
  }
  return false;
}

bool break_cropped_overflow(conformance::Case& c) {
  auto bl = blocks_of(c);
  if (!bl || bl->m() == 0) return false;
  const int i = bl->first_nontrivial();
  bl->paddings_or_crops[2 * i] = bl->paddings_or_crops[2 * i + 1] = kInt64Max;
  set_blocks(c, *bl, true);
  return true;
}

bool break_cropped_negative(conformance::Case& c) {
  auto bl = blocks_of(c);
  const Tensor& input = tensor(c, "input");
  if (!bl || bl->m() == 0 || input.rank() < bl->m() + 1) return false;
  const int i = bl->first_nontrivial();
  const I128 end = static_cast<I128>(input.dim(1 + i)) * bl->block[i] - bl->paddings_or_crops[2 * i] + 1;
  if (end < 0 || end > kInt64Max) return false;
  bl->paddings_or_crops[2 * i + 1] = static_cast<std::int64_t>(end);
  set_blocks(c, *bl);
  return true;
}

// Each check's breaker, by check (both ops); memory-limit, checked last, needs none.
constexpr auto kS2BBreakers = by_check<kNumS2BChecks, S2BCheck, BreakFn>(
    {
        {S2BCheck::kArgTypesBlockShape, break_arg_types_block_shape},
        {S2BCheck::kArgTypesPaddings, break_paddings_or_crops_type},
        {S2BCheck::kRegistration, break_registration},
        {S2BCheck::kBlockShapeRank, break_block_shape_rank},
        {S2BCheck::kInputRank, break_input_rank},
        {S2BCheck::kPaddingsShape, break_paddings_or_crops_shape},
        {S2BCheck::kBlockPositive, break_block_positive},
        {S2BCheck::kBlockProduct, break_block_product},
        {S2BCheck::kMaxInternalDims, break_max_internal_dims},
        {S2BCheck::kBatchOverflow, break_batch_overflow},
        {S2BCheck::kOutputShapeOverflow, break_output_shape_overflow},
        {S2BCheck::kPaddingsNegative, break_negative_pair},
        {S2BCheck::kPaddedOverflow, break_padded_overflow},
        {S2BCheck::kDivisibility, break_divisibility},
    },
    false);
constexpr auto kB2SBreakers = by_check<kNumB2SChecks, B2SCheck, BreakFn>(
    {
        {B2SCheck::kArgTypesBlockShape, break_arg_types_block_shape},
        {B2SCheck::kArgTypesCrops, break_paddings_or_crops_type},
        {B2SCheck::kRegistration, break_registration},
        {B2SCheck::kBlockShapeRank, break_block_shape_rank},
        {B2SCheck::kInputRank, break_input_rank},
        {B2SCheck::kCropsShape, break_paddings_or_crops_shape},
        {B2SCheck::kBlockProductOverflow, break_block_product_overflow},
        {B2SCheck::kBlockProductPositive, break_block_product_positive},
        {B2SCheck::kBatchDivisible, break_batch_divisible},
        {B2SCheck::kMaxInternalDims, break_max_internal_dims},
        {B2SCheck::kCropsNegative, break_negative_pair},
        {B2SCheck::kCroppedOverflow, break_cropped_overflow},
        {B2SCheck::kCroppedNegative, break_cropped_negative},
    },
    false);

// Pairs no single input breaks together, with the reason.
constexpr Exclusion kS2BExclusions[] = {
    excluded(S2BCheck::kOutputShapeOverflow, S2BCheck::kMemoryLimit, kNoOutput),
    excluded(S2BCheck::kPaddedOverflow, S2BCheck::kMemoryLimit, kNoOutput),
    excluded(S2BCheck::kBatchOverflow, S2BCheck::kMemoryLimit, kNoOutput),
};
constexpr Exclusion kB2SExclusions[] = {
    excluded(B2SCheck::kBlockProductOverflow, B2SCheck::kMemoryLimit, kNoOutput),
    excluded(B2SCheck::kCroppedOverflow, B2SCheck::kMemoryLimit, kNoOutput),
};

}  // namespace
}  // namespace breakers

constinit const OpGenerators kSpaceToBatchNDGenerators = {
    kSpaceToBatchNDChecks,  real_number_types,         [](Op) { return valid_space_to_batch_nd(); },
    invalid_by_index,       space_to_batch_nd_outputs, widen_input,
    breakers::kS2BBreakers, breakers::kS2BExclusions,  grow_space_batch,
};
constinit const OpGenerators kBatchToSpaceNDGenerators = {
    kBatchToSpaceNDChecks,  real_number_types,         [](Op) { return valid_batch_to_space_nd(); },
    invalid_by_index,       batch_to_space_nd_outputs, widen_input,
    breakers::kB2SBreakers, breakers::kB2SExclusions,  grow_space_batch,
};

}  // namespace opconform::generators
