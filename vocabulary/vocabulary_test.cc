#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "opconform/exec.h"
#include "opconform/op_registry.h"
#include "opconform/shape.h"
#include "opconform/tensor.h"

namespace opconform {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

TEST(Shape, DebugString) {
  EXPECT_EQ(shape_string(Shape{}), "[]");
  EXPECT_EQ(shape_string(Shape{2, 3}), "[2,3]");
}

TEST(Shape, MultiplyWithoutOverflow) {
  EXPECT_EQ(multiply_without_overflow(-1, 0), -1);  // a negative factor beats a zero one
  EXPECT_EQ(multiply_without_overflow(0, -5), -1);
  EXPECT_EQ(multiply_without_overflow(0, kInt64Max), 0);
  EXPECT_EQ(multiply_without_overflow(3, 4), 12);
  EXPECT_EQ(multiply_without_overflow(4294967295, 4294967295), -8589934591);  // wrapped
  EXPECT_EQ(multiply_without_overflow(4294967296, 4294967296), -1);           // > 2^64
  EXPECT_EQ(multiply_without_overflow(6, 2305843009213693952), -4611686018427387904);
}

TEST(Shape, AddDimMessagesInOrder) {
  ShapeBuilder b;
  EXPECT_EQ(b.add_dim(-3).message(), "Expected a non-negative size, got -3");
  ASSERT_TRUE(b.add_dim(6).ok());
  EXPECT_EQ(b.add_dim(2305843009213693952).message(),
            "Encountered overflow when multiplying 6 with 2305843009213693952, result: "
            "-4611686018427387904");
  ShapeBuilder many;
  for (int i = 0; i < kMaxDims; ++i) ASSERT_TRUE(many.add_dim(1).ok());
  EXPECT_EQ(many.add_dim(-1).message(), "Expected a non-negative size, got -1");
  EXPECT_EQ(many.add_dim(1).message(), "Too many dimensions in tensor");
}

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = all_dtypes()[i];
    EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
  }
  EXPECT_EQ(dtype_accounting_width(DType::kString), 24);
  EXPECT_EQ(dtype_accounting_width(DType::kComplex128), 16);
  EXPECT_FALSE(dtype_from_name("float").has_value());
}

TEST(Tensor, ZeroInitialisedAndShared) {
  Tensor t(DType::kString, Shape{2});
  EXPECT_EQ(t.data<std::string>()[1], "");
  Tensor f = Tensor::from_values<float>({2}, {1.5f, -0.0f});
  Tensor alias = f;
  Tensor copy = f.clone();
  f.data<float>()[0] = 7;
  EXPECT_EQ(alias.data<float>()[0], 7);
  EXPECT_EQ(copy.data<float>()[0], 1.5f);
  EXPECT_FALSE(copy.bit_equal(f));
  EXPECT_THROW(f.data<double>(), std::logic_error);
  EXPECT_THROW(Tensor(DType::kInt8, Shape{-1}), std::length_error);
  Tensor empty(DType::kInt64, Shape{4611686018427387904, 0});  // zero elements: fine
  EXPECT_EQ(empty.num_elements(), 0);
}

TEST(Memory, AccountingAndMessage) {
  MemoryAccount account(64 + 4 * 6 + 64 + 24);
  EXPECT_TRUE(account.request(DType::kFloat32, Shape{2, 3}).ok());
  EXPECT_TRUE(account.request(DType::kString, Shape{1}).ok());
  Status s = account.request(DType::kInt8, Shape{});
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_EQ(s.message(), "OOM when allocating tensor with shape[] and type int8");
  EXPECT_EQ(output_request_bytes(DType::kFloat64, Shape{kInt64Max / 4}), -1);
}

}  // namespace
}  // namespace opconform

namespace opconform {
namespace {

TEST(BufferChecks, PoisonAndGuards) {
  set_buffer_checks({.enabled = true, .poison_byte = 0x5A, .guard_bytes = 16});
  Tensor poisoned = Tensor::uninitialized(DType::kUInt8, Shape{3});
  Tensor zeroed(DType::kUInt8, Shape{3});
  set_buffer_checks({});
  EXPECT_EQ(poisoned.data<std::uint8_t>()[2], 0x5A);
  EXPECT_EQ(zeroed.data<std::uint8_t>()[2], 0);
  EXPECT_TRUE(poisoned.guard_intact());
  const std::int64_t before = guard_violations();
  {
    Tensor doomed = poisoned;
    poisoned = Tensor();
    static_cast<std::uint8_t*>(doomed.raw_data())[3] = 1;  // one byte past the end: in the guard
    EXPECT_FALSE(doomed.guard_intact());
  }
  EXPECT_EQ(guard_violations(), before + 1);
}

// The VmFlags line of the mapping holding `address` in /proc/self/smaps ("" if none).
std::string vm_flags_at(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = a >= begin && a < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line + " ";
    }
  }
  return "";
}

// Buffers of huge_page_min_bytes or more are advised as huge pages (flag "hg"), smaller ones
// and all of them once the rule is off are not.
TEST(HugePages, LargeBuffersAreAdvised) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled") ||
      !std::ifstream("/proc/self/smaps").good())
    GTEST_SKIP() << "no transparent huge pages or no /proc/self/smaps here";
  {  // A sandbox may refuse the advice itself (the tensors then carry none, harmlessly).
    constexpr std::size_t kProbe = std::size_t{4} << 20;
    void* probe = mmap(nullptr, kProbe, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(probe, MAP_FAILED);
    const auto start = (reinterpret_cast<std::uintptr_t>(probe) + 0x1FFFFF) & ~std::uintptr_t{0x1FFFFF};
    const bool refused = madvise(reinterpret_cast<void*>(start), std::size_t{2} << 20, MADV_HUGEPAGE) != 0;
    munmap(probe, kProbe);
    if (refused) GTEST_SKIP() << "madvise(MADV_HUGEPAGE) refused here";
  }
  const std::size_t default_min_bytes = std::size_t{8} << 20;
  EXPECT_EQ(huge_page_min_bytes(), default_min_bytes);
  set_huge_page_min_bytes(std::size_t{4} << 20);
  Tensor large = Tensor::uninitialized(DType::kUInt8, Shape{8 << 20});
  Tensor small = Tensor::uninitialized(DType::kUInt8, Shape{3 << 20});
  set_huge_page_min_bytes(SIZE_MAX);
  Tensor off = Tensor::uninitialized(DType::kUInt8, Shape{8 << 20});
  set_huge_page_min_bytes(default_min_bytes);
  const auto middle = [](const Tensor& t) { return static_cast<const char*>(t.raw_data()) + t.num_elements() / 2; };
  EXPECT_NE(vm_flags_at(middle(large)).find(" hg "), std::string::npos) << vm_flags_at(middle(large));
  EXPECT_EQ(vm_flags_at(middle(small)).find(" hg "), std::string::npos) << vm_flags_at(middle(small));
  EXPECT_EQ(vm_flags_at(middle(off)).find(" hg "), std::string::npos) << vm_flags_at(middle(off));
  // Only whole 2 MiB pages inside the buffer: the advice never reaches memory it does not own.
  const auto page_start = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{0x1FFFFF}; };
  const char* first = static_cast<const char*>(large.raw_data());
  const char* last = first + large.num_elements() - 1;
  if (page_start(first) != reinterpret_cast<std::uintptr_t>(first)) {
    EXPECT_EQ(vm_flags_at(first).find(" hg "), std::string::npos);
  }
  if (page_start(last + 1) != reinterpret_cast<std::uintptr_t>(last + 1)) {
    EXPECT_EQ(vm_flags_at(last).find(" hg "), std::string::npos);
  }
}

// The registry's profile facts (docs/contract/profiles.md): each names another profile than
// tf-cpu, an input the op has, at least one kind of disagreement and why.
TEST(OpRegistry, ProfileFactsAreWellFormed) {
  for (Op op : kAllOps) {
    const OpInfo& info = op_info(op);
    SCOPED_TRACE(op_name(op));
    for (const ProfileDtypes& registered : info.profile_dtypes) {
      EXPECT_TRUE(registered.profile == "xla" || registered.profile == "tflite") << registered.profile;
      EXPECT_TRUE(std::any_of(info.signature.inputs.begin(), info.signature.inputs.end(), [&](const Slot& s) {
        return s.name == registered.input && !s.is_list;
      })) << registered.input;
      EXPECT_FALSE(registered.dtypes.empty());
      EXPECT_FALSE(registered.why.empty());
    }
    for (const ProfileDifference& difference : info.profile_differences) {
      EXPECT_TRUE(difference.profile == "xla" || difference.profile == "tflite") << difference.profile;
      EXPECT_NE(difference.when.bits, 0u) << difference.why;
      EXPECT_FALSE(difference.why.empty());
    }
    for (std::string_view name : info.dims_inputs)
      EXPECT_TRUE(std::any_of(info.signature.inputs.begin(), info.signature.inputs.end(), [&](const Slot& s) {
        return s.name == name;
      })) << name;
  }
}

// documented_profile_difference: the dtype registration covers rejections only, and a fact of
// one profile does not apply under another.
TEST(OpRegistry, DocumentedProfileDifference) {
  const OpInfo& info = op_info(Op::kSpaceToDepth);
  Values inputs;
  inputs["input"] = Tensor(DType::kInt16, {1, 2, 2, 1});
  const IntAttrs attrs{{"block_size", 2}};
  const StringAttrs string_attrs{{"data_format", "NHWC"}};
  const OpCall call{inputs, attrs, string_attrs};
  const Status rejected(Code::kInvalidArgument, "int16 is not supported");
  EXPECT_TRUE(documented_profile_difference(info, "tflite", Disagreement::kValueVsError, call, nullptr, rejected));
  EXPECT_FALSE(documented_profile_difference(info, "tflite", Disagreement::kMismatch, call, nullptr, Status()));
  EXPECT_FALSE(documented_profile_difference(info, "tf-cpu", Disagreement::kValueVsError, call, nullptr, rejected));
  inputs["input"] = Tensor(DType::kFloat32, {1, 2, 2, 1});
  EXPECT_FALSE(documented_profile_difference(info, "tflite", Disagreement::kValueVsError, call, nullptr, rejected));
}
}  // namespace
}  // namespace opconform
