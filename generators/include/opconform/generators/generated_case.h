// SPDX-License-Identifier: Apache-2.0
// What every case generator of this library shares: the generated-case type (with the
// showValue RapidCheck prints for a counterexample), tensor helpers, dtype sets, a size budget
// that keeps valid cases small by construction, big-value edges for arithmetic checks, and the
// outputs a valid case must produce (dtype and shape), predicted without running any kernel.
//
//   rc::Gen<GeneratedCase> g = valid_case(Op::kSpaceToBatchND);        // op_generators.h
//   GeneratedCase x = *g;                      // inside a property or rc::gen::exec
//   conformance::Outcome o = conformance::run_case(table, x.c);
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck.h>

#include "opconform/conformance/vector.h"
#include "opconform/ops.h"

namespace opconform::generators {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();

// Valid cases keep the element count of every input and output at or below this, so a case
// runs in microseconds.
inline constexpr std::int64_t kMaxCaseElements = 512;

// A case of one op: its inputs, attrs and memory limit (c.expected is left empty: the
// properties fill it from the reference or from a law). `check` is the check id (checks.h) of the
// check the case must fail first, or empty for a valid case.
struct GeneratedCase {
  conformance::Case c;
  std::string check;
  std::string also_breaks;  // a pair case (check_pairs.h): the later check it breaks too
};
// "<Op> valid|fails <check>", then the inputs as shapes and values (conformance/format.h).
void showValue(const GeneratedCase& g, std::ostream& os);

GeneratedCase make_case(Op op, conformance::Values inputs, std::map<std::string, std::int64_t> attrs = {},
                        std::string check = {});

// Inputs of a case by name. Precondition: the case has that input of that kind.
const Tensor& input_tensor(const conformance::Case& c, const std::string& name);
const std::vector<Tensor>& input_list(const conformance::Case& c, const std::string& name);
Tensor& input_tensor(conformance::Case& c, const std::string& name);
std::vector<Tensor>& input_list(conformance::Case& c, const std::string& name);

// An int32 or int64 tensor holding `values` row-major (narrowed to int32 for int32; the
// caller keeps them in range). Precondition: values.size() equals the shape's element count.
Tensor index_tensor(DType dtype, Shape shape, const std::vector<std::int64_t>& values);
std::vector<std::int64_t> index_values(const Tensor& t);  // int32/int64 only, widened
// t's elements in the same order under another shape of the same element count (a copy).
Tensor reshaped(const Tensor& t, Shape shape);

// The tf-cpu registration of each op's T (spec pages), and its complement.
std::vector<DType> registered_dtypes(Op op);
std::vector<DType> unregistered_dtypes(Op op);
// Every dtype but `dtype`s; every dtype except int32 and int64.
std::vector<DType> dtypes_except(std::vector<DType> excluded);

rc::Gen<DType> gen_index_dtype();                           // int32 or int64
rc::Gen<DType> gen_dtype_among(std::vector<DType> dtypes);  // shrinks towards the first

// Draws dims while the product of max(1, dim) stays within a budget: a dim in [lo, hi] is
// clamped to what is left (never below lo). Use inside rc::gen::exec or a property.
class SizeBudget {
 public:
  explicit SizeBudget(std::int64_t max_product) : left_(max_product) {}
  std::int64_t draw(std::int64_t lo, std::int64_t hi);
  void take(std::int64_t factor);  // spends max(1, factor)
  std::int64_t left() const { return left_; }

 private:
  std::int64_t left_;
};

// A value in [lo, hi] that favours the edges of the arithmetic checks: lo, hi, powers of two
// around 2^31, 2^32, 2^62, 2^63 and their neighbours (clamped into [lo, hi]), else uniform.
std::int64_t draw_edge(std::int64_t lo, std::int64_t hi);
// A value in [lo, hi] of any magnitude: log-uniform over the powers of two (so sizes of every
// width show up, from 1 to 2^62), else draw_edge's edges. Precondition: 0 <= lo <= hi.
std::int64_t draw_log_uniform(std::int64_t lo, std::int64_t hi);
// Dims of an empty shape with huge dims around the zero, for the valid cases where 32-bit or
// wrapping 64-bit shape arithmetic goes wrong without touching memory: dims[zero] = 0; the dims
// before it are >= 1 and keep `lead` times their running product below 2^63 (the checked
// element count multiplies dims in order: an overflow before the zero is an error, not an empty
// shape); the dims after it are anything in [0, 2^63 - 1] (each a valid dim; the count is
// already 0). Precondition: 0 <= zero < rank, 1 <= lead.
Shape draw_empty_huge_dims(int rank, int zero, std::int64_t lead = 1);
// The largest x with a * x <= 2^63 - 1 (a >= 1): what a running product a leaves for the next
// dim.
std::int64_t headroom(std::int64_t a);
// The smallest x >= 1 with a * x >= 2^63 (so the checked product overflows), a >= 1.
std::int64_t min_factor_reaching_2pow63(std::int64_t a);

// m factors in [1, dmax] whose product stays below 2^63 until the last factor, which takes it
// to 2^63 or beyond (TensorFlow's checked product turns negative only there: wrapped in
// [2^63, 2^64), -1 beyond). Precondition: m >= 2 and dmax^(m-1) >= 2^63 / dmax.
std::vector<std::int64_t> factors_reaching_2pow63(int m, std::int64_t dmax);

// The outputs a valid case produces, in the op's output order, predicted from the spec's
// shape formulas with checked arithmetic (no kernel runs). Empty for the identity path of
// SpaceToBatchND/BatchToSpaceND (it requests nothing). nullopt when the case is not valid.
struct PredictedOutput {
  DType dtype;
  Shape shape;
};
std::optional<std::vector<PredictedOutput>> predicted_outputs(const conformance::Case& c);
// The memory request of those outputs (spec README: sum of 64 + elements * width), -1 on
// overflow.
std::int64_t predicted_request_bytes(const std::vector<PredictedOutput>& outputs);

}  // namespace opconform::generators
