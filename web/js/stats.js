// The header's figures (step, boids, steps per second, frames drawn per second, data rate), the
// connection dot, and the replay command under Export, which names the current step. When the
// frames that arrive skip steps (the server sends at most 60 frames a second, and a browser that
// takes them slower, as a million boids' frames are taken, gets only the newest), the header says
// how many steps there are to a frame drawn. A flock
// too large to be live (its steps come at well under the speed asked, as 100,000 boids crowded
// in the 640 x 480 world do at 1 step a second) is said so: its rate turns red, and a note over
// the Order card gives the rate measured against the speed asked, while it lasts.

import { $ } from './dom.js';

// Span of the step-rate measurement: long enough to hold a few steps at the slowest speed.
const RATE_WINDOW_MS = 3000;
/** A flock is too slow to be live below this share of the speed asked and SLOW_BELOW steps/s. */
const SLOW_SHARE = 0.5;
const SLOW_BELOW = 10;
/** Frames are said to skip steps from this many steps a frame on. */
const SKIP_FROM = 1.5;
const SKIP_NOTE =
  'The server sends at most 60 frames a second, and a browser that takes them slower gets only the newest: the steps between run but are not drawn.';
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });

export function createStats() {
  let live = false;
  const fps = { frames: 0, since: performance.now(), value: 0 };
  const bytes = { total: 0, since: performance.now(), rate: 0 };
  const arrivals = { frames: 0, rate: 0 }; // running frames with a new step, per second
  const steps = []; // {t, step} of running frames with a new step, the last RATE_WINDOW_MS and one more

  // The simulation's steps per second, measured here from the frames' step numbers: the
  // server's own figure rides on the metrics, which a large flock makes seconds apart.
  function recordStep(step, running) {
    const s = steps;
    if (!running || (s.length && step < s[s.length - 1].step)) s.length = 0;
    if (!running || (s.length && step === s[s.length - 1].step)) return;
    const now = performance.now();
    s.push({ t: now, step });
    while (s.length > 2 && now - s[1].t > RATE_WINDOW_MS) s.shift();
  }

  function stepRate() {
    if (steps.length < 2) return null;
    const [first, last] = [steps[0], steps[steps.length - 1]];
    // Frames that arrived in one burst carry no timing.
    return last.t > first.t ? ((last.step - first.step) * 1000) / (last.t - first.t) : null;
  }

  /** Whether the flock runs at well under the speed asked; the note says so while it does. */
  function tooSlow(rate, state) {
    const slow = Boolean(state?.running) && rate !== null && rate < SLOW_SHARE * state.steps_per_second && rate < SLOW_BELOW;
    $('slow-note').hidden = !slow;
    if (slow) {
      $('slow-note').textContent = `This flock runs at ${rate.toFixed(1)} steps/s of the ${state.steps_per_second} asked: too large to be live. Fewer boids or a smaller visual range run faster.`;
    }
    return slow;
  }

  /** The header's note that frames skip steps: how many steps there are to a frame, or ''. */
  function skipNote(rate, running) {
    if (!running || rate === null || arrivals.rate <= 0) return '';
    const stepsPerFrame = rate / arrivals.rate;
    if (stepsPerFrame < SKIP_FROM) return '';
    return `<span class="st-skip" title="${SKIP_NOTE}">1 frame in <b class="n3">${Math.round(stepsPerFrame)}</b> steps</span>`;
  }

  function show(frame, state) {
    if (!live) return;
    const running = state?.running;
    const rate = stepRate();
    const slow = tooSlow(rate, state);
    // Numbers sit in fixed-width boxes so the header does not shift as they change; narrower
    // windows hide the less needed parts (style.css), so the whole line is also the tooltip.
    const parts = [
      `<span class="st-step">step <b class="n7">${frame ? frame.step.toLocaleString('en') : 0}</b></span>`,
      `<span><b class="n4">${frame ? compact.format(frame.count) : 0}</b> boids</span>`,
      running
        ? `<span${slow ? ' class="slow" title="too slow to be live"' : ''}><b class="n4">${rate === null ? '–' : rate < 10 ? rate.toFixed(1) : Math.round(rate)}</b> steps/s</span>`
        : '<span><b>paused</b></span>',
      `<span class="st-fps"><b class="n3">${running ? Math.round(fps.value) : '–'}</b> fps</span>`,
      skipNote(rate, running),
      `<span class="st-bytes"><b class="n4">${(bytes.rate / 1e6).toFixed(1)}</b> MB/s</span>`,
    ];
    $('stat-text').innerHTML = parts.filter(Boolean).join('');
    $('stats').title = $('stat-text').innerText.replace(/\s+/g, ' ');
    $('replay-cmd').textContent = `boids run --events boids-events.json --steps ${frame ? frame.step : 0}`;
  }

  return {
    /** The connection opened (`true`) or was lost. */
    connected(isLive) {
      live = isLive;
      $('conn').classList.toggle('live', isLive);
      if (!isLive) $('stat-text').textContent = 'disconnected — retrying…';
    },
    /** A binary message of `n` bytes arrived. */
    received(n) {
      bytes.total += n;
    },
    frameArrived(frame) {
      const last = steps.length ? steps[steps.length - 1].step : null;
      recordStep(frame.step, frame.running);
      if (frame.running && frame.step !== last) arrivals.frames++;
    },
    frameDrawn() {
      fps.frames++;
    },
    /**
     * Called every animation frame with the latest state message: once a second updates the
     * rates and the header, and returns true.
     */
    tick(now, frame, state) {
      if (now - fps.since < 1000) return false;
      fps.value = (fps.frames * 1000) / (now - fps.since);
      bytes.rate = (bytes.total * 1000) / (now - bytes.since);
      arrivals.rate = (arrivals.frames * 1000) / (now - fps.since);
      arrivals.frames = 0;
      fps.frames = 0;
      fps.since = now;
      bytes.total = 0;
      bytes.since = now;
      show(frame, state);
      return true;
    },
  };
}
