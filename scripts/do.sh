#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root) and for CI:
#   bash scripts/do.sh run    install what is missing, build, replay the bundled corpus
#   bash scripts/do.sh test   install what is missing, build, run the whole ctest suite, then
#                             a short libFuzzer smoke of every harness (fuzz preset)
#   bash scripts/do.sh deps   only install the Debian packages
set -euo pipefail
cd "$(dirname "$0")/.."

# Every dependency is a Debian package (CMake never downloads anything).
packages=(
  cmake ninja-build g++ python3
  xtensor-dev libxsimd-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev librapidcheck-dev libbenchmark-dev
  clang libclang-rt-14-dev libomp-14-dev llvm
  # the third-party implementations the validator is tested against (adapters/)
  libarmnn-dev libarmnn-cpuref-backend22 libtorch-dev
)
# TensorFlow.js comes from npm: the machine's Node.js and npm, else Debian's.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

install_deps() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {
  # tfjs versions are pinned in adapters/tfjs/package-lock.json; CMake itself never fetches.
  (cd adapters/tfjs && npm ci --no-audit --no-fund --loglevel=error)
  # The WebAssembly backend's adapter likewise (adapters/tfjs-wasm, a few seconds). The WebGL
  # one needs a browser and is installed by hand (docs/third-party.md).
  (cd adapters/tfjs-wasm && npm ci --no-audit --no-fund --loglevel=error)
  cmake --preset default
  cmake --build --preset default -j "$(nproc)"
}

case "${1:-}" in
  deps) install_deps ;;
  run)
    install_deps
    build
    build/tools/opconform run
    ;;
  test)
    install_deps
    build
    ctest --preset default
    # fuzz-smoke: every libFuzzer harness (clang 14, ASan + UBSan) fuzzes briefly from its corpus
    cmake --preset fuzz
    cmake --build --preset fuzz --target fuzz_harnesses -j "$(nproc)"
    ctest --test-dir build-fuzz -L fuzz-smoke -j "$(nproc)" --output-on-failure
    ;;
  *)
    echo "usage: bash scripts/do.sh run|test|deps" >&2
    exit 2
    ;;
esac
