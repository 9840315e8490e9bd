// The world tool bar, top left of the stage (#tools): what the user does to the world with the
// pointer. The bar is built from a list of entries, each one button and perhaps a key: a *tool*
// stays chosen until another is, the same one is pressed again, or Esc, and gets the stage's
// presses while chosen; an *action* acts once (Clear), or switches something (the mouse as a
// predator, the camera) and shows whether it is on. The entries come from the modules that own
// what they edit (obstacle-tools.js, predator-tools.js, attractor-tools.js, camera.js), so a new
// tool is one more entry there; the bar gives it its button, key, hint and cursor, and routes
// the pointer and the keys to it. The tools work alike on a flat flock and on one in three
// dimensions: where the pointer is in the world comes from pointing.js, and an entry that means
// something in one of them only (the wall) hides its button in the other.
//
// With no tool chosen the stage pans (or orbits), zooms and hovers as before; a press a tool takes
// never reaches the pan or the orbit (view.js and orbit.js ask `claims`).

import { $, el } from './dom.js';

const DRAG_PX = 3; // CSS px a press must travel to be a drag rather than a click

/** What a tool shows when it shows nothing. */
const NO_MARKS = {};

/**
 * An entry: {id, group (the bar's segment it sits in), label (a text, or a function giving it
 * for the flock on screen), title, key (optional, one letter), shown (optional: whether it
 * applies to the flock on screen; its button hides when not)} and either `run()` (an action;
 * with `active()` it is a switch, its button lit while it gives true) or, for a tool, a `hint`
 * shown beside the bar while it is chosen and, all optional, what it does. A press on the stage
 * is a gesture `g` = {start, at (the pointer's spots, pointing.js), dragged}:
 *   claims(p)   whether a press at spot p is the tool's (default: every press; a press it
 *               leaves pans or orbits the view);
 *   press(g), drag(g), release(g), doubleClick();
 *   enter(), remove()  Enter, Delete or Backspace: true when they did something;
 *   cancel()    Esc: true when it dropped work in progress (else Esc leaves the tool);
 *   reset()     start afresh: the tool is chosen or left, or a press went to the pan;
 *   marks(pointer, g)  what to mark (overlays.js): {obstacle, draft, predator, attractor}, each
 *               optional (an index to highlight, or a shape being made), from the pointer's
 *               spot or null and the gesture in progress or null.
 * `pointing` (pointing.js) says where a pointer event is in the world.
 */
export function createWorldTools({ stage, pointing, entries, redraw }) {
  const bar = $('tools');
  const hint = $('tool-hint');
  let chosen = null; // the chosen tool, or null
  let gesture = null; // the press in progress: {cx, cy (client px), start, at, dragged}
  let pointer = null; // the pointer's spot over the stage, or null
  const byKey = new Map(entries.filter((e) => e.key).map((e) => [e.key, e]));
  const buttons = new Map(); // entry -> its button

  const labelOf = (entry) => (typeof entry.label === 'function' ? entry.label() : entry.label);
  const applies = (entry) => entry.shown?.() ?? true;

  for (const entry of entries) {
    const key = entry.key ? ` (${entry.key.toUpperCase()})` : '';
    const button = el('button', { type: 'button', title: entry.title + key }, el('span', {}, labelOf(entry)));
    if (entry.key) button.append(el('kbd', {}, entry.key.toUpperCase()));
    button.addEventListener('click', () => {
      // Keys go back to the shortcuts: Enter on a focused button would press it again.
      button.blur();
      use(entry);
    });
    buttons.set(entry, button);
    const group = bar.querySelector(`.seg[data-group="${entry.group}"]`) ?? bar.insertBefore(el('div', { class: 'seg', 'data-group': entry.group }), hint);
    group.append(button);
  }

  const worldOf = (e) => pointing.spot(e);

  function showChosen() {
    // A tool that does not apply to the flock now on screen is left.
    if (chosen && !applies(chosen)) {
      chosen.reset?.();
      chosen = null;
      gesture = null;
    }
    for (const [entry, button] of buttons) {
      button.classList.toggle('on', entry === chosen || Boolean(entry.active?.()));
      button.hidden = !applies(entry);
      const label = labelOf(entry);
      if (button.firstChild.textContent !== label) button.firstChild.textContent = label;
    }
    hint.textContent = chosen?.hint ?? '';
    hint.hidden = !chosen;
    stage.dataset.tool = chosen?.id ?? '';
  }

  /** Runs an action, or chooses a tool (leaves it when it is already chosen). */
  function use(entry) {
    if (!applies(entry)) return;
    if (entry.run) {
      entry.run();
      showChosen();
    } else {
      chosen?.reset?.();
      chosen = chosen === entry ? null : entry;
      gesture = null;
      chosen?.reset?.();
      showChosen();
    }
    redraw();
  }

  const onBar = (e) => e.target instanceof Element && e.target.closest('#tools') !== null;
  const takes = (p) => chosen !== null && (chosen.claims?.(p) ?? true);

  stage.addEventListener('pointerdown', (e) => {
    if (!chosen || onBar(e) || e.button !== 0) return;
    const p = worldOf(e);
    if (!takes(p)) {
      chosen.reset?.();
      redraw();
      return;
    }
    gesture = { cx: e.clientX, cy: e.clientY, start: p, at: p, dragged: false };
    chosen.press?.(gesture);
    stage.setPointerCapture(e.pointerId);
    redraw();
  });

  stage.addEventListener('pointermove', (e) => {
    pointer = worldOf(e);
    if (chosen) redraw();
    if (!gesture) return;
    gesture.dragged ||= Math.hypot(e.clientX - gesture.cx, e.clientY - gesture.cy) > DRAG_PX;
    gesture.at = pointer;
    if (gesture.dragged) chosen.drag?.(gesture);
  });

  stage.addEventListener('pointerup', () => {
    const g = gesture;
    gesture = null;
    if (!g) return;
    chosen.release?.(g);
    redraw();
  });

  stage.addEventListener('pointerleave', () => {
    pointer = null;
    redraw();
  });

  stage.addEventListener('dblclick', (e) => {
    if (chosen && !onBar(e)) chosen.doubleClick?.();
    redraw();
  });

  showChosen();

  return {
    /**
     * Whether a press or double click belongs to the bar or the chosen tool, not the pan or the
     * orbit (a press of another button than the first never is the tool's).
     */
    claims(e) {
      return onBar(e) || (e.button === 0 && takes(worldOf(e)));
    },
    /** Handles a key (shortcuts.js): true when it did something. */
    key(name) {
      const entry = byKey.get(name.toLowerCase());
      if (entry && applies(entry)) {
        use(entry);
        return true;
      }
      if (!chosen) return false;
      let done = false;
      switch (name) {
        case 'Enter': done = chosen.enter?.() ?? false; break;
        case 'Delete': case 'Backspace': done = chosen.remove?.() ?? false; break;
        case 'Escape':
          gesture = null;
          if (!chosen.cancel?.()) use(chosen);
          done = true;
          break;
      }
      redraw();
      return done;
    },
    /** Lights the buttons of the switches that are on (they may change without the bar). */
    refresh: showChosen,
    /** What the chosen tool marks (overlays.js draws it). */
    marks() {
      return chosen?.marks?.(pointer, gesture) ?? NO_MARKS;
    },
  };
}
