// Check tables: every check of every op of the registry (kAllOps) has an invalid-case generator,
// and a breaker or, for each later check, a stated exclusion (generators/check_pairs.h).
//
// Check coverage: every check of an op (generators/checks.h) was hit at least once by the
// op's property run. ctest runs CheckCoverage.<Op> after all of the op's properties (its fixture's
// setup, run also when the check is run alone) and reads the hit counts each property test wrote to
// $OPCONFORM_CHECK_COVERAGE_DIR/<Op>/<Suite>.<Test>.counts.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "opconform/generators/check_pairs.h"
#include "opconform/generators/op_generators.h"
#include "opconform/generators/checks.h"

namespace opconform::properties {
namespace {

// The index of check `id` in `checks`, or checks.size().
std::size_t index_of(std::span<const generators::Check> checks, std::string_view id) {
  std::size_t i = 0;
  while (i < checks.size() && checks[i].id != id) ++i;
  return i;
}

TEST(CheckTables, EveryCheckOfEveryOpHasAGeneratorAndABreakerOrAnExclusion) {
  for (Op op : kAllOps) {
    const std::span<const generators::Check> checks = generators::checks_of(op);
    EXPECT_FALSE(checks.empty()) << op_name(op) << " has no checks";
    const std::vector<generators::InfeasiblePair> infeasible = generators::infeasible_pairs(op);
    for (const generators::InfeasiblePair& p : infeasible) {
      const std::size_t first = index_of(checks, p.pair.first), second = index_of(checks, p.pair.second);
      EXPECT_LT(first, checks.size()) << op_name(op) << ": an exclusion names no check " << p.pair.first;
      EXPECT_LT(second, checks.size()) << op_name(op) << ": an exclusion names no check " << p.pair.second;
      EXPECT_LT(first, second) << op_name(op) << ": exclusion (" << p.pair.first << ", " << p.pair.second
                               << ") is not in check order";
      EXPECT_FALSE(p.why.empty()) << op_name(op) << ": exclusion (" << p.pair.first << ", " << p.pair.second
                                  << ") states no reason";
    }
    const auto is_excluded = [&](std::string_view first, std::string_view second) {
      return std::any_of(infeasible.begin(), infeasible.end(), [&](const generators::InfeasiblePair& p) {
        return p.pair.first == first && p.pair.second == second;
      });
    };
    std::size_t pairs = 0;
    for (std::size_t a = 0; a < checks.size(); ++a) {
      const std::string_view id = checks[a].id;
      EXPECT_EQ(index_of(checks, id), a) << op_name(op) << ": check id " << id << " listed twice";
      // The generator: one case drawn, naming the check as the check it fails first.
      std::optional<generators::GeneratedCase> g;
      try {
        g = generators::invalid_case(op, id)(rc::Random(a + 1), 10).value();
      } catch (const std::exception& e) {
        ADD_FAILURE() << op_name(op) << ": no case for check " << id << ": " << e.what();
      }
      if (g) {
        EXPECT_EQ(g->check, id) << op_name(op);
        EXPECT_EQ(g->c.op, op) << op_name(op) << ": check " << id;
      }
      // The breaker, unless every pair the check comes first in is excluded.
      const bool breaker = generators::has_breaker(op, id);
      for (std::size_t b = a + 1; b < checks.size(); ++b) {
        if (!is_excluded(id, checks[b].id)) ++pairs;
        EXPECT_TRUE(breaker || is_excluded(id, checks[b].id))
            << op_name(op) << ": check " << id << " has no breaker and the pair (" << id << ", " << checks[b].id
            << ") no exclusion";
      }
    }
    EXPECT_EQ(generators::feasible_pairs(op).size(), pairs) << op_name(op);
  }
}

std::filesystem::path coverage_dir() {
  const char* value = std::getenv("OPCONFORM_CHECK_COVERAGE_DIR");
  return value && *value ? value : OPCONFORM_DEFAULT_CHECK_COVERAGE;
}

void check_coverage(Op op) {
  const std::filesystem::path dir = coverage_dir() / op_name(op);
  std::map<std::string, std::int64_t> total;
  int files = 0;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(entry.path());
      std::string check;
      std::int64_t count = 0;
      while (in >> check >> count) total[check] += count;
      ++files;
    }
  }
  ASSERT_GT(files, 0) << "no hit counts under " << dir << ": run the " << op_name(op)
                      << " properties first (ctest -L properties does)";
  std::cout << op_name(op) << " check hits (" << files << " property runs):\n";
  for (const generators::Check& r : generators::checks_of(op))
    std::cout << "  " << std::left << std::setw(26) << r.id << std::right << std::setw(8) << total[std::string(r.id)]
              << "  " << r.where << "\n";
  for (const generators::Check& r : generators::checks_of(op))
    EXPECT_GT(total[std::string(r.id)], 0)
        << op_name(op) << ": check '" << r.id << "' (" << r.where << ") was never exercised";
  EXPECT_EQ(total[std::string(generators::kUnclassified)], 0)
      << op_name(op) << ": errors that match no check of the spec";
}

// One test per op of the registry: CheckCoverage.<Op>.
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) \
  TEST(CheckCoverage, Name) { check_coverage(Op::k##Name); }
#include "opconform/op_list.inc"
#undef OPCONFORM_OP

}  // namespace
}  // namespace opconform::properties
