// WebGL2 drawing of a flock in three dimensions, for webgl.js: one instanced cone per boid, its
// per-instance attributes the frame's boid bytes themselves (u16 qx, qy, qz, u8 azimuth,
// elevation, group, a zero byte), seen through the orbit camera (orbit.js), with the world box's
// edges. Depth cueing: a boid's size shrinks with distance by perspective (never under
// MIN_BOID_PX) and its colour fades toward the world's from the box's nearest corner to its
// farthest, so depth reads even in a still picture.

import { COLOR } from './constants.js';
import { BOX_EDGES, Orbit, boxCorners } from './orbit.js';
import { BOID_BYTES_3D, GROUP_MASK, RESTING_BIT } from './wire.js';

const MIN_BOID_PX = 1.6; // device pixels
const FAR_BRIGHTNESS = 0.3; // share of a boid's colour left at the box's farthest corner
const BOX_COLOR = [70, 100, 160];

/**
 * A cone in units of the boid radius, nose at +x: a square pyramid (4 sides, 2 base triangles) as
 * triangles of (x, y, z) corners.
 */
const CONE = (() => {
  const nose = [2.2, 0, 0];
  const ring = [[-1, 1, 0], [-1, 0, 1], [-1, -1, 0], [-1, 0, -1]];
  const sides = ring.flatMap((c, k) => [nose, c, ring[(k + 1) % 4]]);
  return [...sides, ring[0], ring[2], ring[1], ring[0], ring[3], ring[2]];
})();

/** The flat normal of each of CONE's corners (its triangle's). */
const CONE_NORMALS = CONE.flatMap((_, k, all) => {
  if (k % 3) return [];
  const [a, b, c] = all.slice(k, k + 3);
  const u = b.map((v, i) => v - a[i]);
  const w = c.map((v, i) => v - a[i]);
  const n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
  const l = Math.hypot(...n);
  return [n, n, n].map((v) => v.map((x) => x / l));
});

const BOID_SHADER = `#version 300 es
  layout(location = 0) in vec3 a_corner;
  layout(location = 1) in vec3 a_normal;
  layout(location = 2) in vec3 a_q;
  layout(location = 3) in vec2 a_heading;
  layout(location = 4) in float a_group;
  uniform mat4 u_matrix;
  uniform vec3 u_quant_min;
  uniform vec3 u_quant_size;
  uniform vec3 u_eye;
  uniform vec3 u_forward;
  uniform float u_focal;
  uniform float u_size;
  uniform vec2 u_depths;
  uniform bool u_by_group;
  uniform vec3 u_colors[3];
  uniform vec3 u_resting_color;
  uniform vec3 u_fog;
  out vec3 v_color;
  void main() {
    vec3 p = u_quant_min + a_q * u_quant_size;
    float azimuth = a_heading.x * (6.28318530718 / 256.0);
    float elevation = (a_heading.y / 255.0 - 0.5) * 3.14159265359;
    vec3 dir = vec3(cos(azimuth) * cos(elevation), sin(azimuth) * cos(elevation), sin(elevation));
    vec3 side = normalize(cross(dir, abs(dir.z) < 0.9 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0)));
    vec3 up = cross(side, dir);
    float depth = dot(p - u_eye, u_forward);
    float size = max(u_size, ${MIN_BOID_PX} * depth / u_focal);
    vec3 world = p + (dir * a_corner.x + side * a_corner.y + up * a_corner.z) * size;
    gl_Position = u_matrix * vec4(world, 1.0);
    vec3 normal = dir * a_normal.x + side * a_normal.y + up * a_normal.z;
    float light = 0.6 + 0.4 * abs(dot(normal, normalize(vec3(0.3, -0.8, -0.5))));
    float far = clamp((depth - u_depths.x) / max(1e-6, u_depths.y - u_depths.x), 0.0, 1.0);
    int g = u_by_group ? min(int(a_group + 0.5) & ${GROUP_MASK}, 2) : 0;
    vec3 base = a_group >= ${RESTING_BIT}.0 ? u_resting_color : u_colors[g];
    v_color = mix(u_fog, base * light, mix(1.0, ${FAR_BRIGHTNESS}, far));
  }`;

const LINE_SHADER = `#version 300 es
  layout(location = 0) in vec3 a_position;
  uniform mat4 u_matrix;
  void main() { gl_Position = u_matrix * vec4(a_position, 1.0); }`;

const COLOR_SHADER = (input) => `#version 300 es
  precision mediump float;
  ${input}
  out vec4 color;
  void main() { color = vec4(${input ? 'v_color' : 'u_color'}, 1.0); }`;

const norm = (c) => c.map((v) => v / 255);

/** The nearest and farthest depth of `box`'s corners from `lens`'s eye. */
export function boxDepths(lens, box) {
  const depths = boxCorners(box).map((c) => c.reduce((s, v, a) => s + (v - lens.eye[a]) * lens.forward[a], 0));
  return [Math.max(0, Math.min(...depths)), Math.max(...depths)];
}

/**
 * The 3D drawing on `gl` (a context with a depth buffer), compiled with `compile(gl, vertex,
 * fragment)`: draw(frame, byGroup, radius, orbit) draws a version 3 frame.
 */
export function createWebGL3D(gl, canvas, compile) {
  const boidProgram = compile(gl, BOID_SHADER, COLOR_SHADER('in vec3 v_color;'));
  const lineProgram = compile(gl, LINE_SHADER, COLOR_SHADER('').replace('precision mediump float;', 'precision mediump float;\n  uniform vec3 u_color;'));
  const u = (program, name) => gl.getUniformLocation(program, name);
  const uni = Object.fromEntries(['matrix', 'quant_min', 'quant_size', 'eye', 'forward', 'focal', 'size', 'depths', 'by_group', 'colors', 'resting_color', 'fog']
    .map((name) => [name, u(boidProgram, `u_${name}`)]));

  const boids = gl.createBuffer();
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  for (const [location, data] of [[0, CONE.flat()], [1, CONE_NORMALS.flat()]]) {
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.STATIC_DRAW);
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, 3, gl.FLOAT, false, 0, 0);
  }
  gl.bindBuffer(gl.ARRAY_BUFFER, boids);
  const instance = (location, size, type, normalized, offset) => {
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, size, type, normalized, BOID_BYTES_3D, offset);
    gl.vertexAttribDivisor(location, 1);
  };
  instance(2, 3, gl.UNSIGNED_SHORT, true, 0);
  instance(3, 2, gl.UNSIGNED_BYTE, false, 6);
  instance(4, 1, gl.UNSIGNED_BYTE, false, 8);

  const edges = gl.createBuffer();
  const lineVao = gl.createVertexArray();
  gl.bindVertexArray(lineVao);
  gl.bindBuffer(gl.ARRAY_BUFFER, edges);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  gl.bindVertexArray(null);
  let uploaded = null;

  return function draw(frame, byGroup, radius, orbit) {
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(...norm(COLOR.bg), 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    const lens = orbit.lens(canvas);
    const matrix = Orbit.matrix(lens, canvas);
    const corners = boxCorners(frame.world);
    gl.useProgram(lineProgram);
    gl.bindVertexArray(lineVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, edges);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(BOX_EDGES.flatMap(([a, b]) => [...corners[a], ...corners[b]])), gl.STREAM_DRAW);
    gl.uniformMatrix4fv(u(lineProgram, 'u_matrix'), false, matrix);
    gl.uniform3f(u(lineProgram, 'u_color'), ...norm(BOX_COLOR));
    gl.drawArrays(gl.LINES, 0, 2 * BOX_EDGES.length);

    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(boidProgram);
    gl.bindVertexArray(vao);
    gl.bindBuffer(gl.ARRAY_BUFFER, boids);
    if (uploaded !== frame) {
      gl.bufferData(gl.ARRAY_BUFFER, frame.boids, gl.STREAM_DRAW);
      uploaded = frame;
    }
    const q = frame.quant;
    gl.uniformMatrix4fv(uni.matrix, false, matrix);
    gl.uniform3f(uni.quant_min, q.x, q.y, q.z);
    gl.uniform3f(uni.quant_size, q.w, q.h, q.d);
    gl.uniform3f(uni.eye, ...lens.eye);
    gl.uniform3f(uni.forward, ...lens.forward);
    gl.uniform1f(uni.focal, lens.focal);
    gl.uniform1f(uni.size, radius);
    gl.uniform2f(uni.depths, ...boxDepths(lens, frame.world));
    gl.uniform1i(uni.by_group, byGroup ? 1 : 0);
    gl.uniform3fv(uni.colors, new Float32Array([...norm(COLOR.boid), ...norm(COLOR.scout1), ...norm(COLOR.scout2)]));
    gl.uniform3f(uni.resting_color, ...norm(COLOR.resting));
    gl.uniform3f(uni.fog, ...norm(COLOR.world));
    gl.drawArraysInstanced(gl.TRIANGLES, 0, CONE.length, frame.count);
    gl.disable(gl.DEPTH_TEST);
    gl.bindVertexArray(null);
  };
}
