// Index-like values cross their width boundaries: for every op of the registry and every
// index-like value its descriptor declares (op_registry.h's IndexLike), kCasesPerOp valid cases
// (more for an op with rarer boundary cases)
// drawn from a fixed seed at RapidCheck's sizes 0 to 100 in turn (valid_case, the op's full
// valid mix) hold, for each boundary B of
// kIndexWidthBoundaries the value reaches (generators/index_boundaries.h), the values B - 1, B
// and B + 1 (so some case lies at or past B and one just below it), and sit at a boundary at
// least half as often as the generators' stated rate. Every case is valid: the reference
// answers OK. Each op prints the boundaries reached, with counts, and those excluded, with why.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "opconform/conformance/run.h"
#include "opconform/generators/index_boundaries.h"
#include "opconform/generators/op_generators.h"
#include "opconform/op_registry.h"
#include "opconform/reference/op_table.h"

namespace opconform::properties {
namespace {

constexpr int kCasesPerOp = 2400;

std::string power_name(std::int64_t b) {
  int k = 0;
  while ((std::int64_t{1} << k) < b) ++k;
  return "2^" + std::to_string(k);
}

bool names_an_argument(const OpInfo& info, const IndexLike& v) {
  if (v.kind == IndexLike::Kind::kAttr) {
    for (std::string_view a : info.signature.attrs)
      if (a == v.name) return true;
    return false;
  }
  for (const Slot& s : info.signature.inputs)
    if (s.name == v.name) return true;
  return false;
}

class IndexBoundaries : public testing::TestWithParam<Op> {};

TEST_P(IndexBoundaries, ValidCasesCrossEveryReachableBoundary) {
  const Op op = GetParam();
  const OpInfo& info = op_info(op);
  ASSERT_FALSE(info.index_like.empty()) << op_name(op) << " declares no index-like value";
  for (const IndexLike& v : info.index_like) {
    ASSERT_TRUE(names_an_argument(info, v)) << op_name(op) << ": no input or attr " << v.name;
    ASSERT_FALSE(generators::reachable_boundaries(info, v).empty()) << op_name(op) << "." << v.name;
    for (const ExcludedBoundary& e : v.excluded) {
      EXPECT_LE(e.boundary, generators::index_dtype_max(info, v))
          << op_name(op) << "." << v.name << ": an exclusion of a boundary its dtype cannot hold";
      EXPECT_FALSE(e.why.empty()) << op_name(op) << "." << v.name << ": an exclusion without a reason";
    }
  }

  // hits[v][value]: the cases holding `value` (of B - 1, B, B + 1); at_boundary[v]: the cases
  // holding any of them; past[v][B], below[v][B]: some value >= B, some value < B.
  std::map<std::string_view, std::map<std::int64_t, int>> hits;
  std::map<std::string_view, int> at_boundary;
  std::map<std::string_view, std::map<std::int64_t, bool>> past, below;
  rc::Random random(0x0b0dULL + static_cast<std::uint64_t>(op));
  // More cases where boundary cases are rarer (DynamicPartition: 4 times as many, half as many
  // boundary cases as the others get).
  const int cases = kCasesPerOp * std::min(4, generators::boundary_case_one_in(op) / generators::kBoundaryCaseOneIn);
  for (int n = 0; n < cases; ++n) {
    const generators::GeneratedCase g = generators::valid_case(op)(random.split(), n % (rc::kNominalSize + 1)).value();
    const conformance::Outcome outcome = conformance::run_case(reference::op_table(), g.c);
    if (!outcome.status.ok()) {
      std::ostringstream shown;
      generators::showValue(g, shown);
      FAIL() << "a valid case the reference refuses: " << outcome.status.message() << "\n" << shown.str();
    }
    for (const IndexLike& v : info.index_like) {
      const std::vector<std::int64_t> reachable = generators::reachable_boundaries(info, v);
      bool any = false;
      for (std::int64_t x : generators::index_like_values(g.c, v)) {
        for (std::int64_t b : reachable) {
          if (x >= b)
            past[v.name][b] = true;
          else
            below[v.name][b] = true;
          if (x >= b - 1 && x <= b + 1) {
            ++hits[v.name][x];
            any = true;
          }
        }
      }
      if (any) ++at_boundary[v.name];
    }
  }

  for (const IndexLike& v : info.index_like) {
    // The stated rate: one case in kBoundaryCaseOneIn is a boundary case, for one value of the op.
    const int stated = cases / (generators::boundary_case_one_in(op) * static_cast<int>(info.index_like.size()));
    std::cout << op_name(op) << "." << v.name << ": at a boundary in " << at_boundary[v.name] << " of " << cases
              << " valid cases (stated rate: " << stated << ")\n";
    EXPECT_GE(2 * at_boundary[v.name], stated)
        << op_name(op) << "." << v.name << " sits at a boundary less than half as often as stated";
    for (const generators::BoundaryStatus& s : generators::boundary_statuses(info, v)) {
      std::cout << "  " << power_name(s.boundary) << ": ";
      if (!s.reachable) {
        std::cout << "excluded (" << s.why << ")\n";
        continue;
      }
      const std::int64_t b = s.boundary;
      std::cout << "reached; values B-1, B, B+1 seen " << hits[v.name][b - 1] << ", " << hits[v.name][b] << ", "
                << hits[v.name][b + 1] << "\n";
      EXPECT_TRUE(past[v.name][b]) << op_name(op) << "." << v.name << ": no value >= " << b;
      EXPECT_TRUE(below[v.name][b]) << op_name(op) << "." << v.name << ": no value < " << b;
      for (std::int64_t x : {b - 1, b, b + 1})
        EXPECT_GT(hits[v.name][x], 0) << op_name(op) << "." << v.name << ": no case holds " << x;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, IndexBoundaries, testing::ValuesIn(kAllOps),
                         [](const testing::TestParamInfo<Op>& p) { return std::string(op_name(p.param)); });

}  // namespace
}  // namespace opconform::properties
