#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script (FUZZING.md, "ClusterFuzzLite"). Builds the seven
# harnesses with the environment's compiler and flags ($CC $CXX $CFLAGS $CXXFLAGS
# $LIB_FUZZING_ENGINE), in $WORK, and installs into $OUT: the binaries, <harness>_seed_corpus.zip
# (corpus/<harness>/), <harness>.dict and <harness>.options, plus lib/ with the OpenMP runtime
# the optimized kernels link (the runner image has none; binaries find it through
# RPATH $ORIGIN/lib, set through CMAKE_BUILD_RPATH: CMake escapes it for the generator, while in
# linker flags the build shell expands $ORIGIN to nothing). Runs from the project root
# ($SRC/opconform in the image).
# Extra CMake arguments: $OPCONFORM_CMAKE_ARGS (the Dockerfile points OpenMP at libomp there).
# Parallel jobs: $OPCONFORM_BUILD_JOBS (default: nproc). The third-party adapters are off: they
# default to ON where their packages are installed, and the harnesses never link them.
root="$(pwd)"
[[ -f "$root/fuzz/CMakeLists.txt" ]] || { echo "build.sh: run it from the opconform root" >&2; exit 2; }
harnesses=(fuzz_space_to_batch_nd fuzz_batch_to_space_nd fuzz_dynamic_stitch
  fuzz_parallel_dynamic_stitch fuzz_dynamic_partition fuzz_sparse_concat fuzz_vector_reader)
build="$WORK/opconform-build"

# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=OSSFuzz \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib' \
  -DOPCONFORM_LIBFUZZER=ON -DOPCONFORM_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DOPCONFORM_SANITIZE=OFF -DOPCONFORM_BUILD_TESTS=OFF -DOPCONFORM_BUILD_BENCHMARKS=OFF -DOPCONFORM_BUILD_MUTANTS=OFF \
  -DOPCONFORM_ADAPTER_ARMNN=OFF -DOPCONFORM_ADAPTER_TFJS=OFF -DOPCONFORM_ADAPTER_TORCH=OFF \
  ${OPCONFORM_CMAKE_ARGS:-}
cmake --build "$build" --target "${harnesses[@]}" -j"${OPCONFORM_BUILD_JOBS:-$(nproc)}"

for h in "${harnesses[@]}"; do
  cp "$build/fuzz/$h" "$OUT/"
  cp "$root/fuzz/$h.dict" "$OUT/"
  max_len=4096
  [[ "$h" == fuzz_vector_reader ]] && max_len=16384
  printf '[libfuzzer]\nmax_len = %s\ntimeout = 25\nrss_limit_mb = 2560\n' "$max_len" >"$OUT/$h.options"
  rm -f "$OUT/${h}_seed_corpus.zip"
  (cd "$root/corpus/$h" && zip -q -r "$OUT/${h}_seed_corpus.zip" .)
done

# The OpenMP runtime next to the binaries, under its SONAME.
omp_lib="$(sed -n 's/^OpenMP_omp_LIBRARY:[A-Z]*=//p' "$build/CMakeCache.txt")"
if [[ -n "$omp_lib" && -f "$omp_lib" ]]; then
  soname="$(objdump -p "$omp_lib" | awk '/SONAME/ {print $2}')"
  mkdir -p "$OUT/lib"
  cp -L "$omp_lib" "$OUT/lib/${soname:-$(basename "$omp_lib")}"
fi
