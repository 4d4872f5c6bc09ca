// html.test.mjs — attnviz's --format html pages in a real browser (Debian's
// chromium, headless, through playwright-core): loaded from file:// with no
// request leaving the machine and no console error; the panel of every
// weights cell against `attnviz --explain`; a click on a token; the keyboard;
// a question kept hidden until answered; an iframe and a handout of many
// figures; a screenshot of each step against the PNG export of the step.
// Usage: ATTNVIZ=build/attnviz node --test tests/browser/
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import { launch, open } from './lib.mjs';

const run = promisify(execFile);
const bin = resolve(process.env.ATTNVIZ || 'build/attnviz');
const root = resolve(new URL('../..', import.meta.url).pathname);
const zhLesson = join(root, 'lessons/zh/self-attention.lesson');
const enSentence = 'The animal didn\'t cross the street because it was too tired.';
const zhModel = join(root, 'assets/models/referent-zh.json');
const zhSentence = '这只动物没看见那只鸟，因为它飞得太快了。';
const STEPS = ['01-embeddings', '02-qkv', '03-scores', '04-scale', '05-mask', '06-softmax', '07-weighted-sum', '08-multi-head'];

let out, browser, page;

before(async () => {
  out = mkdtempSync(join(tmpdir(), 'attnviz-html-'));
  const exp = (dir, ...args) => execFileSync(bin, ['--headless', ...args, '--export-dir', join(out, dir)], { stdio: 'pipe' });
  exp('seed', '--format', 'png,svg,html', '--lang', 'en');
  exp('zh', '--lesson', zhLesson, '--format', 'html');
  exp('causal', '--sentence', enSentence, '--mask', 'causal', '--steps', '6', '--format', 'html', '--lang', 'en');
  exp('model', '--model', zhModel, '--sentence', zhSentence, '--steps', '4,9', '--format', 'html', '--lang', 'en');
  writeFileSync(join(out, 'blank.html'), '<!DOCTYPE html><title>blank</title>');
  writeFileSync(join(out, 'probe.html'), '<!DOCTYPE html><title>probe</title><img src="http://127.0.0.1:9/probe.png">');
  writeFileSync(join(out, 'host.html'), '<!DOCTYPE html><title>host</title>' +
    '<iframe id="f" src="seed/06-softmax.html" style="width:1700px;height:1000px;border:0"></iframe>');
  browser = await launch();
  page = await browser.page();
});

after(async () => {
  if (browser) await browser.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

// Every test ends with nothing fetched and nothing on the console.
function clean() {
  assert.deepEqual(browser.outside, [], 'requests left the machine');
  assert.deepEqual(browser.errors, [], 'console or page errors');
}

test('pages load from file:// with nothing fetched, no console error and no globals', async () => {
  await page.goto('file://' + join(out, 'probe.html')); // the guard itself: a request out is caught (and aborted)
  await page.waitForLoadState('load');
  assert.deepEqual(browser.outside, ['http://127.0.0.1:9/probe.png']);
  browser.outside.length = 0;
  browser.errors.length = 0; // the aborted image's console error
  await open(page, join(out, 'blank.html'));
  const blank = new Set(await page.evaluate(() => Object.getOwnPropertyNames(window)));
  const pages = [...STEPS.map((s) => `seed/${s}.html`), 'seed/handout.html', 'zh/01-intro.html', 'zh/handout.html'];
  for (const p of pages) {
    await open(page, join(out, p));
    const extra = (await page.evaluate(() => Object.getOwnPropertyNames(window))).filter((k) => !blank.has(k));
    assert.deepEqual(extra, [], `${p} defines globals`);
    const ids = await page.evaluate(() => {
      const all = [...document.querySelectorAll('[id]')].map((e) => e.id);
      const bad = [...document.querySelectorAll('[data-attnviz] [id]')].filter(
        (e) => !e.id.startsWith(e.closest('[data-attnviz]').id.replace(/fig$/, '')));
      return { dup: all.filter((id, i) => all.indexOf(id) !== i), unprefixed: bad.map((e) => e.id) };
    });
    assert.deepEqual(ids, { dup: [], unprefixed: [] }, `${p}: ids`);
  }
  const named = await page.evaluate(() => [...document.querySelectorAll('[data-cell],[data-token]')].every(
    (e) => (e.getAttribute('aria-label') || '').length > 0));
  assert.ok(named, 'every cell and token has an accessible name');
  clean();
});

// ---- the panel against --explain ----

const num = /-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi;
const nums = (s) => (s.match(num) || []).map(Number);
const close = (p, e) => Math.abs(p - e) <= 6e-4 * Math.abs(e) + 1e-12; // the panel shows 4 significant digits

function parseExplain(text) {
  const lines = text.split('\n');
  const [, row, col] = lines[0].match(/row \d+ is token \d+ "(.*)", column \d+ is token \d+ "(.*)"$/);
  const e = { row, col, terms: [] };
  for (const l of lines) {
    let m;
    if ((m = l.match(/^ {2}row max = (\S+)/))) e.max = Number(m[1]);
    else if ((m = l.match(/^ {2}j=(\d+)\s+(.*?)\s+masked -> 0$/))) e.terms.push({ label: m[2], masked: true });
    else if ((m = l.match(/^ {2}j=(\d+)\s+(.*?)\s+exp\((\S+) - (\S+)\) = (\S+)/)))
      e.terms.push({ label: m[2], a: +m[3], b: +m[4], v: +m[5] });
    else if ((m = l.match(/^ {2}denominator = (\S+)/))) e.denom = Number(m[1]);
    else if ((m = l.match(/^ {2}\S+ \/ \S+ = (\S+)$/))) e.value = Number(m[1]);
    else if (/this key is masked/.test(l)) e.value = 0;
  }
  return e;
}

function checkPanel(cell, panel, e, words) {
  const at = `${cell}: `;
  const title = panel.find((l) => l.kind === 'title').text;
  assert.ok(title.includes(`[${e.row}, ${e.col}]`), at + `title ${title}`);
  const note = panel.find((l) => l.kind === 'note' && l.text.startsWith(words.rowmax));
  assert.ok(note && close(nums(note.text.slice(words.rowmax.length))[0], e.max), at + 'row maximum');
  const terms = panel.filter((l) => l.kind === 'term');
  assert.equal(terms.length, e.terms.length, at + 'one term per key');
  terms.forEach((t, j) => {
    const x = e.terms[j], sep = t.text.indexOf(': ');
    assert.equal(t.text.slice(0, sep), x.label, at + `term ${j} label`);
    const v = nums(t.text.slice(sep + 2));
    if (x.masked) assert.equal(v.length === 1 && v[0] === 0, true, at + `term ${j} masked: ${t.text}`);
    else assert.ok(close(v[0], x.a) && close(v[1], x.b) && close(v[2], x.v), at + `term ${j}: ${t.text} vs ${x.a} ${x.b} ${x.v}`);
  });
  const denom = panel.find((l) => l.kind === 'result' && l.text.startsWith(words.denom));
  assert.ok(denom && close(nums(denom.text.slice(words.denom.length))[0], e.denom), at + 'denominator');
  const last = panel[panel.length - 1];
  if (e.value === 0 && last.kind === 'note') return; // a masked key: weight exactly 0
  assert.ok(close(nums(last.text).pop(), e.value), at + `value ${last.text} vs ${e.value}`);
}

// Hovers every weights cell of the page and compares its panel with --explain.
async function everyWeightsCell(file, explainArgs, words) {
  await open(page, file);
  await page.evaluate(() => document.querySelector('svg.attnviz-svg').scrollIntoView({ block: 'start' }));
  const cells = await page.evaluate(() => [...document.querySelectorAll('[data-cell^="weights:"]')].map((e) => {
    const r = e.getBoundingClientRect();
    return { name: e.dataset.cell, x: r.x + r.width / 2, y: r.y + r.height / 2 };
  }));
  assert.ok(cells.length > 0, 'the page has weights cells');
  const want = new Map();
  const queue = [...cells];
  const worker = async () => {
    for (let c; (c = queue.shift());) {
      const { stdout } = await run(bin, [...explainArgs, '--explain', c.name]);
      want.set(c.name, parseExplain(stdout));
    }
  };
  await Promise.all([worker(), worker()]);
  for (const c of cells) {
    await page.mouse.move(c.x, c.y);
    const panel = await page.evaluate(() => [...document.querySelectorAll('[data-panel="explain"] [data-kind]')].map(
      (d) => ({ kind: d.dataset.kind, text: d.textContent })));
    checkPanel(c.name, panel, want.get(c.name), words);
  }
  return cells.length;
}

const EN = { rowmax: 'row maximum', denom: 'denominator' };
const ZH = { rowmax: '行最大值', denom: '分母' };

test('hovering every weights cell shows the terms and values of attnviz --explain (English)', async () => {
  const n = await everyWeightsCell(join(out, 'seed/06-softmax.html'), ['--headless'], EN);
  assert.equal(n, 400);
  clean();
});

test('the same with a causal mask: masked keys', async () => {
  const n = await everyWeightsCell(join(out, 'causal/06-softmax.html'), ['--headless', '--sentence', enSentence,
    '--mask', 'causal'], EN);
  assert.equal(n, 144);
  clean();
});

test('the same in Chinese, on a lesson page with designed weights', async () => {
  const n = await everyWeightsCell(join(out, 'zh/07-softmax.html'), ['--lesson', zhLesson, '--page', 'softmax'], ZH);
  assert.equal(n, 17 * 17);
  clean();
});

// A model's backward view: every ∂L/∂T cell's panel ends with the value attnviz --explain gives it,
// and its terms are A·dA; the readout's Ā cells end with theirs.
async function everyModelCell(file, stage, layer) {
  await open(page, file);
  await page.evaluate(() => document.querySelector('svg.attnviz-svg').scrollIntoView({ block: 'start' }));
  const cells = await page.evaluate((st) => [...document.querySelectorAll(`[data-cell^="${st}:"]`)].map((e) => {
    const r = e.getBoundingClientRect();
    return { name: e.dataset.cell, x: r.x + r.width / 2, y: r.y + r.height / 2 };
  }), stage);
  assert.ok(cells.length > 0, `the page has ${stage} cells`);
  for (const c of cells) {
    // a model's cell names its layer (STAGE:LAYER:HEAD:ROW:COL), so --explain takes the name as it is
    assert.equal(c.name.split(':').length, 5, `${c.name} names the layer`);
    assert.equal(c.name.split(':')[1], String(layer), `${c.name}: layer ${layer}`);
    const { stdout } = await run(bin, ['--headless', '--model', zhModel, '--sentence', zhSentence, '--target', '10:鸟',
      '--explain', c.name]);
    const want = Number(stdout.trim().split('\n').pop().match(/(\S+)$/)[1]);
    await page.mouse.move(c.x, c.y);
    const panel = await page.evaluate(() => [...document.querySelectorAll('[data-panel="explain"] [data-kind]')].map(
      (d) => ({ kind: d.dataset.kind, text: d.textContent })));
    assert.ok(panel.length > 2, `${c.name}: a panel`);
    assert.ok(close(nums(panel[panel.length - 1].text).pop(), want), `${c.name}: ${panel[panel.length - 1].text} vs ${want}`);
  }
  return cells.length;
}

test('a model: every ∂L/∂T cell of the backward view and every Ā cell of the readout, against --explain', async () => {
  assert.equal(await everyModelCell(join(out, 'model/L2-04-scale-backward.html'), 'd_scaled', 1), 17 * 17);
  assert.equal(await everyModelCell(join(out, 'model/L2-09-readout.html'), 'avg', 1), 17 * 17 + 8); // and its 8 bars
  clean();
});

// ---- a click on a token, the keyboard ----

// The row outlined in the query's colour: the data-cell row whose centre it holds.
async function highlightedRow() {
  return page.evaluate(() => {
    const fig = document.querySelector('[data-attnviz]');
    const hl = getComputedStyle(fig).getPropertyValue('--av-hl').trim();
    const cells = [...fig.querySelectorAll('[data-cell^="weights:"]')];
    const rows = new Set();
    const cell = cells[0].getBBox();
    for (const s of fig.querySelectorAll(`rect[stroke="${hl}"]:not([stroke-opacity])`)) {
      const b = s.getBBox();
      if (b.width < 5 * cell.width || b.height > 2 * cell.height) continue; // a row outline spans the matrix
      for (const c of cells) {
        const r = c.getBBox(), cy = r.y + r.height / 2;
        if (cy > b.y && cy < b.y + b.height && r.x > b.x && r.x + r.width < b.x + b.width) rows.add(+c.dataset.cell.split(':')[2]);
      }
    }
    return [...rows];
  });
}

test('clicking a token makes it the query: the highlighted row, the lines and data-query move', async () => {
  await open(page, join(out, 'seed/06-softmax.html'));
  const fig = page.locator('[data-attnviz]');
  assert.equal(await fig.getAttribute('data-query'), '13');
  assert.deepEqual(await highlightedRow(), [13]);
  await page.locator('[data-token="5"]').first().click();
  assert.equal(await fig.getAttribute('data-query'), '5');
  assert.deepEqual(await highlightedRow(), [5]);
  assert.ok((await page.locator('svg text', { hasText: 'Attention from' }).textContent()).includes('看'));
  assert.equal(await page.locator('[data-token="5"]').first().getAttribute('aria-pressed'), 'true');
  await page.locator('[data-token="13"]').first().click();
  assert.deepEqual(await highlightedRow(), [13]);
  clean();
});

test('the keyboard alone: Tab to a matrix, arrows move the cell, Enter makes its row the query', async () => {
  await open(page, join(out, 'seed/06-softmax.html'));
  const focused = () => page.evaluate(() => ({ cell: document.activeElement.dataset.cell, token: document.activeElement.dataset.token }));
  await page.keyboard.press('Tab');
  assert.equal((await focused()).token, '13', 'the first stop is the tokens, on the query');
  await page.keyboard.press('ArrowDown');
  assert.equal((await focused()).token, '14');
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('[data-attnviz]', 'data-query'), '14');
  await page.keyboard.press('Tab');
  const first = (await focused()).cell;
  assert.equal(first, 'weights:0:0:0');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  assert.equal((await focused()).cell, 'weights:0:1:1');
  assert.ok((await page.textContent('[data-panel="explain"]')).includes('A[2:只, 2:只]'));
  await page.keyboard.press('Space');
  assert.equal(await page.getAttribute('[data-attnviz]', 'data-query'), '1');
  assert.deepEqual(await highlightedRow(), [1]);
  clean();
});

test('a question keeps the answer hidden until the reader answers, as in the window', async () => {
  await open(page, join(out, 'zh/01-intro.html'));
  assert.equal(await page.locator('[data-cell^="weights:"]').count(), 0, 'no weights before the answer');
  assert.ok((await page.textContent('svg')).includes('最关注哪个词元'));
  assert.ok(!(await page.textContent('svg')).includes('0.81'));
  await page.locator('[data-token="7"]').first().click(); // 鸟
  assert.ok((await page.textContent('[data-status]')).includes('答对了'));
  assert.equal(await page.getAttribute('[data-attnviz]', 'data-query'), '10', 'the query stays 它');
  assert.equal(await page.locator('[data-cell^="weights:"]').count(), 17 * 17);
  assert.ok((await page.textContent('svg')).includes('0.81'));
  await page.locator('[data-token="3"]').first().click(); // now a click changes the query
  assert.equal(await page.getAttribute('[data-attnviz]', 'data-query'), '3');
  clean();
});

test('inside an iframe and in a handout of many figures', async () => {
  await page.goto('file://' + join(out, 'host.html'));
  const frame = page.frameLocator('#f');
  await frame.locator('[data-attnviz][data-attnviz-ready="yes"]').waitFor();
  await frame.locator('[data-cell="weights:0:13:9"]').hover();
  assert.ok((await frame.locator('[data-panel="explain"]').textContent()).includes('A[它, 鸟]'));
  await frame.locator('[data-token="2"]').first().click();
  assert.equal(await frame.locator('[data-attnviz]').getAttribute('data-query'), '2');

  await open(page, join(out, 'zh/handout.html'));
  const figs = page.locator('[data-attnviz]');
  assert.equal(await figs.count(), (readFileSync(zhLesson, 'utf8').match(/^=== page:/gm) || []).length);
  await figs.nth(6).locator('[data-cell="weights:0:10:7"]').hover();
  assert.ok((await figs.nth(6).locator('[data-panel="explain"]').textContent()).includes('A[它, 鸟]'));
  assert.ok(!(await figs.nth(7).locator('[data-panel="explain"]').textContent()).includes('A[它'), 'one figure at a time');
  await figs.nth(6).locator('[data-token="3"]').first().click();
  assert.equal(await figs.nth(6).getAttribute('data-query'), '3');
  assert.equal(await figs.nth(7).getAttribute('data-query'), '10');
  clean();
});

// ---- the drawing against the PNG export ----

async function matchFraction(pngA, pngB) {
  await open(page, join(out, 'blank.html'));
  return page.evaluate(async ([a, b]) => {
    const pixels = async (src) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return { w: img.width, h: img.height, d: g.getImageData(0, 0, img.width, img.height).data };
    };
    const [x, y] = [await pixels(a), await pixels(b)];
    if (x.w !== y.w || x.h !== y.h) return { size: `${x.w}x${x.h} vs ${y.w}x${y.h}`, fraction: 0 };
    let same = 0;
    for (let i = 0; i < x.d.length; i += 4)
      if (Math.abs(x.d[i] - y.d[i]) <= 16 && Math.abs(x.d[i + 1] - y.d[i + 1]) <= 16 && Math.abs(x.d[i + 2] - y.d[i + 2]) <= 16) same++;
    return { size: `${x.w}x${x.h}`, fraction: same / (x.w * x.h) };
  }, [pngA.toString('base64'), pngB.toString('base64')]);
}

// Issue 25: a page fits the iframe it is given. The README's 900 px iframe in a 1400 px notebook
// showed a 1166 px page whose panel started at y = 926: hovering showed nothing the reader saw.
for (const [w, h, file] of [[1400, 900, 'seed/06-softmax.html'], [700, 900, 'seed/06-softmax.html'],
  [1400, 600, 'zh/07-softmax.html'], [700, 900, 'zh/07-softmax.html']]) {
  test(`a page in a ${w}×${h} iframe fits it: figure and panel inside, no scrollbar (${file})`, async () => {
    writeFileSync(join(out, 'fit.html'), '<!DOCTYPE html><title>notebook</title><body style="margin:0">' +
      `<iframe id="f" src="${file}" style="width:${w}px;height:${h}px;border:0"></iframe>`);
    await page.goto('file://' + join(out, 'fit.html'));
    const frame = page.frameLocator('#f');
    await frame.locator('[data-attnviz][data-attnviz-ready="yes"]').waitFor();
    const cell = frame.locator('[data-cell^="weights:0:"]').nth(5);
    await cell.hover();
    const inner = page.frames().find((f) => f.url().endsWith(file));
    const r = await inner.evaluate(() => {
      const box = (sel) => document.querySelector(sel).getBoundingClientRect();
      const se = document.scrollingElement;
      const lines = document.querySelector('[data-panel="explain"] .attnviz-lines > div');
      return { svg: box('svg.attnviz-svg'), panel: box('[data-panel="explain"]'), line: lines && lines.getBoundingClientRect(),
        scroll: [se.scrollWidth, se.clientWidth, se.scrollHeight, se.clientHeight] };
    });
    const inside = (b, what) => assert.ok(b.top >= 0 && b.left >= 0 && b.bottom <= h + 0.5 && b.right <= w + 0.5,
      `${what} at ${JSON.stringify(b)} is outside the ${w}×${h} iframe`);
    inside(r.svg, 'the figure');
    inside(r.panel, 'the panel');
    assert.ok(r.line && r.line.top < h && r.line.bottom > 0, 'the hovered cell\'s first panel line shows');
    assert.ok(r.svg.height >= 150, `the figure is ${r.svg.height} px high`);
    assert.ok(r.scroll[0] <= r.scroll[1] && r.scroll[2] <= r.scroll[3], `no scrollbar in the iframe: ${r.scroll}`);
    if (w >= 1200) assert.ok(r.panel.left >= r.svg.right - 1, 'wide: the panel beside the figure');
    else assert.ok(r.panel.top >= r.svg.bottom - 1, 'narrow: the panel under the figure');
    clean();
  });
}

// Issue 25: chromium ignores xml:space and showed "20×20   · 800" as "20×20 · 800" in a standalone SVG.
test('a standalone SVG keeps the spaces of its text in chromium', async () => {
  await page.goto('file://' + join(out, 'seed/03-scores.svg'));
  const texts = await page.evaluate(() => [...document.querySelectorAll('text')].filter((t) => t.textContent.includes('   '))
    .map((t) => ({ text: t.textContent, chars: t.getNumberOfChars() })));
  assert.ok(texts.length > 0, 'the equation line has runs of spaces');
  for (const t of texts) assert.equal(t.chars, t.text.length, `"${t.text}" shows ${t.chars} of its ${t.text.length} characters`);
  clean();
});

test('a screenshot of each step matches its PNG export on >= 95% of pixels within 16/255', async () => {
  const report = [];
  await page.setViewportSize({ width: 1900, height: 1400 }); // room for the figure at its own size
  for (const s of STEPS) {
    await open(page, join(out, `seed/${s}.html`));
    const box = await page.locator('svg.attnviz-svg').boundingBox();
    assert.ok(Number.isInteger(box.x) && Number.isInteger(box.y), `${s}: the figure sits on whole pixels (${box.x}, ${box.y})`);
    const shot = await page.screenshot({ clip: box });
    const r = await matchFraction(shot, readFileSync(join(out, `seed/${s}.png`)));
    report.push(`${s} ${r.size} ${(100 * r.fraction).toFixed(2)}%`);
    assert.ok(r.fraction >= 0.95, `${s}: ${(100 * r.fraction).toFixed(2)}% of pixels match (${r.size})`);
  }
  console.log('pixels matching the PNG export: ' + report.join(', '));
  await page.setViewportSize({ width: 1720, height: 1000 });
  clean();
});
