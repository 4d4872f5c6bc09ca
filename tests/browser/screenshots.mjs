// screenshots.mjs — the README's pictures of --format html pages, taken in
// Debian's chromium (scripts/screenshots.sh runs it after exporting):
//   node screenshots.mjs EXPORT_EN EXPORT_ZH OUT_DIR
// html-en.png: the seed sentence's softmax page, a cell hovered after a
// click on a token; html-zh.png: the Chinese lesson's question, answered.
import { join } from 'node:path';

import { launch, open } from './lib.mjs';

const [en, zh, out] = process.argv.slice(2);
const browser = await launch();
const page = await browser.page();

await open(page, join(en, '06-softmax.html'));
await page.locator('[data-token="10"]').first().click(); // ，: the query moves off 它
await page.locator('[data-token="13"]').first().click(); // and back
await page.locator('[data-cell="weights:0:13:9"]').hover();
await page.locator('figure.attnviz').screenshot({ path: join(out, 'html-en.png') });

await open(page, join(zh, '01-intro.html'));
await page.locator('[data-token="7"]').first().click(); // the guess: 鸟
await page.locator('[data-cell="weights:0:10:7"]').hover();
await page.locator('figure.attnviz').screenshot({ path: join(out, 'html-zh.png') });

if (browser.outside.length || browser.errors.length) throw new Error([...browser.outside, ...browser.errors].join('\n'));
await browser.close();
