#include "opconform/conformance/run.h"

namespace opconform::conformance {

namespace {

Outcome failed(Status status) {
  Outcome outcome;
  outcome.status = std::move(status);
  return outcome;
}

bool same(const Tensor& a, const Tensor& b) { return a.raw_data() == b.raw_data(); }

// Whether the kernel replaced a placeholder (a list output: also by resizing it).
bool replaced(const Value& before, const Value& after) {
  if (const Tensor* t = std::get_if<Tensor>(&before)) return !same(*t, std::get<Tensor>(after));
  const auto& a = std::get<std::vector<Tensor>>(before);
  const auto& b = std::get<std::vector<Tensor>>(after);
  return a.size() != b.size() || !same(a[0], b[0]);
}

Outcome run(const OpTable& table, const char* name, const Case& c, const ExecOptions& options) {
  if (!provides(table, c.op)) return failed(internal_error(name, " has no ", op_name(c.op), " kernel"));
  const OpInfo& info = op_info(c.op);
  Outcome outcome;
  const Values before = placeholder_outputs(info);
  Values outputs = before;
  TensorAllocationLog log;  // the Tensors the op allocated, kept when it fails
  outcome.status = info.invoke(table, {c.inputs, c.attrs, c.string_attrs}, &outputs, options);
  if (outcome.status.ok()) {
    outcome.outputs = std::move(outputs);
    return outcome;
  }
  outcome.allocated_on_error = log.entries();
  for (const auto& [slot, value] : before)
    outcome.wrote_outputs_on_error = outcome.wrote_outputs_on_error || replaced(value, outputs.at(slot));
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
    return failed(internal_error("malformed case: ", e.what()));
  } catch (const std::exception& e) {
    return failed(internal_error(name, " ", op_name(c.op), " threw: ", e.what()));
  } catch (...) {
    return failed(internal_error(name, " ", op_name(c.op), " threw a non-standard exception"));
  }
}

}  // namespace opconform::conformance
