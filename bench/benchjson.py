"""Reading Google Benchmark JSON output of opconform_bench and opconform_bench_sweep (stdlib only).

Benchmark names are '<Op>/<case>/<impl>[/threads:N][/real_time]' (bench/bench_common.h).
"""

import gzip
import json
import sys

NS_PER_UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def parse_name(name):
    """-> (op, case, impl, threads) or None; threads is None where the name has none."""
    parts = [p for p in name.split("/") if p != "real_time"]
    if len(parts) < 3:
        return None
    threads = next((int(p.split(":", 1)[1]) for p in parts[3:] if p.startswith("threads:")), None)
    return parts[0], parts[1], parts[2], threads


def iterations(paths, clock="real"):
    """Yields (key, (op, case, impl, threads), ns, benchmark) for every timed repetition in the
    files (plain or .gz); key = (file index, repetition index) pairs runs of one repetition."""
    for file_index, path in enumerate(paths):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            parsed = parse_name(b.get("run_name", b["name"]))
            if parsed is None:
                continue
            ns = b[clock + "_time"] * NS_PER_UNIT[b.get("time_unit", "ns")]
            yield (file_index, b.get("repetition_index", 0)), parsed, ns, b


def paired(a, b):
    """a[k] / b[k] for the repetitions both hold."""
    return [a[k] / b[k] for k in sorted(a.keys() & b.keys()) if b[k] > 0]


def write_table(lines, path=None):
    """The Markdown lines to `path`, or to stdout when it is None."""
    table = "\n".join(lines) + "\n"
    if path:
        with open(path, "w") as f:
            f.write(table)
    else:
        sys.stdout.write(table)
