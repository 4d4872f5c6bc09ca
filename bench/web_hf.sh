#!/usr/bin/env bash
# web_hf.sh — what size of real model fits the browser build (a benchmark,
# not a test: it prints figures and passes no judgement; docs/web.md's "A
# real model: the folder picker" holds them). Writes folders with GPT-2
# small's and GPT-2 medium's shapes, F32, made sparse (every weight 0,
# nothing downloaded: the layout of bench/hf_gpt2_small.c, with a vocab.txt
# of three words, so the sentence is one [UNK] a word), and picks each
# through the page's real folder input in Debian's headless chromium
# (playwright-core, tests/browser's), from a loopback server: the time to
# read model.safetensors into the wasm heap, the time to open it, the time
# its first run (20 tokens, then the head finder's forward) takes in slices
# of the frames, the longest frame meanwhile, and the heap's size after.
# Then a 1.7 GB file, which the page refuses before reading it.
# The folders take ~1.9 GB of sparse files (no disk blocks) in a temporary
# folder, removed at the end. Usage: bench/web_hf.sh [SITE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
site=${1:-$root/build-web/site}
[ -f "$site/index.html" ] || { echo "bench/web_hf.sh: no site in $site (scripts/build-web.sh)" >&2; exit 1; }
[ -d "$root/tests/browser/node_modules/playwright-core" ] || npm ci --prefix "$root/tests/browser" --no-audit --no-fund
work=$(mktemp -d /tmp/attnviz-web-hf-XXXXXX)
trap 'rm -rf "$work"' EXIT
# NAME LAYERS WIDTH HEADS: model.safetensors (sparse), config.json, vocab.txt
write() {
    mkdir -p "$work/$1"
    /usr/bin/python3 - "$work/$1" "$2" "$3" "$4" <<'PY'
import json, os, struct, sys
d, L, D, H = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
I, V, P = 4 * D, 50257, 1024
parts, off = [], 0
def put(name, rows, cols):
    global off
    n = 4 * (rows or 1) * cols
    shape = [rows, cols] if rows else [cols]
    parts.append('"%s":{"dtype":"F32","shape":%s,"data_offsets":[%d,%d]}' % (name, json.dumps(shape).replace(' ', ''), off, off + n))
    off += n
put("wte.weight", V, D); put("wpe.weight", P, D)
for l in range(L):
    for n, r, c in [("ln_1.weight", 0, D), ("ln_1.bias", 0, D), ("attn.c_attn.weight", D, 3 * D), ("attn.c_attn.bias", 0, 3 * D),
                    ("attn.c_proj.weight", D, D), ("attn.c_proj.bias", 0, D), ("ln_2.weight", 0, D), ("ln_2.bias", 0, D),
                    ("mlp.c_fc.weight", D, I), ("mlp.c_fc.bias", 0, I), ("mlp.c_proj.weight", I, D), ("mlp.c_proj.bias", 0, D)]:
        put("h.%d.%s" % (l, n), r, c)
put("ln_f.weight", 0, D); put("ln_f.bias", 0, D)
h = "{" + ",".join(parts) + "}"
h += " " * ((-len(h)) % 8)
path = os.path.join(d, "model.safetensors")
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(h))); f.write(h.encode())
os.truncate(path, 8 + len(h) + off)
json.dump({"model_type": "gpt2", "n_layer": L, "n_embd": D, "n_head": H}, open(os.path.join(d, "config.json"), "w"))
open(os.path.join(d, "vocab.txt"), "w").write("[PAD]\n[UNK]\n[CLS]\n")
PY
}
write gpt2-small 12 768 12
write gpt2-medium 24 1024 16
mkdir -p "$work/too-big"
cp "$work/gpt2-small/config.json" "$work/gpt2-small/vocab.txt" "$work/too-big/"
truncate -s 1700000000 "$work/too-big/model.safetensors"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$root/tests/browser"
SITE=$site WORK=$work node --input-type=module - <<'JS'
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
const server = spawn('/usr/bin/python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '-d', process.env.SITE],
  { stdio: ['ignore', 'pipe', 'pipe'] });
const origin = await new Promise((resolve) => {
  let out = '';
  server.stdout.on('data', (d) => { out += d; const m = /port (\d+)/.exec(out); if (m) resolve(`http://127.0.0.1:${m[1]}`); });
});
const args = ['--disable-gpu', '--disable-background-networking', '--no-first-run'];
if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
const browser = await chromium.launch({ executablePath: process.env.ATTNVIZ_CHROMIUM || '/usr/bin/chromium', headless: true, args });
const sentence = 'a b c d e f g h i j k l m n o p q r s'; // [CLS] and 19 [UNK]: 20 tokens
try {
  for (const name of ['gpt2-small', 'gpt2-medium', 'too-big']) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.route('**/*', (r) => (r.request().url().startsWith(origin + '/') ? r.continue() : r.abort()));
    await page.goto(`${origin}/index.html?lang=en&sentence=${encodeURIComponent(sentence)}`);
    await page.waitForFunction(() => !document.getElementById('model-open').disabled, null, { timeout: 60000 });
    await page.evaluate(() => { // every frame's gap: the longest while computing is how long the page froze
      window.benchFrames = [];
      const tick = (t) => { window.benchFrames.push(t); requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    await page.setInputFiles('#model-folder', join(process.env.WORK, name));
    await page.waitForFunction(() => window.attnvizModelOpen, null, { timeout: 600000 });
    const r = await page.evaluate(() => window.attnvizModelOpen);
    const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
    if (r.refused) console.log(`${name}: ${mb(r.bytes)} refused before reading (${r.refused})`);
    else {
      const holds = (v) => Module.ccall('attnviz_holds', 'number', ['string', 'string'], ['computing', v]) === 1;
      await page.waitForFunction(holds, '0', { timeout: 600000, polling: 50 });
      const f = await page.evaluate((from) => {
        const t = window.benchFrames.filter((x) => x >= from);
        let gap = 0;
        for (let i = 1; i < t.length; i++) gap = Math.max(gap, t[i] - t[i - 1]);
        return { done: performance.now() - from, frames: t.length, gap, heap: Module.HEAPU8.length };
      }, r.openedAt);
      console.log(`${name}: ${mb(r.bytes)}, ${r.ok ? 'opened' : 'NOT opened'}; read ${(r.readMs / 1000).toFixed(2)} s, ` +
        `opened ${(r.openMs / 1000).toFixed(2)} s, computed 20 tokens and the head finder's forward ` +
        `${(f.done / 1000).toFixed(2)} s later in ${f.frames} frames (longest ${(f.gap / 1000).toFixed(2)} s), ` +
        `wasm heap ${mb(f.heap)}`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
JS
