// Canvas 2D drawing of a flock in three dimensions, for canvas2d.js (where WebGL2 is missing or
// runs in software): each boid projected through the orbit camera (orbit.js) and drawn as a dart
// along its projected heading, with the world box's edges. Depth cueing as in webgl3d.js: size
// by perspective (never under MIN_DART_PX), colour fading toward the world's with depth. Boids
// go into one path per colour and depth band, drawn far bands first, so nearer boids cover
// farther ones without sorting them one by one. Predators are larger darts in the same bands, in
// their orange at any depth; the obstacles (solids.js) are translucent, shaded bodies, each drawn
// in its centre's band before that band's darts: a sphere a disc lit from above, a box its faces
// toward the eye and its edges. A flock crowded in the picture is drawn translucent (crowd.js).

import { COLOR, DART, FAR_BRIGHTNESS, MIN_DART_PX, OBSTACLE_ALPHA, PREDATOR_MIN_PX, PREDATOR_SCALE, TAU } from './constants.js';
import { crowdLayers, crowdOpacity3D } from './crowd.js';
import { pixelRatio } from './dom.js';
import { BOX_EDGES, Orbit, boxCorners, forEachProjected } from './orbit.js';
import { boxOf, centreOf } from './solids.js';
import { GROUP_MASK, RESTING_BIT, elevationAngle, headingAngle } from './wire.js';
import { boxDepths } from './webgl3d.js';

const BANDS = 8; // depth bands, each with its own shade
const BOX_COLOR = 'rgb(70, 100, 160)';

const rgb = (c) => `rgb(${c.map(Math.round).join(', ')})`;
/** Colours of the darts: by scout group, then resting boids (RESTING) and predators (PREDATOR). */
const PALETTE = [COLOR.boid, COLOR.scout1, COLOR.scout2, COLOR.resting, COLOR.predator];
const [RESTING, PREDATOR] = [3, 4];
/** Where the light comes from (a unit vector): above (y grows downward) and before the default view. */
const LIGHT = [-0.3, -0.8, -0.5].map((v, _, all) => v / Math.hypot(...all));
/** A box's faces: [axis, side (-1 or +1), its four corners (boxCorners indices) in order around it]. */
const BOX_FACES = [0, 1, 2].flatMap((axis) => [0, 1].map((far) => {
  const bit = 1 << axis;
  const [a, b] = [0, 1, 2].filter((k) => k !== axis).map((k) => 1 << k);
  const base = far ? bit : 0;
  return [axis, far ? 1 : -1, [base, base | a, base | a | b, base | b]];
}));
/**
 * SHADES[colour][band]: the colour faded toward the world's for depth band `band`; a predator's
 * orange stays as it is, so that it stands out at any depth.
 */
const SHADES = PALETTE.map((c, k) => Array.from({ length: BANDS }, (_, band) => (k === PREDATOR ? rgb(c) : shaded(c, band))));
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

/** The band (0 nearest .. BANDS - 1) of `depth` between the box's `near` and `far` depths. */
const bandOf = (depth, near, far) => Math.min(BANDS - 1, Math.max(0, Math.floor(((depth - near) / Math.max(1e-6, far - near)) * BANDS)));

/**
 * Adds a dart for each of the `count` records of `bytes` (a frame's boids or predators,
 * quantised in `q`) to `paths[colour][band * layers + layer]` as `lens` sees them, record k in
 * layer k % layers: `size` is a dart's radius in world units (never under `minPx` canvas px),
 * `colourOf(groupByte)` its PALETTE index.
 */
function traceDarts(paths, layers, bytes, count, q, lens, canvas, { size, minPx, colourOf }, [near, far]) {
  const { right: r, up: u, focal } = lens;
  const [nose, back, wing] = [DART[0], DART[2], DART[3]];
  const b = bytes;
  forEachProjected(bytes, count, q, lens, (i, o, x, y, depth) => {
    const px = Math.max((size * focal) / depth, minPx);
    if (x < -4 * px || y < -4 * px || x > canvas.width + 4 * px || y > canvas.height + 4 * px) return;
    // The heading on screen: the direction's right and up components (its depth only shortens it).
    const [ce, se] = [COS_UP[b[o + 7]], SIN_UP[b[o + 7]]];
    const h = [COS[b[o + 6]] * ce, SIN[b[o + 6]] * ce, se];
    let [sx, sy] = [h[0] * r[0] + h[1] * r[1] + h[2] * r[2], -(h[0] * u[0] + h[1] * u[1] + h[2] * u[2])];
    const along = Math.hypot(sx, sy);
    if (along > 1e-6) [sx, sy] = [sx / along, sy / along];
    else [sx, sy] = [1, 0];
    const length = px * Math.max(0.35, along);
    const p = paths[colourOf(b[o + 8])][bandOf(depth, near, far) * layers + (i % layers)];
    p.moveTo(x + sx * nose * length, y + sy * nose * length);
    p.lineTo(x + sx * back * length - sy * wing * px, y + sy * back * length + sx * wing * px);
    p.lineTo(x + sx * back * length + sy * wing * px, y + sy * back * length - sx * wing * px);
    p.closePath();
  });
}

/** `colour` ([r, g, b]) faded toward the world's for depth band `band`, as a CSS colour. */
function shaded(colour, band, light = 1) {
  const keep = 1 - (1 - FAR_BRIGHTNESS) * (band / (BANDS - 1));
  return rgb(colour.map((v, k) => v * light * keep + COLOR.world[k] * (1 - keep)));
}

/** A sphere obstacle as a translucent disc, lit from above, and its outline, in depth band `band`. */
function drawSphere(ctx, lens, shape, band) {
  const at = Orbit.project(lens, shape.center);
  if (!at) return;
  const r = (shape.radius * lens.focal) / at.depth;
  const light = ctx.createRadialGradient(at.x - 0.3 * r, at.y - 0.4 * r, 0.1 * r, at.x, at.y, r);
  light.addColorStop(0, shaded(COLOR.obstacle, band, 1));
  light.addColorStop(1, shaded(COLOR.obstacle, band, 0.35));
  ctx.fillStyle = light;
  ctx.beginPath();
  ctx.arc(at.x, at.y, r, 0, TAU);
  ctx.fill();
  ctx.strokeStyle = shaded(COLOR.obstacleEdge, band);
  ctx.lineWidth = 1.5 * pixelRatio();
  ctx.stroke();
}

/** A box obstacle: its faces toward the eye, translucent and lit from above, then its edges. */
function drawBoxObstacle(ctx, lens, shape, band) {
  const corners = boxCorners(boxOf(shape));
  const seen = corners.map((c) => Orbit.project(lens, c));
  if (seen.some((c) => !c)) return;
  const centre = centreOf(shape);
  for (const [axis, side, face] of BOX_FACES) {
    const normal = [0, 0, 0];
    normal[axis] = side;
    const faceCentre = centre.map((v, k) => (k === axis ? (side > 0 ? shape.max[k] : shape.min[k]) : v));
    const toward = faceCentre.reduce((sum, v, k) => sum + (v - lens.eye[k]) * normal[k], 0) < 0;
    if (!toward) continue;
    const light = 0.35 + 0.65 * Math.max(0, normal.reduce((sum, v, k) => sum + v * LIGHT[k], 0));
    ctx.fillStyle = shaded(COLOR.obstacle, band, light);
    ctx.beginPath();
    face.forEach((c, k) => (k ? ctx.lineTo(seen[c].x, seen[c].y) : ctx.moveTo(seen[c].x, seen[c].y)));
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  ctx.strokeStyle = shaded(COLOR.obstacleEdge, band);
  ctx.lineWidth = pixelRatio();
  ctx.beginPath();
  for (const [a, b] of BOX_EDGES) {
    ctx.moveTo(seen[a].x, seen[a].y);
    ctx.lineTo(seen[b].x, seen[b].y);
  }
  ctx.stroke();
  ctx.globalAlpha = OBSTACLE_ALPHA;
}

/**
 * Draws a version 3 `frame` on `ctx` (of `canvas`) through `orbit`, with the obstacles of the
 * list `obstacles` (solids.js); `radius` is a boid's in world units. Darts and obstacles go in
 * depth bands, drawn far bands first, each band's obstacles (far first) before its darts. A
 * crowd's darts (crowd.js) are translucent, each band's spread over the paths of crowdLayers.
 */
export function drawProjected(ctx, canvas, frame, byGroup, radius, orbit, obstacles) {
  ctx.fillStyle = rgb(COLOR.bg);
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const lens = orbit.lens(canvas);
  drawBox(ctx, lens, frame.world);
  const depths = boxDepths(lens, frame.world);
  const opacity = crowdOpacity3D(frame, orbit, lens, canvas, radius);
  const layers = crowdLayers(opacity);
  const paths = PALETTE.map(() => Array.from({ length: BANDS * layers }, () => new Path2D()));
  const boidColour = (group) => (group & RESTING_BIT ? RESTING : byGroup ? Math.min(group & GROUP_MASK, 2) : 0);
  const boids = { size: radius, minPx: MIN_DART_PX, colourOf: boidColour };
  traceDarts(paths, layers, frame.boids, frame.count, frame.quant, lens, canvas, boids, depths);
  const hunter = { size: PREDATOR_SCALE * radius, minPx: PREDATOR_MIN_PX * pixelRatio(), colourOf: () => PREDATOR };
  traceDarts(paths, layers, frame.predators, frame.predatorCount, frame.quant, lens, canvas, hunter, depths);
  const bodies = obstacles
    .map((shape) => ({ shape, depth: Orbit.project(lens, centreOf(shape))?.depth }))
    .filter((body) => body.depth !== undefined)
    .sort((a, b) => b.depth - a.depth);
  for (let band = BANDS - 1; band >= 0; band--) {
    ctx.globalAlpha = OBSTACLE_ALPHA;
    for (const { shape, depth } of bodies) {
      if (bandOf(depth, ...depths) !== band) continue;
      if (shape.shape === 'sphere') drawSphere(ctx, lens, shape, band);
      else drawBoxObstacle(ctx, lens, shape, band);
    }
    paths.forEach((bands, colour) => {
      ctx.fillStyle = SHADES[colour][band];
      ctx.globalAlpha = colour === PREDATOR ? 1 : opacity;
      for (let layer = 0; layer < layers; layer++) ctx.fill(bands[band * layers + layer]);
    });
  }
  ctx.globalAlpha = 1;
}
