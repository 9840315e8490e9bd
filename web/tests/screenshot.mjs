// The guide's picture of the viewer (docs/src/figures/viewer.png), made by docs/figures.sh:
//
//   node screenshot.mjs http://127.0.0.1:PORT/ OUT.png
//
// Opens the page in headless chromium at 1280 x 800, lets the flock run for a few seconds with
// every debug overlay on, and saves the whole page. BOIDS_CHROMIUM names the browser (default
// /usr/bin/chromium), as for the browser test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base, out] = process.argv.slice(2);
if (!base || !out) {
  console.error('usage: node screenshot.mjs http://127.0.0.1:PORT/ OUT.png');
  process.exit(2);
}
const userDataDir = mkdtempSync(join(tmpdir(), 'boids-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.BOIDS_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(base);
  await page.waitForFunction(() => window.boidsViewer?.framesDrawn > 0, null, { timeout: 20000 });
  await page.click('#overlay-mode button[data-mode="all"]');
  await page.keyboard.press('Space'); // start the flock, which the server began paused
  await page.waitForTimeout(6000);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
