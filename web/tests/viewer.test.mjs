// Browser test of the live viewer, in headless Debian chromium driven by playwright-core.
//
//   node viewer.test.mjs http://127.0.0.1:PORT/
//
// The server must run a small `cornell` flock (crates/boids-server/tests/browser.rs starts one).
// Environment: BOIDS_CHROMIUM (default /usr/bin/chromium), BOIDS_RENDERER=webgl or 2d to force a
// renderer (by default the page picks canvas 2D where WebGL2 runs in software, as in headless
// chromium), BOIDS_SCREENSHOT=path.png to save a picture of the page with overlays on (and
// path-800.png of the page 800 px wide, path-3d.png of a flock in three dimensions).
// Exits 0 when every check passes, 1 with a message otherwise.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const base = process.argv[2];
if (!base) {
  console.error('usage: node viewer.test.mjs http://127.0.0.1:PORT/');
  process.exit(2);
}
const executablePath = process.env.BOIDS_CHROMIUM || '/usr/bin/chromium';
const renderer = process.env.BOIDS_RENDERER;
const screenshot = process.env.BOIDS_SCREENSHOT;
// The page's ES modules: main.js imports them all, so every one must load.
const modules = readdirSync(new URL('../js/', import.meta.url)).filter((f) => f.endsWith('.js'));

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`ok - ${message}`);
}

async function setEvents(key) {
  const log = await (await fetch(new URL('api/events', base))).json();
  return log.events.filter((e) => e.kind === 'set' && e.key === key);
}

// Sets the speed with the page's slider (logarithmic from 0.5 to 1000 steps per second).
function setSpeed(page, stepsPerSecond) {
  return page.evaluate((v) => {
    const speed = document.getElementById('speed');
    speed.value = String(Math.round((Math.log(v / 0.5) / Math.log(2000)) * 1000));
    speed.dispatchEvent(new Event('input'));
  }, stepsPerSecond);
}

async function serverParams() {
  const desc = await (await fetch(new URL('api/params', base))).json();
  return Object.fromEntries(desc.params.map((p) => [p.name, p.value]));
}

// The Info of a WebM file (a Buffer): its elements' IDs in hex and its Duration in seconds
// (null: none). Read here, apart from the page's webm.js: EBML elements are an ID, a size (a
// variable-length integer; all ones is "unknown") and the data; the Segment's and the Info's
// children are read, the rest stepped over.
function webmInfo(bytes) {
  const vint = (at, keepMarker) => {
    const length = Math.clz32(bytes[at]) - 23;
    let v = keepMarker ? bytes[at] : bytes[at] & (0xff >> length);
    let ones = v === 0xff >> length;
    for (let k = 1; k < length; k++) {
      v = v * 256 + bytes[at + k];
      ones &&= bytes[at + k] === 0xff;
    }
    return { v: !keepMarker && ones ? null : v, length };
  };
  const found = { info: [], duration: null, scale: 1e6 };
  let at = 0;
  let infoEnd = -1;
  while (at < bytes.length) {
    const id = vint(at, true);
    const size = vint(at + id.length, false);
    const data = at + id.length + size.length;
    if (data <= infoEnd) found.info.push(id.v.toString(16));
    if (id.v === 0x2ad7b1) found.scale = bytes.readUIntBE(data, size.v);
    if (id.v === 0x4489) found.duration = size.v === 8 ? bytes.readDoubleBE(data) : bytes.readFloatBE(data);
    if (id.v === 0x1549a966) infoEnd = data + size.v;
    if (id.v === 0x18538067 || id.v === 0x1549a966) at = data;
    else if (size.v === null || (infoEnd >= 0 && at >= infoEnd)) break;
    else at = data + size.v;
  }
  if (found.duration !== null) found.duration = (found.duration * found.scale) / 1e9;
  return found;
}

// The HTML over the stage (tool bar, hover box, toasts, legend and key hints), which the pixel
// checks leave out.
const OVER_STAGE = ['tools', 'info', 'toasts', 'stage-foot'];

// The stage alone (both canvases, without the HTML over it) as a PNG in base64.
async function bareStage(page, options = {}) {
  const show = (visibility) => page.evaluate(([ids, v]) => {
    for (const id of ids) document.getElementById(id).style.visibility = v;
  }, [OVER_STAGE, visibility]);
  await show('hidden');
  const png = await page.locator('#stage').screenshot(options);
  await show('');
  return png.toString('base64');
}

// In the page, for the pixel checks: a PNG in base64 decoded to its RGBA bytes `d` and size `c`.
const DECODE_PNG = () => {
  window.decodePng = async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height });
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    return { d: ctx.getImageData(0, 0, c.width, c.height).data, c };
  };
};

// Counts pixels of the stage (both canvases, without the HTML over it) by colour.
async function pixelStats(page) {
  const png = await bareStage(page, process.env.BOIDS_DEBUG_SHOT ? { path: process.env.BOIDS_DEBUG_SHOT } : {});
  return page.evaluate(async (b64) => {
    const { d, c } = await decodePng(b64);
    const n = { total: c.width * c.height, bright: 0, red: 0, green: 0, blue: 0, cyan: 0, pink: 0, orange: 0, orangeAt: null };
    let [ox, oy] = [0, 0];
    for (let i = 0; i < d.length; i += 4) {
      const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
      if (r + g + b > 450) n.bright++;
      if (r > 150 && r > g + 100 && r > b + 100) n.red++;
      if (g > 150 && g > r + 80 && g > b + 80) n.green++;
      if (b > 150 && b > r + 80 && b > g + 60) n.blue++;
      if (g > 60 && Math.abs(g - b) < 30 && g > r + 25) n.cyan++;
      if (r > 180 && b > 120 && r > g + 80) n.pink++; // scout group 1, (255, 96, 200)
      if (r > 220 && g > 120 && g < 180 && b < 90) {
        // a predator, (255, 150, 50)
        n.orange++;
        ox += (i / 4) % c.width;
        oy += Math.floor(i / 4 / c.width);
      }
    }
    // Where the orange pixels are on average, in CSS px from the stage's corner.
    if (n.orange > 0) n.orangeAt = { x: ox / n.orange / devicePixelRatio, y: oy / n.orange / devicePixelRatio };
    return n;
  }, png);
}

// The stage as a PNG (base64) with its count of boid pixels, without the HTML boxes over it:
// pixels in the boids' warm colours (boids of no group are (246, 216, 110) as in boids render),
// dimmed by depth down to 0.5, and never in the cool greys and blues of the world's box.
async function stagePicture(page) {
  const png = await bareStage(page);
  const boids = await page.evaluate(async (b64) => {
    const { d } = await decodePng(b64);
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] > 286 && d[i] > d[i + 2] + 40) n++;
    return n;
  }, png);
  return { png, boids };
}

// The share of the pixels of two stage pictures (stagePicture) whose colours differ visibly.
function pictureDifference(page, a, b) {
  return page.evaluate(async ([pa, pb]) => {
    const [da, db] = [(await decodePng(pa)).d, (await decodePng(pb)).d];
    if (da.length !== db.length) return 1;
    let differ = 0;
    for (let i = 0; i < da.length; i += 4) {
      if (Math.abs(da[i] - db[i]) + Math.abs(da[i + 1] - db[i + 1]) + Math.abs(da[i + 2] - db[i + 2]) > 30) differ++;
    }
    return differ / (da.length / 4);
  }, [a.png, b.png]);
}

// The boxes (client rects) of the elements `selector` matches that are shown.
function boxes(page, selector) {
  return page.evaluate((sel) => [...document.querySelectorAll(sel)]
    .filter((e) => e.offsetParent !== null)
    .map((e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    }), selector);
}

// Whether any box of `a` overlaps any box of `b`.
const overlap = (a, b) => a.some((p) => b.some((q) => p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom));

const userDataDir = mkdtempSync(join(tmpdir(), 'boids-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
await context.addInitScript(DECODE_PNG);
let failed = false;
try {
  const page = context.pages()[0] || (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const served = new Map(); // module name -> "status content-type"
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/js/')) served.set(path.slice('/js/'.length), `${r.status()} ${r.headers()['content-type']}`);
  });
  await page.goto(new URL(renderer ? `?renderer=${renderer}` : '', base).href);

  // 1. The page loads its modules and draws the flock.
  await page
    .waitForFunction(() => window.boidsViewer?.framesDrawn > 0 && window.boidsViewer.server, null, { timeout: 20000 })
    .catch((e) => {
      throw new Error(`the page did not start: ${e.message}${errors.length ? `\npage errors: ${errors.join('; ')}` : ''}`);
    });
  const problems = [
    ...modules.filter((m) => !/^200 text\/javascript/.test(served.get(m) ?? '')).map((m) => `${m}: ${served.get(m) ?? 'not loaded'}`),
    ...errors,
  ];
  check(
    modules.includes('main.js') && problems.length === 0,
    `all ${modules.length} modules of web/js load as JavaScript, without errors${problems.length ? `: ${problems.join('; ')}` : ''}`,
  );
  if (!(await page.evaluate(() => boidsViewer.server.running))) await page.click('#play');
  await page.waitForFunction(() => boidsViewer.framesDrawn > 20, null, { timeout: 20000 });
  const info = await page.evaluate(() => ({ renderer: boidsViewer.renderer, frame: boidsViewer.frame, count: boidsViewer.server.params.count }));
  console.log(`# renderer ${info.renderer}, ${info.frame.count} boids at step ${info.frame.step}`);
  const expected = { webgl: 'webgl2', '2d': 'canvas2d' }[renderer];
  check(!expected || info.renderer === expected, `the page draws with ${info.renderer}`);
  check(info.frame.count === info.count, `frame holds all ${info.count} boids`);
  let plain = await pixelStats(page);
  for (let i = 0; i < 10 && plain.bright <= 200; i++) {
    await page.waitForTimeout(300);
    plain = await pixelStats(page);
  }
  check(plain.bright > 200, `boids are drawn (${plain.bright} bright pixels)`);
  check(plain.red + plain.green + plain.blue < 20, `no overlay colours while overlays are off (${plain.red}/${plain.green}/${plain.blue})`);
  check(plain.pink > 0, `scouts of group 1 are drawn in the renderer's pink (${plain.pink} px)`);
  const legend = await page.evaluate(() => ({
    text: document.getElementById('groups-legend').textContent,
    one: getComputedStyle(document.querySelector('#groups-legend .sw.scout1')).backgroundColor,
    two: getComputedStyle(document.querySelector('#groups-legend .sw.scout2')).backgroundColor,
  }));
  check(
    legend.one === 'rgb(255, 96, 200)' && legend.two === 'rgb(90, 205, 255)' && /group 1 toward \+x/.test(legend.text) && /group 2 toward −x/.test(legend.text),
    `the legend names the scout colours of boids render and their bias (${legend.text})`,
  );
  const controls = await page.locator('#params input, #params select').count();
  check(controls >= 30, `a control for every parameter (${controls} inputs)`);
  // cornell is a boids-model preset: its rules show, the heading models' noise does not.
  check(
    (await page.locator('[data-param-text="centering_factor"]').isVisible()) && (await page.locator('[data-param-text="noise"]').isHidden()),
    'the boids model shows its rules and hides the heading models\' parameters',
  );
  check(
    (await page.locator('[data-param="visual_range"]').locator('xpath=..').locator('.label').innerText()).replace(/\s+/g, ' ') === 'Visual range length',
    'parameters have readable labels with their unit',
  );
  const clipped = await page.evaluate(() => [...document.querySelectorAll('#params .param .label')]
    .filter((l) => l.offsetParent && (l.scrollWidth > l.clientWidth + 1 || l.scrollHeight > l.clientHeight + 1))
    .map((l) => l.textContent));
  check(clipped.length === 0, `no parameter label is cut off${clipped.length ? `: ${clipped.join(', ')}` : ''}`);

  // 2. Moving a slider changes the server's parameter, live.
  const before = (await serverParams()).visual_range;
  const slider = page.locator('input[type=range][data-param="visual_range"]');
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const thumbX = box.x + (box.width * Number(await slider.inputValue())) / 1000;
  await page.mouse.move(thumbX, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(thumbX + box.width * 0.2, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  const shown = Number(await page.locator('[data-param-text="visual_range"]').inputValue());
  let after = before;
  for (let i = 0; i < 50 && after !== shown; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = (await serverParams()).visual_range;
  }
  check(shown !== before && after === shown, `slider moved visual_range from ${before} to ${after} on the server`);
  await page.waitForFunction((v) => boidsViewer.server.params.visual_range === v, after, { timeout: 5000 });
  check(true, 'the change came back in the state broadcast');
  const toml = await (await fetch(new URL('api/config.toml', base))).text();
  check(toml.includes(`visual_range = ${after}`), 'the TOML export has the new value');
  const log = await (await fetch(new URL('api/events', base))).json();
  const last = log.events[log.events.length - 1];
  check(last.kind === 'set' && last.key === 'visual_range' && last.value === after, 'the event log recorded the change');

  // Obstacles, edited with the world tool bar: each edit is one `set` of the whole list, and the
  // page draws what the server holds.
  const setParam = (key, value) => page.evaluate(([k, v]) => new Promise((resolve, reject) => {
    const ws = new WebSocket(new URL('ws', location.href).href.replace(/^http/, 'ws'));
    ws.onopen = () => ws.send(JSON.stringify({ type: 'set', key: k, value: v, id: 1 }));
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') return;
      const reply = JSON.parse(m.data);
      if (reply.id === 1) { ws.close(); (reply.type === 'ok' ? resolve : reject)(JSON.stringify(reply)); }
    };
  }), [key, value]);
  const obstacles = () => page.evaluate(() => boidsViewer.server.params.obstacles);
  const obstacleCount = (n) => page.waitForFunction((k) => boidsViewer.server.params.obstacles.length === k, n, { timeout: 5000 });
  const world = await page.evaluate(() => boidsViewer.frame.world);
  const clientOf = (x, y) => page.evaluate(([wx, wy]) => boidsViewer.clientPosition(wx, wy), [x, y]);
  const unitsPerPx = await page.evaluate(() => devicePixelRatio / boidsViewer.view.scale);
  const near = (a, b, px) => Math.hypot(a[0] - b[0], a[1] - b[1]) <= px * unitsPerPx;
  check((await obstacles()).length === 0, 'the flock starts without obstacles');
  await setParam('obstacle_lookahead', 60);
  await setParam('obstacle_avoid_factor', 0.4);
  const obstacleSets = (await setEvents('obstacles')).length;
  const spot = [world.x + 0.5 * world.w, world.y + 0.5 * world.h];
  const spotAt = await clientOf(...spot);
  await page.click('#tools button:has-text("Circle")');
  await page.mouse.click(spotAt.x, spotAt.y);
  await obstacleCount(1);
  const [placed] = await obstacles();
  const range = (await serverParams()).visual_range;
  check(
    placed.shape === 'circle' && near(placed.center, spot, 2) && Math.abs(placed.radius - 1.5 * range) < 1e-3 * range,
    `a click with the circle tool places a circle of 1.5 visual ranges where clicked (${JSON.stringify(placed)} for ${spot})`,
  );
  check((await setEvents('obstacles')).length === obstacleSets + 1, 'the edit is one set event in the log');
  const obstacleText = await page.locator('[data-param="obstacles"]').textContent();
  check(obstacleText === '1 obstacle', `the panel counts the obstacle (${obstacleText})`);

  // The flock goes around the circle: over many frames no boid is inside it (allowing for the
  // frame's quantisation), and boids do come close. Only frames of the parameters with the
  // circle count: one encoded just before the edit may arrive after the state that has it.
  const around = await page.evaluate(async ({ center, radius }) => {
    const frames = [];
    const revision = boidsViewer.server.revision;
    let last = -1;
    while (frames.length < 120) {
      await new Promise((r) => requestAnimationFrame(r));
      const f = boidsViewer.frame;
      if (f.step === last || f.revision !== revision) continue;
      last = f.step;
      frames.push(boidsViewer.boidPositions().map(([x, y]) => Math.hypot(x - center[0], y - center[1]) - radius));
    }
    const gaps = frames.flat();
    return { inside: gaps.filter((g) => g < -0.05).length, close: gaps.filter((g) => g < 10).length };
  }, placed);
  check(around.inside === 0 && around.close > 0, `over 120 frames no boid is inside the circle, and ${around.close} times one came within 10 units of it`);

  // Moved with the move tool (V): the centre follows the drag.
  await page.keyboard.press('v');
  await page.mouse.move(spotAt.x, spotAt.y);
  await page.mouse.down();
  await page.mouse.move(spotAt.x + 60, spotAt.y + 30, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction((x) => boidsViewer.server.params.obstacles[0].center[0] !== x, placed.center[0], { timeout: 5000 });
  const [moved] = await obstacles();
  const movedTo = [placed.center[0] + 60 * unitsPerPx, placed.center[1] + 30 * unitsPerPx];
  check(near(moved.center, movedTo, 2) && moved.radius === placed.radius, `the move tool drags the circle (to ${moved.center})`);

  // A box over the whole start region is refused: one toast, the server's list drawn unchanged.
  const toastsBefore = await page.locator('.toast:not(.ok)').count();
  await page.keyboard.press('b');
  const corner = await clientOf(world.x - 0.02 * world.w, world.y - 0.02 * world.h);
  const opposite = await clientOf(world.x + 1.02 * world.w, world.y + 1.02 * world.h);
  // Dragged from the bottom right: just outside the world's top left is the tool bar.
  await page.mouse.move(opposite.x, opposite.y);
  await page.mouse.down();
  await page.mouse.move(corner.x, corner.y, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction((n) => document.querySelectorAll('.toast:not(.ok)').length > n, toastsBefore, { timeout: 5000 });
  await page.waitForFunction(() => boidsViewer.obstacles.length === 1, null, { timeout: 5000 });
  check(
    (await obstacles()).length === 1 && JSON.stringify(await page.evaluate(() => boidsViewer.obstacles)) === JSON.stringify([moved]),
    'a refused edit shows a toast and the page draws the server\'s obstacles',
  );

  // Deleted with the delete tool.
  await page.click('#tools button:has-text("Delete")');
  const movedAt = await clientOf(...moved.center);
  await page.mouse.click(movedAt.x, movedAt.y);
  await obstacleCount(0);
  check(true, 'a click with the delete tool deletes the circle');

  // A drag with the circle tool sizes the circle and does not pan; Delete removes the selection.
  const viewBefore = await page.evaluate(() => boidsViewer.view);
  await page.keyboard.press('c');
  await page.mouse.move(spotAt.x, spotAt.y);
  await page.mouse.down();
  await page.mouse.move(spotAt.x + 40, spotAt.y, { steps: 6 });
  await page.mouse.up();
  await obstacleCount(1);
  const [sized] = await obstacles();
  check(Math.abs(sized.radius - 40 * unitsPerPx) <= 2 * unitsPerPx, `a drag sizes the circle (radius ${sized.radius})`);
  check(JSON.stringify(await page.evaluate(() => boidsViewer.view)) === JSON.stringify(viewBefore), 'a tool\'s drag does not pan');
  await page.keyboard.press('v');
  await page.mouse.click(spotAt.x, spotAt.y);
  await page.keyboard.press('Delete');
  await obstacleCount(0);
  check(true, 'Delete removes the selected obstacle');

  // A wall of three corners, finished with a double click; then Clear.
  await page.keyboard.press('w');
  const corners = [[0.2, 0.2], [0.5, 0.3], [0.6, 0.6]].map(([u, v]) => [world.x + u * world.w, world.y + v * world.h]);
  const clicks = await Promise.all(corners.map((c) => clientOf(...c)));
  await page.mouse.click(clicks[0].x, clicks[0].y);
  await page.mouse.click(clicks[1].x, clicks[1].y);
  await page.mouse.dblclick(clicks[2].x, clicks[2].y);
  await obstacleCount(1);
  const [wall] = await obstacles();
  check(
    wall.shape === 'wall' && wall.points.length === 3 && wall.points.every((p, k) => near(p, corners[k], 2)),
    `the wall tool makes a wall through the clicked corners (${JSON.stringify(wall.points)})`,
  );
  await page.click('#tools button:has-text("Clear")');
  await obstacleCount(0);
  check(true, 'Clear removes every obstacle');

  // With no tool (Esc leaves it), a drag pans again.
  await page.keyboard.press('Escape');
  await page.mouse.move(spotAt.x, spotAt.y);
  await page.mouse.down();
  await page.mouse.move(spotAt.x + 50, spotAt.y + 20, { steps: 6 });
  await page.mouse.up();
  const panned = await page.evaluate(() => boidsViewer.view);
  check(panned.x0 !== viewBefore.x0 && panned.y0 !== viewBefore.y0, 'with no tool a drag pans the view');
  await page.keyboard.press('f');

  // The world's other objects, with the tools of the world bar. A predator placed with a click
  // is in the frames and drawn in its orange.
  const noPredators = await pixelStats(page);
  await page.keyboard.press('p');
  const centreAt = await clientOf(...spot);
  await page.mouse.click(centreAt.x, centreAt.y);
  await page.waitForFunction(() => boidsViewer.predators.length === 1, null, { timeout: 5000 });
  const [hunter] = await page.evaluate(() => boidsViewer.predators);
  check(
    !hunter.pointer && (await serverParams()).predator_count === 1,
    `a click with the predator tool places a predator: the frames carry it (${hunter.x.toFixed(1)}, ${hunter.y.toFixed(1)}) and predator_count is 1`,
  );
  await page.waitForTimeout(300);
  const withPredator = await pixelStats(page);
  check(withPredator.orange > noPredators.orange + 20, `the predator is drawn in orange (${withPredator.orange} px, ${noPredators.orange} without)`);
  // Paused, so that the predator is where the click goes.
  await page.click('#play');
  await page.waitForFunction(() => !boidsViewer.frame.running, null, { timeout: 5000 });
  await page.keyboard.press('k');
  const still = await page.evaluate(() => boidsViewer.predators[0]);
  const stillAt = await clientOf(still.x, still.y);
  await page.mouse.click(stillAt.x, stillAt.y);
  await page.waitForFunction(() => boidsViewer.predators.length === 0, null, { timeout: 5000 });
  check((await serverParams()).predator_count === 0, 'a click with the remove tool removes the predator');
  await page.keyboard.press('Escape');
  await page.click('#play');
  await page.waitForFunction(() => boidsViewer.frame.running, null, { timeout: 5000 });

  // The mouse as a predator: boids flee the pointer. The mouse goes where the boids are densest
  // every quarter second (at 60 steps a second), and the boids within fear_range of it are
  // counted over 90 frames, first with the switch off, then on.
  const testSpeed = await page.evaluate(() => boidsViewer.server.steps_per_second);
  await setSpeed(page, 60);
  await setParam('fear_range', 60);
  await setParam('flee_factor', 5);
  const crowdNearMouse = () => page.evaluate(async (fear) => {
    const densest = (boids) => {
      let best = boids[0];
      let most = -1;
      for (const b of boids) {
        const near = boids.filter((o) => Math.hypot(o[0] - b[0], o[1] - b[1]) < fear).length;
        if (near > most) [best, most] = [b, near];
      }
      return best;
    };
    let [mouse, near, frames, last, pointed] = [null, 0, 0, -1, 0];
    while (frames < 90) {
      await new Promise((r) => requestAnimationFrame(r));
      const f = boidsViewer.frame;
      if (f.step === last) continue;
      last = f.step;
      const boids = boidsViewer.boidPositions();
      if (frames % 15 === 0) {
        mouse = densest(boids);
        const at = boidsViewer.clientPosition(...mouse);
        await window.moveMouseTo(at.x, at.y);
      }
      near += boids.filter((b) => Math.hypot(b[0] - mouse[0], b[1] - mouse[1]) < fear).length;
      pointed += boidsViewer.predators.some((p) => p.pointer) ? 1 : 0;
      frames++;
    }
    return { near: near / frames, pointed: pointed / frames };
  }, 60);
  await page.exposeFunction('moveMouseTo', (x, y) => page.mouse.move(x, y));
  const { near: calm } = await crowdNearMouse();
  await page.keyboard.press('m');
  const { near: fleeing, pointed } = await crowdNearMouse();
  // The pointer's predator is in the frames (most of them: it is made by the first move).
  const pointerShown = pointed > 0.5;
  await page.keyboard.press('m');
  await page.waitForFunction(() => boidsViewer.predators.length === 0, null, { timeout: 5000 });
  await setSpeed(page, testSpeed);
  check(
    pointerShown && fleeing < 0.7 * calm,
    `with the mouse as a predator fewer boids are within fear_range of the pointer (${fleeing.toFixed(1)} a frame, ${calm.toFixed(1)} without; its predator in ${(100 * pointed).toFixed(0)}% of the frames); switched off, its predator is gone`,
  );

  // An attractor placed with a click and dragged: the parameter follows, as it moves too.
  await page.keyboard.press('a');
  const goal = [world.x + 0.25 * world.w, world.y + 0.4 * world.h];
  const goalAt = await clientOf(...goal);
  await page.mouse.click(goalAt.x, goalAt.y);
  await page.waitForFunction(() => boidsViewer.server.params.attractors.length === 1, null, { timeout: 5000 });
  const [placedGoal] = (await serverParams()).attractors;
  check(near(placedGoal, goal, 2), `a click with the attractor tool places an attractor where clicked (${placedGoal})`);
  check((await page.locator('[data-param="attractors"]').textContent()) === '1 attractor', 'the panel counts the attractor');
  const attractorSets = (await setEvents('attractors')).length;
  await page.keyboard.press('d');
  await page.mouse.move(goalAt.x, goalAt.y);
  await page.mouse.down();
  await page.mouse.move(goalAt.x + 40, goalAt.y + 10, { steps: 10 });
  await page.waitForTimeout(200);
  const midway = (await serverParams()).attractors[0];
  await page.mouse.move(goalAt.x + 80, goalAt.y + 20, { steps: 10 });
  await page.mouse.up();
  const draggedTo = [goal[0] + 80 * unitsPerPx, goal[1] + 20 * unitsPerPx];
  await page.waitForFunction((x) => Math.abs(boidsViewer.server.params.attractors[0][0] - x) < 0.5, draggedTo[0], { timeout: 5000 });
  const [movedGoal] = (await serverParams()).attractors;
  check(
    near(movedGoal, draggedTo, 2) && midway[0] > placedGoal[0] && midway[0] < movedGoal[0],
    `a drag moves the attractor (to ${movedGoal}), the parameter following it midway (${midway})`,
  );
  check((await setEvents('attractors')).length > attractorSets + 1, 'the drag sends the list as it moves, each a set event');

  // Clear empties the world: obstacles, attractors and predators.
  await page.keyboard.press('c');
  await page.mouse.click(spotAt.x, spotAt.y);
  await page.keyboard.press('p');
  const clearOfCircle = await clientOf(world.x + 0.9 * world.w, world.y + 0.15 * world.h);
  await page.mouse.click(clearOfCircle.x, clearOfCircle.y);
  await page.waitForFunction(() => boidsViewer.predators.length === 1 && boidsViewer.server.params.obstacles.length === 1, null, { timeout: 5000 });
  await page.click('#tools button:has-text("Clear")');
  await page.waitForFunction(() => {
    const p = boidsViewer.server.params;
    return p.obstacles.length === 0 && p.attractors.length === 0 && p.predator_count === 0 && boidsViewer.predators.length === 0;
  }, null, { timeout: 5000 });
  check(true, 'Clear removes every obstacle, attractor and predator');
  await page.keyboard.press('Escape');

  // 3. Overlays for all boids draw radius circles and the three rule vectors in their colours.
  await page.click('#overlay-mode button[data-mode="all"]');
  await page.waitForFunction(() => boidsViewer.overlay?.records > 0, null, { timeout: 10000 });
  await page.waitForTimeout(400);
  const all = await pixelStats(page);
  console.log(`# overlay pixels: ${JSON.stringify(all)}`);
  check(all.red > 40, `cohesion vectors drawn in red (${all.red} px)`);
  check(all.green > 40, `separation vectors drawn in green (${all.green} px)`);
  check(all.blue > 40, `alignment vectors drawn in blue (${all.blue} px)`);
  check(all.cyan > plain.cyan + 200, `visual-radius circles drawn in cyan (${all.cyan} px)`);
  for (const width of [1280, 800]) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(200);
    const [legendBox, keysBox] = [await boxes(page, '#legend'), await boxes(page, '#keys')];
    check(legendBox.length === 1 && keysBox.length === 1 && !overlap(legendBox, keysBox), `at ${width} px the overlay legend does not overlap the key hints below it`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // 4. The overlay for the boid under the mouse.
  await page.click('#overlay-mode button[data-mode="hover"]');
  await page.evaluate(() => boidsViewer.server.running && document.getElementById('play').click());
  await page.waitForFunction(() => !boidsViewer.server.running, null, { timeout: 5000 });
  // The state says paused before the frame of the paused flock may have arrived; positions are
  // only final once a frame published while paused is in.
  await page.waitForFunction(() => boidsViewer.frame && !boidsViewer.frame.running, null, { timeout: 5000 });
  // A boid well inside the stage (boids may fly off the view in the margins preset).
  const at = await page.evaluate(() => {
    const r = document.getElementById('stage').getBoundingClientRect();
    for (let i = 0; i < boidsViewer.frame.count; i++) {
      const p = boidsViewer.boidClientPosition(i);
      if (p.x > r.left + 40 && p.x < r.right - 40 && p.y > r.top + 40 && p.y < r.bottom - 80) return p;
    }
    return null;
  });
  check(at !== null, 'a boid is in view to hover over');
  await page.mouse.move(at.x, at.y);
  await page.waitForFunction(() => boidsViewer.overlay?.hover && boidsViewer.overlay.records === 1, null, { timeout: 10000 });
  await page.locator('#info').waitFor({ state: 'visible', timeout: 5000 });
  check(true, 'the boid under the mouse is described');
  const toolBar = await boxes(page, '#tools .seg');
  check(!overlap(await boxes(page, '#info'), toolBar), 'the hover box does not cover the tool bar');
  const rows = new Set(toolBar.map((b) => Math.round(b.top)));
  check(rows.size === 1, `the tool bar is one row at 1280 px (rows at ${[...rows].join(', ')})`);

  // 5. Enter in a number box sends the change once, and a refused value gives one toast.
  const text = page.locator('[data-param-text="visual_range"]');
  await text.scrollIntoViewIfNeeded();
  const sets = (await setEvents('visual_range')).length;
  const typed = (await serverParams()).visual_range === 37.5 ? 38.5 : 37.5;
  await text.fill(String(typed));
  await text.press('Enter');
  await page.waitForFunction((v) => boidsViewer.server.params.visual_range === v, typed, { timeout: 5000 });
  await page.waitForTimeout(300);
  check((await setEvents('visual_range')).length === sets + 1, 'Enter in a number box sends the change once');
  const visualSlider = page.locator('input[type=range][data-param="visual_range"]');
  const rangeBefore = await visualSlider.inputValue();
  for (const bad of ['abc', '-5']) {
    const toasts = await page.locator('.toast:not(.ok)').count();
    await text.fill(bad);
    await text.press('Enter');
    await page.waitForTimeout(500);
    check((await page.locator('.toast:not(.ok)').count()) === toasts + 1, `"${bad}" in a number box gives one error toast`);
  }
  // The server refused -5: the box (still focused) and the slider show the value in effect.
  const inEffect = await page.evaluate(() => boidsViewer.server.params.visual_range);
  check(
    Number(await text.inputValue()) === inEffect && (await visualSlider.inputValue()) === rangeBefore,
    `a refused value goes back to the one in effect in its box (${await text.inputValue()}) and slider`,
  );
  await text.blur();

  // 5b. A slider spans the values the model takes: the allowed range and what the other
  // parameters allow now. Visual range may not go below the protected range, so its slider
  // starts there: dragged past its left end it stops at the protected range, with no error; the
  // protected range's slider ends at the visual range. The thumb shows the value in effect,
  // after a refusal too (another page raised the protected range while this one held the thumb).
  await page.evaluate(() => {
    window.errorToastsSeen = [];
    new MutationObserver((changes) => {
      for (const c of changes) for (const n of c.addedNodes) if (n.matches?.('.toast:not(.ok)')) window.errorToastsSeen.push(n.textContent);
    }).observe(document.getElementById('toasts'), { childList: true });
  });
  const rangesBefore = await serverParams();
  const dragSlider = async (name, toRight, during) => {
    const s = page.locator(`input[type=range][data-param="${name}"]`);
    await s.scrollIntoViewIfNeeded();
    const b = await s.boundingBox();
    const y = b.y + b.height / 2;
    const from = b.x + (b.width * Number(await s.inputValue())) / 1000;
    const to = toRight ? b.x + b.width + 20 : b.x - 20;
    await page.mouse.move(from, y);
    await page.mouse.down();
    await page.mouse.move(from + (toRight ? 2 : -2), y, { steps: 2 });
    if (during) await during();
    for (let i = 1; i <= 20; i++) {
      await page.mouse.move(from + ((to - from) * i) / 20, y);
      await page.waitForTimeout(30);
    }
    await page.waitForTimeout(600); // the refusals of what was sent, while the thumb is held
    await page.mouse.up();
    await page.waitForTimeout(600);
  };
  // Where the thumb of `name` is against where the value in effect should put it, and the box.
  const sliderShows = (name) => page.evaluate((n) => {
    const s = document.querySelector(`input[type=range][data-param="${n}"]`);
    const [lo, hi, v] = [Number(s.dataset.min), Number(s.dataset.max), Number(boidsViewer.server.params[n])];
    return { lo, hi, v, thumb: Number(s.value), expected: hi > lo ? Math.round(((v - lo) / (hi - lo)) * 1000) : 0, box: Number(document.querySelector(`[data-param-text="${n}"]`).value) };
  }, name);
  await dragSlider('visual_range', false);
  let shows = await sliderShows('visual_range');
  check(
    shows.v === rangesBefore.protected_range && shows.lo === rangesBefore.protected_range && shows.thumb === 0 && shows.box === shows.v &&
      (await page.evaluate(() => window.errorToastsSeen.length)) === 0,
    `dragged past its left end, visual range's slider stops at the protected range (${shows.v}; ${rangesBefore.protected_range} expected) without an error${(await page.evaluate(() => window.errorToastsSeen)).map((t) => `: ${t}`).join('')}`,
  );
  const restoreRanges = async () => {
    await setParam('protected_range', rangesBefore.protected_range);
    await setParam('visual_range', rangesBefore.visual_range);
    await page.waitForFunction(([p, v]) => boidsViewer.server.params.protected_range === p && boidsViewer.server.params.visual_range === v,
      [rangesBefore.protected_range, rangesBefore.visual_range], { timeout: 5000 });
    await page.waitForTimeout(200);
  };
  await restoreRanges();
  await dragSlider('protected_range', true);
  shows = await sliderShows('protected_range');
  check(
    shows.v === rangesBefore.visual_range && shows.hi === shows.v && shows.thumb === 1000 && (await page.evaluate(() => window.errorToastsSeen.length)) === 0,
    `and the protected range's slider ends at the visual range (${shows.v}; ${rangesBefore.visual_range} expected)`,
  );
  await restoreRanges();
  const raised = rangesBefore.protected_range + 12;
  await dragSlider('visual_range', false, async () => {
    await setParam('protected_range', raised);
    await page.waitForFunction((v) => boidsViewer.server.params.protected_range === v, raised, { timeout: 5000 });
  });
  shows = await sliderShows('visual_range');
  check(
    shows.v >= raised && shows.lo === raised && Math.abs(shows.thumb - shows.expected) <= 1 && shows.box === shows.v,
    `after a refusal the thumb shows the value in effect (${shows.v}: thumb at ${shows.thumb}/1000, ${shows.expected} expected), the slider starting at the new protected range (${shows.lo})`,
  );
  await restoreRanges();

  // 6. The plots stay in view while the parameter list scrolls.
  const plotAt = async () => (await page.locator('#plot-pol').boundingBox()).y;
  const plotBefore = await plotAt();
  const scrolled = await page.locator('#panel-scroll').evaluate((e) => {
    e.scrollTop = e.scrollHeight;
    return e.scrollTop;
  });
  check(scrolled > 0 && (await plotAt()) === plotBefore, `the plots stay put while the parameters scroll (by ${scrolled} px)`);

  // 7. At 800 px the header stays one line, as high as at 1280 px.
  const headerHeight = () => page.evaluate(() => document.getElementById('topbar').getBoundingClientRect().height);
  const wide = await headerHeight();
  await page.setViewportSize({ width: 800, height: 600 });
  await page.waitForTimeout(1200); // a stats update at the new width
  const narrow = await headerHeight();
  const tops = await page.evaluate(() => {
    const items = document.querySelectorAll('#topbar .brand, #topbar .transport > *, #stats');
    return [...items].map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2));
  });
  check(narrow === wide && new Set(tops).size === 1, `the header is one line at 800 px (${narrow} px high, ${wide} px at 1280)`);
  if (screenshot) await page.screenshot({ path: screenshot.replace(/\.png$/, '-800.png') });
  // At 420 px (a phone) nothing runs off the side, and the stage keeps the width and a good
  // part of the height; the panel goes below it.
  await page.setViewportSize({ width: 420, height: 800 });
  await page.waitForTimeout(600);
  const phone = await page.evaluate(() => {
    const stage = document.getElementById('stage').getBoundingClientRect();
    const panel = document.getElementById('panel').getBoundingClientRect();
    return { scroll: document.documentElement.scrollWidth, stage: { w: stage.width, h: stage.height, bottom: stage.bottom }, panelTop: panel.top, panelW: panel.width };
  });
  check(
    phone.scroll <= 420 && phone.stage.w >= 400 && phone.stage.h >= 300 && phone.panelTop >= phone.stage.bottom - 1 && phone.panelW >= 400,
    `usable at 420 px: nothing overflows (${phone.scroll} px wide), the stage ${Math.round(phone.stage.w)} x ${Math.round(phone.stage.h)} px, the panel below it`,
  );
  if (screenshot) await page.screenshot({ path: screenshot.replace(/\.png$/, '-420.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // 8. After choosing a preset the keyboard shortcuts work at once; the heading model of the
  // vicsek preset shows its own parameters and not the boids rules.
  await page.focus('#preset');
  await page.selectOption('#preset', 'vicsek');
  await page.waitForFunction(() => boidsViewer.server.preset === 'vicsek', null, { timeout: 5000 });
  const wasRunning = await page.evaluate(() => boidsViewer.server.running);
  await page.keyboard.press('Space');
  await page.waitForFunction((r) => boidsViewer.server.running !== r, wasRunning, { timeout: 5000 });
  check(true, 'Space starts or stops right after a preset is chosen');
  await page.locator('[data-param-text="centering_factor"]').waitFor({ state: 'hidden', timeout: 5000 });
  check(
    (await page.locator('[data-param-text="noise"]').isVisible()) && (await page.locator('[data-param-text="centering_factor"]').isHidden()),
    'the vicsek model shows its noise and hides the boids rules',
  );

  // 9. The header's steps per second is the real rate at a low speed.
  if (!(await page.evaluate(() => boidsViewer.server.running))) await page.keyboard.press('Space');
  await setSpeed(page, 4);
  await page.waitForTimeout(4500); // the measurement window (3 s) holds only the new speed
  const header = await page.locator('#stat-text').innerText();
  const perSecond = Number(/([\d.]+) steps\/s/.exec(header)?.[1]);
  check(perSecond > 3.5 && perSecond < 4.5, `the header shows the real rate at 4 steps/s (${header.replace(/\s+/g, ' ')})`);
  check(!/frame in/.test(header), 'at 4 steps/s every step is drawn, and the header says nothing of skipped steps');
  // Faster than the server sends frames (60 a second at most), the header says how many steps
  // there are to a frame.
  await setSpeed(page, 600);
  const skipping = () => /1 frame in (\d+) steps/.exec(document.getElementById('stat-text').innerText);
  await page.waitForFunction(skipping, null, { timeout: 10000 });
  const fast = await page.locator('#stat-text').innerText();
  const stepsPerFrame = Number(/1 frame in (\d+) steps/.exec(fast)[1]);
  check(stepsPerFrame >= 2, `at 600 steps/s the header says frames skip steps (${fast.replace(/\s+/g, ' ')})`);
  // At 1280 px every item of the header shows whole, the frame-skip note too: none runs past
  // the window or is cut off by the figures' box.
  await page.waitForTimeout(1100); // a stats update with the note at this width
  const cut = await page.evaluate(() => {
    const text = document.getElementById('stat-text');
    const edge = text.getBoundingClientRect().right + 0.5;
    const items = [...document.querySelectorAll('#topbar .brand, #topbar .transport > *, #stats, #stat-text > span')].filter((e) => e.getClientRects().length > 0);
    return {
      skip: Boolean(text.querySelector('.st-skip')),
      cut: items.filter((e) => {
        const r = e.getBoundingClientRect();
        return r.right > innerWidth + 0.5 || r.left < -0.5 || (text.contains(e) && r.right > edge);
      }).map((e) => e.textContent.trim() || e.id),
      overflow: text.scrollWidth - text.clientWidth,
    };
  });
  check(
    (await page.evaluate(() => innerWidth)) === 1280 && cut.skip && cut.cut.length === 0 && cut.overflow <= 0,
    `at 1280 px every header item shows, the frame-skip note too${cut.cut.length ? `; cut off: ${cut.cut.join(', ')}` : ''} (the figures overflow by ${cut.overflow} px)`,
  );
  await setSpeed(page, 4);

  // 10. On a torus (the vicsek preset) the ghosts are the neighbours the server says the boids
  // see across a seam, all of them beyond the world's edge.
  await page.click('#overlay-mode button[data-mode="all"]');
  await page.waitForFunction(() => boidsViewer.overlay?.ghosts > 0, null, { timeout: 10000 });
  const ghosts = await page.evaluate(() => boidsViewer.overlay);
  check(ghosts.ghostsOutside === ghosts.ghosts, `${ghosts.ghosts} ghosts, every one seen beyond the world's edge`);

  // 11. The couzin preset's camera follows its group, which drifts away from where it starts:
  // the view's centre goes with the group and keeps its boids on the canvas; with the world
  // camera, in as many steps, they have left it.
  await page.click('#overlay-mode button[data-mode="off"]');
  await page.selectOption('#preset', 'couzin');
  await page.waitForFunction(() => boidsViewer.server.preset === 'couzin' && boidsViewer.camera === 'follow', null, { timeout: 5000 });
  await setSpeed(page, 60);
  if (!(await page.evaluate(() => boidsViewer.server.running))) await page.keyboard.press('Space');
  const onCanvas = () => page.evaluate(() => {
    const r = document.getElementById('stage').getBoundingClientRect();
    const boids = boidsViewer.boidPositions().map(([x, y]) => boidsViewer.clientPosition(x, y));
    return boids.filter((p) => p.x >= r.left && p.x <= r.right && p.y >= r.top && p.y <= r.bottom).length / boids.length;
  });
  const drift = async () => {
    const start = await page.evaluate(() => ({ step: boidsViewer.frame.step, centre: boidsViewer.view.centre }));
    await page.waitForFunction((s) => boidsViewer.frame.step >= s + 480, start.step, { timeout: 30000 });
    await page.waitForTimeout(300); // the camera settles on the latest focus
    return { start, ...(await page.evaluate(() => ({ centre: boidsViewer.view.centre, focus: boidsViewer.metrics.focus.largest }))), onCanvas: await onCanvas() };
  };
  const followed = await drift();
  const travelled = Math.hypot(followed.centre.x - followed.start.centre.x, followed.centre.y - followed.start.centre.y);
  const behind = Math.hypot(followed.centre.x - followed.focus.x, followed.centre.y - followed.focus.y);
  check(
    travelled > 15 && behind < 0.25 * travelled && followed.onCanvas > 0.8,
    `the follow camera went ${travelled.toFixed(1)} units with the couzin group (its centre ${behind.toFixed(1)} from the group's) and keeps ${(100 * followed.onCanvas).toFixed(0)}% of the boids on the canvas after 480 steps`,
  );
  await setParam('camera', 'world');
  await page.waitForFunction(() => boidsViewer.camera === 'world', null, { timeout: 5000 });
  await page.keyboard.press('r');
  await page.waitForFunction(() => boidsViewer.frame.step < 100, null, { timeout: 5000 });
  const unfollowed = await drift();
  check(unfollowed.onCanvas < 0.2, `with the world camera ${(100 * unfollowed.onCanvas).toFixed(0)}% of the boids are still on the canvas after as many steps`);

  // 12. A flock in three dimensions: the panel's `dimensions` switches to it live, the page draws
  // it through the orbit camera, a drag turns the picture, the wheel zooms, and F resets the view.
  await page.selectOption('#preset', 'cornell');
  await page.waitForFunction(() => boidsViewer.server.preset === 'cornell' && boidsViewer.frame?.dimensions === 2, null, { timeout: 5000 });
  if (await page.evaluate(() => boidsViewer.server.running)) await page.keyboard.press('Space');
  await page.waitForFunction(() => !boidsViewer.server.running, null, { timeout: 5000 });
  // The control's section may be closed (a new flock draws the panel afresh): open it as a click would.
  const setDimensions = async (value) => {
    const box = page.locator('[data-param-text="dimensions"]');
    await box.evaluate((e) => { e.closest('details').open = true; });
    await box.scrollIntoViewIfNeeded();
    await box.fill(String(value));
    await box.press('Enter');
    await box.blur();
  };
  await setDimensions(3);
  await page.waitForFunction(() => boidsViewer.frame?.dimensions === 3 && boidsViewer.server.params.dimensions === 3, null, { timeout: 10000 });
  check(true, 'the dimensions control switches the flock to three dimensions, live');
  const settled = async () => {
    await page.waitForTimeout(400);
    return page.evaluate(() => boidsViewer.orbit);
  };
  const home = await settled();
  const first = await stagePicture(page);
  check(first.boids > 200, `the flock in 3D is drawn (${first.boids} pixels in the boids' colours)`);
  const stage = await page.locator('#stage').boundingBox();
  const [cx, cy] = [stage.x + stage.width / 2, stage.y + stage.height / 2];
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx + 220, cy + 60, { steps: 12 });
  await page.mouse.up();
  const turned = await settled();
  const second = await stagePicture(page);
  const turnedBy = await pictureDifference(page, first, second);
  check(
    turned.yaw !== home.yaw && turned.pitch !== home.pitch && turnedBy > 0.002,
    `a drag orbits the camera (yaw ${home.yaw.toFixed(2)} -> ${turned.yaw.toFixed(2)}) and the picture changes (${(100 * turnedBy).toFixed(2)}% of the pixels)`,
  );
  await page.mouse.move(cx, cy);
  await page.mouse.wheel(0, -500);
  const zoomed = await settled();
  const third = await stagePicture(page);
  const zoomedBy = await pictureDifference(page, second, third);
  check(
    zoomed.distance < 0.8 * turned.distance && zoomedBy > 0.002,
    `the wheel zooms in (distance ${turned.distance.toFixed(0)} -> ${zoomed.distance.toFixed(0)}; ${(100 * zoomedBy).toFixed(2)}% of the pixels change)`,
  );
  await page.keyboard.press('f');
  const reset = await settled();
  const fourth = await stagePicture(page);
  const resetBy = await pictureDifference(page, first, fourth);
  check(
    ['yaw', 'pitch', 'distance'].every((k) => Math.abs(reset[k] - home[k]) < 1e-9) && resetBy < 0.001,
    `F resets the view to where it started (${(100 * resetBy).toFixed(3)}% of the pixels differ from the first picture)`,
  );
  // The camera's aim in 3D, on a camera of its own with a stand-in orbit: fit frames the flock of
  // the frame on screen, and moves with it exactly however far it flew since the last frame;
  // follow, with several flocks, carries the largest one's centre forward from the last metrics
  // message to the step on screen along every axis, z too.
  const aims = await page.evaluate(async () => {
    const { createCamera } = await import('./js/camera.js');
    const orbit = { target: { x: 0, y: 0, z: 0 }, distance: 100, distanceToShow: (reach) => 2 * reach, reset() {} };
    const canvas = { width: 800, height: 600 };
    const camera = createCamera({ view: {}, orbit, canvas: () => canvas, redraw() {} });
    const world = { x: 0, y: 0, z: 0, w: 400, h: 400, d: 400 };
    const quant = { x: 0, y: 0, z: 0, w: 400, h: 400, d: 400 };
    // A version 3 frame at `step` of boids at `points` ([x, y, z] each, on the quantisation grid).
    const frameOf = (step, points) => {
      const boids = new Uint8Array(10 * points.length);
      points.forEach((p, i) => p.forEach((v, a) => {
        const q = Math.round((v / 400) * 65535);
        [boids[10 * i + 2 * a], boids[10 * i + 2 * a + 1]] = [q & 255, q >> 8];
      }));
      return { world, quant, dimensions: 3, torus: false, step, count: points.length, boids };
    };
    const show = (frame, mode) => camera.frame(frame, { camera: mode });
    const settle = (from) => { for (let t = from; t <= from + 5000; t += 1000) camera.update(t); };
    const pair = (z) => [[100, 150, z - 10], [140, 150, z + 10]];
    show(frameOf(0, pair(200)), 'fit');
    settle(0);
    const framed = { ...orbit.target, distance: orbit.distance };
    show(frameOf(60, pair(260)), 'fit');
    camera.update(5016);
    const flown = { ...orbit.target };
    const flockAt = (x, y, z) => ({ x, y, z, w: 10, h: 5, d: 10 });
    camera.start({ camera: 'follow' });
    camera.measured({ step: 0, flocks: 2, focus: { whole: flockAt(100, 150, 200), largest: flockAt(100, 150, 200) } });
    camera.measured({ step: 10, flocks: 2, focus: { whole: flockAt(110, 150, 210), largest: flockAt(110, 150, 210) } });
    show(frameOf(30, pair(230)), 'follow');
    settle(10000);
    return { framed, flown, followed: { ...orbit.target } };
  });
  const off = (p, x, y, z) => Math.hypot(p.x - x, p.y - y, p.z - z);
  const fitReach = Math.hypot(20, 0, 10) * 1.25 + 0.03 * 400;
  check(
    off(aims.framed, 120, 150, 200) < 0.01 && Math.abs(aims.framed.distance - 2 * fitReach) < 0.01,
    `the fit camera frames the flock of the frame on screen (centre ${['x', 'y', 'z'].map((a) => aims.framed[a].toFixed(2))}; 120, 150, 200 expected)`,
  );
  check(
    off(aims.flown, 120, 150, 260) < 0.01,
    `the fit camera moves with a flock that flew 60 units since the last frame in one update of 16 ms (z ${aims.flown.z.toFixed(2)}; 260 expected)`,
  );
  check(
    off(aims.followed, 130, 150, 230) < 0.1,
    `the follow camera carries the largest flock's centre forward in x, y and z to the step on screen (${['x', 'y', 'z'].map((a) => aims.followed[a].toFixed(2))}; 130, 150, 230 expected)`,
  );
  // A crowded flock is drawn translucent, so its picture shows where it is dense, by each
  // renderer (canvas 2D, and WebGL2 where the browser has it) on a canvas of its own. In 3D, of
  // two thin sheets of 6,000 boids side by side in one picture, the one seen edge on is brighter
  // than the one seen face on (at the 90th percentile 2.6 times with canvas 2D and 1.7 with
  // WebGL2; 1.3 and 1.1 with opaque darts). Flat, of two squares of boids, the one holding four
  // times as many is brighter, with small darts (stamped sprites) and large ones (filled paths),
  // where opaque darts fill both alike. A sparse flock stays opaque.
  const crowd = await page.evaluate(async () => {
    const { createCanvas2DRenderer } = await import('./js/canvas2d.js');
    const { createWebGLRenderer } = await import('./js/webgl.js');
    const { crowdOpacity3D } = await import('./js/crowd.js');
    const { Orbit } = await import('./js/orbit.js');
    const { View } = await import('./js/view.js');
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const orbit = new Orbit();
    [orbit.yaw, orbit.pitch, orbit.distance] = [0, 0, 110];
    orbit.target = { x: 50, y: 50, z: 50 };
    const view = new View();
    // A frame of boids at `points` ([x, y] or [x, y, z] each) in `world`.
    const frameOf = (world, points) => {
      const three = points[0].length === 3;
      const stride = three ? 10 : 6;
      const boids = new Uint8Array(stride * points.length);
      points.forEach((p, i) => p.forEach((v, a) => {
        const q = Math.round((v / [world.w, world.h, world.d][a]) * 65535);
        [boids[stride * i + 2 * a], boids[stride * i + 2 * a + 1]] = [q & 255, q >> 8];
      }));
      return { world, quant: world, dimensions: three ? 3 : 2, count: points.length, boids, predators: new Uint8Array(0), predatorCount: 0 };
    };
    const world3 = { x: 0, y: 0, z: 0, w: 100, h: 100, d: 100 };
    // Seen along z: the sheet thin in z (left) face on, the sheet thin in y (right) edge on.
    const faceOn = Array.from({ length: 6000 }, () => [15 + 30 * random(), 35 + 30 * random(), 50 + random()]);
    const edgeOn = Array.from({ length: 6000 }, () => [55 + 30 * random(), 50 + random(), 35 + 30 * random()]);
    const sheets = frameOf(world3, [...faceOn, ...edgeOn]);
    const flatWorld = { x: 0, y: 0, w: 400, h: 200 };
    const square = (count, x0, side) => Array.from({ length: count }, () => [x0 + side * random(), 100 - side / 2 + side * random()]);
    const squares = (count, side) => frameOf(flatWorld, [...square(4 * count, 100 - side / 2, side), ...square(count, 300 - side / 2, side)]);
    // The 90th percentile of the brightness of the flock's pixels (those unlike the background)
    // in the left and the right half of `frame` drawn by `renderer` with boids of `radius`.
    const scratch = document.createElement('canvas');
    const halves = (renderer, frame, radius) => {
      renderer.draw(frame, false, radius, []);
      const { width, height } = renderer.canvas;
      [scratch.width, scratch.height] = [width, height];
      const ctx = scratch.getContext('2d');
      ctx.drawImage(renderer.canvas, 0, 0);
      const data = ctx.getImageData(0, 0, width, height).data;
      const background = [data[0], data[1], data[2]];
      const lit = [[], []];
      for (let k = 0; k < data.length; k += 4) {
        const off = Math.abs(data[k] - background[0]) + Math.abs(data[k + 1] - background[1]) + Math.abs(data[k + 2] - background[2]);
        if (off > 6) lit[(k / 4) % width < width / 2 ? 0 : 1].push(data[k] + data[k + 1] + data[k + 2]);
      }
      return lit.map((sums) => sums.sort((a, b) => a - b)[Math.floor(0.9 * sums.length)]);
    };
    const canvasOf = (width, height) => Object.assign(document.createElement('canvas'), { width, height });
    const renderers = [
      ['canvas 2D', (width, height) => createCanvas2DRenderer(canvasOf(width, height), view, orbit)],
      ['WebGL2', (width, height) => createWebGLRenderer(canvasOf(width, height), view, true, orbit)],
    ].filter(([, make]) => make(8, 8) !== null);
    const results = renderers.map(([name, make]) => ({
      name,
      sheets: halves(make(400, 300), sheets, 0.2),
      sprites: halves(make(400, 200), squares(2000, 60), 1.5),
      paths: halves(make(400, 200), squares(300, 80), 4),
    }));
    const sparse = frameOf(world3, Array.from({ length: 50 }, () => [100 * random(), 100 * random(), 100 * random()]));
    const lensCanvas = canvasOf(400, 300);
    const lens = orbit.lens(lensCanvas);
    return {
      results,
      sheetsOpacity: crowdOpacity3D(sheets, orbit, lens, lensCanvas, 0.2),
      sparseOpacity: crowdOpacity3D(sparse, orbit, lens, lensCanvas, 0.2),
    };
  });
  check(
    crowd.sparseOpacity === 1 && crowd.sheetsOpacity < 0.5,
    `a crowded flock is drawn translucent (opacity ${crowd.sheetsOpacity.toFixed(3)}), a sparse one opaque (${crowd.sparseOpacity})`,
  );
  check(
    crowd.results.length === (process.env.CI === 'true' ? 2 : crowd.results.length) && crowd.results.length > 0,
    `the crowd is checked with ${crowd.results.map((r) => r.name).join(' and ')}`,
  );
  for (const { name, sheets, sprites, paths } of crowd.results) {
    check(
      sheets[1] > 1.45 * sheets[0],
      `${name}: a thin sheet of boids seen edge on is brighter than one seen face on (90th percentile ${sheets[1]} against ${sheets[0]})`,
    );
    for (const [how, [dense, sparse]] of Object.entries({ sprites, paths })) {
      check(
        dense > 1.3 * sparse,
        `${name}: a crowded flat flock (${how === 'sprites' ? 'small' : 'large'} darts) is brighter where denser (90th percentile ${dense} against ${sparse})`,
      );
    }
  }
  // The hover overlay in 3D: the boid drawn under the mouse gets its visual sphere and rule vectors.
  await page.click('#overlay-mode button[data-mode="hover"]');
  const under = await page.evaluate(() => {
    const r = document.getElementById('stage').getBoundingClientRect();
    const inner = (p) => p && p.x > r.left + 150 && p.x < r.right - 150 && p.y > r.top + 150 && p.y < r.bottom - 150;
    for (let i = 0; i < boidsViewer.frame.count; i++) {
      const p = boidsViewer.boidClientPosition(i);
      if (inner(p)) return p;
    }
    return null;
  });
  check(under !== null, 'a boid of the 3D flock is in view to hover over');
  await page.mouse.move(under.x, under.y);
  await page.waitForFunction(() => boidsViewer.overlay?.hover && boidsViewer.overlay.records === 1, null, { timeout: 10000 });
  const hovered = await pixelStats(page);
  check(
    hovered.cyan > 100 && hovered.red + hovered.green + hovered.blue > 0,
    `the hovered boid's visual sphere (${hovered.cyan} cyan px) and rule vectors (${hovered.red}/${hovered.green}/${hovered.blue} px) are drawn in 3D`,
  );
  check(await page.locator('#info').isVisible(), 'the boid under the mouse is described in 3D');
  await page.click('#overlay-mode button[data-mode="off"]');

  // 13. The world in three dimensions, edited with the same tool bar: a click places a sphere or
  // a predator where the pointer's line of sight meets the plane through the camera's target
  // facing the camera; the frames and parameters hold them with z, they are drawn, and they move
  // on screen as the camera orbits.
  await page.mouse.move(stage.x + 5, stage.y + stage.height - 5);
  await page.keyboard.press('f');
  const bare = await settled().then(() => stagePicture(page));
  const bareStats = await pixelStats(page);
  const box3 = await page.evaluate(() => boidsViewer.frame.world);
  const middle = [box3.x + box3.w / 2, box3.y + box3.h / 2, box3.z + box3.d / 2];
  await page.keyboard.press('c');
  check(
    (await page.locator('#tools button:has-text("Sphere")').isVisible()) && (await page.locator('#tools button:has-text("Wall")').isHidden()),
    'in 3D the circle tool places spheres, and the wall tool is hidden',
  );
  await page.mouse.click(cx, cy);
  await obstacleCount(1);
  const [sphere] = await obstacles();
  const range3 = (await serverParams()).visual_range;
  check(
    sphere.shape === 'sphere' && sphere.center.length === 3 && Math.hypot(...sphere.center.map((v, k) => v - middle[k])) < 2 && Math.abs(sphere.radius - 1.5 * range3) < 1e-3 * range3,
    `a click in the middle of the stage places a sphere of 1.5 visual ranges at the world's centre (${JSON.stringify(sphere)})`,
  );
  await page.waitForTimeout(300);
  const withSphere = await stagePicture(page);
  const sphereBy = await pictureDifference(page, bare, withSphere);
  check(sphereBy > 0.002, `the sphere is drawn (${(100 * sphereBy).toFixed(2)}% of the pixels change)`);
  await page.keyboard.press('p');
  const [hx, hy] = [cx + 0.12 * stage.width, cy - 0.1 * stage.height];
  await page.mouse.click(hx, hy);
  await page.waitForFunction(() => boidsViewer.predators.length === 1, null, { timeout: 5000 });
  const [hunter3] = await page.evaluate(() => boidsViewer.predators);
  const hunterAt = await page.evaluate(({ x, y, z }) => boidsViewer.clientPosition(x, y, z), hunter3);
  const state3 = await (await fetch(new URL('api/state', base))).json();
  check(
    (await serverParams()).predator_count === 1 && Number.isFinite(hunter3.z) && state3.predators.length === 1 && state3.predators[0].length === 6 &&
      Math.hypot(hunterAt.x - hx, hunterAt.y - hy) < 3,
    `a click with the predator tool places a predator in 3D under the pointer (${[hunter3.x, hunter3.y, hunter3.z].map((v) => v.toFixed(1))}, drawn ${Math.hypot(hunterAt.x - hx, hunterAt.y - hy).toFixed(1)} px from the click); the state holds it with z`,
  );
  const placedEvent = (await (await fetch(new URL('api/events', base))).json()).events.filter((e) => e.kind === 'place_predator').pop();
  check(Number.isFinite(placedEvent?.z), `the event log records the predator's place with z (${JSON.stringify(placedEvent)})`);
  await page.keyboard.press('Escape');
  await page.mouse.move(stage.x + 5, stage.y + stage.height - 5);
  await page.waitForTimeout(300);
  const hunted = await pixelStats(page);
  const orangeOff = (stats, at) => Math.hypot(stats.orangeAt.x - (at.x - stage.x), stats.orangeAt.y - (at.y - stage.y));
  check(
    hunted.orange > bareStats.orange + 20 && orangeOff(hunted, hunterAt) < 15,
    `the predator is drawn in orange where it is (${hunted.orange} px, ${bareStats.orange} without; their centre ${orangeOff(hunted, hunterAt).toFixed(1)} px from it)`,
  );
  const beforeOrbit = await stagePicture(page);
  await page.mouse.move(cx, cy + 0.3 * stage.height);
  await page.mouse.down();
  await page.mouse.move(cx - 200, cy + 0.3 * stage.height - 50, { steps: 12 });
  await page.mouse.up();
  await settled();
  const afterOrbit = await stagePicture(page);
  const orbited = await pixelStats(page);
  const hunterNow = await page.evaluate(({ x, y, z }) => boidsViewer.clientPosition(x, y, z), hunter3);
  const sphereNow = await page.evaluate((c) => boidsViewer.clientPosition(...c), sphere.center);
  const orangeMoved = Math.hypot(orbited.orangeAt.x - hunted.orangeAt.x, orbited.orangeAt.y - hunted.orangeAt.y);
  const orbitedBy = await pictureDifference(page, beforeOrbit, afterOrbit);
  check(
    orangeMoved > 20 && orangeOff(orbited, hunterNow) < 15 && orbitedBy > 0.002,
    `orbiting moves the predator on screen (its orange ${orangeMoved.toFixed(0)} px, ${orangeOff(orbited, hunterNow).toFixed(1)} px from where it is now; ${(100 * orbitedBy).toFixed(2)}% of the pixels change)`,
  );
  if (screenshot) await page.screenshot({ path: screenshot.replace(/\.png$/, '-3d.png') });
  // The mouse as a predator follows the pointer on the same plane.
  await page.keyboard.press('m');
  const [mx, my] = [cx - 0.1 * stage.width, cy + 0.05 * stage.height];
  await page.mouse.move(mx, my, { steps: 4 });
  await page.waitForFunction(() => boidsViewer.predators.some((p) => p.pointer), null, { timeout: 5000 });
  await page.waitForTimeout(300);
  const mouse3 = await page.evaluate(() => boidsViewer.predators.find((p) => p.pointer));
  const mouseAt = await page.evaluate(({ x, y, z }) => boidsViewer.clientPosition(x, y, z), mouse3);
  check(
    Number.isFinite(mouse3.z) && Math.hypot(mouseAt.x - mx, mouseAt.y - my) < 3,
    `the mouse's predator follows the pointer in 3D (drawn ${Math.hypot(mouseAt.x - mx, mouseAt.y - my).toFixed(1)} px from it)`,
  );
  await page.keyboard.press('m');
  await page.waitForFunction(() => !boidsViewer.predators.some((p) => p.pointer), null, { timeout: 5000 });
  // The move tool drags the sphere on the plane through it facing the camera: it stays under the
  // pointer.
  await page.keyboard.press('v');
  await page.mouse.move(sphereNow.x, sphereNow.y);
  await page.mouse.down();
  await page.mouse.move(sphereNow.x + 60, sphereNow.y + 25, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction((x) => boidsViewer.server.params.obstacles[0].center[0] !== x, sphere.center[0], { timeout: 5000 });
  const [dragged3] = await obstacles();
  const draggedAt = await page.evaluate((c) => boidsViewer.clientPosition(...c), dragged3.center);
  const draggedOff = Math.hypot(draggedAt.x - sphereNow.x - 60, draggedAt.y - sphereNow.y - 25);
  check(
    draggedOff < 2 && dragged3.radius === sphere.radius,
    `the move tool drags the sphere across the view, under the pointer (${draggedOff.toFixed(2)} px from it)`,
  );
  // Picked along the line of sight: the delete tool removes the sphere clicked, Clear the rest.
  await page.keyboard.press('x');
  await page.mouse.click(draggedAt.x, draggedAt.y);
  await obstacleCount(0);
  check(true, 'a click on the sphere with the delete tool deletes it, in 3D');
  await page.keyboard.press('a');
  await page.mouse.click(cx - 0.15 * stage.width, cy);
  await page.waitForFunction(() => boidsViewer.server.params.attractors.length === 1, null, { timeout: 5000 });
  const [goal3] = (await serverParams()).attractors;
  check(goal3.length === 3, `a click with the attractor tool places an attractor in 3D (${goal3})`);
  await page.click('#tools button:has-text("Clear")');
  await page.waitForFunction(() => {
    const p = boidsViewer.server.params;
    return p.obstacles.length === 0 && p.attractors.length === 0 && p.predator_count === 0 && boidsViewer.predators.length === 0;
  }, null, { timeout: 5000 });
  check(true, 'Clear empties the world in 3D');
  await page.keyboard.press('Escape');
  await setDimensions(2);
  await page.waitForFunction(() => boidsViewer.frame?.dimensions === 2, null, { timeout: 10000 });
  check(true, 'and back to two dimensions');

  // 14. A reset clears the Order card until the new flock is measured: at no animation frame
  // does it hold the figures of the flock that is gone.
  if (!(await page.evaluate(() => boidsViewer.server.running))) await page.click('#play');
  await page.waitForFunction(() => boidsViewer.metrics && boidsViewer.metrics.run === boidsViewer.server.run, null, { timeout: 10000 });
  const gone = await page.evaluate(() => new Promise((resolve) => {
    const seen = { gone: 0, cleared: 0 };
    const run = boidsViewer.server.run;
    const until = performance.now() + 2000;
    document.getElementById('reset').click();
    (function look() {
      const [m, s] = [boidsViewer.metrics, boidsViewer.server];
      if (m && m.run !== s.run) seen.gone++;
      if (s.run !== run && !m && document.getElementById('pol-value').textContent === '–') seen.cleared++;
      if (performance.now() < until) requestAnimationFrame(look);
      else resolve(seen);
    })();
  }));
  await page.waitForFunction(() => boidsViewer.metrics?.run === boidsViewer.server.run, null, { timeout: 10000 });
  check(gone.gone === 0, `a reset clears the Order card until the new flock is measured (cleared for ${gone.cleared} frames)`);

  // 15. Record makes a video of the stage that the browser downloads on Stop, with a blinking
  // red dot and the time elapsed on the button meanwhile.
  await page.click('#record');
  await page.waitForFunction(() => /^\d:\d\d Stop$/.test(document.getElementById('rec-label').textContent), null, { timeout: 5000 });
  check(await page.locator('#rec-indicator').isVisible(), 'while recording, a red dot and the time show on the button');
  await page.waitForTimeout(1500);
  const [video] = await Promise.all([page.waitForEvent('download', { timeout: 15000 }), page.click('#record')]);
  const videoBytes = statSync(await video.path()).size;
  check(
    /^boids-.*\.(webm|mp4)$/.test(video.suggestedFilename()) && videoBytes > 1000,
    `Stop downloads the video (${video.suggestedFilename()}, ${videoBytes} bytes)`,
  );
  check(
    (await page.locator('#rec-indicator').isHidden()) && (await page.locator('#rec-label').innerText()) === 'Record',
    'and the button is Record again',
  );
  // The WebM says how long it is (MediaRecorder writes none, and players cannot seek without
  // it): its Segment's Info holds a Duration, as long as the recording (1.5 s and more).
  if (video.suggestedFilename().endsWith('.webm')) {
    const recorded = webmInfo(readFileSync(await video.path()));
    check(
      recorded.duration > 1 && recorded.duration < 30,
      `the WebM's Info has its Duration (${recorded.duration} s; the Info's elements: ${recorded.info.join(', ')})`,
    );
  }
  // webm.js writes it, checked on WebMs made here: one with known sizes, a SeekHead and Cues
  // (their positions move with what they point at), and a live one of unknown sizes that has a
  // Duration already (overwritten in place); what is not a WebM comes back as it was.
  const patched = await page.evaluate(async () => {
    const { withDuration, webmDuration, webmFramesDuration } = await import('./js/webm.js');
    const long = (n) => [0x01, 0, 0, 0, (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
    const vint = (n) => (n < 127 ? [0x80 | n] : long(n));
    const element = (id, body, unknown = false, eight = false) => [...id, ...(unknown ? [0x01, 255, 255, 255, 255, 255, 255, 255] : eight ? long(body.length) : vint(body.length)), ...body];
    const uint = (id, v, bytes = 1) => element(id, Array.from({ length: bytes }, (_, k) => (v >>> (8 * (bytes - 1 - k))) & 255));
    const float = (id, v) => {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, v);
      return element(id, [...b]);
    };
    const header = element([0x1a, 0x45, 0xdf, 0xa3], uint([0x42, 0x82], 0x77));
    const block = (offset) => element([0xa3], [0x81, (offset >> 8) & 255, offset & 255, 0x80, 1, 2, 3]);
    const cluster = (time, offsets, unknown) => element([0x1f, 0x43, 0xb6, 0x75], [...uint([0xe7], time, 2), ...offsets.flatMap(block)], unknown);
    // Known sizes: SeekHead -> Cues, Info, a Cluster at 1 s of frames 0, 40, 80 ms, Cues -> Cluster.
    const info = element([0x15, 0x49, 0xa9, 0x66], uint([0x2a, 0xd7, 0xb1], 1e6, 3));
    const clusterBytes = cluster(1000, [0, 40, 80], false);
    const seekHeadOf = (cuesAt) => element([0x11, 0x4d, 0x9b, 0x74], element([0x4d, 0xbb], [...element([0x53, 0xab], [0x1c, 0x53, 0xbb, 0x6b]), ...uint([0x53, 0xac], cuesAt, 2)]));
    const seekLength = seekHeadOf(0).length;
    const clusterAt = seekLength + info.length;
    const cuesAt = clusterAt + clusterBytes.length;
    const cues = element([0x1c, 0x53, 0xbb, 0x6b], element([0xbb], [...uint([0xb3], 1000, 2), ...element([0xb7], [...uint([0xf7], 1), ...uint([0xf1], clusterAt, 2)])]));
    const body = [...seekHeadOf(cuesAt), ...info, ...clusterBytes, ...cues];
    const known = new Uint8Array([...header, ...element([0x18, 0x53, 0x80, 0x67], body, false, true)]);
    const out = withDuration(known);
    // Where the Segment's data starts, and what the moved positions point at now.
    const segmentData = header.length + 4 + 8;
    const idAt = (bytes, at) => [...bytes.subarray(at, at + 4)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const positions = [];
    for (let i = 0; i + 2 < out.length; i++) {
      if ((out[i] === 0x53 && out[i + 1] === 0xac && out[i + 2] === 0x82) || (out[i] === 0xf1 && out[i + 1] === 0x82)) {
        const at = out[i] === 0xf1 ? i + 2 : i + 3;
        positions.push(idAt(out, segmentData + ((out[at] << 8) | out[at + 1])));
      }
    }
    const segmentSize = Number(new DataView(out.buffer).getBigUint64(header.length + 4) & 0xffffffffn);
    // Live: unknown sizes, a Duration of 5 ms already, two Clusters (frames to 2.1 s).
    const liveInfo = element([0x15, 0x49, 0xa9, 0x66], [...uint([0x2a, 0xd7, 0xb1], 1e6, 3), ...float([0x44, 0x89], 5)]);
    const live = new Uint8Array([...header, ...element([0x18, 0x53, 0x80, 0x67], [...liveInfo, ...cluster(0, [0, 50, 100], true), ...cluster(2000, [0, 50], true)], true)]);
    const notWebm = new Uint8Array([1, 2, 3, 4, 5]);
    return {
      frames: webmFramesDuration(known),
      duration: webmDuration(out),
      before: webmDuration(known),
      grew: out.length - known.length,
      positions,
      segmentSize: segmentSize === out.length - segmentData,
      live: webmDuration(withDuration(live)),
      liveLength: withDuration(live).length === live.length,
      notWebm: withDuration(notWebm) === notWebm,
    };
  });
  check(
    patched.before === null && patched.frames === 1120 && patched.duration === 1120 && patched.grew === 11 && patched.segmentSize &&
      patched.positions.join() === '1c53bb6b,1f43b675' && patched.live === 2100 && patched.liveLength && patched.notWebm,
    `webm.js writes the Duration into a WebM's Info, moving the positions past it (${JSON.stringify(patched)})`,
  );

  // 16. Perched boids are drawn sitting on the ground line, however deep below it they landed:
  // the pixels in their colour near the line all lie on or above its row.
  await page.selectOption('#preset', 'perching');
  await page.waitForFunction(() => boidsViewer.server.preset === 'perching' && boidsViewer.frame?.dimensions === 2, null, { timeout: 10000 });
  if (!(await page.evaluate(() => boidsViewer.server.running))) await page.keyboard.press('Space');
  await setSpeed(page, 300);
  await page.waitForFunction(() => boidsViewer.frame.step > 600, null, { timeout: 30000 });
  await page.keyboard.press('Space');
  await page.waitForFunction(() => boidsViewer.frame && !boidsViewer.frame.running, null, { timeout: 5000 });
  await page.waitForTimeout(300);
  const perchShot = await bareStage(page);
  const perch = await page.evaluate(async (b64) => {
    const { d, c } = await decodePng(b64);
    const near = (i, rgb, tol) => rgb.every((v, k) => Math.abs(d[i + k] - v) <= tol);
    const groundPerRow = new Array(c.height).fill(0);
    const perchedPerRow = new Array(c.height).fill(0);
    for (let i = 0; i < d.length; i += 4) {
      const y = Math.floor(i / 4 / c.width);
      if (near(i, [100, 137, 85], 20)) groundPerRow[y]++;
      if (near(i, [150, 135, 95], 12)) perchedPerRow[y]++;
    }
    const ground = groundPerRow.indexOf(Math.max(...groundPerRow));
    // Perched pixels by their offset (CSS px) from the line's row, within 14 px of it.
    const near14 = Math.round(14 * devicePixelRatio);
    const offsets = [];
    for (let y = Math.max(0, ground - near14); y <= Math.min(c.height - 1, ground + near14); y++) {
      if (perchedPerRow[y] > 0) offsets.push([(y - ground) / devicePixelRatio, perchedPerRow[y]]);
    }
    const count = offsets.reduce((n, [, k]) => n + k, 0);
    return { ground, count, lowest: Math.max(...offsets.map(([dy]) => dy)) };
  }, perchShot);
  check(
    perch.count > 0 && perch.lowest <= 0,
    `perched boids sit on the ground line, not below it (${perch.count} px, the lowest ${perch.lowest} px from the line)`,
  );

  // 18. After a preset switch nothing of the old world is drawn: with a predator placed in
  // cornell, the state of the murmuration flock (3D) arrives before its first frame (held back
  // here, in a second tab), and the stage the mouse moves over meanwhile shows neither the old
  // flock nor its world's box, margin or predator; then the new flock is drawn.
  await page.selectOption('#preset', 'cornell');
  await page.waitForFunction(() => boidsViewer.server.preset === 'cornell' && boidsViewer.frame?.dimensions === 2, null, { timeout: 20000 });
  const tab = await context.newPage();
  let holdFrames = false;
  const heldFrames = [];
  let releaseFrames = () => {};
  await tab.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => (holdFrames && typeof m !== 'string' ? heldFrames.push(m) : ws.send(m)));
    releaseFrames = () => {
      holdFrames = false;
      for (const m of heldFrames.splice(0)) ws.send(m);
    };
  });
  await tab.goto(page.url());
  await tab.waitForFunction(() => window.boidsViewer?.framesDrawn > 0 && boidsViewer.server?.preset === 'cornell' && boidsViewer.frame?.dimensions === 2, null, { timeout: 20000 });
  const tabWorld = await tab.evaluate(() => boidsViewer.frame.world);
  const tabCentre = await tab.evaluate(([x, y]) => boidsViewer.clientPosition(x, y), [tabWorld.x + tabWorld.w / 2, tabWorld.y + tabWorld.h / 2]);
  await tab.keyboard.press('p');
  await tab.mouse.click(tabCentre.x, tabCentre.y);
  await tab.waitForFunction(() => boidsViewer.predators.length === 1, null, { timeout: 5000 });
  await tab.keyboard.press('Escape');
  await tab.waitForTimeout(300);
  // The pixels of the stage unlike its background (its corner).
  const litPixels = async () => {
    const png = await bareStage(tab);
    return tab.evaluate(async (b64) => {
      const { d } = await decodePng(b64);
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 30) n++;
      return n;
    }, png);
  };
  const [oldLit, oldStats] = [await litPixels(), await pixelStats(tab)];
  holdFrames = true;
  await tab.selectOption('#preset', 'murmuration');
  await tab.waitForFunction(() => boidsViewer.server.preset === 'murmuration' && boidsViewer.server.params.dimensions === 3, null, { timeout: 10000 });
  for (let i = 0; i < 8; i++) {
    await tab.mouse.move(tabCentre.x + 6 * i, tabCentre.y + 4 * i);
    await tab.waitForTimeout(30);
  }
  await tab.waitForTimeout(300);
  const [staleLit, staleStats, staleFrame] = [await litPixels(), await pixelStats(tab), await tab.evaluate(() => boidsViewer.frame.dimensions)];
  check(
    staleFrame === 2 && heldFrames.length > 0 && oldLit > 200 && oldStats.orange > 20 && staleLit === 0 && staleStats.orange === 0,
    `after a switch to murmuration, before its first frame, nothing of the old flock and world is drawn (${staleLit} px unlike the background, ${staleStats.orange} orange; ${oldLit} and ${oldStats.orange} before)`,
  );
  releaseFrames();
  await tab.waitForFunction(() => boidsViewer.frame.dimensions === 3, null, { timeout: 20000 });
  await tab.waitForTimeout(400);
  const newFlock = await stagePicture(tab);
  check(newFlock.boids > 200, `then the murmuration flock is drawn (${newFlock.boids} px in the boids' colours)`);
  await tab.close();
  await page.selectOption('#preset', 'cornell');
  await page.waitForFunction(() => boidsViewer.server.preset === 'cornell' && boidsViewer.frame?.dimensions === 2, null, { timeout: 20000 });

  if (screenshot) {
    await page.click('#overlay-mode button[data-mode="all"]');
    await page.click('#play');
    await page.waitForTimeout(1500);
    await page.screenshot({ path: screenshot });
    console.log(`# screenshot ${screenshot}`);
  }
  check(errors.length === 0, `no errors in the page${errors.length ? `: ${errors.join('; ')}` : ''}`);
} catch (e) {
  failed = true;
  console.error(e.message);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
