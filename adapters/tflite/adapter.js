#!/usr/bin/env node
// TensorFlow Lite's builtin kernels (the WebAssembly runtime that @tensorflow/tfjs-tflite ships,
// tflite_web_api_cc.wasm) behind opconform's subprocess protocol v1 (docs/plugin-abi.md,
// section 2): SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace, each case a one-op
// .tflite model.
// Run: opconform validate --impl "exec:node adapters/tflite/adapter.js" --profile tflite
// Logs go to stderr only; stdout carries length-prefixed JSON messages.
//
// OPCONFORM_TFLITE_ZERO_POINT (default 0): the zero point written into the quantization
// parameters of int8 and uint8 tensors (scale 1); TFLite pads those with the output's zero point.
// OPCONFORM_TFLITE_PARAMS: "int32" (default) writes block_shape and paddings/crops as int32
// constants, as TensorFlow Lite's converter does (its SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND take
// int32 parameters; a value beyond int32 is answered by the adapter); "case" writes them in the
// case's dtype, int64 included, as a model written by other tools may.
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const common = require('../tfjs/common.js');
common.setLibraryName('TFLite');
const {buildModel} = require('./model.js');

const WASM_DIR = path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs-tflite', 'wasm');
const BINARY = 'tflite_web_api_cc';  // no SIMD, no threads: the plain build, one interpreter thread
const PACKAGE = require('@tensorflow/tfjs-tflite/package.json').version;
const ZERO_POINT = Number(process.env.OPCONFORM_TFLITE_ZERO_POINT || 0);
const PARAMS = process.env.OPCONFORM_TFLITE_PARAMS || 'int32';

// block_shape or paddings/crops as the model holds it: the case's tensor, or its values as int32.
function paramTensor(t, what) {
  if (PARAMS === 'case' || t.dtype === 'int32') return t;
  for (const e of t.data !== undefined ? t.data : [t.fill]) {
    const v = BigInt(e);
    if (v < -0x80000000n || v > 0x7fffffffn) {
      throw common.codedError('INVALID_ARGUMENT', `adapter: ${what} value ${v} does not fit the int32 a .tflite ${what} holds`);
    }
  }
  return Object.assign({}, t, {dtype: 'int32'});
}

// What the adapter can write into a .tflite tensor (schema.fbs TensorType); TFLite's kernels
// decide which of them they take.
// int64, uint16 and uint64 are left out: the web API's tensor info has no typed array for them
// (dataType "unknown", data() a number), so a case of those dtypes cannot be written or read.
const DTYPES = ['float32', 'float64', 'int8', 'int16', 'int32', 'uint8', 'uint32', 'bool'];
const ARRAYS = common.TYPED;
const QUANTIZED = ['int8', 'uint8'];

let runtime = null;
let tfliteErrors = [];  // what the runtime printed to stderr during the current case

// The emscripten loader is written for a browser or a worker (its Node branch is empty): given
// the .wasm bytes as Module.wasmBinary it needs neither fetch nor a document, and runs in Node.
async function load() {
  const src = fs.readFileSync(path.join(WASM_DIR, `${BINARY}.js`), 'utf8');
  const factory = vm.runInThisContext(`${src}\n;tflite_web_api_ModuleFactory`, {filename: `${BINARY}.js`});
  return factory({
    wasmBinary: fs.readFileSync(path.join(WASM_DIR, `${BINARY}.wasm`)),
    print: (text) => process.stderr.write(`tflite: ${text}\n`),
    printErr: (text) => { tfliteErrors.push(String(text)); process.stderr.write(`tflite: ${text}\n`); },
  });
}

// A vector tensor -> its dims (int32, as a .tflite shape holds them) and its bytes.
function tensorDims(t) {
  for (const d of t.shape) {
    if (BigInt(d) > 0x7fffffffn) throw common.codedError('INVALID_ARGUMENT', `adapter: dim ${d} does not fit the int32 of a .tflite shape`);
  }
  return common.decodeDims(t.shape);
}
function tensorBytes(t) {
  tensorDims(t);
  const {dims, values} = common.decodeTyped(t);
  return {dims, values, bytes: new Uint8Array(values.buffer, values.byteOffset, values.byteLength)};
}

// The runtime's tensor info -> a typed array of the dtype over the same bytes of the heap.
function heapView(info, dtype, count) {
  const data = info.data();
  return new ARRAYS[dtype](data.buffer, data.byteOffset, count);
}

function tensorInfos(vector) {
  const out = [];
  for (let i = 0; i < vector.size(); ++i) out.push(vector.get(i));
  vector.delete();
  return out;
}

function checkDtype(x) {
  if (!DTYPES.includes(x.dtype)) {
    throw common.codedError('UNIMPLEMENTED', ['int64', 'uint16', 'uint64'].includes(x.dtype)
        ? `adapter: the TFLite web API reads and writes no ${x.dtype} tensors`
        : `adapter: dtype ${x.dtype} has no .tflite tensor type`);
  }
}

// SpaceToDepth / DepthToSpace: the builtin and its options table (block_size:int). TFLite's
// builtins have no data_format: they are NHWC.
const DEPTH_SPACE = {
  SpaceToDepth: {op: 'SPACE_TO_DEPTH', table: 'SpaceToDepthOptions'},
  DepthToSpace: {op: 'DEPTH_TO_SPACE', table: 'DepthToSpaceOptions'},
};
const DATA_FORMATS = ['NHWC', 'NCHW', 'NCHW_VECT_C'];

function depthSpaceModel(c) {
  const {op, table} = DEPTH_SPACE[c.op];
  const x = c.inputs.input;
  checkDtype(x);
  const format = c.attrs.data_format;
  // A data_format outside the attr's allowed values cannot be in a TensorFlow graph (its
  // construction fails), so there is no model to convert: answered as that construction.
  if (!DATA_FORMATS.includes(format)) {
    throw common.codedError('INVALID_ARGUMENT', `adapter: data_format ${JSON.stringify(format)} is not one of TensorFlow's allowed values; no TensorFlow graph, so no .tflite model, can hold it`);
  }
  if (format !== 'NHWC') {
    throw common.codedError('UNIMPLEMENTED', `adapter: data_format ${format}: TFLite's ${op} is NHWC only (${table} has no data_format)`);
  }
  // block_size is passed as it is when it fits the table's int32 (TFLite does not check >= 2).
  const block = BigInt(c.attrs.block_size);
  if (block < -0x80000000n || block > 0x7fffffffn) {
    throw common.codedError('INVALID_ARGUMENT', `adapter: block_size ${block} does not fit the int32 of ${table}.block_size`);
  }
  const input = {dims: tensorDims(x)};
  const quant = QUANTIZED.includes(x.dtype) ? {scale: 1, zeroPoint: ZERO_POINT} : undefined;
  const model = buildModel({
    op,
    tensors: [
      {name: 'input', type: x.dtype, shape: input.dims, quant},
      {name: 'output', type: x.dtype, shape: null, quant},
    ],
    inputs: [0], outputs: [1],
    options: {table, ints: [Number(block)]},
  });
  return {model, x, input};
}

// A case -> its one-op .tflite model and what running it needs.
function caseModel(c) {
  if (DEPTH_SPACE[c.op]) return depthSpaceModel(c);
  if (!common.SPACE_BATCH_OPS.includes(c.op)) throw common.codedError('UNIMPLEMENTED', `op ${c.op} is not provided by this adapter`);
  const s2b = c.op === 'SpaceToBatchND';
  const x = c.inputs.input;
  const block = c.inputs.block_shape;
  const pads = s2b ? c.inputs.paddings : c.inputs.crops;
  checkDtype(x);
  for (const p of [block, pads]) {
    if (!common.PARAM_DTYPES.includes(p.dtype)) throw common.codedError('UNIMPLEMENTED', `adapter: parameter dtype ${p.dtype}`);
  }
  // The input's elements are decoded only once the model has passed Prepare.
  const input = {dims: tensorDims(x)};
  const blockModel = paramTensor(block, 'block_shape');
  const padsModel = paramTensor(pads, s2b ? 'paddings' : 'crops');
  const blockT = tensorBytes(blockModel);
  const padsT = tensorBytes(padsModel);
  const quant = QUANTIZED.includes(x.dtype) ? {scale: 1, zeroPoint: ZERO_POINT} : undefined;
  // block_shape and paddings/crops are constant tensors; the output's shape is left to the
  // kernel's Prepare.
  const model = buildModel({
    op: s2b ? 'SPACE_TO_BATCH_ND' : 'BATCH_TO_SPACE_ND',
    tensors: [
      {name: 'input', type: x.dtype, shape: input.dims, quant},
      {name: 'block_shape', type: blockModel.dtype, shape: blockT.dims, data: blockT.bytes},
      {name: s2b ? 'paddings' : 'crops', type: padsModel.dtype, shape: padsT.dims, data: padsT.bytes},
      {name: 'output', type: x.dtype, shape: null, quant},
    ],
    inputs: [0, 1, 2], outputs: [3],
  });
  return {model, x, input};
}

function run(c) {
  const {model, x, input} = caseModel(c);
  const m = runtime;
  tfliteErrors = [];
  const ptr = m._malloc(model.length);
  if (!ptr) throw common.codedError('RESOURCE_EXHAUSTED', `adapter: malloc of the ${model.length}-byte model failed`);
  let runner = null;
  try {
    m.HEAPU8.set(model, ptr);
    // Model verification, AllocateTensors (each kernel's Prepare, the output shape) happen here.
    const created = m.TFLiteWebModelRunner.CreateFromBufferAndOptions(ptr, model.length,
        {numThreads: 1, enableProfiling: false, maxProfilingBufferEntries: 1024});
    if (!created.ok()) {
      const message = String(created.errorMessage()).replace(/^INVALID_ARGUMENT: /, '');
      created.delete();
      throw common.codedError('INVALID_ARGUMENT', `${message}${tfliteErrors.length ? ` [${tfliteErrors.join(' | ')}]` : ''}`);
    }
    runner = created.value();
    created.delete();
    const [inInfo] = tensorInfos(runner.GetInputs());
    const {values} = tensorBytes(x);
    heapView(inInfo, x.dtype, values.length).set(values);
    inInfo.delete();
    if (!runner.Infer()) {
      // A dtype the kernel's Eval has no case for is TensorFlow's UNIMPLEMENTED (no kernel).
      const unsupportedType = tfliteErrors.some((e) => /is currently not supported by/.test(e));
      throw common.codedError(unsupportedType ? 'UNIMPLEMENTED' : 'INVALID_ARGUMENT',
                              `Infer() failed${tfliteErrors.length ? `: ${tfliteErrors.join(' | ')}` : ''}`);
    }
    const [outInfo] = tensorInfos(runner.GetOutputs());
    const dims = outInfo.shape === '' ? [] : String(outInfo.shape).split(',').map(Number);
    const dtype = String(outInfo.dataType);
    if (dtype !== x.dtype && !(dtype === 'bool' && x.dtype === 'bool')) {
      throw common.faultError(`TFLite output dtype ${dtype}, input ${x.dtype}`);
    }
    const count = common.elementCount(dims);
    const text = `{"output":${common.encodeTyped(x.dtype, dims, heapView(outInfo, x.dtype, count).slice())}}`;
    outInfo.delete();
    return text;
  } catch (err) {
    // A trap (an out-of-bounds access, an emscripten abort) leaves the module undefined: the
    // process ends as a native worker would and the validator records a crash.
    if (err instanceof WebAssembly.RuntimeError) {
      process.stderr.write(`TFLite wasm trapped: ${err.stack || err}\n`);
      process.exit(/Aborted\(OOM\)|Cannot enlarge memory/.test(String(err.message)) ? 86 : 70);
    }
    throw err;
  } finally {
    if (runner) { runner.CleanUp?.(); runner.delete(); }
    m._free(ptr);
  }
}

async function manifest() {
  runtime = await load();
  const ops = common.SPACE_BATCH_OPS.map((op) => common.opCaps(op, {dtypes: DTYPES}))
      .concat(Object.keys(DEPTH_SPACE).map((op) => common.opCaps(op, {dtypes: DTYPES, min_rank: 0, min_block_dims: 0})));
  return {type: 'manifest', protocol: 1,
          name: `TensorFlow Lite builtin kernels (@tensorflow/tfjs-tflite ${PACKAGE}, ${BINARY}.wasm)`,
          profile: 'tflite', ops,
          notes: {binary: `${BINARY}.wasm`, zero_point: ZERO_POINT, params: PARAMS,
                  model: 'one operator; block_shape and paddings/crops constant tensors; ' +
                         'SPACE_TO_DEPTH / DEPTH_TO_SPACE with block_size in their options table'}};
}

if (require.main === module) {
  common.serve({manifest, run});
} else {
  module.exports = {manifest, run, caseModel};
}
