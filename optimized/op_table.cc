#include "opconform/optimized/op_table.h"

#include "opconform/optimized/batch_to_space_nd.h"
#include "opconform/optimized/dynamic_partition.h"
#include "opconform/optimized/dynamic_stitch.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/optimized/sparse_concat.h"

namespace opconform::optimized {

const OpTable& op_table() {
  static const OpTable table = {
      "optimized",         &SpaceToBatchND,   &BatchToSpaceND, &DynamicStitch,
      &ParallelDynamicStitch, &DynamicPartition, &SparseConcat,
  };
  return table;
}

}  // namespace opconform::optimized
