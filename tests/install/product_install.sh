#!/usr/bin/env bash
# The install the README documents, for `ctest -L install` and `ctest -L oss-fuzz`:
#   product_install.sh <source dir> <out dir>
# builds the `product` preset in <out>/build (configured on first use; later runs build only
# what changed, so it always matches the sources), installs it into <out>/prefix and packages it
# into <out>/deb (cpack -G DEB). scripts/do.sh test builds <build>/product/build before ctest, so
# that this finds it up to date.
set -euo pipefail
src=$(realpath "$1"); out=$2
mkdir -p "$out" && out=$(realpath "$out")
if [[ ! -f $out/build/CMakeCache.txt ]]; then
  echo "configuring the product preset in $out/build"
  (cd "$src" && cmake --preset product -B "$out/build" >"$out/configure.log") || { cat "$out/configure.log"; exit 1; }
fi
cmake --build "$out/build" -j "$(nproc)" >"$out/build.log" || { tail -60 "$out/build.log"; exit 1; }
for option in OPCONFORM_BUILD_TESTS OPCONFORM_BUILD_FUZZERS OPCONFORM_BUILD_MUTANTS OPCONFORM_BUILD_BENCHMARKS; do
  grep -q "^$option:BOOL=OFF$" "$out/build/CMakeCache.txt" \
    || { echo "$out/build is not the product preset's build ($option is not OFF)" >&2; exit 1; }
done
rm -rf "$out/prefix" "$out/deb"
cmake --install "$out/build" --prefix "$out/prefix" >"$out/install.log"
(cd "$out/build" && cpack -G DEB -B "$out/deb" >"$out/cpack.log") || { cat "$out/cpack.log"; exit 1; }
rm -rf "$out/deb/_CPack_Packages"
echo "product install: $out/prefix ($(find "$out/prefix" -type f | wc -l) files), $(ls "$out"/deb/*.deb)"
