#!/usr/bin/env bash
# The scale-out path (ctest "oss-fuzz"): examples/kernel_library/.clusterfuzzlite/build.sh run
# the way OSS-Fuzz and ClusterFuzzLite run it, without Docker:
#   check_oss_fuzz.sh <opconform prefix> <opconform source dir> <scratch dir>
# 1. OSS-Fuzz's build environment set by hand (its base-builder's defaults for libFuzzer + ASan:
#    CC, CXX, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, SRC, WORK, OUT), clang 14, and the installed
#    opconform (OPCONFORM_PREFIX). OSS-Fuzz adds -stdlib=libc++ to CXXFLAGS; that is left out
#    here because the installed opconform is built against libstdc++ (in the Docker image
#    build.sh builds opconform from source with the image's own flags).
# 2. $SRC/mykernels is a copy of the example, and build.sh runs from there as the image runs it.
# 3. Each fuzz target in $OUT is checked as check_build does: an executable with libFuzzer's
#    entry point, built with ASan and with coverage counters, that runs from $OUT alone (its
#    libraries beside it), then fuzzes briefly from its seed corpus with its dictionary and
#    options and exits 0.
set -euo pipefail
prefix=$(realpath "$1"); src=$(realpath "$2"); scratch=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v clang++ >/dev/null 2>&1 || { echo "skipped: no clang++"; exit 77; }
[[ -x $prefix/bin/opconform ]] || fail "no opconform install at $prefix"

rm -rf "$scratch" && mkdir -p "$scratch" && scratch=$(realpath "$scratch")
export SRC=$scratch/src WORK=$scratch/work OUT=$scratch/out
mkdir -p "$SRC" "$WORK" "$OUT"
export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export OPCONFORM_PREFIX=$prefix
cp -a "$src/examples/kernel_library" "$SRC/mykernels"

echo "== build.sh (CC=$CC CXX=$CXX LIB_FUZZING_ENGINE=$LIB_FUZZING_ENGINE OPCONFORM_PREFIX=$prefix)"
start=$(date +%s)
(cd "$SRC/mykernels" && bash .clusterfuzzlite/build.sh) >"$scratch/build.log" 2>&1 \
  || { tail -60 "$scratch/build.log"; fail "build.sh"; }
echo "built in $(( $(date +%s) - start )) s; \$OUT: $(cd "$OUT" && ls | tr '\n' ' ')"

targets=()
for f in "$OUT"/*; do
  [[ -f $f && -x $f ]] && targets+=("$(basename "$f")")
done
(( ${#targets[@]} == 3 )) || fail "expected 3 fuzz targets in \$OUT, found ${#targets[@]}: ${targets[*]}"

for target in "${targets[@]}"; do
  bin=$OUT/$target
  echo "== $target"
  symbols=$(nm "$bin")  # whole, not piped into grep -q (pipefail)
  grep -q " T LLVMFuzzerTestOneInput$" <<<"$symbols" || fail "$target: no LLVMFuzzerTestOneInput"
  grep -q "__asan_init" <<<"$symbols" || fail "$target: not built with AddressSanitizer"
  for extra in dict options _seed_corpus.zip; do
    file=$OUT/$target.$extra
    [[ $extra == _seed_corpus.zip ]] && file=$OUT/${target}_seed_corpus.zip
    [[ -s $file ]] || fail "$target: no $(basename "$file") in \$OUT"
  done
  corpus=$scratch/run/$target/corpus
  mkdir -p "$corpus"
  (cd "$corpus" && unzip -q "$OUT/${target}_seed_corpus.zip")
  seeds=$(find "$corpus" -type f | wc -l)
  (( seeds > 0 )) || fail "$target: an empty seed corpus"
  # The .options file's [libfuzzer] section, as -key=value flags.
  mapfile -t options < <(sed -n 's/^\([a-z_]*\) *= *\(.*\)$/-\1=\2/p' "$OUT/$target.options")
  log=$scratch/run/$target.log
  # A clean environment: only what the runner image has, so $OUT/lib must carry the rest.
  if ! (cd "$scratch/run" && env -i PATH=/usr/bin:/bin "$bin" -dict="$OUT/$target.dict" "${options[@]}" \
          -max_total_time=5 -print_final_stats=1 "$corpus" >"$log" 2>&1); then
    tail -40 "$log"; fail "$target: did not run cleanly from its seed corpus"
  fi
  grep -q "INFO: Loaded 1 modules *([1-9][0-9]* inline 8-bit counters)" "$log" || { head -20 "$log"; fail "$target: no coverage counters"; }
  grep -q "Dictionary: [1-9][0-9]* entries" "$log" || { head -20 "$log"; fail "$target: the dictionary was not read"; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$target: $seeds seeds, dictionary and options ($(echo "${options[*]}")) read, $runs runs in 5 s, exit 0"
done
echo; echo "oss-fuzz check passed: ${#targets[@]} targets"
