#include "opconform/conformance/run.h"

namespace opconform::conformance {

namespace {

struct MissingArgument {
  std::string message;
};

const Tensor& single(const Case& c, const char* name) {
  auto it = c.inputs.find(name);
  const Tensor* t = it == c.inputs.end() ? nullptr : std::get_if<Tensor>(&it->second);
  if (!t) throw MissingArgument{str_cat("the case has no tensor input '", name, "'")};
  return *t;
}

std::span<const Tensor> list(const Case& c, const char* name) {
  auto it = c.inputs.find(name);
  const auto* l = it == c.inputs.end() ? nullptr : std::get_if<std::vector<Tensor>>(&it->second);
  if (!l) throw MissingArgument{str_cat("the case has no list input '", name, "'")};
  return *l;
}

std::int64_t attr(const Case& c, const char* name) {
  auto it = c.attrs.find(name);
  if (it == c.attrs.end()) throw MissingArgument{str_cat("the case has no attr '", name, "'")};
  return it->second;
}

Outcome failed(Status status) {
  Outcome outcome;
  outcome.status = std::move(status);
  return outcome;
}

// A distinct placeholder per output, to see whether a failing op replaced it.
Tensor sentinel() { return Tensor(DType::kUInt8, Shape{1}); }
bool same(const Tensor& a, const Tensor& b) { return a.raw_data() == b.raw_data(); }

Outcome run(const OpTable& table, const char* name, const Case& c, const ExecOptions& options) {
  Outcome outcome;
  auto missing = [&] { return internal_error(name, " has no ", op_name(c.op), " kernel"); };
  // Calls the op, recording the Tensors it allocated when it fails.
  auto logged = [&](auto call) {
    TensorAllocationLog log;
    Status status = call();
    if (!status.ok()) outcome.allocated_on_error = log.entries();
    return status;
  };
  switch (c.op) {
    case Op::kSpaceToBatchND:
    case Op::kBatchToSpaceND: {
      const auto fn = c.op == Op::kSpaceToBatchND ? table.space_to_batch_nd : table.batch_to_space_nd;
      if (!fn) return failed(missing());
      const char* third = c.op == Op::kSpaceToBatchND ? "paddings" : "crops";
      Tensor output = sentinel();
      const Tensor before = output;
      outcome.status = logged([&] {
        return fn(single(c, "input"), single(c, "block_shape"), single(c, third), &output, options);
      });
      if (outcome.status.ok()) outcome.outputs.emplace("output", output);
      else outcome.wrote_outputs_on_error = !same(output, before);
      break;
    }
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: {
      const auto fn = c.op == Op::kDynamicStitch ? table.dynamic_stitch : table.parallel_dynamic_stitch;
      if (!fn) return failed(missing());
      Tensor merged = sentinel();
      const Tensor before = merged;
      outcome.status = logged([&] { return fn(list(c, "indices"), list(c, "data"), &merged, options); });
      if (outcome.status.ok()) outcome.outputs.emplace("merged", merged);
      else outcome.wrote_outputs_on_error = !same(merged, before);
      break;
    }
    case Op::kDynamicPartition: {
      if (!table.dynamic_partition) return failed(missing());
      std::vector<Tensor> outputs = {sentinel()};
      const Tensor before = outputs[0];
      outcome.status = logged([&] {
        return table.dynamic_partition(single(c, "data"), single(c, "partitions"),
                                       attr(c, "num_partitions"), &outputs, options);
      });
      if (outcome.status.ok()) outcome.outputs.emplace("outputs", outputs);
      else outcome.wrote_outputs_on_error = outputs.size() != 1 || !same(outputs[0], before);
      break;
    }
    case Op::kSparseConcat: {
      if (!table.sparse_concat) return failed(missing());
      SparseTensor output{sentinel(), sentinel(), sentinel()};
      const SparseTensor before = output;
      outcome.status = logged([&] {
        return table.sparse_concat(list(c, "indices"), list(c, "values"), list(c, "shapes"),
                                   attr(c, "concat_dim"), &output, options);
      });
      if (outcome.status.ok()) {
        outcome.outputs.emplace("output_indices", output.indices);
        outcome.outputs.emplace("output_values", output.values);
        outcome.outputs.emplace("output_shape", output.shape);
      } else {
        outcome.wrote_outputs_on_error = !same(output.indices, before.indices) ||
                                         !same(output.values, before.values) ||
                                         !same(output.shape, before.shape);
      }
      break;
    }
  }
  return outcome;
}

}  // namespace

Outcome run_case(const OpTable& table, const Case& c, const Knobs& knobs) {
  ExecOptions options;
  static_cast<Knobs&>(options) = knobs;
  options.memory_limit_bytes = c.memory_limit;
  const char* name = table.name ? table.name : "implementation";
  try {
    return run(table, name, c, options);
  } catch (const MissingArgument& e) {
    return failed(internal_error("malformed case: ", e.message));
  } catch (const std::exception& e) {
    return failed(internal_error(name, " ", op_name(c.op), " threw: ", e.what()));
  } catch (...) {
    return failed(internal_error(name, " ", op_name(c.op), " threw a non-standard exception"));
  }
}

}  // namespace opconform::conformance
