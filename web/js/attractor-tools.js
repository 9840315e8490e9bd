// The attractor editor: the world tools (world-tools.js) that place, move and remove the points
// the flock seeks (the `attractors` parameter, [x, y] each, [x, y, z] in three dimensions).
// Every edit sends the whole new list as one `set` (list-edit.js); a dragged attractor sends its
// list as it moves, about 30 times a second, so the flock follows it live, and once more where it
// is let go. Where the pointer is, and which attractor it is over, comes from pointing.js.

import { createListEdit } from './list-edit.js';
import { throttled } from './throttle.js';

const PICK_PX = 10; // CSS px around the pointer within which an attractor is picked
const DRAG_SEND_MS = 33; // a dragged attractor's list goes out at most this often
const GROUP = 'attractors';

/** A coordinate as sent: no more digits than the server's f32 keeps. */
const tidy = (v) => Number(v.toPrecision(7));

/**
 * `request` sends a request to the server (connection.js); `serverState()` gives the latest state
 * message; `pointing` (pointing.js) says where the pointer is in the world.
 */
export function createAttractorEditor({ request, serverState, pointing }) {
  const edit = createListEdit({ request, serverState, key: 'attractors' });
  const { shown, commit } = edit;
  const sendWhileDragged = throttled(edit.send, DRAG_SEND_MS);
  let moving = null; // the move tool's press: {index, base (the list then), dragged}

  /** The index of the attractor drawn under spot `p` (or null), or -1. */
  const pick = (p) => pointing.nearest(shown(), p, PICK_PX);

  function stopMoving() {
    sendWhileDragged.cancel();
    moving = null;
    edit.preview(null);
  }

  const tools = [
    {
      id: 'attractor',
      group: GROUP,
      label: 'Attractor',
      key: 'a',
      title: 'Attractor: click to place a point the flock seeks',
      hint: 'Click to place an attractor (the flock seeks it with attract_factor)',
      release: (g) => commit([...shown(), pointing.coords(g.start)]),
    },
    {
      id: 'move-attractor',
      group: GROUP,
      label: 'Drag',
      key: 'd',
      title: 'Drag an attractor: the flock follows it as it moves',
      hint: 'Drag an attractor; the flock follows it as it moves',
      claims: (p) => pick(p) >= 0,
      reset: stopMoving,
      press(g) {
        moving = { index: pick(g.start), base: shown(), dragged: false };
      },
      drag(g) {
        const anchor = moving.base[moving.index];
        const offset = pointing.offset(g, anchor);
        const list = moving.base.map((a, k) => (k === moving.index ? anchor.map((v, i) => tidy(v + offset[i])) : a));
        moving.dragged = true;
        edit.preview(list);
        sendWhileDragged(list);
      },
      release() {
        const list = shown();
        const dragged = moving.dragged;
        stopMoving();
        if (dragged) commit(list);
      },
      cancel() {
        const wasMoving = moving !== null;
        stopMoving();
        return wasMoving;
      },
      marks: (pointer) => ({ attractor: moving ? moving.index : pick(pointer) }),
    },
    {
      id: 'remove-attractor',
      group: GROUP,
      label: 'Remove',
      key: 'e',
      title: 'Remove an attractor: click it',
      hint: 'Click an attractor to remove it',
      press(g) {
        const index = pick(g.start);
        if (index >= 0) commit(shown().filter((_, k) => k !== index));
      },
      marks: (pointer) => ({ attractor: pick(pointer) }),
    },
  ];

  return {
    tools,
    shown,
    /** Removes every attractor (the world's Clear). */
    clear() {
      if (shown().length > 0) commit([]);
    },
    follow: edit.follow,
    refused: edit.refused,
    forget: edit.forget,
  };
}
