#include "opconform/reference/op_table.h"

#include "opconform/reference/batch_to_space_nd.h"
#include "opconform/reference/dynamic_partition.h"
#include "opconform/reference/dynamic_stitch.h"
#include "opconform/reference/space_to_batch_nd.h"
#include "opconform/reference/sparse_concat.h"

namespace opconform::reference {

const OpTable& op_table() {
  static const OpTable table = {
      "reference",         &SpaceToBatchND,   &BatchToSpaceND, &DynamicStitch,
      &ParallelDynamicStitch, &DynamicPartition, &SparseConcat,
  };
  return table;
}

}  // namespace opconform::reference
