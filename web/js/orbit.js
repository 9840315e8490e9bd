// The orbit camera of a flock in three dimensions: it looks at a target point from a distance,
// turned by a yaw about the world's vertical axis and a pitch above the horizon, through a
// perspective lens. Drag rotates, the wheel zooms, a right-drag (or Shift-drag, or two fingers)
// pans; camera.js moves the target for its modes (the whole box, follow, fit) and resets the view.
//
// The world's y grows downward on screen as in the flat view, so the vertical axis is -y; at the
// default angle the camera looks along +z at the xy face, turned a little, so that a flock in 3D
// first looks like the flat view with depth.

import { pixelRatio } from './dom.js';
import { BOID_BYTES_3D } from './wire.js';

const FIELD_OF_VIEW = (40 * Math.PI) / 180; // vertical
const DEFAULT_YAW = -0.5; // radians about the vertical axis
const DEFAULT_PITCH = 0.4; // radians above the horizon
const MAX_PITCH = 1.5;
const ROTATE_PER_PX = 0.006; // radians per CSS px dragged
const ZOOM_PER_WHEEL = 0.0015; // the distance grows by e^(deltaY * this)
const DRAG_PX = 3; // a press that moves less than this is a click

const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = (a) => {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
};

/** The centre of a box {x, y, z, w, h, d}. */
export const boxCentre = (box) => ({ x: box.x + box.w / 2, y: box.y + box.h / 2, z: box.z + box.d / 2 });

/** The 8 corners of a box, [x, y, z] each; corner k has bit 0 for x, 1 for y, 2 for z at the far side. */
export const boxCorners = (box) => Array.from({ length: 8 }, (_, k) => [
  box.x + (k & 1 ? box.w : 0), box.y + (k & 2 ? box.h : 0), box.z + (k & 4 ? box.d : 0),
]);

/** The 12 edges of a box as pairs of corner indices (boxCorners). */
/**
 * Calls `visit(i, o, x, y, depth)` for each of the `count` records of `bytes` (a version 3
 * frame's boids or predators, quantised in `q`; `i` the record's index, `o` its first byte) in
 * front of `lens`'s eye, with where it draws the record's position (canvas px x, y) and its
 * depth: Orbit.project for a whole frame, without an object a boid.
 */
export function forEachProjected(bytes, count, q, lens, visit) {
  const [kx, ky, kz] = [q.w / 65535, q.h / 65535, q.d / 65535];
  const { eye, forward: f, right: r, up: u, focal, cx, cy } = lens;
  const b = bytes;
  for (let i = 0, o = 0; i < count; i++, o += BOID_BYTES_3D) {
    const dx = q.x + (b[o] | (b[o + 1] << 8)) * kx - eye[0];
    const dy = q.y + (b[o + 2] | (b[o + 3] << 8)) * ky - eye[1];
    const dz = q.z + (b[o + 4] | (b[o + 5] << 8)) * kz - eye[2];
    const depth = dx * f[0] + dy * f[1] + dz * f[2];
    if (depth <= lens.near) continue;
    const k = focal / depth;
    visit(i, o, cx + (dx * r[0] + dy * r[1] + dz * r[2]) * k, cy - (dx * u[0] + dy * u[1] + dz * u[2]) * k, depth);
  }
}

export const BOX_EDGES = [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]];

/**
 * Where `ray` ({origin, dir}) meets the plane through `point` ([x, y, z]) facing `normal` (a unit
 * vector): [x, y, z], or null where the plane is behind the ray's origin or along the ray.
 */
export function meetPlane(ray, point, normal) {
  const along = dot(ray.dir, normal);
  if (Math.abs(along) < 1e-9) return null;
  const t = dot(point.map((v, k) => v - ray.origin[k]), normal) / along;
  return t > 0 ? ray.origin.map((v, k) => v + t * ray.dir[k]) : null;
}

export class Orbit {
  yaw = DEFAULT_YAW;
  pitch = DEFAULT_PITCH;
  /** World units from the eye to the target. */
  distance = 1000;
  target = { x: 0, y: 0, z: 0 };

  /** The distance at which a sphere of `radius` around the target just fits `canvas`. */
  distanceToShow(radius, canvas) {
    const aspect = canvas.width / Math.max(1, canvas.height);
    const half = Math.min(FIELD_OF_VIEW / 2, Math.atan(Math.tan(FIELD_OF_VIEW / 2) * aspect));
    return radius / Math.sin(half);
  }

  /** The default angle, looking at the whole of `box` on `canvas`. */
  reset(box, canvas) {
    this.yaw = DEFAULT_YAW;
    this.pitch = DEFAULT_PITCH;
    this.target = boxCentre(box);
    this.distance = this.distanceToShow(0.5 * Math.hypot(box.w, box.h, box.d), canvas);
  }

  /**
   * The camera for `canvas` (device px): eye, forward, right and up (unit vectors, world
   * coordinates), focal length in px, the canvas centre, and the clip planes.
   */
  lens(canvas) {
    const cp = Math.cos(this.pitch);
    const forward = [Math.sin(this.yaw) * cp, Math.sin(this.pitch), Math.cos(this.yaw) * cp];
    const t = [this.target.x, this.target.y, this.target.z];
    const eye = t.map((v, a) => v - forward[a] * this.distance);
    const right = normalize(cross(forward, [0, -1, 0]));
    const up = cross(right, forward);
    const focal = canvas.height / 2 / Math.tan(FIELD_OF_VIEW / 2);
    const near = this.distance / 100;
    const far = this.distance * 100;
    return { eye, forward, right, up, focal, cx: canvas.width / 2, cy: canvas.height / 2, near, far };
  }

  /**
   * The view-projection matrix of `lens` for WebGL (column-major, clip coordinates with y up).
   */
  static matrix(lens, canvas) {
    const { eye, forward: f, right: r, up: u, focal, near, far } = lens;
    const sx = (2 * focal) / canvas.width;
    const sy = (2 * focal) / canvas.height;
    const a = (far + near) / (far - near);
    const b = (-2 * far * near) / (far - near);
    // view: x = r.(p - eye), y = u.(p - eye), depth = f.(p - eye); clip w = depth.
    const row = (v) => [v[0], v[1], v[2], -dot(v, eye)];
    const [rx, uy, fz] = [row(r), row(u), row(f)];
    const m = [0, 1, 2, 3].map((k) => [sx * rx[k], sy * uy[k], a * fz[k] + (k === 3 ? b : 0), fz[k]]);
    return new Float32Array(m.flat());
  }

  /** Where `lens` draws the world point p ([x, y, z]): canvas px {x, y} and depth, or null behind. */
  static project(lens, p) {
    const d = [p[0] - lens.eye[0], p[1] - lens.eye[1], p[2] - lens.eye[2]];
    const depth = dot(d, lens.forward);
    if (depth <= lens.near) return null;
    const k = lens.focal / depth;
    return { x: lens.cx + dot(d, lens.right) * k, y: lens.cy - dot(d, lens.up) * k, depth };
  }

  /**
   * The line of sight of `lens` through the canvas point (x, y) (device px): {origin (the eye),
   * dir (a unit vector)}; the inverse of `project`.
   */
  static ray(lens, x, y) {
    const [a, b] = [(x - lens.cx) / lens.focal, (lens.cy - y) / lens.focal];
    return { origin: lens.eye, dir: normalize(lens.forward.map((f, k) => f + a * lens.right[k] + b * lens.up[k])) };
  }

  /** Turns the view by a drag of (dx, dy) CSS px. */
  rotate(dx, dy) {
    this.yaw -= dx * ROTATE_PER_PX;
    this.pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, this.pitch + dy * ROTATE_PER_PX));
  }

  /** Moves the target across the view by a drag of (dx, dy) device px on `canvas`. */
  pan(dx, dy, canvas) {
    const { right, up, focal } = this.lens(canvas);
    const perPx = this.distance / focal;
    for (const [axis, k] of [['x', 0], ['y', 1], ['z', 2]]) this.target[axis] += (-dx * right[k] + dy * up[k]) * perPx;
  }

  /** Zooms by a wheel's deltaY. */
  zoom(deltaY) {
    this.distance *= Math.exp(deltaY * ZOOM_PER_WHEEL);
  }
}

/**
 * Orbit with the pointer on `stage` while `active()`: drag rotates, the wheel zooms, a right-drag
 * or Shift-drag pans; on a touch screen one finger rotates and two pinch and pan. `changed(how)`
 * runs after each move ('rotate', 'zoom' or 'pan'); `claims(event)` says whether a press belongs
 * to something else (a tool).
 */
export function enableOrbit(stage, orbit, { active, canvas, changed, claims }) {
  const pointers = new Map(); // pointerId -> {x, y} (CSS px)
  let drag = null; // {panning, moved}
  const spread = () => {
    const [a, b] = [...pointers.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  };
  let pinch = null;

  stage.addEventListener('contextmenu', (e) => {
    if (active()) e.preventDefault();
  });
  stage.addEventListener('pointerdown', (e) => {
    if (!active() || claims(e)) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    stage.setPointerCapture(e.pointerId);
    drag = { panning: e.button === 2 || e.shiftKey, moved: false };
    pinch = pointers.size === 2 ? spread() : null;
  });
  stage.addEventListener('pointermove', (e) => {
    const last = pointers.get(e.pointerId);
    if (!active() || !last || !drag) return;
    const [dx, dy] = [e.clientX - last.x, e.clientY - last.y];
    if (!drag.moved && Math.hypot(dx, dy) <= DRAG_PX) return;
    drag.moved = true;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const dpr = pixelRatio();
    if (pinch && pointers.size === 2) {
      const next = spread();
      orbit.zoom((Math.log(pinch.d / Math.max(1, next.d)) / ZOOM_PER_WHEEL));
      orbit.pan((next.x - pinch.x) * dpr, (next.y - pinch.y) * dpr, canvas());
      pinch = next;
      changed('pan');
    } else if (drag.panning) {
      orbit.pan(dx * dpr, dy * dpr, canvas());
      changed('pan');
    } else {
      orbit.rotate(dx, dy);
      changed('rotate');
    }
  });
  const release = (e) => {
    pointers.delete(e.pointerId);
    pinch = null;
    if (pointers.size === 0) drag = null;
  };
  stage.addEventListener('pointerup', release);
  stage.addEventListener('pointercancel', release);
  stage.addEventListener('wheel', (e) => {
    if (!active()) return;
    e.preventDefault();
    orbit.zoom(e.deltaY);
    changed('zoom');
  }, { passive: false });
}
