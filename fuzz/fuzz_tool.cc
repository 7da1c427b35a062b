// opconform-fuzz: the converter between fuzz harness inputs and conformance vectors, and the
// seed generator for corpus/<harness>/ (fuzz/fuzz_commands.h, FUZZING.md).
//
//   opconform-fuzz fuzz-seed                  # corpus/vectors -> corpus/fuzz_*/
//   opconform-fuzz vector-to-fuzz corpus/vectors/dynamic_stitch/golden_doc_example.json -o seed
//   opconform-fuzz fuzz-to-vector fuzz_dynamic_stitch crash-1a2b -o corpus/vectors-findings/x.json
//   opconform-fuzz fuzz-show fuzz_dynamic_stitch crash-1a2b    # case, both outcomes, verdict
#include <CLI/CLI.hpp>

#include "opconform/fuzz/fuzz_commands.h"

int main(int argc, char** argv) {
  CLI::App app{"opconform-fuzz: fuzz harness inputs <-> conformance vectors, and corpus seeds"};
  app.require_subcommand(1);
  auto run = opconform::fuzz::add_fuzz_commands(app);
  CLI11_PARSE(app, argc, argv);
  return run().value_or(2);
}
