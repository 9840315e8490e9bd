// boids live viewer. Plain script, no build step: the server embeds this file.
//
// The server streams binary frames over /ws (format: crates/boids-server/src/protocol.rs) and
// JSON text messages (state, metrics, replies). Boids are drawn with WebGL2 (instanced darts
// whose attributes are the frame bytes themselves, uploaded as they arrive), or with canvas 2D
// where WebGL2 is missing (or with ?renderer=2d). Debug overlays go on a 2D canvas on top.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const TAU = Math.PI * 2;
  const MAGIC = 0x424f4944; // "BOID"
  const FRAME_HEADER = 56;
  const OVERLAY_HEADER = 32;
  const FLAG_RUNNING = 1;
  const FLAG_TORUS = 2;
  const FLAG_HOVER = 4;

  const COLOR = {
    bg: [7, 10, 18],
    world: [13, 20, 36],
    boid: [223, 232, 255],
    // Scout groups in the colours of `boids render` (Style::default in
    // crates/boids-render/src/scene.rs), so a rendered GIF and the viewer agree.
    scout1: [255, 96, 200],
    scout2: [90, 205, 255],
  };
  const INK = {
    border: 'rgba(122, 162, 255, 0.35)',
    margin: 'rgba(122, 162, 255, 0.22)',
    radius: 'rgba(128, 255, 255, 0.30)',
    radiusHover: 'rgba(128, 255, 255, 0.85)',
    protected: 'rgba(64, 230, 64, 0.55)',
    velocity: '#ffe14d',
    cohesion: '#ff4040',
    separation: '#40e640',
    alignment: '#5078ff',
    ghost: 'rgba(223, 232, 255, 0.7)',
    link: 'rgba(223, 232, 255, 0.28)',
    halo: 'rgba(255, 255, 255, 0.9)',
  };
  // A dart in units of the boid radius: nose at +x.
  const DART = [2.2, 0, -1.3, 1.15, -0.55, 0, 2.2, 0, -0.55, 0, -1.3, -1.15];
  const MIN_BOID_PX = 1.3; // device pixels: boids stay visible when zoomed out
  // Span of the step-rate measurement: long enough to hold a few steps at the slowest speed.
  const RATE_WINDOW_MS = 3000;

  const S = {
    ws: null,
    connected: false,
    retry: 500,
    server: null, // last "state" message
    description: null, // /api/params
    loadingDescription: false,
    frame: null,
    frameSerial: 0,
    overlay: null,
    overlayMode: 'off',
    view: { x0: 0, y0: 0, scale: 1, fitted: true, worldKey: '' },
    dirty: true,
    nextId: 1,
    pending: new Map(), // request id -> parameter name
    sent: new Map(), // parameter -> value sent and not yet seen in a state message
    active: null, // parameter whose control the user is dragging
    mouse: null, // {cx, cy} CSS px inside the stage
    hoverQueued: false,
    metricsRun: -1,
    history: { pol: [], flocks: [] },
    fps: { frames: 0, since: performance.now(), value: 0 },
    steps: [], // {t, step} of running frames with a new step, the last RATE_WINDOW_MS and one more
    framesDrawn: 0,
    bytes: { total: 0, since: performance.now(), rate: 0 },
    lastMetrics: null,
    ruleScale: [null, null, null, null], // smoothed magnitudes: velocity, cohesion, separation, alignment
  };

  const stage = $('stage');
  let boidCanvas = $('boids');
  const overlayCanvas = $('overlay');
  const octx = overlayCanvas.getContext('2d');
  // ?renderer=webgl or ?renderer=2d overrides the choice (WebGL2 on a real GPU, else 2D).
  const forced = new URLSearchParams(location.search).get('renderer');
  const renderer = (forced !== '2d' && makeGL(boidCanvas, forced === 'webgl')) || make2D(canvasFor2D());

  // The boids canvas, or a fresh copy where a failed WebGL start has claimed it.
  function canvasFor2D() {
    if (boidCanvas.getContext('2d', { alpha: false })) return boidCanvas;
    const fresh = boidCanvas.cloneNode();
    boidCanvas.replaceWith(fresh);
    boidCanvas = fresh;
    return fresh;
  }

  // ---------------------------------------------------------------- connection

  function connect() {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
    ws.binaryType = 'arraybuffer';
    S.ws = ws;
    ws.onopen = () => {
      S.connected = true;
      S.retry = 500;
      S.sent.clear();
      $('conn').classList.add('live');
      sendOverlayMode();
    };
    ws.onclose = () => {
      S.connected = false;
      $('conn').classList.remove('live');
      $('stat-text').textContent = 'disconnected — retrying…';
      setTimeout(connect, S.retry);
      S.retry = Math.min(S.retry * 2, 5000);
    };
    ws.onmessage = (event) => {
      if (typeof event.data === 'string') {
        onText(JSON.parse(event.data));
      } else {
        S.bytes.total += event.data.byteLength;
        onBinary(event.data);
      }
    };
  }

  function send(message) {
    if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(message));
  }

  function request(message, key) {
    const id = S.nextId++;
    S.pending.set(id, key || message.type);
    send({ ...message, id });
  }

  function onText(m) {
    switch (m.type) {
      case 'state': return onState(m);
      case 'metrics': return onMetrics(m);
      case 'ok': S.pending.delete(m.id); return;
      case 'error': {
        const key = S.pending.get(m.id);
        S.pending.delete(m.id);
        toast(m.message);
        if (key && S.server && key in S.server.params) {
          S.sent.delete(key);
          controls.get(key)?.set(S.server.params[key]);
        }
        return;
      }
    }
  }

  function rectAt(dv, at) {
    return { x: dv.getFloat32(at, true), y: dv.getFloat32(at + 4, true), w: dv.getFloat32(at + 8, true), h: dv.getFloat32(at + 12, true) };
  }

  function onBinary(buf) {
    if (buf.byteLength < 16) return;
    const dv = new DataView(buf);
    if (dv.getUint32(0, false) !== MAGIC || dv.getUint8(4) !== 1) return;
    const kind = dv.getUint8(5);
    const flags = dv.getUint16(6, true);
    const step = Number(dv.getBigUint64(8, true));
    if (kind === 1 && buf.byteLength >= FRAME_HEADER) {
      const count = dv.getUint32(16, true);
      S.frame = {
        flags, step, count,
        revision: dv.getUint32(20, true),
        world: rectAt(dv, 24),
        quant: rectAt(dv, 40),
        boids: new Uint8Array(buf, FRAME_HEADER, count * 6),
      };
      S.frameSerial++;
      recordStep(step, (flags & FLAG_RUNNING) !== 0);
      const key = [S.frame.world.x, S.frame.world.y, S.frame.world.w, S.frame.world.h].join();
      if (key !== S.view.worldKey) {
        S.view.worldKey = key;
        S.view.fitted = true;
      }
    } else if (kind === 2 && buf.byteLength >= OVERLAY_HEADER) {
      const records = dv.getUint32(16, true);
      const links = dv.getUint32(20, true);
      if (S.overlayMode === 'off') return;
      S.overlay = {
        flags, step, records, nlinks: links,
        visual: dv.getFloat32(24, true),
        protected: dv.getFloat32(28, true),
        rec: new Float32Array(buf, OVERLAY_HEADER, records * 10),
        links: new Float32Array(buf, OVERLAY_HEADER + records * 40, links * 2),
      };
      updateRuleScale(S.overlay);
    }
    S.dirty = true;
  }

  // ---------------------------------------------------------------- view

  function fitView() {
    const f = S.frame;
    if (!f) return;
    // Leave room for the legend and the key hints below the world.
    const dpr = window.devicePixelRatio || 1;
    const [top, bottom, side] = [14 * dpr, 62 * dpr, 14 * dpr];
    const w = boidCanvas.width - 2 * side;
    const h = boidCanvas.height - top - bottom;
    const r = f.world;
    const pad = 0.03 * Math.max(r.w, r.h);
    const scale = Math.max(1e-9, Math.min(w / (r.w + 2 * pad), h / (r.h + 2 * pad)));
    S.view.scale = scale;
    S.view.x0 = r.x + r.w / 2 - (side + w / 2) / scale;
    S.view.y0 = r.y + r.h / 2 - (top + h / 2) / scale;
  }

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    for (const c of [boidCanvas, overlayCanvas]) {
      c.width = Math.max(1, Math.round(stage.clientWidth * dpr));
      c.height = Math.max(1, Math.round(stage.clientHeight * dpr));
    }
    S.dirty = true;
  }

  const sx = (x) => (x - S.view.x0) * S.view.scale;
  const sy = (y) => (y - S.view.y0) * S.view.scale;
  /** Screen position of quantised coordinates: x = ox + qx * kx, y = oy + qy * ky. */
  const quantToScreen = (q) => ({
    kx: (q.w / 65535) * S.view.scale,
    ky: (q.h / 65535) * S.view.scale,
    ox: sx(q.x),
    oy: sy(q.y),
  });

  function clientToWorld(cx, cy) {
    const dpr = window.devicePixelRatio || 1;
    return { x: S.view.x0 + (cx * dpr) / S.view.scale, y: S.view.y0 + (cy * dpr) / S.view.scale };
  }

  function boidRadius() {
    const size = Number(S.server?.params?.boid_size) || 1;
    return Math.max(size, MIN_BOID_PX / S.view.scale);
  }

  // ---------------------------------------------------------------- boid renderers

  function makeGL(canvas, evenInSoftware) {
    // A scratch canvas first: a canvas that gave out a WebGL context cannot give a 2D one.
    const probe = document.createElement('canvas').getContext('webgl2');
    if (!probe) return null;
    const info = probe.getExtension('WEBGL_debug_renderer_info');
    const device = info ? String(probe.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    probe.getExtension('WEBGL_lose_context')?.loseContext();
    if (!evenInSoftware && /swiftshader|llvmpipe|softpipe|software/i.test(device)) {
      console.info(`WebGL2 runs in software here (${device}); drawing with canvas 2D, which is faster then.`);
      return null;
    }
    const gl = canvas.getContext('webgl2', { antialias: true, alpha: false, depth: false });
    if (!gl) return null;
    const vs = `#version 300 es
      layout(location = 0) in vec2 a_corner;
      layout(location = 1) in vec2 a_q;
      layout(location = 2) in float a_head;
      layout(location = 3) in float a_group;
      uniform vec4 u_quant;
      uniform vec2 u_origin;
      uniform float u_scale;
      uniform vec2 u_canvas;
      uniform float u_size;
      uniform bool u_by_group;
      uniform vec3 u_colors[3];
      out vec3 v_color;
      void main() {
        vec2 p = u_quant.xy + a_q * u_quant.zw;
        float angle = a_head * (6.28318530718 / 256.0);
        vec2 dir = vec2(cos(angle), sin(angle));
        vec2 side = vec2(-dir.y, dir.x);
        vec2 world = p + (dir * a_corner.x + side * a_corner.y) * u_size;
        vec2 px = (world - u_origin) * u_scale;
        vec2 clip = px / u_canvas * 2.0 - 1.0;
        gl_Position = vec4(clip.x, -clip.y, 0.0, 1.0);
        int g = u_by_group ? clamp(int(a_group + 0.5), 0, 2) : 0;
        v_color = u_colors[g];
      }`;
    const fs = `#version 300 es
      precision mediump float;
      in vec3 v_color;
      out vec4 color;
      void main() { color = vec4(v_color, 1.0); }`;
    const shader = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    };
    let program;
    try {
      program = gl.createProgram();
      gl.attachShader(program, shader(gl.VERTEX_SHADER, vs));
      gl.attachShader(program, shader(gl.FRAGMENT_SHADER, fs));
      gl.linkProgram(program);
      if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
    } catch (e) {
      console.warn('WebGL2 unavailable, drawing with canvas 2D:', e);
      return null;
    }
    const u = (name) => gl.getUniformLocation(program, name);
    const uni = {
      quant: u('u_quant'), origin: u('u_origin'), scale: u('u_scale'), canvas: u('u_canvas'),
      size: u('u_size'), byGroup: u('u_by_group'), colors: u('u_colors'),
    };
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    const corners = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, corners);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(DART), gl.STATIC_DRAW);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    const boids = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, boids);
    gl.enableVertexAttribArray(1);
    gl.vertexAttribPointer(1, 2, gl.UNSIGNED_SHORT, true, 6, 0);
    gl.vertexAttribDivisor(1, 1);
    gl.enableVertexAttribArray(2);
    gl.vertexAttribPointer(2, 1, gl.UNSIGNED_BYTE, false, 6, 4);
    gl.vertexAttribDivisor(2, 1);
    gl.enableVertexAttribArray(3);
    gl.vertexAttribPointer(3, 1, gl.UNSIGNED_BYTE, false, 6, 5);
    gl.vertexAttribDivisor(3, 1);
    let uploaded = -1;
    const norm = (c) => c.map((v) => v / 255);
    return {
      name: 'webgl2',
      draw(frame, byGroup) {
        gl.viewport(0, 0, canvas.width, canvas.height);
        gl.disable(gl.SCISSOR_TEST);
        gl.clearColor(...norm(COLOR.bg), 1);
        gl.clear(gl.COLOR_BUFFER_BIT);
        if (!frame) return;
        const r = frame.world;
        const x0 = Math.max(0, Math.floor(sx(r.x)));
        const y1 = Math.min(canvas.height, Math.ceil(sy(r.y + r.h)));
        const x1 = Math.min(canvas.width, Math.ceil(sx(r.x + r.w)));
        const y0 = Math.max(0, Math.floor(sy(r.y)));
        if (x1 > x0 && y1 > y0) {
          gl.enable(gl.SCISSOR_TEST);
          gl.scissor(x0, canvas.height - y1, x1 - x0, y1 - y0);
          gl.clearColor(...norm(COLOR.world), 1);
          gl.clear(gl.COLOR_BUFFER_BIT);
          gl.disable(gl.SCISSOR_TEST);
        }
        gl.useProgram(program);
        gl.bindVertexArray(vao);
        gl.bindBuffer(gl.ARRAY_BUFFER, boids);
        if (uploaded !== S.frameSerial) {
          gl.bufferData(gl.ARRAY_BUFFER, frame.boids, gl.STREAM_DRAW);
          uploaded = S.frameSerial;
        }
        const q = frame.quant;
        gl.uniform4f(uni.quant, q.x, q.y, q.w, q.h);
        gl.uniform2f(uni.origin, S.view.x0, S.view.y0);
        gl.uniform1f(uni.scale, S.view.scale);
        gl.uniform2f(uni.canvas, canvas.width, canvas.height);
        gl.uniform1f(uni.size, boidRadius());
        gl.uniform1i(uni.byGroup, byGroup ? 1 : 0);
        gl.uniform3fv(uni.colors, new Float32Array([...norm(COLOR.boid), ...norm(COLOR.scout1), ...norm(COLOR.scout2)]));
        gl.drawArraysInstanced(gl.TRIANGLES, 0, 6, frame.count);
      },
    };
  }

  // Canvas 2D: where WebGL2 is missing or runs in software (no GPU), drawing each dart as a
  // path costs microseconds; stamping precomputed dart sprites into an ImageData costs a few
  // nanoseconds per pixel, so 100,000 small boids take about 10 ms. Large (zoomed-in) darts are
  // drawn as paths.
  function make2D(canvas) {
    const ctx = canvas.getContext('2d', { alpha: false });
    const SPRITE_MAX_PX = 8;
    const HEADINGS = 64;
    const cos = new Float32Array(256);
    const sin = new Float32Array(256);
    for (let k = 0; k < 256; k++) {
      cos[k] = Math.cos((k / 256) * TAU);
      sin[k] = Math.sin((k / 256) * TAU);
    }
    const rgb = (c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
    const pack = (c) => ((255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0]) >>> 0;
    const mix = (c, a) => c.map((v, k) => Math.round(v * a + COLOR.world[k] * (1 - a)));
    const palette = [COLOR.boid, COLOR.scout1, COLOR.scout2];
    // Per group: colours for coverage levels 0..3 (3 = full).
    const shades = palette.map((c) => [0.18, 0.4, 0.65, 1].map((a) => pack(mix(c, a))));
    let image = null;
    let pixels = null;
    let sprites = null;
    let spriteKey = '';

    function inTriangle(px, py, t) {
      const d1 = (px - t[2]) * (t[1] - t[3]) - (t[0] - t[2]) * (py - t[3]);
      const d2 = (px - t[4]) * (t[3] - t[5]) - (t[2] - t[4]) * (py - t[5]);
      const d3 = (px - t[0]) * (t[5] - t[1]) - (t[4] - t[0]) * (py - t[1]);
      return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
    }

    // For each of 64 headings, the pixels a dart of radius `rad` covers (4x4 samples each):
    // linear offsets for a row width `width`, x and y offsets for clipping, coverage levels.
    function buildSprites(rad, width) {
      const reach = Math.ceil(rad * 2.3) + 1;
      const out = [];
      for (let h = 0; h < HEADINGS; h++) {
        const angle = ((h + 0.5) / HEADINGS) * TAU;
        const c = Math.cos(angle);
        const s = Math.sin(angle);
        const pts = [];
        for (let k = 0; k < DART.length; k += 2) {
          pts.push((c * DART[k] - s * DART[k + 1]) * rad, (s * DART[k] + c * DART[k + 1]) * rad);
        }
        const tris = [pts.slice(0, 6), pts.slice(6, 12)];
        const off = [];
        const dx = [];
        const dy = [];
        const level = [];
        for (let y = -reach; y <= reach; y++) {
          for (let x = -reach; x <= reach; x++) {
            let covered = 0;
            for (let j = 0; j < 4; j++) {
              for (let i = 0; i < 4; i++) {
                const px = x + (i + 0.5) / 4 - 0.5;
                const py = y + (j + 0.5) / 4 - 0.5;
                if (inTriangle(px, py, tris[0]) || inTriangle(px, py, tris[1])) covered++;
              }
            }
            if (covered < 2) continue;
            off.push(y * width + x);
            dx.push(x);
            dy.push(y);
            level.push(covered >= 12 ? 3 : covered >= 8 ? 2 : covered >= 5 ? 1 : 0);
          }
        }
        out.push({ off: Int32Array.from(off), dx: Int16Array.from(dx), dy: Int16Array.from(dy), level: Uint8Array.from(level), reach });
      }
      return out;
    }

    function drawSprites(frame, byGroup, rad) {
      const w = canvas.width;
      const h = canvas.height;
      if (!image || image.width !== w || image.height !== h) {
        image = ctx.createImageData(w, h);
        pixels = new Uint32Array(image.data.buffer);
      }
      const key = `${Math.round(rad * 4) / 4}/${w}`;
      if (key !== spriteKey) {
        sprites = buildSprites(Math.round(rad * 4) / 4, w);
        spriteKey = key;
      }
      const bg = pack(COLOR.bg);
      const world = pack(COLOR.world);
      pixels.fill(bg);
      const r = frame.world;
      const clampX = (v) => Math.min(w, Math.max(0, Math.round(v)));
      const clampY = (v) => Math.min(h, Math.max(0, Math.round(v)));
      const [x0, x1, y0, y1] = [clampX(sx(r.x)), clampX(sx(r.x + r.w)), clampY(sy(r.y)), clampY(sy(r.y + r.h))];
      for (let y = y0; y < y1; y++) pixels.fill(world, y * w + x0, y * w + x1);
      const b = frame.boids;
      const { kx, ky, ox, oy } = quantToScreen(frame.quant);
      const reach = sprites[0].reach;
      for (let i = 0, o = 0; i < frame.count; i++, o += 6) {
        const x = Math.round(ox + (b[o] | (b[o + 1] << 8)) * kx);
        const y = Math.round(oy + (b[o + 2] | (b[o + 3] << 8)) * ky);
        if (x < -reach || y < -reach || x >= w + reach || y >= h + reach) continue;
        const sprite = sprites[b[o + 4] >> 2];
        const shade = shades[byGroup ? Math.min(b[o + 5], 2) : 0];
        const base = y * w + x;
        const inside = x >= reach && y >= reach && x < w - reach && y < h - reach;
        const { off, level } = sprite;
        for (let k = 0; k < off.length; k++) {
          if (!inside) {
            const xx = x + sprite.dx[k];
            const yy = y + sprite.dy[k];
            if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          }
          const at = base + off[k];
          const lv = level[k];
          if (lv === 3) pixels[at] = shade[3];
          else if (pixels[at] === world || pixels[at] === bg) pixels[at] = shade[lv];
        }
      }
      ctx.putImageData(image, 0, 0);
    }

    function drawPaths(frame, byGroup, rad) {
      ctx.fillStyle = rgb(COLOR.bg);
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      const r = frame.world;
      ctx.fillStyle = rgb(COLOR.world);
      ctx.fillRect(sx(r.x), sy(r.y), r.w * S.view.scale, r.h * S.view.scale);
      const paths = [new Path2D(), new Path2D(), new Path2D()];
      const b = frame.boids;
      const { kx, ky, ox, oy } = quantToScreen(frame.quant);
      const [nx, lx, ly, cx] = [DART[0] * rad, DART[2] * rad, DART[3] * rad, DART[4] * rad];
      const margin = 3 * rad;
      const w = canvas.width + margin;
      const h = canvas.height + margin;
      for (let i = 0, o = 0; i < frame.count; i++, o += 6) {
        const x = ox + (b[o] | (b[o + 1] << 8)) * kx;
        const y = oy + (b[o + 2] | (b[o + 3] << 8)) * ky;
        if (x < -margin || y < -margin || x > w || y > h) continue;
        const c = cos[b[o + 4]];
        const s = sin[b[o + 4]];
        const p = paths[byGroup ? Math.min(b[o + 5], 2) : 0];
        p.moveTo(x + c * nx, y + s * nx);
        p.lineTo(x + c * lx - s * ly, y + s * lx + c * ly);
        p.lineTo(x + c * cx, y + s * cx);
        p.lineTo(x + c * lx + s * ly, y + s * lx - c * ly);
        p.closePath();
      }
      palette.forEach((color, k) => {
        ctx.fillStyle = rgb(color);
        ctx.fill(paths[k]);
      });
    }

    return {
      name: 'canvas2d',
      draw(frame, byGroup) {
        if (!frame) {
          ctx.fillStyle = rgb(COLOR.bg);
          ctx.fillRect(0, 0, canvas.width, canvas.height);
          return;
        }
        const rad = boidRadius() * S.view.scale;
        if (rad <= SPRITE_MAX_PX) drawSprites(frame, byGroup, rad);
        else drawPaths(frame, byGroup, rad);
      },
    };
  }

  // ---------------------------------------------------------------- overlays

  function percentile90(values) {
    if (values.length === 0) return 0;
    values.sort((a, b) => a - b);
    return values[Math.min(values.length - 1, Math.floor(values.length * 0.9))];
  }

  // Each vector kind gets its own drawing scale from its typical magnitude (90th percentile of
  // the non-zero ones), smoothed over frames, so every rule's direction shows whatever the
  // preset's weights.
  function updateRuleScale(ov) {
    for (let k = 0; k < 4; k++) {
      const mags = [];
      for (let i = 0; i < ov.records; i++) {
        const o = i * 10 + 2 + 2 * k;
        mags.push(Math.hypot(ov.rec[o], ov.rec[o + 1]));
      }
      const m = percentile90(mags.filter((v) => v > 0));
      if (m > 0) S.ruleScale[k] = S.ruleScale[k] == null ? m : 0.8 * S.ruleScale[k] + 0.2 * m;
    }
  }

  function userVectorScale() {
    return Math.pow(10, Number($('vector-scale').value));
  }

  function line(path, x, y, dx, dy) {
    path.moveTo(sx(x), sy(y));
    path.lineTo(sx(x + dx), sy(y + dy));
  }

  function arrowHead(path, x, y, dx, dy) {
    const len = Math.hypot(dx, dy) * S.view.scale;
    if (len < 6) return;
    const ux = dx / Math.hypot(dx, dy);
    const uy = dy / Math.hypot(dx, dy);
    const tx = sx(x + dx);
    const ty = sy(y + dy);
    const a = Math.min(8, len / 3) * (window.devicePixelRatio || 1);
    path.moveTo(tx, ty);
    path.lineTo(tx - a * (ux + 0.45 * uy), ty - a * (uy - 0.45 * ux));
    path.moveTo(tx, ty);
    path.lineTo(tx - a * (ux - 0.45 * uy), ty - a * (uy + 0.45 * ux));
  }

  function drawGhosts(frame, band) {
    // Boids within `band` of an edge, drawn again beyond the opposite edge as dashed outlines:
    // what a boid near that edge sees across the seam.
    const r = frame.world;
    const q = frame.quant;
    const b = frame.boids;
    const rad = boidRadius() * S.view.scale * 1.2;
    const path = new Path2D();
    const dpr = window.devicePixelRatio || 1;
    for (let i = 0, o = 0; i < frame.count; i++, o += 6) {
      const x = q.x + ((b[o] | (b[o + 1] << 8)) / 65535) * q.w;
      const y = q.y + ((b[o + 2] | (b[o + 3] << 8)) / 65535) * q.h;
      const shiftsX = [0];
      const shiftsY = [0];
      if (x - r.x < band) shiftsX.push(r.w);
      if (r.x + r.w - x < band) shiftsX.push(-r.w);
      if (y - r.y < band) shiftsY.push(r.h);
      if (r.y + r.h - y < band) shiftsY.push(-r.h);
      if (shiftsX.length + shiftsY.length === 2) continue;
      const angle = (b[o + 4] / 256) * TAU;
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      for (const dx of shiftsX) {
        for (const dy of shiftsY) {
          if (dx === 0 && dy === 0) continue;
          const px = sx(x + dx);
          const py = sy(y + dy);
          path.moveTo(px + c * DART[0] * rad, py + s * DART[0] * rad);
          path.lineTo(px + c * DART[2] * rad - s * DART[3] * rad, py + s * DART[2] * rad + c * DART[3] * rad);
          path.lineTo(px + c * DART[4] * rad, py + s * DART[4] * rad);
          path.lineTo(px + c * DART[2] * rad + s * DART[3] * rad, py + s * DART[2] * rad - c * DART[3] * rad);
          path.closePath();
        }
      }
    }
    octx.setLineDash([2 * dpr, 1.5 * dpr]);
    octx.strokeStyle = INK.ghost;
    octx.lineWidth = dpr;
    octx.stroke(path);
    octx.setLineDash([]);
  }

  function drawOverlay() {
    const dpr = window.devicePixelRatio || 1;
    octx.clearRect(0, 0, overlayCanvas.width, overlayCanvas.height);
    const f = S.frame;
    const params = S.server?.params;
    if (!f || !params) return;
    const r = f.world;
    const scale = S.view.scale;

    // The world's edge, and where margins or walls start acting.
    octx.lineWidth = dpr;
    octx.strokeStyle = INK.border;
    octx.strokeRect(sx(r.x), sy(r.y), r.w * scale, r.h * scale);
    const inset = params.boundary === 'margins' ? Number(params.margin) : params.boundary === 'walls' ? Number(params.wall_buffer) : 0;
    if (inset > 0 && 2 * inset < Math.min(r.w, r.h)) {
      octx.setLineDash([6 * dpr, 5 * dpr]);
      octx.strokeStyle = INK.margin;
      octx.strokeRect(sx(r.x + inset), sy(r.y + inset), (r.w - 2 * inset) * scale, (r.h - 2 * inset) * scale);
      octx.setLineDash([]);
    }

    const ov = S.overlay;
    const show = (id) => $(id).checked;
    if (S.overlayMode === 'off') return;
    if (f.flags & FLAG_TORUS && show('show-ghosts')) {
      drawGhosts(f, Number(params.visual_range) || 0);
    }
    if (!ov || ov.records === 0) return;

    const hover = (ov.flags & FLAG_HOVER) !== 0;
    const visual = ov.visual;
    // Vectors are drawn about half a visual range long; a single hovered boid's at least 60 px.
    const target = Math.max(0.55 * visual, hover ? (60 * dpr) / scale : 0);
    const gain = userVectorScale();
    const kScale = S.ruleScale.map((m) => (m ? target / m : 0));
    const paths = { radius: new Path2D(), velocity: new Path2D(), cohesion: new Path2D(), separation: new Path2D(), alignment: new Path2D() };
    const rr = ov.rec;
    for (let i = 0; i < ov.records; i++) {
      const o = i * 10;
      const x = rr[o];
      const y = rr[o + 1];
      if (show('show-radius')) {
        paths.radius.moveTo(sx(x) + visual * scale, sy(y));
        paths.radius.arc(sx(x), sy(y), visual * scale, 0, TAU);
      }
      const vectors = [
        ['velocity', 'show-velocity', rr[o + 2], rr[o + 3], kScale[0]],
        ['cohesion', 'show-cohesion', rr[o + 4], rr[o + 5], kScale[1] * gain],
        ['separation', 'show-separation', rr[o + 6], rr[o + 7], kScale[2] * gain],
        ['alignment', 'show-alignment', rr[o + 8], rr[o + 9], kScale[3] * gain],
      ];
      for (const [name, toggle, dx, dy, k] of vectors) {
        if (!show(toggle) || k === 0) continue;
        line(paths[name], x, y, dx * k, dy * k);
        if (hover) arrowHead(paths[name], x, y, dx * k, dy * k);
      }
    }

    if (hover) {
      const x = rr[0];
      const y = rr[1];
      // Links to the neighbours this boid sees; those across a seam lie outside the world.
      // (The ghost copies themselves are drawn with the other ghosts.)
      const links = new Path2D();
      const ghostLinks = new Path2D();
      for (let k = 0; k < ov.nlinks; k++) {
        const lx = ov.links[2 * k];
        const ly = ov.links[2 * k + 1];
        const outside = lx < r.x || lx >= r.x + r.w || ly < r.y || ly >= r.y + r.h;
        const p = outside ? ghostLinks : links;
        p.moveTo(sx(x), sy(y));
        p.lineTo(sx(lx), sy(ly));
      }
      octx.lineWidth = dpr;
      octx.strokeStyle = INK.link;
      octx.stroke(links);
      if (show('show-ghosts')) {
        octx.setLineDash([3 * dpr, 3 * dpr]);
        octx.strokeStyle = INK.ghost;
        octx.stroke(ghostLinks);
        octx.setLineDash([]);
      }
      if (show('show-radius') && ov.protected > 0) {
        octx.setLineDash([4 * dpr, 4 * dpr]);
        octx.strokeStyle = INK.protected;
        octx.beginPath();
        octx.arc(sx(x), sy(y), ov.protected * scale, 0, TAU);
        octx.stroke();
        octx.setLineDash([]);
      }
      octx.strokeStyle = INK.halo;
      octx.lineWidth = 1.5 * dpr;
      octx.beginPath();
      octx.arc(sx(x), sy(y), Math.max(5 * dpr, boidRadius() * scale * 2.6), 0, TAU);
      octx.stroke();
    }

    octx.lineWidth = (hover ? 1.5 : 1) * dpr;
    octx.strokeStyle = hover ? INK.radiusHover : INK.radius;
    // Many overlapping circles would paint the stage solid: fade them as their number grows.
    octx.globalAlpha = hover ? 1 : Math.min(1, 6 / Math.sqrt(ov.records));
    octx.stroke(paths.radius);
    octx.globalAlpha = 1;
    octx.lineWidth = (hover ? 2.2 : 1.2) * dpr;
    for (const name of ['velocity', 'separation', 'alignment', 'cohesion']) {
      octx.strokeStyle = INK[name];
      octx.stroke(paths[name]);
    }
  }

  function updateInfo() {
    const box = $('info');
    const ov = S.overlay;
    if (S.overlayMode !== 'hover' || !ov || ov.records === 0 || !(ov.flags & FLAG_HOVER)) {
      box.hidden = true;
      return;
    }
    const r = ov.rec;
    const fmtV = (x, y) => fmt(Math.hypot(x, y));
    const rows = [
      ['position', `${fmt(r[0])}, ${fmt(r[1])}`],
      ['speed', fmtV(r[2], r[3])],
      ['neighbours', String(ov.nlinks)],
      ['|cohesion|', fmtV(r[4], r[5])],
      ['|separation|', fmtV(r[6], r[7])],
      ['|alignment|', fmtV(r[8], r[9])],
    ];
    box.replaceChildren(...rows.map(([k, v]) => {
      const d = document.createElement('div');
      const a = document.createElement('span');
      a.textContent = k;
      const b = document.createElement('b');
      b.textContent = v;
      d.append(a, b);
      return d;
    }));
    box.hidden = false;
  }

  // ---------------------------------------------------------------- draw loop

  function frameLoop(now) {
    if (S.dirty) {
      S.dirty = false;
      if (S.view.fitted) fitView();
      renderer.draw(S.frame, $('by-group').checked);
      drawOverlay();
      updateInfo();
      if (S.frame) S.framesDrawn++;
      S.fps.frames++;
    }
    if (now - S.fps.since >= 1000) {
      S.fps.value = (S.fps.frames * 1000) / (now - S.fps.since);
      S.bytes.rate = (S.bytes.total * 1000) / (now - S.bytes.since);
      S.fps.frames = 0;
      S.fps.since = now;
      S.bytes.total = 0;
      S.bytes.since = now;
      updateStats();
    }
    if (S.hoverQueued) {
      S.hoverQueued = false;
      sendHover();
    }
    requestAnimationFrame(frameLoop);
  }

  // The simulation's steps per second, measured here from the frames' step numbers: the
  // server's own figure rides on the metrics, which a large flock makes seconds apart.
  function recordStep(step, running) {
    const s = S.steps;
    if (!running || (s.length && step < s[s.length - 1].step)) s.length = 0;
    if (!running || (s.length && step === s[s.length - 1].step)) return;
    const now = performance.now();
    s.push({ t: now, step });
    while (s.length > 2 && now - s[1].t > RATE_WINDOW_MS) s.shift();
  }

  function stepRate() {
    const s = S.steps;
    if (s.length < 2) return null;
    const [first, last] = [s[0], s[s.length - 1]];
    // Frames that arrived in one burst carry no timing.
    return last.t > first.t ? ((last.step - first.step) * 1000) / (last.t - first.t) : null;
  }

  const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });

  function updateStats() {
    if (!S.connected) return;
    const f = S.frame;
    const running = S.server?.running;
    const rate = stepRate();
    // Numbers sit in fixed-width boxes so the header does not shift as they change; narrower
    // windows hide the less needed parts (style.css), so the whole line is also the tooltip.
    const parts = [
      `<span class="st-step">step <b class="n7">${f ? f.step.toLocaleString('en') : 0}</b></span>`,
      `<span><b class="n4">${f ? compact.format(f.count) : 0}</b> boids</span>`,
      running
        ? `<span><b class="n4">${rate === null ? '–' : rate < 10 ? rate.toFixed(1) : Math.round(rate)}</b> steps/s</span>`
        : '<span><b>paused</b></span>',
      `<span class="st-fps"><b class="n3">${running ? Math.round(S.fps.value) : '–'}</b> fps</span>`,
      `<span class="st-bytes"><b class="n4">${(S.bytes.rate / 1e6).toFixed(1)}</b> MB/s</span>`,
    ];
    $('stat-text').innerHTML = parts.join('');
    $('stats').title = $('stat-text').innerText.replace(/\s+/g, ' ');
    $('replay-cmd').textContent = `boids run --events boids-events.json --steps ${f ? f.step : 0}`;
  }

  // ---------------------------------------------------------------- metrics plots

  function onMetrics(m) {
    S.lastMetrics = m;
    if (m.run !== S.metricsRun) {
      S.metricsRun = m.run;
      S.history.pol = [];
      S.history.flocks = [];
    }
    const push = (list, v) => {
      if (v == null) return;
      list.push(v);
      if (list.length > 300) list.shift();
    };
    push(S.history.pol, m.polarization);
    push(S.history.flocks, m.flocks);
    $('pol-value').textContent = m.polarization == null ? '–' : m.polarization.toFixed(3);
    $('flock-value').textContent = m.flocks == null ? '–' : String(m.flocks);
    $('metric-step').textContent = `at step ${m.step.toLocaleString()}`;
    const more = [
      ['mean speed', m.mean_speed],
      ['neighbours', m.mean_neighbors],
      ['nearest', m.nearest_neighbor_distance],
      ['milling', m.milling],
    ];
    $('metric-more').innerHTML = more.map(([k, v]) => `<span>${k} <b>${v == null ? '–' : fmt(v)}</b></span>`).join('');
    plot($('plot-pol'), S.history.pol, 1, '#7aa2ff');
    plot($('plot-flocks'), S.history.flocks, null, '#9cf0ff');
  }

  function plot(canvas, values, fixedMax, color) {
    const dpr = window.devicePixelRatio || 1;
    const w = (canvas.width = Math.round(canvas.clientWidth * dpr));
    const h = (canvas.height = Math.round(canvas.clientHeight * dpr));
    const ctx = canvas.getContext('2d');
    ctx.clearRect(0, 0, w, h);
    ctx.strokeStyle = 'rgba(122, 162, 255, 0.12)';
    ctx.lineWidth = dpr;
    for (const t of [0.25, 0.5, 0.75]) {
      ctx.beginPath();
      ctx.moveTo(0, h * t);
      ctx.lineTo(w, h * t);
      ctx.stroke();
    }
    if (values.length < 2) return;
    const max = fixedMax ?? Math.max(1, ...values) * 1.15;
    const pad = 3 * dpr;
    const x = (i) => (i / 299) * w;
    const y = (v) => h - pad - (v / max) * (h - 2 * pad);
    const grad = ctx.createLinearGradient(0, 0, 0, h);
    grad.addColorStop(0, color + '66');
    grad.addColorStop(1, color + '05');
    ctx.beginPath();
    ctx.moveTo(x(0), h);
    values.forEach((v, i) => ctx.lineTo(x(i), y(v)));
    ctx.lineTo(x(values.length - 1), h);
    ctx.closePath();
    ctx.fillStyle = grad;
    ctx.fill();
    ctx.beginPath();
    values.forEach((v, i) => (i ? ctx.lineTo(x(i), y(v)) : ctx.moveTo(x(i), y(v))));
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.5 * dpr;
    ctx.stroke();
    if (!fixedMax) {
      ctx.fillStyle = '#56627d';
      ctx.font = `${10 * dpr}px system-ui`;
      ctx.fillText(String(Math.round(max)), 4 * dpr, 11 * dpr);
    }
  }

  // ---------------------------------------------------------------- parameter controls

  const controls = new Map(); // name -> {set(value), row}

  function fmt(v) {
    if (typeof v === 'string') return v;
    if (typeof v !== 'number' || !isFinite(v)) return String(v);
    if (Number.isInteger(v)) return String(v);
    return String(Number(v.toPrecision(5)));
  }

  function parseValue(text, integer) {
    const t = text.trim().toLowerCase();
    if (t === 'inf' || t === '+inf' || t === 'infinity') return 'inf';
    if (t === '' || isNaN(Number(t))) return undefined;
    const n = Number(t);
    return integer && !Number.isInteger(n) ? undefined : n;
  }

  const pendingSets = new Map();
  let setTimer = null;

  function queueSet(key, value) {
    pendingSets.set(key, value);
    if (!setTimer) setTimer = setTimeout(flushSets, 60);
  }

  function flushSets() {
    clearTimeout(setTimer);
    setTimer = null;
    for (const [key, value] of pendingSets) sendSet(key, value);
    pendingSets.clear();
  }

  function sendSet(key, value) {
    S.sent.set(key, JSON.stringify(value));
    request({ type: 'set', key, value }, key);
  }

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') e.className = v;
      else if (k in e && typeof v !== 'string') e[k] = v;
      else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  }

  function markChanged(row, p, value) {
    row.classList.toggle('changed', JSON.stringify(value) !== JSON.stringify(p.default));
  }

  function sliderControl(p) {
    const s = p.slider;
    const integer = p.kind.type === 'integer';
    const toT = (v) => {
      if (v === 'inf' || v === Infinity) return 1000;
      const x = Math.min(Math.max(Number(v), s.min), s.max);
      return s.log ? (Math.log(Math.max(x, s.min) / s.min) / Math.log(s.max / s.min)) * 1000 : ((x - s.min) / (s.max - s.min)) * 1000;
    };
    const fromT = (t) => {
      let v = s.log ? s.min * Math.pow(s.max / s.min, t / 1000) : s.min + ((s.max - s.min) * t) / 1000;
      if (integer) return Math.round(v);
      v = Math.round(v / s.step) * s.step;
      return Number(v.toPrecision(6));
    };
    const range = el('input', { type: 'range', min: '0', max: '1000', step: '1', 'data-param': p.name, 'aria-label': p.name });
    const box = el('input', { type: 'text', 'data-param-text': p.name, 'aria-label': `${p.name} value`, spellcheck: 'false' });
    const row = el('div', { class: 'param row slider-row' }, label(p), range, box);
    range.addEventListener('pointerdown', () => (S.active = p.name));
    range.addEventListener('input', () => {
      const v = fromT(Number(range.value));
      box.value = fmt(v);
      box.classList.remove('bad');
      queueSet(p.name, v);
    });
    range.addEventListener('change', () => {
      flushSets();
      S.active = null;
    });
    box.addEventListener('focus', () => (S.active = p.name));
    box.addEventListener('blur', () => {
      S.active = null;
      if (S.server) set(S.server.params[p.name]);
    });
    box.addEventListener('change', () => {
      const v = parseValue(box.value, integer);
      if (v === undefined) {
        box.classList.add('bad');
        toast(`${p.name}: "${box.value}" is not ${integer ? 'a whole number' : 'a number'}`);
        return;
      }
      box.classList.remove('bad');
      range.value = toT(v);
      sendSet(p.name, v);
    });
    function set(v) {
      if (S.active === p.name) return;
      box.value = fmt(v);
      box.classList.remove('bad');
      range.value = toT(v);
      markChanged(row, p, v);
    }
    return { row, set };
  }

  // Names whose words alone do not read well; the rest read as their words ("visual range").
  const LABELS = {
    dt: 'time step',
    turnfactor: 'turn factor',
    topological_k: 'topological k (nearest)',
    scout_group1_fraction: 'scout group 1 share',
    scout_group2_fraction: 'scout group 2 share',
    preferred_angle1: 'group 1 direction',
    preferred_angle2: 'group 2 direction',
    init_x: 'start x', init_y: 'start y', init_vx: 'start vx', init_vy: 'start vy',
    world_x_min: 'world left', world_y_min: 'world top',
  };

  function label(p) {
    const text = LABELS[p.name] || p.name.replace(/_/g, ' ');
    const unit = p.unit ? ` [${p.unit}]` : '';
    return el('span', { class: 'label', title: `${p.name}${unit}\n${p.meaning}` },
      el('span', { class: 'name' }, text.charAt(0).toUpperCase() + text.slice(1)),
      ...(p.unit ? [el('small', { class: 'unit' }, p.unit)] : []));
  }

  function boolControl(p) {
    const box = el('input', { type: 'checkbox', 'data-param': p.name });
    const row = el('label', { class: 'param row' }, label(p), box);
    box.addEventListener('change', () => sendSet(p.name, box.checked));
    return { row, set: (v) => { box.checked = !!v; markChanged(row, p, v); } };
  }

  function choiceControl(p) {
    const select = el('select', { 'data-param': p.name }, ...p.kind.choices.map((c) => el('option', { value: c }, c)));
    const row = el('div', { class: 'param row' }, label(p), select);
    select.addEventListener('change', () => {
      select.blur(); // as for the preset: Space and the arrows go back to the shortcuts
      sendSet(p.name, select.value);
    });
    return { row, set: (v) => { select.value = v; markChanged(row, p, v); } };
  }

  function intervalControl(p) {
    const lo = el('input', { type: 'text', 'aria-label': `${p.name} low` });
    const hi = el('input', { type: 'text', 'aria-label': `${p.name} high` });
    const row = el('div', { class: 'param row' }, label(p), el('div', { class: 'pair' }, lo, hi));
    const change = () => {
      const pair = [parseValue(lo.value), parseValue(hi.value)];
      if (pair.some((v) => typeof v !== 'number')) {
        toast(`${p.name}: enter two numbers`);
        return;
      }
      sendSet(p.name, pair);
    };
    lo.addEventListener('change', change);
    hi.addEventListener('change', change);
    return {
      row,
      set: (v) => {
        if (document.activeElement !== lo) lo.value = fmt(v[0]);
        if (document.activeElement !== hi) hi.value = fmt(v[1]);
        markChanged(row, p, v);
      },
    };
  }

  function sectionOpen(name, params) {
    const v = (k) => params[k];
    switch (name) {
      case 'Flock': case 'Rules': case 'Neighbourhood': case 'Speed': return true;
      case 'Boundary': return v('boundary') !== 'torus';
      case 'Scouts': return Number(v('scout_group1_fraction')) + Number(v('scout_group2_fraction')) > 0;
      case 'Wander': return Number(v('wander_weight')) > 0;
      case 'Model': return v('model') !== 'boids';
      default: return false;
    }
  }

  function buildParams(desc) {
    const root = $('params');
    root.replaceChildren();
    controls.clear();
    const sections = new Map(desc.sections.map((name) => [name, []]));
    for (const p of desc.params) {
      if (!sections.has(p.section)) sections.set(p.section, []);
      sections.get(p.section).push(p);
    }
    const values = Object.fromEntries(desc.params.map((p) => [p.name, p.value]));
    for (const [name, list] of sections) {
      if (list.length === 0) continue;
      const details = el('details', { class: 'section' }, el('summary', {}, name));
      details.open = sectionOpen(name, values);
      for (const p of list) {
        let c;
        if (p.slider) c = sliderControl(p);
        else if (p.kind.type === 'bool') c = boolControl(p);
        else if (p.kind.type === 'choice') c = choiceControl(p);
        else c = intervalControl(p);
        c.set(p.value);
        c.models = p.models;
        controls.set(p.name, c);
        details.append(c.row);
      }
      root.append(details);
    }
    const preset = $('preset');
    preset.replaceChildren(...desc.presets.map((p) => el('option', { value: p.name, title: `${p.summary}\n${p.source}` }, p.name)));
    preset.value = desc.preset;
  }

  async function loadDescription() {
    if (S.loadingDescription) return;
    S.loadingDescription = true;
    try {
      const desc = await (await fetch('/api/params', { cache: 'no-store' })).json();
      S.description = desc;
      buildParams(desc);
      if (S.server) applyServerState(S.server);
    } catch (e) {
      toast(`cannot load the parameter list: ${e}`);
    } finally {
      S.loadingDescription = false;
    }
  }

  function onState(m) {
    const previous = S.server;
    S.server = m;
    if (!S.description || S.description.preset !== m.preset || (previous && previous.run !== m.run)) {
      loadDescription();
    }
    applyServerState(m);
    S.dirty = true;
  }

  function applyServerState(m) {
    for (const [name, c] of controls) {
      if (!(name in m.params)) continue;
      // While a change of ours is on its way, older broadcasts would pull the control back.
      if (S.sent.has(name)) {
        if (S.sent.get(name) !== JSON.stringify(m.params[name])) continue;
        S.sent.delete(name);
      }
      c.set(m.params[name]);
    }
    showModelParams(m.params.model);
    showGroupDirections(m.params);
    const play = $('play');
    play.textContent = m.running ? 'Pause' : 'Start';
    play.classList.toggle('paused', !m.running);
    if (document.activeElement !== $('seed')) $('seed').value = String(m.seed);
    if (document.activeElement !== $('preset')) $('preset').value = m.preset;
    if (document.activeElement !== $('speed')) $('speed').value = String(speedToT(m.steps_per_second));
    $('speed-out').textContent = `${fmt(Number(m.steps_per_second.toPrecision(3)))}/s`;
  }

  // Only the parameters that act in the current model; a section left empty is hidden.
  function showModelParams(model) {
    for (const c of controls.values()) c.row.hidden = !c.models.includes(model);
    for (const details of $('params').children) {
      details.hidden = ![...details.querySelectorAll('.param')].some((row) => !row.hidden);
    }
  }

  // The scout legend names the way each group is biased: its preferred direction.
  function showGroupDirections(params) {
    const way = (angle) => {
      const a = ((Number(angle) % TAU) + TAU) % TAU;
      if (Math.abs(a) < 1e-6 || Math.abs(a - TAU) < 1e-6) return '+x';
      if (Math.abs(a - Math.PI) < 1e-6) return '−x';
      return `${fmt(Number(((a * 180) / Math.PI).toPrecision(3)))}°`;
    };
    $('group1-way').textContent = way(params.preferred_angle1);
    $('group2-way').textContent = way(params.preferred_angle2);
  }

  // Speed slider: logarithmic from 0.5 to 1000 steps per second.
  const speedFromT = (t) => Number((0.5 * Math.pow(2000, t / 1000)).toPrecision(3));
  const speedToT = (v) => Math.round((Math.log(v / 0.5) / Math.log(2000)) * 1000);

  // ---------------------------------------------------------------- transport and display

  function sendOverlayMode() {
    if (S.overlayMode === 'hover') sendHover();
    else send({ type: 'overlay', mode: S.overlayMode });
  }

  function sendHover() {
    if (S.overlayMode !== 'hover') return;
    if (!S.mouse) {
      send({ type: 'overlay', mode: 'hover' });
      return;
    }
    const w = clientToWorld(S.mouse.cx, S.mouse.cy);
    const radius = (18 * (window.devicePixelRatio || 1)) / S.view.scale;
    send({ type: 'overlay', mode: 'hover', x: w.x, y: w.y, radius });
  }

  function setOverlayMode(mode) {
    S.overlayMode = mode;
    S.overlay = null;
    S.ruleScale = [null, null, null, null];
    for (const b of $('overlay-mode').querySelectorAll('button')) b.classList.toggle('on', b.dataset.mode === mode);
    $('legend').hidden = mode === 'off';
    sendOverlayMode();
    S.dirty = true;
  }

  function toast(message, ok) {
    const t = el('div', { class: ok ? 'toast ok' : 'toast' }, message);
    $('toasts').append(t);
    setTimeout(() => t.remove(), 6000);
  }

  function togglePlay() {
    request({ type: S.server?.running ? 'stop' : 'start' });
  }

  function reset() {
    const seed = Number($('seed').value);
    request(Number.isInteger(seed) && seed >= 0 ? { type: 'reset', seed } : { type: 'reset' });
  }

  $('play').addEventListener('click', togglePlay);
  $('step').addEventListener('click', () => request({ type: 'step' }));
  $('reset').addEventListener('click', reset);
  $('seed').addEventListener('change', reset);
  $('preset').addEventListener('change', () => {
    // A focused select takes Space and the arrow keys for itself: hand the keys back to the
    // shortcuts once a preset is chosen.
    $('preset').blur();
    const seed = Number($('seed').value);
    request({ type: 'reset', preset: $('preset').value, ...(Number.isInteger(seed) && seed >= 0 ? { seed } : {}) });
  });
  $('speed').addEventListener('input', () => {
    const v = speedFromT(Number($('speed').value));
    $('speed-out').textContent = `${fmt(v)}/s`;
    request({ type: 'speed', steps_per_second: v });
  });
  $('overlay-mode').addEventListener('click', (e) => {
    const mode = e.target?.dataset?.mode;
    if (mode) setOverlayMode(mode);
  });
  for (const id of ['show-radius', 'show-velocity', 'show-cohesion', 'show-separation', 'show-alignment', 'show-ghosts', 'by-group']) {
    $(id).addEventListener('change', () => (S.dirty = true));
  }
  $('vector-scale').addEventListener('input', () => {
    $('vector-scale-out').textContent = `×${fmt(Number(userVectorScale().toPrecision(2)))}`;
    S.dirty = true;
  });
  for (const id of ['export-toml', 'export-events']) {
    $(id).addEventListener('click', () => toast(`downloading ${id === 'export-toml' ? 'the parameters' : 'the event log'}`, true));
  }

  // Pan with a drag, zoom with the wheel, fit with a double click.
  let drag = null;
  stage.addEventListener('pointerdown', (e) => {
    drag = { x: e.clientX, y: e.clientY, moved: false };
    stage.setPointerCapture(e.pointerId);
  });
  stage.addEventListener('pointermove', (e) => {
    const rect = stage.getBoundingClientRect();
    S.mouse = { cx: e.clientX - rect.left, cy: e.clientY - rect.top };
    if (drag) {
      const dpr = window.devicePixelRatio || 1;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (drag.moved || Math.hypot(dx, dy) > 3) {
        drag.moved = true;
        stage.classList.add('panning');
        S.view.x0 -= (dx * dpr) / S.view.scale;
        S.view.y0 -= (dy * dpr) / S.view.scale;
        S.view.fitted = false;
        drag.x = e.clientX;
        drag.y = e.clientY;
        S.dirty = true;
      }
    }
    if (S.overlayMode === 'hover') S.hoverQueued = true;
  });
  stage.addEventListener('pointerup', () => {
    drag = null;
    stage.classList.remove('panning');
  });
  stage.addEventListener('pointerleave', () => {
    S.mouse = null;
    if (S.overlayMode === 'hover') S.hoverQueued = true;
  });
  stage.addEventListener('wheel', (e) => {
    e.preventDefault();
    const rect = stage.getBoundingClientRect();
    const before = clientToWorld(e.clientX - rect.left, e.clientY - rect.top);
    S.view.scale *= Math.exp(-e.deltaY * 0.0015);
    const after = clientToWorld(e.clientX - rect.left, e.clientY - rect.top);
    S.view.x0 += before.x - after.x;
    S.view.y0 += before.y - after.y;
    S.view.fitted = false;
    S.dirty = true;
    if (S.overlayMode === 'hover') S.hoverQueued = true;
  }, { passive: false });
  stage.addEventListener('dblclick', () => {
    S.view.fitted = true;
    S.dirty = true;
  });

  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t instanceof HTMLInputElement && t.type !== 'checkbox' && t.type !== 'range') return;
    if (t instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
    const modes = ['off', 'hover', 'all'];
    switch (e.key) {
      case ' ': e.preventDefault(); togglePlay(); break;
      case 'ArrowRight': case '.': if (t instanceof HTMLInputElement) return; request({ type: 'step' }); break;
      case 'r': case 'R': reset(); break;
      case 'o': case 'O': setOverlayMode(modes[(modes.indexOf(S.overlayMode) + 1) % 3]); break;
      case 'g': case 'G': $('by-group').checked = !$('by-group').checked; S.dirty = true; break;
      case 'f': case 'F': S.view.fitted = true; S.dirty = true; break;
    }
  });

  new ResizeObserver(resize).observe(stage);
  resize();

  // Read-only hooks for the browser test and for curious users.
  window.boidsViewer = {
    get renderer() { return renderer.name; },
    get framesDrawn() { return S.framesDrawn; },
    get frame() {
      const f = S.frame;
      return f && { step: f.step, count: f.count, world: f.world, running: (f.flags & FLAG_RUNNING) !== 0 };
    },
    get overlay() {
      const ov = S.overlay;
      const r = S.frame?.world;
      if (!ov) return null;
      let acrossSeam = 0;
      for (let k = 0; r && k < ov.nlinks; k++) {
        const x = ov.links[2 * k];
        const y = ov.links[2 * k + 1];
        if (x < r.x || x >= r.x + r.w || y < r.y || y >= r.y + r.h) acrossSeam++;
      }
      return { records: ov.records, links: ov.nlinks, acrossSeam, hover: !!(ov.flags & FLAG_HOVER) };
    },
    get server() { return S.server; },
    get metrics() { return S.lastMetrics; },
    /** Client (CSS px, page) coordinates of boid `i` of the latest frame. */
    boidClientPosition(i) {
      const f = S.frame;
      const b = f.boids;
      const o = 6 * i;
      const x = f.quant.x + ((b[o] | (b[o + 1] << 8)) / 65535) * f.quant.w;
      const y = f.quant.y + ((b[o + 2] | (b[o + 3] << 8)) / 65535) * f.quant.h;
      const dpr = window.devicePixelRatio || 1;
      const rect = stage.getBoundingClientRect();
      return { x: rect.left + sx(x) / dpr, y: rect.top + sy(y) / dpr };
    },
  };

  loadDescription();
  connect();
  requestAnimationFrame(frameLoop);
})();
