// What identifies a run of `opconform validate` and how it ended: set by Run (validate.cc), read
// by the units that draw cases (case_sources.h), save failures (failure_handler.h) and report
// (reporter.h). Internal to the validator; not installed.
#pragma once

#include <cstdint>
#include <string>

#include "opconform/validator/protocol.h"

namespace opconform::validator {

struct RunInfo {
  std::string impl_display;  // the implementation as printed ("the bundled plug-in PATH", or as given)
  Manifest manifest;         // the implementation's, once loaded
  bool loaded = false;       // the handshake succeeded
  std::string profile;       // judged under ("" before the handshake)
  std::uint64_t seed = 0;    // of the check pairs and generated cases
  std::string error;         // a load failure, or why no case ran
  std::string stopped;       // why the run ended early
};

}  // namespace opconform::validator
