// What the pointer points at in the world, for the world tools (world-tools.js and the tools of
// obstacle-tools.js, predator-tools.js, attractor-tools.js): one set of questions, answered for
// the flat view and for a flock in three dimensions, so every tool has one code path for both.
//
// Flat, a point of the stage is a world point (view.js). In three dimensions it is a line of
// sight through the orbit camera (orbit.js), and a tool needs a point on it: the pointer's
// *spot* is where its line of sight meets the plane through the camera's target (the point the
// view turns about: the world's centre, or the flock's while the camera follows or fits it)
// facing the camera, kept inside the world's box. So a click places a thing under the pointer,
// as deep as the middle of what the camera looks at, and orbiting the view shows its depth. A
// drag moves a thing on the plane through it facing the camera, so it stays under the pointer;
// a thing is picked where the pointer's line of sight meets it (a sphere or a box) or where it is
// drawn nearest the pointer (a predator, an attractor).

import { pixelRatio } from './dom.js';
import { Orbit, meetPlane } from './orbit.js';
import { obstacleAt, isTorus } from './obstacles.js';
import { solidAt, spannedBox } from './solids.js';

const INSET = 1e-4; // a spot is kept this share of the box's size inside each face

/** A coordinate as sent: no more digits than the server's f32 keeps. */
const tidy = (v) => Number(v.toPrecision(7));

/**
 * `stage` is the element the pointer moves over, `view` the flat view, `orbit` the orbit camera;
 * `canvas()` the canvas they draw on, `frame()` the latest frame (its world, and whether it has
 * three dimensions) and `params()` the server's parameters.
 */
export function createPointing({ stage, view, orbit, canvas, frame, params }) {
  const solid = () => frame()?.dimensions === 3;
  const lens = () => orbit.lens(canvas());

  /** The world point a flat spot is, as [x, y], or a spot in 3D as [x, y, z]. */
  const coordsOf = (spot) => (spot.z === undefined ? [spot.x, spot.y] : [spot.x, spot.y, spot.z]);

  /** `p` ([x, y, z]) moved into the world's box. */
  function inside(p) {
    const w = frame().world;
    const [lo, size] = [[w.x, w.y, w.z], [w.w, w.h, w.d]];
    return p.map((v, k) => Math.min(lo[k] + size[k] * (1 - INSET), Math.max(lo[k] + size[k] * INSET, v)));
  }

  return {
    /** 2 or 3: the dimensions of the flock on screen. */
    dimensions: () => (solid() ? 3 : 2),

    /**
     * The spot of a pointer event: {x, y} flat; in 3D {x, y, z} on the placement plane with its
     * line of sight `ray` and canvas point `px` ([x, y], device px).
     */
    spot(e) {
      const rect = stage.getBoundingClientRect();
      const [cx, cy] = [e.clientX - rect.left, e.clientY - rect.top];
      if (!solid()) return view.clientToWorld(cx, cy);
      const l = lens();
      const px = [cx * pixelRatio(), cy * pixelRatio()];
      const ray = Orbit.ray(l, ...px);
      const target = [orbit.target.x, orbit.target.y, orbit.target.z];
      const [x, y, z] = inside(meetPlane(ray, target, l.forward) ?? target);
      return { x, y, z, ray, px };
    },

    /** The spot's coordinates as sent: [x, y], or [x, y, z] in 3D. */
    coords: (spot) => coordsOf(spot).map(tidy),

    /** The distance between two spots (on the placement plane in 3D), world units. */
    distance: (a, b) => Math.hypot(...coordsOf(a).map((v, k) => v - coordsOf(b)[k])),

    /**
     * How far the drag `g` ({start, at} spots) moves the point `anchor` ([x, y] or [x, y, z]):
     * flat, as far as the pointer went; in 3D, along the plane through the anchor facing the
     * camera, so it stays under the pointer.
     */
    offset(g, anchor) {
      if (!solid()) return [g.at.x - g.start.x, g.at.y - g.start.y];
      const facing = lens().forward;
      const [from, to] = [meetPlane(g.start.ray, anchor, facing), meetPlane(g.at.ray, anchor, facing)];
      return from && to ? to.map((v, k) => v - from[k]) : [0, 0, 0];
    },

    /**
     * The box the drag `g` spans, as [min, max] ([x, y] each, or [x, y, z] in 3D: solids.js's
     * spannedBox), its coordinates as sent.
     */
    span(g) {
      const [a, b] = [coordsOf(g.start), coordsOf(g.at)];
      const [min, max] = solid() ? spannedBox(a, b, lens().forward) : [a.map((v, k) => Math.min(v, b[k])), a.map((v, k) => Math.max(v, b[k]))];
      return [min.map(tidy), max.map(tidy)];
    },

    /**
     * The index of the point of `points` ([x, y] or [x, y, z] each) drawn nearest the spot (or
     * null) within `px` CSS px, or -1; `skip(k)` leaves a point out.
     */
    nearest(points, spot, px, skip = () => false) {
      if (!spot) return -1;
      let [best, bestDistance] = [-1, px * pixelRatio()];
      const l = solid() && lens();
      points.forEach((p, k) => {
        let d;
        if (l) {
          const at = Orbit.project(l, p);
          d = at ? Math.hypot(at.x - spot.px[0], at.y - spot.px[1]) : Infinity;
        } else {
          const q = view.drawnAt(p[0], p[1]);
          d = Math.hypot(q.x - spot.x, q.y - spot.y) * view.scale;
        }
        if (!skip(k) && d <= bestDistance) [best, bestDistance] = [k, d];
      });
      return best;
    },

    /** The index of the obstacle of `obstacles` under the spot (or null), within `px` CSS px, or -1. */
    obstacleAt(obstacles, spot, px) {
      if (!spot || !frame()) return -1;
      const tolerance = px * pixelRatio();
      if (solid()) return solidAt(obstacles, spot.ray, lens(), tolerance);
      return obstacleAt(obstacles, spot.x, spot.y, tolerance / view.scale, frame().world, isTorus(params()));
    },
  };
}
