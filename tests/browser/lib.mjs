// lib.mjs — Debian's chromium through playwright-core, with nothing leaving
// the machine: every request that is not file: is recorded and aborted, and
// console errors and page errors are collected.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.ATTNVIZ_CHROMIUM || '/usr/bin/chromium';

// A browser with a fresh profile; close() removes the profile.
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'attnviz-chromium-'));
  const args = ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--no-first-run', '--disable-quic'];
  const env = { ...process.env, FONTCONFIG_FILE: join(dirname(fileURLToPath(import.meta.url)), 'fonts.conf') };
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox'); // chromium refuses its sandbox as root
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args, env, viewport: { width: 1720, height: 1000 }, deviceScaleFactor: 1,
  });
  const outside = [], errors = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  context.on('page', (page) => watch(page, errors));
  return {
    context, outside, errors,
    async page() {
      const page = context.pages()[0] || (await context.newPage());
      if (!page.__watched) watch(page, errors);
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

function watch(page, errors) {
  page.__watched = true;
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
}

// Opens a page and waits until every figure on it reacts.
export async function open(page, file) {
  await page.goto('file://' + file);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-attnviz]')].every(
    (f) => f.getAttribute('data-attnviz-ready') === 'yes'));
}
