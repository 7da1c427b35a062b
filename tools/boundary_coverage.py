#!/usr/bin/env python3
"""Checks that the bundled vectors hold both sides of every range check of the ops.

A kernel whose range check is off by one (`p > num_partitions` for `p >= num_partitions`, a
missing `=` in `cropped >= 0`, ...) passes every vector that stays away from the edge. For each
check below, the corpus must hold a vector exactly at the edge on the failing side (the check's
error) and one on the passing side. Prints the edges without a vector and exits 1 if there is one.

    python3 tools/boundary_coverage.py corpus/vectors
Standard library only.
"""
import glob
import json
import os
import sys


def ints(t):
    if t is None or t["dtype"] not in ("int32", "int64"):
        return []
    if "fill" in t:
        return [int(t["fill"])]
    return [int(x) for x in t["data"]]


def shape(t):
    return [int(d) for d in t["shape"]]


def internal_dims(block, pairs):
    trivial = [block[i] == 1 and pairs[2 * i] == 0 and pairs[2 * i + 1] == 0 for i in range(len(block))]
    first, last = 0, len(block) - 1
    while first < len(block) and trivial[first]:
        first += 1
    while last >= first and trivial[last]:
        last -= 1
    return last - first + 1


def partition_edges(v, ok, msg):
    k = int(v.get("attrs", {}).get("num_partitions", 0))
    p = ints(v["inputs"]["partitions"])
    out_of_range = "is not in [0," in msg
    yield "DynamicPartition partition == num_partitions: error", out_of_range and k in p
    yield "DynamicPartition partition == num_partitions - 1: ok", ok and bool(p) and max(p) == k - 1
    yield "DynamicPartition partition == -1: error", out_of_range and -1 in p
    yield "DynamicPartition partition == 0: ok", ok and 0 in p
    yield "DynamicPartition num_partitions == 0: error", k == 0 and "minimum 1" in msg
    yield "DynamicPartition num_partitions == 1: ok", k == 1 and ok
    yield "DynamicPartition num_partitions == 2^31: error", k == 2 ** 31 and "out of range for an int32" in msg
    yield "DynamicPartition num_partitions == 2^31 - 1: passes the int32 check", (
        k == 2 ** 31 - 1 and "out of range for an int32" not in msg)


def stitch_edges(v, ok, msg):
    op = v["op"]
    indices = [x for t in v["inputs"]["indices"] for x in ints(t)]
    n = len(v["inputs"]["indices"])
    yield op + " index == -1: error", "out of range" in msg and -1 in indices
    yield op + " index == 0: ok", ok and 0 in indices
    yield op + " N == 0: error", n == 0 and "minimum 1" in msg
    yield op + " N == 1: ok", n == 1 and ok


def space_batch_edges(v, ok, msg):
    op = v["op"]
    s2b = op == "SpaceToBatchND"
    name = "paddings" if s2b else "crops"
    block, pairs, dims = ints(v["inputs"]["block_shape"]), ints(v["inputs"][name]), shape(v["inputs"]["input"])
    m = len(block)
    well_formed = len(pairs) == 2 * m and len(dims) > m and all(b > 0 for b in block)
    yield op + " block == 0: error", 0 in block and "must be positive" in msg
    yield op + " block == 1: ok", ok and 1 in block
    yield op + " " + name + " == -1: error", -1 in pairs and "must be non-negative" in msg and name.capitalize() in msg
    yield op + " " + name + " == 0: ok", ok and 0 in pairs
    yield op + " input rank == M: error", len(dims) == m and "input rank should be" in msg
    yield op + " input rank == M + 1: ok", ok and len(dims) == m + 1
    yield op + " 5 internal block dims: error", "must not exceed 4" in msg
    yield op + " 4 internal block dims: ok", ok and well_formed and internal_dims(block, pairs) == 4
    if s2b:
        rests = [(dims[1 + i] + pairs[2 * i] + pairs[2 * i + 1]) % block[i] for i in range(m)] if well_formed else []
        yield op + " padded size % block == 1: error", "divisible" in msg and 1 in rests
        yield op + " padded size % block == block - 1: error", "divisible" in msg and any(
            r == block[i] - 1 and block[i] > 2 for i, r in enumerate(rests))
    else:
        product = 1
        for b in block:
            product *= b
        cropped = [dims[1 + i] * block[i] - pairs[2 * i] - pairs[2 * i + 1] for i in range(m)] if well_formed else []
        yield op + " batch % block product == 1: error", well_formed and dims[0] % product == 1 and "divisible" in msg
        yield op + " batch % block product == product - 1: error", (
            well_formed and product > 2 and dims[0] % product == product - 1 and "divisible" in msg)
        yield op + " cropped size == 0: ok", ok and 0 in cropped
        yield op + " cropped size == -1: error", -1 in cropped and "must be non-negative" in msg


def sparse_concat_edges(v, ok, msg):
    cd = int(v.get("attrs", {}).get("concat_dim", 0))
    shapes = v["inputs"]["shapes"]
    n = len(v["inputs"]["indices"])
    r = int(shapes[0]["shape"][0]) if shapes and shapes[0]["shape"] else None
    in_range_error = "Concat dimension must be in range" in msg
    yield "SparseConcat concat_dim == r: error", r is not None and cd == r and in_range_error
    yield "SparseConcat concat_dim == r - 1: ok", r is not None and cd == r - 1 and ok
    yield "SparseConcat concat_dim == -r: ok", r is not None and cd == -r and ok
    yield "SparseConcat concat_dim == -r - 1: error", r is not None and cd == -r - 1 and in_range_error
    yield "SparseConcat concat_dim == 2^31: error", cd == 2 ** 31 and "int32" in msg
    yield "SparseConcat concat_dim == 2^31 - 1: passes the int32 check", cd == 2 ** 31 - 1 and in_range_error
    yield "SparseConcat concat_dim == -2^31 - 1: error", cd == -2 ** 31 - 1 and "int32" in msg
    yield "SparseConcat concat_dim == -2^31: passes the int32 check", cd == -2 ** 31 and in_range_error
    yield "SparseConcat N == 1: error", n == 1 and "minimum 2" in msg
    yield "SparseConcat N == 2: ok", n == 2 and ok
    yield "SparseConcat rank 255: error", r == 255 and "Too many dimensions" in msg
    yield "SparseConcat rank 254: ok", r == 254 and ok


def depth_space_edges(v, ok, msg):
    op = v["op"]
    b = int(v["attrs"]["block_size"])
    dims = shape(v["inputs"]["input"])
    yield op + " block_size == 1: error", b == 1 and "minimum 2" in msg
    yield op + " block_size == 2: ok", b == 2 and ok
    yield op + " block_size == 2^31: error", b == 2 ** 31 and "int32" in msg
    yield op + " block_size == 2^31 - 1: passes the int32 check", b == 2 ** 31 - 1 and "int32" not in msg
    yield op + " rank 3: error", len(dims) == 3 and "rank" in msg
    yield op + " rank 5: error", len(dims) == 5 and "rank" in msg
    yield op + " rank 4: ok", len(dims) == 4 and ok
    if op == "SpaceToDepth":
        yield op + " height % block == 1: error", len(dims) == 4 and b >= 2 and dims[1] % b == 1 and "divisible" in msg
        yield op + " width % block == 1: error", len(dims) == 4 and b >= 2 and dims[2] % b == 1 and "divisible" in msg
    else:
        yield op + " depth % block^2 == block^2 - 2: error", (
            len(dims) == 4 and b >= 2 and dims[3] % (b * b) == b * b - 2 and "divisible" in msg)
        yield op + " depth == block^2: ok", len(dims) == 4 and dims[3] == b * b and ok


EDGES = {"SpaceToDepth": depth_space_edges, "DepthToSpace": depth_space_edges,
         "DynamicPartition": partition_edges, "DynamicStitch": stitch_edges,
         "ParallelDynamicStitch": stitch_edges, "SpaceToBatchND": space_batch_edges,
         "BatchToSpaceND": space_batch_edges, "SparseConcat": sparse_concat_edges}


def main():
    root = sys.argv[1]
    seen = {}
    for path in sorted(glob.glob(os.path.join(root, "**", "*.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            v = json.load(f)
        error = v["expected"].get("error")
        for edge, held in EDGES[v["op"]](v, error is None, error["message"] if error else ""):
            seen.setdefault(edge, [])
            if held:
                seen[edge].append(os.path.relpath(path, root))
    missing = [edge for edge, files in sorted(seen.items()) if not files]
    for edge, files in sorted(seen.items()):
        print("%-70s %s" % (edge, files[0] if files else "MISSING"))
    print("%d edges, %d without a vector" % (len(seen), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
