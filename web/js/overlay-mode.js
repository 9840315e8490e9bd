// Which debug overlay the server sends this page: none ('off'), every boid's ('all'), or the one
// of the boid under the pointer ('hover'). In hover mode the pointer's world position goes to the
// server at most once an animation frame (`flush`), after the pointer moves or the world under it
// does. In three dimensions a screen point is a line of sight, not a world point: the page picks
// the boid drawn nearest the pointer (`pick`) and sends where it is, x, y and z, each frame.

import { pixelRatio } from './dom.js';

const HOVER_RADIUS_PX = 18; // CSS px around the pointer in which the server looks for a boid

/**
 * `send` sends a message to the server; `overlays` (overlays.js) forgets its data when the mode
 * changes; `redraw` asks for the next animation frame to draw; `solid()` says whether the flock
 * has three dimensions, and then `pick(cx, cy, px)` gives the world point {x, y, z} and pick
 * radius of the boid drawn nearest the stage point (cx, cy) (CSS px) within `px` device px, or
 * null.
 */
export function createOverlayMode({ send, view, overlays, redraw, solid, pick }) {
  let mode = 'off';
  let pointer = null; // {cx, cy}: CSS px inside the stage, or null when outside
  let hoverQueued = false;

  function sendHover() {
    if (mode !== 'hover') return;
    if (!pointer) {
      send({ type: 'overlay', mode: 'hover' });
      return;
    }
    if (solid()) {
      send({ type: 'overlay', mode: 'hover', ...pick(pointer.cx, pointer.cy, HOVER_RADIUS_PX * pixelRatio()) });
      return;
    }
    const w = view.clientToWorld(pointer.cx, pointer.cy);
    const radius = (HOVER_RADIUS_PX * pixelRatio()) / view.scale;
    send({ type: 'overlay', mode: 'hover', x: w.x, y: w.y, radius });
  }

  function sendMode() {
    if (mode === 'hover') sendHover();
    else send({ type: 'overlay', mode });
  }

  function queueHover() {
    if (mode === 'hover') hoverQueued = true;
  }

  return {
    get mode() {
      return mode;
    },
    set(next) {
      mode = next;
      overlays.clear();
      sendMode();
      redraw();
    },
    /** Tells the server the mode again (a new connection starts with none). */
    resend: sendMode,
    /** Follows the pointer over `stage`. */
    trackPointer(stage) {
      stage.addEventListener('pointermove', (e) => {
        const rect = stage.getBoundingClientRect();
        pointer = { cx: e.clientX - rect.left, cy: e.clientY - rect.top };
        queueHover();
      });
      stage.addEventListener('pointerleave', () => {
        pointer = null;
        queueHover();
      });
    },
    /** The world moved under the pointer (a zoom). */
    viewChanged: queueHover,
    /** Sends the hover position if it changed since the last call. */
    flush() {
      if (!hoverQueued) return;
      hoverQueued = false;
      sendHover();
    },
  };
}
