// SPDX-License-Identifier: Apache-2.0
// `opconform validate` (docs/plugin-abi.md, section 3): runs the bundled vectors and generated
// cases through an implementation in a crash-isolated worker, judges each against the oracle,
// shrinks and saves failures, and reports (progress, per-op table, JUnit XML, JSON).
//
//   ValidateOptions options;
//   options.impl = "exec:python3 my_impl.py";
//   options.cases = 200;
//   int exit_code = run_validate(options, std::cout, std::cerr);   // 0 pass, 1 fail, 2 unusable
//
// Reports (--json, --junit, --jsonl) are written as the run goes, also for a load failure and
// when SIGINT/SIGTERM stops it (reports.h, interrupt.h).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/ops.h"

namespace opconform::validator {

struct ValidateOptions {
  std::string impl;                   // "path/lib.so" or "exec:COMMAND"; empty: the bundled optimized plug-in
  std::string profile;                // "tf-cpu", "xla", "tflite"; empty: the manifest's
  std::vector<Op> ops;                // empty: every op
  std::optional<std::uint64_t> seed;  // generated cases; unset: kDefaultSeed (or fresh_seed)
  bool fresh_seed = false;            // with seed unset: draw a new seed (printed)
  std::int64_t cases = -1;            // generated cases (-1: 500, or unlimited under time_seconds;
                                      // 0: none, and no check pairs either)
  double time_seconds = -1;           // the whole run stops after this long (-1: no limit)
  bool strict_messages = false;
  std::string junit_path, json_path;
  std::string save_failures_dir;    // empty: default_failures_dir(impl)
  std::string jsonl_path;           // one JSON line per case as it is judged
  std::vector<std::string> replay;  // run only these vector files or folders
  std::string corpus_dir;           // empty: the installed vectors (install_layout.h)
  bool run_corpus = true;
  bool check_pairs = true;                            // one case per feasible pair of checks (check_pairs.h),
                                                      // before the generated cases
  double timeout_seconds = 10;                        // per case
  std::int64_t worker_memory_mib = -1;                // -1: 8192 for a .so, none for exec:
  std::string worker_path;                            // empty: the installed worker (install_layout.h)
  std::string replay_command = "opconform validate";  // how failures tell the user to replay
  int max_shrink_runs = 200;                          // worker runs per failing case
  std::optional<bool> progress;                       // unset: when stderr is a terminal
  std::int64_t stop_after_failures = 0;               // stop once this many cases failed (0: never; --max-failures)
  std::string expected_failures;                      // an expected-failure list (expectations.h; --xfail)
  bool strict_xfail = false;                          // an xpass or an entry that matches nothing fails the run
  std::vector<std::string> select;                    // "name:GLOB", "tag:TAG", "folder:PATH" (expectations.h)
};

// The seed of generated cases when none is given: a run is reproducible by default.
inline constexpr std::uint64_t kDefaultSeed = 1;

// Exit status: 0 every case passed (or failed as expected); 1 a case failed unexpectedly, or
// under strict_xfail an expected failure passed or a list entry matched nothing; 2 nothing usable was checked or something
// could not be used: a load failure, an input that cannot be read, no case run at all, a report
// that cannot be written, an expected-failure list or selector that cannot be used, an interrupt
// (SIGINT/SIGTERM) before any failure.
int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err);

// "SpaceToBatchND" or "space_to_batch_nd" -> the op.
std::optional<Op> parse_op_name(std::string_view name);

// `s` as one word of a POSIX shell command line: as it is when it is made of letters, digits
// and _-./:=,+@ only, else single-quoted.
std::string shell_quote(const std::string& s);

// `text` safe to print on a terminal: control bytes other than newline and tab, DEL, UTF-8's
// C1 controls and bytes that are not UTF-8 become \xNN, so an implementation's text cannot
// send escape sequences.
std::string printable(std::string_view text);

// Where a run without --save-failures saves its failures: one folder per implementation
// (`impl` as given; "" for the bundled plug-in), reused by each run of it, under
// $XDG_CACHE_HOME/opconform/failures (default ~/.cache), else $TMPDIR/opconform-UID/failures.
std::string default_failures_dir(const std::string& impl);

}  // namespace opconform::validator
