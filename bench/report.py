#!/usr/bin/env python3
"""Summarise opconform_bench JSON output as memcpy/kernel ratios (python3 stdlib only).

Every case registered through bench/bench_common.h runs <Op>/<case>/optimized/threads:1,
.../threads:2 and .../memcpy in the same process. For each repetition this computes
memcpy time / kernel time (1.0 = as fast as copying the output bytes) and the two-thread
speed-up t(1 thread) / t(2 threads), pairing runs of the same repetition of the same file,
then reports the median, min and max over all repetitions of all files given. The Markdown
table goes to stdout (or --markdown FILE); --data writes the file bench/plot.gp draws.

  bench/measure.sh build-bench OUT/a 2 3            # run*.json, ref.json, runs.log, uptime.log in OUT/a
  python3 bench/report.py OUT/a/run*.json OUT/a/ref.json --data bench/ratios.dat
  gnuplot -e "data='bench/ratios.dat'; out='bench/ratios.png'" bench/plot.gp

The table in bench/RESULTS.md is exactly what this prints for the raw files kept with it:

  python3 bench/report.py bench/results/[abcd]/run*.json.gz bench/results/[abcd]/ref.json.gz
"""

import argparse
import statistics
from collections import defaultdict

from benchjson import iterations, paired, write_table

# Single-thread median ratio targets; cases without one print "-".
TARGETS = {
    ("SpaceToBatchND", "f32_8x256x256x32_b2x2"): 0.85,
    ("SpaceToBatchND", "f32_8x1024x1024x1_b2x2"): 0.60,
    ("SpaceToBatchND", "f32_1x2048x2048x1_b4x4_pad1x3x2x2"): 0.60,
    ("SpaceToBatchND", "f32_64x64x64x64x4_b2x2x2"): 0.70,
    ("BatchToSpaceND", "f32_8x256x256x32_b2x2"): 0.85,
    ("BatchToSpaceND", "f32_8x1024x1024x1_b2x2"): 0.60,
    ("BatchToSpaceND", "f32_1x2048x2048x1_b4x4_pad1x3x2x2"): 0.60,
    ("BatchToSpaceND", "f32_64x64x64x64x4_b2x2x2"): 0.70,
    # Stitch: one target per row size, applied to the permutation and to dup50.
    ("DynamicStitch", "f32_16Mx4B_perm"): 0.15,
    ("DynamicStitch", "f32_16Mx4B_dup50"): 0.15,
    ("DynamicStitch", "f32_256Kx256B_perm"): 0.80,
    ("DynamicStitch", "f32_256Kx256B_dup50"): 0.80,
    ("DynamicStitch", "f32_16Kx4KiB_perm"): 0.85,
    ("DynamicStitch", "f32_16Kx4KiB_dup50"): 0.85,
    ("SparseConcat", "f32_4x2.5M_rank3_dim0_sorted"): 0.50,
    ("SparseConcat", "f32_4x2.5M_rank3_dim1_sorted"): 0.40,
    ("SparseConcat", "f32_4x2.5M_rank3_dim2_random"): 0.10,
}
# memcpy/kernel of TensorFlow 2.21's CPU algorithm on the same cases, for comparison (Stitch: per
# row size).
TENSORFLOW = {
    ("SpaceToBatchND", "f32_8x256x256x32_b2x2"): 0.66,
    ("SpaceToBatchND", "f32_8x1024x1024x1_b2x2"): 0.32,
    ("SpaceToBatchND", "f32_1x2048x2048x1_b4x4_pad1x3x2x2"): 0.31,
    ("SpaceToBatchND", "f32_64x64x64x64x4_b2x2x2"): 0.23,
    ("BatchToSpaceND", "f32_8x256x256x32_b2x2"): 0.45,
    ("BatchToSpaceND", "f32_8x1024x1024x1_b2x2"): 0.29,
    ("BatchToSpaceND", "f32_1x2048x2048x1_b4x4_pad1x3x2x2"): 0.30,
    ("BatchToSpaceND", "f32_64x64x64x64x4_b2x2x2"): 0.28,
    ("DynamicStitch", "f32_16Mx4B_perm"): 0.047,
    ("DynamicStitch", "f32_16Mx4B_dup50"): 0.047,
    ("DynamicStitch", "f32_256Kx256B_perm"): 0.33,
    ("DynamicStitch", "f32_256Kx256B_dup50"): 0.33,
    ("DynamicStitch", "f32_16Kx4KiB_perm"): 0.49,
    ("DynamicStitch", "f32_16Kx4KiB_dup50"): 0.49,
    ("SparseConcat", "f32_4x2.5M_rank3_dim0_sorted"): 0.029,
    ("SparseConcat", "f32_4x2.5M_rank3_dim1_sorted"): 0.0095,
    ("SparseConcat", "f32_4x2.5M_rank3_dim2_random"): 0.0068,
}
# Peak extra memory target (percent of the output); SparseConcat has none.
PEAK_EXTRA_PCT_TARGET = 5.0
PEAK_EXTRA_OPS = {"SpaceToBatchND", "BatchToSpaceND", "DynamicStitch", "DynamicPartition"}
SHORT_OP = {"SpaceToBatchND": "S2B", "BatchToSpaceND": "B2S", "DynamicStitch": "Stitch",
            "DynamicPartition": "Partition", "SparseConcat": "SparseConcat"}
SPEEDUP_TARGET = 1.6  # two threads vs one, wherever one thread is below 0.9 of memcpy
SPEEDUP_NEEDED_BELOW = 0.9


OP_ORDER = ["SpaceToBatchND", "BatchToSpaceND", "DynamicStitch", "DynamicPartition", "SparseConcat"]
ROW_SIZE_ORDER = ["16Mx4B", "256Kx256B", "16Kx4KiB"]


def row_order(op, case):
    """Table order: op, then the target table's order, then row size, then name."""
    op_rank = OP_ORDER.index(op) if op in OP_ORDER else len(OP_ORDER)
    keys = list(TARGETS)
    target_rank = keys.index((op, case)) if (op, case) in keys else len(keys)
    size_rank = next((i for i, s in enumerate(ROW_SIZE_ORDER) if f"_{s}_" in case), len(ROW_SIZE_ORDER))
    return op_rank, target_rank, size_rank, case


def load(paths, clock):
    """({(op, case): {(impl, threads): {(file, repetition): milliseconds}}},
        {(op, case): {(impl, threads): worst peak_extra_pct}})"""
    runs = defaultdict(lambda: defaultdict(dict))
    peaks = defaultdict(dict)
    for key, (op, case, impl, threads), ns, b in iterations(paths, clock):
        if impl == "optimized" and threads is None:
            continue
        runs[(op, case)][(impl, threads)][key] = ns * 1e-6
        if "peak_extra_pct" in b:
            worst = peaks[(op, case)].get((impl, threads), float("-inf"))
            peaks[(op, case)][(impl, threads)] = max(worst, b["peak_extra_pct"])
    return runs, peaks


def summary(values):
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def fmt(s):
    return "-" if s is None else f"{s[0]:.2f} ({s[1]:.2f}-{s[2]:.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="benchmark JSON files (--benchmark_format=json; .gz read as gzip)")
    parser.add_argument("--markdown", help="write the markdown table here (default: stdout)")
    parser.add_argument("--data", help="write the gnuplot data file here")
    parser.add_argument("--clock", choices=["real", "cpu"], default="real",
                        help="real_time (default, the benchmarks use UseRealTime) or cpu_time of the "
                             "calling thread, which leaves out time other processes take the CPU")
    args = parser.parse_args()

    runs, peaks = load(args.json, args.clock)
    rows = []
    for (op, case), impls in sorted(runs.items(), key=lambda item: row_order(*item[0])):
        memcpy = impls.get(("memcpy", None), {})
        one = impls.get(("optimized", 1), {})
        two = impls.get(("optimized", 2), {})
        reference = impls.get(("reference", None), {})
        r1, r2 = summary(paired(memcpy, one)), summary(paired(memcpy, two))
        rref = summary(paired(memcpy, reference))
        speedup = summary(paired(one, two))
        if args.clock == "cpu":  # cpu_time counts the calling thread only: no two-thread figures
            r2 = speedup = None
        target = TARGETS.get((op, case))
        verdict = []
        if target is not None and r1 is not None:
            verdict.append("ratio ok" if r1[0] >= target else "ratio MISSED")
        if r1 is not None and r1[0] < SPEEDUP_NEEDED_BELOW and speedup is not None:
            verdict.append("2T ok" if speedup[0] >= SPEEDUP_TARGET else "2T MISSED")
        peak = max((peaks[(op, case)].get(k, float("-inf")) for k in (("optimized", 1), ("optimized", 2))),
                   default=float("-inf"))
        peak = None if peak == float("-inf") else peak
        if peak is not None and op in PEAK_EXTRA_OPS:
            verdict.append("mem ok" if peak <= PEAK_EXTRA_PCT_TARGET else "mem MISSED")
        rows.append((op, case, r1, target, r2, speedup, rref, ", ".join(verdict) or "-",
                     summary(list(one.values())), summary(list(memcpy.values())), peak))

    lines = [
        "| op | case | 1 thread: memcpy/kernel median (min-max) | target | TensorFlow | 2 threads: memcpy/kernel | "
        "2T speed-up | reference: memcpy/kernel | kernel ms (1T median) | memcpy ms (median) | "
        "peak extra % of output (worst, 1T/2T) | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for op, case, r1, target, r2, speedup, rref, verdict, t1, tm, peak in rows:
        lines.append(
            f"| {op} | {case} | {fmt(r1)} | {'-' if target is None else f'{target:.2f}'} | "
            f"{TENSORFLOW.get((op, case), '-')} | {fmt(r2)} | "
            f"{fmt(speedup)} | {'-' if rref is None else f'{rref[0]:.3f}'} | "
            f"{'-' if t1 is None else f'{t1[0]:.2f}'} | {'-' if tm is None else f'{tm[0]:.2f}'} | "
            f"{'-' if peak is None else f'{peak:.3f}'} | {verdict} |")
    floors = [(op, case, summary(paired(impls.get(("memcpy", None), {}), impls[("scatter_floor", None)])))
              for (op, case), impls in sorted(runs.items(), key=lambda item: row_order(*item[0]))
              if ("scatter_floor", None) in impls]
    if floors:
        lines += ["", "Scatter floor (a bare forward pass out[index[i]] = data[i], no validation, "
                  "losers written too): memcpy/floor, same process:", "",
                  "| op | case | memcpy/scatter floor median (min-max) | target |", "|---|---|---|---|"]
        lines += [f"| {op} | {case} | {fmt(r)} | {TARGETS.get((op, case), '-')} |" for op, case, r in floors]
    write_table(lines, args.markdown)

    if args.data:
        with open(args.data, "w") as f:
            f.write("# index label median1 min1 max1 median2 min2 max2 target(-1: none)\n")
            for i, (op, case, r1, target, r2, *_rest) in enumerate(rows):
                if r1 is None:
                    continue
                r2 = r2 or (float("nan"),) * 3
                label = f"{SHORT_OP.get(op, op)} {case.removeprefix('f32_')}"
                f.write(f'{i} "{label}" {r1[0]:.4f} {r1[1]:.4f} {r1[2]:.4f} '
                        f"{r2[0]:.4f} {r2[1]:.4f} {r2[2]:.4f} {target if target is not None else -1}\n")


if __name__ == "__main__":
    main()
