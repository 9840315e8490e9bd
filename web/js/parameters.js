// The parameter panel, built from /api/params: one control per parameter (a slider with a number
// box, a checkbox, a choice or a pair of numbers) in collapsible sections, showing only the
// current model's parameters. Controls follow the server's state broadcasts, except the one the
// user holds and those whose change is still on its way to the server.

import { $, el, toast } from './dom.js';
import { formatValue } from './format.js';

const SET_BATCH_MS = 60; // a dragged slider sends at most one change per parameter this often

// Names whose words alone do not read well; the rest read as their words ("visual range").
const LABELS = {
  dt: 'time step',
  turnfactor: 'turn factor',
  topological_k: 'topological k (nearest)',
  scout_group1_fraction: 'scout group 1 share',
  scout_group2_fraction: 'scout group 2 share',
  preferred_angle1: 'group 1 direction',
  preferred_angle2: 'group 2 direction',
  preferred_elevation1: 'group 1 elevation',
  preferred_elevation2: 'group 2 elevation',
  init_x: 'start x', init_y: 'start y', init_vx: 'start vx', init_vy: 'start vy',
  init_z: 'start z', init_vz: 'start vz',
  world_x_min: 'world left', world_y_min: 'world top', world_z_min: 'world near',
};

/** A typed number (or 'inf'), or undefined for text that is not one (or not whole when `integer`). */
function parseValue(text, integer) {
  const t = text.trim().toLowerCase();
  if (t === 'inf' || t === '+inf' || t === 'infinity') return 'inf';
  if (t === '' || isNaN(Number(t))) return undefined;
  const n = Number(t);
  return integer && !Number.isInteger(n) ? undefined : n;
}

/**
 * The user's changes on their way to the server: `set` requests, batched while a slider is
 * dragged; which values were sent and not yet seen in a state broadcast; which control the user
 * holds (drags or types in).
 */
function createEdits(request) {
  const sent = new Map(); // parameter -> JSON of the value sent and not yet seen in a state message
  const queued = new Map();
  let timer = null;
  let held = null;
  const edits = {
    send(key, value) {
      sent.set(key, JSON.stringify(value));
      request({ type: 'set', key, value }, key);
    },
    queue(key, value) {
      queued.set(key, value);
      if (!timer) timer = setTimeout(edits.flush, SET_BATCH_MS);
    },
    flush() {
      clearTimeout(timer);
      timer = null;
      for (const [key, value] of queued) edits.send(key, value);
      queued.clear();
    },
    hold(key) {
      held = key;
    },
    release() {
      held = null;
    },
    holds: (key) => held === key,
    /** Whether a change of `key` is queued or on its way to the server. */
    pending: (key) => queued.has(key) || sent.has(key),
    /**
     * Whether a broadcast value of `key` may show: not while a change of ours is on its way, as
     * older broadcasts would pull the control back; the change is through once it is seen.
     */
    settled(key, value) {
      if (!sent.has(key)) return true;
      if (sent.get(key) !== JSON.stringify(value)) return false;
      sent.delete(key);
      return true;
    },
    forget(key) {
      sent.delete(key);
    },
    forgetAll() {
      sent.clear();
    },
  };
  return edits;
}

function markChanged(row, p, value) {
  row.classList.toggle('changed', JSON.stringify(value) !== JSON.stringify(p.default));
}

function label(p) {
  const text = LABELS[p.name] || p.name.replace(/_/g, ' ');
  const unit = p.unit ? ` [${p.unit}]` : '';
  return el('span', { class: 'label', title: `${p.name}${unit}\n${p.meaning}` },
    el('span', { class: 'name' }, text.charAt(0).toUpperCase() + text.slice(1)),
    ...(p.unit ? [el('small', { class: 'unit' }, p.unit)] : []));
}

/** A parameter's value as a number: `inf` is Infinity. */
const numeric = (v) => (v === 'inf' ? Infinity : Number(v));

/**
 * The live limits of the sliders: the value of one parameter bounds another's, as the model's
 * cross-checks (crates/boids-core/src/params/checks.rs) require, so that a slider offers only
 * values the server takes. Returns name -> {lo, hi, loOpen, hiOpen} of `params` (open: the bound
 * itself is refused).
 */
export function liveBounds(params) {
  const bounds = new Map();
  const v = (name) => numeric(params[name]);
  const bound = (name, side, value, open = false) => {
    if (!Number.isFinite(value)) return;
    const b = bounds.get(name) ?? { lo: -Infinity, hi: Infinity, loOpen: false, hiOpen: false };
    if (side === 'lo' && (value > b.lo || (value === b.lo && open))) [b.lo, b.loOpen] = [value, open];
    if (side === 'hi' && (value < b.hi || (value === b.hi && open))) [b.hi, b.hiOpen] = [value, open];
    bounds.set(name, b);
  };
  // `low` may not exceed `high` (may not reach it when `open`).
  const ordered = (low, high, open = false) => {
    bound(low, 'hi', v(high), open);
    bound(high, 'lo', v(low), open);
  };
  ordered('protected_range', 'visual_range');
  if (params.model === 'couzin' && v('orientation_range') !== Infinity && Number(params.topological_k) === 0) {
    ordered('protected_range', 'orientation_range');
    ordered('orientation_range', 'visual_range');
  }
  ordered('min_speed', 'max_speed');
  if (v('max_speed') === Infinity) bound('speed_boost', 'hi', 1);
  if (params.dynamic_bias) ordered('bias_increment', 'max_bias');
  bound('scout_group1_fraction', 'hi', 1 - v('scout_group2_fraction'));
  bound('scout_group2_fraction', 'hi', 1 - v('scout_group1_fraction'));
  ordered('perch_min', 'perch_max');
  if (params.perch) ordered('perch_height', 'world_height', true);
  const extents = ['world_width', 'world_height', 'world_depth'].slice(0, Number(params.dimensions) || 2);
  const inset = params.boundary === 'margins' ? 'margin' : params.boundary === 'walls' ? 'boid_size' : null;
  for (const extent of inset ? extents : []) {
    // Twice the margin (or a boid's size, between walls) must be less than each extent.
    bound(inset, 'hi', v(extent) / 2, true);
    bound(extent, 'lo', 2 * v(inset), true);
  }
  return bounds;
}

// Each control is {row, set(value), limit(params)}: its element, how a value from the server
// shows in it, and how the other parameters' values bound its slider.

/**
 * A slider with its number box. The slider spans the parameter's allowed range, cut to the
 * description's slider range (most allowed ranges are open-ended) and stretched to the value in
 * effect, so the thumb always shows it; the live limits the other parameters set
 * (`liveBounds`) are its ends. Its input's data-min and data-max say where its ends are.
 */
function sliderControl(p, edits, serverParams) {
  const s = p.slider;
  const integer = p.kind.type === 'integer';
  const allowed = { lo: p.kind.min ?? -Infinity, hi: p.kind.max ?? Infinity };
  const boundsOf = (params) => liveBounds(params).get(p.name) ?? { lo: -Infinity, hi: Infinity, loOpen: false, hiOpen: false };
  let live = boundsOf({});
  let shown = p.value; // the value in effect the slider was last laid out for
  let span = { lo: s.min, hi: s.max };
  // The slider's ends: a bound that is refused itself is kept a slider step (or 1) away.
  function layout() {
    const gap = integer ? 1 : s.step;
    const value = numeric(shown);
    const finite = Number.isFinite(value);
    let lo = Math.max(Math.min(s.min, finite ? value : Infinity), allowed.lo, live.lo + (live.loOpen ? gap : 0));
    // A live upper bound is the slider's end (the protected range's slider ends at the visual
    // range), past the description's span if need be.
    const end = Number.isFinite(live.hi) ? live.hi - (live.hiOpen ? gap : 0) : Math.max(s.max, finite ? value : -Infinity);
    let hi = Math.min(end, allowed.hi);
    if (integer) [lo, hi] = [Math.ceil(lo), Math.floor(hi)];
    if (s.log && lo <= 0) lo = Math.min(s.min, hi);
    if (!(hi > lo)) hi = lo;
    span = { lo, hi };
    range.dataset.min = String(lo);
    range.dataset.max = String(hi);
  }
  const toT = (v) => {
    if (v === 'inf' || v === Infinity) return 1000;
    const { lo, hi } = span;
    if (hi <= lo) return 0;
    const x = Math.min(Math.max(Number(v), lo), hi);
    return s.log ? (Math.log(x / lo) / Math.log(hi / lo)) * 1000 : ((x - lo) / (hi - lo)) * 1000;
  };
  const fromT = (t) => {
    const { lo, hi } = span;
    let v = s.log ? lo * Math.pow(hi / lo, t / 1000) : lo + ((hi - lo) * t) / 1000;
    if (integer) v = Math.round(v);
    else v = Number((Math.round(v / s.step) * s.step).toPrecision(6));
    // Rounding must not step past an end: the ends are values the server takes.
    return t <= 0 ? lo : t >= 1000 ? hi : Math.min(Math.max(v, lo), hi);
  };
  const range = el('input', { type: 'range', min: '0', max: '1000', step: '1', 'data-param': p.name, 'aria-label': p.name });
  const box = el('input', { type: 'text', 'data-param-text': p.name, 'aria-label': `${p.name} value`, spellcheck: 'false' });
  const row = el('div', { class: 'param row slider-row' }, label(p), range, box);
  layout();
  range.addEventListener('pointerdown', () => edits.hold(p.name));
  range.addEventListener('input', () => {
    const v = fromT(Number(range.value));
    box.value = formatValue(v);
    box.classList.remove('bad');
    edits.queue(p.name, v);
  });
  range.addEventListener('change', () => {
    edits.flush();
    edits.release();
    // With no change of ours on its way (a refusal came while the thumb was held), the thumb
    // goes back to the value in effect; otherwise the reply to that change puts it right.
    const params = serverParams();
    if (params && !edits.pending(p.name)) set(params[p.name]);
  });
  box.addEventListener('focus', () => edits.hold(p.name));
  box.addEventListener('blur', () => {
    edits.release();
    const params = serverParams();
    if (params) set(params[p.name]);
  });
  box.addEventListener('change', () => {
    const v = parseValue(box.value, integer);
    if (v === undefined) {
      box.classList.add('bad');
      toast(`${p.name}: "${box.value}" is not ${integer ? 'a whole number' : 'a number'}`);
      return;
    }
    box.classList.remove('bad');
    range.value = toT(v);
    edits.send(p.name, v);
  });
  // `force`: the server refused the value shown, which goes back even while the user holds it.
  function set(v, force) {
    if (edits.holds(p.name) && !force) return;
    shown = v;
    const params = serverParams();
    if (params) live = boundsOf(params);
    layout();
    box.value = formatValue(v);
    box.classList.remove('bad');
    range.value = toT(v);
    markChanged(row, p, v);
  }
  /** The other parameters' values bound the slider (not while the user holds it). */
  function limit(params) {
    if (edits.holds(p.name)) return;
    live = boundsOf(params);
    layout();
    range.value = toT(shown);
  }
  return { row, set, limit };
}

function boolControl(p, edits) {
  const box = el('input', { type: 'checkbox', 'data-param': p.name });
  const row = el('label', { class: 'param row' }, label(p), box);
  box.addEventListener('change', () => edits.send(p.name, box.checked));
  return { row, set: (v) => { box.checked = !!v; markChanged(row, p, v); } };
}

function choiceControl(p, edits) {
  const select = el('select', { 'data-param': p.name }, ...p.kind.choices.map((c) => el('option', { value: c }, c)));
  const row = el('div', { class: 'param row' }, label(p), select);
  select.addEventListener('change', () => {
    select.blur(); // as for the preset: Space and the arrows go back to the shortcuts
    edits.send(p.name, select.value);
  });
  return { row, set: (v) => { select.value = v; markChanged(row, p, v); } };
}

function intervalControl(p, edits) {
  const lo = el('input', { type: 'text', 'aria-label': `${p.name} low` });
  const hi = el('input', { type: 'text', 'aria-label': `${p.name} high` });
  const row = el('div', { class: 'param row' }, label(p), el('div', { class: 'pair' }, lo, hi));
  const change = () => {
    const pair = [parseValue(lo.value), parseValue(hi.value)];
    if (pair.some((v) => typeof v !== 'number')) {
      toast(`${p.name}: enter two numbers`);
      return;
    }
    edits.send(p.name, pair);
  };
  lo.addEventListener('change', change);
  hi.addEventListener('change', change);
  return {
    row,
    set: (v) => {
      if (document.activeElement !== lo) lo.value = formatValue(v[0]);
      if (document.activeElement !== hi) hi.value = formatValue(v[1]);
      markChanged(row, p, v);
    },
  };
}

/**
 * A list the tool bar on the stage edits (obstacles, attractors) is shown, not typed: its count,
 * named by the parameter ("2 attractors").
 */
function countControl(p) {
  const count = el('span', { class: 'value', 'data-param': p.name });
  const row = el('div', { class: 'param row' }, label(p), count);
  const noun = p.name.replace(/s$/, '');
  return {
    row,
    set: (v) => {
      const n = Array.isArray(v) ? v.length : 0;
      count.textContent = `${n} ${noun}${n === 1 ? '' : 's'}`;
      markChanged(row, p, v);
    },
  };
}

function control(p, edits, serverParams) {
  if (p.slider) return sliderControl(p, edits, serverParams);
  if (p.kind.type === 'bool') return boolControl(p, edits);
  if (p.kind.type === 'choice') return choiceControl(p, edits);
  if (p.kind.type === 'shapes' || p.kind.type === 'points') return countControl(p);
  return intervalControl(p, edits);
}

/** Whether a section starts open: the common ones, and those the preset's values make act. */
function sectionOpen(name, params) {
  const v = (k) => params[k];
  switch (name) {
    case 'Flock': case 'Rules': case 'Neighbourhood': case 'Speed': return true;
    case 'Boundary': return v('boundary') !== 'torus';
    case 'Scouts': return Number(v('scout_group1_fraction')) + Number(v('scout_group2_fraction')) > 0;
    case 'Wander': return Number(v('wander_weight')) > 0;
    case 'Model': return v('model') !== 'boids';
    case 'Obstacles': return Array.isArray(v('obstacles')) && v('obstacles').length > 0;
    case 'Attractors': return Array.isArray(v('attractors')) && v('attractors').length > 0;
    case 'Predators': return Number(v('predator_count')) > 0;
    case 'Perching': return Boolean(v('perch'));
    default: return false;
  }
}

/**
 * The panel in #params. `request` sends a request to the server (connection.js);
 * `serverParams()` gives the parameters of the latest state message; `onLoaded(description)`
 * runs after a new description built the panel.
 */
export function createParameterPanel({ request, serverParams, onLoaded }) {
  const root = $('params');
  const controls = new Map(); // name -> {row, set(value), models}
  const edits = createEdits(request);
  let description = null;
  let loading = false;

  function build(desc) {
    root.replaceChildren();
    controls.clear();
    const sections = new Map(desc.sections.map((name) => [name, []]));
    for (const p of desc.params) {
      if (!sections.has(p.section)) sections.set(p.section, []);
      sections.get(p.section).push(p);
    }
    const values = Object.fromEntries(desc.params.map((p) => [p.name, p.value]));
    for (const [name, list] of sections) {
      if (list.length === 0) continue;
      const details = el('details', { class: 'section' }, el('summary', {}, name));
      details.open = sectionOpen(name, values);
      for (const p of list) {
        const c = control(p, edits, serverParams);
        c.set(p.value);
        c.models = p.models;
        controls.set(p.name, c);
        details.append(c.row);
      }
      root.append(details);
    }
  }

  async function load() {
    if (loading) return;
    loading = true;
    try {
      const desc = await (await fetch('/api/params', { cache: 'no-store' })).json();
      description = desc;
      build(desc);
      onLoaded(desc);
    } catch (e) {
      toast(`cannot load the parameter list: ${e}`);
    } finally {
      loading = false;
    }
  }

  // Only the parameters that act in the current model; a section left empty is hidden.
  function showModel(model) {
    for (const c of controls.values()) c.row.hidden = !c.models.includes(model);
    for (const details of root.children) {
      details.hidden = ![...details.querySelectorAll('.param')].some((row) => !row.hidden);
    }
  }

  return {
    load,
    /** Loads the description again when a state message brings another preset or run. */
    follow(state, previous) {
      if (!description || description.preset !== state.preset || (previous && previous.run !== state.run)) load();
    },
    /** Shows the server's parameter values. */
    show(params) {
      for (const [name, c] of controls) {
        if (name in params && edits.settled(name, params[name])) c.set(params[name]);
        c.limit?.(params);
      }
      showModel(params.model);
    },
    /** Puts the server's value of `key` back in its control: the server refused our change. */
    restore(key) {
      const params = serverParams();
      if (!key || !params || !(key in params)) return;
      edits.forget(key);
      controls.get(key)?.set(params[key], true);
    },
    /** Forgets the changes on their way: a new connection starts from the server's state. */
    forgetSent: edits.forgetAll,
  };
}
