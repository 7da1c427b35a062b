#!/usr/bin/env python3
"""Before/after table of two opconform_bench_sweep binaries (stdlib only).

Runs OLD and NEW in turn, ROUNDS times (old, new, old, new, ...), each process one repetition
of the optimized kernels (1 and 2 threads) and the memcpy baseline of SpaceToBatchND,
BatchToSpaceND, DynamicStitch and DynamicPartition at the issue's sizes (4 KiB, 64 KiB, 1 MiB,
4 MiB, 1 GiB of output), in the sweep's main shapes (its 64-byte-row variants, the `x64B_`
cases, share those sizes and are left out). Per build, op, thread count and size: the median
over the rounds of memcpy time / kernel time, both from the same process (1.0 = as fast as
copying the output); at 4 KiB also the median time per call. The load average is printed
before and after.

  python3 bench/compare_builds.py OLD/opconform_bench_sweep build-bench/bench/opconform_bench_sweep \\
      --rounds 4 --out /tmp/compare
"""

import argparse
import os
import statistics
import subprocess
from collections import defaultdict

from benchjson import iterations, paired

OPS = [("SpaceToBatchND", "S2B"), ("BatchToSpaceND", "B2S"), ("DynamicStitch", "Stitch"),
       ("DynamicPartition", "Partition")]
SIZES = [4096, 65536, 1 << 20, 4 << 20, 1 << 30]
NARROW_ROWS = "x64B_"  # the sweep's 64-byte-row cases (register_rows<16>)
LABEL = {4096: "4 KiB", 65536: "64 KiB", 1 << 20: "1 MiB", 4 << 20: "4 MiB", 1 << 30: "1 GiB"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", default="compare_builds")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="output bytes, comma-separated")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    os.makedirs(args.out, exist_ok=True)
    ops = "|".join(op for op, _ in OPS)
    pattern = f"^({ops})/({'|'.join(map(str, sizes))})B_.*/(optimized|memcpy)"
    env = dict(os.environ, OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
    print("load before:", open("/proc/loadavg").read().strip())
    files = {"old": [], "new": []}
    for r in range(args.rounds):
        for build in ("old", "new"):
            path = os.path.join(args.out, f"{build}{r}.json")
            with open(path, "w") as f:
                subprocess.run([getattr(args, build), f"--benchmark_filter={pattern}", "--benchmark_format=json"],
                               stdout=f, stderr=subprocess.DEVNULL, env=env, check=True)
            files[build].append(path)
    print("load after:", open("/proc/loadavg").read().strip())

    # {(build, op, size, threads): [ratio per round]}, {(build, op, size, threads): [ns per round]}
    ratios, times = defaultdict(list), defaultdict(list)
    for build, paths in files.items():
        for path in paths:
            runs = defaultdict(dict)
            for key, (op, case, impl, threads), ns, _ in iterations([path]):
                if NARROW_ROWS in case:
                    continue
                runs[(op, int(case.split("B_", 1)[0]))][(impl, threads)] = {key: ns}
            for (op, size), impls in runs.items():
                memcpy = impls.get(("memcpy", None))
                for threads in (1, 2):
                    kernel = impls.get(("optimized", threads))
                    if memcpy and kernel:
                        ratios[(build, op, size, threads)] += paired(memcpy, kernel)
                        times[(build, op, size, threads)] += list(kernel.values())
                if memcpy:
                    times[(build, op, size, "memcpy")] += list(memcpy.values())

    def cell(build, op, size, threads):
        values = ratios.get((build, op, size, threads))
        return f"{statistics.median(values):.2f}" if values else "-"

    header = "| output | " + " | ".join(f"{short} {t}T old / new" for _, short in OPS for t in (1, 2)) + " |"
    lines = [header, "|" + "---|" * (1 + 2 * len(OPS))]
    for size in sizes:
        cells = [f"{cell('old', op, size, t)} / {cell('new', op, size, t)}" for op, _ in OPS for t in (1, 2)]
        lines.append(f"| {LABEL.get(size, size)}, memcpy/kernel | " + " | ".join(cells) + " |")
    if 4096 in sizes:
        def us(build, op, threads):
            values = times.get((build, op, 4096, threads))
            return f"{statistics.median(values) / 1000:.2f}" if values else "-"
        cells = [f"{us('old', op, t)} / {us('new', op, t)}" for op, _ in OPS for t in (1, 2)]
        lines.append("| 4 KiB, us per call | " + " | ".join(cells) + " |")
        memcpy = [v for (b, op, s, t), vs in times.items() if s == 4096 and t == "memcpy" for v in vs]
        lines.append(f"\nmemcpy of 4 KiB, median over both builds: {statistics.median(memcpy) / 1000:.3f} us")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
