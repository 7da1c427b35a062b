#!/usr/bin/env bash
# The install the README documents, as a user meets it (ctest "install"):
#   check_install.sh <product dir> <opconform source dir> <scratch dir>
# <product dir> holds the `product` preset's install (prefix/) and Debian package (deb/), made
# by tests/install/product_install.sh.
# 1. the install is copied elsewhere (the package must be relocatable), and the installed tree
#    holds what the README's install table promises (with clang: the fuzz driver, the sanitized
#    worker, the fuzz library and dictionaries; the license beside the docs, an SPDX line in
#    every header);
# 2. the installed `opconform` runs from there: --version, run, validate, exit 2 for a missing
#    vector folder, and `mutants` is not offered (the catalogue is not part of the product);
# 3. the plug-in header compiles through pkg-config alone;
# 4. the example consumer (examples/kernel_library) configures against the moved prefix only,
#    builds with the default compiler (g++), and passes its own ctest (GoogleTest suite, plug-in,
#    validate test); with clang, its fuzzing build (MYKERNELS_FUZZ) builds a fuzz target that
#    fuzzes mykernels for 5 s cleanly, and an instrumented plug-in that the installed
#    `opconform validate` (its sanitized worker) and `opconform fuzz` (its driver) take;
# 5. the Debian package's version, contents (the copyright file too) and dependencies.
set -euo pipefail
product=$(realpath "$1"); src=$(realpath "$2"); work=$3
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
step() { echo; echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
have_clang=false
command -v clang++ >/dev/null 2>&1 && have_clang=true

step "the product install, copied elsewhere"
cp -a "$product/prefix" "$work/prefix"
prefix=$work/prefix
fuzz_paths=()
if $have_clang; then
  fuzz_paths=(libexec/opconform/opconform-fuzz-driver libexec/opconform/sanitized/opconform-worker
              include/opconform/fuzz/impl_target.h lib/libopconform_fuzz_impl.a share/opconform/fuzz/fuzz_dynamic_stitch.dict)
fi
for path in bin/opconform libexec/opconform/opconform-worker lib/opconform/libopconform_optimized_plugin.so \
            include/opconform/plugin_abi.h include/opconform/plugin_sdk/plugin_entry.h include/opconform/tensor.h \
            include/opconform/gtest/suite.h \
            include/opconform/reference/op_table.h include/opconform/conformance/compare.h \
            include/opconform/generators/op_generators.h lib/libopconform_reference.a lib/libopconform_gtest.a \
            "${fuzz_paths[@]}" lib/cmake/opconform/opconformConfig.cmake lib/cmake/opconform/opconformConfigVersion.cmake \
            lib/cmake/opconform/opconformTargets.cmake lib/pkgconfig/opconform-plugin-abi.pc \
            share/opconform/vectors/dynamic_stitch/golden_doc_example.json \
            share/doc/opconform/README.md share/doc/opconform/docs/contract/README.md share/doc/opconform/docs/plugin-abi.md \
            share/doc/opconform/corpus/README.md share/doc/opconform/LICENSE share/doc/opconform/copyright \
            share/doc/opconform/CHANGELOG.md; do
  [[ -e $prefix/$path ]] || fail "installed tree lacks $path"
done
[[ ! -e $prefix/include/opconform/reference/space_batch_common.h ]] || fail "an internal header was installed"
# abi_export.h needs the plug-in kit's library, which is not installed: a header a user could
# not link must not be installed either.
[[ ! -e $prefix/include/opconform/plugin_sdk/abi_export.h ]] || fail "plugin_sdk/abi_export.h was installed without its library"
unlicensed=$(grep -rL --include='*.h' "SPDX-License-Identifier: Apache-2.0" "$prefix/include" || true)
[[ -z $unlicensed ]] || fail "installed headers without an SPDX line: $unlicensed"
if grep -rIl -e "$src" -e "$product" "$prefix" --include='*.cmake' --include='*.pc' >/dev/null; then
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
# The mutant catalogue measures opconform's own tests (the default preset's build tree): the
# product neither installs it nor offers the command.
[[ ! -e $prefix/lib/opconform/mutants ]] || fail "the product installed the mutant catalogue"
help=$("$prefix/bin/opconform" --help)
if grep -q "^  mutants" <<<"$help"; then fail "the product's --help offers mutants"; fi
grep -q "^  validate" <<<"$help" || fail "the product's --help lacks validate"
set +e
"$prefix/bin/opconform" mutants >"$work/mutants.log" 2>&1; rc=$?
set -e
[[ $rc == 2 ]] || { cat "$work/mutants.log"; fail "opconform mutants from the product: exit $rc, expected 2 (no such command)"; }
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

step "the example's fuzzing build (clang): a fuzz target, and its instrumented plug-in under validate and fuzz"
if $have_clang; then
  cmake -S "$src/examples/kernel_library" -B "$work/example-fuzz" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER=clang++ -DMYKERNELS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$work/example-fuzz-configure.log" || { cat "$work/example-fuzz-configure.log"; fail "example fuzz configure"; }
  cmake --build "$work/example-fuzz" -j "$(nproc)" --target mykernels_fuzz_DynamicStitch mykernels_plugin \
    >"$work/example-fuzz-build.log" || { cat "$work/example-fuzz-build.log"; fail "example fuzz build"; }
  mkdir -p "$work/example-fuzz/corpus"
  "$work/example-fuzz/mykernels_fuzz_DynamicStitch" -max_total_time=5 -max_len=8192 \
    -dict="$prefix/share/opconform/fuzz/fuzz_dynamic_stitch.dict" "$work/example-fuzz/corpus" \
    >"$work/example-fuzz.log" 2>&1 || { tail -40 "$work/example-fuzz.log"; fail "the example's fuzz target"; }
  grep -q "opconform fuzz target: mykernels_fuzz_DynamicStitch, op DynamicStitch" "$work/example-fuzz.log" \
    || { tail -40 "$work/example-fuzz.log"; fail "the fuzz target did not say what it fuzzes"; }
  grep -E "^#[0-9]+.*(DONE|cov:)" "$work/example-fuzz.log" | tail -1
  echo "example fuzz target ok"

  # The instrumented plug-in leaves ASan's symbols to the process: the plain worker cannot load
  # it, the installed sanitized worker can, and validate picks it by itself.
  plugin=$work/example-fuzz/libmykernels_plugin.so
  "$prefix/bin/opconform" validate --impl "$plugin" --ops DynamicStitch --cases 40 --seed 1 \
    >"$work/validate-sanitized.log" 2>&1 || { tail -30 "$work/validate-sanitized.log"; fail "validate on the instrumented plug-in"; }
  tail -1 "$work/validate-sanitized.log"
  set +e
  OPCONFORM_SANITIZED_WORKER=$work/no-such-worker "$prefix/bin/opconform" validate --impl "$plugin" --cases 1 \
    >"$work/validate-unsanitized.log" 2>&1; rc=$?
  set -e
  [[ $rc == 2 ]] && grep -q "is built with sanitizers" "$work/validate-unsanitized.log" \
    || { cat "$work/validate-unsanitized.log"; fail "an instrumented plug-in without the sanitized worker: exit $rc, expected 2"; }
  "$prefix/bin/opconform" fuzz --impl "$plugin" --ops DynamicStitch --time 5 --dir "$work/fuzz-campaign" \
    >"$work/fuzz-campaign.log" 2>&1 || { tail -30 "$work/fuzz-campaign.log"; fail "opconform fuzz on the instrumented plug-in"; }
  grep -i "DynamicStitch" "$work/fuzz-campaign.log" | tail -2
  echo "instrumented plug-in ok: validate (sanitized worker) and fuzz (driver) from the install"
else
  echo "skipped: no clang++"
fi

step "the Debian package"
deb=$(ls "$product"/deb/*.deb)
dpkg-deb -f "$deb" Package Version Maintainer Homepage Depends
[[ $(dpkg-deb -f "$deb" Version) == "${version#opconform }" ]] || fail "the .deb's version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 libstdc++6 libgomp1 libgtest-dev librapidcheck-dev; do
  [[ $depends == *"$dep"* ]] || fail "Depends lacks $dep: $depends"
done
dpkg-deb -c "$deb" >"$work/deb-contents.txt"
for path in ./usr/bin/opconform ./usr/libexec/opconform/opconform-worker ./usr/include/opconform/plugin_abi.h \
            ./usr/lib/cmake/opconform/opconformConfig.cmake ./usr/lib/pkgconfig/opconform-plugin-abi.pc \
            ./usr/share/opconform/vectors/ ./usr/share/doc/opconform/README.md ./usr/share/doc/opconform/copyright \
            ${fuzz_paths:+./usr/libexec/opconform/opconform-fuzz-driver ./usr/libexec/opconform/sanitized/opconform-worker}; do
  grep -q " $path" "$work/deb-contents.txt" || fail "the .deb lacks $path"
done
echo "$(basename "$deb"): $(stat -c %s "$deb") bytes, $(wc -l <"$work/deb-contents.txt") entries"
echo; echo "install check passed"
