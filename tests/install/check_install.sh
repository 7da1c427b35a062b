#!/usr/bin/env bash
# The installed package as a user meets it (ctest "install"):
#   check_install.sh <opconform build dir> <opconform source dir> <scratch dir>
# 1. `cmake --install` into a temporary prefix, which is then moved (the package must be
#    relocatable), and the installed tree holds what the README promises (the license
#    beside the docs, an SPDX line in every header);
# 2. the installed `opconform` runs from there: --version, run, validate, mutants, and exit 2
#    for a missing vector folder;
# 3. the plug-in header compiles through pkg-config alone;
# 4. the example consumer (examples/kernel_library) configures against the moved prefix only,
#    builds, and passes its own ctest (GoogleTest suite, plug-in, validate test); with clang,
#    its fuzz build (MYKERNELS_FUZZ) builds a fuzz target that fuzzes mykernels for 5 s cleanly;
# 5. `cpack -G DEB` builds the Debian package, whose version, contents (the copyright file too)
#    and dependencies are checked.
set -euo pipefail
build=$(realpath "$1"); src=$(realpath "$2"); work=$3
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
step() { echo; echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "install into a temporary prefix, then move it"
cmake --install "$build" --prefix "$work/staging" >"$work/install.log"
mv "$work/staging" "$work/prefix"
prefix=$work/prefix
for path in bin/opconform libexec/opconform/opconform-worker lib/opconform/libopconform_optimized_plugin.so \
            include/opconform/plugin_abi.h include/opconform/tensor.h include/opconform/gtest/suite.h \
            include/opconform/reference/op_table.h include/opconform/conformance/compare.h \
            include/opconform/generators/op_generators.h lib/libopconform_reference.a lib/libopconform_gtest.a \
            include/opconform/fuzz/impl_target.h lib/libopconform_fuzz_impl.a share/opconform/fuzz/fuzz_dynamic_stitch.dict \
            lib/cmake/opconform/opconformConfig.cmake lib/cmake/opconform/opconformConfigVersion.cmake \
            lib/cmake/opconform/opconformTargets.cmake lib/pkgconfig/opconform-plugin-abi.pc \
            share/opconform/vectors/dynamic_stitch/golden_doc_example.json \
            share/doc/opconform/README.md share/doc/opconform/docs/contract/README.md share/doc/opconform/docs/plugin-abi.md \
            share/doc/opconform/corpus/README.md share/doc/opconform/LICENSE share/doc/opconform/copyright \
            share/doc/opconform/CHANGELOG.md; do
  [[ -e $prefix/$path ]] || fail "installed tree lacks $path"
done
[[ ! -e $prefix/include/opconform/reference/space_batch_common.h ]] || fail "an internal header was installed"
unlicensed=$(grep -rL --include='*.h' "SPDX-License-Identifier: Apache-2.0" "$prefix/include" || true)
[[ -z $unlicensed ]] || fail "installed headers without an SPDX line: $unlicensed"
if grep -rIl -e "$src" -e "$build" "$prefix" --include='*.cmake' --include='*.pc' >/dev/null; then
  fail "an installed CMake or pkg-config file names the source or build tree"
fi
vectors=$(find "$prefix/share/opconform/vectors" -name '*.json' | wc -l)
echo "installed tree ok: $(find "$prefix" -type f | wc -l) files, $vectors vectors"

step "the installed command line, from the moved prefix"
cd "$work"
version=$("$prefix/bin/opconform" --version) || fail "opconform --version"
[[ $version =~ ^opconform\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "opconform --version printed \"$version\""
echo "$version"
"$prefix/bin/opconform" run --impl optimized >"$work/run.log" || { cat "$work/run.log"; fail "run"; }
grep -q "^total  *$vectors  *0  *0" "$work/run.log" || { cat "$work/run.log"; fail "run did not pass all $vectors vectors"; }
"$prefix/bin/opconform" validate --cases 30 --seed 1 --junit "$work/validate.xml" >"$work/validate.log" 2>&1 \
  || { cat "$work/validate.log"; fail "validate on the bundled plug-in"; }
grep -q "tests=" "$work/validate.xml" || fail "validate wrote no JUnit report"
set +e
OPCONFORM_VECTORS=$work/no-such-folder "$prefix/bin/opconform" run >"$work/missing.log" 2>&1; rc=$?
set -e
[[ $rc == 2 ]] && grep -q "no-such-folder" "$work/missing.log" || { cat "$work/missing.log"; fail "missing vectors: exit $rc, expected 2 naming the folder"; }
if [[ -e $prefix/lib/opconform/mutants/catalogue.json ]]; then
  "$prefix/bin/opconform" mutants --only s2b_padding_wrong_end --layers vectors >"$work/mutants.log" 2>&1 \
    || { cat "$work/mutants.log"; fail "mutants from the install"; }
fi
echo "command line ok"

step "the plug-in header through pkg-config"
printf '#include <opconform/plugin_abi.h>\nint main(void) { return OPCONFORM_ABI_VERSION == 1u ? 0 : 1; }\n' >"$work/abi.c"
cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags opconform-plugin-abi)
cc -std=c99 -Wall -Werror $cflags "$work/abi.c" -o "$work/abi" && "$work/abi" || fail "plugin_abi.h through pkg-config"
echo "pkg-config ok: $cflags"

step "the example consumer against the prefix"
cmake -S "$src/examples/kernel_library" -B "$work/example" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/example-configure.log" || { cat "$work/example-configure.log"; fail "example configure"; }
cmake --build "$work/example" -j "$(nproc)" >"$work/example-build.log" || { cat "$work/example-build.log"; fail "example build"; }
ctest --test-dir "$work/example" -j "$(nproc)" --output-on-failure | tail -15

step "the example's fuzz targets (clang): opconform_add_fuzz_target with mykernels in-process"
if command -v clang++ >/dev/null 2>&1; then
  cmake -S "$src/examples/kernel_library" -B "$work/example-fuzz" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER=clang++ -DMYKERNELS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$work/example-fuzz-configure.log" || { cat "$work/example-fuzz-configure.log"; fail "example fuzz configure"; }
  cmake --build "$work/example-fuzz" -j "$(nproc)" --target mykernels_fuzz_DynamicStitch \
    >"$work/example-fuzz-build.log" || { cat "$work/example-fuzz-build.log"; fail "example fuzz build"; }
  mkdir -p "$work/example-fuzz/corpus"
  "$work/example-fuzz/mykernels_fuzz_DynamicStitch" -max_total_time=5 -max_len=8192 \
    -dict="$prefix/share/opconform/fuzz/fuzz_dynamic_stitch.dict" "$work/example-fuzz/corpus" \
    >"$work/example-fuzz.log" 2>&1 || { tail -40 "$work/example-fuzz.log"; fail "the example's fuzz target"; }
  grep -q "opconform fuzz target: mykernels_fuzz_DynamicStitch, op DynamicStitch" "$work/example-fuzz.log" \
    || { tail -40 "$work/example-fuzz.log"; fail "the fuzz target did not say what it fuzzes"; }
  grep -E "^#[0-9]+.*(DONE|cov:)" "$work/example-fuzz.log" | tail -1
  echo "example fuzz target ok"
else
  echo "skipped: no clang++"
fi

step "the Debian package"
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log") || { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$work"/deb/*.deb)
dpkg-deb -f "$deb" Package Version Maintainer Homepage Depends
[[ $(dpkg-deb -f "$deb" Version) == "${version#opconform }" ]] || fail "the .deb's version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 libstdc++6 libgomp1 libgtest-dev librapidcheck-dev; do
  [[ $depends == *"$dep"* ]] || fail "Depends lacks $dep: $depends"
done
dpkg-deb -c "$deb" >"$work/deb-contents.txt"
for path in ./usr/bin/opconform ./usr/libexec/opconform/opconform-worker ./usr/include/opconform/plugin_abi.h \
            ./usr/lib/cmake/opconform/opconformConfig.cmake ./usr/lib/pkgconfig/opconform-plugin-abi.pc \
            ./usr/share/opconform/vectors/ ./usr/share/doc/opconform/README.md ./usr/share/doc/opconform/copyright; do
  grep -q " $path" "$work/deb-contents.txt" || fail "the .deb lacks $path"
done
echo "$(basename "$deb"): $(stat -c %s "$deb") bytes, $(wc -l <"$work/deb-contents.txt") entries"
echo; echo "install check passed"
