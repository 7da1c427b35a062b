// `opconform validate`: checks an implementation (a plug-in .so or an exec: program) against the
// spec with the reference as oracle, crash-isolated (validator/validate.h, docs/plugin-abi.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "opconform/ops.h"

namespace opconform::tools {

// Adds the subcommand; when it runs, exit_code becomes 0 (all passed), 1 (a case failed) or
// 2 (the implementation, an input or a report could not be used, no case ran, or a bad
// argument). After SIGINT/SIGTERM it writes its reports and dies of that signal.
void add_validate_command(CLI::App& app, int& exit_code);

// "<this executable, absolute> validate": what a printed replay command starts with.
std::string validate_command_line();

// --ops names ("SpaceToBatchND" or "space_to_batch_nd") into *ops; false, after printing
// the usage error, on an unknown name.
bool parse_ops_option(const std::vector<std::string>& names, std::vector<Op>* ops);

// `opconform run --impl <lib.so | exec:COMMAND>`: the vectors under `paths` (files or folders;
// empty: the bundled corpus) through the validator, as `validate --replay` runs them. Returns
// validate's exit status.
int replay_through_validator(const std::vector<std::string>& paths, const std::string& impl, bool strict_messages,
                             const std::string& json_report);

}  // namespace opconform::tools
