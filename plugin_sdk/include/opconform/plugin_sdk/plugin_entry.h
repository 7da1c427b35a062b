// SPDX-License-Identifier: Apache-2.0
// What every C-ABI plug-in defines the same way (opconform/plugin_abi.h): its exported symbols'
// visibility and the two entry points opconform_abi_version and opconform_manifest_get. Needs
// only the ABI header, so that plug-ins not built on abi_export.h (adapters/) use it too.
//
//   const opconform_manifest kManifest = {...};
//   OPCONFORM_PLUGIN_MANIFEST(kManifest)
#pragma once

#include <stdint.h>

#include "opconform/plugin_abi.h"

#define OPCONFORM_PLUGIN_EXPORT __attribute__((visibility("default")))

// Defines opconform_abi_version (OPCONFORM_ABI_VERSION) and opconform_manifest_get (&manifest),
// at global scope.
#define OPCONFORM_PLUGIN_MANIFEST(manifest)                                                                 \
  extern "C" OPCONFORM_PLUGIN_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; } \
  extern "C" OPCONFORM_PLUGIN_EXPORT const opconform_manifest* opconform_manifest_get(void) { return &(manifest); }
