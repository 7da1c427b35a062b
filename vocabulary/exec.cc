#include "opconform/exec.h"

namespace opconform {

std::int64_t output_request_bytes(DType dtype, const Shape& shape) {
  const std::int64_t elements = checked_num_elements(shape);
  if (elements < 0) return -1;
  const std::int64_t payload = multiply_without_overflow(elements, dtype_accounting_width(dtype));
  if (payload < 0) return -1;
  std::int64_t bytes = 0;
  if (__builtin_add_overflow(payload, std::int64_t{64}, &bytes)) return -1;
  return bytes;
}

Status MemoryAccount::request(DType dtype, const Shape& shape) {
  const std::int64_t bytes = output_request_bytes(dtype, shape);
  std::int64_t total = 0;
  if (bytes < 0 || __builtin_add_overflow(total_, bytes, &total) || total > limit_)
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(shape), " and type ",
                              dtype_name(dtype));
  total_ = total;
  return Status();
}

std::string knobs_string(const Knobs& knobs) {
  return str_cat("num_threads=", knobs.num_threads, " tile_bytes=", knobs.tile_bytes,
                 " streaming_min_bytes=", knobs.streaming_min_bytes);
}

}  // namespace opconform
