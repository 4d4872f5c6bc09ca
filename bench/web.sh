#!/usr/bin/env bash
# web.sh — the browser build's figures (a benchmark, not a test: it prints
# figures and passes no judgement), measured in Debian's headless chromium
# on this machine, through playwright-core (tests/browser's):
#   1. bytes before the first frame: what the page requested before it,
#      each file gzip -9'd, as a host that serves gzip sends them (python3
#      -m http.server sends them uncompressed; that sum is printed too);
#   2. navigation to the first frame of a lesson from a loopback server
#      (python3 -m http.server on 127.0.0.1), the median and worst of 5;
#   3. the cost of a frame over the classroom session app_bench.c replays
#      (steps, the 6 key, hovering every cell and clicking the tokens, the
#      toggles H S S M M M M C C C V V, Shift+H, a resize to 1024×640 and
#      back), driven with real key presses and pointer moves in the page at
#      1280×800, device pixel ratio 1 and 2: from the animation frame's start
#      (document.timeline) to the frame's pixels on the canvas, p50 and p99;
#   4. referent-zh's default training (F3, Space; R and Space again: the
#      median of 3) in the page against `attnviz --train referent-zh --save`
#      natively, each native run just before a run in the page (the median
#      of 3); the load average is printed first, as the machine may be shared.
# Usage: bench/web.sh [SITE [NATIVE]]   (defaults: build-web/site, build/attnviz;
# scripts/build-web.sh and the native build first)
# Environment: PAUSE_MS=N waits N ms before each key of the replay (3), as a
# learner reads before the next key (the page warms the steps likely next
# while idle); 0, the default, presses them as fast as frames come.
# FRAMES_ONLY=1 measures 3 alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
site=${1:-$root/build-web/site}
native=${2:-$root/build/attnviz}
[ -f "$site/index.html" ] || { echo "bench/web.sh: no site in $site (scripts/build-web.sh)" >&2; exit 1; }
[ -x "$native" ] || { echo "bench/web.sh: no native attnviz at $native" >&2; exit 1; }
[ -d "$root/tests/browser/node_modules/playwright-core" ] || npm ci --prefix "$root/tests/browser" --no-audit --no-fund

# the native training's wall time is taken in the script below, each run
# just before one in the page (the machine is shared: one run can take
# twice another, so the two are paired and the medians compared)
echo "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
PAUSE_MS=${PAUSE_MS:-0} FRAMES_ONLY=${FRAMES_ONLY:-} SITE=$site ROOT=$root NATIVE=$native node --input-type=module - <<'JS'
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { chromium } = createRequire(`${process.env.ROOT}/tests/browser/`)('playwright-core');
const SITE = process.env.SITE;

const server = spawn('/usr/bin/python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '-d', SITE],
  { stdio: ['ignore', 'pipe', 'ignore'] });
const origin = await new Promise((resolve) => {
  let out = '';
  server.stdout.on('data', (d) => { out += d; const m = /port (\d+)/.exec(out); if (m) resolve(`http://127.0.0.1:${m[1]}`); });
});
const profile = mkdtempSync(join(tmpdir(), 'attnviz-bench-'));
const args = ['--disable-gpu', '--no-first-run', '--disable-background-networking'];
if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const mb = (n) => (n / 1e6).toFixed(2);

async function context(dpr) {
  return chromium.launchPersistentContext(`${profile}-${dpr}`, { executablePath: '/usr/bin/chromium', headless: true, args,
    viewport: { width: 1280, height: 800 }, deviceScaleFactor: dpr, locale: 'en-US' });
}
async function open(ctx, query, requested) {
  const page = await ctx.newPage();
  if (requested) page.on('request', (r) => requested.push(r.url()));
  await page.goto(`${origin}/index.html${query}`);
  await page.waitForFunction(() => window.attnvizFirstFrameMs, null, { timeout: 60000 });
  return page;
}
const holds = (page, n, v) => page.waitForFunction(([n, v]) =>
  Module.ccall('attnviz_holds', 'number', ['string', 'string'], [n, v]) === 1, [n, v], { timeout: 600000, polling: 'raf' });

try {
  const PAUSE = Number(process.env.PAUSE_MS) || 0, FRAMES_ONLY = !!process.env.FRAMES_ONLY;
  // 1, 2: bytes and navigation
  let ctx = await context(1);
  if (!FRAMES_ONLY) {
  const ms = [];
  let before = [];
  for (let i = 0; i < 5; i++) {
    const requested = [];
    const page = await open(ctx, '?lesson=self-attention&lang=en', requested);
    ms.push(await page.evaluate(() => window.attnvizFirstFrameMs));
    if (i === 0) before = requested;
    await page.close();
  }
  let raw = 0, gz = 0;
  const files = [];
  for (const url of new Set(before)) {
    const path = new URL(url).pathname.replace(/^\//, '') || 'index.html';
    const data = readFileSync(join(SITE, decodeURIComponent(path)));
    const z = gzipSync(data, { level: 9 }).length;
    raw += data.length;
    gz += z;
    files.push(`${path} ${mb(data.length)} → ${mb(z)}`);
  }
  console.log(`bytes before the first frame: ${mb(gz)} MB as a gzip -9 host sends them, ${mb(raw)} MB uncompressed ` +
    `(python3 -m http.server)\n  ${files.join('\n  ')}`);
  console.log(`navigation to the first frame (loopback, 5 loads): median ${quantile(ms, 0.5).toFixed(0)} ms, ` +
    `worst ${Math.max(...ms).toFixed(0)} ms`);
  }

  // 3: frames over the classroom session, at ratio 1 and 2
  for (const dpr of [1, 2]) {
    if (dpr !== 1) { await ctx.close(); ctx = await context(dpr); }
    const page = await open(ctx, '?lesson=self-attention&lang=en&theme=light');
    await page.evaluate(() => {
      window.benchFrames = [];
      let n = Module.attnvizPutPixels || 0, last = -1;
      Object.defineProperty(Module, 'attnvizPutPixels', { configurable: true, get: () => n, set: (v) => {
        n = v;
        const start = document.timeline.currentTime; // this animation frame's start
        const what = window.benchWhat || 'load';
        if (start !== last) { last = start; window.benchFrames.push([performance.now() - start, what]); }
        else window.benchFrames[window.benchFrames.length - 1] = [performance.now() - start, what]; // its later rectangles
      } });
    });
    const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const doing = (what) => page.evaluate((w) => { window.benchWhat = w; }, what);
    const press = async (k) => {
      if (PAUSE) await page.waitForTimeout(PAUSE);
      await doing(k);
      await page.keyboard.press(k);
      await settle();
    };
    await press('Home');
    for (let s = 0; s < 8; s++) await press('PageDown');
    await press('Digit6');
    await doing('hover');
    for (let y = 120; y < 760; y += 40) for (let x = 300; x < 1000; x += 40) { await page.mouse.move(x, y); await settle(); }
    for (const k of ['KeyH', 'KeyS', 'KeyS', 'KeyM', 'KeyM', 'KeyM', 'KeyM', 'KeyC', 'KeyC', 'KeyC', 'KeyV', 'KeyV',
      'Shift+KeyH']) await press(k);
    await doing('resize');
    await page.setViewportSize({ width: 1024, height: 640 });
    await page.waitForTimeout(300);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForTimeout(300);
    const all = await page.evaluate(() => window.benchFrames.filter(([, what]) => what !== 'load'));
    const f = all.map(([ms]) => ms);
    const slowest = [...all].sort((a, b) => b[0] - a[0]).slice(0, 4).map(([ms, w]) => `${w} ${ms.toFixed(1)}`);
    console.log(`frames of the classroom session at 1280×800, device pixel ratio ${dpr}: ${f.length} frames, ` +
      `${PAUSE ? `${PAUSE} ms before each key, ` : ''}p50 ${quantile(f, 0.5).toFixed(2)} ms, p99 ${quantile(f, 0.99).toFixed(2)} ms, max ${Math.max(...f).toFixed(2)} ms` +
      ` (slowest: ${slowest.join(', ')} ms)`);
    await page.close();
  }
  await ctx.close();
  if (!FRAMES_ONLY) {
  // 4: training
  ctx = await context(1);
  const page = await open(ctx, '?lesson=self-attention&lang=en');
  await page.keyboard.press('F3');
  const webs = [], nats = [], saved = mkdtempSync(join(tmpdir(), 'attnviz-bench-train-'));
  for (let run = 0; run < 3; run++) { // R starts it over, as --bench's training phase does
    const n0 = performance.now();
    const r = spawnSync(process.env.NATIVE, ['--train', 'referent-zh', '--save', join(saved, 'native.json')], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${process.env.NATIVE} --train failed`);
    nats.push((performance.now() - n0) / 1000);
    if (run) await page.keyboard.press('KeyR');
    await holds(page, 'train_state', 'idle');
    const t0 = await page.evaluate(() => performance.now());
    await page.keyboard.press('Space');
    await holds(page, 'train_state', 'done');
    webs.push(((await page.evaluate(() => performance.now())) - t0) / 1000);
  }
  rmSync(saved, { recursive: true, force: true });
  const web = quantile(webs, 0.5), nat = quantile(nats, 0.5);
  console.log(`referent-zh's default training (median of 3): ${web.toFixed(2)} s in the page ` +
    `(${webs.map((s) => s.toFixed(2)).join(', ')}), ${nat.toFixed(2)} s natively ` +
    `(--train, the whole process: ${nats.map((s) => s.toFixed(2)).join(', ')}): ${(web / nat).toFixed(2)}×; ` +
    `pair by pair ${webs.map((w, i) => (w / nats[i]).toFixed(2)).join(', ')}×`);
  await ctx.close();
  }
} finally {
  server.kill();
  for (const d of [profile, `${profile}-1`, `${profile}-2`]) rmSync(d, { recursive: true, force: true });
}
JS
