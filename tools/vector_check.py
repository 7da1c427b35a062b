#!/usr/bin/env python3
"""An independent reader of conformance vectors (corpus/README.md is the format) that uses only
Python's standard library: it loads every vector with the json module, checks its structure,
checks every data length against its shape and decodes every element of every dtype to its
bits. Problems are reported as "<file>: <field path>: <problem>", as the C++ reader does.

usage: vector_check.py [--dump-bits] [--ops OPS_JSON] PATH...   (files, or folders searched for *.json)
exit status: 0 when every vector is fine, 1 when any has a problem, 2 on bad usage.
--dump-bits prints every tensor's elements as hex bits (strings as hex bytes), for comparing
this reader with the C++ one. The ops and their signatures come from the registry's export,
corpus/ops.json (`opconform ops --json`), or the file --ops names.
"""

import json
import math
import os
import sys

FORMAT = "opconform-vector/1"
MAX_DIMS = 254
MAX_FILL_ELEMENTS = 1 << 28  # the C++ reader's limit (conformance/vector.h, ReadLimits)

DEFAULT_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "ops.json")


def load_signatures(path):
    """op -> (inputs, int attrs, string attrs, outputs), an input/output as (name, is_list)."""
    with open(path, encoding="utf-8") as f:
        registry = json.load(f)
    if registry.get("format") != "opconform-ops/1":
        raise SystemExit(f"vector_check.py: {path} is not an opconform-ops/1 file")
    slots = lambda items: [(s["name"], s["list"]) for s in items]
    return {op["name"]: (slots(op["inputs"]), [a["name"] for a in op["attrs"] if a["type"] == "int"],
                         [a["name"] for a in op["attrs"] if a["type"] == "string"], slots(op["outputs"]))
            for op in registry["ops"]}


SIGNATURES = {}
TOP_FIELDS = {"format", "op", "attrs", "inputs", "expected", "alternatives", "memory_limit", "profile", "tags",
              "provenance", "name"}
CODES = {"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED", "INTERNAL"}
PROFILES = {"tf-cpu", "xla", "tflite"}

INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1), "qint8": (-2**7, 2**7 - 1),
    "quint8": (0, 2**8 - 1), "qint32": (-2**31, 2**31 - 1),
}
FLOAT_FORMATS = {"float16": (5, 10), "bfloat16": (8, 7), "float32": (8, 23), "float64": (11, 52)}
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
DTYPES = set(INT_RANGES) | set(FLOAT_FORMATS) | set(COMPLEX_PARTS) | {"bool", "string"}


class Problem(Exception):
    def __init__(self, path, message):
        super().__init__(message)
        self.path = path


def field(path, key):
    return key if not path else f"{path}.{key}"


def item(path, i):
    return f"{path}[{i}]"


def describe(value):
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


# ---- elements -------------------------------------------------------------------------------

def parse_decimal(text):
    """A decimal integer in its one canonical spelling, or None."""
    digits = text[1:] if text.startswith("-") else text
    if not digits or len(digits) > 20 or not all("0" <= c <= "9" for c in digits):
        return None
    if digits[0] == "0" and (len(digits) > 1 or text.startswith("-")):
        return None
    return int(text)


def read_integer(value, path):
    if isinstance(value, bool):
        raise Problem(path, f"expected an integer, got {describe(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        parsed = parse_decimal(value)
        if parsed is None:
            raise Problem(path, f"expected an integer or a decimal string, got {describe(value)}")
        return parsed
    raise Problem(path, f"expected an integer, got {describe(value)}")


def round_to_format(x, exponent_bits, fraction_bits):
    """The bits of float x rounded to the format, nearest with ties to even (exact arithmetic)."""
    width = 1 + exponent_bits + fraction_bits
    sign = 1 << (width - 1) if math.copysign(1.0, x) < 0 else 0
    exponent_mask = ((1 << exponent_bits) - 1) << fraction_bits
    if math.isnan(x):
        return sign | exponent_mask | (1 << (fraction_bits - 1))
    if math.isinf(x):
        return sign | exponent_mask
    if x == 0:
        return sign
    mantissa, exponent = math.frexp(abs(x))  # |x| = mantissa * 2^exponent, 0.5 <= mantissa < 1
    significand, exponent = int(mantissa * (1 << 53)), exponent - 53  # exact
    bias = (1 << (exponent_bits - 1)) - 1
    quantum = max(exponent + significand.bit_length() - 1 - fraction_bits, 1 - bias - fraction_bits)
    shift = quantum - exponent
    if shift <= 0:
        rounded = significand << -shift
    else:
        rounded, remainder, half = significand >> shift, significand & ((1 << shift) - 1), 1 << (shift - 1)
        if remainder > half or (remainder == half and rounded & 1):
            rounded += 1
    if rounded == 1 << (fraction_bits + 1):
        rounded, quantum = rounded >> 1, quantum + 1
    if rounded < 1 << fraction_bits:
        return sign | rounded  # subnormal or zero
    biased = quantum + bias + fraction_bits
    if biased >= (1 << exponent_bits) - 1:
        return sign | exponent_mask
    return sign | (biased << fraction_bits) | (rounded & ((1 << fraction_bits) - 1))


def read_float_bits(value, path, dtype):
    exponent_bits, fraction_bits = FLOAT_FORMATS[dtype]
    width = 1 + exponent_bits + fraction_bits
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            raise Problem(path, f"{describe(value)} is beyond the double range (spell it \"inf\")")
        return round_to_format(number, exponent_bits, fraction_bits)
    if isinstance(value, str):
        if value == "inf":
            return round_to_format(math.inf, exponent_bits, fraction_bits)
        if value == "-inf":
            return round_to_format(-math.inf, exponent_bits, fraction_bits)
        if value == "nan":
            return round_to_format(math.nan, exponent_bits, fraction_bits)
        digits = value[2:]
        if value.startswith("0x") and 0 < len(digits) <= width // 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
            return int(digits, 16)
    raise Problem(path, f"expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most "
                        f"{width // 4} hex digits, got {describe(value)}")


def element_bits(value, path, dtype):
    """One element decoded to its bits: an int, a (real, imaginary) pair, or bytes."""
    if dtype in INT_RANGES:
        v = read_integer(value, path)
        low, high = INT_RANGES[dtype]
        if not low <= v <= high:
            raise Problem(path, f"{v} is out of range for {dtype}")
        return v
    if dtype == "bool":
        if not isinstance(value, bool):
            raise Problem(path, f"expected true or false, got {describe(value)}")
        return int(value)
    if dtype in FLOAT_FORMATS:
        return read_float_bits(value, path, dtype)
    if dtype in COMPLEX_PARTS:
        if not isinstance(value, list) or len(value) != 2:
            raise Problem(path, f"expected [real, imaginary], got {describe(value)}")
        part = COMPLEX_PARTS[dtype]
        return (read_float_bits(value[0], item(path, 0), part), read_float_bits(value[1], item(path, 1), part))
    # string
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            raise Problem(path, "a lone surrogate is not UTF-8 (use {\"hex\": ...})")
    if isinstance(value, dict):
        known_fields(value, path, {"hex"})
        text = required(value, path, "hex")
        if not isinstance(text, str) or len(text) % 2 or not all(c in "0123456789abcdefABCDEF" for c in text):
            raise Problem(field(path, "hex"), "expected an even number of hex digits")
        return bytes.fromhex(text)
    raise Problem(path, f"expected a string or {{\"hex\": ...}}, got {describe(value)}")


# ---- structure ------------------------------------------------------------------------------

def expect_object(value, path):
    if not isinstance(value, dict):
        raise Problem(path, f"expected an object, got {describe(value)}")


def known_fields(value, path, known):
    expect_object(value, path)
    for key in value:
        if key not in known:
            raise Problem(field(path, key), "unknown field")


def required(value, path, key):
    if key not in value:
        raise Problem(path, f"missing field \"{key}\"")
    return value[key]


def read_string(value, path):
    if not isinstance(value, str):
        raise Problem(path, f"expected a string, got {describe(value)}")
    return value


def shape_string(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class Tensor:
    def __init__(self, dtype, shape, elements):
        self.dtype, self.shape, self.elements = dtype, shape, elements  # elements: bits, or ("fill", bits)

    def dim0(self):
        return self.shape[0]

    def rank(self):
        return len(self.shape)


def read_shape(value, path):
    if not isinstance(value, list):
        raise Problem(path, f"expected an array of dims, got {describe(value)}")
    if len(value) > MAX_DIMS:
        raise Problem(path, f"rank {len(value)} exceeds {MAX_DIMS}")
    shape = []
    for i, d in enumerate(value):
        dim = read_integer(d, item(path, i))
        if dim > 2**63 - 1:
            raise Problem(item(path, i), f"{dim} is out of range for a dim")
        if dim < 0:
            raise Problem(item(path, i), f"negative dim {dim}")
        shape.append(dim)
    count = 1
    for d in shape:
        count *= d
        if count > 2**63 - 1:  # TensorFlow's checked multiply: overflow is an error even before a 0
            raise Problem(path, f"the element count of {shape_string(shape)} overflows int64")
    return shape


def element_count(shape):
    count = 1
    for d in shape:
        count *= d
    return count


def read_tensor(value, path):
    known_fields(value, path, {"dtype", "shape", "data", "fill"})
    dtype = read_string(required(value, path, "dtype"), field(path, "dtype"))
    if dtype not in DTYPES:
        raise Problem(field(path, "dtype"), f"unknown dtype \"{dtype}\"")
    shape = read_shape(required(value, path, "shape"), field(path, "shape"))
    count = element_count(shape)
    if "data" in value and "fill" in value:
        raise Problem(path, "has both \"data\" and \"fill\"")
    if "data" in value:
        data, data_path = value["data"], field(path, "data")
        if not isinstance(data, list):
            raise Problem(data_path, f"expected an array of elements, got {describe(data)}")
        if len(data) != count:
            raise Problem(data_path, f"{len(data)} elements for shape {shape_string(shape)} (needs {count})")
        return Tensor(dtype, shape, [element_bits(e, item(data_path, i), dtype) for i, e in enumerate(data)])
    if "fill" not in value:
        raise Problem(path, "missing field \"data\" (or \"fill\")")
    bits = element_bits(value["fill"], field(path, "fill"), dtype)
    if count > MAX_FILL_ELEMENTS:
        raise Problem(field(path, "fill"), f"filling {shape_string(shape)} exceeds the C++ reader's limit of {MAX_FILL_ELEMENTS} elements")
    return Tensor(dtype, shape, ("fill", bits))


def read_values(value, path, slots, what):
    expect_object(value, path)
    names = [name for name, _ in slots]
    for key in value:
        if key not in names:
            raise Problem(field(path, key), f"not an {what} of this op (expected {', '.join(names)})")
    values = {}
    for name, is_list in slots:
        v, p = required(value, path, name), field(path, name)
        if is_list:
            if not isinstance(v, list):
                raise Problem(p, f"expected an array of tensors (a list argument), got {describe(v)}")
            values[name] = [read_tensor(t, item(p, i)) for i, t in enumerate(v)]
        else:
            if isinstance(v, list):
                raise Problem(p, "expected one tensor, got a list")
            values[name] = read_tensor(v, p)
    return values


def rule_output(rule, path, key, outputs):
    name = read_string(required(rule, path, key), field(path, key))
    if name not in outputs:
        raise Problem(field(path, key), f"no output named \"{name}\"")
    t = outputs[name]
    if not isinstance(t, Tensor) or t.rank() < 1:
        raise Problem(field(path, key), f"\"{name}\" is not a single tensor of rank >= 1")
    return name, t


def read_rule(rule, path, outputs):
    expect_object(rule, path)
    kind = read_string(required(rule, path, "rule"), field(path, "rule"))
    if kind == "permutation_within_equal_keys":
        known_fields(rule, path, {"rule", "keys", "values"})
        _, keys = rule_output(rule, path, "keys", outputs)
        _, values = rule_output(rule, path, "values", outputs)
        if keys.dim0() != values.dim0():
            raise Problem(path, f"keys and values differ in dim 0 ({keys.dim0()} vs {values.dim0()})")
        return
    if kind != "one_of_rows":
        raise Problem(field(path, "rule"), f"unknown rule \"{kind}\" (one_of_rows, permutation_within_equal_keys)")
    known_fields(rule, path, {"rule", "output", "rows"})
    name, output = rule_output(rule, path, "output", outputs)
    row_shape = output.shape[1:]
    row_size = element_count(row_shape)
    rows_path = field(path, "rows")
    rows = required(rule, path, "rows")
    expect_object(rows, rows_path)
    for key, alternatives in rows.items():
        row_path = field(rows_path, key)
        row = parse_decimal(key)
        if row is None or not 0 <= row < output.dim0():
            raise Problem(row_path, f"not a row of {name} (0 to {output.dim0() - 1})")
        if not isinstance(alternatives, list):
            raise Problem(row_path, f"expected an array of alternatives, got {describe(alternatives)}")
        for a, data in enumerate(alternatives):
            data_path = item(row_path, a)
            if not isinstance(data, list):
                raise Problem(data_path, f"expected an array of elements, got {describe(data)}")
            if len(data) != row_size:
                raise Problem(data_path, f"{len(data)} elements for a row of shape {shape_string(row_shape)} (needs {row_size})")
            for i, e in enumerate(data):
                element_bits(e, item(data_path, i), output.dtype)


def read_profile(value, path):
    profile = read_string(value, path)
    if profile not in PROFILES:
        raise Problem(path, f"unknown profile \"{profile}\" (tf-cpu, xla, tflite)")
    return profile


def read_outcome(outcome, path, outputs_sig):
    """An allowed outcome ("expected", "alternatives[0].outcome"); returns (outputs or None, rules)."""
    known_fields(outcome, path, {"outputs", "error", "unspecified"})
    if "outputs" in outcome and "error" in outcome:
        raise Problem(path, "has both \"outputs\" and \"error\"")
    if "error" in outcome:
        if "unspecified" in outcome:
            raise Problem(field(path, "unspecified"), "only goes with \"outputs\"")
        error_path = field(path, "error")
        error = outcome["error"]
        known_fields(error, error_path, {"code", "message"})
        code = read_string(required(error, error_path, "code"), field(error_path, "code"))
        if code not in CODES:
            raise Problem(field(error_path, "code"), f"unknown error code \"{code}\"")
        read_string(required(error, error_path, "message"), field(error_path, "message"))
        return None, []
    if "outputs" not in outcome:
        raise Problem(path, "missing field \"outputs\" (or \"error\")")
    outputs = read_values(outcome["outputs"], field(path, "outputs"), outputs_sig, "output")
    rules = outcome.get("unspecified", [])
    if not isinstance(rules, list):
        raise Problem(field(path, "unspecified"), f"expected an array of rules, got {describe(rules)}")
    for i, rule in enumerate(rules):
        read_rule(rule, item(field(path, "unspecified"), i), outputs)
    return outputs, rules


def read_vector(root):
    """Checks one parsed vector; returns its named tensors (for --dump-bits)."""
    if not isinstance(root, dict):
        raise Problem("", f"expected a JSON object, got {describe(root)}")
    known_fields(root, "", TOP_FIELDS)
    fmt = read_string(required(root, "", "format"), "format")
    if fmt != FORMAT:
        raise Problem("format", f"expected \"{FORMAT}\", got \"{fmt}\"")
    op = read_string(required(root, "", "op"), "op")
    if op not in SIGNATURES:
        raise Problem("op", f"unknown op \"{op}\"")
    inputs_sig, attrs_sig, string_attrs_sig, outputs_sig = SIGNATURES[op]
    if "attrs" in root or attrs_sig or string_attrs_sig:
        attrs = required(root, "", "attrs")
        expect_object(attrs, "attrs")
        for key in attrs:
            if key not in attrs_sig and key not in string_attrs_sig:
                raise Problem(field("attrs", key), f"not an attribute of {op}")
        for name in attrs_sig:
            v = read_integer(required(attrs, "attrs", name), field("attrs", name))
            if not -2**63 <= v <= 2**63 - 1:
                raise Problem(field("attrs", name), f"{v} is out of range for int64")
        for name in string_attrs_sig:
            read_string(required(attrs, "attrs", name), field("attrs", name))
    tensors = {"inputs": read_values(required(root, "", "inputs"), "inputs", inputs_sig, "input")}
    expected_outputs, rules = read_outcome(required(root, "", "expected"), "expected", outputs_sig)
    if expected_outputs is not None:
        tensors["expected.outputs"] = expected_outputs
    alternatives = root.get("alternatives")
    if alternatives is not None:
        if not isinstance(alternatives, list) or not alternatives:
            raise Problem("alternatives", f"expected a non-empty array of alternatives, got {describe(alternatives)}")
        for i, alternative in enumerate(alternatives):
            path = item("alternatives", i)
            known_fields(alternative, path, {"profiles", "outcome", "why"})
            profiles = required(alternative, path, "profiles")
            if not isinstance(profiles, list) or not profiles:
                raise Problem(field(path, "profiles"), f"expected a non-empty array of profiles, got {describe(profiles)}")
            for k, profile in enumerate(profiles):
                read_profile(profile, item(field(path, "profiles"), k))
                if profile in profiles[:k]:
                    raise Problem(item(field(path, "profiles"), k), f"profile \"{profile}\" listed twice")
            outputs, _ = read_outcome(required(alternative, path, "outcome"), field(path, "outcome"), outputs_sig)
            if outputs is not None:
                tensors[field(path, "outcome.outputs")] = outputs
            if not read_string(required(alternative, path, "why"), field(path, "why")):
                raise Problem(field(path, "why"), "empty (cite the contract)")
    if "memory_limit" in root:
        limit = read_integer(root["memory_limit"], "memory_limit")
        if not 0 <= limit <= 2**63 - 1:
            raise Problem("memory_limit", f"must be >= 0, got {limit}" if limit < 0 else f"{limit} is out of range for int64")
    if "profile" in root:
        read_profile(root["profile"], "profile")
    tags = root.get("tags", [])
    if not isinstance(tags, list):
        raise Problem("tags", f"expected an array of strings, got {describe(tags)}")
    for i, tag in enumerate(tags):
        read_string(tag, item("tags", i))
    if rules and "unspecified" not in tags:
        raise Problem("tags", "a vector with expected.unspecified carries the tag \"unspecified\"")
    if alternatives and "deviation" not in tags and "quirk" not in tags:
        raise Problem("tags", "a vector with alternatives carries the tag \"deviation\" or \"quirk\"")
    for key in ("provenance", "name"):
        if key in root:
            read_string(root[key], key)
    return tensors


# ---- files ----------------------------------------------------------------------------------

def reject_constant(name):
    raise ValueError(f"{name} is not JSON (spell it \"nan\", \"inf\" or \"-inf\")")


def finite_float(text):
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is beyond the double range (spell it \"inf\")")
    return value


def no_duplicate_keys(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key \"{key}\"")
        result[key] = value
    return result


def load(path):
    """Parses one file; raises Problem with an empty field path for file-level problems."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Problem("", f"cannot read: {e.strerror}")
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=reject_constant, parse_float=finite_float,
                          object_pairs_hook=no_duplicate_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise Problem("", f"invalid JSON: {e}")


def format_bits(tensor):
    def one(bits):
        if isinstance(bits, tuple):
            return "(" + ",".join(f"{b:x}" for b in bits) + ")"
        if isinstance(bits, bytes):
            return "'" + bits.hex() + "'"
        return f"{bits & (2**64 - 1):x}" if isinstance(bits, int) else str(bits)
    if isinstance(tensor.elements, tuple):
        return f"fill {one(tensor.elements[1])}"
    return " ".join(one(b) for b in tensor.elements)


def dump_bits(path, tensors):
    for group, values in tensors.items():
        for name, value in sorted(values.items()):
            for i, t in enumerate(value if isinstance(value, list) else [value]):
                label = f"{name}[{i}]" if isinstance(value, list) else name
                print(f"{path} {group}.{label} {t.dtype} {shape_string(t.shape)} {format_bits(t)}")


def collect(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for folder, _, names in os.walk(path):
                found += [os.path.join(folder, n) for n in names if n.endswith(".json")]
            files += sorted(found)
        else:
            files.append(path)
    return files


def main(argv):
    dump = "--dump-bits" in argv
    argv = [a for a in argv if a != "--dump-bits"]
    ops = DEFAULT_OPS
    if "--ops" in argv:
        i = argv.index("--ops")
        if i + 1 >= len(argv):
            print(__doc__.strip(), file=sys.stderr)
            return 2
        ops = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    paths = argv
    if not paths or any(p.startswith("-") for p in paths):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    SIGNATURES.update(load_signatures(ops))
    sys.stdout.reconfigure(errors="backslashreplace")  # messages may quote lone surrogates
    files = collect(paths)
    problems = 0
    for path in files:
        try:
            tensors = read_vector(load(path))
            if dump:
                dump_bits(path, tensors)
        except Problem as p:
            problems += 1
            print(f"{path}: {p.path + ': ' if p.path else ''}{p}")
        except RecursionError:
            problems += 1
            print(f"{path}: nested too deeply")
    print(f"vector_check.py: {len(files)} files, {problems} with problems")
    if not files:
        print("vector_check.py: no vectors found", file=sys.stderr)
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
