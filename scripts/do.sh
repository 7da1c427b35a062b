#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root) and for CI:
#   bash scripts/do.sh run    install the product's packages, build the product only, and check
#                             the bundled optimized kernels end to end with `opconform validate`
#                             (every bundled vector, then generated cases): the verdict table
#   bash scripts/do.sh test   install the developers' packages too, build the product preset
#                             (the documented install) and everything, run the whole ctest
#                             suite (the install + example + .deb and oss-fuzz checks included),
#                             then a short libFuzzer smoke of every harness and of
#                             `opconform fuzz` (fuzz preset)
#   bash scripts/do.sh deps [run|test]   only install the Debian packages of that command
#   bash scripts/do.sh packages          print every package the commands may install, one a
#                                        line (the install check verifies that they provide
#                                        every program the commands call)
set -euo pipefail
cd "$(dirname "$0")/.."

# Every build dependency is a Debian package (CMake never downloads anything); the test command
# also fetches TensorFlow.js, TensorFlow Lite's WebAssembly runtime and ONNX Runtime from the npm
# registry (npm ci, pinned by the lock files).
product_packages=(
  cmake ninja-build g++ python3
  xtensor-dev libxsimd-dev nlohmann-json3-dev libcli11-dev libgtest-dev librapidcheck-dev
)
test_packages=(
  libbenchmark-dev clang libclang-rt-14-dev libomp-14-dev llvm pkg-config dpkg-dev
  # cpack -G DEB in the install check: CPackDeb runs `file` on every binary (shlibdeps)
  file
  # the oss-fuzz check: build.sh zips each target's seed corpus, the check unzips it
  zip unzip
  # the format check (ctest format.clang_format) and the mutant catalogue's reformatting check
  clang-format
  # the third-party implementations the validator is tested against (adapters/)
  libarmnn-dev libarmnn-cpuref-backend22 libtorch-dev
)

install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# TensorFlow.js comes from npm: the machine's Node.js and npm, else Debian's.
node_packages=(nodejs npm)

product_deps() { install_packages "${product_packages[@]}"; }
test_deps() {
  local extra=()
  command -v npm >/dev/null 2>&1 || extra+=("${node_packages[@]}")
  install_packages "${product_packages[@]}" "${test_packages[@]}" "${extra[@]}"
}

case "${1:-}" in
  deps)
    if [[ ${2:-run} == test ]]; then test_deps; else product_deps; fi
    ;;
  packages)
    printf '%s\n' "${product_packages[@]}" "${test_packages[@]}" "${node_packages[@]}"
    ;;
  run)
    product_deps
    cmake --preset product
    # the command line, its worker and the bundled plug-in: what the check below needs
    cmake --build --preset product -j "$(nproc)" --target opconform opconform-worker opconform_optimized_plugin
    build/bin/opconform validate --seed 1
    ;;
  test)
    test_deps
    # tfjs versions are pinned in adapters/tfjs/package-lock.json; CMake itself never fetches.
    (cd adapters/tfjs && npm ci --no-audit --no-fund --loglevel=error)
    # The WebAssembly backend's adapter likewise (adapters/tfjs-wasm, a few seconds). The WebGL
    # one needs a browser and is installed by hand (docs/third-party.md).
    (cd adapters/tfjs-wasm && npm ci --no-audit --no-fund --loglevel=error)
    # TensorFlow Lite's WebAssembly runtime (in @tensorflow/tfjs-tflite) and flatbuffers; ONNX
    # Runtime with its package scripts disabled (libonnxruntime.so is in the package; the
    # postinstall script would only download GPU variants).
    (cd adapters/tflite && npm ci --no-audit --no-fund --loglevel=error)
    (cd adapters/onnxruntime && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    # The install the README documents (product preset) in build/product/build: ctest's install and
    # oss-fuzz checks install and test it (tests/install/product_install.sh).
    cmake --preset product -B build/product/build
    cmake --build build/product/build -j "$(nproc)"
    cmake --preset default
    cmake --build --preset default -j "$(nproc)"
    ctest --preset default
    # fuzz-smoke: every libFuzzer harness (clang 14, ASan + UBSan) fuzzes briefly from its corpus;
    # fuzz-impl: `opconform fuzz` on the bundled plug-in (clean) and on a broken one (found)
    cmake --preset fuzz
    cmake --build --preset fuzz --target fuzz_harnesses fuzz_impl_check -j "$(nproc)"
    ctest --test-dir build-fuzz -L 'fuzz-smoke|fuzz-impl' -j "$(nproc)" --output-on-failure
    ;;
  *)
    echo "usage: bash scripts/do.sh run|test|deps [run|test]|packages" >&2
    exit 2
    ;;
esac
