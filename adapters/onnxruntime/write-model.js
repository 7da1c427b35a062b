#!/usr/bin/env node
// Writes the ONNX model the adapter builds for a vector's case (the tf2onnx lowering), for a report:
//   node adapters/onnxruntime/write-model.js VECTOR.json OUT.onnx
// The graph's inputs are named as the case's inputs (input; indices_i, data_i; data, partitions).
'use strict';
const fs = require('fs');
const {caseModel} = require('./adapter.js');
const [vector, out] = process.argv.slice(2);
if (!vector || !out) { process.stderr.write('usage: write-model.js VECTOR.json OUT.onnx\n'); process.exit(2); }
fs.writeFileSync(out, caseModel(JSON.parse(fs.readFileSync(vector, 'utf8'))).bytes);
