#include "opconform/optimized/op_table.h"

namespace opconform::optimized {

// Every op of the registry's list (op_list.inc), declared by its signature: the layer defines
// each in <snake_name>.cc.
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) Kernel Name;
#include "opconform/op_list.inc"
#undef OPCONFORM_OP

const OpTable& op_table() {
  static const OpTable table = {
      "optimized",
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) &Name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  };
  return table;
}

}  // namespace opconform::optimized
