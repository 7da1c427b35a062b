// Rule coverage: every check of an op (generators/rules.h) was hit at least once by the
// op's property run. ctest runs RuleCoverage.<Op> after all of the op's properties (its fixture's
// setup, run also when the check is run alone) and reads the hit counts each property test wrote to
// $OPCONFORM_RULE_COVERAGE_DIR/<Op>/<Suite>.<Test>.counts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

#include <gtest/gtest.h>

#include "opconform/generators/rules.h"

namespace opconform::properties {
namespace {

std::filesystem::path coverage_dir() {
  const char* value = std::getenv("OPCONFORM_RULE_COVERAGE_DIR");
  return value && *value ? value : OPCONFORM_DEFAULT_RULE_COVERAGE;
}

void check_coverage(Op op) {
  const std::filesystem::path dir = coverage_dir() / op_name(op);
  std::map<std::string, std::int64_t> total;
  int files = 0;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(entry.path());
      std::string rule;
      std::int64_t count = 0;
      while (in >> rule >> count) total[rule] += count;
      ++files;
    }
  }
  ASSERT_GT(files, 0) << "no hit counts under " << dir << ": run the " << op_name(op)
                      << " properties first (ctest -L properties does)";
  std::cout << op_name(op) << " rule hits (" << files << " property runs):\n";
  for (const generators::Rule& r : generators::rules_of(op))
    std::cout << "  " << std::left << std::setw(26) << r.id << std::right << std::setw(8) << total[std::string(r.id)]
              << "  " << r.where << "\n";
  for (const generators::Rule& r : generators::rules_of(op))
    EXPECT_GT(total[std::string(r.id)], 0) << op_name(op) << ": check '" << r.id << "' (" << r.where
                                           << ") was never exercised";
  EXPECT_EQ(total[std::string(generators::kUnclassified)], 0)
      << op_name(op) << ": errors that match no check of the spec";
}

// One test per op of the registry: RuleCoverage.<Op>.
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) \
  TEST(RuleCoverage, Name) { check_coverage(Op::k##Name); }
#include "opconform/op_list.inc"
#undef OPCONFORM_OP

}  // namespace
}  // namespace opconform::properties
