// The Order card: the metrics the server sends (polarization and flock count plotted over the
// last HISTORY messages of the current run, the other figures as numbers). With predators, the
// captures of each message are plotted too (the figure is the run's total), and the world's
// figures (distance to the nearest predator, share of boids perched) join the numbers.
//
// A large flock is measured seconds apart, so the card says how old its figures are once they
// are older than STALE_MS, and a new flock (a reset) clears it: it never shows the figures of
// a flock that is gone as if they were now.

import { $, pixelRatio } from './dom.js';
import { formatValue } from './format.js';

const HISTORY = 300;
/** Figures older than this are marked with their age. */
const STALE_MS = 2000;

export function createMetricsPlots() {
  let run = -1;
  let history = emptyHistory();
  let latest = null;
  let receivedAt = 0;

  function clear() {
    latest = null;
    history = emptyHistory();
    for (const id of ['pol-value', 'flock-value', 'captures-value']) $(id).textContent = '–';
    $('metric-more').replaceChildren();
    $('metric-step').textContent = 'measuring the new flock…';
    $('order').classList.remove('stale');
    for (const id of ['plot-pol', 'plot-flocks', 'plot-captures']) plot($(id), [], null, '#000');
  }

  return {
    /** The latest metrics message, or null. */
    get latest() {
      return latest;
    },
    /** A state message of another run than the figures' (a reset) clears the card. */
    follow(state) {
      if (latest && state.run !== latest.run) clear();
    },
    /**
     * Marks figures older than STALE_MS with their age, unless they are of `step`, the step on
     * screen (a paused flock's figures stay true); call it about once a second.
     */
    age(now, step) {
      const old = latest && latest.step !== step && now - receivedAt > STALE_MS;
      $('order').classList.toggle('stale', Boolean(old));
      if (old) $('metric-step').textContent = `at step ${latest.step.toLocaleString()}, ${Math.round((now - receivedAt) / 1000)} s ago`;
    },
    show(m) {
      latest = m;
      receivedAt = performance.now();
      $('order').classList.remove('stale');
      if (m.run !== run) {
        run = m.run;
        history = emptyHistory();
      }
      remember(history.polarization, m.polarization);
      remember(history.flocks, m.flocks);
      const hunted = m.predator_distance != null;
      if (hunted) {
        remember(history.captures, m.captures);
        history.caught += m.captures ?? 0;
      }
      $('pol-value').textContent = m.polarization == null ? '–' : m.polarization.toFixed(3);
      $('flock-value').textContent = m.flocks == null ? '–' : String(m.flocks);
      $('metric-step').textContent = `at step ${m.step.toLocaleString()}`;
      const more = [
        ['mean speed', m.mean_speed],
        ['neighbours', m.mean_neighbors],
        ['nearest', m.nearest_neighbor_distance],
        ['milling', m.milling],
      ];
      if (hunted) more.push(['predator distance', m.predator_distance]);
      if (m.perched_fraction > 0) more.push(['perched', m.perched_fraction]);
      $('metric-more').innerHTML = more.map(([k, v]) => `<span>${k} <b>${v == null ? '–' : formatValue(v)}</b></span>`).join('');
      plot($('plot-pol'), history.polarization, 1, '#7aa2ff');
      plot($('plot-flocks'), history.flocks, null, '#9cf0ff');
      $('captures-plot').hidden = !hunted;
      if (hunted) {
        $('captures-value').textContent = history.caught.toLocaleString();
        plot($('plot-captures'), history.captures, null, '#ff9632');
      }
    },
  };
}

function emptyHistory() {
  return { polarization: [], flocks: [], captures: [], caught: 0 };
}

function remember(list, v) {
  if (v == null) return;
  list.push(v);
  if (list.length > HISTORY) list.shift();
}

/** `values` as a filled line over the canvas's width, up to `fixedMax` (or its largest value). */
function plot(canvas, values, fixedMax, color) {
  const dpr = pixelRatio();
  const w = (canvas.width = Math.round(canvas.clientWidth * dpr));
  const h = (canvas.height = Math.round(canvas.clientHeight * dpr));
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, w, h);
  ctx.strokeStyle = 'rgba(122, 162, 255, 0.12)';
  ctx.lineWidth = dpr;
  for (const t of [0.25, 0.5, 0.75]) {
    ctx.beginPath();
    ctx.moveTo(0, h * t);
    ctx.lineTo(w, h * t);
    ctx.stroke();
  }
  if (values.length < 2) return;
  const max = fixedMax ?? Math.max(1, ...values) * 1.15;
  const pad = 3 * dpr;
  const x = (i) => (i / (HISTORY - 1)) * w;
  const y = (v) => h - pad - (v / max) * (h - 2 * pad);
  const grad = ctx.createLinearGradient(0, 0, 0, h);
  grad.addColorStop(0, color + '66');
  grad.addColorStop(1, color + '05');
  ctx.beginPath();
  ctx.moveTo(x(0), h);
  values.forEach((v, i) => ctx.lineTo(x(i), y(v)));
  ctx.lineTo(x(values.length - 1), h);
  ctx.closePath();
  ctx.fillStyle = grad;
  ctx.fill();
  ctx.beginPath();
  values.forEach((v, i) => (i ? ctx.lineTo(x(i), y(v)) : ctx.moveTo(x(i), y(v))));
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5 * dpr;
  ctx.stroke();
  if (!fixedMax) {
    ctx.fillStyle = '#56627d';
    ctx.font = `${10 * dpr}px system-ui`;
    ctx.fillText(String(Math.round(max)), 4 * dpr, 11 * dpr);
  }
}
