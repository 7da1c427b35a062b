#!/usr/bin/env node
// ONNX Runtime (onnxruntime-node, CPU execution provider) behind opconform's subprocess protocol
// v1 (docs/plugin-abi.md, section 2). Each case becomes the ONNX graph that the TensorFlow-to-ONNX
// converter tf2onnx (onnx/tensorflow-onnx, tf2onnx/onnx_opset/tensor.py) emits for the TensorFlow
// op, built here from the converter's rules (opset 18), and ONNX Runtime runs it:
//
// - SpaceToBatchND / BatchToSpaceND: for an input of rank 3 or 4 with a square two-dim block
//   (block_shape [b, b]), Transpose, Pad / Slice around the native SpaceToDepth / DepthToSpace
//   (the "SpaceToDepth form"); otherwise Pad, Reshape, Transpose, Reshape (the general form,
//   BatchToSpaceND with a Slice for the crops). block_shape is a constant, folded into the graph
//   as the converter folds it; paddings/crops are constant initializers of the case's dtype.
//   OPCONFORM_ORT_FORM=general uses the general form for every case.
// - DynamicStitch / ParallelDynamicStitch: Concat of the (rank-1) indices, Cast to int64,
//   Concat of the data, Unsqueeze + Expand of the indices to the data's shape, and
//   ScatterElements(axis 0) into ConstantOfShape(shape of the concatenated data).
// - DynamicPartition: Equal(partitions, [[0], ..., [P-1]]), Cast to int32, Split into P rows,
//   then per partition Cast to bool, Squeeze, Compress(data, axis 0).
// - SpaceToDepth / DepthToSpace: the native ONNX op (blocksize = block_size, DepthToSpace in
//   its default DCR mode), between Transposes to and from NCHW for an NHWC data_format.
//
// Where the converter refuses a case (its make_sure checks), the adapter answers UNIMPLEMENTED
// with a message starting "tf2onnx:".
// Run: opconform validate --impl "exec:node adapters/onnxruntime/adapter.js"
'use strict';

const ort = require('onnxruntime-node');
const common = require('../tfjs/common.js');
common.setLibraryName('ONNX Runtime');
const onnx = require('./onnx.js');

const OPSET = 18;
const FORM = process.env.OPCONFORM_ORT_FORM || 'converter';
const DTYPES = ['float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'bool'];
const INT64_MAX = (1n << 63n) - 1n;

function unsupported(message) { return common.codedError('UNIMPLEMENTED', `tf2onnx: ${message}`); }

function typed(t) {
  const x = common.decodeTyped(t);
  if (!x) throw common.codedError('UNIMPLEMENTED', `adapter: dtype ${t.dtype} has no ONNX tensor type here`);
  return x;
}

function initializer(name, t) {
  return onnx.tensor(name, t.dtype, t.dims, t.values);
}

// block_shape as the converter reads it (get_tensor_value): a list of integers.
function constList(t) { return Array.from(t.values, (v) => Number(v)); }

// --- SpaceToBatchND / BatchToSpaceND ---
function spaceBatchGraph(c) {
  const s2b = c.op === 'SpaceToBatchND';
  const x = typed(c.inputs.input);
  const block = typed(c.inputs.block_shape);
  const pads = typed(s2b ? c.inputs.paddings : c.inputs.crops);
  for (const p of [block, pads]) {
    if (!common.PARAM_DTYPES.includes(p.dtype)) throw common.codedError('UNIMPLEMENTED', `adapter: parameter dtype ${p.dtype}`);
  }
  const blockShape = constList(block);
  const M = blockShape.length;
  const rank = x.dims.length;
  const nodes = [];
  const inits = [];
  const c64 = (name, values, dims) => { inits.push(onnx.int64Tensor(name, values, dims)); return name; };
  const squareForm = FORM !== 'general' && (rank === 3 || rank === 4) && M === 2 && blockShape[0] === blockShape[1];
  inits.push(initializer('pads_param', pads));
  let form;
  if (squareForm) {
    form = 'space-to-depth';
    // The converter reads constant paddings/crops as [[top, bottom], [left, right]].
    const p = Array.from(pads.values, (v) => BigInt(v));
    if (pads.values.length !== 4) throw unsupported('paddings/crops of a square block must be [[top, bottom], [left, right]]');
    let t1;
    if (rank === 3) {
      nodes.push(onnx.node('Unsqueeze', ['input', c64('axis3', [3])], ['unsq']));
      nodes.push(onnx.node('Transpose', ['unsq'], ['t1'], {perm: [3, 0, 1, 2]}));
    } else {
      nodes.push(onnx.node('Transpose', ['input'], ['nchw'], {perm: [0, 3, 1, 2]}));
      nodes.push(onnx.node('Transpose', ['nchw'], ['t1'], {perm: [1, 0, 2, 3]}));
    }
    t1 = 't1';
    let reorganized;
    if (s2b) {
      const [top, bottom, left, right] = p;
      nodes.push(onnx.node('Pad', [t1, c64('pads', [0, 0, top, left, 0, 0, bottom, right])], ['padded']));
      nodes.push(onnx.node('SpaceToDepth', ['padded'], ['reorg'], {blocksize: blockShape[0]}));
      reorganized = 'reorg';
    } else {
      nodes.push(onnx.node('DepthToSpace', [t1], ['reorg'], {blocksize: blockShape[0]}));
      const [top, bottom, left, right] = p;
      const ends = [bottom, right].map((e) => (e !== 0n ? -e : 2147483647n));
      nodes.push(onnx.node('Slice', ['reorg', c64('starts', [top, left]), c64('ends', ends), c64('axes', [2, 3])], ['sliced']));
      reorganized = 'sliced';
    }
    if (rank === 3) {
      nodes.push(onnx.node('Transpose', [reorganized], ['t2'], {perm: [1, 2, 3, 0]}));
      nodes.push(onnx.node('Squeeze', ['t2', c64('axis3b', [3])], ['output']));
    } else {
      nodes.push(onnx.node('Transpose', [reorganized], ['t2'], {perm: [1, 0, 2, 3]}));
      nodes.push(onnx.node('Transpose', ['t2'], ['output'], {perm: [0, 2, 3, 1]}));
    }
  } else if (s2b) {
    form = 'general';
    const xlen = rank;
    c64('int_max', [INT64_MAX]); c64('zero', [0]); c64('one', [1]); c64('minus1', [-1]);
    c64('blocklen_resize', [-1, M]); c64('blocklenplus1', [M + 1]);
    c64('filltop', [1, 0, 0, 0]); c64('fillbottom', [0, 0, 1, 0]); c64('block', blockShape);
    nodes.push(onnx.node('Shape', ['input'], ['x_shape']));
    nodes.push(onnx.node('Size', ['x_shape'], ['x_rank']));
    nodes.push(onnx.node('Cast', ['pads_param'], ['pad'], {to: onnx.ONNX_TYPE.int64}));
    nodes.push(onnx.node('Shape', ['pad'], ['pad_shape']));
    nodes.push(onnx.node('Slice', ['pad_shape', 'zero', 'one'], ['pad_rank']));
    nodes.push(onnx.node('Sub', ['x_rank', 'pad_rank'], ['pad_gap']));
    nodes.push(onnx.node('Sub', ['pad_gap', 'one'], ['gapminus1']));
    nodes.push(onnx.node('Mul', ['fillbottom', 'gapminus1'], ['gapminus1fillbot']));
    nodes.push(onnx.node('Pad', ['pad', 'filltop'], ['padfilltop']));
    nodes.push(onnx.node('Pad', ['padfilltop', 'gapminus1fillbot'], ['padfilltopbottom']));
    nodes.push(onnx.node('Transpose', ['padfilltopbottom'], ['pad_t']));
    nodes.push(onnx.node('Reshape', ['pad_t', 'minus1'], ['pad1d']));
    nodes.push(onnx.node('Pad', ['input', 'pad1d'], ['x1']));
    nodes.push(onnx.node('Shape', ['x1'], ['x1_shape']));
    nodes.push(onnx.node('Slice', ['x1_shape', 'one', 'blocklenplus1'], ['spatial']));
    nodes.push(onnx.node('Slice', ['x1_shape', 'blocklenplus1', 'int_max'], ['depth']));
    nodes.push(onnx.node('Div', ['spatial', 'block'], ['reduced']));
    nodes.push(onnx.node('Concat', ['reduced', 'block'], ['ccat1'], {axis: 0}));
    nodes.push(onnx.node('Reshape', ['ccat1', 'blocklen_resize'], ['reshape1']));
    nodes.push(onnx.node('Transpose', ['reshape1'], ['tr1']));
    nodes.push(onnx.node('Reshape', ['tr1', 'minus1'], ['interleave']));
    nodes.push(onnx.node('Concat', ['minus1', 'interleave', 'depth'], ['shape1'], {axis: 0}));
    nodes.push(onnx.node('Reshape', ['x1', 'shape1'], ['x2']));
    const perm = [];
    for (let i = 2; i <= 2 * M; i += 2) perm.push(i);
    perm.push(0);
    for (let i = 1; i <= 2 * M; i += 2) perm.push(i);
    for (let i = 1 + 2 * M; i < xlen + M; ++i) perm.push(i);
    nodes.push(onnx.node('Transpose', ['x2'], ['tr2'], {perm}));
    nodes.push(onnx.node('Concat', ['minus1', 'reduced', 'depth'], ['shape2'], {axis: 0}));
    nodes.push(onnx.node('Reshape', ['tr2', 'shape2'], ['output']));
  } else {
    form = 'general';
    const xlen = rank;
    c64('int_max', [INT64_MAX]); c64('one', [1]); c64('minus1', [-1]);
    c64('blocklen_resize', [-1, M]); c64('blocklenplus1', [M + 1]); c64('block', blockShape);
    nodes.push(onnx.node('Shape', ['input'], ['x_shape']));
    nodes.push(onnx.node('Slice', ['x_shape', 'one', 'blocklenplus1'], ['spatial']));
    nodes.push(onnx.node('Slice', ['x_shape', 'blocklenplus1', 'int_max'], ['depth']));
    nodes.push(onnx.node('Mul', ['spatial', 'block'], ['target_spatial']));
    nodes.push(onnx.node('Concat', ['spatial', 'block'], ['ccat1'], {axis: 0}));
    nodes.push(onnx.node('Reshape', ['ccat1', 'blocklen_resize'], ['re1']));
    nodes.push(onnx.node('Transpose', ['re1'], ['tr1']));
    nodes.push(onnx.node('Reshape', ['tr1', 'minus1'], ['interleave']));
    nodes.push(onnx.node('Concat', ['minus1', 'interleave', 'depth'], ['shape1'], {axis: 0}));
    const g = [];
    for (let i = 2; i <= 2 * M; i += 2) g.push(i);
    g.push(0);
    for (let i = 1; i <= 2 * M; i += 2) g.push(i);
    for (let i = 1 + 2 * M; i < xlen + M; ++i) g.push(i);
    inits.push(onnx.int64Tensor('gather_idx', g));
    nodes.push(onnx.node('Gather', ['shape1', 'gather_idx'], ['gathered']));
    nodes.push(onnx.node('Reshape', ['input', 'gathered'], ['x2']));
    const p = [];
    for (let i = 0; i < xlen + M; ++i) p.push(i);
    p[0] = M; p[1] = M + 1; p[2] = 0;
    for (let i = 3; i < 2 * M + 1; ++i) p[i] = p[i - 2] + 1;
    nodes.push(onnx.node('Transpose', ['x2'], ['tr2'], {perm: p}));
    nodes.push(onnx.node('Concat', ['minus1', 'target_spatial', 'depth'], ['shape2'], {axis: 0}));
    nodes.push(onnx.node('Reshape', ['tr2', 'shape2'], ['x3']));
    c64('s_starts1', [0, 0]); c64('s_starts2', [1, INT64_MAX]); c64('s_ends1', [1, 0]); c64('s_ends2', [2, INT64_MAX]);
    c64('crop_axes', Array.from({length: M}, (_, i) => i + 1));
    c64('axis0', [0]);
    nodes.push(onnx.node('Cast', ['pads_param'], ['crop'], {to: onnx.ONNX_TYPE.int64}));
    nodes.push(onnx.node('Transpose', ['crop'], ['crop_t']));
    nodes.push(onnx.node('Slice', ['crop_t', 's_starts1', 's_starts2'], ['crop_starts']));
    nodes.push(onnx.node('Slice', ['crop_t', 's_ends1', 's_ends2'], ['crop_ends']));
    nodes.push(onnx.node('Squeeze', ['crop_starts', 'axis0'], ['crop_starts_sq']));
    nodes.push(onnx.node('Squeeze', ['crop_ends', 'axis0'], ['crop_ends_sq']));
    nodes.push(onnx.node('Sub', ['target_spatial', 'crop_ends_sq'], ['end_range']));
    nodes.push(onnx.node('Slice', ['x3', 'crop_starts_sq', 'end_range', 'crop_axes'], ['output']));
  }
  return {form, feeds: {input: x}, nodes, inits, outputs: [['output', x.dtype]], dtype: x.dtype};
}

// --- DynamicStitch / ParallelDynamicStitch ---
function stitchGraph(c) {
  const indices = c.inputs.indices.map(typed);
  const data = c.inputs.data.map(typed);
  // A TensorFlow graph cannot hold these (the op's attribute N types both lists), so there is
  // nothing to convert; answered as TensorFlow's graph construction would.
  if (indices.length !== data.length || indices.length < 1) {
    throw common.codedError('INVALID_ARGUMENT', `adapter: ${indices.length} indices and ${data.length} data inputs (DynamicStitch's N must match and be >= 1)`);
  }
  if (!indices.every((t) => t.dims.length === 1)) throw unsupported('DynamicStitch only implemented for index tensors of rank 1');
  const dtype = data[0].dtype;
  const dataRank = data[0].dims.length;
  const nodes = [];
  const inits = [];
  const feeds = {};
  indices.forEach((t, i) => { feeds[`indices_${i}`] = t; });
  data.forEach((t, i) => { feeds[`data_${i}`] = t; });
  nodes.push(onnx.node('Concat', indices.map((_, i) => `indices_${i}`), ['concat_indices'], {axis: 0}));
  nodes.push(onnx.node('Cast', ['concat_indices'], ['indices64'], {to: onnx.ONNX_TYPE.int64}));
  nodes.push(onnx.node('Concat', data.map((_, i) => `data_${i}`), ['concat_data'], {axis: 0}));
  nodes.push(onnx.node('Shape', ['concat_data'], ['data_shape']));
  let unsq = 'indices64';
  if (dataRank > 1) {
    inits.push(onnx.int64Tensor('unsq_axes', Array.from({length: dataRank - 1}, (_, i) => i + 1)));
    nodes.push(onnx.node('Unsqueeze', ['indices64', 'unsq_axes'], ['unsq_indices']));
    unsq = 'unsq_indices';
  }
  nodes.push(onnx.node('Expand', [unsq, 'data_shape'], ['expanded']));
  const zero = onnx.tensor('value', dtype, [1], new common.TYPED[dtype](1));
  nodes.push(onnx.node('ConstantOfShape', ['data_shape'], ['zeros'], {value: zero}));
  nodes.push(onnx.node('ScatterElements', ['zeros', 'expanded', 'concat_data'], ['merged'], {axis: 0}));
  return {form: 'scatter-elements', feeds, nodes, inits, outputs: [['merged', dtype]], dtype};
}

// --- DynamicPartition ---
function partitionGraph(c) {
  const data = typed(c.inputs.data);
  const partitions = typed(c.inputs.partitions);
  const P = Number(BigInt(c.attrs.num_partitions));
  if (!(P >= 1 && P <= 0x7fffffff)) throw common.codedError('INVALID_ARGUMENT', `adapter: num_partitions ${P} is not an int32 >= 1`);
  if (partitions.dims.length !== 1) throw unsupported('DynamicPartition only implemented for partitions of rank 1');
  if (P > 4096) throw common.codedError('UNIMPLEMENTED', `adapter: num_partitions ${P} (the graph has one output per partition)`);
  const nodes = [];
  const inits = [onnx.tensor('range_const', partitions.dtype, [P, 1], common.TYPED[partitions.dtype].from(
      Array.from({length: P}, (_, i) => (partitions.dtype === 'int64' ? BigInt(i) : i))))];
  inits.push(onnx.int64Tensor('axis0', [0]));
  nodes.push(onnx.node('Equal', ['partitions', 'range_const'], ['eq']));
  nodes.push(onnx.node('Cast', ['eq'], ['eq_int32'], {to: onnx.ONNX_TYPE.int32}));
  const splits = Array.from({length: P}, (_, i) => `split_${i}`);
  nodes.push(onnx.node('Split', ['eq_int32'], splits, {axis: 0, num_outputs: P}));
  const outputs = [];
  for (let i = 0; i < P; ++i) {
    nodes.push(onnx.node('Cast', [`split_${i}`], [`cond_${i}`], {to: onnx.ONNX_TYPE.bool}));
    nodes.push(onnx.node('Squeeze', [`cond_${i}`, 'axis0'], [`sq_${i}`]));
    nodes.push(onnx.node('Compress', ['data', `sq_${i}`], [`out_${i}`], {axis: 0}));
    outputs.push([`out_${i}`, data.dtype]);
  }
  return {form: 'compress', feeds: {data, partitions}, nodes, inits, outputs, dtype: data.dtype};
}

// --- SpaceToDepth / DepthToSpace ---
// tf2onnx (onnx_opset/nn.py, SpaceToDepth / DepthToSpace with conv_convert_inputs): the native
// ONNX op with blocksize = block_size as given (no mode attribute: DepthToSpace's default, DCR,
// is TensorFlow's order), and for a channels-last data_format (one not starting with "NC")
// Transposes [0, 3, 1, 2] before and [0, 2, 3, 1] after; for NCHW and NCHW_VECT_C none.
const DATA_FORMATS = ['NHWC', 'NCHW', 'NCHW_VECT_C'];
function depthSpaceGraph(c) {
  const x = typed(c.inputs.input);
  const format = c.attrs.data_format;
  // A data_format outside the attr's allowed values cannot be in a TensorFlow graph (its
  // construction fails), so there is nothing to convert: answered as that construction.
  if (!DATA_FORMATS.includes(format)) {
    throw common.codedError('INVALID_ARGUMENT', `adapter: data_format ${JSON.stringify(format)} is not one of TensorFlow's allowed values; no TensorFlow graph can hold it`);
  }
  const blocksize = BigInt(c.attrs.block_size);
  const nodes = [];
  if (format.startsWith('NC')) {
    nodes.push(onnx.node(c.op, ['input'], ['output'], {blocksize}));
  } else {
    nodes.push(onnx.node('Transpose', ['input'], ['nchw'], {perm: [0, 3, 1, 2]}));
    nodes.push(onnx.node(c.op, ['nchw'], ['reorg'], {blocksize}));
    nodes.push(onnx.node('Transpose', ['reorg'], ['output'], {perm: [0, 2, 3, 1]}));
  }
  return {form: format.startsWith('NC') ? 'native' : 'transposed', feeds: {input: x}, nodes, inits: [],
          outputs: [['output', x.dtype]], dtype: x.dtype};
}

const GRAPHS = {
  SpaceToDepth: depthSpaceGraph, DepthToSpace: depthSpaceGraph,
  SpaceToBatchND: spaceBatchGraph, BatchToSpaceND: spaceBatchGraph,
  DynamicStitch: stitchGraph, ParallelDynamicStitch: stitchGraph, DynamicPartition: partitionGraph,
};

function ortTensor(t) {
  const type = t.dtype === 'float32' ? 'float32' : t.dtype;
  return new ort.Tensor(type, t.values, t.dims);
}

function outputText(name, t) {
  const dtype = t.type;
  if (!common.TYPED[dtype]) throw common.faultError(`ONNX Runtime returned ${name} of type ${dtype}`);
  return common.encodeTyped(dtype, Array.from(t.dims, Number), t.data);
}

// ONNX Runtime's error text -> a status code: a missing kernel is UNIMPLEMENTED, an allocation
// that failed RESOURCE_EXHAUSTED, everything else INVALID_ARGUMENT. onnxruntime-node's binding
// refuses an input dim above 2^32 - 1 with a RangeError ("Tensor.dims[1] is invalid: 4.29497e+09")
// before the runtime sees it: an argument it cannot take, INVALID_ARGUMENT, not a memory limit.
function codeOf(err) {
  if (err && err.code) return err.code;
  const m = String(err && err.message);
  if (/NOT_IMPLEMENTED|Could not find an implementation/.test(m)) return 'UNIMPLEMENTED';
  if (/^Tensor\.dims\[\d+\] is invalid/.test(m)) return 'INVALID_ARGUMENT';
  if (/bad_alloc|Failed to allocate|Invalid typed array length|Array buffer allocation failed/.test(m) || err instanceof RangeError) return 'RESOURCE_EXHAUSTED';
  return 'INVALID_ARGUMENT';
}

// A case -> its graph (g) and the serialized ONNX model.
function caseModel(c) {
  const build = GRAPHS[c.op];
  if (!build) throw common.codedError('UNIMPLEMENTED', `op ${c.op} is not provided by this adapter`);
  const g = build(c);
  const inputs = Object.entries(g.feeds).map(([name, t]) => onnx.valueInfo(name, t.dtype, t.dims));
  const outputs = g.outputs.map(([name, dtype]) => onnx.valueInfo(name, dtype, null));
  return {g, bytes: onnx.model({nodes: g.nodes, initializers: g.inits, inputs, outputs, opset: OPSET})};
}

async function run(c) {
  const {g, bytes} = caseModel(c);
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3,
  });
  try {
    const feeds = {};
    for (const [name, t] of Object.entries(g.feeds)) feeds[name] = ortTensor(t);
    const result = await session.run(feeds);
    if (c.op === 'DynamicPartition') {
      return `{"outputs":[${g.outputs.map(([name]) => outputText(name, result[name])).join(',')}]}`;
    }
    const [[name]] = g.outputs;
    const outName = ['DynamicStitch', 'ParallelDynamicStitch'].includes(c.op) ? 'merged' : 'output';
    return `{${JSON.stringify(outName)}:${outputText(name, result[name])}}`;
  } finally {
    await session.release();
  }
}

function manifest() {
  const caps = (op, extra) => Object.assign({op, dtypes: DTYPES, param_dtypes: common.PARAM_DTYPES,
                                             min_rank: 1, max_rank: null, min_block_dims: 1, max_block_dims: null}, extra);
  const ops = [
    caps('SpaceToBatchND'), caps('BatchToSpaceND'),
    caps('DynamicStitch', {param_dtypes: ['int32'], min_rank: 0, min_block_dims: 0}),
    caps('ParallelDynamicStitch', {param_dtypes: ['int32'], min_rank: 0, min_block_dims: 0}),
    caps('DynamicPartition', {param_dtypes: ['int32'], min_rank: 1, min_block_dims: 0}),
    caps('SpaceToDepth', {min_rank: 0, min_block_dims: 0}),
    caps('DepthToSpace', {min_rank: 0, min_block_dims: 0}),
  ];
  return {type: 'manifest', protocol: 1,
          name: `ONNX Runtime ${ort.env.versions.node} (onnxruntime-node, CPU), tf2onnx lowerings, opset ${OPSET}`,
          profile: 'tf-cpu', ops, notes: {opset: OPSET, form: FORM}};
}

if (require.main === module) {
  common.serve({manifest, run, codeOf});
} else {
  module.exports = {manifest, run, codeOf, caseModel};
}
