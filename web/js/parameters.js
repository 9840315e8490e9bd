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

// Each control is {row, set(value)}: its element and how a value from the server shows in it.

function sliderControl(p, edits, serverParams) {
  const s = p.slider;
  const integer = p.kind.type === 'integer';
  const toT = (v) => {
    if (v === 'inf' || v === Infinity) return 1000;
    const x = Math.min(Math.max(Number(v), s.min), s.max);
    return s.log ? (Math.log(Math.max(x, s.min) / s.min) / Math.log(s.max / s.min)) * 1000 : ((x - s.min) / (s.max - s.min)) * 1000;
  };
  const fromT = (t) => {
    let v = s.log ? s.min * Math.pow(s.max / s.min, t / 1000) : s.min + ((s.max - s.min) * t) / 1000;
    if (integer) return Math.round(v);
    v = Math.round(v / s.step) * s.step;
    return Number(v.toPrecision(6));
  };
  const range = el('input', { type: 'range', min: '0', max: '1000', step: '1', 'data-param': p.name, 'aria-label': p.name });
  const box = el('input', { type: 'text', 'data-param-text': p.name, 'aria-label': `${p.name} value`, spellcheck: 'false' });
  const row = el('div', { class: 'param row slider-row' }, label(p), range, box);
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
    box.value = formatValue(v);
    box.classList.remove('bad');
    range.value = toT(v);
    markChanged(row, p, v);
  }
  return { row, set };
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
