// A minimal ONNX model writer: the protobuf wire format of the few onnx.proto messages a graph
// needs (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto), field
// numbers as onnx/onnx.proto gives them. No dependency: varints and length-delimited fields only.
'use strict';

// onnx.proto TensorProto.DataType.
const ONNX_TYPE = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10,
  float64: 11, uint32: 12, uint64: 13,
};

function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

// A message is an array of byte chunks; fields append to it.
class Msg {
  constructor() { this.parts = []; }
  key(field, wire) { this.parts.push(Buffer.from(varint((field << 3) | wire))); }
  int(field, value) { this.key(field, 0); this.parts.push(Buffer.from(varint(value))); return this; }
  bytes(field, buf) {
    const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    this.key(field, 2);
    this.parts.push(Buffer.from(varint(bytes.length)), Buffer.from(bytes));
    return this;
  }
  str(field, text) { return this.bytes(field, Buffer.from(text, 'utf8')); }
  msg(field, m) { return this.bytes(field, m.encode()); }
  float(field, value) { this.key(field, 5); const b = Buffer.alloc(4); b.writeFloatLE(value); this.parts.push(b); return this; }
  encode() { return Buffer.concat(this.parts); }
}

// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian element bytes).
function tensor(name, dtype, dims, raw) {
  const m = new Msg();
  for (const d of dims) m.int(1, d);
  m.int(2, ONNX_TYPE[dtype]);
  m.str(8, name);
  m.bytes(9, raw);
  return m;
}

function int64Tensor(name, values, dims = [values.length]) {
  return tensor(name, 'int64', dims, BigInt64Array.from(values.map((v) => BigInt(v))));
}

// AttributeProto: name = 1, f = 2, i = 3, t = 5, ints = 8, type = 20 (FLOAT 1, INT 2, TENSOR 4, INTS 7).
function attribute(name, value) {
  const m = new Msg().str(1, name);
  if (value instanceof Msg) return m.msg(5, value).int(20, 4);
  if (Array.isArray(value)) { for (const v of value) m.int(8, v); return m.int(20, 7); }
  return m.int(3, value).int(20, 2);
}

// NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5.
function node(opType, inputs, outputs, attrs = {}) {
  const m = new Msg();
  for (const i of inputs) m.str(1, i);
  for (const o of outputs) m.str(2, o);
  m.str(3, `${opType}_${outputs[0]}`);
  m.str(4, opType);
  for (const [k, v] of Object.entries(attrs)) m.msg(5, attribute(k, v));
  return m;
}

// ValueInfoProto: name = 1, type = 2 -> TypeProto.tensor_type = 1 -> elem_type = 1, shape = 2
// -> TensorShapeProto.dim = 1 -> dim_value = 1 | dim_param = 2. dims null: rank unknown.
function valueInfo(name, dtype, dims) {
  const t = new Msg().int(1, ONNX_TYPE[dtype]);
  if (dims) {
    const shape = new Msg();
    dims.forEach((d, i) => shape.msg(1, typeof d === 'number' ? new Msg().int(1, d) : new Msg().str(2, d || `${name}_${i}`)));
    t.msg(2, shape);
  }
  return new Msg().str(1, name).msg(2, new Msg().msg(1, t));
}

// ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 (domain 1,
// version 2). GraphProto: node = 1, name = 2, initializer = 5, input = 11, output = 12.
function model({nodes, initializers, inputs, outputs, opset}) {
  const g = new Msg();
  for (const n of nodes) g.msg(1, n);
  g.str(2, 'opconform');
  for (const t of initializers) g.msg(5, t);
  for (const i of inputs) g.msg(11, i);
  for (const o of outputs) g.msg(12, o);
  return new Msg().int(1, 8).str(2, 'opconform').msg(7, g).msg(8, new Msg().str(1, '').int(2, opset)).encode();
}

module.exports = {ONNX_TYPE, Msg, tensor, int64Tensor, node, valueInfo, model};
