// The view onto the world: where the world lies on the stage and how far it is zoomed, the
// transforms between world, canvas (device px) and client (CSS px) coordinates, and pan and zoom
// with the pointer. Both canvases share one view, so boids and overlays line up.

import { pixelRatio } from './dom.js';

const MIN_BOID_PX = 1.3; // device pixels: boids stay visible when zoomed out

export class View {
  /** World coordinates of the canvas's top-left corner. */
  x0 = 0;
  y0 = 0;
  /** Device pixels per world unit. */
  scale = 1;
  /** Whether the view fits the world to the canvas (until the user pans or zooms). */
  fitted = true;
  #worldKey = '';

  /** Fits again when the world rectangle has changed (a new preset or world size). */
  follow(world) {
    const key = [world.x, world.y, world.w, world.h].join();
    if (key !== this.#worldKey) {
      this.#worldKey = key;
      this.fitted = true;
    }
  }

  /**
   * Shows the whole world on `canvas`, leaving room for the tool bar above it and the legend and
   * key hints below it.
   */
  fit(world, canvas) {
    const dpr = pixelRatio();
    const [top, bottom, side] = [44 * dpr, 62 * dpr, 14 * dpr];
    const w = canvas.width - 2 * side;
    const h = canvas.height - top - bottom;
    const pad = 0.03 * Math.max(world.w, world.h);
    const scale = Math.max(1e-9, Math.min(w / (world.w + 2 * pad), h / (world.h + 2 * pad)));
    this.scale = scale;
    this.x0 = world.x + world.w / 2 - (side + w / 2) / scale;
    this.y0 = world.y + world.h / 2 - (top + h / 2) / scale;
  }

  /** Canvas x of world x. */
  sx(x) {
    return (x - this.x0) * this.scale;
  }

  /** Canvas y of world y. */
  sy(y) {
    return (y - this.y0) * this.scale;
  }

  /** Canvas position of quantised coordinates: x = ox + qx * kx, y = oy + qy * ky. */
  quantToScreen(q) {
    return { kx: (q.w / 65535) * this.scale, ky: (q.h / 65535) * this.scale, ox: this.sx(q.x), oy: this.sy(q.y) };
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
 * Pan with a drag, zoom with the wheel about the pointer, fit with a double click. `redraw`
 * runs after each change; `zoomed` after a zoom, which moves the world under a still pointer;
 * `claims(event)` says whether a press or double click belongs to something else (a tool).
 */
export function enablePanZoom(stage, view, { redraw, zoomed, claims }) {
  let drag = null;
  stage.addEventListener('pointerdown', (e) => {
    if (claims(e)) return;
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
      view.fitted = false;
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
    e.preventDefault();
    const rect = stage.getBoundingClientRect();
    const before = view.clientToWorld(e.clientX - rect.left, e.clientY - rect.top);
    view.scale *= Math.exp(-e.deltaY * 0.0015);
    const after = view.clientToWorld(e.clientX - rect.left, e.clientY - rect.top);
    view.x0 += before.x - after.x;
    view.y0 += before.y - after.y;
    view.fitted = false;
    redraw();
    zoomed();
  }, { passive: false });
  stage.addEventListener('dblclick', (e) => {
    if (claims(e)) return;
    view.fitted = true;
    redraw();
  });
}
