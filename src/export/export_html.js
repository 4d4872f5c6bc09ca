// attnviz --format html: makes every figure of the document interactive.
// Defines no globals; a figure already set up (data-attnviz-ready) is left
// alone, so several copies of this script on one page do no harm.
//
// The figure's data block (written by src/export/export_html.c) is JSON,
// compressed with zlib and written in base64:
//   q      the query token the figure starts on; n the number of tokens
//   f      SVG fragments; b the fragment of each slot (<g data-s>) as written
//          (-1: empty); v[q] the pairs slot, fragment where query q differs:
//          what the window redraws for a new query ([-1]: leave the figure)
//   c      per cell "STAGE:HEAD:ROW:COL" (a model's "STAGE:LAYER:HEAD:ROW:COL"): [panel lines,
//          focus line, hover fragments]
//   l      panel lines "KF…" (kind, focus 0/1, then viz_explain_text's words)
//   tl     each token's accessible name; empty: the panel's text with no cell
//   g, r   an open question: each guess's answer, and the revealed figure
(() => {
  'use strict';
  const KINDS = ['title', 'formula', 'term', 'result', 'note'];

  async function load(root) {
    const text = root.querySelector('script.attnviz-data').textContent.replace(/\s+/g, '');
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const json = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    return JSON.parse(await new Response(json).text());
  }

  async function setup(root) {
    root.setAttribute('data-attnviz-ready', '');
    const data = await load(root);
    const svg = root.querySelector('svg');
    const lines = root.querySelector('[data-panel="explain"] .attnviz-lines');
    const status = root.querySelector('[data-status]');
    let hover = svg.querySelector('[data-hover]');
    let slots = [];
    let shown = [];            // the fragment each slot holds now
    let asking = 'r' in data;  // a question is open: the answer is hidden
    let query = data.q;
    let cell = null;           // the cell the panel shows
    const last = new Map();    // per keyboard group: the element name focused last

    const hitOf = (el) => (el && el.closest ? el.closest('.attnviz-hit') : null);
    const group = (el) => (el.hasAttribute('data-token') ? 'tokens' : el.dataset.cell.split(':').slice(0, -2).join(':'));
    const nameOf = (el) => el.dataset.cell || el.dataset.token;

    function collectSlots() {
      slots = Array.from(svg.querySelectorAll('[data-s]'));
      shown = data.b.slice(); // as written
    }

    // Roles, names and one tab stop per group (the last focused, else the first).
    function refresh() {
      const first = new Map(), chosen = new Map();
      for (const el of svg.querySelectorAll('.attnviz-hit')) {
        const g = group(el), name = nameOf(el);
        el.setAttribute('tabindex', '-1');
        if (el.hasAttribute('data-token')) {
          el.setAttribute('role', 'button');
          el.setAttribute('aria-label', data.tl[+name]);
          el.setAttribute('aria-pressed', String(+name === query));
        } else {
          const c = data.c[name];
          if (c) el.setAttribute('aria-label', data.l[c[0][0]].slice(2) + ': ' + data.l[c[0][c[0].length - 1]].slice(2));
        }
        if (!first.has(g)) first.set(g, el);
        if (!chosen.has(g) && last.get(g) === name) chosen.set(g, el);
      }
      for (const [g, el] of first) (chosen.get(g) || el).setAttribute('tabindex', '0');
    }

    function showQuery(q) {
      const keep = document.activeElement && svg.contains(document.activeElement) ? document.activeElement : null;
      const keepName = keep ? nameOf(keep) : null, keepGroup = keep ? group(keep) : null;
      const v = data.v[q], want = data.b.slice();
      if (v.length === 1) return; // a view the page could not make: the figure stays
      for (let i = 0; i < v.length; i += 2) want[v[i]] = v[i + 1];
      slots.forEach((el, k) => {
        if (shown[k] === want[k]) return;
        el.innerHTML = want[k] < 0 ? '' : data.f[want[k]];
        shown[k] = want[k];
      });
      query = q;
      root.setAttribute('data-query', String(q));
      refresh();
      if (keep && !keep.isConnected) focusName(keepGroup, keepName); // its slot was redrawn
    }

    function reveal(guess) {
      svg.innerHTML = data.r + '<g data-hover=""></g>';
      hover = svg.querySelector('[data-hover]');
      asking = false;
      collectSlots();
      status.textContent = data.g[guess];
      for (const el of root.parentElement.querySelectorAll('[data-reveal]')) el.hidden = false; // the answer's text
      showQuery(query);
    }

    function choose(token) {
      if (asking) reveal(token); // the click answers the question; the query stays
      else showQuery(token);
    }

    function showCell(name) {
      const c = name ? data.c[name] : null;
      cell = c ? name : null;
      hover.innerHTML = c ? c[2].map((i) => data.f[i]).join('') : '';
      lines.textContent = '';
      if (!c) {
        const p = document.createElement('p');
        p.className = 'attnviz-empty';
        p.textContent = data.empty;
        lines.appendChild(p);
        return;
      }
      let focus = null;
      c[0].forEach((li, k) => {
        const s = data.l[li], kind = KINDS[+s[0]];
        const d = document.createElement('div');
        d.className = 'attnviz-' + kind + (s[1] === '1' ? ' attnviz-focus' : '');
        d.dataset.kind = kind;
        d.textContent = s.slice(2);
        lines.appendChild(d);
        if (k === c[1]) focus = d;
      });
      const panel = lines.parentElement;
      if (focus && focus.offsetTop + focus.offsetHeight > panel.clientHeight) // keep the cell's own term in view
        panel.scrollTop = focus.offsetTop - panel.clientHeight / 2;
      else panel.scrollTop = 0;
    }

    function focusName(g, name) {
      for (const el of svg.querySelectorAll('.attnviz-hit'))
        if (group(el) === g && nameOf(el) === name) {
          focusEl(el);
          return;
        }
    }

    function focusEl(el) {
      last.set(group(el), nameOf(el));
      refresh();
      el.focus();
    }

    // Arrow keys: the next token, or the neighbouring cell on screen (a
    // transposed matrix moves as it is drawn).
    function move(el, dx, dy) {
      if (el.hasAttribute('data-token')) {
        const t = Math.min(data.n - 1, Math.max(0, +el.dataset.token + (dx || dy)));
        focusName('tokens', String(t));
        return;
      }
      const g = group(el), box = (e) => [+e.getAttribute('x'), +e.getAttribute('y')];
      const cells = Array.from(svg.querySelectorAll('.attnviz-hit[data-cell]')).filter((e) => group(e) === g);
      const xs = [...new Set(cells.map((e) => box(e)[0]))].sort((a, b) => a - b);
      const ys = [...new Set(cells.map((e) => box(e)[1]))].sort((a, b) => a - b);
      const [x, y] = box(el);
      const xi = Math.min(xs.length - 1, Math.max(0, xs.indexOf(x) + dx));
      const yi = Math.min(ys.length - 1, Math.max(0, ys.indexOf(y) + dy));
      const next = cells.find((e) => box(e)[0] === xs[xi] && box(e)[1] === ys[yi]);
      if (next) focusEl(next);
    }

    const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

    svg.addEventListener('pointerover', (e) => {
      const el = hitOf(e.target);
      if (el && el.dataset.cell && el.dataset.cell !== cell) showCell(el.dataset.cell);
    });
    svg.addEventListener('focusin', (e) => {
      const el = hitOf(e.target);
      if (!el) return;
      last.set(group(el), nameOf(el));
      if (el.dataset.cell) showCell(el.dataset.cell);
    });
    svg.addEventListener('click', (e) => {
      const el = hitOf(e.target);
      if (!el || !el.hasAttribute('data-token')) return;
      showCell(null); // as in the window: the pointer is on a token, not a cell
      choose(+el.dataset.token);
    });
    svg.addEventListener('keydown', (e) => {
      const el = hitOf(e.target);
      if (!el) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        choose(el.dataset.cell ? +el.dataset.cell.split(':').slice(-2)[0] : +el.dataset.token); // a cell: its row's token
      } else if (ARROWS[e.key]) {
        e.preventDefault();
        move(el, ...ARROWS[e.key]);
      }
    });

    collectSlots();
    last.set('tokens', String(query));
    refresh();
    root.setAttribute('data-attnviz-ready', 'yes'); // for tests and authors' scripts: now it reacts
  }

  function setupAll() {
    for (const root of document.querySelectorAll('[data-attnviz]:not([data-attnviz-ready])'))
      setup(root).catch((e) => console.error('attnviz: this figure cannot become interactive:', e));
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setupAll);
  else setupAll();
})();
