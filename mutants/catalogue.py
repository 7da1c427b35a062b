#!/usr/bin/env python3
"""The mutant catalogue: realistic one-spot bugs in the reference kernels (docs/mutants.md).

Each mutant is a source-level mutation of one op's reference kernel (the files under
reference/), applied at build time to a copy. The code a mutant edits is marked in the
reference by a site:

    // mutant-site: NAME [NAME ...]      (the mutants that edit the lines below)
    ...
    // mutant-site end

Each (file, find, replace) edit of mutant NAME applies inside NAME's site of that file, where
`find` must occur exactly once, compared without whitespace: formatting the kernel (line breaks,
indentation, spaces between tokens) cannot break the catalogue, while a reference change that
rewrites or moves the marked code breaks the build of that mutant instead of silently producing
an unmutated one. The copy is compiled into a plug-in (mutants/mutant_plugin.cc) that exports
only the mutated op through the C ABI.

  catalogue.py list                    -> "name|op|file,file" per mutant (for CMake)
  catalogue.py apply NAME SRC OUTDIR   -> writes the mutated copies of NAME's files to OUTDIR
  catalogue.py json OUT                -> the catalogue as JSON (name, op, class, breaks)
  catalogue.py check SRC [FORMAT...]   -> every edit applies and every site names a mutant; with
                                          FORMAT (a formatter command reading stdin, writing
                                          stdout), also on each reference file reformatted by it
"""
import json
import os
import re
import subprocess
import sys

S2B = "reference/space_to_batch_nd.cc"
B2S = "reference/batch_to_space_nd.cc"
COMMON = "reference/space_batch_common.cc"
STITCH = "reference/dynamic_stitch.cc"
PART = "reference/dynamic_partition.cc"
SPARSE = "reference/sparse_concat.cc"
S2D = "reference/space_to_depth.cc"
D2S = "reference/depth_to_space.cc"

# The files each op's plug-in compiles (mutated when a mutant edits them, else the originals).
OP_FILES = {
    "SpaceToBatchND": [S2B, COMMON],
    "BatchToSpaceND": [B2S, COMMON],
    "DynamicStitch": [STITCH],
    "ParallelDynamicStitch": [STITCH],
    "DynamicPartition": [PART],
    "SparseConcat": [SPARSE],
    "SpaceToDepth": [S2D],
    "DepthToSpace": [D2S],
}


def m(name, op, klass, breaks, *edits):
    return {"name": name, "op": op, "class": klass, "breaks": breaks,
            "edits": [{"file": f, "find": a, "replace": b} for f, a, b in edits]}


CATALOGUE = [
    # ---------------------------------------------------------------- SpaceToBatchND
    m("s2b_batch_order", "SpaceToBatchND", "index arithmetic",
      "output batch laid out as b*P + offset instead of offset*B + b (batch before block in the permutation)",
      (S2B, "  for (std::size_t i = 0; i < m; ++i) axes.push_back(2 + 2 * i);\n  axes.push_back(0);\n",
            "  axes.push_back(0);\n  for (std::size_t i = 0; i < m; ++i) axes.push_back(2 + 2 * i);\n")),
    m("s2b_offset_direction", "SpaceToBatchND", "index arithmetic",
      "block offsets enumerated with the last spatial dim outermost (reversed offset order)",
      (S2B, "  for (std::size_t i = 0; i < m; ++i) axes.push_back(2 + 2 * i);\n",
            "  for (std::size_t i = m; i-- > 0;) axes.push_back(2 + 2 * i);\n")),
    m("s2b_padding_wrong_end", "SpaceToBatchND", "index arithmetic",
      "the input placed after pad_end zeros instead of pad_start (start and end paddings swapped)",
      (S2B, "interior.push_back(xt::range(start, start + in_shape[1 + i]));",
            "interior.push_back(xt::range(end, end + in_shape[1 + i]));")),
    m("s2b_four_dim_limit_off_by_one", "SpaceToBatchND", "four-dim limit",
      "rejects exactly four internal block dims (>= instead of >)",
      (S2B, "if (plan->runs.internal > space_batch::kMaxInternalBlockDims)",
            "if (plan->runs.internal >= space_batch::kMaxInternalBlockDims)")),
    m("s2b_limit_before_collapsing", "SpaceToBatchND", "collapsing",
      "applies the four-dim limit to M instead of the dims left after collapsing trivial ones",
      (S2B, "if (plan->runs.internal > space_batch::kMaxInternalBlockDims)\n    return space_batch::too_many_internal_block_dims(plan->runs.internal);",
            "if (m > space_batch::kMaxInternalBlockDims)\n    return space_batch::too_many_internal_block_dims(static_cast<int>(m));")),
    m("s2b_no_divisibility_check", "SpaceToBatchND", "validation skipped",
      "padded size not divisible by the block is not rejected (output dim floors)",
      (S2B, "    if (padded % block[i] != 0)\n      return invalid_argument(\"padded_shape[\", i, \"]=\", padded, \" is not divisible by block_shape[\",\n                              i, \"]=\", block[i]);\n", "")),
    m("s2b_no_negative_padding_check", "SpaceToBatchND", "validation skipped",
      "negative paddings are not rejected",
      (S2B, "    if (start < 0 || end < 0) return invalid_argument(\"Paddings must be non-negative\");\n", "")),
    m("s2b_unchecked_block_product", "SpaceToBatchND", "unchecked arithmetic",
      "product of block_shape computed with wrapping multiplication instead of the checked one",
      (S2B, "for (std::int64_t b : block) product = multiply_without_overflow(product, b);",
            "for (std::int64_t b : block)\n    product = static_cast<std::int64_t>(static_cast<std::uint64_t>(product) * static_cast<std::uint64_t>(b));")),
    m("s2b_int32_paddings", "SpaceToBatchND", "32-bit index arithmetic",
      "paddings read into int32 (int64 paddings above 2^31 wrap)",
      (S2B, "const std::vector<std::int64_t> pads = space_batch::index_values(paddings);",
            "std::vector<std::int64_t> pads;\n  for (std::int64_t p : space_batch::index_values(paddings)) pads.push_back(static_cast<std::int32_t>(p));")),
    m("s2b_int32_output_batch", "SpaceToBatchND", "32-bit index arithmetic",
      "output batch B * P narrowed to int32 (an empty output's batch above 2^31 wraps)",
      (S2B, "  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(output_batch));",
            "  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(static_cast<std::int32_t>(output_batch)));")),
    m("s2b_wrong_code_registration", "SpaceToBatchND", "wrong error code",
      "an unregistered dtype answered INVALID_ARGUMENT instead of UNIMPLEMENTED",
      (COMMON, "      return unimplemented(\"No registered '\", op,", "      return invalid_argument(\"No registered '\", op,")),
    # ---------------------------------------------------------------- BatchToSpaceND
    m("b2s_crops_swapped", "BatchToSpaceND", "index arithmetic",
      "crop_start and crop_end swapped (the window cut at the wrong end)",
      (B2S, "const std::int64_t start = crop_values[2 * i], end = crop_values[2 * i + 1];",
            "const std::int64_t start = crop_values[2 * i + 1], end = crop_values[2 * i];")),
    m("b2s_batch_order", "BatchToSpaceND", "index arithmetic",
      "input batch read as b*P + offset instead of offset*B + b",
      (B2S, "  Dims split_shape;\n  for (std::int64_t b : plan.block) split_shape.push_back(static_cast<std::size_t>(b));\n  split_shape.push_back(out_batch);\n",
            "  Dims split_shape = {out_batch};\n  for (std::int64_t b : plan.block) split_shape.push_back(static_cast<std::size_t>(b));\n"),
      (B2S, "  Dims axes = {m};\n  for (std::size_t i = 0; i < m; ++i) {\n    axes.push_back(m + 1 + i);\n    axes.push_back(i);\n  }\n",
            "  Dims axes = {0};\n  for (std::size_t i = 0; i < m; ++i) {\n    axes.push_back(m + 1 + i);\n    axes.push_back(i + 1);\n  }\n"),
      (B2S, "for (std::size_t i = 0; i < m; ++i) merged_shape.push_back(in_shape[1 + i] * split_shape[i]);",
            "for (std::size_t i = 0; i < m; ++i) merged_shape.push_back(in_shape[1 + i] * split_shape[i + 1]);")),
    m("b2s_checks_reordered", "BatchToSpaceND", "validation reordered",
      "batch divisibility checked before the block product is known positive (division by zero)",
      (B2S, "  if (!product) return invalid_argument(\"Product of block sizes overflows int64\");\n  if (*product <= 0) return invalid_argument(\"Product of block sizes must be positive, got \", *product);\n  plan->block_product = *product;\n  // 5. The input batch divides into P blocks.\n  const std::int64_t input_batch = input.dim(0);\n  if (input_batch % *product != 0)\n    return invalid_argument(\"Input batch dimension (\", input_batch,\n                            \") is not divisible by product of block sizes (\", *product, \")\");\n",
            "  if (!product) return invalid_argument(\"Product of block sizes overflows int64\");\n  const std::int64_t input_batch = input.dim(0);\n  if (input_batch % *product != 0)\n    return invalid_argument(\"Input batch dimension (\", input_batch,\n                            \") is not divisible by product of block sizes (\", *product, \")\");\n  if (*product <= 0) return invalid_argument(\"Product of block sizes must be positive, got \", *product);\n  plan->block_product = *product;\n")),
    m("b2s_collapse_ignores_crops", "BatchToSpaceND", "collapsing",
      "a block dim of 1 is collapsed even when its crops are not zero (crops there ignored)",
      (COMMON, "auto trivial = [&](int i) { return block[i] == 1 && paddings_or_crops[2 * i] == 0 && paddings_or_crops[2 * i + 1] == 0; };",
               "auto trivial = [&](int i) { return block[i] == 1; };")),
    m("b2s_no_four_dim_limit", "BatchToSpaceND", "four-dim limit",
      "more than four internal block dims accepted",
      (B2S, "  if (plan->runs.internal > space_batch::kMaxInternalBlockDims)\n    return space_batch::too_many_internal_block_dims(plan->runs.internal);\n", "")),
    m("b2s_unchecked_cropped_size", "BatchToSpaceND", "unchecked arithmetic",
      "input_dim * block - crops computed in wrapping int64 instead of 128-bit",
      (B2S, "const __int128 cropped = static_cast<__int128>(input.dim(1 + i)) * block[i] - start - end;",
            "const __int128 cropped = static_cast<std::int64_t>(static_cast<std::uint64_t>(input.dim(1 + i)) * static_cast<std::uint64_t>(block[i]) - static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(end));")),
    m("b2s_int32_crops", "BatchToSpaceND", "32-bit index arithmetic",
      "crops read into int32 (int64 crops above 2^31 wrap)",
      (B2S, "const std::vector<std::int64_t> crop_values = space_batch::index_values(crops);",
            "std::vector<std::int64_t> crop_values;\n  for (std::int64_t c : space_batch::index_values(crops)) crop_values.push_back(static_cast<std::int32_t>(c));")),
    m("b2s_wrong_message", "BatchToSpaceND", "wrong message",
      "negative crops reported with the paddings wording of SpaceToBatchND",
      (B2S, "invalid_argument(\"Crops must be non-negative\")", "invalid_argument(\"Paddings must be non-negative\")")),
    # ---------------------------------------------------------------- DynamicStitch
    m("ds_first_wins", "DynamicStitch", "wrong winner on duplicates",
      "duplicate indices: the first (m, i) wins instead of the last (lists walked backwards)",
      (STITCH, "      for (std::int64_t m = 0; m < n; ++m) {\n        const std::span<const std::int32_t> index = indices[m].values<std::int32_t>();\n        const T* in",
               "      for (std::int64_t m = n; m-- > 0;) {\n        const std::span<const std::int32_t> index = indices[m].values<std::int32_t>();\n        const T* in"),
      (STITCH, "        for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i)\n          for (std::int64_t k",
               "        for (std::int64_t i = static_cast<std::int64_t>(index.size()); i-- > 0;)\n          for (std::int64_t k")),
    m("ds_gaps_uninitialised", "DynamicStitch", "gaps left uninitialised",
      "rows no index names keep stale memory instead of zero",
      (STITCH, "    Tensor result(dtype, merged_shape.dims());", "    Tensor result = Tensor::uninitialized(dtype, merged_shape.dims());")),
    m("ds_no_negative_index_check", "DynamicStitch", "writes past the end",
      "negative indices not rejected: rows written before the start of the output",
      (STITCH, "      if (index[i] < 0) return invalid_argument(\"indices[\", i, \"] is out of range\");\n", "")),
    m("ds_size_from_first_list", "DynamicStitch", "writes past the end",
      "indices of later lists neither range-checked nor counted in the output size: rows written past the end",
      (STITCH, "  for (std::int64_t m = 0; m < n; ++m) {\n    const std::span<const std::int32_t> index = indices[m].values<std::int32_t>();\n    for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i) {\n      if (index[i] < 0)",
               "  for (std::int64_t m = 0; m < n; ++m) {\n    const std::span<const std::int32_t> index = indices[m].values<std::int32_t>();\n    for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i) {\n      if (m > 0) continue;\n      if (index[i] < 0)")),
    m("ds_no_prefix_check", "DynamicStitch", "validation skipped",
      "data[m].shape not checked to start with indices[m].shape",
      (STITCH, "    if (!starts_with(data[m].shape(), indices[m].shape()))\n      return invalid_argument(\"data[\", m, \"].shape = \", shape_string(data[m].shape()),\n                              \" does not start with indices[\", m,\n                              \"].shape = \", shape_string(indices[m].shape()));\n", "")),
    m("ds_wrong_message", "DynamicStitch", "wrong message",
      "a negative index reported with its list number m instead of its position i",
      (STITCH, "if (index[i] < 0) return invalid_argument(\"indices[\", i, \"] is out of range\");",
               "if (index[i] < 0) return invalid_argument(\"indices[\", m, \"] is out of range\");")),
    m("ds_int32_row_count", "DynamicStitch", "32-bit index arithmetic",
      "output row count max_index + 1 computed in int32 (index 2^31-1 wraps the size negative)",
      (STITCH, "  const std::int64_t rows = max_index + 1;",
               "  const std::int64_t rows = static_cast<std::int32_t>(static_cast<std::uint32_t>(max_index) + 1u);")),
    m("ds_one_byte_word_copy", "DynamicStitch", "dtype-specific slip",
      "1-byte dtypes copy rows in 4-byte words, rounding the row up: the bytes after a row are clobbered",
      (STITCH, "        for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i)\n          for (std::int64_t k = 0; k < row_size; ++k)\n            out[index[i] * row_size + k] = in[i * row_size + k];",
               "        for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i) {\n"
               "          if constexpr (sizeof(T) == 1 && std::is_trivially_copyable_v<T>) {\n"
               "            std::memcpy(out + index[i] * row_size, in + i * row_size, static_cast<std::size_t>((row_size + 3) & ~std::int64_t{3}));\n"
               "            continue;\n"
               "          }\n"
               "          for (std::int64_t k = 0; k < row_size; ++k)\n            out[index[i] * row_size + k] = in[i * row_size + k];\n        }"),
      (STITCH, "#include <algorithm>\n", "#include <algorithm>\n#include <cstring>\n#include <type_traits>\n")),
    # ---------------------------------------------------------------- ParallelDynamicStitch
    m("pds_no_trailing_shape_check", "ParallelDynamicStitch", "validation skipped",
      "data[m] trailing shapes not checked against data[0]'s",
      (STITCH, "    if (m > 0 && !same_trailing_shape(data0, indices0, data[m], indices[m]))\n      return invalid_argument(",
               "    if (false)\n      return invalid_argument(")),
    m("pds_wrong_op_name", "ParallelDynamicStitch", "wrong message",
      "messages name DynamicStitch (copy-paste of the sibling kernel)",
      (STITCH, "return stitch(\"ParallelDynamicStitch\", indices, data, merged, options);",
               "return stitch(\"DynamicStitch\", indices, data, merged, options);")),
    m("pds_empty_list_unchecked", "ParallelDynamicStitch", "validation reordered",
      "list lengths compared after data[0] is read (N = 0 reads past an empty list)",
      (STITCH, "  for (const Tensor& member : data)\n    if (member.dtype() != data[0].dtype())",
               "  const DType first_dtype = data.data()[0].dtype();\n  for (const Tensor& member : data)\n    if (member.dtype() != first_dtype)")),
    m("pds_gaps_uninitialised", "ParallelDynamicStitch", "gaps left uninitialised",
      "rows no index names keep stale memory instead of zero",
      (STITCH, "    Tensor result(dtype, merged_shape.dims());", "    Tensor result = Tensor::uninitialized(dtype, merged_shape.dims());")),
    # ---------------------------------------------------------------- DynamicPartition
    m("dp_unstable", "DynamicPartition", "unstable partition",
      "slices appended in reverse row-major order (not a stable split)",
      (PART, "      for (std::int64_t j = 0; j < entries; ++j) {\n        const std::int32_t p = partition_values[j];",
             "      for (std::int64_t j = entries; j-- > 0;) {\n        const std::int32_t p = partition_values[j];")),
    m("dp_drops_out_of_range", "DynamicPartition", "dropped out-of-range partitions",
      "out-of-range partition values silently dropped (XLA-style) instead of rejected",
      (PART, "    if (p < 0 || p >= num_partitions)\n      return invalid_argument(\"partitions\", position_string(partitions.shape(), j), \" = \", p,\n                              \" is not in [0, \", num_partitions, \")\");\n", ""),
      (PART, "  const std::int64_t all_outputs_bytes", "  std::int64_t in_range = 0;\n  for (std::int32_t p : partition_values) in_range += p >= 0 && p < num_partitions;\n  const std::int64_t all_outputs_bytes"),
      (PART, "num_partitions, entries, slice_elements, dtype_accounting_width(dtype));", "num_partitions, in_range, slice_elements, dtype_accounting_width(dtype));"),
      (PART, "for (std::int64_t j = 0; j < entries; ++j) ++counts[partition_values[j]];",
             "for (std::int64_t j = 0; j < entries; ++j)\n      if (partition_values[j] >= 0 && partition_values[j] < num_partitions) ++counts[partition_values[j]];"),
      (PART, "        const std::int32_t p = partition_values[j];\n", "        const std::int32_t p = partition_values[j];\n        if (p < 0 || p >= num_partitions) continue;\n")),
    m("dp_int32_num_partitions", "DynamicPartition", "32-bit index arithmetic",
      "num_partitions narrowed to int32 instead of rejected above 2^31-1",
      (PART, "  if (num_partitions > std::numeric_limits<std::int32_t>::max())\n    return invalid_argument(\"Attr num_partitions has value \", num_partitions,\n                            \" out of range for an int32\");\n",
             "  num_partitions = static_cast<std::int32_t>(num_partitions);\n")),
    m("dp_outputs_before_range_check", "DynamicPartition", "allocation before validation",
      "outputs allocated before the partition range check, which runs in the copy loop (work before validation)",
      (PART, "    if (p < 0 || p >= num_partitions)\n      return invalid_argument(\"partitions\", position_string(partitions.shape(), j), \" = \", p,\n                              \" is not in [0, \", num_partitions, \")\");\n", ""),
      (PART, "for (std::int64_t j = 0; j < entries; ++j) ++counts[partition_values[j]];",
             "for (std::int64_t j = 0; j < entries; ++j)\n      if (partition_values[j] >= 0 && partition_values[j] < num_partitions) ++counts[partition_values[j]];"),
      (PART, "    std::vector<std::int64_t> next_row(static_cast<std::size_t>(num_partitions), 0);\n",
             "    std::vector<std::int64_t> next_row(static_cast<std::size_t>(num_partitions), 0);\n    std::int64_t out_of_range = -1;\n"),
      (PART, "        const std::int32_t p = partition_values[j];\n",
             "        const std::int32_t p = partition_values[j];\n        if (p < 0 || p >= num_partitions) {\n          out_of_range = j;\n          return;\n        }\n"),
      (PART, "    *outputs = std::move(results);",
             "    if (out_of_range >= 0)\n      return invalid_argument(\"partitions\", position_string(partitions.shape(), out_of_range), \" = \",\n                              partition_values[out_of_range], \" is not in [0, \", num_partitions, \")\");\n    *outputs = std::move(results);")),
    m("dp_no_prefix_check", "DynamicPartition", "validation skipped",
      "data.shape not checked to start with partitions.shape",
      (PART, "  if (!starts_with(data.shape(), partitions.shape()))\n    return invalid_argument(", "  if (false)\n    return invalid_argument(")),
    m("dp_wrong_code_registration", "DynamicPartition", "wrong error code",
      "an unregistered (quantized) dtype answered INVALID_ARGUMENT instead of UNIMPLEMENTED",
      (PART, "    return unimplemented(\n        \"No registered 'DynamicPartition'", "    return invalid_argument(\n        \"No registered 'DynamicPartition'")),
    m("dp_string_c_str", "DynamicPartition", "dtype-specific slip",
      "string slices copied as C strings: bytes from the first NUL on are lost",
      (PART, "          out[next_row[p] * slice_elements + k] = in[j * slice_elements + k];",
             "          if constexpr (std::is_same_v<T, std::string>)\n            out[next_row[p] * slice_elements + k] = std::string(in[j * slice_elements + k].c_str());\n          else\n            out[next_row[p] * slice_elements + k] = in[j * slice_elements + k];"),
      (PART, "#include <string>\n", "#include <string>\n#include <type_traits>\n")),
    m("dp_no_memory_accounting", "DynamicPartition", "validation skipped",
      "outputs not requested against the memory limit before allocating",
      (PART, "  if (all_outputs_bytes < 0 || all_outputs_bytes > options.memory_limit_bytes)\n    return first_output_over_limit(",
             "  if (all_outputs_bytes < 0)\n    return first_output_over_limit("),
      (PART, "      OPCONFORM_RETURN_IF_ERROR(account.request(dtype, shape.dims()));\n", "")),
    m("dp_accepts_zero_partitions", "DynamicPartition", "validation skipped",
      "num_partitions = 0 accepted (minimum checked as >= 0)",
      (PART, "  if (num_partitions < 1)\n", "  if (num_partitions < 0)\n")),
    # ---------------------------------------------------------------- SparseConcat
    m("sc_missing_sort", "SparseConcat", "missing final sort",
      "entries left in input order instead of sorted row-major",
      (SPARSE, "  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {\n    return std::lexicographical_compare(coords_of(a), coords_of(a) + r, coords_of(b),\n                                        coords_of(b) + r);\n  });\n", "")),
    m("sc_dedup_coordinates", "SparseConcat", "deduplicated coordinates",
      "entries with equal coordinates merged into one (the last one kept)",
      (SPARSE, "  std::int64_t* out_indices = out->indices.data<std::int64_t>();",
               "  const auto same = [&](std::size_t a, std::size_t b) { return std::equal(coords_of(a), coords_of(a) + r, coords_of(b)); };\n"
               "  std::vector<std::size_t> kept;\n"
               "  for (std::size_t p = 0; p < nnz; ++p)\n"
               "    if (p + 1 == nnz || !same(order[p], order[p + 1])) kept.push_back(order[p]);\n"
               "  order = kept;\n"
               "  std::int64_t* out_indices = out->indices.data<std::int64_t>();"),
      (SPARSE, "  for (std::size_t p = 0; p < nnz; ++p) {\n    const std::size_t e = order[p];",
               "  for (std::size_t p = 0; p < order.size(); ++p) {\n    const std::size_t e = order[p];")),
    m("sc_negative_concat_dim_abs", "SparseConcat", "wrong offset for negative concat_dim",
      "a negative concat_dim taken as its absolute value instead of r + concat_dim",
      (SPARSE, "const std::int64_t cd = concat_dim < 0 ? r + concat_dim : concat_dim;",
               "const std::int64_t cd = concat_dim < 0 ? -concat_dim : concat_dim;")),
    m("sc_offsets_not_accumulated", "SparseConcat", "index arithmetic",
      "input k offset by shapes[k-1][cd] instead of the sum of all previous sizes",
      (SPARSE, "    offsets.push_back(output_shape[cd]);", "    offsets.push_back(shape_i[cd]);")),
    m("sc_int32_linear_index", "SparseConcat", "32-bit index arithmetic",
      "entries sorted by a row-major linear index computed in int32",
      (SPARSE, "    return std::lexicographical_compare(coords_of(a), coords_of(a) + r, coords_of(b),\n                                        coords_of(b) + r);",
               "    const auto linear = [&](std::size_t e) {\n"
               "      std::int32_t index = 0;\n"
               "      for (std::size_t j = 0; j < r; ++j)\n"
               "        index = static_cast<std::int32_t>(static_cast<std::uint32_t>(index) * static_cast<std::uint32_t>(v.output_shape[j]) + static_cast<std::uint32_t>(coords_of(e)[j]));\n"
               "      return index;\n"
               "    };\n"
               "    return linear(a) < linear(b);")),
    m("sc_sort_first_dim_only", "SparseConcat", "missing final sort",
      "entries sorted by their first coordinate only (stable), not row-major over all dims",
      (SPARSE, "    return std::lexicographical_compare(coords_of(a), coords_of(a) + r, coords_of(b),\n                                        coords_of(b) + r);",
               "    return coords_of(a)[0] < coords_of(b)[0];")),
    m("sc_wrong_code_shape_overflow", "SparseConcat", "wrong error code",
      "an overflowing input shape answered INVALID_ARGUMENT instead of INTERNAL",
      (SPARSE, "if (product < 0) return internal_error(\"Encountered overflow from large input shape.\");",
               "if (product < 0) return invalid_argument(\"Encountered overflow from large input shape.\");")),
    m("sc_shapes_before_values", "SparseConcat", "validation reordered",
      "the values checked to be vectors only after the shapes (vector, checked product, 254-dim limit): steps 4 and 5-6 swapped",
      (SPARSE, '  // Step 4.\n  for (std::size_t i = 0; i < n; ++i)\n    if (values[i].rank() != 1)\n      return invalid_argument("Input values should be a vector but received shape ",\n                              shape_string(values[i].shape()), " at position ", i);\n', ""),
      (SPARSE, "  // Step 6 (deviation).\n", '  // Step 4.\n  for (std::size_t i = 0; i < n; ++i)\n    if (values[i].rank() != 1)\n      return invalid_argument("Input values should be a vector but received shape ",\n                              shape_string(values[i].shape()), " at position ", i);\n' + "  // Step 6 (deviation).\n")),
    m("sc_unchecked_concat_sum", "SparseConcat", "unchecked arithmetic",
      "the output size on concat_dim summed with wrapping addition, no overflow check",
      (SPARSE, "      if (__builtin_add_overflow(output_shape[cd], shape_i[cd], &output_shape[cd]))\n        return invalid_argument(\"Concat dimension size overflows int64 at position \", i);\n",
               "      output_shape[cd] = static_cast<std::int64_t>(static_cast<std::uint64_t>(output_shape[cd]) + static_cast<std::uint64_t>(shape_i[cd]));\n")),
    m("sc_no_rank_check", "SparseConcat", "validation skipped",
      "indices column count not checked against the sparse rank",
      (SPARSE, "    if (indices[i].dim(1) != v.rank)\n      return invalid_argument(\"Order length must be SparseTensor rank.\");\n", "")),
    m("sc_entry_checks_on_empty", "SparseConcat", "quirk not kept",
      "the per-input checks of step 10 run also when the total nnz is 0 (TensorFlow returns the empty result before them)",
      (SPARSE, "  if (v.total_nnz != 0) OPCONFORM_RETURN_IF_ERROR(check_entries(indices, values, v));",
               "  OPCONFORM_RETURN_IF_ERROR(check_entries(indices, values, v));")),
    # ---------------------------------------------------------------- SpaceToDepth
    m("s2d_width_not_checked", "SpaceToDepth", "validation skipped",
      "a width not divisible by block_size is not rejected (only the height is checked)",
      (S2D, "if (width % b != 0 || height % b != 0)", "if (height % b != 0)")),
    m("s2d_block_row_outermost", "SpaceToDepth", "index arithmetic",
      "the input split as [N, b, H/b, W/b, b, C]: block rows taken as the outer factor of H",
      (S2D, "const Dims split = {z(batch), z(height / b), z(b), z(width / b), z(b), z(depth)};",
            "const Dims split = {z(batch), z(b), z(height / b), z(width / b), z(b), z(depth)};")),
    m("s2d_unchecked_output_depth", "SpaceToDepth", "unchecked arithmetic",
      "the output depth C*b*b computed with wrapping multiplication instead of the checked one",
      (S2D, "  if (__builtin_mul_overflow(depth, b * b, &output_depth))\n    return invalid_argument(\"output depth \", depth, \" * \", b, \" * \", b, \" overflows int64\");\n",
            "  output_depth = static_cast<std::int64_t>(static_cast<std::uint64_t>(depth) * static_cast<std::uint64_t>(b * b));\n")),
    m("s2d_qint8_unregistered", "SpaceToDepth", "dtype registration",
      "qint8 answered UNIMPLEMENTED (the registration DepthToSpace has, not SpaceToDepth's)",
      (S2D, "return dtype != DType::kQUInt8 && dtype != DType::kQInt32;",
            "return dtype != DType::kQInt8 && dtype != DType::kQUInt8 && dtype != DType::kQInt32;")),
    m("s2d_height_width_swapped", "SpaceToDepth", "output shape",
      "the output shape built as [N, W/b, H/b, C*b*b] (height and width swapped)",
      (S2D, "{batch, height / b, width / b, output_depth}", "{batch, width / b, height / b, output_depth}")),
    # ---------------------------------------------------------------- DepthToSpace
    m("d2s_divisible_by_block", "DepthToSpace", "validation",
      "the depth checked for divisibility by b instead of b*b",
      (D2S, "  if (depth % b2 != 0)\n", "  if (depth % b != 0)\n")),
    m("d2s_crd_order", "DepthToSpace", "index arithmetic",
      "the depth read in CRD order (channel outermost, as PyTorch's pixel_shuffle) instead of DCR",
      (D2S, "const Dims split = {z(batch), z(height), z(width), z(b), z(b), z(depth / b2)};",
            "const Dims split = {z(batch), z(height), z(width), z(depth / b2), z(b), z(b)};")),
    m("d2s_unchecked_output_width", "DepthToSpace", "unchecked arithmetic",
      "the output width W*b computed with wrapping multiplication instead of the checked one",
      (D2S, "  if (__builtin_mul_overflow(width, b, &output_width))\n    return invalid_argument(\"output width \", width, \" * \", b, \" overflows int64\");\n",
            "  output_width = static_cast<std::int64_t>(static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(b));\n")),
    m("d2s_qint8_registered", "DepthToSpace", "dtype registration",
      "qint8 accepted (SpaceToDepth's registration, not DepthToSpace's)",
      (D2S, "  return dtype != DType::kQInt8 && dtype != DType::kQUInt8 && dtype != DType::kQInt32;",
            "  return dtype != DType::kQUInt8 && dtype != DType::kQInt32;")),

]


def find(name):
    for mutant in CATALOGUE:
        if mutant["name"] == name:
            return mutant
    sys.exit(f"catalogue.py: no mutant named {name}")


SITE = re.compile(r"^[ \t]*// mutant-site: ([\w ]+?)[ \t]*\n(.*?)^[ \t]*// mutant-site end[ \t]*$",
                  re.MULTILINE | re.DOTALL)


def sites(text):
    """{mutant name: [(start, end) of each of its sites' bodies in text]}."""
    found = {}
    for match in SITE.finditer(text):
        for name in match.group(1).split():
            found.setdefault(name, []).append(match.span(2))
    return found


def locate(text, spans, find):
    """The one span inside `spans` of text that equals `find` once whitespace is ignored."""
    needle = "".join(find.split())
    hits = []
    for start, end in spans:
        kept = [i for i in range(start, end) if not text[i].isspace()]
        body = "".join(text[i] for i in kept)
        at = body.find(needle)
        while at >= 0:
            hits.append((kept[at], kept[at + len(needle) - 1] + 1))
            at = body.find(needle, at + 1)
    if len(hits) != 1:
        raise ValueError(f"the text to replace occurs {len(hits)} times in its sites")
    return hits[0]


def mutated(name, texts):
    """texts {path: source} with NAME's edits applied (raises ValueError naming the problem)."""
    mutant = find(name)
    out = dict(texts)
    for edit in mutant["edits"]:
        path = edit["file"]
        where = sites(out[path]).get(name)
        if where is None:
            raise ValueError(f"mutant {name}: no '// mutant-site: ... {name}' in {path}")
        try:
            begin, end = locate(out[path], where, edit["find"])
        except ValueError as e:
            raise ValueError(f"mutant {name}: {path}: {e} (the reference changed? update the catalogue):\n"
                             f"{edit['find']}")
        out[path] = out[path][:begin] + edit["replace"] + out[path][end:]
    return out


def read_sources(src_root, paths):
    texts = {}
    for path in paths:
        with open(os.path.join(src_root, path), encoding="utf-8") as f:
            texts[path] = f.read()
    return texts


def apply(name, src_root, out_dir):
    texts = read_sources(src_root, {e["file"] for e in find(name)["edits"]})
    try:
        texts = mutated(name, texts)
    except ValueError as e:
        sys.exit(f"catalogue.py: {e}")
    os.makedirs(out_dir, exist_ok=True)
    for path, text in texts.items():
        out = os.path.join(out_dir, os.path.basename(path))
        old = None
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                old = f.read()
        if old != text:  # keep the timestamp when nothing changed: no needless rebuild
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)


def check(src_root, formatter):
    """Problems: edits that do not apply (also after `formatter`, when given), mutants that
    change nothing, and sites that name no mutant."""
    paths = sorted({f for files in OP_FILES.values() for f in files})
    texts = read_sources(src_root, paths)
    if formatter:
        texts = {p: subprocess.run(formatter + [f"--assume-filename={p}"], input=t, text=True,
                                   capture_output=True, check=True).stdout for p, t in texts.items()}
    names = {mu["name"] for mu in CATALOGUE}
    problems = []
    for path, text in texts.items():
        for name in sites(text):
            if name not in names:
                problems.append(f"{path}: a site names {name}, which is not in the catalogue")
    for mutant in CATALOGUE:
        try:
            after = mutated(mutant["name"], texts)
            if after == texts:
                problems.append(f"mutant {mutant['name']}: changes nothing")
        except ValueError as e:
            problems.append(str(e))
    return problems


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for mutant in CATALOGUE:
            edited = sorted({e["file"] for e in mutant["edits"]})
            print(f"{mutant['name']}|{mutant['op']}|{','.join(edited)}")
        return 0
    if len(argv) == 5 and argv[1] == "apply":
        apply(argv[2], argv[3], argv[4])
        return 0
    if len(argv) >= 3 and argv[1] == "check":
        problems = check(argv[2], argv[3:])
        for problem in problems:
            print(problem)
        how = f" reformatted by {' '.join(argv[3:])}" if len(argv) > 3 else ""
        print(f"{len(CATALOGUE)} mutants checked on the reference{how}: {len(problems)} problems")
        return 1 if problems else 0
    if len(argv) == 3 and argv[1] == "json":
        items = [{k: mu[k] for k in ("name", "op", "class", "breaks")} for mu in CATALOGUE]
        with open(argv[2], "w", encoding="utf-8") as f:
            json.dump(items, f, indent=1)
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
