// SPDX-License-Identifier: Apache-2.0
// Payloads with distinct values, so that a wrong permutation cannot hide: element i of a
// payload is value(code_i) where the codes are an iota under a random permutation and value()
// is injective per dtype. The first kSpecialCodes codes are the special values (NaN with
// distinct payloads, -0.0, +-inf, extreme integers, strings with NUL bytes or invalid UTF-8);
// the others are small nonzero values (1, 2, 3, ... as the dtype allows), never T{}, so zeros
// in an output are padding or gaps. Limits: bool has two values; 8-bit integers repeat after
// 250 elements.
//
//   Tensor t = *gen_payload(DType::kFloat32, {2, 3});   // e.g. [[3, 1, 6], [2, 5, 4]]
#pragma once

#include <cstdint>
#include <vector>

#include <rapidcheck.h>

#include "opconform/tensor.h"

namespace opconform::generators {

inline constexpr std::uint64_t kSpecialCodes = 8;

// Writes value(code) of t's dtype into element `index` of t.
void set_element_from_code(Tensor& t, std::int64_t index, std::uint64_t code);

// A payload of `shape`: codes first_code + permutation(i), the permutation drawn from `seed`
// (seed 0: the identity, so shrinking ends at a plain iota).
Tensor payload_tensor(DType dtype, Shape shape, std::uint64_t first_code, std::uint32_t seed);

// Draws a payload: with special values one time in four, a random permutation.
rc::Gen<Tensor> gen_payload(DType dtype, Shape shape);

// Draws payloads for the members of a list input: one payload over all their elements, split
// in order, so values are distinct across members too.
rc::Gen<std::vector<Tensor>> gen_payloads(DType dtype, std::vector<Shape> shapes);

}  // namespace opconform::generators
