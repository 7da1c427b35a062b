#!/usr/bin/env bash
# Runs the whole benchmark table: RUNS processes of REPS randomly interleaved repetitions of
# every optimized (1 and 2 threads) and memcpy benchmark, then one process with the slow
# reference kernels (one call each) next to memcpy. `uptime` is logged every 30 s, because
# the 2-core machine is shared and its load decides how much the timings mean.
#
#   bench/measure.sh build-bench OUTDIR [RUNS=3] [REPS=3] [FILTER=.]
#   python3 bench/report.py OUTDIR/run*.json OUTDIR/ref.json --data bench/ratios.dat
#
# --sweep runs the size sweep instead (opconform_bench_sweep, bench/sweep_bench.cc): one
# process, REPS repetitions of every optimized (1 and 2 threads), memcpy, alloc_memcpy, naive
# and work benchmark at every size (and the empty-region benchmark), in registration order
# (size by size; no interleaving, so only one size's inputs are alive at a time), into OUTDIR/sweep.json.gz, with the uptime log in OUTDIR/sweep_uptime.log;
# OMP_WAIT_POLICY defaults to passive (see below).
#
#   bench/measure.sh --sweep build-bench OUTDIR [REPS=5] [FILTER=.]
#   python3 bench/sweep_report.py OUTDIR/sweep.json.gz
set -euo pipefail
sweep=0
if [[ ${1:-} == --sweep ]]; then sweep=1; shift; fi
if (( sweep )); then
  build=$1 out=$2 reps=${3:-5} filter=${4:-.}
  bin=$build/bench/opconform_bench_sweep
  mkdir -p "$out"
  (while true; do echo "$(date -u +%H:%M:%S) $(uptime)"; sleep 30; done) > "$out/sweep_uptime.log" &
  logger=$!
  trap 'kill $logger' EXIT
  # Passive OpenMP waiting: with libgomp's default spin-then-sleep, a forced 2-thread call
  # costs one or two scheduler ticks (4-8 ms) whenever other processes keep the second core
  # busy, which swamps every size below tens of MiB on this shared machine.
  OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} \
    "$bin" --benchmark_filter="($filter).*/(optimized|memcpy|alloc_memcpy|naive|work|start_join)" \
    --benchmark_repetitions="$reps" --benchmark_format=json > "$out/sweep.json"
  gzip -f "$out/sweep.json"
  exit 0
fi
build=$1 out=$2 runs=${3:-3} reps=${4:-3} filter=${5:-.}
bin=$build/bench/opconform_bench
mkdir -p "$out"
(while true; do echo "$(date -u +%H:%M:%S) $(uptime)"; sleep 30; done) > "$out/uptime.log" &
logger=$!
trap 'kill $logger' EXIT
for r in $(seq 1 "$runs"); do
  echo "$(date -u +%H:%M:%S) run $r start" >> "$out/runs.log"
  "$bin" --benchmark_filter="($filter).*/(optimized|memcpy)" --benchmark_repetitions="$reps" \
    --benchmark_enable_random_interleaving=true --benchmark_format=json > "$out/run$r.json"
done
echo "$(date -u +%H:%M:%S) reference start" >> "$out/runs.log"
"$bin" --benchmark_filter="($filter).*/(reference|memcpy)" --benchmark_format=json > "$out/ref.json"
echo "$(date -u +%H:%M:%S) done" >> "$out/runs.log"
