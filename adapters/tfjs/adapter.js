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

function decodeFloat32(e) {
  if (typeof e === 'number') return e;
  if (e === 'inf') return Infinity;
  if (e === '-inf') return -Infinity;
  if (e === 'nan') { u32[0] = 0x7fc00000; return f32[0]; }
  if (typeof e === 'string' && e.startsWith('0x')) { u32[0] = parseInt(e.slice(2), 16); return f32[0]; }
  throw new Error(`bad float32 element ${JSON.stringify(e)}`);
}

function decodeInt(e) {
  if (typeof e === 'number') return e;
  // tfjs takes JS numbers: an integer beyond 2^53 reaches it as the nearest double.
  if (typeof e === 'string') return Number(BigInt(e));
  throw new Error(`bad integer element ${JSON.stringify(e)}`);
}

function decodeDims(shape) { return shape.map(decodeInt); }

function elementCount(dims) { return dims.reduce((a, b) => a * b, 1); }

// A vector tensor -> {dtype, dims, values (JS array)}.
function decodeTensor(t) {
  const dims = decodeDims(t.shape);
  const n = elementCount(dims);
  if (n > 1e8) throw new RangeError(`tensor of ${n} elements`);
  let raw = t.data;
  if (raw === undefined) raw = new Array(n).fill(t.fill);
  const dec = t.dtype === 'float32' ? decodeFloat32 : t.dtype === 'bool' ? (e) => e : decodeInt;
  return {dtype: t.dtype, dims, values: raw.map(dec)};
}

// One float32 as the vector encoding writes it: "-0.0"-safe, NaN payloads as hex.
function encodeFloat32(x) {
  f32[0] = x;
  const bits = u32[0];
  if (Number.isNaN(f32[0])) return bits === 0x7fc00000 ? '"nan"' : `"0x${bits.toString(16).padStart(8, '0')}"`;
  if (f32[0] === Infinity) return '"inf"';
  if (f32[0] === -Infinity) return '"-inf"';
  if (f32[0] === 0 && 1 / f32[0] < 0) return '-0.0';
  return String(f32[0]);  // the double's shortest form; it converts back to the same float32
}

function encodeOutput(dtype, shape, values) {
  const enc = dtype === 'float32' ? encodeFloat32 : dtype === 'bool' ? (v) => (v ? 'true' : 'false')
                                                                     : (v) => String(v);
  const parts = [];
  for (const v of values) parts.push(enc(v));
  return `{"dtype":${JSON.stringify(dtype)},"shape":${JSON.stringify(shape)},"data":[${parts.join(',')}]}`;
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
  const blockArr = block.values;
  const padArr = [];
  for (let i = 0; i + 1 < pads.values.length; i += 2) padArr.push([pads.values[i], pads.values[i + 1]]);
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
