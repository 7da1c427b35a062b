// SPDX-License-Identifier: Apache-2.0
// Where the command line finds its files: an environment variable when set, else the path
// relative to the running executable that `cmake --install` lays out (the build tree has the
// same layout, so `build/bin/opconform` works unchanged):
//
//   <prefix>/bin/opconform
//   <prefix>/libexec/opconform/opconform-worker            $OPCONFORM_WORKER
//   <prefix>/lib/opconform/libopconform_optimized_plugin.so $OPCONFORM_BUNDLED_PLUGIN
//   <prefix>/lib/opconform/mutants/                         $OPCONFORM_MUTANTS
//   <prefix>/share/opconform/vectors/                       $OPCONFORM_VECTORS
//   <prefix>/libexec/opconform/opconform-fuzz-driver       $OPCONFORM_FUZZ_DRIVER (clang builds)
//   <prefix>/share/opconform/fuzz/                          $OPCONFORM_FUZZ_DICTS
//
// The functions return the path whether or not it exists; callers report a missing file.
#pragma once

#include <string>

namespace opconform::validator {

std::string default_worker_path();
std::string default_bundled_plugin();
std::string default_mutants_dir();
std::string default_vectors_dir();
// `opconform fuzz`'s driver and the op harnesses' dictionaries it passes to libFuzzer.
std::string default_fuzz_driver();
std::string default_fuzz_dicts_dir();

}  // namespace opconform::validator
