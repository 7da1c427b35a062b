#!/usr/bin/env python3
"""Writes the conformance vectors of SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md).

    corpus/vectors/space_to_depth/            the contract's checks, memory, empty tensors, dtypes
    corpus/vectors/space_to_depth/tf-tests/   TensorFlow's spacetodepth_op_test.py, ported
    corpus/vectors/depth_to_space/...         the same for DepthToSpace (depthtospace_op_test.py)

Format: corpus/README.md ("opconform-vector/1"), with attrs {"block_size": <int>,
"data_format": <string>} and tensors input -> output. Expected outputs of TensorFlow's literal
cases are the tests' literals; the others come from the contract's three steps (reshape,
transpose [0,1,3,2,4,5], reshape), written below on flat lists and checked first against
every literal case. Nothing here runs an implementation.

    python3 corpus/tools/space_to_depth_vectors.py            # (re)write the files
    python3 corpus/tools/space_to_depth_vectors.py --check    # only check the files on disk
Standard library only.
"""
import os
import sys

from vector_files import read_check_ids, write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS_DIR = os.path.normpath(os.path.join(HERE, "..", "vectors"))
S2D, D2S = "SpaceToDepth", "DepthToSpace"
FOLDER = {S2D: "space_to_depth", D2S: "depth_to_space"}
TF_FILE = {S2D: "spacetodepth_op_test.py", D2S: "depthtospace_op_test.py"}
TF_CLASS = {S2D: "SpaceToDepthTest", D2S: "DepthToSpaceTest"}
SPEC = "docs/contract/space_to_depth.md"
TF_PATH = "tensorflow/python/kernel_tests/array_ops/"
DTYPES = ("float32 float64 float16 bfloat16 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
          "bool complex64 complex128 string qint8 quint8 qint32").split()
NOT_REGISTERED = {S2D: {"quint8", "qint32"}, D2S: {"qint8", "quint8", "qint32"}}
WIDTH = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int8": 1, "int16": 2,
         "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1,
         "complex64": 8, "complex128": 16, "string": 24, "qint8": 1, "quint8": 1, "qint32": 4}
INT32_MAX, INT64_MAX, INT64_MIN = 2**31 - 1, 2**63 - 1, -2**63

VECTORS = []  # (folder, file stem, vector)


# ---- The contract's formula, on flat row-major lists ----------------------------------------

def prod(dims):
    p = 1
    for d in dims:
        p *= d
    return p


def reshape_transpose_reshape(data, split, out_shape):
    """View `data` as `split` (rank 6), transpose [0,1,3,2,4,5], read as `out_shape`."""
    a, b, c, d, e, f = split
    out = []
    for i0 in range(a):
        for i1 in range(b):
            for i3 in range(d):          # output axis 2 is input axis 3
                for i2 in range(c):      # output axis 3 is input axis 2
                    for i4 in range(e):
                        base = ((((i0 * b + i1) * c + i2) * d + i3) * e + i4) * f
                        out.extend(data[base:base + f])
    assert len(out) == prod(out_shape)
    return out


def space_to_depth(shape, data, bs):
    n, h, w, c = shape
    out_shape = [n, h // bs, w // bs, c * bs * bs]
    return out_shape, reshape_transpose_reshape(data, [n, h // bs, bs, w // bs, bs, c], out_shape)


def depth_to_space(shape, data, bs):
    n, h, w, c = shape
    out_shape = [n, h * bs, w * bs, c // (bs * bs)]
    return out_shape, reshape_transpose_reshape(data, [n, h, w, bs, bs, c // (bs * bs)], out_shape)


FORMULA = {S2D: space_to_depth, D2S: depth_to_space}


# ---- Vector building ------------------------------------------------------------------------

def int64_json(v):
    """README: an int64 above 2^53 in magnitude is a decimal string."""
    return v if abs(v) <= 2**53 else str(v)


def T(dtype, shape, data=None):
    return {"dtype": dtype, "shape": [int64_json(d) for d in shape], "data": list(data or [])}


def outputs(t):
    return {"outputs": {"output": t}}


def error(code, message):
    return {"error": {"code": code, "message": message}}


def invalid(message):
    return error("INVALID_ARGUMENT", message)


def add(folder, name, op, inp, block, expected, tags, provenance, fmt="NHWC", memory_limit=None):
    v = {"format": "opconform-vector/1", "op": op,
         "attrs": {"block_size": int64_json(block), "data_format": fmt},
         "inputs": {"input": inp}, "expected": expected}
    if memory_limit is not None:
        v["memory_limit"] = memory_limit
    v["tags"] = tags
    v["provenance"] = provenance
    VECTORS.append((folder, name, v))


def result_of(op, inp, block):
    shape, data = FORMULA[op]([int(d) for d in inp["shape"]], inp["data"], block)
    return T(inp["dtype"], shape, data)


CHECKS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generators", "checks")


def check_tag(op, check_id):
    if check_id not in read_check_ids(os.path.join(CHECKS_DIR, FOLDER[op] + ".inc")):
        sys.exit("check:%s:%s names no check of generators/checks/%s.inc" % (op, check_id, FOLDER[op]))
    return "check:%s:%s" % (op, check_id)


# ---- TensorFlow's tests ---------------------------------------------------------------------

def tf_range(n):
    return list(range(1, n + 1))


IMAGE16 = [1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16]
PAIRS16 = [1, 10, 2, 20, 5, 50, 6, 60, 3, 30, 4, 40, 7, 70, 8, 80,
           9, 90, 10, 100, 13, 130, 14, 140, 11, 110, 12, 120, 15, 150, 16, 160]
PAIRS16_DEPTH = [1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80,
                 9, 90, 10, 100, 11, 110, 12, 120, 13, 130, 14, 140, 15, 150, 16, 160]
PAIRS12 = [1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80, 9, 90, 10, 100, 11, 110, 12, 120]


def batch10(base):
    return [x * i for i in range(10) for x in base]


# (test, input shape, input, block, output shape, output): the tests' literals (float32).
TF_LITERAL = {
    S2D: [
        ("testBasic", [1, 2, 2, 1], [1, 2, 3, 4], 2, [1, 1, 1, 4], [1, 2, 3, 4]),
        ("testLargerInput2x2", [1, 4, 4, 1], IMAGE16, 2, [1, 2, 2, 4], tf_range(16)),
        ("testLargerInput4x4", [1, 4, 4, 1], IMAGE16, 4, [1, 1, 1, 16], IMAGE16),
        ("testDepthInterleaved", [1, 2, 2, 2], [1, 10, 2, 20, 3, 30, 4, 40], 2, [1, 1, 1, 8],
         [1, 10, 2, 20, 3, 30, 4, 40]),
        ("testDepthInterleavedDepth3", [1, 2, 2, 3], tf_range(12), 2, [1, 1, 1, 12], tf_range(12)),
        ("testDepthInterleavedLarge", [1, 4, 4, 2], PAIRS16, 2, [1, 2, 2, 8], PAIRS16_DEPTH),
        ("testBlockSize2Batch10", [10, 4, 4, 1], batch10(IMAGE16), 2, [10, 2, 2, 4], batch10(tf_range(16))),
        ("testBatchSize0", [0, 4, 6, 3], [], 2, [0, 2, 3, 12], []),
        ("testNonSquare", [1, 6, 2, 2], PAIRS12, 2, [1, 3, 1, 8], PAIRS12),
    ],
    D2S: [
        ("testBasic", [1, 1, 1, 4], [1, 2, 3, 4], 2, [1, 2, 2, 1], [1, 2, 3, 4]),
        ("testBlockSize2", [1, 2, 2, 4], tf_range(16), 2, [1, 4, 4, 1], IMAGE16),
        ("testBlockSize2Batch10", [10, 2, 2, 4], batch10(tf_range(16)), 2, [10, 4, 4, 1], batch10(IMAGE16)),
        ("testBatchSize0", [0, 2, 3, 12], [], 2, [0, 4, 6, 3], []),
        ("testNonSquare", [1, 3, 1, 8], PAIRS12, 2, [1, 6, 2, 2], PAIRS12),
        ("testBlockSize4FlatInput", [1, 1, 1, 16], IMAGE16, 4, [1, 4, 4, 1], IMAGE16),
        ("testDepthInterleaved", [1, 1, 1, 8], [1, 10, 2, 20, 3, 30, 4, 40], 2, [1, 2, 2, 2],
         [1, 10, 2, 20, 3, 30, 4, 40]),
        ("testDepthInterleavedDepth3", [1, 1, 1, 12], tf_range(12), 2, [1, 2, 2, 3], tf_range(12)),
        ("testDepthInterleavedLarger", [1, 2, 2, 8], PAIRS16_DEPTH, 2, [1, 4, 4, 2], PAIRS16),
    ],
}
# testBasic's other dtypes: SpaceToDepth float16 and uint8, DepthToSpace float16 and bfloat16.
TF_BASIC_DTYPES = {S2D: ["float16", "uint8"], D2S: ["float16", "bfloat16"]}
# testAgainstTranspose, CPU part: SpaceToDepth (batch, out_h, out_w, channels, block), float32
# and qint8; DepthToSpace (batch, in_h, in_w, out_channels, block), float32.
TF_TRANSPOSE = {S2D: [(3, 2, 3, 1, 2), (1, 2, 3, 2, 2), (1, 2, 3, 2, 3)],
                D2S: [(3, 2, 3, 1, 2), (3, 2, 3, 2, 2), (1, 2, 3, 2, 3)]}


def tf_vector(op, test, inp, block, expected, why, fmt="NHWC", extra_tags=()):
    name = "%s.%s.%s" % (TF_FILE[op][:-3], TF_CLASS[op], test)
    tag = "tf-test:%s:%s.%s" % (TF_FILE[op], TF_CLASS[op], test.split("_")[0])
    add(FOLDER[op] + "/tf-tests", name, op, inp, block, expected, [tag] + list(extra_tags),
        "TensorFlow %s%s, %s.%s: %s" % (TF_PATH, TF_FILE[op], TF_CLASS[op], test.split("_")[0], why), fmt)


def tf_tests():
    for op in (S2D, D2S):
        for test, in_shape, data, block, out_shape, out in TF_LITERAL[op]:
            computed = FORMULA[op](in_shape, data, block)
            assert computed == (out_shape, out), (op, test)  # the formula against TF's literals
            tf_vector(op, test, T("float32", in_shape, data), block, outputs(T("float32", out_shape, out)),
                      "the test's literal input and output")
        for dtype in TF_BASIC_DTYPES[op]:
            test, in_shape, data, block, out_shape, out = TF_LITERAL[op][0]
            tf_vector(op, test + "_" + dtype, T(dtype, in_shape, data), block,
                      outputs(T(dtype, out_shape, out)), "the test's literals cast to " + dtype)
        for k, (batch, h, w, c, bs) in enumerate(TF_TRANSPOSE[op]):
            shape = [batch, h * bs, w * bs, c] if op == S2D else [batch, h, w, c * bs * bs]
            dtypes = ["float32", "qint8"] if op == S2D else ["float32"]
            for dtype in dtypes:
                if dtype == "float32":
                    data = list(range(prod(shape)))
                else:
                    data = [((f + 128) % 255) - 127 for f in range(prod(shape))]
                inp = T(dtype, shape, data)
                tf_vector(op, "testAgainstTranspose_%d_%s" % (k + 1, dtype), inp, bs,
                          outputs(result_of(op, inp, bs)),
                          "compareToTranspose%s on CPU; the expectation (the test's reshape/"
                          "transpose helper) is the contract's three steps" % str((batch, h, w, c, bs)))

    x = T("float32", [1, 2, 2, 1], [1, 2, 3, 4])
    asserted = "the test asserts only ValueError/InvalidArgumentError; the message is the contract's"
    s2d_errors = [
        ("testInputWrongDimMissingDepth", T("float32", [1, 2, 2], [1, 2, 3, 4]), 2,
         invalid("Input rank should be 4 instead of 3")),
        ("testInputWrongDimMissingBatch", T("float32", [2, 2, 1], [1, 2, 3, 4]), 2,
         invalid("Input rank should be 4 instead of 3")),
        ("testBlockSize0", x, 0, invalid("Value for attr 'block_size' of 0 must be at least minimum 2")),
        ("testBlockSizeOne", x, 1, invalid("Value for attr 'block_size' of 1 must be at least minimum 2")),
        ("testBlockSizeLarger", x, 10, invalid("Image width 2 and height 2 should be divisible by block_size: 10")),
        ("testBlockSizeNotDivisibleWidth", T("float32", [1, 2, 3, 1], [1, 2, 3, 3, 4, 7]), 3,
         invalid("Image width 3 and height 2 should be divisible by block_size: 3")),
        ("testBlockSizeNotDivisibleHeight", T("float32", [1, 3, 2, 1], [1, 2, 3, 4, 5, 6]), 3,
         invalid("Image width 2 and height 3 should be divisible by block_size: 3")),
        ("testBlockSizeNotDivisibleBoth", x, 3, invalid("Image width 2 and height 2 should be divisible by block_size: 3")),
    ]
    for test, inp, block, expected in s2d_errors:
        tf_vector(S2D, test, inp, block, expected, asserted)
    d2s_errors = [
        ("testBlockSizeTooLarge", T("float32", [1, 2, 2, 4], tf_range(16)), 4,
         invalid("Input depth dimension 4 should be divisible by: 16"), asserted, ()),
        ("testBlockSize0", x, 0, invalid("Value for attr 'block_size' of 0 must be at least minimum 2"), asserted, ()),
        ("testBlockSizeOne", T("float32", [1, 2, 2, 4], [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4]), 1,
         invalid("Value for attr 'block_size' of 1 must be at least minimum 2"), asserted, ()),
        ("testBlockSizeOverflow", T("float32", [1, 1, 1, 4], [1, 2, 3, 4]), 100000,
         invalid("Input depth dimension 4 should be divisible by: 10000000000"),
         "the test asserts InvalidArgumentError; TensorFlow computes b*b in a 32-bit int (it would "
         "print 1410065408), the contract uses the exact value (" + SPEC + ", step 3)", ("deviation",)),
    ]
    for test, inp, block, expected, why, tags in d2s_errors:
        tf_vector(D2S, test, inp, block, expected, why, extra_tags=tags)
    # _testOne on a CPU-only machine: NCHW has no CPU kernel (InvalidArgumentError "No OpKernel
    # was registered to support Op 'DepthToSpace'"). The message is the suite's short form.
    tf_vector(D2S, "testBasic_nchw", T("float32", [1, 4, 1, 1], [1, 2, 3, 4]), 2,
              invalid("Only NHWC data_format supported on CPU. Got NCHW"),
              "_testOne, NCHW on a CPU-only machine: the test asserts InvalidArgumentError 'No OpKernel "
              "was registered to support Op'; the message is the contract's short form (pre-check 3b)",
              fmt="NCHW", extra_tags=("message:code-only",))


# ---- The contract's checks, memory, empty tensors, dtypes -----------------------------------

def distinct(dtype, shape):
    n = prod(shape)
    if dtype == "string":
        return ["s%d" % k for k in range(n)]
    if dtype == "bool":
        return [k % 2 == 0 for k in range(n)]
    if dtype in ("complex64", "complex128"):
        return [[k + 1, -(k + 1)] for k in range(n)]
    if dtype in ("int8", "qint8"):
        return [(k % 127) + 1 for k in range(n)]
    if dtype in ("uint8", "quint8"):
        return [(k % 255) + 1 for k in range(n)]
    return [k + 1 for k in range(n)]


def contract_vectors():
    for op in (S2D, D2S):
        folder, prov = FOLDER[op], SPEC
        ok_shape = [1, 2, 2, 1] if op == S2D else [1, 1, 1, 4]
        ok = T("float32", ok_shape, [1, 2, 3, 4])

        def chk(name, inp, block, expected, check_id, why, fmt="NHWC", tags=(), memory_limit=None):
            add(folder, name, op, inp, block, expected, [check_tag(op, check_id)] + list(tags),
                "%s, %s: %s" % (prov, op, why), fmt, memory_limit)

        # Pre-check 2.
        for b in (1, 0, -3, INT64_MIN):
            chk("check_block_size_minimum_%s" % str(b).replace("-", "minus_"), ok, b,
                invalid("Value for attr 'block_size' of %d must be at least minimum 2" % b),
                "block-size-minimum", "pre-check 2a")
        for fmt in ("nhwc", "NHCW", ""):
            chk("check_data_format_allowed_%s" % (fmt or "empty"), ok, 2,
                invalid('Value for attr \'data_format\' of "%s" is not in the list of allowed values: '
                        '"NHWC", "NCHW", "NCHW_VECT_C"' % fmt),
                "data-format-allowed", "pre-check 2b", fmt=fmt)
        chk("check_block_size_minimum_before_data_format", ok, 1,
            invalid("Value for attr 'block_size' of 1 must be at least minimum 2"),
            "block-size-minimum", "pre-check 2a comes before 2b", fmt="HWCN")
        # Pre-check 3.
        for dtype in sorted(NOT_REGISTERED[op]):
            chk("check_registration_" + dtype, T(dtype, ok_shape, [1, 2, 3, 4]), 2,
                error("UNIMPLEMENTED", "No registered '%s' OpKernel for 'CPU' devices compatible with T=%s"
                      % (op, dtype)), "registration", "pre-check 3a", tags=("message:code-only",))
        chk("check_registration_before_op_checks", T("qint32", [3], [1, 2, 3]), INT64_MAX,
            error("UNIMPLEMENTED", "No registered '%s' OpKernel for 'CPU' devices compatible with T=qint32" % op),
            "registration", "pre-check 3a comes before steps 1 and 2", tags=("message:code-only",))
        for fmt in ("NCHW", "NCHW_VECT_C"):
            chk("check_nhwc_only_" + fmt.lower(), ok, 2,
                invalid("Only NHWC data_format supported on CPU. Got " + fmt), "nhwc-only",
                "pre-check 3b (no CPU kernel for this data_format)", fmt=fmt, tags=("message:code-only",))
        # Step 1.
        for b in (INT32_MAX + 1, INT64_MAX):
            chk("check_block_size_int32_%d" % b, T("float32", [3], [1, 2, 3]), b,
                invalid("Attr block_size has value %d out of range for an int32" % b),
                "block-size-int32", "step 1 (comes before the rank)")
        # Step 2.
        rank_text = "Input rank should be 4 instead of %d" if op == S2D else "Input rank should be: 4 instead of: %d"
        for shape in ([], [4], [1, 2, 2], [1, 2, 2, 1, 1]):
            chk("check_rank_%d" % len(shape), T("float32", shape, distinct("float32", shape)), 2,
                invalid(rank_text % len(shape)), "input-rank", "step 2")
        # Steps 3-5.
        if op == S2D:
            chk("check_divisible_width", T("float32", [1, 2, 3, 1], tf_range(6)), 2,
                invalid("Image width 3 and height 2 should be divisible by block_size: 2"), "divisibility", "step 3")
            chk("check_divisible_height", T("float32", [1, 3, 2, 1], tf_range(6)), 2,
                invalid("Image width 2 and height 3 should be divisible by block_size: 2"), "divisibility", "step 3")
            chk("check_divisible_huge_block", T("float32", [0, 4, 0, 5]), INT32_MAX,
                invalid("Image width 0 and height 4 should be divisible by block_size: 2147483647"),
                "divisibility", "step 3, a block of 2^31 - 1 divides only 0")
            chk("deviation_output_depth_overflow", T("float32", [1, 0, 0, 2**40]), INT32_MAX,
                invalid("output depth 1099511627776 * 2147483647 * 2147483647 overflows int64"),
                "output-dims", "step 4, deviation: C*b*b overflows int64 (an int in TensorFlow)",
                tags=("deviation",))
            chk("empty_huge_block", T("float32", [1, 0, 0, 1]), INT32_MAX,
                outputs(T("float32", [1, 0, 0, (2**31 - 1) ** 2])), "output-dims",
                "empty input, the output depth b*b = 4611686014132420609 still fits", tags=("edge",))
        else:
            chk("check_divisible_depth", T("float32", [1, 1, 1, 6], tf_range(6)), 2,
                invalid("Input depth dimension 6 should be divisible by: 4"), "divisibility", "step 3")
            chk("deviation_divisible_depth_exact_square", T("float32", [0, 1, 1, 4]), INT32_MAX,
                invalid("Input depth dimension 4 should be divisible by: 4611686014132420609"),
                "divisibility", "step 3, deviation: b*b exact, not a wrapped int", tags=("deviation",))
            chk("deviation_output_height_overflow", T("float32", [1, 2**40, 1, 0]), 2**30,
                invalid("output height 1099511627776 * 1073741824 overflows int64"), "output-dims",
                "step 4, deviation: H*b overflows int64", tags=("deviation",))
            chk("deviation_output_width_overflow", T("float32", [1, 1, 2**40, 0]), 2**30,
                invalid("output width 1099511627776 * 1073741824 overflows int64"), "output-dims",
                "step 4, deviation: W*b overflows int64", tags=("deviation",))
            chk("check_output_shape_overflow", T("float32", [2**20, 2**20, 2**20, 0]), 2**10,
                invalid("Encountered overflow when multiplying 1125899906842624 with 1073741824, result: -1"),
                "output-shape-overflow", "step 5, appending the output width to [2^20, 2^30]")
            chk("check_output_shape_overflow_wrapped", T("float32", [2**31, 1, 2**30, 0]), 2,
                invalid("Encountered overflow when multiplying 4294967296 with 2147483648, result: "
                        "-9223372036854775808"), "output-shape-overflow", "step 5, the product 2^63 comes back wrapped")
        # Step 6, memory: 64 + 16 * 4 = 128 bytes for 16 float32 elements.
        big = T("float32", [1, 4, 4, 1] if op == S2D else [1, 2, 2, 4], tf_range(16))
        out_text = "[1,2,2,4]" if op == S2D else "[1,4,4,1]"
        chk("memory_limit_exact_fit", big, 2, outputs(result_of(op, big, 2)), "memory-limit",
            "step 6, 64 + 16 * 4 = 128 bytes fit a limit of 128", memory_limit=128)
        chk("memory_limit_one_short", big, 2,
            error("RESOURCE_EXHAUSTED", "OOM when allocating tensor with shape%s and type float32" % out_text),
            "memory-limit", "step 6, a limit of 127", memory_limit=127)
        empty = T("float32", [0, 2, 2, 4])
        chk("memory_limit_empty_output", empty, 2,
            error("RESOURCE_EXHAUSTED", "OOM when allocating tensor with shape%s and type float32"
                  % ("[0,1,1,16]" if op == S2D else "[0,4,4,1]")),
            "memory-limit", "step 6, an empty output still requests 64 bytes", memory_limit=63)
        # Empty tensors.
        for shape, b in (([2, 0, 6, 3], 3), ([2, 4, 6, 0], 2)) if op == S2D else (([2, 0, 3, 8], 2), ([2, 5, 3, 0], 7)):
            inp = T("int32", shape)
            add(folder, "empty_" + "_".join(map(str, shape)) + "_block_%d" % b, op, inp, b,
                outputs(result_of(op, inp, b)), ["edge"], "%s, Empty tensors" % prov)
        # Every registered dtype.
        for dtype in DTYPES:
            if dtype in NOT_REGISTERED[op]:
                continue
            shape = [1, 2, 4, 2] if op == S2D else [1, 1, 2, 8]  # a permutation that is not the identity
            inp = T(dtype, shape, distinct(dtype, shape))
            add(folder, "dtype_" + dtype, op, inp, 2, outputs(result_of(op, inp, 2)), ["edge"],
                "%s, %s: registered dtype %s, distinct values, by the contract's formula" % (prov, op, dtype))


# ---- Writing ---------------------------------------------------------------------------------

def self_check(folder, name, v):
    where = "%s/%s" % (folder, name)
    t = v["inputs"]["input"]
    assert len(t["data"]) == prod(int(d) for d in t["shape"]), where
    assert t["dtype"] in DTYPES, where
    if "message:code-only" in v["tags"]:
        assert "error" in v["expected"], where
    out = v["expected"].get("outputs")
    if out:
        o = out["output"]
        assert len(o["data"]) == prod(int(d) for d in o["shape"]), where
        assert v.get("memory_limit", 2**32) >= 64 + prod(int(d) for d in o["shape"]) * WIDTH[o["dtype"]], where


def main():
    tf_tests()
    contract_vectors()
    return write_or_check(VECTORS, VECTORS_DIR, self_check, "--check" in sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
