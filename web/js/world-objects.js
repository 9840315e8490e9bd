// The world's objects besides the obstacles (obstacles.js) and the boids (the renderers):
// predators (the frame's, after its boids), attractors (the `attractors` parameter, [x, y]
// points) and, with perching, the ground line. This module says where they are (for the tools
// too: predator-tools.js, attractor-tools.js), and draws them on the
// overlay canvas (overlays.js calls it), above the obstacles and beneath the debug overlays:
// a predator as a larger dart along its heading, the mouse's predator ringed; an attractor as a
// ring with a cross; the ground line across the world. Colours are those of `boids render`. A
// flock in three dimensions has its world's objects drawn by world3d.js.

import { COLOR, DART, GROUND_WIDTH, PREDATOR_MIN_PX, PREDATOR_SCALE, REST_MARK, TAU } from './constants.js';
import { pixelRatio } from './dom.js';
import { framePredator } from './wire.js';

const ATTRACTOR_PX = 7; // an attractor's ring radius, CSS px
export const rgba = (c, a) => `rgba(${c[0]}, ${c[1]}, ${c[2]}, ${a})`;
export const HALO = 'rgba(255, 255, 255, 0.9)';

/** Strokes the predators' dashed pointer `rings` and the white `halo` of a marked one. */
export function strokePredatorRings(ctx, rings, halo) {
  ctx.lineWidth = 1.5 * pixelRatio();
  ctx.strokeStyle = rgba(COLOR.predator, 0.8);
  ctx.setLineDash([4 * pixelRatio(), 3 * pixelRatio()]);
  ctx.stroke(rings);
  ctx.setLineDash([]);
  ctx.strokeStyle = HALO;
  ctx.stroke(halo);
}

/**
 * The frame's predators as framePredator gives them, the mouse's last, each where `view` draws
 * it (view.js: drawnAt; in 3D the view does not wrap, and z is kept).
 */
export function predatorsOf(frame, view) {
  return Array.from({ length: frame?.predatorCount ?? 0 }, (_, k) => {
    const predator = framePredator(frame, k);
    return { ...predator, ...view.drawnAt(predator.x, predator.y) };
  });
}

/** The y of the ground line in `world` (a frame's world rectangle) for `params`, or null without perching. */
export function groundY(world, params) {
  return params?.perch ? world.y + world.h - Number(params.perch_height) : null;
}

/**
 * The world y at which a resting boid's mark (REST_MARK, of a boid of `radius` world units) is
 * centred so that it sits on the ground line at world y `ground`, wherever below it it landed.
 */
export function restingY(ground, radius, view) {
  return ground - REST_MARK[5] * radius - (GROUND_WIDTH / 2) * pixelRatio() / view.scale;
}

/** A predator's drawn radius in world units, from a boid's `radius`. */
export function predatorRadius(view, radius) {
  return Math.max(PREDATOR_SCALE * radius, (PREDATOR_MIN_PX * pixelRatio()) / view.scale);
}

/** Adds a dart of radius `rad` (canvas px) at canvas point (x, y), pointing along `angle`, to `path`. */
function tracePredator(path, x, y, angle, rad) {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  for (let k = 0; k < DART.length; k += 2) {
    const px = x + (c * DART[k] - s * DART[k + 1]) * rad;
    const py = y + (s * DART[k] + c * DART[k + 1]) * rad;
    if (k % 6 === 0) path.moveTo(px, py);
    else path.lineTo(px, py);
  }
  path.closePath();
}

/** The predators; `marked` is the index of one a tool would remove (-1: none), haloed. */
function drawPredators(ctx, view, predators, radius, marked) {
  const dpr = pixelRatio();
  const rad = predatorRadius(view, radius) * view.scale;
  const darts = new Path2D();
  const rings = new Path2D();
  const halo = new Path2D();
  predators.forEach(({ x, y, angle, pointer }, k) => {
    const [px, py] = [view.sx(x), view.sy(y)];
    tracePredator(darts, px, py, angle, rad);
    if (pointer) {
      rings.moveTo(px + 3 * rad, py);
      rings.arc(px, py, 3 * rad, 0, TAU);
    }
    if (k === marked) {
      halo.moveTo(px + 3.4 * rad, py);
      halo.arc(px, py, 3.4 * rad, 0, TAU);
    }
  });
  ctx.fillStyle = rgba(COLOR.predator, 1);
  ctx.fill(darts);
  strokePredatorRings(ctx, rings, halo);
}

/** The attractors ([x, y] each), each a ring with a cross; `marked` (-1: none) is haloed. */
function drawAttractors(ctx, view, attractors, marked) {
  const dpr = pixelRatio();
  const r = ATTRACTOR_PX * dpr;
  const marks = new Path2D();
  const halo = new Path2D();
  attractors.forEach(([ax, ay], k) => {
    const { x, y } = view.drawnAt(ax, ay);
    const [px, py] = [view.sx(x), view.sy(y)];
    marks.moveTo(px + r, py);
    marks.arc(px, py, r, 0, TAU);
    marks.moveTo(px - 1.5 * r, py);
    marks.lineTo(px + 1.5 * r, py);
    marks.moveTo(px, py - 1.5 * r);
    marks.lineTo(px, py + 1.5 * r);
    if (k === marked) {
      halo.moveTo(px + 1.8 * r, py);
      halo.arc(px, py, 1.8 * r, 0, TAU);
    }
  });
  ctx.lineWidth = 2 * dpr;
  ctx.strokeStyle = rgba(COLOR.attractor, 1);
  ctx.stroke(marks);
  ctx.lineWidth = 1.5 * dpr;
  ctx.strokeStyle = HALO;
  ctx.stroke(halo);
}

/** The ground line across the world, where boids perch (only with perching on). */
function drawGround(ctx, view, world, params) {
  const y = groundY(world, params);
  if (y === null) return;
  ctx.lineWidth = GROUND_WIDTH * pixelRatio();
  ctx.strokeStyle = rgba(COLOR.ground, 0.9);
  ctx.beginPath();
  ctx.moveTo(view.sx(world.x), view.sy(y));
  ctx.lineTo(view.sx(world.x + world.w), view.sy(y));
  ctx.stroke();
}

/**
 * Draws the world's objects of `frame` and `params` on `ctx`: the ground line, the attractors
 * `attractors` ([x, y] each: the server's list, or an edit on its way) and the frame's predators.
 * `radius` is a boid's drawn radius in world units; `marks.predator` and `marks.attractor` are
 * the indices a tool marks (world-tools.js).
 */
export function drawWorldObjects(ctx, view, { frame, params, attractors, radius, marks }) {
  ctx.save();
  drawGround(ctx, view, frame.world, params);
  drawAttractors(ctx, view, attractors, marks.attractor ?? -1);
  drawPredators(ctx, view, predatorsOf(frame, view), radius, marks.predator ?? -1);
  ctx.restore();
}
