#!/usr/bin/env python3
"""Time to the first finding on each mutant of the catalogue, the same budget each, the three run
side by side:
  - `opconform fuzz --no-seeds`: coverage-guided from an empty corpus, the mutant built as an
    instrumented plug-in;
  - `opconform validate --no-corpus`: generated cases only (the check pairs, then random cases);
  - `opconform fuzz` as it runs by default, its corpus seeded from the bundled vectors.

  fuzz/compare_with_validate.py --build build-fuzz --seconds 20 [--only NAME ...] > table.md

Needs a clang build with the fuzz driver and the mutants (the "fuzz" preset:
cmake --build --preset fuzz --target opconform opconform-fuzz-driver opconform_mutants).
Prints a Markdown table and a summary; times are seconds from the tool's start.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run_fuzz(opconform, plugin, op, seconds, work, seeds):
    name = "fuzz-seeded" if seeds else "fuzz"
    report = os.path.join(work, name + ".json")
    proc = subprocess.Popen([opconform, "fuzz", "--impl", plugin, "--ops", op, "--time", str(seconds),
                             "--dir", os.path.join(work, name), "--json", report, "--max-shrink-runs", "0"]
                            + ([] if seeds else ["--no-seeds"]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, report


def fuzz_result(report):
    try:
        with open(report) as f:
            ops = json.load(f)["ops"]
    except (OSError, ValueError, KeyError):
        return None, 0
    first = ops[0]["first_finding_seconds"] if ops else -1
    execs = ops[0]["execs"] if ops else 0
    return (first if first >= 0 else None), execs


def run_validate(opconform, plugin, op, seconds):
    start = time.monotonic()
    code = subprocess.call([opconform, "validate", "--impl", plugin, "--ops", op, "--no-corpus", "--time",
                            str(seconds), "--max-failures", "1", "--max-shrink-runs", "0", "--cases", "1000000"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.monotonic() - start) if code == 1 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build-fuzz")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    opconform = os.path.join(args.build, "bin", "opconform")
    mutants_dir = os.path.join(args.build, "lib", "opconform", "mutants")
    with open(os.path.join(mutants_dir, "plugins.txt")) as f:
        mutants = [line.strip().split("|") for line in f if line.strip()]
    found = {"fuzz": 0, "validate": 0, "seeded": 0}
    fuzz_faster = validate_faster = only_fuzz = only_validate = 0
    print("| mutant | op | fuzz --no-seeds (s) | validate --no-corpus (s) | fuzz, seeded from the vectors (s) |")
    print("|---|---|---:|---:|---:|")
    for name, op, plugin in mutants:
        if args.only and name not in args.only:
            continue
        path = os.path.join(mutants_dir, plugin)
        with tempfile.TemporaryDirectory() as work:
            fuzz, fuzz_report = run_fuzz(opconform, path, op, args.seconds, work, seeds=False)
            seeded, seeded_report = run_fuzz(opconform, path, op, args.seconds, work, seeds=True)
            v = run_validate(opconform, path, op, args.seconds)
            fuzz.wait()
            seeded.wait()
            f, _ = fuzz_result(fuzz_report)
            sf, _ = fuzz_result(seeded_report)
        fmt = lambda t: "not found" if t is None else f"{t:.1f}"
        print(f"| {name} | {op} | {fmt(f)} | {fmt(v)} | {fmt(sf)} |", flush=True)
        found["fuzz"] += f is not None
        found["validate"] += v is not None
        found["seeded"] += sf is not None
        only_fuzz += f is not None and v is None
        only_validate += v is not None and f is None
        if f is not None and v is not None:
            fuzz_faster += f < v
            validate_faster += v < f
    print(f"\nfound within {args.seconds:g} s: fuzz --no-seeds {found['fuzz']}, validate --no-corpus {found['validate']}, "
          f"fuzz seeded {found['seeded']}; only fuzz --no-seeds {only_fuzz}, only validate {only_validate}; "
          f"found by both: fuzz first {fuzz_faster}, validate first {validate_faster}")

if __name__ == "__main__":
    sys.exit(main())
