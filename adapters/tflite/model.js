// A one-op TensorFlow Lite model (a .tflite flatbuffer, file identifier "TFL3") written with the
// `flatbuffers` package against the field layout of TFLite's schema.fbs (tensorflow/lite/schema).
// Only what a one-op model needs: Model, OperatorCode, SubGraph, Tensor,
// QuantizationParameters, Operator (with its builtin options table) and Buffer.
'use strict';

const flatbuffers = require('flatbuffers');

// schema.fbs, enum TensorType (byte).
const TENSOR_TYPE = {
  float32: 0, float16: 1, int32: 2, uint8: 3, int64: 4, bool: 6, int16: 7, int8: 9, float64: 10,
  uint64: 12, uint32: 15, uint16: 16,
};

// schema.fbs, enum BuiltinOperator (int32; builtin codes below 127 are also written to the byte
// field deprecated_builtin_code, as TFLite's own writer does).
const BUILTIN = {DEPTH_TO_SPACE: 5, SPACE_TO_DEPTH: 26, BATCH_TO_SPACE_ND: 37, SPACE_TO_BATCH_ND: 38};

// schema.fbs, union BuiltinOptions: the type tag of each options table used here. Both tables
// hold one field, `block_size:int`.
const BUILTIN_OPTIONS = {SpaceToDepthOptions: 19, DepthToSpaceOptions: 94};

function intVector(b, values) {
  b.startVector(4, values.length, 4);
  for (let i = values.length - 1; i >= 0; --i) b.addInt32(values[i]);
  return b.endVector();
}

function offsetVector(b, offsets) {
  b.startVector(4, offsets.length, 4);
  for (let i = offsets.length - 1; i >= 0; --i) b.addOffset(offsets[i]);
  return b.endVector();
}

// tensors: [{name, type (TENSOR_TYPE key), shape (int32 dims, or null for none),
//            data (Uint8Array, constant tensors only), quant ({scale, zeroPoint}, optional)}]
// inputs/outputs: tensor indices of the subgraph; op: a BUILTIN key; options (optional):
// {table: a BUILTIN_OPTIONS key, ints: the table's int32 fields in field order}.
function buildModel({tensors, inputs, outputs, op, options}) {
  const b = new flatbuffers.Builder(1024);
  // Buffers: 0 is the empty buffer every non-constant tensor points at.
  const bufferOffsets = [];
  const bufferOf = [];
  const emptyBuffer = () => { b.startObject(3); return b.endObject(); };
  bufferOffsets.push(emptyBuffer());
  for (const t of tensors) {
    if (t.data === undefined) { bufferOf.push(0); continue; }
    b.startVector(1, t.data.length, 16);
    for (let i = t.data.length - 1; i >= 0; --i) b.addInt8(t.data[i]);
    const dataOffset = b.endVector();
    b.startObject(3);
    b.addFieldOffset(0, dataOffset, 0);  // Buffer.data
    bufferOffsets.push(b.endObject());
    bufferOf.push(bufferOffsets.length - 1);
  }
  const tensorOffsets = tensors.map((t, i) => {
    const name = b.createString(t.name);
    const shape = t.shape === null ? 0 : intVector(b, t.shape);
    let quant = 0;
    if (t.quant) {
      b.startVector(4, 1, 4); b.addFloat32(t.quant.scale); const scale = b.endVector();
      b.startVector(8, 1, 8); b.addInt64(BigInt(t.quant.zeroPoint)); const zp = b.endVector();
      b.startObject(7);
      b.addFieldOffset(2, scale, 0);  // QuantizationParameters.scale
      b.addFieldOffset(3, zp, 0);     // QuantizationParameters.zero_point
      quant = b.endObject();
    }
    b.startObject(8);
    if (shape) b.addFieldOffset(0, shape, 0);                        // Tensor.shape
    b.addFieldInt8(1, TENSOR_TYPE[t.type], -1);                       // Tensor.type (always written)
    b.addFieldInt32(2, bufferOf[i], -1);                              // Tensor.buffer
    b.addFieldOffset(3, name, 0);                                     // Tensor.name
    if (quant) b.addFieldOffset(4, quant, 0);                         // Tensor.quantization
    return b.endObject();
  });
  const opInputs = intVector(b, inputs);
  const opOutputs = intVector(b, outputs);
  let opOptions = 0;
  if (options) {
    b.startObject(options.ints.length);
    options.ints.forEach((v, i) => b.addFieldInt32(i, v, -1));  // always written, 0 included
    opOptions = b.endObject();
  }
  b.startObject(9);
  b.addFieldInt32(0, 0, -1);         // Operator.opcode_index
  b.addFieldOffset(1, opInputs, 0);  // Operator.inputs
  b.addFieldOffset(2, opOutputs, 0); // Operator.outputs
  if (options) {
    b.addFieldInt8(3, BUILTIN_OPTIONS[options.table], -1);  // Operator.builtin_options_type (ubyte)
    b.addFieldOffset(4, opOptions, 0);                      // Operator.builtin_options
  }
  const operator = b.endObject();

  const sgTensors = offsetVector(b, tensorOffsets);
  const sgInputs = intVector(b, [inputs[0]]);
  const sgOutputs = intVector(b, outputs);
  const sgOperators = offsetVector(b, [operator]);
  const sgName = b.createString('main');
  b.startObject(5);
  b.addFieldOffset(0, sgTensors, 0);   // SubGraph.tensors
  b.addFieldOffset(1, sgInputs, 0);    // SubGraph.inputs
  b.addFieldOffset(2, sgOutputs, 0);   // SubGraph.outputs
  b.addFieldOffset(3, sgOperators, 0); // SubGraph.operators
  b.addFieldOffset(4, sgName, 0);      // SubGraph.name
  const subgraph = b.endObject();

  const code = BUILTIN[op];
  b.startObject(4);
  b.addFieldInt8(0, code, -1);   // OperatorCode.deprecated_builtin_code
  b.addFieldInt32(2, 1, -1);     // OperatorCode.version
  b.addFieldInt32(3, code, -1);  // OperatorCode.builtin_code
  const opcode = b.endObject();

  const opcodes = offsetVector(b, [opcode]);
  const subgraphs = offsetVector(b, [subgraph]);
  const buffers = offsetVector(b, bufferOffsets);
  const description = b.createString('opconform one-op model');
  b.startObject(8);
  b.addFieldInt32(0, 3, -1);           // Model.version
  b.addFieldOffset(1, opcodes, 0);     // Model.operator_codes
  b.addFieldOffset(2, subgraphs, 0);   // Model.subgraphs
  b.addFieldOffset(3, description, 0); // Model.description
  b.addFieldOffset(4, buffers, 0);     // Model.buffers
  b.finish(b.endObject(), 'TFL3');
  return b.asUint8Array();
}

module.exports = {TENSOR_TYPE, BUILTIN, BUILTIN_OPTIONS, buildModel};
