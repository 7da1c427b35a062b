// SPDX-License-Identifier: Apache-2.0
// The worker side of a C-ABI plug-in (docs/plugin-abi.md, section 1): loads the library,
// checks its symbols, ABI version and manifest, and runs cases through its entry points with
// fenced, poisoned output buffers. Runs inside opconform-worker, never in the validator.
//
//   std::unique_ptr<PluginHost> host;
//   Status s = PluginHost::load("libimpl.so", &host);     // the first load failure
//   ImplAnswer answer = host->run(c);                     // outputs, error, or fault
#pragma once

#include <memory>
#include <string>

#include "opconform/conformance/vector.h"
#include "opconform/plugin_abi.h"
#include "opconform/validator/guard_pages.h"
#include "opconform/validator/protocol.h"

namespace opconform::validator {

// The poison byte of fresh outputs (their guards: guard_pages.h).
inline constexpr std::uint8_t kPoisonByte = 0xA5;
// opconform-worker's exit status when the plug-in ran out of memory (std::bad_alloc).
inline constexpr int kWorkerExitOutOfMemory = 86;

class PluginHost {
 public:
  static Status load(const std::string& path, std::unique_ptr<PluginHost>* out);
  ~PluginHost();

  const Manifest& manifest() const { return manifest_; }

  // Runs `c` (its inputs, attrs and memory limit) through the entry point of its op.
  // An op the manifest does not list is a fault, and so is any change the call made to its
  // inputs ("modified input 1 (block_shape): ...").
  ImplAnswer run(const conformance::Case& c);

 private:
  PluginHost() = default;
  void* handle_ = nullptr;
  Manifest manifest_;
  opconform_run_op_fn run_op_ = nullptr;  // the generic entry point, when exported
  void* entry_[OPCONFORM_NUM_OPS] = {};   // otherwise: the typed ABI 1.0 entry points
};

}  // namespace opconform::validator
