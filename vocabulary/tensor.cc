#include "opconform/tensor.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "opconform/allocation_log.h"
#include "opconform/status.h"

namespace opconform {

namespace {
constexpr std::size_t kAlignment = 64;
constexpr std::uint8_t kGuardByte = 0xC3;

BufferChecks g_buffer_checks;
// From 8 MiB, past the reach of the TLB's 4 KiB entries (6-12 MiB on current cores). Measured
// with the sweep binary (bench/RESULTS.md, "Huge pages"): on the Intel Xeon guest the kernels'
// time at 8-48 MiB changed by -20 % to +3 % against the threshold at 64 MiB (+1 to +3 % only
// for DynamicPartition's 256-byte rows at 12-16 MiB), memcpy's by -4 to -8 % up to 24 MiB; a
// DynamicStitch of 64-byte rows into a fresh 32 MiB output took 7.8-10.0 ms against 18.7. On
// a Zen 4 guest every op gained from 64 MiB and DynamicStitch at 16-32 MiB lost as often as
// it gained between runs.
std::atomic<std::size_t> g_huge_page_min_bytes{std::size_t{8} << 20};
thread_local TensorAllocationLog* t_allocation_log = nullptr;
std::atomic<std::int64_t> g_guard_violations{0};

// memcmp against a pattern, not a byte loop: the fuzz build instruments every comparison, and
// a byte loop over the guards of every tensor cost the harnesses a quarter of their time.
bool guard_ok(const std::byte* guard, std::size_t guard_bytes) {
  static const auto pattern = [] {
    std::array<std::byte, 256> bytes;
    bytes.fill(std::byte{kGuardByte});
    return bytes;
  }();
  for (std::size_t done = 0; done < guard_bytes; done += pattern.size()) {
    const std::size_t n = std::min(pattern.size(), guard_bytes - done);
    if (std::memcmp(guard + done, pattern.data(), n) != 0) return false;
  }
  return true;
}

// A trivially copyable buffer is followed by checks.guard_bytes of kGuardByte; an
// uninitialised one is filled with the poison byte (bool: 1, its only other valid value)
// while checks are enabled.
template <class T>
std::shared_ptr<void> allocate_elements(std::int64_t count, bool zero_fill) {
  const auto n = static_cast<std::size_t>(count);
  if constexpr (std::is_trivially_copyable_v<T>) {
    const BufferChecks checks = g_buffer_checks;
    const std::size_t bytes = n * sizeof(T);
    const std::size_t guard_bytes = checks.enabled ? checks.guard_bytes : 0;
    // One allocation holds the buffer and its reference counts (std::allocator: plain operator
    // new, so replacement allocators still see every buffer), aligned by hand: glibc's aligned
    // allocation splits the chunk and frees the pieces, which costs more than the allocation
    // itself for the small buffers of small calls.
    std::size_t space = bytes + guard_bytes + kAlignment - 1;
    std::shared_ptr<std::byte[]> block = std::make_shared_for_overwrite<std::byte[]>(space);
    void* aligned = block.get();
    auto* p = static_cast<std::byte*>(std::align(kAlignment, bytes + guard_bytes, aligned, space));
    advise_huge_pages(p, bytes);
    // T{} is all-zero bits for every trivially copyable dtype.
    if (zero_fill) {
      std::memset(p, 0, bytes);
    } else if (checks.enabled) {
      std::memset(p, std::is_same_v<T, bool> ? 1 : checks.poison_byte, bytes);
    }
    if (guard_bytes == 0) return std::shared_ptr<void>(std::move(block), p);
    // The guard is checked when the last owner lets go (a second control block: checks are a
    // testing mode).
    std::memset(p + bytes, kGuardByte, guard_bytes);
    return std::shared_ptr<void>(p, [block = std::move(block), bytes, guard_bytes](void* q) {
      if (!guard_ok(static_cast<std::byte*>(q) + bytes, guard_bytes)) ++g_guard_violations;
    });
  } else {
    return std::shared_ptr<T[]>(new T[n == 0 ? 1 : n]());
  }
}
}  // namespace

void set_huge_page_min_bytes(std::size_t bytes) { g_huge_page_min_bytes.store(bytes, std::memory_order_relaxed); }
std::size_t huge_page_min_bytes() { return g_huge_page_min_bytes.load(std::memory_order_relaxed); }

void advise_huge_pages(void* buffer, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_page_min_bytes()) return;
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto start = reinterpret_cast<std::uintptr_t>(buffer);
  const std::uintptr_t begin = (start + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = (start + bytes) & ~(kHugePage - 1);
  // Advice only: where huge pages are off or the memory is not anonymous it fails, harmlessly.
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)buffer;
  (void)bytes;
#endif
}

void set_buffer_checks(const BufferChecks& checks) { g_buffer_checks = checks; }
const BufferChecks& buffer_checks() { return g_buffer_checks; }
std::int64_t guard_violations() { return g_guard_violations.load(); }

TensorAllocationLog::TensorAllocationLog() : outer_(t_allocation_log) { t_allocation_log = this; }
TensorAllocationLog::~TensorAllocationLog() { t_allocation_log = outer_; }
void TensorAllocationLog::record(DType dtype, const Shape& shape) {
  if (t_allocation_log != nullptr) t_allocation_log->entries_.push_back({dtype, shape});
}

std::string allocations_string(const std::vector<TensorAllocation>& allocations) {
  std::string text;
  for (const TensorAllocation& a : allocations)
    text += str_cat(text.empty() ? "" : ", ", dtype_name(a.dtype), " ", shape_string(a.shape));
  return text;
}

bool Tensor::guard_intact() const {
  if (guard_bytes_ == 0) return true;
  const std::size_t bytes = static_cast<std::size_t>(num_elements_) * dtype_storage_size(dtype_);
  return guard_ok(static_cast<const std::byte*>(data_) + bytes, guard_bytes_);
}

Tensor::Tensor(DType dtype, Shape shape) : Tensor(dtype, shape, Fill::kValueInitialize) {}

Tensor Tensor::uninitialized(DType dtype, Shape shape) { return Tensor(dtype, shape, Fill::kUninitialized); }

Tensor Tensor::uninitialized_taking(DType dtype, Shape* shape) { return Tensor(dtype, *shape, Fill::kUninitialized); }

Tensor::Tensor(DType dtype, Shape& shape, Fill fill) : dtype_(dtype) {
  num_elements_ = checked_num_elements(shape);
  if (num_elements_ < 0 || static_cast<int>(shape.size()) > kMaxDims)
    throw std::length_error("Tensor: invalid shape " + shape_string(shape));
  const auto max_bytes = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (static_cast<std::uint64_t>(num_elements_) > max_bytes / dtype_storage_size(dtype))
    throw std::length_error("Tensor: buffer size overflows for " + shape_string(shape));
  TensorAllocationLog::record(dtype, shape);
  if (num_elements_ == 0 && !g_buffer_checks.enabled) {
    // No buffer for an empty tensor (DynamicPartition may return millions of them); data()
    // still points at valid, suitably aligned memory.
    alignas(kAlignment) static std::byte empty_buffer[kAlignment];
    data_ = empty_buffer;
    shape_ = std::move(shape);
    return;
  }
  storage_ = visit_dtype(dtype, [&](auto tag) {
    return allocate_elements<typename decltype(tag)::type>(num_elements_, fill == Fill::kValueInitialize);
  });
  data_ = storage_.get();
  if (dtype != DType::kString && g_buffer_checks.enabled) guard_bytes_ = g_buffer_checks.guard_bytes;
  shape_ = std::move(shape);
}

void Tensor::not_an_index_tensor() { throw std::logic_error("Tensor::index_value: not an int32/int64 tensor"); }

Tensor Tensor::clone() const {
  Tensor copy(dtype_, shape_);
  if (dtype_ == DType::kString) {
    std::copy_n(data<std::string>(), num_elements_, copy.data<std::string>());
  } else if (num_elements_ > 0) {
    std::memcpy(copy.data_, data_, static_cast<std::size_t>(num_elements_) * dtype_storage_size(dtype_));
  }
  return copy;
}

bool Tensor::bit_equal(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (dtype_ == DType::kString)
    return std::equal(data<std::string>(), data<std::string>() + num_elements_, other.data<std::string>());
  if (num_elements_ == 0) return true;
  return std::memcmp(data_, other.data_, static_cast<std::size_t>(num_elements_) * dtype_storage_size(dtype_)) == 0;
}

}  // namespace opconform
