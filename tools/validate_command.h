// `opconform validate`: checks an implementation (a plug-in .so or an exec: program) against the
// spec with the reference as oracle, crash-isolated (validator/validate.h, docs/plugin-abi.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "opconform/ops.h"
#include "replay.h"

namespace opconform::tools {

// Adds the subcommand; when it runs, exit_code becomes 0 (all passed), 1 (a case failed) or
// 2 (the implementation, an input or a report could not be used, no case ran, or a bad
// argument). After SIGINT/SIGTERM it writes its reports and dies of that signal.
void add_validate_command(CLI::App& app, int& exit_code);

// "<this executable, absolute> validate": what a printed replay command starts with.
std::string validate_command_line();

// Adds --ops: comma-separated op names ("SpaceToBatchND" or "space_to_batch_nd") into *ops. An
// unknown name, an empty list or name, or a missing value is a usage error that says so.
CLI::Option* add_ops_option(CLI::App* cmd, std::vector<Op>* ops, const std::string& help);

// Adds --xfail FILE, --strict-xfail and --select KIND:VALUE (validator/expectations.h); a
// selector that is not name:GLOB, tag:TAG or folder:PATH is a usage error.
void add_expectation_options(CLI::App* cmd, std::string* xfail, bool* strict_xfail, std::vector<std::string>* select);

// `opconform run --impl <lib.so | exec:COMMAND>`: the vectors under `options.paths` (files or
// folders; empty: the bundled corpus) through the validator, as `validate --replay` runs them,
// with the run's --ops, --json, expected failures and selection. Returns validate's exit status.
int replay_through_validator(const ReplayOptions& options);

}  // namespace opconform::tools
