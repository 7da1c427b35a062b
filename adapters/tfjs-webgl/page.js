// The page side of the WebGL adapter (adapter.js injects it after tf-core.min.js and
// tf-backend-webgl.min.js): runs one case on tfjs's webgl backend. Tensors cross the
// DevTools pipe as base64 of their bytes, never as JS numbers, so every bit arrives as sent and
// leaves as the backend produced it.
'use strict';

(() => {
  function fromBase64(text) {
    const s = atob(text);
    const bytes = new Uint8Array(s.length);
    for (let i = 0; i < s.length; ++i) bytes[i] = s.charCodeAt(i);
    return bytes;
  }

  function toBase64(bytes) {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(s);
  }

  const ARRAY_OF = {float32: Float32Array, int32: Int32Array, bool: Uint8Array};

  function gl() {
    return tf.backend().gpgpu.gl;
  }

  // Whether this WebGL 2 context can render to an integer (R32I) and a float (R32F) texture: a
  // context of its own, so that tfjs's state is not touched.
  function renderableFormats() {
    const g = document.createElement('canvas').getContext('webgl2');
    if (!g) return null;
    const renderable = (internalFormat, format, type) => {
      const tex = g.createTexture();
      g.bindTexture(g.TEXTURE_2D, tex);
      g.texImage2D(g.TEXTURE_2D, 0, internalFormat, 1, 1, 0, format, type, null);
      const fb = g.createFramebuffer();
      g.bindFramebuffer(g.FRAMEBUFFER, fb);
      g.framebufferTexture2D(g.FRAMEBUFFER, g.COLOR_ATTACHMENT0, g.TEXTURE_2D, tex, 0);
      const ok = g.getError() === g.NO_ERROR &&
                 g.checkFramebufferStatus(g.FRAMEBUFFER) === g.FRAMEBUFFER_COMPLETE;
      g.deleteFramebuffer(fb);
      g.deleteTexture(tex);
      return ok;
    };
    const floatExt = g.getExtension('EXT_color_buffer_float') !== null;
    const result = {r32i: renderable(g.R32I, g.RED_INTEGER, g.INT),
                    r32f: renderable(g.R32F, g.RED, g.FLOAT), ext_color_buffer_float: floatExt};
    const lose = g.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext();
    return result;
  }

  // What the backend runs on: WebGL version, renderer, texture formats and limits.
  window.opconformInfo = async () => {
    if (!(await tf.setBackend('webgl')) || tf.getBackend() !== 'webgl') {
      return {error: 'tfjs-backend-webgl did not initialise (no WebGL context)'};
    }
    await tf.ready();
    const e = tf.env();
    const g = gl();
    const dbg = g.getExtension('WEBGL_debug_renderer_info');
    const cfg = tf.backend().gpgpu.textureConfig;
    const glEnum = (v) => {
      for (const k in g) if (g[k] === v && /^[A-Z0-9_]+$/.test(k)) return k;
      return String(v);
    };
    const ops = ['SpaceToBatchND', 'BatchToSpaceND'].filter((op) => tf.getKernel(op, 'webgl') !== undefined);
    return {
      tfjs: tf.version_core,
      webgl_backend: tf.version_webgl,
      user_agent: navigator.userAgent,
      webgl_version: e.getNumber('WEBGL_VERSION'),
      renderer: dbg ? g.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER),
      max_texture_size: e.getNumber('WEBGL_MAX_TEXTURE_SIZE'),
      render_float32_capable: e.getBool('WEBGL_RENDER_FLOAT32_CAPABLE'),
      render_float32_enabled: e.getBool('WEBGL_RENDER_FLOAT32_ENABLED'),
      download_float_enabled: e.getBool('WEBGL_DOWNLOAD_FLOAT_ENABLED'),
      force_f16_textures: e.getBool('WEBGL_FORCE_F16_TEXTURES'),
      // The formats tfjs picked for its textures, and how it reads them back (WebGL 2: floats
      // through a pixel-pack buffer).
      texture_formats: {float: glEnum(cfg.internalFormatFloat),
                        packed_float: glEnum(cfg.internalFormatPackedFloat),
                        half_float: glEnum(cfg.internalFormatHalfFloat)},
      buffer_readback: e.getBool('WEBGL_BUFFER_SUPPORTED'),
      // tfjs has no integer textures: int32 and bool tensors live in the float textures above,
      // whatever the context could do (renderable: what this context can render to).
      int32_storage: e.getBool('WEBGL_RENDER_FLOAT32_ENABLED') ? 'float32 textures' : 'float16 textures',
      renderable: renderableFormats(),
      pack: e.getBool('WEBGL_PACK'),
      cpu_forward: e.getBool('WEBGL_CPU_FORWARD'),
      cpu_handoff_size_threshold: e.getNumber('CPU_HANDOFF_SIZE_THRESHOLD'),
      registered: ops,
    };
  };

  // req: {s2b, dtype, dims, bytes (base64), block, pads} -> {dtype, shape (dims as strings),
  // array (the class of what data() gave), length, bytes (base64)} or {error: {name, message}}, and
  // context_lost when the WebGL context was lost during the case.
  window.opconformRun = async (req) => {
    const engine = tf.engine();
    engine.startScope();
    try {
      const bytes = fromBase64(req.bytes);
      const values = new ARRAY_OF[req.dtype](bytes.buffer, 0, bytes.length / ARRAY_OF[req.dtype].BYTES_PER_ELEMENT);
      const x = tf.tensor(values, req.dims, req.dtype);
      const y = req.s2b ? tf.spaceToBatchND(x, req.block, req.pads) : tf.batchToSpaceND(x, req.block, req.pads);
      const data = await y.data();
      // An empty tensor's values are a plain [] in tfjs (makeTensorInfo(shape, dtype, [])).
      const out = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
                                           : new Uint8Array(0);
      return {dtype: y.dtype, shape: y.shape.map(String), array: data.constructor.name,
              length: data.length, bytes: toBase64(out), context_lost: gl().isContextLost()};
    } catch (err) {
      return {error: {name: err && err.name, message: String(err && err.message !== undefined ? err.message : err)},
              context_lost: gl().isContextLost()};
    } finally {
      engine.endScope();
    }
  };
})();
