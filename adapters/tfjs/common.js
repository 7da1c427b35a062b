// What the TensorFlow.js adapters share (adapters/tfjs, tfjs-wasm, tfjs-webgl): the element
// codec of the vector encoding (corpus/README.md, "Elements, bit-exact for every dtype") and the
// framing of opconform's subprocess protocol v1 (docs/plugin-abi.md, section 2). Nothing here
// loads tfjs: each adapter brings its own packages.
'use strict';

const DATA_DTYPES = ['float32', 'int32', 'bool'];
const PARAM_DTYPES = ['int32', 'int64'];
const SPACE_BATCH_OPS = ['SpaceToBatchND', 'BatchToSpaceND'];

// The library named in the adapter's own messages ("tfjs returned shape ..."); the TFLite and ONNX
// Runtime adapters set theirs.
let library = 'tfjs';
function setLibraryName(name) { library = name; }

// An error the adapter answers with a given code (the library's own errors get theirs from the
// adapter's mapping).
function codedError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

// --- element codec ---
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// Float32 elements travel as bit patterns (Uint32Array views), never as JS numbers: reading a
// signalling NaN into a double quiets it, and that would be the adapter's doing, not tfjs's.
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
    throw codedError('INVALID_ARGUMENT',
                     `adapter: integer ${e} is beyond 2^53, not exactly representable in the JS number ${library} takes`);
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

// A bool element is a byte 0 or 1 (or a JS boolean); any other byte is no bool, and is not
// passed on as `true`.
function encodeBool(v) {
  if (v === 1 || v === true) return 'true';
  if (v === 0 || v === false) return 'false';
  throw faultError(`bool output element with value ${v} (neither 0 nor 1)`);
}

// A tensor tfjs returned must be one: dims integers in [0, 2^63), TensorShape's element count
// (the running product, dim by dim) within int64, and as many values as that count. One that
// is not is answered as a fault here, with what is wrong: the validator would judge it a fault
// too (a malformed result), but would then restart the program, which for the WebGL adapter
// means a new browser.
const INT64_MAX = (1n << 63n) - 1n;
function checkOutputShape(shape, length) {
  const text = `[${shape.map((d) => (Number.isInteger(d) ? String(BigInt(d)) : String(d))).join(',')}]`;
  let count = 1n;
  for (const d of shape) {
    if (!Number.isInteger(d)) throw faultError(`${library} returned shape ${text}: the dim ${d} is not an integer`);
    if (d < 0) throw faultError(`${library} returned shape ${text}: negative dim ${d}`);
    if (BigInt(d) > INT64_MAX) throw faultError(`${library} returned shape ${text}: the dim ${BigInt(d)} is beyond int64`);
    count *= BigInt(d);
    if (count > INT64_MAX) throw faultError(`${library} returned shape ${text}: its element count overflows int64`);
  }
  if (BigInt(length) !== count) {
    throw faultError(`${library} returned ${length} elements for shape ${text} (${count} elements)`);
  }
}

function encodeOutput(dtype, shape, values) {
  checkOutputShape(shape, values.length);
  let parts;
  if (dtype === 'float32') {
    const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
    parts = Array.from(bits, encodeFloat32Bits);
  } else {
    parts = Array.from(values, dtype === 'bool' ? encodeBool : (v) => String(v));
  }
  return `{"dtype":${JSON.stringify(dtype)},"shape":[${shape.map(encodeDim).join(',')}],` +
         `"data":[${parts.join(',')}]}`;
}

// --- typed arrays for every fixed-width dtype (the TFLite and ONNX Runtime adapters) ---
// float32 and float64 travel as their bits (Uint32Array / BigUint64Array views), int64 and
// uint64 as BigInts, bool as bytes 0/1.
const TYPED = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, int16: Int16Array, int32: Int32Array,
  int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  bool: Uint8Array,
};
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
function float64Bits(e) {
  if (typeof e === 'number') { f64[0] = e; return u64[0]; }
  if (e === 'inf') return 0x7ff0000000000000n;
  if (e === '-inf') return 0xfff0000000000000n;
  if (e === 'nan') return 0x7ff8000000000000n;
  if (typeof e === 'string' && e.startsWith('0x')) return BigInt(e);
  throw new Error(`bad float64 element ${JSON.stringify(e)}`);
}
function encodeFloat64Bits(bits) {
  if (bits === 0x7ff0000000000000n) return '"inf"';
  if (bits === 0xfff0000000000000n) return '"-inf"';
  if ((bits & 0x7ff0000000000000n) === 0x7ff0000000000000n) {
    return bits === 0x7ff8000000000000n ? '"nan"' : `"0x${bits.toString(16).padStart(16, '0')}"`;
  }
  if (bits === 0x8000000000000000n) return '-0.0';
  u64[0] = bits;
  return String(f64[0]);
}

// A vector tensor of a fixed-width dtype -> {dtype, dims (JS numbers), values (the dtype's
// typed array)}; null for a dtype without one.
function decodeTyped(t, maxElements = 1e8) {
  const Typed = TYPED[t.dtype];
  if (!Typed) return null;
  const dims = decodeDims(t.shape);
  const n = elementCount(dims);
  if (n > maxElements) throw codedError('RESOURCE_EXHAUSTED', `adapter: tensor of ${n} elements`);
  const values = new Typed(n);
  const raw = t.dtype === 'float32' ? new Uint32Array(values.buffer)
            : t.dtype === 'float64' ? new BigUint64Array(values.buffer) : values;
  for (let i = 0; i < n; ++i) {
    const e = t.data !== undefined ? t.data[i] : t.fill;
    if (t.dtype === 'float32') raw[i] = float32Bits(e);
    else if (t.dtype === 'float64') raw[i] = float64Bits(e);
    else if (t.dtype === 'bool') raw[i] = e === true ? 1 : 0;
    else if (Typed === BigInt64Array || Typed === BigUint64Array) raw[i] = BigInt(e);
    else raw[i] = Number(BigInt(e));
  }
  return {dtype: t.dtype, dims, values};
}

// A typed array of a fixed-width dtype -> the vector encoding of the tensor.
function encodeTyped(dtype, shape, values) {
  if (dtype === 'float64') {
    checkOutputShape(shape, values.length);
    const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
    return `{"dtype":"float64","shape":[${shape.map(encodeDim).join(',')}],` +
           `"data":[${Array.from(bits, encodeFloat64Bits).join(',')}]}`;
  }
  return encodeOutput(dtype, shape, dtype === 'float32' ? values : Array.from(values));
}

// --- the ops' arguments ---
function toParams(t, what) {
  if (!PARAM_DTYPES.includes(t.dtype)) {
    throw codedError('UNIMPLEMENTED', `${what} must be int32 or int64, got ${t.dtype}`);
  }
  return decodeTensor(t);
}

// A SpaceToBatchND / BatchToSpaceND case -> what the tfjs API takes: the input decoded, block
// and paddings/crops as plain JS arrays ([m] and [[before, after], ...], nested as the case's
// tensors are shaped).
function spaceBatchArgs(c) {
  if (!SPACE_BATCH_OPS.includes(c.op)) {
    throw codedError('UNIMPLEMENTED', `op ${c.op} is not provided by this adapter`);
  }
  const s2b = c.op === 'SpaceToBatchND';
  const input = c.inputs.input;
  if (!DATA_DTYPES.includes(input.dtype)) {
    throw codedError('UNIMPLEMENTED', `dtype ${input.dtype} is not supported by tfjs`);
  }
  const block = toParams(c.inputs.block_shape, 'block_shape');
  const pads = toParams(s2b ? c.inputs.paddings : c.inputs.crops, s2b ? 'paddings' : 'crops');
  const blockArr = nest(Array.from(block.values), block.dims);
  const padArr = nest(Array.from(pads.values), pads.dims);
  return {s2b, x: decodeTensor(input), blockArr, padArr};
}

function opCaps(op, extra) {
  return Object.assign({op, dtypes: DATA_DTYPES, param_dtypes: PARAM_DTYPES,
                        min_rank: 1, max_rank: null, min_block_dims: 1, max_block_dims: null}, extra);
}

// tfjs reports bad arguments by throwing; they are passed on as INVALID_ARGUMENT (a RangeError,
// an allocation that failed, as RESOURCE_EXHAUSTED) unless the adapter gave the error a code.
function defaultCode(err) {
  return (err && err.code) || (err instanceof RangeError ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT');
}

// --- framing: 4-byte little-endian length, then UTF-8 JSON ---
function send(body) {
  const bytes = Buffer.from(body, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(bytes.length, 0);
  process.stdout.write(Buffer.concat([head, bytes]));
}

// Serves the protocol on stdin/stdout. `manifest()` -> the manifest object (may return a
// promise); `run(case)` -> the JSON text of the case's `outputs` object (may return a promise);
// `codeOf(err)` -> the status code of an error `run` threw; `onEnd()` runs when stdin closes,
// before the exit. Messages are handled one at a time, in order.
function serve({manifest, run, codeOf = defaultCode, onEnd = async () => {}}) {
  let pending = Buffer.alloc(0);
  let queue = Promise.resolve();
  const handle = async (msg) => {
    if (msg.type === 'hello') {
      let m;
      try {
        m = await manifest();
      } catch (err) {
        send(JSON.stringify({type: 'error', message: String(err && err.message !== undefined ? err.message : err)}));
        await onEnd();
        process.exit(1);
      }
      send(JSON.stringify(m));
    } else if (msg.type === 'run') {
      const head = `{"type":"result","id":${JSON.stringify(msg.id)},`;
      try {
        send(`${head}"outputs":${await run(msg.case)}}`);
      } catch (err) {
        if (err && err.fault) {
          send(`${head}"fault":${JSON.stringify(String(err.message))}}`);
          return;
        }
        const message = String(err && err.message !== undefined ? err.message : err);
        send(`${head}"error":${JSON.stringify({code: codeOf(err), message})}}`);
      }
    } else {
      process.stderr.write(`ignoring message of type ${msg.type}\n`);
    }
  };
  process.stdin.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const n = pending.readUInt32LE(0);
      if (pending.length < 4 + n) break;
      const msg = JSON.parse(pending.subarray(4, 4 + n).toString('utf8'));
      pending = pending.subarray(4 + n);
      queue = queue.then(() => handle(msg));
    }
  });
  process.stdin.on('end', () => {
    queue = queue.then(onEnd).then(() => process.exit(0), (err) => {
      process.stderr.write(`${err && err.stack || err}\n`);
      process.exit(1);
    });
  });
}

// An answer that is not a well-formed result (the protocol's `fault`).
function faultError(message) {
  const e = new Error(message);
  e.fault = true;
  return e;
}

module.exports = {
  DATA_DTYPES, PARAM_DTYPES, SPACE_BATCH_OPS, codedError, faultError, float32Bits, decodeInt,
  decodeDims, elementCount, decodeTensor, nest, encodeFloat32Bits, encodeDim, encodeOutput,
  toParams, spaceBatchArgs, opCaps, defaultCode, send, serve, TYPED, decodeTyped, encodeTyped, setLibraryName,
};
