// Canvas 2D drawing of a flock in three dimensions, for canvas2d.js (where WebGL2 is missing or
// runs in software): each boid projected through the orbit camera (orbit.js) and drawn as a dart
// along its projected heading, with the world box's edges. Depth cueing as in webgl3d.js: size
// by perspective (never under MIN_BOID_PX), colour fading toward the world's with depth. Boids
// go into one path per colour and depth band, drawn far bands first, so nearer boids cover
// farther ones without sorting them one by one.

import { COLOR, DART } from './constants.js';
import { BOX_EDGES, Orbit, boxCorners } from './orbit.js';
import { BOID_BYTES_3D, GROUP_MASK, RESTING_BIT, elevationAngle, headingAngle } from './wire.js';
import { boxDepths } from './webgl3d.js';

const MIN_BOID_PX = 1.6;
const FAR_BRIGHTNESS = 0.3;
const BANDS = 8; // depth bands, each with its own shade
const BOX_COLOR = 'rgb(70, 100, 160)';

const rgb = (c) => `rgb(${c.map(Math.round).join(', ')})`;
const PALETTE = [COLOR.boid, COLOR.scout1, COLOR.scout2, COLOR.resting];
/** SHADES[colour][band]: the colour faded toward the world's for depth band `band`. */
const SHADES = PALETTE.map((c) => Array.from({ length: BANDS }, (_, band) => {
  const keep = 1 - (1 - FAR_BRIGHTNESS) * (band / (BANDS - 1));
  return rgb(c.map((v, k) => v * keep + COLOR.world[k] * (1 - keep)));
}));
// Per heading byte, the direction's cosine and sine; per elevation byte, likewise.
const COS = Float32Array.from({ length: 256 }, (_, k) => Math.cos(headingAngle(k)));
const SIN = Float32Array.from({ length: 256 }, (_, k) => Math.sin(headingAngle(k)));
const COS_UP = Float32Array.from({ length: 256 }, (_, k) => Math.cos(elevationAngle(k)));
const SIN_UP = Float32Array.from({ length: 256 }, (_, k) => Math.sin(elevationAngle(k)));

/** Strokes the edges of `box` as `lens` sees them (an edge with an end behind the eye is left out). */
function drawBox(ctx, lens, box) {
  const corners = boxCorners(box).map((c) => Orbit.project(lens, c));
  ctx.beginPath();
  for (const [a, b] of BOX_EDGES) {
    if (!corners[a] || !corners[b]) continue;
    ctx.moveTo(corners[a].x, corners[a].y);
    ctx.lineTo(corners[b].x, corners[b].y);
  }
  ctx.strokeStyle = BOX_COLOR;
  ctx.lineWidth = 1;
  ctx.stroke();
}

/** Draws a version 3 `frame` on `ctx` (of `canvas`) through `orbit`; `radius` is a boid's in world units. */
export function drawProjected(ctx, canvas, frame, byGroup, radius, orbit) {
  ctx.fillStyle = rgb(COLOR.bg);
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const lens = orbit.lens(canvas);
  drawBox(ctx, lens, frame.world);
  const [near, far] = boxDepths(lens, frame.world);
  const paths = PALETTE.map(() => Array.from({ length: BANDS }, () => new Path2D()));
  const q = frame.quant;
  const [kx, ky, kz] = [q.w / 65535, q.h / 65535, q.d / 65535];
  const { eye, forward: f, right: r, up: u, focal, cx, cy } = lens;
  const [nose, back, wing] = [DART[0], DART[2], DART[3]];
  const b = frame.boids;
  for (let i = 0, o = 0; i < frame.count; i++, o += BOID_BYTES_3D) {
    const dx = q.x + (b[o] | (b[o + 1] << 8)) * kx - eye[0];
    const dy = q.y + (b[o + 2] | (b[o + 3] << 8)) * ky - eye[1];
    const dz = q.z + (b[o + 4] | (b[o + 5] << 8)) * kz - eye[2];
    const depth = dx * f[0] + dy * f[1] + dz * f[2];
    if (depth <= lens.near) continue;
    const k = focal / depth;
    const x = cx + (dx * r[0] + dy * r[1] + dz * r[2]) * k;
    const y = cy - (dx * u[0] + dy * u[1] + dz * u[2]) * k;
    const px = Math.max(radius * k, MIN_BOID_PX);
    if (x < -4 * px || y < -4 * px || x > canvas.width + 4 * px || y > canvas.height + 4 * px) continue;
    // The heading on screen: the direction's right and up components (its depth only shortens it).
    const [ce, se] = [COS_UP[b[o + 7]], SIN_UP[b[o + 7]]];
    const h = [COS[b[o + 6]] * ce, SIN[b[o + 6]] * ce, se];
    let [sx, sy] = [h[0] * r[0] + h[1] * r[1] + h[2] * r[2], -(h[0] * u[0] + h[1] * u[1] + h[2] * u[2])];
    const along = Math.hypot(sx, sy);
    if (along > 1e-6) [sx, sy] = [sx / along, sy / along];
    else [sx, sy] = [1, 0];
    const length = px * Math.max(0.35, along);
    const group = b[o + 8];
    const colour = group & RESTING_BIT ? 3 : byGroup ? Math.min(group & GROUP_MASK, 2) : 0;
    const band = Math.min(BANDS - 1, Math.max(0, Math.floor(((depth - near) / Math.max(1e-6, far - near)) * BANDS)));
    const p = paths[colour][band];
    p.moveTo(x + sx * nose * length, y + sy * nose * length);
    p.lineTo(x + sx * back * length - sy * wing * px, y + sy * back * length + sx * wing * px);
    p.lineTo(x + sx * back * length + sy * wing * px, y + sy * back * length - sx * wing * px);
    p.closePath();
  }
  for (let band = BANDS - 1; band >= 0; band--) {
    paths.forEach((bands, colour) => {
      ctx.fillStyle = SHADES[colour][band];
      ctx.fill(bands[band]);
    });
  }
}
