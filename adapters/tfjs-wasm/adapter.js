#!/usr/bin/env node
// TensorFlow.js (tfjs-core + the WebAssembly backend, tfjs-backend-wasm) behind opconform's
// subprocess protocol v1 (docs/plugin-abi.md, section 2): SpaceToBatchND and BatchToSpaceND,
// where the backend registers them.
// Run: opconform validate --impl "exec:node adapters/tfjs-wasm/adapter.js"
// Logs go to stderr only; stdout carries length-prefixed JSON messages.
'use strict';

const tf = require('@tensorflow/tfjs-core');
const wasm = require('@tensorflow/tfjs-backend-wasm');
const common = require('../tfjs/common.js');

let binary = '';

async function manifest() {
  // The .wasm files ship in the npm package, next to its JS; Node reads them from there.
  if (!(await tf.setBackend('wasm')) || tf.getBackend() !== 'wasm') {
    throw new Error('tfjs-backend-wasm did not initialise');
  }
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  binary = `tfjs-backend-wasm${simd && threads ? '-threaded-simd' : simd ? '-simd' : ''}.wasm`;
  // What the backend registers: an op without a wasm kernel is not listed.
  const ops = common.SPACE_BATCH_OPS.filter((op) => tf.getKernel(op, 'wasm') !== undefined)
                  .map((op) => common.opCaps(op));
  return {type: 'manifest', protocol: 1,
          name: `tfjs-core ${tf.version_core} wasm (tfjs-backend-wasm ${wasm.version_wasm}, ${binary})`,
          profile: 'tf-cpu', ops,
          notes: {backend: 'wasm', binary, simd, threads,
                  registered: common.SPACE_BATCH_OPS.filter((op) => tf.getKernel(op, 'wasm') !== undefined)}};
}

function run(c) {
  const {s2b, x, blockArr, padArr} = common.spaceBatchArgs(c);
  try {
    return tf.tidy(() => {
      const xt = tf.tensor(x.values, x.dims, x.dtype);
      const y = s2b ? tf.spaceToBatchND(xt, blockArr, padArr) : tf.batchToSpaceND(xt, blockArr, padArr);
      return `{"output":${common.encodeOutput(y.dtype, y.shape, y.dataSync())}}`;
    });
  } catch (err) {
    // A trap in the WebAssembly code (an out-of-bounds access, an emscripten abort) is this
    // backend's crash: the module's state after it is undefined, so the process ends as a native
    // library's worker would, and the validator records a crash (an abort for memory,
    // out-of-memory: exit 86) and starts a fresh one.
    if (err instanceof WebAssembly.RuntimeError) {
      process.stderr.write(`tfjs-backend-wasm trapped: ${err.stack || err}\n`);
      process.exit(/Aborted\(OOM\)|Cannot enlarge memory/.test(String(err.message)) ? 86 : 70);
    }
    throw err;
  }
}

common.serve({manifest, run});
