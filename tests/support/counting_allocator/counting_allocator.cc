// The replacement global operator new/delete and the counters (counting_allocator.h). Every
// block is [header | user bytes]: the header is max(alignment, 16) bytes, so the user pointer
// keeps the alignment, and its last 16 bytes hold the requested size and the raw block.
#include "counting_allocator.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace opconform::counting_allocator {
namespace {

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};
BlockPool g_pool{nullptr, nullptr};

void note_allocation(std::size_t requested) {
  const auto bytes = static_cast<std::int64_t>(requested);
  const std::int64_t live = g_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void note_release(std::size_t requested) {
  g_live.fetch_sub(static_cast<std::int64_t>(requested), std::memory_order_relaxed);
}

struct Header {
  std::size_t requested;
  void* raw;
};

void* raw_block(std::size_t bytes, std::size_t alignment) {
  if (g_pool.take != nullptr)
    if (void* pooled = g_pool.take(bytes, alignment)) return pooled;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(bytes);
  void* raw = nullptr;
  return posix_memalign(&raw, alignment, bytes) == 0 ? raw : nullptr;
}

void release_raw_block(void* raw) {
  if (g_pool.give != nullptr && g_pool.give(raw, malloc_usable_size(raw))) return;
  std::free(raw);
}

// noinline: keeps GCC from pairing inlined new/delete with malloc/free (-Wmismatched-new-delete).
__attribute__((noinline)) void* counted_alloc(std::size_t size, std::size_t alignment) noexcept {
  alignment = std::max<std::size_t>(alignment, alignof(std::max_align_t));
  const std::size_t header = std::max<std::size_t>(alignment, sizeof(Header));
  if (size > std::numeric_limits<std::size_t>::max() - header) return nullptr;
  void* raw = raw_block(header + size, alignment);
  if (raw == nullptr) return nullptr;
  void* user = static_cast<char*>(raw) + header;
  new (static_cast<char*>(user) - sizeof(Header)) Header{size, raw};
  note_allocation(size);
  return user;
}

__attribute__((noinline)) void counted_free(void* user) noexcept {
  if (user == nullptr) return;
  Header h;
  std::memcpy(&h, static_cast<char*>(user) - sizeof(Header), sizeof(Header));
  note_release(h.requested);
  release_raw_block(h.raw);
}

// operator new's contract: on failure, the new_handler runs until it makes room or there is none.
void* counted_alloc_or_throw(std::size_t size, std::size_t alignment) {
  for (;;) {
    if (void* p = counted_alloc(size, alignment)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

std::int64_t live_bytes() { return g_live.load(std::memory_order_relaxed); }
std::int64_t peak_bytes() { return g_peak.load(std::memory_order_relaxed); }
std::int64_t reset_peak() {
  const std::int64_t live = live_bytes();
  g_peak.store(live, std::memory_order_relaxed);
  return live;
}
void set_block_pool(BlockPool pool) { g_pool = pool; }

}  // namespace opconform::counting_allocator

using opconform::counting_allocator::counted_alloc;
using opconform::counting_allocator::counted_alloc_or_throw;
using opconform::counting_allocator::counted_free;

void* operator new(std::size_t n) { return counted_alloc_or_throw(n, 0); }
void* operator new[](std::size_t n) { return counted_alloc_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) {
  return counted_alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
