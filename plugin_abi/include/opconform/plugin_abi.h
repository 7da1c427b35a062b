/* SPDX-License-Identifier: Apache-2.0 */
/* The opconform plug-in C ABI, version 1: what a shared library exports so that
 * `opconform validate --impl lib.so` can check its ops. docs/plugin-abi.md is the contract;
 * this header is its C transcription. Plain C (C99 and C++), no opconform C++ types.
 *
 * A plug-in exports, with C linkage and default visibility:
 *   uint32_t opconform_abi_version(void);                      -> OPCONFORM_ABI_VERSION
 *   const opconform_manifest* opconform_manifest_get(void);    -> what it supports
 *   for the ops it lists in the manifest, the generic entry point opconform_run_op, or one
 *   entry point per op (opconform_space_to_batch_nd, ...: the six ops of ABI 1.0).
 *
 * A call: inputs are read-only tensor descriptors owned by the caller; every output buffer is
 * obtained from call->allocate_output (the caller fences and poisons it); the return value is
 * the status code and call->set_message gives the error message.
 *
 *   int32_t opconform_dynamic_stitch(const opconform_call* call,
 *                                    const opconform_tensor* indices, int64_t num_indices,
 *                                    const opconform_tensor* data, int64_t num_data) {
 *     ...validate; on a bad input:
 *     call->set_message(call->caller, msg, (int64_t)strlen(msg));
 *     return OPCONFORM_CODE_INVALID_ARGUMENT;
 *     ...otherwise:
 *     void* out = call->allocate_output(call->caller, 0, data[0].dtype, rank, dims);
 *     if (out == NULL) return OPCONFORM_CODE_RESOURCE_EXHAUSTED;
 *     ...write every element of out...
 *     return OPCONFORM_CODE_OK;
 *   }
 */
#ifndef OPCONFORM_IMPL_H_
#define OPCONFORM_IMPL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPCONFORM_ABI_VERSION 1u

/* dtypes: stable numbers (TensorFlow's names in docs/plugin-abi.md). Element layout in a
 * buffer, row-major, no padding between elements:
 *   float32/float64: IEEE binary32/binary64; float16/bfloat16: the 16 bits as uint16_t;
 *   intN/uintN: the C integer; bool: one byte, 0 or 1; complex64/complex128: {real, imag} as
 *   float/double; qint8/quint8/qint32: int8_t/uint8_t/int32_t; string: opconform_string. */
enum {
  OPCONFORM_DTYPE_FLOAT32 = 0,
  OPCONFORM_DTYPE_FLOAT64 = 1,
  OPCONFORM_DTYPE_FLOAT16 = 2,
  OPCONFORM_DTYPE_BFLOAT16 = 3,
  OPCONFORM_DTYPE_INT8 = 4,
  OPCONFORM_DTYPE_INT16 = 5,
  OPCONFORM_DTYPE_INT32 = 6,
  OPCONFORM_DTYPE_INT64 = 7,
  OPCONFORM_DTYPE_UINT8 = 8,
  OPCONFORM_DTYPE_UINT16 = 9,
  OPCONFORM_DTYPE_UINT32 = 10,
  OPCONFORM_DTYPE_UINT64 = 11,
  OPCONFORM_DTYPE_BOOL = 12,
  OPCONFORM_DTYPE_COMPLEX64 = 13,
  OPCONFORM_DTYPE_COMPLEX128 = 14,
  OPCONFORM_DTYPE_STRING = 15,
  OPCONFORM_DTYPE_QINT8 = 16,
  OPCONFORM_DTYPE_QUINT8 = 17,
  OPCONFORM_DTYPE_QINT32 = 18
};
#define OPCONFORM_NUM_DTYPES 19
/* The bit of a dtype in a manifest's dtype mask. */
#define OPCONFORM_DTYPE_BIT(dtype) (UINT64_C(1) << (dtype))

/* Status codes: TensorFlow's canonical numbers. Any other value is an ABI violation. */
enum {
  OPCONFORM_CODE_OK = 0,
  OPCONFORM_CODE_INVALID_ARGUMENT = 3,
  OPCONFORM_CODE_RESOURCE_EXHAUSTED = 8,
  OPCONFORM_CODE_UNIMPLEMENTED = 12,
  OPCONFORM_CODE_INTERNAL = 13
};

/* Ops: stable numbers, used in the manifest and by opconform_run_op: OPCONFORM_OP_<UPPER_NAME>
 * for each line of op_list.inc (OPCONFORM_OP_SPACE_TO_BATCH_ND = 0, ...). */
enum {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) OPCONFORM_OP_##UPPER_NAME,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  OPCONFORM_NUM_OPS
};

/* One string element: `size` bytes at `data` (any bytes, NUL included; not NUL-terminated).
 * data may be NULL only when size == 0. */
typedef struct opconform_string {
  const char* data;
  int64_t size;
} opconform_string;

/* A dense tensor: `rank` dims (0 <= rank <= 254; dims may be NULL when rank == 0) and the
 * elements row-major at `data`. Input data is never NULL (also for zero elements), is
 * 64-byte aligned and holds exactly prod(dims) elements (prod of no dims = 1). For string
 * tensors data points to prod(dims) opconform_string. Inputs are read-only and live until the
 * entry point returns. */
typedef struct opconform_tensor {
  int32_t dtype;
  int32_t rank;
  const int64_t* dims;
  const void* data;
} opconform_tensor;

/* What the caller passes to every entry point. Only read fields that lie within
 * struct_size bytes (later ABI minor revisions append fields). */
typedef struct opconform_call {
  uint32_t struct_size; /* sizeof(opconform_call) as the caller compiled it */
  uint32_t reserved;    /* 0 */
  /* The caller's memory limit in bytes (spec README, "Memory accounting"): an implementation
   * that accounts answers RESOURCE_EXHAUSTED when its outputs would exceed it. */
  int64_t memory_limit_bytes;
  /* Passed back unchanged as the first argument of every callback. */
  void* caller;
  /* Returns the buffer for output `output_index` (0-based, see docs/plugin-abi.md for each
   * op's outputs) of `dtype` and shape (rank, dims): prod(dims) elements, 64-byte aligned,
   * pre-filled with a poison pattern (strings: {NULL, 0}); never NULL for a valid request,
   * also for zero elements. Returns NULL when the request is invalid (index out of range or
   * already allocated, bad dtype/rank/dims) or the memory cannot be provided; the entry point
   * must then return an error (RESOURCE_EXHAUSTED for memory). Each output is allocated at
   * most once; the buffer belongs to the caller and stays valid until the entry point
   * returns. */
  void* (*allocate_output)(void* caller, int32_t output_index, int32_t dtype, int32_t rank, const int64_t* dims);
  /* Returns `size` bytes (size >= 0) owned by the caller, for the bytes of string outputs;
   * NULL when they cannot be provided. */
  char* (*allocate_bytes)(void* caller, int64_t size);
  /* Sets the message of the error the entry point returns (copied; `size` bytes, UTF-8; the
   * last call wins; ignored when the entry point returns OK). */
  void (*set_message)(void* caller, const char* message, int64_t size);
} opconform_call;

/* Entry points. Each returns an OPCONFORM_CODE_*. On OK every output of the op has been
 * allocated exactly once and every element of it written; string elements then point into
 * bytes from allocate_bytes of this call or into an input string's bytes. On an error the
 * caller discards whatever was allocated; but only RESOURCE_EXHAUSTED may follow a successful
 * allocate_output or allocate_bytes (validate before allocating; a later output may not fit):
 * any other error after one is a fault. An entry point must not keep any pointer it was
 * given after it returns, and must not write outside the output buffers it obtained. */
typedef int32_t (*opconform_space_to_batch_nd_fn)(const opconform_call* call, const opconform_tensor* input,
                                                  const opconform_tensor* block_shape,
                                                  const opconform_tensor* paddings);
typedef int32_t (*opconform_batch_to_space_nd_fn)(const opconform_call* call, const opconform_tensor* input,
                                                  const opconform_tensor* block_shape, const opconform_tensor* crops);
/* DynamicStitch and ParallelDynamicStitch: the lists `indices` and `data` (their lengths
 * may differ: checking that is the op's job). */
typedef int32_t (*opconform_dynamic_stitch_fn)(const opconform_call* call, const opconform_tensor* indices,
                                               int64_t num_indices, const opconform_tensor* data, int64_t num_data);
/* num_partitions is the attribute as given (int64, so out-of-range values reach the op). */
typedef int32_t (*opconform_dynamic_partition_fn)(const opconform_call* call, const opconform_tensor* data,
                                                  const opconform_tensor* partitions, int64_t num_partitions);
typedef int32_t (*opconform_sparse_concat_fn)(const opconform_call* call, const opconform_tensor* indices,
                                              int64_t num_indices, const opconform_tensor* values, int64_t num_values,
                                              const opconform_tensor* shapes, int64_t num_shapes, int64_t concat_dim);

/* The generic entry point: one symbol for every op, so an op new to the suite needs no new
 * symbol. `op` is an OPCONFORM_OP_*; `inputs` are the op's inputs and `attrs` its attributes,
 * each in the order docs/plugin-abi.md lists for the op (a tensor input is a list of one).
 * Outputs come from call->allocate_output as for the op's own entry point: output_index counts
 * the op's outputs in order, the tensors of a list output one by one. An op it does not list
 * in its manifest is never called. When a plug-in exports both, the validator calls this one. */
typedef struct opconform_input {
  const opconform_tensor* tensors; /* num_tensors tensors (NULL when num_tensors == 0) */
  int64_t num_tensors;
} opconform_input;
/* An attribute: an integer one in `int_value` (string_value {NULL, 0}), a string one in
 * `string_value` (int_value 0). */
typedef struct opconform_attr {
  int64_t int_value;
  opconform_string string_value;
} opconform_attr;
typedef int32_t (*opconform_run_op_fn)(const opconform_call* call, int32_t op, const opconform_input* inputs,
                                       int32_t num_inputs, const opconform_attr* attrs, int32_t num_attrs);

/* What the implementation supports for one op. A case outside these limits is `unsupported`:
 * the implementation must answer it with a clean error (any code), never a crash. */
typedef struct opconform_op_caps {
  int32_t op;             /* OPCONFORM_OP_* */
  int32_t reserved;       /* 0 */
  uint64_t dtypes;        /* OPCONFORM_DTYPE_BIT mask of the data dtype T */
  uint64_t param_dtypes;  /* mask of index-like dtypes accepted (docs: which inputs) */
  int32_t min_rank;       /* main input's rank range (docs: which input); */
  int32_t max_rank;       /*   max_rank -1: no limit */
  int32_t min_block_dims; /* SpaceToBatchND/BatchToSpaceND: range of M = len(block_shape); */
  int32_t max_block_dims; /*   max -1: no limit; other ops: 0 and -1 */
} opconform_op_caps;

typedef struct opconform_manifest {
  uint32_t abi_version; /* OPCONFORM_ABI_VERSION */
  uint32_t struct_size; /* sizeof(opconform_manifest) */
  const char* name;     /* "armnn-cpuref 23.08", shown in reports */
  const char* profile;  /* "tf-cpu", "xla" or "tflite": the contract it follows */
  int32_t num_ops;
  const opconform_op_caps* ops; /* num_ops entries, each op at most once */
} opconform_manifest;

/* Exported symbol names. */
#define OPCONFORM_SYMBOL_ABI_VERSION "opconform_abi_version"
#define OPCONFORM_SYMBOL_MANIFEST "opconform_manifest_get"
#define OPCONFORM_SYMBOL_RUN_OP "opconform_run_op"
#define OPCONFORM_SYMBOL_SPACE_TO_BATCH_ND "opconform_space_to_batch_nd"
#define OPCONFORM_SYMBOL_BATCH_TO_SPACE_ND "opconform_batch_to_space_nd"
#define OPCONFORM_SYMBOL_DYNAMIC_STITCH "opconform_dynamic_stitch"
#define OPCONFORM_SYMBOL_PARALLEL_DYNAMIC_STITCH "opconform_parallel_dynamic_stitch"
#define OPCONFORM_SYMBOL_DYNAMIC_PARTITION "opconform_dynamic_partition"
#define OPCONFORM_SYMBOL_SPARSE_CONCAT "opconform_sparse_concat"

/* Declarations a plug-in defines (it need not define the ops it does not list). */
uint32_t opconform_abi_version(void);
const opconform_manifest* opconform_manifest_get(void);
int32_t opconform_run_op(const opconform_call* call, int32_t op, const opconform_input* inputs, int32_t num_inputs,
                         const opconform_attr* attrs, int32_t num_attrs);
int32_t opconform_space_to_batch_nd(const opconform_call* call, const opconform_tensor* input,
                                    const opconform_tensor* block_shape, const opconform_tensor* paddings);
int32_t opconform_batch_to_space_nd(const opconform_call* call, const opconform_tensor* input,
                                    const opconform_tensor* block_shape, const opconform_tensor* crops);
int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,
                                 const opconform_tensor* data, int64_t num_data);
int32_t opconform_parallel_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                          int64_t num_indices, const opconform_tensor* data, int64_t num_data);
int32_t opconform_dynamic_partition(const opconform_call* call, const opconform_tensor* data,
                                    const opconform_tensor* partitions, int64_t num_partitions);
int32_t opconform_sparse_concat(const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,
                                const opconform_tensor* values, int64_t num_values, const opconform_tensor* shapes,
                                int64_t num_shapes, int64_t concat_dim);

#ifdef __cplusplus
}
#endif

#endif /* OPCONFORM_IMPL_H_ */
