#!/usr/bin/env python3
"""Summarise the size sweep (opconform_bench_sweep JSON) and draw bench/sweep.png (stdlib only).

Every sweep case <Op>/<bytes>B_<shape> ran optimized/threads:1, optimized/threads:2 and a
memcpy of the same output bytes in the same process (bench/sweep_bench.cc). Per op, thread
count and size this takes the median over the repetitions of the kernel's time per output
byte and of memcpy time / kernel time paired by repetition (1.0 = as fast as copying the
output bytes with one thread), writes them to a gnuplot data file, runs gnuplot on
bench/sweep.gp (when gnuplot is installed) and prints Markdown tables (--markdown FILE to write
them to a file): the ratios at every second octave, the plain loop's, the fixed cost's and,
where the run has work benchmarks, the kernel's work alone against the plain loop at every
size, and the cases with rows of another width than 256 B (`x64B_`: DynamicStitch,
ParallelDynamicStitch and DynamicPartition with 64-byte rows, 64 KiB to 32 MiB), which are
series of their own ("<Op> 64B") and only in their table, not in the figure. --clock cpu uses
the calling thread's CPU time instead (1-thread figures only, table only): on a shared machine
it leaves out the time other processes held the core.

  bench/measure.sh --sweep build-bench bench/results/sweep-a   # bench/results/sweep-a/sweep.json.gz
  python3 bench/sweep_report.py bench/results/sweep-*/sweep.json.gz  # bench/sweep.dat, bench/sweep.png
"""

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

from benchjson import iterations, paired, write_table

OPS = ["SpaceToBatchND", "BatchToSpaceND", "DynamicStitch", "ParallelDynamicStitch", "DynamicPartition",
       "SparseConcat"]
SHORT = {"SpaceToBatchND": "S2B", "BatchToSpaceND": "B2S", "DynamicStitch": "Stitch",
         "ParallelDynamicStitch": "PStitch", "DynamicPartition": "Partition", "SparseConcat": "SparseConcat"}
HERE = os.path.dirname(os.path.abspath(__file__))


def size_label(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.4g}{unit}"
    return f"{n}B"


def series(op, case):
    """The series a case belongs to: its op, or "<op> <width>B" for rows of another width than 256 B."""
    rows = re.search(r"_\d+x(\d+)B_", case)
    return f"{op} {rows.group(1)}B" if rows and rows.group(1) != "256" else op


def load(paths, clock="real"):
    """{(series, bytes): {(impl, threads): {(file, repetition): ns}}}"""
    runs = defaultdict(lambda: defaultdict(dict))
    for key, (op, case, impl, threads), ns, _ in iterations(paths, clock):
        if impl in ("optimized", "memcpy", "alloc_memcpy", "naive", "naive_stream", "work", "naive_work") and "B_" in case:
            runs[(series(op, case), int(case.split("B_", 1)[0]))][(impl, threads)][key] = ns
    return runs


def machine(path):
    """gnuplot settings for the figure's machine lines from the first JSON's context (written by
    the sweep binary); defaults where a key is missing."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        context = json.load(f).get("context", {})

    def number(key, default):
        try:
            value = int(context.get("opconform_" + key, default))
        except ValueError:
            value = default
        return value if value > 0 else default

    cpu = " ".join(context.get("opconform_cpu", "unknown CPU").split()).replace("'", "")
    return (f"cpu='{cpu}, {context.get('num_cpus', '?')} CPUs'; l1={number('l1d_bytes', 32 << 10)}; "
            f"l2={number('l2_bytes', 1 << 20)}; streams={number('memcpy_streaming_min_bytes', 240 << 20)}; "
            f"huge={number('huge_page_min_bytes', 64 << 20)}")


def fixed_cost_table(runs, ops):
    """Per op, at an empty output and at 4 KiB: median ns per call of the kernel (1 thread), of
    allocating the outputs plus one memcpy (alloc_memcpy), of the plain loop (naive) and of
    memcpy alone; the kernel's fixed cost is kernel - alloc_memcpy."""
    lines = ["| op | output | kernel 1T ns | alloc+memcpy ns | kernel - (alloc+memcpy) ns | naive loop ns | memcpy ns |",
             "|---|---|---|---|---|---|---|"]
    for op in ops:
        for size in (0, 4096):
            impls = runs.get((op, size), {})
            med = {name: median_or_nan(list(impls.get(key, {}).values()))
                   for name, key in (("kernel", ("optimized", 1)), ("floor", ("alloc_memcpy", None)),
                                     ("naive", ("naive", None)), ("memcpy", ("memcpy", None)))}
            if med["kernel"] != med["kernel"]:
                continue
            lines.append(f"| {SHORT[op]} | {size_label(size) if size else 'empty'} | {med['kernel']:.0f} | "
                         f"{med['floor']:.0f} | {med['kernel'] - med['floor']:.0f} | {med['naive']:.0f} | "
                         f"{med['memcpy']:.0f} |")
    return lines


def work_table(runs, ops):
    """Per op that has work benchmarks, at every size: the kernel's data movement alone (work)
    and the plain loop into the same held output (naive_work), each as memcpy time / its time,
    and naive_work time / work time paired by repetition (1 or more: the kernel's work is at
    least as fast as the plain loop)."""
    work_ops = [op for op in ops if any(("work", None) in impls for (o, _), impls in runs.items() if o == op)]
    if not work_ops:
        return []
    lines = ["| output | " + " | ".join(f"{SHORT[op]} work / loop, loop time / work time" for op in work_ops) + " |",
             "|" + "---|" * (1 + len(work_ops))]
    for size in sorted({s for (o, s), impls in runs.items() if o in work_ops and ("work", None) in impls}):
        cells = []
        for op in work_ops:
            impls = runs.get((op, size), {})
            work, loop, memcpy = (impls.get((impl, None), {}) for impl in ("work", "naive_work", "memcpy"))
            if not work or not loop or not memcpy:
                cells.append("-")
                continue
            cells.append(f"{ratio(median_or_nan(paired(memcpy, work)))} / {ratio(median_or_nan(paired(memcpy, loop)))}, "
                         f"{median_or_nan(paired(loop, work)):.2f}")
        lines.append(f"| {size_label(size)} | " + " | ".join(cells) + " |")
    return lines


def narrow_rows_table(runs):
    """The series of other row widths, at every size: memcpy / kernel on 1 and 2 threads, the
    plain loop (naive) and the kernel's work against the plain loop where the case has them."""
    narrow = sorted({o for (o, _) in runs if o not in OPS})
    if not narrow:
        return []
    lines = ["| output | " + " | ".join(f"{SHORT[o.split()[0]]} {o.split()[1]} rows 1T / 2T / naive loop"
                                        + (", work / loop time" if any(("work", None) in runs[k] for k in runs if k[0] == o)
                                           else "") for o in narrow) + " |",
             "|" + "---|" * (1 + len(narrow))]
    for size in sorted({s for (o, s) in runs if o in narrow}):
        cells = []
        for o in narrow:
            impls = runs.get((o, size), {})
            memcpy = impls.get(("memcpy", None), {})
            if not memcpy or not impls.get(("optimized", 1)):
                cells.append("-")
                continue
            parts = [ratio(median_or_nan(paired(memcpy, impls.get(key, {})))) if impls.get(key) else "-"
                     for key in (("optimized", 1), ("optimized", 2), ("naive", None))]
            cell = " / ".join(parts)
            work, loop = impls.get(("work", None), {}), impls.get(("naive_work", None), {})
            if work and loop:
                cell += f", {median_or_nan(paired(loop, work)):.2f}"
            cells.append(cell)
        lines.append(f"| {size_label(size)} | " + " | ".join(cells) + " |")
    return lines


def ratio(value):
    """Two decimals, three below 0.1."""
    return f"{value:.2f}" if value >= 0.1 else f"{value:.3f}"


def median_or_nan(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="opconform_bench_sweep JSON files (.gz read as gzip)")
    parser.add_argument("--data", default=None, help="gnuplot data file to write (default: bench/sweep.dat; "
                        "with --clock cpu, none)")
    parser.add_argument("--png", default=os.path.join(HERE, "sweep.png"), help="figure to draw")
    parser.add_argument("--markdown", help="write the Markdown table here (default: stdout)")
    parser.add_argument("--clock", choices=["real", "cpu"], default="real",
                        help="real_time (default, the benchmarks use UseRealTime) or cpu_time of the "
                             "calling thread, which leaves out time other processes held its core "
                             "(1-thread figures only: the 2-thread ones are dropped)")
    args = parser.parse_args()

    if args.data is None and args.clock == "real":
        args.data = os.path.join(HERE, "sweep.dat")
    all_runs = load(args.json, args.clock)
    runs = {key: impls for key, impls in all_runs.items() if key[1] > 0}  # the curves: sizes > 0
    sizes = sorted({size for (_, size) in runs})
    ops = [op for op in OPS if any(o == op for (o, _) in runs)]

    # One block per (op, threads), in the order sweep.gp draws them; then memcpy.
    # Columns: bytes, kernel ns/byte (median), memcpy/kernel (median, min, max), this case's
    # memcpy ns/byte (median).
    stats = {}
    blocks = []
    for op in ops:
        for threads in ((1,) if args.clock == "cpu" else (1, 2)):
            lines = []
            for size in sorted(s for (o, s) in runs if o == op):
                impls = runs[(op, size)]
                kernel = impls.get(("optimized", threads), {})
                memcpy = impls.get(("memcpy", None), {})
                if not kernel or not memcpy:
                    continue
                ratios = paired(memcpy, kernel)
                ns = median_or_nan(list(kernel.values())) / size
                mc = median_or_nan(list(memcpy.values())) / size
                r = median_or_nan(ratios)
                stats[(op, threads, size)] = r
                lines.append(f"{size} {ns:.6g} {r:.4f} {min(ratios):.4f} {max(ratios):.4f} {mc:.6g}")
            blocks.append((f"{SHORT[op]} {threads}T", lines))
    # memcpy reference: per size, the median over the memcpy repetitions of every case of
    # exactly that size (SparseConcat's sizes are a few bytes off the others: left out).
    memcpy_lines = []
    for size in sizes:
        times = [t for (o, s), impls in runs.items() if s == size and o != "SparseConcat"
                 for t in impls.get(("memcpy", None), {}).values()]
        if times:
            ns = statistics.median(times) / size
            memcpy_lines.append(f"{size} {ns:.6g} 1 1 1 {ns:.6g}")
    blocks.append(("memcpy 1T", memcpy_lines))

    with open(args.data or os.devnull, "w") as f:
        f.write("# bench/sweep_report.py: one block per series (gnuplot index i), title in the first comment\n")
        f.write("# bytes kernel_ns_per_byte memcpy/kernel_median min max memcpy_ns_per_byte\n")
        for i, (title, lines) in enumerate(blocks):
            if i:
                f.write("\n\n")
            f.write(f"# {title}\n")
            f.write("\n".join(lines) + "\n")

    if args.clock == "cpu":
        print("--clock cpu: data file and table only, the figure is drawn from real time", file=sys.stderr)
    elif shutil.which("gnuplot"):
        titles = " ".join(title.replace(" ", "_") for title, _ in blocks)
        subprocess.run(["gnuplot", "-e", f"data='{args.data}'; out='{args.png}'; titles='{titles}'; "
                        + machine(args.json[0]), os.path.join(HERE, "sweep.gp")], check=True)
    else:
        print("gnuplot not found: wrote the data file only", file=sys.stderr)

    # Table: every second octave (4K, 16K, 64K, ...), the SparseConcat point nearest each.
    shown = [s for s in sizes if s & (s - 1) == 0 and (s.bit_length() - 1) % 2 == 0]
    header = "| output | memcpy ns/B | " + " | ".join(f"{SHORT[op]} 1T / 2T" for op in ops) + " |"
    lines = [header, "|" + "---|" * (2 + len(ops))]
    for size in shown:
        mc = [t for (o, s), impls in runs.items() if s == size for t in impls.get(("memcpy", None), {}).values()]
        cells = []
        for op in ops:
            near = min((s for (o, s) in runs if o == op), key=lambda s: abs(s - size), default=None)
            one, two = stats.get((op, 1, near)), stats.get((op, 2, near))
            cells.append("-" if one is None else f"{ratio(one)} / " + ("-" if two is None else ratio(two)))
        lines.append(f"| {size_label(size)} | {statistics.median(mc) / size if mc else float('nan'):.3f} | "
                     + " | ".join(cells) + " |")
    # The plain row-copy loop (naive, 1 thread, allocation included) against memcpy, beside the
    # kernel's 1-thread ratio: where the kernel moves data slower than the loop, it shows.
    # Where the case has it, the same loop with streaming stores (naive_stream) too.
    naive_ops = [op for op in ops if any(("naive", None) in runs[k] for k in runs if k[0] == op)]
    streamed = {op for op in naive_ops if any(("naive_stream", None) in runs[k] for k in runs if k[0] == op)}
    lines += ["", "| output | " + " | ".join(f"{SHORT[op]} kernel 1T / naive loop"
                                            + (" / streaming loop" if op in streamed else "")
                                            for op in naive_ops) + " |",
              "|" + "---|" * (1 + len(naive_ops))]
    for size in shown:
        cells = []
        for op in naive_ops:
            impls = runs.get((op, size), {})
            memcpy = impls.get(("memcpy", None), {})
            loops = [impls.get((impl, None), {}) for impl in ("naive", "naive_stream") if impl == "naive" or op in streamed]
            one = stats.get((op, 1, size))
            ns = [median_or_nan(paired(memcpy, loop)) if memcpy and loop else None for loop in loops]
            cells.append("-" if one is None or None in ns else " / ".join([ratio(one)] + [ratio(n) for n in ns]))
        lines.append(f"| {size_label(size)} | " + " | ".join(cells) + " |")
    lines += [""] + fixed_cost_table(all_runs, ops)
    work = work_table(runs, ops)
    if work:
        lines += [""] + work
    narrow = narrow_rows_table(runs)
    if narrow:
        lines += [""] + narrow
    write_table(lines, args.markdown)


if __name__ == "__main__":
    main()
