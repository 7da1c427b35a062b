// Strict numbers for the command line: the whole argument must be a number in range, and an
// error quotes the argument as given ("--seed: '-1' is not a whole number from 0 to
// 18446744073709551615"), never a converted or clamped value. Usage errors of every command
// exit with status 2 (exit_code_of_usage_error).
//
//   app.add_option("--cases", n)->check(whole_number(0, 1000000000));
//   app.add_option("--timeout", t)->check(decimal_number(0, 86400, /*zero_allowed=*/false));
#pragma once

#include <cstdint>

#include <CLI/CLI.hpp>

namespace opconform::tools {

// Digits only (a leading '-' when lo < 0), in [lo, hi].
CLI::Validator whole_number(std::int64_t lo, std::int64_t hi);
// Digits only, in [0, 2^64 - 1].
CLI::Validator unsigned_64();
// A finite decimal number in [lo, hi] (lo itself only when lo_allowed).
CLI::Validator decimal_number(double lo, double hi, bool lo_allowed);

// A non-empty value: `--impl ""` (an unset variable in a CI script) is an error, never the
// default implementation.
CLI::Validator non_empty();

// Makes an option of `cmd` that takes one value a usage error when it is given twice, saying so
// ("--cases: given more than once: '5', '6'"), where CLI11 would count values ("At Most 1
// required but received 2"). Call once the options are added.
void once_each(CLI::App* cmd);

// The exit status for a usage error CLI11 reported (it prints the message; --help is 0).
int exit_code_of_usage_error(const CLI::App& app, const CLI::ParseError& e);

}  // namespace opconform::tools
