// Crowd translucency, for every boid renderer (webgl, webgl3d, canvas2d, canvas3d), as `boids
// render` draws it (crowd_opacity in crates/boids-render/src/scene.rs). A large flock piles many
// darts on each spot of the picture and becomes one solid shape. Its darts are then drawn so
// translucent that those over an average spot of the flock's image add up to about one layer:
// the picture shows where the flock is dense (in 3D along the line of sight, a murmuration's
// sheet dark seen edge on and pale seen face on). A sparse flock stays opaque. The pile-up is
// counted on a grid of squares as wide as a dart is long (in 3D, at the camera's target): darts
// per square that the flock's image touches on the canvas, times the share of such a square a
// dart covers.

import { DART, MIN_DART_PX } from './constants.js';
import { forEachProjected } from './orbit.js';
import { nearestImage } from './view.js';
import { BOID_BYTES } from './wire.js';

/** The least opacity of a dart in a crowd: a single boid stays visible. */
const LEAST_OPACITY = 8 / 255;
/** The least side of a square of the count (device px): a finer grid would only cost time. */
const LEAST_TILE_PX = 2;
/** The most paths a canvas renderer spreads a crowd's darts of one colour over (crowdLayers). */
const MAX_LAYERS = 32;

/** A dart's length (nose to tail) in units of the boid radius. */
const DART_LENGTH = DART[0] - DART[2];

/** The share of a square as wide as a dart is long that the dart covers (its two triangles). */
const DART_SHARE = (() => {
  let area = 0;
  for (let k = 0; k < DART.length; k += 6) {
    const [ax, ay, bx, by, cx, cy] = DART.slice(k, k + 6);
    area += Math.abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) / 2;
  }
  return area / (DART_LENGTH * DART_LENGTH);
})();

let touched = new Uint8Array(0); // one flag a square, reused from frame to frame

/**
 * The opacity (LEAST_OPACITY..1) of darts `dartPx` device px long whose canvas points
 * `eachPoint(add)` passes to `add(x, y)`, one call a dart; those off `canvas` do not count.
 */
function opacityOf(canvas, dartPx, eachPoint) {
  const side = Math.max(LEAST_TILE_PX, dartPx);
  const [columns, rows] = [Math.ceil(canvas.width / side), Math.ceil(canvas.height / side)];
  if (touched.length < columns * rows) touched = new Uint8Array(columns * rows);
  touched.fill(0, 0, columns * rows);
  let [seen, squares] = [0, 0];
  eachPoint((x, y) => {
    const [column, row] = [Math.floor(x / side), Math.floor(y / side)];
    if (column < 0 || row < 0 || column >= columns || row >= rows) return;
    seen++;
    const at = row * columns + column;
    if (!touched[at]) {
      touched[at] = 1;
      squares++;
    }
  });
  const pile = (DART_SHARE * seen) / Math.max(1, squares);
  return Math.min(1, Math.max(LEAST_OPACITY, 1 / pile));
}

/**
 * The opacity of the darts of a flat `frame`'s boids as `view` shows them on `canvas`; `rad` is
 * a dart's radius in device px.
 */
export function crowdOpacity2D(frame, view, canvas, rad) {
  const { kx, ky, ox, oy, ax, ay, pw, ph } = view.quantToScreen(frame.quant);
  const b = frame.boids;
  return opacityOf(canvas, DART_LENGTH * rad, (add) => {
    for (let i = 0, o = 0; i < frame.count; i++, o += BOID_BYTES) {
      add(nearestImage(ox + (b[o] | (b[o + 1] << 8)) * kx, ax, pw), nearestImage(oy + (b[o + 2] | (b[o + 3] << 8)) * ky, ay, ph));
    }
  });
}

/**
 * The opacity of the darts of a version 3 `frame`'s boids as `lens`, `orbit`'s, projects them on
 * `canvas`; `radius` is a boid's in world units.
 */
export function crowdOpacity3D(frame, orbit, lens, canvas, radius) {
  const dartPx = DART_LENGTH * Math.max((radius * lens.focal) / orbit.distance, MIN_DART_PX);
  return opacityOf(canvas, dartPx, (add) => {
    forEachProjected(frame.boids, frame.count, frame.quant, lens, (_, __, x, y) => add(x, y));
  });
}

/**
 * Paths a translucent crowd of darts at `opacity` is spread over, per colour (and depth band),
 * so that darts over one another add up: one path's fill covers a pixel once, however many of
 * its darts overlap there. About as many as darts pile on a spot, at most MAX_LAYERS.
 */
export function crowdLayers(opacity) {
  return Math.min(MAX_LAYERS, Math.ceil(1 / opacity));
}
