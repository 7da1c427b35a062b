#!/usr/bin/env node
// Writes the one-op .tflite model the adapter builds for a vector's case, for a report:
//   node adapters/tflite/write-model.js VECTOR.json OUT.tflite
// (OPCONFORM_TFLITE_ZERO_POINT and OPCONFORM_TFLITE_PARAMS apply as in the adapter.)
'use strict';
const fs = require('fs');
const {caseModel} = require('./adapter.js');
const [vector, out] = process.argv.slice(2);
if (!vector || !out) { process.stderr.write('usage: write-model.js VECTOR.json OUT.tflite\n'); process.exit(2); }
fs.writeFileSync(out, caseModel(JSON.parse(fs.readFileSync(vector, 'utf8'))).model);
