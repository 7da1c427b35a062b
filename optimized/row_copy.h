// Private helper of the optimized DynamicStitch and DynamicPartition (and, for the streaming
// stores, SpaceToBatchND/BatchToSpaceND): moves one row (a run of elements of one dtype) from a
// source buffer to a destination buffer, with the row's byte width fixed at compile time for the
// common small widths and std::string rows copied by assignment. The thread count is
// thread_policy.h's.
//
//   with_row_mover<T>(row_elems, [&](auto mover) { mover.copy(dst, dst_row, src, src_row); });
#pragma once

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>

#include "opconform/exec.h"

// On a function whose loop makes small fixed-size copies (the chunk movers of SpaceToBatchND and
// SpaceToDepth): GCC and clang would turn the loop into one memcpy call per chunk, which costs
// more than the copy itself for short chunks; this keeps the loop as written.
#if defined(__clang__)
#define OPCONFORM_KEEP_COPY_LOOPS __attribute__((no_builtin("memcpy")))
#elif defined(__GNUC__)
#define OPCONFORM_KEEP_COPY_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define OPCONFORM_KEEP_COPY_LOOPS
#endif

namespace opconform::optimized::row_copy {

// The few settings measured to differ between CPU makers key on this.
inline bool cpu_is_intel() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
#else
  return false;
#endif
}

// This core's caches in bytes as sysconf reports them (glibc), read once; 0 where unknown.
struct CacheSizes {
  std::int64_t l1d, l2, l3;
};
inline const CacheSizes& cache_sizes() {
  static const CacheSizes sizes = [] {
    CacheSizes read{0, 0, 0};
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    const auto size = [](int name) { return std::max<std::int64_t>(0, sysconf(name)); };
    read = {size(_SC_LEVEL1_DCACHE_SIZE), size(_SC_LEVEL2_CACHE_SIZE), size(_SC_LEVEL3_CACHE_SIZE)};
#endif
    return read;
  }();
  return sizes;
}

// Wide moves. Inside the core's L1 cache a copy is bound by its count of moves, not their
// width: a 4 KiB output of 64-byte chunks (S2B's layout, Zen 4 guest) took 70 ns in 16-byte
// moves, the x86-64 baseline's, and 36 ns in 32-byte ones (glibc's memcpy of the 4 KiB, which
// picks its moves at run time too, 42 ns). So the small, in-cache paths have a second copy of
// their loop compiled for AVX2 (OPCONFORM_WIDE_TARGET) and take it where takes_wide_moves();
// in it, copy_fixed<N, true> moves 32 bytes at a time (GCC's own fixed-size memcpy keeps
// 16-byte moves there). Larger outputs are bound by the L2 and beyond, where on the Zen 4
// guest the width did not help (a bare copy loop 64 KiB to 1 MiB level within 3 %, the
// kernels' loops slower) except against a memcpy call per row (DynamicStitch's small path),
// and on the Intel Xeon guest it did up to the L2 (see takes_wide_moves).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OPCONFORM_WIDE_TARGET __attribute__((target("avx2")))
inline bool cpu_has_wide_moves() {
  static const bool has = __builtin_cpu_supports("avx2");  // checks the OS saves the ymm state too
  return has;
}
#else
#define OPCONFORM_WIDE_TARGET
inline bool cpu_has_wide_moves() { return false; }
#endif

// -1: as the CPU allows; 0: never (tests run the baseline loops on a machine with AVX2).
inline std::atomic<int>& wide_moves_setting() {
  static std::atomic<int> setting{-1};
  return setting;
}
inline bool wide_moves() { return wide_moves_setting().load(std::memory_order_relaxed) != 0 && cpu_has_wide_moves(); }
// Holds wide_moves_setting() at `setting` for its scope, then -1 again (tests).
class ScopedWideMovesSetting {
 public:
  explicit ScopedWideMovesSetting(int setting) { wide_moves_setting() = setting; }
  ~ScopedWideMovesSetting() { wide_moves_setting() = -1; }
  ScopedWideMovesSetting(const ScopedWideMovesSetting&) = delete;
  ScopedWideMovesSetting& operator=(const ScopedWideMovesSetting&) = delete;
};

// The largest output the wide loops take: one that fits in the L1 data cache with its source
// (32 KiB where unknown), on Intel one up to the L2's size (sizes in bytes, <= 0 unknown). On
// the AMD Zen 4 guest beyond the L1 they ran 5-10 % slower than 16-byte moves (S2B 64-byte
// chunks, 20 KiB to 64 KiB outputs), and at 16 KiB 15-35 % faster. On the Intel Xeon guest (48
// KiB L1, 2 MiB L2) they stayed ahead past the L1, and were level from 4 MiB. Medians of 5, 2
// rounds, half the L1 / up to 1 GiB: S2B's work against the plain loop 32 KiB 0.80-0.93 / 1.04,
// 64 KiB 0.97-1.06 / 1.14, 256 KiB 1.05-1.07 / 1.14-1.16, 1 MiB 1.27-1.29 / 1.36-1.37;
// DynamicPartition's whole call against the plain loop's, 4 partitions of 256-byte rows, 64 KiB
// 1.01 / 1.07, 256 KiB 1.01-1.03 / 1.13-1.15, 1 MiB 1.01-1.02 / 1.04-1.05, 4 MiB 1.01 /
// 1.01-1.02; BatchToSpaceND's work 1-5 % ahead.
inline std::int64_t wide_moves_max_bytes(std::int64_t l1, std::int64_t l2, bool intel) {
  const std::int64_t in_l1 = (l1 > 0 ? l1 : std::int64_t{32} << 10) / 2;
  return intel ? std::max(in_l1, l2) : in_l1;
}

// Whether a copy writing `output_bytes` (and reading as many) takes the wide loops: where the
// CPU has them, up to this machine's wide_moves_max_bytes().
inline bool takes_wide_moves(std::int64_t output_bytes) {
  static const std::int64_t max_bytes = [] {  // -1 without wide moves
    if (!cpu_has_wide_moves()) return std::int64_t{-1};
    return wide_moves_max_bytes(cache_sizes().l1d, cache_sizes().l2, cpu_is_intel());
  }();
  return output_bytes <= max_bytes && wide_moves_setting().load(std::memory_order_relaxed) != 0;
}

// Movers that copy in 32-byte moves declare kWideMoves = true: their loops must run inside an
// OPCONFORM_WIDE_TARGET function (space_batch's move_line_wide, DynamicPartition's
// scatter_chunk_wide, DynamicStitch's small_forward_rows_wide).
template <class Mover>
inline constexpr bool kWideMover = requires {
  requires Mover::kWideMoves;
};

// Copies kBytes (a constant). With kWide (only inside OPCONFORM_WIDE_TARGET functions, where
// it compiles to 32-byte moves; elsewhere the 32-byte vectors would go through the stack), in
// 32-byte pieces where kBytes allows.
template <std::size_t kBytes, bool kWide>
[[gnu::always_inline]] inline void copy_fixed(void* d, const void* s) {
  if constexpr (kWide && kBytes % 32 == 0) {
    using Piece = char __attribute__((vector_size(32)));
    for (std::size_t i = 0; i < kBytes; i += 32) {
      Piece piece;
      std::memcpy(&piece, static_cast<const char*>(s) + i, 32);
      std::memcpy(static_cast<char*>(d) + i, &piece, 32);
    }
  } else {
    std::memcpy(d, s, kBytes);
  }
}

// Copies rows of kBytes bytes between byte buffers (trivially copyable element types).
template <std::int64_t kBytes>
struct FixedBytes {
  using Element = std::byte;
  std::int64_t row_bytes() const { return kBytes; }
  void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src, std::int64_t src_row) const {
    std::memcpy(dst + dst_row * kBytes, src + src_row * kBytes, kBytes);
  }
};

// FixedBytes in 32-byte moves (kBytes a multiple of 32), for OPCONFORM_WIDE_TARGET functions
// only (copy_fixed); with_wide_row_mover picks it.
template <std::int64_t kBytes>
struct WideFixedBytes {
  static_assert(kBytes % 32 == 0);
  static constexpr bool kWideMoves = true;
  using Element = std::byte;
  std::int64_t row_bytes() const { return kBytes; }
  [[gnu::always_inline]] void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src,
                                   std::int64_t src_row) const {
    copy_fixed<kBytes, true>(dst + dst_row * kBytes, src + src_row * kBytes);
  }
};

// Whether with_wide_row_mover has a mover for rows of `row_bytes`: 32, 64, 128, 256 or 512.
inline bool has_wide_row_mover(std::int64_t row_bytes) {
  return row_bytes >= 32 && row_bytes <= 512 && (row_bytes & (row_bytes - 1)) == 0;
}
// Calls f(WideFixedBytes<row_bytes>{}) and returns true where has_wide_row_mover(row_bytes);
// false (f not called) for other widths.
template <class F>
bool with_wide_row_mover(std::int64_t row_bytes, F&& f) {
  switch (row_bytes) {
    case 32: f(WideFixedBytes<32>{}); return true;
    case 64: f(WideFixedBytes<64>{}); return true;
    case 128: f(WideFixedBytes<128>{}); return true;
    case 256: f(WideFixedBytes<256>{}); return true;
    case 512: f(WideFixedBytes<512>{}); return true;
    default: return false;
  }
}

// Copies rows of a runtime byte width between byte buffers.
struct AnyBytes {
  using Element = std::byte;
  std::int64_t bytes;
  std::int64_t row_bytes() const { return bytes; }
  void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src, std::int64_t src_row) const {
    std::memcpy(dst + dst_row * bytes, src + src_row * bytes, static_cast<std::size_t>(bytes));
  }
};

// Copies rows of `elems` strings by assignment.
struct Strings {
  using Element = std::string;
  std::int64_t elems;
  std::int64_t row_bytes() const { return elems * static_cast<std::int64_t>(sizeof(std::string)); }
  void copy(std::string* dst, std::int64_t dst_row, const std::string* src, std::int64_t src_row) const {
    for (std::int64_t k = 0; k < elems; ++k) dst[dst_row * elems + k] = src[src_row * elems + k];
  }
};

// Calls f(mover) with the mover for rows of `row_elems` elements of type T; the mover's
// Element is the pointer type f must hand to copy() (std::byte for every trivially copyable T).
// Precondition: row_elems * sizeof(T) fits in int64 (the rows belong to a valid tensor).
template <class T, class F>
void with_row_mover(std::int64_t row_elems, F&& f) {
  if constexpr (std::is_same_v<T, std::string>) {
    f(Strings{row_elems});
  } else {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::int64_t bytes = row_elems * static_cast<std::int64_t>(sizeof(T));
    switch (bytes) {
      case 1: f(FixedBytes<1>{}); return;
      case 2: f(FixedBytes<2>{}); return;
      case 4: f(FixedBytes<4>{}); return;
      case 8: f(FixedBytes<8>{}); return;
      case 16: f(FixedBytes<16>{}); return;
      case 32: f(FixedBytes<32>{}); return;
      case 64: f(FixedBytes<64>{}); return;
      case 128: f(FixedBytes<128>{}); return;
      case 256: f(FixedBytes<256>{}); return;
      default: f(AnyBytes{bytes}); return;
    }
  }
}

// Streaming (non-temporal) stores write around the caches: no read-for-ownership of output
// lines that are fully overwritten, as memcpy does for large copies (rep movsb or
// non-temporal stores). They pay off for outputs much larger than a core's cache; below,
// cached stores win (the output stays in cache for its reader).
// Threshold: 8x the per-core L2 (16 MiB where unknown), at least 6 MiB. The shared L3 is not
// counted: other cores (and on a VM other tenants) share it. Measured on a 2-core guest with
// 2 MiB L2 and 300 MiB shared L3: a 16-byte streaming copy beats a cached one from 4 MiB up
// (4 MiB: 0.41 vs 0.64 ms, 64 MiB: 8.4 vs 11.4 ms; memcpy 8.9 ms). On the 2-core guest with
// 512 KiB L2 (bench/RESULTS.md), 1 thread, 512-byte S2B/B2S rows and 256-byte Stitch and
// Partition rows: cached stores win at 4 MiB (S2B 0.78 vs 0.49 of memcpy, Stitch 0.51 vs 0.40),
// the two are level at 6 MiB and streaming wins from 8 MiB (S2B 1.14 vs 0.92).
inline std::int64_t default_streaming_min_bytes() {
  static const std::int64_t bytes =
      cache_sizes().l2 > 0 ? std::max(cache_sizes().l2 * 8, std::int64_t{6} << 20) : std::int64_t{16} << 20;
  return bytes;
}

// The threshold in force: ExecOptions::streaming_min_bytes where set, else the default above.
inline std::int64_t streaming_min_bytes(const ExecOptions& options) {
  return options.streaming_min_bytes > 0 ? options.streaming_min_bytes : default_streaming_min_bytes();
}

// Beyond the caches: the output size from which glibc's memcpy streams (its non-temporal
// threshold), 3/4 of the last-level cache's share per thread, at least 4 MiB, 32 MiB where the
// caches are unknown. glibc (Debian 12's 2.36) counts on Intel the L3 divided among the
// logical processors sharing it plus the L2, elsewhere the whole L3 (the L2 where there is none):
// `ld.so --list-diagnostics` reports 181.5 MiB on the Intel Xeon guest (480 MiB L3 shared by
// 2, 2 MiB L2) and 240 MiB on the AMD Zen 4 guest (320 MiB L3). Sizes in bytes, <= 0 unknown.
inline std::int64_t memcpy_streaming_min_bytes(std::int64_t l3, std::int64_t l2, std::int64_t l3_sharing, bool intel) {
  std::int64_t cache = l3 > 0 ? l3 : l2;
  if (cache <= 0) return std::int64_t{32} << 20;
  if (intel && l3 > 0) cache = l3 / std::max<std::int64_t>(1, l3_sharing) + std::max<std::int64_t>(0, l2);
  return std::max<std::int64_t>(cache / 4 * 3, std::int64_t{4} << 20);
}

// The logical processors sharing the L3 (cpuid leaf 4, as glibc counts them); 1 where unknown.
inline std::int64_t l3_sharing() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  for (unsigned i = 0; i < 16; ++i) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(4, i, &a, &b, &c, &d) || (a & 31) == 0) break;
    if (((a >> 5) & 7) == 3) return ((a >> 14) & 0xfff) + 1;
  }
#endif
  return 1;
}

// This machine's memcpy_streaming_min_bytes().
inline std::int64_t memcpy_streaming_min_bytes() {
  static const std::int64_t bytes =
      memcpy_streaming_min_bytes(cache_sizes().l3, cache_sizes().l2, l3_sharing(), cpu_is_intel());
  return bytes;
}

// How far ahead software prefetches run for sources beyond the caches (SpaceToBatchND and
// BatchToSpaceND whole rows, DynamicPartition's rows): 1 KiB on Intel, 8 KiB elsewhere.
// Measured at 1 GiB of output, 1 thread, ratio to memcpy: on the AMD guest 8 KiB against none
// (2 interleaved rounds) S2B 0.70 -> 0.94, B2S 0.63 -> 0.73, Partition 0.68 -> 0.83. On the
// Intel Xeon guest (medians of 3 repetitions) a prefetch 4 KiB or more ahead cost more than it
// hid: S2B none 0.68, 1 KiB 0.89, 2 KiB 0.89, 4 KiB 0.70, 8 KiB 0.64; Partition none 0.79,
// 1 KiB 0.85, 2 KiB 0.83, 4 KiB 0.60, 8 KiB 0.57.
inline std::int64_t prefetch_ahead_bytes() {
  static const std::int64_t bytes = cpu_is_intel() ? 1024 : 8192;
  return bytes;
}

// Prefetches [p, p + bytes) line by line (64-byte lines). Always inlined: GCC deems an
// outlined prefetch loop pure and may delete its calls.
[[gnu::always_inline]] inline void prefetch_lines(const void* p, std::int64_t bytes) {
  const auto* b = static_cast<const char*>(p);
  for (std::int64_t i = 0; i < bytes; i += 64) __builtin_prefetch(b + i);
}

// Copies (or zeroes) 16 bytes to a 16-byte aligned d with a streaming store (SSE2, the x86-64
// baseline; a plain store elsewhere). A thread calls stream_fence() after its last one.
inline void stream16(void* d, const void* s) {
#if defined(__SSE2__)
  _mm_stream_si128(static_cast<__m128i*>(d), _mm_loadu_si128(static_cast<const __m128i*>(s)));
#else
  std::memcpy(d, s, 16);
#endif
}
inline void stream_zero16(void* d) {
#if defined(__SSE2__)
  _mm_stream_si128(static_cast<__m128i*>(d), _mm_setzero_si128());
#else
  std::memset(d, 0, 16);
#endif
}
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();  // the streaming stores are visible before the thread reports completion
#endif
}

// Copies `bytes` (a multiple of 16) from s to a 16-byte aligned d with streaming stores.
inline void stream_row(std::byte* d, const std::byte* s, std::int64_t bytes) {
  for (std::int64_t b = 0; b < bytes; b += 16) stream16(d + b, s + b);
}

// A mover like FixedBytes for rows of whole 16-byte words between 16-byte aligned buffers,
// with streaming stores: each thread calls stream_fence() after its last copy.
struct StreamedBytes {
  using Element = std::byte;
  std::int64_t bytes;
  std::int64_t row_bytes() const { return bytes; }
  void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src, std::int64_t src_row) const {
    stream_row(dst + dst_row * bytes, src + src_row * bytes, bytes);
  }
};

// StreamedBytes for rows of kBytes (a multiple of 16) fixed at compile time: the copy is
// unrolled into straight-line streaming stores. Beyond the caches a loop of 16-byte streaming
// stores over a runtime width ran slower than the same stores written out: DynamicStitch, 1
// thread, 256-byte rows to random places of a 256 MiB output, 22.3-25.6 ms against 18.9-20.2
// (memcpy of the bytes 18.5-21.7); 0.79-0.92 of memcpy from 256 MiB to 1 GiB, 0.92-1.01
// written out (bench/RESULTS.md).
template <std::int64_t kBytes>
struct StreamedFixedBytes {
  static_assert(kBytes % 16 == 0);
  using Element = std::byte;
  std::int64_t row_bytes() const { return kBytes; }
  void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src, std::int64_t src_row) const {
    std::byte* d = dst + dst_row * kBytes;
    const std::byte* s = src + src_row * kBytes;
#pragma GCC unroll 32
    for (std::int64_t b = 0; b < kBytes; b += 16) stream16(d + b, s + b);
  }
};

// Whether Mover writes with streaming stores (its threads call stream_fence() at the end).
template <class Mover>
inline constexpr bool kStreamed = false;
template <>
inline constexpr bool kStreamed<StreamedBytes> = true;
template <std::int64_t kBytes>
inline constexpr bool kStreamed<StreamedFixedBytes<kBytes>> = true;

// Calls f(mover) with the streaming mover for byte rows of `row_bytes` (a multiple of 16):
// fixed widths up to 512 bytes, else StreamedBytes.
template <class F>
void with_streamed_mover(std::int64_t row_bytes, F&& f) {
  switch (row_bytes) {
    case 16: f(StreamedFixedBytes<16>{}); return;
    case 32: f(StreamedFixedBytes<32>{}); return;
    case 64: f(StreamedFixedBytes<64>{}); return;
    case 128: f(StreamedFixedBytes<128>{}); return;
    case 256: f(StreamedFixedBytes<256>{}); return;
    case 512: f(StreamedFixedBytes<512>{}); return;
    default: f(StreamedBytes{row_bytes}); return;
  }
}

}  // namespace opconform::optimized::row_copy
