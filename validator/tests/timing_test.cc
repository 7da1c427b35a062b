// What truly measures time: the --time budget of a run, and the per-case --timeout with a case
// that answers after one that hung. ctest label "timing", which the default test presets leave
// out (a sanitizer build or a loaded machine is slow); `ctest --preset timing` runs them.
#include "test_support.h"

namespace opconform::validator {
namespace {

using namespace opconform::testing;

TEST(Timing, TimeBoundsTheWholeRunAlsoWhenEveryCaseHangs) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_HANG);
  o.replay = {vector_folder("hangs", {"stitch_int16"}, 20).string()};
  o.time_seconds = 3;
  o.timeout_seconds = 1;
  const RunOutcome r = run_validator(o, "hangs-run");
  EXPECT_LT(r.seconds, 5.0) << r.out;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_GE(r.count("timeout"), 1);
  EXPECT_LT(r.count("timeout"), 20);
  EXPECT_CONTAINS(r.report["stopped"].get<std::string>(), "--time budget of 3 s");
}

// The case after a hang answers within a timeout of 1 s (Validate.HangsTimeOut checks the
// timeout with hanging cases only).
TEST(Timing, AHangTimesOutAndTheNextCaseAnswersWithinOneSecond) {
  ValidateOptions o = options_for(OPCONFORM_FAKE_HANG);
  o.replay = {data_file("stitch_int16"), data_file("stitch_float32")};
  o.timeout_seconds = 1;
  const RunOutcome r = run_validator(o, "hang");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("timeout"), 1);
  EXPECT_EQ(r.count("agree"), 1);
}

}  // namespace
}  // namespace opconform::validator
