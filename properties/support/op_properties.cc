#include "support/op_properties.h"

#include <cstring>
#include <iomanip>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "opconform/generators/check_pairs.h"
#include "opconform/generators/checks.h"
#include "support/allocation_probe.h"
#include "support/run_and_check.h"

namespace opconform::properties {
namespace {

using conformance::Outcome;

// Fixed allowances: 64 KiB for either layer (small bookkeeping), plus 128 KiB per hardware
// thread for the optimized layer (per-thread scratch such as radix-sort histograms).
constexpr std::int64_t kAllowance = 64 << 10;
std::int64_t optimized_allowance() {
  return kAllowance + (std::int64_t{128} << 10) * std::max(1u, std::thread::hardware_concurrency());
}
constexpr std::int64_t kPerOutput = 512;

// Buffer bytes of a tensor, strings with their heap payload.
std::int64_t storage_bytes(DType dtype, std::int64_t elements) {
  return elements * static_cast<std::int64_t>(dtype_storage_size(dtype));
}
std::int64_t storage_bytes(const Tensor& t) {
  std::int64_t bytes = storage_bytes(t.dtype(), t.num_elements());
  if (t.dtype() == DType::kString)
    for (const std::string& s : t.values<std::string>())
      bytes += s.size() > 15 ? static_cast<std::int64_t>(s.size()) + 1 : 0;
  return bytes;
}
std::int64_t input_storage(const conformance::Case& c) {
  std::int64_t total = 0;
  for (const auto& [name, value] : c.inputs) {
    if (const Tensor* t = std::get_if<Tensor>(&value))
      total += storage_bytes(*t);
    else
      for (const Tensor& m : std::get<std::vector<Tensor>>(value)) total += storage_bytes(m);
  }
  return total;
}
// String payloads the outputs may copy from the inputs.
std::int64_t string_payload(const conformance::Case& c) {
  std::int64_t total = 0;
  auto add = [&](const Tensor& t) {
    if (t.dtype() == DType::kString) total += storage_bytes(t) - storage_bytes(t.dtype(), t.num_elements());
  };
  for (const auto& [name, value] : c.inputs) {
    if (const Tensor* t = std::get_if<Tensor>(&value))
      add(*t);
    else
      for (const Tensor& m : std::get<std::vector<Tensor>>(value)) add(m);
  }
  return total;
}

std::string describe(const Outcome& o) { return o.status.ok() ? "success" : o.status.to_string(); }

// Saves `expected`, the case of a check pair the optimized layer got wrong, as a counterexample
// and fails the test with `difference`.
void save_pair_counterexample(const conformance::Case& expected, const generators::CheckPair& pair, std::uint64_t seed,
                              const std::string& difference) {
  const Op op = expected.op;
  conformance::Case saved = expected;
  saved.name = str_cat("CheckOrder.", op_name(op), ".", pair.first, ".", pair.second);
  saved.provenance = "properties/: check-order pair (" + std::string(pair.first) + ", " + std::string(pair.second) +
                     "), seed " + std::to_string(seed);
  std::error_code ignored;
  std::filesystem::create_directories(counterexample_dir(), ignored);
  const std::filesystem::path path = counterexample_dir() / (saved.name + ".json");
  (void)conformance::save_case_file(saved, path);
  ADD_FAILURE() << op_name(op) << ": checks " << pair.first << " then " << pair.second
                << ": optimized vs reference: " << difference << "\ncounterexample: " << path.string();
}

}  // namespace

std::vector<Tensor> flat_outputs(Op op, const conformance::Values& outputs) {
  std::vector<Tensor> flat;
  for (const Slot& slot : op_signature(op).outputs) {
    const auto& value = outputs.at(std::string(slot.name));
    if (const Tensor* t = std::get_if<Tensor>(&value))
      flat.push_back(*t);
    else
      for (const Tensor& m : std::get<std::vector<Tensor>>(value)) flat.push_back(m);
  }
  return flat;
}

std::string element_bytes(const Tensor& t, std::int64_t i) {
  if (t.dtype() == DType::kString) return t.data<std::string>()[i];
  const std::size_t size = dtype_storage_size(t.dtype());
  return std::string(static_cast<const char*>(t.raw_data()) + i * size, size);
}

void differential_valid(const GeneratedCase& g) {
  const Outcome ref = run(reference_layer(), g.c);
  const auto with_reference = [&] { return expect_outcome(g.c, ref); };
  require(ref.status.ok(), with_reference, "the reference rejected a valid case: " + describe(ref));
  const auto predicted = generators::predicted_outputs(g.c);
  require(predicted.has_value(), with_reference, "the spec's shape formulas reject this generated case");
  const std::vector<Tensor> outputs = flat_outputs(g.c.op, ref.outputs);
  if (predicted->empty()) {  // the identity path of SpaceToBatchND/BatchToSpaceND
    const Tensor& input = generators::input_tensor(g.c, "input");
    require(outputs.size() == 1 && outputs[0].dtype() == input.dtype() && outputs[0].shape() == input.shape(),
            with_reference, "the identity path did not return the input's shape");
  } else {
    require(outputs.size() == predicted->size(), with_reference, "wrong number of outputs");
    for (std::size_t i = 0; i < outputs.size(); ++i)
      require(outputs[i].dtype() == (*predicted)[i].dtype && outputs[i].shape() == (*predicted)[i].shape,
              with_reference,
              "reference output " + std::to_string(i) + " has shape " + shape_string(outputs[i].shape()) +
                  ", the spec's formula gives " + shape_string((*predicted)[i].shape));
  }
  expect_conforms(optimized_layer(), expect_outcome(g.c, ref), {}, "optimized vs reference");
}

void differential_invalid(const GeneratedCase& g) {
  const Outcome ref = run(reference_layer(), g.c);
  const std::string_view check = generators::failed_check(g.c.op, ref.status);
  require(
      check == g.check, [&] { return expect_outcome(g.c, ref); },
      "a case built to fail check '" + g.check + "' first: the reference answers " + describe(ref));
  expect_conforms(optimized_layer(), expect_outcome(g.c, ref), {}, "optimized vs reference");
}

void allocation_bound(const GeneratedCase& g) {
  const auto reference_case = [&] { return expect_reference_outcome(g.c); };
  const std::int64_t in = input_storage(g.c);
  const auto predicted = g.check.empty() ? generators::predicted_outputs(g.c) : std::nullopt;
  std::int64_t buffers = 0, out = 0, request = 0;  // buffers: the outputs' element storage
  if (predicted) {
    for (const auto& o : *predicted) buffers += storage_bytes(o.dtype, checked_num_elements(o.shape));
    out = buffers + string_payload(g.c);
    request = generators::predicted_request_bytes(*predicted);
  }
  for (const OpTable* layer : layers()) {
    const bool reference = layer == &reference_layer();
    // A first run warms up what is allocated once per process (statics, thread pools); the
    // probe then measures the op's own call.
    run(*layer, g.c);
    std::int64_t peak = 0;
    Outcome outcome;
    {
      AllocationProbe probe;
      outcome = conformance::run_case(*layer, g.c);
      peak = probe.peak_bytes();
    }
    classify_outcome(*layer, g.c, outcome);
    const std::int64_t allowance = reference ? kAllowance : optimized_allowance();
    std::int64_t bound = 3 * in + allowance;
    if (outcome.status.ok()) {
      require(predicted.has_value(), reference_case,
              std::string(layer->name) + " succeeded on a case built to fail check '" + g.check + "'");
      const auto outputs = static_cast<std::int64_t>(flat_outputs(g.c.op, outcome.outputs).size());
      bound = (reference ? 6 * out + 3 * in : out + 2 * in) + kPerOutput * outputs + allowance;
      // The outputs are alive when the probe reads: a peak below their buffers means the
      // probe missed allocations and the upper bound above would prove nothing.
      require(peak >= buffers, reference_case,
              std::string(layer->name) + " allocated " + std::to_string(peak) +
                  " bytes at peak, less than its output buffers' " + std::to_string(buffers) +
                  ": the probe does not see the allocations");
    }
    require(peak <= bound, reference_case,
            std::string(layer->name) + " allocated " + std::to_string(peak) + " bytes at peak, bound " +
                std::to_string(bound) + " (outputs " + std::to_string(out) + ", inputs " + std::to_string(in) +
                ", outcome " + describe(outcome) + ")");
    if (!predicted || predicted->empty()) continue;
    // The request decides: one byte short fails cleanly, exactly enough succeeds.
    conformance::Case tight = g.c;
    const auto tight_case = [&] { return expect_reference_outcome(tight); };
    tight.memory_limit = request - 1;
    {
      AllocationProbe probe;
      const Outcome o = conformance::run_case(*layer, tight);
      const std::int64_t peak_tight = probe.peak_bytes();
      classify_outcome(*layer, tight, o);
      require(generators::failed_check(g.c.op, o.status) == "memory-limit", tight_case,
              std::string(layer->name) + " with memory_limit = request - 1 = " + std::to_string(request - 1) + ": " +
                  describe(o));
      require(peak_tight <= 3 * in + allowance, tight_case,
              std::string(layer->name) + " allocated " + std::to_string(peak_tight) +
                  " bytes before answering RESOURCE_EXHAUSTED");
    }
    tight.memory_limit = request;
    const Outcome o = run(*layer, tight);
    require(
        o.status.ok(), tight_case,
        std::string(layer->name) + " with memory_limit = request = " + std::to_string(request) + ": " + describe(o));
  }
}

void poisoned_outputs(const GeneratedCase& g) {
  const auto reference_case = [&] { return expect_reference_outcome(g.c); };
  for (const OpTable* layer : layers()) {
    BufferChecks checks = buffer_checks();
    const std::int64_t violations = guard_violations();
    {
      checks.poison_byte = 0xA5;
      set_buffer_checks(checks);
      const Outcome first = run(*layer, g.c);
      checks.poison_byte = 0x5A;
      set_buffer_checks(checks);
      const Outcome second = run(*layer, g.c);
      checks.poison_byte = 0xA5;
      set_buffer_checks(checks);
      require(first.status.ok(), reference_case,
              std::string(layer->name) + " rejected a valid case: " + describe(first));
      for (const Outcome* o : {&first, &second})
        for (const Tensor& t : flat_outputs(g.c.op, o->outputs))
          require(t.guard_intact(), reference_case,
                  std::string(layer->name) + " wrote past the end of an output of shape " + shape_string(t.shape()));
      const conformance::Case expected = expect_outcome(g.c, first);
      const conformance::Judgement same = conformance::compare(expected, second);
      require(same.pass, expected,
              std::string(layer->name) +
                  " left output elements unwritten: the results under poison bytes 0xA5 "
                  "and 0x5A differ: " +
                  same.detail);
    }
    require(guard_violations() == violations, reference_case,
            std::string(layer->name) + " damaged the guard region of a buffer freed during or after the call");
  }
}

void no_allocation_before_an_error(const GeneratedCase& g) {
  for (const OpTable* layer : layers()) {
    const Outcome o = run(*layer, g.c);
    if (o.status.ok() || o.status.code() == Code::kResourceExhausted) continue;
    require(
        o.allocated_on_error.empty(), [&] { return expect_reference_outcome(g.c); },
        std::string(layer->name) + " returned " + std::string(code_name(o.status.code())) + " after allocating " +
            allocations_string(o.allocated_on_error) + ": nothing may be allocated before the inputs are validated");
  }
}

void determinism(const GeneratedCase& g, const ExecChoice& e) {
  ExecOptions one_thread;
  one_thread.num_threads = 1;
  conformance::Case c = g.c;
  c.expected = conformance::expected_from(run(optimized_layer(), g.c, one_thread));
  expect_conforms(optimized_layer(), c, e.options, "optimized vs optimized with 1 thread and the default tile");
}

void check_order_sweep(Op op) {
  const std::uint64_t seed = generators::pair_sweep_seed();
  rc::Random random(seed);
  const std::vector<generators::CheckPair> pairs = generators::feasible_pairs(op);
  std::vector<std::string> missed;
  for (const generators::CheckPair& pair : pairs) {
    conformance::Case c;
    Outcome ref;
    const auto answers_first = [&](const GeneratedCase& g) {
      c = g.c;
      ref = run(reference_layer(), c);
      return generators::failed_check(op, ref.status) == pair.first;
    };
    if (!generators::find_pair_case(op, pair, random, 50, kPairAttempts, answers_first)) {
      missed.push_back(std::string(pair.first) + " + " + std::string(pair.second));
      continue;
    }
    const conformance::Case expected = expect_outcome(c, ref);
    const conformance::Judgement cmp = conformance::compare(expected, run(optimized_layer(), c));
    if (!cmp.pass) save_pair_counterexample(expected, pair, seed, cmp.detail);
  }
  const auto hit = static_cast<double>(pairs.size() - missed.size());
  std::cout << op_name(op) << " check pairs hit: " << pairs.size() - missed.size() << " / " << pairs.size()
            << " feasible (" << std::fixed << std::setprecision(1) << 100.0 * hit / static_cast<double>(pairs.size())
            << " %; " << generators::infeasible_pairs(op).size() << " pairs infeasible), seed " << seed << "\n";
  for (const std::string& m : missed) std::cout << "  not hit: " << m << "\n";
  EXPECT_GE(hit, kMinPairCoverage * static_cast<double>(pairs.size()))
      << op_name(op) << ": pair coverage below " << 100 * kMinPairCoverage << " %";
}

}  // namespace opconform::properties
