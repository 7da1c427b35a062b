#include "opconform/generators/op_generators.h"

#include <iterator>
#include <stdexcept>
#include <vector>

#include "opconform/generators/checks.h"
#include "check_generators.h"

namespace opconform::generators {

const OpGenerators& op_generators(Op op) {
  // Each op's hooks, defined in its own generator file, in op_list.inc's order.
  static constexpr const OpGenerators* kHooks[] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) &k##Name##Generators,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  };
  static_assert(std::size(kHooks) == kNumOps);
  const int i = static_cast<int>(op);
  if (i < 0 || i >= kNumOps) throw std::logic_error("unknown op");
  return *kHooks[i];
}

rc::Gen<GeneratedCase> valid_case(Op op) { return op_generators(op).valid(op); }

rc::Gen<GeneratedCase> invalid_case(Op op, std::string_view check) {
  return op_generators(op).invalid(op, check_index(op, check));
}

rc::Gen<GeneratedCase> any_invalid_case(Op op) {
  std::vector<std::string_view> ids;
  for (const Check& r : checks_of(op)) ids.push_back(r.id);
  return rc::gen::mapcat(rc::gen::elementOf(ids), [op](std::string_view id) { return invalid_case(op, id); });
}

rc::Gen<GeneratedCase> any_case(Op op) { return rc::gen::oneOf(valid_case(op), any_invalid_case(op)); }

rc::Gen<GeneratedCase> large_valid_case(Op op) {
  return rc::gen::exec([op] {
    GeneratedCase g = *valid_case(op);
    op_generators(op).widen(g);
    return g;
  });
}

void grow_valid_case(conformance::Case& c, std::int64_t times) { op_generators(c.op).grow(c, times); }

void showValue(const ExecChoice& e, std::ostream& os) { os << knobs_string(e.options); }

rc::Gen<ExecChoice> gen_exec_choice() {
  return rc::gen::exec([] {
    ExecChoice e;
    e.options.num_threads = *rc::gen::inRange(0, 9);
    e.options.tile_bytes =
        *rc::gen::weightedOneOf<std::int64_t>({{1, rc::gen::just<std::int64_t>(0)},
                                               {3, rc::gen::element<std::int64_t>(1, 2, 3, 7, 8, 15, 16, 63, 64, 65)},
                                               {2, rc::gen::inRange<std::int64_t>(1, 1 << 16)}});
    // The kernels' default threshold, streaming stores for every output, or a size in between.
    e.options.streaming_min_bytes =
        *rc::gen::weightedOneOf<std::int64_t>({{2, rc::gen::just<std::int64_t>(0)},
                                               {1, rc::gen::just<std::int64_t>(1)},
                                               {1, rc::gen::inRange<std::int64_t>(1, 1 << 20)}});
    return e;
  });
}

}  // namespace opconform::generators
