// The view onto the world: where the world lies on the stage and how far it is zoomed, the
// transforms between world, canvas (device px) and client (CSS px) coordinates, and pan and zoom
// with the pointer. Both canvases share one view, so boids and overlays line up. What the view
// shows, unless the user pans or zooms, is the camera's choice (camera.js).

import { pixelRatio } from './dom.js';

const MIN_BOID_PX = 1.3; // device pixels: boids stay visible when zoomed out

/**
 * The coordinate `v` moved by whole periods `period` to lie nearest `anchor`: on a torus, its
 * image nearest the anchor (period 0: `v` as it is). In any unit, world or canvas px.
 */
export const nearestImage = (v, anchor, period) => (period > 0 ? v + period * Math.round((anchor - v) / period) : v);

export class View {
  /** World coordinates of the canvas's top-left corner. */
  x0 = 0;
  y0 = 0;
  /** Device pixels per world unit. */
  scale = 1;
  /**
   * On a torus that a camera follows, {anchor: {x, y}, period: {w, h}}: boids and the world's
   * objects are drawn at their image nearest the anchor (the camera's centre), so a flock that
   * straddles a seam is drawn whole; null elsewhere, where things are drawn where they are.
   */
  wrap = null;

  /** CSS px at the top of the stage that the tool bar covers (main.js keeps it up to date). */
  barHeight = 44;

  /**
   * The part of `canvas` (device px) that a camera frames: below the tool bar, above the legend
   * and key hints; {cx, cy} its centre, {w, h} its size.
   */
  area(canvas) {
    const dpr = pixelRatio();
    const [top, bottom, side] = [this.barHeight * dpr, 62 * dpr, 14 * dpr];
    const w = Math.max(1, canvas.width - 2 * side);
    const h = Math.max(1, canvas.height - top - bottom);
    return { cx: side + w / 2, cy: top + h / 2, w, h };
  }

  /** The scale at which a box of half-extents (hw, hh) world units just fits the area of `canvas`. */
  scaleToShow(hw, hh, canvas) {
    const { w, h } = this.area(canvas);
    return Math.max(1e-9, Math.min(w / (2 * hw), h / (2 * hh)));
  }

  /** The world point at the centre of the area of `canvas`. */
  centre(canvas) {
    const { cx, cy } = this.area(canvas);
    return { x: this.x0 + cx / this.scale, y: this.y0 + cy / this.scale };
  }

  /** Puts the world point (x, y) at the centre of the area of `canvas`, at `scale`. */
  centreOn(x, y, scale, canvas) {
    const { cx, cy } = this.area(canvas);
    this.scale = scale;
    this.x0 = x - cx / scale;
    this.y0 = y - cy / scale;
  }

  /** Shows the whole world on `canvas`, with a small margin; whether the view changed. */
  fit(world, canvas) {
    const before = [this.x0, this.y0, this.scale].join();
    const pad = 0.03 * Math.max(world.w, world.h);
    this.centreOn(world.x + world.w / 2, world.y + world.h / 2, this.scaleToShow(world.w / 2 + pad, world.h / 2 + pad, canvas), canvas);
    return [this.x0, this.y0, this.scale].join() !== before;
  }

  /** Where the world point (x, y) is drawn: its image nearest the wrap's anchor, or itself. */
  drawnAt(x, y) {
    if (!this.wrap) return { x, y };
    const { anchor, period } = this.wrap;
    return { x: nearestImage(x, anchor.x, period.w), y: nearestImage(y, anchor.y, period.h) };
  }

  /** Canvas x of world x. */
  sx(x) {
    return (x - this.x0) * this.scale;
  }

  /** Canvas y of world y. */
  sy(y) {
    return (y - this.y0) * this.scale;
  }

  /**
   * Canvas position of quantised coordinates: x = ox + qx * kx, y = oy + qy * ky, then on a
   * wrapped view moved to the image nearest the anchor (ax, ay) by whole periods (pw, ph; 0 when
   * the view does not wrap): nearestImage(x, ax, pw), nearestImage(y, ay, ph).
   */
  quantToScreen(q) {
    const wrap = this.wrap;
    return {
      kx: (q.w / 65535) * this.scale, ky: (q.h / 65535) * this.scale, ox: this.sx(q.x), oy: this.sy(q.y),
      ax: wrap ? this.sx(wrap.anchor.x) : 0, ay: wrap ? this.sy(wrap.anchor.y) : 0,
      pw: wrap ? wrap.period.w * this.scale : 0, ph: wrap ? wrap.period.h * this.scale : 0,
    };
  }

  /** World position of a point in CSS px from the stage's top-left corner. */
  clientToWorld(cx, cy) {
    const dpr = pixelRatio();
    return { x: this.x0 + (cx * dpr) / this.scale, y: this.y0 + (cy * dpr) / this.scale };
  }

  /** A boid's drawn radius in world units: its `boid_size`, but never under MIN_BOID_PX. */
  boidRadius(params) {
    const size = Number(params?.boid_size) || 1;
    return Math.max(size, MIN_BOID_PX / this.scale);
  }
}

/**
 * Pan with a drag, zoom with the wheel about the pointer, the whole world with a double click.
 * `redraw` runs after each change; `zoomed` after a zoom, which moves the world under a still
 * pointer; `byHand` after the user moved the view (the camera lets go) and `showWorld` on a
 * double click; `claims(event)` says whether a press or double click belongs to something else
 * (a tool); while `inactive()` (a flock in three dimensions, which orbits instead) nothing moves.
 */
export function enablePanZoom(stage, view, { redraw, zoomed, byHand, showWorld, claims, inactive }) {
  let drag = null;
  stage.addEventListener('pointerdown', (e) => {
    if (inactive() || claims(e)) return;
    drag = { x: e.clientX, y: e.clientY, moved: false };
    stage.setPointerCapture(e.pointerId);
  });
  stage.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dpr = pixelRatio();
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (drag.moved || Math.hypot(dx, dy) > 3) {
      drag.moved = true;
      stage.classList.add('panning');
      view.x0 -= (dx * dpr) / view.scale;
      view.y0 -= (dy * dpr) / view.scale;
      byHand();
      drag.x = e.clientX;
      drag.y = e.clientY;
      redraw();
    }
  });
  stage.addEventListener('pointerup', () => {
    drag = null;
    stage.classList.remove('panning');
  });
  stage.addEventListener('wheel', (e) => {
    if (inactive()) return;
    e.preventDefault();
    const rect = stage.getBoundingClientRect();
    const before = view.clientToWorld(e.clientX - rect.left, e.clientY - rect.top);
    view.scale *= Math.exp(-e.deltaY * 0.0015);
    const after = view.clientToWorld(e.clientX - rect.left, e.clientY - rect.top);
    view.x0 += before.x - after.x;
    view.y0 += before.y - after.y;
    byHand();
    redraw();
    zoomed();
  }, { passive: false });
  stage.addEventListener('dblclick', (e) => {
    if (inactive() || claims(e)) return;
    showWorld();
  });
}
