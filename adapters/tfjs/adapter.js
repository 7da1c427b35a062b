#!/usr/bin/env node
// TensorFlow.js (tfjs-core + the pure-JS cpu backend) behind opconform's subprocess protocol v1
// (docs/plugin-abi.md, section 2): SpaceToBatchND and BatchToSpaceND.
// Run: opconform validate --impl "exec:node adapters/tfjs/adapter.js"
// Logs go to stderr only; stdout carries length-prefixed JSON messages.
'use strict';

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');

const DATA_DTYPES = ['float32', 'int32', 'bool'];
const PARAM_DTYPES = ['int32', 'int64'];

function manifest() {
  const caps = (op) => ({op, dtypes: DATA_DTYPES, param_dtypes: PARAM_DTYPES,
                         min_rank: 1, max_rank: null, min_block_dims: 1, max_block_dims: null});
  return {type: 'manifest', protocol: 1,
          name: `tfjs-core ${tf.version_core} cpu`, profile: 'tf-cpu',
          ops: [caps('SpaceToBatchND'), caps('BatchToSpaceND')]};
}

// --- element codec (corpus/README.md, "Elements, bit-exact for every dtype") ---
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// Float32 elements travel as bit patterns (Uint32Array views), never as JS numbers: reading a
// signalling NaN into a double quiets it, and that would be this adapter's doing, not tfjs's.
function float32Bits(e) {
  if (typeof e === 'number') { f32[0] = e; return u32[0]; }
  if (e === 'inf') return 0x7f800000;
  if (e === '-inf') return 0xff800000;
  if (e === 'nan') return 0x7fc00000;
  if (typeof e === 'string' && e.startsWith('0x')) return parseInt(e.slice(2), 16) >>> 0;
  throw new Error(`bad float32 element ${JSON.stringify(e)}`);
}

// tfjs takes integers (dims, block, paddings) as JS numbers: one beyond 2^53 cannot reach it
// exactly, so the adapter answers instead of passing a rounded neighbour on.
function decodeInt(e) {
  const v = typeof e === 'number' ? e : typeof e === 'string' ? Number(BigInt(e)) : NaN;
  if (!Number.isInteger(v)) throw new Error(`bad integer element ${JSON.stringify(e)}`);
  if (!Number.isSafeInteger(v) || (typeof e === 'string' && BigInt(e) !== BigInt(v))) {
    const err = new Error(`adapter: integer ${e} is beyond 2^53, not exactly representable in the JS number tfjs takes`);
    err.code = 'INVALID_ARGUMENT';
    throw err;
  }
  return v;
}

function decodeDims(shape) { return shape.map(decodeInt); }

function elementCount(dims) { return dims.reduce((a, b) => a * b, 1); }

// A vector tensor -> {dtype, dims, values}: a Float32Array (bits kept) for float32, an
// Int32Array for int32, a JS array otherwise.
function decodeTensor(t) {
  const dims = decodeDims(t.shape);
  const n = elementCount(dims);
  if (n > 1e8) throw new RangeError(`tensor of ${n} elements`);
  const raw = t.data !== undefined ? t.data : new Array(n).fill(t.fill);
  if (t.dtype === 'float32') {
    const values = new Float32Array(n);
    const bits = new Uint32Array(values.buffer);
    raw.forEach((e, i) => { bits[i] = float32Bits(e); });
    return {dtype: t.dtype, dims, values};
  }
  if (t.dtype === 'bool') return {dtype: t.dtype, dims, values: raw};
  const values = raw.map(decodeInt);
  return {dtype: t.dtype, dims, values: t.dtype === 'int32' ? Int32Array.from(values) : values};
}

// Flat values -> nested JS arrays of the given dims (rank 0: the one value): block and
// paddings/crops reach tfjs in the shape the case gives them, malformed ones included.
function nest(values, dims) {
  if (dims.length === 0) return values[0];
  const inner = dims.slice(1);
  const step = elementCount(inner);
  const out = [];
  for (let i = 0; i < dims[0]; ++i) out.push(nest(values.slice(i * step, (i + 1) * step), inner));
  return out;
}

// One float32 bit pattern as the vector encoding writes it: "-0.0"-safe, NaN payloads as hex.
function encodeFloat32Bits(bits) {
  if (bits === 0x7f800000) return '"inf"';
  if (bits === 0xff800000) return '"-inf"';
  if ((bits & 0x7f800000) === 0x7f800000) {
    return bits === 0x7fc00000 ? '"nan"' : `"0x${bits.toString(16).padStart(8, '0')}"`;
  }
  if (bits === 0x80000000) return '-0.0';
  u32[0] = bits;
  return String(f32[0]);  // the double's shortest form; it converts back to the same float32
}

// A dim tfjs computed beyond 2^53 is written exactly as the double it is (a string, as the
// encoding writes big integers); the validator judges it.
function encodeDim(d) {
  if (Number.isSafeInteger(d)) return String(d);
  return Number.isInteger(d) ? `"${BigInt(d)}"` : JSON.stringify(String(d));
}

function encodeOutput(dtype, shape, values) {
  let parts;
  if (dtype === 'float32') {
    const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
    parts = Array.from(bits, encodeFloat32Bits);
  } else {
    parts = Array.from(values, dtype === 'bool' ? (v) => (v ? 'true' : 'false') : (v) => String(v));
  }
  return `{"dtype":${JSON.stringify(dtype)},"shape":[${shape.map(encodeDim).join(',')}],` +
         `"data":[${parts.join(',')}]}`;
}

// --- the ops ---
function toParams(t, what) {
  if (!PARAM_DTYPES.includes(t.dtype)) {
    const e = new Error(`${what} must be int32 or int64, got ${t.dtype}`);
    e.code = 'UNIMPLEMENTED';
    throw e;
  }
  return decodeTensor(t);
}

function runSpaceBatch(c) {
  const s2b = c.op === 'SpaceToBatchND';
  const input = c.inputs.input;
  if (!DATA_DTYPES.includes(input.dtype)) {
    const e = new Error(`dtype ${input.dtype} is not supported by tfjs`);
    e.code = 'UNIMPLEMENTED';
    throw e;
  }
  const block = toParams(c.inputs.block_shape, 'block_shape');
  const pads = toParams(s2b ? c.inputs.paddings : c.inputs.crops, s2b ? 'paddings' : 'crops');
  // tfjs takes block and paddings/crops as plain JS arrays: [m] and [[before, after], ...].
  const blockArr = nest(Array.from(block.values), block.dims);
  const padArr = nest(Array.from(pads.values), pads.dims);
  const x = decodeTensor(input);
  return tf.tidy(() => {
    const xt = tf.tensor(x.values, x.dims, x.dtype);
    const y = s2b ? tf.spaceToBatchND(xt, blockArr, padArr) : tf.batchToSpaceND(xt, blockArr, padArr);
    return `{"output":${encodeOutput(y.dtype, y.shape, y.dataSync())}}`;
  });
}

function handleRun(msg) {
  const c = msg.case;
  const head = `{"type":"result","id":${JSON.stringify(msg.id)},`;
  try {
    if (c.op !== 'SpaceToBatchND' && c.op !== 'BatchToSpaceND') {
      const e = new Error(`op ${c.op} is not provided by this adapter`);
      e.code = 'UNIMPLEMENTED';
      throw e;
    }
    return `${head}"outputs":${runSpaceBatch(c)}}`;
  } catch (err) {
    // tfjs reports bad arguments by throwing; we pass them on as INVALID_ARGUMENT.
    const code = err.code || (err instanceof RangeError ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT');
    const message = String(err && err.message !== undefined ? err.message : err);
    return `${head}"error":${JSON.stringify({code, message})}}`;
  }
}

// --- framing: 4-byte little-endian length, then UTF-8 JSON ---
function send(body) {
  const bytes = Buffer.from(body, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(bytes.length, 0);
  process.stdout.write(Buffer.concat([head, bytes]));
}

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const n = pending.readUInt32LE(0);
    if (pending.length < 4 + n) break;
    const msg = JSON.parse(pending.subarray(4, 4 + n).toString('utf8'));
    pending = pending.subarray(4 + n);
    if (msg.type === 'hello') send(JSON.stringify(manifest()));
    else if (msg.type === 'run') send(handleRun(msg));
    else process.stderr.write(`ignoring message of type ${msg.type}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
