// The camera: what the view shows, chosen with the camera buttons of the world tool bar (or
// keys F, L, Z) and, when a flock starts or the world changes, by the `camera` parameter (the
// couzin preset's is follow, the murmuration's fit). Modes:
//   world   the whole world fitted to the stage;
//   follow  the largest flock kept in the middle, at the world view's scale;
//   fit     the whole flock framed with a margin;
//   null    where the user put it: any pan or zoom by hand leaves the other modes.
// Fit measures the whole flock (its centroid and half-extents) on each frame it draws, and so
// does follow while the metrics count a single flock. With several flocks follow reads the
// largest one's `focus` in the server's metrics messages (a few times a second, each measured
// at a step; a large flock's, less often), carried forward to the step on screen, along every
// axis, at the pace it moved between the last two messages. Either way the view moves with its
// goal as far as the goal moved since the last frame, and glides the rest of the way by
// exponential smoothing in time: a flock in flight stays where the camera puts it however fast
// the simulation runs, and a jump (another flock became the largest, a mode was chosen) glides
// at any frame rate. On a torus the centre moves by the minimum-image difference, across a seam
// rather than back through the world, and stays inside the world; the view then draws things at
// their image nearest the centre (View.wrap), so a flock straddling a seam is drawn whole.
//
// A flock in three dimensions is seen through the orbit camera (orbit.js) instead: world puts it
// back at its default angle, looking at the whole box (the F key resets the view so); follow
// glides the orbit's target to the largest flock's centre, keeping the distance the user chose;
// fit frames the whole flock. Rotating keeps the mode; panning leaves it, and zooming leaves
// world and fit, whose distance it would fight.

import { boxCentre } from './orbit.js';
import { nearestImage } from './view.js';
import { BOID_BYTES, BOID_BYTES_3D } from './wire.js';

const SMOOTHING_SECONDS = 0.2; // the camera covers 1 - 1/e of its way to the focus in this time
const FIT_MARGIN = 0.25; // fit leaves this share of the flock's half-extent around it
const FIT_LEAST_SHARE = 0.03; // fit shows at least this share of the world's larger side around the centre
const SETTLED_PX = 0.05; // a move smaller than this (device px) is not drawn
const MODES = ['world', 'follow', 'fit'];
const GROUP = 'camera';
/** The axes of a box or focus ({x, y, z, w, h, d}: centre or corner, and extents), each with its extent. */
const AXES = [['x', 'w'], ['y', 'h'], ['z', 'd']];

/** `v` wrapped into [start, start + period) (period 0: as it is). */
const wrapInto = (v, start, period) => (period > 0 ? start + (((v - start) % period) + period) % period : v);

/**
 * The focus of every boid of `frame`, as the metrics message's `whole`: {x, y (, z)} the
 * centroid and {w, h (, d)} the half-extents of the box centred on it that holds every boid;
 * on a torus (`periods` the world's {w, h, d}, else {}) each boid's image nearest `anchor` (a
 * centre {x, y, z}; by default the first boid). Null without boids.
 */
function focusOfFrame(frame, anchor, periods) {
  const n = frame.count;
  if (n === 0) return null;
  const stride = frame.dimensions === 3 ? BOID_BYTES_3D : BOID_BYTES;
  const q = frame.quant;
  const [lows, scales] = [[q.x, q.y, q.z], [q.w, q.h, q.d].map((extent) => extent / 65535)];
  const b = frame.boids;
  const coordinate = (i, a) => lows[a] + (b[i * stride + 2 * a] | (b[i * stride + 2 * a + 1] << 8)) * scales[a];
  const focus = {};
  AXES.slice(0, frame.dimensions).forEach(([name, extent], a) => {
    const [around, period] = [anchor?.[name] ?? coordinate(0, a), periods[extent] ?? 0];
    const unwrapped = (i) => nearestImage(coordinate(i, a), around, period);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += unwrapped(i);
    const centre = sum / n;
    let half = 0;
    for (let i = 0; i < n; i++) half = Math.max(half, Math.abs(unwrapped(i) - centre));
    [focus[name], focus[extent]] = [centre, half];
  });
  return focus;
}

/**
 * `view` is the view to move (view.js) and `orbit` the orbit camera of a flock in three
 * dimensions (orbit.js); `canvas()` the canvas they draw on; `redraw` asks for the next frame to
 * draw.
 */
export function createCamera({ view, orbit, canvas, redraw }) {
  let mode = 'world';
  let focus = null; // the latest metrics message's focus, or null
  let focusStep = 0; // the step it was measured at
  let pace = null; // how far each focus's centre moved a step: {largest, whole} of {x, y}
  let world = null; // the latest frame's world rectangle (a box {x, y, z, w, h, d} in 3D)
  let solid = false; // whether the latest frame is of a flock in three dimensions
  let torus = false;
  let step = 0; // the latest frame's step
  let worldKey = '';
  let last = null; // time of the last update, ms
  let oneFlock = false; // whether the latest metrics message counts a single flock
  let framed = null; // the whole flock's focus measured on the latest frame (in follow and fit), or null
  let aimed = null; // what the camera last aimed at: {box, fromFrame, step}, or null

  function set(next) {
    mode = next;
    last = null;
    aimed = null;
    if (solid && mode === 'world') orbit.reset(world, canvas());
    redraw();
  }

  /** The scale at which the whole world fits the stage, which follow keeps. */
  function worldScale() {
    const pad = 0.03 * Math.max(world.w, world.h);
    return view.scaleToShow(world.w / 2 + pad, world.h / 2 + pad, canvas());
  }

  const period = () => (torus ? world : { w: 0, h: 0 });

  /**
   * How far the centre of `next` moved a step since `last`, `steps` steps before, along each
   * axis it has; none across a jump wider than the box (another flock became the largest, or a
   * new flock started).
   */
  function paceOf(last, next, steps) {
    const perStep = { x: 0, y: 0, z: 0 };
    if (!last || !next || steps <= 0) return perStep;
    const axes = AXES.filter(([a]) => next[a] !== undefined && last[a] !== undefined);
    const moved = axes.map(([a, extent]) => nearestImage(next[a], last[a], period()[extent] ?? 0) - last[a]);
    if (axes.some(([, extent], i) => Math.abs(moved[i]) > next[extent] + last[extent])) return perStep;
    axes.forEach(([a], i) => { perStep[a] = moved[i] / steps; });
    return perStep;
  }

  /**
   * The box `name` of the focus ('largest', 'whole'), its centre carried forward to the frame's
   * step along each axis it has.
   */
  function carried(name) {
    const box = focus?.[name];
    if (!box) return null;
    const ahead = Math.max(0, step - focusStep);
    const moved = { ...box };
    for (const [a] of AXES) {
      if (box[a] !== undefined) moved[a] = box[a] + pace[name][a] * ahead;
    }
    return moved;
  }

  /**
   * The box the mode frames ('largest' for follow, 'whole' for fit), and how far it moved since
   * the camera last moved ({x, y, z}). The whole flock, and the largest where it is the only
   * one, are measured on the latest frame, so the camera moves with them exactly; else the box
   * is the metrics message's carried forward, which moves at its pace.
   */
  function aim() {
    const name = mode === 'follow' ? 'largest' : 'whole';
    const fromFrame = Boolean(framed) && (name === 'whole' || oneFlock);
    const box = fromFrame ? framed : carried(name);
    if (!box) return null;
    const flown = { x: 0, y: 0, z: 0 };
    const steps = aimed ? Math.max(0, step - aimed.step) : 0;
    for (const [a, extent] of AXES) {
      if (box[a] === undefined || !aimed) continue;
      flown[a] = fromFrame && aimed.fromFrame
        ? nearestImage(box[a], aimed.box[a], period()[extent] ?? 0) - aimed.box[a]
        : pace[name][a] * steps;
    }
    aimed = { box, fromFrame, step };
    return { box, flown };
  }

  /**
   * Where the mode would put the view now: {x, y (world centre), scale, flown (how far its box
   * moved since the camera last moved)}, or null.
   */
  function target() {
    const aimAt = (mode === 'follow' || mode === 'fit') && aim();
    if (!aimAt) return null;
    const { box, flown } = aimAt;
    if (mode === 'follow') return { x: box.x, y: box.y, scale: worldScale(), flown };
    const least = FIT_LEAST_SHARE * Math.max(world.w, world.h);
    const scale = view.scaleToShow(box.w * (1 + FIT_MARGIN) + least, box.h * (1 + FIT_MARGIN) + least, canvas());
    return { x: box.x, y: box.y, scale, flown };
  }

  /**
   * Where the mode would put the orbit camera now, in three dimensions: {target: {x, y, z},
   * distance (or none: the user's), flown (as for `target`)}, or null.
   */
  function orbitTarget() {
    const aimAt = (mode === 'follow' || mode === 'fit') && aim();
    if (!aimAt) return null;
    const { box, flown } = aimAt;
    const target = { x: box.x, y: box.y, z: box.z ?? boxCentre(world).z };
    if (mode === 'follow') return { target, flown };
    const reach = Math.hypot(box.w, box.h, box.d ?? 0) * (1 + FIT_MARGIN) + FIT_LEAST_SHARE * Math.max(world.w, world.h, world.d);
    return { target, distance: orbit.distanceToShow(reach, canvas()), flown };
  }

  /**
   * Moves the orbit camera with its goal's centre since the last update, then a time `dt` (s) of
   * the rest of the way toward `goal`; whether it moved visibly.
   */
  function glideOrbit(goal, dt) {
    const k = 1 - Math.exp(-dt / SMOOTHING_SECONDS);
    const t = orbit.target;
    const { flown } = goal;
    const step = ['x', 'y', 'z'].map((a) => flown[a] + k * (goal.target[a] - t[a] - flown[a]));
    const scale = goal.distance ? k * Math.log(goal.distance / orbit.distance) : 0;
    const px = (Math.hypot(...step) / orbit.distance) * canvas().height;
    if (px <= SETTLED_PX && Math.abs(scale) <= 1e-4) return false;
    ['x', 'y', 'z'].forEach((a, i) => { t[a] += step[i]; });
    orbit.distance *= Math.exp(scale);
    return true;
  }

  /**
   * Moves the view with its goal's centre since the last update, then a time `dt` (s) of the
   * rest of the way toward `goal`; whether it moved visibly.
   */
  function glide(goal, dt) {
    const k = 1 - Math.exp(-dt / SMOOTHING_SECONDS);
    const { w: pw, h: ph } = period();
    const { flown } = goal;
    const centre = view.centre(canvas());
    const at = { x: centre.x + flown.x, y: centre.y + flown.y };
    // The goal's image nearest the camera: the way across a seam, not back through the world.
    const [gx, gy] = [nearestImage(goal.x, at.x, pw), nearestImage(goal.y, at.y, ph)];
    const scale = view.scale * Math.exp(k * Math.log(goal.scale / view.scale));
    const [dx, dy] = [k * (gx - at.x), k * (gy - at.y)];
    const moved = Math.hypot(flown.x + dx, flown.y + dy) * scale > SETTLED_PX || Math.abs(scale / view.scale - 1) > 1e-4;
    const [x, y] = [wrapInto(at.x + dx, world.x, pw), wrapInto(at.y + dy, world.y, ph)];
    if (moved) view.centreOn(x, y, scale, canvas());
    return moved;
  }

  const entries = [
    { id: 'camera-world', label: 'World', key: 'f', title: 'Camera: the whole world (or double-click the stage)', mode: 'world' },
    { id: 'camera-follow', label: 'Follow', key: 'l', title: 'Camera: follow the largest flock, at the world view\'s scale', mode: 'follow' },
    { id: 'camera-fit', label: 'Fit', key: 'z', title: 'Camera: frame the whole flock', mode: 'fit' },
  ].map(({ mode: m, ...entry }) => ({ ...entry, group: GROUP, active: () => mode === m, run: () => set(m) }));

  return {
    entries,
    /** The mode: 'world', 'follow', 'fit' or null (placed by hand). */
    get mode() {
      return mode;
    },
    /** The user panned or zoomed: the camera stays where they put it. */
    release() {
      set(null);
    },
    /**
     * The user moved the orbit camera ('rotate', 'zoom' or 'pan'): a pan leaves the mode, a zoom
     * leaves world and fit; rotating keeps it.
     */
    orbited(how) {
      if (how === 'pan' || (how === 'zoom' && mode !== 'follow')) set(null);
      else redraw();
    },
    /** Shows the whole world (a double click on the stage). */
    showWorld() {
      set('world');
    },
    /** A metrics message: its focus (null: no boids) measured at its step. */
    measured(message) {
      const next = message.focus ?? null;
      const steps = message.step - focusStep;
      pace = { largest: paceOf(focus?.largest, next?.largest, steps), whole: paceOf(focus?.whole, next?.whole, steps) };
      focus = next;
      focusStep = message.step;
      oneFlock = message.flocks === 1;
      if (mode === 'follow' || mode === 'fit') redraw();
    },
    /**
     * A flock started (`params` its parameters) or a frame came with another world: the mode
     * becomes the `camera` parameter's.
     */
    start(params) {
      set(MODES.includes(params?.camera) ? params.camera : 'world');
    },
    /**
     * A frame came: its world, whether it wraps, and (in follow and fit) where its flock is;
     * another world starts the camera afresh.
     */
    frame(frame, params) {
      world = frame.world;
      solid = frame.dimensions === 3;
      torus = frame.torus;
      step = frame.step;
      const key = [frame.dimensions, world.x, world.y, world.z, world.w, world.h, world.d].join();
      if (key !== worldKey) {
        worldKey = key;
        if (solid) orbit.reset(world, canvas());
        this.start(params);
      }
      const anchor = framed ?? focus?.largest;
      framed = mode === 'follow' || mode === 'fit' ? focusOfFrame(frame, anchor, torus ? world : {}) : null;
    },
    /**
     * Moves the view for the time `now` (ms, an animation frame's), and says on a torus where
     * things are drawn; whether the view changed.
     */
    update(now) {
      if (!world) return false;
      const dt = last === null ? 0 : Math.min(1, (now - last) / 1000);
      last = now;
      if (solid) {
        view.wrap = null;
        const goal = orbitTarget();
        return goal ? glideOrbit(goal, dt) : false;
      }
      let moved = false;
      if (mode === 'world') {
        moved = view.fit(world, canvas());
      } else {
        const goal = target();
        if (goal) moved = glide(goal, dt);
      }
      const following = torus && (mode === 'follow' || mode === 'fit');
      view.wrap = following ? { anchor: view.centre(canvas()), period: { w: world.w, h: world.h } } : null;
      return moved;
    },
  };
}
