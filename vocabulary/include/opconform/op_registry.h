// SPDX-License-Identifier: Apache-2.0
// The op registry: each op described once (vocabulary/ops/<snake_name>.cc), for every layer
// to derive from: its inputs, attrs and outputs by name, and one generic way to call any
// OpTable's kernel of it.
//
//   const OpInfo& info = op_info(Op::kDynamicPartition);
//   Values outputs = placeholder_outputs(info);
//   Status s = info.invoke(table, {inputs, attrs, string_attrs}, &outputs, options);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "opconform/exec.h"
#include "opconform/ops.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform {

// One named input or output: a tensor, or a list of tensors for list arguments
// (DynamicStitch's `indices`, DynamicPartition's `outputs`, ...).
using Value = std::variant<Tensor, std::vector<Tensor>>;
using Values = std::map<std::string, Value>;
using IntAttrs = std::map<std::string, std::int64_t>;
using StringAttrs = std::map<std::string, std::string>;

// One input or output of an op: its name, whether it is a list, its dtype role (TensorFlow's
// type attr: "T", "Tblock_shape", ...; fixed dtypes name the dtype: "int64") and, for a list
// output, the integer attr that is its length (DynamicPartition's "num_partitions").
struct Slot {
  std::string_view name;
  bool is_list;
  std::string_view dtype_role = "";
  std::string_view length_attr = "";
};

// What an op takes and returns, in corpus/README.md's order: integer attrs (int64, so
// out-of-range values reach the op) and string attrs.
struct OpSignature {
  std::span<const Slot> inputs;
  std::span<const std::string_view> attrs;
  std::span<const Slot> outputs;
  std::span<const std::string_view> string_attrs = {};
};

// A case's arguments by name. The accessors throw MissingArgument when the case lacks one.
struct MissingArgument : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct OpCall {
  const Values& inputs;
  const IntAttrs& attrs;
  const StringAttrs& string_attrs;

  const Tensor& tensor(std::string_view name) const;
  std::span<const Tensor> list(std::string_view name) const;
  std::int64_t attr(std::string_view name) const;
  std::string_view string_attr(std::string_view name) const;
  // The tensor input `name`, or the integer attr `name`; null when the case lacks it (or, for
  // find_tensor, when it is a list).
  const Tensor* find_tensor(std::string_view name) const;
  const std::int64_t* find_attr(std::string_view name) const;
};

// The integer width boundaries an index-like value's valid cases cross: 2^8, 2^16, 2^31, 2^32.
inline constexpr std::int64_t kIndexWidthBoundaries[] = {std::int64_t{1} << 8, std::int64_t{1} << 16,
                                                         std::int64_t{1} << 31, std::int64_t{1} << 32};

// A width boundary no valid case of an op reaches although the value's dtype holds it, and why.
struct ExcludedBoundary {
  std::int64_t boundary;
  std::string_view why;
};

// A value of an op that indexes or sizes something (stitch indices, partition ids, block sizes,
// paddings, sparse coordinates), whose integer width a kernel may get wrong: an input (every
// element of the tensor, or of every list member) or an integer attr. Its dtype (the input
// slot's dtype role: int32 holds values up to 2^31 - 1; int64, or a role taking int32 or int64,
// up to 2^63 - 1; an integer attr is int64) decides which kIndexWidthBoundaries it can reach;
// `excluded` lists those the dtype holds but no valid case reaches (the contract's range
// checks, memory), each with its reason. Valid generated cases cross every other one.
struct IndexLike {
  enum class Kind { kInput, kAttr };
  std::string_view name;
  Kind kind;
  std::span<const ExcludedBoundary> excluded = {};
};

// What the contract leaves open in a successful outcome (docs/contract/README.md, "Comparing
// results"); conformance/unspecified.cc widens the oracle's outcome by it.
// - EqualKeysInAnyOrder: rows of `keys` with equal coordinates may come in any order, their
//   `values` rows with them (SparseConcat).
// - AnyListsLastWriter: a row of `output` named in several lists of `indices` may hold the last
//   writer (in `data`) of any of those lists (ParallelDynamicStitch).
struct EqualKeysInAnyOrder {
  std::string_view keys, values;
};
struct AnyListsLastWriter {
  std::string_view output, indices, data;
};
using Unspecified = std::variant<std::monostate, EqualKeysInAnyOrder, AnyListsLastWriter>;

// How an implementation's outcome differs from the contract's (tf-cpu's) outcome of a case:
// tf-cpu rejects and it returns a value, the other way round, both reject differently (code or
// message), both return values that differ. Combine with |: `kValueVsError | kErrorMismatch`.
enum class Disagreement : unsigned { kErrorVsValue = 1, kValueVsError = 2, kErrorMismatch = 4, kMismatch = 8 };
struct Disagreements {
  unsigned bits = 0;
  constexpr Disagreements() = default;
  constexpr Disagreements(Disagreement d) : bits(static_cast<unsigned>(d)) {}  // NOLINT: implicit by design
  constexpr bool contains(Disagreement d) const { return (bits & static_cast<unsigned>(d)) != 0; }
};
constexpr Disagreements operator|(Disagreements a, Disagreements b) {
  Disagreements both;
  both.bits = a.bits | b.bits;
  return both;
}
constexpr Disagreements operator|(Disagreement a, Disagreement b) { return Disagreements(a) | Disagreements(b); }

// A difference docs/contract/profiles.md documents between tf-cpu and `profile` ("xla",
// "tflite"): a disagreement of a kind in `when` on a case for which `applies` holds (null:
// every case) is that profile's documented behaviour, not a bug. `applies` sees the case's
// arguments, tf-cpu's error (null when tf-cpu returns a value) and the implementation's status
// (ok when it returned a value); `why` says what the profile does, in one line.
struct ProfileDifference {
  std::string_view profile;
  Disagreements when;
  bool (*applies)(const OpCall& call, const Status* expected_error, const Status& actual) = nullptr;
  std::string_view why;
};

// The dtypes `profile` registers its kernel for, read from the tensor input `input`: a case of
// another dtype may be rejected (value-vs-error) or rejected otherwise (error-mismatch); `why`
// says so in one line.
struct ProfileDtypes {
  std::string_view profile;
  std::string_view input;
  std::span<const DType> dtypes;
  std::string_view why;
};

struct OpInfo {
  Op op;
  OpSignature signature;
  // Calls `table`'s kernel of this op (precondition: provides(table, op)) with `call`'s
  // arguments. `outputs` holds placeholder_outputs(*this); the kernel's outputs replace them
  // (also on error where the kernel wrote them, so callers can see that it did).
  Status (*invoke)(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options);
  // The rank a plug-in manifest's min_rank/max_rank bound (docs/plugin-abi.md), when it is not
  // the rank of each tensor of the data input (null): SparseConcat's sparse rank.
  std::int64_t (*caps_rank)(const Values& inputs) = nullptr;
  // Inputs whose dim 0 sizes go together (DynamicPartition's data and partitions; lists: their
  // members pairwise): the shrinker halves them together.
  std::span<const std::pair<std::string_view, std::string_view>> dim0_pairs = {};
  // The op's index-like inputs and attrs.
  std::span<const IndexLike> index_like = {};
  Unspecified unspecified = {};
  // The op whose inputs are this op's, slot for slot under their own names, with the same
  // attrs (SpaceToBatchND's paddings are BatchToSpaceND's crops): a case of one is a case of
  // the other, so each seeds the other's fuzz harness.
  std::optional<Op> sibling = std::nullopt;
  // Inputs whose element values are dims of a tensor the op describes (SparseConcat's dense
  // `shapes`), so that a case's largest dim counts them too.
  std::span<const std::string_view> dims_inputs = {};
  // The documented differences of the other profiles (docs/contract/profiles.md).
  std::span<const ProfileDtypes> profile_dtypes = {};
  std::span<const ProfileDifference> profile_differences = {};
};

const OpInfo& op_info(Op op);
inline const OpSignature& op_signature(Op op) { return op_info(op).signature; }

// The input whose dtype is the op's T (its data). Precondition: the op has one.
const Slot& data_input(const OpInfo& info);

// The largest number of tensors a list output of this op takes from `attrs` (DynamicPartition's
// num_partitions); 0 when its outputs are not lists or the attr is missing.
std::int64_t list_output_length(const OpInfo& info, const IntAttrs& attrs);

// Renames `inputs` (this op's) to info.sibling's slot names; false, leaving them as they were,
// when the op has no sibling or an input is missing.
bool rename_for_sibling(const OpInfo& info, Values* inputs);

// Why a `disagreement` of an implementation of `profile` with tf-cpu on `call` is a documented
// difference of that profile (info.profile_dtypes, then info.profile_differences, the first
// that applies); nullopt when none is. `expected_error`: tf-cpu's error, null for a value;
// `actual`: the implementation's status.
std::optional<std::string_view> documented_profile_difference(const OpInfo& info, std::string_view profile,
                                                              Disagreement disagreement, const OpCall& call,
                                                              const Status* expected_error, const Status& actual);

// One distinct placeholder per output slot (a list slot: a list of one), for invoke().
Values placeholder_outputs(const OpInfo& info);

// The output slot `name` of `outputs`, as a tensor or a list (for invoke implementations).
Tensor& output_tensor(Values* outputs, std::string_view name);
std::vector<Tensor>& output_list(Values* outputs, std::string_view name);

}  // namespace opconform
