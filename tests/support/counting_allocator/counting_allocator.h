// A counting replacement of the global operator new/delete (every form), for binaries that
// measure the heap bytes of a call: the property tests' allocation bound and the benchmarks'
// peak_extra_bytes. Linking the static library opconform_counting_allocator and calling any
// function below brings the replacement into the binary (the functions and the operators live
// in one object file).
//
// Blocks come from malloc (or posix_memalign past 16-byte alignment), or from a block pool the
// binary installs; bytes count as the caller requested them, not as malloc rounds them up.
// malloc itself and anything else that bypasses operator new are not counted.
//
//   const std::int64_t start = counting_allocator::reset_peak();
//   run the op ...
//   std::int64_t peak = counting_allocator::peak_bytes() - start;
#pragma once

#include <cstddef>
#include <cstdint>

namespace opconform::counting_allocator {

// Bytes allocated through operator new and not yet deleted, in every thread.
std::int64_t live_bytes();
// The most bytes live at once since the last reset_peak().
std::int64_t peak_bytes();
// Starts a new peak from the bytes live now, and returns them.
std::int64_t reset_peak();

// Where raw blocks may come from instead of malloc and go to instead of free (a pool of large
// blocks that spares page faults). take: a block of at least `bytes` at `alignment` that free()
// can release, or nullptr for malloc. give: true when the pool keeps `raw` (a block of `usable`
// bytes, as malloc_usable_size reports it), false to have it freed.
struct BlockPool {
  void* (*take)(std::size_t bytes, std::size_t alignment);
  bool (*give)(void* raw, std::size_t usable);
};
// Installs `pool` for every later allocation and deletion. Call before threads other than the
// caller allocate (e.g. from a static initializer).
void set_block_pool(BlockPool pool);

}  // namespace opconform::counting_allocator
