// The obstacle editor: the world tools (world-tools.js) that place circles, rectangles and walls,
// and move and delete obstacles. Every edit sends the whole new list as one `set` of `obstacles`
// (list-edit.js: the page draws the server's list; an edit the server refuses gets a toast, and
// the list stays as it was).

import { pixelRatio } from './dom.js';
import { createListEdit } from './list-edit.js';
import { isTorus, obstacleAt, translated } from './obstacles.js';

const PICK_PX = 6; // CSS px around the pointer within which an obstacle is picked
const CIRCLE_RADIUS_RANGES = 1.5; // a clicked circle's radius, in visual ranges
const GROUP = 'obstacles';

/** A coordinate as sent: no more digits than the server's f32 keeps. */
const tidy = (v) => Number(v.toPrecision(7));
const pair = ([x, y]) => [tidy(x), tidy(y)];
/** A world point {x, y} as an obstacle's [x, y]. */
const point = (p) => pair([p.x, p.y]);

/** The shape with its coordinates as sent. */
function tidied(shape) {
  switch (shape.shape) {
    case 'circle': return { ...shape, center: pair(shape.center) };
    case 'rect': return { ...shape, min: pair(shape.min), max: pair(shape.max) };
    default: return { ...shape, points: shape.points.map(pair) };
  }
}

/** The rectangle a drag from g.start to g.at spans, or null when it has no area. */
function rectOf(g) {
  const min = point({ x: Math.min(g.start.x, g.at.x), y: Math.min(g.start.y, g.at.y) });
  const max = point({ x: Math.max(g.start.x, g.at.x), y: Math.max(g.start.y, g.at.y) });
  return g.dragged && min[0] < max[0] && min[1] < max[1] ? { shape: 'rect', min, max } : null;
}

/**
 * `request` sends a request to the server (connection.js); `serverState()` gives the latest state
 * message and `world()` the latest frame's world rectangle; `view` maps the pointer to the world.
 */
export function createObstacleEditor({ request, serverState, world, view }) {
  const edit = createListEdit({ request, serverState, key: 'obstacles' });
  let moving = null; // the move tool's press: {index, base (the list then), dragged}
  let selected = -1; // the move tool's selected obstacle
  let corners = []; // the wall being drawn, world points

  const params = () => serverState()?.params;
  const { shown, commit } = edit;
  const without = (index) => shown().filter((_, k) => k !== index);

  function pick(p) {
    const w = world();
    if (!w || !p) return -1;
    return obstacleAt(shown(), p.x, p.y, (PICK_PX * pixelRatio()) / view.scale, w, isTorus(params()));
  }

  const add = (shape) => shape && commit([...shown(), shape]);

  /** The circle a press makes: a click's of 1.5 visual ranges, or a drag's out to the pointer. */
  function circleOf(g) {
    const radius = g.dragged ? Math.hypot(g.at.x - g.start.x, g.at.y - g.start.y) : CIRCLE_RADIUS_RANGES * Number(params()?.visual_range || 1);
    return radius > 0 ? { shape: 'circle', center: point(g.start), radius: tidy(radius) } : null;
  }

  function finishWall() {
    if (corners.length < 2) return false;
    add({ shape: 'wall', points: corners.map(point) });
    corners = [];
    return true;
  }

  /** A click adds a corner, unless it is on the last one (the second click of a double click). */
  function addCorner(p) {
    const last = corners[corners.length - 1];
    const apart = !last || (Math.hypot(p.x - last.x, p.y - last.y) * view.scale) / pixelRatio() > PICK_PX / 2;
    if (apart) corners.push(p);
  }

  const tools = [
    {
      id: 'move',
      group: GROUP,
      label: 'Move',
      key: 'v',
      title: 'Move: drag an obstacle; Delete removes the one selected',
      hint: 'Drag an obstacle to move it · Delete removes the one selected',
      claims: (p) => pick(p) >= 0,
      reset() {
        selected = -1;
        moving = null;
        edit.preview(null);
      },
      press(g) {
        selected = pick(g.start);
        moving = { index: selected, base: shown(), dragged: false };
      },
      drag(g) {
        const [dx, dy] = [g.at.x - g.start.x, g.at.y - g.start.y];
        moving.dragged = true;
        edit.preview(moving.base.map((shape, k) => (k === moving.index ? tidied(translated(shape, dx, dy)) : shape)));
      },
      release() {
        if (moving.dragged) commit(shown());
        moving = null;
      },
      remove() {
        if (selected < 0) return false;
        commit(without(selected));
        selected = -1;
        return true;
      },
      cancel() {
        const wasMoving = moving !== null;
        moving = null;
        edit.preview(null);
        return wasMoving;
      },
      marks: (pointer) => ({ obstacle: selected >= 0 ? selected : pick(pointer) }),
    },
    {
      id: 'circle',
      group: GROUP,
      label: 'Circle',
      key: 'c',
      title: 'Circle: click to place, drag to size',
      hint: 'Click to place a circle, or drag from its centre to size it',
      release: (g) => add(circleOf(g)),
      marks: (pointer, g) => ({ draft: g ? circleOf(g) : pointer && circleOf({ start: pointer, dragged: false }) }),
    },
    {
      id: 'rect',
      group: GROUP,
      label: 'Box',
      key: 'b',
      title: 'Rectangle: drag a box',
      hint: 'Drag a box',
      release: (g) => add(rectOf(g)),
      marks: (_, g) => ({ draft: g && rectOf(g) }),
    },
    {
      id: 'wall',
      group: GROUP,
      label: 'Wall',
      key: 'w',
      title: 'Wall: click the corners, double-click or Enter to finish',
      hint: 'Click the corners · double-click or Enter to finish · Esc to cancel',
      reset() {
        corners = [];
      },
      release(g) {
        if (!g.dragged) addCorner(g.start);
      },
      doubleClick: finishWall,
      enter: finishWall,
      cancel() {
        const drawing = corners.length > 0;
        corners = [];
        return drawing;
      },
      marks(pointer) {
        const points = pointer ? [...corners, pointer] : corners;
        return { draft: corners.length > 0 ? { shape: 'wall', points: points.map(point) } : null };
      },
    },
    {
      id: 'delete',
      group: GROUP,
      label: 'Delete',
      key: 'x',
      title: 'Delete: click an obstacle',
      hint: 'Click an obstacle to delete it',
      press(g) {
        const index = pick(g.start);
        if (index >= 0) commit(without(index));
      },
      marks: (pointer) => ({ obstacle: pick(pointer) }),
    },
  ];

  return {
    tools,
    shown,
    /** Removes every obstacle (the world's Clear). */
    clear() {
      if (shown().length > 0) commit([]);
    },
    /** A state message came (list-edit.js); a selection past the end is dropped. */
    follow(state) {
      edit.follow(state);
      if (selected >= edit.serverList().length) selected = -1;
    },
    refused: edit.refused,
    forget: edit.forget,
  };
}
