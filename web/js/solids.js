// The obstacles of a flock in three dimensions, as the server's state lists them (the keys of a
// config file's [[obstacles]] tables, world units): {shape: 'sphere', center: [x, y, z], radius}
// and {shape: 'box', min: [x, y, z], max: [x, y, z]} (axis-aligned). This module is their
// geometry on the page, as obstacles.js is the flat shapes': where a line of sight first meets
// one (the tools pick what the pointer is over so), its outline through the orbit camera (what a
// tool marks, and the one being made), and the box a drag spans. The renderers draw their bodies
// (webgl3d.js, canvas3d.js), shaded and translucent, hidden behind nearer boids.
//
// On a torus the step also sees an obstacle at its copies across the seams; the page draws and
// picks each one where it is (a copy lies outside the drawn box, beside another copy).

import { TAU } from './constants.js';
import { BOX_EDGES, Orbit, boxCorners } from './orbit.js';

/** The box {x, y, z, w, h, d} of a `box` obstacle (orbit.js's boxes: boxCorners). */
export const boxOf = (shape) => ({
  x: shape.min[0], y: shape.min[1], z: shape.min[2],
  w: shape.max[0] - shape.min[0], h: shape.max[1] - shape.min[1], d: shape.max[2] - shape.min[2],
});

/** The centre of a sphere or box, [x, y, z]: what a drag moves with the pointer. */
export const centreOf = (shape) => shape.center ?? shape.min.map((v, k) => (v + shape.max[k]) / 2);

/**
 * How far along `ray` ({origin, dir}, dir a unit vector) it first meets `shape` grown by `grow`
 * world units, or null where it misses (a ray from inside meets it at 0).
 */
export function rayHit(shape, { origin, dir }, grow) {
  if (shape.shape === 'sphere') {
    const to = shape.center.map((v, k) => v - origin[k]);
    const along = to[0] * dir[0] + to[1] * dir[1] + to[2] * dir[2];
    const r = shape.radius + grow;
    const across2 = to[0] ** 2 + to[1] ** 2 + to[2] ** 2 - along * along;
    if (across2 > r * r) return null;
    const t = along - Math.sqrt(r * r - across2);
    return along + Math.sqrt(r * r - across2) < 0 ? null : Math.max(0, t);
  }
  // A box: the span of the ray inside each pair of faces, intersected (the slab test).
  let [enter, leave] = [0, Infinity];
  for (let k = 0; k < 3; k++) {
    const [lo, hi] = [shape.min[k] - grow, shape.max[k] + grow];
    if (Math.abs(dir[k]) < 1e-12) {
      if (origin[k] < lo || origin[k] > hi) return null;
      continue;
    }
    const [a, b] = [(lo - origin[k]) / dir[k], (hi - origin[k]) / dir[k]];
    enter = Math.max(enter, Math.min(a, b));
    leave = Math.min(leave, Math.max(a, b));
  }
  return enter <= leave ? enter : null;
}

/**
 * The index of the obstacle the line of sight `ray` of `lens` meets first, each grown by `px`
 * device px at its centre's depth (a pick tolerance); -1 for none.
 */
export function solidAt(obstacles, ray, lens, px) {
  let [best, nearest] = [-1, Infinity];
  obstacles.forEach((shape, k) => {
    const at = Orbit.project(lens, centreOf(shape));
    const grow = at ? (px * at.depth) / lens.focal : 0;
    const t = rayHit(shape, ray, grow);
    if (t !== null && t < nearest) [best, nearest] = [k, t];
  });
  return best;
}

/**
 * Adds the outline of `shape` as `lens` sees it to `path` (canvas px): a sphere's silhouette
 * circle, a box's twelve edges (an edge with an end behind the eye is left out).
 */
export function traceSolid(path, lens, shape) {
  if (shape.shape === 'sphere') {
    const at = Orbit.project(lens, shape.center);
    if (!at) return;
    const r = (shape.radius * lens.focal) / at.depth;
    path.moveTo(at.x + r, at.y);
    path.arc(at.x, at.y, r, 0, TAU);
    return;
  }
  const corners = boxCorners(boxOf(shape)).map((c) => Orbit.project(lens, c));
  for (const [a, b] of BOX_EDGES) {
    if (!corners[a] || !corners[b]) continue;
    path.moveTo(corners[a].x, corners[a].y);
    path.lineTo(corners[b].x, corners[b].y);
  }
}

/**
 * The box a drag between the points `a` and `b` ([x, y, z], on a plane facing the camera) spans,
 * as [min, max]: the two points are opposite corners across the view, and along the axis nearest
 * the line of sight (`forward`), where they barely differ, the box is as deep as it is wide on
 * average, centred on them.
 */
export function spannedBox(a, b, forward) {
  const depthAxis = [0, 1, 2].reduce((best, k) => (Math.abs(forward[k]) > Math.abs(forward[best]) ? k : best), 0);
  const across = [0, 1, 2].filter((k) => k !== depthAxis);
  const half = across.reduce((sum, k) => sum + Math.abs(a[k] - b[k]), 0) / 4;
  const mid = (a[depthAxis] + b[depthAxis]) / 2;
  const min = a.map((v, k) => (k === depthAxis ? mid - half : Math.min(v, b[k])));
  const max = a.map((v, k) => (k === depthAxis ? mid + half : Math.max(v, b[k])));
  return [min, max];
}
