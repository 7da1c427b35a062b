// What every C-ABI adapter plug-in in adapters/ shares (opconform/plugin_abi.h, ABI v1): the
// error answer and the tf-cpu manifest; the exported entry points' plumbing is
// opconform/plugin_sdk/plugin_entry.h (header-only). Built into each adapter
// (opconform_add_adapter_plugin in adapters/CMakeLists.txt); not installed.
//
//   const opconform_op_caps kCaps[] = {...};
//   const opconform_manifest kManifest = opconform_adapters::TfCpuManifest("name", kCaps);
//   OPCONFORM_PLUGIN_MANIFEST(kManifest)
#pragma once

#include <opconform/plugin_abi.h>
#include <opconform/plugin_sdk/plugin_entry.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace opconform_adapters {

// Sets the call's message to `message` and returns `code`.
inline int32_t Fail(const opconform_call* call, int32_t code, const std::string& message) {
  call->set_message(call->caller, message.data(), static_cast<int64_t>(message.size()));
  return code;
}

// The manifest of a tf-cpu plug-in named `name` (which must outlive it) listing `caps`.
template <std::size_t N>
constexpr opconform_manifest TfCpuManifest(const char* name, const opconform_op_caps (&caps)[N]) {
  return {OPCONFORM_ABI_VERSION, sizeof(opconform_manifest), name, "tf-cpu", static_cast<int32_t>(N), caps};
}

}  // namespace opconform_adapters
