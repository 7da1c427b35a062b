// `opconform validate` (docs/plugin-abi.md, section 3): runs the bundled vectors and generated
// cases through an implementation in a crash-isolated worker, judges each against the oracle,
// shrinks and saves failures, and reports (progress, per-op table, JUnit XML, JSON).
//
//   ValidateOptions options;
//   options.impl = "exec:python3 my_impl.py";
//   options.cases = 200;
//   int exit_code = run_validate(options, std::cout, std::cerr);   // 0 pass, 1 fail, 2 unusable
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
  std::string impl;      // "path/lib.so" or "exec:COMMAND"; empty: the bundled optimized plug-in
  std::string profile;   // "tf-cpu", "xla", "tflite"; empty: the manifest's
  std::vector<Op> ops;   // empty: every op
  std::optional<std::uint64_t> seed;  // generated cases; unset: drawn and printed
  std::int64_t cases = -1;            // generated cases (-1: 500 unless time_seconds is set)
  double time_seconds = -1;           // generated cases for this long (-1: unused)
  bool strict_messages = false;
  std::string junit_path, json_path, save_failures_dir;
  std::vector<std::string> replay;    // run only these vector files
  std::string corpus_dir;             // empty: the installed vectors (install_layout.h)
  bool run_corpus = true;
  double timeout_seconds = 10;        // per case
  std::int64_t worker_memory_mib = -1;  // -1: 8192 for a .so, none for exec:
  std::string worker_path;            // empty: the installed worker (install_layout.h)
  std::string replay_command = "opconform validate";  // how failures tell the user to replay
  int max_shrink_runs = 200;          // worker runs per failing case
  std::optional<bool> progress;       // unset: when stderr is a terminal
  std::int64_t stop_after_failures = 0;  // stop once this many cases failed (0: never)
};

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err);

// "SpaceToBatchND" or "space_to_batch_nd" -> the op.
std::optional<Op> parse_op_name(std::string_view name);

}  // namespace opconform::validator
