// The shared checks and the run-permutation kernel of the optimized SpaceToDepth and
// DepthToSpace (depth_space_kernel.h). Shares nothing with reference/.
//
// The kernel works one depth-side row at a time. Depth row r = (n, y) of [N, H/b, W/b, b*b*C]
// holds, at position x < W/b, b chunks of b*C elements (one run each): chunk o is elements
// [x*b*C, (x+1)*b*C) of space row (n, y*b + o). So a depth row is its b space rows
// interleaved chunk by chunk, and both sides keep row r at the same offset, r*W*b*C elements:
// SpaceToDepth interleaves b space rows into each depth row, DepthToSpace de-interleaves each
// depth row into b space rows. Every step reads and writes b+1 sequential streams, whole
// cache lines in order, at addresses that advance by constant strides (no index arithmetic
// per run); short chunks are copied by fixed-size moves the compiler turns into vector
// shuffles.
#include "depth_space_kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "row_copy.h"
#include "thread_policy.h"

namespace opconform::optimized::depth_space {
namespace {

// SpaceToDepth: TF_CALL_ALL_TYPES plus qint8; DepthToSpace: TF_CALL_ALL_TYPES.
bool registered_on_cpu(std::string_view op, DType dtype) {
  if (dtype == DType::kQUInt8 || dtype == DType::kQInt32) return false;
  return dtype != DType::kQInt8 || op == "SpaceToDepth";
}

using Byte = unsigned char;

constexpr std::int64_t kDefaultTileBytes = 16 * 1024;
// Chunks of at least this many bytes are copied with one memcpy each.
constexpr std::int64_t kMemcpyChunkBytes = 256;

// One chunk of a trivially copyable dtype: kWidth bytes when kWidth > 0; otherwise `bytes`,
// moved in kPiece-byte pieces (kPiece divides bytes), or with one memcpy when kPiece == 0.
template <std::size_t kWidth, std::size_t kPiece = 0>
struct ByteChunk {
  using Unit = Byte;
  std::int64_t bytes;
  std::int64_t units() const { return kWidth > 0 ? static_cast<std::int64_t>(kWidth) : bytes; }
  OPCONFORM_KEEP_COPY_LOOPS void operator()(Byte* __restrict d, const Byte* __restrict s) const {
    if constexpr (kWidth > 0) {
      std::memcpy(d, s, kWidth);
    } else if constexpr (kPiece > 0) {
      for (std::int64_t u = 0; u < bytes; u += kPiece) std::memcpy(d + u, s + u, kPiece);
    } else {
      std::memcpy(d, s, static_cast<std::size_t>(bytes));
    }
  }
};

// One chunk of strings, by assignment.
struct StringChunk {
  using Unit = std::string;
  std::int64_t elems;
  std::int64_t units() const { return elems; }
  void operator()(std::string* d, const std::string* s) const { std::copy_n(s, elems, d); }
};

// (De)interleaves b streams of chunks; the block b is kBlock, or `block` when kBlock == 0.
// Pointers count Chunk::Units; stream o starts at o * ss from the first; chunks are w units.
template <int kBlock, class Chunk>
struct Mover {
  using Unit = typename Chunk::Unit;
  Chunk chunk;
  std::int64_t block;

  // d's chunk j*b + o = chunk j of stream o (at s + o*ss), for j < n, o < b.
  OPCONFORM_KEEP_COPY_LOOPS void interleave(Unit* __restrict d, const Unit* __restrict s, std::int64_t ss,
                                            std::int64_t n) const {
    const std::int64_t w = chunk.units();
    if constexpr (kBlock > 0) {
      [&]<int... o>(std::integer_sequence<int, o...>) {
#pragma omp simd
        for (std::int64_t j = 0; j < n; ++j) (chunk(d + (j * kBlock + o) * w, s + o * ss + j * w), ...);
      }
      (std::make_integer_sequence<int, kBlock>{});
    } else {
      for (std::int64_t j = 0; j < n; ++j, d += block * w)
        for (std::int64_t o = 0; o < block; ++o) chunk(d + o * w, s + o * ss + j * w);
    }
  }
  // Stream o (at d + o*ss) gets chunk j*b + o of s, for j < n, o < b.
  OPCONFORM_KEEP_COPY_LOOPS void deinterleave(Unit* __restrict d, std::int64_t ss, const Unit* __restrict s,
                                              std::int64_t n) const {
    const std::int64_t w = chunk.units();
    if constexpr (kBlock > 0) {
      [&]<int... o>(std::integer_sequence<int, o...>) {
#pragma omp simd
        for (std::int64_t j = 0; j < n; ++j) (chunk(d + o * ss + j * w, s + (j * kBlock + o) * w), ...);
      }
      (std::make_integer_sequence<int, kBlock>{});
    } else {
      for (std::int64_t j = 0; j < n; ++j, s += block * w)
        for (std::int64_t o = 0; o < block; ++o) chunk(d + o * ss + j * w, s + o * w);
    }
  }
};

// Moves every depth row of g from src to dst. Work items are (depth row, tile of tile_x
// positions) pairs in order, cut into near-equal shares, one per thread.
template <bool kToDepth, class M>
void run(const Geometry& g, const M& m, const typename M::Unit* src, typename M::Unit* dst, std::int64_t tile_x,
         int threads) {
  const std::int64_t w = m.chunk.units(), b = g.block;
  const std::int64_t positions = g.width / b, ss = positions * w;  // ss: one space row
  const std::int64_t row_units = b * ss, rows = g.batch * (g.height / b);
  const std::int64_t tiles = (positions + tile_x - 1) / tile_x, items = rows * tiles;
  threads = static_cast<int>(std::min<std::int64_t>(threads, items));
  thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t count) {
    const std::int64_t end = thread_policy::share_begin(items, count, t + 1);
    for (std::int64_t item = thread_policy::share_begin(items, count, t); item < end; ++item) {
      const std::int64_t x0 = item % tiles * tile_x, n = std::min(tile_x, positions - x0);
      const std::int64_t row = item / tiles * row_units;
      if constexpr (kToDepth) {
        m.interleave(dst + row + x0 * b * w, src + row + x0 * w, ss, n);
      } else {
        m.deinterleave(dst + row + x0 * w, ss, src + row + x0 * b * w, n);
      }
    }
  });
}

}  // namespace

Status check_common(const char* op, const Tensor& input, std::int64_t block_size, std::string_view data_format,
                    std::string_view rank_message) {
  // Pre-check 2: the op definition's attrs.
  if (block_size < 2)
    return invalid_argument("Value for attr 'block_size' of ", block_size, " must be at least minimum 2");
  if (data_format != "NHWC" && data_format != "NCHW" && data_format != "NCHW_VECT_C")
    return invalid_argument("Value for attr 'data_format' of \"", data_format,
                            "\" is not in the list of allowed values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"");
  // Pre-check 3: a CPU kernel for this dtype and data_format.
  if (!registered_on_cpu(op, input.dtype()))
    return unimplemented("No registered '", op,
                         "' OpKernel for 'CPU' devices compatible with T=", dtype_name(input.dtype()));
  if (data_format != "NHWC") return invalid_argument("Only NHWC data_format supported on CPU. Got ", data_format);
  // Steps 1 and 2.
  if (block_size > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("Attr block_size has value ", block_size, " out of range for an int32");
  if (input.rank() != 4) return invalid_argument(rank_message, input.rank());
  return Status();
}

Status allocate_output(DType dtype, Shape* shape, const ExecOptions& options, std::optional<Tensor>* output) {
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, *shape));
  try {
    output->emplace(Tensor::uninitialized_taking(dtype, shape));
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(*shape), " and type ",
                              dtype_name(dtype));
  }
  return Status();
}

namespace {

// move_runs on `threads` threads, runs of `chunk` bytes, tiles of tile_x positions.
void move_runs_on(const Geometry& g, bool to_depth, const Tensor& src, Tensor& dst, std::int64_t chunk,
                  std::int64_t tile_x, int threads) {
  const std::int64_t b = g.block;
  const auto go = [&](const auto& mover) {
    using Unit = typename std::remove_cvref_t<decltype(mover)>::Unit;
    const auto* s = static_cast<const Unit*>(src.raw_data());
    auto* d = static_cast<Unit*>(dst.raw_data());
    if (to_depth) return run<true>(g, mover, s, d, tile_x, threads);
    return run<false>(g, mover, s, d, tile_x, threads);
  };
  if (src.dtype() == DType::kString) return go(Mover<0, StringChunk>{StringChunk{b * g.depth}, b});
  // Chunks of 2-128 bytes, a power of two: fixed-size moves. Blocks 2 and 4 are fully unrolled
  // and vectorised, others looped. (128-byte chunks, e.g. C = 16 floats at b = 2, went through
  // the 16-byte piece loop: SpaceToDepth [1,8,8,16] b=2, a whole call, 366-382 -> 288-293 ns.)
  const auto fixed = [&](auto width_tag) {
    constexpr std::size_t kW = decltype(width_tag)::value;
    if (b == 2) return go(Mover<2, ByteChunk<kW>>{{kW}, 2});
    if (b == 4) return go(Mover<4, ByteChunk<kW>>{{kW}, 4});
    return go(Mover<0, ByteChunk<kW>>{{kW}, b});
  };
  switch (chunk) {
    case 2: return fixed(std::integral_constant<std::size_t, 2>{});
    case 4: return fixed(std::integral_constant<std::size_t, 4>{});
    case 8: return fixed(std::integral_constant<std::size_t, 8>{});
    case 16: return fixed(std::integral_constant<std::size_t, 16>{});
    case 32: return fixed(std::integral_constant<std::size_t, 32>{});
    case 64: return fixed(std::integral_constant<std::size_t, 64>{});
    case 128: return fixed(std::integral_constant<std::size_t, 128>{});
    default: break;
  }
  if (chunk >= kMemcpyChunkBytes) return go(Mover<0, ByteChunk<0>>{{chunk}, b});
  if (chunk % 16 == 0) return go(Mover<0, ByteChunk<0, 16>>{{chunk}, b});
  if (chunk % 8 == 0) return go(Mover<0, ByteChunk<0, 8>>{{chunk}, b});
  if (chunk % 4 == 0) return go(Mover<0, ByteChunk<0, 4>>{{chunk}, b});
  if (chunk % 2 == 0) return go(Mover<0, ByteChunk<0, 2>>{{chunk}, b});
  return go(Mover<0, ByteChunk<0, 1>>{{chunk}, b});
}

}  // namespace

void move_runs(const Geometry& g, bool to_depth, const Tensor& src, Tensor& dst, const ExecOptions& options) {
  if (src.num_elements() == 0) return;
  const std::int64_t width = static_cast<std::int64_t>(dtype_storage_size(src.dtype()));
  const std::int64_t chunk = g.block * g.depth * width, total = src.num_elements() * width;  // bytes
  const std::int64_t tile_bytes = options.tile_bytes > 0 ? options.tile_bytes : kDefaultTileBytes;
  const std::int64_t tile_x = std::max<std::int64_t>(1, tile_bytes / (g.block * chunk));
  // Where the rule gives several threads, learnt per direction (thread_policy::ThreadLearner).
  static constinit thread_policy::ThreadLearner learners[2];
  const thread_policy::ThreadLearner::Choice choice =
      learners[to_depth].choose(options, total, thread_policy::threads_for(options, total));
  move_runs_on(g, to_depth, src, dst, chunk, tile_x, choice.threads);
  choice.done();
}

}  // namespace opconform::optimized::depth_space
