#include "properties/generators/cases.h"

#include <vector>

#include "properties/generators/batch_to_space_nd.h"
#include "properties/generators/dynamic_partition.h"
#include "properties/generators/dynamic_stitch.h"
#include "properties/generators/rules.h"
#include "properties/generators/space_to_batch_nd.h"
#include "properties/generators/sparse_concat.h"

namespace opconform::generators {

rc::Gen<GeneratedCase> valid_case(Op op) {
  switch (op) {
    case Op::kSpaceToBatchND: return valid_space_to_batch_nd();
    case Op::kBatchToSpaceND: return valid_batch_to_space_nd();
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: return valid_dynamic_stitch(op);
    case Op::kDynamicPartition: return valid_dynamic_partition();
    case Op::kSparseConcat: return valid_sparse_concat();
  }
  throw std::logic_error("unknown op");
}

rc::Gen<GeneratedCase> invalid_case(Op op, std::string_view rule) {
  switch (op) {
    case Op::kSpaceToBatchND: return invalid_space_to_batch_nd(rule);
    case Op::kBatchToSpaceND: return invalid_batch_to_space_nd(rule);
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: return invalid_dynamic_stitch(op, rule);
    case Op::kDynamicPartition: return invalid_dynamic_partition(rule);
    case Op::kSparseConcat: return invalid_sparse_concat(rule);
  }
  throw std::logic_error("unknown op");
}

rc::Gen<GeneratedCase> any_invalid_case(Op op) {
  std::vector<std::string_view> ids;
  for (const Rule& r : rules_of(op)) ids.push_back(r.id);
  return rc::gen::mapcat(rc::gen::elementOf(ids), [op](std::string_view id) { return invalid_case(op, id); });
}

rc::Gen<GeneratedCase> any_case(Op op) { return rc::gen::oneOf(valid_case(op), any_invalid_case(op)); }

void showValue(const ExecChoice& e, std::ostream& os) {
  os << "num_threads=" << e.options.num_threads << " tile_bytes=" << e.options.tile_bytes;
}

rc::Gen<ExecChoice> gen_exec_choice() {
  return rc::gen::exec([] {
    ExecChoice e;
    e.options.num_threads = *rc::gen::inRange(0, 9);
    e.options.tile_bytes = *rc::gen::weightedOneOf<std::int64_t>(
        {{1, rc::gen::just<std::int64_t>(0)},
         {3, rc::gen::element<std::int64_t>(1, 2, 3, 7, 8, 15, 16, 63, 64, 65)},
         {2, rc::gen::inRange<std::int64_t>(1, 1 << 16)}});
    return e;
  });
}

}  // namespace opconform::generators
