// main() of every property binary: RapidCheck defaults (run_and_check.h), buffer checks on for the
// whole run (poisoned uninitialised buffers, guard regions), and the check hits of each test
// written when it ends.
#include <gtest/gtest.h>

#include "opconform/tensor.h"
#include "support/run_and_check.h"

namespace {

class CheckHitWriter : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    opconform::properties::write_check_hits(std::string(info.test_suite_name()) + "." + info.name());
  }
};

}  // namespace

int main(int argc, char** argv) {
  opconform::properties::set_default_rapidcheck_params();
  opconform::set_buffer_checks({.enabled = true, .poison_byte = 0xA5, .guard_bytes = 64});
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new CheckHitWriter);
  return RUN_ALL_TESTS();
}
