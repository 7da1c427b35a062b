#!/usr/bin/env python3
"""TensorFlow's own test cases for the six ops, as conformance vectors.

Writes corpus/vectors/<op>/tf-tests/*.json (format: corpus/README.md) and corpus/tf-tests.md
(every TensorFlow test, ported or not, and why not). Standard library only.

    python3 corpus/tools/tf_tests.py          # (re)write the files
    python3 corpus/tools/tf_tests.py --check  # exit 1 if the files on disk differ

Every input and every expected outcome below is a literal from a TensorFlow test, except:
- where a test computes its expectation at run time (a NumPy helper, another op), the
  expectation comes from the spec's documented index formula (`s2b_formula`, `b2s_formula`,
  written from docs/contract/space_to_batch_nd.md and checked against every literal case first);
- error messages: TensorFlow's tests assert a substring or only an exception type; the exact
  text is the spec's (docs/contract/*.md), and for substring tests `check_contains` proves the
  test's substring is inside it.
Nothing here runs our own kernels.
"""

import itertools
import json
import math
import os
import re
import struct
import sys

from make_vectors import FOLDER as OP_FOLDER  # op -> corpus/vectors/<folder>

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # corpus/

# ---------------------------------------------------------------------------------------------
# TensorFlow files read (repository tensorflow/tensorflow; the commit of the version read).

FILES = {
    "spacetobatch_op_test.py": (
        "tensorflow/python/kernel_tests/array_ops/spacetobatch_op_test.py", "267b04506d88"),
    "batchtospace_op_test.py": (
        "tensorflow/python/kernel_tests/array_ops/batchtospace_op_test.py", "0304934138cb"),
    "dynamic_stitch_op_test.py": (
        "tensorflow/python/kernel_tests/data_structures/dynamic_stitch_op_test.py",
        "0304934138cb"),
    "dynamic_partition_op_test.py": (
        "tensorflow/python/kernel_tests/data_structures/dynamic_partition_op_test.py",
        "0304934138cb"),
    "sparse_concat_op_test.py": (
        "tensorflow/python/kernel_tests/sparse_ops/sparse_concat_op_test.py", "1f4f602d58f4"),
    "dynamic_stitch_op_test.cc": (
        "tensorflow/core/kernels/dynamic_stitch_op_test.cc", "08df8c40b437"),
    "dynamic_partition_op_test.cc": (
        "tensorflow/core/kernels/dynamic_partition_op_test.cc", "5f3dac2e2105"),
    "space_to_batch_nd_test.cc": (
        "tensorflow/lite/kernels/space_to_batch_nd_test.cc", "0db332dc4ca5"),
    "batch_to_space_nd_test.cc": (
        "tensorflow/lite/kernels/batch_to_space_nd_test.cc", "0585287ddfe0"),
    "compiler/tests/spacetobatch_op_test.py": (
        "tensorflow/compiler/tests/spacetobatch_op_test.py", "0304934138cb"),
    "dynamic_stitch_test.py": (
        "tensorflow/compiler/tests/dynamic_stitch_test.py", "0304934138cb"),
}


# ---------------------------------------------------------------------------------------------
# Tensors and their exact JSON elements.

DTYPES = ("float32 float64 float16 bfloat16 int8 int16 int32 int64 uint8 uint16 uint32 "
          "uint64 bool complex64 complex128 string qint8 quint8 qint32").split()


class Tensor:
    """A tensor of a vector file: `data` (row-major elements) or `fill` (one repeated element)."""

    def __init__(self, dtype, shape, data=None, fill=None):
        assert dtype in DTYPES, dtype
        assert (data is None) != (fill is None)
        n = math.prod(shape)
        if data is not None:
            assert len(data) == n, (dtype, shape, len(data))
        self.dtype, self.shape, self.data, self.fill = dtype, list(shape), data, fill

    def key(self):
        return (self.dtype, tuple(self.shape),
                None if self.data is None else tuple(map(repr, self.data)), repr(self.fill))


def T(dtype, shape, data):
    return Tensor(dtype, shape, data=list(data))


def Fill(dtype, shape, value):
    return Tensor(dtype, shape, fill=value)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def shortest(x, bits_of):
    """The shortest decimal that converts back to the same bits (corpus/README.md)."""
    for digits in range(1, 18):
        text = "%.*g" % (digits, x)
        if bits_of(float(text)) == bits_of(x):
            return text
    raise AssertionError(x)


def element(dtype, v):
    """JSON text of one element, exact for the dtype."""
    if dtype == "string":
        return json.dumps(v, ensure_ascii=False)
    if dtype == "bool":
        return "true" if v else "false"
    if dtype in ("complex64", "complex128"):
        part = "float32" if dtype == "complex64" else "float64"
        return "[%s, %s]" % (element(part, v.real), element(part, v.imag))
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 2**24):
            iv = int(v)
            assert abs(iv) <= 256 or dtype in ("float32", "float64"), (dtype, v)
            return str(iv)
        if dtype == "float32":
            return shortest(v, f32_bits)
        if dtype == "float64":
            return repr(float(v))
        raise AssertionError((dtype, v))  # float16/bfloat16 here only hold small integers
    assert isinstance(v, int), (dtype, v)
    return str(v) if abs(v) <= 2**53 else '"%d"' % v


def tensor_json(t):
    head = '{"dtype": "%s", "shape": [%s], ' % (t.dtype, ", ".join(map(str, t.shape)))
    if t.fill is not None:
        return head + '"fill": %s}' % element(t.dtype, t.fill)
    return head + '"data": [%s]}' % ", ".join(element(t.dtype, v) for v in t.data)


def to_json(obj, indent=0):
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(obj, Tensor):
        return tensor_json(obj)
    if isinstance(obj, dict):
        items = ['%s%s: %s' % (inner, json.dumps(k), to_json(v, indent + 1))
                 for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and obj and isinstance(obj[0], Tensor):
        return "[\n" + ",\n".join(inner + tensor_json(t) for t in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# The spec's index formula for SpaceToBatchND / BatchToSpaceND (docs/contract/space_to_batch_nd.md,
# "Result"), used only where a TensorFlow test computes its expectation at run time.

def unravel(k, dims):
    """Row-major digits of k over dims (the first dim most significant)."""
    digits = [0] * len(dims)
    for i in reversed(range(len(dims))):
        digits[i] = k % dims[i]
        k //= dims[i]
    return digits


def flat_index(coords, dims):
    index = 0
    for c, d in zip(coords, dims):
        index = index * d + c
    return index


def s2b_formula(shape, data, block, pads):
    """output[b', p.., r..] = input[b' mod B, p_i*b_i + o_i - pad_start_i, .., r..] or 0."""
    m, batch = len(block), shape[0]
    spatial, rest = shape[1:1 + m], shape[1 + m:]
    padded = [spatial[i] + pads[i][0] + pads[i][1] for i in range(m)]
    assert all(padded[i] % block[i] == 0 for i in range(m))
    out_spatial = [padded[i] // block[i] for i in range(m)]
    depth = math.prod(rest)
    out = []
    for b_out in range(batch * math.prod(block)):
        n, offsets = b_out % batch, unravel(b_out // batch, block)
        for p in itertools.product(*[range(s) for s in out_spatial]):
            src = [p[i] * block[i] + offsets[i] - pads[i][0] for i in range(m)]
            if all(0 <= src[i] < spatial[i] for i in range(m)):
                base = flat_index([n] + src, shape[:1 + m]) * depth
                out.extend(data[base:base + depth])
            else:
                out.extend([0] * depth)
    return [batch * math.prod(block)] + out_spatial + rest, out


def b2s_formula(shape, data, block, crops):
    """Input element [b, p.., r..] goes to [b mod B_out, p_i*b_i + o_i - crop_start_i, .., r..]
    when inside the output; every output element is written exactly once."""
    m, batch_in = len(block), shape[0]
    spatial, rest = shape[1:1 + m], shape[1 + m:]
    assert batch_in % math.prod(block) == 0
    batch_out = batch_in // math.prod(block)
    out_spatial = [spatial[i] * block[i] - crops[i][0] - crops[i][1] for i in range(m)]
    depth = math.prod(rest)
    out = [None] * (batch_out * math.prod(out_spatial) * depth)
    for b_in in range(batch_in):
        n, offsets = b_in % batch_out, unravel(b_in // batch_out, block)
        for p in itertools.product(*[range(s) for s in spatial]):
            q = [p[i] * block[i] + offsets[i] - crops[i][0] for i in range(m)]
            if all(0 <= q[i] < out_spatial[i] for i in range(m)):
                dst = flat_index([n] + q, [batch_out] + out_spatial) * depth
                src = flat_index([b_in] + list(p), shape[:1 + m]) * depth
                assert all(v is None for v in out[dst:dst + depth])
                out[dst:dst + depth] = data[src:src + depth]
    assert None not in out
    return [batch_out] + out_spatial + rest, out


def flatten(nested):
    if isinstance(nested, (list, tuple)):
        return [x for item in nested for x in flatten(item)]
    return [nested]


def shape_of(nested):
    if isinstance(nested, (list, tuple)):
        return [len(nested)] + (shape_of(nested[0]) if nested else [])
    return []


# ---------------------------------------------------------------------------------------------
# The registry: every TensorFlow test, and the vectors it became.

class TfTest:
    def __init__(self, file, name):
        self.file, self.name = file, name
        self.vectors = []        # vector names
        self.not_ported = None   # reason, when nothing was ported
        self.partial = None      # what of a ported test was left out, and why
        self.conflict = False    # not ported because TensorFlow's test and the spec disagree


TESTS = {}      # (file, name) -> TfTest, in registration order
VECTORS = {}    # vector name -> dict (the file's content, Tensors inside)
BY_CONTENT = {}  # canonical content -> vector name (identical cases share one file)


def test(file, name):
    assert file in FILES
    key = (file, name)
    if key not in TESTS:
        TESTS[key] = TfTest(file, name)
    return TESTS[key]


def not_ported(file, name, reason, conflict=False):
    t = test(file, name)
    t.not_ported, t.conflict = reason, conflict


def partial(file, name, reason):
    test(file, name).partial = reason


def content_key(obj):
    if isinstance(obj, Tensor):
        return ("T",) + obj.key()
    if isinstance(obj, dict):
        return tuple((k, content_key(v)) for k, v in obj.items())
    if isinstance(obj, list):
        return tuple(content_key(v) for v in obj)
    return repr(obj)


def vector(file, name, op, inputs, expected, note="", attrs=None, profile=None, tags=(),
           variant=""):
    """Adds the vector for TensorFlow test `name` of `file` (one variant of it)."""
    t = test(file, name)
    tag = "tf-test:%s:%s" % (file, name)
    path, commit = FILES[file]
    where = "TensorFlow %s (commit %s), %s%s" % (path, commit, name,
                                                 " [%s]" % variant if variant else "")
    body = {"format": "opconform-vector/1", "op": op}
    if attrs:
        body["attrs"] = attrs
    body["inputs"] = inputs
    body["expected"] = expected
    if profile:
        body["profile"] = profile
    key = content_key({k: v for k, v in body.items()})
    if key in BY_CONTENT:  # the same case in another test (or variant): one file, more tags
        vname = BY_CONTENT[key]
        existing = VECTORS[vname]
        if tag not in existing["tags"]:  # after the other tf-test tags
            tf_tags = [x for x in existing["tags"] if x.startswith("tf-test:")]
            existing["tags"].insert(len(tf_tags), tag)
        existing["provenance"] += "; also " + where
        if vname not in t.vectors:
            t.vectors.append(vname)
        return vname
    stem = file.rsplit(".", 1)[0].replace("/", "_")
    vname = ".".join(x for x in (stem, name, variant) if x)
    vname = re.sub(r"[^A-Za-z0-9_.+-]", "_", vname)
    assert vname not in VECTORS, vname
    body["tags"] = [tag] + list(tags)
    body["provenance"] = where + (": " + note if note else "")
    body["_folder"] = OP_FOLDER[op]
    VECTORS[vname] = body
    BY_CONTENT[key] = vname
    t.vectors.append(vname)
    return vname


def outputs(**named):
    return {"outputs": named}


def error(message, code="INVALID_ARGUMENT"):
    return {"error": {"code": code, "message": message}}


def check_contains(message, *fragments):
    """A TensorFlow test asserts these substrings (regex fragments) of the spec's message."""
    for fragment in fragments:
        assert re.search(fragment, message), (fragment, message)
    return message


# ---------------------------------------------------------------------------------------------
# SpaceToBatchND / BatchToSpaceND helpers.

def s2b_pair(file, name, x_dtype, x, block, pads, y, *, block_dtype, pads_dtype, note="",
             variant="", check_formula=True, y_shape=None, x_shape=None):
    """TensorFlow's _testPad: SpaceToBatchND(x) == y and BatchToSpaceND(y, crops=pads) == x."""
    x_shape = x_shape if x_shape is not None else shape_of(x)
    y_shape = y_shape if y_shape is not None else shape_of(y)
    xf, yf = flatten(x), flatten(y)
    if check_formula:  # the spec's formula agrees with TensorFlow's literal expectation
        assert s2b_formula(x_shape, xf, block, pads) == (y_shape, yf), (file, name)
        assert b2s_formula(y_shape, yf, block, pads) == (x_shape, xf), (file, name)
    block_t = T(block_dtype, [len(block)], block)
    pads_t = T(pads_dtype, [len(block), 2], flatten(pads))
    vector(file, name, "SpaceToBatchND",
           {"input": T(x_dtype, x_shape, xf), "block_shape": block_t, "paddings": pads_t},
           outputs(output=T(x_dtype, y_shape, yf)), note=note, variant=variant)
    vector(file, name, "BatchToSpaceND",
           {"input": T(x_dtype, y_shape, yf), "block_shape": block_t, "crops": pads_t},
           outputs(output=T(x_dtype, x_shape, xf)),
           note=(note + "; " if note else "") + "the BatchToSpaceND half (crops = paddings)",
           variant=(variant + "." if variant else "") + "b2s")


def s2b_error(file, name, x, block, pads, message, *, block_dtype, pads_dtype, x_dtype,
              note="", variant="", tags=(), profile=None):
    vector(file, name, "SpaceToBatchND",
           {"input": x, "block_shape": T(block_dtype, [len(block)], block),
            "paddings": T(pads_dtype, shape_of(pads) if pads else [0], flatten(pads))},
           error(message), note=note, variant=variant, tags=tags, profile=profile)


def b2s_error(file, name, x, block, crops, message, *, block_dtype, crops_dtype, note="",
              variant=""):
    vector(file, name, "BatchToSpaceND",
           {"input": x, "block_shape": T(block_dtype, [len(block)], block),
            "crops": T(crops_dtype, shape_of(crops), flatten(crops))},
           error(message), note=note, variant=variant)


def zeros(dtype, shape):
    return T(dtype, shape, [0] * math.prod(shape))


def iota(dtype, shape):
    return T(dtype, shape, range(math.prod(shape)))


# ---------------------------------------------------------------------------------------------
# spacetobatch_op_test.py

LEGACY_OP = ("legacy SpaceToBatch/BatchToSpace op (block_size attr), not one of the six ops; "
             "the Python-wrapper class runs the same data through the ND ops")
GRADIENT = "gradient test (random input, numeric Jacobian)"
WRAPPER_NOTE = ("the v1 Python wrapper array_ops.space_to_batch/batch_to_space calls "
                "SpaceToBatchND/BatchToSpaceND with block_shape = int64 [block_size, block_size]")
SHAPE_ERROR_NOTE = ("the test asserts only that an error is raised (ValueError at graph "
                    "construction); the message is the spec's kernel message")


# testDirect's cases (input shape, block_shape, paddings), the same in XLA's tests.
DIRECT_CASES = [
    ([3, 1, 2, 0], [3], [[0, 2]]),
    ([3, 0, 2, 5], [3], [[0, 0]]),
    ([3, 0, 2, 5], [3], [[1, 2]]),
    ([3, 3, 4, 5, 2], [3, 4, 2], [[1, 2], [0, 0], [3, 0]]),
    ([3, 3, 4, 5, 2], [3, 4, 2, 2], [[1, 2], [0, 0], [3, 0], [0, 0]]),
    ([3, 2, 2, 3, 4, 5, 2, 5], [1, 1, 3, 4, 2, 2],
     [[0, 0], [0, 0], [1, 2], [0, 0], [3, 0], [0, 0]]),
    ([3, 2, 2, 3, 4, 5, 2, 5], [1, 1, 3, 4, 2, 2, 1],
     [[0, 0], [0, 0], [1, 2], [0, 0], [3, 0], [0, 0], [0, 0]]),
]


def space_to_batch_nd_small_cases(nd_pair):
    """The small SpaceToBatchNDTest cases that the kernel test and the XLA test both hold, with
    the same names and values: nd_pair(name, x, block, pads, y, variant="")."""
    nd_pair("testZeroBlockDimsZeroRemainingDims", [1, 2], [], [], [1, 2])
    one = [[1, 2], [3, 4]]
    nd_pair("testZeroBlockDimsOneRemainingDim", one, [], [], one, variant="M0")
    nd_pair("testZeroBlockDimsOneRemainingDim", one, [1], [[0, 0]], one, variant="M1")
    two = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]
    nd_pair("testZeroBlockDimsTwoRemainingDims", two, [], [], two, variant="M0")
    nd_pair("testZeroBlockDimsTwoRemainingDims", two, [1], [[0, 0]], two, variant="M1")
    nd_pair("testZeroBlockDimsTwoRemainingDims", two, [1, 1], [[0, 0], [0, 0]], two,
            variant="M2")
    nd_pair("testOneBlockDimZeroRemainingDims", [[1, 2, 3], [4, 5, 6]], [2], [[1, 0]],
            [[0, 2], [0, 5], [1, 3], [4, 6]])
    nd_pair("testOneBlockDimOneRemainingDim",
            [[[1, 11], [2, 21], [3, 31]], [[4, 41], [5, 51], [6, 61]]], [2], [[1, 0]],
            [[[0, 0], [2, 21]], [[0, 0], [5, 51]], [[1, 11], [3, 31]], [[4, 41], [6, 61]]])


def spacetobatch_op_test():
    f = "spacetobatch_op_test.py"
    pad0 = [[0, 0], [0, 0]]

    # SpaceToBatchTest: the Python wrapper; block int64 [b, b], paddings int32.
    def wrapper_pair(name, x, pads, block_size, y, dtype="float32", variant=""):
        s2b_pair(f, "SpaceToBatchTest." + name, dtype, x, [block_size, block_size], pads, y,
                 block_dtype="int64", pads_dtype="int32", note=WRAPPER_NOTE, variant=variant)

    x2 = [[[[1], [2]], [[3], [4]]]]
    for dtype in ("float32", "float16", "bfloat16", "uint8"):
        wrapper_pair("testSmallInput2x2", x2, pad0, 2, [[[[1]]], [[[2]]], [[[3]]], [[[4]]]],
                     dtype=dtype, variant=dtype)
    wrapper_pair("testSmallInput2x2Pad1x0", x2, [[1, 0], [1, 0]], 3,
                 [[[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[1]]], [[[2]]], [[[0]]], [[[3]]],
                  [[[4]]]])
    wrapper_pair("testDepthInput2x2", [[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]],
                 pad0, 2, [[[[1, 2, 3]]], [[[4, 5, 6]]], [[[7, 8, 9]]], [[[10, 11, 12]]]])
    wrapper_pair("testLargerInput2x2",
                 [[[[1], [2], [3], [4]], [[5], [6], [7], [8]], [[9], [10], [11], [12]],
                   [[13], [14], [15], [16]]]], pad0, 2,
                 [[[[1], [3]], [[9], [11]]], [[[2], [4]], [[10], [12]]],
                  [[[5], [7]], [[13], [15]]], [[[6], [8]], [[14], [16]]]])
    wrapper_pair("testBatchInput2x2",
                 [[[[1], [2], [3], [4]], [[5], [6], [7], [8]]],
                  [[[9], [10], [11], [12]], [[13], [14], [15], [16]]]], pad0, 2,
                 [[[[1], [3]]], [[[9], [11]]], [[[2], [4]]], [[[10], [12]]],
                  [[[5], [7]]], [[[13], [15]]], [[[6], [8]]], [[[14], [16]]]])
    wrapper_pair("testLargerInputBatch2x2",
                 [[[[1], [2], [3], [4]], [[5], [6], [7], [8]], [[9], [10], [11], [12]],
                   [[13], [14], [15], [16]]],
                  [[[17], [18], [19], [20]], [[21], [22], [23], [24]],
                   [[25], [26], [27], [28]], [[29], [30], [31], [32]]]], pad0, 2,
                 [[[[1], [3]], [[9], [11]]], [[[17], [19]], [[25], [27]]],
                  [[[2], [4]], [[10], [12]]], [[[18], [20]], [[26], [28]]],
                  [[[5], [7]], [[13], [15]]], [[[21], [23]], [[29], [31]]],
                  [[[6], [8]], [[14], [16]]], [[[22], [24]], [[30], [32]]]])
    for name in ("testSmallInput2x2", "testSmallInput2x2Pad1x0", "testDepthInput2x2",
                 "testLargerInput2x2", "testBatchInput2x2", "testLargerInputBatch2x2"):
        not_ported(f, "SpaceToBatchCppTest." + name, LEGACY_OP)

    # SpaceToBatchNDTest: block_shape and paddings are np.array(...) of Python ints (int64);
    # an empty block_shape/paddings (np.array([]), float64) reaches the op as int32, the
    # attrs' default.
    def nd_pair(name, x, block, pads, y, variant="", **kw):
        dt = "int64" if block else "int32"
        s2b_pair(f, "SpaceToBatchNDTest." + name, "float32", x, block, pads, y,
                 block_dtype=dt, pads_dtype=dt, variant=variant, **kw)

    space_to_batch_nd_small_cases(nd_pair)

    # testDirect: input np.arange(prod(shape)) (float32); TensorFlow's expectation is a NumPy
    # transcription of the documented pad/reshape/transpose/reshape; here: the spec's formula.
    for i, (shape, block, pads) in enumerate(DIRECT_CASES, 1):
        x = list(range(math.prod(shape)))
        y_shape, y = s2b_formula(shape, x, block, pads)
        s2b_pair(f, "SpaceToBatchNDTest.testDirect", "float32", x, block, pads, y,
                 block_dtype="int64", pads_dtype="int64", x_shape=shape, y_shape=y_shape,
                 variant="case%d" % i, check_formula=True,
                 note="input np.arange; expected output from the spec's index formula "
                      "(TensorFlow computes it with its NumPy helper space_to_batch_direct)")

    # SpaceToBatchSpaceToDepth: expectation from another op (space_to_depth); x = arange.
    shape = [5, 10, 16, 7]
    x = list(range(math.prod(shape)))
    y_shape, y = s2b_formula(shape, x, [2, 2], [[0, 0], [0, 0]])
    vector(f, "SpaceToBatchSpaceToDepth.testSpaceToDepthTranspose", "SpaceToBatchND",
           {"input": T("float32", shape, x), "block_shape": T("int64", [2], [2, 2]),
            "paddings": zeros("int32", [2, 2])},
           outputs(output=T("float32", y_shape, y)),
           note=WRAPPER_NOTE + "; TensorFlow compares with transpose(space_to_depth("
                "transpose(x))); the expected output here is the spec's index formula")
    not_ported(f, "SpaceToBatchSpaceToDepthCpp.testSpaceToDepthTranspose", LEGACY_OP)

    # SpaceToBatchErrorHandlingTest (Python wrapper): x is a Python int list (int32).
    def wrapper_error(name, x, block_size, message):
        s2b_error(f, "SpaceToBatchErrorHandlingTest." + name, x, [block_size] * 2,
                  [[0, 0], [0, 0]], message, block_dtype="int64", pads_dtype="int32",
                  x_dtype="int32", note=WRAPPER_NOTE + "; " + SHAPE_ERROR_NOTE)

    x2 = T("int32", [1, 2, 2, 1], [1, 2, 3, 4])
    wrapper_error("testInputWrongDimMissingBatch", T("int32", [2, 2, 1], [1, 2, 3, 4]), 2,
                  "padded_shape[1]=1 is not divisible by block_shape[1]=2")
    wrapper_error("testBlockSize0", x2, 0,
                  "All values in block_shape must be positive, got value, 0 at index 0.")
    not_ported(f, "SpaceToBatchErrorHandlingTest.testBlockSizeOne",
               "the test expects an error for block_size 1, but through the Python "
               "wrapper this is SpaceToBatchND with block [1,1] and zero paddings, which the "
               "spec (and TensorFlow's kernel: no internal block dims) answers with the input "
               "unchanged; only the legacy SpaceToBatch op (block_size >= 2) rejects it",
               conflict=True)
    wrapper_error("testBlockSizeLarger", x2, 10,
                  "padded_shape[0]=2 is not divisible by block_shape[0]=10")
    wrapper_error("testBlockSizeNotDivisibleWidth",
                  T("int32", [1, 2, 3, 1], [1, 2, 3, 3, 4, 7]), 3,
                  "padded_shape[0]=2 is not divisible by block_shape[0]=3")
    wrapper_error("testBlockSizeNotDivisibleHeight",
                  T("int32", [1, 3, 2, 1], [1, 2, 3, 4, 5, 6]), 3,
                  "padded_shape[1]=2 is not divisible by block_shape[1]=3")
    wrapper_error("testBlockSizeNotDivisibleBoth", x2, 3,
                  "padded_shape[0]=2 is not divisible by block_shape[0]=3")
    not_ported(f, "SpaceToBatchErrorHandlingTest.testUnknownShape",
               "shape inference with placeholders (no values)")
    for name in ("testInputWrongDimMissingBatch", "testBlockSize0", "testBlockSizeOne",
                 "testBlockSizeLarger", "testBlockSizeNotDivisibleWidth",
                 "testBlockSizeNotDivisibleHeight", "testBlockSizeNotDivisibleBoth",
                 "testUnknownShape"):
        not_ported(f, "SpaceToBatchErrorHandlingCppTest." + name, LEGACY_OP)

    # SpaceToBatchNDErrorHandlingTest: np.zeros(shape, float32), np.array(...) (int64).
    def nd_error(name, shape, block, pads, message):
        s2b_error(f, "SpaceToBatchNDErrorHandlingTest." + name, zeros("float32", shape),
                  block, pads, message, block_dtype="int64", pads_dtype="int64",
                  x_dtype="float32", note=SHAPE_ERROR_NOTE)

    nd_error("testBlockSize0", [1, 2, 2], [0, 2], [[0, 0], [0, 0]],
             "All values in block_shape must be positive, got value, 0 at index 0.")
    nd_error("testBlockSizeNegative", [1, 2, 2], [-1, 2], [[0, 0], [0, 0]],
             "All values in block_shape must be positive, got value, -1 at index 0.")
    nd_error("testNegativePadding", [1, 2, 2], [1, 1], [[0, -1], [0, 0]],
             "Paddings must be non-negative")
    nd_error("testBlockSizeNotDivisible", [1, 2, 3, 1], [3, 3], [[0, 0], [0, 0]],
             "padded_shape[0]=2 is not divisible by block_shape[0]=3")
    nd_error("testBlockDimsMismatch", [1, 3, 3, 1], [3, 3], [[0, 0]],
             "paddings should have shape [2, 2] instead of [1,2]")
    not_ported(f, "SpaceToBatchNDErrorHandlingTest.testUnknown",
               "shape inference with placeholders (no values)")
    s2b_error(f, "SpaceToBatchNDErrorHandlingTest.testInvalidBlockShape",
              Fill("float32", [10, 20, 20], -3.5e35), [-10, -10], [[0, 0], [0, 0]],
              check_contains(
                  "All values in block_shape must be positive, got value, -10 at index 0.",
                  "block_shape must be positive"),
              block_dtype="int64", pads_dtype="int32", x_dtype="float32",
              tags=["advisory:TFSA-2022-076"],
              note="the regression test of TFSA-2022-076 (docs/contract/advisories.md)")
    s2b_error(f, "SpaceToBatchNDErrorHandlingTest.testOutputSizeOutOfBounds",
              Fill("float32", [10, 19, 22], -3.5e35), [1879048192, 1879048192],
              [[0, 0], [0, 0]],
              check_contains("Negative output dimension size caused by overflow when "
                             "multiplying 10 and 3530822107858468864",
                             "Negative.* dimension size caused by overflow"),
              block_dtype="int64", pads_dtype="int32", x_dtype="float32",
              tags=["advisory:TFSA-2022-076"],
              note="the regression test of TFSA-2022-076 (docs/contract/advisories.md)")

    for name in ("testSmall", "testSmall2", "testSmallPad1x1"):
        not_ported(f, "SpaceToBatchGradientTest." + name, GRADIENT)
        not_ported(f, "SpaceToBatchGradientCppTest." + name, GRADIENT + "; legacy op")
    for name in ("testSmall", "testSmall2", "testSmallPad1", "testSmallPadThreeBlockDims"):
        not_ported(f, "SpaceToBatchNDGradientTest." + name, GRADIENT)
    not_ported(f, "RequiredSpaceToBatchPaddingsTest.testSimple",
               "tests the Python helper required_space_to_batch_paddings, not an op")


# ---------------------------------------------------------------------------------------------
# batchtospace_op_test.py

def batchtospace_op_test():
    f = "batchtospace_op_test.py"
    name = "BatchToSpaceDepthToSpace.testDepthToSpaceTranspose"
    shape = [20, 5, 8, 7]
    x = list(range(math.prod(shape)))
    y_shape, y = b2s_formula(shape, x, [2, 2], [[0, 0], [0, 0]])
    for crops_dtype in ("int64", "int32"):
        vector(f, name, "BatchToSpaceND",
               {"input": T("float32", shape, x), "block_shape": T("int64", [2], [2, 2]),
                "crops": zeros(crops_dtype, [2, 2])},
               outputs(output=T("float32", y_shape, y)), variant="float32.crops_" + crops_dtype,
               note=WRAPPER_NOTE + "; x = np.arange (float32); TensorFlow compares with "
                    "transpose(depth_to_space(transpose(x))); the expected output here is "
                    "the spec's index formula")
    partial(f, name, "the bfloat16 parameter is left out: np.arange(5600, dtype=bfloat16) "
                     "does not state its values (integers above 256 are not representable "
                     "and their rounding is NumPy's)")
    not_ported(f, "BatchToSpaceDepthToSpaceCpp.testDepthToSpaceTranspose", LEGACY_OP)

    def wrapper_error(name, x, block_size, message):
        b2s_error(f, "BatchToSpaceErrorHandlingTest." + name, x, [block_size] * 2,
                  [[0, 0], [0, 0]], message, block_dtype="int64", crops_dtype="int32",
                  note=WRAPPER_NOTE + "; " + SHAPE_ERROR_NOTE)

    x2 = T("int32", [1, 2, 2, 1], [1, 2, 3, 4])
    wrapper_error("testInputWrongDimMissingBatch", T("int32", [2, 2, 1], [1, 2, 3, 4]), 2,
                  "Input batch dimension (2) is not divisible by product of block sizes (4)")
    wrapper_error("testBlockSize0", x2, 0, "Product of block sizes must be positive, got 0")
    not_ported(f, "BatchToSpaceErrorHandlingTest.testBlockSizeOne",
               "the test expects an error for block_size 1, but through the Python "
               "wrapper this is BatchToSpaceND with block [1,1] and zero crops, which the "
               "spec (and TensorFlow's kernel: no internal block dims) answers with the input "
               "unchanged; only the legacy BatchToSpace op (block_size >= 2) rejects it",
               conflict=True)
    wrapper_error("testBlockSizeLarger", x2, 10,
                  "Input batch dimension (1) is not divisible by product of block sizes (100)")
    wrapper_error("testBlockSizeSquaredNotDivisibleBatch",
                  T("int32", [1, 2, 3, 1], [1, 2, 3, 3, 4, 7]), 3,
                  "Input batch dimension (1) is not divisible by product of block sizes (9)")
    not_ported(f, "BatchToSpaceErrorHandlingTest.testUnknownShape",
               "shape inference with placeholders (no values)")
    for name in ("testInputWrongDimMissingBatch", "testBlockSize0", "testBlockSizeOne",
                 "testBlockSizeLarger", "testBlockSizeSquaredNotDivisibleBatch",
                 "testUnknownShape"):
        not_ported(f, "BatchToSpaceErrorHandlingCppTest." + name, LEGACY_OP)

    def nd_error(name, shape, block, crops, message, variant=""):
        b2s_error(f, "BatchToSpaceNDErrorHandlingTest." + name, zeros("float32", shape),
                  block, crops, message, block_dtype="int64", crops_dtype="int64",
                  note=SHAPE_ERROR_NOTE, variant=variant)

    nd_error("testInputWrongDimMissingBatch", [2, 2], [2, 2], [[0, 0], [0, 0]],
             "input rank should be >= 3 instead of 2", variant="1")
    nd_error("testInputWrongDimMissingBatch", [2, 2, 3], [2, 2, 3], [[0, 0], [0, 0]],
             "input rank should be >= 4 instead of 3", variant="2")
    nd_error("testBlockSize0", [1, 2, 2, 1], [0, 1], [[0, 0], [0, 0]],
             "Product of block sizes must be positive, got 0")
    nd_error("testBlockSizeNegative", [1, 2, 2, 1], [-1, 1], [[0, 0], [0, 0]],
             "Product of block sizes must be positive, got -1")
    nd_error("testNegativePadding", [1, 2, 2], [1, 1], [[0, -1], [0, 0]],
             "Crops must be non-negative")
    nd_error("testCropTooLarge", [4, 2, 3, 1], [2, 2], [[3, 2], [0, 0]],
             "cropped_shape[0]=-1 must be non-negative")
    nd_error("testBlockSizeSquaredNotDivisibleBatch", [3, 1, 1, 1], [2, 3], [[0, 0], [0, 0]],
             "Input batch dimension (3) is not divisible by product of block sizes (6)")
    not_ported(f, "BatchToSpaceNDErrorHandlingTest.testUnknownShape",
               "shape inference with placeholders (no values)")

    for name in ("testSmall", "testSmall2", "testSmallCrop1x1"):
        not_ported(f, "BatchToSpaceGradientTest." + name, GRADIENT)
        not_ported(f, "BatchToSpaceGradientCppTest." + name, GRADIENT + "; legacy op")
        not_ported(f, "BatchToSpaceNDGradientTest." + name, GRADIENT)


# ---------------------------------------------------------------------------------------------
# DynamicStitch / ParallelDynamicStitch

def stitch(file, name, op, indices, data, merged=None, message=None, variant="", note="",
           tags=()):
    expected = outputs(merged=merged) if message is None else error(message)
    return vector(file, name, op, {"indices": indices, "data": data}, expected,
                  variant=variant, note=note, tags=tags)


def i32(shape, data):
    return T("int32", shape, data)


def dynamic_stitch_op_test_py():
    f = "dynamic_stitch_op_test.py"
    note_ve = ("the test asserts only that an error is raised (ValueError from shape "
               "inference); the message is the spec's kernel message")
    for cls, op in (("DynamicStitchTest", "DynamicStitch"),
                    ("ParallelDynamicStitchTest", "ParallelDynamicStitch")):
        def n(test_name):
            return cls + "." + test_name

        if cls == "DynamicStitchTest":
            # indices[::step] with data unchanged: step -1 swaps which index gets which value.
            for step, idx, want in ((1, [0, 1], [40, 60]), (-1, [1, 0], [60, 40])):
                stitch(f, n("testScalar"), op, [i32([], [idx[0]]), i32([], [idx[1]])],
                       [i32([], [40]), i32([], [60])], i32([2], want),
                       variant="step%d" % step)
            stitch(f, n("testHigherRank"), op,
                   [i32([], [6]), i32([2], [4, 1]), i32([2, 2], [5, 2, 0, 3])],
                   [T("float32", [2], [61, 62]), T("float32", [2, 2], [41, 42, 11, 12]),
                    T("float32", [2, 2, 2], [51, 52, 21, 22, 1, 2, 31, 32])],
                   T("float32", [7, 2], flatten([[10 * i + 1, 10 * i + 2] for i in range(7)])),
                   note="the forward result (10 * arange(7)[:, None] + [1, 2])")
            partial(f, n("testHigherRank"), "the gradient half is not an op case")
        not_ported(f, n("testShapeInferenceForScalarWithNonConstantIndices"),
                   "shape inference with a placeholder (no values)")
        for dtype in ("float32", "float16", "bfloat16", "qint8", "quint8", "qint32"):
            stitch(f, n("testSimpleOneDimensional"), op,
                   [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
                   [T(dtype, [3], [0, 40, 70]), T(dtype, [5], [10, 60, 20, 30, 50])],
                   T(dtype, [8], [0, 10, 20, 30, 40, 50, 60, 70]), variant=dtype)
        stitch(f, n("testOneListOneDimensional"), op, [i32([8], [1, 6, 2, 3, 5, 0, 4, 7])],
               [i32([8], [10, 60, 20, 30, 50, 0, 40, 70])],
               i32([8], [0, 10, 20, 30, 40, 50, 60, 70]))
        two_d_idx = [i32([3], [0, 4, 7]), i32([2], [1, 6]), i32([3], [2, 3, 5])]
        two_d_data = [i32([3, 2], [0, 1, 40, 41, 70, 71]), i32([2, 2], [10, 11, 60, 61]),
                      i32([3, 2], [20, 21, 30, 31, 50, 51])]
        two_d_out = i32([8, 2], [0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 60, 61, 70, 71])
        stitch(f, n("testSimpleTwoDimensional"), op, two_d_idx, two_d_data, two_d_out)
        stitch(f, n("testZeroSizeTensor"), op, two_d_idx + [i32([0], [])],
               two_d_data + [i32([0, 2], [])], two_d_out)
        stitch(f, n("testAllZeroSizeTensor"), op, [i32([0], []), i32([0], [])],
               [i32([0, 2], []), i32([0, 2], [])], i32([0, 2], []))
        stitch(f, n("testErrorIndicesMultiDimensional"), op,
               [i32([3], [0, 4, 7]), i32([1, 5], [1, 6, 2, 3, 5])],
               [i32([1, 3], [0, 40, 70]), i32([5], [10, 60, 20, 30, 50])],
               message="data[0].shape = [1,3] does not start with indices[0].shape = [3]",
               note=note_ve + " (data[0] = [[0, 40, 70]] already fails, before the "
                              "multi-dimensional indices[1])")
        stitch(f, n("testErrorDataNumDimsMismatch"), op,
               [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
               [i32([3], [0, 40, 70]), i32([1, 5], [10, 60, 20, 30, 50])],
               message="data[1].shape = [1,5] does not start with indices[1].shape = [5]",
               note=note_ve)
        stitch(f, n("testErrorDataDimSizeMismatch"), op,
               [i32([3], [0, 4, 5]), i32([4], [1, 6, 2, 3])],
               [i32([3, 1], [0, 40, 70]), i32([4, 2], [10, 11, 60, 61, 20, 21, 30, 31])],
               message="Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [3,1], "
                       "data[1].shape = [4,2], indices[0].shape = [3], indices[1].shape = [4]",
               note=note_ve)
        stitch(f, n("testErrorDataAndIndicesSizeMismatch"), op,
               [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
               [i32([3], [0, 40, 70]), i32([4], [10, 60, 20, 30])],
               message="data[1].shape = [4] does not start with indices[1].shape = [5]",
               note=note_ve)
        stitch(f, n("testOutOfBoundsIndexRaisesInvalidArgument"), op,
               [i32([1], [v]) for v in (-1000, 405, 519, 758, 1015)],
               [T("float32", [1], [v]) for v in (110.27793884277344, 120.29475402832031,
                                                 157.2418212890625, 157.2626953125,
                                                 188.45382690429688)],
               message=check_contains("indices[0] is out of range", "out of range"),
               tags=["advisory:TFSA-2023-018"],
               note="the regression test of TFSA-2023-018 (docs/contract/advisories.md)")

    # ParallelDynamicStitchTest's own tests call data_flow_ops.dynamic_stitch (not parallel).
    p = "ParallelDynamicStitchTest."
    for name in ("testScalar", "testScalarGPU"):
        for step, idx, want in ((1, [0, 1], [40, 60]), (-1, [1, 0], [60, 40])):
            stitch(f, p + name, "DynamicStitch", [i32([], [idx[0]]), i32([], [idx[1]])],
                   [T("float32", [], [40]), T("float32", [], [60])],
                   T("float32", [2], want), variant="step%d" % step,
                   note="this override calls DynamicStitch, not ParallelDynamicStitch")
    for name in ("testHigherRank", "testHigherRankGPU"):
        stitch(f, p + name, "DynamicStitch",
               [i32([], [6]), i32([2], [4, 1]), i32([2, 2], [5, 2, 0, 3])],
               [T("float32", [2], [61, 62]), T("float32", [2, 2], [41, 42, 11, 12]),
                T("float32", [2, 2, 2], [51, 52, 21, 22, 1, 2, 31, 32])],
               T("float32", [7, 2], flatten([[10 * i + 1, 10 * i + 2] for i in range(7)])),
               note="this override calls DynamicStitch; the forward result")
        partial(f, p + name, "the gradient half is not an op case")
    mismatch = "testMismatchedDataAndIndexListSizes"
    one = [i32([1], [v]) for v in (2, 1, 0, 3)]
    vals = [T("float32", [1], [v]) for v in (1, 2, 3, 4)]
    regex = "expected inputs .* do not match|List argument .* must match"
    stitch(f, p + mismatch, "DynamicStitch", one[0:2], vals,
           message=check_contains("List argument 'data' to 'DynamicStitch' Op with length 4 "
                                  "must match length 2 of argument 'indices'.", regex),
           variant="indices2_data4", note="calls DynamicStitch")
    stitch(f, p + mismatch, "DynamicStitch", one, vals[0:2],
           message=check_contains("List argument 'data' to 'DynamicStitch' Op with length 2 "
                                  "must match length 4 of argument 'indices'.", regex),
           variant="indices4_data2", note="calls DynamicStitch")


def dynamic_stitch_op_test_cc():
    f = "dynamic_stitch_op_test.cc"
    s = "DynamicStitchOpTest."
    op = "DynamicStitch"
    fl = lambda shape, data: T("float32", shape, data)  # noqa: E731
    stitch(f, s + "Simple_OneD", op, [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
           [fl([3], [0, 40, 70]), fl([5], [10, 60, 20, 30, 50])],
           fl([8], [0, 10, 20, 30, 40, 50, 60, 70]))
    stitch(f, s + "Simple_TwoD", op,
           [i32([3], [0, 4, 7]), i32([2], [1, 6]), i32([3], [2, 3, 5])],
           [fl([3, 2], [0, 1, 40, 41, 70, 71]), fl([2, 2], [10, 11, 60, 61]),
            fl([3, 2], [20, 21, 30, 31, 50, 51])],
           fl([8, 2], [0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 60, 61, 70, 71]))
    stitch(f, s + "IndicesNotCoverAllPortions", op, [i32([1], [2])], [fl([1], [1])],
           fl([3], [0, 0, 1]))
    stitch(f, s + "Error_IndicesMultiDimensional", op,
           [i32([3], [0, 4, 7]), i32([1, 5], [1, 6, 2, 3, 5])],
           [fl([3], [0, 40, 70]), fl([5], [10, 60, 20, 30, 50])],
           message=check_contains(
               "data[1].shape = [5] does not start with indices[1].shape = [1,5]",
               re.escape("data[1].shape = [5] does not start with indices[1].shape = [1,5]")))
    stitch(f, s + "Error_DataNumDimsMismatch", op,
           [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
           [fl([3], [0, 40, 70]), fl([1, 5], [10, 60, 20, 30, 50])],
           message=check_contains(
               "data[1].shape = [1,5] does not start with indices[1].shape = [5]",
               re.escape("data[1].shape = [1,5] does not start with indices[1].shape = [5]")))
    stitch(f, s + "Error_DataDimSizeMismatch", op,
           [i32([3], [0, 4, 5]), i32([4], [1, 6, 2, 3])],
           [fl([3, 1], [0, 40, 70]), fl([4, 2], [10, 11, 60, 61, 20, 21, 30, 31])],
           message=check_contains(
               "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [3,1], "
               "data[1].shape = [4,2], indices[0].shape = [3], indices[1].shape = [4]",
               re.escape("Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = "
                         "[3,1], data[1].shape = [4,2]")))
    stitch(f, s + "Error_DataAndIndicesSizeMismatch", op,
           [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
           [fl([3], [0, 40, 70]), fl([4], [10, 60, 20, 30])],
           message=check_contains(
               "data[1].shape = [4] does not start with indices[1].shape = [5]",
               re.escape("data[1].shape = [4] does not start with indices[1].shape = [5]")))


# ---------------------------------------------------------------------------------------------
# DynamicPartition

def partition(file, name, data, partitions, num, parts=None, message=None, variant="",
              note=""):
    expected = outputs(outputs=parts) if message is None else error(message)
    return vector(file, name, "DynamicPartition", {"data": data, "partitions": partitions},
                  expected, attrs={"num_partitions": num}, variant=variant, note=note)


def dynamic_partition_op_test_py():
    f = "dynamic_partition_op_test.py"
    c = "DynamicPartitionTest."
    for dtype in ("float32", "bfloat16"):
        partition(f, c + "testSimpleOneDimensional", T(dtype, [6], [0, 13, 2, 39, 4, 17]),
                  i32([6], [0, 0, 2, 3, 2, 1]), 4,
                  [T(dtype, [2], [0, 13]), T(dtype, [1], [17]), T(dtype, [2], [2, 4]),
                   T(dtype, [1], [39])], variant=dtype)
    partition(f, c + "testSimpleTwoDimensional", T("float32", [6, 3], range(18)),
              i32([6], [0, 0, 2, 3, 2, 1]), 4,
              [T("float32", [2, 3], [0, 1, 2, 3, 4, 5]), T("float32", [1, 3], [15, 16, 17]),
               T("float32", [2, 3], [6, 7, 8, 12, 13, 14]), T("float32", [1, 3], [9, 10, 11])])
    num = 100000
    partition(f, c + "testLargeOneDimensional", T("float32", [num], range(num)),
              i32([num], [x % 2 for x in range(num)]), 2,
              [T("float32", [num // 2], range(0, num, 2)),
               T("float32", [num // 2], range(1, num, 2))],
              note="data range(100000), partitions x % 2; the expectation (evens, odds) is the "
                   "test's own list comprehension")
    not_ported(f, c + "testLargeTwoDimensional",
               "10^7 elements (100000 x 100): too large for a vector file")
    partition(f, c + "testSimpleComplex",
              T("complex64", [4], [1 + 2j, 3 + 4j, 5 + 6j, 7 + 8j]), i32([4], [1, 0, 1, 0]), 2,
              [T("complex64", [2], [3 + 4j, 7 + 8j]), T("complex64", [2], [1 + 2j, 5 + 6j])])
    partition(f, c + "testScalarPartitions", T("float64", [4], [10, 13, 12, 11]),
              i32([], [3]), 4,
              [T("float64", [0, 4], []), T("float64", [0, 4], []), T("float64", [0, 4], []),
               T("float64", [1, 4], [10, 13, 12, 11])])
    not_ported(f, c + "testHigherRank",
               "random data and partitions (np.random.seed(7)); plus a gradient check")
    partition(f, c + "testEmptyParts", T("float32", [4], [1, 2, 3, 4]),
              i32([4], [1, 3, 1, 3]), 4,
              [T("float32", [0], []), T("float32", [2], [1, 3]), T("float32", [0], []),
               T("float32", [2], [2, 4])])
    partition(f, c + "testEmptyDataTwoDimensional", T("float32", [2, 0], []),
              i32([2], [0, 1]), 3,
              [T("float32", [1, 0], []), T("float32", [1, 0], []), T("float32", [0, 0], [])])
    partition(f, c + "testEmptyPartitions", T("float32", [0], []), i32([0], []), 2,
              [T("float32", [0], []), T("float32", [0], [])])
    for name in ("testGPUTooManyParts", "testGPUPartsTooLarge", "testGPUAllIndicesBig"):
        not_ported(f, c + name, "GPU only (GPU kernels drop out-of-range partitions; the test "
                                "is also @unittest.skip)")
    partition(f, c + "testErrorIndexOutOfRange", i32([5, 3], range(15)),
              i32([5], [0, 2, 99, 2, 2]), 4,
              message=check_contains("partitions[2] = 99 is not in [0, 4)",
                                     r"partitions\[2\] = 99 is not in \[0, 4\)"))
    partition(f, c + "testScalarIndexOutOfRange", T("float64", [5], [0] * 5), i32([], [17]), 7,
              message=check_contains("partitions = 17 is not in [0, 7)",
                                     r"partitions = 17 is not in \[0, 7\)"))
    for i in range(2):
        for j in range(3):
            bad = [0] * 6
            bad[i * 3 + j] = 17
            msg = "partitions[%d,%d] = 17 is not in [0, 7)" % (i, j)
            partition(f, c + "testHigherRankIndexOutOfRange", T("float64", [2, 3, 5], [0] * 30),
                      i32([2, 3], bad), 7, variant="bad_%d_%d" % (i, j),
                      message=check_contains(
                          msg, r"partitions\[%d,%d\] = 17 is not in \[0, 7\)" % (i, j)))
    partition(f, c + "testErrorWrongDimsIndices", i32([3, 1], [0, 1, 2]), i32([2, 1], [0, 0]),
              4, message="data.shape must start with partitions.shape, got data.shape = "
                         "[3,1], partitions.shape = [2,1]",
              note="the test asserts only that an error is raised (ValueError from shape "
                   "inference); the message is the spec's kernel message")
    not_ported(f, c + "testCUBBug", "random data (np.random.randn); asserts only a shape")
    not_ported(f, c + "testMultiGPU", "GPU only (loops over GPU devices; asserts nothing "
                                      "without one)")


def dynamic_partition_op_test_cc():
    f = "dynamic_partition_op_test.cc"
    c = "DynamicPartitionOpTest."
    fl = lambda shape, data: T("float32", shape, data)  # noqa: E731
    partition(f, c + "Simple_OneD", fl([6], [0, 13, 2, 39, 4, 17]),
              i32([6], [0, 0, 2, 3, 2, 1]), 4,
              [fl([2], [0, 13]), fl([1], [17]), fl([2], [2, 4]), fl([1], [39])])
    partition(f, c + "Simple_TwoD", fl([6, 3], range(18)), i32([6], [0, 0, 2, 3, 2, 1]), 4,
              [fl([2, 3], [0, 1, 2, 3, 4, 5]), fl([1, 3], [15, 16, 17]),
               fl([2, 3], [6, 7, 8, 12, 13, 14]), fl([1, 3], [9, 10, 11])])
    partition(f, c + "SomeOutputsEmpty", fl([6], [0, 13, 2, 39, 4, 17]),
              i32([6], [0, 0, 2, 2, 0, 2]), 4,
              [fl([3], [0, 13, 4]), fl([0], []), fl([3], [2, 39, 17]), fl([0], [])])
    partition(f, c + "Error_IndexOutOfRange", fl([5, 3], range(15)),
              i32([5], [0, 2, 99, 2, 2]), 4,
              message=check_contains("partitions[2] = 99 is not in [0, 4)",
                                     re.escape("partitions[2] = 99 is not in [0, 4)")))


# ---------------------------------------------------------------------------------------------
# sparse_concat_op_test.py

def sparse(indices, values, shape, vdtype="float32"):
    """One SparseTensor of the test: (indices int64 [nnz, r], values [nnz], shape int64 [r])."""
    r = len(shape)
    return (T("int64", [len(indices), r], flatten(indices)),
            T(vdtype, [len(values)], values), T("int64", [r], shape))


def concat(file, name, sparse_inputs, concat_dim, result=None, message=None, code=None,
           variant="", note=""):
    inputs = {"indices": [s[0] for s in sparse_inputs], "values": [s[1] for s in sparse_inputs],
              "shapes": [s[2] for s in sparse_inputs]}
    if message is None:
        ind, val, shp = result
        expected = outputs(output_indices=ind, output_values=val, output_shape=shp)
    else:
        expected = error(message, code or "INVALID_ARGUMENT")
    return vector(file, name, "SparseConcat", inputs, expected,
                  attrs={"concat_dim": concat_dim}, variant=variant, note=note)


SP_A = ([[0, 2], [1, 0], [2, 0], [2, 2]], [1, 2, 3, 4], [3, 3])      # _SparseTensor_3x3
SP_B = ([[1, 1], [2, 0], [2, 3], [2, 4]], [1, 2, 1, 0], [3, 5])      # _SparseTensor_3x5
SP_C = ([[1, 0], [2, 0]], [1, 2], [3, 2])                            # _SparseTensor_3x2
SP_D = ([[0, 1], [1, 0], [1, 2]], [1, 1, 2], [2, 3])                 # _SparseTensor_2x3
SP_E = ([[0, 0, 1], [0, 1, 0], [0, 1, 2], [1, 0, 3], [1, 1, 1], [1, 1, 3], [1, 2, 2]],
        [1, 10, 12, 103, 111, 113, 122], [2, 3, 4])                  # _SparseTensor_2x3x4


def sparse_concat_op_test():
    f = "sparse_concat_op_test.py"
    c = "SparseConcatTest."
    A, B, C, D, E = (sparse(*s) for s in (SP_A, SP_B, SP_C, SP_D, SP_E))

    def result(indices, values, shape, vdtype="float32"):
        return sparse(indices, values, shape, vdtype)

    not_ported(f, c + "testConcat1", "a single input: the Python wrapper returns it without "
                                     "running the op (SparseConcat needs N >= 2)")
    for cd in (-1, 1):
        concat(f, c + "testConcat2", [A, B], cd,
               result([[0, 2], [1, 0], [1, 4], [2, 0], [2, 2], [2, 3], [2, 6], [2, 7]],
                      [1, 2, 1, 3, 4, 2, 1, 0], [3, 8]), variant="dim%d" % cd)
    for cd in (-2, 0):
        concat(f, c + "testConcatDim0", [A, D], cd,
               result([[0, 2], [1, 0], [2, 0], [2, 2], [3, 1], [4, 0], [4, 2]],
                      [1, 2, 3, 4, 1, 1, 2], [5, 3]), variant="dim%d" % cd)
    for cd in (-1, 1):
        concat(f, c + "testConcat3", [A, B, C], cd,
               result([[0, 2], [1, 0], [1, 4], [1, 8], [2, 0], [2, 2], [2, 3], [2, 6], [2, 7],
                       [2, 8]], [1, 2, 1, 1, 3, 4, 2, 1, 0, 2], [3, 10]), variant="dim%d" % cd)
    empty = lambda shape: sparse([], [], shape)  # noqa: E731  _SparseTensor_NoNonZeros
    concat(f, c + "testConcatNoNonZeros", [empty([2, 3, 4]), empty([2, 7, 4]), empty([2, 5, 4])],
           1, (T("int64", [0, 3], []), T("float32", [0], []), T("int64", [3], [2, 15, 4])))
    some = [empty([2, 7, 4]), E, empty([2, 5, 4])]
    concat(f, c + "testConcatSomeNoNonZeros", some, 1,
           result([[i, j + 7, k] for i, j, k in SP_E[0]], SP_E[1], [2, 15, 4]),
           note="expected indices = sp_b.indices + [0, 7, 0] (computed by the test), written "
                "out by hand")
    SA = sparse(SP_A[0], ["a", "b", "c", "d"], [3, 3], "string")
    SB = sparse(SP_B[0], ["e", "f", "g", "h"], [3, 5], "string")
    for cd in (-1, 1):
        concat(f, c + "testConcatNonNumeric", [SA, SB], cd,
               result([[0, 2], [1, 0], [1, 4], [2, 0], [2, 2], [2, 3], [2, 6], [2, 7]],
                      ["a", "b", "e", "c", "d", "f", "g", "h"], [3, 8], "string"),
               variant="dim%d" % cd)
    for cd in (-1, 1):
        concat(f, c + "testMismatchedRank", [A, E], cd, variant="dim%d" % cd,
               message="Ranks of all input tensors must match: expected 2 but got 3 at "
                       "position 1",
               note="the test asserts only that an error is raised (ValueError from shape "
                    "inference); the message is the spec's kernel message")
    not_ported(f, c + "testMismatchedRankExpandNonconcatDim",
               "the error comes from the Python wrapper's expand_nonconcat_dim helper ops "
               "(concat of the reshaped shapes), before SparseConcat is built")
    for cd in (-1, 1):
        concat(f, c + "testMismatchedShapes", [A, B, C, D], cd, variant="dim%d" % cd,
               message=check_contains("Input shapes must match: expected 3 for dimension 0 but "
                                      "got 2 at position 3", "Input shapes must match"))
    # expand_nonconcat_dim=True: the wrapper passes shapes = max over inputs on the other dims,
    # the input's own size on the concat dim (worked out by hand from sparse_ops.py).
    def expanded(s, shape):
        return (s[0], s[1], T("int64", [2], shape))
    note = ("expand_nonconcat_dim=True: SparseConcat receives the wrapper's expanded shapes "
            "(max of the inputs on the other dim, the input's own size on the concat dim), "
            "worked out by hand")
    dim0_in = [expanded(A, [3, 5]), expanded(B, [3, 5]), expanded(C, [3, 5]),
               expanded(D, [2, 5])]
    dim1_in = [expanded(A, [3, 3]), expanded(B, [3, 5]), expanded(C, [3, 2]),
               expanded(D, [3, 3])]
    for cd in (-2, 0):
        concat(f, c + "testMismatchedShapesExpandNonconcatDim", dim0_in, cd,
               result([[0, 2], [1, 0], [2, 0], [2, 2], [4, 1], [5, 0], [5, 3], [5, 4], [7, 0],
                       [8, 0], [9, 1], [10, 0], [10, 2]],
                      [1, 2, 3, 4, 1, 2, 1, 0, 1, 2, 1, 1, 2], [11, 5]),
               variant="dim%d" % cd, note=note)
    for cd in (-1, 1):
        concat(f, c + "testMismatchedShapesExpandNonconcatDim", dim1_in, cd,
               result([[0, 2], [0, 11], [1, 0], [1, 4], [1, 8], [1, 10], [1, 12], [2, 0],
                       [2, 2], [2, 3], [2, 6], [2, 7], [2, 8]],
                      [1, 1, 2, 1, 1, 1, 2, 3, 4, 2, 1, 0, 2], [3, 13]),
               variant="dim%d" % cd, note=note)
    not_ported(f, c + "testShapeInferenceUnknownShapes",
               "shape inference with placeholders (no values)")
    not_ported(f, c + "testConcatShape", "asserts only the statically inferred shape")
    not_ported(f, c + "testDivisionByZeroMalformedShape",
               "shapes ([0,1],[0,1]) and ([1,1],[1,0]) with index [0,0] in each "
               "input, axis 1: the test expects the error 'SparseTensor cannot have non-zero "
               "indices if dense shape has zero volume'; the spec says coordinates are not "
               "checked against the shapes, so SparseConcat succeeds", conflict=True)
    not_ported(f, c + "testLargeShapeOverflow",
               "shapes [2^62] and [2^62], axis 0: the test expects a message "
               "containing 'overflowed'; the spec's message is 'Concat dimension size "
               "overflows int64 at position 1' (a deviation), which does not contain it",
               conflict=True)
    not_ported(f, c + "testGPUInputVolumeOverflow", "GPU only (skips without a GPU)")
    not_ported(f, c + "testSparseConcatInputVolumeOverflowCrash",
               "shapes [1,d,d] or [1,1,d] with [1,d,d] (d = (2^63-1) // 11), axis 1: "
               "the test expects 'Encountered overflow when multiplying'; the spec's step 5 "
               "gives INTERNAL 'Encountered overflow from large input shape.' (the "
               "CVE-2021-29534 check), which does not contain it", conflict=True)
    not_ported(f, c + "testSparseConcatOutputVolumeOverflow",
               "shapes [1,10,d] and [1,2,d] (d = (2^63-1) // 11), axis 1: the test "
               "expects 'results in overflow when computing number of elements'; the spec's "
               "message is 'Encountered overflow when multiplying 12 with 838488366986797800, "
               "result: -8384883669867978016', which does not contain it", conflict=True)


# ---------------------------------------------------------------------------------------------
# TensorFlow Lite (tensorflow/lite/kernels): block_shape and paddings/crops are int32.

TFLITE_NOTE = ("TensorFlow Lite test; float data and valid input behave as in tf-cpu "
               "(block_shape and paddings/crops int32)")
TFLITE_ERROR_NOTE = ("TensorFlow Lite test expecting failure; TensorFlow also rejects the "
                     "input, so this is a tf-cpu vector with the spec's message")


def tflite_s2b(file, names, x_shape, x, block, pads, y_shape, y, dtype="float32"):
    for name in names:
        assert s2b_formula(x_shape, x, block, pads) == (y_shape, y), name
        vector(file, name, "SpaceToBatchND",
               {"input": T(dtype, x_shape, x), "block_shape": T("int32", [len(block)], block),
                "paddings": T("int32", [len(block), 2], flatten(pads))},
               outputs(output=T(dtype, y_shape, y)), note=TFLITE_NOTE)


def tflite_b2s(file, names, x_shape, x, block, crops, y_shape, y, dtype="float32"):
    for name in names:
        assert b2s_formula(x_shape, x, block, crops) == (y_shape, y), name
        vector(file, name, "BatchToSpaceND",
               {"input": T(dtype, x_shape, x), "block_shape": T("int32", [len(block)], block),
                "crops": T("int32", [len(block), 2], flatten(crops))},
               outputs(output=T(dtype, y_shape, y)), note=TFLITE_NOTE)


def space_to_batch_nd_test_cc():
    f = "space_to_batch_nd_test.cc"
    s = "SpaceToBatchNDOpTest."
    s2b_error(f, s + "InvalidShapeTest", Fill("float32", [1, 3, 3, 1], 0), [2, 2],
              [[0, 0], [0, 0]], "padded_shape[0]=3 is not divisible by block_shape[0]=2",
              block_dtype="int32", pads_dtype="int32", x_dtype="float32",
              note=TFLITE_ERROR_NOTE + "; the test sets no input data (zeros here); "
                   "TensorFlow Lite fails at 'Cannot allocate tensors'")
    r16 = list(range(1, 17))
    tflite_s2b(f, [s + "SimpleConstTest", s + "SimpleDynamicTest"], [1, 4, 4, 1], r16, [2, 2],
               [[0, 0], [0, 0]], [4, 2, 2, 1],
               [1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16])
    tflite_s2b(f, [s + "MultipleInputBatchesConstTest", s + "MultipleInputBatchesDynamicTest"],
               [2, 2, 4, 1], r16, [2, 2], [[0, 0], [0, 0]], [8, 1, 2, 1],
               [1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16])
    tflite_s2b(f, [s + "SimplePaddingConstTest", s + "SimplePaddingDynamicTest"],
               [1, 5, 2, 1], list(range(1, 11)), [3, 2], [[1, 0], [2, 0]], [6, 2, 2, 1],
               [0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 7, 0, 2, 0, 8, 0, 3, 0, 9, 0, 4, 0, 10])
    tflite_s2b(f, [s + "ComplexPaddingConstTest", s + "ComplexPaddingDynamicTest"],
               [1, 4, 2, 1], list(range(1, 9)), [3, 2], [[1, 1], [2, 4]], [6, 2, 4, 1],
               [0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0,
                0, 1, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 8, 0, 0,
                0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0])
    q = "QuantizedSpaceToBatchNDOpTest."
    not_ported(f, q + "ZeroNotInQuantizationRange",
               "death test of the test harness's quantization parameters, not of the op")
    for name in ("SimplePaddingConstTest", "SimplePaddingDynamicTest", "ComplexPaddingConstTest",
                 "ComplexPaddingDynamicTest"):
        not_ported(f, q + name,
                   "uint8 with scale/zero point from the range [-1, 1] (tflite profile: "
                   "padding with the zero point): the expectation is approximate (dequantized, "
                   "within (max-min)/255), the exact bytes are not stated, and a vector cannot "
                   "carry a scale or zero point")


def batch_to_space_nd_test_cc():
    f = "batch_to_space_nd_test.cc"
    s = "BatchToSpaceNDOpTest."
    r16 = list(range(1, 17))
    out = [1, 5, 2, 6, 9, 13, 10, 14, 3, 7, 4, 8, 11, 15, 12, 16]
    tflite_b2s(f, [s + "SimpleConstTest", s + "SimpleDynamicTest"], [4, 2, 2, 1], r16, [2, 2],
               [[0, 0], [0, 0]], [1, 4, 4, 1], out)
    tflite_b2s(f, [s + "SimpleConstTestInt8", s + "SimpleDynamicTestInt8"], [4, 2, 2, 1], r16,
               [2, 2], [[0, 0], [0, 0]], [1, 4, 4, 1], out, dtype="int8")
    tflite_b2s(f, [s + "BatchOneConstTest"], [1, 2, 2, 1], [1, 2, 3, 4], [1, 1],
               [[0, 0], [0, 0]], [1, 2, 2, 1], [1, 2, 3, 4])
    tflite_b2s(f, [s + "SimpleConstTestInt8EmptyOutput"], [4, 2, 2, 1], r16, [2, 2],
               [[0, 0], [2, 2]], [1, 4, 0, 1], [], dtype="int8")
    tflite_b2s(f, [s + "SimpleDynamicTestInt8EmptyOutput"], [4, 2, 2, 1], r16, [2, 2],
               [[2, 2], [0, 0]], [1, 0, 4, 1], [], dtype="int8")
    b2s_error(f, s + "InvalidCropsDynamicTest", T("float32", [4, 2, 2, 1], r16), [2, 2],
              [[0, 0], [-1, 0]], "Crops must be non-negative", block_dtype="int32",
              crops_dtype="int32", note=TFLITE_ERROR_NOTE)
    b2s_error(f, s + "InvalidShapeTest", Fill("float32", [3, 2, 2, 1], 0), [2, 2],
              [[0, 0], [0, 0]],
              "Input batch dimension (3) is not divisible by product of block sizes (4)",
              block_dtype="int32", crops_dtype="int32",
              note=TFLITE_ERROR_NOTE + "; the test sets no input data (zeros here)")
    b2s_error(f, s + "InvalidCropsConstTest", Fill("float32", [3, 2, 2, 1], 0), [2, 2],
              [[0, 0], [0, -1]],
              "Input batch dimension (3) is not divisible by product of block sizes (4)",
              block_dtype="int32", crops_dtype="int32",
              note=TFLITE_ERROR_NOTE + "; the test sets no input data (zeros here); TensorFlow "
                   "Lite reports the negative crop ('crops.i. >= 0 was not true.') while the "
                   "spec's order reports the batch divisibility first")
    tflite_b2s(f, [s + "Simple3DConstTest", s + "Simple3DDynamicTest"], [4, 4, 1], r16, [2],
               [[0, 0]], [2, 8, 1], [1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 8, 16])
    tflite_b2s(f, [s + "Simple3DConstTestWithCrops", s + "Simple3DDynamicTestWithCrops"],
               [4, 4, 1], r16, [2], [[1, 1]], [2, 6, 1],
               [9, 2, 10, 3, 11, 4, 13, 6, 14, 7, 15, 8])


# ---------------------------------------------------------------------------------------------
# XLA's tests (tensorflow/compiler/tests): valid input behaves as in tf-cpu (docs/contract/profiles.md
# lists XLA's differences: error checks only), so these are tf-cpu vectors; most repeat the
# kernel tests' cases and only add their tag.

XLA_TYPES = ("float32 only: _testPad loops over the XLA device's float_types (bfloat16 "
             "skipped); the other types (float16 with float16 paddings, float64) depend on the "
             "device and are left out")


def compiler_spacetobatch_op_test():
    f = "compiler/tests/spacetobatch_op_test.py"
    for name in ("testSmallInput2x2", "testSmallInput2x2Pad1x0", "testDepthInput2x2",
                 "testLargerInput2x2", "testBatchInput2x2", "testLargerInputBatch2x2"):
        not_ported(f, "SpaceToBatchTest." + name,
                   "legacy SpaceToBatch/BatchToSpace op (gen_array_ops, block_size attr), not "
                   "one of the six ops")
    e = "SpaceToBatchNDErrorHandlingTest."
    s2b_error(f, e + "testInvalidBlockShape", Fill("float32", [10, 20, 20], -3.5e35),
              [-10, -10], [[0, 0], [0, 0]],
              check_contains(
                  "All values in block_shape must be positive, got value, -10 at index 0.",
                  "block_shape must be positive"),
              block_dtype="int64", pads_dtype="int32", x_dtype="float32",
              tags=["advisory:TFSA-2022-076"])
    s2b_error(f, e + "testOutputSizeOutOfBounds", Fill("float32", [10, 19, 22], -3.5e35),
              [1879048192, 1879048192], [[0, 0], [0, 0]],
              check_contains("Negative output dimension size caused by overflow when "
                             "multiplying 10 and 3530822107858468864",
                             "Negative.* dimension size caused by overflow"),
              block_dtype="int64", pads_dtype="int32", x_dtype="float32",
              tags=["advisory:TFSA-2022-076"])

    def nd_pair(name, x, block, pads, y, variant="", **kw):
        dt = "int64" if block else "int32"
        s2b_pair(f, "SpaceToBatchNDTest." + name, "float32", x, block, pads, y,
                 block_dtype=dt, pads_dtype=dt, variant=variant, **kw)
        partial(f, "SpaceToBatchNDTest." + name, XLA_TYPES)

    space_to_batch_nd_small_cases(nd_pair)
    for i, (shape, block, pads) in enumerate(DIRECT_CASES):
        x = list(range(math.prod(shape)))
        y_shape, y = s2b_formula(shape, x, block, pads)
        nd_pair("testDirect%d" % i, x, block, pads, y, x_shape=shape, y_shape=y_shape,
                note="input np.arange; expected output from the spec's index formula")


def dynamic_stitch_test_xla():
    f = "dynamic_stitch_test.py"
    c = "DynamicStitchTest."
    op = "DynamicStitch"
    stitch(f, c + "testSimpleEmpty", op, [i32([2], [0, 2]), i32([2, 1], [1, 3])],
           [i32([2, 0], []), i32([2, 1, 0], [])], i32([4, 0], []))
    stitch(f, c + "testEmptyIndex", op, [i32([0], []), i32([2, 0], [])],
           [i32([0, 9], []), i32([2, 0, 9], [])], i32([0, 9], []))
    fl = lambda shape, data: T("float32", shape, data)  # noqa: E731
    stitch(f, c + "testSimple1D", op, [i32([3], [0, 4, 7]), i32([5], [1, 6, 2, 3, 5])],
           [fl([3], [0, 40, 70]), fl([5], [10, 60, 20, 30, 50])],
           fl([8], [0, 10, 20, 30, 40, 50, 60, 70]))
    stitch(f, c + "testSimple2D", op,
           [i32([3], [0, 4, 7]), i32([2], [1, 6]), i32([3], [2, 3, 5])],
           [fl([3, 2], [0, 1, 40, 41, 70, 71]), fl([2, 2], [10, 11, 60, 61]),
            fl([3, 2], [20, 21, 30, 31, 50, 51])],
           fl([8, 2], [0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 60, 61, 70, 71]))


# ---------------------------------------------------------------------------------------------
# Output: the vector files and corpus/tf-tests.md.

MD_HEAD = """# TensorFlow's own tests as conformance vectors

Every test case in TensorFlow's test files for SpaceToBatchND, BatchToSpaceND, DynamicStitch,
ParallelDynamicStitch, DynamicPartition and SparseConcat, and what became of it. A ported
case is a vector under `vectors/<op>/tf-tests/` tagged `tf-test:<file>:<test>` (format:
[README.md](README.md)). Generated with the table below by `tools/tf_tests.py` (standard
library only; `--check` verifies the files on disk). SpaceToDepth's and DepthToSpace's tests
(`spacetodepth_op_test.py`, `depthtospace_op_test.py`) are ported the same way by
`tools/space_to_depth_vectors.py`, into `vectors/space_to_depth/tf-tests/` and
`vectors/depth_to_space/tf-tests/`.

Rules followed:
- Inputs and expected results are the tests' literals. Where a test computes its expectation
  at run time (a NumPy helper, another op), the expectation comes from the spec's documented
  index formula (`s2b_formula`/`b2s_formula` in the generator, checked against every literal
  case of both ops first); never from our kernels.
- TensorFlow's tests assert an exception type or a substring; the exact message is the spec's
  (`../docs/contract/`), and the generator checks that each asserted substring is inside it.
- A case stated by several tests (e.g. a TFLite `...ConstTest` and `...DynamicTest`, or the
  same data in the C++ and Python tests) is one file carrying every test's tag.
- dtypes: Python ints are int32, `np.array` of Python ints is int64, the v1 wrappers
  `space_to_batch`/`batch_to_space` pass `block_shape` as int64; an empty `np.array([])`
  reaches SpaceToBatchND/BatchToSpaceND as int32 (the attrs' default).
- **CONFLICT** rows: TensorFlow's test and the spec disagree; nothing was ported, the row
  says why.

- XLA's tests (`tensorflow/compiler/tests/`) and TensorFlow Lite's float tests with valid
  input behave as TensorFlow's CPU kernels do, so they are `tf-cpu` vectors; so are the TFLite
  tests that expect a failure TensorFlow also reports (with the spec's message).

Not covered: the C++ benchmarks in the kernel test files; shape-function tests
(`tensorflow/core/ops/*_test.cc`), which test inference on partly known shapes, not the ops.
There are no XLA tests of DynamicPartition or SparseConcat.
"""


def status_of(t):
    if t.vectors:
        return "ported" + (" (partly)" if t.partial else "")
    return "CONFLICT" if t.conflict else "not portable"


def write_markdown():
    lines = [MD_HEAD, "## Summary", "",
             "| file | tests | ported | not portable | conflict | vectors | non-tf-cpu |",
             "|---|---|---|---|---|---|---|"]
    per_file = {}
    for t in TESTS.values():
        per_file.setdefault(t.file, []).append(t)
    totals = [0] * 6
    for file, tests in per_file.items():
        names = sorted({v for t in tests for v in t.vectors})
        row = [len(tests), sum(1 for t in tests if t.vectors),
               sum(1 for t in tests if not t.vectors and not t.conflict),
               sum(1 for t in tests if not t.vectors and t.conflict), len(names),
               sum(1 for v in names if VECTORS[v].get("profile", "tf-cpu") != "tf-cpu")]
        totals = [a + b for a, b in zip(totals, row)]
        lines.append("| `%s` | %s |" % (file, " | ".join(map(str, row))))
    lines.append("| **all** | %s |" % " | ".join("**%d**" % x for x in totals))
    lines.append("")
    lines.append("(A vector shared by tests of two files counts in both.)")
    for file, tests in per_file.items():
        path, commit = FILES[file]
        lines += ["", "## `%s`" % file, "",
                  "`%s`, version read: commit `%s`." % (path, commit), "",
                  "| test | status | vectors | notes |", "|---|---|---|---|"]
        for t in tests:
            notes = t.not_ported or t.partial or ""
            lines.append("| `%s` | %s | %d | %s |" % (t.name, status_of(t), len(t.vectors),
                                                     notes.replace("|", "\\|")))
    return "\n".join(lines) + "\n"


def vector_text(body):
    body = {k: v for k, v in body.items() if not k.startswith("_")}
    return to_json(body) + "\n"


def build():
    spacetobatch_op_test()
    batchtospace_op_test()
    dynamic_stitch_op_test_py()
    dynamic_partition_op_test_py()
    sparse_concat_op_test()
    dynamic_stitch_op_test_cc()
    dynamic_partition_op_test_cc()
    space_to_batch_nd_test_cc()
    batch_to_space_nd_test_cc()
    compiler_spacetobatch_op_test()
    dynamic_stitch_test_xla()
    files = {}
    for name, body in VECTORS.items():
        rel = os.path.join("vectors", body["_folder"], "tf-tests", name + ".json")
        files[rel] = vector_text(body)
    files["tf-tests.md"] = write_markdown()
    return files


def validate(rel, text):
    """Reads a written vector back with the json module and checks what the format requires."""
    v = json.loads(text)
    assert v["format"] == "opconform-vector/1" and v["op"] in OP_FOLDER, rel
    assert any(t.startswith("tf-test:") for t in v["tags"]), rel

    def check_tensor(t, where):
        assert t["dtype"] in DTYPES, where
        n = math.prod(int(d) for d in t["shape"])
        assert ("data" in t) != ("fill" in t), where
        if "data" in t:
            assert len(t["data"]) == n, (where, len(t["data"]), n)

    def walk(obj, where):
        for k, val in obj.items():
            for i, t in enumerate(val if isinstance(val, list) else [val]):
                check_tensor(t, "%s: %s.%s[%d]" % (rel, where, k, i))

    walk(v["inputs"], "inputs")
    if "outputs" in v["expected"]:
        walk(v["expected"]["outputs"], "expected.outputs")
    else:
        assert set(v["expected"]["error"]) == {"code", "message"}, rel


def main():
    files = build()
    for rel, text in files.items():
        if rel.endswith(".json"):
            validate(rel, text)
    folders = [os.path.join(ROOT, "vectors", f, "tf-tests") for f in OP_FOLDER.values()]
    on_disk = {}
    for folder in folders:
        if os.path.isdir(folder):
            for name in os.listdir(folder):
                if name.endswith(".json"):
                    rel = os.path.relpath(os.path.join(folder, name), ROOT)
                    with open(os.path.join(folder, name), encoding="utf-8") as fh:
                        on_disk[rel] = fh.read()
    md = os.path.join(ROOT, "tf-tests.md")
    if os.path.exists(md):
        with open(md, encoding="utf-8") as fh:
            on_disk["tf-tests.md"] = fh.read()
    if "--check" in sys.argv[1:]:
        stale = sorted(set(on_disk) ^ set(files) |
                       {r for r in files if r in on_disk and on_disk[r] != files[r]})
        for rel in stale:
            print("differs: corpus/" + rel)
        print("%d files checked, %d differ" % (len(files), len(stale)))
        return 1 if stale else 0
    for rel in set(on_disk) - set(files):
        os.remove(os.path.join(ROOT, rel))
    for rel, text in files.items():
        path = os.path.join(ROOT, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    print("wrote %d vectors and tf-tests.md" % (len(files) - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
