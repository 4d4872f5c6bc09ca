#!/usr/bin/python3
"""The text stays true after every edit a page invites (issue 23): drives
each @try suggestion of every page of a lesson in the real window (a click
on its chip), then checks that the sentence is the suggestion's, that the
narrative never shows "—", that a page with @own text says R brings it
back, and that every number the narrative prints is one the figure shows:
a cell of the scores, scaled scores or weights of a layer (copied with
Ctrl+C), or the ratio of two weights of the pronoun's row; and that the
page's @edited text is there in place of its @own text.

Usage: tries.py script LESSON OUT   > the script (writes nothing else)
       tries.py check  LESSON OUT       (after the app ran the script)
"""
import math
import os
import re
import sys

STEPS = [3, 4, 6]  # scores, scaled, weights: what the lessons' references quote


def pages(lesson):
    """Pages in order: id, question, model layers (0: designed), @own, its @try sentences."""
    out = []
    for line in open(lesson, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"=== page:\s*(\S+)", line)
        if m:
            out.append({"id": m.group(1), "question": False, "model": None, "own": False, "tries": [], "edited": ""})
        elif out and line.startswith("@predict"):
            out[-1]["question"] = True
        elif out and line.startswith("@model"):
            out[-1]["model"] = line.split(":", 1)[1].strip()
        elif out and line.strip() == "@own":
            out[-1]["own"] = True
        elif out and line.startswith("@edited"):
            out[-1]["edited"] = line.split(":", 1)[1].split("{", 1)[0].strip()  # its words before the first reference
        elif out and line.startswith("@try"):
            out[-1]["tries"] = [t.strip() for t in line.split(":", 1)[1].split("|")]
    return out


def script(lesson, out):
    lines = ["size 1280 800"]
    for p, page in enumerate(pages(lesson)):
        if p:
            lines.append("key n")
        lines.append("expect page " + page["id"])
        for i, sentence in enumerate(page["tries"]):
            tag = f"{out}/{page['id']}.{i}"
            if page["question"]:
                lines.append("click token 0")  # answered: the text after @reveal shows
            lines += [f"click control try {i}", f"expect sentence {sentence}", f"save narrative {tag}.txt"]
            layers = 2 if page["model"] else 1
            lines += ["key ["] * (layers - 1)
            for layer in range(1, layers + 1):
                for step in STEPS:
                    lines += [f"key {step}", "key ctrl+c", f"save clipboard {tag}.L{layer}.{step}.tsv"]
                if layer < layers:
                    lines.append("key ]")
            lines.append("key r")
    lines.append("quit")
    return "\n".join(lines) + "\n"


def read_tsv(path):
    rows = [r.split("\t") for r in open(path, encoding="utf-8").read().rstrip("\n").split("\n")]
    return rows[0][1:], [[float("-inf") if v == "-inf" else float(v) for v in r[1:]] for r in rows[1:]]


def shown(v):
    """The ways the narrative writes a value: 2 decimals, or 3 significant digits (exact)."""
    if math.isinf(v):
        return set()
    return {f"{v:.2f}", f"{abs(v):.2f}", f"{v:.3g}", f"{abs(v):.3g}"}


def check(lesson, out):
    failures, checked = [], 0
    for page in pages(lesson):
        for i, sentence in enumerate(page["tries"]):
            tag = f"{out}/{page['id']}.{i}"
            text = open(f"{tag}.txt", encoding="utf-8").read()
            where = f"{page['id']} @try {i + 1} ({sentence})"
            if re.search(r"(?<!—)—(?!—)", text):  # a reference without a value (zh writes "——" as a dash)
                failures.append(f"{where}: the narrative shows “—”")
            if page["own"] and "R" not in text:
                failures.append(f"{where}: the text after the edit does not say R brings the page's own back")
            if page["own"] and page["edited"] and page["edited"] not in text:
                failures.append(f"{where}: the page's @edited text is missing (a reference it makes failed)")
            values, ratios = set(), set()
            for layer in (1, 2) if page["model"] else (1,):
                for step in STEPS:
                    labels, rows = read_tsv(f"{tag}.L{layer}.{step}.tsv")
                    for r in rows:
                        for v in r:
                            values |= shown(v)
                    if step == 6:
                        pron = [k for k, t in enumerate(labels) if t in ("it", "它")]
                        row = rows[pron[0]] if pron else []
                        ratios |= {f"{a / b:.2f}" for a in row for b in row if b > 0}
            numbers = re.findall(r"(?<![\w.])\d+\.\d+(?![\w.%])", text)
            for n in numbers:
                checked += 1
                if n not in values and n not in ratios:
                    failures.append(f"{where}: the narrative says {n}, which no cell of the figure shows")
    for f in failures:
        print("FAIL:", f)
    print(f"{lesson}: {sum(len(p['tries']) for p in pages(lesson))} suggestions, {checked} numbers checked, "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "script":
        sys.stdout.write(script(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "check":  # a 5th argument (the binary) is not needed
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
