// The debug overlays of a flock in three dimensions, for overlays.js: the core's overlay data
// (version 3: every vector with z) seen through the orbit camera (orbit.js). Each record's
// visual range is a sphere, drawn as its outline (a circle of the projected radius); its rule
// vectors are segments in space, projected; the hovered boid's links go to its neighbours and its
// protected sphere is dashed. The colours and scales are overlays.js's.

import { TAU } from './constants.js';
import { pixelRatio } from './dom.js';
import { Orbit } from './orbit.js';
import { RECORD_FLOATS_3D } from './wire.js';

/**
 * Draws `overlay` on `ctx` as `lens` sees it. `ink` holds overlays.js's colours, `lengths[k]`
 * scales vector kind k (VECTORS order: velocity, cohesion, separation, alignment; 0: not
 * drawn), `show` which parts show, `radius` a boid's radius in world units.
 */
export function drawOverlay3D(ctx, lens, overlay, { ink, lengths, show, radius }) {
  const dpr = pixelRatio();
  const { hover, visualRange, protectedRange, records: rr } = overlay;
  const names = ['velocity', 'cohesion', 'separation', 'alignment'];
  const paths = { radius: new Path2D(), links: new Path2D(), ...Object.fromEntries(names.map((n) => [n, new Path2D()])) };
  const sphere = (path, at, r) => {
    const px = (r * lens.focal) / at.depth;
    path.moveTo(at.x + px, at.y);
    path.arc(at.x, at.y, px, 0, TAU);
  };
  for (let i = 0; i < overlay.recordCount; i++) {
    const o = i * RECORD_FLOATS_3D;
    const p = [rr[o], rr[o + 1], rr[o + 2]];
    const at = Orbit.project(lens, p);
    if (!at) continue;
    if (show.radius) sphere(paths.radius, at, visualRange);
    names.forEach((name, k) => {
      if (!show[name] || lengths[k] === 0) return;
      const v = o + 3 + 3 * k;
      const tip = Orbit.project(lens, p.map((c, a) => c + rr[v + a] * lengths[k]));
      if (!tip) return;
      paths[name].moveTo(at.x, at.y);
      paths[name].lineTo(tip.x, tip.y);
    });
  }
  const first = overlay.recordCount > 0 && hover && Orbit.project(lens, [rr[0], rr[1], rr[2]]);
  if (first) {
    for (let k = 0; k < overlay.linkCount; k++) {
      const end = Orbit.project(lens, [overlay.links[3 * k], overlay.links[3 * k + 1], overlay.links[3 * k + 2]]);
      if (!end) continue;
      paths.links.moveTo(first.x, first.y);
      paths.links.lineTo(end.x, end.y);
    }
  }
  ctx.lineWidth = dpr;
  ctx.strokeStyle = ink.link;
  ctx.stroke(paths.links);
  ctx.lineWidth = (hover ? 1.5 : 1) * dpr;
  ctx.strokeStyle = hover ? ink.radiusHover : ink.radius;
  ctx.globalAlpha = hover ? 1 : Math.min(1, 6 / Math.sqrt(overlay.recordCount));
  ctx.stroke(paths.radius);
  ctx.globalAlpha = 1;
  if (first && show.radius && protectedRange > 0) {
    const guarded = new Path2D();
    sphere(guarded, first, protectedRange);
    ctx.setLineDash([4 * dpr, 4 * dpr]);
    ctx.strokeStyle = ink.protected;
    ctx.stroke(guarded);
    ctx.setLineDash([]);
  }
  if (first) {
    ctx.strokeStyle = ink.halo;
    ctx.lineWidth = 1.5 * dpr;
    ctx.beginPath();
    ctx.arc(first.x, first.y, Math.max(5 * dpr, ((radius * lens.focal) / first.depth) * 2.6), 0, TAU);
    ctx.stroke();
  }
  ctx.lineWidth = (hover ? 2.2 : 1.2) * dpr;
  for (const name of ['velocity', 'separation', 'alignment', 'cohesion']) {
    ctx.strokeStyle = ink[name];
    ctx.stroke(paths[name]);
  }
}
