#include "optimized/op_table.h"

#include "optimized/batch_to_space_nd.h"
#include "optimized/dynamic_partition.h"
#include "optimized/dynamic_stitch.h"
#include "optimized/space_to_batch_nd.h"
#include "optimized/sparse_concat.h"

namespace opconform::optimized {

const OpTable& op_table() {
  static const OpTable table = {
      "optimized",         &SpaceToBatchND,   &BatchToSpaceND, &DynamicStitch,
      &ParallelDynamicStitch, &DynamicPartition, &SparseConcat,
  };
  return table;
}

}  // namespace opconform::optimized
