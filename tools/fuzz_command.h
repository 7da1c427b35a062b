// `opconform fuzz`: coverage-guided differential fuzzing of an implementation's plug-in
// (fuzz/campaign.h, FUZZING.md "Fuzzing your own kernels").
#pragma once

#include <CLI/CLI.hpp>

namespace opconform::tools {

// Adds the subcommand; exit_code becomes 0 (no finding), 1 (findings) or 2 (the plug-in or the
// driver could not be used, a bad argument, or an interrupt).
void add_fuzz_command(CLI::App& app, int& exit_code);

}  // namespace opconform::tools
