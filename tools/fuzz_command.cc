#include "fuzz_command.h"

#include <iostream>
#include <memory>

#include "opconform/fuzz/campaign.h"
#include "arguments.h"
#include "validate_command.h"

namespace opconform::tools {

void add_fuzz_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<fuzz::CampaignOptions>();
  CLI::App* cmd =
      app.add_subcommand("fuzz",
                         "Fuzz an implementation's plug-in, coverage-guided (libFuzzer fork mode): each op for --time\n"
                         "seconds, findings replayed through validate (grouped, shrunk, saved with a replay command)\n"
                         "exit 0: no finding, 1: findings, 2: the plug-in or the fuzz driver could not be used");
  cmd->add_option("--impl", options->impl, "the plug-in shared library (build it with -fsanitize=fuzzer-no-link)")
      ->required()
      ->check(non_empty());
  add_ops_option(cmd, &options->ops, "only these ops (comma-separated; default: every op the manifest lists)");
  cmd->add_option("--time", options->seconds_per_op, "seconds of fuzzing per op (default 60)")
      ->check(decimal_number(1, 1e7, false));
  cmd->add_option("--jobs", options->jobs, "fuzzing processes at once (libFuzzer -fork; default 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--dir", options->work_dir,
                  "working folder: corpus, artifacts and findings per op (default ./opconform-fuzz/<plug-in name>)");
  cmd->add_option("--profile", options->profile, "judge under this profile (default: the implementation's)")
      ->check(CLI::IsMember({"tf-cpu", "xla", "tflite"}));
  cmd->add_option("--timeout", options->timeout_seconds, "seconds one input may take (default 10)")
      ->check(decimal_number(1, 86400, false));
  cmd->add_option("--rss-limit", options->rss_limit_mib, "memory of each fuzzing process in MiB (default 2560)")
      ->check(whole_number(64, std::int64_t{1} << 24));
  cmd->add_option("--json", options->json_path, "write a summary per op to FILE");
  cmd->add_flag_function(
      "--no-seeds", [options](std::int64_t) { options->seed_from_vectors = false; },
      "start an empty corpus empty, not from the bundled vectors (as validate --no-corpus)");
  cmd->add_option("--max-shrink-runs", options->max_shrink_runs,
                  "worker runs spent shrinking one finding (default 200)")
      ->check(whole_number(0, 1000000));
  cmd->callback([options, &exit_code] {
    options->replay_command = validate_command_line();
    exit_code = fuzz::run_campaign(*options, std::cout, std::cerr);
  });
}

}  // namespace opconform::tools
