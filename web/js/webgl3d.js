// WebGL2 drawing of a flock in three dimensions, for webgl.js: one instanced cone per boid, its
// per-instance attributes the frame's boid bytes themselves (u16 qx, qy, qz, u8 azimuth,
// elevation, group, a zero byte), seen through the orbit camera (orbit.js), with the world box's
// edges. Depth cueing: a boid's size shrinks with distance by perspective (never under
// MIN_DART_PX) and its colour fades toward the world's from the box's nearest corner to its
// farthest, so depth reads even in a still picture. A flock crowded in the picture is drawn
// translucent (crowd.js), its cones blended without writing depth.
//
// The world's bodies go in the same depth buffer: predators are larger cones in their orange,
// unshaded and unfaded so they stand out at any depth (the frame's predator records have a boid's
// layout), and the obstacles (solids.js) are shaded, depth-cued, translucent spheres and boxes
// (lighter at the rim), one instanced mesh each, drawn last without writing depth, so boids
// behind them show through, boids in front are not tinted (but for a translucent crowd, which
// leaves no depth to keep them from it), and each shows its near side only
// (back faces culled). A box obstacle has its edges drawn too.

import { COLOR, FAR_BRIGHTNESS, MIN_DART_PX, OBSTACLE_ALPHA, PREDATOR_MIN_PX, PREDATOR_SCALE } from './constants.js';
import { crowdOpacity3D } from './crowd.js';
import { pixelRatio } from './dom.js';
import { BOX_EDGES, Orbit, boxCorners } from './orbit.js';
import { boxOf, centreOf } from './solids.js';
import { BOID_BYTES_3D, GROUP_MASK, RESTING_BIT } from './wire.js';

const BOX_COLOR = [70, 100, 160];

/** The normal of the triangle a, b, c (corners [x, y, z]), not normalised. */
function triangleNormal(a, b, c) {
  const u = b.map((v, i) => v - a[i]);
  const w = c.map((v, i) => v - a[i]);
  return [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
}

/**
 * Triangles (corners [x, y, z] around the origin, three a triangle) turned to face outward, as
 * culling front and back faces needs: counter-clockwise seen from outside.
 */
const outward = (corners) => corners.flatMap((_, k) => {
  if (k % 3) return [];
  const [a, b, c] = corners.slice(k, k + 3);
  const centre = [0, 1, 2].map((i) => a[i] + b[i] + c[i]);
  const n = triangleNormal(a, b, c);
  return n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2] >= 0 ? [a, b, c] : [a, c, b];
});

/**
 * A cone in units of the boid radius, nose at +x: a square pyramid (4 sides, 2 base triangles) as
 * triangles of (x, y, z) corners, all facing outward, so that culling one side of a translucent
 * crowd's cones leaves one layer of each.
 */
const CONE = (() => {
  const nose = [2.2, 0, 0];
  const ring = [[-1, 1, 0], [-1, 0, 1], [-1, -1, 0], [-1, 0, -1]];
  const sides = ring.flatMap((c, k) => [nose, c, ring[(k + 1) % 4]]);
  return outward([...sides, ring[0], ring[2], ring[1], ring[0], ring[3], ring[2]]);
})();

/** The flat normal of each of CONE's corners (its triangle's). */
const CONE_NORMALS = CONE.flatMap((_, k, all) => {
  if (k % 3) return [];
  const n = triangleNormal(...all.slice(k, k + 3));
  const l = Math.hypot(...n);
  return [n, n, n].map((v) => v.map((x) => x / l));
});

/** The unit sphere as triangles (20 slices, 12 stacks); each corner is its own normal. */
const SPHERE = (() => {
  const [slices, stacks] = [20, 12];
  const at = (i, j) => {
    const [theta, phi] = [(i / slices) * 2 * Math.PI, (j / stacks) * Math.PI];
    return [Math.sin(phi) * Math.cos(theta), Math.cos(phi), Math.sin(phi) * Math.sin(theta)];
  };
  const corners = [];
  for (let j = 0; j < stacks; j++) {
    for (let i = 0; i < slices; i++) {
      const [a, b, c, d] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
      if (j > 0) corners.push(a, b, c);
      if (j < stacks - 1) corners.push(a, c, d);
    }
  }
  return outward(corners);
})();

/** The cube [-1, 1]^3 as triangles, with each face's normal for its corners. */
const CUBE = (() => {
  const corners = [];
  const normals = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [-1, 1]) {
      const face = [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([u, v]) => {
        const p = [u, v];
        p.splice(axis, 0, side);
        return p;
      });
      const n = [0, 0, 0];
      n[axis] = side;
      corners.push(...outward([face[0], face[1], face[2], face[0], face[2], face[3]]));
      normals.push(n, n, n, n, n, n);
    }
  }
  return { corners, normals };
})();

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
  uniform float u_min_px;
  uniform vec2 u_depths;
  uniform bool u_by_group;
  uniform vec3 u_colors[3];
  uniform vec3 u_resting_color;
  uniform vec4 u_paint;
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
    float size = max(u_size, u_min_px * depth / u_focal);
    vec3 world = p + (dir * a_corner.x + side * a_corner.y + up * a_corner.z) * size;
    gl_Position = u_matrix * vec4(world, 1.0);
    vec3 normal = dir * a_normal.x + side * a_normal.y + up * a_normal.z;
    float light = 0.6 + 0.4 * abs(dot(normal, normalize(vec3(0.3, -0.8, -0.5))));
    float far = clamp((depth - u_depths.x) / max(1e-6, u_depths.y - u_depths.x), 0.0, 1.0);
    int g = u_by_group ? min(int(a_group + 0.5) & ${GROUP_MASK}, 2) : 0;
    vec3 base = a_group >= ${RESTING_BIT}.0 ? u_resting_color : u_colors[g];
    // A painted cone (a predator) keeps its colour at any depth, so that it stands out.
    v_color = u_paint.a > 0.0 ? u_paint.rgb : mix(u_fog, base * light, mix(1.0, ${FAR_BRIGHTNESS}, far));
  }`;

const LINE_SHADER = `#version 300 es
  layout(location = 0) in vec3 a_position;
  uniform mat4 u_matrix;
  void main() { gl_Position = u_matrix * vec4(a_position, 1.0); }`;

const LINE_FRAGMENT = `#version 300 es
  precision mediump float;
  uniform vec3 u_color;
  out vec4 color;
  void main() { color = vec4(u_color, 1.0); }`;

const BOID_FRAGMENT = `#version 300 es
  precision mediump float;
  in vec3 v_color;
  uniform float u_alpha;
  out vec4 color;
  void main() { color = vec4(v_color, u_alpha); }`;

const SOLID_SHADER = `#version 300 es
  layout(location = 0) in vec3 a_corner;
  layout(location = 1) in vec3 a_normal;
  layout(location = 2) in vec3 a_centre;
  layout(location = 3) in vec3 a_half;
  uniform mat4 u_matrix;
  uniform vec3 u_eye;
  uniform vec3 u_forward;
  uniform vec2 u_depths;
  uniform vec3 u_color;
  uniform vec3 u_edge_color;
  uniform vec3 u_fog;
  out vec3 v_color;
  out float v_rim;
  void main() {
    vec3 world = a_centre + a_corner * a_half;
    gl_Position = u_matrix * vec4(world, 1.0);
    vec3 normal = normalize(a_normal / a_half);
    float light = 0.35 + 0.65 * max(0.0, dot(normal, normalize(vec3(-0.3, -0.8, -0.5))));
    float far = clamp((dot(world - u_eye, u_forward) - u_depths.x) / max(1e-6, u_depths.y - u_depths.x), 0.0, 1.0);
    // The rim, where the surface turns away from the eye, is lighter: a sphere's outline shows.
    v_rim = pow(1.0 - abs(dot(normal, normalize(world - u_eye))), 3.0);
    v_color = mix(u_fog, mix(u_color * light, u_edge_color, v_rim), mix(1.0, ${FAR_BRIGHTNESS}, far));
  }`;

const SOLID_FRAGMENT = `#version 300 es
  precision mediump float;
  in vec3 v_color;
  in float v_rim;
  out vec4 color;
  void main() { color = vec4(v_color, ${OBSTACLE_ALPHA} + 0.5 * v_rim); }`;

/** Per-instance centre and half-size ([x, y, z] each, six floats) of the spheres and of the boxes. */
function solidInstances(obstacles) {
  const spheres = obstacles.filter((s) => s.shape === 'sphere').flatMap((s) => [...s.center, s.radius, s.radius, s.radius]);
  const boxes = obstacles.filter((s) => s.shape === 'box').flatMap((s) => [...centreOf(s), ...s.min.map((v, k) => (s.max[k] - v) / 2)]);
  return { spheres: new Float32Array(spheres), boxes: new Float32Array(boxes) };
}

const norm = (c) => c.map((v) => v / 255);

/** The nearest and farthest depth of `box`'s corners from `lens`'s eye. */
export function boxDepths(lens, box) {
  const depths = boxCorners(box).map((c) => c.reduce((s, v, a) => s + (v - lens.eye[a]) * lens.forward[a], 0));
  return [Math.max(0, Math.min(...depths)), Math.max(...depths)];
}

/** A vertex array of `mesh`'s corners and normals ([x, y, z] each) at locations 0 and 1. */
function meshArray(gl, corners, normals) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  for (const [location, data] of [[0, corners.flat()], [1, normals.flat()]]) {
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.STATIC_DRAW);
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, 3, gl.FLOAT, false, 0, 0);
  }
  return vao;
}

/** A vertex array of cones whose per-instance attributes are frame records (boids or predators) in `records`. */
function coneArray(gl, records) {
  const vao = meshArray(gl, CONE, CONE_NORMALS);
  gl.bindBuffer(gl.ARRAY_BUFFER, records);
  const instance = (location, size, type, normalized, offset) => {
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, size, type, normalized, BOID_BYTES_3D, offset);
    gl.vertexAttribDivisor(location, 1);
  };
  instance(2, 3, gl.UNSIGNED_SHORT, true, 0);
  instance(3, 2, gl.UNSIGNED_BYTE, false, 6);
  instance(4, 1, gl.UNSIGNED_BYTE, false, 8);
  return vao;
}

/** A vertex array of a solid `mesh` whose per-instance centre and half-size are in `instances`. */
function solidArray(gl, corners, normals, instances) {
  const vao = meshArray(gl, corners, normals);
  gl.bindBuffer(gl.ARRAY_BUFFER, instances);
  for (const [location, offset] of [[2, 0], [3, 12]]) {
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, 3, gl.FLOAT, false, 24, offset);
    gl.vertexAttribDivisor(location, 1);
  }
  return vao;
}

/**
 * The 3D drawing on `gl` (a context with a depth buffer), compiled with `compile(gl, vertex,
 * fragment)`: draw(frame, byGroup, radius, orbit, obstacles) draws a version 3 frame, and the
 * obstacles of the list `obstacles` (solids.js).
 */
export function createWebGL3D(gl, canvas, compile) {
  const boidProgram = compile(gl, BOID_SHADER, BOID_FRAGMENT);
  const lineProgram = compile(gl, LINE_SHADER, LINE_FRAGMENT);
  const solidProgram = compile(gl, SOLID_SHADER, SOLID_FRAGMENT);
  const u = (program, name) => gl.getUniformLocation(program, name);
  const uni = Object.fromEntries(['matrix', 'quant_min', 'quant_size', 'eye', 'forward', 'focal', 'size', 'min_px', 'depths', 'by_group', 'colors', 'resting_color', 'paint', 'fog', 'alpha']
    .map((name) => [name, u(boidProgram, `u_${name}`)]));
  const solidUni = Object.fromEntries(['matrix', 'eye', 'forward', 'depths', 'color', 'edge_color', 'fog'].map((name) => [name, u(solidProgram, `u_${name}`)]));

  const [boids, predators, spheres, boxes, edges] = [0, 1, 2, 3, 4].map(() => gl.createBuffer());
  const boidVao = coneArray(gl, boids);
  const predatorVao = coneArray(gl, predators);
  const sphereVao = solidArray(gl, SPHERE, SPHERE, spheres);
  const boxVao = solidArray(gl, CUBE.corners, CUBE.normals, boxes);
  const lineVao = gl.createVertexArray();
  gl.bindVertexArray(lineVao);
  gl.bindBuffer(gl.ARRAY_BUFFER, edges);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  gl.bindVertexArray(null);
  let uploaded = null;

  /** Draws the edges of `boxList` ({x, y, z, w, h, d} each) in `color`. */
  function drawEdges(matrix, boxList, color) {
    const lines = boxList.flatMap((box) => {
      const corners = boxCorners(box);
      return BOX_EDGES.flatMap(([a, b]) => [...corners[a], ...corners[b]]);
    });
    if (lines.length === 0) return;
    gl.useProgram(lineProgram);
    gl.bindVertexArray(lineVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, edges);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(lines), gl.STREAM_DRAW);
    gl.uniformMatrix4fv(u(lineProgram, 'u_matrix'), false, matrix);
    gl.uniform3f(u(lineProgram, 'u_color'), ...norm(color));
    gl.drawArrays(gl.LINES, 0, lines.length / 3);
  }

  /**
   * The cones: the boids, then the predators, larger and orange. A crowd (`opacity` under 1) is
   * blended without writing depth, so every cone along a line of sight adds to the picture, and
   * with one side of each cone culled, so that each adds one layer.
   */
  function drawCones(frame, byGroup, radius, lens, matrix, depths, opacity) {
    gl.useProgram(boidProgram);
    const q = frame.quant;
    gl.uniformMatrix4fv(uni.matrix, false, matrix);
    gl.uniform3f(uni.quant_min, q.x, q.y, q.z);
    gl.uniform3f(uni.quant_size, q.w, q.h, q.d);
    gl.uniform3f(uni.eye, ...lens.eye);
    gl.uniform3f(uni.forward, ...lens.forward);
    gl.uniform1f(uni.focal, lens.focal);
    gl.uniform2f(uni.depths, ...depths);
    gl.uniform1i(uni.by_group, byGroup ? 1 : 0);
    gl.uniform3fv(uni.colors, new Float32Array([...norm(COLOR.boid), ...norm(COLOR.scout1), ...norm(COLOR.scout2)]));
    gl.uniform3f(uni.resting_color, ...norm(COLOR.resting));
    gl.uniform3f(uni.fog, ...norm(COLOR.world));
    if (uploaded !== frame) {
      gl.bindBuffer(gl.ARRAY_BUFFER, boids);
      gl.bufferData(gl.ARRAY_BUFFER, frame.boids, gl.STREAM_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, predators);
      gl.bufferData(gl.ARRAY_BUFFER, frame.predators, gl.STREAM_DRAW);
      uploaded = frame;
    }
    gl.bindVertexArray(boidVao);
    gl.uniform1f(uni.size, radius);
    gl.uniform1f(uni.min_px, MIN_DART_PX);
    gl.uniform4f(uni.paint, 0, 0, 0, 0);
    gl.uniform1f(uni.alpha, opacity);
    const crowd = opacity < 1;
    if (crowd) {
      gl.enable(gl.BLEND);
      gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
      gl.depthMask(false);
      gl.enable(gl.CULL_FACE);
    }
    gl.drawArraysInstanced(gl.TRIANGLES, 0, CONE.length, frame.count);
    if (crowd) {
      gl.disable(gl.CULL_FACE);
      gl.depthMask(true);
      gl.disable(gl.BLEND);
    }
    if (frame.predatorCount === 0) return;
    gl.uniform1f(uni.alpha, 1);
    gl.bindVertexArray(predatorVao);
    gl.uniform1f(uni.size, PREDATOR_SCALE * radius);
    gl.uniform1f(uni.min_px, PREDATOR_MIN_PX * pixelRatio());
    gl.uniform4f(uni.paint, ...norm(COLOR.predator), 1);
    gl.drawArraysInstanced(gl.TRIANGLES, 0, CONE.length, frame.predatorCount);
  }

  /** The obstacles' bodies, translucent over what is already drawn. */
  function drawSolids(obstacles, lens, matrix, depths) {
    const instances = solidInstances(obstacles);
    gl.useProgram(solidProgram);
    gl.uniformMatrix4fv(solidUni.matrix, false, matrix);
    gl.uniform3f(solidUni.eye, ...lens.eye);
    gl.uniform3f(solidUni.forward, ...lens.forward);
    gl.uniform2f(solidUni.depths, ...depths);
    gl.uniform3f(solidUni.color, ...norm(COLOR.obstacle));
    gl.uniform3f(solidUni.edge_color, ...norm(COLOR.obstacleEdge));
    gl.uniform3f(solidUni.fog, ...norm(COLOR.world));
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    gl.enable(gl.CULL_FACE);
    gl.depthMask(false);
    for (const [vao, buffer, data, mesh] of [[sphereVao, spheres, instances.spheres, SPHERE], [boxVao, boxes, instances.boxes, CUBE.corners]]) {
      if (data.length === 0) continue;
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.STREAM_DRAW);
      gl.bindVertexArray(vao);
      gl.drawArraysInstanced(gl.TRIANGLES, 0, mesh.length, data.length / 6);
    }
    gl.depthMask(true);
    gl.disable(gl.CULL_FACE);
    gl.disable(gl.BLEND);
  }

  return function draw(frame, byGroup, radius, orbit, obstacles) {
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(...norm(COLOR.bg), 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    const lens = orbit.lens(canvas);
    const matrix = Orbit.matrix(lens, canvas);
    const depths = boxDepths(lens, frame.world);
    drawEdges(matrix, [frame.world], BOX_COLOR);
    gl.enable(gl.DEPTH_TEST);
    drawCones(frame, byGroup, radius, lens, matrix, depths, crowdOpacity3D(frame, orbit, lens, canvas, radius));
    drawEdges(matrix, obstacles.filter((s) => s.shape === 'box').map(boxOf), COLOR.obstacleEdge);
    drawSolids(obstacles, lens, matrix, depths);
    gl.disable(gl.DEPTH_TEST);
    gl.bindVertexArray(null);
  };
}
