// The WebGL2 boid renderer: one instanced dart per boid, whose per-instance attributes are the
// frame's boid bytes themselves (u16 qx, qy, u8 heading, group), uploaded once per frame as
// they arrive; the vertex shader turns them into world and screen positions. A boid resting on
// the ground (the group byte's RESTING_BIT) is drawn in the same pass as a flat bar instead. On a
// torus that a camera follows, each boid is drawn at its image nearest the camera (View.wrap). A
// flock crowded in the picture is drawn translucent (crowd.js).
// A flock in three dimensions (a version 3 frame) is drawn by webgl3d.js through the orbit camera.

import { COLOR, DART, REST_MARK } from './constants.js';
import { crowdOpacity2D } from './crowd.js';
import { createWebGL3D } from './webgl3d.js';
import { BOID_BYTES, GROUP_MASK, RESTING_BIT } from './wire.js';

const VERTEX_SHADER = `#version 300 es
  layout(location = 0) in vec2 a_corner;
  layout(location = 1) in vec2 a_q;
  layout(location = 2) in float a_head;
  layout(location = 3) in float a_group;
  layout(location = 4) in vec2 a_rest_corner;
  uniform vec4 u_quant;
  uniform vec2 u_origin;
  uniform float u_scale;
  uniform vec2 u_canvas;
  uniform float u_size;
  uniform bool u_by_group;
  uniform vec3 u_colors[3];
  uniform vec3 u_resting_color;
  uniform vec2 u_anchor;
  uniform vec2 u_period;
  uniform bool u_perching;
  uniform float u_rest_y;
  out vec3 v_color;
  void main() {
    vec2 p = u_quant.xy + a_q * u_quant.zw;
    if (u_period.x > 0.0) p += u_period * floor((u_anchor - p) / u_period + 0.5);
    bool resting = a_group >= ${RESTING_BIT}.0;
    // A resting boid sits on the ground line, wherever below it it landed.
    if (resting && u_perching) p.y = u_rest_y;
    float angle = a_head * (6.28318530718 / 256.0);
    vec2 dir = resting ? vec2(1.0, 0.0) : vec2(cos(angle), sin(angle));
    vec2 side = vec2(-dir.y, dir.x);
    vec2 corner = resting ? a_rest_corner : a_corner;
    vec2 world = p + (dir * corner.x + side * corner.y) * u_size;
    vec2 px = (world - u_origin) * u_scale;
    vec2 clip = px / u_canvas * 2.0 - 1.0;
    gl_Position = vec4(clip.x, -clip.y, 0.0, 1.0);
    int g = u_by_group ? min(int(a_group + 0.5) & ${GROUP_MASK}, 2) : 0;
    v_color = resting ? u_resting_color : u_colors[g];
  }`;

const FRAGMENT_SHADER = `#version 300 es
  precision mediump float;
  in vec3 v_color;
  uniform float u_alpha;
  out vec4 color;
  void main() { color = vec4(v_color, u_alpha); }`;

const norm = (c) => c.map((v) => v / 255);

/** The name of the GPU WebGL2 would run on, or null without WebGL2. */
function webglDevice() {
  // A scratch canvas: a canvas that gave out a WebGL context cannot give a 2D one.
  const probe = document.createElement('canvas').getContext('webgl2');
  if (!probe) return null;
  const info = probe.getExtension('WEBGL_debug_renderer_info');
  const device = info ? String(probe.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
  probe.getExtension('WEBGL_lose_context')?.loseContext();
  return device;
}

/** The program of a vertex and a fragment shader's sources. */
function compile(gl, vertexSource, fragmentSource) {
  const shader = (type, src) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER, vertexSource));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER, fragmentSource));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
  return program;
}

/** Binds the corners `shape` (x, y pairs) to attribute `location`. */
function shapeAttribute(gl, location, shape) {
  gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(shape), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, 2, gl.FLOAT, false, 0, 0);
}

/**
 * The vertex array: the dart's and the resting bar's corners, then the boids' bytes as
 * per-instance attributes.
 */
function boidAttributes(gl, boids) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  shapeAttribute(gl, 0, DART);
  shapeAttribute(gl, 4, REST_MARK);
  gl.bindBuffer(gl.ARRAY_BUFFER, boids);
  gl.enableVertexAttribArray(1);
  gl.vertexAttribPointer(1, 2, gl.UNSIGNED_SHORT, true, BOID_BYTES, 0);
  gl.vertexAttribDivisor(1, 1);
  gl.enableVertexAttribArray(2);
  gl.vertexAttribPointer(2, 1, gl.UNSIGNED_BYTE, false, BOID_BYTES, 4);
  gl.vertexAttribDivisor(2, 1);
  gl.enableVertexAttribArray(3);
  gl.vertexAttribPointer(3, 1, gl.UNSIGNED_BYTE, false, BOID_BYTES, 5);
  gl.vertexAttribDivisor(3, 1);
  return vao;
}

/**
 * A renderer drawing on `canvas` with WebGL2, or null where there is none, or where it runs in
 * software (no GPU: canvas 2D is faster then) unless `evenInSoftware`. Flat flocks are seen
 * through `view`, flocks in three dimensions through `orbit` (orbit.js).
 */
export function createWebGLRenderer(canvas, view, evenInSoftware, orbit) {
  const device = webglDevice();
  if (device === null) return null;
  if (!evenInSoftware && /swiftshader|llvmpipe|softpipe|software/i.test(device)) {
    console.info(`WebGL2 runs in software here (${device}); drawing with canvas 2D, which is faster then.`);
    return null;
  }
  // The depth buffer is for flocks in three dimensions; flat ones are drawn without a depth test.
  const gl = canvas.getContext('webgl2', { antialias: true, alpha: false, depth: true });
  if (!gl) return null;
  let program;
  let draw3d;
  try {
    program = compile(gl, VERTEX_SHADER, FRAGMENT_SHADER);
    draw3d = createWebGL3D(gl, canvas, compile);
  } catch (e) {
    console.warn('WebGL2 unavailable, drawing with canvas 2D:', e);
    return null;
  }
  const u = (name) => gl.getUniformLocation(program, name);
  const uni = {
    quant: u('u_quant'), origin: u('u_origin'), scale: u('u_scale'), canvas: u('u_canvas'),
    size: u('u_size'), byGroup: u('u_by_group'), colors: u('u_colors'), restingColor: u('u_resting_color'), perching: u('u_perching'), restY: u('u_rest_y'),
    anchor: u('u_anchor'), period: u('u_period'), alpha: u('u_alpha'),
  };
  const boids = gl.createBuffer();
  const vao = boidAttributes(gl, boids);
  let uploaded = null; // the frame whose boids the buffer holds

  // The world's rectangle in its own colour, over the background.
  function clear(world) {
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.disable(gl.SCISSOR_TEST);
    gl.clearColor(...norm(COLOR.bg), 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    if (!world) return;
    const x0 = Math.max(0, Math.floor(view.sx(world.x)));
    const y1 = Math.min(canvas.height, Math.ceil(view.sy(world.y + world.h)));
    const x1 = Math.min(canvas.width, Math.ceil(view.sx(world.x + world.w)));
    const y0 = Math.max(0, Math.floor(view.sy(world.y)));
    if (x1 > x0 && y1 > y0) {
      gl.enable(gl.SCISSOR_TEST);
      gl.scissor(x0, canvas.height - y1, x1 - x0, y1 - y0);
      gl.clearColor(...norm(COLOR.world), 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.disable(gl.SCISSOR_TEST);
    }
  }

  return {
    name: 'webgl2',
    canvas,
    /**
     * Draws `frame` (or only the background without one); `radius` is a boid's, in world units;
     * `obstacles` the list to draw in three dimensions (flat ones are the overlay's); `restY`
     * the world y resting boids are drawn at, on the ground line (null without perching).
     */
    draw(frame, byGroup, radius, obstacles, restY = null) {
      if (frame?.dimensions === 3) {
        draw3d(frame, byGroup, radius, orbit, obstacles);
        return;
      }
      clear(frame?.world);
      if (!frame) return;
      gl.useProgram(program);
      gl.bindVertexArray(vao);
      gl.bindBuffer(gl.ARRAY_BUFFER, boids);
      if (uploaded !== frame) {
        gl.bufferData(gl.ARRAY_BUFFER, frame.boids, gl.STREAM_DRAW);
        uploaded = frame;
      }
      const q = frame.quant;
      gl.uniform4f(uni.quant, q.x, q.y, q.w, q.h);
      gl.uniform2f(uni.origin, view.x0, view.y0);
      gl.uniform1f(uni.scale, view.scale);
      gl.uniform2f(uni.canvas, canvas.width, canvas.height);
      gl.uniform1f(uni.size, radius);
      gl.uniform1i(uni.byGroup, byGroup ? 1 : 0);
      gl.uniform3fv(uni.colors, new Float32Array([...norm(COLOR.boid), ...norm(COLOR.scout1), ...norm(COLOR.scout2)]));
      gl.uniform3f(uni.restingColor, ...norm(COLOR.resting));
      gl.uniform1i(uni.perching, restY === null ? 0 : 1);
      gl.uniform1f(uni.restY, restY ?? 0);
      const wrap = view.wrap;
      gl.uniform2f(uni.anchor, wrap?.anchor.x ?? 0, wrap?.anchor.y ?? 0);
      gl.uniform2f(uni.period, wrap?.period.w ?? 0, wrap?.period.h ?? 0);
      const opacity = crowdOpacity2D(frame, view, canvas, radius * view.scale);
      gl.uniform1f(uni.alpha, opacity);
      if (opacity < 1) {
        gl.enable(gl.BLEND);
        gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
      }
      gl.drawArraysInstanced(gl.TRIANGLES, 0, 6, frame.count);
      gl.disable(gl.BLEND);
    },
  };
}
