// The shared checks and the run-permutation kernel of the optimized SpaceToDepth and
// DepthToSpace (depth_space_kernel.h). Shares nothing with reference/.
#include "depth_space_kernel.h"

#include <algorithm>
#include <limits>
#include <new>

#include "row_copy.h"
#include "thread_policy.h"

namespace opconform::optimized::depth_space {
namespace {

// SpaceToDepth: TF_CALL_ALL_TYPES plus qint8; DepthToSpace: TF_CALL_ALL_TYPES.
bool registered_on_cpu(std::string_view op, DType dtype) {
  if (dtype == DType::kQUInt8 || dtype == DType::kQInt32) return false;
  return dtype != DType::kQInt8 || op == "SpaceToDepth";
}

constexpr std::int64_t kDefaultTileBytes = 16 * 1024;

template <class T>
void move_typed(const Geometry& g, bool to_depth, const Tensor& src, Tensor& dst, const ExecOptions& options) {
  const std::int64_t b = g.block, run_elems = b * g.depth;
  const std::int64_t runs_per_row = g.width / b, rows = g.batch * g.height, blocked_height = g.height / b;
  const std::int64_t run_bytes = run_elems * static_cast<std::int64_t>(sizeof(T));
  const std::int64_t tile_bytes = options.tile_bytes > 0 ? options.tile_bytes : kDefaultTileBytes;
  const std::int64_t tile_runs = std::max<std::int64_t>(1, tile_bytes / run_bytes);
  const std::int64_t tiles_per_row = (runs_per_row + tile_runs - 1) / tile_runs;
  const std::int64_t items = rows * tiles_per_row;
  const int threads = thread_policy::threads_for(options, src.num_elements() * static_cast<std::int64_t>(sizeof(T)));
  row_copy::with_row_mover<T>(run_elems, [&](auto mover) {
    using E = typename decltype(mover)::Element;
    const E* from = static_cast<const E*>(src.raw_data());
    E* to = static_cast<E*>(dst.raw_data());
    thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t count) {
      const std::int64_t end = thread_policy::share_begin(items, count, t + 1);
      for (std::int64_t item = thread_policy::share_begin(items, count, t); item < end; ++item) {
        const std::int64_t row = item / tiles_per_row, first = item % tiles_per_row * tile_runs;
        const std::int64_t last = std::min(runs_per_row, first + tile_runs);
        const std::int64_t n = row / g.height, h = row % g.height;
        const std::int64_t space_run = row * runs_per_row;                              // j = 0
        const std::int64_t depth_run = (n * blocked_height + h / b) * runs_per_row * b + h % b;  // j = 0
        if (to_depth) {
          for (std::int64_t j = first; j < last; ++j) mover.copy(to, depth_run + j * b, from, space_run + j);
        } else {
          for (std::int64_t j = first; j < last; ++j) mover.copy(to, space_run + j, from, depth_run + j * b);
        }
      }
    });
  });
}

}  // namespace

Status check_common(const char* op, const Tensor& input, std::int64_t block_size,
                    std::string_view data_format, std::string_view rank_message) {
  // Pre-check 2: the op definition's attrs.
  if (block_size < 2)
    return invalid_argument("Value for attr 'block_size' of ", block_size, " must be at least minimum 2");
  if (data_format != "NHWC" && data_format != "NCHW" && data_format != "NCHW_VECT_C")
    return invalid_argument("Value for attr 'data_format' of \"", data_format,
                            "\" is not in the list of allowed values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"");
  // Pre-check 3: a CPU kernel for this dtype and data_format.
  if (!registered_on_cpu(op, input.dtype()))
    return unimplemented("No registered '", op, "' OpKernel for 'CPU' devices compatible with T=",
                         dtype_name(input.dtype()));
  if (data_format != "NHWC") return invalid_argument("Only NHWC data_format supported on CPU. Got ", data_format);
  // Steps 1 and 2.
  if (block_size > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("Attr block_size has value ", block_size, " out of range for an int32");
  if (input.rank() != 4) return invalid_argument(rank_message, input.rank());
  return Status();
}

Status allocate_output(DType dtype, const Shape& shape, const ExecOptions& options, Tensor* output) {
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, shape));
  try {
    *output = Tensor::uninitialized(dtype, shape);
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(shape), " and type ",
                              dtype_name(dtype));
  }
  return Status();
}

void move_runs(const Geometry& g, bool to_depth, const Tensor& src, Tensor& dst, const ExecOptions& options) {
  if (src.num_elements() == 0) return;
  visit_dtype(src.dtype(), [&](auto tag) { move_typed<typename decltype(tag)::type>(g, to_depth, src, dst, options); });
}

}  // namespace opconform::optimized::depth_space
