// The opconform command line: `run` replays conformance vectors, `show` prints one, `ops`
// lists the registry's ops,
// `validate` checks an implementation, `mutants` measures the suite's detection power, `fuzz`
// (where the fuzz libraries are built) fuzzes an implementation's plug-in, and fuzz-seed,
// vector-to-fuzz, fuzz-to-vector and fuzz-show convert between vectors and fuzz inputs;
// `mutants` exists where the mutant catalogue is built.
// Each subcommand is added by its own function; a usage error exits with status 2.
// `opconform --version` prints "opconform <version>" (the CMake project's version).
#include <iostream>

#include <CLI/CLI.hpp>

#include "opconform/conformance/format.h"
#include "opconform/conformance/vector.h"
#include "arguments.h"
#include "replay.h"
#ifdef OPCONFORM_HAVE_MUTANTS
#include "mutants_command.h"
#endif
#ifdef OPCONFORM_HAVE_FUZZ
#include "opconform/fuzz/fuzz_commands.h"
#include "fuzz_command.h"
#endif
#include "validate_command.h"

namespace {

using namespace opconform;

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<tools::ReplayOptions>();
  auto strict = std::make_shared<bool>(false);
  auto code_only = std::make_shared<bool>(false);
  CLI::App* run = app.add_subcommand(
      "run",
      "Replay conformance vectors (files, or folders of *.json; default: the bundled corpus)\n"
      "exit 0: all passed (or failed as --xfail expects), 1: a case failed (with --strict-xfail also\n"
      "an xpass or an unmatched entry), 2: a file could not be loaded, or no vector ran");
  run->add_option("paths", options->paths, "vector files or folders (default: " + tools::default_corpus() + ")");
  run->add_option("--impl", options->impl,
                  "reference, optimized, a plug-in shared library or exec:COMMAND (as validate takes them)")
      ->capture_default_str()
      ->check(tools::non_empty());
  run->add_option("--json", options->json_report, "also write a machine-readable report to FILE");
  CLI::Option* strict_flag = run->add_flag("--strict-messages", *strict, "compare error messages too, not only codes");
  run->add_flag("--code-only", *code_only, "compare error codes only (the default)")->excludes(strict_flag);
  tools::add_ops_option(run, &options->ops, "only these ops (comma-separated, e.g. SpaceToBatchND,dynamic_stitch)");
  tools::add_expectation_options(run, &options->expected_failures, &options->strict_xfail, &options->select);
  run->callback([options, strict, &exit_code] {
    options->strictness = *strict ? conformance::Strictness::kStrict : conformance::Strictness::kCodeOnly;
    if (options->impl == "reference" || options->impl == "optimized")
      exit_code = tools::replay(*options, std::cout, std::cerr);
    else
      exit_code = tools::replay_through_validator(*options);
  });
}

void add_show_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto max_elements = std::make_shared<std::int64_t>(conformance::kDefaultMaxElements);
  auto canonical = std::make_shared<bool>(false);
  CLI::App* show = app.add_subcommand("show", "Print one vector readably (exit 2 if it cannot be loaded)");
  show->add_option("file", *file, "the vector file")->required();
  show->add_option("--max-elements", *max_elements, "elements shown per tensor")
      ->check(tools::whole_number(1, std::int64_t{1} << 40))
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

void add_ops_command(CLI::App& app, int& exit_code) {
  CLI::App* ops =
      app.add_subcommand("ops", "List the ops of the registry (--json: with their signatures, as corpus/ops.json)");
  auto json = std::make_shared<bool>(false);
  ops->add_flag("--json", *json, "print the registry as JSON");
  ops->callback([json, &exit_code] {
    if (*json) {
      std::cout << conformance::registry_json();
    } else {
      for (Op op : kAllOps) std::cout << static_cast<int>(op) << " " << op_name(op) << " " << op_snake_name(op) << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"opconform: conformance vectors for TensorFlow-style tensor ops"};
  app.set_version_flag("--version", "opconform " OPCONFORM_VERSION, "print opconform's version and exit");
  app.require_subcommand(1);
  int exit_code = 0;
  add_run_command(app, exit_code);
  add_show_command(app, exit_code);
  add_ops_command(app, exit_code);
  tools::add_validate_command(app, exit_code);
#ifdef OPCONFORM_HAVE_MUTANTS
  mutants::add_mutants_command(app, exit_code);
#endif
#ifdef OPCONFORM_HAVE_FUZZ
  tools::add_fuzz_command(app, exit_code);
  const auto run_converter = fuzz::add_fuzz_commands(app);
#endif
  for (CLI::App* command : app.get_subcommands({})) tools::once_each(command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return tools::exit_code_of_usage_error(app, e);
  }
#ifdef OPCONFORM_HAVE_FUZZ
  if (const std::optional<int> rc = run_converter()) return *rc;
#endif
  return exit_code;
}
