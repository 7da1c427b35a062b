// `opconform validate`: checks an implementation (a plug-in .so or an exec: program) against the
// spec with the reference as oracle, crash-isolated (validator/validate.h, docs/plugin-abi.md).
#pragma once

#include <CLI/CLI.hpp>

namespace opconform::tools {

// Adds the subcommand; when it runs, exit_code becomes 0 (all passed), 1 (a case failed) or
// 2 (the implementation could not be used, or a bad argument).
void add_validate_command(CLI::App& app, int& exit_code);

}  // namespace opconform::tools
