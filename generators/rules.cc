#include "opconform/generators/rules.h"

#include <array>
#include <regex>
#include <vector>

namespace opconform::generators {
namespace {

constexpr Code kInvalid = Code::kInvalidArgument;
#define SHAPE R"(\[[0-9,]*\])"
#define INT R"(-?\d+)"
#define OOM {"memory-limit", Code::kResourceExhausted, \
             "OOM when allocating tensor with shape" SHAPE R"( and type \w+)", "README memory accounting"}
#define REGISTRATION(op) {"registration", Code::kUnimplemented, \
    "No registered '" op R"(' OpKernel for 'CPU' devices compatible with T=\w+)", "README pre-check 3"}
#define INDEX_ATTR(attr, id) {id, kInvalid, \
    "Value for attr '" attr R"(' of \w+ is not in the list of allowed values: int32, int64)", "README pre-check 1"}
#define SHAPE_OVERFLOW(where) {"output-shape-overflow", kInvalid, \
    "Encountered overflow when multiplying " INT " with " INT ", result: " INT, where}
// The checks SpaceToBatchND and BatchToSpaceND share up to check 3; `pairs` is "paddings" or
// "crops", `pairs_attr` its index-type attr.
#define SPACE_BATCH_SHAPE_RULES(op, pairs, pairs_attr)                                          \
  INDEX_ATTR("Tblock_shape", "arg-types-block-shape"),                                          \
  INDEX_ATTR(pairs_attr, "arg-types-" pairs),                                                   \
  REGISTRATION(op),                                                                             \
  {"block-shape-rank", kInvalid, "block_shape rank should be 1 instead of " INT, "check 1"},    \
  {"input-rank", kInvalid, "input rank should be >= " INT " instead of " INT, "check 2"},       \
  {pairs "-shape", kInvalid, pairs R"( should have shape \[\d+, 2\] instead of )" SHAPE, "check 3"}
#define MAX_INTERNAL_DIMS {"max-internal-dims", kInvalid, \
    R"(Maximum number of non-combined block dimensions is \d+ but must not exceed 4)", "check 6"}

const Rule kSpaceToBatch[] = {
    SPACE_BATCH_SHAPE_RULES("SpaceToBatchND", "paddings", "Tpaddings"),
    {"block-positive", kInvalid,
     "All values in block_shape must be positive, got value, " INT R"( at index \d+\.)", "check 4"},
    {"block-product", kInvalid, "Product of block sizes must be positive, got " INT, "check 5"},
    MAX_INTERNAL_DIMS,
    {"batch-overflow", kInvalid,
     "Negative output dimension size caused by overflow when multiplying " INT " and " INT, "check 8"},
    SHAPE_OVERFLOW("checks 9-11"),
    {"paddings-negative", kInvalid, "Paddings must be non-negative", "check 10"},
    {"padded-overflow", kInvalid, R"(padded_shape\[\d+\] overflows int64)", "check 10 (deviation)"},
    {"divisibility", kInvalid,
     R"(padded_shape\[\d+\]=\d+ is not divisible by block_shape\[\d+\]=\d+)", "check 10"},
    OOM,
};

const Rule kBatchToSpace[] = {
    SPACE_BATCH_SHAPE_RULES("BatchToSpaceND", "crops", "Tcrops"),
    {"block-product-overflow", kInvalid, "Product of block sizes overflows int64", "check 4 (deviation)"},
    {"block-product-positive", kInvalid, "Product of block sizes must be positive, got " INT, "check 4"},
    {"batch-divisible", kInvalid,
     R"(Input batch dimension \(\d+\) is not divisible by product of block sizes \(\d+\))", "check 5"},
    MAX_INTERNAL_DIMS,
    {"crops-negative", kInvalid, "Crops must be non-negative", "check 9"},
    {"cropped-overflow", kInvalid, R"(cropped_shape\[\d+\] overflows int64)", "check 9 (deviation)"},
    {"cropped-negative", kInvalid, R"(cropped_shape\[\d+\]=-\d+ must be non-negative)", "check 9"},
    OOM,
};

#define STITCH_RULES                                                                            \
  {"arg-types-indices", kInvalid,                                                               \
   R"(Input 'indices' of '\w+' Op has type \w+ that does not match expected type of int32\.)",  \
   "README pre-check 1"},                                                                       \
  {"arg-types-data", kInvalid,                                                                  \
   R"(Input 'data' of '\w+' Op has type \w+ that does not match type \w+ of argument 'data'\.)", \
   "README pre-check 1"},                                                                       \
  {"attr-n", kInvalid, "Value for attr 'N' of " INT " must be at least minimum 1", "check 0"},   \
  {"list-length", kInvalid,                                                                     \
   R"(List argument 'data' to '\w+' Op with length \d+ must match length \d+ of argument 'indices'\.)", \
   "check 0"},                                                                                  \
  {"index-range", kInvalid, R"(indices\[\d+\] is out of range)", "check 1"},                    \
  {"data-shape-prefix", kInvalid,                                                               \
   R"(data\[\d+\]\.shape = )" SHAPE R"( does not start with indices\[\d+\]\.shape = )" SHAPE,   \
   "check 2"},                                                                                  \
  {"trailing-shape", kInvalid,                                                                  \
   R"(Need data\[0\]\.shape\[\d+:\] = data\[\d+\]\.shape\[\d+:\], got data\[0\]\.shape = )" SHAPE \
   R"(, data\[\d+\]\.shape = )" SHAPE R"(, indices\[0\]\.shape = )" SHAPE                       \
   R"(, indices\[\d+\]\.shape = )" SHAPE, "check 2"},                                           \
  SHAPE_OVERFLOW("check 3"),                                                                    \
  OOM

const Rule kDynamicStitch[] = {STITCH_RULES};
const Rule kParallelDynamicStitch[] = {STITCH_RULES};

const Rule kDynamicPartition[] = {
    {"arg-types", kInvalid,
     R"(Input 'partitions' of 'DynamicPartition' Op has type \w+ that does not match expected type of int32\.)",
     "README pre-check 1"},
    {"num-partitions-min", kInvalid,
     "Value for attr 'num_partitions' of " INT " must be at least minimum 1", "check 0"},
    REGISTRATION("DynamicPartition"),
    {"num-partitions-int32", kInvalid, R"(Attr num_partitions has value \d+ out of range for an int32)",
     "check 0"},
    {"shape-prefix", kInvalid,
     "data\\.shape must start with partitions\\.shape, got data\\.shape = " SHAPE
     ", partitions\\.shape = " SHAPE,
     "check 1"},
    {"partition-range", kInvalid, "partitions(" SHAPE ")? = " INT R"( is not in \[0, \d+\))", "check 2"},
    OOM,
};

const Rule kSparseConcat[] = {
    {"arg-types-indices", kInvalid,
     R"(Input 'indices' of 'SparseConcat' Op has type \w+ that does not match expected type of int64\.)",
     "README pre-check 1"},
    {"arg-types-values", kInvalid,
     R"(Input 'values' of 'SparseConcat' Op has type \w+ that does not match type \w+ of argument 'values'\.)",
     "README pre-check 1"},
    {"arg-types-shapes", kInvalid,
     R"(Input 'shapes' of 'SparseConcat' Op has type \w+ that does not match expected type of int64\.)",
     "README pre-check 1"},
    {"attr-n", kInvalid, "Value for attr 'N' of " INT " must be at least minimum 2", "step 1"},
    {"list-length-values", kInvalid,
     R"(List argument 'values' to 'SparseConcat' Op with length \d+ must match length \d+ of argument 'indices'\.)",
     "step 1"},
    {"list-length-shapes", kInvalid,
     R"(List argument 'shapes' to 'SparseConcat' Op with length \d+ must match length \d+ of argument 'indices'\.)",
     "step 1"},
    {"concat-dim-int32", kInvalid, "Attr concat_dim has value " INT " out of range for an int32", "step 1"},
    REGISTRATION("SparseConcat"),
    {"indices-matrix", kInvalid,
     "Input indices should be a matrix but received shape " SHAPE R"( at position \d+)", "step 2"},
    {"values-vector", kInvalid,
     "Input values should be a vector but received shape " SHAPE R"( at position \d+)", "step 4"},
    {"shapes-vector", kInvalid,
     "Input shapes should be a vector but received shape " SHAPE R"( at position \d+)", "step 5"},
    {"shape-overflow", Code::kInternal, R"(Encountered overflow from large input shape\.)", "step 5"},
    {"too-many-dims", kInvalid, "Too many dimensions in tensor", "steps 6 and 8 (deviation)"},
    {"concat-dim-range", kInvalid,
     R"(Concat dimension must be in range \[)" INT ", " INT R"(\), got )" INT, "step 7"},
    {"rank-match", kInvalid,
     R"(Ranks of all input tensors must match: expected \d+ but got \d+ at position \d+)", "step 8"},
    {"shape-match", kInvalid,
     R"(Input shapes must match: expected \d+ for dimension \d+ but got \d+ at position \d+)", "step 8"},
    {"concat-size-overflow", kInvalid, R"(Concat dimension size overflows int64 at position \d+)",
     "step 8 (deviation)"},
    SHAPE_OVERFLOW("step 8"),
    {"total-nnz-overflow", kInvalid, "Total number of entries overflows int64", "step 9 (deviation)"},
    {"rows-match", kInvalid,
     R"(indices and values rows \(indexing dimension\) must match\. \(indices = \d+, values = \d+\))",
     "step 10"},
    {"order-length", kInvalid, R"(Order length must be SparseTensor rank\.)", "step 10"},
    {"index-offset-overflow", kInvalid,
     "Index " INT R"( at position \d+ overflows int64 when offset by \d+)", "step 10 (deviation)"},
    OOM,
};

// SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md): pre-checks 2 and 3, then
// steps 1-6; `rank` is the op's rank message, `divisibility` its step 3 message.
#define DEPTH_SPACE_FIRST_RULES(op)                                                              \
  {"block-size-minimum", kInvalid, "Value for attr 'block_size' of " INT " must be at least minimum 2", \
   "pre-check 2a"},                                                                              \
  {"data-format-allowed", kInvalid,                                                              \
   R"(Value for attr 'data_format' of "[^]*" is not in the list of allowed values: "NHWC", "NCHW", "NCHW_VECT_C")", \
   "pre-check 2b"},                                                                              \
  REGISTRATION(op),                                                                              \
  {"nhwc-only", kInvalid, "Only NHWC data_format supported on CPU. Got (NCHW|NCHW_VECT_C)", "pre-check 3b"}, \
  {"block-size-int32", kInvalid, R"(Attr block_size has value \d+ out of range for an int32)", "step 1"}

const Rule kSpaceToDepth[] = {
    DEPTH_SPACE_FIRST_RULES("SpaceToDepth"),
    {"input-rank", kInvalid, "Input rank should be 4 instead of " INT, "step 2"},
    {"divisibility", kInvalid, R"(Image width \d+ and height \d+ should be divisible by block_size: \d+)", "step 3"},
    {"output-dims", kInvalid, R"(output depth \d+ \* \d+ \* \d+ overflows int64)", "step 4 (deviation)"},
    OOM,
};

const Rule kDepthToSpace[] = {
    DEPTH_SPACE_FIRST_RULES("DepthToSpace"),
    {"input-rank", kInvalid, "Input rank should be: 4 instead of: " INT, "step 2"},
    {"divisibility", kInvalid, R"(Input depth dimension \d+ should be divisible by: \d+)", "step 3"},
    {"output-dims", kInvalid, R"(output (height|width) \d+ \* \d+ overflows int64)", "step 4 (deviation)"},
    SHAPE_OVERFLOW("step 5"),
    OOM,
};

#undef SHAPE
#undef INT
#undef OOM
#undef REGISTRATION
#undef INDEX_ATTR
#undef SHAPE_OVERFLOW
#undef SPACE_BATCH_SHAPE_RULES
#undef MAX_INTERNAL_DIMS
#undef STITCH_RULES
#undef DEPTH_SPACE_FIRST_RULES

std::span<const Rule> table(Op op) {
  switch (op) {
    case Op::kSpaceToBatchND: return kSpaceToBatch;
    case Op::kBatchToSpaceND: return kBatchToSpace;
    case Op::kDynamicStitch: return kDynamicStitch;
    case Op::kParallelDynamicStitch: return kParallelDynamicStitch;
    case Op::kDynamicPartition: return kDynamicPartition;
    case Op::kSparseConcat: return kSparseConcat;
    case Op::kSpaceToDepth: return kSpaceToDepth;
    case Op::kDepthToSpace: return kDepthToSpace;
  }
  return {};
}

// The compiled patterns of each op's table, built once.
const std::vector<std::regex>& patterns(Op op) {
  static const auto compiled = [] {
    std::array<std::vector<std::regex>, kNumOps> all;
    for (Op o : kAllOps)
      for (const Rule& r : table(o))
        all[static_cast<int>(o)].emplace_back(std::string(r.pattern), std::regex::ECMAScript);
    return all;
  }();
  return compiled[static_cast<int>(op)];
}

}  // namespace

std::span<const Rule> rules_of(Op op) { return table(op); }

std::string_view classify(Op op, const Status& status) {
  if (status.ok()) return "";
  const std::span<const Rule> rules = table(op);
  const std::vector<std::regex>& compiled = patterns(op);
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (rules[i].code == status.code() && std::regex_match(status.message(), compiled[i]))
      return rules[i].id;
  return kUnclassified;
}

}  // namespace opconform::generators
