#!/usr/bin/env python3
"""A DynamicStitch implementation speaking opconform's subprocess protocol (docs/plugin-abi.md),
standard library only: the model for Python or Node adapters, and the validator's exec: fake.
It declares float32/int32 data and int32 indices. Elements are moved as their JSON values, so
bit patterns ("nan", "0x...") survive. A case whose data holds the element 1313 gets a malformed
answer (the validator must record a fault and carry on)."""
import json
import sys


def read_message(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    return json.loads(stream.read(int.from_bytes(head, "little")))


def write_raw(stream, body):
    stream.write(len(body).to_bytes(4, "little") + body)
    stream.flush()


def write_message(stream, obj):
    write_raw(stream, json.dumps(obj).encode())


def elements(tensor):
    count = 1
    for d in tensor["shape"]:
        count *= int(d)
    return [tensor["fill"]] * count if "fill" in tensor else tensor["data"]


def stitch(case):
    indices, data = case["inputs"]["indices"], case["inputs"]["data"]
    invalid = lambda text: {"error": {"code": "INVALID_ARGUMENT", "message": text}}
    if len(indices) != len(data):
        return invalid("list lengths differ")
    if any(t["dtype"] != "int32" for t in indices) or len({t["dtype"] for t in data}) > 1:
        return invalid("argument types")
    dtype = data[0]["dtype"] if data else "float32"
    if dtype not in ("float32", "int32"):
        return {"error": {"code": "UNIMPLEMENTED", "message": "dtype " + dtype}}
    flat = [[int(v) for v in elements(t)] for t in indices]
    if any(v < 0 for values in flat for v in values):
        return invalid("negative index")
    trailing = None
    for idx, dat in zip(indices, data):
        rank = len(idx["shape"])
        if [int(d) for d in dat["shape"][:rank]] != [int(d) for d in idx["shape"]]:
            return invalid("data shape does not start with indices shape")
        rest = [int(d) for d in dat["shape"][rank:]]
        if trailing is not None and rest != trailing:
            return invalid("trailing shapes differ")
        trailing = rest
    trailing = trailing or []
    row = 1
    for d in trailing:
        row *= d
    rows = max([v for values in flat for v in values], default=-1) + 1
    if 64 + rows * row * 4 > int(case.get("memory_limit", 1 << 32)):
        return {"error": {"code": "RESOURCE_EXHAUSTED", "message": "over the memory limit"}}
    merged = [0] * (rows * row)
    for values, dat in zip(flat, data):
        source = elements(dat)
        for i, v in enumerate(values):
            merged[v * row:(v + 1) * row] = source[i * row:(i + 1) * row]
    return {"outputs": {"merged": {"dtype": dtype, "shape": [rows] + trailing, "data": merged}}}


def main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    hello = read_message(stdin)
    if hello is None or hello.get("type") != "hello":
        return 2
    write_message(stdout, {"type": "manifest", "protocol": 1, "name": "python stitch (test fake)",
                           "profile": "tf-cpu",
                           "ops": [{"op": "DynamicStitch", "dtypes": ["float32", "int32"],
                                    "param_dtypes": ["int32"]}]})
    while True:
        request = read_message(stdin)
        if request is None:
            return 0
        case = request["case"]
        if any(1313 in elements(t) for t in case["inputs"].get("data", [])):
            write_raw(stdout, b"this is not JSON")
            continue
        answer = stitch(case)
        answer.update({"type": "result", "id": request["id"]})
        write_message(stdout, answer)


if __name__ == "__main__":
    sys.exit(main())
