// The debug overlays, drawn on their own 2D canvas above the boids: the world's edge and where
// margins or walls act; the obstacles (beneath the rest, with what the world tools mark or are
// making), then the world's other objects (world-objects.js: ground line, attractors,
// predators); each boid's visual radius and rule vectors; for the boid under the pointer its
// neighbour links, protected range and a description in the info box; and on a torus
// the ghosts, the neighbours those boids see across a seam, where they see them. What is drawn is
// the core's overlay data as the server sends it (`boids render --overlay` draws the same); this
// module computes nothing about the flock. A flock in three dimensions has its overlays drawn
// through the orbit camera by overlays3d.js (spheres, vectors in space) and its world's marks by
// world3d.js; its box, obstacles and predators are the renderer's.

import { DART, TAU } from './constants.js';
import { pixelRatio } from './dom.js';
import { formatValue } from './format.js';
import { isTorus, seamShifts, tracePath } from './obstacles.js';
import { drawOverlay3D } from './overlays3d.js';
import { GHOST_FLOATS, RECORD_FLOATS, RECORD_FLOATS_3D } from './wire.js';
import { drawWorld3D } from './world3d.js';
import { drawWorldObjects } from './world-objects.js';

const INK = {
  border: 'rgba(122, 162, 255, 0.35)',
  margin: 'rgba(122, 162, 255, 0.22)',
  radius: 'rgba(128, 255, 255, 0.30)',
  radiusHover: 'rgba(128, 255, 255, 0.85)',
  protected: 'rgba(64, 230, 64, 0.55)',
  velocity: '#ffe14d',
  cohesion: '#ff4040',
  separation: '#40e640',
  alignment: '#5078ff',
  ghost: 'rgba(223, 232, 255, 0.7)',
  link: 'rgba(223, 232, 255, 0.28)',
  halo: 'rgba(255, 255, 255, 0.9)',
  obstacle: 'rgba(150, 160, 185, 0.32)',
  obstacleEdge: 'rgba(200, 208, 228, 0.85)',
};

/** The vectors of an overlay record, in their order there (after x, y). */
const VECTORS = ['velocity', 'cohesion', 'separation', 'alignment'];

/** Whether a point lies outside the world: a neighbour seen there is seen across a torus seam. */
export function acrossSeam(world, x, y) {
  return x < world.x || x >= world.x + world.w || y < world.y || y >= world.y + world.h;
}

function percentile90(values) {
  if (values.length === 0) return 0;
  values.sort((a, b) => a - b);
  return values[Math.min(values.length - 1, Math.floor(values.length * 0.9))];
}

// Each vector kind gets its own drawing scale from its typical magnitude (90th percentile of
// the non-zero ones), smoothed over frames, so every rule's direction shows whatever the
// preset's weights.
function followRuleScale(ruleScale, overlay) {
  const d = overlay.dimensions;
  const stride = d === 3 ? RECORD_FLOATS_3D : RECORD_FLOATS;
  VECTORS.forEach((_, k) => {
    const mags = [];
    for (let i = 0; i < overlay.recordCount; i++) {
      const o = i * stride + d + d * k;
      mags.push(Math.hypot(...overlay.records.subarray(o, o + d)));
    }
    const m = percentile90(mags.filter((v) => v > 0));
    if (m > 0) ruleScale[k] = ruleScale[k] == null ? m : 0.8 * ruleScale[k] + 0.2 * m;
  });
}

function line(view, path, x, y, dx, dy) {
  path.moveTo(view.sx(x), view.sy(y));
  path.lineTo(view.sx(x + dx), view.sy(y + dy));
}

function arrowHead(view, path, x, y, dx, dy) {
  const len = Math.hypot(dx, dy) * view.scale;
  if (len < 6) return;
  const ux = dx / Math.hypot(dx, dy);
  const uy = dy / Math.hypot(dx, dy);
  const tx = view.sx(x + dx);
  const ty = view.sy(y + dy);
  const a = Math.min(8, len / 3) * pixelRatio();
  path.moveTo(tx, ty);
  path.lineTo(tx - a * (ux + 0.45 * uy), ty - a * (uy - 0.45 * ux));
  path.moveTo(tx, ty);
  path.lineTo(tx - a * (ux - 0.45 * uy), ty - a * (uy + 0.45 * ux));
}

/** The world's edge, and where margins or walls start acting. */
function drawWorldEdge(ctx, view, world, params) {
  const dpr = pixelRatio();
  const r = world;
  ctx.lineWidth = dpr;
  ctx.strokeStyle = INK.border;
  ctx.strokeRect(view.sx(r.x), view.sy(r.y), r.w * view.scale, r.h * view.scale);
  const inset = params.boundary === 'margins' ? Number(params.margin) : params.boundary === 'walls' ? Number(params.wall_buffer) : 0;
  if (inset > 0 && 2 * inset < Math.min(r.w, r.h)) {
    ctx.setLineDash([6 * dpr, 5 * dpr]);
    ctx.strokeStyle = INK.margin;
    ctx.strokeRect(view.sx(r.x + inset), view.sy(r.y + inset), (r.w - 2 * inset) * view.scale, (r.h - 2 * inset) * view.scale);
    ctx.setLineDash([]);
  }
}

/** Solid shapes' and walls' outlines, at every copy across the seams, as two paths. */
function obstaclePaths(view, shapes, shifts) {
  const solid = new Path2D();
  const walls = new Path2D();
  for (const s of shapes) {
    for (const [dx, dy] of shifts) tracePath(s.shape === 'wall' ? walls : solid, view, s, dx, dy);
  }
  return { solid, walls };
}

/**
 * The obstacles (circles, rectangles and walls in world units), translucent so that boids beside
 * them stay visible; on a torus also their copies across each seam. `marks` are the world
 * tools' (world-tools.js): `obstacle`, the index of an obstacle a tool would select or delete
 * (-1 or absent: none), outlined in white; `draft`, a shape being made, or absent, dashed.
 */
function drawObstacles(ctx, view, world, torus, shapes, { obstacle: highlight = -1, draft = null }) {
  const dpr = pixelRatio();
  const shifts = seamShifts(world, torus);
  const { solid, walls } = obstaclePaths(view, shapes, shifts);
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.fillStyle = INK.obstacle;
  ctx.fill(solid);
  ctx.strokeStyle = INK.obstacleEdge;
  ctx.lineWidth = 1.5 * dpr;
  ctx.stroke(solid);
  ctx.lineWidth = 3 * dpr;
  ctx.stroke(walls);
  ctx.setLineDash([5 * dpr, 4 * dpr]);
  if (draft) {
    const made = obstaclePaths(view, [draft], [[0, 0]]);
    ctx.fill(made.solid);
    ctx.stroke(made.walls);
    ctx.lineWidth = 1.5 * dpr;
    ctx.stroke(made.solid);
  }
  if (shapes[highlight]) {
    const marked = obstaclePaths(view, [shapes[highlight]], shifts);
    ctx.strokeStyle = INK.halo;
    ctx.lineWidth = 1.5 * dpr;
    ctx.stroke(marked.solid);
    ctx.stroke(marked.walls);
  }
  ctx.restore();
}

/**
 * The torus ghosts of `overlay`: each neighbour seen across a seam, drawn as a dashed outline
 * where it is seen and pointing along its velocity; `radius` is a boid's drawn radius in world
 * units.
 */
function drawGhosts(ctx, view, overlay, radius) {
  const rad = radius * view.scale * 1.2;
  const path = new Path2D();
  const dpr = pixelRatio();
  const g = overlay.ghosts;
  for (let k = 0; k < overlay.ghostCount; k++) {
    const o = k * GHOST_FLOATS;
    const angle = Math.atan2(g[o + 3], g[o + 2]);
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const px = view.sx(g[o]);
    const py = view.sy(g[o + 1]);
    path.moveTo(px + c * DART[0] * rad, py + s * DART[0] * rad);
    path.lineTo(px + c * DART[2] * rad - s * DART[3] * rad, py + s * DART[2] * rad + c * DART[3] * rad);
    path.lineTo(px + c * DART[4] * rad, py + s * DART[4] * rad);
    path.lineTo(px + c * DART[2] * rad + s * DART[3] * rad, py + s * DART[2] * rad - c * DART[3] * rad);
    path.closePath();
  }
  ctx.setLineDash([2 * dpr, 1.5 * dpr]);
  ctx.strokeStyle = INK.ghost;
  ctx.lineWidth = dpr;
  ctx.stroke(path);
  ctx.setLineDash([]);
}

/** The hovered boid (the overlay's first record): links to its neighbours, protected range, halo. */
function drawHovered(ctx, view, overlay, world, show, radius) {
  const dpr = pixelRatio();
  const x = overlay.records[0];
  const y = overlay.records[1];
  // Links to the neighbours this boid sees; those across a seam lie outside the world.
  // (The ghost copies themselves are drawn with the other ghosts.)
  const links = new Path2D();
  const ghostLinks = new Path2D();
  for (let k = 0; k < overlay.linkCount; k++) {
    const lx = overlay.links[2 * k];
    const ly = overlay.links[2 * k + 1];
    const p = acrossSeam(world, lx, ly) ? ghostLinks : links;
    p.moveTo(view.sx(x), view.sy(y));
    p.lineTo(view.sx(lx), view.sy(ly));
  }
  ctx.lineWidth = dpr;
  ctx.strokeStyle = INK.link;
  ctx.stroke(links);
  if (show.ghosts) {
    ctx.setLineDash([3 * dpr, 3 * dpr]);
    ctx.strokeStyle = INK.ghost;
    ctx.stroke(ghostLinks);
    ctx.setLineDash([]);
  }
  if (show.radius && overlay.protectedRange > 0) {
    ctx.setLineDash([4 * dpr, 4 * dpr]);
    ctx.strokeStyle = INK.protected;
    ctx.beginPath();
    ctx.arc(view.sx(x), view.sy(y), overlay.protectedRange * view.scale, 0, TAU);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  ctx.strokeStyle = INK.halo;
  ctx.lineWidth = 1.5 * dpr;
  ctx.beginPath();
  ctx.arc(view.sx(x), view.sy(y), Math.max(5 * dpr, radius * view.scale * 2.6), 0, TAU);
  ctx.stroke();
}

/**
 * The factor of each vector kind (VECTORS order) that draws its typical magnitude (`ruleScale`)
 * `target` world units long; the user's vector length `gain` stretches the rules, not the
 * velocity.
 */
const vectorLengths = (ruleScale, target, gain) => ruleScale.map((m, k) => (m ? target / m : 0) * (k === 0 ? 1 : gain));

/** Every record's visual radius and rule vectors, each kind scaled by `ruleScale`. */
function drawRecords(ctx, view, overlay, ruleScale, display) {
  const dpr = pixelRatio();
  const { hover, visualRange: visual, records: rr } = overlay;
  const scale = view.scale;
  // Vectors are drawn about half a visual range long; a single hovered boid's at least 60 px.
  const target = Math.max(0.55 * visual, hover ? (60 * dpr) / scale : 0);
  const lengths = vectorLengths(ruleScale, target, display.vectorGain);
  const paths = { radius: new Path2D(), velocity: new Path2D(), cohesion: new Path2D(), separation: new Path2D(), alignment: new Path2D() };
  for (let i = 0; i < overlay.recordCount; i++) {
    const o = i * RECORD_FLOATS;
    const x = rr[o];
    const y = rr[o + 1];
    if (display.show.radius) {
      paths.radius.moveTo(view.sx(x) + visual * scale, view.sy(y));
      paths.radius.arc(view.sx(x), view.sy(y), visual * scale, 0, TAU);
    }
    VECTORS.forEach((name, k) => {
      const length = lengths[k];
      if (!display.show[name] || length === 0) return;
      const dx = rr[o + 2 + 2 * k];
      const dy = rr[o + 3 + 2 * k];
      line(view, paths[name], x, y, dx * length, dy * length);
      if (hover) arrowHead(view, paths[name], x, y, dx * length, dy * length);
    });
  }
  ctx.lineWidth = (hover ? 1.5 : 1) * dpr;
  ctx.strokeStyle = hover ? INK.radiusHover : INK.radius;
  // Many overlapping circles would paint the stage solid: fade them as their number grows.
  ctx.globalAlpha = hover ? 1 : Math.min(1, 6 / Math.sqrt(overlay.recordCount));
  ctx.stroke(paths.radius);
  ctx.globalAlpha = 1;
  ctx.lineWidth = (hover ? 2.2 : 1.2) * dpr;
  for (const name of ['velocity', 'separation', 'alignment', 'cohesion']) {
    ctx.strokeStyle = INK[name];
    ctx.stroke(paths[name]);
  }
}

/**
 * The overlay layer on `canvas`: holds the latest overlay message and the rule vectors' drawing
 * scales, and draws them over a frame.
 */
export function createOverlays(canvas, view, orbit) {
  const ctx = canvas.getContext('2d');
  let latest = null;
  let ruleScale = [null, null, null, null]; // smoothed magnitudes, in VECTORS order

  return {
    /** The latest overlay message, or null. */
    get latest() {
      return latest;
    },
    receive(overlay) {
      latest = overlay;
      followRuleScale(ruleScale, overlay);
    },
    /** Forgets the overlay and its scales (the mode changed). */
    clear() {
      latest = null;
      ruleScale = [null, null, null, null];
    },
    /**
     * Draws the world and the overlays of `mode` ('off', 'hover', 'all') over `frame`. `display`
     * says which parts show and the user's vector length; `radius` is a boid's drawn radius in
     * world units; `edited` holds the lists to draw that the tools edit (the server's, or an edit
     * on its way): `obstacles` and `attractors`; `marks` are what the chosen world tool marks.
     */
    draw(frame, params, mode, display, radius, edited, marks) {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      if (!frame || !params) return;
      if (frame.dimensions === 3) {
        const lens = orbit.lens(canvas);
        drawWorld3D(ctx, lens, { frame, params, obstacles: edited.obstacles, attractors: edited.attractors, radius, marks });
        if (mode === 'off' || latest?.dimensions !== 3) return;
        const lengths = vectorLengths(ruleScale, 0.55 * latest.visualRange, display.vectorGain);
        drawOverlay3D(ctx, lens, latest, { ink: INK, lengths, show: display.show, radius });
        return;
      }
      drawWorldEdge(ctx, view, frame.world, params);
      drawObstacles(ctx, view, frame.world, isTorus(params), edited.obstacles, marks);
      drawWorldObjects(ctx, view, { frame, params, attractors: edited.attractors, radius, marks });
      if (mode === 'off' || !latest) return;
      if (display.show.ghosts) drawGhosts(ctx, view, latest, radius);
      if (latest.recordCount === 0) return;
      if (latest.hover) drawHovered(ctx, view, latest, frame.world, display.show, radius);
      drawRecords(ctx, view, latest, ruleScale, display);
    },
  };
}

/** Fills `box` with the hovered boid's position, speed, neighbours and rules; hides it otherwise. */
export function describeHovered(box, overlay, mode) {
  if (mode !== 'hover' || !overlay || overlay.recordCount === 0 || !overlay.hover) {
    box.hidden = true;
    return;
  }
  const d = overlay.dimensions;
  const r = overlay.records;
  // Vector k of the record (VECTORS order) has its d coordinates after the position's.
  const magnitude = (k) => formatValue(Math.hypot(...r.subarray(d + d * k, 2 * d + d * k)));
  const rows = [
    ['position', [...r.subarray(0, d)].map(formatValue).join(', ')],
    ['speed', magnitude(0)],
    ['neighbours', String(overlay.linkCount)],
    ['|cohesion|', magnitude(1)],
    ['|separation|', magnitude(2)],
    ['|alignment|', magnitude(3)],
  ];
  box.replaceChildren(...rows.map(([k, v]) => {
    const d = document.createElement('div');
    const a = document.createElement('span');
    a.textContent = k;
    const b = document.createElement('b');
    b.textContent = v;
    d.append(a, b);
    return d;
  }));
  box.hidden = false;
}
