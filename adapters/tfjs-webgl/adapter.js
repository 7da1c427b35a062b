#!/usr/bin/env node
// TensorFlow.js (tfjs-core + the WebGL backend, tfjs-backend-webgl) in headless Chromium behind
// opconform's subprocess protocol v1 (docs/plugin-abi.md, section 2): SpaceToBatchND and
// BatchToSpaceND, where the backend registers them.
//
// Node drives an installed Chromium (Debian's `chromium`; $OPCONFORM_CHROMIUM overrides the
// path) through puppeteer-core, which never downloads a browser. WebGL runs on SwiftShader, the
// software rasteriser inside Chromium, so no GPU is needed and results do not depend on one.
// One browser and one page live as long as this process; each case goes in and comes back as
// the bytes of its typed arrays (base64), never as JS numbers.
//
// Run: opconform validate --impl "exec:node adapters/tfjs-webgl/adapter.js"
// Logs go to stderr only; stdout carries length-prefixed JSON messages.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');
const common = require('../tfjs/common.js');

const CHROMIUM = process.env.OPCONFORM_CHROMIUM || '/usr/bin/chromium';
const PROFILE_PREFIX = 'opconform-tfjs-webgl-';

let browser = null;
let page = null;
let profileDir = null;
let closing = false;

function script(pkg, file) {
  return fs.readFileSync(require.resolve(`${pkg}/dist/${file}`), 'utf8');
}

// Chromium's profile lives in a temporary folder named after this process. The validator kills
// an adapter that times out (SIGKILL, no cleanup; the browser then exits as its DevTools pipe
// closes), so folders of processes that no longer exist are removed at start.
function makeProfileDir() {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    const m = name.startsWith(PROFILE_PREFIX) && /^(\d+)-/.exec(name.slice(PROFILE_PREFIX.length));
    if (!m) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch (err) {
      if (err.code === 'ESRCH') fs.rmSync(path.join(tmp, name), {recursive: true, force: true});
    }
  }
  return fs.mkdtempSync(path.join(tmp, `${PROFILE_PREFIX}${process.pid}-`));
}

async function closeBrowser() {
  closing = true;
  if (browser) await browser.close().catch(() => {});
  browser = null;
  if (profileDir) fs.rmSync(profileDir, {recursive: true, force: true});
  profileDir = null;
}

// A browser or page that dies takes the case with it: the adapter ends as a crashed native
// worker would (the validator records a crash and starts a fresh adapter).
function die(message) {
  if (closing) return;
  process.stderr.write(`tfjs-webgl adapter: ${message}\n`);
  closeBrowser().finally(() => process.exit(70));
}

async function manifest() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set OPCONFORM_CHROMIUM)`);
  profileDir = makeProfileDir();
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    pipe: true,  // DevTools over a pipe: no port, and the browser exits when this process does
    userDataDir: profileDir,
    headless: true,
    // --no-sandbox: Chromium refuses to start as root without it; the page only ever holds the
    // tfjs scripts read from node_modules (no network, no other content).
    // SwiftShader through ANGLE: WebGL without a GPU (--enable-unsafe-swiftshader is needed
    // since Chromium stopped falling back to it by itself).
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--ignore-gpu-blocklist', '--disable-background-timer-throttling',
           '--disable-renderer-backgrounding'],
    protocolTimeout: 0,  // the validator's --timeout bounds a case
  });
  browser.on('disconnected', () => die('the browser went away'));
  page = await browser.newPage();
  page.on('error', (err) => die(`the page crashed: ${err && err.message}`));
  page.on('console', (m) => process.stderr.write(`page console.${m.type()}: ${m.text()}\n`));
  await page.addScriptTag({content: script('@tensorflow/tfjs-core', 'tf-core.min.js')});
  await page.addScriptTag({content: script('@tensorflow/tfjs-backend-webgl', 'tf-backend-webgl.min.js')});
  await page.addScriptTag({content: fs.readFileSync(path.join(__dirname, 'page.js'), 'utf8')});
  const info = await page.evaluate(() => window.opconformInfo());
  if (info.error) throw new Error(info.error);
  info.chromium = await browser.version();
  // The webgl kernels assert rank <= 4 ("not implemented yet"): that is the backend's declared
  // limit, so the manifest says it.
  const ops = info.registered.map((op) => common.opCaps(op, {max_rank: 4}));
  const renderer = /SwiftShader/.test(info.renderer) ? 'SwiftShader' : info.renderer;
  return {type: 'manifest', protocol: 1,
          name: `tfjs-core ${info.tfjs} webgl (WebGL ${info.webgl_version}, ${info.chromium}, ${renderer}; ` +
                `float32 textures ${info.render_float32_enabled ? 'on' : 'off'}, int32 in float textures, ` +
                `max texture ${info.max_texture_size})`,
          profile: 'tf-cpu', ops, notes: info};
}

function toBytes(x) {
  const arr = x.dtype === 'bool' ? Uint8Array.from(x.values, (v) => (v ? 1 : 0)) : x.values;
  return Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).toString('base64');
}

const ARRAY_OF = {float32: Float32Array, int32: Int32Array, bool: Uint8Array};

async function run(c) {
  const {s2b, x, blockArr, padArr} = common.spaceBatchArgs(c);
  let r;
  try {
    r = await page.evaluate((req) => window.opconformRun(req),
                            {s2b, dtype: x.dtype, dims: x.dims, bytes: toBytes(x), block: blockArr, pads: padArr});
  } catch (err) {
    die(`the page did not answer: ${err && err.stack || err}`);
    return new Promise(() => {});  // never answers: the process is ending
  }
  if (r.context_lost) {
    die(`the WebGL context was lost during the case${r.error ? ` (${r.error.message})` : ''}`);
    return new Promise(() => {});
  }
  if (r.error) {
    const e = new Error(r.error.message);
    e.name = r.error.name;
    throw e;
  }
  const Array_ = ARRAY_OF[r.dtype];
  // data() of an empty tensor is a plain [] (tfjs keeps no typed array for it): no element to
  // lose, so it passes as the empty typed array. Anything else must be the dtype's typed array.
  const emptyArray = r.array === 'Array' && r.length === 0;
  if (!Array_ || (r.array !== Array_.name && !emptyArray)) {
    throw common.faultError(`tfjs returned a ${r.array} of ${r.length} elements for a ${r.dtype} tensor`);
  }
  const bytes = Buffer.from(r.bytes, 'base64');
  if (bytes.length % Array_.BYTES_PER_ELEMENT !== 0) {
    throw common.faultError(`tfjs returned ${bytes.length} bytes for ${r.dtype} elements`);
  }
  const copy = new Uint8Array(bytes);  // an aligned buffer of its own
  const values = new Array_(copy.buffer, 0, copy.length / Array_.BYTES_PER_ELEMENT);
  return `{"output":${common.encodeOutput(r.dtype, r.shape.map(Number), values)}}`;
}

// A texture larger than the GPU allows is a resource the backend does not have, not a bad
// argument (tfjs: "Requested texture size [AxB] greater than WebGL maximum ...").
function codeOf(err) {
  if (/greater than WebGL maximum/.test(String(err && err.message))) return 'RESOURCE_EXHAUSTED';
  return common.defaultCode(err);
}

common.serve({manifest, run, codeOf, onEnd: closeBrowser});
