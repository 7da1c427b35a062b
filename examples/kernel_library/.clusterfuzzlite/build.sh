#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script for a kernel library fuzzed with opconform (opconform's
# FUZZING.md, "Fuzzing your own kernels"). With the environment's compiler and flags ($CC $CXX
# $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE), in $WORK:
#  1. opconform: an installed one when $OPCONFORM_PREFIX names it (built against the same C++
#     standard library as $CXXFLAGS asks for); else its libraries are built from $OPCONFORM_SRC
#     (default $SRC/opconform, the release the Dockerfile copies in) with those flags and
#     installed in $WORK;
#  2. this project with MYKERNELS_FUZZ=ON and MYKERNELS_FUZZING_ENGINE=$LIB_FUZZING_ENGINE: one
#     fuzz target per op (opconform_add_fuzz_target), copied to $OUT with opconform's dictionary
#     of the op, options, and a seed corpus made from opconform's bundled vectors of the op.
# Runs from this project's root ($SRC/mykernels in the image). Extra CMake arguments for
# opconform: $OPCONFORM_CMAKE_ARGS; parallel jobs: $BUILD_JOBS (default: nproc).
root="$(pwd)"
jobs="${BUILD_JOBS:-$(nproc)}"
declare -A harness=([DynamicStitch]=dynamic_stitch [ParallelDynamicStitch]=parallel_dynamic_stitch
                    [DynamicPartition]=dynamic_partition)

if [[ -n "${OPCONFORM_PREFIX:-}" ]]; then
  prefix="$OPCONFORM_PREFIX"
else
  opconform_src="${OPCONFORM_SRC:-$SRC/opconform}"
  prefix="$WORK/opconform-prefix"
  # shellcheck disable=SC2086
  cmake -S "$opconform_src" -B "$WORK/opconform-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
    -DOPCONFORM_LIBFUZZER=ON -DOPCONFORM_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" -DOPCONFORM_SANITIZE=OFF \
    -DOPCONFORM_BUILD_TESTS=OFF -DOPCONFORM_BUILD_BENCHMARKS=OFF -DOPCONFORM_BUILD_MUTANTS=OFF \
    -DOPCONFORM_BUILD_FUZZERS=OFF ${OPCONFORM_CMAKE_ARGS:-}
  cmake --build "$WORK/opconform-build" -j"$jobs"
  cmake --install "$WORK/opconform-build" --prefix "$prefix"
fi

# shellcheck disable=SC2086
cmake -S "$root" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib' -DMYKERNELS_FUZZ=ON -DMYKERNELS_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  ${OPCONFORM_CMAKE_ARGS:-}
# Seeds: opconform's bundled vectors in the harness byte format, one folder per op harness.
rm -rf "$WORK/seeds"
"$prefix/bin/opconform" fuzz-seed --vectors "$prefix/share/opconform/vectors" \
  --corpus "$WORK/seeds" >/dev/null
for op in "${!harness[@]}"; do
  target="mykernels_fuzz_$op"
  cmake --build "$WORK/build" --target "$target" -j"$jobs"
  cp "$WORK/build/$target" "$OUT/"
  cp "$prefix/share/opconform/fuzz/fuzz_${harness[$op]}.dict" "$OUT/$target.dict"
  printf '[libfuzzer]\nmax_len = 8192\ntimeout = 25\nrss_limit_mb = 2560\n' >"$OUT/$target.options"
  rm -f "$OUT/${target}_seed_corpus.zip"
  (cd "$WORK/seeds/fuzz_${harness[$op]}" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done

# The OpenMP runtime opconform's kernels link, next to the binaries under its SONAME.
omp_lib="$(sed -n 's/^OpenMP_omp_LIBRARY:[A-Z]*=//p' "$WORK/build/CMakeCache.txt")"
if [[ -n "$omp_lib" && -f "$omp_lib" ]]; then
  soname="$(objdump -p "$omp_lib" | awk '/SONAME/ {print $2}')"
  mkdir -p "$OUT/lib"
  cp -L "$omp_lib" "$OUT/lib/${soname:-$(basename "$omp_lib")}"
fi
