// The transport bar (start / stop, step, reset, preset, seed, speed) and the Display card
// (overlay mode, what the overlays show, colours by scout group, vector length, exports).

import { $, el, toast } from './dom.js';
import { TAU } from './constants.js';
import { formatValue } from './format.js';

const OVERLAY_MODES = ['off', 'hover', 'all'];
/** The parts of the overlays the Display card toggles, each by its checkbox #show-<part>. */
const OVERLAY_PARTS = ['radius', 'velocity', 'cohesion', 'separation', 'alignment', 'ghosts'];

// Speed slider: logarithmic from 0.5 to 1000 steps per second.
const speedFromT = (t) => Number((0.5 * Math.pow(2000, t / 1000)).toPrecision(3));
const speedToT = (v) => Math.round((Math.log(v / 0.5) / Math.log(2000)) * 1000);

/** The multiplier of the rule vectors' length: the vector-length slider, logarithmic. */
const vectorGain = () => Math.pow(10, Number($('vector-scale').value));

// The way a scout group is biased, from its preferred direction.
function way(angle) {
  const a = ((Number(angle) % TAU) + TAU) % TAU;
  if (Math.abs(a) < 1e-6 || Math.abs(a - TAU) < 1e-6) return '+x';
  if (Math.abs(a - Math.PI) < 1e-6) return '−x';
  return `${formatValue(Number(((a * 180) / Math.PI).toPrecision(3)))}°`;
}

/** The seed box's value, or null where it is not a whole number of at least 0. */
function typedSeed() {
  const seed = Number($('seed').value);
  return Number.isInteger(seed) && seed >= 0 ? seed : null;
}

/**
 * `request` sends a request to the server (connection.js); `serverState()` gives the latest
 * state message; `overlayMode` is overlay-mode.js's; `redraw` asks for the next frame to draw.
 * Returns the shortcuts' actions and what the drawing and the state messages need of the controls.
 */
export function createControls({ request, serverState, overlayMode, redraw }) {
  const togglePlay = () => request({ type: serverState()?.running ? 'stop' : 'start' });
  const step = () => request({ type: 'step' });
  function reset() {
    const seed = typedSeed();
    request(seed === null ? { type: 'reset' } : { type: 'reset', seed });
  }
  function setOverlayMode(mode) {
    overlayMode.set(mode);
    for (const b of $('overlay-mode').querySelectorAll('button')) b.classList.toggle('on', b.dataset.mode === mode);
    $('legend').hidden = mode === 'off';
  }

  $('play').addEventListener('click', togglePlay);
  $('step').addEventListener('click', step);
  $('reset').addEventListener('click', reset);
  $('seed').addEventListener('change', reset);
  $('preset').addEventListener('change', () => {
    // A focused select takes Space and the arrow keys for itself: hand the keys back to the
    // shortcuts once a preset is chosen.
    $('preset').blur();
    const seed = typedSeed();
    request({ type: 'reset', preset: $('preset').value, ...(seed === null ? {} : { seed }) });
  });
  $('speed').addEventListener('input', () => {
    const v = speedFromT(Number($('speed').value));
    $('speed-out').textContent = `${formatValue(v)}/s`;
    request({ type: 'speed', steps_per_second: v });
  });
  $('overlay-mode').addEventListener('click', (e) => {
    const mode = e.target?.dataset?.mode;
    if (mode) setOverlayMode(mode);
  });
  for (const id of [...OVERLAY_PARTS.map((part) => `show-${part}`), 'by-group']) {
    $(id).addEventListener('change', redraw);
  }
  $('vector-scale').addEventListener('input', () => {
    $('vector-scale-out').textContent = `×${formatValue(Number(vectorGain().toPrecision(2)))}`;
    redraw();
  });
  for (const id of ['export-toml', 'export-events']) {
    $(id).addEventListener('click', () => toast(`downloading ${id === 'export-toml' ? 'the parameters' : 'the event log'}`, true));
  }

  return {
    /** What the keyboard shortcuts do besides fitting the view (shortcuts.js). */
    actions: {
      togglePlay,
      step,
      reset,
      cycleOverlayMode() {
        setOverlayMode(OVERLAY_MODES[(OVERLAY_MODES.indexOf(overlayMode.mode) + 1) % OVERLAY_MODES.length]);
      },
      toggleByGroup() {
        $('by-group').checked = !$('by-group').checked;
        redraw();
      },
    },
    /** Fills the preset list from /api/params' description. */
    listPresets(description) {
      const preset = $('preset');
      preset.replaceChildren(...description.presets.map((p) => el('option', { value: p.name, title: `${p.summary}\n${p.source}` }, p.name)));
      preset.value = description.preset;
    },
    /** Shows a state message: running or paused, seed, preset, speed, the scout groups' bias. */
    show(state) {
      const play = $('play');
      play.textContent = state.running ? 'Pause' : 'Start';
      play.classList.toggle('paused', !state.running);
      if (document.activeElement !== $('seed')) $('seed').value = String(state.seed);
      if (document.activeElement !== $('preset')) $('preset').value = state.preset;
      if (document.activeElement !== $('speed')) $('speed').value = String(speedToT(state.steps_per_second));
      $('speed-out').textContent = `${formatValue(Number(state.steps_per_second.toPrecision(3)))}/s`;
      $('group1-way').textContent = way(state.params.preferred_angle1);
      $('group2-way').textContent = way(state.params.preferred_angle2);
    },
    /** What the Display card asks of the drawing: {byGroup, vectorGain, show: {part: bool}}. */
    display() {
      return {
        byGroup: $('by-group').checked,
        vectorGain: vectorGain(),
        show: Object.fromEntries(OVERLAY_PARTS.map((part) => [part, $(`show-${part}`).checked])),
      };
    },
  };
}
