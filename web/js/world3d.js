// The world's objects of a flock in three dimensions that mark a place rather than fill space,
// drawn on the overlay canvas through the orbit camera (orbit.js), for either renderer: the
// ground plane's outline with perching (the plane of the flat view's ground line, spanning x and
// z), attractors (a ring with a cross, as in the flat view, smaller with distance), the ring
// around the mouse's predator, and what the world tools mark: the obstacle a tool would pick
// (outlined in white), the one being made (dashed), the predator or attractor a tool would remove
// (haloed). The bodies that fill space, spheres, boxes and the predators' cones, are the
// renderers' (webgl3d.js, canvas3d.js), so nearer boids hide them. Colours are world-objects.js's.

import { COLOR, PREDATOR_MIN_PX, PREDATOR_SCALE, TAU } from './constants.js';
import { pixelRatio } from './dom.js';
import { Orbit } from './orbit.js';
import { traceSolid } from './solids.js';
import { framePredator } from './wire.js';
import { HALO, groundY, rgba, strokePredatorRings } from './world-objects.js';

const ATTRACTOR_PX = 7; // an attractor's ring radius, CSS px, at the box's centre depth

/** The ground plane's outline: the box's horizontal section at the ground line's height. */
function drawGround(ctx, lens, world, params) {
  const y = groundY(world, params);
  if (y === null) return;
  const corners = [[0, 0], [1, 0], [1, 1], [0, 1]].map(([u, v]) => Orbit.project(lens, [world.x + u * world.w, y, world.z + v * world.d]));
  if (corners.some((c) => !c)) return;
  ctx.beginPath();
  corners.forEach((c, k) => (k ? ctx.lineTo(c.x, c.y) : ctx.moveTo(c.x, c.y)));
  ctx.closePath();
  ctx.fillStyle = rgba(COLOR.ground, 0.08);
  ctx.fill();
  ctx.lineWidth = 1.5 * pixelRatio();
  ctx.strokeStyle = rgba(COLOR.ground, 0.9);
  ctx.stroke();
}

/** Adds a circle of radius `r` (canvas px) around `at` to `path`. */
function ring(path, at, r) {
  path.moveTo(at.x + r, at.y);
  path.arc(at.x, at.y, r, 0, TAU);
}

/**
 * The attractors ([x, y, z] each) as rings with a cross, `marked` (-1: none) haloed; `reference`
 * is the depth at which a ring is ATTRACTOR_PX across.
 */
function drawAttractors(ctx, lens, attractors, marked, reference) {
  const dpr = pixelRatio();
  const marks = new Path2D();
  const halo = new Path2D();
  attractors.forEach((a, k) => {
    const at = Orbit.project(lens, a);
    if (!at) return;
    const r = Math.max(3, ATTRACTOR_PX * Math.min(2, reference / at.depth)) * dpr;
    ring(marks, at, r);
    marks.moveTo(at.x - 1.5 * r, at.y);
    marks.lineTo(at.x + 1.5 * r, at.y);
    marks.moveTo(at.x, at.y - 1.5 * r);
    marks.lineTo(at.x, at.y + 1.5 * r);
    if (k === marked) ring(halo, at, 1.8 * r);
  });
  ctx.lineWidth = 2 * dpr;
  ctx.strokeStyle = rgba(COLOR.attractor, 1);
  ctx.stroke(marks);
  ctx.lineWidth = 1.5 * dpr;
  ctx.strokeStyle = HALO;
  ctx.stroke(halo);
}

/** The mouse's predator ringed (dashed), and the predator `marked` (-1: none) haloed. */
function drawPredatorRings(ctx, lens, frame, radius, marked) {
  const dpr = pixelRatio();
  const rings = new Path2D();
  const halo = new Path2D();
  for (let k = 0; k < frame.predatorCount; k++) {
    const { x, y, z, pointer } = framePredator(frame, k);
    const at = Orbit.project(lens, [x, y, z]);
    if (!at || (!pointer && k !== marked)) continue;
    const r = Math.max((PREDATOR_SCALE * radius * lens.focal) / at.depth, PREDATOR_MIN_PX * dpr);
    if (pointer) ring(rings, at, 3 * r);
    if (k === marked) ring(halo, at, 3.4 * r);
  }
  strokePredatorRings(ctx, rings, halo);
}

/** The obstacle a tool marks (`highlight`, an index; -1: none) and the one being made (`draft`). */
function drawObstacleMarks(ctx, lens, obstacles, { obstacle: highlight = -1, draft = null }) {
  const dpr = pixelRatio();
  ctx.lineWidth = 1.5 * dpr;
  if (obstacles[highlight]) {
    const marked = new Path2D();
    traceSolid(marked, lens, obstacles[highlight]);
    ctx.strokeStyle = HALO;
    ctx.stroke(marked);
  }
  if (draft) {
    const made = new Path2D();
    traceSolid(made, lens, draft);
    ctx.setLineDash([5 * dpr, 4 * dpr]);
    ctx.strokeStyle = 'rgba(200, 208, 228, 0.85)';
    ctx.stroke(made);
    ctx.setLineDash([]);
  }
}

/**
 * Draws the marks of the world of `frame` (a version 3 frame) and `params` on `ctx` as `lens`
 * sees them: `obstacles` and `attractors` are the lists to draw (the server's, or an edit on its
 * way), `radius` a boid's radius in world units, `marks` what the chosen world tool marks
 * (world-tools.js).
 */
export function drawWorld3D(ctx, lens, { frame, params, obstacles, attractors, radius, marks }) {
  ctx.save();
  const world = frame.world;
  drawGround(ctx, lens, world, params);
  const centre = Orbit.project(lens, [world.x + world.w / 2, world.y + world.h / 2, world.z + world.d / 2]);
  drawAttractors(ctx, lens, attractors, marks.attractor ?? -1, centre?.depth ?? lens.near);
  drawPredatorRings(ctx, lens, frame, radius, marks.predator ?? -1);
  drawObstacleMarks(ctx, lens, obstacles, marks);
  ctx.restore();
}
