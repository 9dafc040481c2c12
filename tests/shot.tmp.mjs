import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--allow-file-access-from-files'] });
for (const lang of (process.argv[2] || 'en,es').split(',')) {
  const ctx = await b.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const p = await ctx.newPage();
  p.on('pageerror', (e) => console.log('pageerror', e.message));
  await p.goto(pathToFileURL('/work/wt/induction/dist/index.html').href + `#lang=${lang}`);
  for (let k = 0; k < 60; k += 1) {
    try { await p.waitForSelector('hw-induction[data-ready] #induction-run:not([disabled])', { timeout: 2000 }); break; } catch { await p.evaluate(() => document.querySelector('#induction').scrollIntoView()); }
  }
  await p.click('#induction-run');
  await p.waitForSelector('hw-induction[data-done]', { state: 'attached', timeout: 300000 });
  await p.click('[data-testid="induction-switch"][data-model="deep"][data-index="1"]');
  await p.fill('#induction-probe', '3 1 4 1 5 9 2 6 1 4 1 5 X');
  await p.waitForTimeout(1500);
  for (const w of [1280, 390]) {
    await p.setViewportSize({ width: w, height: 900 });
    await p.waitForTimeout(800);
    await p.locator('#induction').screenshot({ path: `/tmp/ind-${lang}-${w}.png` });
    const box = await p.locator('#induction').boundingBox();
    const sy = await p.evaluate(() => window.scrollY);
    for (let k = 0; k < 4; k += 1) {
      await p.screenshot({ path: `/tmp/ind-${lang}-${w}-${k}.png`, fullPage: true, clip: { x: box.x, y: box.y + sy + k * 1400, width: box.width, height: 1400 } });
    }
  }
  await ctx.close();
}
await b.close();
