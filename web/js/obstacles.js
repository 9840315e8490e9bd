// Obstacles as the server's state lists them (`params.obstacles`, in world units, the keys of a
// config file's [[obstacles]] tables): {shape: 'circle', center: [x, y], radius},
// {shape: 'rect', min: [x, y], max: [x, y]}, {shape: 'wall', points: [[x, y], ...]}. This module
// is their geometry on the page: where one is seen, its outline as a canvas path, which one lies
// under a point, and a moved copy. It never changes a list in place; overlays.js draws them and
// obstacle-tools.js edits them. A flock in three dimensions has spheres and boxes (solids.js).
//
// On a torus the step sees every obstacle also at its copies shifted by the world's size (-1, 0
// or +1 times on each axis: the core's ObstacleIndex), so they are drawn and found there too.

import { TAU } from './constants.js';

/** Whether the world wraps, so obstacles have copies across the seams. */
export const isTorus = (params) => params?.boundary === 'torus';

/** The shifts [dx, dy] at which an obstacle is seen: itself, and on a torus its eight copies. */
export function seamShifts(world, torus) {
  if (!torus) return [[0, 0]];
  const shifts = [];
  for (const sy of [-1, 0, 1]) for (const sx of [-1, 0, 1]) shifts.push([sx * world.w, sy * world.h]);
  return shifts;
}

/**
 * The shape moved by `offset` ([dx, dy], or [dx, dy, dz] for a sphere or box of a flock in three
 * dimensions: solids.js), as a new object.
 */
export function translated(shape, offset) {
  const at = (p) => p.map((v, k) => v + offset[k]);
  const { center, min, max, points } = shape;
  return {
    ...shape,
    ...(center && { center: at(center) }),
    ...(min && { min: at(min), max: at(max) }),
    ...(points && { points: points.map(at) }),
  };
}

/** Distance from (x, y) to the segment a-b. */
function segmentDistance(x, y, [ax, ay], [bx, by]) {
  const [ex, ey] = [bx - ax, by - ay];
  const length2 = ex * ex + ey * ey;
  const t = length2 > 0 ? Math.min(1, Math.max(0, ((x - ax) * ex + (y - ay) * ey) / length2)) : 0;
  return Math.hypot(x - ax - t * ex, y - ay - t * ey);
}

/** Whether (x, y) lies on the shape or within `tolerance` of it. */
function touches(shape, x, y, tolerance) {
  switch (shape.shape) {
    case 'circle':
      return Math.hypot(x - shape.center[0], y - shape.center[1]) <= shape.radius + tolerance;
    case 'rect':
      return x >= shape.min[0] - tolerance && x <= shape.max[0] + tolerance && y >= shape.min[1] - tolerance && y <= shape.max[1] + tolerance;
    default:
      return shape.points.slice(1).some((b, k) => segmentDistance(x, y, shape.points[k], b) <= tolerance);
  }
}

/**
 * The index of the obstacle under the world point (x, y) (the one drawn last where several are),
 * at it or at one of its copies across a seam, within `tolerance` world units; -1 for none.
 */
export function obstacleAt(obstacles, x, y, tolerance, world, torus) {
  const shifts = seamShifts(world, torus);
  for (let i = obstacles.length - 1; i >= 0; i--) {
    if (shifts.some(([dx, dy]) => touches(obstacles[i], x - dx, y - dy, tolerance))) return i;
  }
  return -1;
}

/** Adds the shape's outline, moved by (dx, dy), to `path` in canvas pixels of `view`. */
export function tracePath(path, view, shape, dx, dy) {
  const sx = (x) => view.sx(x + dx);
  const sy = (y) => view.sy(y + dy);
  switch (shape.shape) {
    case 'circle': {
      const [x, y] = shape.center;
      path.moveTo(sx(x) + shape.radius * view.scale, sy(y));
      path.arc(sx(x), sy(y), shape.radius * view.scale, 0, TAU);
      break;
    }
    case 'rect':
      path.rect(sx(shape.min[0]), sy(shape.min[1]), (shape.max[0] - shape.min[0]) * view.scale, (shape.max[1] - shape.min[1]) * view.scale);
      break;
    default:
      shape.points.forEach(([x, y], k) => (k === 0 ? path.moveTo(sx(x), sy(y)) : path.lineTo(sx(x), sy(y))));
  }
}
