// SPDX-License-Identifier: Apache-2.0
// Where the command line finds its files: an environment variable when set, else the path
// relative to the running executable that `cmake --install` lays out (the build tree has the
// same layout, so `build/bin/opconform` works unchanged):
//
//   <prefix>/bin/opconform
//   <prefix>/libexec/opconform/opconform-worker            $OPCONFORM_WORKER
//   <prefix>/libexec/opconform/sanitized/opconform-worker  (for sanitized plug-ins, clang builds)
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
// The worker that loads the plug-in `impl`: $OPCONFORM_WORKER when set; else, for a plug-in
// built with ASan, UBSan or SanitizerCoverage (it leaves their runtime's symbols to the
// process), the sanitized worker where the build made one; else the plain worker.
struct WorkerChoice {
  std::string path;
  bool sanitized = false;        // the worker carries ASan: RLIMIT_AS cannot bound it
  bool lacks_sanitized = false;  // a sanitized plug-in, and no sanitized worker to load it
};
WorkerChoice choose_worker(const std::string& impl);
// Whether the ELF shared library at `path` leaves sanitizer runtime symbols undefined
// (__asan_*, __ubsan_*, __sanitizer_cov_*); false for anything it cannot read as ELF.
bool needs_sanitizer_runtime(const std::string& path);
std::string default_bundled_plugin();
std::string default_mutants_dir();
std::string default_vectors_dir();
// `opconform fuzz`'s driver and the op harnesses' dictionaries it passes to libFuzzer.
std::string default_fuzz_driver();
std::string default_fuzz_dicts_dir();

}  // namespace opconform::validator
