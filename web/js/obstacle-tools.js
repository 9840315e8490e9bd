// The obstacle editor: the world tools (world-tools.js) that place circles, rectangles and walls,
// and move and delete obstacles; for a flock in three dimensions, spheres and boxes (the same
// tools and keys, the wall's hidden: the server refuses walls there). Every edit sends the whole
// new list as one `set` of `obstacles` (list-edit.js: the page draws the server's list; an edit
// the server refuses gets a toast, and the list stays as it was). Where the pointer is, and what
// it is over, comes from pointing.js, in either dimension.

import { createListEdit } from './list-edit.js';
import { translated } from './obstacles.js';
import { centreOf } from './solids.js';

const PICK_PX = 6; // CSS px around the pointer within which an obstacle is picked
const CIRCLE_RADIUS_RANGES = 1.5; // a clicked circle's radius, in visual ranges
const GROUP = 'obstacles';

/** A coordinate as sent: no more digits than the server's f32 keeps. */
const tidy = (v) => Number(v.toPrecision(7));
const tidyPoint = (p) => p.map(tidy);

/** The shape with its coordinates as sent. */
function tidied(shape) {
  const { center, min, max, points } = shape;
  return {
    ...shape,
    ...(center && { center: tidyPoint(center) }),
    ...(min && { min: tidyPoint(min), max: tidyPoint(max) }),
    ...(points && { points: points.map(tidyPoint) }),
  };
}

/** The point a drag moves with the pointer: a round shape's centre, a box's, a wall's first corner. */
const anchorOf = (shape) => (shape.points ? shape.points[0] : centreOf(shape));

/**
 * `request` sends a request to the server (connection.js); `serverState()` gives the latest state
 * message; `pointing` (pointing.js) says where the pointer is in the world.
 */
export function createObstacleEditor({ request, serverState, pointing }) {
  const edit = createListEdit({ request, serverState, key: 'obstacles' });
  let moving = null; // the move tool's press: {index, base (the list then), dragged}
  let selected = -1; // the move tool's selected obstacle
  let corners = []; // the wall being drawn, spots

  const params = () => serverState()?.params;
  const { shown, commit } = edit;
  const without = (index) => shown().filter((_, k) => k !== index);
  const solid = () => pointing.dimensions() === 3;

  const pick = (p) => pointing.obstacleAt(shown(), p, PICK_PX);

  const add = (shape) => shape && commit([...shown(), shape]);

  /**
   * The circle (a sphere in 3D) a press makes: a click's of 1.5 visual ranges, or a drag's out to
   * the pointer.
   */
  function circleOf(g) {
    const radius = g.dragged ? pointing.distance(g.start, g.at) : CIRCLE_RADIUS_RANGES * Number(params()?.visual_range || 1);
    return radius > 0 ? { shape: solid() ? 'sphere' : 'circle', center: pointing.coords(g.start), radius: tidy(radius) } : null;
  }

  /** The rectangle (a box in 3D) a drag spans, or null when it has no volume. */
  function boxOf(g) {
    if (!g.dragged) return null;
    const [min, max] = pointing.span(g);
    return min.every((v, k) => v < max[k]) ? { shape: solid() ? 'box' : 'rect', min, max } : null;
  }

  function finishWall() {
    if (corners.length < 2) return false;
    add({ shape: 'wall', points: corners.map(pointing.coords) });
    corners = [];
    return true;
  }

  /** A click adds a corner, unless it is on the last one (the second click of a double click). */
  function addCorner(p) {
    const last = corners[corners.length - 1];
    if (!last || pointing.nearest([pointing.coords(last)], p, PICK_PX / 2) < 0) corners.push(p);
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
        const offset = pointing.offset(g, anchorOf(moving.base[moving.index]));
        moving.dragged = true;
        edit.preview(moving.base.map((shape, k) => (k === moving.index ? tidied(translated(shape, offset)) : shape)));
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
      label: () => (solid() ? 'Sphere' : 'Circle'),
      key: 'c',
      title: 'Circle (a sphere in 3D): click to place, drag to size',
      hint: 'Click to place a circle (a sphere in 3D), or drag from its centre to size it',
      release: (g) => add(circleOf(g)),
      marks: (pointer, g) => ({ draft: g ? circleOf(g) : pointer && circleOf({ start: pointer, dragged: false }) }),
    },
    {
      id: 'rect',
      group: GROUP,
      label: 'Box',
      key: 'b',
      title: 'Rectangle (a box in 3D): drag across it',
      hint: 'Drag a box across the view',
      release: (g) => add(boxOf(g)),
      marks: (_, g) => ({ draft: g && boxOf(g) }),
    },
    {
      id: 'wall',
      group: GROUP,
      label: 'Wall',
      key: 'w',
      title: 'Wall: click the corners, double-click or Enter to finish (flat flocks only)',
      shown: () => !solid(),
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
        return { draft: corners.length > 0 ? { shape: 'wall', points: points.map(pointing.coords) } : null };
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
