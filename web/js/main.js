// boids live viewer: wires the page's modules together. No build step: the server embeds every
// file of web/js and serves it as /js/<name>.js.
//
// The server streams binary frames and overlays over /ws (connection.js; format: wire.js and
// crates/boids-server/src/protocol/mod.rs) and JSON text messages (state, metrics, replies). Boids
// are drawn with WebGL2 (webgl.js: instanced darts whose attributes are the frame bytes
// themselves), or with canvas 2D (canvas2d.js) where WebGL2 is missing or runs in software, or
// with ?renderer=2d. Debug overlays, obstacles and the world's other objects (world-objects.js:
// predators, attractors, the ground line) go on a 2D canvas on top (overlays.js); the world tool
// bar edits the world (world-tools.js, with the tools of obstacle-tools.js, predator-tools.js and
// attractor-tools.js, and the camera's buttons, camera.js). Drawing happens once an animation
// frame, and only after something changed (`redraw`) or the camera moved; Record makes a video
// of what is drawn (recorder.js).
//
// A flock in three dimensions comes in version 3 frames (wire.js) and is drawn by the same
// renderers through the orbit camera (orbit.js: drag rotates, the wheel zooms, a right-drag pans;
// webgl3d.js and canvas3d.js draw it, with its obstacles and predators; world3d.js the marks of
// its world) instead of the flat view's pan and zoom. The world tools edit it with the same bar:
// where the pointer is in the world comes from pointing.js, flat or in three dimensions.

import { createAttractorEditor } from './attractor-tools.js';
import { createCamera } from './camera.js';
import { createCanvas2DRenderer } from './canvas2d.js';
import { createConnection } from './connection.js';
import { createControls } from './controls.js';
import { $, pixelRatio, toast } from './dom.js';
import { createObstacleEditor } from './obstacle-tools.js';
import { Orbit, enableOrbit } from './orbit.js';
import { acrossSeam, createOverlays, describeHovered } from './overlays.js';
import { createOverlayMode } from './overlay-mode.js';
import { createParameterPanel } from './parameters.js';
import { createMetricsPlots } from './plots.js';
import { createPointing } from './pointing.js';
import { createPredatorTools } from './predator-tools.js';
import { createRecorder } from './recorder.js';
import { bindShortcuts } from './shortcuts.js';
import { createStats } from './stats.js';
import { View, enablePanZoom } from './view.js';
import { createWebGLRenderer } from './webgl.js';
import { groundY, predatorsOf, restingY } from './world-objects.js';
import { createWorldTools } from './world-tools.js';
import { GHOST_FLOATS, boidPosition, decode } from './wire.js';

const stage = $('stage');
const overlayCanvas = $('overlay');
const view = new View();
const orbit = new Orbit();
let server = null; // the last state message
let frame = null; // the latest frame (wire.js)
let framesDrawn = 0;
// The revision at which the current flock began (its first state message): a frame of an older
// revision is of the flock before it, and is not drawn (nor its world, nor its predators).
let runRevision = null;
let dirty = true;
const redraw = () => {
  dirty = true;
};
/** Whether the flock on screen has three dimensions. */
const solid = () => frame?.dimensions === 3;
/** The latest frame, when it is of the current flock (revisions wrap as u32). */
const currentFrame = () => (frame && (runRevision === null || ((frame.revision - runRevision) >>> 0) < 0x80000000) ? frame : null);

// ?renderer=webgl or ?renderer=2d overrides the choice (WebGL2 on a real GPU, else 2D).
const forced = new URLSearchParams(location.search).get('renderer');
const renderer = (forced !== '2d' && createWebGLRenderer($('boids'), view, forced === 'webgl', orbit)) || createCanvas2DRenderer($('boids'), view, orbit);

const overlays = createOverlays(overlayCanvas, view, orbit);
const stats = createStats();
const plots = createMetricsPlots();
const connection = createConnection({
  onOpen() {
    panel.forgetSent();
    obstacles.forget();
    attractors.forget();
    stats.connected(true);
    overlayMode.resend();
  },
  onClose() {
    stats.connected(false);
  },
  onText(message) {
    if (message.type === 'state') onState(message);
    else if (message.type === 'metrics') onMetrics(message);
    else if (message.type === 'notice') toast(message.message);
  },
  onBinary,
  onRefused(key, text) {
    if (!predators.quiet(key)) toast(text);
    panel.restore(key);
    obstacles.refused(key);
    attractors.refused(key);
    redraw();
  },
});
const overlayMode = createOverlayMode({ send: connection.send, view, overlays, redraw, solid, pick: pickDrawn });
const controls = createControls({ request: connection.request, serverState: () => server, overlayMode, redraw });
const pointing = createPointing({ stage, view, orbit, canvas: () => renderer.canvas, frame: () => frame, params: () => server?.params });
const obstacles = createObstacleEditor({ request: connection.request, serverState: () => server, pointing });
const attractors = createAttractorEditor({ request: connection.request, serverState: () => server, pointing });
const predators = createPredatorTools({
  request: connection.request, frame: () => frame, serverState: () => server, stage, pointing, view, radius: () => view.boidRadius(server?.params),
});
/** Clear: the world as a flock starts without one, no obstacle, attractor or predator. */
const clearWorld = {
  id: 'clear',
  group: 'clear',
  label: 'Clear',
  title: 'Remove every obstacle, attractor and predator',
  run() {
    obstacles.clear();
    attractors.clear();
    predators.clear();
  },
};
const recorder = createRecorder({
  layers: () => [renderer.canvas, overlayCanvas],
  name: () => `boids-${server?.preset ?? 'stage'}-step${frame?.step ?? 0}`,
  redraw,
});
const camera = createCamera({ view, orbit, canvas: () => renderer.canvas, redraw });
const tools = createWorldTools({
  stage, pointing, entries: [...obstacles.tools, ...predators.tools, ...attractors.tools, clearWorld, ...camera.entries], redraw,
});
const panel = createParameterPanel({
  request: connection.request,
  serverParams: () => server?.params,
  onLoaded(description) {
    controls.listPresets(description);
    if (server) showState(server);
  },
});

/**
 * The boid of a flock in three dimensions drawn nearest the stage point (cx, cy) (CSS px),
 * within `px` device px: {x, y, z} where it is and a pick radius (world units) for the server to
 * find it again; null for none.
 */
function pickDrawn(cx, cy, px) {
  if (!solid()) return null;
  const canvas = renderer.canvas;
  const lens = orbit.lens(canvas);
  const dpr = pixelRatio();
  let best = null;
  for (let i = 0; i < frame.count; i++) {
    const p = boidPosition(frame, i);
    const at = Orbit.project(lens, [p.x, p.y, p.z]);
    const off = at && Math.hypot(at.x - cx * dpr, at.y - cy * dpr);
    if (off !== null && off <= px && (!best || off < best.off)) best = { off, p, depth: at.depth };
  }
  return best && { ...best.p, radius: (px * best.depth) / lens.focal };
}

function showState(state) {
  panel.show(state.params);
  controls.show(state);
}

function onState(state) {
  const previous = server;
  server = state;
  const started = !previous || previous.run !== state.run || previous.params.camera !== state.params.camera;
  if (previous && previous.run !== state.run) {
    // A new flock (a preset, a reset): nothing of the old one is drawn until its first frame.
    runRevision = state.revision;
    overlays.clear();
  }
  if (started) camera.start(state.params);
  panel.follow(state, previous);
  plots.follow(state);
  obstacles.follow(state);
  attractors.follow(state);
  showState(state);
  redraw();
}

function onMetrics(message) {
  plots.show(message);
  camera.measured(message);
}

function onBinary(buffer) {
  stats.received(buffer.byteLength);
  const message = decode(buffer);
  if (message?.frame) {
    frame = message.frame;
    stage.classList.toggle('solid', solid());
    // In 3D the boid under the pointer is picked again as the flock moves.
    if (solid()) overlayMode.viewChanged();
    stats.frameArrived(frame);
    camera.frame(frame, server?.params);
    redraw();
  }
  // An overlay still on its way when the user turned overlays off is dropped.
  if (message?.overlay && overlayMode.mode !== 'off') {
    overlays.receive(message.overlay);
    redraw();
  }
}

function draw() {
  const frame = currentFrame();
  const display = controls.display();
  // In 3D a boid's size is its own (the renderers keep it visible); flat, the view's.
  const radius = solid() ? Number(server?.params?.boid_size) || 1 : view.boidRadius(server?.params);
  const edited = { obstacles: obstacles.shown(), attractors: attractors.shown() };
  const ground = frame && !solid() ? groundY(frame.world, server?.params) : null;
  renderer.draw(frame, display.byGroup, radius, edited.obstacles, ground === null ? null : restingY(ground, radius, view));
  tools.refresh();
  overlays.draw(frame, server?.params, overlayMode.mode, display, radius, edited, tools.marks());
  describeHovered($('info'), overlays.latest, overlayMode.mode);
}

function frameLoop(now) {
  if (camera.update(now)) {
    overlayMode.viewChanged();
    dirty = true;
  }
  if (dirty) {
    dirty = false;
    draw();
    recorder.frame();
    if (frame) framesDrawn++;
    stats.frameDrawn();
  }
  if (stats.tick(now, currentFrame(), server)) plots.age(now, frame?.step);
  recorder.tick(now);
  overlayMode.flush();
  requestAnimationFrame(frameLoop);
}

function resize() {
  const dpr = pixelRatio();
  // The bar's buttons, not the hint beside them, which comes and goes with the chosen tool.
  const barBottom = Math.max(...[...$('tools').querySelectorAll('.seg')].map((seg) => seg.getBoundingClientRect().bottom));
  view.barHeight = barBottom - stage.getBoundingClientRect().top + 8;
  stage.style.setProperty('--bar-bottom', `${Math.round(view.barHeight)}px`);
  for (const c of [renderer.canvas, overlayCanvas]) {
    c.width = Math.max(1, Math.round(stage.clientWidth * dpr));
    c.height = Math.max(1, Math.round(stage.clientHeight * dpr));
  }
  redraw();
}

enablePanZoom(stage, view, {
  redraw, zoomed: overlayMode.viewChanged, byHand: camera.release, showWorld: camera.showWorld, claims: tools.claims, inactive: solid,
});
enableOrbit(stage, orbit, {
  active: solid,
  canvas: () => renderer.canvas,
  changed(how) {
    camera.orbited(how);
    overlayMode.viewChanged();
  },
  claims: tools.claims,
});
overlayMode.trackPointer(stage);
bindShortcuts({ ...controls.actions, worldKey: tools.key });
const resizes = new ResizeObserver(resize);
resizes.observe(stage);
resizes.observe($('tools'));
resize();

// Read-only hooks for the browser test and for curious users.
window.boidsViewer = {
  get renderer() { return renderer.name; },
  get framesDrawn() { return framesDrawn; },
  get frame() {
    return frame && {
      dimensions: frame.dimensions, step: frame.step, revision: frame.revision, count: frame.count, world: frame.world, running: frame.running,
    };
  },
  get overlay() {
    const ov = overlays.latest;
    const world = frame?.world;
    if (!ov) return null;
    if (ov.dimensions === 3) return { records: ov.recordCount, links: ov.linkCount, hover: ov.hover, ghosts: ov.ghostCount };
    let across = 0;
    for (let k = 0; world && k < ov.linkCount; k++) {
      if (acrossSeam(world, ov.links[2 * k], ov.links[2 * k + 1])) across++;
    }
    let ghostsOutside = 0;
    for (let k = 0; world && k < ov.ghostCount; k++) {
      if (acrossSeam(world, ov.ghosts[k * GHOST_FLOATS], ov.ghosts[k * GHOST_FLOATS + 1])) ghostsOutside++;
    }
    return {
      records: ov.recordCount, links: ov.linkCount, acrossSeam: across, hover: ov.hover,
      ghosts: ov.ghostCount, ghostsOutside,
    };
  },
  get server() { return server; },
  get metrics() { return plots.latest; },
  /** The obstacles drawn now. */
  get obstacles() { return obstacles.shown(); },
  /** The attractors drawn now, [x, y] each ([x, y, z] in 3D). */
  get attractors() { return attractors.shown(); },
  /** The latest frame's predators: {x, y (and z in 3D), angle, pointer} each, the mouse's last. */
  get predators() { return predatorsOf(frame, view); },
  /**
   * Where the view is: world coordinates of the stage's top-left corner, device px per unit, and
   * the world point a camera keeps in the middle.
   */
  get view() { return { x0: view.x0, y0: view.y0, scale: view.scale, centre: view.centre(renderer.canvas) }; },
  /** The camera's mode: 'world', 'follow', 'fit', or null (placed by hand). */
  get camera() { return camera.mode; },
  /** The orbit camera of a flock in three dimensions: yaw, pitch (radians), distance and target. */
  get orbit() { return { yaw: orbit.yaw, pitch: orbit.pitch, distance: orbit.distance, target: { ...orbit.target } }; },
  /** World positions [x, y] (and z in 3D) of the latest frame's boids (quantised as sent). */
  boidPositions() {
    return Array.from({ length: frame?.count ?? 0 }, (_, i) => {
      const { x, y, z } = boidPosition(frame, i);
      return z === undefined ? [x, y] : [x, y, z];
    });
  },
  /**
   * Client (CSS px, page) coordinates of the world point (x, y), or in 3D of (x, y, z) through
   * the orbit camera (null: behind it).
   */
  clientPosition(x, y, z) {
    const dpr = pixelRatio();
    const rect = stage.getBoundingClientRect();
    if (z === undefined) return { x: rect.left + view.sx(x) / dpr, y: rect.top + view.sy(y) / dpr };
    const at = Orbit.project(orbit.lens(renderer.canvas), [x, y, z]);
    return at && { x: rect.left + at.x / dpr, y: rect.top + at.y / dpr };
  },
  /** Client (CSS px, page) coordinates of boid `i` of the latest frame (null: behind the camera). */
  boidClientPosition(i) {
    const { x, y, z } = boidPosition(frame, i);
    return this.clientPosition(x, y, z);
  },
};

panel.load();
connection.open();
requestAnimationFrame(frameLoop);
