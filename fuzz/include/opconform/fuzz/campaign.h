// SPDX-License-Identifier: Apache-2.0
// `opconform fuzz` (FUZZING.md, "Fuzzing your own kernels"): a coverage-guided campaign against
// an implementation's plug-in. For each op it seeds a corpus from the bundled vectors, runs the
// prebuilt fuzz driver (impl_target.h) in libFuzzer's fork mode, so that a crash, a sanitizer
// report or a hang of the implementation is recorded and the campaign goes on, and shows
// progress (execs/s, coverage, findings). Then every input libFuzzer kept as a finding becomes
// a conformance vector, and `opconform validate --replay` runs them in its crash-isolated
// worker: grouped by signature, each group's case shrunk and saved with its replay command.
//
//   CampaignOptions o;
//   o.impl = "libmine.so";
//   o.seconds_per_op = 60;
//   int exit_code = run_campaign(o, std::cout, std::cerr);   // 0 clean, 1 findings, 2 unusable
//
// The working folder (default ./opconform-fuzz/<plug-in name>/) keeps, per op:
//   <op>/corpus/      the corpus (kept between campaigns: a later one resumes from it)
//   <op>/artifacts/   libFuzzer's crash-*, timeout-*, oom-* and leak-* inputs
//   <op>/findings-raw/ those inputs as vectors (expected: the reference)
//   <op>/fuzz.log     libFuzzer's output
// and findings/, the shrunk vector of each signature group.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "opconform/ops.h"

namespace opconform::fuzz {

struct CampaignOptions {
  std::string impl;     // the plug-in (.so)
  std::vector<Op> ops;  // empty: every op the manifest lists
  double seconds_per_op = 60;
  int jobs = 1;                                       // libFuzzer -fork=N: processes fuzzing at once
  std::string work_dir;                               // empty: opconform-fuzz/<plug-in file name without .so>
  std::string profile;                                // empty: the manifest's
  double timeout_seconds = 10;                        // one input (as validate's per-case timeout)
  std::int64_t rss_limit_mib = 2560;                  // each fuzzing process
  std::string driver;                                 // empty: the installed one (install_layout.h)
  std::string replay_command = "opconform validate";  // how findings tell the user to replay
  int max_shrink_runs = 200;                          // worker runs spent shrinking one finding group
  bool seed_from_vectors = true;                      // an op's empty corpus starts as its bundled vectors
  std::string json_path;                              // a summary per op, written at the end
  std::optional<bool> progress;                       // a live status line (unset: when stderr is a terminal)
};

int run_campaign(const CampaignOptions& options, std::ostream& out, std::ostream& err);

}  // namespace opconform::fuzz
