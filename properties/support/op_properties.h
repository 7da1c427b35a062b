// The properties every op has, as functions of a generated case; each op's
// <op>_properties.cc runs them from RC_GTEST_PROP and adds the laws of its spec page.
//
// Bounds asserted by allocation_bound (peak heap bytes live during the call, measured by the
// counting operator new of allocation_probe.cc; "storage" = elements * storage size of a
// tensor, strings counted as their slot plus any heap payload):
//   optimized: peak <= S_out + 2 * S_in + 512 * outputs + A_opt
//   reference: peak <= 6 * S_out + 3 * S_in + 512 * outputs + 64 KiB
//   failing:   peak <= 3 * S_in + the layer's allowance (64 KiB, or A_opt)
// with A_opt = 64 KiB + 128 KiB per hardware thread (per-thread scratch).
// where S_out is the storage of the outputs predicted from the spec's shape formulas (never
// from the op's result) and S_in the storage of the inputs. properties/README.md says why.
#pragma once

#include "opconform/generators/op_generators.h"
#include "opconform/generators/generated_case.h"

namespace opconform::properties {

using generators::ExecChoice;
using generators::GeneratedCase;
using generators::reshaped;

// 1. Valid case: the reference succeeds with the outputs the spec's shape formulas predict,
//    and the optimized layer matches it bit for bit (within the spec's unspecified outcomes).
void differential_valid(const GeneratedCase& g);
// 1. Invalid case: the reference fails exactly the generator's check, and the optimized layer
//    returns the same code and message.
void differential_invalid(const GeneratedCase& g);
// 3. Every layer fails cleanly or stays within the allocation bound above; a valid case with
//    memory_limit = its request - 1 gives RESOURCE_EXHAUSTED, with = its request succeeds.
void allocation_bound(const GeneratedCase& g);
// 4. Every layer writes every output element (same result under two poison bytes) and touches
//    no guard region (outputs intact, no violation reported when buffers are freed).
void poisoned_outputs(const GeneratedCase& g);
// Invalid case: a layer that answers an error other than RESOURCE_EXHAUSTED allocated no
// Tensor before it (allocation_log.h; the spec: nothing is allocated before validation, and
// only a later output that does not fit may follow an allocation).
void no_allocation_before_an_error(const GeneratedCase& g);
// 5. The optimized layer gives the identical outcome for `e` as for one thread and the
//    default tile.
void determinism(const GeneratedCase& g, const ExecChoice& e);

// 6. Check order: one case for every feasible pair of the op's checks (generators/check_pairs.h),
//    each breaking both; the reference must answer the earlier check and the optimized layer
//    the same code and message. Prints the pair coverage (pairs hit / feasible pairs) and fails
//    below kMinPairCoverage. A sweep, not a random draw, so every pair is tried on every run:
//    up to kPairAttempts drawings per pair from a fixed seed (RC_PARAMS="seed=N" changes it).
inline constexpr double kMinPairCoverage = 0.95;
inline constexpr int kPairAttempts = 20;
void check_order_sweep(Op op);

// The outputs of an outcome in the op's output order (lists expanded).
std::vector<Tensor> flat_outputs(Op op, const conformance::Values& outputs);
// Bytes of element i (its bits; a string's bytes).
std::string element_bytes(const Tensor& t, std::int64_t i);

}  // namespace opconform::properties
