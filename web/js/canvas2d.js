// The canvas 2D boid renderer, where WebGL2 is missing or runs in software (no GPU). Drawing each
// dart as a path costs microseconds; stamping precomputed dart sprites into an ImageData costs a
// few nanoseconds per pixel, so 100,000 small boids take about 10 ms. Large (zoomed-in) darts are
// drawn as paths. A boid resting on the ground (perching) is a flat bar (REST_MARK) instead of a
// dart, in its own muted colour. On a torus that a camera follows, each boid is drawn at its
// image nearest the camera (View.wrap). A flock crowded in the picture is drawn translucent
// (crowd.js). A flock in three dimensions (a version 3 frame) is drawn projected through the
// orbit camera by canvas3d.js.

import { drawProjected } from './canvas3d.js';
import { COLOR, DART, REST_MARK, TAU } from './constants.js';
import { crowdLayers, crowdOpacity2D } from './crowd.js';
import { nearestImage } from './view.js';
import { BOID_BYTES, GROUP_MASK, RESTING_BIT, headingAngle } from './wire.js';

const SPRITE_MAX_PX = 8; // larger darts are drawn as paths
const SPRITE_HEADINGS = 64;

const rgb = (c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
const pack = (c) => ((255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0]) >>> 0;
/**
 * Per palette colour and coverage level (in that order), what laying the colour over
 * a pixel at `opacity` times the level's coverage keeps of the pixel, and what it adds to its
 * red, green and blue: four numbers each.
 */
function tints(opacity) {
  return Float32Array.from(PALETTE.flatMap((c) => COVERAGE.flatMap((coverage) => {
    const a = coverage * opacity;
    return [1 - a, c[0] * a, c[1] * a, c[2] * a];
  })));
}

/** The packed pixel `under` with palette colour `colour` laid over it at coverage `level`, from
 * `tint` (made by tints). */
function blend(under, tint, colour, level) {
  const k = 4 * (COVERAGE.length * colour + level);
  const keep = tint[k];
  const r = ((under & 255) * keep + tint[k + 1] + 0.5) | 0;
  const g = (((under >> 8) & 255) * keep + tint[k + 2] + 0.5) | 0;
  const b = (((under >> 16) & 255) * keep + tint[k + 3] + 0.5) | 0;
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

const mix = (c, a) => c.map((v, k) => Math.round(v * a + COLOR.world[k] * (1 - a)));
/** Colours by scout group, then of resting boids (index RESTING). */
const PALETTE = [COLOR.boid, COLOR.scout1, COLOR.scout2, COLOR.resting];
const RESTING = 3;

/**
 * The canvas y a boid is drawn at: where it is, or, resting (`colour` RESTING) with perching on,
 * sitting on the ground line (`restPx`), wherever below it it landed.
 */
const drawnY = (colour, y, restPx) => (colour === RESTING && restPx !== null ? restPx : y);
/** The share of a pixel a sprite covers at each of its coverage levels 0..3 (3 = full). */
const COVERAGE = [0.18, 0.4, 0.65, 1];
// Per palette colour: packed colours for coverage levels 0..3 over the world's colour.
const SHADES = PALETTE.map((c) => COVERAGE.map((a) => pack(mix(c, a))));
// Per heading byte: the direction's cosine and sine.
const COS = Float32Array.from({ length: 256 }, (_, k) => Math.cos(headingAngle(k)));
const SIN = Float32Array.from({ length: 256 }, (_, k) => Math.sin(headingAngle(k)));

/** Index in PALETTE of a boid's colour, from its group byte. */
function paletteIndex(groupByte, byGroup) {
  if (groupByte & RESTING_BIT) return RESTING;
  return byGroup ? Math.min(groupByte & GROUP_MASK, 2) : 0;
}

function inTriangle(px, py, t) {
  const d1 = (px - t[2]) * (t[1] - t[3]) - (t[0] - t[2]) * (py - t[3]);
  const d2 = (px - t[4]) * (t[3] - t[5]) - (t[2] - t[4]) * (py - t[5]);
  const d3 = (px - t[0]) * (t[5] - t[1]) - (t[4] - t[0]) * (py - t[1]);
  return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
}

// The pixels `shape` (two triangles in units of the radius, as DART) covers, turned by `angle`
// and scaled to radius `rad` (4x4 samples each): linear offsets for a row width `width`, x and y
// offsets for clipping, coverage levels.
function buildSprite(shape, angle, rad, width, reach) {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const pts = [];
  for (let k = 0; k < shape.length; k += 2) {
    pts.push((c * shape[k] - s * shape[k + 1]) * rad, (s * shape[k] + c * shape[k + 1]) * rad);
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
  return { off: Int32Array.from(off), dx: Int16Array.from(dx), dy: Int16Array.from(dy), level: Uint8Array.from(level) };
}

// The sprites of radius `rad` for a row width `width`: the dart at each of SPRITE_HEADINGS
// headings, and the resting bar; `reach`, the most pixels a sprite reaches from its centre.
function buildSprites(rad, width) {
  const reach = Math.ceil(rad * 2.3) + 1;
  const darts = Array.from({ length: SPRITE_HEADINGS }, (_, h) => buildSprite(DART, ((h + 0.5) / SPRITE_HEADINGS) * TAU, rad, width, reach));
  return { darts, resting: buildSprite(REST_MARK, 0, rad, width, reach), reach };
}

// The canvas, or a fresh copy in its place where a failed WebGL start has claimed it.
function canvasFor2D(canvas) {
  if (canvas.getContext('2d', { alpha: false })) return canvas;
  const fresh = canvas.cloneNode();
  canvas.replaceWith(fresh);
  return fresh;
}

/**
 * A renderer drawing with canvas 2D on `boidCanvas`, or on a fresh copy in its place where a
 * failed WebGL start has claimed it: the renderer's `canvas` is the one drawn on. Flat flocks
 * are seen through `view`, flocks in three dimensions through `orbit` (orbit.js).
 */
export function createCanvas2DRenderer(boidCanvas, view, orbit) {
  const canvas = canvasFor2D(boidCanvas);
  const ctx = canvas.getContext('2d', { alpha: false });
  let image = null;
  let pixels = null;
  let sprites = null;
  let spriteKey = '';

  /**
   * Stamps the sprites of `frame`'s boids; at `opacity` under 1 (a crowd) each pixel is blended
   * over what is there, else a boid's fully covered pixels replace it and its edges only fill
   * the background.
   */
  function drawSprites(frame, byGroup, rad, opacity, restPx) {
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
    const [x0, x1, y0, y1] = [clampX(view.sx(r.x)), clampX(view.sx(r.x + r.w)), clampY(view.sy(r.y)), clampY(view.sy(r.y + r.h))];
    for (let y = y0; y < y1; y++) pixels.fill(world, y * w + x0, y * w + x1);
    const b = frame.boids;
    const { kx, ky, ox, oy, ax, ay, pw, ph } = view.quantToScreen(frame.quant);
    const reach = sprites.reach;
    const tint = opacity < 1 ? tints(opacity) : null;
    for (let i = 0, o = 0; i < frame.count; i++, o += BOID_BYTES) {
      const colour = paletteIndex(b[o + 5], byGroup);
      const x = Math.round(nearestImage(ox + (b[o] | (b[o + 1] << 8)) * kx, ax, pw));
      const y = Math.round(drawnY(colour, nearestImage(oy + (b[o + 2] | (b[o + 3] << 8)) * ky, ay, ph), restPx));
      if (x < -reach || y < -reach || x >= w + reach || y >= h + reach) continue;
      const sprite = colour === RESTING ? sprites.resting : sprites.darts[b[o + 4] >> 2];
      const shade = SHADES[colour];
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
        if (tint) pixels[at] = blend(pixels[at], tint, colour, lv);
        else if (lv === 3) pixels[at] = shade[3];
        else if (pixels[at] === world || pixels[at] === bg) pixels[at] = shade[lv];
      }
    }
    ctx.putImageData(image, 0, 0);
  }

  /**
   * Fills `frame`'s darts as paths, one a colour; at `opacity` under 1 (a crowd) each colour's
   * darts are spread over the paths of crowdLayers, filled translucent one after another.
   */
  function drawPaths(frame, byGroup, rad, opacity, restPx) {
    ctx.fillStyle = rgb(COLOR.bg);
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const r = frame.world;
    ctx.fillStyle = rgb(COLOR.world);
    ctx.fillRect(view.sx(r.x), view.sy(r.y), r.w * view.scale, r.h * view.scale);
    const layers = crowdLayers(opacity);
    const paths = PALETTE.map(() => Array.from({ length: layers }, () => new Path2D()));
    const b = frame.boids;
    const { kx, ky, ox, oy, ax, ay, pw, ph } = view.quantToScreen(frame.quant);
    const [nx, lx, ly, cx] = [DART[0] * rad, DART[2] * rad, DART[3] * rad, DART[4] * rad];
    const margin = 3 * rad;
    const w = canvas.width + margin;
    const h = canvas.height + margin;
    for (let i = 0, o = 0; i < frame.count; i++, o += BOID_BYTES) {
      const colour = paletteIndex(b[o + 5], byGroup);
      const x = nearestImage(ox + (b[o] | (b[o + 1] << 8)) * kx, ax, pw);
      const y = drawnY(colour, nearestImage(oy + (b[o + 2] | (b[o + 3] << 8)) * ky, ay, ph), restPx);
      if (x < -margin || y < -margin || x > w || y > h) continue;
      const p = paths[colour][i % layers];
      if (colour === RESTING) {
        p.rect(x + REST_MARK[0] * rad, y + REST_MARK[1] * rad, (REST_MARK[2] - REST_MARK[0]) * rad, (REST_MARK[5] - REST_MARK[1]) * rad);
        continue;
      }
      const c = COS[b[o + 4]];
      const s = SIN[b[o + 4]];
      p.moveTo(x + c * nx, y + s * nx);
      p.lineTo(x + c * lx - s * ly, y + s * lx + c * ly);
      p.lineTo(x + c * cx, y + s * cx);
      p.lineTo(x + c * lx + s * ly, y + s * lx - c * ly);
      p.closePath();
    }
    ctx.globalAlpha = opacity;
    PALETTE.forEach((color, k) => {
      ctx.fillStyle = rgb(color);
      for (const path of paths[k]) ctx.fill(path);
    });
    ctx.globalAlpha = 1;
  }

  return {
    name: 'canvas2d',
    canvas,
    /**
     * Draws `frame` (or only the background without one); `radius` is a boid's, in world units;
     * `obstacles` the list to draw in three dimensions (flat ones are the overlay's); `restY`
     * the world y resting boids are drawn at, on the ground line (null without perching).
     */
    draw(frame, byGroup, radius, obstacles, restY = null) {
      if (!frame) {
        ctx.fillStyle = rgb(COLOR.bg);
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        return;
      }
      if (frame.dimensions === 3) {
        drawProjected(ctx, canvas, frame, byGroup, radius, orbit, obstacles);
        return;
      }
      const rad = radius * view.scale;
      const opacity = crowdOpacity2D(frame, view, canvas, rad);
      const restPx = restY === null ? null : view.sy(restY);
      if (rad <= SPRITE_MAX_PX) drawSprites(frame, byGroup, rad, opacity, restPx);
      else drawPaths(frame, byGroup, rad, opacity, restPx);
    },
  };
}
