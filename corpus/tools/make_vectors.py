#!/usr/bin/env python3
"""Writes the bundled conformance vectors under corpus/vectors/<op>/ (not tf-tests/).

Every expected value below is written literally: copied from docs/contract/ (page and example
named in each vector's provenance) or worked out by hand from the spec's formula; nothing here
runs an implementation. The format is corpus/README.md ("opconform-vector/1").

    python3 corpus/tools/make_vectors.py            # (re)write the files
    python3 corpus/tools/make_vectors.py --check    # only check that the files on disk match
Standard library only.

A tag check:<Op>:<id> names a check of the op's list generators/checks/<folder>.inc (the ids are
read from there, so the generators and the corpus cannot disagree), a group of its checks (the
prefix before a "-": arg-types for arg-types-block-shape and arg-types-paddings), or one of
the op's PATH_TAGS; any other id stops the script.
"""
import math
import os
import sys

from vector_files import read_check_ids, write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS_DIR = os.path.normpath(os.path.join(HERE, "..", "vectors"))
CHECKS_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "generators", "checks"))

FOLDER = {
    "SpaceToBatchND": "space_to_batch_nd",
    "BatchToSpaceND": "batch_to_space_nd",
    "DynamicStitch": "dynamic_stitch",
    "ParallelDynamicStitch": "parallel_dynamic_stitch",
    "DynamicPartition": "dynamic_partition",
    "SparseConcat": "sparse_concat",
}
# Check tags that name no check: the success paths no check owns (check 7 of the space-batch
# ops, SparseConcat's empty result).
PATH_TAGS = {
    "SpaceToBatchND": ("identity",),
    "BatchToSpaceND": ("identity",),
    "SparseConcat": ("empty-result",),
}



CHECKS = {op: read_check_ids(os.path.join(CHECKS_DIR, folder + ".inc")) for op, folder in FOLDER.items()}


def known_check(op, check_id):
    """Whether check:<op>:<id> names a check, a group of checks or a path tag of the op."""
    ids = CHECKS.get(op, ())
    return (check_id in ids or any(i.startswith(check_id + "-") for i in ids)
            or check_id in PATH_TAGS.get(op, ()))


DTYPES = ("float32 float64 float16 bfloat16 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
          "bool complex64 complex128 string qint8 quint8 qint32").split()

# Big int64 values, written as decimal strings (README: magnitudes above 2^53).
P62 = "4611686018427387904"        # 2^62
P61 = "2305843009213693952"        # 2^61
I64_MAX = "9223372036854775807"    # 2^63 - 1
I64_MIN = "-9223372036854775808"   # -2^63
GIB4 = 4294967296

SPEC_S2B = "docs/contract/space_to_batch_nd.md"
SPEC_DS = "docs/contract/dynamic_stitch.md"
SPEC_SC = "docs/contract/sparse_concat.md"
SPEC_ADV = "docs/contract/advisories.md"
SPEC_README = "docs/contract/README.md"

VECTORS = []  # (folder, file stem, vector)


def T(dtype, shape, data=None, fill=None):
    """One tensor; `data` row-major, or `fill` for one repeated element."""
    t = {"dtype": dtype, "shape": list(shape)}
    if fill is not None:
        t["fill"] = fill
    else:
        t["data"] = list(data)
    return t


def f32(shape, data): return T("float32", shape, data)
def i32(shape, data): return T("int32", shape, data)
def i64(shape, data): return T("int64", shape, data)


def outputs(**outs):
    return {"outputs": outs}


def error(code, message):
    return {"error": {"code": code, "message": message}}


def invalid(message):
    return error("INVALID_ARGUMENT", message)


def oom(shape_text, dtype):
    return error("RESOURCE_EXHAUSTED",
                 "OOM when allocating tensor with shape%s and type %s" % (shape_text, dtype))


def add(name, op, inputs, expected, tags, provenance, attrs=None, memory_limit=None,
        alternatives=None):
    v = {"format": "opconform-vector/1", "op": op}
    if attrs is not None:
        v["attrs"] = attrs
    v["inputs"] = inputs
    v["expected"] = expected
    if alternatives is not None:
        v["alternatives"] = alternatives
    if memory_limit is not None:
        v["memory_limit"] = memory_limit
    v["tags"] = tags
    v["provenance"] = provenance
    VECTORS.append((FOLDER[op], name, v))


def alternative(profiles, outcome, why):
    """An outcome the contract allows besides the expected one under these profiles."""
    return {"profiles": profiles, "outcome": outcome, "why": why}


def check(op, check_id):
    if not known_check(op, check_id):
        sys.exit("check:%s:%s names no check of generators/checks/%s.inc" % (op, check_id, FOLDER.get(op, "?")))
    return "check:%s:%s" % (op, check_id)


# =============================================================================================
# SpaceToBatchND
# =============================================================================================
S2B = "SpaceToBatchND"


def s2b(name, inp, block, pads, expected, tags, prov, **kw):
    add(name, S2B, {"input": inp, "block_shape": block, "paddings": pads}, expected, tags, prov,
        **kw)


ZERO_PADS_2 = i32([2, 2], [0, 0, 0, 0])
BLOCK_2x2 = i32([2], [2, 2])
GOLDEN3_OUT = [1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16]
GOLDEN4_OUT = [0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16]
M1_IN = [1, 2, 3, 4, 5, 6]
M1_OUT = [0, 2, 0, 5, 1, 3, 4, 6]
# Four internal dims: input [2] + S, S = block = [1,1,3,4,2,2,1], zero paddings. Output row b'
# takes input[n = b' mod 2, o = unravel(b' div 2)], i.e. flat element (b' mod 2)*48 + b' div 2.
COLLAPSE_BLOCK = [1, 1, 3, 4, 2, 2, 1]
COLLAPSE_IN = list(range(96))
COLLAPSE_OUT = [v for k in range(48) for v in (k, 48 + k)]  # 0,48,1,49,...,47,95

s2b("golden_1", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([4, 1, 1, 1], [1, 2, 3, 4])),
    ["golden"], SPEC_S2B + ", golden example 1 (seeds/SpaceToBatchND.ru.txt example 1)")
s2b("golden_2", f32([1, 2, 2, 3], range(1, 13)), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([4, 1, 1, 3], range(1, 13))),
    ["golden"], SPEC_S2B + ", golden example 2 (seeds/SpaceToBatchND.ru.txt example 2)")
s2b("golden_3", f32([1, 4, 4, 1], range(1, 17)), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([4, 2, 2, 1], GOLDEN3_OUT)),
    ["golden"], SPEC_S2B + ", golden example 3 (seeds/SpaceToBatchND.ru.txt example 3)")
s2b("golden_4", f32([2, 2, 4, 1], range(1, 17)), BLOCK_2x2, i32([2, 2], [0, 0, 2, 0]),
    outputs(output=f32([8, 1, 3, 1], GOLDEN4_OUT)),
    ["golden"], SPEC_S2B + ", golden example 4 (seeds/SpaceToBatchND.ru.txt example 4)")
s2b("golden_m1", f32([2, 3], M1_IN), i32([1], [2]), i32([1, 2], [1, 0]),
    outputs(output=f32([4, 2], M1_OUT)),
    ["golden"], SPEC_S2B + ", fixed case 'M = 1' (from TensorFlow's tests)")
s2b("golden_zero_spatial_padded_up", f32([3, 0, 2, 5], []), i32([1], [3]), i32([1, 2], [1, 2]),
    outputs(output=f32([9, 1, 2, 5], [0.0] * 90)),
    ["golden"], SPEC_S2B + ", fixed case 'a spatial dim of 0 padded up'")
s2b("golden_zero_remaining_dim", f32([3, 1, 2, 0], []), i32([1], [3]), i32([1, 2], [0, 2]),
    outputs(output=f32([9, 1, 2, 0], [])),
    ["golden"], SPEC_S2B + ", fixed case 'a remaining dim of 0' (block [3], paddings [[0,2]] "
    "as in TensorFlow's testDirect0)")
s2b("golden_batch_zero", f32([0, 2, 2, 1], []), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([0, 1, 1, 1], [])),
    ["golden"], SPEC_S2B + ", fixed case 'B = 0: output batch 0'")
s2b("zero_spatial_dim_unpadded", f32([3, 0, 2, 5], []), i32([1], [3]), i32([1, 2], [0, 0]),
    outputs(output=f32([9, 0, 2, 5], [])),
    ["edge"], SPEC_S2B + ", result formula with a zero-size blocked dim (TensorFlow's testDirect1)")

# --- pre-checks (spec README) ---
s2b("check_arg_type_block_shape", f32([1, 2, 2, 1], [1, 2, 3, 4]), T("float32", [2], [2, 2]),
    ZERO_PADS_2,
    invalid("Value for attr 'Tblock_shape' of float32 is not in the list of allowed values: "
            "int32, int64"),
    [check(S2B, "arg-types"), "message:code-only"], SPEC_README + ", pre-check 1 (argument types)")
s2b("check_arg_type_paddings", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2,
    T("uint8", [2, 2], [0, 0, 0, 0]),
    invalid("Value for attr 'Tpaddings' of uint8 is not in the list of allowed values: "
            "int32, int64"),
    [check(S2B, "arg-types"), "message:code-only"], SPEC_README + ", pre-check 1 (argument types)")
s2b("check_arg_type_before_registration", T("bool", [1, 2, 2, 1], [True, False, True, False]),
    BLOCK_2x2, T("int16", [2, 2], [0, 0, 0, 0]),
    invalid("Value for attr 'Tpaddings' of int16 is not in the list of allowed values: "
            "int32, int64"),
    [check(S2B, "arg-types"), "message:code-only"],
    SPEC_README + ", pre-check 1 comes before pre-check 3 (bool input is also unregistered)")
for dt, data in (("bool", [True, False, True, True]),
                 ("complex64", [[1, 0], [2, 0], [3, 0], [4, 0]]),
                 ("string", ["a", "b", "c", "d"]),
                 ("qint8", [1, 2, 3, 4])):
    s2b("check_registration_" + dt, T(dt, [1, 2, 2, 1], data), BLOCK_2x2, ZERO_PADS_2,
        error("UNIMPLEMENTED",
              "No registered 'SpaceToBatchND' OpKernel for 'CPU' devices compatible with T=" + dt),
        [check(S2B, "registration"), "message:code-only"],
        SPEC_S2B + ", registered dtypes (no bool, complex, string or quantized); "
        + SPEC_README + " pre-check 3")
s2b("check_registration_before_op_checks", T("string", [1, 2, 2, 1], ["a", "b", "c", "d"]),
    i32([1, 2], [2, 2]), ZERO_PADS_2,
    error("UNIMPLEMENTED",
          "No registered 'SpaceToBatchND' OpKernel for 'CPU' devices compatible with T=string"),
    [check(S2B, "registration"), "message:code-only"],
    SPEC_README + ", pre-check 3 runs before the page's check 1 (block_shape rank is also bad)")

# --- the page's checks, in order ---
s2b("check_block_shape_rank", f32([1, 2, 2, 1], [1, 2, 3, 4]), i32([1, 2], [2, 2]), ZERO_PADS_2,
    invalid("block_shape rank should be 1 instead of 2"),
    [check(S2B, "block-shape-rank")], SPEC_S2B + ", SpaceToBatchND check 1")
s2b("check_block_shape_rank_scalar", f32([1, 2, 2, 1], [1, 2, 3, 4]), i32([], [2]), ZERO_PADS_2,
    invalid("block_shape rank should be 1 instead of 0"),
    [check(S2B, "block-shape-rank")], SPEC_S2B + ", SpaceToBatchND check 1 (scalar block_shape)")
s2b("check_input_rank", f32([2, 2], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    invalid("input rank should be >= 3 instead of 2"),
    [check(S2B, "input-rank")], SPEC_S2B + ", SpaceToBatchND check 2")
s2b("check_paddings_shape", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2, i32([2], [0, 0]),
    invalid("paddings should have shape [2, 2] instead of [2]"),
    [check(S2B, "paddings-shape")], SPEC_S2B + ", SpaceToBatchND check 3")
s2b("check_paddings_shape_rows", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2,
    i32([3, 2], [0, 0, 0, 0, 0, 0]),
    invalid("paddings should have shape [2, 2] instead of [3,2]"),
    [check(S2B, "paddings-shape")], SPEC_S2B + ", SpaceToBatchND check 3 (DebugString [3,2])")
s2b("check_paddings_shape_m0", f32([2], [1, 2]), i32([0], []), i32([0], []),
    invalid("paddings should have shape [0, 2] instead of [0]"),
    [check(S2B, "paddings-shape"), "edge"], SPEC_S2B + ", SpaceToBatchND check 3 with M = 0")
s2b("check_block_positive_negative", f32([1, 3, 2, 1], range(6)), i32([2], [3, -1]),
    ZERO_PADS_2,
    invalid("All values in block_shape must be positive, got value, -1 at index 1."),
    [check(S2B, "block-positive")], SPEC_S2B + ", SpaceToBatchND check 4")
s2b("check_block_product_wrapped", f32([1, 1, 1], [7]), i64([2], [4294967295, 4294967295]),
    ZERO_PADS_2,
    invalid("Product of block sizes must be positive, got -8589934591"),
    [check(S2B, "block-product")],
    SPEC_S2B + ", SpaceToBatchND check 5 (the page's example; README checked multiply)")
s2b("check_block_product_minus_one", f32([1, 1, 1], [7]), i64([2], [4294967296, 4294967296]),
    ZERO_PADS_2,
    invalid("Product of block sizes must be positive, got -1"),
    [check(S2B, "block-product")],
    SPEC_S2B + ", SpaceToBatchND check 5; 2^32 * 2^32 overflows unsigned 64-bit -> -1")
s2b("check_block_product_two_pow_63", f32([1, 1, 1, 1], [7]), i64([3], [2097152] * 3),
    i32([3, 2], [0] * 6),
    invalid("Product of block sizes must be positive, got -9223372036854775808"),
    [check(S2B, "block-product"), "edge"],
    SPEC_S2B + ", SpaceToBatchND check 5; (2^21)^3 = 2^63 reads back as -2^63")
s2b("check_max_internal_dims", f32([1, 2, 1, 1, 1, 2], [1, 2, 3, 4]), i32([5], [2, 1, 1, 1, 2]),
    i32([5, 2], [0] * 10),
    invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"),
    [check(S2B, "max-internal-dims")], SPEC_S2B + ", collapsing: block [2,1,1,1,2] fails (check 6)")
s2b("collapse_four_internal_dims", f32([2] + COLLAPSE_BLOCK, COLLAPSE_IN),
    i32([7], COLLAPSE_BLOCK), i32([7, 2], [0] * 14),
    outputs(output=f32([96, 1, 1, 1, 1, 1, 1, 1], COLLAPSE_OUT)),
    [check(S2B, "max-internal-dims"), "edge"],
    SPEC_S2B + ", collapsing: block [1,1,3,4,2,2,1] succeeds (4 internal dims); data by the "
    "result formula")
s2b("identity_m0", i32([2, 3], [1, 2, 3, 4, 5, 6]), i32([0], []), i32([0, 2], []),
    outputs(output=i32([2, 3], [1, 2, 3, 4, 5, 6])),
    [check(S2B, "identity")], SPEC_S2B + ", check 7: M = 0, the output is the input")
s2b("identity_trivial_blocks_no_memory_request", f32([1, 2, 2, 1], [1, 2, 3, 4]),
    i32([2], [1, 1]), ZERO_PADS_2,
    outputs(output=f32([1, 2, 2, 1], [1, 2, 3, 4])),
    [check(S2B, "identity"), check(S2B, "memory-limit"), "edge"],
    SPEC_S2B + ", check 7 (no internal dims) and " + SPEC_README
    + " 'Memory accounting': the identity path requests nothing", memory_limit=0)
s2b("check_batch_overflow", f32([2, 1], [1, 2]), i64([1], [P62]), i32([1, 2], [0, 0]),
    invalid("Negative output dimension size caused by overflow when multiplying 2 and "
            "4611686018427387904"),
    [check(S2B, "batch-overflow")], SPEC_S2B + ", SpaceToBatchND check 8 (2 * 2^62)")
s2b("check_prefix_dim_overflow", f32([1, P62, 0], []), i32([2], [1, 2]), ZERO_PADS_2,
    invalid("Encountered overflow when multiplying 2 with 4611686018427387904, result: "
            "-9223372036854775808"),
    [check(S2B, "output-shape-overflow"), "edge"],
    SPEC_S2B + ", SpaceToBatchND check 9: the collapsed prefix dim 2^62 after batch 2")
s2b("check_paddings_negative", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2,
    i32([2, 2], [0, 0, -1, 1]),
    invalid("Paddings must be non-negative"),
    [check(S2B, "paddings-negative")], SPEC_S2B + ", SpaceToBatchND check 10")
s2b("check_paddings_negative_on_block_one", f32([1, 2, 2, 1], [1, 2, 3, 4]), i32([2], [1, 1]),
    i32([2, 2], [0, 0, 0, -1]),
    invalid("Paddings must be non-negative"),
    [check(S2B, "paddings-negative"), "edge"],
    SPEC_S2B + ", collapsing needs zero padding, so block 1 with padding -1 is internal (check 10)")
s2b("deviation_padded_overflow_large_dim", f32([1, P62, 0], []), i64([1], [2]),
    i64([1, 2], [P62, P62]),
    invalid("padded_shape[0] overflows int64"),
    [check(S2B, "padded-overflow"), "deviation", "edge"],
    SPEC_ADV + ", crash path 'SpaceToBatchND, padded size overflow'; " + SPEC_S2B + " check 10")
s2b("deviation_padded_overflow_padding", f32([1, 1], [5]), i64([1], [1]),
    i64([1, 2], [1, I64_MAX]),
    invalid("padded_shape[0] overflows int64"),
    [check(S2B, "padded-overflow"), "deviation", "edge"],
    SPEC_S2B + ", check 10 deviation: 1 + 1 + (2^63-1) overflows (block 1 with padding is "
    "internal)")
s2b("check_divisibility", f32([1, 3, 3, 1], range(9)), BLOCK_2x2, ZERO_PADS_2,
    invalid("padded_shape[0]=3 is not divisible by block_shape[0]=2"),
    [check(S2B, "divisibility")], SPEC_S2B + ", SpaceToBatchND check 10")
s2b("check_divisibility_original_index", f32([1, 2, 2, 3, 1], range(12)), i32([3], [1, 2, 2]),
    i32([3, 2], [0] * 6),
    invalid("padded_shape[2]=3 is not divisible by block_shape[2]=2"),
    [check(S2B, "divisibility"), "edge"],
    SPEC_S2B + ", check 10: i is the position in the original block_shape (leading dim collapsed)")
s2b("check_internal_dim_overflow", f32([1, 0, 0], []), i32([2], [2, 2]),
    i64([2, 2], [0, P62, 0, P62]),
    invalid("Encountered overflow when multiplying 4 with 2305843009213693952, result: "
            "-9223372036854775808"),
    [check(S2B, "output-shape-overflow"), "edge"],
    SPEC_S2B + ", check 10: appending output dim 2^62/2 after batch 4 overflows")
s2b("check_remaining_dim_overflow", f32([1, 0, P62], []), i32([1], [2]), i32([1, 2], [0, 4]),
    invalid("Encountered overflow when multiplying 4 with 4611686018427387904, result: -1"),
    [check(S2B, "output-shape-overflow"), "edge"],
    SPEC_S2B + ", check 11: remaining dim 2^62 after [2,2] (4 * 2^62 overflows unsigned -> -1)")
s2b("check_memory_limit", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    oom("[4,1,1,1]", "float32"),
    [check(S2B, "memory-limit")],
    SPEC_S2B + ", check 12: golden 1 needs 64 + 4*4 = 80 bytes, limit 79", memory_limit=79)
s2b("memory_limit_exact_fit", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([4, 1, 1, 1], [1, 2, 3, 4])),
    [check(S2B, "memory-limit"), "edge"],
    SPEC_README + ", 'Memory accounting': 80 bytes fit a limit of 80", memory_limit=80)
s2b("memory_limit_zero", f32([1, 2, 2, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    oom("[4,1,1,1]", "float32"),
    [check(S2B, "memory-limit"), "edge"],
    SPEC_README + ", 'Memory accounting': a non-identity case always requests", memory_limit=0)

# --- advisories ---
s2b("advisory_tfsa_2021_085_zero_block", f32([1, 4, 4, 1], range(16)), i32([2], [2, 0]),
    ZERO_PADS_2,
    invalid("All values in block_shape must be positive, got value, 0 at index 1."),
    ["advisory:TFSA-2021-085", check(S2B, "block-positive")],
    SPEC_ADV + ", TFSA-2021-085 (CVE-2021-29597)")
s2b("advisory_tfsa_2022_076_negative_block", T("float32", [10, 19, 22], fill=-3.5e35),
    i64([2], [-1879048192, -1879048192]), ZERO_PADS_2,
    invalid("All values in block_shape must be positive, got value, -1879048192 at index 0."),
    ["advisory:TFSA-2022-076", check(S2B, "block-positive")],
    SPEC_ADV + ", TFSA-2022-076 (CVE-2022-29203), proof of concept")
s2b("advisory_tfsa_2022_076_block_minus_10", T("float32", [10, 20, 20], fill=1.0),
    i64([2], [-10, -10]), ZERO_PADS_2,
    invalid("All values in block_shape must be positive, got value, -10 at index 0."),
    ["advisory:TFSA-2022-076", check(S2B, "block-positive")],
    SPEC_ADV + ", TFSA-2022-076 (CVE-2022-29203), TensorFlow's regression variant block [-10,-10]")
s2b("advisory_tfsa_2022_076_batch_overflow", T("float32", [10, 19, 22], fill=-3.5e35),
    i64([2], [1879048192, 1879048192]), ZERO_PADS_2,
    invalid("Negative output dimension size caused by overflow when multiplying 10 and "
            "3530822107858468864"),
    ["advisory:TFSA-2022-076", check(S2B, "batch-overflow")],
    SPEC_ADV + ", TFSA-2022-076 (CVE-2022-29203), TensorFlow's regression variant "
    "block [1879048192,1879048192]")

# --- dtypes and special values (pattern of golden_m1: [[a,b,c],[d,e,f]] -> [0,b,0,e,a,c,d,f]) ---
def m1_case(name, dtype, a, b, c, d, e, f, zero, prov_extra, block=None, pads=None):
    s2b(name, T(dtype, [2, 3], [a, b, c, d, e, f]), block or i32([1], [2]),
        pads or i32([1, 2], [1, 0]),
        outputs(output=T(dtype, [4, 2], [zero, b, zero, e, a, c, d, f])),
        ["edge"], SPEC_S2B + ", result formula as in the M = 1 case; " + prov_extra)


m1_case("dtype_float64_special", "float64", "0x7ff8000000000001", -0.0, "-inf", 5e-324,
        1.7976931348623157e308, "nan", 0.0, "float64 NaN payload, -0.0, inf, subnormal, max")
m1_case("dtype_float16_special", "float16", "0x7e01", -0.0, 65504, 5.960464477539063e-08, "-inf",
        0.333251953125, 0.0, "float16 NaN payload, -0.0, max, subnormal, inf")
m1_case("dtype_bfloat16_special", "bfloat16", "0x7fc1", -0.0, 3.3895313892515355e+38, 0.0078125,
        "inf", -1.5, 0.0, "bfloat16 NaN payload, -0.0, max, inf")
m1_case("dtype_int64_extremes", "int64", I64_MIN, I64_MAX, "9007199254740993", -1, 42,
        "-9007199254740993", 0, "int64 beyond 2^53; int64 block_shape and paddings",
        block=i64([1], [2]), pads=i64([1, 2], [1, 0]))
m1_case("dtype_uint64_extremes", "uint64", "18446744073709551615", 1, "9223372036854775808", 2,
        3, 4, 0, "uint64 max and 2^63")
m1_case("dtype_int8", "int8", -128, 127, -1, 5, 1, 2, 0, "int8 extremes")
m1_case("dtype_uint32", "uint32", 4294967295, 1, 2147483648, 2, 3, 4, 0, "uint32 extremes")
# float32: input [1,6,1], block [2], paddings [[1,1]] -> padded 8, output [2,4,1]:
#   b'=0 (o=0): source 2p-1 -> [pad, x1, x3, x5];  b'=1 (o=1): source 2p -> [x0, x2, x4, pad].
s2b("dtype_float32_special", f32([1, 6, 1], ["0x7fc00001", -0.0, "inf", "-inf", "0x7f800001",
                                            "0xffc00000"]),
    i32([1], [2]), i32([1, 2], [1, 1]),
    outputs(output=f32([2, 4, 1], [0.0, -0.0, "-inf", "0xffc00000",
                                   "0x7fc00001", "inf", "0x7f800001", 0.0])),
    ["edge"], SPEC_S2B + ", result formula; float32 quiet/signalling/negative NaN payloads, -0.0, "
    "inf; padding is +0.0")
s2b("block_one_with_padding", f32([1, 2], [1.5, -2.5]), i32([1], [1]), i32([1, 2], [1, 1]),
    outputs(output=f32([1, 4], [0.0, 1.5, -2.5, 0.0])),
    ["edge"], SPEC_S2B + ", block 1 with non-zero padding is an internal dim: pure zero padding")
s2b("params_int64_block_int32_paddings", f32([2, 2, 4, 1], range(1, 17)), i64([2], [2, 2]),
    i32([2, 2], [0, 0, 2, 0]),
    outputs(output=f32([8, 1, 3, 1], GOLDEN4_OUT)),
    ["edge"], SPEC_S2B + ", golden example 4 with int64 block_shape, int32 paddings")
s2b("params_int32_block_int64_paddings", f32([2, 2, 4, 1], range(1, 17)), i32([2], [2, 2]),
    i64([2, 2], [0, 0, 2, 0]),
    outputs(output=f32([8, 1, 3, 1], GOLDEN4_OUT)),
    ["edge"], SPEC_S2B + ", golden example 4 with int32 block_shape, int64 paddings")

# =============================================================================================
# BatchToSpaceND
# =============================================================================================
B2S = "BatchToSpaceND"


def b2s(name, inp, block, crops, expected, tags, prov, **kw):
    add(name, B2S, {"input": inp, "block_shape": block, "crops": crops}, expected, tags, prov, **kw)


INVERSE = " inverted: BatchToSpaceND with crops = paddings undoes SpaceToBatchND"
b2s("golden_1_inverse", f32([4, 1, 1, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([1, 2, 2, 1], [1, 2, 3, 4])),
    ["golden"], SPEC_S2B + ", golden example 1" + INVERSE)
b2s("golden_2_inverse", f32([4, 1, 1, 3], range(1, 13)), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([1, 2, 2, 3], range(1, 13))),
    ["golden"], SPEC_S2B + ", golden example 2" + INVERSE)
b2s("golden_3_inverse", f32([4, 2, 2, 1], GOLDEN3_OUT), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([1, 4, 4, 1], range(1, 17))),
    ["golden"], SPEC_S2B + ", golden example 3" + INVERSE)
b2s("golden_4_inverse", f32([8, 1, 3, 1], GOLDEN4_OUT), BLOCK_2x2, i32([2, 2], [0, 0, 2, 0]),
    outputs(output=f32([2, 2, 4, 1], range(1, 17))),
    ["golden"], SPEC_S2B + ", golden example 4" + INVERSE)
b2s("golden_m1_inverse", f32([4, 2], M1_OUT), i32([1], [2]), i32([1, 2], [1, 0]),
    outputs(output=f32([2, 3], M1_IN)),
    ["golden"], SPEC_S2B + ", fixed case 'M = 1'" + INVERSE)
b2s("golden_zero_spatial_padded_up_inverse", f32([9, 1, 2, 5], [0.0] * 90), i32([1], [3]),
    i32([1, 2], [1, 2]),
    outputs(output=f32([3, 0, 2, 5], [])),
    ["golden"], SPEC_S2B + ", fixed case 'a spatial dim of 0 padded up'" + INVERSE)
b2s("golden_zero_remaining_dim_inverse", f32([9, 1, 2, 0], []), i32([1], [3]),
    i32([1, 2], [0, 2]),
    outputs(output=f32([3, 1, 2, 0], [])),
    ["golden"], SPEC_S2B + ", fixed case 'a remaining dim of 0'" + INVERSE)
b2s("golden_batch_zero_inverse", f32([0, 1, 1, 1], []), BLOCK_2x2, ZERO_PADS_2,
    outputs(output=f32([0, 2, 2, 1], [])),
    ["golden"], SPEC_S2B + ", fixed case 'B = 0'" + INVERSE)
b2s("zero_spatial_dim_unpadded_inverse", f32([9, 0, 2, 5], []), i32([1], [3]),
    i32([1, 2], [0, 0]),
    outputs(output=f32([3, 0, 2, 5], [])),
    ["edge"], SPEC_S2B + ", zero-size blocked dim" + INVERSE)
b2s("collapse_four_internal_dims_inverse", f32([96, 1, 1, 1, 1, 1, 1, 1], COLLAPSE_OUT),
    i32([7], COLLAPSE_BLOCK), i32([7, 2], [0] * 14),
    outputs(output=f32([2] + COLLAPSE_BLOCK, COLLAPSE_IN)),
    [check(B2S, "max-internal-dims"), "edge"],
    SPEC_S2B + ", collapsing with 4 internal dims" + INVERSE)

# --- pre-checks ---
b2s("check_arg_type_block_shape", f32([4, 1, 1, 1], [1, 2, 3, 4]), T("float64", [2], [2, 2]),
    ZERO_PADS_2,
    invalid("Value for attr 'Tblock_shape' of float64 is not in the list of allowed values: "
            "int32, int64"),
    [check(B2S, "arg-types"), "message:code-only"], SPEC_README + ", pre-check 1 (argument types)")
b2s("check_arg_type_crops", f32([4, 1, 1, 1], [1, 2, 3, 4]), BLOCK_2x2,
    T("int16", [2, 2], [0, 0, 0, 0]),
    invalid("Value for attr 'Tcrops' of int16 is not in the list of allowed values: int32, int64"),
    [check(B2S, "arg-types"), "message:code-only"], SPEC_README + ", pre-check 1 (argument types)")
for dt, data in (("bool", [True, False, False, True]),
                 ("complex128", [[1, 0], [2, 0], [3, 0], [4, 0]]),
                 ("string", ["a", "b", "c", "d"]),
                 ("qint32", [1, 2, 3, 4])):
    b2s("check_registration_" + dt, T(dt, [4, 1, 1, 1], data), BLOCK_2x2, ZERO_PADS_2,
        error("UNIMPLEMENTED",
              "No registered 'BatchToSpaceND' OpKernel for 'CPU' devices compatible with T=" + dt),
        [check(B2S, "registration"), "message:code-only"],
        SPEC_S2B + ", BatchToSpaceND has SpaceToBatchND's dtypes; " + SPEC_README + " pre-check 3")

# --- the page's checks ---
b2s("check_block_shape_rank", f32([4, 1, 1, 1], [1, 2, 3, 4]), i32([2, 1], [2, 2]), ZERO_PADS_2,
    invalid("block_shape rank should be 1 instead of 2"),
    [check(B2S, "block-shape-rank")], SPEC_S2B + ", BatchToSpaceND check 1")
b2s("check_input_rank", f32([4, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    invalid("input rank should be >= 3 instead of 2"),
    [check(B2S, "input-rank")], SPEC_S2B + ", BatchToSpaceND check 2")
b2s("check_crops_shape", f32([4, 1, 1, 1], [1, 2, 3, 4]), BLOCK_2x2, i32([2, 1], [0, 0]),
    invalid("crops should have shape [2, 2] instead of [2,1]"),
    [check(B2S, "crops-shape")], SPEC_S2B + ", BatchToSpaceND check 3")
b2s("deviation_block_product_overflow", f32([1, 1, 1], [7]),
    i64([2], [4294967296, 4294967296]), ZERO_PADS_2,
    invalid("Product of block sizes overflows int64"),
    [check(B2S, "block-product-overflow"), "deviation", "edge"],
    SPEC_ADV + ", crash path 'BatchToSpaceND, block product overflow'; " + SPEC_S2B + " check 4")
b2s("deviation_block_product_overflow_negative", f32([1, 1, 1], [7]),
    i64([2], [-4294967296, 4294967296]), ZERO_PADS_2,
    invalid("Product of block sizes overflows int64"),
    [check(B2S, "block-product-overflow"), "deviation", "edge"],
    SPEC_S2B + ", BatchToSpaceND check 4: exact product -2^64 lies outside int64 (whatever its "
    "sign)")
b2s("deviation_block_product_two_pow_63", f32([1, 1, 1], [7]), i64([2], [P62, 2]), ZERO_PADS_2,
    invalid("Product of block sizes overflows int64"),
    [check(B2S, "block-product-overflow"), "deviation", "edge"],
    SPEC_S2B + ", BatchToSpaceND check 4: exact product 2^63 is just outside int64")
b2s("check_block_product_int64_min", f32([1, 1, 1], [7]), i64([2], ["-" + P62, 2]),
    ZERO_PADS_2,
    invalid("Product of block sizes must be positive, got -9223372036854775808"),
    [check(B2S, "block-product-positive"), "edge"],
    SPEC_S2B + ", BatchToSpaceND check 4: exact product -2^63 fits int64, so it is 'not positive'")
b2s("check_block_product_negative", f32([4, 1, 1, 1], [1, 2, 3, 4]), i32([2], [-2, 2]),
    ZERO_PADS_2,
    invalid("Product of block sizes must be positive, got -4"),
    [check(B2S, "block-product-positive")], SPEC_S2B + ", BatchToSpaceND check 4")
b2s("check_block_product_zero_with_huge_factors", f32([1, 1, 1, 1], [7]),
    i64([3], [0, 4294967296, 4294967296]), i32([3, 2], [0] * 6),
    invalid("Product of block sizes must be positive, got 0"),
    [check(B2S, "block-product-positive"), "edge"],
    SPEC_S2B + ", BatchToSpaceND check 4: a zero factor makes P exactly 0 even with huge factors")
b2s("quirk_even_negative_blocks_cropped_negative", f32([4, 1, 1, 1], [1, 2, 3, 4]),
    i32([2], [-2, -2]), ZERO_PADS_2,
    invalid("cropped_shape[0]=-2 must be non-negative"),
    ["quirk", check(B2S, "cropped-negative")],
    SPEC_S2B + ", BatchToSpaceND check 4 quirk: block [-2,-2] passes (P = 4); fails at check 9")
b2s("quirk_negative_block_zero_size_dims", f32([4, 0, 0, 1], []), i32([2], [-2, -2]),
    ZERO_PADS_2,
    outputs(output=f32([1, 0, 0, 1], [])),
    ["quirk"],
    SPEC_S2B + ", BatchToSpaceND quirk: negative block on internal dims of size 0 with zero crops "
    "succeeds with an empty output")
b2s("check_batch_divisible", f32([3, 1, 1, 1], [1, 2, 3]), BLOCK_2x2, ZERO_PADS_2,
    invalid("Input batch dimension (3) is not divisible by product of block sizes (4)"),
    [check(B2S, "batch-divisible")], SPEC_S2B + ", BatchToSpaceND check 5")
b2s("check_max_internal_dims", f32([4, 1, 1, 1, 1, 1], [1, 2, 3, 4]),
    i32([5], [2, 1, 1, 1, 2]), i32([5, 2], [0] * 10),
    invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"),
    [check(B2S, "max-internal-dims")], SPEC_S2B + ", BatchToSpaceND check 6")
b2s("identity_m0", T("int64", [2, 2], [I64_MIN, 1, 2, I64_MAX]), i64([0], []), i64([0, 2], []),
    outputs(output=T("int64", [2, 2], [I64_MIN, 1, 2, I64_MAX])),
    [check(B2S, "identity")], SPEC_S2B + ", BatchToSpaceND check 7 with M = 0")
b2s("identity_trivial_blocks_no_memory_request", f32([1, 2, 2, 1], [1, 2, 3, 4]),
    i32([2], [1, 1]), ZERO_PADS_2,
    outputs(output=f32([1, 2, 2, 1], [1, 2, 3, 4])),
    [check(B2S, "identity"), check(B2S, "memory-limit"), "edge"],
    SPEC_S2B + ", BatchToSpaceND check 7 and " + SPEC_README
    + " 'Memory accounting': the identity path requests nothing", memory_limit=0)
b2s("check_crops_negative", f32([4, 1, 1, 1], [1, 2, 3, 4]), BLOCK_2x2,
    i32([2, 2], [0, 0, 0, -1]),
    invalid("Crops must be non-negative"),
    [check(B2S, "crops-negative")], SPEC_S2B + ", BatchToSpaceND check 9")
b2s("deviation_cropped_overflow_crops", f32([4, 1, 1], [1, 2, 3, 4]), i64([1], [4]),
    i64([1, 2], [I64_MAX, I64_MAX]),
    invalid("cropped_shape[0] overflows int64"),
    [check(B2S, "cropped-overflow"), "deviation", "edge"],
    SPEC_S2B + ", BatchToSpaceND check 9 deviation: 1*4 - (2^63-1) - (2^63-1) underflows int64")
b2s("deviation_cropped_overflow_size", f32([0, P62, 1], []), i64([1], [2]), i32([1, 2], [0, 0]),
    invalid("cropped_shape[0] overflows int64"),
    [check(B2S, "cropped-overflow"), "deviation", "edge"],
    SPEC_S2B + ", BatchToSpaceND check 9 deviation: s*b = 2^62 * 2 overflows int64")
b2s("check_cropped_negative", f32([4, 1, 1, 1], [1, 2, 3, 4]), BLOCK_2x2,
    i32([2, 2], [0, 0, 1, 2]),
    invalid("cropped_shape[1]=-1 must be non-negative"),
    [check(B2S, "cropped-negative")], SPEC_S2B + ", BatchToSpaceND check 9: 1*2 - 1 - 2 = -1")
b2s("check_memory_limit", f32([4, 1, 1, 1], [1, 2, 3, 4]), BLOCK_2x2, ZERO_PADS_2,
    oom("[1,2,2,1]", "float32"),
    [check(B2S, "memory-limit")],
    SPEC_S2B + ", BatchToSpaceND check 10: 64 + 4*4 = 80 bytes over a limit of 79",
    memory_limit=79)

# --- advisories ---
b2s("advisory_tfsa_2021_084_zero_block", f32([4, 2, 2, 1], range(16)), i32([2], [2, 0]),
    ZERO_PADS_2,
    invalid("Product of block sizes must be positive, got 0"),
    ["advisory:TFSA-2021-084", check(B2S, "block-product-positive")],
    SPEC_ADV + ", TFSA-2021-084 (CVE-2021-29593)")

# --- dtypes and special values: [X,b,Y,e,a,c,d,f] -> [[a,b,c],[d,e,f]] (X, Y cropped away) ---
def m1_inverse(name, dtype, x, y, a, b, c, d, e, f, prov_extra, block=None, crops=None):
    b2s(name, T(dtype, [4, 2], [x, b, y, e, a, c, d, f]), block or i32([1], [2]),
        crops or i32([1, 2], [1, 0]),
        outputs(output=T(dtype, [2, 3], [a, b, c, d, e, f])),
        ["edge"], SPEC_S2B + ", BatchToSpaceND formula as in the M = 1 case; " + prov_extra)


m1_inverse("dtype_float32_special_cropped", "float32", "0x7fc00002", "inf", -0.0, "0x7fa00000",
           1.5, "-inf", "0xffc00001", 3.4028234663852886e+38,
           "float32 NaN payloads (signalling too), -0.0, inf, max; cropped elements dropped")
m1_inverse("dtype_float64_special", "float64", 9.0, 9.0, "0xfff0000000000001", -0.0, 0.1,
           "inf", 2.2250738585072014e-308, "nan",
           "float64 NaN payloads, -0.0, inf, smallest normal")
m1_inverse("dtype_float16_special", "float16", 9.0, 9.0, "0xfc01", -0.0, 6.097555160522461e-05,
           "inf", 1.5, 65504, "float16 NaN payload, -0.0, subnormal, inf, max")
m1_inverse("dtype_bfloat16_special", "bfloat16", 9.0, 9.0, "0xff81", -0.0, 9.183549615799121e-41,
           "-inf", 2.5, "nan", "bfloat16 NaN payloads, -0.0, subnormal, inf")
m1_inverse("dtype_int64_extremes", "int64", 9, 9, I64_MIN, I64_MAX, "9007199254740993", -1, 0,
           "-9007199254740993", "int64 beyond 2^53; int64 block_shape and crops",
           block=i64([1], [2]), crops=i64([1, 2], [1, 0]))
m1_inverse("dtype_uint8", "uint8", 7, 7, 255, 0, 128, 1, 2, 3, "uint8 extremes")
m1_inverse("params_int64_block_int32_crops", "uint32", 7, 7, 4294967295, 0, 1, 2, 3, 4,
           "uint32; int64 block_shape, int32 crops", block=i64([1], [2]))
m1_inverse("params_int32_block_int64_crops", "int16", 7, 7, -32768, 32767, 0, 1, 2, 3,
           "int16; int32 block_shape, int64 crops", crops=i64([1, 2], [1, 0]))

# =============================================================================================
# DynamicStitch and ParallelDynamicStitch
# =============================================================================================
DS = "DynamicStitch"
PDS = "ParallelDynamicStitch"


def stitch(name, op, indices, data, expected, tags, prov, **kw):
    add(name, op, {"indices": indices, "data": data}, expected, tags, prov, **kw)


DOC_INDICES = [i32([], [6]), i32([2], [4, 1]), i32([2, 2], [5, 2, 0, 3])]
DOC_DATA = [i32([2], [61, 62]), i32([2, 2], [41, 42, 11, 12]),
            i32([2, 2, 2], [51, 52, 21, 22, 1, 2, 31, 32])]
DOC_MERGED = i32([7, 2], [1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62])
RT_INDICES = [i32([2], [1, 4]), i32([4], [0, 2, 3, 5])]
RT_DATA = [f32([2], [-1, -1]), f32([4], [1.1, 6.2, 5.3, 8.4])]
RT_MERGED = f32([6], [1.1, -1, 6.2, 5.3, -1, 8.4])

for op in (DS, PDS):
    unique_note = "" if op == DS else " (indices unique, so it equals DynamicStitch)"
    stitch("golden_doc_example", op, DOC_INDICES, DOC_DATA, outputs(merged=DOC_MERGED),
           ["golden"], SPEC_DS + ", DynamicStitch golden example (seeds/dynamic_stitch.ru.txt)"
           + unique_note)
    stitch("golden_gap_filling", op, [i32([1], [2])], [f32([1], [1])],
           outputs(merged=f32([3], [0.0, 0.0, 1])),
           ["golden"], SPEC_DS + ", 'a single index [2] with data [1] gives [0, 0, 1]'"
           + unique_note)
    stitch("golden_all_empty", op, [i32([0], []), i32([0], [])],
           [f32([0, 2], []), f32([0, 2], [])],
           outputs(merged=f32([0, 2], [])),
           ["golden"], SPEC_DS + ", 'all-empty inputs with C = [2] give shape [0, 2]'")
    stitch("golden_round_trip_stitch", op, RT_INDICES, RT_DATA, outputs(merged=RT_MERGED),
           ["golden"], SPEC_DS + ", documented round trip with DynamicPartition: the final "
           "DynamicStitch(idx, parts) after parts[1] += 1 (seeds/dynamic_stitch.ru.txt)"
           + unique_note)

    # --- checks (identical for both ops but the op name) ---
    stitch("check_attr_n_zero", op, [], [],
           invalid("Value for attr 'N' of 0 must be at least minimum 1"),
           [check(op, "attr-n")], SPEC_DS + ", check 0 (N = 0)")
    stitch("check_list_length_data_shorter", op, [i32([1], [0]), i32([1], [1])], [f32([1], [5])],
           invalid("List argument 'data' to '%s' Op with length 1 must match length 2 of "
                   "argument 'indices'." % op),
           [check(op, "list-length")], SPEC_DS + ", check 0 (list lengths differ)")
    stitch("check_arg_type_indices_int64", op, [i64([2], [0, 1])], [f32([2], [1, 2])],
           invalid("Input 'indices' of '%s' Op has type int64 that does not match expected type "
                   "of int32." % op),
           [check(op, "arg-types"), "message:code-only"],
           SPEC_README + ", pre-check 1: indices are int32 only")
    stitch("check_arg_type_data_mixed", op, [i32([1], [0]), i32([1], [1])],
           [f32([1], [1]), i32([1], [2])],
           invalid("Input 'data' of '%s' Op has type int32 that does not match type float32 of "
                   "argument 'data'." % op),
           [check(op, "arg-types"), "message:code-only"],
           SPEC_README + ", pre-check 1: members of one list with different dtypes")
    stitch("check_index_range_position", op, [i32([2], [0, 1]), i32([2], [2, -5])],
           [f32([2], [1, 2]), f32([2], [3, 4])],
           invalid("indices[1] is out of range"),
           [check(op, "index-range")],
           SPEC_DS + ", check 1: <i> is the flat position inside indices[1], not m")
    stitch("check_index_range_matrix", op, [i32([2, 2], [0, 1, 2, -1])],
           [f32([2, 2], [1, 2, 3, 4])],
           invalid("indices[3] is out of range"),
           [check(op, "index-range")], SPEC_DS + ", check 1: flat position in a rank-2 indices")
    stitch("check_index_range_before_shapes", op, [i32([1], [0]), i32([1], [-1])],
           [f32([2], [1, 2]), f32([1], [3])],
           invalid("indices[0] is out of range"),
           [check(op, "index-range"), "edge"],
           SPEC_DS + ", check 1 runs before any shape check (data[0] does not start with [1])")
    stitch("check_data_shape_prefix", op, [i32([1], [0]), i32([1, 5], [1, 2, 3, 4, 5])],
           [f32([1], [0]), f32([5], [1, 2, 3, 4, 5])],
           invalid("data[1].shape = [5] does not start with indices[1].shape = [1,5]"),
           [check(op, "data-shape-prefix")], SPEC_DS + ", check 2 (the page's example text)")
    stitch("check_data_shape_prefix_first", op, [i32([2], [0, 1])], [f32([3], [1, 2, 3])],
           invalid("data[0].shape = [3] does not start with indices[0].shape = [2]"),
           [check(op, "data-shape-prefix")], SPEC_DS + ", check 2 for m = 0")
    stitch("check_trailing_shape", op, [i32([3], [0, 1, 2]), i32([4], [3, 4, 5, 6])],
           [f32([3, 1], [1, 2, 3]), f32([4, 2], range(8))],
           invalid("Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [3,1], "
                   "data[1].shape = [4,2], indices[0].shape = [3], indices[1].shape = [4]"),
           [check(op, "trailing-shape")], SPEC_DS + ", check 2 (the page's example text)")
    stitch("check_trailing_shape_scalar_index", op, [i32([], [0]), i32([1], [1])],
           [f32([2], [1, 2]), f32([1, 3], [3, 4, 5])],
           invalid("Need data[0].shape[0:] = data[1].shape[1:], got data[0].shape = [2], "
                   "data[1].shape = [1,3], indices[0].shape = [], indices[1].shape = [1]"),
           [check(op, "trailing-shape"), "edge"],
           SPEC_DS + ", check 2 with a scalar indices[0] (r0 = 0)")
    stitch("check_output_shape_overflow", op, [i32([1], [3])], [f32([1, P62, 0], [])],
           invalid("Encountered overflow when multiplying 4 with 4611686018427387904, result: -1"),
           [check(op, "output-shape-overflow"), "edge"],
           SPEC_DS + ", check 3: merged shape [4, 2^62, 0]; 4 * 2^62 overflows unsigned -> -1")
    stitch("check_memory_limit", op, DOC_INDICES, DOC_DATA, oom("[7,2]", "int32"),
           [check(op, "memory-limit")],
           SPEC_DS + ", check 3: golden merged [7,2] int32 needs 64 + 56 = 120 bytes, limit 119",
           memory_limit=119)
    stitch("deviation_index_int32_max_oom", op, [i32([1], [2147483647])], [f32([1], [1])],
           oom("[2147483648]", "float32"),
           [check(op, "memory-limit"), "deviation", "edge"],
           SPEC_ADV + ", crash path 'DynamicStitch with index 2147483647': 2^31 rows of 4 bytes "
           "(64 + 2^33 bytes) exceed the default 4 GiB")
    stitch("deviation_index_int32_max_empty_rows", op, [i32([1], [2147483647])],
           [f32([1, 0], [])],
           outputs(merged=f32([2147483648, 0], [])),
           ["deviation", "edge"],
           SPEC_ADV + ", crash path 'DynamicStitch with index 2147483647': a trailing shape with "
           "zero elements always fits")

# --- DynamicStitch only: advisories, duplicates, dtypes ---
stitch("advisory_tfsa_2022_145_list_lengths", DS, [i32([1, 2], [0, 1])],
       [f32([1, 2], [5, 6]), f32([1, 2], [7, 8])],
       invalid("List argument 'data' to 'DynamicStitch' Op with length 2 must match length 1 of "
               "argument 'indices'."),
       ["advisory:TFSA-2022-145", check(DS, "list-length")],
       SPEC_ADV + ", TFSA-2022-145 (CVE-2022-41883)")
stitch("advisory_tfsa_2023_018_negative_index", DS,
       [i32([1], [-559038737]), i32([1], [405]), i32([1], [519]), i32([1], [758]),
        i32([1], [1015])],
       [f32([1], [1]), f32([1], [2]), f32([1], [3]), f32([1], [4]), f32([1], [5])],
       invalid("indices[0] is out of range"),
       ["advisory:TFSA-2023-018", check(DS, "index-range")],
       SPEC_ADV + ", TFSA-2023-018 (CVE-2023-25659), proof of concept (0xdeadbeef = -559038737)")
stitch("advisory_tfsa_2023_018_minus_1000", DS,
       [i32([1], [-1000]), i32([1], [405]), i32([1], [519]), i32([1], [758]), i32([1], [1015])],
       [f32([1], [1]), f32([1], [2]), f32([1], [3]), f32([1], [4]), f32([1], [5])],
       invalid("indices[0] is out of range"),
       ["advisory:TFSA-2023-018", check(DS, "index-range")],
       SPEC_ADV + ", TFSA-2023-018 (CVE-2023-25659), TensorFlow's regression variant -1000")
stitch("duplicates_last_wins", DS, [i32([3], [0, 1, 0]), i32([1], [1])],
       [f32([3], [1, 2, 3]), f32([1], [4])],
       outputs(merged=f32([2], [3, 4])),
       ["edge"], SPEC_DS + ", duplicates: the last (m, i) wins (row 0 <- (0,2), row 1 <- (1,0))")
stitch("scalar_indices", DS, [i32([], [1]), i32([], [0])],
       [f32([2, 2], [1, 2, 3, 4]), f32([2, 2], [5, 6, 7, 8])],
       outputs(merged=f32([2, 2, 2], [5, 6, 7, 8, 1, 2, 3, 4])),
       ["edge"], SPEC_DS + ", scalar indices: data[m] has shape C = [2,2]")
stitch("dtype_string_special", DS, [i32([1], [0]), i32([2], [3, 1])],
       [T("string", [1], ["a\u0000b"]), T("string", [2], [{"hex": "ff00fe"}, "h\u00e9llo"])],
       outputs(merged=T("string", [4], ["a\u0000b", "h\u00e9llo", "", {"hex": "ff00fe"}])),
       ["edge"], SPEC_DS + ", strings with NUL and invalid UTF-8; the gap row is the empty string")
stitch("dtype_complex64_special", DS, [i32([2], [2, 0])],
       [T("complex64", [2], [[-0.0, "0x7fc00001"], ["inf", -1.5]])],
       outputs(merged=T("complex64", [3], [["inf", -1.5], [0.0, 0.0], [-0.0, "0x7fc00001"]])),
       ["edge"], SPEC_DS + ", complex64 with -0.0 and a NaN payload; gap row is 0+0i")
stitch("dtype_complex128_special", DS, [i32([1], [1])],
       [T("complex128", [1, 2], [["0x7ff8000000000001", -0.0], [5e-324, "-inf"]])],
       outputs(merged=T("complex128", [2, 2], [[0.0, 0.0], [0.0, 0.0],
                                              ["0x7ff8000000000001", -0.0], [5e-324, "-inf"]])),
       ["edge"], SPEC_DS + ", complex128 rows (C = [2]) with a NaN payload, -0.0, subnormal")
stitch("dtype_bool", DS, [i32([1], [1]), i32([1], [3])],
       [T("bool", [1], [True]), T("bool", [1], [True])],
       outputs(merged=T("bool", [4], [False, True, False, True])),
       ["edge"], SPEC_DS + ", bool; gap rows are false")
stitch("dtype_int64_extremes", DS, [i32([2], [1, 0])],
       [T("int64", [2], [I64_MIN, "9007199254740993"])],
       outputs(merged=T("int64", [2], ["9007199254740993", I64_MIN])),
       ["edge"], SPEC_DS + ", int64 beyond 2^53")
stitch("dtype_float16_rows", DS, [i32([1], [1])], [T("float16", [1, 2], ["0x7e01", -0.0])],
       outputs(merged=T("float16", [2, 2], [0.0, 0.0, "0x7e01", -0.0])),
       ["edge"], SPEC_DS + ", float16 NaN payload and -0.0 in a row of C = [2]")
stitch("dtype_bfloat16_rows", DS, [i32([2], [0, 2])],
       [T("bfloat16", [2, 2], ["0xff81", "-inf", -0.0, 3.0])],
       outputs(merged=T("bfloat16", [3, 2], ["0xff81", "-inf", 0.0, 0.0, -0.0, 3.0])),
       ["edge"], SPEC_DS + ", bfloat16 NaN payload, -inf, -0.0")
stitch("dtype_qint8", DS, [i32([2], [1, 0])], [T("qint8", [2], [-128, 127])],
       outputs(merged=T("qint8", [2], [127, -128])),
       ["edge"], SPEC_DS + ", DynamicStitch is registered for qint8")
stitch("dtype_uint64", DS, [i32([2], [0, 2])], [T("uint64", [2], ["18446744073709551615", 1])],
       outputs(merged=T("uint64", [3], ["18446744073709551615", 0, 1])),
       ["edge"], SPEC_DS + ", uint64 max; gap row 0")

# --- ParallelDynamicStitch only: duplicates ---
stitch("check_list_length_data_longer", PDS, [i32([1, 2], [0, 1])],
       [f32([1, 2], [5, 6]), f32([1, 2], [7, 8])],
       invalid("List argument 'data' to 'ParallelDynamicStitch' Op with length 2 must match "
               "length 1 of argument 'indices'."),
       [check(PDS, "list-length"), "edge"],
       SPEC_ADV + ", the TFSA-2022-145 input run through ParallelDynamicStitch (same check, "
       "its own op name)")
stitch("duplicate_across_lists", PDS, [i32([2], [0, 1]), i32([2], [1, 2])],
       [f32([2], [10, 11]), f32([2], [20, 21])],
       {"outputs": {"merged": f32([3], [10, 20, 21])},
        "unspecified": [{"rule": "one_of_rows", "output": "merged",
                         "rows": {"1": [[11], [20]]}}]},
       ["unspecified"],
       SPEC_DS + ", ParallelDynamicStitch: index 1 named in two lists, either wins")
stitch("duplicate_across_and_within_lists", PDS, [i32([3], [0, 0, 1]), i32([1], [0])],
       [f32([3, 2], [1, 2, 3, 4, 5, 6]), f32([1, 2], [7, 8])],
       {"outputs": {"merged": f32([2, 2], [7, 8, 5, 6])},
        "unspecified": [{"rule": "one_of_rows", "output": "merged",
                         "rows": {"0": [[3, 4], [7, 8]]}}]},
       ["unspecified"],
       SPEC_DS + ", ParallelDynamicStitch: inside list 0 the later position wins ([3,4], never "
       "[1,2]); across lists either")
stitch("duplicate_three_lists", PDS, [i32([1], [1]), i32([1], [1]), i32([1], [1])],
       [i32([1], [1]), i32([1], [2]), i32([1], [3])],
       {"outputs": {"merged": i32([2], [0, 3])},
        "unspecified": [{"rule": "one_of_rows", "output": "merged",
                         "rows": {"1": [[1], [2], [3]]}}]},
       ["unspecified"],
       SPEC_DS + ", ParallelDynamicStitch: any of the three lists may win; the gap row 0 is zero")
stitch("duplicate_strings_across_lists", PDS, [i32([1], [0]), i32([2], [0, 1])],
       [T("string", [1], ["a\u0000"]), T("string", [2], [{"hex": "80"}, "z"])],
       {"outputs": {"merged": T("string", [2], [{"hex": "80"}, "z"])},
        "unspecified": [{"rule": "one_of_rows", "output": "merged",
                         "rows": {"0": [["a\u0000"], [{"hex": "80"}]]}}]},
       ["unspecified", "edge"],
       SPEC_DS + ", ParallelDynamicStitch: string rows (NUL, invalid UTF-8) as alternatives")
stitch("duplicate_within_one_list", PDS, [i32([3], [0, 1, 0])], [f32([3], [1, 2, 3])],
       outputs(merged=f32([2], [3, 2])),
       ["edge"], SPEC_DS + ", ParallelDynamicStitch: inside one indices tensor the later "
       "position still wins")
stitch("gap_filling_complex64", PDS, [i32([1], [2])], [T("complex64", [1], [[-0.0, "nan"]])],
       outputs(merged=T("complex64", [3], [[0.0, 0.0], [0.0, 0.0], [-0.0, "nan"]])),
       ["edge"], SPEC_DS + ", ParallelDynamicStitch gap rows are zero")

# =============================================================================================
# DynamicPartition
# =============================================================================================
DP = "DynamicPartition"


def partition(name, data, partitions, num, expected, tags, prov, **kw):
    add(name, DP, {"data": data, "partitions": partitions}, expected, tags, prov,
        attrs={"num_partitions": num}, **kw)


def parts(*tensors):
    return {"outputs": {"outputs": list(tensors)}}


partition("golden_simple", f32([5], [10, 20, 30, 40, 50]), i32([5], [0, 0, 1, 1, 0]), 2,
          parts(f32([3], [10, 20, 50]), f32([2], [30, 40])),
          ["golden"], SPEC_DS + ", DynamicPartition golden example (TensorFlow's own test)")
partition("golden_round_trip_values", f32([6], [0.1, -1, 5.2, 4.3, -1, 7.4]),
          i32([6], [1, 0, 1, 1, 0, 1]), 2,
          parts(f32([2], [-1, -1]), f32([4], [0.1, 5.2, 4.3, 7.4])),
          ["golden"], SPEC_DS + ", documented round trip: parts = DynamicPartition(x, mask, 2) "
          "(seeds/dynamic_stitch.ru.txt)")
partition("golden_round_trip_indices", i32([6], [0, 1, 2, 3, 4, 5]),
          i32([6], [1, 0, 1, 1, 0, 1]), 2,
          parts(i32([2], [1, 4]), i32([4], [0, 2, 3, 5])),
          ["golden"],
          SPEC_DS + ", documented round trip: idx = DynamicPartition(range(6), mask, 2)")
partition("scalar_partitions", f32([2], [1.5, -0.0]), i32([], [1]), 3,
          parts(f32([0, 2], []), f32([1, 2], [1.5, -0.0]), f32([0, 2], [])),
          ["edge"], SPEC_DS + ", scalar partitions: [1] + data.shape in the chosen output, "
          "[0] + data.shape elsewhere")
partition("scalar_data_scalar_partitions", T("int64", [], [I64_MAX]), i32([], [0]), 2,
          parts(T("int64", [1], [I64_MAX]), T("int64", [0], [])),
          ["edge"], SPEC_DS + ", scalar data and scalar partitions")
partition("rank2_partitions", i32([2, 3, 2], range(1, 13)), i32([2, 3], [0, 1, 2, 1, 0, 2]), 3,
          parts(i32([2, 2], [1, 2, 9, 10]), i32([2, 2], [3, 4, 7, 8]), i32([2, 2], [5, 6, 11, 12])),
          ["edge"], SPEC_DS + ", rank-2 partitions: slices of data.shape[2:] in row-major order")
partition("unused_partitions", T("bool", [4], [True, False, True, True]),
          i32([4], [3, 3, 0, 3]), 4,
          parts(T("bool", [1], [True]), T("bool", [0], []), T("bool", [0], []),
                T("bool", [3], [True, False, True])),
          ["edge"], SPEC_DS + ", bool data; partitions never named give empty outputs")
partition("empty_data", f32([0, 3], []), i32([0], []), 2,
          parts(f32([0, 3], []), f32([0, 3], [])),
          ["edge"], SPEC_DS + ", no slices at all")
partition("num_partitions_one", T("uint16", [3], [65535, 0, 7]), i32([3], [0, 0, 0]), 1,
          parts(T("uint16", [3], [65535, 0, 7])),
          ["edge"], SPEC_DS + ", num_partitions = 1 (the attr minimum)")
partition("dtype_string_special", T("string", [3], ["", "a\u0000b", {"hex": "c3"}]),
          i32([3], [1, 0, 1]), 2,
          parts(T("string", [1], ["a\u0000b"]), T("string", [2], ["", {"hex": "c3"}])),
          ["edge"], SPEC_DS + ", strings: empty, with NUL, invalid UTF-8")
partition("dtype_complex128_special", T("complex128", [2], [[-0.0, "0x7ff8000000000001"],
                                                            ["-inf", 1e-310]]),
          i32([2], [1, 1]), 2,
          parts(T("complex128", [0], []),
                T("complex128", [2], [[-0.0, "0x7ff8000000000001"], ["-inf", 1e-310]])),
          ["edge"], SPEC_DS + ", complex128 with a NaN payload, -0.0, -inf, subnormal")
partition("dtype_float16_nan_payloads", T("float16", [3], ["0x7c01", -0.0, "0xfe00"]),
          i32([3], [0, 1, 0]), 2,
          parts(T("float16", [2], ["0x7c01", "0xfe00"]), T("float16", [1], [-0.0])),
          ["edge"], SPEC_DS + ", float16 signalling and negative NaN, -0.0")
partition("dtype_bfloat16", T("bfloat16", [2, 2], ["0x7f81", -0.0, "inf", 1.0]),
          i32([2], [1, 0]), 2,
          parts(T("bfloat16", [1, 2], ["inf", 1.0]), T("bfloat16", [1, 2], ["0x7f81", -0.0])),
          ["edge"], SPEC_DS + ", bfloat16 rows")
partition("dtype_uint64", T("uint64", [3], ["18446744073709551615", "9223372036854775808",
                                                 1]),
          i32([3], [2, 0, 2]), 3,
          parts(T("uint64", [1], ["9223372036854775808"]), T("uint64", [0], []),
                T("uint64", [2], ["18446744073709551615", 1])),
          ["edge"], SPEC_DS + ", uint64 beyond 2^53")
partition("dtype_complex64", T("complex64", [2], [["0xffc00001", 1], [-0.0, "inf"]]),
          i32([2], [0, 0]), 1,
          parts(T("complex64", [2], [["0xffc00001", 1], [-0.0, "inf"]])),
          ["edge"], SPEC_DS + ", complex64 with a NaN payload")

# --- pre-checks ---
partition("check_arg_type_partitions_int64", f32([2], [1, 2]), i64([2], [0, 1]), 2,
          invalid("Input 'partitions' of 'DynamicPartition' Op has type int64 that does not "
                  "match expected type of int32."),
          [check(DP, "arg-types"), "message:code-only"],
          SPEC_README + ", pre-check 1: partitions are int32 only")
for dt, data in (("qint8", [1, 2]), ("quint8", [1, 2]), ("qint32", [1, 2])):
    partition("check_registration_" + dt, T(dt, [2], data), i32([2], [0, 1]), 2,
              error("UNIMPLEMENTED", "No registered 'DynamicPartition' OpKernel for 'CPU' "
                    "devices compatible with T=" + dt),
              [check(DP, "registration"), "message:code-only"],
              SPEC_DS + ", DynamicPartition: quantized types get UNIMPLEMENTED")
partition("check_num_partitions_before_registration", T("qint32", [2], [1, 2]),
          i32([2], [0, 0]), 0,
          invalid("Value for attr 'num_partitions' of 0 must be at least minimum 1"),
          [check(DP, "num-partitions-min")],
          SPEC_README + ", pre-check 2 (attr minimum) comes before pre-check 3 (registration)")

# --- the page's checks ---
partition("check_num_partitions_zero", f32([2], [1, 2]), i32([2], [0, 0]), 0,
          invalid("Value for attr 'num_partitions' of 0 must be at least minimum 1"),
          [check(DP, "num-partitions-min")], SPEC_DS + ", DynamicPartition check 0")
partition("check_num_partitions_negative", f32([2], [1, 2]), i32([2], [0, 0]), -1,
          invalid("Value for attr 'num_partitions' of -1 must be at least minimum 1"),
          [check(DP, "num-partitions-min")], SPEC_DS + ", DynamicPartition check 0")
partition("check_num_partitions_int32", f32([2], [1, 2]), i32([2], [0, 0]), 2147483648,
          invalid("Attr num_partitions has value 2147483648 out of range for an int32"),
          [check(DP, "num-partitions-int32"), "edge"], SPEC_DS + ", DynamicPartition check 0")
partition("check_shape_prefix", f32([2, 3], range(6)), i32([3], [0, 0, 0]), 2,
          invalid("data.shape must start with partitions.shape, got data.shape = [2,3], "
                  "partitions.shape = [3]"),
          [check(DP, "shape-prefix")], SPEC_DS + ", DynamicPartition check 1")
partition("check_shape_prefix_before_range", f32([2], [1, 2]), i32([1, 2], [0, 9]), 2,
          invalid("data.shape must start with partitions.shape, got data.shape = [2], "
                  "partitions.shape = [1,2]"),
          [check(DP, "shape-prefix"), "edge"],
          SPEC_DS + ", check 1 comes before check 2 (9 is also out of range)")
partition("check_partition_range_vector", f32([4], [1, 2, 3, 4]), i32([4], [0, 1, 99, 0]), 4,
          invalid("partitions[2] = 99 is not in [0, 4)"),
          [check(DP, "partition-range")], SPEC_DS + ", check 2 (the page's example text)")
partition("check_partition_range_scalar", f32([3], [1, 2, 3]), i32([], [17]), 7,
          invalid("partitions = 17 is not in [0, 7)"),
          [check(DP, "partition-range")], SPEC_DS + ", check 2, scalar partitions (page's text)")
partition("check_partition_range_matrix", f32([2, 3], range(6)),
          i32([2, 3], [0, 1, 2, 3, 4, 17]), 7,
          invalid("partitions[1,2] = 17 is not in [0, 7)"),
          [check(DP, "partition-range")], SPEC_DS + ", check 2, rank-2 partitions (page's text)")
partition("check_partition_range_negative", f32([2], [1, 2]), i32([2], [0, -1]), 2,
          invalid("partitions[1] = -1 is not in [0, 2)"),
          [check(DP, "partition-range")], SPEC_DS + ", check 2, a negative partition")
# The range check's upper edge: a value equal to num_partitions is out of range (an off-by-one
# `p > num_partitions` passes every vector above).
partition("check_partition_range_equal_num_partitions", f32([3], [1, 2, 3]), i32([3], [0, 3, 2]), 3,
          invalid("partitions[1] = 3 is not in [0, 3)"),
          [check(DP, "partition-range"), "edge"],
          SPEC_DS + ", check 2: num_partitions itself is outside [0, num_partitions)")
partition("check_partition_range_equal_one", f32([], [5]), i32([], [1]), 1,
          invalid("partitions = 1 is not in [0, 1)"),
          [check(DP, "partition-range"), "edge"],
          SPEC_DS + ", check 2: scalar partitions equal to num_partitions = 1")
partition("check_memory_limit_first_output", f32([5], [10, 20, 30, 40, 50]),
          i32([5], [0, 0, 1, 1, 0]), 2, oom("[3]", "float32"),
          [check(DP, "memory-limit")],
          SPEC_DS + ", check 3: output 0 needs 64 + 12 = 76 bytes, limit 75", memory_limit=75)
partition("check_memory_limit_second_output", f32([5], [10, 20, 30, 40, 50]),
          i32([5], [0, 0, 1, 1, 0]), 2, oom("[2]", "float32"),
          [check(DP, "memory-limit")],
          SPEC_DS + ", check 3: running total 76 + 72 = 148 exceeds 147 at output 1",
          memory_limit=147)
partition("deviation_huge_num_partitions", f32([1], [1]), i32([1], [0]), 2147483647,
          oom("[0]", "float32"),
          [check(DP, "memory-limit"), "deviation", "edge"],
          SPEC_ADV + ", crash path 'DynamicPartition with a huge num_partitions': outputs cost "
          "68, then 64 each; the total first exceeds 1024 at output 15 (68 + 15*64 = 1028)",
          memory_limit=1024)

# =============================================================================================
# SparseConcat
# =============================================================================================
SC = "SparseConcat"


def sconcat(name, indices, values, shapes, concat_dim, expected, tags, prov, **kw):
    add(name, SC, {"indices": indices, "values": values, "shapes": shapes}, expected, tags, prov,
        attrs={"concat_dim": concat_dim}, **kw)


def sparse_out(indices, values, shape):
    return outputs(output_indices=indices, output_values=values, output_shape=shape)


S = lambda *v: T("string", [len(v)], v)
DOC_SC = dict(
    indices=[i64([3, 2], [0, 2, 1, 0, 1, 1]), i64([2, 2], [0, 1, 0, 2])],
    values=[S("a", "b", "c"), S("d", "e")],
    shapes=[i64([2], [2, 3]), i64([2], [2, 4])])
DOC_SC_OUT = sparse_out(i64([5, 2], [0, 2, 0, 4, 0, 5, 1, 0, 1, 1]), S("a", "d", "e", "b", "c"),
                        i64([2], [2, 7]))
sconcat("golden_doc_example", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], 1,
        DOC_SC_OUT, ["golden"],
        SPEC_SC + ", golden example from the op's documentation (seeds/SparseConcat.ru.txt)")
sconcat("golden_tf_test_3x3_3x5",
        [i64([4, 2], [0, 2, 1, 0, 2, 0, 2, 2]), i64([4, 2], [1, 1, 2, 0, 2, 3, 2, 4])],
        [f32([4], [1, 2, 3, 4]), f32([4], [1, 2, 1, 0])],
        [i64([2], [3, 3]), i64([2], [3, 5])], 1,
        sparse_out(i64([8, 2], [0, 2, 1, 0, 1, 4, 2, 0, 2, 2, 2, 3, 2, 6, 2, 7]),
                   f32([8], [1, 2, 1, 3, 4, 2, 1, 0]), i64([2], [3, 8])),
        ["golden"], SPEC_SC + ", second example (TensorFlow's test: A [3,3], B [3,5]); inputs "
        "are the output's entries left and right of column 3")
sconcat("negative_concat_dim", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], -1,
        DOC_SC_OUT, ["edge"], SPEC_SC + ", golden example with concat_dim -1 (= 1)")
sconcat("concat_dim0_three_inputs_rank1",
        [i64([1, 1], [1]), i64([0, 1], []), i64([2, 1], [0, 2])],
        [T("float64", [1], [-0.0]), T("float64", [0], []),
         T("float64", [2], ["0x7ff0000000000001", "inf"])],
        [i64([1], [2]), i64([1], [0]), i64([1], [3])], 0,
        sparse_out(i64([3, 1], [1, 2, 4]),
                   T("float64", [3], [-0.0, "0x7ff0000000000001", "inf"]), i64([1], [5])),
        ["edge"], SPEC_SC + ", rank 1, an empty middle input (offsets 0, 2, 2); float64 -0.0, "
        "signalling NaN, inf")
sconcat("unsorted_inputs", [i64([3, 2], [1, 1, 0, 0, 1, 0]), i64([2, 2], [1, 0, 0, 0])],
        [i32([3], [3, 1, 2]), i32([2], [5, 4])],
        [i64([2], [2, 2]), i64([2], [2, 1])], 1,
        sparse_out(i64([5, 2], [0, 0, 0, 2, 1, 0, 1, 1, 1, 2]), i32([5], [1, 4, 2, 3, 5]),
                   i64([2], [2, 3])),
        ["edge"], SPEC_SC + ", unsorted input gives the same sorted output")
sconcat("rank3_middle_dim_int64_values",
        [i64([2, 3], [0, 0, 1, 1, 0, 0]), i64([2, 3], [0, 1, 0, 1, 0, 1])],
        [T("int64", [2], [I64_MAX, I64_MIN]), T("int64", [2], ["9007199254740993", -1])],
        [i64([3], [2, 1, 2]), i64([3], [2, 2, 2])], 1,
        sparse_out(i64([4, 3], [0, 0, 1, 0, 2, 0, 1, 0, 0, 1, 1, 1]),
                   T("int64", [4], [I64_MAX, "9007199254740993", I64_MIN, -1]),
                   i64([3], [2, 3, 2])),
        ["edge"], SPEC_SC + ", rank 3 along the middle dim; int64 values beyond 2^53")
sconcat("duplicates_equal_coordinates", [i64([2, 2], [0, 1, 0, 1]), i64([2, 2], [0, -1, 1, 0])],
        [i32([2], [10, 11]), i32([2], [12, 13])],
        [i64([2], [2, 2]), i64([2], [2, 2])], 1,
        {"outputs": {"output_indices": i64([4, 2], [0, 1, 0, 1, 0, 1, 1, 2]),
                     "output_values": i32([4], [10, 11, 12, 13]),
                     "output_shape": i64([2], [2, 4])},
         "unspecified": [{"rule": "permutation_within_equal_keys", "keys": "output_indices",
                          "values": "output_values"}]},
        ["unspecified", "quirk"],
        SPEC_SC + ", duplicates kept in any order: [0,1] twice in input 0, and input 1's [0,-1] "
        "offset by 2 lands on [0,1] too (coordinates are not checked)")
sconcat("coordinate_out_of_range", [i64([1, 2], [0, 5]), i64([1, 2], [0, 0])],
        [T("uint8", [1], [1]), T("uint8", [1], [2])],
        [i64([2], [1, 2]), i64([2], [1, 4])], 1,
        sparse_out(i64([2, 2], [0, 2, 0, 5]), T("uint8", [2], [2, 1]), i64([2], [1, 6])),
        ["quirk"], SPEC_SC + ", an out-of-range coordinate is kept and sorted where it falls "
        "(inside input 1's range)")
sconcat("empty_total_skips_entry_checks", [i64([0, 3], []), i64([0, 2], [])],
        [f32([0], []), f32([2], [1, 2])],
        [i64([2], [2, 3]), i64([2], [2, 4])], 1,
        sparse_out(i64([0, 2], []), f32([0], []), i64([2], [2, 7])),
        ["quirk", check(SC, "empty-result")],
        SPEC_SC + ", check 9: total nnz 0 returns early, skipping step 10 (input 0 has 3 "
        "columns, input 1 has 0 index rows but 2 values)")
sconcat("dtype_complex64", [i64([1, 2], [0, 0]), i64([1, 2], [0, 0])],
        [T("complex64", [1], [[-0.0, "0x7fc00001"]]), T("complex64", [1], [["-inf", 2.5]])],
        [i64([2], [1, 1]), i64([2], [1, 1])], 0,
        sparse_out(i64([2, 2], [0, 0, 1, 0]), T("complex64", [2], [[-0.0, "0x7fc00001"],
                                                                    ["-inf", 2.5]]),
                   i64([2], [2, 1])),
        ["edge"], SPEC_SC + ", complex64 values along dim 0")
sconcat("dtype_bool", [i64([1, 1], [0]), i64([1, 1], [0])],
        [T("bool", [1], [False]), T("bool", [1], [True])],
        [i64([1], [1]), i64([1], [1])], 0,
        sparse_out(i64([2, 1], [0, 1]), T("bool", [2], [False, True]), i64([1], [2])),
        ["edge"], SPEC_SC + ", bool values")
sconcat("dtype_bfloat16", [i64([2, 1], [1, 0]), i64([1, 1], [0])],
        [T("bfloat16", [2], ["0x7fc1", -0.0]), T("bfloat16", [1], ["-inf"])],
        [i64([1], [2]), i64([1], [1])], 0,
        sparse_out(i64([3, 1], [0, 1, 2]), T("bfloat16", [3], [-0.0, "0x7fc1", "-inf"]),
                   i64([1], [3])),
        ["edge"], SPEC_SC + ", bfloat16 NaN payload, -0.0, -inf")

# --- pre-checks ---
sconcat("check_arg_type_indices_int32", [i32([1, 1], [0]), i32([1, 1], [0])],
        [f32([1], [1]), f32([1], [2])], [i64([1], [1]), i64([1], [1])], 0,
        invalid("Input 'indices' of 'SparseConcat' Op has type int32 that does not match "
                "expected type of int64."),
        [check(SC, "arg-types"), "message:code-only"],
        SPEC_README + ", pre-check 1: SparseConcat indices are int64 only")
sconcat("check_arg_type_shapes_int32", [i64([1, 1], [0]), i64([1, 1], [0])],
        [f32([1], [1]), f32([1], [2])], [i32([1], [1]), i32([1], [1])], 0,
        invalid("Input 'shapes' of 'SparseConcat' Op has type int32 that does not match expected "
                "type of int64."),
        [check(SC, "arg-types"), "message:code-only"],
        SPEC_README + ", pre-check 1: SparseConcat shapes are int64 only")
sconcat("check_arg_type_values_mixed", [i64([1, 1], [0]), i64([1, 1], [0])],
        [f32([1], [1]), i32([1], [2])], [i64([1], [1]), i64([1], [1])], 0,
        invalid("Input 'values' of 'SparseConcat' Op has type int32 that does not match type "
                "float32 of argument 'values'."),
        [check(SC, "arg-types"), "message:code-only"],
        SPEC_README + ", pre-check 1: members of one list with different dtypes")
for dt in ("qint8", "quint8", "qint32"):
    sconcat("check_registration_" + dt, [i64([1, 1], [0]), i64([1, 1], [0])],
            [T(dt, [1], [1]), T(dt, [1], [2])], [i64([1], [1]), i64([1], [1])], 0,
            error("UNIMPLEMENTED", "No registered 'SparseConcat' OpKernel for 'CPU' devices "
                  "compatible with T=" + dt),
            [check(SC, "registration"), "message:code-only"],
            SPEC_SC + ", quantized types get UNIMPLEMENTED")

# --- the page's checks ---
sconcat("check_attr_n_one", [i64([1, 1], [0])], [f32([1], [1])], [i64([1], [1])], 0,
        invalid("Value for attr 'N' of 1 must be at least minimum 2"),
        [check(SC, "attr-n")], SPEC_SC + ", check 1 (N < 2)")
sconcat("check_attr_n_zero", [], [], [], 0,
        invalid("Value for attr 'N' of 0 must be at least minimum 2"),
        [check(SC, "attr-n"), "edge"], SPEC_SC + ", check 1 (N = 0)")
sconcat("check_attr_n_before_registration", [i64([1, 1], [0])], [T("qint8", [1], [1])],
        [i64([1], [1])], 0,
        invalid("Value for attr 'N' of 1 must be at least minimum 2"),
        [check(SC, "attr-n"), "edge"],
        SPEC_SC + ", check 1 comes before the registration check (qint8 is unregistered)")
sconcat("check_list_length_values", [i64([1, 1], [0]), i64([1, 1], [0])], [f32([1], [1])],
        [i64([1], [1]), i64([1], [1])], 0,
        invalid("List argument 'values' to 'SparseConcat' Op with length 1 must match length 2 "
                "of argument 'indices'."),
        [check(SC, "list-length")], SPEC_SC + ", check 1 (values list length)")
sconcat("check_list_length_shapes", [i64([1, 1], [0]), i64([1, 1], [0])],
        [f32([1], [1]), f32([1], [2])], [i64([1], [1]), i64([1], [1]), i64([1], [1])], 0,
        invalid("List argument 'shapes' to 'SparseConcat' Op with length 3 must match length 2 "
                "of argument 'indices'."),
        [check(SC, "list-length")], SPEC_SC + ", check 1 (shapes list length)")
sconcat("check_concat_dim_int32_high", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"],
        2147483648,
        invalid("Attr concat_dim has value 2147483648 out of range for an int32"),
        [check(SC, "concat-dim-int32")], SPEC_SC + ", check 1 (concat_dim outside int32)")
sconcat("check_concat_dim_int32_low", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"],
        -2147483649,
        invalid("Attr concat_dim has value -2147483649 out of range for an int32"),
        [check(SC, "concat-dim-int32")], SPEC_SC + ", check 1 (concat_dim outside int32)")
# The int32 check's edges: the int32 extremes pass it, and fail the range check (step 7) instead.
sconcat("check_concat_dim_int32_max", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"],
        2147483647,
        invalid("Concat dimension must be in range [-2, 2), got 2147483647"),
        [check(SC, "concat-dim-range"), "edge"],
        SPEC_SC + ", check 1 passes for 2^31 - 1 (inside int32); check 7 rejects it")
sconcat("check_concat_dim_int32_min", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"],
        -2147483648,
        invalid("Concat dimension must be in range [-2, 2), got -2147483648"),
        [check(SC, "concat-dim-range"), "edge"],
        SPEC_SC + ", check 1 passes for -2^31 (inside int32); check 7 rejects it")
sconcat("check_indices_matrix", [i64([1, 2], [0, 0]), i64([2], [0, 1])],
        [f32([1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([2], [2, 2])], 0,
        invalid("Input indices should be a matrix but received shape [2] at position 1"),
        [check(SC, "indices-matrix")], SPEC_SC + ", check 2")
sconcat("check_indices_before_values", [i64([1, 2], [0, 0]), i64([2], [0, 1])],
        [f32([1, 1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([2], [2, 2])], 0,
        invalid("Input indices should be a matrix but received shape [2] at position 1"),
        [check(SC, "indices-matrix"), "edge"],
        SPEC_SC + ", check 2 runs over every i before check 4 (values[0] is not a vector)")
sconcat("check_values_vector", [i64([1, 2], [0, 0]), i64([1, 2], [0, 1])],
        [f32([1, 1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([2], [2, 2])], 0,
        invalid("Input values should be a vector but received shape [1,1] at position 0"),
        [check(SC, "values-vector")], SPEC_SC + ", check 4")
sconcat("check_shapes_vector", [i64([1, 2], [0, 0]), i64([1, 2], [0, 1])],
        [f32([1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([], [2])], 0,
        invalid("Input shapes should be a vector but received shape [] at position 1"),
        [check(SC, "shapes-vector")], SPEC_SC + ", check 5")
sconcat("check_shape_negative_dim", [i64([0, 2], []), i64([0, 2], [])],
        [f32([0], []), f32([0], [])], [i64([2], [2, -1]), i64([2], [2, 1])], 0,
        error("INTERNAL", "Encountered overflow from large input shape."),
        [check(SC, "shape-overflow")], SPEC_SC + ", check 5: a negative dim gives INTERNAL too")
sconcat("advisory_tfsa_2021_024_shape_overflow",
        [i64([2, 2], [514, 514, 514, 514]), i64([2, 2], [514, 530, 599, 877])],
        [T("int64", [0], []), T("int64", [0], [])],
        [i64([9], [442, 514, 514, 515, 606, 347, 943, 61, 2]), i64([9], [0] * 9)], 2,
        error("INTERNAL", "Encountered overflow from large input shape."),
        ["advisory:TFSA-2021-024", check(SC, "shape-overflow")],
        SPEC_ADV + ", TFSA-2021-024 (CVE-2021-29534)")
sconcat("deviation_too_many_dims_first", [i64([0, 255], []), i64([0, 255], [])],
        [f32([0], []), f32([0], [])], [i64([255], [1] * 255), i64([255], [1] * 255)], 0,
        invalid("Too many dimensions in tensor"),
        [check(SC, "too-many-dims"), "deviation", "edge"],
        SPEC_ADV + ", crash path 'shapes[0] of 255 ones'; " + SPEC_SC + " check 6")
# The dimension limit's edge: 254 dims are allowed (one entry per input, concatenated on dim 0).
sconcat("max_dims_254", [i64([1, 254], [0] * 254), i64([1, 254], [0] * 254)],
        [f32([1], [1.5]), f32([1], [2.5])], [i64([254], [1] * 254), i64([254], [1] * 254)], 0,
        sparse_out(i64([2, 254], [0] * 254 + [1] + [0] * 253), f32([2], [1.5, 2.5]),
                   i64([254], [2] + [1] * 253)),
        ["edge"], SPEC_SC + ", checks 6 and 8 allow 254 dims; the output has the inputs' entries "
        "in order, the second offset by 1 on dim 0")
sconcat("deviation_too_many_dims_later", [i64([0, 2], []), i64([0, 255], [])],
        [f32([0], []), f32([0], [])], [i64([2], [2, 2]), i64([255], [1] * 255)], 0,
        invalid("Too many dimensions in tensor"),
        [check(SC, "too-many-dims"), "deviation", "edge"],
        SPEC_ADV + ", crash path 'any later shapes[i] of 255 ones'; " + SPEC_SC
        + " check 8 (before the rank check)")
sconcat("check_concat_dim_range_high", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], 2,
        invalid("Concat dimension must be in range [-2, 2), got 2"),
        [check(SC, "concat-dim-range")], SPEC_SC + ", check 7")
sconcat("check_concat_dim_range_low", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], -3,
        invalid("Concat dimension must be in range [-2, 2), got -3"),
        [check(SC, "concat-dim-range")], SPEC_SC + ", check 7 (concat_dim printed as given)")
sconcat("check_concat_dim_range_rank0", [i64([0, 0], []), i64([0, 0], [])],
        [f32([0], []), f32([0], [])], [i64([0], []), i64([0], [])], 0,
        invalid("Concat dimension must be in range [0, 0), got 0"),
        [check(SC, "concat-dim-range"), "edge"], SPEC_SC + ", check 7: rank 0 always fails")
sconcat("check_rank_match", [i64([0, 2], []), i64([0, 3], [])], [f32([0], []), f32([0], [])],
        [i64([2], [2, 3]), i64([3], [2, 3, 1])], 1,
        invalid("Ranks of all input tensors must match: expected 2 but got 3 at position 1"),
        [check(SC, "rank-match")], SPEC_SC + ", check 8")
sconcat("check_shape_match", [i64([0, 3], []), i64([0, 3], [])], [f32([0], []), f32([0], [])],
        [i64([3], [2, 3, 4]), i64([3], [2, 5, 6])], 1,
        invalid("Input shapes must match: expected 4 for dimension 2 but got 6 at position 1"),
        [check(SC, "shape-match")], SPEC_SC + ", check 8 (j = 2, after the concat dim)")
sconcat("check_shape_match_third_input", [i64([0, 2], []), i64([0, 2], []), i64([0, 2], [])],
        [f32([0], []), f32([0], []), f32([0], [])],
        [i64([2], [2, 3]), i64([2], [2, 4]), i64([2], [5, 1])], 1,
        invalid("Input shapes must match: expected 2 for dimension 0 but got 5 at position 2"),
        [check(SC, "shape-match")], SPEC_SC + ", check 8 at position 2")
sconcat("deviation_concat_size_overflow", [i64([1, 1], [0]), i64([1, 1], [0])],
        [f32([1], [1]), f32([1], [2])], [i64([1], [P62]), i64([1], [P62])], 0,
        invalid("Concat dimension size overflows int64 at position 1"),
        [check(SC, "concat-size-overflow"), "deviation", "edge"],
        SPEC_ADV + ", crash path 'SparseConcat, concat-dim sum overflow' (2^62 + 2^62)")
sconcat("deviation_output_shape_overflow", [i64([1, 2], [0, 0]), i64([1, 2], [0, 0])],
        [f32([1], [1]), f32([1], [2])], [i64([2], [3, P61]), i64([2], [3, P61])], 0,
        invalid("Encountered overflow when multiplying 6 with 2305843009213693952, result: "
                "-4611686018427387904"),
        [check(SC, "output-shape-overflow"), "deviation", "edge"],
        SPEC_ADV + ", crash path 'SparseConcat, output element count overflow'")
sconcat("deviation_total_nnz_overflow", [i64([P62, 0], [])] * 4, [f32([0], [])] * 4,
        [i64([1], [1])] * 4, 0,
        invalid("Total number of entries overflows int64"),
        [check(SC, "total-nnz-overflow"), "deviation", "edge"],
        SPEC_ADV + ", crash path 'four inputs with zero-column indices of shape [2^62, 0]'",
        alternatives=[alternative(
            ["tf-cpu"], sparse_out(i64([0, 1], []), f32([0], []), i64([1], [4])),
            SPEC_SC + ", step 9: TensorFlow wraps the total nnz (4 * 2^62 = 2^64 wraps to 0) and "
            "returns the empty result: output_shape [1+1+1+1]")])
sconcat("check_rows_match", [i64([1, 2], [0, 0]), i64([2, 2], [0, 0, 1, 1])],
        [f32([1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([2], [2, 2])], 0,
        invalid("indices and values rows (indexing dimension) must match. "
                "(indices = 2, values = 1)"),
        [check(SC, "rows-match")], SPEC_SC + ", check 10")
sconcat("check_order_length", [i64([1, 3], [0, 0, 0]), i64([1, 2], [0, 0])],
        [f32([1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([2], [2, 2])], 0,
        invalid("Order length must be SparseTensor rank."),
        [check(SC, "order-length")], SPEC_SC + ", check 10")
sconcat("check_entry_checks_per_input", [i64([1, 3], [0, 0, 0]), i64([2, 2], [0, 0, 1, 1])],
        [f32([1], [1]), f32([1], [2])], [i64([2], [2, 2]), i64([2], [2, 2])], 0,
        invalid("Order length must be SparseTensor rank."),
        [check(SC, "order-length"), "edge"],
        SPEC_SC + ", check 10: both checks for input 0 before input 1 (input 1's rows differ)")
sconcat("deviation_index_offset_overflow", [i64([1, 1], [0]), i64([1, 1], [I64_MAX])],
        [f32([1], [1]), f32([1], [2])], [i64([1], [2]), i64([1], [2])], 0,
        invalid("Index 9223372036854775807 at position 1 overflows int64 when offset by 2"),
        [check(SC, "index-offset-overflow"), "deviation", "edge"],
        SPEC_SC + ", check 10 deviation: coordinate 2^63-1 plus offset 2")
sconcat("check_memory_limit_values", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], 1,
        oom("[5]", "string"),
        [check(SC, "memory-limit")],
        SPEC_SC + ", check 11: indices 64+80 = 144, values 64+5*24 = 184 (total 328 > 300)",
        memory_limit=300)
sconcat("check_memory_limit_shape", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], 1,
        oom("[2]", "int64"),
        [check(SC, "memory-limit")],
        SPEC_SC + ", check 11: 144 + 184 + 80 = 408 > 407, at output_shape", memory_limit=407)
sconcat("check_memory_limit_indices", DOC_SC["indices"], DOC_SC["values"], DOC_SC["shapes"], 1,
        oom("[5,2]", "int64"),
        [check(SC, "memory-limit")],
        SPEC_SC + ", check 11: output_indices alone needs 144 bytes, limit 143", memory_limit=143)


# =============================================================================================
# Structural self-check and writing
# =============================================================================================
def as_int(x):
    return int(x) if isinstance(x, str) else x


def check_tensor(where, t):
    assert t["dtype"] in DTYPES, (where, t["dtype"])
    for d in t["shape"]:
        assert isinstance(d, int) or (isinstance(d, str) and abs(int(d)) > 2 ** 53), (where, d)
        assert as_int(d) >= 0, (where, d)
    if "fill" in t:
        return
    count = math.prod(as_int(d) for d in t["shape"])
    assert len(t["data"]) == count, (where, len(t["data"]), count)
    for e in t["data"]:
        if isinstance(e, bool):
            assert t["dtype"] == "bool", where
        elif isinstance(e, int) and t["dtype"] not in ("float32", "float64", "float16",
                                                         "bfloat16"):
            assert abs(e) <= 2 ** 53, (where, e)
        elif t["dtype"] == "bool":
            raise AssertionError((where, e))


def walk_tensors(where, obj):
    if isinstance(obj, list):
        for i, t in enumerate(obj):
            check_tensor("%s[%d]" % (where, i), t)
    else:
        check_tensor(where, obj)


def self_check(folder, name, v):
    where = "%s/%s" % (folder, name)
    for k, t in v["inputs"].items():
        walk_tensors(where + ":" + k, t)
    for exp in [v["expected"]] + [a["outcome"] for a in v.get("alternatives", [])]:
        assert ("outputs" in exp) != ("error" in exp), where
        for k, t in exp.get("outputs", {}).items():
            walk_tensors(where + ":" + k, t)
    if "unspecified" in v["expected"]:
        assert "unspecified" in v["tags"], where
    if "alternatives" in v:
        assert "deviation" in v["tags"] or "quirk" in v["tags"], where
    for tag in v["tags"]:
        if tag.startswith("check:"):
            _, op, check_id = tag.split(":", 2)
            if not known_check(op, check_id):
                sys.exit("%s: tag %s names no check of generators/checks/%s.inc"
                         % (where, tag, FOLDER.get(op, "?")))
    exp = v["expected"]
    if "message:code-only" in v["tags"]:
        assert "error" in exp, where




def main():
    return write_or_check(VECTORS, VECTORS_DIR, self_check, "--check" in sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
