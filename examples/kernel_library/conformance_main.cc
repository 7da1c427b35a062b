// mykernels_conformance: opconform's suite inside this project's GoogleTest run. Every bundled
// vector of the three ops becomes a test (MyKernels/Vectors.dynamic_stitch/golden_doc_example,
// ...), plus generated valid and invalid cases and check pairs per op
// (MyKernels/Properties.DynamicStitch_valid, ...), each judged against opconform's reference
// kernels. The generated cases come from seed 1 (SuiteOptions::seed; OPCONFORM_SEED=N for others).
#include <gtest/gtest.h>

#include "op_table.h"
#include "opconform/gtest/suite.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  opconform::gtest::SuiteOptions options;
  // The T mykernels supports: every fixed-size dtype (a string case may be declined).
  for (int i = 0; i < opconform::kNumDTypes; ++i)
    if (opconform::all_dtypes()[i] != opconform::DType::kString) options.dtypes.push_back(opconform::all_dtypes()[i]);
  options.strict_messages = true;  // mykernels also matches the contract's messages
  opconform::gtest::register_suite("MyKernels", mykernels::op_table(), options);
  return RUN_ALL_TESTS();
}
