// `opconform run`: replays conformance vectors through one implementation and reports.
//
//   ReplayOptions options;
//   options.paths = {"corpus/vectors/dynamic_stitch"};
//   int exit_code = replay(options, std::cout, std::cerr);
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "opconform/conformance/compare.h"
#include "opconform/ops.h"

namespace opconform::tools {

struct ReplayOptions {
  std::vector<std::string> paths;  // files or folders (every *.json below); empty: the corpus
  std::string impl = "reference";  // "reference" or "optimized" (others go through the validator)
  std::string json_report;         // write a JSON report here when set
  conformance::Strictness strictness = conformance::Strictness::kCodeOnly;  // as validate's default
  std::vector<Op> ops;                                                      // only these ops (empty: all)
  std::string expected_failures;    // an expected-failure list (validator/expectations.h)
  bool strict_xfail = false;        // an xpass or an unmatched entry fails the run
  std::vector<std::string> select;  // "name:GLOB", "tag:TAG", "folder:PATH"
};

// The bundled vectors: $OPCONFORM_VECTORS, else the installed ones (install_layout.h).
std::string default_corpus();

// Prints failures and bad files as they come, then a per-op table. Returns 0 when every case
// passed (or failed as the expected-failure list expects), 1 when a case failed (or, under
// strict_xfail, an expected failure passed or a list entry matched nothing), 2 when the list or
// a selector cannot be used, when a path, folder or file could not be read or loaded (each
// named, with the reason; the other files are still checked) or no vector ran.
int replay(const ReplayOptions& options, std::ostream& out, std::ostream& err);

}  // namespace opconform::tools
