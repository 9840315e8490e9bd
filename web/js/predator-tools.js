// The predator tools of the world tool bar (world-tools.js): place a predator with a click
// (`place_predator`: predator_count one higher), remove the one clicked (`remove_predator`, by
// its index in the frame), and "the mouse is a predator", a switch: while it is on, the mouse's
// place over the stage goes out as `pointer` (at most about 30 times a second) and the predator
// that follows it is made on the first; when the mouse leaves the stage or the switch goes off,
// `{"type": "pointer"}` removes it. Each is a world edit the server logs and replays. For a flock
// in three dimensions each point has its z: where the pointer is comes from pointing.js (in 3D
// the mouse's predator moves on the plane a click places things on).

import { pixelRatio } from './dom.js';
import { throttled } from './throttle.js';
import { predatorRadius, predatorsOf } from './world-objects.js';

const PICK_PX = 10; // CSS px around the pointer within which a predator is picked
const POINTER_SEND_MS = 33; // the mouse's place goes out at most this often
const GROUP = 'predators';

/** A spot's coordinates as a request's fields: x, y, and z in three dimensions. */
const fields = ([x, y, z]) => (z === undefined ? { x, y } : { x, y, z });

/**
 * `request` sends a request to the server (connection.js); `frame()` gives the latest frame and
 * `serverState()` the latest state message; `stage` is the element the mouse moves over;
 * `pointing` (pointing.js) says where the pointer is in the world; `view` says where a predator
 * is drawn in the flat view, and `radius()` is a boid's drawn radius (a predator is drawn larger).
 */
export function createPredatorTools({ request, frame, serverState, stage, pointing, view, radius }) {
  let mouseIsPredator = false;
  const sendPointer = throttled((p) => request({ type: 'pointer', ...fields(pointing.coords(p)) }, 'pointer'), POINTER_SEND_MS);

  /** The index of the predator (not the mouse's) drawn under spot `p` (or null), or -1. */
  function pick(p) {
    const predators = predatorsOf(frame(), view);
    const flatPx = (predatorRadius(view, radius()) * 2.2 * view.scale) / pixelRatio();
    const px = pointing.dimensions() === 3 ? PICK_PX : Math.max(PICK_PX, flatPx);
    const points = predators.map(({ x, y, z }) => (z === undefined ? [x, y] : [x, y, z]));
    return pointing.nearest(points, p, px, (k) => predators[k].pointer);
  }

  function removePointer() {
    sendPointer.cancel();
    request({ type: 'pointer' }, 'pointer');
  }

  stage.addEventListener('pointermove', (e) => {
    if (mouseIsPredator) sendPointer(pointing.spot(e));
  });
  stage.addEventListener('pointerleave', () => {
    if (mouseIsPredator) removePointer();
  });

  const tools = [
    {
      id: 'predator',
      group: GROUP,
      label: 'Predator',
      key: 'p',
      title: 'Predator: click to place one',
      hint: 'Click to place a predator',
      release: (g) => request({ type: 'place_predator', ...fields(pointing.coords(g.start)) }),
    },
    {
      id: 'remove-predator',
      group: GROUP,
      label: 'Remove',
      key: 'k',
      title: 'Remove a predator: click it',
      hint: 'Click a predator to remove it',
      press(g) {
        const index = pick(g.start);
        if (index >= 0) request({ type: 'remove_predator', index });
      },
      marks: (pointer) => ({ predator: pick(pointer) }),
    },
    {
      id: 'mouse-predator',
      group: GROUP,
      label: 'Mouse',
      key: 'm',
      title: 'The mouse is a predator: boids flee the pointer while this is on',
      active: () => mouseIsPredator,
      run() {
        mouseIsPredator = !mouseIsPredator;
        if (!mouseIsPredator) removePointer();
      },
    },
  ];

  return {
    tools,
    /** Removes every predator placed or started with the flock (the world's Clear). */
    clear() {
      const placed = (serverState()?.params?.predator_count ?? 0) > 0;
      if (placed) request({ type: 'set', key: 'predator_count', value: 0 }, 'predator_count');
    },
    /**
     * Whether a refusal of a request sent with `key` needs no toast: the mouse's place, refused
     * where it is inside an obstacle (the predator stays where it last was) 30 times a second.
     */
    quiet: (key) => key === 'pointer',
  };
}
