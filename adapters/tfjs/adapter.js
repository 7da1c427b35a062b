#!/usr/bin/env node
// TensorFlow.js (tfjs-core + the pure-JS cpu backend) behind opconform's subprocess protocol v1
// (docs/plugin-abi.md, section 2): SpaceToBatchND and BatchToSpaceND.
// Run: opconform validate --impl "exec:node adapters/tfjs/adapter.js"
// Logs go to stderr only; stdout carries length-prefixed JSON messages.
'use strict';

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const common = require('./common.js');

function manifest() {
  return {type: 'manifest', protocol: 1,
          name: `tfjs-core ${tf.version_core} cpu`, profile: 'tf-cpu',
          ops: [common.opCaps('SpaceToBatchND'), common.opCaps('BatchToSpaceND')]};
}

function run(c) {
  const {s2b, x, blockArr, padArr} = common.spaceBatchArgs(c);
  return tf.tidy(() => {
    const xt = tf.tensor(x.values, x.dims, x.dtype);
    const y = s2b ? tf.spaceToBatchND(xt, blockArr, padArr) : tf.batchToSpaceND(xt, blockArr, padArr);
    return `{"output":${common.encodeOutput(y.dtype, y.shape, y.dataSync())}}`;
  });
}

common.serve({manifest, run});
