// The opconform command line: `run` replays conformance vectors, `show` prints one,
// `validate` checks an implementation, `mutants` measures the suite's detection power.
// Each subcommand is added by its own function; usage errors are CLI11's (exit codes >= 100).
#include <iostream>

#include <CLI/CLI.hpp>

#include "opconform/conformance/format.h"
#include "opconform/conformance/vector.h"
#include "replay.h"
#include "mutants_command.h"
#include "validate_command.h"

namespace {

using namespace opconform;

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<tools::ReplayOptions>();
  auto code_only = std::make_shared<bool>(false);
  CLI::App* run = app.add_subcommand(
      "run", "Replay conformance vectors (files, or folders of *.json; default: the bundled corpus)\n"
             "exit 0: all passed, 1: a case failed, 2: a file could not be loaded");
  run->add_option("paths", options->paths, "vector files or folders (default: " + tools::default_corpus() + ")");
  run->add_option("--impl", options->impl, "implementation to run")
      ->check(CLI::IsMember({"reference", "optimized"}))
      ->capture_default_str();
  run->add_option("--json", options->json_report, "also write a machine-readable report to FILE");
  run->add_flag("--code-only", *code_only, "compare error codes only, not messages");
  run->callback([options, code_only, &exit_code] {
    if (*code_only) options->strictness = conformance::Strictness::kCodeOnly;
    exit_code = tools::replay(*options, std::cout, std::cerr);
  });
}

void add_show_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto max_elements = std::make_shared<std::int64_t>(conformance::kDefaultMaxElements);
  auto canonical = std::make_shared<bool>(false);
  CLI::App* show = app.add_subcommand("show", "Print one vector readably (exit 2 if it cannot be loaded)");
  show->add_option("file", *file, "the vector file")->required();
  show->add_option("--max-elements", *max_elements, "elements shown per tensor")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  show->add_flag("--canonical", *canonical, "print the vector's canonical JSON form instead");
  show->callback([file, max_elements, canonical, &exit_code] {
    conformance::Case c;
    const Status s = conformance::load_case_file(*file, &c);
    if (!s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      exit_code = 2;
      return;
    }
    std::cout << (*canonical ? conformance::to_json(c) : conformance::format_case(c, *max_elements));
    exit_code = 0;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"opconform: conformance vectors for TensorFlow-style tensor ops"};
  app.require_subcommand(1);
  int exit_code = 0;
  add_run_command(app, exit_code);
  add_show_command(app, exit_code);
  tools::add_validate_command(app, exit_code);
  mutants::add_mutants_command(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
