// SPDX-License-Identifier: Apache-2.0
// The harness byte format: fuzzer bytes <-> a bounded, structured case of one op.
//
//   std::optional<FuzzCase> fc = decode_case(Op::kDynamicStitch, data, size);
//   if (fc) run_case(optimized::op_table(), fc->c, fc->knobs);
//
//   std::vector<std::uint8_t> bytes;
//   Status s = encode_case(vector_case, Knobs{}, &bytes);   // a seed for the harness
//
// Layout (fuzz/byte_stream.h): structure bytes are read from the end of the input, payload
// bytes from the front. A case starts with the execution knobs (threads, tile size, memory
// limit; a threads byte of 0xF0 or more also forces streaming stores), then the op's
// attributes, list lengths and tensors in a fixed order (FUZZING.md, "Byte format"). A tensor
// is: dtype, shape (explicit, or derived from a template the op supplies, e.g. data[m] =
// indices[m].shape + C), then a payload mode (raw bytes, iota, one fill value, one signed byte
// per element, or a copy of a template tensor).
//
// Bounds, checked before anything is allocated: at most kMaxListLength tensors per list, rank
// at most 15, kMaxCaseElements elements over all inputs; memory limit at most
// kMaxFuzzMemoryLimit. Bytes past the end of the input read as 0, so every input decodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/exec.h"
#include "opconform/ops.h"

namespace opconform::fuzz {

inline constexpr std::int64_t kMaxCaseElements = std::int64_t{1} << 18;
inline constexpr std::int64_t kMaxFuzzMemoryLimit = std::int64_t{64} << 20;
inline constexpr std::int64_t kDefaultFuzzMemoryLimit = std::int64_t{1} << 20;
inline constexpr int kMaxListLength = 8;
inline constexpr int kMaxStringBytes = 16;

// A decoded case: inputs, attrs and memory limit in `c` (expected left empty), and the
// optimized kernel's knobs.
struct FuzzCase {
  conformance::Case c;
  Knobs knobs;
};

// A parsed vector's memory limit as the harnesses run it: clamped to [0, kMaxFuzzMemoryLimit].
std::int64_t capped_memory_limit(std::int64_t limit);

// nullopt when the bytes ask for more than the bounds above or for a negative dim.
std::optional<FuzzCase> decode_case(Op op, const std::uint8_t* data, std::size_t size);

// Bytes that decode_case(c.op, ...) turns back into c's attrs and inputs (bit for bit), with
// c.memory_limit (one above kMaxFuzzMemoryLimit, such as a vector's default 4 GiB, becomes
// kDefaultFuzzMemoryLimit) and the knobs' threads (0-4) and tile size; any streaming_min_bytes
// above 0 becomes 1 (streaming stores for every output, the one forced value the bytes hold).
// INVALID_ARGUMENT, saying why, when the format cannot express c (over the bounds, or a
// missing input). Verified by decoding the result.
Status encode_case(const conformance::Case& c, const Knobs& knobs, std::vector<std::uint8_t>* bytes);

// The harnesses: one per op of the registry (op_list.inc) and the conformance-vector reader.
enum class Harness {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) k##Name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  kVectorReader,
};
inline constexpr int kNumHarnesses = kNumOps + 1;

// "fuzz_space_to_batch_nd", ..., "fuzz_vector_reader": the binary, corpus/<name>/ and
// fuzz/<name>.dict.
std::string_view harness_name(Harness h);
std::optional<Harness> harness_from_name(std::string_view name);
Harness harness_for_op(Op op);
std::optional<Op> op_of(Harness h);  // nullopt for the vector reader

}  // namespace opconform::fuzz
