// attnviz-page.js — the page around attnviz.js (Emscripten): the canvas, a
// link's query turned into attnviz's own command-line options, what the C
// side asks of the page (a text to copy where there is no clipboard), and
// the loading note. Loaded before attnviz.js, which reads `Module`.
'use strict';

// ?lesson=self-attention&lang=zh&page=two-layers-flip&step=6&theme=presenter
// &sentence=…&model=referent-en.json → argv. Names are checked here (the
// bundle has no other files to reach); everything else is attnviz's own
// option parsing, with its own messages.
function attnvizArguments(query) {
  const q = new URLSearchParams(query);
  const args = [];
  const name = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
  const bad = [];
  const lang = q.get('lang');
  if (lang !== null) args.push('--lang', lang);
  const lesson = q.get('lesson');
  if (lesson !== null) {
    if (!name.test(lesson)) bad.push('lesson');
    const lessonLang = lang || ((navigator.language || '').startsWith('zh') ? 'zh' : 'en');
    args.push('--lesson', `lessons/${lessonLang === 'zh' ? 'zh' : 'en'}/${lesson.replace(/\.lesson$/, '')}.lesson`);
  }
  if (q.get('page') !== null) args.push('--page', q.get('page'));
  if (q.get('theme') !== null) args.push('--theme', q.get('theme'));
  if (q.get('sentence') !== null) args.push('--sentence', q.get('sentence'));
  const view = q.get('view');
  if (view !== null) {
    if (view !== 'figure' && view !== 'window') bad.push('view');
    args.push('--view', view);
  }
  const model = q.get('model');
  if (model !== null) {
    if (!name.test(model)) bad.push('model');
    args.push('--model', `assets/models/${model}`);
  }
  let step = 0;
  if (q.get('step') !== null) {
    step = Number(q.get('step'));
    if (!Number.isInteger(step) || step < 1 || step > 9) { bad.push('step'); step = 0; }
  }
  return { args, step, bad };
}

// A .zip of files [{ name, data: Uint8Array }], stored (no compression:
// PNG is compressed already), names in UTF-8: the local headers and data,
// then the central directory and its end record (PKWARE APPNOTE 4.3).
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(data) {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function attnvizZip(files, when = new Date()) {
  const time = (when.getHours() << 11) | (when.getMinutes() << 5) | (when.getSeconds() >> 1);
  const date = ((when.getFullYear() - 1980) << 9) | ((when.getMonth() + 1) << 5) | when.getDate();
  const parts = [], central = [];
  let offset = 0;
  const header = (size, fields) => {
    const b = new DataView(new ArrayBuffer(size));
    fields.forEach(([at, bytes, v]) => (bytes === 2 ? b.setUint16(at, v, true) : b.setUint32(at, v, true)));
    return new Uint8Array(b.buffer);
  };
  for (const f of files) {
    const name = new TextEncoder().encode(f.name), crc = crc32(f.data), n = f.data.length;
    // version 2.0, flag 0x800 (UTF-8 name), method 0 (stored)
    const common = [[2, 2, 20], [4, 2, 0x800], [6, 2, 0], [8, 2, time], [10, 2, date], [12, 4, crc], [16, 4, n],
      [20, 4, n], [24, 2, name.length]];
    parts.push(header(30, [[0, 4, 0x04034b50], ...common.map(([a, s, v]) => [a + 2, s, v])]), name, f.data);
    central.push(header(46, [[0, 4, 0x02014b50], [4, 2, 20], ...common.map(([a, s, v]) => [a + 4, s, v]),
      [42, 4, offset]]), name);
    offset += 30 + name.length + n;
  }
  const size = central.reduce((t, p) => t + p.length, 0);
  const end = header(22, [[0, 4, 0x06054b50], [8, 2, files.length], [10, 2, files.length], [12, 4, size],
    [16, 4, offset]]);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}

// Offers blob to the user as a download named name.
function attnvizDownload(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

(function () {
  const note = document.getElementById('note');
  const canvas = document.getElementById('canvas');
  const link = attnvizArguments(location.search);
  const stderr = [];
  const say = (text, bad) => {
    note.textContent = text;
    note.className = bad ? 'bad' : '';
    note.style.display = text ? '' : 'none';
  };
  if (link.bad.length) {
    say(`This link's ${link.bad.join(', ')} is not one attnviz knows (step is 1 to 9; view is figure or window; names are files of the site).`, true);
    window.Module = { noInitialRun: true };
    return;
  }
  window.Module = {
    canvas,
    arguments: link.args,
    attnvizStep: link.step,
    print: (t) => console.log(t),
    printErr: (t) => { stderr.push(t); console.warn(t); },
    // the first frame is on the canvas (called by platform_web.c)
    attnvizFirstFrame: () => {
      window.attnvizFirstFrameMs = performance.now();
      say('');
    },
    // main ended without a window (platform_web.c): bad input says why, as on the desktop
    attnvizExit: (code) => { if (code) say(stderr.join('\n') || `attnviz stopped (${code}).`, true); },
    attnvizQuit: () => say('attnviz has ended. Reload the page to start again.'),
    // no clipboard (plain http, or refused): the text to copy, selected
    attnvizShowCopy: (text) => {
      const box = document.getElementById('copy');
      box.value = text;
      box.style.display = 'block';
      box.select();
      setTimeout(() => { box.style.display = 'none'; }, 15000);
    },
    // a folder attnviz filled (Ctrl+Shift+S's figures, platform_web.c): one
    // .zip of its files, named after it, paths inside it under its name
    attnvizDownloadFolder: (dir) => {
      const FS = window.Module.FS, top = dir.substring(dir.lastIndexOf('/') + 1), files = [];
      const walk = (path, name) => {
        for (const e of FS.readdir(path).filter((e) => e !== '.' && e !== '..').sort()) {
          const p = `${path}/${e}`;
          if (FS.isDir(FS.stat(p).mode)) walk(p, `${name}/${e}`);
          else files.push({ name: `${name}/${e}`, data: FS.readFile(p) });
        }
      };
      walk(dir, top);
      attnvizDownload(attnvizZip(files), `${top}.zip`);
    },
    setStatus: () => {},
  };
  window.addEventListener('error', (e) => say(`attnviz could not start: ${e.message}`, true));
  // Ctrl+V: SDL cancels every Ctrl chord, so the browser's paste event (the
  // one way to read the system clipboard without asking) would never come;
  // the key is kept from SDL, the paste event hands the text to attnviz
  window.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.code === 'KeyV') e.stopImmediatePropagation();
  }, true);
  document.addEventListener('paste', (e) => {
    const text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
    e.preventDefault();
    if (!text || !window.Module._attnviz_paste) return;
    window.Module.attnvizClipboard = text;
    window.Module._attnviz_paste();
  });
  // Input methods (Chinese): SDL's backend takes text only from keypress, and
  // what an input method commits never arrives there. A hidden text field
  // keeps the focus; its composition is forwarded (compositionupdate shown
  // inline, compositionend typed), and keys that belong to a composition
  // never reach SDL (else Backspace would delete in the sentence too).
  const ime = document.getElementById('ime');
  const compose = (name, text) => {
    if (window.attnvizFirstFrameMs) window.Module.ccall(name, null, ['string'], [text]);
  };
  let composing = false; // a composition is shown in the sentence
  let keyed = false;     // a key was pressed since the last input (SDL typed its text from keypress)
  ime.addEventListener('compositionstart', () => { composing = true; });
  ime.addEventListener('compositionupdate', (e) => compose('attnviz_compose', e.data || ''));
  ime.addEventListener('compositionend', (e) => {
    composing = false;
    compose('attnviz_commit', e.data || '');
    ime.value = '';
  });
  ime.addEventListener('input', (e) => {
    if (e.isComposing) return;
    if (composing) { // the composition went without compositionend (cancelled, e.g. its last letter deleted)
      composing = false;
      compose('attnviz_compose', '');
    } else if (!keyed && e.inputType === 'insertText' && e.data) {
      compose('attnviz_commit', e.data); // text inserted without a key (an input method's commit, dictation)
    }
    keyed = false;
    ime.value = '';
  });
  window.addEventListener('keydown', (e) => {
    if (e.isComposing || e.keyCode === 229) e.stopImmediatePropagation();
    else keyed = true;
  }, true);
  // SDL reads keys on the window; a click on the canvas leaves the focus in the field
  canvas.addEventListener('mousedown', (e) => {
    e.preventDefault();
    ime.focus({ preventScroll: true });
  });
  window.addEventListener('focus', () => ime.focus({ preventScroll: true }));
  ime.focus({ preventScroll: true });
})();

// A real model (issue 26): a Hugging Face folder chosen with the file picker
// (the folder, or its files: config.json, model.safetensors, and vocab.json
// + merges.txt or vocab.txt). The small files go into the file system under
// /hf/NAME; model.safetensors is read in slices straight into the wasm heap
// (one copy of the weights: none in the file system, none whole in
// JavaScript) and handed to the C side, which opens /hf/NAME as
// `attnviz --hf DIR` does (platform_web.c, attnviz_open_hf).
const ATTNVIZ_MODEL_FILES = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt', 'vocab.txt'];
const ATTNVIZ_SLICE = 16 << 20; // bytes read at a time

// The files attnviz reads, by name, from a picked list (a folder's files
// carry their path: the shallowest of each name wins), and the folder's name.
function attnvizModelPick(files) {
  const chosen = {};
  let folder = '';
  for (const f of files) {
    const path = f.webkitRelativePath || f.name, parts = path.split('/');
    const name = parts[parts.length - 1];
    if (!ATTNVIZ_MODEL_FILES.includes(name)) continue;
    if (chosen[name] && chosen[name].depth <= parts.length) continue;
    chosen[name] = { file: f, depth: parts.length };
    if (parts.length > 1 && (!folder || parts.length === 2)) folder = parts[parts.length - 2];
  }
  const out = {};
  for (const k of Object.keys(chosen)) out[k] = chosen[k].file;
  return { files: out, name: (folder || 'model').replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') };
}

(function () {
  const box = document.getElementById('model');
  if (!box || !window.Module || window.Module.noInitialRun) return;
  const zh = () => document.documentElement.lang === 'zh';
  const openFolder = document.getElementById('model-open'), openFiles = document.getElementById('model-open-files');
  const folderInput = document.getElementById('model-folder'), filesInput = document.getElementById('model-files');
  const note = document.getElementById('note');
  let hide = 0;
  const say = (text, bad) => { // over the app: boxed; a refusal goes by itself after 20 s, or on a click
    note.textContent = text;
    note.className = `over${bad ? ' bad' : ''}`;
    note.style.display = text ? '' : 'none';
    clearTimeout(hide);
    if (bad) hide = setTimeout(() => say(''), 20000);
  };
  note.addEventListener('click', () => { if (note.classList.contains('over')) say(''); });
  const label = () => {
    openFolder.textContent = zh() ? '打开模型文件夹…' : 'Open a model folder…';
    openFiles.textContent = zh() ? '或文件…' : 'or its files…';
    box.title = zh() ? 'Hugging Face 的 GPT-2 文件夹：config.json、model.safetensors，以及 vocab.json + merges.txt 或 vocab.txt（Ctrl+O）'
      : "A Hugging Face GPT-2 folder: config.json, model.safetensors, and vocab.json + merges.txt or vocab.txt (Ctrl+O)";
  };
  let busy = false;
  const ready = () => !!(window.attnvizFirstFrameMs && window.Module._attnviz_open_hf);
  const enable = () => {
    const on = ready() && !busy;
    openFolder.disabled = openFiles.disabled = !on;
  };
  const lang = new URLSearchParams(location.search).get('lang') || ((navigator.language || '').startsWith('zh') ? 'zh' : 'en');
  document.documentElement.lang = lang === 'zh' ? 'zh' : 'en';
  label();
  const first = window.Module.attnvizFirstFrame;
  // figure-only (F, view=figure) puts its way back at the bottom right, where this
  // box sits: the box steps aside while it is on (Ctrl+O still opens the picker)
  const place = () => {
    const figure = window.Module.ccall('attnviz_holds', 'number', ['string', 'string'], ['figure', '1']) === 1;
    box.style.display = figure ? 'none' : '';
  };
  window.Module.attnvizFirstFrame = () => {
    if (first) first();
    enable();
    place();
    setInterval(place, 200);
  };
  openFolder.addEventListener('click', () => folderInput.click());
  openFiles.addEventListener('click', () => filesInput.click());
  // Ctrl+O: the folder picker (a key press lets the page open it); kept from SDL and the browser
  window.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.code === 'KeyO') {
      e.preventDefault();
      e.stopImmediatePropagation();
      if (!openFolder.disabled) folderInput.click();
    }
  }, true);

  async function open(list) {
    const { files, name } = attnvizModelPick(list);
    const M = window.Module, FS = M.FS, dir = `/hf/${name}`, t0 = performance.now();
    const weights = files['model.safetensors'];
    if (!weights && !files['config.json']) { // not a model folder at all: said here, nothing read
      const bin = list.some((f) => /(^|\/)pytorch_model\.bin$/.test(f.webkitRelativePath || f.name));
      say(zh() ? `这里没有 config.json 和 model.safetensors${bin ? '（只有 pytorch_model.bin：attnviz 不读 pickle，换算方法见 docs/models.md）' : ''}。请选 Hugging Face 模型的文件夹。`
        : `No config.json or model.safetensors here${bin ? ' (only pytorch_model.bin: attnviz reads no pickles; docs/models.md gives the conversion)' : ''}. Pick a Hugging Face model's folder.`, true);
      window.attnvizModelOpen = { ok: false, refused: 'files' };
      return;
    }
    // wasm32's heap: 2 GiB at most (emscripten's MAXIMUM_MEMORY with
    // ALLOW_MEMORY_GROWTH, CMakeLists.txt), the file and the run in it.
    // Measured (docs/web.md): GPT-2 small's 498 MB file took a 765 MB heap,
    // GPT-2 medium's 1,419 MB one 1,876 MB at 20 tokens; a larger file is
    // refused here, before reading it
    const limit = 2 ** 31 - (512 << 20);
    if (weights && weights.size > limit) {
      const mb = Math.round(weights.size / 1e6), max = Math.round(limit / 1e6);
      say(zh() ? `model.safetensors 有 ${mb} MB；浏览器版最多读入 ${max} MB（wasm32 的内存最多 2 GiB，还要留给计算；GPT-2 medium 的 1419 MB 放得下）。更大的模型请用桌面版：attnviz --hf 文件夹`
        : `model.safetensors is ${mb} MB; the browser build reads at most ${max} MB (wasm32 has 2 GiB of memory, which the computation shares; GPT-2 medium's 1,419 MB fits). Open larger models in the desktop app: attnviz --hf FOLDER`, true);
      window.attnvizModelOpen = { ok: false, refused: 'size', bytes: weights.size };
      return;
    }
    busy = true;
    enable();
    let ptr = 0;
    try {
      try { // the last folder of that name: its small files go (its weights stay with the model shown)
        for (const e of FS.readdir(dir)) if (e !== '.' && e !== '..') FS.unlink(`${dir}/${e}`);
      } catch (e) { FS.mkdirTree(dir); }
      for (const n of ['config.json', 'vocab.json', 'merges.txt', 'vocab.txt']) {
        if (files[n]) FS.writeFile(`${dir}/${n}`, new Uint8Array(await files[n].arrayBuffer()));
      }
      if (weights) {
        ptr = M._malloc(Math.max(weights.size, 1));
        if (!ptr) throw new Error(zh() ? `内存不够读入 model.safetensors（${(weights.size / 1e6).toFixed(0)} MB）。`
          : `Not enough memory for model.safetensors (${(weights.size / 1e6).toFixed(0)} MB).`);
        for (let at = 0; at < weights.size; at += ATTNVIZ_SLICE) {
          const slice = new Uint8Array(await weights.slice(at, Math.min(weights.size, at + ATTNVIZ_SLICE)).arrayBuffer());
          M.HEAPU8.set(slice, ptr + at); // HEAPU8 read each time: a grown heap is a new view
          if (weights.size > 4 * ATTNVIZ_SLICE) {
            say(zh() ? `正在读入 model.safetensors… ${Math.round((100 * (at + slice.length)) / weights.size)}%`
              : `Reading model.safetensors… ${Math.round((100 * (at + slice.length)) / weights.size)}%`);
          }
        }
      }
      const t1 = performance.now();
      say(zh() ? '正在打开…' : 'Opening…');
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))); // the note shows first
      // the link's sentence= (attnviz's --sentence), else the default sentence of --hf
      const sentence = new URLSearchParams(location.search).get('sentence') || '';
      const rc = M.ccall('attnviz_open_hf', 'number', ['string', 'number', 'number', 'string'],
        [dir, ptr, weights ? weights.size : 0, sentence]);
      ptr = 0; // the C side owns it now (and freed it if refused)
      const t2 = performance.now();
      say('');
      // opened; its first run goes on in slices of the frames (attnviz_holds('computing', '0') once published)
      window.attnvizModelOpen = { ok: rc === 1, name, dir, readMs: t1 - t0, openMs: t2 - t1, openedAt: t2,
        heapBytes: M.HEAPU8.length, bytes: weights ? weights.size : 0 };
    } catch (e) {
      if (ptr) M._free(ptr);
      say(String(e.message || e), true);
      window.attnvizModelOpen = { ok: false, error: String(e.message || e) };
    } finally {
      busy = false;
      enable();
    }
  }
  const picked = (input) => {
    const list = Array.from(input.files || []);
    input.value = ''; // the same folder picked again is a change again
    if (list.length) open(list);
  };
  folderInput.addEventListener('change', () => picked(folderInput));
  filesInput.addEventListener('change', () => picked(filesInput));
})();
