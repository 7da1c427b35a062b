#!/usr/bin/env node
// TensorFlow.js (tfjs-core + the pure-JS cpu backend) behind opconform's subprocess protocol v1
// (docs/plugin-abi.md, section 2): SpaceToBatchND, BatchToSpaceND and DepthToSpace
// (tf.depthToSpace; tfjs has no spaceToDepth).
// Run: opconform validate --impl "exec:node adapters/tfjs/adapter.js"
// Logs go to stderr only; stdout carries length-prefixed JSON messages.
'use strict';

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const common = require('./common.js');

function manifest() {
  return {type: 'manifest', protocol: 1,
          name: `tfjs-core ${tf.version_core} cpu`, profile: 'tf-cpu',
          ops: [common.opCaps('SpaceToBatchND'), common.opCaps('BatchToSpaceND'),
                common.opCaps('DepthToSpace', {dtypes: ['float32'], min_rank: 0, min_block_dims: 0})]};
}

// tfjs's cpu DepthToSpace kernel loops over every (batch, output row, output column) before its
// innermost loop over the output depth, so an empty output (depth 0) with large dims costs
// N·H·b·W·b loop steps (about 3.5 ns each): [2^20, 2^20, 2^20, 0] with block 1024 is 2^80 of
// them, a hang. The kernel is wrapped where tfjs calls it, after tfjs-core's own checks, and
// when it would accept the data format and take more than LOOP_LIMIT steps, the adapter answers
// UNIMPLEMENTED ("adapter: ...") instead of running it: a failing outcome against any expected
// value or error, never a value tfjs did not compute.
const LOOP_LIMIT = 2 ** 30;  // about 4 s of the kernel's loops
const d2sKernel = tf.getKernel('DepthToSpace', 'cpu');
tf.unregisterKernel('DepthToSpace', 'cpu');
tf.registerKernel(Object.assign({}, d2sKernel, {kernelFunc: (args) => {
  const {shape} = args.inputs.x;
  const {blockSize, dataFormat} = args.attrs;
  if (dataFormat === 'NHWC') {
    const [n, h, w] = shape;
    const steps = n + n * h * blockSize + n * h * blockSize * w * blockSize;
    if (steps > LOOP_LIMIT) {
      throw common.codedError('UNIMPLEMENTED',
          `adapter: not run: tfjs's cpu DepthToSpace kernel would loop about ${steps} times ` +
          `(batch ${n} x output height ${h * blockSize} x output width ${w * blockSize}) for an output of ` +
          `${n * h * blockSize * w * blockSize * (shape[3] / (blockSize * blockSize))} elements`);
    }
  }
  return d2sKernel.kernelFunc(args);
}}));

// DepthToSpace: tf.depthToSpace(x, blockSize, dataFormat), the attrs passed as given.
function runDepthToSpace(c) {
  const input = c.inputs.input;
  if (!common.DATA_DTYPES.includes(input.dtype)) {
    throw common.codedError('UNIMPLEMENTED', `dtype ${input.dtype} is not supported by tfjs`);
  }
  const x = common.decodeTensor(input);
  const blockSize = common.decodeInt(c.attrs.block_size);
  return tf.tidy(() => {
    const y = tf.depthToSpace(tf.tensor(x.values, x.dims, x.dtype), blockSize, c.attrs.data_format);
    return `{"output":${common.encodeOutput(y.dtype, y.shape, y.dataSync())}}`;
  });
}

function run(c) {
  if (c.op === 'DepthToSpace') return runDepthToSpace(c);
  const {s2b, x, blockArr, padArr} = common.spaceBatchArgs(c);
  return tf.tidy(() => {
    const xt = tf.tensor(x.values, x.dims, x.dtype);
    const y = s2b ? tf.spaceToBatchND(xt, blockArr, padArr) : tf.batchToSpaceND(xt, blockArr, padArr);
    return `{"output":${common.encodeOutput(y.dtype, y.shape, y.dataSync())}}`;
  });
}

common.serve({manifest, run});
