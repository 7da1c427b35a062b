// The blocked data-movement kernel of optimized SpaceToBatchND and BatchToSpaceND
// (space_batch_movers.h): chunk movers per dtype width and block, the geometry of groups and
// tiles, the per-thread work loop, and the dispatch that picks a mover.
#include "space_batch_movers.h"

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "row_copy.h"
#include "thread_policy.h"

namespace opconform::optimized::space_batch {

namespace {

std::int64_t product(const Dims& v) {
  std::int64_t p = 1;
  for (std::int64_t x : v) p *= x;
  return p;
}

// ---------------------------------------------------------------------------------------------
// Movers: how chunks (the depth elements of one position) are copied. Pointers count `Unit`s
// and a chunk is `cu` of them: bytes for trivially copyable dtypes (moved with fixed-size
// memcpy, which is aliasing-safe and compiles to plain vector moves), std::string otherwise.

using Byte = unsigned char;

using row_copy::stream16;
using row_copy::stream_zero16;

// Chunks of exactly kWidth bytes (1, 2, 4, 8, 16, 32, 64: depths of 8 or 16 floats are common
// and a fixed-size copy is a few vector moves); the block size is kBlock (2, 3, 4) or, when
// kBlock == 0, the runtime `block`. The fixed sizes give the compiler (OpenMP simd) fully
// vectorised (de)interleaving loops that read and write whole cache lines.
template <std::size_t kWidth, int kBlock, bool kWide = false>
struct WidthMover {
  using Unit = Byte;
  static constexpr std::size_t W = kWidth;
  static constexpr bool kWideMoves = kWide;  // for move_line_wide only (row_copy::kWideMover)
  [[gnu::always_inline]] static void move(Byte* d, const Byte* s) { row_copy::copy_fixed<W, kWide>(d, s); }
  std::int64_t block;
  std::int64_t cu = kWidth;  // units per chunk

  // (Empty runs are common at the row ends: no call for them.)
  void zero(Byte* d, std::int64_t n) const {
    if (n > 0) std::memset(d, 0, static_cast<std::size_t>(n) * W);
  }
  void copy(Byte* d, const Byte* s, std::int64_t n) const {
    if (n > 0) std::memcpy(d, s, static_cast<std::size_t>(n) * W);
  }
  void one(Byte* d, const Byte* s) const { move(d, s); }
  // Chunk j of d = chunk j * stride of s, for j < n.
  void gather(Byte* __restrict d, const Byte* __restrict s, std::int64_t n, std::int64_t stride) const {
    for (std::int64_t j = 0; j < n; ++j) move(d + j * W, s + j * stride * W);
  }
  // Stream o (at d + o * ss) gets chunk j = chunk j * block + o of s, for j < n.
  void deinterleave(Byte* d, std::int64_t ss, const Byte* __restrict s, std::int64_t n) const {
    if constexpr (kBlock == 2) {
      Byte* __restrict d0 = d;
      Byte* __restrict d1 = d + ss;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        move(d0 + j * W, s + (2 * j) * W);
        move(d1 + j * W, s + (2 * j + 1) * W);
      }
    } else if constexpr (kBlock == 3) {
      Byte* __restrict d0 = d;
      Byte* __restrict d1 = d + ss;
      Byte* __restrict d2 = d + 2 * ss;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        move(d0 + j * W, s + (3 * j) * W);
        move(d1 + j * W, s + (3 * j + 1) * W);
        move(d2 + j * W, s + (3 * j + 2) * W);
      }
    } else if constexpr (kBlock == 4) {
      Byte* __restrict d0 = d;
      Byte* __restrict d1 = d + ss;
      Byte* __restrict d2 = d + 2 * ss;
      Byte* __restrict d3 = d + 3 * ss;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        move(d0 + j * W, s + (4 * j) * W);
        move(d1 + j * W, s + (4 * j + 1) * W);
        move(d2 + j * W, s + (4 * j + 2) * W);
        move(d3 + j * W, s + (4 * j + 3) * W);
      }
    } else if (block == 1) {
      copy(d, s, n);
    } else {
      // One pass per stream: the source tile stays in L1 while the streams are written.
      for (std::int64_t o = 0; o < block; ++o) gather(d + o * ss, s + o * W, n, block);
    }
  }
  // Chunk j * block + o of d = chunk j of stream o (at s + o * ss), for j < n.
  void interleave(Byte* __restrict d, const Byte* s, std::int64_t ss, std::int64_t n) const {
    if constexpr (kBlock == 2) {
      const Byte* __restrict s0 = s;
      const Byte* __restrict s1 = s + ss;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        move(d + (2 * j) * W, s0 + j * W);
        move(d + (2 * j + 1) * W, s1 + j * W);
      }
    } else if constexpr (kBlock == 3) {
      const Byte* __restrict s0 = s;
      const Byte* __restrict s1 = s + ss;
      const Byte* __restrict s2 = s + 2 * ss;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        move(d + (3 * j) * W, s0 + j * W);
        move(d + (3 * j + 1) * W, s1 + j * W);
        move(d + (3 * j + 2) * W, s2 + j * W);
      }
    } else if constexpr (kBlock == 4) {
      const Byte* __restrict s0 = s;
      const Byte* __restrict s1 = s + ss;
      const Byte* __restrict s2 = s + 2 * ss;
      const Byte* __restrict s3 = s + 3 * ss;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) {
        move(d + (4 * j) * W, s0 + j * W);
        move(d + (4 * j + 1) * W, s1 + j * W);
        move(d + (4 * j + 2) * W, s2 + j * W);
        move(d + (4 * j + 3) * W, s3 + j * W);
      }
    } else if (block == 1) {
      copy(d, s, n);
    } else {
      // Writes the destination in order; the `block` source streams advance together.
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t o = 0; o < block; ++o) move(d + (j * block + o) * W, s + o * ss + j * W);
    }
  }
};

// Chunks of `cu` bytes, a multiple of kPiece (the widest of 16, 8, 4, 2, 1 dividing it), any
// block: memcpy per chunk for long chunks, a loop of kPiece-byte moves for short ones.
template <std::size_t kPiece>
struct ChunkMover {
  using Unit = Byte;
  static constexpr std::int64_t kMemcpyChunkBytes = 256;  // at or above: memcpy per chunk
  std::int64_t block;
  std::int64_t cu;

  void zero(Byte* d, std::int64_t n) const {
    if (n > 0) std::memset(d, 0, static_cast<std::size_t>(n * cu));
  }
  void copy(Byte* d, const Byte* s, std::int64_t n) const {
    if (n > 0) std::memcpy(d, s, static_cast<std::size_t>(n * cu));
  }
  OPCONFORM_KEEP_COPY_LOOPS void one(Byte* __restrict d, const Byte* __restrict s) const {
    if (cu >= kMemcpyChunkBytes) {
      std::memcpy(d, s, static_cast<std::size_t>(cu));
      return;
    }
    for (std::int64_t u = 0; u < cu; u += kPiece) std::memcpy(d + u, s + u, kPiece);
  }
  OPCONFORM_KEEP_COPY_LOOPS void gather(Byte* __restrict d, const Byte* __restrict s, std::int64_t n,
                                        std::int64_t stride) const {
    if (cu >= kMemcpyChunkBytes) {
      for (std::int64_t j = 0; j < n; ++j) std::memcpy(d + j * cu, s + j * stride * cu, static_cast<std::size_t>(cu));
      return;
    }
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t u = 0; u < cu; u += kPiece) std::memcpy(d + j * cu + u, s + j * stride * cu + u, kPiece);
  }
  void deinterleave(Byte* d, std::int64_t ss, const Byte* s, std::int64_t n) const {
    if (block == 1) return copy(d, s, n);
    for (std::int64_t o = 0; o < block; ++o) gather(d + o * ss, s + o * cu, n, block);
  }
  OPCONFORM_KEEP_COPY_LOOPS void interleave(Byte* __restrict d, const Byte* s, std::int64_t ss, std::int64_t n) const {
    if (block == 1) return copy(d, s, n);
    if (cu >= kMemcpyChunkBytes) {
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t o = 0; o < block; ++o)
          std::memcpy(d + (j * block + o) * cu, s + o * ss + j * cu, static_cast<std::size_t>(cu));
      return;
    }
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t o = 0; o < block; ++o)
        for (std::int64_t u = 0; u < cu; u += kPiece)
          std::memcpy(d + (j * block + o) * cu + u, s + o * ss + j * cu + u, kPiece);
  }
};

// Chunks of `cu` bytes, a multiple of 16 (exactly 16 when kSixteen), any block, written with
// streaming (non-temporal) 16-byte stores straight to the destination: no read-for-ownership
// of the output lines and no staging copy. Precondition: the destination buffer is 16-byte
// aligned, so every chunk is; run_items() fences.
template <bool kSixteen>
struct StreamMover {
  using Unit = Byte;
  std::int64_t block;
  std::int64_t cu;

  std::int64_t bytes() const { return kSixteen ? 16 : cu; }
  void zero(Byte* d, std::int64_t n) const {
    for (std::int64_t i = 0; i < n * bytes(); i += 16) stream_zero16(d + i);
  }
  void copy(Byte* d, const Byte* s, std::int64_t n) const {
    for (std::int64_t i = 0; i < n * bytes(); i += 16) stream16(d + i, s + i);
  }
  void one(Byte* d, const Byte* s) const { copy(d, s, 1); }
  void gather(Byte* d, const Byte* s, std::int64_t n, std::int64_t stride) const {
    for (std::int64_t j = 0; j < n; ++j) copy(d + j * bytes(), s + j * stride * bytes(), 1);
  }
  // One pass per stream: the source tile stays in L1 while the streams are written.
  void deinterleave(Byte* d, std::int64_t ss, const Byte* s, std::int64_t n) const {
    for (std::int64_t o = 0; o < block; ++o) gather(d + o * ss, s + o * bytes(), n, block);
  }
  // Stream o's n chunks of one row to their places in the row d (interleave's stores for that
  // stream alone). With chunks of whole 64-byte lines every store fills a line on its own.
  void scatter_stream(Byte* d, const Byte* s, std::int64_t o, std::int64_t n) const {
    const std::int64_t b = block, w = bytes();
    for (std::int64_t j = 0; j < n; ++j) copy(d + (j * b + o) * w, s + j * w, 1);
  }
  // The destination is one stream written in order. The members are read into locals once:
  // through Byte* stores the compiler would reload them after every store. Two 16-byte
  // streams (block 2) are the common depth-4 float case: measured on rank 5
  // [512,32,32,32,4] b[2,2,2], 32-34 ms -> 21-23 ms (memcpy 19-21 ms).
  void interleave(Byte* d, const Byte* s, std::int64_t ss, std::int64_t n) const {
    const std::int64_t b = block, w = bytes();
    if (kSixteen && b == 2) {
      const Byte* s1 = s + ss;
      for (std::int64_t j = 0; j < n; ++j) {
        stream16(d + 32 * j, s + 16 * j);
        stream16(d + 32 * j + 16, s1 + 16 * j);
      }
      return;
    }
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t o = 0; o < b; ++o)
        for (std::int64_t i = 0; i < w; i += 16) stream16(d + (j * b + o) * w + i, s + o * ss + j * w + i);
  }
};

template <class Mover>
constexpr bool kStreamsDirectly = false;
template <bool kSixteen>
constexpr bool kStreamsDirectly<StreamMover<kSixteen>> = true;

// Strings (and any non-trivially-copyable element): chunks of `cu` elements, by assignment.
template <class T>
struct ElementMover {
  using Unit = T;
  std::int64_t block;
  std::int64_t cu;

  void zero(T* d, std::int64_t n) const { std::fill_n(d, n * cu, T{}); }
  void copy(T* d, const T* s, std::int64_t n) const { std::copy_n(s, n * cu, d); }
  void one(T* d, const T* s) const { std::copy_n(s, cu, d); }
  void gather(T* d, const T* s, std::int64_t n, std::int64_t stride) const {
    for (std::int64_t j = 0; j < n; ++j) one(d + j * cu, s + j * stride * cu);
  }
  void deinterleave(T* d, std::int64_t ss, const T* s, std::int64_t n) const {
    for (std::int64_t o = 0; o < block; ++o) gather(d + o * ss, s + o * cu, n, block);
  }
  void interleave(T* d, const T* s, std::int64_t ss, std::int64_t n) const {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t o = 0; o < block; ++o) one(d + (j * block + o) * cu, s + o * ss + j * cu);
  }
};

// ---------------------------------------------------------------------------------------------
// Geometry: the plan in positions (chunks). A group is one padded row position
// (n, y_0..y_{L-1}), L = K - 1: it joins one space-side row (space_L positions) with `block_L`
// batch-side rows (blocked_L positions each), the streams. Rows are cut into tiles of
// tile_j batch-side positions; work items are (group, tile) pairs in row-major order.

constexpr std::int64_t kDefaultTileBytes = 16 * 1024;

struct Geometry {
  int last = 0;  // L
  std::int64_t batch = 0;
  Dims space, block, start, blocked;
  Dims first, extent;  // per group dim i < L: y_i in [first_i, first_i + extent_i)
  std::int64_t row = 0, b = 1, row_start = 0, row_blocked = 0;
  std::int64_t qs = 0, rs = 0, qe = 0, re = 0;  // row_start = qs*b + rs, row_start + row = qe*b + re
  std::int64_t stream_stride = 0;               // batch-side positions from stream o to o + 1
  std::int64_t phase_stride = 0;                // batch-side positions from o_{L-1} to o_{L-1} + 1 (L >= 1)
  std::int64_t groups = 0, tile_j = 1, tiles = 0;
  // The innermost group dim (L - 1) is walked phase by phase (y = first + q + m * block, q
  // outer): for BatchToSpace, consecutive groups then read consecutive rows of the same
  // streams instead of alternating between block_{L-1} sets of them. Measured (ratio to
  // memcpy, 1 thread): b[4,4] padded [1,2048,2048,1] 0.71 -> 0.89; with a block of 2 the
  // alternation costs nothing and the phase order lost (0.61 -> 0.56 on rank 5), so it is
  // used from a block of 3, and for any block where BatchToSpace reads in bursts.
  bool by_phase = false;
  // Every item is one whole row: one tile per row and no padding or crop in the row's dim
  // (row_start = 0, row = row_blocked * b).
  bool whole_rows = false;
  // One group dim (L = 1), walked in order and covered whole by its blocks (space = blocked *
  // block: no padding or crop): the next batch entry's line then follows the last group of a
  // line by the same steps as a wrap within it (space rows g.row apart, batch rows a wrap step
  // apart), so Cursor::walk goes across lines.
  bool lines_chain = false;
  // > 0: BatchToSpace reads its streams in bursts of this many groups (read_in_bursts()).
  std::int64_t burst_groups = 0;
};

Geometry make_geometry(const Plan& plan, bool to_batch, std::int64_t chunk_bytes, const ExecOptions& options) {
  Geometry g;
  const int k = static_cast<int>(plan.block.size());
  g.last = k - 1;
  g.batch = plan.batch;
  g.space = plan.space;
  g.block = plan.block;
  g.start = plan.start;
  g.blocked = plan.blocked;
  g.groups = plan.batch;
  for (int i = 0; i < g.last; ++i) {
    g.first.push_back(to_batch ? 0 : plan.start[i]);
    g.extent.push_back(to_batch ? plan.blocked[i] * plan.block[i] : plan.space[i]);
    g.groups *= g.extent[i];
  }
  g.row = plan.space[g.last];
  g.b = plan.block[g.last];
  g.row_start = plan.start[g.last];
  g.row_blocked = plan.blocked[g.last];
  g.qs = g.row_start / g.b;
  g.rs = g.row_start % g.b;
  g.qe = (g.row_start + g.row) / g.b;
  g.re = (g.row_start + g.row) % g.b;
  g.stream_stride = plan.batch * product(plan.blocked);
  g.phase_stride = g.b * g.stream_stride;
  g.by_phase = !to_batch && g.last >= 1 && g.block[g.last - 1] >= 3;
  const std::int64_t tile_bytes = options.tile_bytes > 0 ? options.tile_bytes : kDefaultTileBytes;
  g.tile_j = std::max<std::int64_t>(1, tile_bytes / std::max<std::int64_t>(1, chunk_bytes * g.b));
  g.tiles = g.row_blocked == 0 ? 0 : (g.row_blocked + g.tile_j - 1) / g.tile_j;
  g.whole_rows = g.tiles == 1 && g.row_start == 0 && g.row == g.row_blocked * g.b;
  g.lines_chain = g.last == 1 && !g.by_phase && plan.space[0] == plan.blocked[0] * plan.block[0];
  return g;
}

// BatchToSpace far beyond the caches, whole rows of whole 64-byte chunks streamed out: each
// group reads one row from each of b streams in batch entries far apart, and consecutive
// groups alternate between the outer phases' sets of entries, so a row-by-row walk reads 2b or
// more places a few hundred bytes at a time. Instead the groups walk phase by phase
// (consecutive groups read consecutive rows of the same streams), and run_stream_bursts()
// collects burst_groups of them, then moves stream 0's rows of all of them (about kBurstBytes
// read in a row), then stream 1's, and so on (whole-line streaming stores in any order: no
// partial lines to combine). Measured on [4,H/2,4,16] b[2,2] (ratio to memcpy, 1 thread, sweep
// binary, medians of 4 rounds alternating the builds): 256 MiB 0.99 -> 1.38, 512 MiB 1.19 ->
// 1.49, 1 GiB 0.86 -> 1.43. A bare loop of the same moves at 1 GiB: row by row 0.69-0.86,
// bursts of 2 KiB 0.85-0.88, of 8 KiB and more 1.33-1.53. On the Intel Xeon guest the bursts
// lost to rows read one by one and prefetched row_copy::prefetch_ahead_bytes() ahead (384 MiB
// and 1 GiB, 3 processes alternating the builds: 0.73-0.74 against 1.06-1.07), so by default
// they are taken elsewhere only (an explicit ExecOptions::streaming_min_bytes takes them on
// any CPU, as tests do).
constexpr std::int64_t kBurstBytes = 8192;
constexpr std::int64_t kMaxBurstGroups = 128;

void read_in_bursts(Geometry& g, std::int64_t chunk_bytes) {
  if (g.last >= 1) {
    g.by_phase = true;
    g.lines_chain = false;
  }
  g.burst_groups = std::clamp<std::int64_t>(kBurstBytes / (g.row_blocked * chunk_bytes), 1, kMaxBurstGroups);
}

// run_whole_rows hands runs of at least this many groups along a line to one call
// (Cursor::walk); shorter ones go group by group. Measured on rows of 64 bytes, [N,H,4,4]
// b[2,2] (1 MiB, ratio to memcpy, S2B / B2S, group by group against line calls): lines of 4
// groups 0.29 / 0.30 against 0.25 / 0.28 (the line's set-up), of 8 level, of 32 0.56 / 0.58
// against 0.76 / 0.82.
constexpr std::int64_t kMinLineGroups = 8;

// The current group of a worker, advanced in row-major order (the innermost group dim phase by
// phase when g.by_phase), with its space-side row (-1 in the padding) and the batch-side row of
// its stream 0, in positions. A step along the innermost group dim updates both rows by
// constant strides; other steps recompute them.
struct Cursor {
  std::int64_t n = 0;
  std::array<std::int64_t, kMaxPlanDims> y{}, o{}, p{};  // y_i = p_i * block_i + o_i
  std::int64_t space_row = -1;
  std::int64_t batch_row = 0;

  Cursor(const Geometry& g, std::int64_t group) {
    for (int i = g.last - 1; i >= 0; --i) {
      std::int64_t t = group % g.extent[i];
      group /= g.extent[i];
      if (g.by_phase && i == g.last - 1) {  // t-th of the order: phase q holds ceil((extent - q) / block)
        std::int64_t q = 0;
        for (std::int64_t count; t >= (count = (g.extent[i] - q + g.block[i] - 1) / g.block[i]); ++q) t -= count;
        t = q + t * g.block[i];
      }
      set(g, i, g.first[i] + t);
    }
    n = group;
    refresh(g);
  }
  void set(const Geometry& g, int i, std::int64_t value) {
    y[i] = value;
    o[i] = value % g.block[i];
    p[i] = value / g.block[i];
  }
  [[gnu::always_inline]] void advance(const Geometry& g) {
    if (g.last == 0) {  // groups are batch entries: whole rows, one after the other on both sides
      ++n;
      space_row += g.row;
      batch_row += g.row_blocked;
      return;
    }
    const int i = g.last - 1;
    const std::int64_t step = g.by_phase ? g.block[i] : 1;
    if (y[i] + step < g.first[i] + g.extent[i]) {
      y[i] += step;
      if (g.by_phase) {
        ++p[i];
        batch_row += g.row_blocked;
      } else if (++o[i] == g.block[i]) {
        o[i] = 0;
        ++p[i];
        batch_row += g.row_blocked - (g.block[i] - 1) * g.phase_stride;
      } else {
        batch_row += g.phase_stride;
      }
      space_row = space_row >= 0 && y[i] - g.start[i] < g.space[i] ? space_row + step * g.row : space_row_of(g);
      return;
    }
    advance_across(g);
  }

  // Groups from this one to the end of its line (the innermost group dim, or its phase there;
  // the last group when lines chain): the outer group dims stay, so the rows follow by constant
  // steps. At least 1.
  std::int64_t run_length(const Geometry& g) const {
    if (g.last == 0) return g.groups - n;
    const int i = g.last - 1;
    if (g.lines_chain) return g.groups - (n * g.extent[i] + y[i] - g.first[i]);
    const std::int64_t left = g.first[i] + g.extent[i] - y[i];
    return g.by_phase ? (left + g.block[i] - 1) / g.block[i] : left;
  }
  // Visits `count` groups from this one (1 <= count <= run_length()) and leaves the cursor on
  // the last of them (across chained lines only its rows: run_length() then reaches the last
  // group, so the cursor is not advanced after such a walk). From min_line groups, the batch
  // entries or the groups inside the space dim along the innermost group dim (not by phase),
  // across chained lines, go as one call
  // line_of_rows(space_row, batch_row, rows, phase, b, phase_step, wrap_step): `rows` groups
  // from the given one, space rows g.row apart, batch rows phase_step apart but wrap_step
  // after each b-th (phase: the first group's place among them); every other group as
  // f(space_row, batch_row). Only SpaceToBatch's groups reach into the padding (kPadded);
  // BatchToSpace's are space rows.
  template <bool kPadded, class F, class Line>
  [[gnu::always_inline]] void walk(const Geometry& g, std::int64_t count, std::int64_t min_line, F&& f,
                                   Line&& line_of_rows) {
    std::int64_t batch = batch_row;
    if (g.last == 0) {  // batch entries: whole rows, one after the other on both sides
      if (count >= min_line) {
        line_of_rows(space_row, batch, count, 0, 1, g.row_blocked, g.row_blocked);
      } else {
        for (std::int64_t k = 0; k < count; ++k) f(space_row + k * g.row, batch + k * g.row_blocked);
      }
      n += count - 1;
      space_row += (count - 1) * g.row;
      batch += (count - 1) * g.row_blocked;
    } else {
      const int i = g.last - 1;
      const std::int64_t b = g.block[i], row = g.row;
      // Along the line the space row is line + x * row inside the space dim, -1 in its padding
      // (chained lines have none, and x runs on past the first line).
      const std::int64_t line = line_space_row(g);
      const auto space_x = static_cast<std::uint64_t>(g.space[i]);
      const bool padded = kPadded && !g.lines_chain;
      std::int64_t x = y[i] - g.start[i];
      const auto space_at = [&] {
        return !padded || (line >= 0 && static_cast<std::uint64_t>(x) < space_x) ? line + x * row : -1;
      };
      const std::int64_t phase_step = g.phase_stride, wrap_step = g.row_blocked - (b - 1) * g.phase_stride;
      if (g.by_phase) {
        for (std::int64_t k = 0;; x += b, batch += g.row_blocked) {
          f(space_at(), batch);
          if (++k == count) break;
        }
        y[i] += (count - 1) * b;
        p[i] += count - 1;
      } else if (count < min_line) {
        for (std::int64_t k = 0;; ++x) {
          f(space_at(), batch);
          if (++k == count) break;
          if (++o[i] == b) {
            o[i] = 0;
            ++p[i];
            batch += wrap_step;
          } else {
            batch += phase_step;
          }
        }
        y[i] += count - 1;
      } else {
        const std::int64_t phase = o[i];
        // Group k's phase and batch row: k phase steps, wrap steps instead where the phase
        // wraps (a division only once it does).
        struct Group {
          std::int64_t phase, batch, wraps;
        };
        const auto at = [&](std::int64_t k) {
          const std::int64_t wraps = phase + k < b ? 0 : (phase + k) / b;
          return Group{phase + k - wraps * b, batch + k * phase_step + wraps * (wrap_step - phase_step), wraps};
        };
        // Groups [inside, beyond) lie inside the space dim (all of them without padding).
        std::int64_t inside = 0, beyond = count;
        if (padded) {
          if (line < 0) {
            inside = beyond = count;
          } else {
            inside = std::clamp<std::int64_t>(-x, 0, count);
            beyond = std::clamp<std::int64_t>(static_cast<std::int64_t>(space_x) - x, inside, count);
          }
          for (std::int64_t k = 0; k < inside; ++k) f(std::int64_t{-1}, at(k).batch);
        }
        if (inside < beyond) {
          const Group first = at(inside);
          line_of_rows(line + (x + inside) * row, first.batch, beyond - inside, first.phase, b, phase_step, wrap_step);
        }
        if constexpr (kPadded)
          for (std::int64_t k = beyond; k < count; ++k) f(std::int64_t{-1}, at(k).batch);
        const Group last = at(count - 1);
        batch = last.batch;
        x += count - 1;
        y[i] += count - 1;
        o[i] = last.phase;
        p[i] += last.wraps;
      }
      space_row = space_at();
    }
    batch_row = batch;
  }

 private:
  // The innermost group dim wraps (or, by phase, moves to its next phase).
  [[gnu::noinline]] void advance_across(const Geometry& g) {
    const int i = g.last - 1;
    for (int d = i; d >= 0; --d) {
      const std::int64_t end = g.first[d] + g.extent[d];
      if (g.by_phase && d == i) {
        const std::int64_t q = (y[d] - g.first[d]) % g.block[d] + 1;  // the next phase
        if (q < g.block[d] && g.first[d] + q < end) {
          set(g, d, g.first[d] + q);
          return refresh(g);
        }
        set(g, d, g.first[d]);
        continue;
      }
      if (d < i) {
        ++y[d];
        if (++o[d] == g.block[d]) {
          o[d] = 0;
          ++p[d];
        }
        if (y[d] < end) return refresh(g);
      }
      set(g, d, g.first[d]);
    }
    ++n;
    refresh(g);
  }
  void refresh(const Geometry& g) {
    space_row = space_row_of(g);
    batch_row = batch_row_of(g);
  }
  std::int64_t space_row_of(const Geometry& g) const {
    if (g.last == 0) return n * g.row;
    const std::int64_t line = line_space_row(g);
    const std::int64_t x = y[g.last - 1] - g.start[g.last - 1];
    return line < 0 || x < 0 || x >= g.space[g.last - 1] ? -1 : line + x * g.row;
  }
  // The space row at position 0 of the innermost group dim, for this group's outer dims; -1
  // where one of them lies in the padding. Precondition: g.last >= 1.
  std::int64_t line_space_row(const Geometry& g) const {
    std::int64_t offset = n;
    for (int i = 0; i + 1 < g.last; ++i) {
      const std::int64_t x = y[i] - g.start[i];
      if (x < 0 || x >= g.space[i]) return -1;
      offset = offset * g.space[i] + x;
    }
    return offset * g.space[g.last - 1] * g.row;
  }
  std::int64_t batch_row_of(const Geometry& g) const {
    std::int64_t k = 0;
    for (int i = 0; i < g.last; ++i) k = k * g.block[i] + o[i];
    std::int64_t offset = k * g.b * g.batch + n;
    for (int i = 0; i < g.last; ++i) offset = offset * g.blocked[i] + p[i];
    return offset * g.row_blocked;
  }
};

// Visits groups [begin, end) run by run: Cursor::walk over each run, with its arguments.
template <bool kPadded, class F, class Line>
[[gnu::always_inline]] inline void walk_groups(const Geometry& g, std::int64_t begin, std::int64_t end,
                                               std::int64_t min_line, F&& f, Line&& line_of_rows) {
  Cursor c(g, begin);
  for (std::int64_t group = begin; group < end;) {
    if (group > begin) c.advance(g);
    const std::int64_t count = std::min(end - group, c.run_length(g));
    group += count;
    c.walk<kPadded>(g, count, min_line, f, line_of_rows);
  }
}

// SpaceToBatch, one tile [j0, j1) of one group: stream o gets
// d_o[j] = s[j*b + o - row_start] inside the row, zero outside. Position j of stream o is
// written at d + o * ss + (j - j_base) * cu.
template <class Mover>
void space_to_batch_tile(const Geometry& g, const Mover& m, const typename Mover::Unit* s /*row, or null*/,
                         typename Mover::Unit* d, std::int64_t ss, std::int64_t j_base, std::int64_t j0,
                         std::int64_t j1) {
  const std::int64_t cu = m.cu;
  const auto at = [&](std::int64_t o, std::int64_t j) { return d + o * ss + (j - j_base) * cu; };
  if (s == nullptr) {
    for (std::int64_t o = 0; o < g.b; ++o) m.zero(at(o, j0), j1 - j0);
    return;
  }
  // [J0, J1): positions where every stream reads inside the row.
  const std::int64_t J0 = std::max(j0, g.qs + (g.rs > 0 ? 1 : 0));
  const std::int64_t J1 = std::min(j1, g.qe);
  // The whole tile inside the row (no padding in it): one deinterleave.
  if (J0 == j0 && J1 == j1) return m.deinterleave(at(0, j0), ss, s + (j0 * g.b - g.row_start) * cu, j1 - j0);
  const bool joint = J0 < J1;
  for (std::int64_t o = 0; o < g.b; ++o) {
    const std::int64_t lo = std::clamp(g.qs + (o < g.rs ? 1 : 0), j0, j1);
    const std::int64_t hi = std::clamp(g.qe + (o < g.re ? 1 : 0), lo, j1);
    m.zero(at(o, j0), lo - j0);
    m.zero(at(o, hi), j1 - hi);
    const auto source = [&](std::int64_t j) { return s + (j * g.b + o - g.row_start) * cu; };
    if (!joint) {
      if (lo < hi) m.gather(at(o, lo), source(lo), hi - lo, g.b);
    } else {
      if (lo < J0) m.gather(at(o, lo), source(lo), J0 - lo, g.b);
      if (J1 < hi) m.gather(at(o, J1), source(J1), hi - J1, g.b);
    }
  }
  if (joint) m.deinterleave(at(0, J0), ss, s + (J0 * g.b - g.row_start) * cu, J1 - J0);
}

// Row positions [x_begin, x_end) that BatchToSpace tile [j0, j1) writes.
std::pair<std::int64_t, std::int64_t> batch_to_space_span(const Geometry& g, std::int64_t j0, std::int64_t j1) {
  return {std::max(j0 * g.b, g.row_start) - g.row_start, std::min(j1 * g.b, g.row_start + g.row) - g.row_start};
}

// BatchToSpace, one tile [j0, j1) of one group: d[x] = s_o[j] for x = j*b + o - row_start
// inside the row (other positions of the streams are cropped away and never read). Row
// position x is written at d + (x - x_base) * cu.
template <class Mover>
void batch_to_space_tile(const Geometry& g, const Mover& m, const typename Mover::Unit* s, typename Mover::Unit* d,
                         std::int64_t x_base, std::int64_t j0, std::int64_t j1) {
  const std::int64_t cu = m.cu;
  const std::int64_t ss = g.stream_stride * cu;
  const auto [x_begin, x_end] = batch_to_space_span(g, j0, j1);
  if (x_begin >= x_end) return;
  const auto at = [&](std::int64_t x) { return d + (x - x_base) * cu; };
  // Element by element for partial position groups at the row's ends.
  const auto single = [&](std::int64_t x0, std::int64_t x1) {
    if (x0 >= x1) return;
    std::int64_t j = (x0 + g.row_start) / g.b;
    std::int64_t o = (x0 + g.row_start) % g.b;
    for (std::int64_t x = x0; x < x1; ++x) {
      m.one(at(x), s + o * ss + j * cu);
      if (++o == g.b) {
        o = 0;
        ++j;
      }
    }
  };
  const std::int64_t J0 = std::max(j0, g.qs + (g.rs > 0 ? 1 : 0));
  const std::int64_t J1 = std::min(j1, g.qe);
  if (J0 >= J1) return single(x_begin, x_end);
  single(x_begin, J0 * g.b - g.row_start);
  m.interleave(at(J0 * g.b - g.row_start), s + J0 * cu, ss, J1 - J0);
  single(J1 * g.b - g.row_start, x_end);
}

// Streaming stores for large outputs: chunks of whole 16-byte pieces stream directly
// (StreamMover) from row_copy::streaming_min_bytes(options) up (twice that by default for
// whole-row outputs, dispatch()); other chunks build a tile in a small per-thread staging
// buffer (L1) that is then streamed out, for SpaceToBatch from where glibc's memcpy streams
// (row_copy::memcpy_streaming_min_bytes()) up: measured on the reference machine, staging
// then streaming lost to cached stores for its 16-32 MiB depth-1 outputs (ratio to memcpy
// 0.87 -> 0.66 on [8,1024,1024,1] b[2,2]) while BatchToSpace gained (0.79 -> 1.29).
constexpr std::int64_t kStagingBytes = 32 * 1024;

void stream_copy(Byte* d, const Byte* s, std::int64_t n) {
#if defined(__SSE2__)
  const auto misalignment = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(d) % 16);
  const std::int64_t head = std::min(n, (16 - misalignment) % 16);
  std::memcpy(d, s, static_cast<std::size_t>(head));
  for (std::int64_t i = head; i + 16 <= n; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
  const std::int64_t tail = head + (n - head) / 16 * 16;
  std::memcpy(d + tail, s + tail, static_cast<std::size_t>(n - tail));
#else
  std::memcpy(d, s, static_cast<std::size_t>(n));
#endif
}

// Software prefetch, for short rows only: longer ones train the hardware prefetcher, and a
// burst of prefetches for a long row stalls on the line fill buffers. SpaceToBatch fetches
// its sequential source ahead (kTilePrefetchAheadBytes in tiles at every size, whole rows
// row_copy::prefetch_ahead_bytes() beyond the caches), BatchToSpace the next group's rows.
constexpr std::int64_t kPrefetchMaxRowBytes = 2048;
constexpr std::int64_t kTilePrefetchAheadBytes = 8192;
constexpr std::int64_t kPrefetchStreams = 8;
using row_copy::prefetch_lines;

// `rows` whole rows along one line of groups, without padding: space rows space_step units
// apart from `space`, batch rows phase_step units apart from `batch` but wrap_step after each
// b-th (phase: the first row's place among them). The loop of move_line and move_line_wide.
template <bool kToBatch, class Mover>
[[gnu::always_inline]] inline void line_loop(const Mover m, typename Mover::Unit* dst, const typename Mover::Unit* src,
                                             std::int64_t space, std::int64_t batch, std::int64_t rows,
                                             std::int64_t phase, std::int64_t b, std::int64_t space_step,
                                             std::int64_t phase_step, std::int64_t wrap_step, std::int64_t ss,
                                             std::int64_t n) {
  using Unit = typename Mover::Unit;
  Unit* d = dst + (kToBatch ? batch : space);
  const Unit* s = src + (kToBatch ? space : batch);
  for (;;) {
    if constexpr (kToBatch)
      m.deinterleave(d, ss, s, n);
    else
      m.interleave(d, s, ss, n);
    if (--rows == 0) return;
    std::int64_t batch_step = phase_step;
    if (++phase == b) {
      phase = 0;
      batch_step = wrap_step;
    }
    if constexpr (kToBatch) {
      s += space_step;
      d += batch_step;
    } else {
      d += space_step;
      s += batch_step;
    }
  }
}

// line_loop as a function of its own, so that its loop keeps everything in registers: a bare
// loop of 512-byte B2S rows that reloads its steps from memory after each row's stores ran at
// 0.58 of memcpy in cache, against 0.74 without. Aligned to a cache line, so that its loop's
// placement does not move with unrelated code: 32 bytes off that alignment, SpaceToBatchND at
// 64 MiB (streamed whole rows) took 3.10-3.26 ms against 2.87-3.01 (1 thread, 3 alternating
// runs of 5 repetitions).
template <bool kToBatch, class Mover>
[[gnu::noinline, gnu::aligned(64)]] void move_line(const Mover m, typename Mover::Unit* dst,
                                                   const typename Mover::Unit* src, std::int64_t space,
                                                   std::int64_t batch, std::int64_t rows, std::int64_t phase,
                                                   std::int64_t b, std::int64_t space_step, std::int64_t phase_step,
                                                   std::int64_t wrap_step, std::int64_t ss, std::int64_t n) {
  line_loop<kToBatch>(m, dst, src, space, batch, rows, phase, b, space_step, phase_step, wrap_step, ss, n);
}

// move_line compiled for AVX2, for movers with kWideMoves (row_copy::kWideMover).
template <bool kToBatch, class Mover>
[[gnu::noinline, gnu::aligned(64)]] OPCONFORM_WIDE_TARGET void move_line_wide(
    const Mover m, typename Mover::Unit* dst, const typename Mover::Unit* src, std::int64_t space, std::int64_t batch,
    std::int64_t rows, std::int64_t phase, std::int64_t b, std::int64_t space_step, std::int64_t phase_step,
    std::int64_t wrap_step, std::int64_t ss, std::int64_t n) {
  line_loop<kToBatch>(m, dst, src, space, batch, rows, phase, b, space_step, phase_step, wrap_step, ss, n);
}

// BatchToSpace's groups [begin, end) in bursts (read_in_bursts()): whole rows, streaming stores.
template <class Mover>
[[gnu::noinline]] void run_stream_bursts(const Geometry& g, const Mover& m, const Byte* src, Byte* dst,
                                         std::int64_t begin, std::int64_t end) {
  std::array<std::int64_t, kMaxBurstGroups> space_rows, batch_rows;
  std::int64_t held = 0;
  const std::int64_t cu = m.cu;
  const std::int64_t ss = g.stream_stride * cu;
  const auto move_held = [&] {
    for (std::int64_t o = 0; o < g.b; ++o)
      for (std::int64_t k = 0; k < held; ++k)
        m.scatter_stream(dst + space_rows[k] * cu, src + batch_rows[k] * cu + o * ss, o, g.row_blocked);
    held = 0;
  };
  const auto hold = [&](std::int64_t space_row, std::int64_t batch_row) {
    space_rows[held] = space_row;
    batch_rows[held] = batch_row;
    if (++held == g.burst_groups) move_held();
  };
  const auto no_line = [](std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                          std::int64_t) {};
  walk_groups<false>(g, begin, end, std::numeric_limits<std::int64_t>::max(), hold, no_line);
  move_held();
  row_copy::stream_fence();
}

// Work items [begin, end) when every item is one whole row (Geometry::whole_rows) through the
// cache: one (de)interleave per group and the cursor's step, nothing else. Short rows are
// where a per-group cost shows (a 512-byte row moves in about 20 ns in cache). Sources beyond
// the last-level cache are prefetched row_copy::prefetch_ahead_bytes() ahead of each row read
// (measured there); in cache (64 KiB to 16 MiB) prefetching was level or slower. (BatchToSpace
// with chunks of whole lines streamed out reads in bursts there instead, except on Intel:
// run_stream_bursts.)
// The cursor walks runs of groups in locals (Cursor::walk), and the function stays out of
// run_items: inlined there, the copy loop lost registers to the tiled path and reloaded its
// strides from the stack, and each step went through the cursor's arrays (512-byte rows,
// ratio to memcpy, 1 thread: S2B 64 KiB 0.33 -> 0.47, 256 KiB 0.38 -> 0.57; B2S 64 KiB 0.34
// -> 0.39, 256 KiB 0.39 -> 0.46). The rows of a line then go to move_line, whose loop holds
// everything in registers (the walk's loop still reloaded five steps from the stack after
// each row's stores): S2B 64 KiB 0.46 -> 0.53, 256 KiB 0.56 -> 0.67; B2S 64 KiB 0.33 ->
// 0.47, 256 KiB 0.43 -> 0.59 (medians of 4 runs alternating the builds).
template <bool kToBatch, class Mover>
[[gnu::noinline]] void run_whole_rows(const Geometry& g, const Mover& m, const typename Mover::Unit* src,
                                      std::int64_t src_units, typename Mover::Unit* dst, std::int64_t begin,
                                      std::int64_t end) {
  if constexpr (!kToBatch && kStreamsDirectly<Mover>)
    if (g.burst_groups > 0) return run_stream_bursts(g, m, src, dst, begin, end);
  constexpr std::int64_t kUnit = sizeof(typename Mover::Unit);
  const bool fetch = src_units * kUnit >= row_copy::memcpy_streaming_min_bytes();
  const std::int64_t ahead = row_copy::prefetch_ahead_bytes() / kUnit;
  // Prefetches source units [at + ahead, at + ahead + units) where they lie in the source.
  const auto fetch_ahead = [&](std::int64_t at, std::int64_t units) {
    if (at + ahead + units <= src_units) prefetch_lines(src + at + ahead, units * kUnit);
  };
  const std::int64_t cu = m.cu;
  const std::int64_t ss = g.stream_stride * cu;
  const std::int64_t n = g.row_blocked;
  const std::int64_t space_row_units = g.row * cu;
  const std::int64_t streams = g.b;
  const auto one_row = [&](std::int64_t space_row, std::int64_t batch_row) {
    if constexpr (kToBatch) {
      typename Mover::Unit* d = dst + batch_row * cu;
      if (space_row < 0) {
        for (std::int64_t o = 0; o < streams; ++o) m.zero(d + o * ss, n);
      } else {
        if (fetch) fetch_ahead(space_row * cu, space_row_units);
        m.deinterleave(d, ss, src + space_row * cu, n);
      }
    } else {
      if (fetch)
        for (std::int64_t o = 0; o < streams; ++o) fetch_ahead(batch_row * cu + o * ss, n * cu);
      m.interleave(dst + space_row * cu, src + batch_row * cu, ss, n);
    }
  };
  const auto line_of_rows = [&](std::int64_t space_row, std::int64_t batch_row, std::int64_t rows, std::int64_t phase,
                                std::int64_t b, std::int64_t phase_step, std::int64_t wrap_step) {
    move_line<kToBatch>(m, dst, src, space_row * cu, batch_row * cu, rows, phase, b, space_row_units, phase_step * cu,
                        wrap_step * cu, ss, n);
  };
  // Rows that prefetch go group by group (move_line does not prefetch).
  const std::int64_t min_line = fetch ? std::numeric_limits<std::int64_t>::max() : kMinLineGroups;
  walk_groups<kToBatch>(g, begin, end, min_line, one_row, line_of_rows);
  if constexpr (kStreamsDirectly<Mover>) row_copy::stream_fence();
}

// Work items [begin, end) of the (group, tile) sequence.
template <bool kToBatch, class Mover>
void run_items(const Geometry& g, const Mover& m, const typename Mover::Unit* src, std::int64_t src_units,
               typename Mover::Unit* dst, bool streaming, std::int64_t begin, std::int64_t end) {
  if (g.whole_rows && !streaming) return run_whole_rows<kToBatch>(g, m, src, src_units, dst, begin, end);
  alignas(64) Byte staging[kStagingBytes];
  Cursor next(g, begin / g.tiles);  // one group ahead of the one being moved
  std::int64_t space_row = next.space_row;
  std::int64_t batch_row = next.batch_row;
  next.advance(g);
  std::int64_t tile = begin % g.tiles;
  const std::int64_t cu = m.cu;
  const std::int64_t ss = g.stream_stride * cu;
  for (std::int64_t item = begin; item < end;) {
    const std::int64_t tile_end = std::min(g.tiles, tile + (end - item));
    const bool has_next = item + (tile_end - tile) < end;
    const std::int64_t next_space_row = has_next ? next.space_row : -1;
    const std::int64_t next_batch_row = has_next ? next.batch_row : -1;
    // Short rows leave the hardware prefetcher little to learn from: fetch source rows of
    // later groups while this group is moved.
    constexpr std::int64_t kUnit = sizeof(typename Mover::Unit);
    if constexpr (kToBatch) {
      // Space rows of consecutive groups follow each other in memory.
      const std::int64_t row_bytes = g.row * cu * kUnit;
      if (space_row >= 0 && row_bytes <= kPrefetchMaxRowBytes) {
        const std::int64_t from = (space_row * cu) * kUnit + kTilePrefetchAheadBytes;
        const std::int64_t to = std::min(from + row_bytes, src_units * kUnit);
        if (from < to) prefetch_lines(src + from / kUnit, to - from);
      }
    } else if (has_next && g.row_blocked * cu * kUnit <= kPrefetchMaxRowBytes) {
      // The next group's batch rows (one per stream) lie elsewhere: fetch them now.
      for (std::int64_t o = 0; o < g.b && o < kPrefetchStreams; ++o)
        prefetch_lines(src + next_batch_row * cu + o * ss, g.row_blocked * cu * kUnit);
    }
    for (std::int64_t t = tile; t < tile_end; ++t) {
      const std::int64_t j0 = t * g.tile_j;
      const std::int64_t j1 = std::min(j0 + g.tile_j, g.row_blocked);
      if constexpr (kToBatch) {
        const auto* s = space_row < 0 ? nullptr : src + space_row * cu;
        typename Mover::Unit* d = dst + batch_row * cu;
        if constexpr (std::is_same_v<typename Mover::Unit, Byte>) {
          if (streaming) {
            const std::int64_t stage_ss = (j1 - j0) * cu;
            space_to_batch_tile(g, m, s, staging, stage_ss, j0, j0, j1);
            for (std::int64_t o = 0; o < g.b; ++o) stream_copy(d + o * ss + j0 * cu, staging + o * stage_ss, stage_ss);
            continue;
          }
        }
        space_to_batch_tile(g, m, s, d, ss, 0, j0, j1);
      } else {
        const auto* s = src + batch_row * cu;
        typename Mover::Unit* d = dst + space_row * cu;
        if constexpr (std::is_same_v<typename Mover::Unit, Byte>) {
          if (streaming) {
            const auto [x_begin, x_end] = batch_to_space_span(g, j0, j1);
            batch_to_space_tile(g, m, s, staging, x_begin, j0, j1);
            if (x_begin < x_end) stream_copy(d + x_begin * cu, staging, (x_end - x_begin) * cu);
            continue;
          }
        }
        batch_to_space_tile(g, m, s, d, 0, j0, j1);
      }
    }
    item += tile_end - tile;
    tile = 0;
    space_row = next_space_row;
    batch_row = next_batch_row;
    next.advance(g);
  }
  if (streaming || kStreamsDirectly<Mover>) row_copy::stream_fence();
}

// Moves every work item of `g` over `threads` threads.
template <bool kToBatch, class Mover>
void run_on(int threads, const Geometry& g, const Mover& m, const typename Mover::Unit* src, std::int64_t src_units,
            typename Mover::Unit* dst, bool streaming) {
  const std::int64_t items = g.groups * g.tiles;
  thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t count) {
    run_items<kToBatch>(g, m, src, src_units, dst, streaming, thread_policy::share_begin(items, count, t),
                        thread_policy::share_begin(items, count, t + 1));
  });
}

template <bool kToBatch, class Mover>
void run(const Geometry& g, const Mover& m, const typename Mover::Unit* src, std::int64_t src_units,
         typename Mover::Unit* dst, std::int64_t dst_bytes, const ExecOptions& options, bool staged) {
  const std::int64_t items = g.groups * g.tiles;
  if (items == 0) return;
  // Staged streaming: a byte mover that does not stream itself, and a tile that fits the
  // staging buffer.
  const bool streaming = staged && std::is_same_v<typename Mover::Unit, Byte> && !kStreamsDirectly<Mover> &&
                         g.tile_j * g.b * m.cu <= kStagingBytes;
  // An injected thread count and tile run as asked, even past the processors (tests split
  // small outputs many ways); otherwise the bytes decide (thread_policy.h).
  const std::int64_t wanted = options.num_threads > 0 && options.tile_bytes > 0
                                  ? options.num_threads
                                  : thread_policy::threads_for(options, dst_bytes);
  static constinit thread_policy::ThreadLearner learner;  // per op and mover: chunk widths differ in speed
  const thread_policy::ThreadLearner::Choice choice =
      learner.choose(options, dst_bytes, static_cast<int>(std::min(wanted, items)));
  run_on<kToBatch>(choice.threads, g, m, src, src_units, dst, streaming);
  choice.done();
}

// Returns f(mover) with the cached-store byte mover for chunks of `chunk` bytes and a block of b.
// With kWide, chunks of 32 and 64 bytes get movers with kWideMoves (for move_line_wide only).
template <bool kWide = false, class F>
auto with_cached_mover(std::int64_t chunk, std::int64_t b, F&& f) {
  const auto by_block = [&](auto width_tag, auto wide_tag) {
    constexpr std::size_t W = decltype(width_tag)::value;
    constexpr bool kWideChunk = decltype(wide_tag)::value;
    switch (b) {
      case 2: return f(WidthMover<W, 2, kWideChunk>{2});
      case 3: return f(WidthMover<W, 3, kWideChunk>{3});
      case 4: return f(WidthMover<W, 4, kWideChunk>{4});
      default: return f(WidthMover<W, 0, kWideChunk>{b});
    }
  };
  using Narrow = std::false_type;
  using Wide = std::bool_constant<kWide>;
  switch (chunk) {
    case 1: return by_block(std::integral_constant<std::size_t, 1>{}, Narrow{});
    case 2: return by_block(std::integral_constant<std::size_t, 2>{}, Narrow{});
    case 4: return by_block(std::integral_constant<std::size_t, 4>{}, Narrow{});
    case 8: return by_block(std::integral_constant<std::size_t, 8>{}, Narrow{});
    case 16: return by_block(std::integral_constant<std::size_t, 16>{}, Narrow{});
    case 32: return by_block(std::integral_constant<std::size_t, 32>{}, Wide{});
    case 64: return by_block(std::integral_constant<std::size_t, 64>{}, Wide{});
    default: break;
  }
  if (chunk % 16 == 0) return f(ChunkMover<16>{b, chunk});
  if (chunk % 8 == 0) return f(ChunkMover<8>{b, chunk});
  if (chunk % 4 == 0) return f(ChunkMover<4>{b, chunk});
  if (chunk % 2 == 0) return f(ChunkMover<2>{b, chunk});
  return f(ChunkMover<1>{b, chunk});
}

// Outputs up to 1 MiB take a path of their own where the whole output is one line of whole
// rows: one or two block dims, no padding or crop, each row within one tile, cached stores,
// one thread, the rule's or the learnt one (e.g. [N, H, W, C] b[2, 2] without padding, the
// common case). move_plane() moves it with one move_line call, without the geometry, the
// cursor and the work items: their set-up is about 900 instructions a call, 75 ns on the Zen 4
// guest, as long as a plain loop takes to move a whole 4 KiB output.
constexpr std::int64_t kPlaneMaxBytes = 1024 * 1024;
// From here (source and output together half of a 1 MiB L2) BatchToSpaceND's line goes phase
// by phase (block_0 move_line calls): the chained line alternates its space rows between the
// phases and so reads block_0 * block_1 batch streams at once, phase by phase block_1. The
// sweep's case, its work alone (standalone, pinned, 5 rounds, medians, ns), chained / phase
// by phase / plain loop: 512 KiB 11667 / 11005 / 10825, 640 KiB 15466 / 13887 / 13986, 768 KiB
// 18703 / 17142 / 17259, 1 MiB 24454 / 23774 / 25047. Below, the extra calls cost more than
// this saves (4 KiB 78 -> 82 ns, 64 KiB 1155-1175 -> 1178-1245), and SpaceToBatchND phase by
// phase was slower at every size measured (4 KiB to 8 MiB).
constexpr std::int64_t kPhaseByPhaseMinBytes = 256 * 1024;
bool moves_as_one_line(const Plan& plan, std::int64_t chunk, std::int64_t dst_bytes, const ExecOptions& options) {
  const std::size_t k = plan.block.size();
  const bool cached = options.streaming_min_bytes == 0 || dst_bytes < options.streaming_min_bytes;
  if (k > 2 || dst_bytes > kPlaneMaxBytes || options.tile_bytes > 0 || !cached) return false;
  for (std::size_t i = 0; i < k; ++i)
    if (plan.start[i] != 0 || plan.space[i] != plan.blocked[i] * plan.block[i]) return false;
  // Without padding a row's bytes are part of the output's: no overflow.
  return chunk * plan.space[k - 1] <= kDefaultTileBytes;
}

// The rows of a plan that moves_as_one_line(): group y of batch entry n is space row
// n * space_0 + y (K = 2; row n when K = 1) and, on the batch side, stream 0's row of batch
// entry (y % block_0) * block_1 * batch + n, row y / block_0: the steps of Cursor::walk across
// chained lines.
template <bool kToBatch, class Mover>
void move_plane(const Plan& plan, const Mover& m, const typename Mover::Unit* src, typename Mover::Unit* dst) {
  const std::int64_t cu = m.cu;
  const std::size_t last = plan.block.size() - 1;
  const std::int64_t row = plan.space[last] * cu;
  const std::int64_t row_blocked = plan.blocked[last];
  const std::int64_t stream_stride = plan.batch * row_blocked * (last == 1 ? plan.blocked[0] : 1);
  const auto line = [&](auto... steps) {
    if constexpr (row_copy::kWideMover<Mover>)
      move_line_wide<kToBatch>(m, dst, src, steps...);
    else
      move_line<kToBatch>(m, dst, src, steps...);
  };
  const std::int64_t zero = 0;
  if (last == 0)
    return line(zero, zero, plan.batch, zero, std::int64_t{1}, row, row_blocked * cu, row_blocked * cu,
                stream_stride * cu, row_blocked);
  const std::int64_t b = plan.block[0];
  const std::int64_t phase_stride = plan.block[1] * stream_stride;
  if (!kToBatch && plan.batch * plan.space[0] * row > kPhaseByPhaseMinBytes) {
    // Phase by phase: space rows o, o + b, ... of every batch entry, read from block_1 streams.
    for (std::int64_t o = 0; o < b; ++o)
      line(o * row, o * phase_stride * cu, plan.batch * plan.blocked[0], zero, std::int64_t{1}, b * row,
           row_blocked * cu, row_blocked * cu, stream_stride * cu, row_blocked);
    return;
  }
  line(zero, zero, plan.batch * plan.space[0], zero, b, row, phase_stride * cu,
       (row_blocked - (b - 1) * phase_stride) * cu, stream_stride * cu, row_blocked);
}

// Chooses the mover for the dtype and the chunk (depth elements) and runs the kernel.
template <bool kToBatch>
void dispatch(const Plan& plan, const Tensor& src, Tensor& dst, const ExecOptions& options) {
  if (dst.num_elements() == 0) return;
  const auto width = static_cast<std::int64_t>(dtype_storage_size(dst.dtype()));
  const std::int64_t dst_bytes = dst.num_elements() * width;
  const std::int64_t src_bytes = src.num_elements() * width;
  const std::int64_t chunk = plan.depth * width;
  const auto* s = static_cast<const Byte*>(src.raw_data());
  auto* d = static_cast<Byte*>(dst.raw_data());
  if (dst.dtype() != DType::kString && moves_as_one_line(plan, chunk, dst_bytes, options)) {
    // Where the rule gives several threads, the learner decides before the path, so that a
    // learnt single thread moves the plane like the rule's single thread.
    const int rule = thread_policy::threads_for(options, dst_bytes);
    const auto plane = [&](const auto& m) {
      static constinit thread_policy::ThreadLearner learner;  // per op and mover, like run()'s
      const thread_policy::ThreadLearner::Choice choice = learner.choose(options, dst_bytes, rule);
      if (choice.threads > 1) return choice;
      move_plane<kToBatch>(plan, m, s, d);
      choice.done();
      return choice;
    };
    const std::int64_t row_block = plan.block[plan.block.size() - 1];
    const thread_policy::ThreadLearner::Choice choice = row_copy::takes_wide_moves(dst_bytes)
                                                            ? with_cached_mover<true>(chunk, row_block, plane)
                                                            : with_cached_mover(chunk, row_block, plane);
    if (choice.threads == 1) return;
    Geometry g = make_geometry(plan, kToBatch, chunk, options);
    const int threads = static_cast<int>(std::min<std::int64_t>(choice.threads, g.groups * g.tiles));
    with_cached_mover(chunk, g.b, [&](const auto& m) { run_on<kToBatch>(threads, g, m, s, src_bytes, d, false); });
    choice.done();
    return;
  }
  Geometry g = make_geometry(plan, kToBatch, chunk, options);
  // An explicit ExecOptions::streaming_min_bytes sets both thresholds. By default whole-row
  // outputs (run_whole_rows) keep cached stores to twice the usual threshold: measured on
  // 512-byte rows (ratio to memcpy, 1 / 2 threads, medians of 3 interleaved runs), streaming
  // against cached S2B 8 MiB 0.77 / 1.09 against 1.01 / 1.53, B2S 12 MiB 0.77 / 1.20 against
  // 0.90 / 1.81; from 16 MiB streaming led on one thread (S2B 24 MiB 1.07 against 0.85).
  const std::int64_t streaming_min = options.streaming_min_bytes > 0
                                         ? options.streaming_min_bytes
                                         : (g.whole_rows ? 2 : 1) * row_copy::default_streaming_min_bytes();
  const bool streaming = dst_bytes >= streaming_min;
  const bool staged =
      kToBatch && options.streaming_min_bytes == 0 ? dst_bytes >= row_copy::memcpy_streaming_min_bytes() : streaming;
  if (dst.dtype() == DType::kString)
    return run<kToBatch>(g, ElementMover<std::string>{g.b, plan.depth}, src.data<std::string>(), src.num_elements(),
                         dst.data<std::string>(), dst_bytes, options, false);
  // Chunks of whole 16-byte pieces stream straight to a 16-byte aligned destination (Tensor
  // buffers are 64-byte aligned).
  if (streaming && chunk % 16 == 0 && reinterpret_cast<std::uintptr_t>(d) % 16 == 0) {
    // From the staged threshold (or an explicit streaming_min_bytes) up, by the source's bytes.
    const std::int64_t bursts_min =
        options.streaming_min_bytes > 0 ? options.streaming_min_bytes : row_copy::memcpy_streaming_min_bytes();
    const bool bursts = options.streaming_min_bytes > 0 || !row_copy::cpu_is_intel();
    if (!kToBatch && bursts && g.whole_rows && chunk % 64 == 0 && src_bytes >= bursts_min) read_in_bursts(g, chunk);
    if (chunk == 16) return run<kToBatch>(g, StreamMover<true>{g.b, chunk}, s, src_bytes, d, dst_bytes, options, true);
    return run<kToBatch>(g, StreamMover<false>{g.b, chunk}, s, src_bytes, d, dst_bytes, options, true);
  }
  with_cached_mover(chunk, g.b,
                    [&](const auto& m) { run<kToBatch>(g, m, s, src_bytes, d, dst_bytes, options, staged); });
}

}  // namespace

void space_to_batch(const Plan& plan, const Tensor& space, Tensor& batch, const ExecOptions& options) {
  dispatch<true>(plan, space, batch, options);
}

void batch_to_space(const Plan& plan, const Tensor& batch, Tensor& space, const ExecOptions& options) {
  dispatch<false>(plan, batch, space, options);
}

}  // namespace opconform::optimized::space_batch
