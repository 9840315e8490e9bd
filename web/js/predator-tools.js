// The predator tools of the world tool bar (world-tools.js): place a predator with a click
// (`place_predator`: predator_count one higher), remove the one clicked (`remove_predator`, by
// its index in the frame), and "the mouse is a predator", a switch: while it is on, the mouse's
// place over the stage goes out as `pointer` (at most about 30 times a second) and the predator
// that follows it is made on the first; when the mouse leaves the stage or the switch goes off,
// `{"type": "pointer"}` removes it. Each is a world edit the server logs and replays.

import { pixelRatio } from './dom.js';
import { throttled } from './throttle.js';
import { nearestWithin, predatorRadius, predatorsOf } from './world-objects.js';

const PICK_PX = 10; // CSS px around the pointer within which a predator is picked
const POINTER_SEND_MS = 33; // the mouse's place goes out at most this often
const GROUP = 'predators';

/**
 * `request` sends a request to the server (connection.js); `frame()` gives the latest frame and
 * `serverState()` the latest state message; `stage` is the element the mouse moves over; `view`
 * maps the pointer to the world and says where a predator is drawn; `radius()` is a boid's drawn
 * radius (a predator is drawn larger).
 */
export function createPredatorTools({ request, frame, serverState, stage, view, radius }) {
  let mouseIsPredator = false;
  const sendPointer = throttled((p) => request({ type: 'pointer', x: p.x, y: p.y }, 'pointer'), POINTER_SEND_MS);

  /** The index of the predator (not the mouse's) drawn under world point `p` (or null), or -1. */
  function pick(p) {
    if (!p) return -1;
    const predators = predatorsOf(frame(), view);
    const tolerance = Math.max(predatorRadius(view, radius()) * 2.2, (PICK_PX * pixelRatio()) / view.scale);
    return nearestWithin(predators, p, tolerance, (k) => predators[k].pointer);
  }

  function removePointer() {
    sendPointer.cancel();
    request({ type: 'pointer' }, 'pointer');
  }

  stage.addEventListener('pointermove', (e) => {
    if (!mouseIsPredator) return;
    const rect = stage.getBoundingClientRect();
    sendPointer(view.clientToWorld(e.clientX - rect.left, e.clientY - rect.top));
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
      release: (g) => request({ type: 'place_predator', x: g.start.x, y: g.start.y }),
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
