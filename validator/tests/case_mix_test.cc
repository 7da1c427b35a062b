// The generated cases of `opconform validate` (case_mix.h): valid cases mostly non-empty, sizes
// from one element to tens of thousands, and a value bug that only large outputs show is found.
#include <map>

#include <gtest/gtest.h>

#include "opconform/conformance/run.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/case_mix.h"
#include "test_support.h"

namespace opconform::validator {
namespace {

using namespace opconform::testing;

struct Sizes {
  int valid = 0, non_empty = 0;
  std::int64_t largest = 0;
};

// The data output elements of `draws` valid cases per op, as the reference computes them.
std::map<Op, Sizes> measure(int draws) {
  std::map<Op, Sizes> sizes;
  rc::Random random(1);
  for (Op op : kAllOps) {
    for (int i = 0; i < draws; ++i) {
      const generators::GeneratedCase g = sized_valid_case(op)(random.split(), kValidatorCaseSize).value();
      const conformance::Outcome o = conformance::run_case(reference::op_table(), g.c);
      EXPECT_TRUE(o.status.ok()) << op_name(op) << ": " << o.status.to_string();
      const std::int64_t elements = data_output_elements(g.c);
      Sizes& s = sizes[op];
      ++s.valid;
      s.non_empty += elements > 0;
      s.largest = std::max(s.largest, elements);
    }
  }
  return sizes;
}

TEST(CaseMix, ValidCasesAreMostlyNonEmptyAndReachTensOfThousandsOfElements) {
  for (const auto& [op, s] : measure(150)) {
    EXPECT_GE(s.non_empty, s.valid * 8 / 10) << op_name(op) << ": " << s.non_empty << " of " << s.valid;
    EXPECT_LT(s.non_empty, s.valid) << op_name(op) << ": the empty paths are still drawn";
    EXPECT_GE(s.largest, 10000) << op_name(op);
  }
}

TEST(CaseMix, AValueBugOnlyLargeOutputsShowIsFound) {
  ValidateOptions o = generated_cases_for(OPCONFORM_FAKE_LARGE_OUTPUT_BUG, 60);
  o.max_shrink_runs = 20;
  const RunOutcome r = run_validator(o, "large-output-bug");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_GE(r.count("mismatch"), 3) << r.out;
}

}  // namespace
}  // namespace opconform::validator
