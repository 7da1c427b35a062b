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
