// opconform_call_loop [CALLS=10000] [OP] [SIZE]: CALLS 1-thread calls of every optimized kernel
// (or of OP: s2b, b2s, stitch, pstitch, partition, sparse, s2d, d2s) at an empty and at a 4 KiB
// output (or only at SIZE: empty, 4k), for counting what a call costs besides its work with
// outside tools (callgrind's instruction count, strace, gdb). OP alloc1, alloc3 or alloc4 is
// the floor a kernel is measured against: allocating the op's outputs at their shapes,
// uninitialised (alloc1: the one-output ops', alloc3: SparseConcat's three, alloc4:
// DynamicPartition's four), and copying their bytes with memcpy. It prints "ok" and the
// loop's wall-clock ns per call:
//   strace -f -c build-bench/bench/opconform_call_loop 2000   (system calls: as for 10 calls)
//   gdb -batch -ex "set breakpoint pending on" -ex "break GOMP_parallel" -ex run --args ...
// (no OpenMP region is entered: the breakpoint is never hit).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "opconform/optimized/batch_to_space_nd.h"
#include "opconform/optimized/depth_to_space.h"
#include "opconform/optimized/dynamic_partition.h"
#include "opconform/optimized/dynamic_stitch.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/optimized/space_to_depth.h"
#include "opconform/optimized/sparse_concat.h"
using namespace opconform;
int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 10000;
  const char* only = argc > 2 ? argv[2] : "";
  const char* size = argc > 3 ? argv[3] : "";
  ExecOptions o;
  o.num_threads = 1;
  for (std::int64_t h : {0, 8}) {
    if (*size && std::strcmp(size, h == 0 ? "empty" : "4k")) continue;
    Tensor space(DType::kFloat32, {1, h, 8, 16}), batch(DType::kFloat32, {4, h / 2, 4, 16});
    // SpaceToDepth [1, h, 8, 16] (4 KiB at h = 8) and DepthToSpace its output [1, h/2, 4, 64].
    Tensor depth(DType::kFloat32, {1, h / 2, 4, 64});
    Tensor block = Tensor::from_values<std::int64_t>({2}, {2, 2});
    Tensor zeros = Tensor::from_values<std::int64_t>({2, 2}, {0, 0, 0, 0});
    std::vector<Tensor> idx, data;
    for (int m = 0; m < 4; ++m) {
      Tensor i(DType::kInt32, {h / 2});
      for (std::int64_t k = 0; k < h / 2; ++k) i.data<std::int32_t>()[k] = static_cast<std::int32_t>(m * (h / 2) + k);
      idx.push_back(i);
      data.push_back(Tensor(DType::kFloat32, {h / 2, 64}));
    }
    Tensor pdata(DType::kFloat32, {2 * h, 64}), parts(DType::kInt32, {2 * h});
    for (std::int64_t k = 0; k < 2 * h; ++k) parts.data<std::int32_t>()[k] = static_cast<std::int32_t>(k % 4);
    std::vector<Tensor> sidx, sval, sshape;
    for (int k = 0; k < 4; ++k) {
      Tensor i(DType::kInt64, {h * 8, 2});
      for (std::int64_t e = 0; e < h * 8; ++e) {
        i.data<std::int64_t>()[2 * e] = e;
        i.data<std::int64_t>()[2 * e + 1] = 0;
      }
      sidx.push_back(i);
      sval.push_back(Tensor(DType::kFloat32, {h * 8}));
      sshape.push_back(Tensor::from_values<std::int64_t>({2}, {h * 8, 1}));
    }
    const Shape out_shape{4, h / 2, 4, 16};
    // The floors' source: as many bytes as the largest output (SparseConcat's indices).
    const std::vector<std::byte> src(static_cast<std::size_t>(h * 8 * 4 * 2 * 8) + 1);
    const auto copy_into = [&](Tensor& t) {
      std::memcpy(t.raw_data(), src.data(), static_cast<std::size_t>(t.num_elements()) * dtype_storage_size(t.dtype()));
    };
    const int allocs = !std::strcmp(only, "alloc1")   ? 1
                       : !std::strcmp(only, "alloc3") ? 3
                       : !std::strcmp(only, "alloc4") ? 4
                                                      : 0;
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) {
      Tensor out;
      std::vector<Tensor> outs;
      SparseTensor sp;
      bool ok = true;
      if (!*only || !std::strcmp(only, "s2b")) ok &= optimized::SpaceToBatchND(space, block, zeros, &out, o).ok();
      if (!*only || !std::strcmp(only, "b2s")) ok &= optimized::BatchToSpaceND(batch, block, zeros, &out, o).ok();
      if (!*only || !std::strcmp(only, "stitch")) ok &= optimized::DynamicStitch(idx, data, &out, o).ok();
      if (!*only || !std::strcmp(only, "pstitch")) ok &= optimized::ParallelDynamicStitch(idx, data, &out, o).ok();
      if (!*only || !std::strcmp(only, "partition")) ok &= optimized::DynamicPartition(pdata, parts, 4, &outs, o).ok();
      if (!*only || !std::strcmp(only, "sparse")) ok &= optimized::SparseConcat(sidx, sval, sshape, 1, &sp, o).ok();
      if (!*only || !std::strcmp(only, "s2d")) ok &= optimized::SpaceToDepth(space, 2, "NHWC", &out, o).ok();
      if (!*only || !std::strcmp(only, "d2s")) ok &= optimized::DepthToSpace(depth, 2, "NHWC", &out, o).ok();
      if (allocs) {
        // The op's own outputs at their shapes (uninitialised), then one memcpy of their bytes.
        if (allocs == 1) {
          out = Tensor::uninitialized(DType::kFloat32, out_shape);
        } else if (allocs == 3) {  // SparseConcat: indices [N, 2], values [N], shape [2]
          const std::int64_t entries = 4 * h * 8;
          sp.indices = Tensor::uninitialized(DType::kInt64, {entries, 2});
          sp.values = Tensor::uninitialized(DType::kFloat32, {entries});
          sp.shape = Tensor::uninitialized(DType::kInt64, {2});
        } else {  // DynamicPartition: 4 outputs of h / 2 rows of 64 floats
          outs.reserve(4);
          for (int k = 0; k < 4; ++k) outs.push_back(Tensor::uninitialized(DType::kFloat32, {h / 2, 64}));
        }
        for (Tensor* t : {&out, &sp.indices, &sp.values, &sp.shape})
          if (t->num_elements() > 0) copy_into(*t);
        for (Tensor& t : outs) copy_into(t);
      }
      if (!ok) {
        std::puts("error");
        return 1;
      }
    }
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s %s: %.0f ns/call\n", *only ? only : "all", h == 0 ? "empty" : "4k", ns / (calls > 0 ? calls : 1));
  }
  std::puts("ok");
}
