#!/usr/bin/python3
"""attnviz's WordPiece (src/hf/wordpiece, through the hf_tokenize test binary)
against BERT's BasicTokenizer + WordpieceTokenizer written here in Python
from the published algorithm (unicodedata for the categories, lower() and
NFD), on corpus.json and a few more sentences, with a vocab.txt this script
writes. No npm package implements BERT's WordPiece without native code or a
model download, hence Python. Usage: compare_wordpiece.py HF_TOKENIZE
"""
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

CJK_BLOCKS = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
              (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]


def is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def is_control(c):
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")


def is_punct(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def is_cjk(c):
    return any(lo <= ord(c) <= hi for lo, hi in CJK_BLOCKS)


def basic_tokens(text, lower=True):
    text = "".join(" " if is_whitespace(c) else c for c in text
                   if not (ord(c) == 0 or ord(c) == 0xFFFD or is_control(c)))
    text = "".join(f" {c} " if is_cjk(c) else c for c in text)
    out = []
    for word in text.split():
        if lower:
            word = "".join(c for c in unicodedata.normalize("NFD", word.lower())
                           if unicodedata.category(c) != "Mn")
        current = ""
        for c in word:
            if is_punct(c):
                if current:
                    out.append(current)
                out.append(c)
                current = ""
            else:
                current += c
        if current:
            out.append(current)
    return out


def wordpiece(word, vocab):
    if len(word) > 100:
        return [vocab["[UNK]"]]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while end > start:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab:
                found = vocab[sub]
                break
            end -= 1
        if found is None:
            return [vocab["[UNK]"]]
        pieces.append(found)
        start = end
    return pieces


def reference(text, vocab):
    ids = [vocab["[CLS]"]]
    for word in basic_tokens(text):
        ids += wordpiece(word, vocab)
    return ids


def make_vocab(corpus):
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += "the cat sat on mat because it was tired don t s hello world un ##aff ##able cafe naive".split()
    tokens += "resume ##s ##ing ##ed ##ly para one two tab and windows lines no break space".split()
    tokens += list(".,!?;:'-$<>|") + [str(d) for d in range(10)] + ["##" + str(d) for d in range(10)]
    tokens += [chr(c) for c in range(ord("a"), ord("z") + 1) if c != ord("q")]
    tokens += ["##" + chr(c) for c in range(ord("a"), ord("z") + 1) if c != ord("x")]
    # every ideograph of the corpus but 累 (so that one is [UNK]); a few two-character words
    han = sorted({c for s in corpus for c in s if is_cjk(c)} - {"累"})
    tokens += han + ["##" + c for c in han[:10]] + ["中文", "天气"]
    seen, out = set(), []
    for t in tokens:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


EXTRA = ["UNaffable", "Ｆｕｌｌｗｉｄｔｈ ｌｅｔｔｅｒｓ", "İstanbul ﬁne Straße ẞ", "가나다 한국어",
         "a" * 100, "b" * 101, "ctrl\x01char\x7f\u200bzero\ufffdwidth", "quixotic xylophone",
         "中文中文 天气", "ÀÉÎÕÜ àéîõü", "\u3000\u00a0 spaces\u2003em", "hello—world…«quoted»"]


def main():
    binary = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "corpus.json"), encoding="utf-8") as f:
        corpus = json.load(f) + EXTRA
    tokens = make_vocab(corpus)
    vocab = {t: i for i, t in enumerate(tokens)}
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "vocab.txt")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(tokens) + "\n")
        # every text in one run: each ended by a NUL byte, one JSON line back for each
        r = subprocess.run([binary, "wordpiece", path], capture_output=True,
                           input=b"".join(t.encode("utf-8") + b"\0" for t in corpus))
        if r.returncode != 0:
            print(f"FAIL hf_tokenize: {r.stderr.decode()}")
            return 1
        results = [json.loads(line) for line in r.stdout.decode("utf-8").splitlines()]
        if len(results) != len(corpus):
            print(f"FAIL hf_tokenize gave {len(results)} results for {len(corpus)} texts")
            return 1
        for text, ours in zip(corpus, results):
            want = reference(text, vocab)
            if ours["ids"] != want:
                print(f"FAIL {text!r}:\n  attnviz   {ours['ids']}\n  reference {want}")
                failures += 1
                continue
            size = len(text.encode("utf-8"))
            ends = [e for _, e in ours["offsets"]]
            if any(s > e or e > size for s, e in ours["offsets"]) or ends != sorted(ends):
                print(f"FAIL {text!r}: offsets {ours['offsets']}")
                failures += 1
                continue
            print(f"ok {len(want)} tokens: {' '.join(ours['labels'])[:150]}")
    print(f"{failures} differences" if failures else f"all {len(corpus)} sentences agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
