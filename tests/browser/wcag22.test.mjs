// WCAG 2.2 criteria that axe does not check, each a named test that web/ACCESSIBILITY.md cites:
//   - 1.4.10 reflow, 1.4.12 text spacing, 1.1.1 text alternatives, 3.1.2 language of parts, 4.1.3
//     status messages: the
//     lesson at 320 px with 20 tokens (canvas heatmaps), its training, heads-needed and sentence sections
//     drawn;
//   - 2.5.8 target size and 2.5.7 dragging movements: the lesson at 1280 px, every pointer target
//     at least 24 × 24 px or spaced as the criterion allows; the training's timeline moved by one
//     click on its track and by the keyboard (no drag needed); 2.5.3 label in name; 1.4.11 focus
//     indicators and fields' edges at 3:1 against what is behind them (light theme); and (2.1.1)
//     the keyboard's path through the training section's and "How many heads"' controls;
//   - 2.1.2 no keyboard trap: a course page with a sandboxed iframe embed between two buttons,
//     Tab goes into the frame, through its controls and out; Shift+Tab back the same way.
// One page load per test.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENGINE, openPage, reachTraining, serveDist, settle, shareBrowser, until, withPage, DESKTOP } from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

// ---- in the page ---------------------------------------------------------------------------------

/** In the page: how far the document scrolls sideways, and the widest element that makes it. */
function sidewaysOverflow() {
  const width = document.documentElement.clientWidth;
  const over = document.documentElement.scrollWidth - width;
  const widest = [...document.querySelectorAll('body *')]
    .filter((e) => {
      // Inside a box that scrolls on its own (a wide data table), sideways scrolling is allowed.
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return false;
      return e.getBoundingClientRect().right > width + 1;
    })
    .slice(0, 5).map((e) => `${e.localName}.${e.className}`);
  return { over, widest };
}

/**
 * In the page: every canvas and SVG that is not hidden from assistive technology, without
 * role="img" and a name; and every heatmap without its keyboard readout.
 */
function missingTextAlternatives() {
  const out = [];
  for (const el of document.querySelectorAll('canvas, svg')) {
    if (el.closest('[aria-hidden="true"]')) continue;
    const name = (el.getAttribute('aria-label') || (el.getAttribute('aria-labelledby') || '').split(/\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' ')).trim();
    if (el.getAttribute('role') !== 'img' || !name) out.push(`${el.localName}.${el.getAttribute('class')}: role ${el.getAttribute('role')}, name "${name}"`);
  }
  for (const c of document.querySelectorAll('canvas.hw-heatmap')) {
    if (!c.closest('figure')?.querySelector('[data-testid=readout]')) out.push(`heatmap ${c.getAttribute('data-head')} has no readout`);
  }
  return { checked: document.querySelectorAll('canvas, svg').length, out };
}

/**
 * In the page (WCAG 4.1.3): the places that say something without taking focus (the quiz's
 * feedback and score, a copy button's result, a widget's status, the errors beside the fields),
 * each without a live role.
 */
function silentStatuses() {
  const live = (/** @type {Element} */ e) => ['polite', 'assertive'].includes(e.getAttribute('aria-live') || '') || ['status', 'alert', 'log'].includes(e.getAttribute('role') || '');
  const places = [...document.querySelectorAll('[data-testid=quiz-feedback], [data-testid=quiz-score], .hw-copy-status, .hw-widget-status, .hw-error')];
  return { checked: places.length, silent: places.filter((e) => !live(e)).map((e) => `${e.localName}.${e.className}${e.id ? `#${e.id}` : ''}`) };
}

/**
 * In the page (WCAG 1.4.12): the criterion's text spacing applied to everything (line height 1.5,
 * paragraphs 2 em apart, letters 0.12 em, words 0.16 em); then every box that hides what
 * overflows it but holds more text than it shows.
 */
async function clippedWithTextSpacing() {
  // A constructed stylesheet: the page's Content-Security-Policy refuses a <style> element.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; } p { margin-bottom: 2em !important; }');
  const before = document.adoptedStyleSheets;
  document.adoptedStyleSheets = [...before, sheet];
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const boxes = [...document.querySelectorAll('body *')].filter((e) => {
    const cs = getComputedStyle(e);
    if (!['hidden', 'clip'].includes(cs.overflowX) && !['hidden', 'clip'].includes(cs.overflowY)) return false;
    // Visually hidden text (for screen readers only) is meant to be clipped.
    return Boolean((e.textContent || '').trim()) && e.getClientRects().length > 0 && e.clientWidth > 1 && e.clientHeight > 1;
  });
  const clipped = boxes.filter((e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1).map((e) => `${e.localName}.${e.className} ${e.scrollWidth}×${e.scrollHeight} in ${e.clientWidth}×${e.clientHeight}`);
  const over = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  document.adoptedStyleSheets = before;
  return { boxes: boxes.length, clipped: clipped.slice(0, 10), over };
}

/** In the page: the page's language, and the language switcher's options with theirs. */
function languageParts() {
  const options = [...document.querySelectorAll('#hw-language-select option')].map((o) => ({ value: o.value, lang: o.lang, text: o.textContent }));
  return { html: document.documentElement.lang, options };
}

/**
 * In the page (WCAG 2.5.8): every pointer target smaller than 24 × 24 CSS px whose 24 px circle
 * meets another target or circle. A control's target includes its <label>s. Links inside a
 * sentence are exempt (the criterion's "inline" exception), and so are the browser's own
 * controls left as they are (the "user agent" exception does not apply to any here: all are
 * checked).
 */
function smallTargets() {
  const visible = (/** @type {Element} */ e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  const inline = (/** @type {Element} */ e) => e.localName === 'a' && e.parentElement && /^(p|li|td|dd|figcaption|small|span)$/.test(e.parentElement.localName) &&
    (e.parentElement.textContent || '').trim().length > (e.textContent || '').trim().length + 10;
  const controls = [...document.querySelectorAll('button, input:not([type="hidden"]), select, textarea, summary, a[href], [tabindex]:not([tabindex="-1"])')]
    .filter((e) => visible(e) && !inline(e) && !e.closest('[hidden], [inert]'));
  const targets = controls.map((e) => {
    const rects = [e.getBoundingClientRect()];
    const labels = /** @type {any} */ (e).labels;
    if (labels) for (const l of labels) if (visible(l)) rects.push(l.getBoundingClientRect());
    // A control and a label that touches it are one target (a click on either operates it).
    const gap = (/** @type {DOMRect} */ a, /** @type {DOMRect} */ r) => Math.max(r.left - a.right, a.left - r.right, r.top - a.bottom, a.top - r.bottom);
    const b = rects.slice(1).filter((r) => gap(rects[0], r) <= 4).reduce((a, r) => ({
      left: Math.min(a.left, r.left), top: Math.min(a.top, r.top), right: Math.max(a.right, r.right), bottom: Math.max(a.bottom, r.bottom),
    }), { left: rects[0].left, top: rects[0].top, right: rects[0].right, bottom: rects[0].bottom });
    const key = e.id ? `#${e.id}` : `${e.localName}.${e.getAttribute('class') || ''}${e.textContent ? `("${e.textContent.trim().slice(0, 20)}")` : ''}`;
    return { key, left: b.left, top: b.top, right: b.right, bottom: b.bottom, w: b.right - b.left, h: b.bottom - b.top };
  });
  const small = targets.filter((t) => t.w < 24 - 0.01 || t.h < 24 - 0.01);
  const centre = (/** @type {any} */ t) => [(t.left + t.right) / 2, (t.top + t.bottom) / 2];
  const circleMeetsRect = (/** @type {number[]} */ [cx, cy], /** @type {any} */ r) => {
    const dx = Math.max(r.left - cx, 0, cx - r.right);
    const dy = Math.max(r.top - cy, 0, cy - r.bottom);
    return dx * dx + dy * dy < 12 * 12;
  };
  const failing = [];
  for (const t of small) {
    const c = centre(t);
    const hit = targets.find((o) => o !== t && (circleMeetsRect(c, o) || (small.includes(o) && Math.hypot(c[0] - centre(o)[0], c[1] - centre(o)[1]) < 24)));
    if (hit) failing.push(`${t.key} ${t.w.toFixed(1)}×${t.h.toFixed(1)} px, its 24 px circle meets ${hit.key}`);
  }
  return { checked: targets.length, small: small.length, failing, smallKeys: small.map((t) => `${t.key} ${t.w.toFixed(0)}×${t.h.toFixed(0)}`) };
}

/**
 * In the page (WCAG 2.5.3): every control whose name is given apart from its visible label
 * (aria-label, aria-labelledby) and does not contain that label's words. Labels of symbols
 * alone are not checked.
 */
function labelsNotInNames() {
  const norm = (/** @type {string} */ t) => t.replace(/\s+/g, ' ').trim().toLowerCase();
  const out = [];
  let named = 0;
  for (const e of document.querySelectorAll('button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="button"], [tabindex="0"]')) {
    if (e.getClientRects().length === 0 || e.closest('[hidden]')) continue;
    const labelled = e.getAttribute('aria-labelledby');
    const name = e.getAttribute('aria-label') ?? (labelled ? labelled.split(/\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' ') : null);
    if (name === null) continue;
    const labels = /** @type {any} */ (e).labels;
    const visible = labels && labels.length ? [...labels].map((l) => l.textContent).join(' ') : e.matches('button, a, summary, [role="button"]') ? e.textContent || '' : '';
    // A label of symbols alone (an untrained grid cell's "·") has no words to speak.
    if (!/[\p{L}\p{N}]/u.test(visible)) continue;
    named += 1;
    if (!norm(name).includes(norm(visible))) out.push(`${e.id ? `#${e.id}` : e.localName}: name "${name}", label "${norm(visible)}"`);
  }
  return { named, out };
}

/**
 * In the page (WCAG 1.4.11), every control focused in turn from the keyboard's modality: its
 * focus indicator (outline, or else box-shadow) against the background behind it, and a text
 * field's or list's border against that background; those under 3:1.
 */
function lowNonTextContrast() {
  const rgba = (/** @type {string} */ css) => {
    const m = /rgba?\(([^)]+)\)/.exec(css);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [r, g, b, a];
  };
  const lum = (/** @type {number[]} */ c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => { const x = v / 255; return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (/** @type {number[]} */ a, /** @type {number[]} */ b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  /** The opaque colour behind an element (its ancestors' backgrounds, the page's white last). */
  const behind = (/** @type {Element|null} */ e) => {
    for (let p = e; p; p = p.parentElement) {
      const c = rgba(getComputedStyle(p).backgroundColor);
      if (c && c[3] === 1) return c;
    }
    return [255, 255, 255, 1];
  };
  const out = [];
  let checked = 0;
  for (const e of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('button, a[href], input:not([type="hidden"]), select, textarea, summary, [tabindex="0"]'))) {
    if (e.getClientRects().length === 0 || e.closest('[hidden]') || /** @type {any} */ (e).disabled) continue;
    e.focus({ preventScroll: true });
    if (document.activeElement !== e) continue;
    const cs = getComputedStyle(e);
    const back = behind(e.parentElement);
    const key = e.id ? `#${e.id}` : `${e.localName}.${e.className}`;
    const ring = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0 ? rgba(cs.outlineColor) : rgba(cs.boxShadow);
    checked += 1;
    if (!ring) out.push(`${key}: no focus indicator`);
    else if (ratio(ring, back) < 3) out.push(`${key}: focus indicator ${cs.outlineColor} on ${back} is ${ratio(ring, back).toFixed(2)}:1`);
    if (e.matches('input[type="text"], input[type="number"], input:not([type]), select, textarea') && parseFloat(cs.borderTopWidth) > 0) {
      const border = rgba(cs.borderTopColor);
      // The field's own fill, where it differs from what is behind, is its boundary too.
      const fill = rgba(cs.backgroundColor);
      const edge = Math.max(border ? ratio(border, back) : 0, fill && fill[3] === 1 ? ratio(fill, back) : 0);
      if (edge < 3) out.push(`${key}: border ${cs.borderTopColor} on ${back} is ${edge.toFixed(2)}:1`);
    }
  }
  /** @type {HTMLElement} */ (document.activeElement)?.blur();
  return { checked, out };
}

// ---- in node -------------------------------------------------------------------------------------

describe('WCAG 2.2: reflow, text spacing, text alternatives, language of parts (320 px)', () => {
  test('the lesson at 320 px scrolls only up and down, with WCAG\'s text spacing too; every chart has a text alternative; status messages are live; languages are marked', { timeout: 240000 }, async () => {
    await withPage(browser, server, 'http', '#tokens=20', async (page) => {
      await reachTraining(page);
      await reachTraining(page, { section: '#heads-needed', ready: 'hw-heads-needed[data-ready]' });
      await reachTraining(page, { section: '#sentence', ready: 'hw-sentence[data-model][data-words]' });
      await page.click('hw-controls summary');
      await settle(page);
      const reflow = await page.evaluate(sidewaysOverflow);
      assert.ok(reflow.over <= 0, `the page scrolls ${reflow.over} px sideways at 320 px: ${reflow.widest.join(', ')}`);
      const alt = await page.evaluate(missingTextAlternatives);
      assert.ok(alt.checked >= 5, `only ${alt.checked} charts found`);
      console.log(`# ${ENGINE}: ${alt.checked} canvases and SVGs, each with a text alternative`);
      assert.deepEqual(alt.out, []);
      const spaced = await page.evaluate(clippedWithTextSpacing);
      assert.ok(spaced.over <= 0, `with WCAG's text spacing the page scrolls ${spaced.over} px sideways at 320 px`);
      console.log(`# ${ENGINE}: with WCAG's text spacing, ${spaced.boxes} boxes that hide their overflow hold all their text`);
      assert.deepEqual(spaced.clipped, [], 'text cut off with WCAG\'s text spacing');
      const statuses = await page.evaluate(silentStatuses);
      assert.ok(statuses.checked >= 20, `only ${statuses.checked} status places found`);
      assert.deepEqual(statuses.silent, [], 'status messages without a live role');
      const lang = await page.evaluate(languageParts);
      assert.equal(lang.html, 'en');
      assert.ok(lang.options.length >= 3);
      for (const o of lang.options) assert.equal(o.lang, o.value, `the option "${o.text}" is marked as its own language`);
    }, { viewport: { width: 320, height: 640 } });
  });
});

describe('WCAG 2.2: target size, label in name, non-text contrast, dragging (1280 px)', () => {
  test('every target is 24 px or spaced; names hold their visible labels; focus rings and field edges at 3:1; the timeline moves with one click and with the keyboard', { timeout: 300000 }, async () => {
    await withPage(browser, server, 'http', '', async (page) => {
      await reachTraining(page);
      await reachTraining(page, { section: '#heads-needed', ready: 'hw-heads-needed[data-ready]' });
      await reachTraining(page, { section: '#sentence', ready: 'hw-sentence[data-model][data-words]' });
      await page.click('hw-controls summary');
      await settle(page);
      // The keyboard's path from the training section into "How many heads": every control a stop.
      await page.focus('#train-task');
      const path = [];
      for (let i = 0; i < 60 && path[path.length - 1] !== 'heads-run'; i += 1) {
        await page.keyboard.press('Tab');
        path.push(await page.evaluate(() => {
          const e = /** @type {HTMLElement} */ (document.activeElement);
          return e.id || e.getAttribute('data-testid') || e.localName;
        }));
      }
      for (const stop of ['train-seed', 'train-pace', 'train-run', 'train-step', 'heads-relation', 'heads-seed', 'heads-pace', 'heads-run']) {
        assert.ok(path.includes(stop), `${stop} is on the keyboard's path: ${path.join(' → ')}`);
      }
      const names = await page.evaluate(labelsNotInNames);
      console.log(`# ${ENGINE}: ${names.named} controls named apart from their visible label`);
      assert.deepEqual(names.out, [], 'controls whose name does not contain their visible label');
      const nonText = await page.evaluate(lowNonTextContrast);
      assert.ok(nonText.checked > 60, `only ${nonText.checked} controls focused`);
      assert.deepEqual(nonText.out, [], 'focus indicators and field borders under 3:1');
      const size = await page.evaluate(smallTargets);
      assert.ok(size.checked > 60, `only ${size.checked} targets found`);
      console.log(`# ${ENGINE}: ${size.checked} pointer targets, ${size.small} under 24 × 24 px and spaced (radios, checkboxes, sliders)`);
      assert.deepEqual(size.failing, []);
      // Training at the fast pace fills the timeline.
      await page.selectOption('#train-pace', 'fast');
      await page.click('#train-run');
      await page.waitForSelector('hw-train[data-done]', { state: 'attached', timeout: 180000 });
      const step = () => page.getAttribute('[data-testid="train-timeline-step"]', 'data-step');
      const last = await step();
      // One click on the track (its centre): the timeline goes to the middle of the run.
      await page.click('#train-timeline');
      const middle = await until(async () => ((await step()) !== last ? step() : null), 'the timeline moved by a click', 10000);
      assert.ok(Number(middle) > 0 && Number(middle) < Number(last), `a click on the track's centre shows step ${middle} of ${last}`);
      // The keyboard: Home goes to step 0.
      await page.focus('#train-timeline');
      await page.keyboard.press('Home');
      await until(async () => (await step()) === '0', 'the timeline at step 0 by the keyboard', 10000);
    }, { viewport: DESKTOP });
  });
});

describe('WCAG 2.2: no keyboard trap in an embed (2.1.2)', () => {
  test('Tab goes into a sandboxed iframe, through its controls and out; Shift+Tab back', { timeout: 120000 }, async () => {
    const host = await serveDist({
      dir: null,
      pages: {
        '/course.html': {
          type: 'text/html; charset=utf-8',
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title></head><body>
<button id="before">Before</button>
<iframe id="frame" src="${server.origin}/embed.html?widget=params&id=p" sandbox="allow-scripts" title="Parameters" width="700" height="900"></iframe>
<button id="after">After</button>
</body></html>`,
        },
      },
    });
    const { context, page } = await openPage(browser, { viewport: { width: 1000, height: 1000 } });
    try {
      await page.goto(`${host.origin}/course.html`);
      // The frame's first field drawn, as a keyboard reaches it: laid out (the widget is shown
      // once its stylesheet is here).
      await until(() => page.frame('#frame').evaluate(() => (document.querySelector('mha-params')?.shadowRoot?.querySelector('#d-model')?.getClientRects().length ?? 0) > 0), 'the frame drawn');
      await page.focus('#before');
      /**
       * Where focus is: a top-level button's id, or "frame:<what>" inside the frame (its id, else
       * its tag and name, so that the frame's buttons are told apart); "body" where no element has it.
       */
      const where = async () => {
        const top = await page.evaluate(() => document.activeElement?.id || document.activeElement?.localName || '');
        if (top !== 'frame') return top;
        const inner = await page.frame('#frame').evaluate(() => {
          let e = document.activeElement;
          while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
          if (!e) return '';
          return e.id || (e === document.body ? 'body' : `${e.localName} "${(e.getAttribute('aria-label') || e.textContent || '').trim()}"`);
        });
        return `frame:${inner}`;
      };
      // The sandboxed frame has a renderer process of its own in Chromium: a Tab that crosses its
      // edge returns once the page it was pressed in has let focus go, and the other side takes it
      // a moment later (until then the top page's activeElement is its body). Each press is
      // followed by waiting for focus to arrive somewhere new, so that the next press starts from
      // there; a press after which focus stays where it was is a trap.
      const walk = async (key, to) => {
        const seen = [];
        let from = await where();
        for (let i = 0; i < 30; i += 1) {
          await page.keyboard.press(key);
          const prev = from;
          from = await until(async () => {
            const w = await where();
            return w !== prev && w !== 'body' && w !== 'frame:body' ? w : null;
          }, `focus to leave ${prev} after ${key} (${[...seen, '?'].join(' → ')})`, 10000);
          seen.push(from);
          if (from === to) return seen;
        }
        assert.fail(`${key} never reached #${to}: ${seen.join(' → ')}`);
        return seen;
      };
      const forward = await walk('Tab', 'after');
      assert.ok(forward.includes('frame:d-model'), `Tab went through the frame's controls: ${forward.join(' → ')}`);
      const back = await walk('Shift+Tab', 'before');
      assert.ok(back.includes('frame:d-model'), `Shift+Tab went back through them: ${back.join(' → ')}`);
    } finally {
      await context.close();
      await host.close();
    }
  });
});

