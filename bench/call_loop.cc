// opconform_call_loop [CALLS=10000] [OP]: CALLS 1-thread calls of every optimized kernel (or of
// OP: s2b, b2s, stitch, pstitch, partition, sparse) at an empty and at a 4 KiB output, for
// counting what a call costs besides its work with outside tools:
//   strace -f -c build-bench/bench/opconform_call_loop 2000   (system calls: as for 10 calls)
//   gdb -batch -ex "set breakpoint pending on" -ex "break GOMP_parallel" -ex run --args ...
// (no OpenMP region is entered: the breakpoint is never hit).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "opconform/optimized/batch_to_space_nd.h"
#include "opconform/optimized/dynamic_partition.h"
#include "opconform/optimized/dynamic_stitch.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/optimized/sparse_concat.h"
using namespace opconform;
int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 10000;
  const char* only = argc > 2 ? argv[2] : "";
  ExecOptions o;
  o.num_threads = 1;
  for (std::int64_t h : {0, 8}) {
    Tensor space(DType::kFloat32, {1, h, 8, 16}), batch(DType::kFloat32, {4, h / 2, 4, 16});
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
      if (!ok) {
        std::puts("error");
        return 1;
      }
    }
  }
  std::puts("ok");
}
