#include "validate_command.h"

#include <csignal>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>

#include "arguments.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/interrupt.h"
#include "opconform/validator/validate.h"

namespace opconform::tools {

namespace {

// Runs the validator; after an interrupt, dies of the same signal once the reports are written,
// as a shell and a CI runner expect of an interrupted program.
int run_and_propagate_interrupt(const validator::ValidateOptions& options) {
  const int code = validator::run_validate(options, std::cout, std::cerr);
  if (const int sig = validator::interrupt_signal(); sig != 0) {
    std::cout.flush();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  return code;
}

}  // namespace

CLI::Option* add_ops_option(CLI::App* cmd, std::vector<Op>* ops, const std::string& help) {
  // "a,b" -> {"a", "b"}; "a,,b" -> {"a", "", "b"}.
  const auto names = [](const std::string& list) {
    std::vector<std::string> parts(1);
    for (char ch : list) {
      if (ch == ',')
        parts.emplace_back();
      else
        parts.back() += ch;
    }
    return parts;
  };
  const auto problem = [names](std::string& list) -> std::string {
    // CLI11 takes the next argument for a value that is missing: "--ops --cases 0".
    if (list.rfind('-', 0) == 0) return "needs a value (a comma-separated list of ops), not '" + list + "'";
    if (list.find_first_not_of(',') == std::string::npos) return "empty op list '" + list + "'";
    for (const std::string& name : names(list)) {
      if (name.empty()) return "empty op name in '" + list + "'";
      if (!validator::parse_op_name(name)) return "unknown op \"" + name + "\"";
    }
    return "";
  };
  return cmd
      ->add_option_function<std::vector<std::string>>(
          "--ops",
          [ops, names](const std::vector<std::string>& lists) {
            for (const std::string& list : lists)
              for (const std::string& name : names(list)) ops->push_back(*validator::parse_op_name(name));
          },
          help)
      ->check(CLI::Validator(problem, "OP,..."));
}

void add_expectation_options(CLI::App* cmd, std::string* xfail, bool* strict_xfail, std::vector<std::string>* select) {
  cmd->add_option(
         "--xfail", *xfail,
         "an expected-failure list (JSON Lines: one {\"name\"|\"tag\"|\"op\"|\"signature\": ..., \"reason\": ...}\n"
         "per line): a case it covers that fails is an xfail and does not fail the run; one that\n"
         "passes is an xpass")
      ->check(non_empty());
  cmd->add_flag("--strict-xfail", *strict_xfail,
                "an xpass, or a list entry that matches no case, fails the run (exit 1)");
  const auto problem = [](std::string& selector) { return validator::Selection{}.add(selector); };
  cmd->add_option("--select", *select,
                  "run only the cases selected: name:GLOB (case names, generated ones too), tag:TAG,\n"
                  "folder:PATH (vectors below a folder); repeatable: one kind given twice is either, kinds\n"
                  "combine. A tag or folder selects vectors only (no generated cases)")
      ->check(CLI::Validator(problem, "KIND:VALUE"));
}

std::string validate_command_line() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::string("opconform") : validator::shell_quote(self.string())) + " validate";
}

void add_validate_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<validator::ValidateOptions>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto no_corpus = std::make_shared<bool>(false);
  auto code_only = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Validate an implementation: the bundled vectors, then generated cases, each in a worker\n"
      "process, judged against the reference (docs/plugin-abi.md)\n"
      "exit 0: all passed (or failed as --xfail expects), 1: a case failed (with --strict-xfail also\n"
      "an xpass or an unmatched entry), 2: the implementation, an input or a report could not be\n"
      "used, or no case ran");
  cmd->add_option("--impl", options->impl,
                  "a plug-in shared library (opconform/plugin_abi.h) or exec:COMMAND speaking the "
                  "subprocess protocol (default: the bundled optimized kernels)")
      ->check(non_empty());
  cmd->add_option("--profile", options->profile, "judge under this profile (default: the implementation's)")
      ->check(CLI::IsMember({"tf-cpu", "xla", "tflite"}));
  add_ops_option(cmd, &options->ops, "only these ops (comma-separated, e.g. SpaceToBatchND,dynamic_stitch)");
  CLI::Option* seed_option =
      cmd->add_option("--seed", *seed, "seed of the generated cases (default: 1, so runs repeat)")
          ->check(unsigned_64());
  CLI::Option* fresh = cmd->add_flag("--fresh-seed", options->fresh_seed, "draw a new seed (printed) instead of 1");
  seed_option->excludes(fresh);
  cmd->add_option(
         "--cases", options->cases,
         "number of generated cases after the check pairs (default 500; unlimited under --time; 0: none, and no check pairs)")
      ->check(whole_number(0, 1000000000));
  cmd->add_option("--time", options->time_seconds,
                  "stop the whole run (vectors, generated cases, shrinking) after this many seconds")
      ->check(decimal_number(0, 1e7, false));
  cmd->add_option("--max-failures", options->stop_after_failures, "stop after this many failing cases")
      ->check(whole_number(1, 1000000000));
  CLI::Option* strict =
      cmd->add_flag("--strict-messages", options->strict_messages, "compare error messages too, not only codes");
  cmd->add_flag("--code-only", *code_only, "compare error codes only (the default)")->excludes(strict);
  cmd->add_option("--junit", options->junit_path, "write a JUnit XML report to FILE (rewritten as the run goes)");
  cmd->add_option("--json", options->json_path, "write a JSON report to FILE (rewritten as the run goes)");
  cmd->add_option("--jsonl", options->jsonl_path, "write one JSON line per case to FILE as it is judged");
  cmd->add_option("--save-failures", options->save_failures_dir,
                  "save each failure group's case, shrunk, as a vector in DIR (checked before the first case).\n"
                  "Default: one folder per implementation, reused by every run of it (a file of an earlier run\n"
                  "with the same name is replaced): $XDG_CACHE_HOME/opconform/failures/NAME-HASH (default\n"
                  "~/.cache; without $HOME, $TMPDIR/opconform-UID/failures). A --replay run saves only with\n"
                  "this option");
  cmd->add_option("--replay", options->replay,
                  "run only these vector files or folders (no corpus, no generated cases)");
  cmd->add_option("--corpus", options->corpus_dir, "the vectors to run (default: the bundled corpus/vectors)");
  cmd->add_flag("--no-corpus", *no_corpus, "skip the vectors, run generated cases only");
  cmd->add_flag_function(
      "--no-check-pairs", [options](std::int64_t) { options->check_pairs = false; },
      "skip the check pairs (one case per pair of checks an input can break together)");
  cmd->add_option("--timeout", options->timeout_seconds, "seconds one case may take (default 10)")
      ->check(decimal_number(0, 86400, false));
  cmd->add_option("--worker-memory", options->worker_memory_mib,
                  "address-space limit of the worker in MiB (default: 8192 for a .so, none for exec:)")
      ->check(whole_number(1, std::int64_t{1} << 24));
  cmd->add_option("--max-shrink-runs", options->max_shrink_runs, "worker runs spent shrinking one failure")
      ->check(whole_number(0, 1000000));
  add_expectation_options(cmd, &options->expected_failures, &options->strict_xfail, &options->select);
  cmd->callback([options, seed, seed_option, no_corpus, &exit_code] {
    if (seed_option->count() > 0) options->seed = *seed;
    options->run_corpus = !*no_corpus;
    options->replay_command = validate_command_line();
    exit_code = run_and_propagate_interrupt(*options);
  });
}

int replay_through_validator(const ReplayOptions& run) {
  validator::ValidateOptions options;
  options.impl = run.impl;
  options.replay = run.paths.empty() ? std::vector{default_corpus()} : run.paths;
  options.strict_messages = run.strictness == conformance::Strictness::kStrict;
  options.json_path = run.json_report;
  options.ops = run.ops;
  options.expected_failures = run.expected_failures;
  options.strict_xfail = run.strict_xfail;
  options.select = run.select;
  options.replay_command = validate_command_line();
  return run_and_propagate_interrupt(options);
}

}  // namespace opconform::tools
