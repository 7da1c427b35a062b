// SPDX-License-Identifier: Apache-2.0
// The pieces the check lists (checks/<snake_name>.inc) build their message patterns from
// (ECMAScript regexes, checks.h), for the files that expand a list into a Check table. Private to
// generators/.
#pragma once

#define RX_SHAPE R"(\[[0-9,]*\])"
#define RX_INT R"(-?\d+)"
// README memory accounting.
#define RX_OOM "OOM when allocating tensor with shape" RX_SHAPE R"( and type \w+)"
// README pre-check 3.
#define RX_REGISTRATION(op) "No registered '" op R"(' OpKernel for 'CPU' devices compatible with T=\w+)"
// README pre-check 1 of an index-type attr.
#define RX_INDEX_ATTR(attr) "Value for attr '" attr R"(' of \w+ is not in the list of allowed values: int32, int64)"
#define RX_SHAPE_OVERFLOW "Encountered overflow when multiplying " RX_INT " with " RX_INT ", result: " RX_INT
#define RX_MAX_INTERNAL_DIMS R"(Maximum number of non-combined block dimensions is \d+ but must not exceed 4)"
// SpaceToDepth and DepthToSpace, pre-checks 2b and 3b.
#define RX_DATA_FORMAT_ALLOWED \
  R"(Value for attr 'data_format' of "[^]*" is not in the list of allowed values: "NHWC", "NCHW", "NCHW_VECT_C")"
#define RX_NHWC_ONLY "Only NHWC data_format supported on CPU. Got (NCHW|NCHW_VECT_C)"
