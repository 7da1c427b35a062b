// Replaces the global operator new/delete (all forms) with malloc-backed versions that keep a
// size header, so the bytes live at any moment and their running peak are known.
#include "support/allocation_probe.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

namespace opconform::properties {
namespace {

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};
constexpr std::size_t kHeader = 16;  // keeps malloc's 16-byte alignment for the user pointer

void* counted_alloc(std::size_t n, std::size_t align) {
  const std::size_t offset = std::max(kHeader, align);
  void* base = nullptr;
  if (align <= kHeader) {
    base = std::malloc(n + offset);
  } else if (posix_memalign(&base, align, n + offset) != 0) {
    base = nullptr;
  }
  if (!base) return nullptr;
  char* user = static_cast<char*>(base) + offset;
  reinterpret_cast<std::size_t*>(user)[-1] = n;
  const std::int64_t live = g_live.fetch_add(static_cast<std::int64_t>(n)) + static_cast<std::int64_t>(n);
  std::int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return user;
}

void counted_free(void* p, std::size_t align) {
  if (!p) return;
  char* user = static_cast<char*>(p);
  g_live.fetch_sub(static_cast<std::int64_t>(reinterpret_cast<std::size_t*>(user)[-1]));
  std::free(user - std::max(kHeader, align));
}

void* allocate_or_throw(std::size_t n, std::size_t align) {
  for (;;) {
    if (void* p = counted_alloc(n, align)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

AllocationProbe::AllocationProbe() : start_(g_live.load()) { g_peak.store(start_); }

std::int64_t AllocationProbe::peak_bytes() const { return g_peak.load() - start_; }

}  // namespace opconform::properties

using opconform::properties::allocate_or_throw;
using opconform::properties::counted_alloc;
using opconform::properties::counted_free;

void* operator new(std::size_t n) { return allocate_or_throw(n, 0); }
void* operator new[](std::size_t n) { return allocate_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { counted_free(p, 0); }
void operator delete[](void* p) noexcept { counted_free(p, 0); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p, 0); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p, 0); }
void operator delete(void* p, std::align_val_t a) noexcept { counted_free(p, static_cast<std::size_t>(a)); }
void operator delete[](void* p, std::align_val_t a) noexcept { counted_free(p, static_cast<std::size_t>(a)); }
void operator delete(void* p, std::size_t, std::align_val_t a) noexcept { counted_free(p, static_cast<std::size_t>(a)); }
void operator delete[](void* p, std::size_t, std::align_val_t a) noexcept { counted_free(p, static_cast<std::size_t>(a)); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p, 0); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p, 0); }
void operator delete(void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
  counted_free(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
  counted_free(p, static_cast<std::size_t>(a));
}
