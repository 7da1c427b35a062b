#include "validate_command.h"

#include <iostream>
#include <memory>

#include "opconform/validator/validate.h"

namespace opconform::tools {

void add_validate_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<validator::ValidateOptions>();
  auto ops = std::make_shared<std::vector<std::string>>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto no_corpus = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Validate an implementation: the bundled vectors, then generated cases, each in a worker\n"
      "process, judged against the reference (docs/plugin-abi.md)\n"
      "exit 0: all passed, 1: a case failed, 2: the implementation could not be used");
  cmd->add_option("--impl", options->impl,
                  "a plug-in shared library (opconform/plugin_abi.h) or exec:COMMAND speaking the "
                  "subprocess protocol (default: the bundled optimized kernels)");
  cmd->add_option("--profile", options->profile, "judge under this profile (default: the implementation's)")
      ->check(CLI::IsMember({"tf-cpu", "xla", "tflite"}));
  cmd->add_option("--ops", *ops, "only these ops (comma-separated, e.g. SpaceToBatchND,dynamic_stitch)")
      ->delimiter(',');
  CLI::Option* seed_option = cmd->add_option("--seed", *seed, "seed of the generated cases (default: random)");
  CLI::Option* cases = cmd->add_option("--cases", options->cases, "number of generated cases (default 500)")
                           ->check(CLI::NonNegativeNumber);
  CLI::Option* time = cmd->add_option("--time", options->time_seconds, "generate cases for this many seconds")
                          ->check(CLI::NonNegativeNumber);
  cases->excludes(time);
  cmd->add_flag("--strict-messages", options->strict_messages, "compare error messages too, not only codes");
  cmd->add_option("--junit", options->junit_path, "write a JUnit XML report to FILE");
  cmd->add_option("--json", options->json_path, "write a JSON report to FILE");
  cmd->add_option("--save-failures", options->save_failures_dir,
                  "save each failing case, shrunk, as a vector in DIR (default: a folder under $TMPDIR)");
  cmd->add_option("--replay", options->replay, "run only these vector files (no corpus, no generated cases)");
  cmd->add_option("--corpus", options->corpus_dir, "the vectors to run (default: the bundled corpus/vectors)");
  cmd->add_flag("--no-corpus", *no_corpus, "skip the vectors, run generated cases only");
  cmd->add_option("--timeout", options->timeout_seconds, "seconds one case may take (default 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--worker-memory", options->worker_memory_mib,
                  "address-space limit of the worker in MiB (default: 8192 for a .so, none for exec:)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-shrink-runs", options->max_shrink_runs, "worker runs spent shrinking one failure")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([options, ops, seed, seed_option, no_corpus, &exit_code] {
    for (const std::string& name : *ops) {
      const std::optional<Op> op = validator::parse_op_name(name);
      if (!op) {
        std::cerr << "error: --ops: unknown op \"" << name << "\"\n";
        exit_code = 2;
        return;
      }
      options->ops.push_back(*op);
    }
    if (seed_option->count() > 0) options->seed = *seed;
    options->run_corpus = !*no_corpus;
    exit_code = validator::run_validate(*options, std::cout, std::cerr);
  });
}

}  // namespace opconform::tools
