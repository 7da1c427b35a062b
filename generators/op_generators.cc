#include "opconform/generators/op_generators.h"

#include <algorithm>
#include <vector>

#include "opconform/generators/payload.h"
#include "opconform/generators/rules.h"
#include "rule_generators.h"

namespace opconform::generators {
namespace {

std::int64_t data_bytes(const Tensor& t) {
  return t.num_elements() * static_cast<std::int64_t>(dtype_storage_size(t.dtype()));
}
std::int64_t data_bytes(const std::vector<Tensor>& list) {
  std::int64_t total = 0;
  for (const Tensor& t : list) total += data_bytes(t);
  return total;
}
// The factor that takes `bytes` (> 0) to kParallelWorkBytes or beyond.
std::int64_t widening(std::int64_t bytes) { return (kParallelWorkBytes + bytes - 1) / bytes; }

Shape appended(Shape shape, std::int64_t dim) {
  shape.push_back(dim);
  return shape;
}

Shape prepended(const Shape& shape, std::int64_t dim) {
  Shape s{dim};
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

// [times] + t.shape: t's elements `times` times over.
Tensor stacked(const Tensor& t, std::int64_t times) {
  Tensor out(t.dtype(), prepended(t.shape(), times));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t k = 0; k < times; ++k) std::copy_n(t.data<T>(), t.num_elements(), out.data<T>() + k * t.num_elements());
  });
  return out;
}

// The rows of the [n, r] int64 matrix m, `times` times over: as n-row blocks or row by row.
Tensor repeated_rows(const Tensor& m, std::int64_t times, bool row_by_row) {
  const std::int64_t n = m.dim(0), r = m.dim(1);
  Tensor out(DType::kInt64, {n * times, r});
  for (std::int64_t k = 0; k < n * times; ++k)
    std::copy_n(m.data<std::int64_t>() + (row_by_row ? k / times : k % n) * r, r, out.data<std::int64_t>() + k * r);
  return out;
}

}  // namespace

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

rc::Gen<GeneratedCase> invalid_case(Op op, std::string_view rule) {
  return op_generators(op).invalid(op, rule_index(op, rule));
}

rc::Gen<GeneratedCase> any_invalid_case(Op op) {
  std::vector<std::string_view> ids;
  for (const Rule& r : rules_of(op)) ids.push_back(r.id);
  return rc::gen::mapcat(rc::gen::elementOf(ids), [op](std::string_view id) { return invalid_case(op, id); });
}

rc::Gen<GeneratedCase> any_case(Op op) { return rc::gen::oneOf(valid_case(op), any_invalid_case(op)); }

rc::Gen<GeneratedCase> large_valid_case(Op op) {
  return rc::gen::exec([op] {
    GeneratedCase g = *valid_case(op);
    const bool stitch = op == Op::kDynamicStitch || op == Op::kParallelDynamicStitch;
    // Wide rows (a trailing dim) or many rows (a leading dim over the indices too): the
    // stitches and DynamicPartition take different paths for each.
    const bool leading = (stitch || op == Op::kDynamicPartition) && *rc::gen::arbitrary<bool>();
    const auto widened = [&](const Shape& s, std::int64_t times) {
      return leading ? prepended(s, times) : appended(s, times);
    };
    if (stitch) {
      auto& indices = std::get<std::vector<Tensor>>(g.c.inputs.at("indices"));
      auto& data = std::get<std::vector<Tensor>>(g.c.inputs.at("data"));
      if (const std::int64_t bytes = data_bytes(data); bytes > 0) {
        std::vector<Shape> shapes;
        for (const Tensor& t : data) shapes.push_back(widened(t.shape(), widening(bytes)));
        if (leading)
          for (Tensor& t : indices) t = stacked(t, widening(bytes));
        data = *gen_payloads(data[0].dtype(), shapes);
      }
    } else if (op == Op::kSparseConcat) {
      auto& indices = std::get<std::vector<Tensor>>(g.c.inputs.at("indices"));
      auto& values = std::get<std::vector<Tensor>>(g.c.inputs.at("values"));
      if (const std::int64_t bytes = data_bytes(indices); bytes > 0) {
        const std::int64_t times = widening(bytes);
        const bool row_by_row = *rc::gen::arbitrary<bool>();
        std::vector<Shape> shapes;
        for (Tensor& t : indices) {
          t = repeated_rows(t, times, row_by_row);
          shapes.push_back({t.dim(0)});
        }
        values = *gen_payloads(values[0].dtype(), shapes);
      }
    } else {
      Tensor& data = std::get<Tensor>(g.c.inputs.at(op == Op::kDynamicPartition ? "data" : "input"));
      if (const std::int64_t bytes = data_bytes(data); bytes > 0) {
        if (leading) {
          Tensor& partitions = std::get<Tensor>(g.c.inputs.at("partitions"));
          partitions = stacked(partitions, widening(bytes));
        }
        data = *gen_payload(data.dtype(), widened(data.shape(), widening(bytes)));
      }
    }
    return g;
  });
}

void showValue(const ExecChoice& e, std::ostream& os) {
  os << knobs_string(e.options);
}

rc::Gen<ExecChoice> gen_exec_choice() {
  return rc::gen::exec([] {
    ExecChoice e;
    e.options.num_threads = *rc::gen::inRange(0, 9);
    e.options.tile_bytes = *rc::gen::weightedOneOf<std::int64_t>(
        {{1, rc::gen::just<std::int64_t>(0)},
         {3, rc::gen::element<std::int64_t>(1, 2, 3, 7, 8, 15, 16, 63, 64, 65)},
         {2, rc::gen::inRange<std::int64_t>(1, 1 << 16)}});
    // The kernels' default threshold, streaming stores for every output, or a size in between.
    e.options.streaming_min_bytes = *rc::gen::weightedOneOf<std::int64_t>(
        {{2, rc::gen::just<std::int64_t>(0)},
         {1, rc::gen::just<std::int64_t>(1)},
         {1, rc::gen::inRange<std::int64_t>(1, 1 << 20)}});
    return e;
  });
}

}  // namespace opconform::generators
