// Shared by the reference DynamicStitch and DynamicPartition tests: fenced buffers for the whole
// test binary. Tensors and comparison: tensor_test_util.h.
#pragma once

#include <gtest/gtest.h>

#include "opconform/dtype.h"
#include "opconform/tensor.h"
#include "tensor_test_util.h"

namespace opconform::testing {

// Every buffer is fenced with a guard region (design.md: fence outputs): each output's guard is
// checked where it is returned and every freed buffer's guard at the end. The reference
// zero-fills its outputs, so the poison byte plays no part here.
class BufferCheckEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { set_buffer_checks({.enabled = true}); }
  void TearDown() override {
    EXPECT_EQ(guard_violations(), 0) << "a buffer was written past its end";
    set_buffer_checks({});
  }
};
inline ::testing::Environment* const kBufferChecks = ::testing::AddGlobalTestEnvironment(new BufferCheckEnvironment);

}  // namespace opconform::testing
