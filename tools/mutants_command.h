// `opconform mutants`: validates every mutant of the catalogue (mutants/catalogue.py)
// with `opconform validate`'s default budget, layer by layer (bundled vectors, generated
// cases, and with --fuzz-corpus a fuzz corpus as vectors), and reports which layer killed each first and how long
// it took. docs/mutants.md is its --markdown output.
#pragma once

#include <CLI/CLI.hpp>

namespace opconform::mutants {

// Adds the subcommand; when it runs, exit_code becomes 0 (every selected mutant killed within
// the time target), 1 (one survived or was killed too slowly) or 2 (the catalogue or a
// plug-in could not be used).
void add_mutants_command(CLI::App& app, int& exit_code);

}  // namespace opconform::mutants
