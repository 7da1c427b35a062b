// SPDX-License-Identifier: Apache-2.0
// The converter's commands, for any CLI11 application: `opconform-fuzz` (fuzz/fuzz_tool.cc)
// and, once wired, `opconform` itself (FUZZING.md, "The converter").
//
//   CLI::App app{"..."};
//   auto run_fuzz = opconform::fuzz::add_fuzz_commands(app);
//   CLI11_PARSE(app, argc, argv);
//   if (std::optional<int> rc = run_fuzz()) return *rc;   // one of them ran
//
// Commands: fuzz-seed, vector-to-fuzz, fuzz-to-vector, fuzz-show. `fuzz-seed` exits 1 when an
// encoding does not decode back (a codec bug), so ctest's fuzz-seed-vectors is also the codec's
// round-trip test over every vector.
#pragma once

#include <functional>
#include <optional>

namespace CLI {
class App;
}

namespace opconform::fuzz {

// Registers the commands on `app`. The returned function, called after parsing, runs the
// command that was given and returns its exit code, or nullopt when none of them was given.
// It never throws: failures print to stderr and return 1.
std::function<std::optional<int>()> add_fuzz_commands(CLI::App& app);

}  // namespace opconform::fuzz
