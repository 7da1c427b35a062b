#!/usr/bin/env bash
# Local fuzzing of the opconform harnesses (FUZZING.md). Needs the libFuzzer build:
#   cmake --preset fuzz && cmake --build --preset fuzz --target fuzz_harnesses
#
#   fuzz/run.sh fuzz [HARNESS|all] [-t SECONDS] [-j JOBS]  fork-mode fuzzing, then merge what it
#                                                         grew into corpus/HARNESS and triage crashes;
#                                                         appends the run's CPU time to the ledger
#   fuzz/run.sh hours                                      CPU hours per harness from the ledger
#   fuzz/run.sh minimize [HARNESS|all] [DIR...]            rebuild corpus/HARNESS as its named seeds
#                                                         plus the fewest grown inputs (and DIR's)
#                                                         that keep every coverage feature
#   fuzz/run.sh merge HARNESS DIR...                       add DIR's inputs that bring new coverage
#   fuzz/run.sh triage HARNESS CRASH [NAME]                minimise a crash, write it as a vector in
#                                                         corpus/vectors-findings/NAME.json
#   fuzz/run.sh exec-rate [--from seeds|corpus] [--impl PLUGIN] [HARNESS|all]
#                                                         fuzzing exec/s (median of 3 runs of 40 s)
#                                                         starting from the named seeds (default) or
#                                                         from the whole corpus once it is loaded;
#                                                         --impl: of opconform-fuzz-driver on that
#                                                         plug-in (FUZZING.md, "Fuzzing your own
#                                                         kernels"), per op harness
#   fuzz/run.sh costs [HARNESS|all]                        execution time of each corpus input: the
#                                                         total, the slowest 5 % and the slowest inputs
#   fuzz/run.sh coverage                                   line coverage of reference/ and optimized/
#                                                         from replaying the corpus (llvm-cov 14)
#
# HARNESS: fuzz_space_to_batch_nd, fuzz_batch_to_space_nd, fuzz_dynamic_stitch,
# fuzz_parallel_dynamic_stitch, fuzz_dynamic_partition, fuzz_sparse_concat, fuzz_vector_reader
# (or without the fuzz_ prefix). Environment: OPCONFORM_FUZZ_BUILD (libFuzzer build, default
# build-fuzz), OPCONFORM_FUZZ_TOOL (opconform-fuzz, default from that build),
# OPCONFORM_FUZZ_CORPUS (default corpus), OPCONFORM_COV_BUILD (default build-fuzz-cov),
# OPCONFORM_FUZZ_LEDGER (the local log of fuzz runs, default <libFuzzer build>/fuzz-work/ledger.tsv).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OPCONFORM_FUZZ_BUILD:-$root/build-fuzz}"
tool="${OPCONFORM_FUZZ_TOOL:-$build/fuzz/opconform-fuzz}"
corpus="${OPCONFORM_FUZZ_CORPUS:-$root/corpus}"
cov_build="${OPCONFORM_COV_BUILD:-$root/build-fuzz-cov}"
ledger="${OPCONFORM_FUZZ_LEDGER:-$build/fuzz-work/ledger.tsv}"
findings="$corpus/vectors-findings"
all_harnesses=(fuzz_space_to_batch_nd fuzz_batch_to_space_nd fuzz_dynamic_stitch
  fuzz_parallel_dynamic_stitch fuzz_dynamic_partition fuzz_sparse_concat fuzz_vector_reader)

die() { echo "run.sh: $*" >&2; exit 2; }
harness_list() {
  case "${1:-all}" in
    all) echo "${all_harnesses[@]}" ;;
    fuzz_*) echo "$1" ;;
    *) echo "fuzz_$1" ;;
  esac
}
binary() {
  local bin="$build/fuzz/$1"
  [[ -x "$bin" ]] || die "no $bin: build the fuzz preset first (cmake --build --preset fuzz --target fuzz_harnesses)"
  echo "$bin"
}
max_len() { [[ "$1" == fuzz_vector_reader ]] && echo 16384 || echo 4096; }
common_flags() {
  echo "-timeout=25 -rss_limit_mb=2560 -max_len=$(max_len "$1") -dict=$root/fuzz/$1.dict"
}

# triage HARNESS CRASH [NAME]: -minimize_crash, then the converter. Prints the vector path.
triage() {
  local h="$1" crash="$2" name="${3:-$1-$(basename "$2")}"
  local bin minimized="$build/fuzz-work/$h/minimized-$(basename "$crash")"
  bin="$(binary "$h")"
  mkdir -p "$(dirname "$minimized")" "$findings"
  # shellcheck disable=SC2046
  "$bin" $(common_flags "$h") -minimize_crash=1 -max_total_time=120 \
    -exact_artifact_path="$minimized" "$crash" >"$minimized.log" 2>&1 || true
  [[ -s "$minimized" ]] || cp "$crash" "$minimized"
  if "$tool" fuzz-to-vector "$h" "$minimized" -o "$findings/$name.json" >/dev/null; then
    echo "$findings/$name.json"
  else
    cp "$minimized" "$findings/$name.bin"
    echo "$findings/$name.bin (not expressible as a vector; raw input kept)"
  fi
}

# merge HARNESS DIR...: adds DIR's inputs that bring new coverage to the corpus; named seeds stay.
merge() {
  local h="$1"; shift
  local bin before after
  bin="$(binary "$h")"
  before=$(find "$corpus/$h" -type f | wc -l)
  # shellcheck disable=SC2046
  "$bin" $(common_flags "$h") -merge=1 "$corpus/$h" "$@" >"$build/fuzz-work/$h.merge.log" 2>&1 ||
    die "merge failed, see $build/fuzz-work/$h.merge.log"
  after=$(find "$corpus/$h" -type f | wc -l)
  echo $((after - before))
}

fuzz() {
  local seconds=60 jobs=1 target="all"
  while (($#)); do
    case "$1" in
      -t) seconds="$2"; shift 2 ;;
      -j) jobs="$2"; shift 2 ;;
      *) target="$1"; shift ;;
    esac
  done
  local summary=()
  for h in $(harness_list "$target"); do
    local bin work start end
    bin="$(binary "$h")"
    work="$build/fuzz-work/$h"
    mkdir -p "$work/new" "$work/artifacts"
    start=$(date +%s)
    echo "== $h: fuzzing ${seconds}s with $jobs job(s), log $work/fuzz.log"
    # CPU time: the fork-mode parent waits for its jobs, so its rusage includes theirs.
    # shellcheck disable=SC2046
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$bin" $(common_flags "$h") -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$seconds" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
      "$work/new" "$corpus/$h" >"$work/fuzz.log" 2>&1 || true
    end=$(date +%s)
    local added stats cpu execs findings=0 vectors=""
    added=$(merge "$h" "$work/new")
    stats=$(grep -E '^#[0-9]+: cov:' "$work/fuzz.log" | tail -1 || true)
    cpu=$(awk 'END {printf "%d", $1 + $2}' "$work/cpu")
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"${stats:-#0:}")
    for crash in "$work"/artifacts/crash-* "$work"/artifacts/leak-* "$work"/artifacts/timeout-*; do
      [[ -e "$crash" ]] || continue
      findings=$((findings + 1))
      vectors+="    $(basename "$crash") -> $(triage "$h" "$crash")"$'\n'
    done
    # commit: the last one before the binary was linked (what it was built from, barring
    # uncommitted edits), not the checkout's HEAD, which may have moved on since.
    local built
    built=$(git -C "$root" log -1 --format=%h --until="@$(stat -c %Y "$bin")" 2>/dev/null || true)
    [[ -s "$ledger" ]] || printf 'date\tcommit\tharness\tjobs\twall_s\tcpu_s\texecs\tfindings\n' >"$ledger"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "${built:-unknown}" "$h" "$jobs" \
      $((end - start)) "$cpu" "$execs" "$findings" >>"$ledger"
    summary+=("$(printf '%-30s %5ss wall %6ss CPU  corpus +%-4s findings %s  %s\n%s' "$h" $((end - start)) \
      "$cpu" "$added" "$findings" "${stats:-no stats line}" "$vectors")")
  done
  echo
  echo "==== summary (exec/s and cov from libFuzzer's last fork-mode status line) ===="
  printf '%s\n' "${summary[@]}"
}

median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }  # of three values

# copy_named_seeds DIR DEST: the named seeds of DIR (any file whose name is not a 40-hex-digit
# SHA-1, libFuzzer's naming) into DEST.
copy_named_seeds() {
  find "$1" -maxdepth 1 -regextype posix-extended -type f ! -regex '.*/[0-9a-f]{40}' -exec cp {} "$2/" \;
}

# exec-rate [--from seeds|corpus] [HARNESS|all]: exec/s of each harness, non-fork,
# OPCONFORM_RATE_SECONDS (default 40) per run, median of 3 runs.
#   --from seeds (default): libFuzzer starts from the harness's named seeds only (the
#     throughput on seed-sized inputs, FUZZING.md), and fuzzing grows from them.
#   --from corpus: from the whole committed corpus, grown inputs included; its slowest few per
#     cent take most of the time (`costs`).
# Fuzzing rate: executions after libFuzzer's INITED line (the starting inputs loaded) over the
# seconds from that line to the end, each output line stamped as it arrives; loading a corpus of
# thousands of inputs can take half a short run and is not fuzzing throughput. libFuzzer's own
# average (loading included) is printed beside it.
exec_rate() {
  local seconds="${OPCONFORM_RATE_SECONDS:-40}" from=seeds target=all impl=""
  while (($#)); do
    case "$1" in
      --from) (($# >= 2)) || die "exec-rate: --from seeds or --from corpus"; from="$2"; shift 2 ;;
      --impl) (($# >= 2)) || die "exec-rate: --impl PLUGIN"; impl="$(realpath "$2")"; shift 2 ;;
      *) target="$1"; shift ;;
    esac
  done
  [[ "$from" == seeds || "$from" == corpus ]] || die "exec-rate: --from seeds or --from corpus"
  local harnesses
  harnesses="$(harness_list "$target")"
  [[ -z "$impl" ]] || harnesses="${harnesses//fuzz_vector_reader/}"
  for h in $harnesses; do
    local bin fuzzing=() average=() start="$corpus/$h"
    if [[ -n "$impl" ]]; then
      # The driver reads the op harness's byte format: same seeds, same dictionary.
      bin="$build/libexec/opconform/opconform-fuzz-driver"
      [[ -x "$bin" ]] || die "no $bin: build the fuzz preset's opconform-fuzz-driver first"
      export OPCONFORM_FUZZ_IMPL="$impl" OPCONFORM_FUZZ_OP="${h#fuzz_}"
    else
      bin="$(binary "$h")"
    fi
    local scratch="$build/fuzz-work/$h/rate"
    if [[ "$from" == seeds ]]; then
      start="$build/fuzz-work/$h/rate-seeds"
      rm -rf "$start"; mkdir -p "$start"
      copy_named_seeds "$corpus/$h" "$start"
    fi
    for run in 1 2 3; do
      rm -rf "$scratch"; mkdir -p "$scratch"
      local out
      # shellcheck disable=SC2046
      out=$("$bin" $(common_flags "$h") -max_total_time="$seconds" -print_final_stats=1 "$scratch" "$start" 2>&1 |
        while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done |
        awk '$3 == "INITED" {t0 = $1; n0 = substr($2, 2)}
             /stat::number_of_executed_units/ {t1 = $1; n1 = $NF}
             /stat::average_exec_per_sec/ {avg = $NF}
             END {printf "%d %d", (t1 > t0 && t0 > 0) ? (n1 - n0) / (t1 - t0) : 0, avg}')
      fuzzing+=("${out% *}"); average+=("${out#* }")
    done
    printf '%-30s from %-6s fuzzing exec/s %-16s median %-6s | libFuzzer average %-16s median %s\n' "$h${impl:+ (driver)}" "$from" \
      "${fuzzing[*]}" "$(median "${fuzzing[@]}")" "${average[*]}" "$(median "${average[@]}")"
  done
}

# costs [HARNESS|all]: runs every input of corpus/HARNESS once (libFuzzer's file mode, which
# times each in whole milliseconds) and prints the total, the share of the slowest 5 % of the
# inputs and the five slowest (show one with `opconform-fuzz fuzz-show HARNESS FILE`).
costs() {
  for h in $(harness_list "${1:-all}"); do
    local bin
    bin="$(binary "$h")"
    # shellcheck disable=SC2046
    find "$corpus/$h" -maxdepth 1 -type f -print0 | sort -z |
      xargs -0 -n 500 "$bin" $(common_flags "$h") 2>&1 |
      awk '/^Executed / {print $(NF - 1), $2}' | sort -n |
      awk -v h="$h" '{ms[NR] = $1; file[NR] = $2; total += $1}
        END {if (NR == 0) {print h ": no inputs ran"; exit}
             top = int(NR / 20); for (i = NR - top + 1; i <= NR; i++) slow += ms[i]
             printf "%-30s %5d inputs, %6d ms in all, median %d ms; slowest 5 %% (%d inputs): %d ms (%.0f %%)\n",
               h, NR, total, ms[int((NR + 1) / 2)], top, slow, total ? 100 * slow / total : 0
             for (i = NR; i > NR - 5 && i > 0; i--) printf "    %6d ms  %s\n", ms[i], file[i]}' |
      sed "s|$root/||"
  done
}

# minimize [HARNESS|all] [DIR...]: the named seeds (any file whose name is not a 40-hex-digit
# SHA-1, libFuzzer's naming) always stay; the grown inputs, and those of the extra DIRs, are
# replaced by the subset that -merge=1 picks into a corpus holding only the named seeds.
minimize() {
  local target="${1:-all}"; shift || true
  for h in $(harness_list "$target"); do
    local bin fresh before after
    bin="$(binary "$h")"
    fresh="$build/fuzz-work/$h/minimized"
    rm -rf "$fresh"; mkdir -p "$fresh"
    copy_named_seeds "$corpus/$h" "$fresh"
    before=$(find "$corpus/$h" -maxdepth 1 -type f | wc -l)
    # shellcheck disable=SC2046
    "$bin" $(common_flags "$h") -merge=1 "$fresh" "$corpus/$h" "$@" >"$build/fuzz-work/$h.minimize.log" 2>&1 ||
      die "minimize failed, see $build/fuzz-work/$h.minimize.log"
    find "$corpus/$h" -maxdepth 1 -regextype posix-extended -type f -regex '.*/[0-9a-f]{40}' -delete
    find "$fresh" -maxdepth 1 -regextype posix-extended -type f -regex '.*/[0-9a-f]{40}' -exec cp {} "$corpus/$h/" \;
    after=$(find "$corpus/$h" -maxdepth 1 -type f | wc -l)
    printf '%-30s %6d -> %6d files (%s)\n' "$h" "$before" "$after" "$(du -sh "$corpus/$h" | cut -f1)"
  done
}

# CPU hours per harness over every run in the ledger.
hours() {
  [[ -s "$ledger" ]] || die "no ledger at $ledger"
  printf '%-30s %5s %9s %12s %8s\n' harness runs "CPU hours" executions findings
  awk -F'\t' 'NR > 1 {cpu[$3] += $6; runs[$3]++; execs[$3] += $7; found[$3] += $8}
    END {for (h in cpu) printf "%-30s %5d %9.2f %12d %8d\n", h, runs[h], cpu[h] / 3600, execs[h], found[h]}' \
    "$ledger" | sort
}

# Line coverage of reference/ and optimized/ from replaying corpus/<harness>/ once through each
# harness's replay main (clang 14 source-based coverage; llvm-cov 14 reads only clang 14's
# profiles). Only the harnesses are built (at -j1 under nice, OPCONFORM_COV_JOBS to change).
coverage() {
  local tool
  for tool in clang++-14 llvm-profdata-14 llvm-cov-14; do
    command -v "$tool" >/dev/null || die "coverage needs $tool (clang 14, llvm 14)"
  done
  cmake -S "$root" -B "$cov_build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" -DOPCONFORM_BUILD_TESTS=OFF \
    -DOPCONFORM_BUILD_BENCHMARKS=OFF -DOPCONFORM_SANITIZE=OFF -DOPCONFORM_LIBFUZZER=OFF \
    -DOPCONFORM_ADAPTER_ARMNN=OFF -DOPCONFORM_ADAPTER_TFJS=OFF -DOPCONFORM_ADAPTER_TORCH=OFF >/dev/null
  nice -n 10 cmake --build "$cov_build" --target "${all_harnesses[@]}" -j"${OPCONFORM_COV_JOBS:-1}" >/dev/null
  rm -rf "$cov_build/profiles"; mkdir -p "$cov_build/profiles"
  local objects=() h files
  for h in "${all_harnesses[@]}"; do
    files=$(find "$corpus/$h" -type f | wc -l)
    # One process per harness; the replay main runs each file once (its last line says how many).
    printf '%-30s %5s files, ' "$h" "$files"
    LLVM_PROFILE_FILE="$cov_build/profiles/$h.profraw" "$cov_build/fuzz/$h" "$corpus/$h" | tail -1
    objects+=(-object "$cov_build/fuzz/$h")
  done
  llvm-profdata-14 merge -sparse "$cov_build"/profiles/*.profraw -o "$cov_build/corpus.profdata"
  # Sources: the files of reference/ and optimized/ themselves (not their tests/ directories).
  local sources
  mapfile -t sources < <(find "$root/reference" "$root/optimized" -maxdepth 1 -type f \
                              \( -name '*.cc' -o -name '*.h' \) | sort)
  # llvm-cov takes the first binary bare and the others after -object.
  llvm-cov-14 report "${objects[@]:1}" -instr-profile="$cov_build/corpus.profdata" "${sources[@]}" |
    sed "s|$root/||"
  llvm-cov-14 show "${objects[@]:1}" -instr-profile="$cov_build/corpus.profdata" -format=html \
    -output-dir="$cov_build/html" "${sources[@]}" >/dev/null
  echo "line-by-line: $cov_build/html/index.html"
}

cmd="${1:-}"; shift || true
case "$cmd" in
  fuzz) fuzz "$@" ;;
  merge) (($# >= 2)) || die "usage: run.sh merge HARNESS DIR..."; h=$(harness_list "$1"); shift
         mkdir -p "$build/fuzz-work"; echo "added $(merge "$h" "$@") inputs to $corpus/$h" ;;
  triage) (($# >= 2)) || die "usage: run.sh triage HARNESS CRASH [NAME]"
          triage "$(harness_list "$1")" "$2" "${3:-}" ;;
  exec-rate) exec_rate "$@" ;;
  costs) costs "$@" ;;
  coverage) coverage ;;
  hours) hours ;;
  minimize) mkdir -p "$build/fuzz-work"; minimize "$@" ;;
  *) sed -n '2,29p' "$0"; exit 2 ;;
esac
